package outbound

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
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
	oversized   bool   // some answer went over the size cap
}

func (s *httpStats) get() (status int, contentType, location string, oversized bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status, s.contentType, s.location, s.oversized
}

func (s *httpStats) total() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}

// signer is the http.RoundTripper of one call. It signs each request per spec section 5
// (X-AX-Member-Id, X-AX-Timestamp, X-AX-Signature, and the Bearer auth token only when the member
// set one), forwards the trace id, and caps and counts the answer. The answers to the call's
// JSON-RPC messages (and every answer of a callback) are tracked: they say how the call went.
type signer struct {
	base   http.RoundTripper
	ctx    context.Context // the whole call's context, timeout included
	target Target
	now    func() time.Time
	trace  string
	limit  int64
	stats  *httpStats
	// trackAll tracks every answer (a callback POST), not only those to JSON-RPC messages.
	trackAll bool
}

func (s *signer) RoundTrip(req *http.Request) (*http.Response, error) {
	mark, _ := req.Context().Value(messageKey{}).(*message)
	var body []byte
	switch {
	case mark != nil && mark.req == req:
		// A message the call made itself: its body is at hand.
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
	r := req
	if mark == nil || mark.req != req {
		// A shallow copy with its own header (the request is not ours to change).
		r = req.Clone(req.Context())
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

	// Not the answers to the responses posted back during a stream, nor to a stream's resumption.
	tracked := s.trackAll || mark != nil
	if tracked {
		s.stats.mu.Lock()
		s.stats.status, s.stats.contentType, s.stats.location = 0, "", ""
		s.stats.mu.Unlock()
	}

	resp, err := s.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if tracked {
		s.stats.mu.Lock()
		s.stats.status = resp.StatusCode
		s.stats.contentType = resp.Header.Get("Content-Type")
		s.stats.location = resp.Header.Get("Location")
		s.stats.mu.Unlock()
	}
	resp.Body = &cappedBody{rc: resp.Body, limit: s.limit, stats: s.stats}
	return resp, nil
}

// messageKey marks the context of one JSON-RPC request or notification the call sends (see
// postBody).
type messageKey struct{}

// message is that mark: the request and its body, which the signer signs as it is, setting the
// request's headers in place, without copying either.
type message struct {
	req  *http.Request
	body []byte
}

// readBody reads a body whose length is usually known (n, or -1), in one allocation.
func readBody(rc io.Reader, n int64) ([]byte, error) {
	if n <= 0 || n > 16<<20 {
		return io.ReadAll(rc)
	}
	buf := bytes.NewBuffer(make([]byte, 0, n+bytes.MinRead))
	_, err := buf.ReadFrom(rc)
	return buf.Bytes(), err
}

// cappedBody counts an answer's bytes, keeps the first of them for error messages, and fails the
// read once the answer passes the cap.
type cappedBody struct {
	rc    io.ReadCloser
	n     int64
	limit int64
	stats *httpStats
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
	if b.n > b.limit {
		b.stats.oversized = true
		err = errTooLarge
	}
	b.stats.mu.Unlock()
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// noRedirect keeps the exchange on the URL the member registered: a redirect is answered as is
// (and reported as an error), never followed. Following one would re-sign the call and send the
// Bearer token to wherever the redirect points.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
