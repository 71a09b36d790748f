package axp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
)

func TestErrorHelpers(t *testing.T) {
	cases := []struct {
		err  *axp.Error
		code axp.Code
	}{
		{axp.NotFound("task", "t1"), axp.CodeNotFound},
		{axp.Unauthorized("no", "send a token"), axp.CodeUnauthorized},
		{axp.Forbidden("no", ""), axp.CodeForbidden},
		{axp.Conflict("no", ""), axp.CodeConflict},
		{axp.Invalid("f", "bad", ""), axp.CodeInvalidInput},
		{axp.Errorf(axp.CodeUnavailable, "down %d", 1), axp.CodeUnavailable},
	}
	for _, c := range cases {
		if c.err.Code != c.code {
			t.Errorf("%v: code %s, want %s", c.err, c.err.Code, c.code)
		}
		var e *axp.Error
		if !errors.As(error(c.err), &e) {
			t.Errorf("%v: errors.As", c.err)
		}
	}
	if got := axp.NotFound("task", "t1").Error(); got != `task "t1" does not exist (check the id)` {
		t.Errorf("NotFound = %q", got)
	}
	long := axp.NotFound("task", strings.Repeat("x", 200)).Message
	if len(long) > 120 || !strings.Contains(long, `..."`) {
		t.Errorf("a long id is not clipped: %q", long)
	}
}

func TestContext(t *testing.T) {
	ctx := context.Background()
	if axp.TraceID(ctx) != "" {
		t.Fatal("empty context carries values")
	}
	ctx = axp.WithTrace(ctx, "tr-1")
	if axp.TraceID(ctx) != "tr-1" {
		t.Fatal("values lost")
	}
}
