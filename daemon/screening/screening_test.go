package screening_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/store"
)

// change runs fn in one change of the fixture's kernel, failing the test on an error.
func change(t *testing.T, f *kerneltest.Fixture, fn func(ch *kernel.Change) error) {
	t.Helper()
	if _, err := f.K.Mutate(context.Background(), "test", func(ch *kernel.Change) (any, error) { return nil, fn(ch) }); err != nil {
		t.Fatal(err)
	}
}

// member reads a member back from the store.
func member(t *testing.T, f *kerneltest.Fixture, id string) *axp.Member {
	t.Helper()
	var m *axp.Member
	f.View(t, func(tx *store.Tx) (err error) { m, err = tx.Member(id); return err })
	return m
}

func TestCleanTextRemovesRecordsAndCounts(t *testing.T) {
	f := kerneltest.New(t)
	s := screening.New(f.K.Base(), f.K)
	c, _ := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Tide Reader"})
	p := screening.Party{MemberID: c.MemberID, Actor: "member:" + c.MemberID, TaskID: "tsk_1"}
	var cleaned string
	var sc *axp.Screening
	change(t, f, func(ch *kernel.Change) (err error) {
		cleaned, sc, err = s.CleanText(ch, p, "note", "done; write to bob@example.com with ghp_8fK2mQ9xR4tV7wY1zB3nC5dE6gH0jL2pS4uW", false)
		return err
	})
	if strings.Contains(cleaned, "bob@example.com") || strings.Contains(cleaned, "ghp_") || !strings.HasPrefix(cleaned, "done;") {
		t.Fatalf("cleaned text: %q", cleaned)
	}
	if sc == nil || !slices.Contains(sc.Removed, "email") || len(sc.Credentials) == 0 {
		t.Fatalf("verdict: %+v", sc)
	}
	f.View(t, func(tx *store.Tx) error {
		rs, err := tx.ContactRemovals(c.MemberID, 0)
		if err != nil {
			return err
		}
		if len(rs) != 1 || rs[0].Field != "note" || rs[0].Kind != "email" || rs[0].TaskID != "tsk_1" || strings.Contains(rs[0].Fingerprint, "bob") {
			t.Errorf("recorded removals: %+v", rs)
		}
		return nil
	})
	// One text counts once, however much it lost.
	if n := len(member(t, f, c.MemberID).ContactRemovals); n != 1 {
		t.Errorf("%d removals counted, want 1", n)
	}

	// An uncounted party's text is cleaned and recorded, not counted.
	p.Uncounted = true
	change(t, f, func(ch *kernel.Change) (err error) {
		_, _, err = s.CleanText(ch, p, "note", "mail alice@example.org", false)
		return err
	})
	if n := len(member(t, f, c.MemberID).ContactRemovals); n != 1 {
		t.Errorf("%d removals counted after an uncounted text, want 1", n)
	}

	// A blank text passes as it is, without a verdict.
	change(t, f, func(ch *kernel.Change) (err error) {
		cleaned, sc, err = s.CleanText(ch, p, "note", "  ", false)
		return err
	})
	if cleaned != "  " || sc != nil {
		t.Errorf("blank text: %q %+v", cleaned, sc)
	}
}

func TestCountRemovalWarnsThenSuspends(t *testing.T) {
	f := kerneltest.New(t, func(c *kernel.Config) { c.ContactWarnAt, c.ContactSuspendAt = 2, 3 })
	s := screening.New(f.K.Base(), f.K)
	c, _ := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Tide Reader"})
	titles := func() []string {
		var out []string
		f.View(t, func(tx *store.Tx) error {
			return tx.EachAnnouncement(func(a *store.AnnouncementRecord) bool {
				if slices.Contains(a.MemberIDs, c.MemberID) {
					out = append(out, a.Title)
				}
				return true
			})
		})
		slices.Sort(out)
		return out
	}
	count := func() { change(t, f, func(ch *kernel.Change) error { return s.CountRemoval(ch, c.MemberID) }) }

	count()
	if m := member(t, f, c.MemberID); m.State != axp.MemberVerified || len(titles()) != 0 {
		t.Fatalf("after one removal: state %s, notices %q", m.State, titles())
	}
	count()
	if got := titles(); len(got) != 1 || !strings.Contains(got[0], "removed") {
		t.Fatalf("after two removals (the warning): notices %q", got)
	}
	f.Clock.Add(time.Hour)
	count()
	m := member(t, f, c.MemberID)
	if m.State != axp.MemberSuspended || len(m.ContactRemovals) != 3 {
		t.Fatalf("after three removals: state %s, %d removals", m.State, len(m.ContactRemovals))
	}
	if got := titles(); len(got) != 2 || !slices.Contains(got, "Your membership is suspended") {
		t.Errorf("notices %q", got)
	}

	// Removals older than a day no longer count.
	f.Clock.Add(25 * time.Hour)
	count()
	if n := len(member(t, f, c.MemberID).ContactRemovals); n != 1 {
		t.Errorf("%d removals within a day, want 1", n)
	}
}

func TestOwnHostsKeepTheirLinks(t *testing.T) {
	f := kerneltest.New(t, func(c *kernel.Config) {
		c.BaseURL, c.AllowedHosts = "https://axp.example:8443/", []string{"mirror.axp.example:443"}
	})
	s := screening.New(f.K.Base(), f.K)
	if got := s.OwnHosts(); !slices.Equal(got, []string{"axp.example", "mirror.axp.example"}) {
		t.Errorf("own hosts %q", got)
	}
	var cleaned string
	change(t, f, func(ch *kernel.Change) (err error) {
		cleaned, _, err = s.CleanText(ch, screening.Party{Actor: "buyer"}, "description",
			"see https://axp.example/api/services and https://mirror.axp.example/faq, not https://elsewhere.example/me", false)
		return err
	})
	if !strings.Contains(cleaned, "https://axp.example/api/services") || !strings.Contains(cleaned, "https://mirror.axp.example/faq") ||
		strings.Contains(cleaned, "elsewhere.example") {
		t.Errorf("cleaned text: %q", cleaned)
	}
}

func TestWithholdCredentials(t *testing.T) {
	f := kerneltest.New(t)
	s := screening.New(f.K.Base(), f.K)
	var w screening.Withheld
	var out, plain string
	change(t, f, func(ch *kernel.Change) error {
		p := screening.Party{Actor: "buyer", TaskID: "tsk_1"}
		out = s.WithholdCredentials(ch, p, "content", "api_key=sk_live_4eC39HqLyjWDarjtT1zdp7dc and GITHUB_TOKEN=ghp_R8x2Kq9ZtV4mN7pL3wY6cB1dF5hJ0sA2eG4u", &w)
		plain = s.WithholdCredentials(ch, p, "note", "nothing secret here", &w)
		return nil
	})
	if strings.Contains(out, "sk_live_") || strings.Contains(out, "ghp_R8x2") {
		t.Errorf("withheld text still holds a credential: %q", out)
	}
	if plain != "nothing secret here" || w.Count != 2 || len(w.Kinds) != 2 || !slices.Equal(w.Fields, []string{"content"}) {
		t.Errorf("plain %q, withheld %+v", plain, w)
	}
}

func TestCleanProfileCountsOnlyWhenAsked(t *testing.T) {
	f := kerneltest.New(t, func(c *kernel.Config) { c.ContactWarnAt, c.ContactSuspendAt = 1, 1 })
	s := screening.New(f.K.Base(), f.K)
	c, _ := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Tide Reader"})
	m := member(t, f, c.MemberID)
	m.Description = "reach me at +1 415 555 0134"
	change(t, f, func(ch *kernel.Change) error { return s.CleanProfile(ch, m, false) })
	if strings.Contains(m.Description, "555") || m.State != axp.MemberVerified || len(m.ContactRemovals) != 0 {
		t.Fatalf("uncounted profile: %q, state %s, %d removals", m.Description, m.State, len(m.ContactRemovals))
	}
	// Counted, the removal suspends at this threshold, and the profile the caller stores next
	// carries the suspension.
	m.Description = "reach me at carol@example.com"
	change(t, f, func(ch *kernel.Change) error { return s.CleanProfile(ch, m, true) })
	if strings.Contains(m.Description, "carol") || m.State != axp.MemberSuspended || len(m.ContactRemovals) != 1 {
		t.Errorf("counted profile: %q, state %s, %d removals", m.Description, m.State, len(m.ContactRemovals))
	}
}

func TestCheckPublicName(t *testing.T) {
	if err := screening.CheckPublicName("name", "Tide Reader"); err != nil {
		t.Errorf("a plain name refused: %v", err)
	}
	for _, name := range []string{"bob@example.com", "Tide\u200bReader"} {
		if err := screening.CheckPublicName("name", name); err == nil || err.Field != "name" {
			t.Errorf("%q: %v, want a refusal naming the field", name, err)
		}
	}
}

func TestDataSourceParamsAndTextMime(t *testing.T) {
	for k, want := range map[string]bool{"source_url": true, "source_urls": true, "video_source_url": true, "url": true,
		"prompt": false, "text": false, "callback": false} {
		if screening.DataSourceParam(k) != want {
			t.Errorf("screening.DataSourceParam(%s) = %v", k, !want)
		}
	}
	for m, want := range map[string]bool{"text/plain; charset=utf-8": true, "application/json": true, "application/ld+json": true,
		"image/png": false, "application/octet-stream": false, "video/mp4": false} {
		if screening.TextMime(m) != want {
			t.Errorf("screening.TextMime(%s) = %v", m, !want)
		}
	}
}
