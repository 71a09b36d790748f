package daemon_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
)

// Under the default (outbound_private: deny) a callback_url or mcp_url whose host is a private IP
// literal is refused with a 400 naming the field and the config key; loopback is accepted.
func TestOutboundPrivateDeniedAtInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	hint := func(err *axp.Error) {
		t.Helper()
		if !strings.Contains(err.Hint, "outbound_private") {
			t.Fatalf("hint does not name outbound_private: %+v", err)
		}
	}

	err := e.anon.Call(ctx, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a poem about the sea"},
		"callback_url": "http://169.254.169.254/latest/meta-data"}, nil)
	hint(apiErr(t, err, axp.CodeInvalidInput, "callback_url"))

	err = e.anon.Call(ctx, "register", map[string]any{"name": "internal", "roles": []string{"seller"}, "mcp_url": "http://10.0.0.7:8080/mcp"}, nil)
	hint(apiErr(t, err, axp.CodeInvalidInput, "mcp_url"))

	m := e.register(map[string]any{"roles": []string{"seller"}, "mcp_url": "http://127.0.0.1:9/mcp"})
	err = m.c.Call(ctx, "update_profile", map[string]any{"mcp_url": "http://[fd00::1]/mcp"}, nil)
	hint(apiErr(t, err, axp.CodeInvalidInput, "mcp_url"))
	callOp(t, m.c, contract.UpdateProfile, axp.ProfileUpdate{MCPURL: given("http://localhost:9/mcp")})

	callOp(t, e.anon, contract.CreateTask, axp.NewTask{
		Type:        "text-file",
		Params:      map[string]any{"prompt": "a poem about the sea"},
		CallbackURL: "http://127.0.0.1:9/hook",
	})
}

// outbound_private: allow accepts private literals.
func TestOutboundPrivateAllowed(t *testing.T) {
	// Only the input checks are exercised: the member is never verified (so never called) and the
	// task gets no offers and no status change (so its callback is never posted). Nothing leaves
	// loopback.
	e := newEnv(t, func(c *daemon.Config) { c.OutboundPrivate = "allow" })
	e.register(map[string]any{"roles": []string{"seller"}, "mcp_url": "http://10.0.0.7:8080/mcp"})
	callOp(t, e.anon, contract.CreateTask, axp.NewTask{
		Type:        "text-file",
		Params:      map[string]any{"prompt": "a poem about the sea"},
		CallbackURL: "http://192.168.1.10/hook",
	})
}

// A member registered while private targets were allowed keeps its private mcp_url when the
// operator turns the rule back on. Every call the exchange then makes to it is refused at dial time,
// the conformance probes (forged calls) included: they go through the same guarded caller.
func TestOutboundPrivateGuardsConformanceProbes(t *testing.T) {
	dir := t.TempDir()
	allow := newEnv(t, func(c *daemon.Config) { c.OutboundPrivate = "allow"; c.DataDir = dir })
	m := allow.register(map[string]any{"roles": []string{"seller"}, "mcp_url": "http://10.255.255.1:9/mcp"})
	allow.close()

	deny := newEnv(t, func(c *daemon.Config) { c.DataDir = dir })
	var rep axp.Conformance
	rep = *callOp(t, deny.anon.With(m.MemberSecret), contract.RunConformance, axp.EmptyInput{})
	probes := 0
	for _, s := range rep.Checks {
		if !strings.HasPrefix(s.Name, "refuses_") {
			continue
		}
		probes++
		if !strings.Contains(s.Detail, "outbound_private") {
			t.Errorf("probe %s reached the private address: %+v", s.Name, s)
		}
	}
	if probes == 0 || rep.Passed {
		t.Fatalf("conformance against a denied address: %+v", rep)
	}
}

// The AI provider is called through the same outbound client: a redirect it answers is not
// followed (a POST carrying the case would otherwise go wherever the answer points).
func TestAIProviderRedirectNotFollowed(t *testing.T) {
	var elsewhere atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer target.Close()
	ai := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/steal", http.StatusTemporaryRedirect)
	}))
	defer ai.Close()
	e := newMarket(t, func(c *daemon.Config) { c.AIBaseURL, c.AIModel = ai.URL+"/v1", "stand-in" })
	seller := e.pullSeller("text-file", map[string]any{"payout_address": payoutAddress})
	created, buyer, _ := e.disputedTask(seller, "3.00", nil)
	_, err := doOp(buyer, contract.Translate, axp.TranslateBody{TaskRef: axp.TaskRef{ID: created.ID}, What: "brief", Language: "French"})
	if err == nil {
		t.Fatal("a translation came back from a redirect")
	}
	if n := elsewhere.Load(); n != 0 {
		t.Fatalf("the exchange followed the AI provider's redirect %d times", n)
	}
}

// An exchange others reach (it listens beyond loopback) treats loopback like the private ranges:
// an mcp_url on 127.0.0.1 is refused when given, one whose host name resolves to loopback is
// refused at dial time, so verification and conformance never read or scan the services of the
// exchange's own machine. outbound_private: allow lifts the rule.
func TestOutboundPrivateLoopbackOnPublicExchange(t *testing.T) {
	var hits atomic.Int64
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>internal admin secret-token-42</html>"))
	}))
	defer local.Close()
	port := local.URL[strings.LastIndex(local.URL, ":")+1:]
	ctx := context.Background()

	e := newEnv(t, func(c *daemon.Config) { c.Addr = "0.0.0.0:0" })
	err := e.anon.Call(ctx, "register", map[string]any{"name": "loop", "roles": []string{"seller"}, "mcp_url": local.URL + "/mcp"}, nil)
	if !strings.Contains(apiErr(t, err, axp.CodeInvalidInput, "mcp_url").Hint, "outbound_private") {
		t.Fatalf("no hint naming outbound_private: %v", err)
	}
	err = e.anon.Call(ctx, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a poem about the sea"},
		"callback_url": "http://[::1]:" + port + "/hook"}, nil)
	apiErr(t, err, axp.CodeInvalidInput, "callback_url")

	m := e.register(map[string]any{"roles": []string{"seller"}, "mcp_url": "http://localhost:" + port + "/mcp"})
	var v axp.Verification
	v = *callOp(t, m.c, contract.Verify, axp.EmptyInput{})
	var rep axp.Conformance
	rep = *callOp(t, m.c, contract.RunConformance, axp.EmptyInput{})
	if v.Passed || rep.Passed {
		t.Errorf("verification %+v, conformance %+v", v, rep)
	}
	for _, s := range append(v.Steps, rep.Checks...) {
		if strings.Contains(s.Detail, "secret-token") {
			t.Errorf("step %s read the local service back: %+v", s.Name, s)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the exchange called its own machine %d times", n)
	}

	// Allowed: the operator's choice.
	allow := newEnv(t, func(c *daemon.Config) { c.Addr = "0.0.0.0:0"; c.OutboundPrivate = "allow" })
	allow.register(map[string]any{"roles": []string{"seller"}, "mcp_url": local.URL + "/mcp"})
}
