package axp

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"sort"
	"strings"
	"unicode"

	"github.com/axp-exchange/axp/protocol"
)

// Param describes one parameter of a catalog service (spec 2.8).
type Param struct {
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	Required  bool     `json:"required"`
	Default   any      `json:"default,omitempty"`
	Min       *int     `json:"minimum,omitempty"`
	Max       *int     `json:"maximum,omitempty"`
	MaxLength *int     `json:"max_length,omitempty"`
	Enum      []string `json:"enum,omitempty"`
	Doc       string   `json:"description"`
	// Source marks data-source params whose links survive contact-detail removal.
	Source bool `json:"data_source,omitempty"`
}

// Pricing describes how a catalog price is computed.
type Pricing struct {
	Text       string `json:"text"`
	BaseUSD    Money  `json:"base_usd"`
	PerUnitUSD Money  `json:"per_unit_usd"`
	Unit       string `json:"unit"`
	// PerUnits is how many units the per-unit price covers (1000 for "per 1,000 words").
	PerUnits   int64 `json:"per_units"`
	MinimumUSD Money `json:"minimum_usd"`
	// UnitParam is the param counting units; empty means one unit.
	UnitParam string `json:"unit_param,omitempty"`
}

// Service is one catalog entry.
type Service struct {
	Type               string  `json:"type"`
	Name               string  `json:"name"`
	Summary            string  `json:"summary"`
	Params             []Param `json:"params"`
	AcceptanceCriteria string  `json:"acceptance_criteria"`
	ETAMinutes         int     `json:"eta_minutes"`
	Pricing            Pricing `json:"pricing"`
	ExampleQuoteURL    string  `json:"example_quote_url"`
	// example holds the query of the example quote.
	example url.Values
	// keywords help infer the type of a free-text brief.
	keywords []string
	schema   *protocol.Schema
}

func ip(v int) *int { return &v }

// Services is the catalog of spec 2.8, in its order.
var Services = []*Service{
	{
		Type: "text-file", Name: "Text file", Summary: "A plain UTF-8 text file written to your prompt.",
		Params: []Param{
			{Name: "prompt", Type: "string", Required: true, MaxLength: ip(4000), Doc: "what the file should contain"},
			{Name: "filename", Type: "string", Default: "output.txt", MaxLength: ip(120), Doc: "name of the file"},
		},
		AcceptanceCriteria: "Plain UTF-8, non-empty, content does what the prompt asked.",
		ETAMinutes:         5,
		Pricing:            Pricing{Text: "US$0.20 per file", PerUnitUSD: USD(0, 20), Unit: "file", PerUnits: 1},
		example:            url.Values{"prompt": {"A haiku about autumn"}},
		keywords:           []string{"text", "write", "file", "essay", "article", "poem", "haiku", "story", "summary", "summarize", "summarise", "document", "list", "markdown", "txt", "blog", "email draft", "report", "letter"},
	},
	{
		Type: "video", Name: "Video", Summary: "A short generated video clip.",
		Params: []Param{
			{Name: "prompt", Type: "string", Required: true, MaxLength: ip(2000), Doc: "what the video shows"},
			{Name: "duration", Type: "integer", Default: 8, Min: ip(5), Max: ip(30), Doc: "length in seconds"},
			{Name: "aspect", Type: "string", Default: "16:9", Enum: []string{"16:9", "9:16", "1:1"}, Doc: "aspect ratio"},
		},
		AcceptanceCriteria: "MP4, duration within 1 s of requested, at least 720p, content matches prompt.",
		ETAMinutes:         30,
		Pricing:            Pricing{Text: "US$1.50 + US$0.25 per second", BaseUSD: USD(1, 50), PerUnitUSD: USD(0, 25), Unit: "second", PerUnits: 1, UnitParam: "duration"},
		example:            url.Values{"prompt": {"A drone shot over a coastline"}, "duration": {"10"}},
		keywords:           []string{"video", "clip", "animation", "animate", "movie", "mp4", "footage", "film"},
	},
	{
		Type: "image", Name: "Image", Summary: "Generated PNG images.",
		Params: []Param{
			{Name: "prompt", Type: "string", Required: true, MaxLength: ip(2000), Doc: "what the image shows"},
			{Name: "count", Type: "integer", Default: 1, Min: ip(1), Max: ip(8), Doc: "number of images"},
			{Name: "size", Type: "string", Default: "1024x1024", MaxLength: ip(9), Doc: "WIDTHxHEIGHT in pixels, 64 to 4096 each"},
		},
		AcceptanceCriteria: "PNG files, requested count, content matches prompt.",
		ETAMinutes:         15,
		Pricing:            Pricing{Text: "US$0.40 per image", PerUnitUSD: USD(0, 40), Unit: "image", PerUnits: 1, UnitParam: "count"},
		example:            url.Values{"prompt": {"A red fox in the snow"}, "count": {"2"}},
		keywords:           []string{"image", "images", "picture", "photo", "illustration", "logo", "drawing", "draw", "png", "icon", "artwork", "poster"},
	},
	{
		Type: "transcription", Name: "Transcription", Summary: "A timestamped text transcript of audio or video.",
		Params: []Param{
			{Name: "source_url", Type: "string", Required: true, MaxLength: ip(2000), Doc: "link to the audio or video", Source: true},
			{Name: "minutes", Type: "integer", Default: 10, Min: ip(1), Max: ip(240), Doc: "length of the recording in minutes"},
			{Name: "language", Type: "string", Default: "auto", MaxLength: ip(40), Doc: "spoken language, or auto"},
		},
		AcceptanceCriteria: "Text transcript, timestamps, covers the full duration.",
		ETAMinutes:         20,
		Pricing:            Pricing{Text: "US$0.02 per minute, minimum US$0.50", PerUnitUSD: USD(0, 2), Unit: "minute", PerUnits: 1, MinimumUSD: USD(0, 50), UnitParam: "minutes"},
		example:            url.Values{"source_url": {"https://media.example/interview.mp3"}, "minutes": {"30"}},
		keywords:           []string{"transcribe", "transcription", "transcript", "speech to text", "subtitles", "captions", "podcast", "audio", "recording"},
	},
	{
		Type: "translation", Name: "Translation", Summary: "Text translated into a target language.",
		Params: []Param{
			{Name: "text", Type: "string", MaxLength: ip(20000), Doc: "the text to translate (or give source_url)"},
			{Name: "source_url", Type: "string", MaxLength: ip(2000), Doc: "link to the text to translate (or give text)", Source: true},
			{Name: "target_language", Type: "string", Required: true, MaxLength: ip(40), Doc: "language to translate into"},
			{Name: "words", Type: "integer", Default: 500, Min: ip(1), Max: ip(50000), Doc: "number of words"},
		},
		AcceptanceCriteria: "Text in the target language, meaning preserved, formatting preserved where possible.",
		ETAMinutes:         20,
		Pricing:            Pricing{Text: "US$2.00 per 1,000 words, minimum US$0.50", PerUnitUSD: USD(2, 0), Unit: "word", PerUnits: 1000, MinimumUSD: USD(0, 50), UnitParam: "words"},
		example:            url.Values{"target_language": {"fr"}, "words": {"1200"}},
		keywords:           []string{"translate", "translation", "translator", "into french", "into spanish", "into german", "into english", "into japanese", "into chinese", "localize", "localise"},
	},
}

func init() {
	for _, s := range Services {
		s.schema = s.buildSchema()
	}
}

// Service returns the catalog service of a type, or nil.
func ServiceFor(typ string) *Service {
	for _, s := range Services {
		if s.Type == typ {
			return s
		}
	}
	return nil
}

func (s *Service) buildSchema() *protocol.Schema {
	sc := &protocol.Schema{Type: "object", AdditionalProperties: false}
	for _, p := range s.Params {
		ps := &protocol.Schema{Type: p.Type, Description: p.Doc, Default: p.Default}
		if p.MaxLength != nil {
			ps.MaxLength = p.MaxLength
		}
		if p.Required && p.Type == "string" {
			ps.MinLength = ip(1)
		}
		if p.Min != nil {
			ps.Minimum = json.Number(fmt.Sprint(*p.Min))
		}
		if p.Max != nil {
			ps.Maximum = json.Number(fmt.Sprint(*p.Max))
		}
		for _, e := range p.Enum {
			ps.Enum = append(ps.Enum, e)
		}
		if p.Name == "size" {
			ps.Pattern = `^[0-9]{2,4}x[0-9]{2,4}$`
		}
		if p.Source {
			ps.Format = "uri"
		}
		sc.AddProperty(p.Name, ps, p.Required)
	}
	return sc
}

// ParamsSchema is the JSON Schema of the service's params.
func (s *Service) ParamsSchema() *protocol.Schema { return s.schema }

// HasParam reports whether the service takes a param of that name.
func (s *Service) HasParam(name string) bool {
	for _, p := range s.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// ParamsField is the field prefix of service params: bare query keys on GET, "params" in a body.
func ParamsField(fromQuery bool) string {
	if fromQuery {
		return ""
	}
	return "params"
}

// Normalize validates params against the service and fills in defaults. fromQuery says the values
// arrived as query text (so "10" may stand for the integer 10). field prefixes error fields
// ("params" in a task body, "" on GET /api/quote).
func (s *Service) Normalize(params map[string]any, fromQuery bool, field string) (map[string]any, *Error) {
	return s.normalize(params, fromQuery, field, true)
}

// QuoteParams is Normalize for a quote: only the params the spec requires and those the price
// depends on are needed, not what a seller needs to do the job (a translation's text).
func (s *Service) QuoteParams(params map[string]any, fromQuery bool, field string) (map[string]any, *Error) {
	return s.normalize(params, fromQuery, field, false)
}

func (s *Service) normalize(params map[string]any, fromQuery bool, field string, forTask bool) (map[string]any, *Error) {
	out := make(map[string]any, len(s.Params))
	for k, v := range params {
		out[k] = v
	}
	if fromQuery {
		protocol.Coerce(s.schema, out)
	}
	if err := protocol.Validate(s.schema, out, field); err != nil {
		if err.Hint == "" || strings.HasPrefix(err.Hint, "known fields") {
			err.Hint = s.paramHint()
		}
		return nil, err
	}
	for _, p := range s.Params {
		v, ok := out[p.Name]
		switch {
		case !ok && p.Default != nil:
			out[p.Name] = p.Default
		case ok && p.Type == "integer":
			// The schema admits any JSON number with an integral value (10, 10.0, 1e1); store
			// the plain integer so that prices, sellers and links all read the same count.
			if n, ok := integer(v); ok {
				out[p.Name] = n
			}
		}
	}
	switch s.Type {
	case "image":
		var w, h int
		fmt.Sscanf(out["size"].(string), "%dx%d", &w, &h)
		if w < 64 || w > 4096 || h < 64 || h > 4096 {
			return nil, Invalid(joinField(field, "size"), fmt.Sprintf("%q is out of bounds", out["size"]), "width and height must each be 64 to 4096, e.g. 1024x1024")
		}
	case "translation":
		if forTask && str(out["text"]) == "" && str(out["source_url"]) == "" {
			return nil, Invalid(joinField(field, "text"), "text or source_url is required", "give the text to translate, or a source_url where it can be read")
		}
	}
	return out, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func joinField(base, name string) string {
	if base == "" {
		return name
	}
	return base + "." + name
}

func (s *Service) paramHint() string {
	var parts []string
	for _, p := range s.Params {
		d := p.Name + " (" + p.Type
		if p.Required {
			d += ", required"
		}
		if p.Min != nil && p.Max != nil {
			d += fmt.Sprintf(", %d-%d", *p.Min, *p.Max)
		}
		if p.MaxLength != nil {
			d += fmt.Sprintf(", max %d chars", *p.MaxLength)
		}
		if len(p.Enum) > 0 {
			d += ", one of " + strings.Join(p.Enum, " ")
		}
		d += ")"
		parts = append(parts, d)
	}
	return s.Type + " takes: " + strings.Join(parts, "; ")
}

// Price computes the catalog price of normalized params.
func (s *Service) Price(params map[string]any) Money {
	units := int64(1)
	if s.Pricing.UnitParam != "" {
		units = intParam(params[s.Pricing.UnitParam])
	}
	p := s.Pricing.BaseUSD + s.Pricing.PerUnitUSD.MulDiv(units, s.Pricing.PerUnits)
	if p < s.Pricing.MinimumUSD {
		p = s.Pricing.MinimumUSD
	}
	return p
}

func intParam(v any) int64 {
	n, _ := integer(v)
	return n
}

// integer reads a whole number held as a Go integer, a float64 (as encoding/json decodes into any)
// or a json.Number in any JSON spelling ("10", "10.0", "1e1").
func integer(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, true
		}
		if r, ok := new(big.Rat).SetString(x.String()); ok && r.IsInt() && r.Num().IsInt64() {
			return r.Num().Int64(), true
		}
	}
	return 0, false
}

// CatalogPrice is a price in the catalog quote.
type CatalogPrice struct {
	Amount      Money  `json:"amount"`
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
}

// CatalogQuote is the answer of GET /api/quote (spec 2.8).
type CatalogQuote struct {
	Type               string             `json:"type"`
	Params             map[string]any     `json:"params"`
	Price              CatalogPrice       `json:"price"`
	ETAMinutes         int                `json:"eta_minutes"`
	AcceptanceCriteria string             `json:"acceptance_criteria"`
	Note               string             `json:"note"`
	AlsoSell           *protocol.AlsoSell `json:"also_sell"`
	CreateURL          string             `json:"create_url"`
}

// Quote prices normalized params of the service.
func (s *Service) Quote(params map[string]any, base string) CatalogQuote {
	price := s.Price(params)
	return CatalogQuote{
		Type: s.Type, Params: params,
		Price:              CatalogPrice{Amount: price, AmountCents: price.Cents(), Currency: "USD"},
		ETAMinutes:         s.ETAMinutes,
		AcceptanceCriteria: s.AcceptanceCriteria,
		Note:               "Catalog price; real offers from sellers may differ.",
		CreateURL:          base + "/api/tasks/new?" + paramsQuery(s.Type, params),
	}
}

// Example is the value the catalog's example quote gives param ("" when it gives none).
func (s *Service) Example(param string) string { return s.example.Get(param) }

// ExampleURL is the example quote link of the entry.
func (s *Service) ExampleURL(base string) string {
	q := url.Values{"type": {s.Type}}
	for k, v := range s.example {
		q[k] = v
	}
	return base + "/api/quote?" + q.Encode()
}

func paramsQuery(typ string, params map[string]any) string {
	q := url.Values{"type": {typ}}
	for k, v := range params {
		q.Set(k, fmt.Sprint(v))
	}
	return q.Encode()
}

// InferType guesses a task type from a free-text brief. It returns "" when no service matches
// clearly (no keyword, or a tie).
func InferType(description string) string {
	d := " " + strings.ToLower(description) + " "
	best, bestScore, tie := "", 0, false
	for _, s := range Services {
		score := 0
		for _, k := range s.keywords {
			if strings.Contains(d, " "+k) {
				score++
			}
		}
		switch {
		case score > bestScore:
			best, bestScore, tie = s.Type, score, false
		case score == bestScore && score > 0:
			tie = true
		}
	}
	if tie || bestScore == 0 {
		return ""
	}
	return best
}

// Languages are the language names a brief is read for, in lower case.
var Languages = []string{"english", "french", "spanish", "german", "italian", "portuguese", "dutch", "japanese", "chinese", "mandarin",
	"cantonese", "korean", "russian", "arabic", "hindi", "turkish", "polish", "swedish", "norwegian", "danish", "finnish", "greek",
	"hebrew", "czech", "hungarian", "romanian", "ukrainian", "vietnamese", "thai", "indonesian", "malay", "bengali", "urdu",
	"persian", "farsi", "swahili", "catalan", "croatian", "serbian", "bulgarian", "slovak", "slovenian", "estonian", "latvian",
	"lithuanian", "tagalog", "filipino", "afrikaans", "irish", "welsh", "icelandic", "latin", "esperanto", "tamil", "telugu",
	"punjabi", "marathi", "gujarati", "brazilian portuguese"}

// BriefLanguage is the language a brief asks a text to be put into ("into French", "to German"),
// capitalised, or "".
func BriefLanguage(brief string) string {
	d := " " + strings.Join(strings.FieldsFunc(strings.ToLower(brief), func(r rune) bool {
		return !unicode.IsLetter(r)
	}), " ") + " "
	for _, l := range Languages {
		if strings.Contains(d, " into "+l+" ") || strings.Contains(d, " to "+l+" ") {
			return strings.ToUpper(l[:1]) + l[1:]
		}
	}
	return ""
}

// HasKeyword reports whether w (lower case) is one of the words that name the service in a brief.
func (s *Service) HasKeyword(w string) bool {
	if w == s.Type || w == strings.ToLower(s.Name) {
		return true
	}
	for _, k := range s.keywords {
		if k == w || k+"s" == w {
			return true
		}
	}
	return false
}

// SuggestType is the task type a free-text brief suggests: InferType, else the best match of
// MatchServices, else "". GET /api/search and the talk assistant read briefs with it.
func SuggestType(q string) string {
	if t := InferType(q); t != "" {
		return t
	}
	if m := MatchServices(q); len(m) > 0 {
		return m[0].Type
	}
	return ""
}

// MatchServices ranks catalog services by how well they match a free-text query.
func MatchServices(q string) []*Service {
	d := " " + strings.ToLower(q) + " "
	type scored struct {
		s     *Service
		score int
	}
	var list []scored
	for _, s := range Services {
		score := 0
		for _, k := range s.keywords {
			if strings.Contains(d, " "+k) {
				score += 2
			}
		}
		if strings.Contains(d, s.Type) || strings.Contains(d, strings.ToLower(s.Name)) {
			score += 3
		}
		if score > 0 {
			list = append(list, scored{s, score})
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].score > list[j].score })
	out := make([]*Service, len(list))
	for i, x := range list {
		out[i] = x.s
	}
	return out
}
