// Package call holds `axp call`: any operation of the catalog by its name, as `gh api` calls any
// path. It is the CLI's door onto the catalog, so it builds inputs from the command line and calls
// by name; every other command calls with the operation's declaration (client.Call).
package call

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
)

// Options are the inputs of `axp call`.
type Options struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	// Operation is the catalog name (or the MCP tool name) of the operation.
	Operation string
	// Fields are KEY=VALUE pairs of the input; a dotted key nests (params.prompt=...).
	Fields []string
	// Input is the input as a JSON object, or "-" to read it from stdin.
	Input          string
	Token          string
	GET            bool
	IdempotencyKey string
	List           bool
}

// NewCmd builds `axp call`.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "call OPERATION [KEY=VALUE ...]",
		Short: "Call any operation of the exchange by its name and print the JSON answer",
		Long: `Call any operation of the exchange's catalog by its name (see 'axp call --list') and print its
JSON answer: indented on a terminal, as it came otherwise. A document (the join guide, a deliverable)
is printed as it is.

The input is built from KEY=VALUE pairs: a value that parses as JSON is that JSON value (10, true,
null, ["a","b"], {"k":1}), anything else is a string (quote a string that looks like JSON:
note='"42"'); a dotted key nests (params.prompt=...). --input gives the whole input as a JSON
object, or - to read it from stdin; pairs are added to it. Path parameters ({id}) are input fields.

The credentials: --token when given; else for admin_* operations the admin token ('axp login', or
AXP_ADMIN_TOKEN); for the buyer's operations on a task, the buyer token saved for the task id;
else the saved member secret; else none. A task posted with create_task keeps its buyer token, as
with 'axp task create'. An error of the exchange is printed with its hint and sets the exit status
like every other command.`,
		Example: `  axp call --list
  axp call list_services
  axp call get_task id=tsk_123 sort=price --jq '.offers[].price_usd'
  axp call get_quote type=video params.prompt="a drone shot" params.duration=10
  echo '{"type":"text-file","params":{"prompt":"a haiku"}}' | axp call create_task --input -
  axp call admin_approvals status=all`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: complete,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				o.List = true
			} else if !o.List {
				o.Operation, o.Fields = args[0], args[1:]
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			if o.List {
				return listRun(o)
			}
			return callRun(c.Context(), o)
		},
	}
	c.Flags().BoolVarP(&o.List, "list", "l", false, "list the operations with their method, path, access and summary")
	c.Flags().StringVar(&o.Input, "input", "", "the input as a JSON `object`, or - to read it from stdin")
	c.Flags().StringVar(&o.Token, "token", "", "send this buyer token, member secret or admin token")
	c.Flags().BoolVar(&o.GET, "get", false, "use the operation's plain GET form (input on the query string)")
	c.Flags().StringVar(&o.IdempotencyKey, "idempotency-key", "", "send this Idempotency-Key: a retried call is answered once")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// Lookup finds an operation by its catalog name, else by its MCP tool name.
func Lookup(name string) *contract.Op {
	if op := contract.Lookup(name); op != nil {
		return op
	}
	for i := range contract.Ops {
		if contract.Ops[i].Tool != "" && contract.Ops[i].Tool == name {
			return contract.Ops[i]
		}
	}
	return nil
}

func callRun(ctx context.Context, o *Options) error {
	op := Lookup(o.Operation)
	if op == nil {
		return unknown(o.Operation)
	}
	if o.GET && !op.GETForm && op.Method != http.MethodGet {
		return cmdutil.Usagef("%s has no GET form: call it without --get", op.Name)
	}
	document := op.ContentType != ""
	if document && (o.Export.JQ != "" || o.Export.Template != "") {
		return cmdutil.Usagef("%s answers a document, not JSON: --jq and --template do not apply", op.Name)
	}
	in, err := Input(o.IO.In, o.Input, o.Fields)
	if err != nil {
		return err
	}
	if op.In == nil && op.ExtraQuery == "" && len(in) > 0 {
		return cmdutil.Usagef("%s takes no input", op.Name)
	}
	cl, err := credentials(o, op, in)
	if err != nil {
		return err
	}
	resp, err := cl.Do(ctx, op.Name, in, client.Options{GET: o.GET, IdempotencyKey: o.IdempotencyKey})
	if err != nil {
		if cl.Token == "" && client.IsCode(err, axp.CodeUnauthorized) {
			hint := "no credentials were sent: `axp login` with a member secret, or pass --token"
			if op.Access == contract.BuyerAuth || op.Access == contract.TaskParty {
				hint = "no credentials were sent: pass --token with the task's buyer_token (tasks posted with `axp task create` are remembered), or `axp login` with a member secret"
			}
			return cmdutil.WithHint(err, hint)
		}
		return err
	}
	if op.Out == reflect.TypeFor[axp.CreatedTask]() {
		saveBuyerToken(o, resp.Body)
	}
	if document {
		if o.IO.StdoutTTY && !utf8.Valid(resp.Body) {
			return cmdutil.Usagef("the answer is binary (%d bytes): redirect stdout to a file", len(resp.Body))
		}
		_, err := o.IO.Out.Write(resp.Body)
		return err
	}
	return o.Export.Write(o.IO, resp.Body)
}

// saveBuyerToken keeps the buyer token of a task just posted, as `axp task create` does: it is
// shown once, and later calls on the task use it.
func saveBuyerToken(o *Options, body []byte) {
	var t axp.CreatedTask
	if json.Unmarshal(body, &t) != nil || t.ID == "" || t.BuyerToken == "" {
		return
	}
	if err := o.F.SaveBuyerToken(t.ID, t.BuyerToken); err != nil {
		fmt.Fprintf(o.IO.ErrOut, "warning: could not save the buyer token (%v); keep it: %s\n", err, t.BuyerToken)
	}
}

// credentials is a client with the credential the operation needs: --token, else the admin token for
// operator operations, the saved buyer token of the task for the buyer's task operations, else the
// saved member secret, else none.
func credentials(o *Options, op *contract.Op, in map[string]any) (*client.Client, error) {
	if o.Token != "" {
		return o.F.Client(o.Token), nil
	}
	if op.Access == contract.AdminAuth {
		return o.F.AdminClient()
	}
	if id, _ := in["id"].(string); id != "" && (op.Access == contract.BuyerAuth || op.Access == contract.TaskParty) &&
		strings.HasPrefix(op.Path, "/api/tasks/{id}") {
		creds, err := o.F.ExchangeCredentials()
		if err != nil {
			return nil, err
		}
		if t := creds.BuyerTokens[id]; t != "" {
			return o.F.Client(t), nil
		}
	}
	mc, err := o.F.MemberClient()
	if err != nil {
		return nil, err
	}
	if mc != nil {
		return mc, nil
	}
	return o.F.Client(""), nil
}

// Input builds an operation's input: the JSON object of input ("-": read from stdin; "": none),
// then each KEY=VALUE of fields set in it.
func Input(stdin io.Reader, input string, fields []string) (map[string]any, error) {
	in := map[string]any{}
	if input != "" {
		raw := []byte(input)
		if input == "-" {
			var err error
			if raw, err = io.ReadAll(stdin); err != nil {
				return nil, err
			}
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		err := dec.Decode(&in)
		if err == nil && dec.More() {
			err = fmt.Errorf("more than one JSON value")
		}
		if err != nil || in == nil {
			if err == nil {
				err = fmt.Errorf("null")
			}
			return nil, cmdutil.Usagef("--input: not a JSON object: %v", err)
		}
	}
	for _, kv := range fields {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, cmdutil.Usagef("%q: give input fields as KEY=VALUE", kv)
		}
		if err := set(in, k, value(v)); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// value is v as JSON when it is JSON, else the string itself.
func value(v string) any {
	if !json.Valid([]byte(v)) {
		return v
	}
	dec := json.NewDecoder(strings.NewReader(v))
	dec.UseNumber() // numbers stay exact: 2.500002 is not rounded
	var x any
	if err := dec.Decode(&x); err != nil {
		return v
	}
	return x
}

// set sets the dotted key in m, making the objects on its way.
func set(m map[string]any, key string, v any) error {
	path := strings.Split(key, ".")
	for i, k := range path {
		if k == "" {
			return cmdutil.Usagef("%q: a key has no empty parts", key)
		}
		if i == len(path)-1 {
			m[k] = v
			return nil
		}
		next, ok := m[k]
		if !ok || next == nil {
			n := map[string]any{}
			m[k] = n
			m = n
			continue
		}
		if m, ok = next.(map[string]any); !ok {
			return cmdutil.Usagef("%q: %s is already set to a value that is not an object", key, strings.Join(path[:i+1], "."))
		}
	}
	return nil
}

// unknown is the error of an operation the catalog does not have, with the names it may mean.
func unknown(name string) error {
	var near []string
	for _, op := range contract.Ops {
		if protocol.EditDistance(name, op.Name) <= 2 || (len(name) >= 4 && strings.Contains(op.Name, name)) {
			near = append(near, op.Name)
		}
	}
	err := fmt.Errorf("unknown operation %q", name)
	if len(near) > 0 {
		err = fmt.Errorf("%w; did you mean %s?", err, strings.Join(near, " or "))
	}
	return &cmdutil.UsageError{Err: fmt.Errorf("%w (list them with `axp call --list`)", err)}
}

// listed is an operation as `axp call --list --json` prints it.
type listed struct {
	Name    string `json:"name"`
	Method  string `json:"method"`
	Path    string `json:"path"`
	Access  string `json:"access"`
	Summary string `json:"summary"`
	Tool    string `json:"tool,omitempty"`
	GETForm bool   `json:"get_form,omitempty"`
}

func listRun(o *Options) error {
	if o.Export.Enabled() {
		var ops []listed
		for _, op := range contract.Ops {
			ops = append(ops, listed{op.Name, op.Method, op.Path, string(op.Access), op.Summary, op.Tool, op.GETForm})
		}
		b, err := json.Marshal(ops)
		if err != nil {
			return err
		}
		return o.Export.Write(o.IO, b)
	}
	cs := o.IO.ColorScheme()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"OPERATION", "METHOD", "PATH", "ACCESS", "SUMMARY"})
	for _, op := range contract.Ops {
		tp.AddField(op.Name, cmdutil.WithColor(cs.Bold))
		tp.AddField(op.Method)
		tp.AddField(op.Path)
		tp.AddField(string(op.Access))
		tp.AddField(op.Summary)
		tp.EndRow()
	}
	return tp.Render()
}

// complete completes operation names, then the input's field names (KEY=) and the values of
// fields with a fixed set of them.
func complete(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		var out []string
		for _, op := range contract.Ops {
			if strings.HasPrefix(op.Name, toComplete) {
				out = append(out, op.Name+"\t"+op.Summary)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	op := Lookup(args[0])
	if op == nil || op.In == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	props := protocol.SchemaOf(op.In).Properties
	if k, _, ok := strings.Cut(toComplete, "="); ok {
		var out []string
		if p := props[k]; p != nil {
			for _, v := range p.Enum {
				out = append(out, fmt.Sprintf("%s=%v", k, v))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	given := map[string]bool{}
	for _, a := range args[1:] {
		k, _, _ := strings.Cut(a, "=")
		given[k] = true
	}
	var out []string
	for k, p := range props {
		if !given[k] && strings.HasPrefix(k, toComplete) {
			out = append(out, k+"=\t"+p.Description)
		}
	}
	sort.Strings(out)
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
