package memberkit

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// Path is where the member's MCP endpoint is mounted by Server.Handler and Agent.
const Path = "/mcp"

// DefaultMaxBody caps the body of one call to the member's server.
const DefaultMaxBody = 4 << 20

// Options configure a Server (and a Runner: the same handlers answer both).
type Options struct {
	// Roles are the member's roles: "seller", "buyer" or both. Every required tool of these roles
	// is registered (protocol.RequiredTools).
	Roles []string
	// Seller answers quote, do_task and get_skills. Required with the seller role.
	Seller Seller
	// Buyer answers receive_offers (nil: Defaults, which acknowledges).
	Buyer Buyer
	// Party answers task_update, announcement, mediation and review. nil: the Seller or the Buyer
	// when it implements Party, else Defaults.
	Party Party
	// AuthToken, when set, must come as "Authorization: Bearer <token>" on every call (the
	// auth_token registered with the exchange).
	AuthToken string
	// Now is the clock signatures are checked against (nil: time.Now).
	Now func() time.Time
	// Logger logs refused calls and the handlers' mistakes (nil: slog.Default()).
	Logger *slog.Logger
	// MaxBody caps a call's body in bytes (0: DefaultMaxBody).
	MaxBody int64
	// AllowReplays turns off replay refusal. By default a call whose signature was accepted
	// before within the 300 s window is refused (401): a captured do_task sent again must not run
	// the job again. The exchange gives every call a body of its own (a unique JSON-RPC id), so a
	// legitimate call is never taken for a replay. Turn it off only behind something that already
	// refuses repeated signatures.
	AllowReplays bool
	// NoPaymentRequest turns off asking to be paid. By default a seller calls request_payment as
	// soon as the buyer accepts a job (push mode on the task_update, pull mode on the next poll),
	// so an accepted job never waits for the seller; the operator still approves every payout.
	NoPaymentRequest bool
}

// handlers are the resolved handlers and the checks shared by Server and Runner.
type handlers struct {
	roles  []string
	seller Seller
	buyer  Buyer
	party  Party
	now    func() time.Time
	log    *slog.Logger
	// askPay: request payment when a job is accepted (a seller, unless NoPaymentRequest).
	askPay bool

	mu sync.Mutex
	// requested holds the accepted jobs whose payment the exchange took (or had no payment to
	// request for); failed holds those whose request failed, logged once.
	requested, failed map[string]bool
}

func newHandlers(o Options) (*handlers, error) {
	h := &handlers{seller: o.Seller, buyer: o.Buyer, party: o.Party, now: o.Now, log: o.Logger, requested: map[string]bool{}, failed: map[string]bool{}}
	for _, r := range o.Roles {
		if r != protocol.RoleSeller && r != protocol.RoleBuyer {
			return nil, fmt.Errorf("memberkit: unknown role %q (seller or buyer)", r)
		}
		if !slices.Contains(h.roles, r) {
			h.roles = append(h.roles, r)
		}
	}
	if len(h.roles) == 0 {
		return nil, errors.New("memberkit: no roles: give seller, buyer or both")
	}
	if slices.Contains(h.roles, protocol.RoleSeller) && h.seller == nil {
		return nil, errors.New("memberkit: a seller needs a Seller handler (embed memberkit.Defaults, or use memberkit.Worker)")
	}
	if h.buyer == nil {
		if b, ok := h.seller.(Buyer); ok {
			h.buyer = b
		} else {
			h.buyer = Defaults{}
		}
	}
	if h.party == nil {
		if p, ok := h.seller.(Party); ok {
			h.party = p
		} else if p, ok := h.buyer.(Party); ok {
			h.party = p
		} else {
			h.party = Defaults{}
		}
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	h.askPay = slices.Contains(h.roles, protocol.RoleSeller) && !o.NoPaymentRequest
	return h, nil
}

// requestPayment asks for the payout of an accepted job, and says what came of it in the log. The
// exchange answers a second request with the first, so asking twice is harmless. A request that
// fails is asked again by retryPayments (a suspended seller's requests fail until the operator
// reinstates it); only the first failure of a job is logged.
func (h *handlers) requestPayment(ctx context.Context, c *Client, taskID string) {
	out, err := c.RequestPayment(ctx, taskID)
	h.mu.Lock()
	logged := h.failed[taskID]
	if err == nil || IsCode(err, protocol.CodeConflict) {
		h.requested[taskID] = true
		delete(h.failed, taskID)
	} else {
		h.failed[taskID] = true
	}
	h.mu.Unlock()
	if err != nil {
		if IsCode(err, protocol.CodeConflict) {
			h.log.Info("memberkit: no payment to request", "task", taskID, "reason", err.Error())
			return
		}
		if !logged {
			h.log.Warn("memberkit: requesting payment failed; it is asked again by itself", "task", taskID, "err", err)
		}
		return
	}
	h.log.Info("memberkit: payment requested; the operator approves the payout", "task", taskID, "message", out.Message)
}

// paymentRequested reports whether the exchange took the payment request of an accepted job.
func (h *handlers) paymentRequested(taskID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.requested[taskID]
}

// retryPayments asks for the payout of every accepted job whose payment was not requested yet:
// those whose request failed, and those accepted while the exchange could not tell the seller (a
// suspended seller hears of nothing until it is reinstated). Errors are quiet: the next round asks
// again.
func (h *handlers) retryPayments(ctx context.Context, c *Client) {
	if !h.askPay {
		return
	}
	jobs, err := c.Jobs(ctx, false)
	if err != nil {
		return
	}
	for _, t := range jobs {
		if ctx.Err() != nil {
			return
		}
		if t.Status == axp.TaskAccepted && !practice(t.ID) && !h.paymentRequested(t.ID) {
			h.requestPayment(ctx, c, t.ID)
		}
	}
}

// AnswerError says a handler's answer breaks the protocol: the mistake is the developer's, and it
// is caught before the answer leaves.
type AnswerError struct {
	Tool string
	Err  *protocol.Error
}

// Error names the tool and the offending field, with a hint.
func (e *AnswerError) Error() string {
	return fmt.Sprintf("memberkit: the %s answer breaks the protocol: %s", e.Tool, e.Err.Error())
}

// Unwrap gives the protocol error naming the field.
func (e *AnswerError) Unwrap() error { return e.Err }

// CheckAnswer checks a handler's answer for tool against the tool's output schema (strictly: no
// unknown fields) and the rules a schema cannot say: a quote must pass QuoteAnswer.Check (free
// says whether the task is a free job), a review must rate or skip, skills must be unique.
func CheckAnswer(tool string, answer any, free bool, now time.Time) error {
	t, ok := memberTool(tool)
	if !ok {
		return fmt.Errorf("memberkit: %q is not a member tool", tool)
	}
	b, err := json.Marshal(answer)
	if err != nil {
		return &AnswerError{tool, protocol.Invalid("body", "cannot be encoded: "+err.Error(), "")}
	}
	v, perr := protocol.ParseJSON(b)
	if perr != nil {
		return &AnswerError{tool, perr}
	}
	if verr := protocol.Validate(protocol.SchemaOf(t.Out), v, ""); verr != nil {
		return &AnswerError{tool, verr}
	}
	switch a := answer.(type) {
	case protocol.QuoteAnswer:
		if err := a.Check(free, now); err != nil {
			return &AnswerError{tool, err}
		}
	case protocol.ReviewOutput:
		if !a.Skip && a.Rating == nil {
			return &AnswerError{tool, protocol.Invalid("rating", "is required unless the review is skipped", `give a rating from 1 to 5, or {"skip": true}`)}
		}
	case protocol.GetSkillsOutput:
		if err := protocol.CheckSkills(a.Skills, "skills", true); err != nil {
			return &AnswerError{tool, err}
		}
	}
	return nil
}

func memberTool(name string) (protocol.MemberTool, bool) {
	for _, t := range protocol.MemberTools {
		if t.Name == name {
			return t, true
		}
	}
	return protocol.MemberTool{}, false
}

// checked runs CheckAnswer and logs a failure loudly: it is a bug in the member's code.
func (h *handlers) checked(tool string, answer any, free bool) error {
	if err := CheckAnswer(tool, answer, free, h.now()); err != nil {
		h.log.Error("memberkit: answer refused before sending", "tool", tool, "err", err)
		return err
	}
	return nil
}

func (h *handlers) quote(ctx context.Context, in protocol.QuoteInput) (protocol.QuoteAnswer, error) {
	q, err := h.seller.Quote(ctx, in)
	if err != nil {
		return q, err
	}
	return q, h.checked("quote", q, in.PaymentMethod == "free")
}

func (h *handlers) doTask(ctx context.Context, job *Job) (protocol.DoTaskOutput, error) {
	out, err := h.seller.DoTask(ctx, job)
	if err != nil {
		return out, err
	}
	return out, h.checked("do_task", out, false)
}

func (h *handlers) getSkills(ctx context.Context) (protocol.GetSkillsOutput, error) {
	skills, err := h.seller.GetSkills(ctx)
	if skills == nil {
		skills = []protocol.Skill{}
	}
	out := protocol.GetSkillsOutput{Skills: skills}
	if err != nil {
		return out, err
	}
	return out, h.checked("get_skills", out, false)
}

func (h *handlers) mediation(ctx context.Context, in protocol.MediationInput) (protocol.MediationOutput, error) {
	out, err := h.party.Mediation(ctx, in)
	if err != nil {
		return out, err
	}
	return out, h.checked("mediation", out, false)
}

func (h *handlers) review(ctx context.Context, in protocol.ReviewInput) (protocol.ReviewOutput, error) {
	out, err := h.party.Review(ctx, in)
	if err != nil {
		return out, err
	}
	return out, h.checked("review", out, false)
}

// Server is a member's MCP server: Streamable HTTP, stateless, every request verified with
// protocol.VerifyRequest against the member's id and platform key (refused with 401 otherwise),
// every required tool of the member's roles registered with the schemas of tools.json. Mount it
// at /mcp (Handler does), and give it the member's credentials with SetCredentials once they are
// known; until then it answers 503.
type Server struct {
	h         *handlers
	authToken string
	maxBody   int64
	replays   *replayCache
	mcp       http.Handler
	tools     []string

	creds  atomic.Pointer[Credentials]
	client atomic.Pointer[Client]

	bg   context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
}

// NewServer builds the server of a member with the given roles and handlers.
func NewServer(o Options) (*Server, error) {
	h, err := newHandlers(o)
	if err != nil {
		return nil, err
	}
	s := &Server{h: h, authToken: o.AuthToken, maxBody: o.MaxBody}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBody
	}
	if !o.AllowReplays {
		s.replays = &replayCache{seen: map[string]int64{}}
	}
	s.bg, s.stop = context.WithCancel(context.Background())
	ms := server.NewMCPServer("axp-member", protocol.ProtocolVersion, server.WithToolCapabilities(false), server.WithRecovery())
	for _, name := range protocol.RequiredTools(h.roles) {
		t, _ := memberTool(name)
		in, err := json.Marshal(protocol.SchemaOf(t.In))
		if err != nil {
			return nil, err
		}
		out, err := json.Marshal(protocol.SchemaOf(t.Out))
		if err != nil {
			return nil, err
		}
		def := mcp.NewToolWithRawSchema(t.Name, t.Description, in)
		def.RawOutputSchema = out
		ms.AddTool(def, s.tool(t.Name))
		s.tools = append(s.tools, t.Name)
	}
	// DNS-rebinding protection refuses loopback requests with a foreign Host (a member behind a
	// tunnel or reverse proxy on the same machine). Every request here must carry the exchange's
	// HMAC signature, which a rebinding browser cannot forge, so the protection adds nothing.
	s.mcp = server.NewStreamableHTTPServer(ms, server.WithStateLess(true),
		server.WithDisableLocalhostProtection(true),
		server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)))
	return s, nil
}

// Tools lists the names of the tools the server offers, in catalog order.
func (s *Server) Tools() []string { return append([]string(nil), s.tools...) }

// SetCredentials gives the server the member's id and platform key (to check signatures and
// answer contact_test) and the member secret and exchange (to deliver jobs).
func (s *Server) SetCredentials(c *Credentials) {
	cp := *c
	s.creds.Store(&cp)
	s.client.Store(NewClient(cp.Exchange, cp.MemberSecret))
}

// Handler returns an http.Handler with the server mounted at /mcp.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(Path, s)
	return mux
}

// ServeHTTP verifies the call's signature and hands it to the MCP server.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	creds := s.creds.Load()
	if creds == nil {
		refuse(w, http.StatusServiceUnavailable, "unavailable", "this member is not registered yet", "try again in a moment")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.maxBody+1))
	if err != nil {
		refuse(w, http.StatusBadRequest, "invalid_input", "the request body cannot be read", "")
		return
	}
	if int64(len(body)) > s.maxBody {
		refuse(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the request is larger than %d bytes", s.maxBody), "")
		return
	}
	if s.authToken != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.authToken)) != 1 {
			s.refused(body, "wrong or missing auth token", r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `AXP-HMAC realm="axp member", headers="Authorization X-AX-Member-Id X-AX-Timestamp X-AX-Signature"`)
			refuse(w, http.StatusUnauthorized, "unauthorized", "the Bearer auth token is missing or wrong", "")
			return
		}
	}
	now := s.h.now()
	if perr := protocol.VerifyRequest(r.Header, creds.MemberID, []byte(creds.PlatformKey), body, now); perr != nil {
		s.refused(body, perr.Message, r.RemoteAddr)
		// Tell MCP clients this endpoint is not OAuth-protected: calls are HMAC-signed.
		w.Header().Set("WWW-Authenticate", `AXP-HMAC realm="axp member", headers="X-AX-Member-Id X-AX-Timestamp X-AX-Signature"`)
		refuse(w, http.StatusUnauthorized, "unauthorized", perr.Message, perr.Hint)
		return
	}
	if s.replays != nil && !s.replays.first(r.Header.Get(protocol.HeaderSignature), r.Header.Get(protocol.HeaderTimestamp), now) {
		s.refused(body, "replayed signature", r.RemoteAddr)
		w.Header().Set("WWW-Authenticate", `AXP-HMAC realm="axp member", error="replayed"`)
		refuse(w, http.StatusUnauthorized, "unauthorized", "this signature was used before: the call is a replay", "sign every call afresh")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	s.mcp.ServeHTTP(w, r)
}

// refused logs a refused call. The exchange's conformance test sends forged, stale, unsigned and
// replayed contact_test calls (nonce "probe") that must be refused: those are logged as expected
// probes at info level, so a passing run does not look like an attack; any other refusal is a
// warning.
func (s *Server) refused(body []byte, reason, remote string) {
	var call struct {
		Method string `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				Nonce string `json:"nonce"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &call) == nil && call.Method == "tools/call" && call.Params.Name == "contact_test" && call.Params.Arguments.Nonce == "probe" {
		s.h.log.Info("memberkit: refused a conformance probe, as expected", "reason", reason, "remote", remote)
		return
	}
	s.h.log.Warn("memberkit: call refused", "reason", reason, "remote", remote)
}

// refuse answers an error with the exchange's error shape.
func refuse(w http.ResponseWriter, status int, code, msg, hint string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	e := map[string]string{"code": code, "message": msg}
	if hint != "" {
		e["hint"] = hint
	}
	json.NewEncoder(w).Encode(map[string]any{"error": e})
}

// tool is the MCP handler of one member tool.
func (s *Server) tool(name string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw := []byte(req.Params.RawArguments) // the exact bytes: numbers keep their precision
		if len(raw) == 0 {
			b, err := json.Marshal(req.Params.Arguments)
			if err != nil {
				return mcp.NewToolResultError("the arguments cannot be read: " + err.Error()), nil
			}
			raw = b
		}
		if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
			raw = []byte("{}")
		}
		answer, err := s.call(ctx, name, raw)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		b, err := json.Marshal(answer)
		if err != nil {
			return mcp.NewToolResultError("the answer cannot be encoded: " + err.Error()), nil
		}
		return mcp.NewToolResultStructured(json.RawMessage(b), string(b)), nil
	}
}

// decode reads a tool's input leniently: the exchange may send fields this kit does not know yet.
func decode[T any](raw []byte) (T, error) {
	var in T
	v, perr := protocol.ParseJSON(raw)
	if perr != nil {
		return in, fmt.Errorf("invalid input: %w", perr)
	}
	if perr := protocol.DecodeAnswer(v, &in); perr != nil {
		return in, fmt.Errorf("invalid input: %w", perr)
	}
	return in, nil
}

// call decodes a tool's input, runs its handler and checks the answer.
func (s *Server) call(ctx context.Context, name string, raw []byte) (any, error) {
	h := s.h
	switch name {
	case "contact_test":
		in, err := decode[protocol.ContactTestInput](raw)
		if err != nil {
			return nil, err
		}
		creds := s.creds.Load()
		return protocol.ContactTestOutput{Nonce: in.Nonce, Signature: protocol.ContactTestSignature([]byte(creds.PlatformKey), in.Nonce)}, nil
	case "quote":
		in, err := decode[protocol.QuoteInput](raw)
		if err != nil {
			return nil, err
		}
		return h.quote(ctx, in)
	case "do_task":
		in, err := decode[protocol.DoTaskInput](raw)
		if err != nil {
			return nil, err
		}
		return h.doTask(ctx, s.job(in))
	case "get_skills":
		if _, err := decode[protocol.GetSkillsInput](raw); err != nil {
			return nil, err
		}
		return h.getSkills(ctx)
	case "receive_offers":
		in, err := decode[protocol.ReceiveOffersInput](raw)
		if err != nil {
			return nil, err
		}
		return protocol.Received{Received: true}, h.buyer.ReceiveOffers(ctx, in)
	case "task_update":
		in, err := decode[protocol.TaskUpdateInput](raw)
		if err != nil {
			return nil, err
		}
		err = h.party.TaskUpdate(ctx, in)
		if h.askPay && in.Status == axp.TaskAccepted && in.Event == "" && !in.Test {
			if c := s.client.Load(); c != nil {
				s.spawn(func() { h.requestPayment(s.bg, c, in.TaskID) })
			}
		}
		return protocol.Received{Received: true}, err
	case "announcement":
		in, err := decode[protocol.AnnouncementInput](raw)
		if err != nil {
			return nil, err
		}
		return protocol.Received{Received: true}, h.party.Announcement(ctx, in)
	case "mediation":
		in, err := decode[protocol.MediationInput](raw)
		if err != nil {
			return nil, err
		}
		return h.mediation(ctx, in)
	case "review":
		in, err := decode[protocol.ReviewInput](raw)
		if err != nil {
			return nil, err
		}
		return h.review(ctx, in)
	}
	return nil, fmt.Errorf("unknown tool %q", name)
}

// job builds the Job of a do_task call: its background work runs under the server's life and
// is waited for by Shutdown.
func (s *Server) job(in protocol.DoTaskInput) *Job {
	c := s.client.Load()
	j := &Job{DoTaskInput: in, bg: s.bg, spawn: s.spawn}
	if c != nil {
		j.deliver = c.deliverTo
	}
	return j
}

func (s *Server) spawn(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
}

// Shutdown waits for background work started through Job.Go (deliveries in flight) until ctx
// ends, then cancels what is left. Stop the HTTP server first.
func (s *Server) Shutdown(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		s.stop()
		return nil
	case <-ctx.Done():
		s.stop()
		<-done
		return ctx.Err()
	}
}

// replayCache remembers the signatures of accepted calls for the 300 s window in which their
// timestamps stay valid, so that a captured call cannot be sent again. Memory is bounded: when it
// holds maxReplayEntries signatures, the oldest tenth is forgotten and every call no newer than
// those is refused from then on (floor). A forgotten call can then never come back, and calls signed
// now are always newer: it fails safe, never open.
type replayCache struct {
	mu    sync.Mutex
	seen  map[string]int64 // signature -> unix second after which it may be forgotten
	next  int64            // next prune
	floor int64            // calls expiring at or before this second are refused (forgotten ones)
}

const maxReplayEntries = 100_000

// first records sig and reports whether it was new.
func (c *replayCache) first(sig, ts string, now time.Time) bool {
	var t int64
	fmt.Sscan(ts, &t)
	exp := t + protocol.SignatureToleranceSec + 1
	c.mu.Lock()
	defer c.mu.Unlock()
	n := now.Unix()
	if n >= c.next {
		for k, e := range c.seen {
			if e < n {
				delete(c.seen, k)
			}
		}
		c.next = n + 30
	}
	if _, dup := c.seen[sig]; dup || exp <= c.floor {
		return false
	}
	if len(c.seen) >= maxReplayEntries {
		c.forgetOldest()
	}
	c.seen[sig] = exp
	return true
}

// forgetOldest drops the tenth of the signatures closest to expiry and raises the floor to them.
func (c *replayCache) forgetOldest() {
	exps := make([]int64, 0, len(c.seen))
	for _, e := range c.seen {
		exps = append(exps, e)
	}
	slices.Sort(exps)
	cut := exps[len(exps)/10]
	for k, e := range c.seen {
		if e <= cut {
			delete(c.seen, k)
		}
	}
	c.floor = max(c.floor, cut)
}
