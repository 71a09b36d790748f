package kernel

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

func newTestProm(t testing.TB) *Prom {
	db, err := store.OpenLocation(filepath.Join(t.TempDir(), store.FileName), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return NewProm(db, func() bool { return true })
}

// Observing a call whose series exists allocates nothing: every call of every door runs it.
func TestPromCallAllocatesNothing(t *testing.T) {
	p := newTestProm(t)
	notFound := axp.NotFound("task", "tsk_x")
	p.Call("get_task", "rest", 200, nil, time.Millisecond)
	p.Call("get_task", "rest", 404, notFound, time.Millisecond)
	for _, c := range []struct {
		status int
		err    error
	}{{200, nil}, {404, notFound}} {
		if n := testing.AllocsPerRun(1000, func() { p.Call("get_task", "rest", c.status, c.err, time.Millisecond) }); n != 0 {
			t.Errorf("status %d: %v allocations per call", c.status, n)
		}
	}
	p.Call("get_task", "mcp", 500, errors.New("boom"), time.Millisecond)
	if len(p.calls) != 3 {
		t.Errorf("%d cached series, want 3", len(p.calls))
	}
}

func BenchmarkPromCall(b *testing.B) {
	p := newTestProm(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p.Call("get_task", "rest", 200, nil, time.Millisecond)
		}
	})
}
