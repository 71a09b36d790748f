package cmdutil

import (
	"fmt"
	"time"
)

// TimeLayout is the one way a time reads on a terminal: local, to the second, with its zone.
const TimeLayout = "2006-01-02 15:04:05 MST"

// Time renders an instant: TimeLayout for people, RFC 3339 in UTC for scripts ("" for none).
func Time(s *IOStreams, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	if !s.StdoutTTY {
		return t.UTC().Format(time.RFC3339)
	}
	return t.Local().Format(TimeLayout)
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

// Count says n things in the right number: "1 offer", "2 offers", "0 offers".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
