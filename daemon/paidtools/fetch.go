package paidtools

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	"github.com/go-shiori/dom"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/outbound"
)

// maxElements bounds the HTML elements Readability scores.
const maxElements = 50_000

// Defaults of FetcherOptions.
const (
	DefaultPerURL       = 10 * time.Second
	DefaultTotal        = 20 * time.Second
	DefaultMaxBytes     = 2 << 20 // 2 MiB
	DefaultMaxText      = 200_000 // characters
	DefaultParallel     = 4
	DefaultMaxRedirects = 5
)

// FetcherOptions bound what a Fetcher does; zero fields take the defaults above.
type FetcherOptions struct {
	// PerURL bounds each page, redirects and body included; Total bounds the whole call.
	PerURL, Total time.Duration
	// MaxBytes is the most body bytes read from a page: a larger page is a too_large error.
	MaxBytes int64
	// MaxText is the most characters of text returned per page (the rest is cut, and said so).
	MaxText int
	// Parallel is how many pages are fetched at once.
	Parallel int
	// MaxRedirects is how many redirects a page may take.
	MaxRedirects int
	// AllowLoopback lets pages on the exchange's own machine (127.0.0.0/8, ::1, localhost) be
	// fetched: for tests and local development only. The outbound caller allows loopback for
	// members and callbacks only when the exchange listens on loopback alone; a paying stranger
	// must not reach the services that listen there.
	AllowLoopback bool
	// UserAgent is sent with every request ("" : "axp-exchange (web contents)").
	UserAgent string
}

// Fetcher fetches web pages for POST /paid/web/contents and returns their readable text. Every
// request goes through the transport of the exchange's guarded outbound caller, whose dialer
// refuses private, link-local and other internal addresses after DNS (unless the operator allows
// private targets), so a host name that resolves to one is refused too; each redirect is a new
// request through the same dialer and is checked before it is followed. A Fetcher is safe for
// concurrent use.
type Fetcher struct {
	o            FetcherOptions
	allowPrivate bool
	trusted      []string
	client       *http.Client
}

// NewFetcher makes a Fetcher whose requests go through caller's transport.
func NewFetcher(caller *outbound.Caller, o FetcherOptions) *Fetcher {
	if o.PerURL <= 0 {
		o.PerURL = DefaultPerURL
	}
	if o.Total <= 0 {
		o.Total = DefaultTotal
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxText <= 0 {
		o.MaxText = DefaultMaxText
	}
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.UserAgent == "" {
		o.UserAgent = "axp-exchange (web contents)"
	}
	f := &Fetcher{o: o, allowPrivate: caller.AllowPrivate, trusted: caller.Trusted}
	base := caller.HTTPClient(0).Transport
	if t, ok := base.(*http.Transport); ok {
		t = t.Clone()
		// The guard judges the address dialed: through a proxy it would judge the proxy's, and
		// the proxy would reach what the exchange must not.
		t.Proxy = nil
		if !o.AllowLoopback {
			t.DialContext = refuseLoopback(t.DialContext)
		}
		base = t
	}
	f.client = &http.Client{Transport: base, CheckRedirect: f.checkRedirect}
	return f
}

// refusal is a URL the Fetcher will not fetch.
type refusal struct{ reason string }

func (r *refusal) Error() string { return r.reason }

// refuseLoopback wraps a dial function: a connection that reached the exchange's own machine
// (a host name resolving to 127.0.0.1 or ::1) is closed before anything is sent on it.
func refuseLoopback(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if ap, perr := netip.ParseAddrPort(conn.RemoteAddr().String()); perr == nil && ap.Addr().Unmap().IsLoopback() {
			conn.Close()
			return nil, &refusal{"the exchange does not fetch pages on its own machine (loopback)"}
		}
		return conn, nil
	}
}

// check refuses a URL before it is requested: not http or https, an internal address written as
// an IP literal (host names are judged when dialed), loopback, or one of the operator's own
// endpoints (the outbound caller trusts those, e.g. a private AI provider; callers get nothing
// from them).
func (f *Fetcher) check(u *url.URL) *refusal {
	if u.Scheme != "http" && u.Scheme != "https" {
		return &refusal{fmt.Sprintf("%s: URLs are not fetched, only http and https", u.Scheme)}
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return &refusal{"the URL has no host"}
	}
	if !f.allowPrivate {
		if rule := outbound.DeniedURL(u.String()); rule != "" {
			return &refusal{"the exchange does not fetch " + rule}
		}
	}
	if !f.o.AllowLoopback {
		ip, err := netip.ParseAddr(host)
		if host == "localhost" || strings.HasSuffix(host, ".localhost") || err == nil && ip.Unmap().IsLoopback() {
			return &refusal{"the exchange does not fetch pages on its own machine (loopback)"}
		}
	}
	endpoint := outbound.TrustedEndpoint(u.String())
	for _, t := range f.trusted {
		if strings.EqualFold(t, endpoint) {
			return &refusal{"the exchange does not fetch its operator's own endpoints"}
		}
	}
	return nil
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.o.MaxRedirects {
		return &refusal{fmt.Sprintf("more than %d redirects", f.o.MaxRedirects)}
	}
	if r := f.check(req.URL); r != nil {
		r.reason = "redirected to a refused URL: " + r.reason
		return r
	}
	return nil
}

// Contents fetches the pages of in.URLs in parallel and returns one entry per URL, in order. An
// input that breaks the limits (none or more than axp.WebContentsMaxURLs URLs, a URL that is not
// absolute http or https) is an *axp.Error naming urls or urls[i]; a page that cannot be fetched
// or read carries its own error and does not affect the others.
func (f *Fetcher) Contents(ctx context.Context, in *axp.WebContentsInput) (*axp.WebContentsResult, error) {
	urls, err := checkURLs(in)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, f.o.Total, errTotal)
	defer cancel()
	out := &axp.WebContentsResult{Pages: make([]axp.WebPage, len(urls))}
	// The same URL asked for twice is fetched once.
	first := map[string]int{}
	sem := make(chan struct{}, f.o.Parallel)
	var wg sync.WaitGroup
	for i, u := range urls {
		if _, dup := first[u.String()]; dup {
			continue
		}
		first[u.String()] = i
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
				// A panic here (the HTML parsers read what strangers serve) would end the
				// daemon: no recover above this goroutine sees it. It costs this page only.
				defer func() {
					if v := recover(); v != nil {
						out.Pages[i] = axp.WebPage{URL: string(in.URLs[i]), Error: &axp.WebPageError{Code: axp.WebErrUnreadable, Message: "the page could not be read"}}
					}
				}()
				out.Pages[i] = f.fetch(ctx, string(in.URLs[i]), u)
			case <-ctx.Done():
				out.Pages[i] = axp.WebPage{URL: string(in.URLs[i]), Error: f.timeout(ctx)}
			}
		}()
	}
	wg.Wait()
	for i, u := range urls {
		if j := first[u.String()]; j != i {
			out.Pages[i] = out.Pages[j]
			out.Pages[i].URL = string(in.URLs[i])
		}
		if out.Pages[i].Error != nil {
			out.Failed++
		} else {
			out.Fetched++
		}
	}
	return out, nil
}

// checkURLs validates the input as the schema does, for direct calls.
func checkURLs(in *axp.WebContentsInput) ([]*url.URL, error) {
	if in == nil || len(in.URLs) == 0 {
		return nil, axp.Invalid("urls", "is required: give 1 to 10 URLs", "")
	}
	if len(in.URLs) > axp.WebContentsMaxURLs {
		return nil, axp.Invalid("urls", fmt.Sprintf("has %d items; at most %d are allowed", len(in.URLs), axp.WebContentsMaxURLs),
			"split the URLs over several calls")
	}
	urls := make([]*url.URL, len(in.URLs))
	for i, raw := range in.URLs {
		field := fmt.Sprintf("urls[%d]", i)
		if n := utf8.RuneCountInString(string(raw)); n > axp.WebURLMaxLength {
			return nil, axp.Invalid(field, fmt.Sprintf("is %d characters; at most %d are allowed", n, axp.WebURLMaxLength), "")
		}
		u, err := url.Parse(string(raw))
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, axp.Invalid(field, "must be an absolute http or https URL", "for example https://example.com/article")
		}
		urls[i] = u
	}
	return urls, nil
}

var (
	errTotal  = errors.New("total time limit")
	errPerURL = errors.New("per-URL time limit")
)

// fetch fetches and reads one page.
func (f *Fetcher) fetch(parent context.Context, raw string, u *url.URL) axp.WebPage {
	page := axp.WebPage{URL: raw}
	fail := func(code, msg string) axp.WebPage {
		page.Error = &axp.WebPageError{Code: code, Message: msg}
		return page
	}
	if r := f.check(u); r != nil {
		return fail(axp.WebErrRefused, r.reason)
	}
	ctx, cancel := context.WithTimeoutCause(parent, f.o.PerURL, errPerURL)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fail(axp.WebErrUnreachable, "the URL cannot be requested: "+err.Error())
	}
	req.Header.Set("User-Agent", f.o.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		page.Error = f.failure(ctx, err)
		return page
	}
	defer resp.Body.Close()
	page.FinalURL = resp.Request.URL.String()
	page.Status = resp.StatusCode
	mediaType, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	page.ContentType = mediaType
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fail(axp.WebErrHTTPStatus, fmt.Sprintf("the server answered HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode)))
	}
	if mediaType != "" && !markup(mediaType) && !textual(mediaType) {
		// Not read at all: nothing of it could be returned.
		return fail(axp.WebErrUnsupported, unsupported(mediaType))
	}
	tooLarge := fmt.Sprintf("the page is larger than %s, the most this tool reads", size(f.o.MaxBytes))
	if resp.ContentLength > f.o.MaxBytes {
		return fail(axp.WebErrTooLarge, tooLarge)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.o.MaxBytes+1))
	page.Bytes = int64(len(body))
	if err != nil {
		page.Error = f.failure(ctx, err)
		return page
	}
	if page.Bytes > f.o.MaxBytes {
		page.Bytes = f.o.MaxBytes
		return fail(axp.WebErrTooLarge, tooLarge)
	}
	if mediaType == "" {
		mediaType, params, _ = mime.ParseMediaType(http.DetectContentType(body))
		page.ContentType = mediaType
	}
	var text string
	switch {
	case markup(mediaType):
		if err := readHTML(&page, body, resp.Header.Get("Content-Type"), resp.Request.URL); err != nil {
			return fail(axp.WebErrUnreadable, err.Error())
		}
		text = page.Text
	case textual(mediaType):
		r, err := charset.NewReader(bytes.NewReader(body), mime.FormatMediaType(mediaType, params))
		if err != nil {
			return fail(axp.WebErrUnreadable, "the text's character set cannot be read: "+params["charset"])
		}
		b, err := io.ReadAll(r)
		if err != nil {
			return fail(axp.WebErrUnreadable, "the text cannot be decoded")
		}
		text = strings.ToValidUTF8(string(b), "\uFFFD")
	default:
		return fail(axp.WebErrUnsupported, unsupported(mediaType))
	}
	page.Text, page.TextTruncated = cut(text, f.o.MaxText)
	return page
}

func unsupported(mediaType string) string {
	return fmt.Sprintf("the page is %s; this tool reads HTML, text and JSON", mediaType)
}

// markup reports whether a media type is read as HTML.
func markup(mediaType string) bool {
	return mediaType == "text/html" || mediaType == "application/xhtml+xml"
}

// textual reports whether a media type is passed through as text.
func textual(mediaType string) bool {
	switch {
	case strings.HasPrefix(mediaType, "text/"),
		mediaType == "application/json", strings.HasSuffix(mediaType, "+json"),
		mediaType == "application/xml", strings.HasSuffix(mediaType, "+xml"),
		mediaType == "application/javascript", mediaType == "application/x-ndjson", mediaType == "application/yaml":
		return true
	}
	return false
}

// readHTML fills the page's title, text and metadata from an HTML body: the main content as
// Mozilla's Readability finds it, or, when it finds none (a page of links, a short page), the
// text of the whole body.
func readHTML(page *axp.WebPage, body []byte, contentType string, pageURL *url.URL) error {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return errors.New("the page's character set cannot be read")
	}
	doc, err := html.Parse(r)
	if err != nil {
		return errors.New("the page cannot be parsed as HTML")
	}
	parser := readability.NewParser()
	// Past this many elements the article search is skipped (its time grows with the page) and
	// the body's text is returned.
	parser.MaxElemsToParse = maxElements
	article, err := parser.ParseDocument(doc, pageURL)
	if err == nil && article.Node != nil {
		page.Text = strings.TrimSpace(render.InnerText(article.Node))
		page.Title = strings.TrimSpace(article.Title())
		page.Byline = strings.TrimSpace(article.Byline())
		page.SiteName = strings.TrimSpace(article.SiteName())
		page.Language = strings.TrimSpace(article.Language())
		if t, err := article.PublishedTime(); err == nil {
			page.Published = t.UTC().Format(time.RFC3339)
		}
	}
	if page.Text == "" {
		root := doc
		if bodies := dom.GetElementsByTagName(doc, "body"); len(bodies) > 0 {
			root = bodies[0]
		}
		page.Text = strings.TrimSpace(render.InnerText(root))
	}
	if page.Title == "" {
		if titles := dom.GetElementsByTagName(doc, "title"); len(titles) > 0 {
			page.Title = strings.Join(strings.Fields(dom.TextContent(titles[0])), " ")
		}
	}
	return nil
}

// cut shortens text to at most max characters, at a rune boundary.
func cut(text string, max int) (string, bool) {
	if len(text) <= max || utf8.RuneCountInString(text) <= max {
		return text, false
	}
	n := 0
	for i := range text {
		if n == max {
			return text[:i], true
		}
		n++
	}
	return text, false
}

// failure says why a request or a body read failed, without the exchange's internals.
func (f *Fetcher) failure(ctx context.Context, err error) *axp.WebPageError {
	var r *refusal
	var denied *outbound.RefusedError
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var recordErr tls.RecordHeaderError
	var opErr *net.OpError
	switch {
	case errors.As(err, &r):
		return &axp.WebPageError{Code: axp.WebErrRefused, Message: r.reason}
	case errors.As(err, &denied):
		return &axp.WebPageError{Code: axp.WebErrRefused, Message: "the exchange does not fetch " + denied.Rule}
	case ctx.Err() != nil:
		return f.timeout(ctx)
	case errors.As(err, &dnsErr):
		return &axp.WebPageError{Code: axp.WebErrUnreachable, Message: "the host name " + dnsErr.Name + " does not resolve"}
	case errors.As(err, &certErr):
		return &axp.WebPageError{Code: axp.WebErrUnreachable, Message: "the server's TLS certificate is not valid: " + certErr.Err.Error()}
	case errors.As(err, &recordErr):
		return &axp.WebPageError{Code: axp.WebErrUnreachable, Message: "the server does not speak TLS on this port"}
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return &axp.WebPageError{Code: axp.WebErrUnreachable, Message: "the connection failed: " + opErr.Err.Error()}
	}
	return &axp.WebPageError{Code: axp.WebErrUnreachable, Message: "no answer could be read from the server"}
}

// timeout says which time limit ended the request of ctx.
func (f *Fetcher) timeout(ctx context.Context) *axp.WebPageError {
	msg := "the call ended before this page was read"
	switch context.Cause(ctx) {
	case errPerURL:
		msg = fmt.Sprintf("no complete answer within %s, the limit for one page", f.o.PerURL)
	case errTotal:
		msg = fmt.Sprintf("the call's overall time limit (%s) ran out before this page was read", f.o.Total)
	}
	return &axp.WebPageError{Code: axp.WebErrTimeout, Message: msg}
}

// size writes a byte count for people: 2 MiB, 512 KiB, 100 bytes.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
