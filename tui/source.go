package tui

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
)

// Source is what the TUI reads from and does on an exchange.
type Source interface {
	// Exchange names the exchange (its URL).
	Exchange() string
	// CanBuy reports whether buyer credentials (buyer tokens or a member secret) exist.
	CanBuy() bool
	// CanOperate reports whether the admin token is known.
	CanOperate() bool
	// Member says which member the buyer view acts as and where its credentials come from ("" when
	// it has only buyer tokens).
	Member() string

	// Tasks lists the buyer's tasks, newest first; warnings name tasks that could not be read.
	Tasks(ctx context.Context) (tasks []axp.Task, warnings []string, err error)
	Task(ctx context.Context, id, sort string) (*axp.Task, error)
	Choose(ctx context.Context, id, offerID string) (*axp.Task, error)
	Deliverable(ctx context.Context, id string) (*Deliverable, error)
	Accept(ctx context.Context, id, sha256 string) (*axp.Task, error)
	Dispute(ctx context.Context, id, reason string) (*axp.Task, error)
	// Messages lists the messages on a task, oldest first.
	Messages(ctx context.Context, id string) ([]axp.Message, error)
	// PostMessage writes a message on a task; sellerID names the seller before an offer is chosen.
	PostMessage(ctx context.Context, id, sellerID, body string) (*axp.Message, error)
	// DisputeState reads a task's settlement proposals and its latest mediation.
	DisputeState(ctx context.Context, id string) (*DisputeState, error)
	// CanPay reports whether the buyer can pay a task from its wallet here (test mode).
	CanPay() bool
	// PayPreview checks that task id can be paid from the wallet and says what paying it sends.
	PayPreview(ctx context.Context, id string) ([]string, error)
	// Pay pays task id from the wallet and reports the payment; it returns the transaction hash.
	Pay(ctx context.Context, id string) (string, error)

	// Approvals lists the open approval queue (pending, held, failed and reorged items) and says
	// how approved payouts move: rail "evm" (the hot wallet sends them) or "manual".
	Approvals(ctx context.Context) (*axp.ApprovalList, error)
	// Approve approves an item: txHash is the transaction that sent the money on the manual rail,
	// empty where the hot wallet sends it.
	Approve(ctx context.Context, id, txHash, note string) (*axp.Approval, error)
	Reject(ctx context.Context, id, reason string) (*axp.Approval, error)

	// Mediations lists the mediations of disputes and review objections, newest first.
	Mediations(ctx context.Context) ([]axp.Mediation, error)
	// DecideMediation decides a mediation: a dispute with refundPct (the share of the price
	// refunded to the buyer), a review objection with outcome keep or remove; note is the
	// operator's reasoning.
	DecideMediation(ctx context.Context, id string, refundPct *int, outcome, note string) (*axp.Mediation, error)
	// Listings lists the listing policy's rejections.
	Listings(ctx context.Context) ([]axp.ListingRejection, error)
	// AllTasks lists every task on the exchange, newest first (a page of them).
	AllTasks(ctx context.Context) ([]axp.AdminTaskRow, error)
	// Audit lists the newest records of the audit trail (who changed what), newest first.
	Audit(ctx context.Context) ([]axp.AuditRecord, error)
	// TaskAudit lists the audit records of one task and of its queue items, newest first.
	TaskAudit(ctx context.Context, id string) ([]axp.AuditRecord, error)
	// TaskDetail reads everything the operator's description of a task shows.
	TaskDetail(ctx context.Context, id string) (*TaskDetail, error)
	OverturnListing(ctx context.Context, id, note string) (*axp.ListingRejection, error)
	// BoardPending lists the members' board posts the screen held for the operator, oldest first.
	BoardPending(ctx context.Context) ([]axp.BoardPost, error)
	// ApproveBoardPost lets a held post appear on the board; note (optional) is told to its author.
	ApproveBoardPost(ctx context.Context, id, note string) (*axp.BoardPost, error)
	// HideBoardPost hides a post; its author reads the reason.
	HideBoardPost(ctx context.Context, id, reason string) (*axp.BoardPost, error)
}

// Deliverable is a downloaded deliverable whose SHA-256 was checked against the exchange's
// X-Content-SHA256 header.
type Deliverable struct {
	Body   []byte
	SHA256 string
}

// DisputeState is what a dispute went through: the settlement proposals, oldest first (read from
// the task's timeline, so without their notes), and the latest mediation (nil when none).
type DisputeState struct {
	Settlements []axp.Settlement
	Mediation   *axp.Mediation
}

// TaskDetail is what the operator's description of a task shows: the task as its buyer sees it,
// its timeline, its queue items (every status) and its audit records.
type TaskDetail struct {
	Task      *axp.Task
	Timeline  []axp.TimelineRow
	Approvals []axp.Approval
	Audit     []axp.AuditRecord
}

// Payer pays a task from the buyer's own wallet, as `axp wallet pay` does (cmd provides it).
type Payer interface {
	// Preview checks everything paying task id needs and says what it sends, sending nothing: its
	// first line is the question to ask.
	Preview(ctx context.Context, id string) ([]string, error)
	// Pay sends the payment (or signs the authorization) and reports it to the exchange.
	Pay(ctx context.Context, id string) (txHash string, err error)
}

// ClientSource is a Source over the exchange's REST API.
type ClientSource struct {
	// Client is a client of the exchange without credentials; the others are made from it.
	Client *client.Client
	// BuyerTokens returns the saved buyer tokens by task id (read again on each refresh, so tasks
	// posted meanwhile from the command line appear).
	BuyerTokens func() map[string]string
	// MemberSecret is a buyer member's secret ("" when none).
	MemberSecret string
	// MemberFrom names that member and where its secret was found, shown in the buyer view.
	MemberFrom string
	// AdminToken is the operator's token ("" when none).
	AdminToken string
	// Payer pays tasks from the buyer's wallet (nil: the TUI does not pay).
	Payer Payer
}

// Exchange is the exchange's URL.
func (s *ClientSource) Exchange() string { return s.Client.BaseURL }

// CanBuy reports whether any buyer credential exists.
func (s *ClientSource) CanBuy() bool { return s.MemberSecret != "" || len(s.tokens()) > 0 }

// CanOperate reports whether the admin token is known.
func (s *ClientSource) CanOperate() bool { return s.AdminToken != "" }

// Member names the member whose secret the buyer view uses.
func (s *ClientSource) Member() string {
	if s.MemberSecret == "" {
		return ""
	}
	if s.MemberFrom == "" {
		return "as a member"
	}
	return s.MemberFrom
}

func (s *ClientSource) tokens() map[string]string {
	if s.BuyerTokens == nil {
		return nil
	}
	return s.BuyerTokens()
}

// buyer is a client acting as the buyer of task id.
func (s *ClientSource) buyer(id string) (*client.Client, error) {
	if t := s.tokens()[id]; t != "" {
		return s.Client.With(t), nil
	}
	if s.MemberSecret != "" {
		return s.Client.With(s.MemberSecret), nil
	}
	return nil, &axp.Error{Code: axp.CodeUnauthorized, Message: "no buyer token saved for task " + id}
}

// asAdmin runs an operation with the admin token.
func asAdmin[I, O any](ctx context.Context, s *ClientSource, def contract.Def[I, O], in I) (*O, error) {
	if s.AdminToken == "" {
		return nil, &axp.Error{Code: axp.CodeUnauthorized, Message: "no admin token", Hint: "run `axp login` with the admin token, or set AXP_ADMIN_TOKEN"}
	}
	out, _, err := client.Call(ctx, s.Client.With(s.AdminToken), def, in)
	return out, err
}

// Tasks reads every task the credentials open.
func (s *ClientSource) Tasks(ctx context.Context) ([]axp.Task, []string, error) {
	byID := map[string]axp.Task{}
	var warnings []string
	tokens := s.tokens()
	ids := make([]string, 0, len(tokens))
	for id := range tokens {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t, _, err := client.Call(ctx, s.Client.With(tokens[id]), contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id}})
		if err != nil {
			var un *client.UnreachableError
			if errors.As(err, &un) {
				return nil, nil, err
			}
			warnings = append(warnings, id+": "+errText(err))
			continue
		}
		byID[t.ID] = *t
	}
	if s.MemberSecret != "" {
		// The newest page: the screen shows the latest tasks.
		l, _, err := client.Call(ctx, s.Client.With(s.MemberSecret), contract.ListMyTasks, axp.MyTasksQuery{Limit: axp.MyTasksPageMax})
		if err != nil {
			var un *client.UnreachableError
			if errors.As(err, &un) {
				return nil, nil, err
			}
			warnings = append(warnings, "member tasks: "+errText(err))
		} else {
			for _, t := range l.Tasks {
				byID[t.ID] = t
			}
		}
	}
	out := make([]axp.Task, 0, len(byID))
	for _, t := range byID {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID > out[j].ID
	})
	return out, warnings, nil
}

// asBuyer runs an operation on task id as its buyer; in addresses the task itself.
func asBuyer[I, O any](ctx context.Context, s *ClientSource, id string, def contract.Def[I, O], in I) (*O, error) {
	c, err := s.buyer(id)
	if err != nil {
		return nil, err
	}
	out, _, err := client.Call(ctx, c, def, in)
	return out, err
}

func ref(id string) axp.TaskRef { return axp.TaskRef{ID: id} }

// Task reads one task with its offers ranked by sort.
func (s *ClientSource) Task(ctx context.Context, id, sort string) (*axp.Task, error) {
	return asBuyer(ctx, s, id, contract.GetTask, axp.TaskQuery{TaskRef: ref(id), Sort: sort})
}

// Choose chooses an offer.
func (s *ClientSource) Choose(ctx context.Context, id, offerID string) (*axp.Task, error) {
	return asBuyer(ctx, s, id, contract.ChooseOffer, axp.ChooseInput{TaskRef: ref(id), OfferID: offerID})
}

// Accept accepts the delivery (of the given SHA-256 when not empty).
func (s *ClientSource) Accept(ctx context.Context, id, sha string) (*axp.Task, error) {
	return asBuyer(ctx, s, id, contract.AcceptTask, axp.AcceptInput{TaskRef: ref(id), SHA256: sha})
}

// Dispute disputes the delivery.
func (s *ClientSource) Dispute(ctx context.Context, id, reason string) (*axp.Task, error) {
	return asBuyer(ctx, s, id, contract.DisputeTask, axp.DisputeInput{TaskRef: ref(id), Reason: reason})
}

// Messages lists the task's messages.
func (s *ClientSource) Messages(ctx context.Context, id string) ([]axp.Message, error) {
	l, err := asBuyer(ctx, s, id, contract.ListMessages, ref(id))
	if err != nil {
		return nil, err
	}
	return l.Messages, nil
}

// PostMessage writes a message on the task.
func (s *ClientSource) PostMessage(ctx context.Context, id, sellerID, body string) (*axp.Message, error) {
	return asBuyer(ctx, s, id, contract.PostMessage, axp.MessageBody{TaskRef: ref(id), Body: body, SellerID: sellerID})
}

// DisputeState reads the settlements from the task's timeline and its latest mediation.
func (s *ClientSource) DisputeState(ctx context.Context, id string) (*DisputeState, error) {
	c, err := s.buyer(id)
	if err != nil {
		return nil, err
	}
	// The catalog declares the timeline a free-form result; it is read as an axp.Timeline.
	_, raw, err := client.Call(ctx, c, contract.GetTimeline, ref(id))
	if err != nil {
		return nil, err
	}
	var tl axp.Timeline
	if err := json.Unmarshal(raw, &tl); err != nil {
		return nil, fmt.Errorf("decode the get_timeline answer: %w", err)
	}
	st := &DisputeState{}
	mediationID := ""
	for _, ev := range tl.Events {
		var d struct {
			SettlementID string    `json:"settlement_id"`
			ProposedBy   string    `json:"proposed_by"`
			RefundPct    int       `json:"refund_pct"`
			RefundUSD    axp.Money `json:"refund_usd"`
			MediationID  string    `json:"mediation_id"`
		}
		if b, err := json.Marshal(ev.Detail); err == nil {
			_ = json.Unmarshal(b, &d)
		}
		switch ev.Kind {
		case "settlement_proposed":
			for i := range st.Settlements {
				if st.Settlements[i].Status == axp.SettlementProposed {
					st.Settlements[i].Status = axp.SettlementSuperseded
				}
			}
			st.Settlements = append(st.Settlements, axp.Settlement{ID: d.SettlementID, TaskID: id, ProposedBy: d.ProposedBy,
				RefundPct: d.RefundPct, RefundUSD: d.RefundUSD, Status: axp.SettlementProposed, CreatedAt: ev.At})
		case "settlement_rejected", "settlement_accepted":
			for i := range st.Settlements {
				if st.Settlements[i].ID == d.SettlementID {
					st.Settlements[i].Status = strings.TrimPrefix(ev.Kind, "settlement_")
				}
			}
		case "escalate":
			if d.MediationID != "" {
				mediationID = d.MediationID
			}
		}
	}
	if mediationID != "" {
		m, _, err := client.Call(ctx, c, contract.GetMediation, ref(mediationID))
		if err != nil {
			return nil, err
		}
		st.Mediation = m
	}
	return st, nil
}

// Deliverable downloads the deliverable and checks its SHA-256.
func (s *ClientSource) Deliverable(ctx context.Context, id string) (*Deliverable, error) {
	c, err := s.buyer(id)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(ctx, c, contract.GetDeliverable, ref(id))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(resp.Body)
	got := hex.EncodeToString(sum[:])
	if want := strings.ToLower(resp.Header.Get("X-Content-SHA256")); want != got {
		return nil, fmt.Errorf("the deliverable's SHA-256 %s does not match the announced %q", got, want)
	}
	return &Deliverable{Body: resp.Body, SHA256: got}, nil
}

// Approvals lists the open queue.
func (s *ClientSource) Approvals(ctx context.Context) (*axp.ApprovalList, error) {
	return asAdmin(ctx, s, contract.AdminApprovals, axp.ApprovalsQuery{Status: "open"})
}

// Approve approves an item.
func (s *ClientSource) Approve(ctx context.Context, id, tx, note string) (*axp.Approval, error) {
	return asAdmin(ctx, s, contract.AdminApprove, axp.ApproveBody{ID: id, TxHash: tx, Note: note})
}

// Reject rejects an item.
func (s *ClientSource) Reject(ctx context.Context, id, reason string) (*axp.Approval, error) {
	return asAdmin(ctx, s, contract.AdminReject, axp.RejectBody{ID: id, Reason: reason})
}

// Mediations lists every mediation, newest first.
func (s *ClientSource) Mediations(ctx context.Context) ([]axp.Mediation, error) {
	l, err := asAdmin(ctx, s, contract.AdminMediations, axp.MediationsQuery{Status: "all"})
	if err != nil {
		return nil, err
	}
	return l.Mediations, nil
}

// DecideMediation decides a mediation.
func (s *ClientSource) DecideMediation(ctx context.Context, id string, refundPct *int, outcome, note string) (*axp.Mediation, error) {
	return asAdmin(ctx, s, contract.AdminDecideMediation, axp.DecideMediationBody{ID: id, RefundPct: refundPct, Outcome: outcome, Note: note})
}

// AllTasksPage is how many of the newest tasks the operator's task list shows.
const AllTasksPage = 200

// AllTasks lists the newest tasks of the exchange.
func (s *ClientSource) AllTasks(ctx context.Context) ([]axp.AdminTaskRow, error) {
	l, err := asAdmin(ctx, s, contract.AdminTasks, axp.AdminTasksQuery{Limit: AllTasksPage})
	if err != nil {
		return nil, err
	}
	return l.Tasks, nil
}

// AuditPage is how many of the newest audit records the operator's audit screen shows.
const AuditPage = 200

// Audit lists the newest audit records.
func (s *ClientSource) Audit(ctx context.Context) ([]axp.AuditRecord, error) {
	l, err := asAdmin(ctx, s, contract.AdminAudit, axp.AuditQuery{Limit: AuditPage})
	if err != nil {
		return nil, err
	}
	return l.Records, nil
}

// TaskAudit lists the audit records of a task and of its queue items, newest first.
func (s *ClientSource) TaskAudit(ctx context.Context, id string) ([]axp.AuditRecord, error) {
	l, err := asAdmin(ctx, s, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all", TaskID: id})
	if err != nil {
		return nil, err
	}
	return s.taskAudit(ctx, id, l.Approvals)
}

func (s *ClientSource) taskAudit(ctx context.Context, id string, items []axp.Approval) ([]axp.AuditRecord, error) {
	ids := []string{id}
	for _, a := range items {
		ids = append(ids, a.ID)
	}
	var out []axp.AuditRecord
	for _, e := range ids {
		l, err := asAdmin(ctx, s, contract.AdminAudit, axp.AuditQuery{EntityID: e, Limit: AuditPage})
		if err != nil {
			return nil, err
		}
		out = append(out, l.Records...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.After(out[j].Time) })
	return out, nil
}

// TaskDetail reads a task, its timeline, its queue items and its audit records.
func (s *ClientSource) TaskDetail(ctx context.Context, id string) (*TaskDetail, error) {
	t, err := asAdmin(ctx, s, contract.AdminTask, axp.IDPath{ID: id})
	if err != nil {
		return nil, err
	}
	tl, err := asAdmin(ctx, s, contract.AdminTaskTimeline, axp.IDPath{ID: id})
	if err != nil {
		return nil, err
	}
	l, err := asAdmin(ctx, s, contract.AdminApprovals, axp.ApprovalsQuery{Status: "all", TaskID: id})
	if err != nil {
		return nil, err
	}
	audit, err := s.taskAudit(ctx, id, l.Approvals)
	if err != nil {
		return nil, err
	}
	return &TaskDetail{Task: t, Timeline: tl.Rows, Approvals: l.Approvals, Audit: audit}, nil
}

// CanPay reports whether a wallet payer is set.
func (s *ClientSource) CanPay() bool { return s.Payer != nil }

// PayPreview says what paying the task from the wallet sends.
func (s *ClientSource) PayPreview(ctx context.Context, id string) ([]string, error) {
	if s.Payer == nil {
		return nil, errNoPayer
	}
	return s.Payer.Preview(ctx, id)
}

// Pay pays the task from the wallet.
func (s *ClientSource) Pay(ctx context.Context, id string) (string, error) {
	if s.Payer == nil {
		return "", errNoPayer
	}
	return s.Payer.Pay(ctx, id)
}

var errNoPayer = &axp.Error{Code: axp.CodeUnavailable, Message: "the TUI pays from the wallet only on an exchange in test mode",
	Hint: "pay with axp wallet pay TASK, or send the payment yourself and report it: axp task pay TASK --tx HASH"}

// Listings lists every listing rejection.
func (s *ClientSource) Listings(ctx context.Context) ([]axp.ListingRejection, error) {
	l, err := asAdmin(ctx, s, contract.AdminListings, axp.ListingsQuery{Status: "all"})
	if err != nil {
		return nil, err
	}
	return l.Listings, nil
}

// OverturnListing overturns a listing rejection.
func (s *ClientSource) OverturnListing(ctx context.Context, id, note string) (*axp.ListingRejection, error) {
	return asAdmin(ctx, s, contract.AdminOverturnListing, axp.OverturnBody{ID: id, Note: note})
}

// BoardPending lists the board posts waiting for the operator (as `axp admin board pending`).
func (s *ClientSource) BoardPending(ctx context.Context) ([]axp.BoardPost, error) {
	l, err := asAdmin(ctx, s, contract.AdminBoard, axp.BoardAdminQuery{Status: axp.BoardPending})
	if err != nil {
		return nil, err
	}
	return l.Posts, nil
}

// ApproveBoardPost lets a board post appear.
func (s *ClientSource) ApproveBoardPost(ctx context.Context, id, note string) (*axp.BoardPost, error) {
	return asAdmin(ctx, s, contract.AdminBoardApprove, axp.BoardApproveBody{ID: id, Note: note})
}

// HideBoardPost hides a board post.
func (s *ClientSource) HideBoardPost(ctx context.Context, id, reason string) (*axp.BoardPost, error) {
	return asAdmin(ctx, s, contract.AdminBoardHide, axp.BoardHideBody{ID: id, Reason: reason})
}

// errText is an error as one line: the message and, for exchange errors, the hint.
func errText(err error) string {
	var e *axp.Error
	if errors.As(err, &e) {
		s := e.Message
		if e.Field != "" {
			s = e.Field + ": " + s
		}
		if e.Hint != "" {
			s += " (" + e.Hint + ")"
		}
		return s
	}
	return err.Error()
}
