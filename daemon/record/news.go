package record

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"
	"golang.org/x/net/html"

	"github.com/axp-exchange/axp"
)

var roundRat = axp.RoundRat

// maxSummary is the most characters of an item's summary kept.
const maxSummary = 1000

// Matcher finds the configured entities a text names. Each entity of news_entities is a name,
// optionally with aliases: "Bitcoin=BTC|XBT". A text names an entity when the name or an alias
// occurs in it as whole words, ignoring case: "BTC" matches "BTC rallies" and "(btc)", not
// "BTCUSD".
type Matcher struct {
	names []string
	terms [][]string // per entity, its lower-case terms
}

// NewMatcher reads the entity list.
func NewMatcher(entities []string) (*Matcher, error) {
	m := &Matcher{}
	seen := map[string]bool{}
	for _, e := range entities {
		name, aliases, _ := strings.Cut(e, "=")
		name = strings.TrimSpace(name)
		if name == "" || len(name) > 100 || strings.ContainsRune(name, 0) {
			return nil, fmt.Errorf("news_entities: %q has no name", e)
		}
		if seen[strings.ToLower(name)] {
			return nil, fmt.Errorf("news_entities: %q is listed twice", name)
		}
		seen[strings.ToLower(name)] = true
		terms := []string{strings.ToLower(name)}
		for _, a := range strings.Split(aliases, "|") {
			if a = strings.ToLower(strings.TrimSpace(a)); a != "" {
				terms = append(terms, a)
			}
		}
		m.names, m.terms = append(m.names, name), append(m.terms, terms)
	}
	return m, nil
}

// Resolve is the entity name an entity or alias given by a caller stands for, or "".
func (m *Matcher) Resolve(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for i, terms := range m.terms {
		for _, t := range terms {
			if t == s {
				return m.names[i]
			}
		}
	}
	return ""
}

// Names are the configured entity names.
func (m *Matcher) Names() []string { return m.names }

// Match lists the entities text names, in configuration order.
func (m *Matcher) Match(text string) []string {
	low := strings.ToLower(text)
	out := []string{}
	for i, terms := range m.terms {
		for _, t := range terms {
			if containsWord(low, t) {
				out = append(out, m.names[i])
				break
			}
		}
	}
	return out
}

// containsWord reports whether w occurs in s with no letter or digit right before or after it.
func containsWord(s, w string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(w):])
		if !wordRune(before) && !wordRune(after) {
			return true
		}
		from = i + 1
	}
}

func wordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// Feed is a parsed RSS or Atom feed.
type Feed = gofeed.Feed

// FetchFeed reads an RSS or Atom feed with client.
func FetchFeed(ctx context.Context, client *http.Client, feedURL string) (*Feed, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, feedURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the feed answered HTTP %d", resp.StatusCode)
	}
	return gofeed.NewParser().Parse(io.LimitReader(resp.Body, maxAnswer))
}

// NewsItems turns a feed's items into news items first seen at now, with the entities they name.
// Items with neither guid nor link cannot be told apart from one poll to the next: they are left
// out.
func NewsItems(feedURL string, feed *Feed, m *Matcher, now time.Time) []axp.NewsItem {
	now = now.UTC().Truncate(time.Millisecond)
	var out []axp.NewsItem
	for _, it := range feed.Items {
		if it == nil || (it.GUID == "" && it.Link == "") {
			continue
		}
		title := oneLine(it.Title)
		summary := oneLine(plainText(it.Description))
		if summary == "" {
			summary = oneLine(plainText(it.Content))
		}
		if r := []rune(summary); len(r) > maxSummary {
			summary = string(r[:maxSummary])
		}
		sum := sha256.Sum256([]byte(title + "\n" + summary))
		n := axp.NewsItem{Kind: "news", ID: axp.NewID("nws", now), Feed: feedURL, GUID: it.GUID, Link: it.Link, Title: title,
			Summary: summary, FirstSeen: now, Entities: m.Match(title + "\n" + summary), ContentHash: hex.EncodeToString(sum[:])}
		if it.PublishedParsed != nil {
			p := it.PublishedParsed.UTC().Truncate(time.Second)
			n.PublishedAt = &p
		}
		out = append(out, n)
	}
	return out
}

// plainText is the text of an HTML fragment.
func plainText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
				b.WriteByte(' ')
			}
		case html.StartTagToken:
			if n, _ := z.TagName(); string(n) == "script" || string(n) == "style" {
				skip++
			}
		case html.EndTagToken:
			if n, _ := z.TagName(); (string(n) == "script" || string(n) == "style") && skip > 0 {
				skip--
			}
		}
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
