package task_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/task"
)

// Flag parsing: each verb's flags fill its options; the run function is replaced.

func TestCreateFlags(t *testing.T) {
	dir := t.TempDir()
	checks := filepath.Join(dir, "checks.json")
	os.WriteFile(checks, []byte(`{"min_lines": 2, "must_contain": ["sea"]}`), 0o600)
	prompt := filepath.Join(dir, "prompt.txt")
	os.WriteFile(prompt, []byte("from a file"), 0o600)

	tests := []struct {
		args []string
		want axp.NewTask
		err  string
	}{
		{args: []string{"--type", "video", "-p", "prompt=waves", "--param", "duration=10", "--deadline", "2h", "--auto-choose", "cheapest", "--payment", "free"},
			want: axp.NewTask{Type: "video", Params: map[string]any{"prompt": "waves", "duration": json.Number("10")}, DeadlineMinutes: ptr(120), AutoChoose: "cheapest", PaymentMethod: "free"}},
		{args: []string{"--description", "translate this", "--param", "words:=1200", "--param", "text=@" + prompt, "--deadline", "90"},
			want: axp.NewTask{Description: "translate this", Params: map[string]any{"words": json.Number("1200"), "text": "from a file"}, DeadlineMinutes: ptr(90)}},
		{args: []string{"--type", "text-file", "--param", "prompt=x", "--checks", checks, "--invite", "favourites"},
			want: axp.NewTask{Type: "text-file", Params: map[string]any{"prompt": "x"}, AcceptanceChecks: map[string]any{"min_lines": float64(2), "must_contain": []any{"sea"}},
				InviteSellers: axp.SellerInvite{Favourites: true}}},
		{args: []string{"--type", "text-file", "--invite", "mem_a,mem_b", "--invite", "mem_c"},
			want: axp.NewTask{Type: "text-file", InviteSellers: axp.SellerInvite{IDs: []string{"mem_a", "mem_b", "mem_c"}}}},
		{args: []string{"--type", "text-file", "--param", "a=b=c"}, want: axp.NewTask{Type: "text-file", Params: map[string]any{"a": "b=c"}}},
		{args: []string{"--type", "text-file", "--invite", "favourites,mem_a"}, err: "cannot be mixed"},
		{args: []string{"--type", "text-file", "--checks", filepath.Join(dir, "missing.json")}, err: "--checks: open"},
		{args: []string{"--type", "text-file", "--checks", prompt}, err: "not a JSON object of checks"},
		{args: []string{"--type", "text-file", "--param", "k:=nope"}, err: `--param k: "nope" is not JSON`},
		{args: []string{"--type", "text-file", "--param", "=v"}, err: `--param "=v": use key=value`},
		{args: []string{"--type", "text-file", "--deadline", "0"}, err: "at least 1 minute"},
		{args: []string{"--type", "text-file", "--deadline", "1ms"}, want: axp.NewTask{Type: "text-file", DeadlineMinutes: ptr(1)}},
		{args: []string{"--type", "text-file", "--auto-choose", "best"}, err: `--auto-choose "best": use one of cheapest, fastest`},
		{args: []string{}, err: "give --type or --description"},
		{args: []string{"--type", "text-fil", "--param", "prompt=x"}, err: `--type "text-fil" is not in the catalog: did you mean text-file?`},
		{args: []string{"--type", "zzzzzzzzzz"}, err: "a type outside the catalog takes --custom-type"},
		{args: []string{"--type", "text-file", "--custom-type", "poem"}, err: "not both"},
		{args: []string{"--custom-type", "poem", "--param", "prompt=x"}, want: axp.NewTask{Type: "poem", Params: map[string]any{"prompt": "x"}}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _ := cmdtest.Factory(t, "http://127.0.0.1:1", nil)
			var got *axp.NewTask
			err := cmdtest.Exec(task.NewCmdCreate(f, func(_ context.Context, o *task.CreateOptions) error {
				var err error
				got, err = o.Body(strings.NewReader(""))
				return err
			}), tt.args...)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				if cmdutil.ExitStatus(err) != cmdutil.ExitUsage {
					t.Errorf("exit status %d, want usage", cmdutil.ExitStatus(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("body\n got %#v\nwant %#v", *got, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestVerbFlags(t *testing.T) {
	f, _ := cmdtest.Factory(t, "http://127.0.0.1:1", nil)
	var choose *task.ChooseOptions
	if err := cmdtest.Exec(task.NewCmdChoose(f, func(_ context.Context, o *task.ChooseOptions) error { choose = o; return nil }),
		"tsk_1", "2", "--yes", "--token", "bt_x", "--json"); err != nil {
		t.Fatal(err)
	}
	if choose.TaskID != "tsk_1" || choose.Offer != "2" || !choose.Yes || choose.Token != "bt_x" || !choose.Export.JSON {
		t.Errorf("choose options %+v", choose)
	}
	var watch *task.WatchOptions
	if err := cmdtest.Exec(task.NewCmdWatch(f, func(_ context.Context, o *task.WatchOptions) error { watch = o; return nil }),
		"tsk_1", "--interval", "250ms", "--until", "delivered", "--jq", ".status"); err != nil {
		t.Fatal(err)
	}
	if watch.Interval.String() != "250ms" || watch.Until != "delivered" || watch.Export.JQ != ".status" {
		t.Errorf("watch options %+v", watch)
	}
	var offers *task.OffersOptions
	if err := cmdtest.Exec(task.NewCmdOffers(f, func(_ context.Context, o *task.OffersOptions) error { offers = o; return nil }),
		"tsk_1", "--sort", "reliability", "-t", "{{.id}}"); err != nil {
		t.Fatal(err)
	}
	if offers.Sort != "reliability" || offers.Export.Template != "{{.id}}" {
		t.Errorf("offers options %+v", offers)
	}
	var dl *task.DeliverableOptions
	if err := cmdtest.Exec(task.NewCmdDeliverable(f, func(_ context.Context, o *task.DeliverableOptions) error { dl = o; return nil }), "tsk_1", "-o", "out.txt"); err != nil {
		t.Fatal(err)
	}
	if dl.Output != "out.txt" {
		t.Errorf("deliverable options %+v", dl)
	}
	var cl *task.ClarifyOptions
	if err := cmdtest.Exec(task.NewCmdClarify(f, func(_ context.Context, o *task.ClarifyOptions) error { cl = o; return nil }),
		"tsk_1", "--answer", "What tone?=calm", "--answer", "mem_x=short"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cl.Answers, []string{"What tone?=calm", "mem_x=short"}) {
		t.Errorf("clarify options %+v", cl)
	}
	var pay *task.PayOptions
	tx := "0x" + strings.Repeat("Ab", 32)
	if err := cmdtest.Exec(task.NewCmdPay(f, func(_ context.Context, o *task.PayOptions) error { pay = o; return nil }), "tsk_1", "--tx", tx); err != nil {
		t.Fatal(err)
	}
	if pay.TxHash != tx {
		t.Errorf("pay options %+v", pay)
	}
	var list *task.ListOptions
	if err := cmdtest.Exec(task.NewCmdList(f, func(_ context.Context, o *task.ListOptions) error { list = o; return nil }), "--status", "open"); err != nil {
		t.Fatal(err)
	}
	if list.Status != "open" {
		t.Errorf("list options %+v", list)
	}
}

func TestParseDeadline(t *testing.T) {
	for in, want := range map[string]int{"1": 1, "90": 90, "2h": 120, "90s": 2, "1h30m": 90} {
		if got, err := task.ParseDeadline(in); err != nil || got != want {
			t.Errorf("ParseDeadline(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"-5", "0", "soon", "-1h"} {
		if _, err := task.ParseDeadline(in); err == nil {
			t.Errorf("ParseDeadline(%q) passed", in)
		}
	}
}

func TestPickOffer(t *testing.T) {
	rec := "ofr_b"
	open := &axp.Task{ID: "tsk", Status: axp.TaskOpen, RecommendedOffer: &rec,
		Offers: []axp.Offer{{OfferID: "ofr_b"}, {OfferID: "ofr_a"}}}
	for ref, want := range map[string]string{"": "ofr_b", "1": "ofr_b", "2": "ofr_a", "ofr_a": "ofr_a"} {
		o, err := task.PickOffer(open, ref)
		if err != nil || o.OfferID != want {
			t.Errorf("PickOffer(%q) = %v, %v; want %s", ref, o, err, want)
		}
	}
	for ref, code := range map[string]axp.Code{"3": axp.CodeInvalidInput, "0": axp.CodeInvalidInput, "ofr_zz": axp.CodeInvalidInput} {
		if _, err := task.PickOffer(open, ref); !isCode(err, code) {
			t.Errorf("PickOffer(%q): %v, want %s", ref, err, code)
		}
	}
	if _, err := task.PickOffer(&axp.Task{ID: "t", Status: axp.TaskOpen}, ""); !isCode(err, axp.CodeConflict) || !strings.Contains(err.Error(), "no offers yet") {
		t.Errorf("no offers: %v", err)
	}
	if _, err := task.PickOffer(&axp.Task{ID: "t", Status: axp.TaskPaid}, ""); !isCode(err, axp.CodeConflict) || !strings.Contains(err.Error(), "is paid") {
		t.Errorf("paid: %v", err)
	}
	if _, err := task.PickOffer(&axp.Task{ID: "t", Status: axp.TaskAwaitingPayment, Offers: []axp.Offer{{OfferID: "x"}}}, ""); !isCode(err, axp.CodeConflict) {
		t.Errorf("no recommendation: %v", err)
	}
}

func isCode(err error, c axp.Code) bool {
	e, ok := err.(*axp.Error)
	return ok && e.Code == c
}

func TestReliability(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	if got := task.Reliability(axp.Reliability{}); got != "no record" {
		t.Errorf("empty: %q", got)
	}
	if got := task.Reliability(axp.Reliability{OnTimeRate: f(0.904), FirstPassRate: f(0.8), DisputeRate: f(0)}); got != "on time 90%, first pass 80%, disputed 0%" {
		t.Errorf("full: %q", got)
	}
}
