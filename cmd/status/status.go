// Package status holds `axp status`: which exchange the command line talks to, whether it is up,
// who you are logged in as there and, for the operator, what waits in the queues.
package status

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
)

// Options are the inputs of `axp status`.
type Options struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
}

// Status is what `axp status --json` prints.
type Status struct {
	Exchange string `json:"exchange"`
	// Source is where the exchange comes from: --exchange, AXP_EXCHANGE, axp login or default.
	Source   string            `json:"source"`
	Healthy  bool              `json:"healthy"`
	Problem  string            `json:"problem,omitempty"`
	Versions map[string]string `json:"versions,omitempty"`
	// TestMode says the exchange runs its own test chain: money there is not real.
	TestMode bool    `json:"test_mode"`
	Member   *Member `json:"member,omitempty"`
	// BuyerTasks counts the tasks whose buyer token is saved.
	BuyerTasks int       `json:"buyer_tasks"`
	Operator   *Operator `json:"operator,omitempty"`
}

// Member is the member you are logged in as.
type Member struct {
	ID      string   `json:"id"`
	Name    string   `json:"name,omitempty"`
	Roles   []string `json:"roles,omitempty"`
	State   string   `json:"state,omitempty"`
	Problem string   `json:"problem,omitempty"`
}

// Operator is the operator's login and queues.
type Operator struct {
	Token   string `json:"token_fingerprint"`
	FromEnv bool   `json:"from_env"`
	Problem string `json:"problem,omitempty"`
	// Approvals counts open queue items by kind; Mediations the appealed mediations.
	Approvals  map[string]int `json:"approvals,omitempty"`
	Mediations int            `json:"appealed_mediations"`
	// Reorged counts payments that left the canonical chain; Float is the hot wallet against the
	// queue (exchanges that send payouts themselves).
	Reorged int        `json:"reorged_payments,omitempty"`
	Float   *axp.Float `json:"float,omitempty"`
}

// NewCmd builds `axp status`.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "status",
		Short: "Show the exchange in use, its health, who you are logged in as and what waits",
		Long: `Show the exchange the command line talks to and why (--exchange, AXP_EXCHANGE, the last
'axp login', or the local default), its versions and health, who you are logged in as there (a
member and its roles, tasks whose buyer token is saved, the operator) and, for the operator, the
items waiting in the approval queue and the appealed mediations. The exit status is 8 when the
exchange cannot be reached.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), o)
			}
			return run(c.Context(), o)
		},
	}
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func run(ctx context.Context, o *Options) error {
	st := &Status{}
	st.Exchange, st.Source = o.F.ExchangeSource()
	anon := o.F.Client("")
	var down error
	if p, _, err := client.Call(ctx, anon, contract.GetProtocol, contract.NoInput{}); err != nil {
		st.Problem, down = errText(err), err
	} else {
		st.Healthy, st.Versions = true, p.Versions
		if pr, _, err := client.Call(ctx, anon, contract.GetPricing, contract.NoInput{}); err == nil {
			st.TestMode = pr.TestMode
		}
	}
	creds, err := o.F.ExchangeCredentials()
	if err != nil {
		return err
	}
	st.BuyerTasks = len(creds.BuyerTokens)
	if mc, err := o.F.MemberClient(); err != nil {
		return err
	} else if mc != nil {
		id, _ := axp.MemberIDFromSecret(mc.Token)
		st.Member = &Member{ID: id}
		if down == nil {
			if m, _, err := client.Call(ctx, mc, contract.GetMyProfile, contract.NoInput{}); err != nil {
				st.Member.Problem = errText(err)
			} else {
				st.Member.Name, st.Member.Roles, st.Member.State = m.Name, m.Roles, m.State
			}
		}
	}
	if tok, err := o.F.AdminToken(); err != nil {
		return err
	} else if tok != "" {
		op := &Operator{Token: protocol.Fingerprint(tok), FromEnv: o.F.Getenv != nil && o.F.Getenv("AXP_ADMIN_TOKEN") != ""}
		st.Operator = op
		if down == nil {
			queues(ctx, o.F.Client(tok), op)
		}
	}
	if o.Export.Enabled() {
		b, err := json.Marshal(st)
		if err != nil {
			return err
		}
		if err := o.Export.Write(o.IO, b); err != nil {
			return err
		}
	} else if err := write(o.IO, st); err != nil {
		return err
	}
	if down != nil {
		return down
	}
	return nil
}

// queues fills the operator's queue counts (or the reason they could not be read).
func queues(ctx context.Context, cl *client.Client, op *Operator) {
	l, _, err := client.Call(ctx, cl, contract.AdminApprovals, axp.ApprovalsQuery{})
	if err != nil {
		op.Problem = errText(err)
		return
	}
	op.Approvals, op.Float = map[string]int{}, l.Float
	for _, a := range l.Approvals {
		op.Approvals[a.Kind]++
		if a.Status == axp.ApprovalReorged {
			op.Reorged++
		}
	}
	m, _, err := client.Call(ctx, cl, contract.AdminMediations, axp.MediationsQuery{Status: "appealed"})
	if err != nil {
		op.Problem = errText(err)
		return
	}
	op.Mediations = len(m.Mediations)
}

func errText(err error) string {
	if e, ok := err.(*axp.Error); ok {
		return e.Message
	}
	return err.Error()
}

func write(s *cmdutil.IOStreams, st *Status) error {
	cs := s.ColorScheme()
	health := cs.Green("up")
	if !st.Healthy {
		health = cs.Red("unreachable")
	} else if v := versions(st.Versions); v != "" {
		health += " (" + v + ")"
	}
	pairs := []string{"Exchange", cs.Bold(st.Exchange) + " (from " + st.Source + ")", "Health", health}
	if st.TestMode {
		pairs = append(pairs, "Money", cs.Yellow("TEST MODE: money here is not real (the exchange's own test chain; axp wallet fund gives test money)"))
	}
	if m := st.Member; m != nil {
		text := m.ID
		switch {
		case m.Problem != "":
			text += ": " + cs.Red(m.Problem)
		case m.Name != "":
			text = fmt.Sprintf("%s (%s; %s; %s)", m.Name, m.ID, strings.Join(m.Roles, ", "), m.State)
		}
		pairs = append(pairs, "Member", text)
	} else {
		pairs = append(pairs, "Member", cs.Gray("not logged in (axp login with a member secret)"))
	}
	if st.BuyerTasks > 0 {
		pairs = append(pairs, "Buyer", cmdutil.Count(st.BuyerTasks, "task", "tasks")+" with a saved buyer token (axp task list)")
	}
	if op := st.Operator; op != nil {
		text := "admin token " + op.Token
		if op.FromEnv {
			text += " (from AXP_ADMIN_TOKEN)"
		}
		if op.Problem != "" {
			text += ": " + cs.Red(op.Problem)
		}
		pairs = append(pairs, "Operator", text)
		if op.Approvals != nil {
			pairs = append(pairs, "Queue", queueText(op))
		}
		if op.Reorged > 0 {
			pairs = append(pairs, "Reorged", cs.Red(fmt.Sprintf("%d payments left the canonical chain: their tasks' money is held (axp admin reconcile)", op.Reorged)))
		}
		if f := op.Float; f != nil {
			text := fmt.Sprintf("%s holds %s; the queue sends %s", f.HotWalletAddress, f.BalanceUSD.Display(), f.QueuedUSD.Display())
			switch {
			case f.Problem != "":
				text = cs.Red(f.Problem)
			case f.ShortUSD > 0:
				text += cs.Red(fmt.Sprintf(": %s short, send it the stablecoin (payouts leave from the hot wallet)", f.ShortUSD.Display()))
			}
			pairs = append(pairs, "Hot wallet", text)
		}
	} else {
		pairs = append(pairs, "Operator", cs.Gray("not logged in"))
	}
	return cmdutil.KeyValues(s, pairs...)
}

func versions(v map[string]string) string {
	var parts []string
	for _, k := range []string{"api", "protocol"} {
		if v[k] != "" {
			parts = append(parts, k+" "+v[k])
		}
	}
	return strings.Join(parts, ", ")
}

func queueText(op *Operator) string {
	total := 0
	var kinds []string
	for k, n := range op.Approvals {
		total += n
		kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(kinds)
	text := cmdutil.Count(total, "approval", "approvals") + " waiting"
	if len(kinds) > 0 {
		text += " (" + strings.Join(kinds, ", ") + "; axp admin approvals list)"
	}
	text += ", " + cmdutil.Count(op.Mediations, "appealed mediation", "appealed mediations")
	if op.Mediations > 0 {
		text += " (axp admin mediations list --status appealed)"
	}
	return text
}
