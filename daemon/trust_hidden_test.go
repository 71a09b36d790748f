package daemon_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// hidden holds the characters of the audit: a right-to-left override, a zero-width space, an
// isolate and NUL.
var hidden = []string{"\u202e", "\u200b", "\u2066", "\x00"}

// hasHidden reports whether s holds a control (but tab, newline, carriage return), bidirectional
// control or zero-width character.
func hasHidden(s string) bool {
	for _, r := range s {
		switch {
		case r == '\t', r == '\n', r == '\r':
		case r < 0x20, r == 0x7f, r == 0x200b, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e,
			r >= 0x2066 && r <= 0x2069, r == 0xfeff:
			return true
		}
	}
	return false
}

// allStripped are the kinds a text carrying every character of hidden reports.
var allStripped = []string{"bidi_control", "control_character", "invisible_character"}

// TestSpoofedNamesRefused: names other parties read (a member's name at registration and in a
// profile update, the public identity labels, a task's agent_name, a deliverable's filename) refuse
// control, bidirectional-control and invisible characters with 400 naming the field.
func TestSpoofedNamesRefused(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	before := e.auditCount()
	for _, c := range []struct {
		reg   map[string]any
		field string
	}{
		{map[string]any{"name": "Good\u202eSeller"}, "name"},
		{map[string]any{"name": "Good\u200bSeller"}, "name"},
		{map[string]any{"name": "Best\u2066Seller\u2069"}, "name"},
		{map[string]any{"name": "Good\x00Seller"}, "name"},
		{map[string]any{"name": "Good\nSeller"}, "name"},
		{map[string]any{"name": "Good Seller", "identity": map[string]any{"agent_model": "gpt\u202e"}}, "identity.agent_model"},
		{map[string]any{"name": "Good Seller", "identity": map[string]any{"agent_framework": "\u200fkit"}}, "identity.agent_framework"},
	} {
		c.reg["roles"] = []string{"seller"}
		c.reg["skills"] = []map[string]any{{"task_type": "text-file"}}
		resp, err := do(e.anon, "register", c.reg)
		b := checkErrorBody(t, resp, 400, "invalid_input")
		apiErr(t, err, axp.CodeInvalidInput, c.field)
		if !strings.Contains(b.Error.Message, "U+") || b.Error.Hint == "" {
			t.Fatalf("refusal of %q: %+v", c.reg, b.Error)
		}
	}
	if n := e.auditCount(); n != before {
		t.Fatalf("refused registrations were stored: audit grew from %d to %d", before, n)
	}
	var sellers axp.SellerList
	sellers = *callOp(t, e.anon, contract.ListSellers, axp.SellersQuery{})
	if len(sellers.Sellers) != 0 {
		t.Fatalf("sellers listed after refused registrations: %+v", sellers)
	}

	// A profile update is refused the same way and changes nothing.
	seller := e.pullSeller("text-file", map[string]any{"name": "Good Seller", "payout_address": payoutAddress})
	for _, u := range []map[string]any{
		{"name": "Good\u202eSeller"},
		{"name": "Good Seller\u200b", "description": "new"},
		{"identity": map[string]any{"agent_model": "m\x00"}},
	} {
		resp, err := do(seller.c, "update_profile", u)
		checkErrorBody(t, resp, 400, "invalid_input")
		field := "name"
		if u["identity"] != nil {
			field = "identity.agent_model"
		}
		apiErr(t, err, axp.CodeInvalidInput, field)
	}
	var me axp.PrivateMember
	me = *callOp(t, seller.c, contract.GetMyProfile, contract.NoInput{})
	if me.Name != "Good Seller" || me.Description != "" || me.Identity.AgentModel != "" {
		t.Fatalf("a refused update changed the profile: %+v", me)
	}
	// Names in the scripts of the world, spaces and emoji are names.
	me = *callOp(t, seller.c, contract.UpdateProfile, axp.ProfileUpdate{Name: ptr("  Café 東京 مترجم 🚀  ")})
	if me.Name != "Café 東京 مترجم 🚀" {
		t.Fatalf("name %q", me.Name)
	}

	// agent_name, which sellers read as an anonymous buyer's name.
	resp, err := doOp(e.anon, contract.CreateTask, axp.NewTask{
		Type:      "text-file",
		Params:    map[string]any{"prompt": "a riddle"},
		AgentName: "Trusted\u202eBuyer",
	})
	checkErrorBody(t, resp, 400, "invalid_input")
	apiErr(t, err, axp.CodeInvalidInput, "agent_name")

	// A deliverable's filename, under which the buyer saves the file.
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a riddle"},
		"agent_name": "Riddle Fan"})
	buyer := e.anon.With(created.BuyerToken)
	var offer axp.Offer
	offer = *callOp(t, seller.c, contract.SubmitOffer, axp.OfferInput{ID: created.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(2, 0)), ETAMinutes: ptr(10)}}).Offer
	e.fund(buyer, created.ID, offer.OfferID)
	resp, err = doOp(seller.c, contract.Deliver, axp.DeliverInput{
		ID:       created.ID,
		Content:  "What has keys but no locks?",
		Filename: "riddle\u202etxt.exe",
		MimeType: "text/plain",
	})
	checkErrorBody(t, resp, 400, "invalid_input")
	apiErr(t, err, axp.CodeInvalidInput, "filename")
	if got := getTask(t, buyer, created.ID); got.Status != axp.TaskInProgress && got.Status != axp.TaskPaid {
		t.Fatalf("a refused delivery moved the task to %s", got.Status)
	}
	if dl := deliverText(t, seller.c, created.ID, "What has keys but no locks?").Deliverable; dl == nil {
		t.Fatal("no deliverable")
	}
	resp, err = doOp(buyer, contract.GetDeliverable, axp.TaskRef{ID: created.ID})
	if err != nil || !strings.Contains(resp.Header.Get("Content-Disposition"), `filename="result.txt"`) {
		t.Fatalf("get_deliverable: %v %v", err, resp.Header)
	}
}

// TestTrustHiddenCharactersStripped: free texts lose their control, bidirectional-control and
// invisible characters before they are stored and shown to the other party; each removal is
// recorded and logged like a contact-detail removal, but does not count toward warnings. Hidden
// characters do not hide a contact detail either.
func TestTrustHiddenCharactersStripped(t *testing.T) {
	t.Parallel()
	// A single counted removal would warn: stripped characters must not count.
	e := newMarket(t, func(c *daemon.Config) { c.ContactWarnAt, c.ContactSuspendAt = 1, 2 })
	spoofed := func(words ...string) string {
		var b strings.Builder
		for i, w := range words {
			b.WriteString(w)
			b.WriteString(hidden[i%len(hidden)])
		}
		for i := len(words); i < len(hidden); i++ {
			b.WriteString(hidden[i])
		}
		return b.String()
	}
	push := e.newPushSeller("text-file", map[string]func(map[string]any) any{
		"quote": func(map[string]any) any {
			return map[string]any{"price_usd": 5, "eta_minutes": 20, "note": spoofed("Fast", " delivery", " guaranteed", ".")}
		},
	}, nil, map[string]any{"payout_address": payoutAddress})
	pull := e.pullSeller("text-file", map[string]any{"payout_address": payoutAddress})

	// The brief, as the buyer sees it and as the sellers receive it.
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file",
		"description": spoofed("Write a limerick", " about", " cats", "."), "params": map[string]any{"prompt": spoofed("a limerick", " please")}})
	buyer := e.anon.With(created.BuyerToken)
	if created.Description != "Write a limerick about cats." || created.Params["prompt"] != "a limerick please" {
		t.Fatalf("brief %q %q", created.Description, created.Params["prompt"])
	}
	if sc := created.Screening; sc == nil || !slices.Equal(sc.Stripped, allStripped) || len(sc.Removed) != 0 {
		t.Fatalf("brief screening %+v", created.Screening)
	}
	q := push.waitCall("quote", created.ID)
	if d := fmt.Sprint(q["description"]); hasHidden(d) || !strings.Contains(d, "Write a limerick about cats.") {
		t.Fatalf("the seller received the brief %q", d)
	}

	// Offer notes, as the buyer sees them.
	o := offerOf(t, created.Offers, push.MemberID)
	if o.Note != "Fast delivery guaranteed." || o.Screening == nil || !slices.Equal(o.Screening.Stripped, allStripped) {
		t.Fatalf("offer note %q %+v", o.Note, o.Screening)
	}
	var pulled axp.Offer
	pulled = *callOp(t, pull.c, contract.SubmitOffer, axp.OfferInput{
		ID:          created.ID,
		QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(4, 0)), ETAMinutes: ptr(30), Note: spoofed("Cheaper", " and", " just", " as good")},
	}).Offer
	if po := offerOf(t, getTask(t, buyer, created.ID).Offers, pull.MemberID); po.Note != "Cheaper and just as good" {
		t.Fatalf("pull offer note %q", po.Note)
	}

	// Messages, as stored and as pushed to the seller.
	var m axp.Message
	m = *callOp(t, buyer, contract.PostMessage, axp.MessageBody{
		TaskRef:  axp.TaskRef{ID: created.ID},
		SellerID: push.MemberID,
		Body:     spoofed("Can you", " rhyme", " it", "?"),
	})
	if m.Body != "Can you rhyme it?" || m.Screening == nil || !slices.Equal(m.Screening.Stripped, allStripped) {
		t.Fatalf("message %q %+v", m.Body, m.Screening)
	}
	if d := push.pushedEvent("message", created.ID); d["body"] != "Can you rhyme it?" {
		t.Fatalf("pushed message %v", d)
	}
	m = *callOp(t, push.c, contract.PostMessage, axp.MessageBody{TaskRef: axp.TaskRef{ID: created.ID}, Body: spoofed("Sure", ", it", " will", ".")})
	if m.Body != "Sure, it will." {
		t.Fatalf("seller's message %q", m.Body)
	}

	// Zero-width characters and NUL do not hide a contact detail (the buyer is anonymous: logged,
	// not counted).
	m = *callOp(t, buyer, contract.PostMessage, axp.MessageBody{
		TaskRef:  axp.TaskRef{ID: created.ID},
		SellerID: push.MemberID,
		Body:     "Write to na\u200bme@exa\u200bmple.com or name\x00@example.org",
	})
	if strings.Contains(m.Body, "example") || hasHidden(m.Body) || m.Screening == nil || !slices.Equal(m.Screening.Removed, []string{"email"}) {
		t.Fatalf("obfuscated emails %q %+v", m.Body, m.Screening)
	}

	// The delivery note and text content of the chosen seller.
	e.fund(buyer, created.ID, pulled.OfferID)
	var delivered axp.Task
	delivered = *callOp(t, pull.c, contract.Deliver, axp.DeliverInput{
		ID:       created.ID,
		Content:  spoofed("There once", " was a", " cat.\n"),
		Filename: "limerick.txt",
		MimeType: "text/plain",
		Note:     spoofed("Enjoy", "!"),
	})
	if dl := delivered.Deliverable; dl == nil || dl.Note != "Enjoy!" || dl.Screening == nil || !slices.Equal(dl.Screening.Stripped, allStripped) {
		t.Fatalf("deliverable %+v", delivered.Deliverable)
	}
	if body := string(retrieve(t, buyer, created.ID)); body != "There once was a cat.\n" {
		t.Fatalf("deliverable body %q", body)
	}

	// Each removal is recorded with the member, field, kind and fingerprint, like contact details.
	var recorded []store.ContactRemoval
	e.d.DB().View(func(tx *store.Tx) error {
		var err error
		recorded, err = tx.ContactRemovals("", 0)
		return err
	})
	kinds := map[string][]string{} // field -> kinds, for texts the sellers wrote
	for _, r := range recorded {
		if r.Fingerprint == "" || r.TaskID != created.ID {
			t.Fatalf("removal %+v", r)
		}
		if r.MemberID == push.MemberID || r.MemberID == pull.MemberID {
			kinds[r.Field] = append(kinds[r.Field], r.Kind)
		}
	}
	for _, field := range []string{"note", "message", "content"} {
		k := kinds[field]
		slices.Sort(k)
		if !slices.Equal(slices.Compact(k), allStripped) {
			t.Errorf("removals recorded for the sellers' %s: %v", field, kinds[field])
		}
	}

	// ... and logged.
	var logs axp.LogList
	logs = *callOp(t, e.admin, contract.AdminLog, axp.LogQuery{Source: "trust", Limit: 5000})
	logged := map[string]bool{}
	for _, l := range logs.Entries {
		if l.Message == "hidden characters removed" && l.Attrs["kinds"] == strings.Join(allStripped, ",") {
			logged[fmt.Sprint(l.Attrs["field"])] = true
		}
	}
	for _, field := range []string{"description", "params.prompt", "note", "message", "content"} {
		if !logged[field] {
			t.Errorf("no log of the hidden characters removed from %s: %+v", field, logs.Entries)
		}
	}

	// Stripped characters are not contact details: no seller was warned.
	for _, s := range []*member{push.member, pull} {
		var l axp.AnnouncementList
		l = *callOp(t, s.c, contract.Announcements, contract.NoInput{})
		if len(l.Announcements) != 0 {
			t.Fatalf("%s was warned for hidden characters: %+v", s.MemberID, l.Announcements)
		}
	}
}
