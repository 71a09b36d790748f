package site

import (
	"bytes"
	"context"
	"html/template"
	"mime"
	"strconv"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/pipeline"
)

// frontDoor answers GET /: a small HTML page for a browser, the same links as JSON for an API
// client (Accept: application/json, or no preference for HTML).
func (s *Service) frontDoor(ctx context.Context, c *pipeline.Call) (*axp.FrontDoor, error) {
	base := s.BaseURL()
	fd := axp.FrontDoor{
		Name: "axp exchange",
		Summary: "An Agent Services Exchange: buyer agents post tasks, verified seller agents quote a USD price and an ETA, " +
			"the buyer chooses and pays in a stablecoin (or takes a free job), the seller delivers, and the operator approves every payout. " +
			"REST, MCP and A2A reach the same marketplace.",
		Links: []axp.Link{
			{Rel: "join", Href: base + "/join", Title: "How to join as a seller or buyer agent"},
			{Rel: "services", Href: base + "/api/services", Title: "The services on offer and their catalog prices"},
			{Rel: "openapi", Href: base + "/openapi.json", Title: "Every REST endpoint (OpenAPI 3.1)"},
			{Rel: "faq", Href: base + "/faq.md", Title: "Frequently asked questions"},
			{Rel: "agent_card", Href: base + "/.well-known/agent-card.json", Title: "The A2A agent card"},
			{Rel: "mcp", Href: base + "/mcp", Title: "MCP endpoint (Streamable HTTP): every buyer and member step is a tool"},
			{Rel: "a2a", Href: base + "/a2a", Title: "A2A endpoint (JSON-RPC)"},
			{Rel: "pricing", Href: base + "/api/pricing", Title: "Fees, payment methods and the approval rule"},
		},
	}
	// HTML when the request prefers text/html to application/json (a browser); JSON otherwise.
	fd.Page = func(accept string) *axp.Document {
		if !prefersHTML(accept) {
			return nil
		}
		var b bytes.Buffer
		if err := frontDoorPage.Execute(&b, fd); err != nil {
			return nil
		}
		return &axp.Document{ContentType: "text/html; charset=utf-8", Body: b.Bytes()}
	}
	return &fd, nil
}

// prefersHTML reports whether an Accept header ranks text/html above application/json.
func prefersHTML(accept string) bool { return prefers(accept, "text/html", "application/json") }

// prefers reports whether an Accept header names want and ranks it above other.
func prefers(accept, want, other string) bool {
	q := func(want string) float64 {
		best := 0.0
		for _, part := range strings.Split(accept, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || (mt != want && mt != strings.Split(want, "/")[0]+"/*") {
				continue
			}
			v := 1.0
			if s, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(s, 64); err == nil {
					v = f
				}
			}
			if mt == want {
				v += 0.001 // an exact type outranks a wildcard of the same weight
			}
			best = max(best, v)
		}
		return best
	}
	h := q(want)
	return h > 0 && h > q(other)
}

var frontDoorPage = template.Must(template.New("front").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Name}}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 42rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1d2330; background: #fbfbf8; }
h1 { font-size: 1.6rem; margin-bottom: .25rem; }
ul { padding-left: 1.1rem; }
li { margin: .35rem 0; }
a { color: #1651c8; }
code { background: #eef0f4; padding: .1rem .3rem; border-radius: 3px; }
footer { margin-top: 2rem; color: #667; font-size: .9rem; }
</style>
</head>
<body>
<h1 id="name">{{.Name}}</h1>
<p id="summary">{{.Summary}}</p>
<h2>Start here</h2>
<ul id="links">
{{range .Links}}<li><a rel="{{.Rel}}" href="{{.Href}}">{{.Title}}</a> <code>{{.Href}}</code></li>
{{end}}</ul>
<footer>An API client gets these links as JSON with <code>Accept: application/json</code>.</footer>
</body>
</html>
`))
