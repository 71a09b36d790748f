package paidtools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/axp-exchange/axp/protocol"
)

const articleHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Tide tables explained | Coastal Notes</title>
<meta name="author" content="Ada Marsh"><script>window.tracking = "do not show";</script>
<style>body { font-family: serif }</style></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/contact">Contact</a></nav>
<article>
<h1>Tide tables explained</h1>
<p>Tide tables give the times and heights of high and low water for a port. They are computed from the
harmonic constituents of the place, which describe how the sun and the moon pull on the sea there.</p>
<p>Each day usually has two high waters and two low waters, about twelve hours and twenty-five minutes
apart. The range between them grows at spring tides, near new and full moon, and shrinks at neap tides.</p>
<p>To use a table, find the port, read the time of the next high water and correct it for daylight saving
time if the table is printed in standard time. Heights are given above chart datum, the lowest level the
tide usually falls to, so a negative height means the water falls below the charted depth.</p>
</article>
<footer>Copyright Coastal Notes. Subscribe to our newsletter.</footer>
</body></html>`

// site is a loopback stand-in for the web: an article, a redirect to it, plain text, JSON, Latin-1
// text, an image, a page too large to read, pages that stall, a redirect loop and redirects to
// addresses the exchange refuses. hits counts requests by path.
type site struct {
	*httptest.Server
	hits    sync.Map // path -> *atomic.Int64
	release chan struct{}
}

func newSite(t *testing.T, maxBytes int) *site {
	s := &site{release: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, articleHTML)
	})
	mux.HandleFunc("/short", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Links</title></head><body><ul><li><a href="/a">First</a></li><li><a href="/b">Second</a></li></ul></body></html>`)
	})
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/article", http.StatusFound) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "line one\nline two\n")
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"price": 4.25, "items": ["a", "b"]}`)
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("caf\xe9 cr\xe8me"))
	})
	mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n0000"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	big := strings.Repeat("x", maxBytes+1)
	mux.HandleFunc("/large", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, big) // with a Content-Length the page is refused before it is read
	})
	mux.HandleFunc("/large-stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for i := 0; i < len(big); i += 1024 {
			w.Write([]byte(big[i:min(i+1024, len(big))]))
			w.(http.Flusher).Flush() // chunked: no Content-Length, the read limit stops it
		}
	})
	// /slow answers nothing until the client gives up (or the test ends).
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
	})
	// /stall sends its headers and part of its body, then stalls.
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "the beginning")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := s.hits.LoadOrStore(r.URL.Path, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		close(s.release)
		s.Close()
	})
	return s
}

func (s *site) count(path string) int64 {
	if c, ok := s.hits.Load(path); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}

func testFetcher(o FetcherOptions) *Fetcher {
	o.AllowLoopback = true // the test site is on loopback
	if o.MaxBytes == 0 {
		o.MaxBytes = 64 << 10
	}
	return NewFetcher(&outbound.Caller{}, o)
}

func contents(t *testing.T, f *Fetcher, urls ...string) *axp.WebContentsResult {
	t.Helper()
	in := &axp.WebContentsInput{}
	for _, u := range urls {
		in.URLs = append(in.URLs, axp.WebURL(u))
	}
	out, err := f.Contents(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Pages) != len(urls) {
		t.Fatalf("%d pages for %d URLs", len(out.Pages), len(urls))
	}
	return out
}

func TestContents(t *testing.T) {
	s := newSite(t, 64<<10)
	f := testFetcher(FetcherOptions{PerURL: 2 * time.Second})
	tests := []struct {
		name, path   string
		final, ctype string
		title        string
		has, hasNot  []string
		errCode      string
		errHas       string
	}{
		{name: "article", path: "/article", final: "/article", ctype: "text/html", title: "Tide tables explained | Coastal Notes",
			has:    []string{"harmonic constituents", "spring tides", "chart datum"},
			hasNot: []string{"tracking", "font-family", "Subscribe", "<p>"}},
		{name: "redirect", path: "/old", final: "/article", ctype: "text/html", title: "Tide tables explained | Coastal Notes", has: []string{"neap tides"}},
		{name: "page with no article", path: "/short", final: "/short", ctype: "text/html", title: "Links", has: []string{"First", "Second"}},
		{name: "plain text", path: "/plain", final: "/plain", ctype: "text/plain", has: []string{"line one\nline two"}},
		{name: "json", path: "/data.json", final: "/data.json", ctype: "application/json", has: []string{`{"price": 4.25, "items": ["a", "b"]}`}},
		{name: "latin-1", path: "/latin1", final: "/latin1", ctype: "text/plain", has: []string{"café crème"}},
		{name: "image", path: "/image.png", ctype: "image/png", errCode: axp.WebErrUnsupported, errHas: "image/png"},
		{name: "not found", path: "/missing", errCode: axp.WebErrHTTPStatus, errHas: "HTTP 404"},
		{name: "too large", path: "/large", errCode: axp.WebErrTooLarge, errHas: "larger than 64 KiB"},
		{name: "too large streamed", path: "/large-stream", errCode: axp.WebErrTooLarge, errHas: "larger than 64 KiB"},
		{name: "redirect loop", path: "/loop", errCode: axp.WebErrRefused, errHas: "more than 5 redirects"},
		{name: "redirect to metadata", path: "/to-metadata", errCode: axp.WebErrRefused, errHas: "169.254.0.0/16"},
		{name: "redirect to a file", path: "/to-file", errCode: axp.WebErrRefused, errHas: "only http and https"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := contents(t, f, s.URL+tt.path).Pages[0]
			if p.URL != s.URL+tt.path {
				t.Errorf("url %q", p.URL)
			}
			if tt.errCode != "" {
				if p.Error == nil || p.Error.Code != tt.errCode || !strings.Contains(p.Error.Message, tt.errHas) {
					t.Fatalf("want error %s (%q), got %+v", tt.errCode, tt.errHas, p.Error)
				}
				if p.Text != "" {
					t.Errorf("a failed page has text: %q", p.Text)
				}
				if tt.ctype != "" && p.ContentType != tt.ctype {
					t.Errorf("content type %q, want %q", p.ContentType, tt.ctype)
				}
				return
			}
			if p.Error != nil {
				t.Fatalf("error %+v", p.Error)
			}
			if p.FinalURL != s.URL+tt.final || p.Status != 200 || p.ContentType != tt.ctype || p.Title != tt.title || p.Bytes <= 0 {
				t.Errorf("got final %q status %d type %q title %q bytes %d", p.FinalURL, p.Status, p.ContentType, p.Title, p.Bytes)
			}
			for _, h := range tt.has {
				if !strings.Contains(p.Text, h) {
					t.Errorf("text lacks %q:\n%s", h, p.Text)
				}
			}
			for _, h := range tt.hasNot {
				if strings.Contains(p.Text, h) {
					t.Errorf("text has %q:\n%s", h, p.Text)
				}
			}
		})
	}
	if n := s.count("/large"); n != 1 {
		t.Errorf("/large requested %d times", n)
	}
}

// Internal addresses are refused before any request: IP literals by the Fetcher's check, host
// names by the outbound caller's dialer after DNS. Nothing is dialed in this test.
func TestContentsRefusesInternalAddresses(t *testing.T) {
	f := testFetcher(FetcherOptions{})
	out := contents(t, f, "http://10.255.255.1:9/", "http://169.254.169.254/latest/meta-data/", "http://[fd00::1]/x",
		"http://192.168.1.1/admin", "http://0.0.0.0:8420/api/admin/stats")
	for _, p := range out.Pages {
		if p.Error == nil || p.Error.Code != axp.WebErrRefused || !strings.Contains(p.Error.Message, "does not fetch") {
			t.Errorf("%s: want refused, got %+v", p.URL, p.Error)
		}
	}
	if out.Failed != 5 || out.Fetched != 0 {
		t.Errorf("fetched %d failed %d", out.Fetched, out.Failed)
	}
	// The operator's own endpoints, which the outbound caller trusts, are not fetched for callers.
	trusting := NewFetcher(&outbound.Caller{Trusted: []string{"ai.internal.example:443"}}, FetcherOptions{})
	p := contents(t, trusting, "https://AI.internal.example/v1/models").Pages[0]
	if p.Error == nil || p.Error.Code != axp.WebErrRefused || !strings.Contains(p.Error.Message, "operator's own") {
		t.Errorf("trusted endpoint: %+v", p.Error)
	}
}

// Without AllowLoopback, pages on the exchange's own machine are refused: literals and localhost
// before any request, host names that resolve to loopback once connected, before anything is sent.
func TestContentsRefusesLoopback(t *testing.T) {
	s := newSite(t, 1024)
	f := NewFetcher(&outbound.Caller{}, FetcherOptions{})
	host := strings.TrimPrefix(s.URL, "http://127.0.0.1")
	out := contents(t, f, s.URL+"/article", "http://localhost"+host+"/article", "http://[::1]"+host+"/article")
	for _, p := range out.Pages {
		if p.Error == nil || p.Error.Code != axp.WebErrRefused || !strings.Contains(p.Error.Message, "loopback") {
			t.Errorf("%s: want refused, got %+v", p.URL, p.Error)
		}
	}
	_, err := refuseLoopback(nil)(context.Background(), "tcp", s.Listener.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a connection to loopback was not refused: %v", err)
	}
	if n := s.count("/article"); n != 0 {
		t.Errorf("the loopback site got %d requests", n)
	}
}

// One page's failure does not affect the others; pages come back in the order asked, a URL asked
// twice is fetched once.
func TestContentsPerURLErrors(t *testing.T) {
	s := newSite(t, 1024)
	f := testFetcher(FetcherOptions{PerURL: 300 * time.Millisecond, Total: time.Minute})
	out := contents(t, f, s.URL+"/article", s.URL+"/missing", "http://10.0.0.1/", s.URL+"/slow", s.URL+"/plain", s.URL+"/article")
	want := []string{"", axp.WebErrHTTPStatus, axp.WebErrRefused, axp.WebErrTimeout, "", ""}
	for i, p := range out.Pages {
		got := ""
		if p.Error != nil {
			got = p.Error.Code
		}
		if got != want[i] {
			t.Errorf("page %d (%s): error %q, want %q (%+v)", i, p.URL, got, want[i], p.Error)
		}
	}
	if out.Fetched != 3 || out.Failed != 3 {
		t.Errorf("fetched %d failed %d", out.Fetched, out.Failed)
	}
	if out.Pages[3].Error != nil && !strings.Contains(out.Pages[3].Error.Message, "within 300ms") {
		t.Errorf("timeout message: %s", out.Pages[3].Error.Message)
	}
	if out.Pages[5].Title != "Tide tables explained | Coastal Notes" || s.count("/article") != 1 {
		t.Errorf("the repeated URL: title %q, fetched %d times", out.Pages[5].Title, s.count("/article"))
	}
}

// The time limits cut a page that stalls mid-body, and the whole call.
func TestContentsTimeLimits(t *testing.T) {
	s := newSite(t, 1024)
	p := contents(t, testFetcher(FetcherOptions{PerURL: 200 * time.Millisecond}), s.URL+"/stall").Pages[0]
	if p.Error == nil || p.Error.Code != axp.WebErrTimeout || p.Status != 200 {
		t.Errorf("a stalled body: %+v", p)
	}
	out := contents(t, testFetcher(FetcherOptions{PerURL: time.Minute, Total: 200 * time.Millisecond, Parallel: 1}),
		s.URL+"/slow", s.URL+"/slow?2", s.URL+"/slow?3")
	for _, p := range out.Pages {
		if p.Error == nil || p.Error.Code != axp.WebErrTimeout || !strings.Contains(p.Error.Message, "overall time limit") {
			t.Errorf("%s: %+v", p.URL, p.Error)
		}
	}
	// The caller giving up ends the call too.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := testFetcher(FetcherOptions{}).Contents(ctx, &axp.WebContentsInput{URLs: []axp.WebURL{axp.WebURL(s.URL + "/slow")}})
	if err != nil || res.Pages[0].Error == nil || res.Pages[0].Error.Code != axp.WebErrTimeout {
		t.Errorf("cancelled call: %v %+v", err, res)
	}
}

// No more than Parallel pages are fetched at once.
func TestContentsParallelBound(t *testing.T) {
	var active, most atomic.Int64
	release, full := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := active.Add(1)
		defer active.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if n == 2 {
			once.Do(func() { close(full) })
		}
		<-release
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	f := testFetcher(FetcherOptions{Parallel: 2})
	done := make(chan *axp.WebContentsResult)
	go func() {
		var urls []string
		for i := range 6 {
			urls = append(urls, fmt.Sprintf("%s/p%d", srv.URL, i))
		}
		done <- contents(t, f, urls...)
	}()
	select {
	case <-full:
	case <-time.After(10 * time.Second):
		t.Error("two pages were never fetched at once")
	}
	close(release)
	out := <-done
	if out.Fetched != 6 || most.Load() > 2 || most.Load() < 1 {
		t.Errorf("fetched %d, at most %d at once", out.Fetched, most.Load())
	}
}

func TestContentsTextLimit(t *testing.T) {
	s := newSite(t, 1024)
	p := contents(t, testFetcher(FetcherOptions{MaxText: 5}), s.URL+"/latin1").Pages[0]
	if p.Text != "café " || !p.TextTruncated {
		t.Errorf("text %q truncated %v", p.Text, p.TextTruncated)
	}
}

func TestContentsRefusesInput(t *testing.T) {
	f := testFetcher(FetcherOptions{})
	eleven := make([]axp.WebURL, 11)
	for i := range eleven {
		eleven[i] = "https://example.com/"
	}
	tests := []struct {
		name           string
		urls           []axp.WebURL
		field, message string
	}{
		{"none", nil, "urls", "is required"},
		{"eleven", eleven, "urls", "at most 10"},
		{"ftp", []axp.WebURL{"https://a.example/", "https://b.example/", "https://c.example/", "ftp://d.example/file"}, "urls[3]", "http or https"},
		{"relative", []axp.WebURL{"/just/a/path"}, "urls[0]", "http or https"},
		{"no host", []axp.WebURL{"https:///x"}, "urls[0]", "http or https"},
		{"too long", []axp.WebURL{axp.WebURL("https://example.com/" + strings.Repeat("a", 2100))}, "urls[0]", "at most 2048"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Contents(context.Background(), &axp.WebContentsInput{URLs: tt.urls})
			invalid(t, err, tt.field, tt.message)
			// The pipeline's decoder refuses the same body with the same field.
			body, _ := json.Marshal(map[string]any{"urls": tt.urls})
			if tt.urls == nil {
				body = []byte(`{}`)
			}
			var in axp.WebContentsInput
			var e *protocol.Error
			if e = protocol.Decode(body, &in); e == nil || e.Field != tt.field {
				t.Errorf("decoder: %v", e)
			}
		})
	}
}
