package trust

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/store"
)

// briefHash identifies a brief: its type, description and params (JSON sorts map keys, so equal
// briefs hash equally).
func briefHash(t *axp.TaskRecord) string {
	b, _ := json.Marshal(map[string]any{"type": t.Type, "description": t.Description, "params": t.Params})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// CheckListing applies the listing policy to a new task. A refusal is recorded (in its own
// transaction, since the creation itself fails) and answered as forbidden with the reason.
func (s *Service) CheckListing(ctx context.Context, c axp.Caller, t *axp.TaskRecord) error {
	pol := screening.ListingPolicy(t.Type, t.Description, t.Params)
	if pol == nil {
		return nil
	}
	hash := briefHash(t)
	var rej *axp.ListingRejection
	passed := false
	_, err := s.base.Mutate(ctx, c.Actor(), func(ch *kernel.Change) (any, error) {
		rej, passed = nil, false
		r, err := ch.Tx.ListingByHash(hash)
		if err != nil {
			return nil, err
		}
		if r != nil && r.Status == axp.ListingOverturned {
			passed = true
			return nil, ch.Audit("listing.pass", "listing", r.ID, map[string]any{"category": r.Category, "overturned": true})
		}
		if r == nil {
			desc := screening.StoredCopy(t.Description, false)
			params := map[string]any{}
			for k, v := range t.Params {
				if str, ok := v.(string); ok {
					v = screening.StoredCopy(str, screening.DataSourceParam(k))
				}
				params[k] = v
			}
			r = &axp.ListingRejection{ID: axp.NewID("lst", ch.Now), BriefHash: hash, Type: t.Type, Description: desc,
				Params: params, Category: pol.Category, Reason: pol.Reason, Actor: c.Actor(), Status: axp.ListingRejected,
				CreatedAt: ch.Now}
		}
		r.Posts++
		if err := ch.Tx.PutListingRejection(r); err != nil {
			return nil, err
		}
		rej = r
		return nil, ch.Audit("listing.reject", "listing", r.ID, map[string]any{"category": r.Category, "type": t.Type})
	})
	if err != nil || passed {
		return err
	}
	s.base.Log.InfoContext(ctx, "listing rejected", "source", "trust", "rejection", rej.ID, "category", rej.Category, "type", t.Type)
	return axp.Forbidden("this listing is not accepted: "+rej.Reason+" (category "+rej.Category+", rejection "+rej.ID+")",
		"if this is a mistake, ask the operator (POST /api/members/me/operator-messages or /api/feedback) to overturn rejection "+
			rej.ID+"; then post the same brief again")
}

func (s *Service) adminListings(ctx context.Context, c *pipeline.Call, in *axp.ListingsQuery) (*axp.ListingList, error) {
	out := &axp.ListingList{Listings: []axp.ListingRejection{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		return tx.EachListingRejection(func(r *axp.ListingRejection) bool {
			if in.Status == "" || in.Status == "all" || r.Status == in.Status {
				out.Listings = append(out.Listings, *r)
			}
			return len(out.Listings) < 1000
		})
	})
	return out, err
}

func (s *Service) adminOverturnListing(ctx context.Context, c *pipeline.Call, in *axp.OverturnBody) (*axp.ListingRejection, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.ListingRejection, error) {
		r, err := ch.Tx.ListingRejection(in.ID)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, axp.NotFound("listing rejection", in.ID)
		}
		if r.Status == axp.ListingOverturned {
			return nil, axp.Conflict("rejection "+r.ID+" was already overturned", "the buyer may post the same brief again")
		}
		now := ch.Now
		r.Status, r.OverturnNote, r.OverturnedAt = axp.ListingOverturned, in.Note, &now
		if err := ch.Tx.PutListingRejection(r); err != nil {
			return nil, err
		}
		if err := ch.Audit("listing.overturn", "listing", r.ID, map[string]any{"category": r.Category, "note": in.Note}); err != nil {
			return nil, err
		}
		return r, nil
	})
}
