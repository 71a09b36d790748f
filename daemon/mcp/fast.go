package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
)

// The fast path answers the two requests agents make all day, a stateless tools/call of a tool the
// caller may see and a plain tools/list, without mcp-go's per-request machinery (an ephemeral
// session with its channels and goroutine, the body parsed several times, the result turned into
// a map and compacted twice). It parses the JSON-RPC once and runs the same invoke as mcp-go's
// tool handler, and writes the very bytes mcp-go would write. Anything else, or anything unusual
// about these two, is left to mcp-go untouched: initialize, ping, notifications, responses,
// batches, other methods, unknown or hidden tools, bad params, _meta other than the 2026-07-28
// request's, sessions, and unknown or unsupported protocol versions. A stateless 2026-07-28
// tools/call (the version in the header and in _meta, with the client's capabilities, and the
// Mcp-Method and Mcp-Name headers) is answered too, as mcp-go answers it: the result with
// resultType and the server's identity in _meta. fast_test.go checks the bytes against mcp-go's.

// toolList is a cached tools/list result (the JSON of the result member).
type toolList struct {
	once   sync.Once
	result []byte
}

// rpcRequest is one JSON-RPC request as the fast path reads it: the body decoded once, with exact
// numbers (as the REST door and protocol.ParseJSON read them).
type rpcRequest struct {
	id     any    // the id as mcp-go reads it: a string or a float64
	method string // the method
	params any    // nil when absent or null
	modern bool   // a 2026-07-28 request whose headers and _meta modernCall checked
}

// serveFast answers the POST r, whose body ServeHTTP read, when it is a request of the fast path,
// and reports whether it did; when it reports false it has written nothing.
func (s *Server) serveFast(w http.ResponseWriter, r *http.Request, body []byte, c axp.Caller) bool {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return false
		}
	}
	// Unknown versions answer 400; a session id means nothing to a stateless server, but a
	// client that sends one goes the general way, as does a 2026-07-28 request with a header
	// the fast path does not check (Last-Event-ID, Mcp-Param-*).
	v := r.Header.Get(mcp.HeaderProtocolVersion)
	if v != "" && !s.http.SupportsProtocolVersion(v) {
		return false
	}
	modern := mcp.IsModernProtocol(v)
	if r.Header.Get(server.HeaderKeySessionID) != "" || (modern && otherHeaders(r.Header)) {
		return false
	}
	req, ok := readRequest(body)
	if !ok {
		return false
	}
	if modern {
		if req.method != "tools/call" || !modernCall(r.Header, v, req) {
			return false
		}
		req.modern = true
	}
	// The id is written back as mcp-go writes it (decoded into an any, then marshalled).
	id, err := json.Marshal(req.id)
	if err != nil {
		return false
	}
	switch req.method {
	case "tools/call":
		return s.fastCall(w, r, c, req, id)
	case "tools/list":
		return s.fastList(w, c, req, id)
	}
	return false
}

// readRequest reads a single JSON-RPC request object holding exactly jsonrpc "2.0", a string or
// number id, a string method and optionally params, nothing else; every number in it must fit a
// float64, as mcp-go needs to decode the request.
func readRequest(body []byte) (rpcRequest, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return rpcRequest{}, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return rpcRequest{}, false
	}
	top, _ := v.(map[string]any)
	if top == nil || top["jsonrpc"] != "2.0" || !floatsOK(v) {
		return rpcRequest{}, false
	}
	var req rpcRequest
	for k, x := range top {
		switch k {
		case "jsonrpc":
		case "id":
			switch id := x.(type) {
			case string:
				req.id = id
			case json.Number:
				f, err := strconv.ParseFloat(string(id), 64)
				if err != nil {
					return rpcRequest{}, false
				}
				req.id = f
			default:
				return rpcRequest{}, false
			}
		case "method":
			m, ok := x.(string)
			if !ok {
				return rpcRequest{}, false
			}
			req.method = m
		case "params":
			req.params = x
		default:
			return rpcRequest{}, false
		}
	}
	if req.id == nil {
		return rpcRequest{}, false
	}
	return req, true
}

// fastCall answers tools/call of a tool the caller may see, with params holding only name and
// arguments.
func (s *Server) fastCall(w http.ResponseWriter, r *http.Request, c axp.Caller, req rpcRequest, id []byte) bool {
	params, _ := req.params.(map[string]any)
	if params == nil {
		return false
	}
	var name string
	var rawArgs any
	for k, x := range params {
		switch k {
		case "name":
			n, ok := x.(string)
			if !ok {
				return false
			}
			name = n
		case "arguments":
			rawArgs = x
		case "_meta":
			if !req.modern {
				return false
			}
		default:
			return false
		}
	}
	t, ok := s.ops[name]
	if !ok || (s.memberOnly[name] && c.Kind != axp.MemberCall) {
		return false // mcp-go answers the unknown tool
	}
	// As parseArguments reads them: absent or null is no arguments.
	var args map[string]any
	var argErr error
	switch x := rawArgs.(type) {
	case nil:
		args = map[string]any{}
	case map[string]any:
		args = x
	default:
		argErr = notObject()
	}
	a, perr := s.safeInvoke(r.Context(), t.route, t.op, c, args, argErr, r)
	if perr != nil {
		// As mcp-go's recovery middleware answers a panicking handler.
		writeJSON(w, mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(req.id),
			Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, fmt.Sprintf("panic recovered in %s tool handler: %v", name, perr), nil)})
		return true
	}
	var meta []byte
	if req.modern {
		meta = s.resultMeta()
	}
	writeCall(w, id, a, meta)
	return true
}

func (s *Server) safeInvoke(ctx context.Context, route string, op *contract.Op, c axp.Caller, args map[string]any, argErr error, r *http.Request) (a answer, panicked any) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
		}
	}()
	return s.invoke(ctx, route, op, c, args, argErr, r), nil
}

// writeCall writes a tools/call answer with the bytes mcp-go writes: its CallToolResult marshals
// through a map (keys in sorted order: _meta, content, isError, resultType, structuredContent) and
// its encoder escapes HTML and compacts structuredContent. meta, for a 2026-07-28 request, is the
// result's _meta; such a result also says resultType complete.
func writeCall(w http.ResponseWriter, id []byte, a answer, meta []byte) {
	if a.structured && !a.compact {
		out := callResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id}
		out.Result.Meta = meta
		out.Result.Content[0] = textBlock{Type: "text", Text: a.text}
		out.Result.StructuredContent = json.RawMessage(a.text)
		if meta != nil {
			out.Result.ResultType = string(mcp.ResultTypeComplete)
		}
		writeJSON(w, &out)
		return
	}
	buf := getBuffer()
	defer putBuffer(buf)
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.Write(id)
	buf.WriteString(`,"result":{`)
	if meta != nil {
		buf.WriteString(`"_meta":`)
		buf.Write(meta)
		buf.WriteByte(',')
	}
	buf.WriteString(`"content":[{"type":"text","text":`)
	// A JSON string, HTML escaped, as mcp-go's encoder writes it; Encode ends it with a newline.
	if err := json.NewEncoder(buf).Encode(a.text); err != nil {
		buf.WriteString(`""`)
	} else {
		buf.Truncate(buf.Len() - 1)
	}
	buf.WriteString(`}]`)
	if a.isError {
		buf.WriteString(`,"isError":true`)
	}
	if meta != nil {
		buf.WriteString(`,"resultType":"complete"`)
	}
	if a.structured {
		// Compact already: escaping HTML is all that compacting with escapes would do.
		buf.WriteString(`,"structuredContent":`)
		json.HTMLEscape(buf, []byte(a.text))
	}
	buf.WriteString("}}\n")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer {
	b := buffers.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

// putBuffer keeps a buffer for reuse unless it grew large.
func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= 256<<10 {
		buffers.Put(b)
	}
}

// callResponse is a tools/call answer as mcp-go writes it, for answers that are not compact.
type callResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  struct {
		Meta              json.RawMessage `json:"_meta,omitempty"`
		Content           [1]textBlock    `json:"content"`
		IsError           bool            `json:"isError,omitempty"`
		ResultType        string          `json:"resultType,omitempty"`
		StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	} `json:"result"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// writeJSON writes v as mcp-go writes a JSON answer.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	json.NewEncoder(w).Encode(v)
}

// floatsOK reports whether every number in v (parsed with exact numbers) fits a float64, as
// mcp-go needs to decode the arguments.
func floatsOK(v any) bool {
	switch x := v.(type) {
	case json.Number:
		_, err := strconv.ParseFloat(string(x), 64)
		return err == nil
	case map[string]any:
		for _, e := range x {
			if !floatsOK(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !floatsOK(e) {
				return false
			}
		}
	}
	return true
}

// fastList answers tools/list without params (or with empty ones) from a cached result per
// audience.
func (s *Server) fastList(w http.ResponseWriter, c axp.Caller, req rpcRequest, id []byte) bool {
	if req.params != nil {
		if p, ok := req.params.(map[string]any); !ok || len(p) > 0 {
			return false
		}
	}
	i := 0
	if c.Kind == axp.MemberCall {
		i = 1
	}
	l := &s.lists[i]
	l.once.Do(func() { l.result = s.listResult(c) })
	if l.result == nil {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	buf := make([]byte, 0, len(l.result)+len(id)+40)
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	buf = append(buf, `,"result":`...)
	buf = append(buf, l.result...)
	buf = append(buf, "}\n"...)
	w.Write(buf)
	return true
}

// listResult asks mcp-go for the tools/list result the caller's audience sees (the tools are fixed
// once New returns), so the cache holds exactly what mcp-go answers.
func (s *Server) listResult(c axp.Caller) []byte {
	ctx := context.WithValue(context.Background(), callerKey, axp.Caller{Kind: c.Kind})
	resp := s.ms.HandleMessage(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	b, err := json.Marshal(resp)
	if err != nil {
		return nil
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &out) != nil || len(out.Result) == 0 || out.Error != nil {
		return nil
	}
	return out.Result
}

// otherHeaders reports whether a 2026-07-28 request has a header whose check the fast path leaves
// to mcp-go: Last-Event-ID (refused) or Mcp-Param-* (compared with the arguments).
func otherHeaders(h http.Header) bool {
	if h.Get(mcp.HeaderLastEventID) != "" {
		return true
	}
	for k := range h {
		if strings.HasPrefix(k, "Mcp-Param-") {
			return true
		}
	}
	return false
}

// modernCall reports whether a 2026-07-28 tools/call is one the fast path answers: params with a
// _meta holding the header's version, the client's capabilities and at most its clientInfo, and
// the Mcp-Method and Mcp-Name headers as mcp-go checks them.
func modernCall(h http.Header, version string, req rpcRequest) bool {
	params, _ := req.params.(map[string]any)
	m, _ := params["_meta"].(map[string]any)
	if m == nil {
		return false
	}
	for k, x := range m {
		switch k {
		case mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientCapabilities:
		case mcp.MetaKeyClientInfo:
			if _, ok := x.(map[string]any); !ok {
				return false
			}
		default:
			return false
		}
	}
	// mcp-go reads _meta into an mcp.Meta and the name from params; both readers are given just that.
	meta := &mcp.Meta{AdditionalFields: m}
	if meta.ProtocolVersion() != version || meta.ClientCapabilities() == nil {
		return false
	}
	name, ok := params["name"].(string)
	if !ok {
		return false
	}
	raw, err := json.Marshal(struct {
		Name string `json:"name"`
	}{name})
	if err != nil {
		return false
	}
	return mcp.ValidateStandardHeaders(h.Get, version, mcp.MethodToolsCall, raw) == nil
}

// resultMeta is the _meta of a 2026-07-28 result: the server's identity.
func (s *Server) resultMeta() []byte {
	s.metaOnce.Do(func() {
		s.meta, _ = json.Marshal(map[string]any{mcp.MetaKeyServerInfo: mcp.Implementation{Name: s.o.Name, Version: s.o.Version}})
	})
	return s.meta
}
