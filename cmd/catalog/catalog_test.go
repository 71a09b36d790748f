package catalog_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/cmd/catalog"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/cmdutil"
)

func TestQuoteFlags(t *testing.T) {
	f, _ := cmdtest.Factory(t, "http://127.0.0.1:1", nil)
	var got *catalog.QuoteOptions
	if err := cmdtest.Exec(catalog.NewCmdQuote(f, func(_ context.Context, o *catalog.QuoteOptions) error { got = o; return nil }),
		"--type", "video", "-p", "prompt=waves", "--param", "duration=10", "--jq", ".price"); err != nil {
		t.Fatal(err)
	}
	if got.Type != "video" || !reflect.DeepEqual(got.Params, []string{"prompt=waves", "duration=10"}) || got.Export.JQ != ".price" {
		t.Errorf("options %+v", got)
	}
	if err := cmdtest.Exec(catalog.NewCmdQuote(f, nil), "--param", "x=y"); cmdutil.ExitStatus(err) != cmdutil.ExitUsage {
		t.Errorf("no --type: %v", err)
	}
}

func TestQuoteAndServices(t *testing.T) {
	x := cmdtest.NewExchange(t)
	x.MustSeller(cmdtest.SellerSpec{Name: "Quick Writer", TaskType: "text-file", Price: "2.50", ETA: 10})
	x.MustSeller(cmdtest.SellerSpec{Name: "Odd Jobs", TaskType: "haiku-review", Price: "1.00", ETA: 3})
	f, s := cmdtest.Factory(t, x.URL, nil)

	if err := cmdtest.Exec(catalog.NewCmdQuote(f, nil), "--type", "video", "--param", "prompt=waves", "--param", "duration=10"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"type:\tvideo\n", "params:\taspect=16:9 duration=10 prompt=waves\n", "price_usd:\t4\n", "eta_minutes:\t30\n"} {
		if !strings.Contains(s.Out.String(), want) {
			t.Errorf("quote lacks %q:\n%s", want, s.Out)
		}
	}
	s.Reset()
	if err := cmdtest.Exec(catalog.NewCmdQuote(f, nil), "--type", "video", "--param", "prompt=waves", "--json"); err != nil {
		t.Fatal(err)
	}
	if want := x.Raw(x.Anon, "get_quote", map[string]any{"type": "video", "params": map[string]any{"prompt": "waves"}}); s.Out.String() != want {
		t.Errorf("--json\n got %s\nwant %s", s.Out, want)
	}
	s.Reset()
	err := cmdtest.Exec(catalog.NewCmdQuote(f, nil), "--type", "video", "--param", "prompt=waves", "--param", "duration=300")
	if cmdutil.ExitStatus(err) != cmdutil.ExitUsage || s.Out.Len() != 0 {
		t.Errorf("bad param: %v, stdout %q", err, s.Out)
	}

	s.Reset()
	if err := cmdtest.Exec(catalog.NewCmdServices(f, nil)); err != nil {
		t.Fatal(err)
	}
	lines := cmdtest.Lines(s.Out.String())
	if len(lines) != 6 || lines[0] != "text-file\tText file\tUS$0.20 per file\t5\t1\tprompt* filename" ||
		lines[5] != "haiku-review\t(not in the catalog)\tfrom US$1.00\t3\t1\t" {
		t.Errorf("services:\n%s", s.Out)
	}
	s.Reset()
	f.IO.StdoutTTY, f.IO.NoColor = true, true
	if err := cmdtest.Exec(catalog.NewCmdServices(f, nil)); err != nil || !strings.Contains(s.Out.String(), "CATALOG PRICE") || !strings.Contains(s.Out.String(), "5 min") {
		t.Errorf("services on a terminal: %v\n%s", err, s.Out)
	}
}
