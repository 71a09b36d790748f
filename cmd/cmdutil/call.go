package cmdutil

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/axp-exchange/axp/client"
)

// Call runs an operation and returns the exchange's JSON answer as it came, decoded into out too
// (when out is not nil): --json prints the first, tables render the second.
func Call(ctx context.Context, c *client.Client, op string, in, out any) ([]byte, error) {
	resp, err := c.Do(ctx, op, in)
	if err != nil {
		return nil, err
	}
	if out != nil {
		if err := json.Unmarshal(resp.Body, out); err != nil {
			return nil, fmt.Errorf("decode the %s answer: %w", op, err)
		}
	}
	return resp.Body, nil
}

// Ago renders how long ago t was ("3m ago") for people; scripts get RFC 3339 times.
func Ago(s *IOStreams, now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	if !s.StdoutTTY {
		return t.UTC().Format(time.RFC3339)
	}
	return Duration(now.Sub(t)) + " ago"
}

// Duration renders a duration coarsely: 45s, 3m, 2h, 4d.
func Duration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Money renders an amount: "US$4.50" for people, the plain decimal ("4.5") for scripts.
func Money(s *IOStreams, m interface {
	Display() string
	String() string
}) string {
	if s.StdoutTTY {
		return m.Display()
	}
	return m.String()
}
