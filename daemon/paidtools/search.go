package paidtools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/outbound"
)

// SearchSetting is the configuration key that names the search backend; the tool is unavailable
// until the operator sets it.
const SearchSetting = "search_url"

// Limits of the search client.
const (
	DefaultSearchTimeout = 10 * time.Second
	maxSearchAnswer      = 4 << 20 // bytes read from the backend
	maxSnippet           = 1000    // characters of a result's snippet
)

// Search is a client of a SearxNG-compatible JSON search API (GET <base>/search?q=...&format=json),
// the backend of GET /paid/web/search. The backend is the operator's: its errors reach callers as
// unavailable, naming the kind of problem but never the backend's address or its own messages.
type Search struct {
	endpoint *url.URL
	client   *http.Client
	// Timeout bounds each search (0: DefaultSearchTimeout). Set it before the first search.
	Timeout time.Duration
}

// NewSearch makes a client of the backend at baseURL (for SearxNG, the instance's root URL), whose
// requests are sent with client (nil: a client that follows no redirects). Without a base URL the
// tool is unavailable: the error says so and names SearchSetting.
func NewSearch(baseURL string, client *http.Client) (*Search, error) {
	baseURL = strings.TrimSpace(baseURL)
	if baseURL == "" {
		return nil, notConfigured()
	}
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, &axp.Error{Code: axp.CodeUnavailable, Message: "web search is unavailable: " + SearchSetting + " is not an http or https URL",
			Hint: "the operator sets " + SearchSetting + " to the root URL of a SearxNG-compatible search API"}
	}
	if !strings.HasSuffix(u.Path, "/search") {
		u.Path = strings.TrimRight(u.Path, "/") + "/search"
	}
	u.RawQuery, u.Fragment, u.RawPath = "", "", ""
	if client == nil {
		client = outbound.NewClient(nil, 0)
	}
	return &Search{endpoint: u, client: client}, nil
}

func notConfigured() *axp.Error {
	return &axp.Error{Code: axp.CodeUnavailable, Message: "web search is not configured on this exchange",
		Hint: "the operator sets " + SearchSetting + " to a SearxNG-compatible search API"}
}

func backendDown(format string, args ...any) *axp.Error {
	return &axp.Error{Code: axp.CodeUnavailable, Message: "web search is unavailable: " + fmt.Sprintf(format, args...),
		Hint: "try again later; nothing was found or returned"}
}

var languagePattern = regexp.MustCompile(`^(all|[a-zA-Z]{2,3}(-[a-zA-Z]{2,4})?)$`)

// checkSearch validates a query as its schema does, for direct calls.
func checkSearch(in *axp.WebSearchQuery) (q string, limit int, err error) {
	if in == nil || strings.TrimSpace(in.Q) == "" {
		return "", 0, axp.Invalid("q", "is required", "give what to search for")
	}
	q = strings.TrimSpace(in.Q)
	if !utf8.ValidString(q) {
		return "", 0, axp.Invalid("q", "is not valid UTF-8", "")
	}
	if n := utf8.RuneCountInString(in.Q); n > 500 {
		return "", 0, axp.Invalid("q", fmt.Sprintf("is %d characters; at most 500 are allowed", n), "shorten it")
	}
	limit = in.Limit
	switch {
	case limit == 0:
		limit = axp.WebSearchDefaultLimit
	case limit < 1 || limit > axp.WebSearchMaxLimit:
		return "", 0, axp.Invalid("limit", fmt.Sprintf("is %d; it must be 1 to %d", limit, axp.WebSearchMaxLimit), "")
	}
	if in.Language != "" && !languagePattern.MatchString(in.Language) {
		return "", 0, axp.Invalid("language", fmt.Sprintf("%q is not a language code", clip(in.Language)), "for example en, de or pt-BR")
	}
	switch in.TimeRange {
	case "", "day", "week", "month", "year":
	default:
		return "", 0, axp.Invalid("time_range", fmt.Sprintf("%q is not one of the allowed values", clip(in.TimeRange)), "use one of: day, week, month, year")
	}
	return q, limit, nil
}

// Search asks the backend and returns at most limit results, normalised: title, URL, snippet,
// engine and publication time; results without an http or https URL, and repeats of a URL, are
// dropped. An input that breaks the limits is an *axp.Error naming the field; a backend that
// fails, is slow or answers something else than its JSON API is an unavailable *axp.Error.
func (s *Search) Search(ctx context.Context, in *axp.WebSearchQuery) (*axp.WebSearchResult, error) {
	if s == nil {
		return nil, notConfigured()
	}
	q, limit, err := checkSearch(in)
	if err != nil {
		return nil, err
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultSearchTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	u := *s.endpoint
	params := url.Values{"q": {q}, "format": {"json"}}
	if in.Language != "" {
		params.Set("language", in.Language)
	}
	if in.TimeRange != "" {
		params.Set("time_range", in.TimeRange)
	}
	u.RawQuery = params.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, backendDown("the search request cannot be made")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, backendDown("the search backend did not answer within %s", timeout)
		}
		return nil, backendDown("the search backend cannot be reached")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, backendDown("the search backend answered HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchAnswer+1))
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, backendDown("the search backend did not answer within %s", timeout)
	case err != nil:
		return nil, backendDown("the search backend's answer was cut off")
	case len(body) > maxSearchAnswer:
		return nil, backendDown("the search backend's answer is larger than %s", size(maxSearchAnswer))
	}
	var raw searxAnswer
	if err := json.Unmarshal(body, &raw); err != nil || raw.Results == nil {
		return nil, backendDown("the search backend's answer is not a search API JSON answer")
	}
	return raw.normalise(q, limit), nil
}

// searxAnswer is SearxNG's JSON answer (searx/webutils.py get_json_response). Lists are read item
// by item so that one odd item (a field of another type in another version) does not lose the rest.
type searxAnswer struct {
	Query               string            `json:"query"`
	Results             []json.RawMessage `json:"results"`
	Answers             []json.RawMessage `json:"answers"`
	Corrections         []json.RawMessage `json:"corrections"`
	Suggestions         []json.RawMessage `json:"suggestions"`
	UnresponsiveEngines []json.RawMessage `json:"unresponsive_engines"`
}

type searxResult struct {
	URL           string   `json:"url"`
	Title         string   `json:"title"`
	Content       string   `json:"content"`
	Engine        string   `json:"engine"`
	Engines       []string `json:"engines"`
	PublishedDate string   `json:"publishedDate"`
}

func (a *searxAnswer) normalise(q string, limit int) *axp.WebSearchResult {
	out := &axp.WebSearchResult{Query: q, Results: []axp.WebSearchHit{}}
	seen := map[string]bool{}
	for _, item := range a.Results {
		if len(out.Results) == limit {
			break
		}
		var r searxResult
		if json.Unmarshal(item, &r) != nil {
			continue
		}
		u, err := url.Parse(strings.TrimSpace(r.URL))
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || seen[u.String()] {
			continue
		}
		seen[u.String()] = true
		hit := axp.WebSearchHit{URL: u.String(), Title: oneLine(r.Title), Engine: r.Engine, Engines: r.Engines,
			Published: published(r.PublishedDate)}
		hit.Snippet, _ = cut(oneLine(r.Content), maxSnippet)
		if hit.Title == "" {
			hit.Title = hit.URL
		}
		if hit.Engine == "" && len(hit.Engines) > 0 {
			hit.Engine = hit.Engines[0]
		}
		out.Results = append(out.Results, hit)
	}
	for _, item := range a.Answers {
		// A string in older versions, an object with an "answer" field in newer ones.
		var text string
		var obj struct {
			Answer string `json:"answer"`
		}
		if json.Unmarshal(item, &text) != nil && json.Unmarshal(item, &obj) == nil {
			text = obj.Answer
		}
		if text = oneLine(text); text != "" {
			out.Answers = append(out.Answers, text)
		}
	}
	out.Suggestions = texts(a.Suggestions)
	out.Corrections = texts(a.Corrections)
	for _, item := range a.UnresponsiveEngines {
		// [engine, reason]; only the engine's name is passed on.
		var pair []string
		if json.Unmarshal(item, &pair) == nil && len(pair) > 0 && pair[0] != "" {
			out.Unanswered = append(out.Unanswered, pair[0])
		}
	}
	return out
}

// texts keeps the string items of a list, on one line each.
func texts(items []json.RawMessage) []string {
	var out []string
	for _, item := range items {
		var s string
		if json.Unmarshal(item, &s) == nil {
			if s = oneLine(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// published reads the publication times SearxNG writes (Python's isoformat, with or without a
// zone; some engines give a date alone) as RFC 3339, UTC when no zone is given; "" when unknown.
func published(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return ""
}
