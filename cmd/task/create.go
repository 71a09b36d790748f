package task

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
)

// CreateOptions are the inputs of `axp task create`.
type CreateOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter

	Type        string
	CustomType  string
	Description string
	Params      []string
	Deadline    string
	AutoChoose  string
	ChecksFile  string
	Payment     string
	Invite      []string
	Anonymous   bool
}

// NewCmdCreate builds `axp task create`; runF replaces the run function in tests.
func NewCmdCreate(f *cmdutil.Factory, runF func(context.Context, *CreateOptions) error) *cobra.Command {
	o := &CreateOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "create",
		Short: "Post a task and show the offers sellers make",
		Long: `Post a task. The exchange collects offers within its quote window (a spinner shows on a
terminal meanwhile), then the offers are shown ranked by value. The task's buyer token is saved, so
later commands need only the task id.

Params are the service's parameters (see 'axp services'); integers are converted for catalog types,
and k:=JSON gives any other JSON value.`,
		Example: `  axp task create --type text-file --param prompt="a haiku about the sea"
  axp task create --type video --param prompt="a drone shot" --param duration=10 --auto-choose cheapest
  axp task create --description "translate my README into French" --param text=@README.md`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.Type != "" && o.CustomType != "" {
				return cmdutil.Usagef("give --type or --custom-type, not both")
			}
			if err := checkType(o.Type); err != nil {
				return err
			}
			if o.CustomType != "" {
				o.Type = o.CustomType
			}
			if o.Type == "" && o.Description == "" {
				return cmdutil.Usagef("give --type or --description (the type is then inferred)")
			}
			if err := oneOf("--auto-choose", o.AutoChoose, "", "cheapest", "fastest"); err != nil {
				return err
			}
			if err := oneOf("--payment", o.Payment, "", axp.PayCrypto, axp.PayFree); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return createRun(c.Context(), o)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.Type, "type", "", "task type, e.g. text-file (see 'axp services')")
	fl.StringVar(&o.CustomType, "custom-type", "", "a task type outside the catalog, for sellers who offer it")
	fl.StringVar(&o.Description, "description", "", "what you want done, in your own words")
	fl.StringArrayVarP(&o.Params, "param", "p", nil, "service param as `key=value` (repeat; key:=JSON for a JSON value; value @FILE reads a file)")
	fl.StringVar(&o.Deadline, "deadline", "", "deadline in minutes, or a duration such as 2h")
	fl.StringVar(&o.AutoChoose, "auto-choose", "", "choose an offer when the quote window ends: cheapest or fastest")
	fl.StringVar(&o.ChecksFile, "checks", "", "acceptance checks: a JSON `file` (- for stdin)")
	fl.StringVar(&o.Payment, "payment", "", "payment method: crypto (default) or free")
	fl.StringSliceVar(&o.Invite, "invite", nil, "invite only these sellers: favourites, or seller ids")
	fl.BoolVar(&o.Anonymous, "anonymous", false, "post anonymously even when logged in as a member")
	c.RegisterFlagCompletionFunc("type", CompleteTypes)
	c.RegisterFlagCompletionFunc("payment", cobra.FixedCompletions([]string{axp.PayCrypto, axp.PayFree}, cobra.ShellCompDirectiveNoFileComp))
	c.RegisterFlagCompletionFunc("auto-choose", cobra.FixedCompletions([]string{"cheapest", "fastest"}, cobra.ShellCompDirectiveNoFileComp))
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// checkType refuses a --type outside the catalog before anything is posted: a typo would
// otherwise post a custom task nobody quotes for.
func checkType(typ string) error {
	if typ == "" || axp.ServiceFor(typ) != nil {
		return nil
	}
	best, bestD := "", 0
	for _, s := range axp.Services {
		if d := protocol.EditDistance(typ, s.Type); best == "" || d < bestD {
			best, bestD = s.Type, d
		}
	}
	if best != "" && bestD <= max(2, len(typ)/3) {
		return cmdutil.Usagef("--type %q is not in the catalog: did you mean %s? (a type outside the catalog takes --custom-type)", typ, best)
	}
	return cmdutil.Usagef("--type %q is not in the catalog (see 'axp services'); a type outside the catalog takes --custom-type", typ)
}

func oneOf(flag, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return cmdutil.Usagef("%s %q: use one of %s", flag, v, strings.Join(allowed[1:], ", "))
}

// Body builds the create_task body from the options.
func (o *CreateOptions) Body(stdin io.Reader) (*axp.NewTask, error) {
	nt := &axp.NewTask{Type: o.Type, Description: o.Description, AutoChoose: o.AutoChoose, PaymentMethod: o.Payment}
	p, err := ParseParams(o.Type, o.Params)
	if err != nil {
		return nil, err
	}
	if len(p) > 0 {
		nt.Params = p
	}
	if o.Deadline != "" {
		m, err := ParseDeadline(o.Deadline)
		if err != nil {
			return nil, err
		}
		nt.DeadlineMinutes = &m
	}
	if o.ChecksFile != "" {
		raw, err := cmdutil.ReadFile(stdin, o.ChecksFile)
		if err != nil {
			return nil, cmdutil.Usagef("--checks: %v", err)
		}
		if err := json.Unmarshal(raw, &nt.AcceptanceChecks); err != nil || nt.AcceptanceChecks == nil {
			return nil, cmdutil.Usagef("--checks %s: not a JSON object of checks (%v)", o.ChecksFile, err)
		}
	}
	switch {
	case len(o.Invite) == 1 && o.Invite[0] == "favourites":
		nt.InviteSellers = axp.SellerInvite{Favourites: true}
	case len(o.Invite) > 0:
		for _, id := range o.Invite {
			if id == "favourites" {
				return nil, cmdutil.Usagef("--invite favourites cannot be mixed with seller ids")
			}
		}
		nt.InviteSellers = axp.SellerInvite{IDs: o.Invite}
	}
	return nt, nil
}

// ParseParams reads key=value params. Values of catalog types are converted to the param's type
// (duration=10 becomes the integer 10); key:=JSON takes a JSON value; a value @FILE is the file's
// text.
func ParseParams(taskType string, list []string) (map[string]any, error) {
	out := map[string]any{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || k == ":" {
			return nil, cmdutil.Usagef("--param %q: use key=value", kv)
		}
		if key, isJSON := strings.CutSuffix(k, ":"); isJSON {
			var val any
			dec := json.NewDecoder(strings.NewReader(v))
			dec.UseNumber()
			if err := dec.Decode(&val); err != nil {
				return nil, cmdutil.Usagef("--param %s: %q is not JSON: %v", key, v, err)
			}
			out[key] = val
			continue
		}
		if file, ok := strings.CutPrefix(v, "@"); ok && file != "" {
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, cmdutil.Usagef("--param %s: %v", k, err)
			}
			v = string(b)
		}
		out[k] = v
	}
	if s := axp.ServiceFor(taskType); s != nil {
		if err := checkParamKeys(s, out); err != nil {
			return nil, err
		}
		protocol.Coerce(s.ParamsSchema(), out)
	}
	return out, nil
}

// checkParamKeys refuses a param key that is not one of the service's but is a typo of one
// (promt for prompt): said before the exchange would answer that the meant param is missing.
func checkParamKeys(s *axp.Service, params map[string]any) error {
	keys := slices.Sorted(maps.Keys(params))
	for _, k := range keys {
		best, bestD := "", 0
		for _, p := range s.Params {
			if p.Name == k {
				best = ""
				break
			}
			if d := protocol.EditDistance(k, p.Name); best == "" || d < bestD {
				best, bestD = p.Name, d
			}
		}
		if _, given := params[best]; best != "" && !given && bestD <= max(2, len(k)/3) {
			return cmdutil.Usagef("--param %s: %s has no param %q: did you mean %s?", k, s.Type, k, best)
		}
	}
	return nil
}

// ParseDeadline reads minutes ("90") or a duration ("2h", "45m").
func ParseDeadline(s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 {
			return 0, cmdutil.Usagef("--deadline %s: give at least 1 minute", s)
		}
		return n, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, cmdutil.Usagef("--deadline %q: give minutes (90) or a duration (2h)", s)
	}
	m := int((d + time.Minute - 1) / time.Minute)
	if m < 1 {
		return 0, cmdutil.Usagef("--deadline %s: give at least 1 minute", s)
	}
	return m, nil
}

func createRun(ctx context.Context, o *CreateOptions) error {
	body, err := o.Body(o.IO.In)
	if err != nil {
		return err
	}
	cl, as, err := poster(ctx, o)
	if err != nil {
		return err
	}
	sp := cmdutil.StartSpinner(o.IO, "Posting the task and waiting for quotes")
	created, raw, err := client.Call(ctx, cl, contract.CreateTask, *body)
	sp.Stop()
	if err != nil {
		return err
	}
	if err := o.F.SaveBuyerToken(created.ID, created.BuyerToken); err != nil {
		// The token is shown once: never lose it.
		fmt.Fprintf(o.IO.ErrOut, "warning: could not save the buyer token (%v); keep it: %s\n", err, created.BuyerToken)
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	cs := o.IO.ColorScheme()
	fmt.Fprintf(o.IO.ErrOut, "✓ Posted task %s (%s) %s on %s; its buyer token is saved\n", created.ID, created.Type, as, o.F.ExchangeURL())
	if len(created.Questions) > 0 {
		// Not a prompt: nothing waits for an answer here.
		fmt.Fprintln(o.IO.ErrOut, "Sellers will want to know (post again with --type and --param, or describe the job in axp talk):")
		for _, q := range created.Questions {
			fmt.Fprintf(o.IO.ErrOut, "  - %s\n", q)
		}
	}
	t := &created.Task
	if !o.IO.StdoutTTY {
		// Piped: the task id alone, for the next command (`axp offers ID` lists the offers).
		fmt.Fprintln(o.IO.Out, t.ID)
	} else {
		fmt.Fprintf(o.IO.Out, "%s  %s  %s  %s\n", cs.Bold(t.ID), t.Type, cs.Status(t.Status), cmdutil.Count(len(t.Offers), "offer", "offers"))
	}
	switch {
	case t.Status == axp.TaskAwaitingPayment:
		fmt.Fprintf(o.IO.ErrOut, "The exchange chose offer %s (--auto-choose %s)\n", t.ChosenOfferID, t.AutoChoose)
		if o.IO.StdoutTTY {
			if err := cmdutil.KeyValues(o.IO, paymentPairs(o.IO, t.Payment)...); err != nil {
				return err
			}
		}
		fmt.Fprintln(o.IO.ErrOut, payNext(t.ID, t.Payment, "Pay, then report it"))
	case len(t.Offers) == 0:
		fmt.Fprintf(o.IO.ErrOut, "No offers yet; sellers may still quote: axp offers %s (or axp task watch %s)\n", t.ID, t.ID)
	default:
		if o.IO.StdoutTTY {
			if err := writeOffers(o.IO, t); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(o.IO.ErrOut, "%s: axp offers %s\n", cmdutil.Count(len(t.Offers), "offer", "offers"), t.ID)
		}
		if t.Status == axp.TaskOpen {
			fmt.Fprintf(o.IO.ErrOut, "Choose the recommended offer: axp task choose %s\n", t.ID)
		}
	}
	return nil
}

// poster is the client a task is posted with and how that is said: the saved member when it is a
// buyer member, else anonymously (with a buyer token). A member that is not a buyer (a seller
// logged in with its secret) posts anonymously, and the command says so, instead of being refused.
func poster(ctx context.Context, o *CreateOptions) (*client.Client, string, error) {
	anon := o.F.Client("")
	if o.Anonymous {
		return anon, "anonymously", nil
	}
	mc, err := o.F.MemberClient()
	if err != nil || mc == nil {
		return anon, "anonymously", err
	}
	m, _, err := client.Call(ctx, mc, contract.GetMyProfile, contract.NoInput{})
	if err != nil {
		return nil, "", cmdutil.WithHint(err, "the saved member secret was refused: `axp login` again, or post with --anonymous",
			axp.CodeUnauthorized, axp.CodeForbidden)
	}
	if !slices.Contains(m.Roles, protocol.RoleBuyer) {
		fmt.Fprintf(o.IO.ErrOut, "note: member %s (%s) is not a buyer, so the task is posted anonymously (as --anonymous does)\n", m.Name, m.ID)
		return anon, "anonymously", nil
	}
	return mc, "as member " + m.Name, nil
}

// CompleteTypes completes --type with the catalog's task types and their summaries.
func CompleteTypes(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, s := range axp.Services {
		out = append(out, s.Type+"\t"+s.Summary)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
