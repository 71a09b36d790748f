package daemon_test

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/store"
)

func get(t *testing.T, url, accept string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// GET / is the front door: an HTML page for a browser, the same links as JSON for an API client;
// other unknown paths stay 404.
func TestFrontDoor(t *testing.T) {
	e := newEnv(t)
	base := e.srv.URL
	wantLinks := []string{base + "/join", base + "/api/services", base + "/openapi.json", base + "/faq.md",
		base + "/.well-known/agent-card.json", base + "/mcp"}

	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
	res, body := get(t, base+"/", browser)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(res.Header.Get("Vary"), "Accept") {
		t.Fatalf("browser: %d %v", res.StatusCode, res.Header)
	}
	if !strings.HasPrefix(body, "<!doctype html>") || !strings.Contains(body, "<title>axp exchange</title>") {
		t.Fatalf("page: %s", body)
	}
	if strings.Contains(body, `id="escrow"`) {
		t.Errorf("an exchange without an escrow contract speaks of one: %s", body)
	}
	for _, l := range wantLinks {
		if !strings.Contains(body, `href="`+l+`"`) {
			t.Errorf("the page lacks a link to %s", l)
		}
	}

	for _, accept := range []string{"application/json", "", "*/*", "text/html;q=0.5, application/json"} {
		res, body := get(t, base+"/", accept)
		var fd axp.FrontDoor
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") || json.Unmarshal([]byte(body), &fd) != nil {
			t.Fatalf("Accept %q: %d %s %s", accept, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		got := map[string]bool{}
		for _, l := range fd.Links {
			got[l.Href] = true
		}
		for _, l := range wantLinks {
			if !got[l] {
				t.Errorf("Accept %q: the JSON lacks %s: %s", accept, l, body)
			}
		}
	}

	if res, body := get(t, base+"/nope", browser); res.StatusCode != http.StatusNotFound || !strings.Contains(body, `"not_found"`) {
		t.Errorf("GET /nope: %d %s", res.StatusCode, body)
	}
}

// The front door's call to action comes first, right after the summary: join as a seller (the join
// page, axp member serve and init, the register call and tool) and post a task (axp task create, the
// create_task call and tool), in the page, the Markdown and the JSON; then the market, then the links.
func TestFrontDoorCallToAction(t *testing.T) {
	e := newEnv(t)
	base := e.srv.URL
	sell := []string{base + "/join", "axp member serve --exchange " + base + " --role seller", "axp member init my-seller --role seller --replace .",
		"POST " + base + "/api/members/register", `{"roles":["seller"]`, "the tool `register` at " + base + "/mcp"}
	buy := []string{"axp task create --exchange " + base + " --type text-file", "POST " + base + "/api/tasks", `{"type":"text-file"`, "the tool `create_task` at " + base + "/mcp"}

	_, page := get(t, base+"/", "text/html")
	order := []string{`id="summary"`, `id="start"`, `id="sell"`, `id="buy"`, `id="market"`, `id="links"`}
	at := -1
	for _, x := range order {
		i := strings.Index(page, x)
		if i < at {
			t.Errorf("the page has %s out of order %v", x, order)
		}
		at = i
	}
	if !strings.Contains(page, `<a class="go" rel="sell" href="`+base+`/join">How to join</a>`) ||
		!strings.Contains(page, `<a class="go" rel="buy" href="`+base+`/services">See the services</a>`) {
		t.Errorf("the page lacks the join or the services button:\n%s", page)
	}
	// Commands wrap instead of scrolling sideways (a 1280 px window, a phone).
	if !strings.Contains(page, "white-space: pre-wrap") || strings.Contains(page, "overflow-x: auto") {
		t.Errorf("the page's commands do not wrap:\n%s", page)
	}
	for _, w := range append(append([]string{}, sell...), buy...) {
		w = strings.NewReplacer("`register`", "<code>register</code>", "`create_task`", "<code>create_task</code>", base+"/mcp", "<code>"+base+"/mcp</code>").Replace(w)
		if !strings.Contains(page, w) && !strings.Contains(page, html.EscapeString(w)) {
			t.Errorf("the page lacks %q", w)
		}
	}

	res, md := get(t, base+"/", "text/markdown")
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/markdown") || !strings.Contains(res.Header.Get("Vary"), "Accept") {
		t.Fatalf("markdown: %v", res.Header)
	}
	sellAt, buyAt, marketAt := strings.Index(md, "## Sell: join as a seller agent"), strings.Index(md, "## Buy: post a task"), strings.Index(md, "## The market now")
	if !strings.HasPrefix(md, "# axp exchange\n") || sellAt < 0 || buyAt < sellAt || marketAt < buyAt || marketAt > strings.Index(md, "## Links") {
		t.Errorf("markdown sections:\n%s", md)
	}
	for _, w := range append(append([]string{}, sell...), buy...) {
		if !strings.Contains(md, w) {
			t.Errorf("the markdown lacks %q:\n%s", w, md)
		}
	}

	var fd axp.FrontDoor
	if _, body := get(t, base+"/", "application/json"); json.Unmarshal([]byte(body), &fd) != nil || len(fd.Start) != 2 {
		t.Fatalf("json: %s", body)
	}
	if s := fd.Start[0]; s.Rel != "sell" || s.Href != base+"/join" || s.MCP != "register" || s.REST != "POST "+base+"/api/members/register" || !json.Valid([]byte(s.Body)) ||
		len(s.Commands) != 2 || !strings.HasPrefix(s.Commands[0], "axp member serve") {
		t.Errorf("sell %+v", s)
	}
	if s := fd.Start[1]; s.Rel != "buy" || s.MCP != "create_task" || s.REST != "POST "+base+"/api/tasks" || !json.Valid([]byte(s.Body)) ||
		len(s.Commands) != 1 || !strings.HasPrefix(s.Commands[0], "axp task create") {
		t.Errorf("buy %+v", s)
	}
	// The REST calls work as written.
	for _, s := range fd.Start {
		method, url, _ := strings.Cut(s.REST, " ")
		res, err := http.Post(url, "application/json", strings.NewReader(s.Body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if method != http.MethodPost || res.StatusCode != http.StatusCreated {
			t.Errorf("%s %s with %s: %d", method, url, s.Body, res.StatusCode)
		}
	}
}

// frontMarket reads the front door's market as JSON, and checks that the page and the Markdown
// show the same figures.
func frontMarket(t *testing.T, base string) axp.MarketNow {
	t.Helper()
	var fd axp.FrontDoor
	if _, body := get(t, base+"/", "application/json"); json.Unmarshal([]byte(body), &fd) != nil {
		t.Fatalf("json: %s", body)
	}
	m := fd.Market
	_, page := get(t, base+"/", "text/html")
	_, md := get(t, base+"/", "text/markdown")
	for id, n := range map[string]int{"services-on-offer": m.ServicesOnOffer, "sellers-online": m.SellersOnline, "jobs-done-today": m.JobsDoneToday} {
		if want := fmt.Sprintf(`<li id="%s"><strong>%d</strong>`, id, n); !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, want := range []string{fmt.Sprintf("- %d service", m.ServicesOnOffer), fmt.Sprintf("- %d seller", m.SellersOnline), fmt.Sprintf("- %d job", m.JobsDoneToday)} {
		if !strings.Contains(md, want) {
			t.Errorf("the markdown lacks %q:\n%s", want, md)
		}
	}
	return m
}

// The front door's market: task types on offer (from verified sellers), sellers online (verified
// sellers heard from in the last 65 minutes) and jobs done since 00:00 UTC (a delivery accepted;
// paying the seller after that is the same job). The figures are kept a few seconds.
func TestFrontDoorMarket(t *testing.T) {
	clk := &clock{}
	midnight := time.Now().UTC().Truncate(24 * time.Hour)
	clk.Advance(midnight.Add(-time.Hour).Sub(time.Now())) // 23:00 UTC, yesterday
	e := newMarket(t, func(c *daemon.Config) { c.Now = clk.Now })
	base := e.srv.URL

	if m := frontMarket(t, base); m.ServicesOnOffer != 0 || m.SellersOnline != 0 || m.JobsDoneToday != 0 || len(m.TopServices) != 0 {
		t.Fatalf("an empty market %+v", m)
	}
	if _, page := get(t, base+"/", "text/html"); !strings.Contains(page, "services on offer yet: be the first seller.") {
		t.Errorf("an empty market's page:\n%s", page)
	}
	seller := e.instantSeller("text-file", "3.00", 10, nil, nil)
	stale := e.pullSeller("video", nil)
	e.verified(map[string]any{"roles": []string{"buyer"}}) // a buyer is not a seller online
	e.register(map[string]any{"roles": []string{"seller"}, // nor is a seller not verified, nor its skill on offer
		"skills": []map[string]any{{"task_type": "audio", "description": "does audio"}}})
	err := e.d.DB().Update(func(tx *store.Tx) error {
		m, err := tx.Member(stale.MemberID)
		if err != nil {
			return err
		}
		m.LastSeenAt = clk.Now().Add(-66 * time.Minute)
		return tx.PutMember(m)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Within a few seconds the figures are the ones read before.
	if m := frontMarket(t, base); m.ServicesOnOffer != 0 || m.SellersOnline != 0 {
		t.Errorf("figures kept for a few seconds changed at once: %+v", m)
	}
	clk.Advance(6 * time.Second)
	m := frontMarket(t, base)
	if m.ServicesOnOffer != 2 || m.SellersOnline != 1 || m.JobsDoneToday != 0 ||
		!reflect.DeepEqual(m.TopServices, []axp.MarketService{{Type: "text-file", Sellers: 1}, {Type: "video", Sellers: 1}}) {
		t.Fatalf("two sellers, one seen lately: %+v", m)
	}

	// A job done before midnight counts that day, not the next.
	job := func(prompt string) axp.CreatedTask {
		t.Helper()
		created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": prompt}})
		buyer := e.anon.With(created.BuyerToken)
		e.fund(buyer, created.ID, offerOf(t, created.Offers, seller.MemberID).OfferID)
		deliverText(t, seller.c, created.ID, prompt+"\n")
		retrieve(t, buyer, created.ID)
		callOp(t, buyer, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}, SHA256: sha256Hex(prompt + "\n")})
		return created
	}
	job("late at night")
	clk.Advance(6 * time.Second)
	if m := frontMarket(t, base); m.JobsDoneToday != 1 {
		t.Fatalf("a job done at 23:00: %+v", m)
	}
	clk.Advance(11 * time.Hour) // 10:00 UTC, today
	if m := frontMarket(t, base); m.JobsDoneToday != 0 || m.SellersOnline != 0 || m.ServicesOnOffer != 2 {
		t.Fatalf("the next morning, before any job (the seller last seen 11 hours ago): %+v", m)
	}
	// Posting is no job done; a delivery accepted is (the seller's calls count as seen); paying
	// the seller after that is the same job.
	open, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "still open"}})
	done := job("in the morning")
	clk.Advance(6 * time.Second)
	if m := frontMarket(t, base); m.JobsDoneToday != 1 || m.SellersOnline != 1 {
		t.Fatalf("after one job today: %+v", m)
	}
	callOp(t, seller.c, contract.UpdateProfile, axp.ProfileUpdate{PayoutAddress: given(payoutAddress)})
	callOp(t, seller.c, contract.RequestPayment, axp.IDPath{ID: done.ID})
	e.approve(e.approvalOf(done.ID, axp.ApprovePayout).ID, true)
	if got := getTask(t, e.anon.With(done.BuyerToken), done.ID); got.Status != axp.TaskReleased {
		t.Fatalf("task %s is %s", done.ID, got.Status)
	}
	clk.Advance(6 * time.Second)
	if m := frontMarket(t, base); m.JobsDoneToday != 1 {
		t.Fatalf("a job paid after its acceptance counted twice: %+v", m)
	}
	if got := getTask(t, e.anon.With(open.BuyerToken), open.ID); got.Status != axp.TaskOpen {
		t.Fatalf("task %s is %s", open.ID, got.Status)
	}
}

// GET /services is the catalog for a person: every service with its price, params, sellers now and
// the command that posts one (an HTML page for a browser, Markdown otherwise); a browser opening
// /mcp gets a page saying how to connect, an MCP client's GET does not.
func TestServicesAndMCPPages(t *testing.T) {
	e := newEnv(t)
	base := e.srv.URL
	e.instantSeller("text-file", "0.50", 5, nil, nil)
	res, page := get(t, base+"/services", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(page, "white-space: pre-wrap") {
		t.Fatalf("services page: %d %s\n%s", res.StatusCode, res.Header.Get("Content-Type"), page)
	}
	_, md := get(t, base+"/services", "text/markdown")
	for _, svc := range axp.Services {
		if !strings.Contains(md, "## "+svc.Name+" (`"+svc.Type+"`)") || !strings.Contains(md, "axp task create --exchange "+base+" --type "+svc.Type) {
			t.Errorf("the services page lacks %s:\n%s", svc.Type, md)
		}
	}
	if !strings.Contains(md, `--type text-file --param prompt="`) || !strings.Contains(md, "Sellers offering it now: 1\n") {
		t.Errorf("the text-file entry:\n%s", md)
	}
	res, mcpPage := get(t, base+"/mcp", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(mcpPage, base+"/mcp") ||
		!strings.Contains(mcpPage, "mcpServers") {
		t.Fatalf("a browser at /mcp: %d %s\n%s", res.StatusCode, res.Header.Get("Content-Type"), mcpPage)
	}
	if res, body := get(t, base+"/mcp", "text/event-stream"); strings.Contains(body, "mcpServers") {
		t.Errorf("an MCP client's GET got the page: %d %s", res.StatusCode, body)
	}
}
