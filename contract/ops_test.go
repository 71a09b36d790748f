package contract_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
)

func TestOpsCatalog(t *testing.T) {
	names := map[string]bool{}
	routes := map[string]string{}
	tools := map[string]string{}
	access := []contract.Access{contract.Public, contract.MemberAuth, contract.SellerAuth, contract.BuyerAuth, contract.TaskParty, contract.AdminAuth, contract.Paid}
	methods := []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	for i := range contract.Ops {
		op := contract.Ops[i]
		if op.Name == "" || names[op.Name] {
			t.Errorf("op %d: name %q empty or repeated", i, op.Name)
		}
		names[op.Name] = true
		if contract.Lookup(op.Name) != op {
			t.Errorf("%s: Lookup", op.Name)
		}
		if !slices.Contains(methods, op.Method) || !strings.HasPrefix(op.Path, "/") {
			t.Errorf("%s: method %q path %q", op.Name, op.Method, op.Path)
		}
		if !slices.Contains(access, op.Access) {
			t.Errorf("%s: access %q", op.Name, op.Access)
		}
		// Ownership is declared, never left to a handler: a task's buyer's operations are the
		// buyer's, a party's operations name which parties, and an owner is only declared where
		// the path names the record ({id}).
		switch {
		case op.Access == contract.BuyerAuth && op.Owner != contract.TaskBuyer:
			t.Errorf("%s: buyer access, owner %q: declare Owner: TaskBuyer", op.Name, op.Owner)
		case op.Access == contract.TaskParty && op.Owner != contract.TaskParties && op.Owner != contract.TaskAudience:
			t.Errorf("%s: party access, owner %q: declare Owner: TaskParties or TaskAudience", op.Name, op.Owner)
		case op.Owner != contract.NoOwner && !slices.Contains(op.PathParams(), "id"):
			t.Errorf("%s: owner %q declared on a path without {id}", op.Name, op.Owner)
		case op.Owner == contract.JobSeller && op.Access != contract.SellerAuth:
			t.Errorf("%s: job seller owner on %q access", op.Name, op.Access)
		}
		if op.Summary == "" || op.Tag == "" {
			t.Errorf("%s: no summary or tag", op.Name)
		}
		if op.Out == nil {
			t.Errorf("%s: Out is nil", op.Name)
		}
		if s := op.SuccessStatus(); s != 200 && s != 201 {
			t.Errorf("%s: status %d", op.Name, s)
		}
		if op.Mutating() != (op.Method != http.MethodGet) {
			t.Errorf("%s: Mutating", op.Name)
		}

		// One route per method and path, GET forms included.
		keys := []string{op.Method + " " + op.Path}
		if op.GETForm {
			if op.Method == http.MethodGet {
				t.Errorf("%s: a GET form of a GET operation", op.Name)
			}
			keys = append(keys, "GET "+op.GETFormPath())
		}
		for _, k := range keys {
			if other, dup := routes[k]; dup {
				t.Errorf("%s: route %s also belongs to %s", op.Name, k, other)
			}
			routes[k] = op.Name
		}
		if op.Tool != "" {
			if other, dup := tools[op.Tool]; dup {
				t.Errorf("%s: MCP tool %s also belongs to %s", op.Name, op.Tool, other)
			}
			tools[op.Tool] = op.Name
		}

		// Every type has a schema (SchemaOf panics on types it cannot describe).
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: schema: %v", op.Name, r)
				}
			}()
			if op.In != nil {
				if s := protocol.SchemaOf(op.In); s.Type != "object" {
					t.Errorf("%s: input schema is %v, not an object", op.Name, s.Type)
				}
			}
			protocol.SchemaOf(op.Out)
		}()

		// Path params are fields of the input, so that the REST door can fill them in.
		params := op.PathParams()
		if len(params) > 0 && op.In == nil {
			t.Errorf("%s: path %s has params %v but the operation takes no input", op.Name, op.Path, params)
		}
		if op.In != nil {
			s := protocol.SchemaOf(op.In)
			for _, p := range params {
				if s.Properties[p] == nil {
					t.Errorf("%s: path param %q is not a field of %s", op.Name, p, op.In)
				} else if !slices.Contains(s.Required, p) {
					t.Errorf("%s: path param %q is not required in %s", op.Name, p, op.In)
				}
			}
			if op.ExtraQuery != "" {
				if p := s.Properties[op.ExtraQuery]; p == nil || p.Type != "object" {
					t.Errorf("%s: ExtraQuery %q is not an object field of %s", op.Name, op.ExtraQuery, op.In)
				}
			}
		}
		if op.ContentType != "" && op.Out != reflect.TypeFor[string]() {
			t.Errorf("%s: a %s answer should be declared as string", op.Name, op.ContentType)
		}
	}
	if len(contract.Ops) < 60 {
		t.Errorf("only %d operations", len(contract.Ops))
	}
	if contract.Lookup("no_such_op") != nil {
		t.Error("Lookup of an unknown name")
	}
}

// The endpoints of spec section 4 are all in the catalog.
func TestOpsCoverSpecEndpoints(t *testing.T) {
	routes := map[string]bool{}
	for _, op := range contract.Ops {
		routes[op.Method+" "+op.Path] = true
		if op.GETForm {
			routes["GET "+op.GETFormPath()] = true
		}
	}
	spec := []string{
		"GET /api/protocol", "GET /api/protocol/tools.json", "GET /join", "GET /api/why", "GET /api/services",
		"GET /api/pricing", "GET /api/faq", "GET /faq.md", "GET /api/search", "GET /api/sellers", "GET /api/quote",
		"POST /api/tasks", "GET /api/tasks/new", "GET /api/tasks/{id}", "POST /api/tasks/{id}/choose", "GET /api/tasks/{id}/choose",
		"POST /api/tasks/{id}/pay/crypto", "GET /api/tasks/{id}/deliverable", "POST /api/tasks/{id}/accept", "GET /api/tasks/{id}/accept",
		"POST /api/tasks/{id}/dispute", "GET /api/tasks/{id}/dispute", "GET /api/tasks/{id}/timeline", "POST /api/tasks/{id}/review",
		"POST /api/tasks/{id}/translate", "POST /api/tasks/{id}/clarify", "POST /api/tasks/{id}/redo", "POST /api/tasks/{id}/settlement",
		"POST /api/tasks/{id}/settlement/{settlement_id}", "POST /api/tasks/{id}/escalate", "GET /api/mediations/{id}",
		"POST /api/mediations/{id}/statement", "POST /api/mediations/{id}/appeal", "GET /api/tasks/{id}/messages",
		"POST /api/tasks/{id}/messages", "POST /api/reviews/{id}/objection",
		"POST /api/members/register", "GET /api/members/me", "PATCH /api/members/me", "POST /api/members/me/verify",
		"PUT /api/members/me/skills", "POST /api/members/me/heartbeat", "POST /api/members/me/conformance",
		"POST /api/members/me/sandbox", "GET /api/members/me/sandbox/{id}", "GET /api/members/me/tasks",
		"PUT /api/members/me/favourites", "GET /api/members/me/announcements", "POST /api/members/me/announcements/{id}/read",
		"POST /api/members/me/operator-messages", "GET /api/board", "GET /api/members/{id}/reputation",
		"GET /api/members/me/quote-requests", "POST /api/tasks/{id}/offers", "GET /api/members/me/jobs",
		"POST /api/members/me/jobs/{id}/deliver", "POST /api/members/me/jobs/{id}/request-payment",
		"GET /api/admin/trace/{traceId}", "GET /api/admin/tasks/{id}/timeline", "GET /api/admin/log", "GET /api/admin/ai",
		"GET /api/admin/audit", "GET /api/admin/metrics", "GET /api/admin/stats",
		"GET /paid", "POST /api/connectors/request", "GET /trackrecord",
	}
	for _, r := range spec {
		if !routes[r] {
			t.Errorf("spec endpoint %s is not in contract.Ops", r)
		}
	}
}

func TestOpPathParams(t *testing.T) {
	op := contract.Op{Path: "/api/tasks/{id}/settlement/{settlement_id}"}
	if got := op.PathParams(); !slices.Equal(got, []string{"id", "settlement_id"}) {
		t.Fatalf("PathParams = %v", got)
	}
	if got := (&contract.Op{Path: "/api/tasks"}).PathParams(); got != nil {
		t.Fatalf("no params: %v", got)
	}
	if !(&contract.Op{}).QueryInput(http.MethodGet) || (&contract.Op{}).QueryInput(http.MethodPost) {
		t.Fatal("QueryInput")
	}
}

func TestCaller(t *testing.T) {
	cases := []struct {
		c    axp.Caller
		want string
	}{
		{axp.Caller{Kind: axp.MemberCall, MemberID: "mem_1"}, "member:mem_1"},
		{axp.Caller{Kind: axp.Operator}, "admin"},
		{axp.Caller{Kind: axp.BuyerToken}, "buyer"},
		{axp.Caller{Kind: axp.Anonymous}, "anonymous"},
	}
	for _, c := range cases {
		if got := c.c.Actor(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.c, got, c.want)
		}
	}
	c := axp.Caller{Kind: axp.MemberCall, Roles: []string{"buyer"}}
	if !c.HasRole("buyer") || c.HasRole("seller") {
		t.Fatal("HasRole")
	}
}

// The REST input of submit_offer carries the task id from the path beside the quote fields.
func TestOfferInputSchema(t *testing.T) {
	s := protocol.SchemaFor[axp.OfferInput]()
	if s.Properties["id"] == nil || !slices.Contains(s.Required, "id") {
		t.Fatalf("OfferInput lacks its path id: %+v", s)
	}
	var in axp.OfferInput
	err := protocol.Decode([]byte(`{"id":"task_1","price_usd":4.5,"eta_minutes":30,"note":"ok"}`), &in)
	if err != nil || in.ID != "task_1" || *in.PriceUSD != axp.USD(4, 50) || *in.ETAMinutes != 30 {
		t.Fatalf("decoded %+v %v", in, err)
	}
	if err := protocol.Decode([]byte(`{"id":"task_1","price_usd":4.555,"eta_minutes":30}`), &in); err == nil || err.Field != "price_usd" {
		t.Fatalf("3 decimals: %v", err)
	}
	if err := protocol.Decode([]byte(`{"id":"task_1","price_usd":4,"eta_minutes":30,"bogus":1}`), &in); err == nil || err.Field != "bogus" {
		t.Fatalf("unknown field: %v", err)
	}
}

func TestEscalateAcceptsNullRefund(t *testing.T) {
	var in axp.EscalateBody
	if err := protocol.Decode([]byte(`{"id":"t","reason":"late","proposed_refund_pct":null}`), &in); err != nil {
		t.Fatal(err)
	}
	if err := protocol.Decode([]byte(`{"id":"t","reason":"late","proposed_refund_pct":101}`), &in); err == nil || err.Field != "proposed_refund_pct" {
		t.Fatalf("101: %v", err)
	}
}

// Every operation is declared once, as a package-level Define in this package, and the index
// (contract.Ops) lists every declaration exactly once; each example input passes its own schema.
func TestOpsIndexListsEveryDeclaration(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]string{} // Go name -> file
	for _, f := range pkgs["contract"].Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					if call, ok := v.(*ast.CallExpr); ok && isDefine(call.Fun) {
						declared[vs.Names[i].Name] = fset.Position(vs.Pos()).Filename
					}
				}
			}
		}
	}
	if file := declared["Ops"]; file != "" {
		t.Errorf("Ops is declared with Define in %s", file)
	}
	if len(declared) != len(contract.Ops) {
		t.Errorf("%d declarations, %d operations in contract.Ops", len(declared), len(contract.Ops))
	}
	seen := map[string]bool{}
	for _, op := range contract.Ops {
		if seen[op.Name] {
			t.Errorf("%s is listed twice in contract.Ops", op.Name)
		}
		seen[op.Name] = true
		name := contract.GoName(op.Name)
		if _, ok := declared[name]; !ok {
			if _, ok = declared[name+"Op"]; !ok {
				t.Errorf("%s has no declaration %s (or %sOp)", op.Name, name, name)
			}
		}
		if op.In == nil {
			if op.Example != nil {
				t.Errorf("%s takes no input but has an example", op.Name)
			}
			continue
		}
		if op.Example == nil || reflect.TypeOf(op.Example) != reflect.PointerTo(op.In) {
			t.Errorf("%s: example %T, want *%v", op.Name, op.Example, op.In)
			continue
		}
		b, err := json.Marshal(op.Example)
		if err != nil {
			t.Fatal(err)
		}
		v, perr := protocol.ParseJSON(b)
		if perr != nil {
			t.Fatalf("%s: %v", op.Name, perr)
		}
		if err := protocol.DecodeValue(v, reflect.New(op.In).Interface()); err != nil {
			t.Errorf("%s: the example is not valid input: %v", op.Name, err)
		}
	}
}

func isDefine(e ast.Expr) bool {
	if ix, ok := e.(*ast.IndexListExpr); ok {
		id, ok := ix.X.(*ast.Ident)
		return ok && id.Name == "Define"
	}
	return false
}
