package a2a

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/axp-exchange/axp/contract"
)

// Card is the agent card of the exchange at base: JSON-RPC at {base}/a2a, streaming and push
// notifications off, and one skill per operation group (catalog tag) that anyone may use.
func Card(base string) *a2a.AgentCard {
	return &a2a.AgentCard{
		Name: "Agent Services Exchange",
		Description: "A marketplace where buyer agents post tasks and verified seller agents quote a USD price and ETA. " +
			"Send a text message to get a suggested task with its catalog quote; send a data part {type, params} or " +
			"{description} to post the task and get it back with its buyer_token, offers and recommended offer. " +
			"The same marketplace is reachable over REST (" + base + "/openapi.json) and MCP (" + base + "/mcp).",
		URL:                base + "/a2a",
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		ProtocolVersion:    ProtocolVersion,
		Version:            CardVersion,
		DocumentationURL:   base + "/join",
		Provider:           &a2a.AgentProvider{Org: "Agent Services Exchange", URL: base},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"application/json", "text/plain"},
		SecuritySchemes: a2a.NamedSecuritySchemes{
			"memberSecret": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", Description: memberSecretNote},
			"buyerToken":   a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", Description: buyerTokenNote},
		},
		Skills: Skills(),
	}
}

// The security schemes of the card; both are optional (anonymous buyers need none), so the card
// requires none.
const (
	memberSecretNote = "optional: a member's member_secret (ss_<member_id>_<64 hex>); a buyer member sees its tasks (ListTasks) and posts under its name"
	buyerTokenNote   = "optional: a task's buyer_token (bt_...), answered once when the task is posted; it reads and cancels that task (GetTask, CancelTask)"
)

// Interfaces are the card's supportedInterfaces: A2A 1.0 over JSON-RPC at {base}/a2a and over
// HTTP+JSON under {base}/a2a/v1, and A2A 0.3 over JSON-RPC at {base}/a2a (a request's version is
// chosen by its A2A-Version header and its method names).
func Interfaces(base string) []map[string]any {
	return []map[string]any{
		{"url": base + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": ProtocolVersionV1},
		{"url": base + RESTPrefix, "protocolBinding": "HTTP+JSON", "protocolVersion": ProtocolVersionV1},
		{"url": base + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
	}
}

var groupNames = map[string]string{
	"public": "Discover the exchange",
	"buyer":  "Post and follow tasks",
	"member": "Become a member",
	"seller": "Sell as a seller agent",
	"paid":   "Pay-per-call tools",
}

var groupExamples = map[string][]string{
	"public": {"Write a 500-word product description for a coffee grinder", "What does an image cost here?"},
	"buyer":  {`{"type": "text-file", "params": {"prompt": "A haiku about autumn"}}`, `{"description": "Translate my README into German"}`},
}

// Skills are the skills of the card: one per catalog tag with at least one operation that anyone
// may call now, listing those operations. The operations of a skill that A2A does not take
// (message/send posts tasks and suggests them) are reachable over REST and MCP.
func Skills() []a2a.AgentSkill {
	var out []a2a.AgentSkill
	seen := map[string]int{}
	for i := range contract.Ops {
		op := contract.Ops[i]
		if op.Access != contract.Public || op.Later != "" || op.Tag == "admin" {
			continue
		}
		at, ok := seen[op.Tag]
		if !ok {
			name := groupNames[op.Tag]
			if name == "" {
				name = op.Tag
			}
			out = append(out, a2a.AgentSkill{ID: op.Tag, Name: name, Tags: []string{op.Tag},
				InputModes: []string{"text/plain", "application/json"}, OutputModes: []string{"application/json", "text/plain"},
				Examples: groupExamples[op.Tag]})
			at = len(out) - 1
			seen[op.Tag] = at
		}
		sk := &out[at]
		sk.Tags = append(sk.Tags, op.Name)
		sk.Description += op.Name + ": " + strings.TrimSuffix(op.Summary, ".") + ". "
	}
	for i := range out {
		out[i].Description = strings.TrimSpace(out[i].Description)
		switch out[i].ID {
		case "public":
			out[i].Description = "Over A2A: send text to get a suggested task and its catalog quote (search). " + out[i].Description
		case "buyer":
			out[i].Description = "Over A2A: send a data part {type, params} or {description} to post a task (create_task); GetTask (0.3: tasks/get) reads it (get_task), CancelTask withdraws it. " + out[i].Description
		default:
			out[i].Description = "Over REST and MCP: " + out[i].Description
		}
	}
	return out
}

// CardHandler serves the agent card for the exchange's current base URL: the 1.0 card to a request
// that names A2A-Version 1.0 (as 1.0 clients do), else the card both versions read (the 0.3 card
// with the 1.0 supportedInterfaces). Capabilities are written out in full (streaming,
// pushNotifications and stateTransitionHistory false), which a2a-go's encoder would leave out.
func (s *Server) CardHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodOptions:
			w.Header().Set("Access-Control-Allow-Methods", "GET, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type, "+HeaderVersion)
			w.Header().Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			w.Header().Set("Allow", "GET, OPTIONS")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, err := CardJSON(s.b.BaseURL())
		if v, _ := version(r); v == ProtocolVersionV1 {
			body, err = CardV1JSON(s.b.BaseURL())
		}
		if err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Add("Vary", HeaderVersion)
		w.Write(body)
	})
}

// CardJSON is the agent card both versions read: the 0.3 card (protocolVersion, url,
// preferredTransport, security schemes with their type) with the 1.0 supportedInterfaces.
func CardJSON(base string) ([]byte, error) {
	b, err := json.Marshal(Card(base))
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["capabilities"] = map[string]any{"streaming": false, "pushNotifications": false, "stateTransitionHistory": false}
	m["supportedInterfaces"] = Interfaces(base)
	return json.MarshalIndent(m, "", "  ")
}

// CardV1JSON is the A2A 1.0 agent card: supportedInterfaces, capabilities (no streaming, no push
// notifications, no extended card) and the security schemes in 1.0's form.
func CardV1JSON(base string) ([]byte, error) {
	c := Card(base)
	var skills []map[string]any
	for _, sk := range c.Skills {
		skills = append(skills, map[string]any{"id": sk.ID, "name": sk.Name, "description": sk.Description, "tags": sk.Tags,
			"examples": sk.Examples, "inputModes": sk.InputModes, "outputModes": sk.OutputModes})
	}
	m := map[string]any{
		"name":                c.Name,
		"description":         c.Description,
		"supportedInterfaces": Interfaces(base),
		"provider":            map[string]any{"organization": c.Provider.Org, "url": c.Provider.URL},
		"version":             c.Version,
		"documentationUrl":    c.DocumentationURL,
		"capabilities":        map[string]any{"streaming": false, "pushNotifications": false, "extendedAgentCard": false},
		"securitySchemes": map[string]any{
			"memberSecret": map[string]any{"httpAuthSecurityScheme": map[string]any{"scheme": "Bearer", "description": memberSecretNote}},
			"buyerToken":   map[string]any{"httpAuthSecurityScheme": map[string]any{"scheme": "Bearer", "description": buyerTokenNote}},
		},
		"defaultInputModes":  c.DefaultInputModes,
		"defaultOutputModes": c.DefaultOutputModes,
		"skills":             skills,
	}
	return json.MarshalIndent(m, "", "  ")
}
