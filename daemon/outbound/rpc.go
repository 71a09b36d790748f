package outbound

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The exchange's MCP client, written for its one use: calling a member's tools over Streamable
// HTTP (spec section 6), a thousand at once in a quote round, where a general client's
// per-request transport, watcher goroutines and generic decoding cost more than the call itself.
// Each JSON-RPC request is one signed POST accepting application/json and text/event-stream; the
// answer is read as either (to its end, so that the connection is reused). In an event stream,
// notifications are skipped, requests from the server are answered "method not found" (the
// exchange serves none), and a stream the server ends early after an event id is resumed with a
// GET carrying Last-Event-ID. A server that keeps sessions gets the initialize handshake once;
// its session (Mcp-Session-Id, and the protocol version agreed, sent as MCP-Protocol-Version)
// is kept for its next calls and started anew when the server answers 404.

// MCP's HTTP headers.
const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "Mcp-Protocol-Version"
)

// session is an MCP session a member's server gave the exchange: its id (empty when the server
// wants the handshake but keeps no session) and the protocol version agreed.
type session struct {
	id      string
	version string
}

// sessionKey names a member's server as the exchange calls it.
type sessionKey struct {
	member, url, token string
}

// maxSessions bounds the sessions a Caller keeps: one for each member whose server insists on
// one, as many as a quote round calls at once.
const maxSessions = MaxParallel

func (c *Caller) session(key sessionKey) (session, bool) {
	c.sessMu.Lock()
	defer c.sessMu.Unlock()
	s, ok := c.sessions[key]
	return s, ok
}

// keep keeps s for the member's next calls. When maxSessions are kept, one of them (any) goes: its
// member's next call starts a new one.
func (c *Caller) keep(key sessionKey, s session) {
	c.sessMu.Lock()
	defer c.sessMu.Unlock()
	if c.sessions == nil {
		c.sessions = map[sessionKey]session{}
	}
	if _, ok := c.sessions[key]; !ok && len(c.sessions) >= maxSessions {
		for k := range c.sessions {
			delete(c.sessions, k)
			break
		}
	}
	c.sessions[key] = s
}

// forget drops the session kept under key if it is still s (a concurrent call may have started
// another already).
func (c *Caller) forget(key sessionKey, s session) {
	c.sessMu.Lock()
	defer c.sessMu.Unlock()
	if c.sessions[key] == s {
		delete(c.sessions, key)
	}
}

// rpcMessage is a JSON-RPC message as read from an answer: a response, or a request or notification
// from the server.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// hasID reports whether the message carries an id a response may have: a string or a number.
func (m *rpcMessage) hasID() bool {
	id := bytes.TrimSpace(m.ID)
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9'))
}

// rpcBody is the JSON text of a JSON-RPC request.
func rpcBody(id int64, method string, params any) ([]byte, error) {
	size := 128
	if p, ok := params.(toolParams); ok {
		size += len(p.name) + len(p.args)
	}
	b := make([]byte, 0, size)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	b = strconv.AppendQuote(b, method)
	b = append(b, `,"params":`...)
	switch p := params.(type) {
	case toolParams:
		b = append(b, `{"name":`...)
		b = strconv.AppendQuote(b, p.name)
		b = append(b, `,"arguments":`...)
		b = append(b, p.args...)
		b = append(b, '}')
	default:
		raw, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		b = append(b, raw...)
	}
	return append(b, '}'), nil
}

// toolParams are the params of tools/call; args is compact JSON.
type toolParams struct {
	name string
	args []byte
}

// post sends one JSON-RPC request, in session s or statelessly (nil), and returns its result and
// the session id the answer gives (for initialize).
func (k *call) post(s *session, id int64, method string, params any) (json.RawMessage, string, *CallError) {
	body, err := rpcBody(id, method, params)
	if err != nil {
		return nil, "", k.fail(KindBadAnswer, 0, "the request cannot be encoded: "+err.Error(), err)
	}
	resp, cerr := k.postBody(s, body)
	if cerr != nil {
		return nil, "", cerr
	}
	defer resp.Body.Close()
	raw, cerr := k.answer(resp, method)
	return raw, resp.Header.Get(headerSession), cerr
}

// notify sends a JSON-RPC notification in session s.
func (k *call) notify(s *session, method string) *CallError {
	resp, cerr := k.postBody(s, []byte(`{"jsonrpc":"2.0","method":`+strconv.Quote(method)+`}`))
	if cerr != nil {
		return cerr
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		return k.httpError(resp.StatusCode)
	}
	return nil
}

// postBody posts one JSON-RPC message: the answer to it is the one that says how the call went.
func (k *call) postBody(s *session, body []byte) (*http.Response, *CallError) {
	mark := &message{body: body}
	k.session = s
	req, err := k.newRequest(context.WithValue(k.ctx, messageKey{}, mark), http.MethodPost, body, acceptBoth)
	if err != nil {
		return nil, k.classify(err)
	}
	mark.req = req
	if replaySafe[k.op] {
		// Kept-alive connections can be closed by the member just as a request goes out on one;
		// net/http sends a request again on a fresh connection only when it is marked safe to
		// repeat, which these reads are.
		req.Header["Idempotency-Key"] = []string{k.replayKey()}
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, k.classify(err)
	}
	return resp, nil
}

// replaySafe are the calls a member may receive twice without harm: they ask and change nothing.
var replaySafe = map[string]bool{"quote": true, "get_skills": true, "contact_test": true, "tools/list": true}

// replayKey is the Idempotency-Key of a replay-safe call's messages.
func (k *call) replayKey() string {
	var b [12]byte
	rand.Read(b[:])
	return "axp-" + hex.EncodeToString(b[:])
}

// newRequest is a request to the member's MCP endpoint in the call's session (if any): body (nil
// for a GET) sent as JSON, accepting accept. It is what http.NewRequestWithContext makes, from the
// URL checkURL parsed rather than parsing it again for every request.
func (k *call) newRequest(ctx context.Context, method string, body []byte, accept []string) (*http.Request, error) {
	if k.url == nil {
		if cerr := k.checkURL(); cerr != nil {
			return nil, cerr
		}
	}
	u := *k.url // the request's own copy
	req := &http.Request{Method: method, URL: &u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": jsonType, "Accept": accept}, Host: strings.TrimSuffix(u.Host, ":")}
	if body != nil {
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.Body, _ = req.GetBody()
	}
	req = req.WithContext(ctx)
	if s := k.session; s != nil {
		if s.id != "" {
			req.Header.Set(headerSession, s.id)
		}
		if s.version != "" {
			req.Header.Set(headerProtocol, s.version)
		}
	}
	return req, nil
}

// answer reads the answer to a JSON-RPC request and returns its result. Every failure says what
// the member should fix (see classify).
func (k *call) answer(resp *http.Response, method string) (json.RawMessage, *CallError) {
	switch resp.StatusCode {
	case http.StatusOK, http.StatusAccepted:
	case http.StatusUnauthorized, http.StatusNotFound:
		// Refused signature or no such endpoint (or, to a session server, an unknown session):
		// the status says it all.
		return nil, k.httpError(resp.StatusCode)
	default:
		// An error answer may still be a JSON-RPC error.
		raw, _ := io.ReadAll(resp.Body)
		var m rpcMessage
		if json.Unmarshal(raw, &m) == nil && m.Error != nil {
			return nil, k.rpcFailure(resp.StatusCode, method, m.Error)
		}
		return nil, k.httpError(resp.StatusCode)
	}
	var m *rpcMessage
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		n := resp.ContentLength
		if n > k.c.limit() {
			n = -1 // over the cap: read until the cap stops it, without making room first
		}
		raw, err := readBody(resp.Body, n)
		if err != nil {
			return nil, k.classify(err)
		}
		m = new(rpcMessage)
		if err := json.Unmarshal(raw, m); err != nil {
			// Not the decoder's words: they quote the answer, which may be anything the URL
			// serves.
			return nil, k.fail(KindBadAnswer, resp.StatusCode, "the answer (application/json) is not a JSON-RPC response", err)
		}
		if !m.hasID() {
			return nil, k.fail(KindBadAnswer, resp.StatusCode, "the answer (application/json) is not a JSON-RPC response: it carries no id", nil)
		}
	case "text/event-stream":
		var cerr *CallError
		if m, cerr = k.stream(resp.Body); cerr != nil {
			return nil, cerr
		}
	default:
		return nil, k.classify(fmt.Errorf("unexpected content type: %s", resp.Header.Get("Content-Type")))
	}
	return k.result(resp.StatusCode, method, m)
}

var (
	jsonType   = []string{"application/json"}
	acceptBoth = []string{"application/json, text/event-stream"}
	acceptSSE  = []string{"text/event-stream"}
)

// mediaType is the lower-case media type of a Content-Type, without parameters.
func mediaType(ctype string) string {
	mt, _, _ := strings.Cut(ctype, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// result checks a JSON-RPC response and returns its result.
func (k *call) result(status int, method string, m *rpcMessage) (json.RawMessage, *CallError) {
	if m.Error != nil {
		return nil, k.rpcFailure(status, method, m.Error)
	}
	if r := bytes.TrimSpace(m.Result); len(r) == 0 || string(r) == "null" {
		return nil, k.fail(KindBadAnswer, status, "the JSON-RPC answer carries neither a result nor an error", nil)
	}
	return m.Result, nil
}

func (k *call) rpcFailure(status int, method string, e *rpcError) *CallError {
	msg := fmt.Sprintf("JSON-RPC error %d: %s", e.Code, clip(printable(e.Message)))
	if e.Code == methodNotFound {
		msg += fmt.Sprintf(" (the server does not offer %s over MCP)", method)
	}
	return k.fail(KindRPC, status, msg, nil)
}

// methodNotFound is JSON-RPC's error code for a method the receiver does not serve.
const methodNotFound = -32601

// SSE resumption waits (SEP-1699): the server's retry field, at least minResumeDelay, or
// resumeDelay when it gave none.
const (
	resumeDelay    = time.Second
	minResumeDelay = 10 * time.Millisecond
)

// stream reads an event stream until it carries a response: notifications are skipped, requests
// from the server are answered "method not found" (the exchange serves none), and a stream the
// server ends before the response, once it has sent an event id, is resumed with a GET carrying
// Last-Event-ID.
func (k *call) stream(body io.Reader) (*rpcMessage, *CallError) {
	var cur sseCursor
	for {
		m, ended, err := k.readEvents(body, &cur)
		if m != nil {
			return m, nil
		}
		if !ended || cur.lastID == "" || k.ctx.Err() != nil {
			if err == nil {
				err = errors.New("unexpected nil response")
			}
			return nil, k.classify(err)
		}
		rc, err := k.resume(&cur)
		if err != nil {
			return nil, k.classify(fmt.Errorf("failed to resume the SSE stream for the response: %w", err))
		}
		defer rc.Close()
		body = rc
	}
}

// sseCursor is what resuming a stream needs: the id of the last event dispatched and the wait the
// server asked for.
type sseCursor struct {
	lastID   string
	retry    time.Duration
	hasRetry bool
}

// readEvents reads events until one is a response (returned), the server ends the stream (ended),
// or reading fails (err). An event's id counts once the event is dispatched.
func (k *call) readEvents(body io.Reader, cur *sseCursor) (m *rpcMessage, ended bool, err error) {
	br := bufio.NewReader(body)
	var data []byte
	var id string
	var hasID, hasData bool
	dispatch := func() *rpcMessage {
		if hasID {
			cur.lastID = id
		}
		hasID = false
		if !hasData {
			return nil
		}
		hasData = false
		m := k.message(data)
		data = data[:0]
		return m
	}
	for {
		line, rerr := br.ReadSlice('\n')
		if rerr == bufio.ErrBufferFull {
			// A long line: gather the rest of it.
			buf := append([]byte(nil), line...)
			for rerr == bufio.ErrBufferFull {
				line, rerr = br.ReadSlice('\n')
				buf = append(buf, line...)
			}
			line = buf
		}
		if rerr != nil {
			if rerr == io.EOF {
				// The event under way is handled, but its id is not recorded: it never ended.
				if hasData {
					hasID = false
					if m := dispatch(); m != nil {
						return m, false, nil
					}
				}
				return nil, true, nil
			}
			return nil, false, rerr
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if m := dispatch(); m != nil {
				return m, false, nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data, hasData = append(data, value...), true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				id, hasID = string(value), true
			}
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 31); err == nil && len(value) > 0 && strings.Trim(string(value), "0123456789") == "" {
				cur.retry, cur.hasRetry = time.Duration(ms)*time.Millisecond, true
			}
		}
	}
}

// message handles one event's data: a response is returned; a request from the server is answered
// at once; notifications and anything unreadable are skipped.
func (k *call) message(data []byte) *rpcMessage {
	var m rpcMessage
	if json.Unmarshal(data, &m) != nil || !m.hasID() {
		return nil
	}
	if m.Method != nil {
		k.refuseRequest(m.ID, *m.Method)
		return nil
	}
	return &m
}

// refuseRequest answers a request the server made inside a stream: the exchange serves none.
func (k *call) refuseRequest(id json.RawMessage, method string) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": methodNotFound, "message": "no handler configured for method: " + method}})
	if err != nil {
		return
	}
	req, err := k.newRequest(k.ctx, http.MethodPost, body, acceptBoth)
	if err != nil {
		return
	}
	if resp, err := k.client.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// resume waits as the server asked, then reopens the stream from the last event id.
func (k *call) resume(cur *sseCursor) (io.ReadCloser, error) {
	wait := resumeDelay
	if cur.hasRetry {
		wait = max(cur.retry, minResumeDelay)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-k.ctx.Done():
		return nil, k.ctx.Err()
	}
	req, err := k.newRequest(k.ctx, http.MethodGet, nil, acceptSSE)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Last-Event-ID", cur.lastID)
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("unexpected status %d", resp.StatusCode)
	}
	if mt := mediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		resp.Body.Close()
		return nil, fmt.Errorf("unexpected content type %q", resp.Header.Get("Content-Type"))
	}
	return resp.Body, nil
}
