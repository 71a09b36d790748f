package member

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// updateLine is the line a person running `axp member serve` reads on stderr for a task update
// that matters to them (a dispute, a message, a settlement, a decision, a payout), or "" for the
// others (stdout has every update as JSON).
func updateLine(in protocol.TaskUpdateInput) string {
	str := func(k string) string {
		if v, ok := in.Data[k]; ok && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	id := in.TaskID
	switch in.Event {
	case "message":
		return fmt.Sprintf("message from the %s on task %s: %s (answer: axp task message %s --body TEXT)", str("from"), id, oneLine(str("body")), id)
	case "settlement_proposed":
		return fmt.Sprintf("the %s proposes a settlement on task %s: refund %s%% (answer: axp task settlement %s --accept or --reject)", str("proposed_by"), id, str("refund_pct"), id)
	case "settlement_accepted":
		return fmt.Sprintf("settlement on task %s accepted: refund %s%%; it waits for the operator's approval", id, str("refund_pct"))
	case "settlement_rejected":
		return fmt.Sprintf("settlement on task %s rejected", id)
	case "mediation_decided":
		line := fmt.Sprintf("mediation %s on task %s decided by the %s: %s", str("mediation_id"), id, str("by"), str("outcome"))
		if p := str("refund_pct"); p != "" {
			line += " (refund " + p + "%)"
		}
		return line + fmt.Sprintf("; appeal within the window: axp task appeal %s --reason TEXT", id)
	case "mediation_appealed":
		return fmt.Sprintf("mediation %s on task %s appealed by the %s: the operator decides", str("mediation_id"), id, str("by"))
	case "":
	default:
		return ""
	}
	switch in.Status {
	case axp.TaskDisputed:
		return fmt.Sprintf("task %s is disputed by the buyer (talk: axp task messages %s; settle: axp task settle %s --refund-pct N)", id, id, id)
	case axp.TaskAccepted:
		return fmt.Sprintf("the buyer accepted task %s; the payout waits for the operator's approval", id)
	case axp.TaskReleased:
		return fmt.Sprintf("task %s released: the payout was sent", id)
	case axp.TaskRefunded:
		return fmt.Sprintf("task %s refunded to the buyer", id)
	}
	return ""
}

// payoutLine is the line for a released job: the amount sent and its transaction.
func payoutLine(taskID string, j axp.EarnedJob) string {
	line := fmt.Sprintf("task %s released: the payout of %s was sent", taskID, money(j.NetUSD))
	switch {
	case j.TxHash != "":
		line += " in transaction " + j.TxHash
	case j.Payout != "paid":
		line += " (its transfer is " + j.Payout + ")"
	}
	return line + " (axp member jobs lists every job's payout)"
}

// removedLine is the line for a delivery the exchange changed: what it removed, and what that
// means for the seller ("" when it delivered as sent).
func removedLine(taskID string, contacts, credentials []string) string {
	var what []string
	if len(contacts) > 0 {
		what = append(what, "contact details ("+strings.Join(contacts, ", ")+")")
	}
	if len(credentials) > 0 {
		what = append(what, "credentials ("+strings.Join(credentials, ", ")+")")
	}
	if len(what) == 0 {
		return ""
	}
	return fmt.Sprintf("the exchange removed %s from your delivery of task %s: the buyer gets a marker in their place. "+
		"Each such delivery counts against you (a few within 24 hours bring a warning, more a suspension): deliver results only, without emails, links, handles or keys",
		strings.Join(what, " and "), taskID)
}

// announcementLine is the line for a notice from the exchange that asks for the member's
// attention: a warning, a suspension (with what to do), or "" for an ordinary announcement.
func announcementLine(in protocol.AnnouncementInput, exchange string) string {
	if in.Test {
		return ""
	}
	switch in.Severity {
	case "action_required":
		line := fmt.Sprintf("ACTION REQUIRED: %s. %s", strings.TrimSuffix(in.Title, "."), strings.Join(strings.Fields(in.Body), " "))
		if strings.Contains(strings.ToLower(in.Title), "suspended") {
			line += fmt.Sprintf("\nwhat to do: while suspended this seller gets no jobs and its calls are refused; write to the operator "+
				"(the contact on %s/faq), and once reinstated, jobs resume and accepted jobs ask for their payment again by themselves", strings.TrimRight(exchange, "/"))
		}
		return line
	case "important":
		return fmt.Sprintf("WARNING from the exchange: %s. %s", strings.TrimSuffix(in.Title, "."), strings.Join(strings.Fields(in.Body), " "))
	}
	return ""
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// statementTimeout bounds a --statement-cmd: the exchange waits for the mediation tool's answer
// within its call timeout.
const statementTimeout = protocol.ToolCallTimeoutMillis * time.Millisecond * 8 / 10

// statement answers a mediation request. With a statement command, the command gets the request
// as JSON on stdin and writes the statement on stdout: plain text, or a JSON object
// {"statement": "...", "proposed_refund_pct": N}. Without one, the neutral default of memberkit
// is sent, and the log line says so.
func (p *logParty) statement(ctx context.Context, in protocol.MediationInput) (protocol.MediationOutput, string, error) {
	if p.statementCmd == "" {
		out, err := p.Defaults.Mediation(ctx, in)
		return out, "sent the default neutral statement (write your own with --statement-cmd CMD)", err
	}
	body, err := json.Marshal(in)
	if err != nil {
		return protocol.MediationOutput{}, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, statementTimeout)
	defer cancel()
	c := shellCmd(ctx, p.statementCmd)
	c.Env = append(append([]string(nil), p.env...), "AXP_TASK_ID="+in.TaskID, "AXP_MEDIATION_ID="+in.MediationID, "AXP_YOUR_ROLE="+in.YourRole)
	c.Stdin = bytes.NewReader(body)
	var stdout bytes.Buffer
	tail := &tailBuffer{max: 1024, also: p.errw}
	c.Stdout, c.Stderr = &stdout, tail
	c.WaitDelay = time.Second
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		switch {
		case ctx.Err() != nil:
			err = fmt.Errorf("--statement-cmd did not answer within %s", statementTimeout)
		case errors.As(err, &ee):
			err = fmt.Errorf("--statement-cmd failed (%v): %s", err, tail)
		}
		return protocol.MediationOutput{}, "", err
	}
	out, err := parseStatement(stdout.Bytes())
	if err != nil {
		return protocol.MediationOutput{}, "", err
	}
	return out, "sent the statement of --statement-cmd", nil
}

// parseStatement reads what a statement command wrote: a JSON object with statement (and
// proposed_refund_pct), or the statement as plain text.
func parseStatement(b []byte) (protocol.MediationOutput, error) {
	text := bytes.TrimSpace(b)
	var out protocol.MediationOutput
	if len(text) > 0 && text[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&out); err != nil {
			return out, fmt.Errorf("--statement-cmd wrote a JSON object that is not {\"statement\", \"proposed_refund_pct\"}: %v", err)
		}
	} else {
		out.Statement = string(text)
	}
	out.Statement = strings.TrimSpace(out.Statement)
	switch {
	case out.Statement == "":
		return out, errors.New("--statement-cmd wrote no statement on stdout")
	case len([]rune(out.Statement)) > 4000:
		return out, fmt.Errorf("--statement-cmd wrote a statement of %d characters; at most 4000", len([]rune(out.Statement)))
	case out.ProposedRefundPct != nil && (*out.ProposedRefundPct < 0 || *out.ProposedRefundPct > 100):
		return out, fmt.Errorf("--statement-cmd proposed a refund of %d%%; 0 to 100", *out.ProposedRefundPct)
	}
	return out, nil
}

var _ memberkit.Party = (*logParty)(nil)
