package axp_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// parseParams reads params as a task body carries them (numbers exact, as the REST door parses).
func parseParams(t *testing.T, s string) map[string]any {
	t.Helper()
	v, err := protocol.ParseJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

func TestCatalogRows(t *testing.T) {
	var types []string
	for _, s := range axp.Services {
		types = append(types, s.Type)
	}
	if !slices.Equal(types, []string{"text-file", "video", "image", "transcription", "translation"}) {
		t.Fatalf("catalog %v", types)
	}
	eta := map[string]int{"text-file": 5, "video": 30, "image": 15, "transcription": 20, "translation": 20}
	for _, s := range axp.Services {
		if s.ETAMinutes != eta[s.Type] {
			t.Errorf("%s eta %d, want %d", s.Type, s.ETAMinutes, eta[s.Type])
		}
		if s.Name == "" || s.Summary == "" || s.AcceptanceCriteria == "" || s.Pricing.Text == "" {
			t.Errorf("%s lacks a name, summary, criteria or pricing text", s.Type)
		}
		if axp.ServiceFor(s.Type) != s {
			t.Errorf("ServiceFor(%s)", s.Type)
		}
		ps := s.ParamsSchema()
		if ps.Type != "object" || ps.AdditionalProperties != false {
			t.Errorf("%s params schema %+v", s.Type, ps)
		}
		u, err := url.Parse(s.ExampleURL("https://ex.example"))
		if err != nil || u.Path != "/api/quote" || u.Query().Get("type") != s.Type {
			t.Errorf("%s example url %v", s.Type, u)
		}
		// The example quote is a valid quote request.
		q := u.Query()
		q.Del("type")
		params := map[string]any{}
		for k := range q {
			params[k] = q.Get(k)
		}
		if _, err := s.QuoteParams(params, true, ""); err != nil {
			t.Errorf("%s example refused: %v", s.Type, err)
		}
	}
	if axp.ServiceFor("podcast") != nil {
		t.Error("ServiceFor of an unknown type")
	}
}

func TestCatalogPricing(t *testing.T) {
	cases := []struct {
		typ    string
		params string
		want   protocol.Money
		cents  int64
	}{
		{"text-file", `{"prompt":"a haiku"}`, axp.USD(0, 20), 20},
		{"video", `{"prompt":"waves"}`, axp.USD(3, 50), 350}, // default 8 s: 1.50 + 8 x 0.25
		{"video", `{"prompt":"waves","duration":10}`, axp.USD(4, 0), 400},
		{"video", `{"prompt":"waves","duration":5}`, axp.USD(2, 75), 275},
		{"video", `{"prompt":"waves","duration":30}`, axp.USD(9, 0), 900},
		{"video", `{"prompt":"waves","duration":10.0}`, axp.USD(4, 0), 400}, // any spelling of 10
		{"video", `{"prompt":"waves","duration":1e1}`, axp.USD(4, 0), 400},
		{"image", `{"prompt":"a fox"}`, axp.USD(0, 40), 40},
		{"image", `{"prompt":"a fox","count":3}`, axp.USD(1, 20), 120},
		{"image", `{"prompt":"a fox","count":8}`, axp.USD(3, 20), 320},
		{"transcription", `{"source_url":"https://media.example/a.mp3"}`, axp.USD(0, 50), 50}, // 10 min = 0.20 -> minimum
		{"transcription", `{"source_url":"https://media.example/a.mp3","minutes":25}`, axp.USD(0, 50), 50},
		{"transcription", `{"source_url":"https://media.example/a.mp3","minutes":26}`, axp.USD(0, 52), 52},
		{"transcription", `{"source_url":"https://media.example/a.mp3","minutes":240}`, axp.USD(4, 80), 480},
		{"transcription", `{"source_url":"https://media.example/a.mp3","minutes":1}`, axp.USD(0, 50), 50},
		{"translation", `{"text":"hola","target_language":"en"}`, axp.USD(1, 0), 100}, // default 500 words
		{"translation", `{"text":"hola","target_language":"en","words":250}`, axp.USD(0, 50), 50},
		{"translation", `{"text":"hola","target_language":"en","words":100}`, axp.USD(0, 50), 50},
		{"translation", `{"text":"hola","target_language":"en","words":1200}`, axp.USD(2, 40), 240},
		{"translation", `{"text":"hola","target_language":"en","words":333}`, 666_000, 67},
		{"translation", `{"source_url":"https://docs.example/a.txt","target_language":"en","words":50000}`, axp.USD(100, 0), 10000},
	}
	for _, c := range cases {
		s := axp.ServiceFor(c.typ)
		params, err := s.Normalize(parseParams(t, c.params), false, "params")
		if err != nil {
			t.Errorf("%s %s: %v", c.typ, c.params, err)
			continue
		}
		if got := s.Price(params); got != c.want {
			t.Errorf("%s %s: price %s, want %s", c.typ, c.params, got, c.want)
		}
		q := s.Quote(params, "https://ex.example")
		if q.Price.Amount != c.want || q.Price.AmountCents != c.cents || q.Price.Currency != "USD" || q.ETAMinutes != s.ETAMinutes || q.Type != c.typ {
			t.Errorf("%s %s: quote %+v", c.typ, c.params, q)
		}
	}
}

func TestCatalogQuoteLinks(t *testing.T) {
	s := axp.ServiceFor("video")
	params, nerr := s.Normalize(map[string]any{"prompt": "waves", "duration": "10"}, true, "")
	if nerr != nil {
		t.Fatal(nerr)
	}
	q := s.Quote(params, "https://ex.example")
	u, err := url.Parse(q.CreateURL)
	if err != nil || u.Path != "/api/tasks/new" {
		t.Fatalf("create url %q", q.CreateURL)
	}
	want := url.Values{"type": {"video"}, "prompt": {"waves"}, "duration": {"10"}, "aspect": {"16:9"}}
	if got := u.Query(); got.Encode() != want.Encode() {
		t.Fatalf("create url query %v, want %v", got, want)
	}
	if q.Note == "" || q.AcceptanceCriteria == "" {
		t.Fatalf("quote %+v", q)
	}
	b, _ := json.Marshal(q)
	var back map[string]any
	json.Unmarshal(b, &back)
	for _, k := range []string{"type", "params", "price", "eta_minutes", "acceptance_criteria", "note", "also_sell", "create_url"} {
		if _, ok := back[k]; !ok {
			t.Errorf("quote JSON lacks %s", k)
		}
	}
	price := back["price"].(map[string]any)
	if price["amount"] != 4.0 || price["amount_cents"] != 400.0 || price["currency"] != "USD" {
		t.Errorf("price JSON %v", price)
	}
}

func TestCatalogDefaults(t *testing.T) {
	cases := map[string]struct {
		in   string
		want map[string]any
	}{
		"text-file":     {`{"prompt":"p"}`, map[string]any{"prompt": "p", "filename": "output.txt"}},
		"video":         {`{"prompt":"p"}`, map[string]any{"prompt": "p", "duration": 8, "aspect": "16:9"}},
		"image":         {`{"prompt":"p"}`, map[string]any{"prompt": "p", "count": 1, "size": "1024x1024"}},
		"transcription": {`{"source_url":"https://m.example/a"}`, map[string]any{"source_url": "https://m.example/a", "minutes": 10, "language": "auto"}},
		"translation":   {`{"text":"t","target_language":"fr"}`, map[string]any{"text": "t", "target_language": "fr", "words": 500}},
	}
	for typ, c := range cases {
		got, err := axp.ServiceFor(typ).Normalize(parseParams(t, c.in), false, "params")
		if err != nil {
			t.Errorf("%s: %v", typ, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", typ, got, c.want)
		}
		for k, v := range c.want {
			if !sameValue(got[k], v) {
				t.Errorf("%s: %s = %#v, want %#v", typ, k, got[k], v)
			}
		}
	}
	// The caller's map is not modified.
	in := map[string]any{"prompt": "p"}
	axp.ServiceFor("video").Normalize(in, false, "params")
	if len(in) != 1 {
		t.Errorf("Normalize changed its input: %v", in)
	}
}

// sameValue compares a param with an expected int or string whatever Go integer type holds it.
func sameValue(got, want any) bool {
	if w, ok := want.(int); ok {
		switch g := got.(type) {
		case int:
			return g == w
		case int64:
			return g == int64(w)
		case json.Number:
			n, err := g.Int64()
			return err == nil && n == int64(w)
		}
		return false
	}
	return got == want
}

func TestCatalogIntegersNormalized(t *testing.T) {
	// Every spelling of an integer count reaches sellers and links as the plain integer.
	got, err := axp.ServiceFor("image").Normalize(parseParams(t, `{"prompt":"p","count":2.0}`), false, "params")
	if err != nil {
		t.Fatal(err)
	}
	if got["count"] != int64(2) {
		t.Fatalf("count = %#v", got["count"])
	}
	got, err = axp.ServiceFor("video").Normalize(map[string]any{"prompt": "p", "duration": "1e1"}, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if got["duration"] != int64(10) {
		t.Fatalf("duration = %#v", got["duration"])
	}
}

func TestCatalogRefusals(t *testing.T) {
	cases := []struct {
		typ, params string
		fromQuery   bool
		field, msg  string
	}{
		{"video", `{"prompt":"p","duration":4}`, false, "params.duration", "the minimum is 5"},
		{"video", `{"prompt":"p","duration":31}`, false, "params.duration", "the maximum is 30"},
		{"video", `{"prompt":"p","duration":7.5}`, false, "params.duration", "whole number"},
		{"video", `{"prompt":"p","duration":"10"}`, false, "params.duration", "must be a number"}, // a body must send a number
		{"video", `{"prompt":"p","aspect":"4:3"}`, false, "params.aspect", "not one of the allowed values"},
		{"video", `{"duration":10}`, false, "params.prompt", "is required"},
		{"video", `{"prompt":""}`, false, "params.prompt", "must not be empty"},
		{"video", `{"prompt":"p","fps":60}`, false, "params.fps", "is not a known field"},
		{"video", `{"prompt":"` + strings.Repeat("x", 2001) + `"}`, false, "params.prompt", "at most 2000"},
		{"text-file", `{"prompt":"` + strings.Repeat("é", 4001) + `"}`, false, "params.prompt", "at most 4000"},
		{"text-file", `{"prompt":"p","filename":"` + strings.Repeat("f", 121) + `"}`, false, "params.filename", "at most 120"},
		{"image", `{"prompt":"p","count":0}`, false, "params.count", "the minimum is 1"},
		{"image", `{"prompt":"p","count":9}`, false, "params.count", "the maximum is 8"},
		{"image", `{"prompt":"p","size":"big"}`, false, "params.size", "does not match"},
		{"image", `{"prompt":"p","size":"32x32"}`, false, "params.size", "out of bounds"},
		{"image", `{"prompt":"p","size":"8192x1024"}`, false, "params.size", "out of bounds"},
		{"image", `{"prompt":"p","size":"1024x5000"}`, false, "params.size", "out of bounds"},
		{"transcription", `{}`, false, "params.source_url", "is required"},
		{"transcription", `{"source_url":"not a url"}`, false, "params.source_url", "http or https URL"},
		{"transcription", `{"source_url":"https://m.example/a","minutes":241}`, false, "params.minutes", "the maximum is 240"},
		{"transcription", `{"source_url":"https://m.example/a","minutes":0}`, false, "params.minutes", "the minimum is 1"},
		{"translation", `{"target_language":"fr"}`, false, "params.text", "text or source_url is required"},
		{"translation", `{"text":"","source_url":"","target_language":"fr"}`, false, "params.source_url", "http or https URL"},
		{"translation", `{"text":"hola"}`, false, "params.target_language", "is required"},
		{"translation", `{"text":"hola","target_language":"fr","words":50001}`, false, "params.words", "the maximum is 50000"},
		{"translation", `{"text":"hola","target_language":"fr","words":0}`, false, "params.words", "the minimum is 1"},
		// GET /api/quote names bare keys.
		{"video", `{"prompt":"p","duration":"4"}`, true, "duration", "the minimum is 5"},
		{"video", `{"prompt":"p","duration":"abc"}`, true, "duration", "must be a number"},
		{"video", `{"prompt":"p","duration":"7.5"}`, true, "duration", "whole number"},
		{"image", `{"prompt":"p","count":"9"}`, true, "count", "the maximum is 8"},
	}
	for _, c := range cases {
		field := "params"
		if c.fromQuery {
			field = ""
		}
		_, err := axp.ServiceFor(c.typ).Normalize(parseParams(t, c.params), c.fromQuery, field)
		if err == nil {
			t.Errorf("%s %.60s: accepted", c.typ, c.params)
			continue
		}
		if err.Code != protocol.CodeInvalidInput || !strings.HasPrefix(err.Field, c.field) || !strings.Contains(err.Message, c.msg) {
			t.Errorf("%s %.60s: got {%q %q}, want %q containing %q", c.typ, c.params, err.Field, err.Message, c.field, c.msg)
		}
		if err.Hint == "" {
			t.Errorf("%s %.60s: no hint", c.typ, c.params)
		}
	}
	// Unknown keys get the list of params as a hint.
	_, err := axp.ServiceFor("video").Normalize(map[string]any{"prompt": "p", "fps": "60"}, true, "")
	if err == nil || !strings.HasPrefix(err.Hint, "video takes: prompt (string, required, max 2000 chars); duration (integer, 5-30)") {
		t.Fatalf("hint %v", err)
	}
}

func TestCatalogFromQueryCoercion(t *testing.T) {
	s := axp.ServiceFor("video")
	got, err := s.Normalize(map[string]any{"prompt": "p", "duration": "10"}, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if !sameValue(got["duration"], 10) || s.Price(got) != axp.USD(4, 0) {
		t.Fatalf("duration %#v price %s", got["duration"], s.Price(got))
	}
	// Without fromQuery "10" stays a string and is refused.
	if _, err := s.Normalize(map[string]any{"prompt": "p", "duration": "10"}, false, "params"); err == nil {
		t.Fatal(`"10" accepted from a body`)
	}
}

func TestInferType(t *testing.T) {
	cases := map[string]string{
		"Make a short video of waves":                   "video",
		"an MP4 clip of a cat":                          "video",
		"Draw a logo for my bakery":                     "image",
		"a photo of a red fox":                          "image",
		"Transcribe this podcast episode":               "transcription",
		"Translate my README into French":               "translation",
		"Write a poem about autumn":                     "text-file",
		"a haiku":                                       "text-file",
		"":                                              "",
		"fix my car":                                    "",
		"write a poem and draw a picture":               "", // a tie is not a clear match
		"TRANSLATE THIS":                                "translation",
		"please summarize this report in a text file":   "text-file",
		"an animation video clip with subtitles":        "video",
		"transcribe the audio recording of the meeting": "transcription",
	}
	for in, want := range cases {
		if got := axp.InferType(in); got != want {
			t.Errorf("InferType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatchServices(t *testing.T) {
	types := func(list []*axp.Service) []string {
		var out []string
		for _, s := range list {
			out = append(out, s.Type)
		}
		return out
	}
	if got := types(axp.MatchServices("I need an image")); len(got) == 0 || got[0] != "image" {
		t.Errorf("image: %v", got)
	}
	if got := types(axp.MatchServices("translation")); len(got) == 0 || got[0] != "translation" {
		t.Errorf("translation: %v", got)
	}
	got := types(axp.MatchServices("a video with subtitles"))
	if len(got) != 2 || got[0] != "video" || got[1] != "transcription" {
		t.Errorf("video with subtitles: %v", got)
	}
	if got := axp.MatchServices("quantum chromodynamics"); len(got) != 0 {
		t.Errorf("nothing matches, got %v", types(got))
	}
}

func TestHasParamAndParamsField(t *testing.T) {
	svc := axp.ServiceFor("text-file")
	if svc == nil || !svc.HasParam("prompt") || svc.HasParam("no_such_param") {
		t.Errorf("text-file's params: %+v", svc)
	}
	if axp.ParamsField(true) != "" || axp.ParamsField(false) != "params" {
		t.Error("params are bare query keys on GET and under params in a body")
	}
}
