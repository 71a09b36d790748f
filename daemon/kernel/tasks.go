package kernel

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

// AudienceOf says how the caller sees a task: its buyer, its chosen seller, or a seller that may
// quote on it while it is open. Anyone else is refused.
func AudienceOf(tx *store.Tx, t *axp.TaskRecord, c axp.Caller) (string, error) {
	buyerErr := AsBuyer(t, c)
	if buyerErr == nil {
		return ViewBuyer, nil
	}
	if c.Kind == axp.MemberCall {
		if c.MemberID == t.SellerID {
			return ViewSeller, nil
		}
		if t.Status == axp.TaskOpen {
			m, err := tx.Member(c.MemberID)
			if err != nil {
				return "", err
			}
			if m != nil {
				if _, ok := m.Matches(t); ok {
					return ViewSeller, nil
				}
			}
		}
	}
	return "", buyerErr
}

// LoadTask reads a task, as not_found when missing.
func LoadTask(tx *store.Tx, id string) (*axp.TaskRecord, error) {
	t, err := tx.Task(id)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, axp.NotFound("task", id)
	}
	return t, nil
}

func TokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// AsBuyer checks that the caller acts for the task's buyer: the buyer token (query or Bearer), or
// the member secret of the buyer member who posted it.
func AsBuyer(t *axp.TaskRecord, c axp.Caller) error {
	if c.Kind == axp.MemberCall && t.BuyerMemberID != "" && c.MemberID == t.BuyerMemberID {
		return nil
	}
	if c.Token == "" {
		if c.Kind == axp.MemberCall {
			return axp.Forbidden("you are not the buyer of this task", "use the task's buyer_token as ?token=")
		}
		return axp.Unauthorized("this step needs the task's buyer token", "send ?token=<buyer_token> or Authorization: Bearer <buyer_token>")
	}
	want, _ := hex.DecodeString(t.BuyerTokenHash)
	got := sha256.Sum256([]byte(c.Token))
	if !hmac.Equal(got[:], want) {
		return axp.Unauthorized("the buyer token does not match this task", "use the buyer_token returned when the task was created")
	}
	return nil
}

// Owns checks the caller against the owner op declares (axp.Owner) of the record the path's {id}
// names, before the handler runs: for REST from the path and the headers alone, before the body is
// read (a stranger is refused without waiting for a slow body), for the other doors once the
// arguments are read. It answers the caller's side (axp.SideBuyer or axp.SideSeller), "" when the
// operation declares no owner or the record does not exist (the handler, which checks its input
// first, answers 404).
// The task it reads is kept in call.Seen, which LoadOwned takes while the task is unchanged.
func (k *Kernel) Owns(call *pipeline.Call, id string) (side string, err error) {
	op := call.Op
	if op.Owner == contract.NoOwner || id == "" {
		return "", nil
	}
	err = k.Store.View(func(tx *store.Tx) error {
		t, err := ownedTask(tx, op, id, &call.Seen)
		if err != nil || t == nil {
			return err
		}
		side, err = Owned(tx, op, t, call.Caller)
		return err
	})
	return side, err
}

// ownedTask reads the task the {id} of op's path names: the task itself, or the task of the
// mediation {id} of /api/mediations/{id}...; nil when there is none. It keeps the task in seen.
func ownedTask(tx *store.Tx, op *contract.Op, id string, seen *store.TaskSeen) (*axp.TaskRecord, error) {
	if strings.HasPrefix(op.Path, "/api/mediations/{id}") {
		m, err := tx.Mediation(id)
		if err != nil || m == nil {
			return nil, err
		}
		id = m.TaskID
	}
	return tx.SeeTask(id, seen)
}

// Owned checks the caller against op's declared owner of task t and answers its side; a handler
// whose answer depends on the side reads it again here, inside its own transaction.
func Owned(tx *store.Tx, op *contract.Op, t *axp.TaskRecord, c axp.Caller) (string, error) {
	switch op.Owner {
	case contract.TaskBuyer:
		return axp.SideBuyer, AsBuyer(t, c)
	case contract.JobSeller:
		return axp.SideSeller, AsSeller(t, c)
	case contract.TaskParties, contract.TaskAudience:
		buyerErr := AsBuyer(t, c)
		if buyerErr == nil {
			return axp.SideBuyer, nil
		}
		if c.Kind != axp.MemberCall {
			return "", buyerErr
		}
		if t.SellerID != "" && c.MemberID == t.SellerID {
			return axp.SideSeller, nil
		}
		if op.Owner == contract.TaskAudience {
			open, err := openTo(tx, t, c.MemberID)
			if err != nil || open {
				return axp.SideSeller, err
			}
		}
		return "", axp.Forbidden("you are not a party to this task", "only the task's buyer and its seller may do this")
	}
	return "", nil
}

// openTo reports whether task t is open to seller id: before a seller is chosen, the seller quoted
// on it or the task matches its skills; at any time, the buyer wrote to it.
func openTo(tx *store.Tx, t *axp.TaskRecord, id string) (bool, error) {
	if t.SellerID == "" {
		q, err := tx.Quote(t.ID, id)
		if err != nil || q != nil {
			return q != nil, err
		}
		m, err := tx.Member(id)
		if err != nil {
			return false, err
		}
		if m != nil {
			if _, ok := m.Matches(t); ok {
				return true, nil
			}
		}
	}
	msgs, err := tx.Messages(t.ID)
	if err != nil {
		return false, err
	}
	for _, m := range msgs {
		if m.SellerID == id {
			return true, nil
		}
	}
	return false, nil
}

// LoadOwned reads the task id inside a handler's transaction and checks the caller against the
// owner the call's operation declares, answering its side there (the pipeline checked it before
// the handler; the side of a seller can change in between).
func LoadOwned(tx *store.Tx, c *pipeline.Call, id string) (*axp.TaskRecord, string, error) {
	t, err := tx.TaskSince(id, &c.Seen)
	if err != nil {
		return nil, "", err
	}
	if t == nil {
		return nil, "", axp.NotFound("task", id)
	}
	side, err := Owned(tx, c.Op, t, c.Caller)
	if err != nil {
		return nil, "", err
	}
	return t, side, nil
}

// AsSeller checks that the caller is the chosen seller of the task.
func AsSeller(t *axp.TaskRecord, c axp.Caller) error {
	if c.Kind != axp.MemberCall {
		return axp.Unauthorized("this step needs the chosen seller's member secret", "send Authorization: Bearer <member_secret>")
	}
	if t.SellerID == "" || c.MemberID != t.SellerID {
		return axp.Forbidden("you are not the chosen seller of this task", "only the seller whose offer was chosen may do this")
	}
	return nil
}

// Event appends a timeline event to the task in the change's transaction.
func (c *Change) Event(t *axp.TaskRecord, kind string, detail map[string]any) error {
	return c.Tx.AppendEvent(t, axp.Event{At: c.Now, Kind: kind, Actor: c.Actor, Status: t.Status, Detail: detail})
}

// PlainEvent is Event stored uncompressed: for the events a change writes by the thousand (a quote
// round's, one per seller), where compressing each costs more than the bytes it saves until the
// timeline is packed.
func (c *Change) PlainEvent(t *axp.TaskRecord, kind string, detail map[string]any) error {
	return c.Tx.AppendPlainEvent(t, axp.Event{At: c.Now, Kind: kind, Actor: c.Actor, Status: t.Status, Detail: detail})
}

// Save stores a task moved from status prev, with its timeline event and audit record.
func (c *Change) Save(t *axp.TaskRecord, prev, action string, detail map[string]any) error {
	if err := c.Event(t, action, detail); err != nil {
		return err
	}
	if err := c.Tx.PutTask(t, prev); err != nil {
		return err
	}
	d := map[string]any{"status": t.Status}
	if prev != "" && prev != t.Status {
		d["from"] = prev
	}
	for k, v := range detail {
		d[k] = v
	}
	return c.Audit("task."+action, "task", t.ID, d)
}

// Audiences of a task view.
// The audiences of a task's view.
const (
	ViewBuyer  = "buyer"
	ViewSeller = "seller"
)

// RFC3339 writes t (nil: none) as an RFC 3339 time in UTC, for the wire.
func RFC3339(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}
