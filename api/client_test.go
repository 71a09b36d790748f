package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/api"
)

// seen is one request as the fake exchange received it.
type seen struct {
	Method, Path, RawPath, Query string
	Header                       http.Header
	Body                         string
	ContentLength                int64
	Chunked                      bool
}

// fake is an exchange stand-in that records requests and answers with a fixed status and body.
type fake struct {
	mu     sync.Mutex
	got    []seen
	status int
	body   string
	header http.Header
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.got = append(f.got, seen{r.Method, r.URL.Path, r.URL.RawPath, r.URL.RawQuery, r.Header.Clone(), string(b), r.ContentLength,
		len(r.TransferEncoding) > 0 && r.TransferEncoding[0] == "chunked"})
	status, body, header := f.status, f.body, f.header
	f.mu.Unlock()
	for k, v := range header {
		w.Header()[k] = v
	}
	if status == 0 {
		status = 200
	}
	w.Header().Set("X-Trace-Id", "tr-1")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func (f *fake) last(t *testing.T) seen {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.got) == 0 {
		t.Fatal("no request")
	}
	return f.got[len(f.got)-1]
}

func newFake(t *testing.T) (*fake, *api.Client) {
	f := &fake{body: `{}`}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, api.New(srv.URL+"/", "ss_tok")
}

func TestCallBuildsRequests(t *testing.T) {
	f, c := newFake(t)
	ctx := context.Background()

	// A body operation: JSON body with exact numbers, bearer token, idempotency key, trace id.
	c.TraceID = "my-trace"
	f.body = `{"id":"fbk_1","recorded":true}`
	var rec axp.Recorded
	err := c.Call(ctx, "submit_feedback", map[string]any{"message": "hi", "rating": json.Number("5"), "context": map[string]any{"n": 0.1}},
		&rec, api.Options{IdempotencyKey: "k-1"})
	if err != nil || rec.ID != "fbk_1" || !rec.Recorded {
		t.Fatalf("call: %v %+v", err, rec)
	}
	r := f.last(t)
	if r.Method != "POST" || r.Path != "/api/feedback" || r.Header.Get("Authorization") != "Bearer ss_tok" ||
		r.Header.Get("Idempotency-Key") != "k-1" || r.Header.Get("X-Trace-Id") != "my-trace" || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("request %+v", r)
	}
	if r.Body != `{"context":{"n":0.1},"message":"hi","rating":5}` {
		t.Fatalf("body %s", r.Body)
	}

	// A typed struct input: money stays exact.
	budget := axp.USD(0, 10)
	if err := c.Call(ctx, "register_interest", axp.Interest{Type: "video", BudgetUSD: &budget}, nil); err != nil {
		t.Fatal(err)
	}
	if r := f.last(t); r.Body != `{"budget_usd":0.1,"type":"video"}` {
		t.Fatalf("struct body %s", r.Body)
	}
	// Its GET form sends the same input as query keys.
	if err := c.Call(ctx, "register_interest", axp.Interest{Type: "video", BudgetUSD: &budget}, nil, api.Options{GET: true}); err != nil {
		t.Fatal(err)
	}
	if r := f.last(t); r.Method != "GET" || r.Path != "/api/interest" || r.Query != "budget_usd=0.1&type=video" || r.Body != "" {
		t.Fatalf("GET form %+v", r)
	}
	if err := c.Call(ctx, "register", map[string]any{}, nil, api.Options{GET: true}); err == nil {
		t.Fatal("GET form of an operation without one")
	}

	// Extra query keys (service params) and path params, escaped.
	c.Call(ctx, "get_quote", map[string]any{"type": "video", "params": map[string]any{"prompt": "a b&c", "duration": 10}}, nil)
	if r := f.last(t); r.Path != "/api/quote" || r.Query != "duration=10&prompt=a+b%26c&type=video" {
		t.Fatalf("quote query %q", r.Query)
	}
	c.Call(ctx, "read_announcement", map[string]any{"id": "ann/1 x"}, nil)
	if r := f.last(t); r.Method != "POST" || r.Path != "/api/members/me/announcements/ann/1 x/read" || r.RawPath != "/api/members/me/announcements/ann%2F1%20x/read" || r.Body != "{}" {
		t.Fatalf("path params %+v", r)
	}
	c.Call(ctx, "admin_trace", map[string]any{"traceId": "t1"}, nil)
	if r := f.last(t); r.Path != "/api/admin/trace/t1" || r.Query != "" {
		t.Fatalf("trace path %+v", r)
	}
	// Array query values repeat the key.
	c.Call(ctx, "list_sellers", map[string]any{"payment_method": "free"}, nil)
	if r := f.last(t); r.Query != "payment_method=free" {
		t.Fatalf("sellers query %q", r.Query)
	}
	// No input given to an operation that takes an empty object: an empty object.
	c.Call(ctx, "heartbeat", nil, nil)
	if r := f.last(t); r.Method != "POST" || r.Body != "{}" {
		t.Fatalf("heartbeat %+v", r)
	}

	// Missing path params and unknown operations fail before any request.
	n := len(f.got)
	err = c.Call(ctx, "read_announcement", map[string]any{}, nil)
	var e *axp.Error
	if !errors.As(err, &e) || e.Field != "id" || len(f.got) != n {
		t.Fatalf("missing path param: %v", err)
	}
	if err := c.Call(ctx, "no_such_op", nil, nil); err == nil || len(f.got) != n {
		t.Fatalf("unknown op: %v", err)
	}

	// Documents: *string and *[]byte take the body as it is.
	f.body = "# Join\n"
	var doc string
	var docb []byte
	if err := c.Call(ctx, "get_join", nil, &doc); err != nil || doc != "# Join\n" {
		t.Fatalf("document: %v %q", err, doc)
	}
	if err := c.Call(ctx, "get_faq_markdown", nil, &docb); err != nil || string(docb) != "# Join\n" {
		t.Fatalf("document bytes: %v %q", err, docb)
	}
	// A body that is not the expected JSON is an error naming the operation.
	if err := c.Call(ctx, "get_pricing", nil, &rec); err == nil || !strings.Contains(err.Error(), "get_pricing") {
		t.Fatalf("undecodable answer: %v", err)
	}
}

func TestErrors(t *testing.T) {
	f, c := newFake(t)
	ctx := context.Background()

	f.status = 400
	f.body = `{"error":{"code":"invalid_input","message":"is required","hint":"give a name","field":"name"},"trace_id":"tr-1"}`
	resp, err := c.Do(ctx, "register", map[string]any{"roles": []string{"buyer"}})
	var e *axp.Error
	if !errors.As(err, &e) || e.Code != axp.CodeInvalidInput || e.Field != "name" || e.Hint != "give a name" || e.Message != "is required" {
		t.Fatalf("typed error: %#v", err)
	}
	if resp == nil || resp.Status != 400 || resp.TraceID != "tr-1" || !api.IsCode(err, axp.CodeInvalidInput) || api.IsCode(err, axp.CodeConflict) {
		t.Fatalf("response beside the error: %+v", resp)
	}

	f.status = 429
	f.body = `{"error":{"code":"rate_limited","message":"slow down"},"trace_id":"tr-1"}`
	f.header = http.Header{"Retry-After": {"720"}}
	err = c.Call(ctx, "register", map[string]any{}, nil)
	if !errors.As(err, &e) || e.Code != axp.CodeRateLimited || e.RetryAfter != 720 {
		t.Fatalf("rate limited: %#v", err)
	}

	// An error status without an error body still maps to a code.
	f.header = nil
	for status, code := range map[int]axp.Code{401: axp.CodeUnauthorized, 404: axp.CodeNotFound, 413: axp.CodeTooLarge, 502: axp.CodeInternal, 503: axp.CodeUnavailable} {
		f.status, f.body = status, "<html>proxy</html>"
		err := c.Call(ctx, "health", nil, nil)
		if !api.IsCode(err, code) {
			t.Fatalf("%d: %v", status, err)
		}
	}

	// Nobody listening.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	err = api.New("http://"+addr, "").Call(ctx, "health", nil, nil)
	var ue *api.UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), addr) {
		t.Fatalf("unreachable: %#v", err)
	}
	// The reason comes right after the address (a screen showing one line shows it), without the
	// request the HTTP client wraps it in.
	if want := "cannot reach the exchange at http://" + addr + ": connect: connection refused"; runtime.GOOS != "windows" && err.Error() != want {
		t.Errorf("unreachable says %q, want %q", err.Error(), want)
	}
}

func TestRaw(t *testing.T) {
	f, c := newFake(t)
	ctx := context.Background()
	resp, err := c.Raw(ctx, "PATCH", "/api/members/me?x=1", strings.NewReader(`{"name":"n"}`),
		http.Header{"Authorization": {"Bearer other"}, "Idempotency-Key": {"k"}})
	if err != nil || resp.Status != 200 || resp.TraceID != "tr-1" {
		t.Fatalf("raw: %v %+v", err, resp)
	}
	r := f.last(t)
	if r.Method != "PATCH" || r.Path != "/api/members/me" || r.Query != "x=1" || r.Body != `{"name":"n"}` || r.Chunked ||
		r.Header.Get("Authorization") != "Bearer other" || r.Header.Get("Idempotency-Key") != "k" || r.ContentLength != 12 {
		t.Fatalf("raw request %+v", r)
	}
	// A reader of unknown length goes chunked.
	if _, err := c.Raw(ctx, "POST", "/api/feedback", io.MultiReader(strings.NewReader("{}")), nil); err != nil {
		t.Fatal(err)
	}
	if r := f.last(t); !r.Chunked || r.Body != "{}" {
		t.Fatalf("chunked %+v", r)
	}
	f.status, f.body = 404, `{"error":{"code":"not_found","message":"no such endpoint"},"trace_id":"tr-1"}`
	_, err = c.Raw(ctx, "GET", "/nope", nil, nil)
	if !api.IsCode(err, axp.CodeNotFound) {
		t.Fatalf("raw error: %v", err)
	}
}

func TestWith(t *testing.T) {
	c := api.New("http://x/", "a")
	d := c.With("b")
	if c.Token != "a" || d.Token != "b" || d.BaseURL != "http://x" {
		t.Fatalf("With: %+v %+v", c, d)
	}
}
