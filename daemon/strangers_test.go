package daemon_test

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/contract"
)

// strangerMay lists the operations a caller other than the one replaySetups uses succeeds with
// by design, and why: their access level admits any member (or anyone), and the call acts on the
// caller's own records.
var strangerMay = map[string]string{
	"submit_offer": "any verified seller of the task's type offers on an open task",
	"translate":    "a seller who may quote on an open task reads its brief, and may have it translated (a deliverable exists only once the task is assigned, and then only its parties may)",
	"board_post":   "any verified member starts a thread on the members' board",
	"board_reply":  "any verified member replies on the members' board",
}

// digestsIgnored are the buckets a refused call may write, and why.
var digestsIgnored = map[string]string{
	"members":      "the calling member's own last-seen time: any authenticated call is a sign of life",
	"members_seen": "the index of last-seen times, for the same reason",
	"log":          "the exchange's own log, written in the background: a refusal may be logged",
	"metrics":      "the request counts per route, flushed in the background: a refused call is a call",
	"trace_index":  "the index of that log by trace id",
}

// TestStrangersChangeNothing: every mutating operation that belongs to someone (a task's buyer or
// party, a member, the operator), called by a stranger in a state where its owner's call succeeds,
// is refused with 401, 403 or 404 and changes nothing in the store; the owner's call then
// succeeds. The strangers: nobody (no credential), an unrelated verified member, the buyer of
// another task, and for buyer-only operations the task's own seller. The states and the owners'
// calls are replaySetups', so a new operation is covered as soon as its replay is.
func TestStrangersChangeNothing(t *testing.T) { eachStore(t, testStrangersChangeNothing) }

func testStrangersChangeNothing(t *testing.T) {
	t.Parallel()
	w := newReplayWorld(t)
	e := w.e
	stranger := e.verified(map[string]any{"roles": []string{"buyer", "seller"},
		"skills": []map[string]any{{"task_type": "text-file", "description": "writes text"}}})
	_, otherBuyer := w.open()
	checked := 0
	for _, op := range contract.Ops {
		setup, known := replaySetups[op.Name]
		if !known || op.Access == contract.Public || op.Access == contract.Paid {
			continue
		}
		t.Run(op.Name, func(t *testing.T) {
			w.t = t
			k := setup(w)
			type who struct{ name, token string }
			strangers := []who{{"nobody", ""}, {"another task's buyer", otherBuyer}}
			// A member's own operations (its profile, its posts) are any member's to call: the
			// unrelated member is a stranger only where the record belongs to someone else.
			owned := op.Access == contract.BuyerAuth || op.Access == contract.TaskParty || op.Access == contract.AdminAuth || op.Forbids
			if owned && strangerMay[op.Name] == "" {
				strangers = append(strangers, who{"an unrelated member", stranger.MemberSecret})
			}
			if op.Access == contract.BuyerAuth {
				strangers = append(strangers, who{"the task's seller", w.seller.MemberSecret})
			}
			for _, s := range strangers {
				if s.token == k.token {
					continue
				}
				before, err := e.d.DB().Digests()
				if err != nil {
					t.Fatal(err)
				}
				resp, err := do(e.anon.With(s.token), op.Name, maps.Clone(k.in))
				if resp == nil {
					t.Fatalf("called by %s: no answer: %v", s.name, err)
				}
				checked++
				if resp.Status != 401 && resp.Status != 403 && resp.Status != 404 {
					t.Errorf("called by %s: answered %d, want 401, 403 or 404: %.300s", s.name, resp.Status, resp.Body)
				}
				after, err := e.d.DB().Digests()
				if err != nil {
					t.Fatal(err)
				}
				if changed := changedBuckets(before, after); len(changed) > 0 {
					t.Errorf("called by %s (answered %d), the refused call changed %v", s.name, resp.Status, changed)
				}
			}
			if resp, err := do(e.anon.With(k.token), op.Name, maps.Clone(k.in)); err != nil || resp.Status >= 300 {
				t.Errorf("after the strangers, the owner's call: %v", err)
			}
		})
	}
	for name, why := range strangerMay {
		if op := contract.Lookup(name); op == nil || why == "" {
			t.Errorf("strangerMay names %s, which is no operation (or gives no reason)", name)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d stranger calls checked", checked)
	}
	t.Logf("%d stranger calls refused, each leaving the store as it was", checked)
}

// changedBuckets lists the buckets whose digest differs, apart from those digestsIgnored names.
func changedBuckets(before, after map[string]string) []string {
	var out []string
	for name := range after {
		if before[name] != after[name] && digestsIgnored[name] == "" {
			out = append(out, name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// A token that is nothing (not the admin token, not a member secret) is told so: "not a valid
// admin token", "not a valid member secret", not "needs the admin token" as if none was sent.
func TestGarbageTokenIsNamed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	garbage := e.anon.With("axp_admin_not_the_right_one")
	for op, want := range map[string]string{"admin_stats": "not a valid admin token", "get_my_profile": "not a valid member secret"} {
		resp, err := do(garbage, op, nil)
		if b := checkErrorBody(t, resp, 401, "unauthorized"); !strings.Contains(b.Error.Message, want) {
			t.Errorf("%s with a garbage token: %v", op, err)
		}
	}
	resp, err := do(e.anon, "admin_stats", nil)
	if b := checkErrorBody(t, resp, 401, "unauthorized"); !strings.Contains(b.Error.Message, "needs the admin token") {
		t.Errorf("admin_stats with no token: %v", err)
	}
}

// TestStrangersReadNothing: every read that belongs to a task's parties (its declared owner),
// called by a stranger with a real id, is refused with 401, 403 or 404 and answers nothing of the
// record; its owner reads it. The strangers: nobody, the buyer of another task, an unrelated
// verified member (of another skill, so no task is open to it), and for the buyer's own reads the
// task's seller. A new owned read must be added to ownedReads: the test fails until it is.
func TestStrangersReadNothing(t *testing.T) {
	t.Parallel()
	w := newReplayWorld(t)
	e := w.e
	stranger := e.verified(map[string]any{"roles": []string{"buyer", "seller"},
		"skills": []map[string]any{{"task_type": "summarize", "description": "summarises"}}})
	_, otherBuyer := w.open()
	med, buyer := w.escalated()
	call(t, e.anon.With(buyer), "post_message", map[string]any{"id": med.TaskID, "body": "Where is the second half?"}, nil)
	ownedReads := map[string]map[string]any{
		"get_task":         {"id": med.TaskID},
		"get_deliverable":  {"id": med.TaskID},
		"get_timeline":     {"id": med.TaskID},
		"get_task_receipt": {"id": med.TaskID},
		"list_messages":    {"id": med.TaskID},
		"get_mediation":    {"id": med.ID},
	}
	checked := 0
	for _, op := range contract.Ops {
		if op.Owner == contract.NoOwner || op.Mutating() {
			continue
		}
		in, ok := ownedReads[op.Name]
		if !ok {
			t.Errorf("%s: an owned read with no case in ownedReads", op.Name)
			continue
		}
		strangers := map[string]string{"nobody": "", "another task's buyer": otherBuyer, "an unrelated member": stranger.MemberSecret}
		if op.Owner == contract.TaskBuyer {
			strangers["the task's seller"] = w.seller.MemberSecret
		}
		for who, token := range strangers {
			resp, err := do(e.anon.With(token), op.Name, maps.Clone(in))
			if resp == nil {
				t.Fatalf("%s by %s: no answer: %v", op.Name, who, err)
			}
			checked++
			if resp.Status != 401 && resp.Status != 403 && resp.Status != 404 {
				t.Errorf("%s by %s: answered %d, want 401, 403 or 404: %.300s", op.Name, who, resp.Status, resp.Body)
			}
			if strings.Contains(string(resp.Body), "second half") || strings.Contains(string(resp.Body), "rain on the roof") {
				t.Errorf("%s by %s: the refusal holds the record: %.300s", op.Name, who, resp.Body)
			}
		}
		for who, token := range map[string]string{"the buyer": buyer, "the seller": w.seller.MemberSecret} {
			if op.Owner == contract.TaskBuyer && who == "the seller" {
				continue
			}
			if resp, err := do(e.anon.With(token), op.Name, maps.Clone(in)); err != nil || resp.Status != 200 {
				t.Errorf("%s by %s: %v", op.Name, who, err)
			}
		}
	}
	if checked < 15 {
		t.Fatalf("only %d stranger reads checked", checked)
	}
}
