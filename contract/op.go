package contract

import (
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/axp-exchange/axp"
)

// Access says who may call an operation.
type Access string

// Access levels.
const (
	Public     Access = "public" // anyone; a member secret or buyer token still identifies the caller
	MemberAuth Access = "member" // a member secret
	SellerAuth Access = "seller" // a member secret of a member with the seller role
	BuyerAuth  Access = "buyer"  // the task's buyer token, or the member secret of the buyer member
	// TaskParty: the task's buyer (token or member secret) or a member the task concerns (its
	// chosen seller, a seller it is open to); the handler decides which member may see what.
	TaskParty Access = "party"
	AdminAuth Access = "admin" // the operator's admin token
	// Paid: anyone, paying for each call with x402 (or using the day's free trial calls); a member
	// secret still identifies the caller for the trial.
	Paid Access = "paid"
)

// Owner says whose record an operation acts on: the pipeline loads it and checks the caller before
// the handler runs, and gives the handler the caller's side. The record is the task {id} of the
// path (or the task of the mediation {id} of /api/mediations/{id}...); a record that does not
// exist is left to the handler, which checks its input first.
type Owner string

// Owners.
const (
	// NoOwner: the access level alone decides (public calls, the caller's own member record, the
	// operator's calls).
	NoOwner Owner = ""
	// TaskBuyer: the task's buyer (its buyer token, or the member secret of its buyer member).
	TaskBuyer Owner = "task_buyer"
	// TaskParties: the task's buyer or its chosen seller.
	TaskParties Owner = "task_party"
	// TaskAudience: the task's buyer, its chosen seller, or a seller the task is open to (before a
	// seller is chosen: one that quoted on it or that it matches; at any time: one the buyer wrote
	// to). The handler decides what such a seller sees.
	TaskAudience Owner = "task_audience"
	// JobSeller: the task's chosen seller (its member secret).
	JobSeller Owner = "job_seller"
)

// Op declares one operation once: its name (the OpenAPI operationId and, where Tool is set, the MCP
// tool name), its REST method and path, who may call it and its typed input and output. Every door
// is a projection of Ops.
type Op struct {
	Name    string
	Method  string
	Path    string
	Summary string
	Tag     string
	Access  Access
	// Owner is whose record the operation acts on (checked by the pipeline); NoOwner when the
	// access level alone decides.
	Owner Owner
	// In and Out are the input and output types; In nil means the operation takes no input.
	In, Out reflect.Type
	// Status is the success status (200 when zero).
	Status int
	// GETForm adds a plain GET route reading the same input from the query string (spec 4.2: every
	// buyer step also has a plain GET form): query keys are the body's fields; an object is JSON in
	// one key, an array repeated keys, comma-separated values or JSON in one key.
	GETForm bool
	// GETPath is the path of the GET form when the operation's own path already answers GET with
	// another operation (POST /api/tasks/{id}/messages posts, GET lists); empty: Path.
	GETPath string
	// ExtraQuery names the input field (an object) that receives query keys the input does not
	// declare, e.g. service params on GET /api/quote.
	ExtraQuery string
	// Tool is the MCP tool name, empty when the operation is not an MCP tool.
	Tool string
	// ContentType is set for operations that answer something other than JSON.
	ContentType string
	// Limit is the rate-limit budget a call draws on (docs/design.md section 8).
	Limit RateLimit
	// Forbids: the handler may refuse an authenticated caller (403) beyond what Access checks, e.g.
	// a listing that screening refuses.
	Forbids bool
	// Later names the issue area that brings the operation; until it lands the operation answers
	// unavailable with a clear message.
	Later string
	// Price is the default price of one call of a Paid operation (configurable with paid_prices);
	// Category groups pay-per-call tools in their listing.
	Price    axp.Money
	Category string
	// Needs names the setting a Paid tool's data source needs; without it the tool is listed as
	// unavailable and answers 503 naming it.
	Needs string
	// PriceFrom says where the price of a Paid call comes from: the catalog (Price, or paid_prices)
	// when empty, else the connector the call concerns.
	PriceFrom PriceSource
	// ResponseHeaders names headers the success answer carries, with what each holds.
	ResponseHeaders map[string]string
	// Example is a valid input (a pointer to a value of In), nil when the operation takes none.
	Example any
}

// PriceSource says where the price of a pay-per-call operation comes from.
type PriceSource string

// Price sources.
const (
	PriceFixed          PriceSource = ""                // the catalog's Price, or the paid_prices setting
	PriceConnector      PriceSource = "connector"       // the price per call of the live connector {name}
	PriceConnectorSetup PriceSource = "connector_setup" // the setup fee of the accepted connector {id}
)

// NoInput is the input type of an operation that takes none: its Op.In is nil.
type NoInput struct{}

// Def is the typed declaration of one operation: I is its input (NoInput for none), O its
// output. Handlers are registered against a Def, so a handler whose input or output type differs
// from the declaration does not compile.
type Def[I, O any] struct{ op *Op }

// Define declares an operation with input I and output O and a valid example input. In and Out
// are set from I and O; an operation answering a Document declares its body as a string.
func Define[I, O any](op Op, example *I) Def[I, O] {
	if t := reflect.TypeFor[I](); t != reflect.TypeFor[NoInput]() {
		op.In = t
		if example != nil {
			op.Example = example
		}
	}
	op.Out = reflect.TypeFor[O]()
	if op.Out == reflect.TypeFor[axp.Document]() {
		op.Out = reflect.TypeFor[string]()
	}
	return Def[I, O]{&op}
}

// Op is the declared operation.
func (d Def[I, O]) Op() *Op { return d.op }

// declared is any Def.
type declared interface{ Op() *Op }

// catalog lists the operations of defs, in order.
func catalog(defs ...declared) []*Op {
	out := make([]*Op, len(defs))
	for i, d := range defs {
		out[i] = d.Op()
	}
	return out
}

// initialisms are the words of operation names written in capitals in Go names.
var initialisms = map[string]string{"ai": "AI", "api": "API", "faq": "FAQ", "id": "ID", "mcp": "MCP",
	"openapi": "OpenAPI", "url": "URL", "http": "HTTP", "json": "JSON"}

// GoName is the exported Go name of an operation: get_task is GetTask, get_faq is GetFAQ. Its
// declaration in this package has that name, or that name with Op after it when a type has it
// (the heartbeat operation is HeartbeatOp beside the Heartbeat it answers).
func GoName(op string) string {
	var b strings.Builder
	for _, w := range strings.Split(op, "_") {
		if w == "" {
			continue
		}
		if s, ok := initialisms[w]; ok {
			b.WriteString(s)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }

// RateLimit names a rate-limit budget.
type RateLimit string

// Rate-limit budgets. Besides its own budget, every call by a caller without a member secret
// (anonymous, or with a buyer token) draws on the per-address budget of anonymous calls.
const (
	LimitNone             RateLimit = ""
	LimitTaskPosts        RateLimit = "task_posts"        // anonymous task posts per address (members are not limited)
	LimitRegistrations    RateLimit = "registrations"     // registrations per address
	LimitOperatorMessages RateLimit = "operator_messages" // operator messages per member
	LimitBoardPosts       RateLimit = "board_posts"       // board threads and replies per member
)

// SuccessStatus is the operation's success status code.
func (o *Op) SuccessStatus() int {
	if o.Status == 0 {
		return http.StatusOK
	}
	return o.Status
}

// Mutating reports whether the operation changes state (any method but GET).
func (o *Op) Mutating() bool { return o.Method != http.MethodGet }

// QueryInput reports whether the input of a call by method comes from the query string.
func (o *Op) QueryInput(method string) bool {
	return method == http.MethodGet || method == http.MethodDelete
}

// GETFormPath is the path of the operation's GET form.
func (o *Op) GETFormPath() string {
	if o.GETPath != "" {
		return o.GETPath
	}
	return o.Path
}

// PathParams lists the {names} of the path in order.
func (o *Op) PathParams() []string {
	var out []string
	for _, seg := range strings.Split(o.Path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, strings.Trim(seg, "{}"))
		}
	}
	return out
}

// AnonymousCallable reports whether a caller without a member secret (anonymous, or with a buyer
// token) may call the operation, and so draws on the per-address budget of anonymous calls.
func (o *Op) AnonymousCallable() bool {
	return o.Access == Public || o.Access == BuyerAuth || o.Access == TaskParty || o.Access == Paid
}

// Errors lists the HTTP statuses a call can answer besides success, sorted: exactly those the
// operation's input, access level, rate limits and effects make possible. query says the input
// comes from the query string (no body: no 413).
func (o *Op) Errors(query bool) []int {
	codes := []int{http.StatusInternalServerError}
	if o.In != nil || o.ExtraQuery != "" {
		codes = append(codes, http.StatusBadRequest)
	}
	if !query && o.In != nil {
		codes = append(codes, http.StatusRequestEntityTooLarge)
	}
	if o.Access != Public && o.Access != Paid {
		codes = append(codes, http.StatusUnauthorized)
	}
	if o.Access == SellerAuth || o.Access == BuyerAuth || o.Access == TaskParty || o.Forbids {
		codes = append(codes, http.StatusForbidden)
	}
	if len(o.PathParams()) > 0 {
		codes = append(codes, http.StatusNotFound)
	}
	if o.Mutating() {
		codes = append(codes, http.StatusConflict)
	}
	if o.AnonymousCallable() || o.Limit != LimitNone {
		codes = append(codes, http.StatusTooManyRequests)
	}
	if o.Access == Paid {
		codes = append(codes, http.StatusPaymentRequired)
	}
	if o.Later != "" || o.Access == Paid {
		// A paid call is refused 503 when the exchange takes no payments or the tool's data
		// source is not configured.
		codes = append(codes, http.StatusServiceUnavailable)
	}
	slices.Sort(codes)
	return codes
}

// Lookup returns the operation of the given name, or nil.
func Lookup(name string) *Op {
	for _, op := range Ops {
		if op.Name == name {
			return op
		}
	}
	return nil
}
