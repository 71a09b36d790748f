package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// Trust and safety from the parties' side: messages, reviews, settlements, mediations and appeals.
// These commands act as either party of a task: its buyer (the saved buyer token, or a buyer
// member's secret) or its seller (the member secret saved by `axp login`, or the one `axp member
// serve` keeps).

// partyAuthHint is the hint of a party call the exchange refused for its credentials.
const partyAuthHint = "the saved credentials do not open this task: pass --token with its buyer_token; as the member who posted it or was chosen to do it, pass --dir DIR with the directory of its `axp member serve`, or `axp login --dir DIR`"

// addPartyTokenFlag adds --token and --dir to a command that acts as either party of a task.
func addPartyTokenFlag(c *cobra.Command, f *cmdutil.Factory, b *buyerFlags) {
	c.Flags().StringVar(&b.Token, "token", "", "the task's buyer token, or a member secret (default: the saved buyer token, else the saved member secret)")
	cmdutil.AddMemberDirFlag(c, f)
}

// partyClient is a client acting as a party of task id: token when given, else the buyer token
// saved when the task was posted, else the saved member secret (a buyer member, or the task's
// seller).
func partyClient(f *cmdutil.Factory, taskID, token string) (*client.Client, error) {
	if token == "" && f.MemberDir != "" {
		// --dir names the member to act as: its seller, or the buyer member that posted it.
		return f.MemberClient()
	}
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
			Hint:    "as its buyer, tasks posted with `axp task create` are remembered (else pass --token with the buyer_token); as its seller or a buyer member, pass --dir DIR with the directory of your `axp member serve`, or `axp login --dir DIR`"}
	}
	return nil, err
}

// partyCall runs an operation as a party and returns its answer decoded and as the exchange sent
// it. A refusal for the credentials gets the login hint; other refusals keep the exchange's hint,
// which names the rule.
func partyCall[I, O any](ctx context.Context, cl *client.Client, def contract.Def[I, O], in I) (*O, []byte, error) {
	out, body, err := client.Call(ctx, cl, def, in)
	var e *axp.Error
	if errors.As(err, &e) && (e.Code == axp.CodeUnauthorized || (e.Code == axp.CodeForbidden && e.Hint == "")) {
		return nil, nil, cmdutil.WithHint(err, partyAuthHint)
	}
	return out, body, err
}

// timeline reads a task's timeline as a party. The catalog declares its events as a free-form
// result; the CLI reads them as an axp.Timeline.
func timeline(ctx context.Context, cl *client.Client, taskID string) (*axp.Timeline, error) {
	_, raw, err := partyCall(ctx, cl, contract.GetTimeline, taskRef(taskID))
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
