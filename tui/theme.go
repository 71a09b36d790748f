package tui

import (
	"charm.land/lipgloss/v2"
)

// theme holds the styles; without colour every style is plain text, and selection and the active
// tab are marked by characters instead.
type theme struct {
	noColor bool

	title, tabOn, tabOff, head, sel, dim, bold, ok, bad, warn, key, flashOK, flashErr, box lipgloss.Style
}

func newTheme(noColor bool) theme {
	plain := lipgloss.NewStyle()
	if noColor {
		return theme{noColor: true, title: plain, tabOn: plain, tabOff: plain, head: plain, sel: plain, dim: plain,
			bold: plain, ok: plain, bad: plain, warn: plain, key: plain, flashOK: plain, flashErr: plain,
			box: plain.Border(lipgloss.NormalBorder()).Padding(0, 1)}
	}
	accent := lipgloss.Color("12")
	return theme{
		title:    plain.Bold(true).Foreground(lipgloss.Color("15")).Background(accent).Padding(0, 1),
		tabOn:    plain.Bold(true).Foreground(accent).Underline(true),
		tabOff:   plain.Foreground(lipgloss.Color("8")),
		head:     plain.Bold(true).Foreground(lipgloss.Color("8")),
		sel:      plain.Reverse(true),
		dim:      plain.Foreground(lipgloss.Color("8")),
		bold:     plain.Bold(true),
		ok:       plain.Foreground(lipgloss.Color("2")),
		bad:      plain.Foreground(lipgloss.Color("1")),
		warn:     plain.Foreground(lipgloss.Color("3")),
		key:      plain.Bold(true).Foreground(accent),
		flashOK:  plain.Foreground(lipgloss.Color("2")),
		flashErr: plain.Bold(true).Foreground(lipgloss.Color("1")),
		box:      plain.Border(lipgloss.RoundedBorder()).BorderForeground(accent).Padding(0, 1),
	}
}

// status styles a task or approval status by what it means.
func (t theme) status(s string) string {
	switch s {
	case "released", "approved", "accepted", "paid", "in_progress", "delivered", "confirmed":
		return t.ok.Render(s)
	case "disputed", "refunded", "rejected", "expired", "cancelled":
		return t.bad.Render(s)
	case "awaiting_payment", "pending_approval", "held", "open", "reported", "unpaid":
		return t.warn.Render(s)
	}
	return s
}
