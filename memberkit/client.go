package memberkit

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// Client is a member's REST client of the exchange: a small layer over net/http whose calls take
// their method and path from the operation catalog (axp.Route), as every Go client does. An error answer comes back as a *protocol.Error (code, message, hint,
// field); an exchange that cannot be reached as an *UnreachableError.
type Client struct {
	// BaseURL is the exchange, e.g. https://exchange.example (no trailing slash).
	BaseURL string
	// Secret is the member secret, sent as a Bearer token (empty before registration).
	Secret string
	// HTTP is the HTTP client (nil: one with a 30 s timeout).
	HTTP *http.Client
	// UserAgent is sent with every request (empty: "axp-memberkit").
	UserAgent string
}

// NewClient returns a client of the exchange at base, authenticated with the member secret
// (which may be empty to register).
func NewClient(base, secret string) *Client {
	return &Client{BaseURL: strings.TrimRight(base, "/"), Secret: secret, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// UnreachableError says the exchange could not be reached at all.
type UnreachableError struct {
	URL string
	Err error
}

// Error says which exchange could not be reached and why.
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the exchange at %s: %v", e.URL, e.Err)
}

// Unwrap returns the network error.
func (e *UnreachableError) Unwrap() error { return e.Err }

// IsCode reports whether err is a *protocol.Error of code.
func IsCode(err error, code protocol.Code) bool {
	var e *protocol.Error
	return errors.As(err, &e) && e.Code == code
}

// Do sends one request to path (which may carry a query) with in as its JSON body (nil: none) and
// decodes a successful JSON answer into out (nil: discard).
func (c *Client) Do(ctx context.Context, method, path string, in, out any) error {
	return c.do(ctx, method, c.BaseURL+path, in, out)
}

// Call runs the operation called op of the exchange's catalog (axp.Ops) with in as its input
// fields (a struct or a map; path parameters such as "id" among them) and decodes the answer into
// out (nil: discard). Method and path come from the catalog, never from this package.
func (c *Client) Call(ctx context.Context, op string, in, out any) error {
	method, path, body, err := axp.Route(op, in, false)
	if err != nil {
		return err
	}
	var payload any
	if body != nil {
		payload = json.RawMessage(body)
	}
	return c.Do(ctx, method, path, payload, out)
}

// urlOf is the address of the operation op about the resource id (its {id} path parameter).
func (c *Client) urlOf(op, id string) string {
	_, path, _, err := axp.Route(op, map[string]any{"id": id}, false)
	if err != nil {
		panic("memberkit: " + err.Error())
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	return c.BaseURL + path
}

// withFields is in's JSON object with the given keys and values added (the path parameters of a
// call whose body type does not carry them).
func withFields(in any, kv ...string) map[string]any {
	m := map[string]any{}
	if b, err := json.Marshal(in); err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		dec.Decode(&m)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func (c *Client) do(ctx context.Context, method, u string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.Secret != "" {
		req.Header.Set("Authorization", "Bearer "+c.Secret)
	}
	ua := c.UserAgent
	if ua == "" {
		ua = "axp-memberkit"
	}
	req.Header.Set("User-Agent", ua)
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	res, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &UnreachableError{URL: c.BaseURL, Err: err}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return &UnreachableError{URL: c.BaseURL, Err: err}
	}
	if res.StatusCode >= 400 {
		return decodeError(res, raw)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: the answer cannot be read: %w", method, req.URL.Path, err)
	}
	return nil
}

func decodeError(res *http.Response, raw []byte) error {
	var body protocol.ErrorBody
	if err := json.Unmarshal(raw, &body); err != nil || body.Error.Code == "" {
		return &protocol.Error{Code: codeFor(res.StatusCode), Message: fmt.Sprintf("the exchange answered %s", res.Status)}
	}
	e := body.Error
	if ra := res.Header.Get("Retry-After"); ra != "" {
		fmt.Sscan(ra, &e.RetryAfter)
	}
	return &e
}

func codeFor(status int) protocol.Code {
	switch status {
	case 400:
		return protocol.CodeInvalidInput
	case 401:
		return protocol.CodeUnauthorized
	case 402:
		return protocol.CodePaymentRequired
	case 403:
		return protocol.CodeForbidden
	case 404:
		return protocol.CodeNotFound
	case 409:
		return protocol.CodeConflict
	case 413:
		return protocol.CodeTooLarge
	case 429:
		return protocol.CodeRateLimited
	case 503:
		return protocol.CodeUnavailable
	}
	return protocol.CodeInternal
}

func esc(id string) string { return url.PathEscape(id) }

// Register registers a new member. The answer holds the member secret and platform key, shown
// once: keep them (Credentials).
func (c *Client) Register(ctx context.Context, r axp.Registration) (*axp.Registered, error) {
	var out axp.Registered
	return &out, c.Call(ctx, "register", r, &out)
}

// Profile reads the member's private record.
func (c *Client) Profile(ctx context.Context) (*axp.PrivateMember, error) {
	var out axp.PrivateMember
	return &out, c.Call(ctx, "get_my_profile", nil, &out)
}

// UpdateProfile changes the member's profile. Changing mcp_url, auth_token or roles requires
// verification again.
func (c *Client) UpdateProfile(ctx context.Context, u axp.ProfileUpdate) (*axp.PrivateMember, error) {
	var out axp.PrivateMember
	return &out, c.Call(ctx, "update_profile", u, &out)
}

// SetSkills replaces the member's skills.
func (c *Client) SetSkills(ctx context.Context, skills []protocol.Skill) (*axp.PrivateMember, error) {
	if skills == nil {
		skills = []protocol.Skill{}
	}
	var out axp.PrivateMember
	return &out, c.Call(ctx, "update_skills", axp.SkillsUpdate{Skills: skills}, &out)
}

// Verify runs the verification handshake: the exchange calls the member's server (push), or hands
// out a practice request to answer (pull; see Runner.Verify).
func (c *Client) Verify(ctx context.Context) (*axp.Verification, error) {
	var out axp.Verification
	return &out, c.Call(ctx, "verify", nil, &out)
}

// Conformance runs the exchange's deep test of the member: forged calls refused, schemas,
// honesty of quotes, timing.
func (c *Client) Conformance(ctx context.Context) (*axp.Conformance, error) {
	var out axp.Conformance
	return &out, c.Call(ctx, "run_conformance", nil, &out)
}

// StartSandbox starts a practice job in which the exchange plays the other side; as is "seller"
// or "buyer", taskType may be empty.
func (c *Client) StartSandbox(ctx context.Context, as, taskType string) (*axp.Sandbox, error) {
	var out axp.Sandbox
	return &out, c.Call(ctx, "start_sandbox", axp.SandboxBody{As: as, TaskType: taskType}, &out)
}

// Sandbox reads a sandbox job, step by step.
func (c *Client) Sandbox(ctx context.Context, id string) (*axp.Sandbox, error) {
	var out axp.Sandbox
	return &out, c.Call(ctx, "get_sandbox", map[string]any{"id": id}, &out)
}

// Heartbeat resets the member's 24 h check-in clock.
func (c *Client) Heartbeat(ctx context.Context) (*axp.Heartbeat, error) {
	var out axp.Heartbeat
	return &out, c.Call(ctx, "heartbeat", nil, &out)
}

// QuoteRequests lists the open tasks the seller can quote on (and a pending practice request).
func (c *Client) QuoteRequests(ctx context.Context) ([]axp.Task, error) {
	var out axp.TaskList
	return out.Tasks, c.Call(ctx, "list_quote_requests", nil, &out)
}

// OfferReceipt is the exchange's answer to a quote sent through REST: the stored offer for a
// price, or a record of clarifying questions or a decline.
type OfferReceipt struct {
	TaskID   string     `json:"task_id"`
	Kind     string     `json:"kind"`
	Recorded bool       `json:"recorded"`
	Offer    *axp.Offer `json:"-"`
}

// Offer answers a quote request through REST with a price, clarifying questions or a decline.
func (c *Client) Offer(ctx context.Context, taskID string, q protocol.QuoteAnswer) (*OfferReceipt, error) {
	var raw json.RawMessage
	if err := c.Call(ctx, "submit_offer", withFields(q, "id", taskID), &raw); err != nil {
		return nil, err
	}
	r := &OfferReceipt{TaskID: taskID, Kind: q.Kind()}
	var probe struct {
		OfferID string `json:"offer_id"`
	}
	if json.Unmarshal(raw, &probe) == nil && probe.OfferID != "" {
		var o axp.Offer
		if err := json.Unmarshal(raw, &o); err != nil {
			return nil, fmt.Errorf("the offer cannot be read: %w", err)
		}
		r.Offer, r.Recorded = &o, true
		return r, nil
	}
	if err := json.Unmarshal(raw, r); err != nil {
		return nil, fmt.Errorf("the answer cannot be read: %w", err)
	}
	return r, nil
}

// Jobs lists the tasks assigned to the seller: active ones, or all with all set.
func (c *Client) Jobs(ctx context.Context, all bool) ([]axp.Task, error) {
	q := "active"
	if all {
		q = "all"
	}
	var out axp.TaskList
	return out.Tasks, c.Call(ctx, "list_jobs", map[string]any{"status": q}, &out)
}

// Task reads a task the member is party to.
func (c *Client) Task(ctx context.Context, id string) (*axp.Task, error) {
	var out axp.Task
	return &out, c.Call(ctx, "get_task", map[string]any{"id": id}, &out)
}

// DeliverURL is the deliver_url of a job on this exchange.
func (c *Client) DeliverURL(taskID string) string {
	return c.urlOf("deliver", taskID)
}

// Deliver delivers a job's result inline; the answer is the task with its acceptance checks run.
func (c *Client) Deliver(ctx context.Context, taskID string, d Deliverable) (*axp.Task, error) {
	if err := d.Check(); err != nil {
		return nil, err
	}
	var out axp.Task
	return &out, c.do(ctx, http.MethodPost, c.DeliverURL(taskID), d.body(), &out)
}

// deliverTo posts a deliverable to a deliver_url given by do_task.
func (c *Client) deliverTo(ctx context.Context, u string, d Deliverable) error {
	if u == "" {
		return errors.New("the job has no deliver_url")
	}
	return c.do(ctx, http.MethodPost, u, d.body(), nil)
}

// RequestPayment asks for the payout of a job the buyer accepted; the operator approves it.
func (c *Client) RequestPayment(ctx context.Context, taskID string) (*axp.PaymentRequested, error) {
	var out axp.PaymentRequested
	if err := c.Call(ctx, "request_payment", map[string]any{"id": taskID}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateTask posts a task as a buyer member. The answer carries the offers collected within the
// quote window.
func (c *Client) CreateTask(ctx context.Context, t axp.NewTask) (*axp.CreatedTask, error) {
	var out axp.CreatedTask
	return &out, c.Call(ctx, "create_task", t, &out)
}

// MyTasks lists the tasks the member posted as a buyer, newest first, following the pages of
// list_my_tasks.
func (c *Client) MyTasks(ctx context.Context) ([]axp.Task, error) {
	all := []axp.Task{}
	q := axp.MyTasksQuery{Limit: axp.MyTasksPageMax}
	for {
		var out axp.TaskList
		if err := c.Call(ctx, "list_my_tasks", q, &out); err != nil {
			return all, err
		}
		all = append(all, out.Tasks...)
		if out.NextCursor == "" || out.NextCursor == q.Cursor {
			return all, nil
		}
		q.Cursor = out.NextCursor
	}
}

// Choose chooses an offer on a task the member posted.
func (c *Client) Choose(ctx context.Context, taskID, offerID string) (*axp.Task, error) {
	var out axp.Task
	return &out, c.Call(ctx, "choose_offer", map[string]any{"id": taskID, "offer_id": offerID}, &out)
}

// Announcements lists the operator's announcements to the member.
func (c *Client) Announcements(ctx context.Context) (*axp.AnnouncementList, error) {
	var out axp.AnnouncementList
	return &out, c.Call(ctx, "announcements", nil, &out)
}

// ReadAnnouncement marks an announcement read.
func (c *Client) ReadAnnouncement(ctx context.Context, id string) error {
	return c.Call(ctx, "read_announcement", map[string]any{"id": id}, nil)
}

func dataURL(mime string, b []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
}
