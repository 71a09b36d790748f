package daemon_test

import (
	"context"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon"
)

// Names refuse mixed-script confusables and floods of combining marks wherever hidden
// characters are refused: registration, profile update, identity labels, agent_name.
func TestConfusableNamesRefused(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, c := range []struct {
		reg   map[string]any
		field string
	}{
		{map[string]any{"name": "\u0410dmin"}, "name"}, // Cyrillic А
		{map[string]any{"name": "Z" + strings.Repeat("\u0301\u0300\u0302", 3) + "algo"}, "name"},
		{map[string]any{"name": "Fine Seller", "identity": map[string]any{"operator_name": "G\u03BFogle"}}, "identity.operator_name"},
	} {
		c.reg["roles"] = []string{"buyer"}
		apiErr(t, e.anon.Call(ctx, "register", c.reg, nil), axp.CodeInvalidInput, c.field)
	}
	m := e.register(map[string]any{"name": "Vi\u1EC7t Seller", "roles": []string{"buyer"}})
	apiErr(t, m.c.Call(ctx, "update_profile", map[string]any{"name": "p\u0430ypal"}, nil), axp.CodeInvalidInput, "name")
	err := e.anon.Call(ctx, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a poem about the sea"},
		"agent_name": "\u0410dmin bot"}, nil)
	apiErr(t, err, axp.CodeInvalidInput, "agent_name")
}

// The demand of /api/interest is published: its type refuses hidden characters, confusables and
// contact details like a name.
func TestInterestTypeScreened(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, typ := range []string{"vid\u202eeo", "video\x00", "vi\u200bdeo", "\u0430udio", "mail ana@mail.example", "call +1 415 555 0100"} {
		apiErr(t, e.anon.Call(ctx, "register_interest", map[string]any{"type": typ}, nil), axp.CodeInvalidInput, "type")
	}
	var rec axp.Recorded
	call(t, e.anon, "register_interest", map[string]any{"type": "video"}, &rec)
}

// A connector's data source passes the outbound guard when it is requested: private, link-local,
// NAT64 and, on an exchange others reach, loopback addresses are refused.
func TestConnectorURLGuarded(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, func(c *daemon.Config) { c.Addr = "0.0.0.0:0" })
	for _, u := range []string{"http://169.254.169.254/latest/meta-data", "http://10.0.0.7/prices", "http://[fe80::1]/x",
		"http://[64:ff9b::a9fe:a9fe]/latest", "http://127.0.0.1:8420/api/admin", "http://[::1]/x"} {
		err := e.anon.Call(ctx, "request_connector", map[string]any{"url": u, "wants": "prices"}, nil)
		if !strings.Contains(apiErr(t, err, axp.CodeInvalidInput, "url").Hint, "outbound_private") {
			t.Errorf("%s: %v", u, err)
		}
	}
	var cn axp.Connector
	call(t, e.anon, "request_connector", map[string]any{"url": "https://data.example/prices", "wants": "prices"}, &cn)
}
