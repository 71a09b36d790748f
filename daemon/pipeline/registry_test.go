package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
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

// TestRegistryRefusesMistakes: a handler for a name the catalog does not know, of the wrong input
// type, or a second handler for one operation is refused when the exchange starts; a live
// operation without a handler is listed by Missing and answers unavailable.
func TestRegistryRefusesMistakes(t *testing.T) {
	r := NewRegistry()
	noop := func(context.Context, *Call) (any, error) { return nil, nil }
	panics(t, "no operation get_taks", func() { HandleNoInput(r, "get_taks", noop) })
	panics(t, "its handler takes axp.NewTask", func() {
		Handle(r, "get_task", func(context.Context, *Call, *axp.NewTask) (any, error) { return nil, nil })
	})
	panics(t, "its handler takes no input", func() { HandleNoInput(r, "get_task", noop) })
	HandleNoInput(r, "health", noop)
	panics(t, "a second handler for health", func() { HandleNoInput(r, "health", noop) })

	missing := strings.Join(r.Missing(), "\n")
	if !strings.Contains(missing, "get_task has no handler") || strings.Contains(missing, "health") {
		t.Fatalf("missing:\n%s", missing)
	}
	_, err := r.For(axp.Lookup("get_task"))(context.Background(), &Call{}, nil)
	if e, ok := err.(*axp.Error); !ok || e.Code != axp.CodeUnavailable {
		t.Fatalf("an operation without a handler answered %v", err)
	}
}
