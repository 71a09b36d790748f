package cmdutil

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cli/go-gh/v2/pkg/jsonpretty"
	"github.com/cli/go-gh/v2/pkg/template"
	"github.com/itchyny/gojq"
	"github.com/spf13/cobra"
)

// Exporter is the --json, --jq and --template trio of every data command: the exchange's JSON
// answer as it came, filtered by a jq expression, or rendered through a Go template.
type Exporter struct {
	JSON     bool
	JQ       string
	Template string
}

// AddExportFlags adds --json, --jq and --template to c.
func AddExportFlags(c *cobra.Command, e *Exporter) {
	c.Flags().BoolVar(&e.JSON, "json", false, "print the JSON the exchange answers")
	c.Flags().StringVarP(&e.JQ, "jq", "q", "", "filter the JSON answer with a jq `expression`")
	c.Flags().StringVarP(&e.Template, "template", "t", "", "format the JSON answer with a Go text/template `string` (also: json, join, pluck, tablerow, tablerender, timeago, timefmt, truncate, color, hyperlink)")
	prev := c.PreRunE
	c.PreRunE = func(c *cobra.Command, args []string) error {
		if e.JQ != "" && e.Template != "" {
			return Usagef("--jq and --template cannot be used together")
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// Enabled reports whether the output is JSON-based.
func (e *Exporter) Enabled() bool { return e.JSON || e.JQ != "" || e.Template != "" }

// Write prints body (a JSON answer) as the flags ask. Nothing reaches stdout unless all of it
// rendered: a bad expression or template is a usage error with stdout empty.
func (e *Exporter) Write(s *IOStreams, body []byte) error {
	var buf bytes.Buffer
	switch {
	case e.JQ != "":
		if err := evalJQ(&buf, body, e.JQ, s.StdoutTTY, s.ColorEnabled()); err != nil {
			return &UsageError{Err: fmt.Errorf("--jq: %w", err)}
		}
	case e.Template != "":
		t := template.New(&buf, s.TermWidth(), s.ColorEnabled())
		if err := t.Parse(e.Template); err != nil {
			return &UsageError{Err: fmt.Errorf("--template: %w", err)}
		}
		if err := t.Execute(bytes.NewReader(body)); err != nil {
			return &UsageError{Err: fmt.Errorf("--template: %w", err)}
		}
		if err := t.Flush(); err != nil {
			return &UsageError{Err: fmt.Errorf("--template: %w", err)}
		}
	case s.StdoutTTY:
		if err := jsonpretty.Format(&buf, bytes.NewReader(body), "  ", s.ColorEnabled()); err != nil {
			return err
		}
	default:
		buf.Write(body)
		if len(body) > 0 && body[len(body)-1] != '\n' {
			buf.WriteByte('\n')
		}
	}
	_, err := s.Out.Write(buf.Bytes())
	return err
}

// evalJQ runs a jq expression on body as gh's --jq does (strings raw, other values as JSON,
// indented on a terminal) except that numbers keep every digit: go-gh's jq package prints a
// fractional number with two decimals, which would turn a payable amount of 2.500002 into 2.50.
func evalJQ(w io.Writer, body []byte, expr string, tty, color bool) error {
	q, err := gojq.Parse(expr)
	if err != nil {
		return err
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return err
	}
	var data any
	if err := json.Unmarshal(body, &data); err != nil {
		return err
	}
	iter := code.Run(data)
	for {
		v, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := v.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			return err
		}
		switch x := v.(type) {
		case string:
			fmt.Fprintln(w, x)
			continue
		case nil:
			fmt.Fprintln(w, "null") // as jq prints it: a missing value is not an empty string
			continue
		case float64:
			fmt.Fprintln(w, strconv.FormatFloat(x, 'f', -1, 64))
			continue
		case int, bool:
			fmt.Fprintln(w, x)
			continue
		}
		raw, err := gojq.Marshal(v)
		if err != nil {
			return err
		}
		if !tty {
			fmt.Fprintf(w, "%s\n", raw)
			continue
		}
		if err := jsonpretty.Format(w, bytes.NewReader(raw), "  ", color); err != nil {
			return err
		}
	}
}

// KeyValues prints label/value pairs: aligned on a terminal, "label:\tvalue" lines otherwise.
// Empty values are left out.
func KeyValues(s *IOStreams, pairs ...string) error {
	if len(pairs)%2 != 0 {
		return errors.New("KeyValues needs pairs")
	}
	w := 0
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i+1] != "" && len(pairs[i]) > w {
			w = len(pairs[i])
		}
	}
	cs := s.ColorScheme()
	var b strings.Builder
	for i := 0; i < len(pairs); i += 2 {
		k, v := pairs[i], pairs[i+1]
		if v == "" {
			continue
		}
		if s.StdoutTTY {
			fmt.Fprintf(&b, "%s  %s\n", cs.Bold(fmt.Sprintf("%-*s", w, k)), v)
		} else {
			fmt.Fprintf(&b, "%s:\t%s\n", strings.ToLower(strings.ReplaceAll(k, " ", "_")), v)
		}
	}
	_, err := io.WriteString(s.Out, b.String())
	return err
}

// ColorScheme colours text for stdout, or leaves it plain when colour is off.
type ColorScheme struct{ on bool }

// ColorScheme is the scheme of stdout.
func (s *IOStreams) ColorScheme() ColorScheme { return ColorScheme{on: s.ColorEnabled()} }

func (c ColorScheme) wrap(code, s string) string {
	if !c.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Bold, Green, Red, Yellow, Cyan and Gray colour s.
func (c ColorScheme) Bold(s string) string   { return c.wrap("1", s) }
func (c ColorScheme) Green(s string) string  { return c.wrap("32", s) }
func (c ColorScheme) Red(s string) string    { return c.wrap("31", s) }
func (c ColorScheme) Yellow(s string) string { return c.wrap("33", s) }
func (c ColorScheme) Cyan(s string) string   { return c.wrap("36", s) }
func (c ColorScheme) Gray(s string) string   { return c.wrap("90", s) }

// Status colours a task or approval status by what it means for the reader (padding allowed, as
// tables pad before they colour).
func (c ColorScheme) Status(s string) string {
	switch strings.TrimSpace(s) {
	case "released", "approved", "accepted", "paid", "in_progress", "delivered", "verified", "confirmed":
		return c.Green(s)
	case "disputed", "refunded", "rejected", "suspended", "unreachable", "expired", "cancelled":
		return c.Red(s)
	case "awaiting_payment", "pending_approval", "held", "open", "reported", "unpaid":
		return c.Yellow(s)
	}
	return s
}

// StatusFunc is Status as a table colour function.
func (c ColorScheme) StatusFunc() func(string) string { return c.Status }
