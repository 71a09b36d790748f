package kernel

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

// Authenticate establishes the caller: a member secret, the admin token, or a buyer token.
func (k *Kernel) Authenticate(r *http.Request) (axp.Caller, error) {
	c := axp.Caller{Kind: axp.Anonymous, IP: k.ClientIP(r)}
	cred := ""
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, val, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(val) == "" {
			return c, axp.Unauthorized("the Authorization header is malformed", "send Authorization: Bearer <secret>")
		}
		cred = strings.TrimSpace(val)
	}
	if cred == "" {
		if t := queryToken(r); t != "" {
			c.Kind, c.Token = axp.BuyerToken, t
		}
		return c, nil
	}
	if strings.HasPrefix(cred, "ss_") {
		m, err := k.MemberBySecret(cred)
		if err != nil {
			return c, pipeline.Outage(err)
		}
		c.Kind, c.MemberID, c.Roles = axp.MemberCall, m.ID, m.Roles
		if t := queryToken(r); t != "" {
			c.Token = t
		}
		k.Touch(r.Context(), m.ID)
		return c, nil
	}
	given := sha256.Sum256([]byte(cred))
	if hmac.Equal(given[:], k.AdminHash[:]) {
		c.Kind = axp.Operator
		return c, nil
	}
	c.Kind, c.Token = axp.BuyerToken, cred
	return c, nil
}

// RefuseEarly refuses, from its headers alone, a request of an anonymous caller (no credentials, or
// a buyer token) whose address has spent its anonymous budget (anon_reads_per_minute): the JSON-RPC
// doors name the operation in the body, so without this a slow body would hold the request until
// read_timeout before the limit is applied. Member and operator credentials are not judged here.
func (k *Kernel) RefuseEarly(r *http.Request) error {
	if k.AnonReads == nil {
		return nil
	}
	if h := r.Header.Get("Authorization"); h != "" {
		_, cred, _ := strings.Cut(h, " ")
		cred = strings.TrimSpace(cred)
		given := sha256.Sum256([]byte(cred))
		if strings.HasPrefix(cred, "ss_") || hmac.Equal(given[:], k.AdminHash[:]) {
			return nil
		}
	}
	return k.AnonReads.peek(k.ClientIP(r), k.Now())
}

// queryToken reads ?token= without parsing the query when it cannot hold one.
func queryToken(r *http.Request) string {
	if !strings.Contains(r.URL.RawQuery, "token=") {
		return ""
	}
	return r.URL.Query().Get("token")
}

var errBadSecret = axp.Unauthorized("the member secret is not valid", "use the member_secret returned at registration (ss_<member_id>_<64 hex>)")

func (k *Kernel) MemberBySecret(secret string) (*axp.Member, error) {
	id, ok := axp.MemberIDFromSecret(secret)
	if !ok {
		return nil, errBadSecret
	}
	var m *axp.Member
	if err := k.Store.View(func(tx *store.Tx) error {
		var err error
		m, err = tx.Member(id)
		return err
	}); err != nil {
		return nil, err
	}
	given := sha256.Sum256([]byte(secret))
	var want []byte
	if m != nil {
		want, _ = hex.DecodeString(m.SecretHash)
	}
	if m == nil || !hmac.Equal(given[:], want) {
		return nil, errBadSecret
	}
	if m.State == axp.MemberSuspended {
		return nil, axp.Forbidden("this member is suspended", "send a message to the operator through the contact on /api/faq")
	}
	return m, nil
}

// Touch resets a member's check-in clock, writing at most once a minute per member.
func (k *Kernel) Touch(ctx context.Context, id string) {
	now := k.Now()
	k.SeenMu.Lock()
	last := k.Seen[id]
	fresh := now.Sub(last) < time.Minute
	if !fresh {
		k.Seen[id] = now
	}
	k.SeenMu.Unlock()
	if fresh {
		return
	}
	err := k.Store.Update(func(tx *store.Tx) error {
		m, err := tx.Member(id)
		if err != nil || m == nil {
			return err
		}
		m.LastSeenAt = now
		return tx.PutMember(m)
	})
	if err != nil {
		k.Log.WarnContext(ctx, "could not record member contact", "source", "members", "member", id, "err", err)
	}
}

func (k *Kernel) ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	for _, p := range k.Cfg.TrustedProxies {
		if p == host {
			if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
				parts := strings.Split(xff, ",")
				return strings.TrimSpace(parts[len(parts)-1])
			}
		}
	}
	return host
}
