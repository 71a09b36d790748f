package memberkit

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/api"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
)

// Client is a member's REST client of the exchange. Every call goes through api.Call with the
// operation's declaration (package api is the exchange's one Go client: method, path and types
// from the declaration, headers, error decoding). An error answer comes back as a *protocol.Error (code, message, hint,
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
type UnreachableError = api.UnreachableError

// IsCode reports whether err is a *protocol.Error of code.
func IsCode(err error, code protocol.Code) bool { return api.IsCode(err, code) }

// maxAnswer caps what one answer of the exchange may weigh.
const maxAnswer = 16 << 20

var defaultHTTP = &http.Client{Timeout: 30 * time.Second}

// at is the api client of the exchange at base with c's secret and settings.
func (c *Client) at(base string) *api.Client {
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	ua := c.UserAgent
	if ua == "" {
		ua = "axp-memberkit"
	}
	return &api.Client{BaseURL: base, Token: c.Secret, HTTP: hc, UserAgent: ua, MaxBody: maxAnswer}
}

// call runs the operation def declares on c's exchange.
func call[I, O any](ctx context.Context, c *Client, def contract.Def[I, O], in I) (*O, error) {
	out, _, err := api.Call(ctx, c.at(c.BaseURL), def, in)
	return out, err
}

// Register registers a new member. The answer holds the member secret and platform key, shown
// once: keep them (Credentials).
func (c *Client) Register(ctx context.Context, r axp.Registration) (*axp.Registered, error) {
	return call(ctx, c, contract.Register, r)
}

// Pricing reads the exchange's fees, payment methods and whether its money is test money.
func (c *Client) Pricing(ctx context.Context) (*axp.PricingInfo, error) {
	return call(ctx, c, contract.GetPricing, contract.NoInput{})
}

// Profile reads the member's private record.
func (c *Client) Profile(ctx context.Context) (*axp.PrivateMember, error) {
	return call(ctx, c, contract.GetMyProfile, contract.NoInput{})
}

// Earnings is what the seller's jobs paid, what waits for the operator's approval or is held and
// why, and where payouts go.
func (c *Client) Earnings(ctx context.Context) (*axp.Earnings, error) {
	return call(ctx, c, contract.GetMyEarnings, contract.NoInput{})
}

// UpdateProfile changes the member's profile. Changing mcp_url, auth_token or roles requires
// verification again.
func (c *Client) UpdateProfile(ctx context.Context, u axp.ProfileUpdate) (*axp.PrivateMember, error) {
	return call(ctx, c, contract.UpdateProfile, u)
}

// SetSkills replaces the member's skills.
func (c *Client) SetSkills(ctx context.Context, skills []protocol.Skill) (*axp.PrivateMember, error) {
	if skills == nil {
		skills = []protocol.Skill{}
	}
	return call(ctx, c, contract.UpdateSkills, axp.SkillsUpdate{Skills: skills})
}

// Verify runs the verification handshake: the exchange calls the member's server (push), or hands
// out a practice request to answer (pull; see Runner.Verify).
func (c *Client) Verify(ctx context.Context) (*axp.Verification, error) {
	return call(ctx, c, contract.Verify, axp.EmptyInput{})
}

// Conformance runs the exchange's deep test of the member: forged calls refused, schemas,
// honesty of quotes, timing.
func (c *Client) Conformance(ctx context.Context) (*axp.Conformance, error) {
	return call(ctx, c, contract.RunConformance, axp.EmptyInput{})
}

// StartSandbox starts a practice job in which the exchange plays the other side; as is "seller"
// or "buyer", taskType may be empty.
func (c *Client) StartSandbox(ctx context.Context, as, taskType string) (*axp.Sandbox, error) {
	return call(ctx, c, contract.StartSandbox, axp.SandboxBody{As: as, TaskType: taskType})
}

// Sandbox reads a sandbox job, step by step.
func (c *Client) Sandbox(ctx context.Context, id string) (*axp.Sandbox, error) {
	return call(ctx, c, contract.GetSandbox, axp.IDPath{ID: id})
}

// Heartbeat resets the member's 24 h check-in clock.
func (c *Client) Heartbeat(ctx context.Context) (*axp.Heartbeat, error) {
	return call(ctx, c, contract.HeartbeatOp, axp.EmptyInput{})
}

// QuoteRequests lists the open tasks the seller can quote on (and a pending practice request).
func (c *Client) QuoteRequests(ctx context.Context) ([]axp.Task, error) {
	l, err := call(ctx, c, contract.ListQuoteRequests, contract.NoInput{})
	if err != nil {
		return nil, err
	}
	return l.Tasks, nil
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
	// Only a price is answered with the offer; questions and declines with a receipt.
	ans, _, err := api.Call(ctx, c.at(c.BaseURL), contract.SubmitOffer, axp.OfferInput{ID: taskID, QuoteAnswer: q})
	if err != nil {
		return nil, err
	}
	r := &OfferReceipt{TaskID: taskID, Kind: q.Kind(), Offer: ans.Offer, Recorded: ans.Offer != nil}
	if rec := ans.Recorded; rec != nil {
		r.TaskID, r.Kind, r.Recorded = rec.TaskID, rec.Kind, rec.Recorded
	}
	return r, nil
}

// Jobs lists the tasks assigned to the seller: active ones, or all with all set.
func (c *Client) Jobs(ctx context.Context, all bool) ([]axp.Task, error) {
	q := "active"
	if all {
		q = "all"
	}
	l, err := call(ctx, c, contract.ListJobs, axp.JobsQuery{Status: q})
	if err != nil {
		return nil, err
	}
	return l.Tasks, nil
}

// Task reads a task the member is party to.
func (c *Client) Task(ctx context.Context, id string) (*axp.Task, error) {
	return call(ctx, c, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id}})
}

// DeliverURL is the deliver_url of a job on this exchange.
func (c *Client) DeliverURL(taskID string) string {
	u, _ := api.URL(c.at(c.BaseURL), contract.Deliver, axp.DeliverInput{ID: taskID})
	return u
}

// chooseURL is the choose_url of a task on this exchange.
func (c *Client) chooseURL(taskID string) string {
	u, _ := api.URL(c.at(c.BaseURL), contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: taskID}})
	return u
}

// Deliver delivers a job's result inline; the answer is the task with its acceptance checks run.
func (c *Client) Deliver(ctx context.Context, taskID string, d Deliverable) (*axp.Task, error) {
	if err := d.Check(); err != nil {
		return nil, err
	}
	return call(ctx, c, contract.Deliver, d.input(taskID))
}

// deliverTo delivers a job's result to the deliver_url do_task gave, which names the exchange (it
// may know itself by another address than BaseURL) and must be that job's deliver address there.
// It answers the exchange's screening of what was delivered (nil when it says none).
func (c *Client) deliverTo(ctx context.Context, in protocol.DoTaskInput, d Deliverable) (*protocol.Screening, error) {
	if in.DeliverURL == "" {
		return nil, errors.New("the job has no deliver_url")
	}
	path, err := api.URL(&api.Client{}, contract.Deliver, axp.DeliverInput{ID: in.TaskID})
	if err != nil {
		return nil, err
	}
	base, ok := strings.CutSuffix(in.DeliverURL, path)
	if !ok {
		return nil, fmt.Errorf("the deliver_url %s is not the deliver address of job %s", in.DeliverURL, in.TaskID)
	}
	t, _, err := api.Call(ctx, c.at(base), contract.Deliver, d.input(in.TaskID))
	if err != nil || t == nil || t.Deliverable == nil {
		return nil, err
	}
	return t.Deliverable.Screening, nil
}

// RequestPayment asks for the payout of a job the buyer accepted; the operator approves it.
func (c *Client) RequestPayment(ctx context.Context, taskID string) (*axp.PaymentRequested, error) {
	return call(ctx, c, contract.RequestPayment, axp.IDPath{ID: taskID})
}

// CreateTask posts a task as a buyer member. The answer carries the offers collected within the
// quote window.
func (c *Client) CreateTask(ctx context.Context, t axp.NewTask) (*axp.CreatedTask, error) {
	return call(ctx, c, contract.CreateTask, t)
}

// MyTasks lists the tasks the member posted as a buyer, newest first, following the pages of
// list_my_tasks.
func (c *Client) MyTasks(ctx context.Context) ([]axp.Task, error) {
	all := []axp.Task{}
	q := axp.MyTasksQuery{Limit: axp.MyTasksPageMax}
	for {
		l, err := call(ctx, c, contract.ListMyTasks, q)
		if err != nil {
			return all, err
		}
		all = append(all, l.Tasks...)
		if l.NextCursor == "" || l.NextCursor == q.Cursor {
			return all, nil
		}
		q.Cursor = l.NextCursor
	}
}

// Choose chooses an offer on a task the member posted.
func (c *Client) Choose(ctx context.Context, taskID, offerID string) (*axp.Task, error) {
	return call(ctx, c, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: taskID}, OfferID: offerID})
}

// Announcements lists the operator's announcements to the member.
func (c *Client) Announcements(ctx context.Context) (*axp.AnnouncementList, error) {
	return call(ctx, c, contract.Announcements, contract.NoInput{})
}

// ReadAnnouncement marks an announcement read.
func (c *Client) ReadAnnouncement(ctx context.Context, id string) error {
	_, err := call(ctx, c, contract.ReadAnnouncement, axp.IDPath{ID: id})
	return err
}

func dataURL(mime string, b []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
}
