package site

import (
	"html"
	"regexp"
	"strings"

	"github.com/axp-exchange/axp"
)

// markdownDoc is a Markdown document that a browser (an Accept header ranking text/html above
// text/markdown) gets as an HTML page instead; API clients, curl and Accept: text/markdown get
// the Markdown.
func markdownDoc(title, body string) *axp.Document {
	return &axp.Document{ContentType: "text/markdown; charset=utf-8", Body: []byte(body),
		Alternative: func(accept string) *axp.Document {
			if !prefers(accept, "text/html", "text/markdown") {
				return nil
			}
			return &axp.Document{ContentType: "text/html; charset=utf-8", Body: []byte(markdownPage(title, body))}
		}}
}

var (
	reInlineCode = regexp.MustCompile("`([^`]+)`")
	reURL        = regexp.MustCompile(`https?://[^\s<>()"']+[^\s<>()"'.,;:]`)
)

// inline renders a line's code spans and links; everything else is escaped text.
func inline(s string) string {
	var b strings.Builder
	for {
		loc := reInlineCode.FindStringSubmatchIndex(s)
		if loc == nil {
			b.WriteString(links(s))
			return b.String()
		}
		b.WriteString(links(s[:loc[0]]))
		b.WriteString("<code>" + html.EscapeString(s[loc[2]:loc[3]]) + "</code>")
		s = s[loc[1]:]
	}
}

// links escapes text and links its URLs (not URL templates such as /api/tasks/{id}).
func links(text string) string {
	var b strings.Builder
	for {
		loc := reURL.FindStringIndex(text)
		if loc == nil {
			b.WriteString(html.EscapeString(text))
			return b.String()
		}
		u := html.EscapeString(text[loc[0]:loc[1]])
		b.WriteString(html.EscapeString(text[:loc[0]]))
		if strings.Contains(u, "{") {
			b.WriteString(u)
		} else {
			b.WriteString(`<a href="` + u + `">` + u + `</a>`)
		}
		text = text[loc[1]:]
	}
}

// markdownPage renders the Markdown of the exchange's own documents (headings, paragraphs, "- "
// lists, indented code blocks, code spans and links) as a small HTML page. It is not a general
// Markdown renderer: the texts it renders are the exchange's own.
func markdownPage(title, md string) string {
	var b strings.Builder
	b.WriteString(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>` + html.EscapeString(title) + `</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 46rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1d2330; background: #fbfbf8; }
pre { background: #eef0f4; padding: .6rem .8rem; border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; }
code { background: #eef0f4; padding: .1rem .3rem; border-radius: 3px; overflow-wrap: anywhere; }
p, li { overflow-wrap: anywhere; }
pre code { padding: 0; }
a { color: #1651c8; }
</style>
</head>
<body>
`)
	var para, code []string
	inList := false
	flushPara := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + inline(strings.Join(para, " ")) + "</p>\n")
			para = nil
		}
	}
	flushCode := func() {
		for len(code) > 0 && code[len(code)-1] == "" {
			code = code[:len(code)-1]
		}
		if len(code) > 0 {
			b.WriteString("<pre><code>" + html.EscapeString(strings.Join(code, "\n")) + "</code></pre>\n")
			code = nil
		}
	}
	closeList := func() {
		if inList {
			b.WriteString("</ul>\n")
			inList = false
		}
	}
	for _, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "    ") && len(para) == 0 && !inList:
			code = append(code, line[4:])
			continue
		case strings.TrimSpace(line) == "" && len(code) > 0:
			code = append(code, "")
			continue
		}
		flushCode()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			flushPara()
			closeList()
		case strings.HasPrefix(line, "#"):
			flushPara()
			closeList()
			level := len(line) - len(strings.TrimLeft(line, "#"))
			tag := "h" + string(rune('0'+min(level, 6)))
			b.WriteString("<" + tag + ">" + inline(strings.TrimSpace(line[level:])) + "</" + tag + ">\n")
		case strings.HasPrefix(line, "- "):
			flushPara()
			if !inList {
				b.WriteString("<ul>\n")
				inList = true
			}
			b.WriteString("<li>" + inline(trimmed[2:]))
			b.WriteString("</li>\n")
		case inList && strings.HasPrefix(line, "  "):
			// The continuation of a list item: reopen the last item.
			out := strings.TrimSuffix(b.String(), "</li>\n")
			b.Reset()
			b.WriteString(out + " " + inline(trimmed) + "</li>\n")
		default:
			closeList()
			para = append(para, trimmed)
		}
	}
	flushCode()
	flushPara()
	closeList()
	b.WriteString("<footer><p>This page is also Markdown: ask with <code>Accept: text/markdown</code>.</p></footer>\n</body>\n</html>\n")
	return b.String()
}
