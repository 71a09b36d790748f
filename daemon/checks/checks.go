// Package checks runs the acceptance checks a buyer states at task creation (docs/design.md section 9)
// on every delivery: sizes, lines, strings, regular expressions, JSON, JSON Schema (draft 2020-12,
// by santhosh-tekuri/jsonschema) and media types sniffed from the content.
package checks

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/axp-exchange/axp"
)

// Acceptance checks (docs/design.md section 9): the buyer states them at task creation, ValidateChecks
// refuses anything it could not check faithfully, and RunChecks runs them on every delivery. A
// check set is stored as JSON, so everything here accepts numbers as int64, float64 or json.Number
// and RunChecks re-validates each stored check rather than trusting it.

// Keys lists every acceptance check key, sorted.
var Keys = []string{"json", "json_schema", "max_bytes", "max_lines", "mime_type", "min_bytes",
	"min_lines", "must_contain", "must_contain_lines", "must_not_contain", "regex"}

// Limits on a check set, so that checking stays cheap on a 256 KB delivery and a check set stays
// small in storage.
const (
	checkMaxList        = 50      // entries in any list
	checkMaxString      = 2000    // characters in any string
	checkMaxRegex       = 500     // characters in a regular expression
	checkMaxDepth       = 10      // nesting of a json_schema
	checkMaxSchemas     = 500     // schemas (nodes) in a json_schema
	checkMaxInt         = 1 << 53 // largest integer that survives a trip through float64 unchanged
	checkMaxSchemaCount = math.MaxInt32
)

// checker is one parsed check, ready to run.
type checker interface {
	run(s *checkSubject) (passed bool, detail string)
}

// checkParsers parse and normalize the value of each key. A nil checker with no error means the
// check asks for nothing ("json": false).
var checkParsers = map[string]func(v any, field string) (any, checker, *axp.Error){
	"json":               parseJSONCheck,
	"json_schema":        parseSchemaCheck,
	"max_bytes":          sizeParser(false, false),
	"max_lines":          sizeParser(false, true),
	"min_bytes":          sizeParser(true, false),
	"min_lines":          sizeParser(true, true),
	"mime_type":          parseMimeCheck,
	"must_contain":       parseContainCheck(false),
	"must_contain_lines": parseLinesCheck,
	"must_not_contain":   parseContainCheck(true),
	"regex":              parseRegexCheck,
}

// Validate validates the acceptance_checks object of a new task and returns it normalized:
// lists where a single string was given, integers as int64, mime types in canonical form. Any
// problem is an invalid_input error naming the offending key ("acceptance_checks.max_bytes") or
// entry ("acceptance_checks.must_contain_lines[2]").
func Validate(checks map[string]any) (map[string]any, *axp.Error) {
	if checks == nil {
		return nil, nil
	}
	out := make(map[string]any, len(checks))
	for _, k := range sortedCheckKeys(checks) {
		field := "acceptance_checks." + clipRunes(k, 80)
		parse, ok := checkParsers[k]
		if !ok {
			return nil, axp.Invalid(field, "is not a known check", "known checks: "+strings.Join(Keys, ", "))
		}
		norm, c, err := parse(checks[k], field)
		if err != nil {
			return nil, err
		}
		if c != nil {
			out[k] = norm
		}
	}
	for _, p := range [][2]string{{"min_bytes", "max_bytes"}, {"min_lines", "max_lines"}} {
		lo, okLo := out[p[0]].(int64)
		hi, okHi := out[p[1]].(int64)
		if okLo && okHi && lo > hi {
			return nil, axp.Invalid("acceptance_checks."+p[0],
				fmt.Sprintf("is %s, more than %s (%s)", checkCount(lo), p[1], checkCount(hi)),
				"no delivery could pass both; lower "+p[0]+" or raise "+p[1])
		}
	}
	return out, nil
}

// Run runs a check set on delivered content: one result per key, sorted by key. A key that
// is unknown or whose value is not a valid check fails rather than being skipped, so that a
// damaged check set never passes silently.
func Run(checks map[string]any, content []byte) []axp.CheckResult {
	s := &checkSubject{content: content}
	results := make([]axp.CheckResult, 0, len(checks))
	for _, k := range sortedCheckKeys(checks) {
		if r, ok := runCheck(k, checks[k], s); ok {
			results = append(results, r)
		}
	}
	return results
}

// Passed reports whether every result passed (true for no checks at all).
func Passed(results []axp.CheckResult) bool {
	for _, r := range results {
		if !r.Passed {
			return false
		}
	}
	return true
}

func runCheck(name string, v any, s *checkSubject) (r axp.CheckResult, ok bool) {
	r.Name = name
	parse, known := checkParsers[name]
	if !known {
		r.Detail = "unknown check; known checks: " + strings.Join(Keys, ", ")
		return r, true
	}
	_, c, err := parse(v, "acceptance_checks."+name)
	if err != nil {
		r.Detail = "the check itself is invalid: " + err.Error()
		return r, true
	}
	if c == nil {
		return r, false
	}
	// Checks run on content chosen by a seller against rules chosen by a buyer; a bug here must
	// fail one check, not the delivery call.
	defer func() {
		if p := recover(); p != nil {
			r.Passed, r.Detail, ok = false, fmt.Sprintf("internal error while checking: %v", p), true
		}
	}()
	r.Passed, r.Detail = c.run(s)
	return r, true
}

func sortedCheckKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// checkSubject is the delivered content with what several checks need computed once.
type checkSubject struct {
	content []byte

	text     *string
	lineList []string
	linesOK  bool

	jsonDone bool
	jsonVal  any
	jsonErr  string

	types []string
}

func (s *checkSubject) str() string {
	if s.text == nil {
		t := string(s.content)
		s.text = &t
	}
	return *s.text
}

// lines splits the content on \n, dropping one trailing \r from each line; a final newline does
// not start another line, so empty content has no lines and "a\n" has one.
func (s *checkSubject) lines() []string {
	if !s.linesOK {
		s.linesOK = true
		if t := s.str(); t != "" {
			s.lineList = strings.Split(strings.TrimSuffix(t, "\n"), "\n")
			for i, l := range s.lineList {
				s.lineList[i] = strings.TrimSuffix(l, "\r")
			}
		}
	}
	return s.lineList
}

// lineAt is the 1-based line number of byte offset i.
func (s *checkSubject) lineAt(i int) int {
	return bytes.Count(s.content[:i], []byte{'\n'}) + 1
}

// parsed decodes the content as one JSON value (numbers as json.Number, as protocol.Validate
// expects); problem says why it is not JSON.
func (s *checkSubject) parsed() (v any, problem string) {
	if s.jsonDone {
		return s.jsonVal, s.jsonErr
	}
	s.jsonDone = true
	s.jsonVal, s.jsonErr = s.decodeJSON()
	return s.jsonVal, s.jsonErr
}

func (s *checkSubject) decodeJSON() (any, string) {
	c := s.content
	if !utf8.Valid(c) {
		i := invalidUTF8At(c)
		return nil, fmt.Sprintf("the content is not UTF-8 text (byte 0x%02x at offset %d)", c[i], i)
	}
	if len(bytes.TrimSpace(c)) == 0 {
		return nil, "the content is empty"
	}
	if bytes.HasPrefix(c, []byte("\xef\xbb\xbf")) {
		return nil, "the content starts with a byte order mark"
	}
	dec := json.NewDecoder(bytes.NewReader(c))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return nil, strings.TrimPrefix(se.Error(), "json: ") + " " + s.position(int(se.Offset))
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, "the content ends before the JSON value is complete"
		}
		return nil, err.Error()
	}
	end := int(dec.InputOffset())
	rest := c[end:]
	if trimmed := bytes.TrimLeft(rest, " \t\r\n"); len(trimmed) > 0 {
		return nil, "unexpected data after the JSON value " + s.position(len(c)-len(trimmed)+1)
	}
	return v, ""
}

// position names a 1-based byte offset as a line and column.
func (s *checkSubject) position(off int) string {
	if off < 1 {
		off = 1
	}
	if off > len(s.content) {
		off = len(s.content)
	}
	before := s.content[:off-1]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := off - bytes.LastIndexByte(before, '\n') - 1
	return fmt.Sprintf("at line %d, column %d", line, col)
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

// ---- numbers, strings and lists ----

// checkInt reads a non-negative integer given as any Go number or json.Number, up to 2^53 so that
// it survives storage as a float64.
func checkInt(v any, field string) (int64, *axp.Error) {
	var f float64
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return intRange(i, field)
		}
		g, err := strconv.ParseFloat(string(x), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, axp.Invalid(field, "must be a non-negative integer, not "+checkKind(v), "for example 4096")
		}
		f = g
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		return intRange(int64(x), field)
	case int8:
		return intRange(int64(x), field)
	case int16:
		return intRange(int64(x), field)
	case int32:
		return intRange(int64(x), field)
	case int64:
		return intRange(x, field)
	case uint, uint8, uint16, uint32, uint64:
		u, _ := strconv.ParseUint(fmt.Sprint(x), 10, 64)
		if u > checkMaxInt {
			return intRange(checkMaxInt+1, field)
		}
		return int64(u), nil
	default:
		return 0, axp.Invalid(field, "must be a non-negative integer, not "+checkKind(v), "for example 4096")
	}
	switch {
	case math.IsNaN(f):
		return 0, axp.Invalid(field, "must be a non-negative integer, not "+checkKind(v), "for example 4096")
	case f < 0:
		return 0, axp.Invalid(field, "is "+strings.TrimPrefix(checkKind(v), "the number ")+"; it must not be negative", "")
	case f > checkMaxInt:
		return intRange(checkMaxInt+1, field)
	case f != math.Trunc(f):
		return 0, axp.Invalid(field, "must be a whole number, not "+strings.TrimPrefix(checkKind(v), "the number "), "")
	}
	return int64(f), nil
}

func intRange(i int64, field string) (int64, *axp.Error) {
	if i < 0 {
		return 0, axp.Invalid(field, fmt.Sprintf("is %d; it must not be negative", i), "")
	}
	if i > checkMaxInt {
		return 0, axp.Invalid(field, "is too large", fmt.Sprintf("at most %s", checkCount(checkMaxInt)))
	}
	return i, nil
}

// checkNumber reads any JSON number and normalizes it: an int64 when it is a whole number within
// ±2^53, else a json.Number in float64's shortest form, so the value is the same after the check
// set has been stored as JSON and read back as float64.
func checkNumber(v any) (norm any, text json.Number, ok bool) {
	var f float64
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil && i >= -checkMaxInt && i <= checkMaxInt {
			return i, json.Number(strconv.FormatInt(i, 10)), true
		}
		g, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, "", false
		}
		f = g
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		r, ok := new(big.Rat).SetString(fmt.Sprint(x))
		if !ok {
			return nil, "", false
		}
		f, _ = r.Float64()
	default:
		return nil, "", false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, "", false
	}
	if f == math.Trunc(f) && math.Abs(f) <= checkMaxInt {
		i := int64(f)
		return i, json.Number(strconv.FormatInt(i, 10)), true
	}
	t := json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	return t, t, true
}

// checkKind describes a decoded JSON value for an error message.
func checkKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "the string " + checkQuote(x)
	case bool:
		return strconv.FormatBool(x)
	case []any, []string:
		return "an array"
	case map[string]any:
		return "an object"
	case json.Number:
		return "the number " + clipRunes(x.String(), 40)
	case float64:
		return "the number " + strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return "the number " + strconv.FormatFloat(float64(x), 'g', -1, 32)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint("the number ", x)
	}
	return fmt.Sprintf("a %T", v)
}

// checkStrings reads a list of non-empty strings, or a single string when single is set.
func checkStrings(v any, field string, single bool, maxLen int) ([]string, *axp.Error) {
	var items []any
	switch x := v.(type) {
	case string:
		if !single {
			return nil, axp.Invalid(field, "must be an array of strings, not "+checkKind(v), "for example [\"first\", \"second\"]")
		}
		items = []any{x}
	case []string:
		for _, e := range x {
			items = append(items, e)
		}
	case []any:
		items = x
	default:
		want := "an array of strings"
		if single {
			want = "a string or an array of strings"
		}
		return nil, axp.Invalid(field, "must be "+want+", not "+checkKind(v), "")
	}
	if len(items) == 0 {
		return nil, axp.Invalid(field, "must list at least one string", "leave the key out to skip this check")
	}
	if len(items) > checkMaxList {
		return nil, axp.Invalid(field, fmt.Sprintf("has %d entries; at most %d are allowed", len(items), checkMaxList), "")
	}
	out := make([]string, len(items))
	for i, e := range items {
		f := fmt.Sprintf("%s[%d]", field, i)
		if _, one := v.(string); one {
			f = field
		}
		s, ok := e.(string)
		switch {
		case !ok:
			return nil, axp.Invalid(f, "must be a string, not "+checkKind(e), "")
		case s == "":
			return nil, axp.Invalid(f, "must not be empty", "")
		case !utf8.ValidString(s):
			return nil, axp.Invalid(f, "is not valid UTF-8", "")
		}
		if n := utf8.RuneCountInString(s); n > maxLen {
			return nil, axp.Invalid(f, fmt.Sprintf("is %s characters; at most %s are allowed", checkCount(int64(n)), checkCount(int64(maxLen))), "shorten it")
		}
		out[i] = s
	}
	return out, nil
}

// ---- sizes ----

type sizeCheck struct {
	limit   int64
	atLeast bool
	lines   bool
}

func sizeParser(atLeast, lines bool) func(v any, field string) (any, checker, *axp.Error) {
	return func(v any, field string) (any, checker, *axp.Error) {
		n, err := checkInt(v, field)
		if err != nil {
			return nil, nil, err
		}
		return n, sizeCheck{limit: n, atLeast: atLeast, lines: lines}, nil
	}
}

func (c sizeCheck) run(s *checkSubject) (bool, string) {
	n, unit := int64(len(s.content)), "byte"
	if c.lines {
		n, unit = int64(len(s.lines())), "line"
	}
	got := checkPlural(n, unit)
	if c.atLeast && n < c.limit {
		return false, fmt.Sprintf("%s; at least %s required", got, checkCount(c.limit))
	}
	if !c.atLeast && n > c.limit {
		return false, fmt.Sprintf("%s; at most %s allowed", got, checkCount(c.limit))
	}
	return true, got
}

// ---- text ----

type linesCheck struct{ want []string }

func parseLinesCheck(v any, field string) (any, checker, *axp.Error) {
	want, err := checkStrings(v, field, true, checkMaxString)
	if err != nil {
		return nil, nil, err
	}
	for i, l := range want {
		if strings.ContainsAny(l, "\r\n") {
			f := fmt.Sprintf("%s[%d]", field, i)
			if _, one := v.(string); one {
				f = field
			}
			return nil, nil, axp.Invalid(f, "must be a single line", "give each line as its own entry, without line breaks")
		}
	}
	return want, linesCheck{want}, nil
}

func (c linesCheck) run(s *checkSubject) (bool, string) {
	found := make(map[string]bool, len(c.want))
	trimmed := make(map[string]string, len(c.want)) // trimmed wanted line -> wanted line
	for _, w := range c.want {
		found[w] = false
		trimmed[strings.TrimSpace(w)] = w
	}
	near := map[string]int{} // wanted line -> first content line differing only in spacing
	for i, l := range s.lines() {
		if _, ok := found[l]; ok {
			found[l] = true
			continue
		}
		if w, ok := trimmed[strings.TrimSpace(l)]; ok {
			if _, seen := near[w]; !seen {
				near[w] = i + 1
			}
		}
	}
	var missing []int
	for i, w := range c.want {
		if !found[w] {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return true, ""
	}
	d := missingDetail("line", "lines", missing, c.want)
	for _, i := range missing {
		if n, ok := near[c.want[i]]; ok {
			d += fmt.Sprintf(" (line %d of the content differs only in spacing: %s)", n, checkQuote(s.lines()[n-1]))
			break
		}
	}
	return false, d
}

type containCheck struct {
	want []string
	not  bool
}

func parseContainCheck(not bool) func(v any, field string) (any, checker, *axp.Error) {
	return func(v any, field string) (any, checker, *axp.Error) {
		want, err := checkStrings(v, field, true, checkMaxString)
		if err != nil {
			return nil, nil, err
		}
		return want, containCheck{want: want, not: not}, nil
	}
}

func (c containCheck) run(s *checkSubject) (bool, string) {
	if c.not {
		var parts []string
		for _, w := range c.want {
			if i := bytes.Index(s.content, []byte(w)); i >= 0 {
				parts = append(parts, fmt.Sprintf("%s at line %d", checkQuote(w), s.lineAt(i)))
			}
		}
		switch {
		case len(parts) == 0:
			return true, ""
		case len(c.want) == 1:
			return false, "found " + parts[0]
		}
		return false, fmt.Sprintf("found %d of %d: %s", len(parts), len(c.want), checkList(parts))
	}
	var missing []int
	for i, w := range c.want {
		if !bytes.Contains(s.content, []byte(w)) {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return true, ""
	}
	d := missingDetail("string", "strings", missing, c.want)
	lower := bytes.ToLower(s.content)
	for _, i := range missing {
		if at := bytes.Index(lower, bytes.ToLower([]byte(c.want[i]))); at >= 0 && len(lower) == len(s.content) {
			d += fmt.Sprintf(" (%s appears with different letter case at line %d)", checkQuote(c.want[i]), s.lineAt(at))
			break
		}
	}
	return false, d
}

// missingDetail says which of the wanted entries are missing: `missing line 2 of 3: "total: 4"`.
func missingDetail(noun, nouns string, missing []int, want []string) string {
	if len(want) == 1 {
		return "missing " + noun + " " + checkQuote(want[0])
	}
	nums := make([]string, len(missing))
	vals := make([]string, len(missing))
	for j, i := range missing {
		nums[j] = strconv.Itoa(i + 1)
		vals[j] = checkQuote(want[i])
	}
	if len(missing) == 1 {
		return fmt.Sprintf("missing %s %s of %d: %s", noun, nums[0], len(want), vals[0])
	}
	return fmt.Sprintf("missing %s %s of %d: %s", nouns, joinAnd(nums), len(want), checkList(vals))
}

type regexCheck struct {
	src []string
	res []*regexp.Regexp
}

func parseRegexCheck(v any, field string) (any, checker, *axp.Error) {
	src, err := checkStrings(v, field, true, checkMaxRegex)
	if err != nil {
		return nil, nil, err
	}
	c := regexCheck{src: src, res: make([]*regexp.Regexp, len(src))}
	for i, p := range src {
		re, cerr := regexp.Compile(p)
		if cerr != nil {
			f := fmt.Sprintf("%s[%d]", field, i)
			if _, one := v.(string); one {
				f = field
			}
			return nil, nil, axp.Invalid(f, "is not a valid regular expression: "+strings.TrimPrefix(cerr.Error(), "error parsing regexp: "),
				"patterns use RE2 syntax: no lookaround or backreferences")
		}
		c.res[i] = re
	}
	return src, c, nil
}

func (c regexCheck) run(s *checkSubject) (bool, string) {
	var missing []int
	for i, re := range c.res {
		if !re.Match(s.content) {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return true, ""
	}
	pats := make([]string, len(missing))
	nums := make([]string, len(missing))
	for j, i := range missing {
		pats[j] = "`" + clipRunes(c.src[i], 80) + "`"
		nums[j] = strconv.Itoa(i + 1)
	}
	var d string
	switch {
	case len(c.src) == 1:
		d = "no match for " + pats[0]
	case len(missing) == 1:
		d = fmt.Sprintf("no match for pattern %s of %d: %s", nums[0], len(c.src), pats[0])
	default:
		d = fmt.Sprintf("no match for patterns %s of %d: %s", joinAnd(nums), len(c.src), checkList(pats))
	}
	// ^ and $ anchor at the ends of the whole content unless the pattern asks for (?m); say so
	// when that is the difference. Only the first such pattern is retried: each scan of a large
	// delivery costs as much as the check itself.
	for _, i := range missing {
		if strings.ContainsAny(c.src[i], "^$") {
			if re, err := regexp.Compile("(?m)" + c.src[i]); err == nil && re.Match(s.content) {
				d += fmt.Sprintf(" (`%s` would match with (?m): ^ and $ match only at the start and end of the whole content)", clipRunes(c.src[i], 80))
			}
			break
		}
	}
	return false, d
}

// ---- JSON ----

type jsonCheck struct{}

func parseJSONCheck(v any, field string) (any, checker, *axp.Error) {
	b, ok := v.(bool)
	if !ok {
		return nil, nil, axp.Invalid(field, "must be true or false, not "+checkKind(v), "true requires the content to be valid JSON")
	}
	if !b {
		return false, nil, nil
	}
	return true, jsonCheck{}, nil
}

func (jsonCheck) run(s *checkSubject) (bool, string) {
	v, problem := s.parsed()
	if problem != "" {
		return false, "not valid JSON: " + problem
	}
	return true, "valid JSON (" + jsonValueKind(v) + ")"
}

func jsonValueKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// normalizeJSONValue copies a decoded JSON value with every number normalized by checkNumber.
func normalizeJSONValue(v any, field string, depth int) (any, *axp.Error) {
	if depth > 100 {
		return nil, axp.Invalid(field, "nests too deeply", "")
	}
	switch x := v.(type) {
	case nil, string, bool:
		return x, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		// Keys in order, so that the same value always names the same field at fault.
		for _, k := range slices.Sorted(maps.Keys(x)) {
			e := x[k]
			n, err := normalizeJSONValue(e, field+"."+clipRunes(k, 80), depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalizeJSONValue(e, fmt.Sprintf("%s[%d]", field, i), depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, nil
	}
	if n, _, ok := checkNumber(v); ok {
		return n, nil
	}
	return nil, axp.Invalid(field, "is not a usable JSON value: "+checkKind(v), "")
}

type mimeCheck struct {
	typ, sub string // sub may be "*"
	charset  string // "", "utf-8" or "us-ascii"
}

// mimeDetectable lists the types the exchange can recognize in content: what
// net/http.DetectContentType reports, plus JSON, markdown and CSV, which it reports as text/plain.
var mimeDetectable = map[string]bool{
	"application/json": true, "text/markdown": true, "text/csv": true, "text/plain": true,
	"text/html": true, "text/xml": true, "application/xml": true,
	"application/pdf": true, "application/postscript": true, "application/ogg": true,
	"application/zip": true, "application/x-gzip": true, "application/x-rar-compressed": true,
	"application/wasm": true, "application/vnd.ms-fontobject": true,
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/bmp": true,
	"image/x-icon": true, "audio/mpeg": true, "audio/wave": true, "audio/aiff": true, "audio/midi": true,
	"video/mp4": true, "video/webm": true, "video/avi": true,
	"font/ttf": true, "font/otf": true, "font/woff": true, "font/woff2": true, "font/collection": true,
}

var mimeAliases = map[string]string{
	"image/jpg": "image/jpeg", "image/vnd.microsoft.icon": "image/x-icon", "text/json": "application/json",
	"text/x-markdown": "text/markdown", "application/gzip": "application/x-gzip",
	"application/x-zip-compressed": "application/zip", "audio/wav": "audio/wave", "audio/x-wav": "audio/wave",
	"audio/mp3": "audio/mpeg", "audio/x-aiff": "audio/aiff", "video/x-msvideo": "video/avi",
}

func parseMimeCheck(v any, field string) (any, checker, *axp.Error) {
	raw, ok := v.(string)
	if !ok {
		return nil, nil, axp.Invalid(field, "must be a string, not "+checkKind(v), "for example \"application/json\"")
	}
	if len(raw) > 200 {
		return nil, nil, axp.Invalid(field, "is too long for a media type", "for example \"application/json\"")
	}
	base, params, _ := strings.Cut(raw, ";")
	base = strings.ToLower(strings.TrimSpace(base))
	if a, ok := mimeAliases[base]; ok {
		base = a
	}
	if base == "*/*" || base == "application/octet-stream" {
		return nil, nil, axp.Invalid(field, base+" matches any content", "leave mime_type out, or name the type you expect")
	}
	typ, sub, ok := strings.Cut(base, "/")
	if !ok || !mimeToken(typ) || !(mimeToken(sub) || sub == "*") {
		return nil, nil, axp.Invalid(field, checkQuote(raw)+" is not a media type", "for example \"text/plain\", \"application/json\" or \"image/*\"")
	}
	c := mimeCheck{typ: typ, sub: sub}
	if sub == "*" {
		known := false
		for t := range mimeDetectable {
			if strings.HasPrefix(t, typ+"/") {
				known = true
				break
			}
		}
		if !known {
			return nil, nil, axp.Invalid(field, checkQuote(base)+" matches no type the exchange can recognize", "for example \"image/*\", \"text/*\" or \"audio/*\"")
		}
	} else if !mimeDetectable[base] {
		return nil, nil, axp.Invalid(field, checkQuote(base)+" is not a type the exchange can recognize in content", "recognized: "+strings.Join(mimeDetectableList(), ", "))
	}
	for _, p := range strings.Split(params, ";") {
		if strings.TrimSpace(p) == "" {
			continue
		}
		k, val, _ := strings.Cut(p, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		val = strings.ToLower(strings.Trim(strings.TrimSpace(val), "\""))
		if k != "charset" {
			return nil, nil, axp.Invalid(field, "the parameter "+checkQuote(k)+" is not checked", "only a charset parameter is supported")
		}
		switch val {
		case "utf-8", "utf8":
			c.charset = "utf-8"
		case "us-ascii", "ascii":
			c.charset = "us-ascii"
		default:
			return nil, nil, axp.Invalid(field, "the charset "+checkQuote(val)+" is not checked", "supported charsets: utf-8, us-ascii")
		}
		if !(typ == "text" || base == "application/json" || base == "application/xml") {
			return nil, nil, axp.Invalid(field, "a charset applies only to text types", "leave the charset out")
		}
	}
	norm := base
	if c.charset != "" {
		norm += "; charset=" + c.charset
	}
	return norm, c, nil
}

func mimeToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$&-^_.+", r)) {
			return false
		}
	}
	return true
}

func mimeDetectableList() []string {
	out := make([]string, 0, len(mimeDetectable))
	for t := range mimeDetectable {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func (c mimeCheck) run(s *checkSubject) (bool, string) {
	types := s.mimeTypes()
	match := false
	for _, t := range types {
		if c.sub == "*" && strings.HasPrefix(t, c.typ+"/") || t == c.typ+"/"+c.sub {
			match = true
			break
		}
	}
	want := c.typ + "/" + c.sub
	if !match {
		return false, "the content looks like " + types[0] + ", not " + want
	}
	switch c.charset {
	case "utf-8":
		if !utf8.Valid(s.content) {
			i := invalidUTF8At(s.content)
			return false, fmt.Sprintf("the content looks like %s but is not valid UTF-8 (byte 0x%02x at offset %d)", types[0], s.content[i], i)
		}
	case "us-ascii":
		for i, b := range s.content {
			if b >= 0x80 {
				return false, fmt.Sprintf("the content looks like %s but is not ASCII (byte 0x%02x at offset %d)", types[0], b, i)
			}
		}
	}
	return true, "the content looks like " + types[0]
}

// mimeTypes lists what the content is, most specific first: JSON is also text/plain, and so are
// markdown and CSV, which can both hold at once.
func (s *checkSubject) mimeTypes() []string {
	if s.types != nil {
		return s.types
	}
	detected, params, _ := strings.Cut(http.DetectContentType(s.content), ";")
	switch {
	case !strings.HasPrefix(detected, "text/"):
		s.types = []string{detected}
	case strings.Contains(params, "utf-16"):
		s.types = []string{"text/plain"}
	case textHasBinary(s.content):
		// DetectContentType looks at the first 512 bytes only.
		s.types = []string{"application/octet-stream"}
	default:
		if _, problem := s.parsed(); problem == "" {
			s.types = []string{"application/json"}
		} else {
			switch detected {
			case "text/html":
				s.types = append(s.types, "text/html")
			case "text/xml":
				s.types = append(s.types, "text/xml", "application/xml")
			}
			if markdownSignal.Match(s.content) {
				s.types = append(s.types, "text/markdown")
			}
			if looksLikeCSV(s.str()) {
				s.types = append(s.types, "text/csv")
			}
		}
		s.types = append(s.types, "text/plain")
	}
	return s.types
}

// textHasBinary reports a byte that net/http's sniffing takes as a sign of binary data.
func textHasBinary(b []byte) bool {
	for _, c := range b {
		if c <= 0x08 || c == 0x0B || 0x0E <= c && c <= 0x1A || 0x1C <= c && c <= 0x1F {
			return true
		}
	}
	return false
}

// markdownSignal matches a construct that plain prose rarely has: a heading, a list item, a quote,
// a fence, a table rule, a link, strong emphasis or inline code.
var markdownSignal = regexp.MustCompile("(?m)^(?:#{1,6}[ \\t]+\\S|[ \\t]{0,3}(?:[-*+]|\\d{1,9}[.)])[ \\t]+\\S|>[ \\t]?\\S|```|~~~|\\|?[ \\t]*:?-{3,}:?[ \\t]*\\|)" +
	"|\\[[^\\]\\n]+\\]\\([^)\\s]+\\)|\\*\\*[^*\\n]+\\*\\*|__[^_\\n]+__|`[^`\\n]+`")

// looksLikeCSV reports content that parses as CSV with at least two records of the same two or
// more fields.
func looksLikeCSV(text string) bool {
	r := csv.NewReader(strings.NewReader(text))
	r.ReuseRecord = true
	records := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return records >= 2
		}
		if err != nil || len(rec) < 2 {
			return false
		}
		records++
	}
}

// ---- formatting ----

// checkCount formats n with thousands separators: 4,096.
func checkCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func checkPlural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return checkCount(n) + " " + unit + "s"
}

func checkQuote(s string) string { return strconv.Quote(clipRunes(s, 80)) }

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-3]) + "..."
}

// checkList joins at most five items and says how many more there are.
func checkList(items []string) string {
	if len(items) > 5 {
		return strings.Join(items[:5], ", ") + fmt.Sprintf(" and %d more", len(items)-5)
	}
	return strings.Join(items, ", ")
}

func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
