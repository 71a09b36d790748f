package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
)

func panics(t *testing.T, want string, fn func()) {
	t.Helper()
	defer func() {
		p := recover()
		if p == nil || !strings.Contains(p.(string), want) {
			t.Fatalf("panic %v, want one naming %q", p, want)
		}
	}()
	fn()
}

// TestRegistryRefusesMistakes: a second handler for one operation is refused when the exchange
// starts (a handler of the wrong input or output type does not compile); a live operation without
// a handler is listed by Missing and answers unavailable.
func TestRegistryRefusesMistakes(t *testing.T) {
	r := NewRegistry()
	health := func(context.Context, *Call) (*axp.OK, error) { return &axp.OK{OK: true}, nil }
	HandleNoInput(r, contract.Health, health)
	panics(t, "a second handler for health", func() { HandleNoInput(r, contract.Health, health) })

	missing := strings.Join(r.Missing(), "\n")
	if !strings.Contains(missing, "get_task has no handler") || strings.Contains(missing, "health") {
		t.Fatalf("missing:\n%s", missing)
	}
	_, err := r.For(contract.Lookup("get_task"))(context.Background(), &Call{}, nil)
	if e, ok := err.(*axp.Error); !ok || e.Code != axp.CodeUnavailable {
		t.Fatalf("an operation without a handler answered %v", err)
	}
}
