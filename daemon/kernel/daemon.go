package kernel

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Logger is the exchange's logger.
func (k *Kernel) Logger() *slog.Logger { return k.Log }

// DB is the exchange's database.
func (k *Kernel) DB() *store.DB { return k.Store }

// BaseURL is the public address of the exchange.
func (k *Kernel) BaseURL() string {
	if k.Cfg.BaseURL != "" {
		return strings.TrimRight(k.Cfg.BaseURL, "/")
	}
	return "http://" + k.Cfg.Addr
}

// SetBaseURL fixes the base URL once the listener's address is known (port 0).
func (k *Kernel) SetBaseURL(u string) {
	if k.Cfg.BaseURL == "" {
		k.Cfg.BaseURL = u
	}
	k.CacheMu.Lock()
	k.Services, k.Invite = nil, nil
	k.CacheMu.Unlock()
}

// now is the exchange's clock, to the microsecond: every time it records (tasks, timelines, audit,
// approvals, the ledger) has PostgreSQL's precision, and the nanoseconds below it, noise that no
// reader uses, are not stored ~60 times a task.
func (k *Kernel) Now() time.Time { return k.Cfg.Now().UTC().Truncate(time.Microsecond) }

// leading tells whether this daemon runs the once-only background work now.
func (k *Kernel) Leads() bool { return k.Leader.Leading() }

// Leading tells whether this daemon leads the daemons sharing its store (always, on bbolt).
func (k *Kernel) Leading() bool { return k.Leads() }

// Observe records metrics and logs the request.
func (k *Kernel) Observe(r *http.Request, route string, status int, elapsed time.Duration, c axp.Caller, err error) {
	k.Metrics.Observe(route, elapsed, status >= 500, k.Now())
	level := slog.LevelDebug
	switch {
	case status >= 500:
		level = slog.LevelError
	case status >= 400 || r.Method != http.MethodGet:
		level = slog.LevelInfo
	}
	if !k.Log.Enabled(r.Context(), level) {
		return
	}
	attrs := []any{"source", "http", "method", r.Method, "route", route, "status", status,
		"ms", float64(elapsed.Microseconds()) / 1000, "actor", c.Actor(), "ip", protocol.Fingerprint(c.IP)}
	if err != nil {
		attrs = append(attrs, "error", ErrorText(err))
	}
	k.Log.Log(r.Context(), level, "request", attrs...)
}

func ErrorText(err error) string {
	var e *axp.Error
	if errors.As(err, &e) {
		return string(e.Code) + ": " + e.Message
	}
	return err.Error()
}

// Admit applies the rate limits of DESIGN.md section 8. The limits on task creation, registrations
// and operator messages count only calls that change something: the door calls refund when a call
// is refused, replayed or fails. The general limit on anonymous calls counts every call.
func (k *Kernel) Admit(op *axp.Op, c axp.Caller) (refund func(), err error) {
	now := k.Now()
	anonymous := c.Kind == axp.Anonymous || c.Kind == axp.BuyerToken
	switch op.Limit {
	case axp.LimitTaskPosts:
		if anonymous {
			return k.AnonTasks.allow(c.IP, now)
		}
	case axp.LimitRegistrations:
		return k.Registrations.allow(c.IP, now)
	case axp.LimitOperatorMessages:
		return k.OperatorMsgs.allow(c.MemberID, now)
	case axp.LimitBoardPosts:
		return k.BoardPosts.allow(c.MemberID, now)
	}
	if anonymous {
		_, err := k.AnonReads.allow(c.IP, now)
		return nil, err
	}
	return nil, nil
}

// change is the context of one state change: the transaction, who makes it and when.
type Change struct {
	Tx    *store.Tx
	Ctx   context.Context
	Actor string
	Now   time.Time
	// notices are sent to members and callback URLs after the transaction commits.
	Notices []Notice
	// afters run after the transaction commits (log lines, cache resets, follow-up work).
	afters []func()
	// answered: the call's idempotency record was written by answerWithTask.
	answered bool
	// events are the subscribers of typed events emitted in this change.
	Events Subscribers
}

// answerWithTask writes the call's idempotency record (when it has a key) in this transaction as a
// reference to task id: a replay answers with the task's current view, and with extra (sealed
// with the caller's key) for what the task does not keep. Handlers whose answer comes only after
// further work (a quote round) use it, so that the change and its record commit together.
func (c *Change) AnswerWithTask(id string, extra any) error {
	i := axp.IdempotencyFrom(c.Ctx)
	if i == nil || i.Stored() {
		return nil
	}
	body, err := json.Marshal(extra)
	if err != nil {
		return err
	}
	c.answered = true
	return c.Tx.PutIdempotency(i.Key, &store.Idempotency{BodyHash: i.BodyHash, Op: i.Op, Status: i.Status,
		Sealed: sealWith(i.Seal, store.Compress(body)), At: c.Now, Task: id})
}

// notify queues a notice, sent only if the change commits.
func (c *Change) Notify(n Notice) { c.Notices = append(c.Notices, n) }

// after queues fn to run once the change has committed.
func (c *Change) After(fn func()) { c.afters = append(c.afters, fn) }

// audit appends an audit record to the change's transaction.
func (c *Change) Audit(action, entityType, entityID string, details map[string]any) error {
	return c.Tx.Audit(&axp.AuditRecord{ID: axp.NewID("aud", c.Now), Time: c.Now, Actor: c.Actor, Action: action,
		EntityType: entityType, EntityID: entityID, TraceID: axp.TraceID(c.Ctx), Details: details})
}

var errKeyAnswered = axp.Conflict("another request with this idempotency key was answered meanwhile",
	"retry with the same key to get its answer")

// mutate runs fn in one write transaction; with an Idempotency-Key on the call, the answer is stored
// in the same transaction, sealed with the caller's key. On PostgreSQL the transaction may run again
// after a serialization failure: fn starts from a fresh change each time, and only the notices and
// follow-up work of the run that committed are kept.
func (k *Kernel) Mutate(ctx context.Context, actor string, fn func(c *Change) (any, error)) (any, error) {
	var out any
	var notices []Notice
	var afters []func()
	var stored *axp.Idempotency
	err := k.Store.Update(func(tx *store.Tx) error {
		stored = nil
		out, notices, afters = nil, nil, nil
		if i := axp.IdempotencyFrom(ctx); i != nil && !i.Stored() {
			// Another daemon on the same database may have answered this key since Replay
			// looked: the record and this change cannot both commit.
			if rec, err := tx.Idempotency(i.Key); err != nil || rec != nil {
				return errors.Join(err, errKeyAnswered)
			}
		}
		c := &Change{Tx: tx, Ctx: ctx, Actor: actor, Now: k.Now(), Events: k.Events}
		var err error
		if out, err = fn(c); err != nil {
			return err
		}
		notices, afters = c.Notices, c.afters
		// One record per call, written by its first committed change; a later transaction of
		// the same call (follow-up work) does not overwrite it.
		if i := axp.IdempotencyFrom(ctx); i != nil && !i.Stored() {
			stored = i
			if c.answered {
				return nil
			}
			body, err := json.Marshal(out)
			if err != nil {
				return err
			}
			return tx.PutIdempotency(i.Key, &store.Idempotency{BodyHash: i.BodyHash, Op: i.Op, Status: i.Status,
				Sealed: sealWith(i.Seal, store.Compress(append(body, '\n'))), At: c.Now})
		}
		return nil
	})
	if err == nil && stored != nil {
		stored.MarkStored()
	}
	if err == nil {
		k.Send(ctx, notices)
		for _, f := range afters {
			f()
		}
	}
	return out, err
}

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
			return c, err
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

// touch resets a member's check-in clock, writing at most once a minute per member.
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

// as is the answer of a change (mutate and its helpers answer any) as the type its operation
// declares; another type is an internal error, never a wrong answer.
func As[T any](v any, err error) (*T, error) {
	if err != nil || v == nil {
		return nil, err
	}
	switch out := v.(type) {
	case *T:
		return out, nil
	case T:
		return &out, nil
	}
	return nil, fmt.Errorf("answer of type %T where %T is declared", v, (*T)(nil))
}
