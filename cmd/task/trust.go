package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// Trust and safety from the parties' side: messages, reviews, settlements, mediations and appeals.
// These commands act as either party of a task: its buyer (the saved buyer token, or a buyer
// member's secret) or its seller (the member secret saved by `axp login`, or the one `axp member
// serve` keeps).

// partyAuthHint is the hint of a party call the exchange refused for its credentials.
const partyAuthHint = "the saved credentials do not open this task: pass --token with its buyer_token, or `axp login` as the member who posted it or was chosen to do it"

// addPartyTokenFlag adds --token to a command that acts as either party of a task.
func addPartyTokenFlag(c *cobra.Command, b *buyerFlags) {
	c.Flags().StringVar(&b.Token, "token", "", "the task's buyer token, or a member secret (default: the saved buyer token, else the saved member secret)")
}

// partyClient is a client acting as a party of task id: token when given, else the buyer token
// saved when the task was posted, else the saved member secret (a buyer member, or the task's
// seller).
func partyClient(f *cmdutil.Factory, taskID, token string) (*client.Client, error) {
	cl, err := f.BuyerClient(taskID, token)
	if err == nil {
		return cl, nil
	}
	if mc, merr := f.MemberClient(); merr == nil && mc != nil {
		return mc, nil
	}
	var e *axp.Error
	if errors.As(err, &e) && e.Code == axp.CodeUnauthorized {
		return nil, &axp.Error{Code: axp.CodeUnauthorized,
			Message: fmt.Sprintf("no credentials for task %s on %s", taskID, f.ExchangeURL()),
			Hint:    "as its buyer, tasks posted with `axp task create` are remembered (else pass --token with the buyer_token); as its seller or a buyer member, `axp login` with the member secret"}
	}
	return nil, err
}

// partyCall runs an operation as a party and returns its answer decoded and as the exchange sent
// it. A refusal for the credentials gets the login hint; other refusals keep the exchange's hint,
// which names the rule.
func partyCall[I, O any](ctx context.Context, cl *client.Client, ep client.Endpoint[I, O], in I) (*O, []byte, error) {
	out, body, err := ep.Call(ctx, cl, in)
	var e *axp.Error
	if errors.As(err, &e) && (e.Code == axp.CodeUnauthorized || (e.Code == axp.CodeForbidden && e.Hint == "")) {
		return nil, nil, cmdutil.WithHint(err, partyAuthHint)
	}
	return out, body, err
}

// timeline reads a task's timeline as a party. The catalog declares its events as a free-form
// result; the CLI reads them as an axp.Timeline.
func timeline(ctx context.Context, cl *client.Client, taskID string) (*axp.Timeline, error) {
	_, raw, err := partyCall(ctx, cl, client.GetTimeline, taskRef(taskID))
	if err != nil {
		return nil, err
	}
	var tl axp.Timeline
	if err := json.Unmarshal(raw, &tl); err != nil {
		return nil, fmt.Errorf("decode the get_timeline answer: %w", err)
	}
	return &tl, nil
}

// latestRef is the id under key in the newest event of one of kinds on the task's timeline ("" when
// there is none): the latest settlement proposal, mediation or decision.
func latestRef(ctx context.Context, cl *client.Client, taskID, key string, kinds ...string) (string, error) {
	tl, err := timeline(ctx, cl, taskID)
	if err != nil {
		return "", err
	}
	for i := len(tl.Events) - 1; i >= 0; i-- {
		ev := tl.Events[i]
		if !slices.Contains(kinds, ev.Kind) {
			continue
		}
		if id, _ := ev.Detail[key].(string); id != "" {
			return id, nil
		}
	}
	return "", nil
}

// mediationOf is the mediation named by id, else the task's latest one of kinds.
func mediationOf(ctx context.Context, cl *client.Client, taskID, id string, kinds ...string) (string, error) {
	if id != "" {
		return id, nil
	}
	if len(kinds) == 0 {
		kinds = []string{"escalate", "review_objection"}
	}
	id, err := latestRef(ctx, cl, taskID, "mediation_id", kinds...)
	if err != nil || id != "" {
		return id, err
	}
	return "", &axp.Error{Code: axp.CodeNotFound, Message: "task " + taskID + " has no mediation",
		Hint: "a disputed task is escalated with `axp task escalate " + taskID + " --reason TEXT`"}
}

// pctFlag is an optional refund percentage flag.
type pctFlag struct {
	set bool
	v   int
}

func (p *pctFlag) String() string {
	if !p.set {
		return ""
	}
	return strconv.Itoa(p.v)
}

func (p *pctFlag) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	if err != nil || n < 0 || n > 100 {
		return fmt.Errorf("%q is not a percentage: use a whole number 0 to 100", s)
	}
	p.v, p.set = n, true
	return nil
}

func (p *pctFlag) Type() string { return "percent" }

// ptr is the value or nil when unset.
func (p *pctFlag) ptr() *int {
	if !p.set {
		return nil
	}
	v := p.v
	return &v
}

// readText resolves a text flag: its value, or with file set, the file's content ("-" for
// stdin).
func readText(s *cmdutil.IOStreams, flag, value, file string) (string, error) {
	return cmdutil.ReadText(s, flag, value, file)
}

// maxChars checks a text's length in characters before it is sent.
func maxChars(flag, v string, n int) error { return cmdutil.MaxChars(flag, v, n) }

// ScreeningFlags is a screening as short words for a table column: "flagged", "contacts removed",
// both, or "".
func ScreeningFlags(scs ...*axp.Screening) string {
	flagged, removed := false, false
	for _, sc := range scs {
		if sc != nil {
			flagged = flagged || sc.Flagged
			removed = removed || len(sc.Removed) > 0
		}
	}
	var out []string
	if flagged {
		out = append(out, "flagged")
	}
	if removed {
		out = append(out, "contacts removed")
	}
	return strings.Join(out, ",")
}

// DecisionText is a mediation decision in a few words: "split 40% (US$1.00 back to the buyer) by
// mediator:rules", "remove the review by operator".
func DecisionText(d *axp.MediationDecision) string {
	if d == nil {
		return ""
	}
	var s string
	switch d.Outcome {
	case "keep", "remove":
		s = d.Outcome + " the review"
	default:
		s = d.Outcome
		if d.RefundPct != nil {
			s += fmt.Sprintf(" %d%%", *d.RefundPct)
		}
		if d.RefundUSD != nil {
			s += " (" + d.RefundUSD.Display() + " back to the buyer)"
		}
	}
	s += " by " + d.By
	if d.Rule != "" {
		s += ", rule " + d.Rule
	}
	return s
}

// ShortDecision is a decision for a table cell: "split 40%", "keep".
func ShortDecision(d *axp.MediationDecision) string {
	if d == nil {
		return ""
	}
	if d.RefundPct != nil {
		return fmt.Sprintf("%s %d%%", d.Outcome, *d.RefundPct)
	}
	return d.Outcome
}

// Proposals summarises the sides' statements for a table cell: "buyer 80%, seller 20%", "buyer",
// or "none".
func Proposals(m *axp.Mediation) string {
	var parts []string
	for _, side := range []string{axp.SideBuyer, axp.SideSeller} {
		st := m.StatementOf(side)
		if st == nil {
			continue
		}
		p := side
		if st.ProposedRefundPct != nil {
			p += fmt.Sprintf(" %d%%", *st.ProposedRefundPct)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// MediationFlags is the table cell of a mediation's screening flags over all its texts.
func MediationFlags(m *axp.Mediation) string {
	scs := []*axp.Screening{m.ReasonScreening}
	for _, st := range m.Statements {
		scs = append(scs, st.Screening)
	}
	return ScreeningFlags(scs...)
}

// MediationFields are the label/value pairs of a mediation for cmdutil.KeyValues: the case, both
// sides' statements and proposals, the decision with its reasoning, the appeal and the operator's
// decision. Texts carry their screening notes.
func MediationFields(s *cmdutil.IOStreams, m *axp.Mediation, now time.Time) []string {
	cs := s.ColorScheme()
	at := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		if !s.StdoutTTY {
			return t.UTC().Format(time.RFC3339)
		}
		if t.After(now) {
			return "in " + cmdutil.Duration(t.Sub(now))
		}
		return cmdutil.Duration(now.Sub(t)) + " ago"
	}
	note := func(text string, sc *axp.Screening) string {
		if n := sc.Note(); n != "" {
			return text + "  " + cs.Yellow("["+n+"]")
		}
		return text
	}
	kind := m.Kind
	if m.ReviewID != "" {
		kind += " of review " + m.ReviewID
	}
	status := cs.Status(m.Status)
	if m.Status == axp.MediationAppealed {
		status = cs.Yellow(m.Status)
	}
	pairs := []string{
		"Mediation", cs.Bold(m.ID),
		"Kind", kind,
		"Task", m.TaskID,
		"Status", status,
		"Opened by", m.OpenedBy,
		"Opened", at(m.CreatedAt),
		"Reason", note(m.Reason, m.ReasonScreening),
	}
	if m.Status == axp.MediationAwaiting {
		pairs = append(pairs, "Statements due", at(m.StatementsDue))
	}
	for _, side := range []string{axp.SideBuyer, axp.SideSeller} {
		label := strings.ToUpper(side[:1]) + side[1:]
		st := m.StatementOf(side)
		if st == nil {
			v := "none"
			if m.Status == axp.MediationAwaiting {
				v = "not stated yet"
			}
			pairs = append(pairs, label, cs.Gray(v))
			continue
		}
		v := strconv.Quote(st.Statement)
		if st.ProposedRefundPct != nil {
			v += fmt.Sprintf(" · proposes a %d%% refund", *st.ProposedRefundPct)
		}
		if st.Via != "" {
			v += " · via " + st.Via
		}
		pairs = append(pairs, label, note(v, st.Screening))
	}
	if d := m.Decision; d != nil {
		pairs = append(pairs, "Decision", cs.Bold(DecisionText(d)), "Reasoning", d.Reasoning, "Approval", d.ApprovalID)
	}
	if m.AppealedBy != "" {
		pairs = append(pairs, "Appealed by", m.AppealedBy, "Appeal reason", m.AppealReason)
	}
	if d := m.OperatorDecision; d != nil {
		pairs = append(pairs, "Operator decision", cs.Bold(DecisionText(d)), "Operator note", d.Reasoning, "Operator approval", d.ApprovalID)
	}
	return pairs
}
