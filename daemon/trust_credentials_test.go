package daemon_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// sellerDeliverable is issue 31's example, as a seller would write it: a login, a payment key, a
// cloud secret and a private key. Every value is made up.
const sellerDeliverable = "Server is ready.\n" +
	"ssh root@203.0.113.5 password: hunter2\n" +
	"api_key=sk_live_4eC39HqLyjWDarjtT1zdp7dc\n" +
	"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Kd93Hw2\n" +
	"-----BEGIN OPENSSH PRIVATE KEY-----\n" +
	"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
	"QyNTUxOQAAACDm1zN9Rk2QZz0v7o3rLx1Yp4cK9fG2hJ3kL5mN7pQ8sAAAAJgqP8\n" +
	"-----END OPENSSH PRIVATE KEY-----\n" +
	"Report attached in summary.md.\n"

// TestTrustCredentialsWithheld: credentials in a text deliverable never reach the buyer. Each is
// replaced with a marker naming its kind, the hash the buyer is given is that of what it
// receives (the seller's own is kept on the delivery), the timeline tells buyer and seller
// (kinds and count, never the secret), the seller's answer says so and the delivery counts
// against the seller like contact details.
func TestTrustCredentialsWithheld(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	pull := e.pullSeller("text-file", map[string]any{"payout_address": payoutAddress})
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "set up the server"}})
	buyer := e.anon.With(created.BuyerToken)
	var offer axp.Offer
	offer = *callOp(t, pull.c, contract.SubmitOffer, axp.OfferInput{ID: created.ID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(4, 0)), ETAMinutes: ptr(30)}}).Offer
	e.fund(buyer, created.ID, offer.OfferID)

	var delivered axp.Task
	delivered = *callOp(t, pull.c, contract.Deliver, axp.DeliverInput{
		ID:       created.ID,
		Content:  sellerDeliverable,
		Filename: "handover.txt",
		MimeType: "text/plain",
		Note:     "root password: hunter2",
	})
	dl := delivered.Deliverable
	wantKinds := []string{"aws_secret_key", "password", "private_key", "stripe_key"}
	if dl == nil || dl.Screening == nil || !slices.Equal(dl.Screening.Credentials, wantKinds) {
		t.Fatalf("deliver answer %+v", dl)
	}
	if strings.Contains(dl.Note, "hunter2") {
		t.Errorf("delivery note %q", dl.Note)
	}
	if note := dl.Screening.Note(); !strings.Contains(note, "credentials removed: aws_secret_key") {
		t.Errorf("the seller is not told: %q", note)
	}

	body := string(retrieve(t, buyer, created.ID)) // checks X-Content-SHA256 against the body
	for _, leak := range []string{"hunter2", "sk_live_", "wJalrXUtnFEMI", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU", "203.0.113.5"} {
		if strings.Contains(body, leak) {
			t.Errorf("the buyer received %q: %q", leak, body)
		}
	}
	for _, marker := range []string{"[credential removed: password]", "[credential removed: stripe key]",
		"[credential removed: aws secret key]", "[credential removed: private key]"} {
		if !strings.Contains(body, marker) {
			t.Errorf("no %q in %q", marker, body)
		}
	}
	if !strings.Contains(body, "Report attached in summary.md.") {
		t.Errorf("the work itself is gone: %q", body)
	}
	if dl.SHA256 != sha256Hex(body) {
		t.Errorf("deliverable ref sha256 %s, the body hashes to %s", dl.SHA256, sha256Hex(body))
	}
	var rec *axp.TaskRecord
	e.d.DB().View(func(tx *store.Tx) error {
		var err error
		rec, err = tx.Task(created.ID)
		return err
	})
	if last := rec.LastDelivery(); last.OriginalSHA256 != sha256Hex(sellerDeliverable) || last.SHA256 != dl.SHA256 {
		t.Errorf("delivery record: sha256 %s, original %s", last.SHA256, last.OriginalSHA256)
	}

	for _, side := range []struct {
		name  string
		kinds func() ([]string, []axp.Event)
	}{
		{"buyer", func() ([]string, []axp.Event) { return timelineKinds(t, buyer, created.ID) }},
		{"seller", func() ([]string, []axp.Event) { return timelineKinds(t, pull.c, created.ID) }},
	} {
		kinds, events := side.kinds()
		i := slices.Index(kinds, "credentials_withheld")
		if i < 0 {
			t.Errorf("the %s's timeline has no credentials_withheld: %v", side.name, kinds)
			continue
		}
		d := events[i].Detail
		if n, _ := d["count"].(float64); n != 5 || len(toStrings(d["fields"])) != 2 || !strings.Contains(strings.Join(toStrings(d["kinds"]), ","), "private_key") {
			t.Errorf("the %s's credentials_withheld event %v", side.name, d)
		}
		if raw := strings.Join(toStrings(d["kinds"]), ","); strings.Contains(raw, "hunter2") {
			t.Errorf("the event holds the secret: %v", d)
		}
	}
	var at axp.AdminTimeline
	at = *callOp(t, e.admin, contract.AdminTaskTimeline, axp.IDPath{ID: created.ID})
	found := false
	for _, r := range at.Rows {
		found = found || strings.HasPrefix(r.Summary, "credentials_withheld")
	}
	if !found {
		t.Errorf("the operator's timeline has no credentials_withheld")
	}

	var m *axp.Member
	e.d.DB().View(func(tx *store.Tx) error {
		var err error
		m, err = tx.Member(pull.MemberID)
		return err
	})
	if len(m.ContactRemovals) != 1 {
		t.Errorf("the seller's removals count %d, want 1", len(m.ContactRemovals))
	}
}

func toStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}
