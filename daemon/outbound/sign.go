package outbound

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/axp-exchange/axp/protocol"
)

// errTooLarge ends the reading of an answer over the size cap.
var errTooLarge = errors.New("answer too large")

// httpStats is what the HTTP layer saw during one call. mcp-go's transport reports most failures as
// plain strings, so a call is classified from these facts rather than from error text.
type httpStats struct {
	mu          sync.Mutex
	bytes       int64  // answer bytes read, over every HTTP request of the call
	status      int    // status of the answer to the last JSON-RPC request (0: none yet)
	contentType string // its Content-Type
	location    string // its Location, for redirects
	snippet     []byte // the first bytes of its body, as read
	oversized   bool   // some answer went over the size cap
}

func (s *httpStats) get() (status int, contentType, location string, snippet []byte, oversized bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status, s.contentType, s.location, append([]byte(nil), s.snippet...), s.oversized
}

func (s *httpStats) total() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

const snippetMax = 300

// signer is the http.RoundTripper of one call. It reads the request body, signs it per spec
// section 5 (X-AX-Member-Id, X-AX-Timestamp, X-AX-Signature, and the Bearer auth token only when
// the member set one), restores it, forwards the trace id, binds the request to the call's context
// (so that nothing mcp-go sends on its own, such as the session DELETE, outlives the call), and caps
// and counts the answer.
type signer struct {
	base   http.RoundTripper
	ctx    context.Context // the whole call's context, timeout included
	target Target
	now    func() time.Time
	trace  string
	limit  int64
	stats  *httpStats
	// trackAll tracks every answer (a callback POST), not only those to JSON-RPC requests.
	trackAll bool
}

func (s *signer) RoundTrip(req *http.Request) (*http.Response, error) {
	mark, _ := req.Context().Value(oursKey{}).(*sendMark)
	var body []byte
	switch {
	case mark != nil && mark.req == req:
		// A request the call made itself (see post): its body is at hand.
		body = mark.body
	case req.Body != nil:
		b, err := readBody(req.Body, req.ContentLength)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	ctx, release := req.Context(), func() {}
	if mark == nil || mark.call != s.ctx {
		// Not a message the call sent with its own context: bind it to the call's context.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(req.Context())
		stop := context.AfterFunc(s.ctx, cancel)
		release = func() { stop(); cancel() }
	}

	r := req
	if mark == nil || mark.req != req {
		// A shallow copy with its own header (the request is not ours to change).
		r = req.WithContext(ctx)
		r.Header = req.Header.Clone()
		if req.Body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
	}
	r.Header.Del("Authorization")
	protocol.SignRequest(r.Header, s.target.MemberID, s.target.PlatformKey, s.target.AuthToken, body, s.now())
	if s.trace != "" {
		r.Header.Set(protocol.HeaderTraceID, s.trace)
	}
	r.Header.Set("User-Agent", "axp-exchange/"+protocol.ProtocolVersion)

	// Only answers to JSON-RPC requests (and plain POSTs, for callbacks) say how the call went:
	// not the answers to notifications or to the responses mcp-go posts back during a stream.
	tracked := s.trackAll
	if !tracked {
		if mark != nil {
			// The first POST of a send is the exchange's message; the responses mcp-go posts
			// back while reading its stream carry the same context and come later.
			tracked = req.Method == http.MethodPost && mark.sent.CompareAndSwap(false, true)
		} else {
			tracked = tracksAnswer(req.Method, body)
		}
	}
	if tracked {
		s.stats.mu.Lock()
		s.stats.status, s.stats.contentType, s.stats.location, s.stats.snippet = 0, "", "", nil
		s.stats.mu.Unlock()
	}

	resp, err := s.base.RoundTrip(r)
	if err != nil {
		release()
		return nil, err
	}
	if tracked {
		s.stats.mu.Lock()
		s.stats.status = resp.StatusCode
		s.stats.contentType = resp.Header.Get("Content-Type")
		s.stats.location = resp.Header.Get("Location")
		s.stats.snippet = s.stats.snippet[:0]
		s.stats.mu.Unlock()
	}
	resp.Body = &cappedBody{rc: resp.Body, limit: s.limit, stats: s.stats, tracked: tracked, release: release}
	return resp, nil
}

// oursKey marks the context of one JSON-RPC request or notification the exchange sends (see ours).
type oursKey struct{}

// sendMark is the mark of one send: call is the context it was made from (the call's), and sent
// is set by its first POST. req and body are set for a request the call made itself (post): the
// signer signs body as it is and sets the headers of req in place, without copying either.
type sendMark struct {
	call context.Context
	sent atomic.Bool
	req  *http.Request
	body []byte
}

// ours returns ctx marked for one send of a JSON-RPC request or notification through mcp-go: the
// signer tracks the answer to its first POST, which is the message itself (telling it from the
// responses mcp-go posts back without parsing every body), and knows that the request's context
// ends with the call's.
func ours(ctx context.Context) context.Context {
	return context.WithValue(ctx, oursKey{}, &sendMark{call: ctx})
}

// readBody reads a request body whose length is usually known, in one allocation.
func readBody(rc io.Reader, n int64) ([]byte, error) {
	if n <= 0 || n > 16<<20 {
		return io.ReadAll(rc)
	}
	buf := bytes.NewBuffer(make([]byte, 0, n+bytes.MinRead))
	_, err := buf.ReadFrom(rc)
	return buf.Bytes(), err
}

// tracksAnswer reports whether the answer to a request says how the call went: true for the
// JSON-RPC requests and notifications the exchange sends; false for the responses mcp-go posts
// back during an event stream (to requests from the server) and for session GETs and DELETEs. It
// reads the body; sends marked by ours need not.
func tracksAnswer(httpMethod string, body []byte) bool {
	if httpMethod != http.MethodPost {
		return false
	}
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method != ""
}

// cappedBody counts an answer's bytes, keeps the first of them for error messages, and fails the
// read once the answer passes the cap.
type cappedBody struct {
	rc      io.ReadCloser
	n       int64
	limit   int64
	stats   *httpStats
	tracked bool
	once    sync.Once
	release func()
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.n > b.limit {
		return 0, errTooLarge
	}
	if rem := b.limit + 1 - b.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	b.stats.mu.Lock()
	b.stats.bytes += int64(n)
	if b.tracked && len(b.stats.snippet) < snippetMax {
		k := min(n, snippetMax-len(b.stats.snippet))
		b.stats.snippet = append(b.stats.snippet, p[:k]...)
	}
	if b.n > b.limit {
		b.stats.oversized = true
		err = errTooLarge
	}
	b.stats.mu.Unlock()
	return n, err
}

func (b *cappedBody) Close() error {
	err := b.rc.Close()
	b.once.Do(b.release)
	return err
}

// noRedirect keeps the exchange on the URL the member registered: a redirect is answered as is
// (and reported as an error), never followed. Following one would re-sign the call and send the
// Bearer token to wherever the redirect points.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
