package daemon_test

import (
	"strings"
	"testing"
)

// TestEveryOperationHasAHandler: every live operation of the catalog has a handler, and none that
// the catalog marks as coming later has one (registration itself refuses unknown names and handlers
// of the wrong input type, when the exchange starts).
func TestEveryOperationHasAHandler(t *testing.T) {
	e := newEnv(t)
	if missing := e.d.MissingHandlers(); len(missing) > 0 {
		t.Fatalf("the catalog and the handlers disagree:\n%s", strings.Join(missing, "\n"))
	}
}
