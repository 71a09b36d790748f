package a2a

import (
	"encoding/json"
	"slices"
	"testing"

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
