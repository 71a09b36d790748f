package paidtools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
)

// searxJSON is an answer in the shape SearxNG's JSON API gives (format=json): results with
// engine, engines, score, category, parsed_url and publishedDate (null, or Python's isoformat),
// answers (strings in older versions, objects in newer), infoboxes, suggestions, corrections and
// unresponsive engines as [name, reason] pairs.
const searxJSON = `{
  "query": "%s",
  "number_of_results": 0,
  "results": [
    {"url": "https://go.dev/doc/tutorial/getting-started", "title": "Tutorial: Get started with Go",
     "content": "In this tutorial, you'll get a brief introduction to Go programming.\n  Along the way, you will install Go.",
     "engine": "duckduckgo", "parsed_url": ["https", "go.dev", "/doc/tutorial/getting-started", "", "", ""],
     "template": "default.html", "engines": ["duckduckgo", "brave"], "positions": [1, 2], "score": 4.0,
     "category": "general", "publishedDate": null, "thumbnail": "", "img_src": ""},
    {"url": "https://gobyexample.com/", "title": "Go by Example", "content": null, "engine": "brave",
     "engines": ["brave"], "positions": [3], "score": 0.33, "category": "general", "publishedDate": "2024-05-01T00:00:00"},
    {"url": "https://go.dev/doc/tutorial/getting-started", "title": "duplicate", "content": "", "engine": "qwant",
     "engines": ["qwant"], "score": 0.2, "category": "general"},
    {"url": "javascript:alert(1)", "title": "not a web page", "content": "", "engine": "bad", "engines": ["bad"]},
    {"url": "https://news.example/go-1-26", "title": "  Go 1.26   released ", "content": "Release notes.",
     "engine": "bing news", "engines": ["bing news"], "score": 0.1, "category": "news", "publishedDate": "2026-02-11T17:30:00+01:00"},
    {"url": "https://blog.example/a", "title": "A", "content": "a", "engine": "mojeek", "engines": ["mojeek"], "publishedDate": "2025-12-24 08:00:00"},
    {"url": "https://blog.example/b", "title": "B", "content": "b", "engines": ["startpage"], "publishedDate": "not a date"},
    {"url": "https://blog.example/c", "title": 42}
  ],
  "answers": ["Go is an open source programming language.", {"answer": "Go 1.26 is the latest release.", "url": "https://go.dev/dl/", "engine": "wikipedia"}],
  "corrections": [],
  "infoboxes": [{"infobox": "Go (programming language)", "id": "https://en.wikipedia.org/wiki/Go_(programming_language)",
     "content": "Go is a statically typed, compiled language.", "img_src": null, "urls": [{"title": "Official website", "url": "https://go.dev/"}],
     "engine": "wikipedia", "engines": ["wikipedia"]}],
  "suggestions": ["go tutorial for beginners", "golang tour"],
  "unresponsive_engines": [["google", "timeout"], ["startpage", "CAPTCHA"]]
}`

// searx is a loopback stand-in for a SearxNG instance under prefix, recording the queries it got.
type searx struct {
	*httptest.Server
	mu      sync.Mutex
	queries []url.Values
}

func newSearx(t *testing.T, prefix string, handler http.HandlerFunc) *searx {
	s := &searx{}
	if handler == nil {
		handler = func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != prefix+"/search" || r.URL.Query().Get("format") != "json" {
				http.Error(w, "Forbidden", http.StatusForbidden) // what SearxNG answers when the format is not enabled
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, searxJSON, r.URL.Query().Get("q"))
		}
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.queries = append(s.queries, r.URL.Query())
		s.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *searx) last() url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[len(s.queries)-1]
}

func newSearch(t *testing.T, base string) *Search {
	t.Helper()
	s, err := NewSearch(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSearch(t *testing.T) {
	backend := newSearx(t, "/searx", nil)
	s := newSearch(t, backend.URL+"/searx/")
	got, err := s.Search(context.Background(), &axp.WebSearchQuery{Q: "  go tutorial ", Language: "en", TimeRange: "year"})
	if err != nil {
		t.Fatal(err)
	}
	q := backend.last()
	if q.Get("q") != "go tutorial" || q.Get("format") != "json" || q.Get("language") != "en" || q.Get("time_range") != "year" {
		t.Errorf("backend got %v", q)
	}
	want := []axp.WebSearchHit{
		{Title: "Tutorial: Get started with Go", URL: "https://go.dev/doc/tutorial/getting-started",
			Snippet: "In this tutorial, you'll get a brief introduction to Go programming. Along the way, you will install Go.",
			Engine:  "duckduckgo", Engines: []string{"duckduckgo", "brave"}},
		{Title: "Go by Example", URL: "https://gobyexample.com/", Engine: "brave", Engines: []string{"brave"}, Published: "2024-05-01T00:00:00Z"},
		{Title: "Go 1.26 released", URL: "https://news.example/go-1-26", Snippet: "Release notes.", Engine: "bing news",
			Engines: []string{"bing news"}, Published: "2026-02-11T16:30:00Z"},
		{Title: "A", URL: "https://blog.example/a", Snippet: "a", Engine: "mojeek", Engines: []string{"mojeek"}, Published: "2025-12-24T08:00:00Z"},
		{Title: "B", URL: "https://blog.example/b", Snippet: "b", Engine: "startpage", Engines: []string{"startpage"}},
	}
	if got.Query != "go tutorial" || len(got.Results) != len(want) {
		t.Fatalf("query %q, %d results: %+v", got.Query, len(got.Results), got.Results)
	}
	for i := range want {
		if fmt.Sprint(got.Results[i]) != fmt.Sprint(want[i]) {
			t.Errorf("result %d:\n got %+v\nwant %+v", i, got.Results[i], want[i])
		}
	}
	if fmt.Sprint(got.Answers) != "[Go is an open source programming language. Go 1.26 is the latest release.]" ||
		fmt.Sprint(got.Suggestions) != "[go tutorial for beginners golang tour]" || got.Corrections != nil ||
		fmt.Sprint(got.Unanswered) != "[google startpage]" {
		t.Errorf("answers %q suggestions %q corrections %q unanswered %q", got.Answers, got.Suggestions, got.Corrections, got.Unanswered)
	}
}

func TestSearchLimit(t *testing.T) {
	backend := newSearx(t, "", nil)
	s := newSearch(t, backend.URL)
	got, err := s.Search(context.Background(), &axp.WebSearchQuery{Q: "go", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 2 || got.Results[1].URL != "https://gobyexample.com/" {
		t.Errorf("limit 2 gave %+v", got.Results)
	}
	if q := backend.last(); q.Has("language") || q.Has("time_range") {
		t.Errorf("unset options were sent: %v", q)
	}
	// A base URL given with /search is used as it is.
	if _, err := newSearch(t, backend.URL+"/search").Search(context.Background(), &axp.WebSearchQuery{Q: "go"}); err != nil {
		t.Fatal(err)
	}
}

// Backend failures are unavailable, naming the problem but not the backend's address or its text.
func TestSearchBackendFailures(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	tests := []struct {
		name    string
		handler http.HandlerFunc
		message string
	}{
		{"server error", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "Traceback (most recent call last): secret internals", http.StatusInternalServerError)
		}, "answered HTTP 500"},
		{"json format off", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "Forbidden", http.StatusForbidden) }, "answered HTTP 403"},
		{"html instead of json", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "<!DOCTYPE html><html><body>SearXNG</body></html>")
		}, "not a search API JSON answer"},
		{"json of another shape", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"items": []}`) }, "not a search API JSON answer"},
		{"redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/login", http.StatusFound) }, "answered HTTP 302"},
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}, "did not answer within 200ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			backend := newSearx(t, "", tt.handler)
			s := newSearch(t, backend.URL)
			s.Timeout = 200 * time.Millisecond
			_, err := s.Search(context.Background(), &axp.WebSearchQuery{Q: "go"})
			unavailable(t, err, tt.message)
			if strings.Contains(err.Error(), "127.0.0.1") || strings.Contains(err.Error(), "Traceback") {
				t.Errorf("the error leaks the backend: %v", err)
			}
		})
	}
	gone := newSearx(t, "", nil)
	s := newSearch(t, gone.URL)
	gone.Close()
	_, err := s.Search(context.Background(), &axp.WebSearchQuery{Q: "go"})
	unavailable(t, err, "cannot be reached")
}

// Without a configured backend the tool is unavailable and says which setting it needs.
func TestSearchNotConfigured(t *testing.T) {
	for _, base := range []string{"", "  ", "ftp://search.example", "search.example/searx"} {
		s, err := NewSearch(base, nil)
		if s != nil {
			t.Errorf("%q: a client was made", base)
		}
		unavailable(t, err, "")
		if e := err.(*axp.Error); !strings.Contains(e.Message+e.Hint, SearchSetting) {
			t.Errorf("%q: the error does not name %s: %+v", base, SearchSetting, e)
		}
	}
	var none *Search
	_, err := none.Search(context.Background(), &axp.WebSearchQuery{Q: "go"})
	unavailable(t, err, "not configured")
}

func TestSearchRefusesInput(t *testing.T) {
	backend := newSearx(t, "", nil)
	s := newSearch(t, backend.URL)
	tests := []struct {
		name, query, field, message string
	}{
		{"no q", "limit=5", "q", "is required"},
		{"q too long", "q=" + strings.Repeat("a", 501), "q", "at most 500"},
		{"limit zero", "q=go&limit=0", "limit", "minimum is 1"},
		{"limit too high", "q=go&limit=21", "limit", "maximum is 20"},
		{"limit not a number", "q=go&limit=ten", "limit", "must be a number"},
		{"limit not whole", "q=go&limit=2.5", "limit", "whole number"},
		{"time range", "q=go&time_range=decade", "time_range", "not one of the allowed values"},
		{"language", "q=go&language=english!", "language", "does not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fromQuery[axp.WebSearchQuery](t, tt.query)
			invalid(t, err, tt.field, tt.message)
		})
	}
	// Direct calls are checked the same way.
	for _, in := range []struct {
		q     axp.WebSearchQuery
		field string
	}{
		{axp.WebSearchQuery{Q: "   "}, "q"},
		{axp.WebSearchQuery{Q: "go", Limit: 21}, "limit"},
		{axp.WebSearchQuery{Q: "go", Limit: -1}, "limit"},
		{axp.WebSearchQuery{Q: "go", Language: "x"}, "language"},
		{axp.WebSearchQuery{Q: "go", TimeRange: "hour"}, "time_range"},
	} {
		_, err := s.Search(context.Background(), &in.q)
		invalid(t, err, in.field, "")
	}
	// A query string decodes into the input as the pipeline decodes it.
	in, err := fromQuery[axp.WebSearchQuery](t, "q=go+generics&limit=3&time_range=month")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(context.Background(), in)
	if err != nil || len(got.Results) != 3 || backend.last().Get("q") != "go generics" {
		t.Fatalf("%v %+v", err, got)
	}
}

func unavailable(t *testing.T, err error, message string) {
	t.Helper()
	var e *axp.Error
	if !errors.As(err, &e) || e.Code != axp.CodeUnavailable || !strings.Contains(e.Message, message) {
		t.Fatalf("want unavailable (%q), got %v", message, err)
	}
}
