package operator

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

// Register binds the operations of the operator service to their handlers.
func (s *Service) Register(r *pipeline.Registry) {
	pipeline.Handle(r, contract.AdminTrace, s.adminTrace)
	pipeline.Handle(r, contract.AdminLog, s.adminLog)
	pipeline.Handle(r, contract.AdminAudit, s.adminAudit)
	pipeline.Handle(r, contract.AdminMetrics, s.adminMetrics)
	pipeline.HandleNoInput(r, contract.AdminStats, s.adminStats)
	pipeline.Handle(r, contract.AdminAnnounce, s.adminAnnounce)
	pipeline.HandleNoInput(r, contract.AdminAnnouncements, s.adminAnnouncements)
	pipeline.HandleNoInput(r, contract.AdminOperatorMessages, s.adminOperatorMessages)
	pipeline.Handle(r, contract.AdminTaskTimeline, s.adminTaskTimeline)
	pipeline.HandleNoInput(r, contract.AdminBackup, s.adminBackup)
	pipeline.Handle(r, contract.AdminMembers, s.adminMembers)
	pipeline.Handle(r, contract.AdminSuspend, s.adminSuspend)
	pipeline.Handle(r, contract.AdminUnsuspend, s.adminUnsuspend)
}

func (s *Service) adminTrace(ctx context.Context, c *pipeline.Call, in *axp.TraceQuery) (*axp.Trace, error) {
	s.sink.Flush()
	var tr axp.Trace
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		tr, err = tx.Trace(in.TraceID)
		return err
	})
	return &tr, err
}

func (s *Service) adminLog(ctx context.Context, c *pipeline.Call, in *axp.LogQuery) (*axp.LogList, error) {
	s.sink.Flush()
	out := &axp.LogList{}
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		out.Entries, err = tx.LogEntries(*in)
		return err
	})
	return out, err
}

func (s *Service) adminAudit(ctx context.Context, c *pipeline.Call, in *axp.AuditQuery) (*axp.AuditList, error) {
	out := &axp.AuditList{}
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		out.Records, err = tx.AuditRecords(*in)
		return err
	})
	return out, err
}

func (s *Service) adminMetrics(ctx context.Context, c *pipeline.Call, in *axp.MetricsQuery) (*axp.Metrics, error) {
	hours := in.Hours
	if hours == 0 {
		hours = 24
	}
	m, err := s.metrics.Report(hours, s.base.Now())
	return &m, err
}

func (s *Service) adminStats(ctx context.Context, c *pipeline.Call) (*axp.Stats, error) {
	st := &axp.Stats{Tasks: map[string]int{}, Members: map[string]int{}, MembersByRole: map[string]int{},
		Submissions: map[string]int{}, SchemaVersion: store.SchemaVersion, Leader: s.ex.Leading(),
		Uptime: s.base.Now().Sub(s.started).Round(time.Second).String()}
	for _, str := range axp.TaskStatuses {
		st.Tasks[str] = 0
	}
	for _, strx := range []string{axp.MemberRegistered, axp.MemberVerified, axp.MemberUnreachable, axp.MemberSuspended} {
		st.Members[strx] = 0
	}
	err := s.base.Store.View(func(tx *store.Tx) error {
		if err := tx.EachMember(func(m *axp.Member) bool {
			st.Members[m.State]++
			for _, r := range m.Roles {
				st.MembersByRole[r]++
			}
			return true
		}); err != nil {
			return err
		}
		for _, k := range []string{store.KindFeedback, store.KindPaymentPref, store.KindInterest, store.KindSurvey} {
			st.Submissions[k] = tx.CountSubmissions(k)
		}
		for status, n := range tx.CountByStatus() {
			st.Tasks[status] = n
		}
		entries, err := tx.Ledger()
		if err != nil {
			return err
		}
		st.Money = moneyTotals(entries)
		return nil
	})
	return st, err
}

func (s *Service) adminAnnounce(ctx context.Context, c *pipeline.Call, in *axp.NewAnnouncement) (*axp.Announcement, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Announcement, error) {
		for i, id := range in.MemberIDs {
			m, err := ch.Tx.Member(id)
			if err != nil {
				return nil, err
			}
			if m == nil {
				return nil, axp.Invalid(fieldIndex("member_ids", i), "no member "+id+" exists", "see GET /api/admin/members")
			}
		}
		audience := in.Audience
		if audience == "" {
			audience = "all"
		}
		a := &store.AnnouncementRecord{Announcement: axp.Announcement{ID: axp.NewID("ann", ch.Now), From: "operator",
			Severity: in.Severity, Title: in.Title, Body: in.Body, ReplyTo: s.base.BaseURL() + "/api/members/me/operator-messages",
			Audience: audience, CreatedAt: ch.Now}, MemberIDs: in.MemberIDs}
		if err := s.ex.Announce(ch, a); err != nil {
			return nil, err
		}
		if err := ch.Audit("announcement.create", "announcement", a.ID, map[string]any{"severity": in.Severity, "audience": audience}); err != nil {
			return nil, err
		}
		return &a.Announcement, nil
	})
}

func (s *Service) adminAnnouncements(ctx context.Context, c *pipeline.Call) (*axp.AnnouncementStatusList, error) {
	out := &axp.AnnouncementStatusList{Announcements: []axp.AnnouncementStatus{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		tx.EachAnnouncement(func(a *store.AnnouncementRecord) bool {
			status := axp.AnnouncementStatus{Announcement: a.Announcement, MemberIDs: a.MemberIDs}
			if status.Deliveries, err = tx.Deliveries(a.ID); err != nil {
				return false
			}
			for i := range status.Deliveries {
				dl := &status.Deliveries[i]
				dl.ReadAt = tx.ReadAt(dl.MemberID, a.ID)
				switch dl.Status {
				case "delivered":
					status.Delivered++
				case "failed":
					status.Failed++
				case "pending":
					status.Pending++
				}
				if dl.ReadAt != nil {
					status.Read++
				}
			}
			out.Announcements = append(out.Announcements, status)
			return len(out.Announcements) < 100
		})
		return err
	})
	return out, err
}

func fieldIndex(name string, i int) string { return fmt.Sprintf("%s[%d]", name, i) }

func (s *Service) adminOperatorMessages(ctx context.Context, c *pipeline.Call) (*axp.OperatorMessageList, error) {
	out := &axp.OperatorMessageList{}
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		out.Messages, err = tx.OperatorMessages(500)
		return err
	})
	return out, err
}

func (s *Service) adminMembers(ctx context.Context, c *pipeline.Call, in *axp.MembersQuery) (*axp.MemberList, error) {
	out := &axp.MemberList{Members: []axp.PrivateMember{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		return tx.EachMember(func(m *axp.Member) bool {
			if (in.State == "" || m.State == in.State) && (in.Role == "" || m.HasRole(in.Role)) {
				out.Members = append(out.Members, kernel.Private(m))
			}
			return true
		})
	})
	return out, err
}

func (s *Service) setSuspended(ctx context.Context, c *pipeline.Call, in *axp.SuspendBody, suspend bool) (*axp.PrivateMember, error) {
	out, err := kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.PrivateMember, error) {
		m, err := kernel.LoadMember(ch.Tx, in.ID)
		if err != nil {
			return nil, err
		}
		action := "member.suspend"
		if suspend {
			if m.State == axp.MemberSuspended {
				return nil, axp.Conflict("member "+m.ID+" is already suspended", "")
			}
			m.State = axp.MemberSuspended
		} else {
			if m.State != axp.MemberSuspended {
				return nil, axp.Conflict("member "+m.ID+" is not suspended (state "+m.State+")", "")
			}
			action = "member.unsuspend"
			m.State, m.VerifiedAt = axp.MemberRegistered, nil
		}
		m.UpdatedAt = ch.Now
		if err := ch.Tx.PutMember(m); err != nil {
			return nil, err
		}
		if err := ch.Audit(action, "member", m.ID, map[string]any{"reason": in.Reason}); err != nil {
			return nil, err
		}
		pm := kernel.Private(m)
		return &pm, nil
	})
	if err == nil {
		s.ex.Invalidate()
	}
	return out, err
}

func (s *Service) adminSuspend(ctx context.Context, c *pipeline.Call, in *axp.SuspendBody) (*axp.PrivateMember, error) {
	return s.setSuspended(ctx, c, in, true)
}

func (s *Service) adminUnsuspend(ctx context.Context, c *pipeline.Call, in *axp.SuspendBody) (*axp.PrivateMember, error) {
	return s.setSuspended(ctx, c, in, false)
}

func (s *Service) adminBackup(ctx context.Context, c *pipeline.Call) (*axp.Document, error) {
	if s.base.Store.IsPostgres() {
		return nil, axp.Errorf(axp.CodeUnavailable, "%s", store.ErrNoFileBackup.Error()).
			WithHint("run pg_dump against the exchange's database, or use its provider's backups")
	}
	s.base.Log.InfoContext(ctx, "hot backup started", "source", "store")
	return &axp.Document{ContentType: "application/octet-stream",
		Header: map[string]string{"Content-Disposition": `attachment; filename="axp-backup.db"`},
		Stream: func(w io.Writer) error {
			_, err := s.base.Store.Backup(w)
			return err
		}}, nil
}

// moneyTotals sums the ledger: what came in, fees earned, payouts and refunds sent, what escrow
// holds, and the sum of every posting (always zero).
func moneyTotals(entries []axp.LedgerEntry) axp.MoneyTotals {
	m := axp.MoneyTotals{Entries: len(entries)}
	for acct, v := range axp.Balances(entries) {
		m.LedgerSum += v
		switch {
		case acct == axp.AcctBuyerFunds:
			m.PaymentsIn = -v
		case acct == axp.AcctFees:
			m.Fees = v
		case acct == axp.AcctSellerPaid:
			m.PayoutsSent = v
		case acct == axp.AcctBuyerRefund:
			m.RefundsSent = v
		case acct == axp.AcctLosses:
			m.Losses = -v
		case strings.HasPrefix(acct, "escrow:"), strings.HasPrefix(acct, "contract:"):
			m.Held += v // held for tasks, by the exchange or by the escrow contract
		}
	}
	return m
}

// adminTaskTimeline merges everything known about a task in time order: its timeline events,
// the audit records of its changes, the requests logged under their trace ids, its messages, the
// AI calls made for it and its reviews.
func (s *Service) adminTaskTimeline(ctx context.Context, c *pipeline.Call, in *axp.IDPath) (*axp.AdminTimeline, error) {
	s.sink.Flush()
	out := &axp.AdminTimeline{TaskID: in.ID, Rows: []axp.TimelineRow{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		if _, err := kernel.LoadTask(tx, in.ID); err != nil {
			return err
		}
		events, err := tx.Events(in.ID)
		if err != nil {
			return err
		}
		for _, e := range events {
			out.Rows = append(out.Rows, axp.TimelineRow{At: e.At, Kind: "event", Summary: e.Kind + " by " + e.Actor + " (" + e.Status + ")", Data: e.Detail})
		}
		audit, err := tx.AuditRecords(axp.AuditQuery{EntityType: "task", EntityID: in.ID, Limit: 5000})
		if err != nil {
			return err
		}
		traces := map[string]bool{}
		for _, a := range audit {
			out.Rows = append(out.Rows, axp.TimelineRow{At: a.Time, Kind: "audit", Summary: a.Action + " by " + a.Actor, TraceID: a.TraceID, Data: a.Details})
			if a.TraceID != "" {
				traces[a.TraceID] = true
			}
		}
		for id := range traces {
			tr, err := tx.Trace(id)
			if err != nil {
				return err
			}
			for _, l := range tr.Log {
				if l.Source == "http" {
					out.Rows = append(out.Rows, axp.TimelineRow{At: l.Time, Kind: "request", Summary: fmt.Sprint(l.Attrs["method"], " ", l.Attrs["route"], " ", l.Attrs["status"]), TraceID: l.TraceID, Data: l.Attrs})
				}
			}
		}
		msgs, err := tx.Messages(in.ID)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			out.Rows = append(out.Rows, axp.TimelineRow{At: m.CreatedAt, Kind: "message", Summary: "message from the " + m.From, Data: map[string]any{"message_id": m.ID, "body": m.Body, "seller_id": m.SellerID}})
		}
		if err := tx.EachAICall(func(a *axp.AICall) bool {
			if a.TaskID == in.ID {
				out.Rows = append(out.Rows, axp.TimelineRow{At: a.At, Kind: "ai_call", Summary: a.Purpose + " with " + a.Model,
					Data: map[string]any{"ai_call_id": a.ID, "tokens": a.PromptTokens + a.CompletionTokens, "cost_usd": a.CostUSD, "error": a.Error}})
			}
			return true
		}); err != nil {
			return err
		}
		for _, side := range []string{axp.SideBuyer, axp.SideSeller} {
			if id := tx.TaskReviewID(in.ID, side); id != "" {
				r, err := tx.Review(id)
				if err != nil {
					return err
				}
				if r != nil {
					out.Rows = append(out.Rows, axp.TimelineRow{At: r.CreatedAt, Kind: "review", Summary: fmt.Sprintf("review by the %s: %d/5", side, r.Rating),
						Data: map[string]any{"review_id": r.ReviewID, "removed": r.Removed}})
				}
			}
		}
		return nil
	})
	sort.SliceStable(out.Rows, func(i, j int) bool { return out.Rows[i].At.Before(out.Rows[j].At) })
	return out, err
}
