package call_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/call"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

func TestCallFlags(t *testing.T) {
	f, _ := cmdtest.Factory(t, "http://127.0.0.1:1", nil)
	var got *call.Options
	runF := func(_ context.Context, o *call.Options) error { got = o; return nil }
	if err := cmdtest.Exec(call.NewCmd(f, runF), "get_task", "id=tsk_1", "sort=price", "--token", "bt_x", "--get", "--input", "-", "--jq", ".id"); err != nil {
		t.Fatal(err)
	}
	if got.Operation != "get_task" || !reflect.DeepEqual(got.Fields, []string{"id=tsk_1", "sort=price"}) || got.Token != "bt_x" ||
		!got.GET || got.Input != "-" || got.Export.JQ != ".id" || got.List {
		t.Errorf("options %+v", got)
	}
	if err := cmdtest.Exec(call.NewCmd(f, runF)); err != nil || !got.List {
		t.Errorf("no operation lists: %v %+v", err, got)
	}
}

func TestInput(t *testing.T) {
	in, err := call.Input(strings.NewReader(`{"id":"tsk_1","params":{"style":"free"}}`), "-",
		[]string{"params.prompt=a haiku", "params.lines=3", "accept=false", "note=\"42\"", "list=[1,2.500002]", "empty=", "url=a=b"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"id": "tsk_1", "accept": false, "note": "42", "list": []any{json.Number("1"), json.Number("2.500002")},
		"empty": "", "url": "a=b", "params": map[string]any{"style": "free", "prompt": "a haiku", "lines": json.Number("3")}}
	if !reflect.DeepEqual(in, want) {
		t.Errorf("input\n got %#v\nwant %#v", in, want)
	}
	for _, bad := range []struct {
		input  string
		fields []string
		want   string
	}{
		{"", []string{"noequals"}, "give input fields as KEY=VALUE"},
		{"", []string{"=x"}, "give input fields as KEY=VALUE"},
		{"", []string{"a..b=1"}, "no empty parts"},
		{"", []string{"a=1", "a.b=2"}, "a is already set to a value that is not an object"},
		{"[1]", nil, "--input: not a JSON object"},
		{"null", nil, "--input: not a JSON object"},
		{`{"a":1} {}`, nil, "--input: not a JSON object"},
	} {
		_, err := call.Input(strings.NewReader(""), bad.input, bad.fields)
		if cmdutil.ExitStatus(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q %v: %v, want a usage error with %q", bad.input, bad.fields, err, bad.want)
		}
	}
}

// TestCall runs `axp call` against a real exchange: public, buyer and operator operations, input
// from key=value pairs and from stdin, and the exchange's errors.
func TestCall(t *testing.T) {
	x := cmdtest.NewExchange(t)
	x.MustSeller(cmdtest.SellerSpec{Name: "Quick Writer", TaskType: "text-file", Price: "2.50", ETA: 10})
	f, s := cmdtest.Factory(t, x.URL, nil)
	run := func(args ...string) error {
		t.Helper()
		s.Reset()
		return cmdtest.Exec(call.NewCmd(f, nil), args...)
	}
	must := func(args ...string) string {
		t.Helper()
		if err := run(args...); err != nil {
			t.Fatalf("call %v: %v\nstderr: %s", args, err, s.ErrOut)
		}
		return s.Out.String()
	}

	// A public operation: the answer as it came.
	if got, want := must("list_services"), x.Raw(x.Anon, "list_services", nil); got != want {
		t.Errorf("list_services\n got %s\nwant %s", got, want)
	}
	got := must("get_quote", "type=video", "params.prompt=waves", "params.duration=10")
	if want := x.Raw(x.Anon, "get_quote", map[string]any{"type": "video", "params": map[string]any{"prompt": "waves", "duration": 10}}); got != want {
		t.Errorf("get_quote\n got %s\nwant %s", got, want)
	}
	// A document is printed as it is; the GET form on request.
	if got := must("get_join"); !strings.HasPrefix(got, "# ") {
		t.Errorf("get_join: %.60q", got)
	}
	if got := must("register_interest", "type=video", "--get", "--jq", ".recorded"); got != "true\n" {
		t.Errorf("register_interest --get: %q", got)
	}

	// A task posted from stdin keeps its buyer token, as with `axp task create`; buyer operations
	// with its id use it.
	s.In.WriteString(`{"type":"text-file","params":{"prompt":"a haiku"}}`)
	var created axp.CreatedTask
	if err := json.Unmarshal([]byte(must("create_task", "--input", "-")), &created); err != nil || created.ID == "" || created.BuyerToken == "" {
		t.Fatalf("create_task from stdin: %v %+v", err, created)
	}
	if creds, err := f.ExchangeCredentials(); err != nil || creds.BuyerTokens[created.ID] != created.BuyerToken {
		t.Fatalf("the buyer token was not saved: %v", err)
	}
	var task axp.Task
	if err := json.Unmarshal([]byte(must("get_task", "id="+created.ID, "sort=price")), &task); err != nil || task.ID != created.ID || len(task.Offers) != 1 {
		t.Fatalf("get_task: %v %+v", err, task)
	}
	if got := must("post_message", "id="+created.ID, "seller_id="+task.Offers[0].Seller.ID, "body=Four lines, please.", "--jq", ".body"); got != "Four lines, please.\n" {
		t.Errorf("post_message: %q", got)
	}
	s.In.WriteString(`{"id":"` + created.ID + `"}`)
	if got := must("list_messages", "--input", "-", "--jq", ".messages | length"); got != "1\n" {
		t.Errorf("list_messages from stdin: %q", got)
	}
	// Another buyer's token is refused by the exchange.
	err := run("get_task", "id="+created.ID, "--token", "bt_nope")
	if cmdutil.ExitStatus(err) != cmdutil.ExitAuth || s.Out.Len() != 0 {
		t.Errorf("a wrong token: %v, stdout %q", err, s.Out)
	}
	// On a terminal the answer is indented.
	f.IO.StdoutTTY, f.IO.NoColor = true, true
	if got := must("get_task", "id="+created.ID); !strings.HasPrefix(got, "{\n  \"") {
		t.Errorf("on a terminal: %.40q", got)
	}
	f.IO.StdoutTTY = false

	// A bad field: the exchange's 400, rendered like every command's error, nothing on stdout.
	err = run("get_task", "id="+created.ID, "sort=cheap")
	var e *axp.Error
	if !errors.As(err, &e) || e.Code != axp.CodeInvalidInput || e.Field != "sort" || cmdutil.ExitStatus(err) != cmdutil.ExitUsage || s.Out.Len() != 0 {
		t.Fatalf("a bad field: %v, stdout %q", err, s.Out)
	}
	var msg strings.Builder
	cmdutil.PrintError(&msg, err)
	if !strings.HasPrefix(msg.String(), "error: sort: ") {
		t.Errorf("a bad field is shown as %q", msg.String())
	}

	// An unknown operation names itself and what it may have meant, before any call.
	err = run("get_taks", "id="+created.ID)
	if cmdutil.ExitStatus(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), `unknown operation "get_taks"; did you mean get_task?`) {
		t.Errorf("an unknown operation: %v", err)
	}
	if err := run("list_services", "x=1"); cmdutil.ExitStatus(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "takes no input") {
		t.Errorf("input to an operation without any: %v", err)
	}
	if err := run("create_task", "--get", "type=text-file"); cmdutil.ExitStatus(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "no GET form") {
		t.Errorf("--get without a GET form: %v", err)
	}

	// Operator operations take the admin token, and say how to get one when there is none.
	if err := run("admin_stats"); cmdutil.ExitStatus(err) != cmdutil.ExitAuth || !strings.Contains(err.Error(), "no admin token") {
		t.Errorf("admin without a token: %v", err)
	}
	admin, _ := cmdtest.Factory(t, x.URL, map[string]string{"AXP_ADMIN_TOKEN": cmdtest.AdminToken})
	admin.IO = f.IO
	s.Reset()
	if err := cmdtest.Exec(call.NewCmd(admin, nil), "admin_approvals", "status=all", "--jq", ".approvals | length"); err != nil || s.Out.String() != "0\n" {
		t.Errorf("admin_approvals: %v %q", err, s.Out)
	}
	// A member operation without a member secret: the exchange's 401 with a hint to log in.
	err = run("get_my_profile")
	if !errors.As(err, &e) || e.Code != axp.CodeUnauthorized || !strings.Contains(e.Hint, "axp login") {
		t.Errorf("member operation without a secret: %v", err)
	}
}

func TestList(t *testing.T) {
	f, s := cmdtest.Factory(t, "http://127.0.0.1:1", nil)
	if err := cmdtest.Exec(call.NewCmd(f, nil), "--list"); err != nil {
		t.Fatal(err)
	}
	lines := cmdtest.Lines(s.Out.String())
	if len(lines) != len(contract.Ops) || !strings.Contains(s.Out.String(), "\nget_task\tGET\t/api/tasks/{id}\tparty\tTask status, offers and deliverable.\n") {
		t.Errorf("--list:\n%s", s.Out)
	}
	s.Reset()
	if err := cmdtest.Exec(call.NewCmd(f, nil), "--list", "--jq", `.[] | select(.name == "choose_offer") | .get_form`); err != nil || s.Out.String() != "true\n" {
		t.Errorf("--list --jq: %v %q", err, s.Out)
	}
}

func TestComplete(t *testing.T) {
	f, _ := cmdtest.Factory(t, "http://127.0.0.1:1", nil)
	c := call.NewCmd(f, nil)
	complete := func(args []string, toComplete string) []string {
		out, _ := c.ValidArgsFunction(c, args, toComplete)
		return out
	}
	if got := complete(nil, "get_ta"); len(got) != 2 || got[0] != "get_task\tTask status, offers and deliverable." || !strings.HasPrefix(got[1], "get_task_receipt\t") {
		t.Errorf("operations: %q", got)
	}
	if got := complete([]string{"get_task", "id=tsk_1"}, ""); !reflect.DeepEqual(names(got), []string{"sort=", "token="}) {
		t.Errorf("fields: %q", got)
	}
	if got := complete([]string{"get_task"}, "sort="); !reflect.DeepEqual(got, []string{"sort=value", "sort=price", "sort=eta", "sort=reliability"}) {
		t.Errorf("values: %q", got)
	}
	if _, d := c.ValidArgsFunction(c, []string{"get_task"}, "s"); d != cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace {
		t.Errorf("directive %v", d)
	}
}

// names drops the descriptions of completions.
func names(cs []string) []string {
	var out []string
	for _, c := range cs {
		n, _, _ := strings.Cut(c, "\t")
		out = append(out, n)
	}
	return out
}
