package daemon

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/a2a"
	"github.com/axp-exchange/axp/daemon/mcp"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/rest"
	"github.com/axp-exchange/axp/daemon/site"
	"github.com/axp-exchange/axp/protocol"
)

// mcpInstructions are given to MCP clients at initialize.
const mcpInstructions = "Agent Services Exchange: buyer agents post tasks, verified seller agents quote, the buyer chooses, " +
	"pays (or the job is free), the seller delivers and the buyer accepts or disputes. Start with list_services or " +
	"get_quote, then create_task; keep the buyer_token it returns and pass it as buyer_token to the buyer steps " +
	"(get_task, choose_offer, pay_crypto, get_deliverable, accept_task, dispute_task, cancel_task, ...). Every buyer and member step is a tool. " +
	"Members send their member_secret as Bearer to see the member tools (verify_membership, list_quote_requests, submit_offer, deliver, request_payment, ...). " +
	"Send an Idempotency-Key header to make a retried call safe. " +
	"Errors come back as tool results with isError, the error code, the offending field and a hint."

// doors serves the MCP door at /mcp, the A2A door at /a2a (JSON-RPC, 1.0 and 0.3) and /a2a/v1/
// (A2A 1.0 HTTP+JSON) with its agent card, the Prometheus series at /metrics (with metrics_token),
// and REST everywhere else. The doors are projections of the one catalog and call the same handlers
// through the one pipeline.
func (d *Daemon) doors() http.Handler {
	m := mcp.New(d, mcp.Options{Name: "axp", Version: rest.APIVersion, Instructions: mcpInstructions, MaxBodyBytes: d.Cfg.MaxBodyBytes})
	d.mcp = m
	a := a2a.New(d, a2a.Options{MaxBodyBytes: d.Cfg.MaxBodyBytes, Now: d.Cfg.Now})
	g := &hostGuard{d: d}
	for _, h := range d.Cfg.AllowedHosts {
		h = strings.ToLower(strings.TrimSpace(h))
		g.any = g.any || h == "*"
		g.allowed = append(g.allowed, h)
	}
	mux := http.NewServeMux()
	mcpDoor := d.door("/mcp", g.guard(m, true))
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A browser following the front door's link gets a page saying how to connect.
		if page := site.MCPPage(d.BaseURL(), r); page != nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page)
			return
		}
		mcpDoor.ServeHTTP(w, r)
	}))
	mux.Handle("/a2a", d.door("/a2a", g.guard(a, false)))
	mux.Handle(a2a.RESTPrefix+"/", d.door(a2a.RESTPrefix, g.guard(a.RESTHandler(), false)))
	card := a.CardHandler()
	mux.Handle("/.well-known/agent-card.json", card)
	mux.Handle("/.well-known/agent.json", card)
	if d.Cfg.MetricsToken != "" {
		// Without a token /metrics is not served here (404, as any unknown path); metrics_listen
		// serves it on an address of its own.
		mux.Handle("/metrics", d.metricsDoor())
	}
	mux.Handle("/", d.rest)
	return mux
}

// Run runs one call of the MCP or A2A door through the pipeline every door shares.
func (d *Daemon) Run(ctx context.Context, req pipeline.Request) (pipeline.Answer, error) {
	return d.Pipe.Run(ctx, req)
}

// door gives a request to a JSON-RPC door its trace id (X-Trace-Id, as on REST) and records HTTP
// refusals that never reach an operation (the operations record themselves).
func (d *Daemon) door(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		trace := rest.TraceOf(r)
		w.Header().Set(protocol.HeaderTraceID, trace)
		r = r.WithContext(axp.WithTrace(r.Context(), trace))
		sw := &statusWriter{ResponseWriter: w}
		if err := d.RefuseEarly(r); err != nil {
			// Answered before the body is read, and the connection closed: net/http would
			// otherwise read what is left of the body before it sends the answer.
			sw.Header().Set("Connection", "close")
			rest.WriteError(sw, trace, err, 0)
		} else {
			h.ServeHTTP(sw, r)
		}
		if sw.status >= 400 {
			d.Observe(r, r.Method+" "+route, sw.status, time.Since(start), axp.Caller{IP: d.ClientIP(r)}, nil)
		}
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// hostGuard is the DNS-rebinding protection of the JSON-RPC doors: the Host header (and, on /mcp,
// the Origin header a browser sends) must name a loopback host, the host of the base URL, or one of
// the allowed_hosts ("*" allows any). A web page whose domain an attacker rebinds to this machine
// then cannot drive the doors from a victim's browser.
type hostGuard struct {
	d       *Daemon
	any     bool
	allowed []string // lower-case "host" or "host:port"

	mu       sync.Mutex
	base     string
	baseHost string
}

func (g *hostGuard) guard(h http.Handler, checkOrigin bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.ok(r.Host) {
			g.refuse(w, r, "the Host header "+quoteHost(r.Host)+" is not an allowed host of this exchange")
			return
		}
		if o := r.Header.Get("Origin"); checkOrigin && o != "" && o != "null" {
			u, err := url.Parse(o)
			if err != nil || u.Host == "" || !g.ok(u.Host) {
				g.refuse(w, r, "the Origin "+quoteHost(o)+" is not an allowed host of this exchange")
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

func quoteHost(s string) string {
	if len(s) > 100 {
		s = s[:100]
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func (g *hostGuard) refuse(w http.ResponseWriter, r *http.Request, msg string) {
	rest.WriteError(w, axp.TraceID(r.Context()), axp.Forbidden(msg,
		"call the exchange by its base URL or a loopback address; an operator adds other names to allowed_hosts"), http.StatusForbidden)
}

// ok reports whether hostport (a Host header or an origin's host) is allowed.
func (g *hostGuard) ok(hostport string) bool {
	if g.any {
		return true
	}
	hp := strings.ToLower(strings.TrimSpace(hostport))
	if hp == "" {
		return false
	}
	host, _, err := net.SplitHostPort(hp)
	if err != nil {
		host = strings.Trim(hp, "[]")
	}
	if host == "localhost" {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	if b := g.baseHostport(); b != "" && (hp == b || host == b) {
		return true
	}
	for _, a := range g.allowed {
		if hp == a || host == a {
			return true
		}
	}
	return false
}

// baseHostport is the host (with its port when the base URL has one) of the current base URL.
func (g *hostGuard) baseHostport() string {
	base := g.d.BaseURL()
	g.mu.Lock()
	defer g.mu.Unlock()
	if base != g.base {
		g.base, g.baseHost = base, ""
		if u, err := url.Parse(base); err == nil {
			g.baseHost = strings.ToLower(u.Host)
		}
	}
	return g.baseHost
}
