package a2a

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/axp-exchange/axp"
)

// Every exchange status maps to an A2A state.
func TestState(t *testing.T) {
	want := map[string]a2a.TaskState{
		axp.TaskOpen: a2a.TaskStateInputRequired, axp.TaskAwaitingPayment: a2a.TaskStateInputRequired,
		axp.TaskPaid: a2a.TaskStateWorking, axp.TaskInProgress: a2a.TaskStateWorking,
		axp.TaskDelivered: a2a.TaskStateInputRequired, axp.TaskAccepted: a2a.TaskStateCompleted,
		axp.TaskDisputed: a2a.TaskStateWorking, axp.TaskReleased: a2a.TaskStateCompleted,
		axp.TaskRefunded: a2a.TaskStateFailed, axp.TaskCancelled: a2a.TaskStateCanceled, axp.TaskExpired: a2a.TaskStateCanceled,
	}
	if len(want) != len(axp.TaskStatuses) {
		t.Fatalf("the table covers %d statuses, the domain has %d", len(want), len(axp.TaskStatuses))
	}
	for _, st := range axp.TaskStatuses {
		if got := State(st); got != want[st] {
			t.Errorf("%s -> %s, want %s", st, got, want[st])
		}
	}
	if State("nonsense") != a2a.TaskStateUnknown {
		t.Errorf("an unknown status is not unknown")
	}
}

// The card of spec section 9.
func TestCard(t *testing.T) {
	b, err := CardJSON("https://x.example")
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	caps := c["capabilities"].(map[string]any)
	if c["protocolVersion"] != "0.3.0" || c["version"] != "1.3.0" || c["preferredTransport"] != "JSONRPC" ||
		c["url"] != "https://x.example/a2a" || caps["streaming"] != false || caps["pushNotifications"] != false {
		t.Fatalf("card %s", b)
	}
	modes := c["defaultInputModes"].([]any)
	if len(modes) != 2 || modes[0] != "text/plain" || modes[1] != "application/json" {
		t.Fatalf("input modes %v", modes)
	}
	var ids []string
	for _, s := range Skills() {
		ids = append(ids, s.ID)
		if len(s.Tags) < 2 || s.Description == "" {
			t.Errorf("skill %+v", s)
		}
	}
	// One skill per group that anyone may use now (finding paid tools and asking for connectors
	// among them); sellers need a secret.
	if want := []string{"public", "buyer", "member", "paid"}; !slices.Equal(ids, want) {
		t.Fatalf("skills %v, want %v", ids, want)
	}
}

// A request's A2A-Version header picks the codec: none, 0.3 or 1.0; anything else is refused.
func TestVersion(t *testing.T) {
	for h, want := range map[string]string{"": "", "0.3": "0.3", "0.3.0": "0.3", "1.0": "1.0", "1": "1.0", " 1.0 ": "1.0", "2.0": "!", "0.2": "!", "1.1": "!", "x": "!"} {
		r, _ := http.NewRequest(http.MethodPost, "/a2a", nil)
		if h != "" {
			r.Header.Set(HeaderVersion, h)
		}
		v, ok := version(r)
		if !ok {
			v = "!"
		}
		if v != want {
			t.Errorf("A2A-Version %q -> %q, want %q", h, v, want)
		}
	}
}

// Every 0.3 task state has its TASK_STATE_* name; timestamps are RFC 3339 UTC with milliseconds.
func TestV1Shapes(t *testing.T) {
	for s, want := range map[a2a.TaskState]string{a2a.TaskStateInputRequired: "TASK_STATE_INPUT_REQUIRED",
		a2a.TaskStateWorking: "TASK_STATE_WORKING", a2a.TaskStateCompleted: "TASK_STATE_COMPLETED",
		a2a.TaskStateFailed: "TASK_STATE_FAILED", a2a.TaskStateCanceled: "TASK_STATE_CANCELED",
		a2a.TaskStateAuthRequired: "TASK_STATE_AUTH_REQUIRED", a2a.TaskStateUnknown: "TASK_STATE_UNSPECIFIED"} {
		if got := V1State(s); got != want {
			t.Errorf("%s -> %s, want %s", s, got, want)
		}
	}
	at := time.Date(2026, 3, 1, 13, 4, 5, 0, time.FixedZone("CET", 3600))
	if got := v1Time(at); got != "2026-03-01T12:04:05.000Z" {
		t.Errorf("timestamp %s", got)
	}
	m, err := fromV1Message(&v1MessageIn{MessageID: "m", Role: "ROLE_USER", Parts: []v1PartIn{{Data: json.RawMessage(`{"n": 12345678901234567890}`)}}})
	if err != nil {
		t.Fatal(err.message)
	}
	if n := m.Parts[0].(a2a.DataPart).Data["n"]; n != json.Number("12345678901234567890") {
		t.Errorf("a data part's number is %v (%T), want it exact", n, n)
	}
	b, _ := json.Marshal(toV1Message(m))
	if string(b) != `{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"n":12345678901234567890}}]}` {
		t.Errorf("1.0 message %s", b)
	}
}
