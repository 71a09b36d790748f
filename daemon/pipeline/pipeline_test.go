package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
)

// testBackend is the exchange as the pipeline sees it, recording what each call asked of it.
// Replay answers from the answers handlers stored with storeAnswer, as the kernel's Mutate
// stores them in the change's transaction.
type testBackend struct {
	mu        sync.Mutex
	admitErr  error
	admits    int
	refunds   int
	holdsErr  error
	holds     int
	answers   map[string]storedAnswer
	observed  []int // statuses Observe was told
	measured  []int // statuses Measure was told
	log       bytes.Buffer
	logger    *slog.Logger
	charge    *testCharge
	chargeErr error
	charges   int
}

type storedAnswer struct {
	hash   string
	status int
	body   []byte
}

func newBackend() *testBackend {
	b := &testBackend{answers: map[string]storedAnswer{}}
	b.logger = slog.New(slog.NewTextHandler(&b.log, nil))
	return b
}

func (b *testBackend) Admit(op *contract.Op, c axp.Caller) (func(), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.admitErr != nil {
		return nil, b.admitErr
	}
	b.admits++
	return func() { b.mu.Lock(); b.refunds++; b.mu.Unlock() }, nil
}

func (b *testBackend) Replay(i *axp.Idempotency, c axp.Caller) (int, []byte, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.answers[i.Key]
	if !ok {
		return 0, nil, false, nil
	}
	if a.hash != i.BodyHash {
		return -1, nil, true, nil
	}
	return a.status, a.body, true, nil
}

// storeAnswer stores a handler's answer under the call's idempotency key, if it has one.
func (b *testBackend) storeAnswer(c *Call, out any) {
	i := c.Idem
	if i == nil {
		return
	}
	body, _ := json.Marshal(out)
	b.mu.Lock()
	b.answers[i.Key] = storedAnswer{hash: i.BodyHash, status: i.Status, body: body}
	b.mu.Unlock()
}

func (b *testBackend) Observe(r *http.Request, route string, status int, elapsed time.Duration, c axp.Caller, err error) {
	b.mu.Lock()
	b.observed = append(b.observed, status)
	b.mu.Unlock()
}

func (b *testBackend) Measure(op *contract.Op, door Door, status int, err error, elapsed time.Duration) {
	b.mu.Lock()
	b.measured = append(b.measured, status)
	b.mu.Unlock()
}

func (b *testBackend) Owns(call *Call, id string) (string, error) {
	b.holds++
	return "", b.holdsErr
}

func (b *testBackend) Logger() *slog.Logger { return b.logger }

func (b *testBackend) Charge(ctx context.Context, c *Call, r *http.Request) (Charge, error) {
	b.charges++
	if b.chargeErr != nil {
		return nil, b.chargeErr
	}
	b.charge = &testCharge{}
	return b.charge, nil
}

// testCharge records whether a paid call's payment was settled or released.
type testCharge struct{ settled, released int }

func (c *testCharge) Settle(context.Context) (map[string]string, error) {
	c.settled++
	return map[string]string{"Payment-Response": "settled"}, nil
}

func (c *testCharge) Release(context.Context) map[string]string { c.released++; return nil }

// The operations of these tests, declared here so that each exercises one feature of the pipeline.
type noteIn struct {
	Text  string `json:"text" schema:"required;maxLength=20"`
	Count int    `json:"count,omitempty" schema:"min=0;max=9"`
}

type noteOut struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

var (
	putNote = contract.Define[noteIn, noteOut](contract.Op{Name: "test_put_note", Method: http.MethodPost, Path: "/api/test/{box}/notes",
		Access: contract.Public, Status: http.StatusCreated}, &noteIn{Text: "hi"})
	listNotes = contract.Define[contract.NoInput, noteOut](contract.Op{Name: "test_list_notes", Method: http.MethodGet, Path: "/api/test/notes",
		Access: contract.Public}, nil)
	paidNote = contract.Define[noteIn, noteOut](contract.Op{Name: "test_paid_note", Method: http.MethodPost, Path: "/api/test/paid",
		Access: contract.Paid}, &noteIn{Text: "hi"})
)

// world is a pipeline over a registry of the test operations, whose handlers count their runs.
type world struct {
	b    *testBackend
	p    *Pipeline
	reg  *Registry
	runs int
	// fail, when set, is the error the note handlers answer; boom makes them panic.
	fail error
	boom bool
	// hold, when it holds a gate, stops the next call of a note handler until the gate is
	// closed; entered is told when it stops.
	hold    chan chan struct{}
	entered chan struct{}
	box     string
}

func newWorld(t *testing.T) *world {
	w := &world{b: newBackend(), reg: NewRegistry(), hold: make(chan chan struct{}, 1), entered: make(chan struct{}, 1)}
	handler := func(ctx context.Context, c *Call, in *noteIn) (*noteOut, error) {
		w.runs++
		w.box = c.Path["box"]
		select {
		case gate := <-w.hold:
			w.entered <- struct{}{}
			<-gate
		default:
		}
		if w.boom {
			panic("the handler broke")
		}
		if w.fail != nil {
			return nil, w.fail
		}
		out := &noteOut{ID: "n" + string(rune('0'+w.runs)), Text: in.Text}
		w.b.storeAnswer(c, out)
		return out, nil
	}
	Handle(w.reg, putNote, handler)
	Handle(w.reg, paidNote, handler)
	HandleNoInput(w.reg, listNotes, func(ctx context.Context, c *Call) (*noteOut, error) {
		w.runs++
		return &noteOut{ID: "all"}, nil
	})
	w.p = New(w.b, w.reg, []byte("test secret"))
	return w
}

var anonymous = axp.Caller{Kind: axp.Anonymous, IP: "192.0.2.1"}

// mcp is an MCP-shaped call of put_note: every value among Args, the path parameter too.
func mcp(args map[string]any) Request {
	return Request{Op: putNote.Op(), Caller: anonymous, Args: args, Door: MCP, Route: "mcp", HTTP: httptest.NewRequest("POST", "/mcp", nil)}
}

// rest is a REST-shaped call of put_note: the path separated, the body read by Parse.
func rest(box string, parse func() (map[string]any, error)) Request {
	return Request{Op: putNote.Op(), Caller: anonymous, Path: map[string]string{"box": box}, Parse: parse, Door: REST,
		Route: "POST /api/test/{box}/notes", HTTP: httptest.NewRequest("POST", "/api/test/"+box+"/notes", nil)}
}

// code is the error code of err, or "" when it is not an *axp.Error.
func code(err error) axp.Code {
	var e *axp.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func field(err error) string {
	var e *axp.Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// TestRunAnswers: a call through every step reaches its handler with its decoded input and path
// parameter, answers the operation's success status, keeps its admission and is observed.
func TestRunAnswers(t *testing.T) {
	w := newWorld(t)
	a, err := w.p.Run(context.Background(), mcp(map[string]any{"box": "b1", "text": "hello"}))
	if err != nil {
		t.Fatal(err)
	}
	out, ok := a.Out.(*noteOut)
	if !ok || out.Text != "hello" || a.Status != http.StatusCreated || a.Replayed {
		t.Fatalf("answer %+v (out %#v)", a, a.Out)
	}
	if w.box != "b1" || w.runs != 1 {
		t.Fatalf("handler ran %d times with box %q", w.runs, w.box)
	}
	if w.b.admits != 1 || w.b.refunds != 0 {
		t.Fatalf("admitted %d, refunded %d: a call that changed something keeps its admission", w.b.admits, w.b.refunds)
	}
	if len(w.b.observed) != 1 || w.b.observed[0] != http.StatusCreated || len(w.b.measured) != 1 {
		t.Fatalf("observed %v, measured %v", w.b.observed, w.b.measured)
	}
}

// TestAuthorize: each access level admits exactly the caller kinds it names; the others are
// refused 401, a member without the seller role 403, before the call is admitted or its handler
// runs.
func TestAuthorize(t *testing.T) {
	member := axp.Caller{Kind: axp.MemberCall, MemberID: "mem_1"}
	seller := axp.Caller{Kind: axp.MemberCall, MemberID: "mem_2", Roles: []string{protocol.RoleSeller}}
	buyer := axp.Caller{Kind: axp.BuyerToken, Token: "bt_x"}
	wrongToken := axp.Caller{Kind: axp.BuyerToken, Token: "not-a-secret"}
	admin := axp.Caller{Kind: axp.Operator}
	callers := map[string]axp.Caller{"anonymous": anonymous, "member": member, "seller": seller, "buyer": buyer, "admin": admin}
	// want[access][caller] is the status of the call: 200 when it reaches the handler.
	want := map[contract.Access]map[string]int{
		contract.Public:     {"anonymous": 200, "member": 200, "seller": 200, "buyer": 200, "admin": 200},
		contract.Paid:       {"anonymous": 200, "member": 200, "seller": 200, "buyer": 200, "admin": 200},
		contract.MemberAuth: {"anonymous": 401, "member": 200, "seller": 200, "buyer": 401, "admin": 401},
		contract.SellerAuth: {"anonymous": 401, "member": 403, "seller": 200, "buyer": 401, "admin": 401},
		contract.BuyerAuth:  {"anonymous": 401, "member": 200, "seller": 200, "buyer": 200, "admin": 401},
		contract.TaskParty:  {"anonymous": 401, "member": 200, "seller": 200, "buyer": 200, "admin": 401},
		contract.AdminAuth:  {"anonymous": 401, "member": 401, "seller": 401, "buyer": 401, "admin": 200},
	}
	for access, byCaller := range want {
		for name, status := range byCaller {
			op := &contract.Op{Name: "test_" + string(access), Method: http.MethodGet, Path: "/api/test", Access: access}
			err := Authorize(op, callers[name])
			if got := statusOf(err); got != status {
				t.Errorf("%s access, %s caller: %d (%v), want %d", access, name, got, err, status)
			}
		}
	}
	// A token that is not a member secret (or not the admin token) is told so.
	for _, access := range []contract.Access{contract.MemberAuth, contract.AdminAuth} {
		err := Authorize(&contract.Op{Name: "x", Access: access}, wrongToken)
		if code(err) != axp.CodeUnauthorized || !strings.Contains(err.Error(), "not a valid") {
			t.Errorf("%s access with a stray token: %v", access, err)
		}
	}

	// Through Run: the refusal comes before admission and the handler.
	w := newWorld(t)
	op := &contract.Op{Name: "test_put_note", Method: http.MethodPost, Path: "/api/test/{box}/notes", Access: contract.SellerAuth, In: putNote.Op().In}
	_, err := w.p.Run(context.Background(), Request{Op: op, Caller: member, Args: map[string]any{"box": "b", "text": "x"}, HTTP: httptest.NewRequest("POST", "/", nil)})
	if code(err) != axp.CodeForbidden || w.b.admits != 0 || w.runs != 0 {
		t.Fatalf("a member calling a seller operation: %v, admitted %d, ran %d", err, w.b.admits, w.runs)
	}
	if len(w.b.observed) != 1 || w.b.observed[0] != http.StatusForbidden {
		t.Fatalf("observed %v, want the 403", w.b.observed)
	}
}

func statusOf(err error) int {
	if err == nil {
		return 200
	}
	return Status(code(err))
}

// TestAdmitRefused: a call the rate limits refuse answers their error and runs nothing.
func TestAdmitRefused(t *testing.T) {
	w := newWorld(t)
	w.b.admitErr = &axp.Error{Code: axp.CodeRateLimited, Message: "too many", RetryAfter: 5}
	_, err := w.p.Run(context.Background(), mcp(map[string]any{"box": "b", "text": "x"}))
	if code(err) != axp.CodeRateLimited || w.runs != 0 || w.b.refunds != 0 {
		t.Fatalf("refused admission: %v, ran %d, refunded %d", err, w.runs, w.b.refunds)
	}
	if w.b.observed[0] != http.StatusTooManyRequests {
		t.Fatalf("observed %v", w.b.observed)
	}
}

// TestRefundWhenNothingChanged: a call admitted but then refused for its input, answered from an
// earlier call (a replay) or failed in its handler gives its admission back; a successful one
// does not.
func TestRefundWhenNothingChanged(t *testing.T) {
	key := "0123456789abcdef-refund"
	cases := []struct {
		name   string
		req    func() Request
		setup  func(w *world)
		refund int
	}{
		{"refused input", func() Request { return mcp(map[string]any{"box": "b", "text": 7}) }, nil, 1},
		{"handler error", func() Request { return mcp(map[string]any{"box": "b", "text": "x"}) },
			func(w *world) { w.fail = axp.Conflict("no", "") }, 1},
		{"success", func() Request { return mcp(map[string]any{"box": "b", "text": "x"}) }, nil, 0},
		{"replay", func() Request { r := mcp(map[string]any{"box": "b", "text": "x"}); r.IdempotencyKey = key; return r },
			func(w *world) {
				r := mcp(map[string]any{"box": "b", "text": "x"})
				r.IdempotencyKey = key
				if _, err := w.p.Run(context.Background(), r); err != nil {
					t.Fatal(err)
				}
				w.b.admits, w.b.refunds = 0, 0
			}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			if c.setup != nil {
				c.setup(w)
			}
			w.p.Run(context.Background(), c.req())
			if w.b.admits != 1 || w.b.refunds != c.refund {
				t.Fatalf("admitted %d, refunded %d, want 1 and %d", w.b.admits, w.b.refunds, c.refund)
			}
		})
	}
}

// TestOwnerBeforeParse: on a REST-shaped call (path separated, body read by Parse) the owner
// check refuses before the body is read; when Owns lets it through, Parse runs.
func TestOwnerBeforeParse(t *testing.T) {
	w := newWorld(t)
	parsed := 0
	parse := func() (map[string]any, error) { parsed++; return map[string]any{"text": "x"}, nil }
	w.b.holdsErr = axp.Forbidden("not your box", "")
	_, err := w.p.Run(context.Background(), rest("b1", parse))
	if code(err) != axp.CodeForbidden || parsed != 0 || w.runs != 0 {
		t.Fatalf("held call: %v, parsed %d times, ran %d", err, parsed, w.runs)
	}
	if w.b.refunds != 1 {
		t.Fatalf("a held call refunded %d times, want 1", w.b.refunds)
	}
	w.b.holdsErr = nil
	a, err := w.p.Run(context.Background(), rest("b2", parse))
	if err != nil || parsed != 1 || w.box != "b2" || a.Out.(*noteOut).Text != "x" {
		t.Fatalf("call: %v, parsed %d, box %q", err, parsed, w.box)
	}
	// A failing Parse answers its error and runs nothing.
	_, err = w.p.Run(context.Background(), rest("b3", func() (map[string]any, error) {
		return nil, axp.Invalid("body", "is not valid JSON", "")
	}))
	if field(err) != "body" || w.runs != 1 {
		t.Fatalf("bad body: %v, ran %d", err, w.runs)
	}
	// An MCP-shaped call is checked once its arguments are read: a refusal runs nothing.
	holds, runs := w.b.holds, w.runs
	w.b.holdsErr = axp.Forbidden("not your box", "")
	_, err = w.p.Run(context.Background(), mcp(map[string]any{"box": "b", "text": "x"}))
	if code(err) != axp.CodeForbidden || w.b.holds != holds+1 || w.runs != runs {
		t.Fatalf("an MCP call by a stranger: %v, checked %d times, ran %d", err, w.b.holds-holds, w.runs-runs)
	}
}

// TestPathParams: an MCP-shaped call's path parameter the input does not declare is taken out of
// its arguments for the handler; a missing one is named.
func TestPathParams(t *testing.T) {
	w := newWorld(t)
	if _, err := w.p.Run(context.Background(), mcp(map[string]any{"box": "b7", "text": "x"})); err != nil {
		t.Fatalf("box is not an input field, so it must not be refused as one: %v", err)
	}
	if w.box != "b7" {
		t.Fatalf("handler saw box %q", w.box)
	}
	for _, args := range []map[string]any{{"text": "x"}, {"box": "", "text": "x"}, {"box": 3, "text": "x"}} {
		_, err := w.p.Run(context.Background(), mcp(args))
		if field(err) != "box" || !strings.Contains(err.Error(), "required") {
			t.Errorf("args %v: %v, want box named as required", args, err)
		}
	}
	if w.runs != 1 {
		t.Fatalf("handler ran %d times", w.runs)
	}
}

// TestDecodeErrors: input refused by the schema names the field; an operation without input
// refuses any argument, naming it.
func TestDecodeErrors(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct {
		args  map[string]any
		field string
	}{
		{map[string]any{"box": "b"}, "text"},
		{map[string]any{"box": "b", "text": 5}, "text"},
		{map[string]any{"box": "b", "text": strings.Repeat("x", 21)}, "text"},
		{map[string]any{"box": "b", "text": "x", "count": 10}, "count"},
		{map[string]any{"box": "b", "text": "x", "colour": "red"}, "colour"},
	} {
		_, err := w.p.Run(context.Background(), mcp(c.args))
		if code(err) != axp.CodeInvalidInput || field(err) != c.field {
			t.Errorf("args %v: %v (field %q), want %s named", c.args, err, field(err), c.field)
		}
	}
	req := Request{Op: listNotes.Op(), Caller: anonymous, Args: map[string]any{"zeta": 1, "alpha": 2}}
	_, err := w.p.Run(context.Background(), req)
	if field(err) != "alpha" || !strings.Contains(err.Error(), "takes no input") {
		t.Errorf("an argument to an operation without input: %v", err)
	}
	if w.runs != 0 {
		t.Fatalf("handler ran %d times on refused input", w.runs)
	}
	req.Args = nil
	if a, err := w.p.Run(context.Background(), req); err != nil || a.Out.(*noteOut).ID != "all" || a.Status != http.StatusOK {
		t.Fatalf("no input: %+v, %v", a, err)
	}
}

// TestIdempotency: the same key with the same arguments replays the stored answer without running
// the handler; the same key with other arguments, or about another resource, is a conflict; a
// key whose call is still running is a conflict; an anonymous caller's short key and a key over
// 255 characters are refused naming the header.
func TestIdempotency(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	key := "5f0c3a9e-8d2b-4c1e-9a7f-2b6d8e4c1a03"
	call := func(box string, args map[string]any, key string) (Answer, error) {
		args["box"] = box
		r := mcp(args)
		r.IdempotencyKey = key
		return w.p.Run(ctx, r)
	}
	first, err := call("b", map[string]any{"text": "x"}, key)
	if err != nil || first.Replayed {
		t.Fatalf("first call: %+v, %v", first, err)
	}
	again, err := call("b", map[string]any{"text": "x"}, key)
	if err != nil || !again.Replayed || again.Status != http.StatusCreated || w.runs != 1 {
		t.Fatalf("replay: %+v, %v; handler ran %d times", again, err, w.runs)
	}
	var replayed noteOut
	if err := json.Unmarshal(again.Out.(json.RawMessage), &replayed); err != nil || replayed != *first.Out.(*noteOut) {
		t.Fatalf("replayed %s, first answer %+v", again.Out, first.Out)
	}
	for name, args := range map[string]map[string]any{"other args": {"text": "y"}, "extra field": {"text": "x", "count": 1}} {
		if _, err := call("b", args, key); code(err) != axp.CodeConflict || !strings.Contains(err.Error(), "different request") {
			t.Errorf("%s with a used key: %v", name, err)
		}
	}
	if _, err := call("other", map[string]any{"text": "x"}, key); code(err) != axp.CodeConflict {
		t.Errorf("the same key about another resource: %v", err)
	}
	// Another caller's same key is its own.
	r := mcp(map[string]any{"box": "b", "text": "x"})
	r.IdempotencyKey, r.Caller = key, axp.Caller{Kind: axp.MemberCall, MemberID: "mem_1"}
	if a, err := w.p.Run(ctx, r); err != nil || a.Replayed {
		t.Errorf("another caller's key: %+v, %v", a, err)
	}

	if _, err := call("b", map[string]any{"text": "x"}, "short-key"); field(err) != "Idempotency-Key" || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("anonymous short key: %v", err)
	}
	r = mcp(map[string]any{"box": "b", "text": "x"})
	r.IdempotencyKey, r.Caller = "short", axp.Caller{Kind: axp.MemberCall, MemberID: "mem_1"}
	if _, err := w.p.Run(ctx, r); err != nil {
		t.Errorf("a member's short key: %v", err)
	}
	if _, err := call("b", map[string]any{"text": "x"}, strings.Repeat("k", 256)); field(err) != "Idempotency-Key" || !strings.Contains(err.Error(), "255") {
		t.Errorf("key of 256: %v", err)
	}
	if _, err := call("b", map[string]any{"text": "x"}, strings.Repeat("k", 255)); err != nil {
		t.Errorf("key of 255: %v", err)
	}

	// A retry while the first call runs is refused, and the key is free again once it ended.
	gate := make(chan struct{})
	w.hold <- gate
	busy := "busy-0123456789abcdef"
	done := make(chan error)
	go func() { _, err := call("b", map[string]any{"text": "x"}, busy); done <- err }()
	<-w.entered
	if _, err := call("b", map[string]any{"text": "x"}, busy); code(err) != axp.CodeConflict || !strings.Contains(err.Error(), "in progress") {
		t.Errorf("key in flight: %v", err)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if a, err := call("b", map[string]any{"text": "x"}, busy); err != nil || !a.Replayed {
		t.Errorf("after the first call ended: %+v, %v", a, err)
	}

	// A key on a read, or on a GET form, is not an idempotent call.
	w.runs = 0
	for range 2 {
		if a, err := w.p.Run(ctx, Request{Op: listNotes.Op(), Caller: anonymous, IdempotencyKey: key}); err != nil || a.Replayed {
			t.Fatalf("read with a key: %+v, %v", a, err)
		}
	}
	if w.runs != 2 {
		t.Fatalf("reads with a key ran %d times", w.runs)
	}
}

// TestPanicIsAnError: a panic in a handler answers an internal error, is logged, and the call is
// observed as a 500 with its admission given back.
func TestPanicIsAnError(t *testing.T) {
	w := newWorld(t)
	w.boom = true
	a, err := w.p.Run(context.Background(), mcp(map[string]any{"box": "b", "text": "x"}))
	if err == nil || !strings.Contains(err.Error(), "the handler broke") || a.Out != nil {
		t.Fatalf("panic answered %+v, %v", a, err)
	}
	if log := w.b.log.String(); !strings.Contains(log, "panic serving call") || !strings.Contains(log, "the handler broke") {
		t.Fatalf("log: %s", log)
	}
	if len(w.b.observed) != 1 || w.b.observed[0] != http.StatusInternalServerError || w.b.refunds != 1 {
		t.Fatalf("observed %v, refunded %d", w.b.observed, w.b.refunds)
	}
}

// TestPaidCall: a Paid operation's payment is taken before its handler runs, settled once it
// answered (its headers go with the answer) and released when it failed; a Precheck refuses bad
// input before anything is charged, and a refused payment runs nothing.
func TestPaidCall(t *testing.T) {
	ctx := context.Background()
	paid := func(text string) Request {
		return Request{Op: paidNote.Op(), Caller: anonymous, Args: map[string]any{"text": text}, IdempotencyKey: "0123456789abcdef-paid"}
	}
	w := newWorld(t)
	Precheck(w.reg, paidNote, func(in *noteIn) error {
		if in.Text == "bad" {
			return axp.Invalid("text", "is bad", "")
		}
		return nil
	})
	a, err := w.p.Run(ctx, paid("x"))
	if err != nil || a.Header["Payment-Response"] != "settled" || a.Out.(*noteOut).Text != "x" {
		t.Fatalf("paid call: %+v, %v", a, err)
	}
	if w.b.charge.settled != 1 || w.b.charge.released != 0 {
		t.Fatalf("settled %d, released %d", w.b.charge.settled, w.b.charge.released)
	}
	// A paid call is not idempotent: each call is paid and runs.
	if a, err := w.p.Run(ctx, paid("x")); err != nil || a.Replayed || w.runs != 2 {
		t.Fatalf("second paid call with the same key: %+v, %v, ran %d", a, err, w.runs)
	}

	w.fail = &axp.Error{Code: axp.CodeUnavailable, Message: "the source is down"}
	if _, err := w.p.Run(ctx, paid("x")); code(err) != axp.CodeUnavailable {
		t.Fatalf("failing handler: %v", err)
	}
	if w.b.charge.released != 1 || w.b.charge.settled != 0 {
		t.Fatalf("failed paid call: settled %d, released %d", w.b.charge.settled, w.b.charge.released)
	}
	w.fail = nil

	charges := w.b.charges
	if _, err := w.p.Run(ctx, paid("bad")); field(err) != "text" || w.b.charges != charges {
		t.Fatalf("precheck: %v, charged %d times", err, w.b.charges-charges)
	}

	w.b.chargeErr = &axp.Error{Code: axp.CodePaymentRequired, Message: "pay first"}
	runs := w.runs
	if _, err := w.p.Run(ctx, paid("x")); code(err) != axp.CodePaymentRequired || w.runs != runs {
		t.Fatalf("unpaid call: %v, ran %d", err, w.runs-runs)
	}
}
