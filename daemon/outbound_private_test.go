package daemon_test

import (
	"context"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon"
)

// Under the default (outbound_private: deny) a callback_url or mcp_url whose host is a private IP
// literal is refused with a 400 naming the field and the config key; loopback is accepted.
func TestOutboundPrivateDeniedAtInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	hint := func(err *axp.Error) {
		t.Helper()
		if !strings.Contains(err.Hint, "outbound_private") {
			t.Fatalf("hint does not name outbound_private: %+v", err)
		}
	}

	err := e.anon.Call(ctx, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a poem about the sea"},
		"callback_url": "http://169.254.169.254/latest/meta-data"}, nil)
	hint(apiErr(t, err, axp.CodeInvalidInput, "callback_url"))

	err = e.anon.Call(ctx, "register", map[string]any{"name": "internal", "roles": []string{"seller"}, "mcp_url": "http://10.0.0.7:8080/mcp"}, nil)
	hint(apiErr(t, err, axp.CodeInvalidInput, "mcp_url"))

	m := e.register(map[string]any{"roles": []string{"seller"}, "mcp_url": "http://127.0.0.1:9/mcp"})
	err = m.c.Call(ctx, "update_profile", map[string]any{"mcp_url": "http://[fd00::1]/mcp"}, nil)
	hint(apiErr(t, err, axp.CodeInvalidInput, "mcp_url"))
	call(t, m.c, "update_profile", map[string]any{"mcp_url": "http://localhost:9/mcp"}, nil)

	var out axp.CreatedTask
	call(t, e.anon, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a poem about the sea"},
		"callback_url": "http://127.0.0.1:9/hook"}, &out)
}

// outbound_private: allow accepts private literals.
func TestOutboundPrivateAllowed(t *testing.T) {
	// Only the input checks are exercised: the member is never verified (so never called) and the
	// task gets no offers and no status change (so its callback is never posted). Nothing leaves
	// loopback.
	e := newEnv(t, func(c *daemon.Config) { c.OutboundPrivate = "allow" })
	e.register(map[string]any{"roles": []string{"seller"}, "mcp_url": "http://10.0.0.7:8080/mcp"})
	var out axp.CreatedTask
	call(t, e.anon, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a poem about the sea"},
		"callback_url": "http://192.168.1.10/hook"}, &out)
}
