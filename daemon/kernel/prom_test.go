package kernel_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/store"
)

func newTestProm(t testing.TB) *kernel.Prom {
	db, err := store.OpenLocation(filepath.Join(t.TempDir(), store.FileName), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return kernel.NewProm(db, func() bool { return true })
}

// series is each series of the counter named name, by its label values (in the order of the
// labels' names), with its count.
func series(t *testing.T, p *kernel.Prom, name string) map[string]float64 {
	t.Helper()
	fams, err := p.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetValue())
			}
			out[fmt.Sprint(labels)] = m.GetCounter().GetValue()
		}
	}
	return out
}

// Observing a call whose series exists allocates nothing: every call of every door runs it. Each
// call counts once in its series, and a series is made once per operation, door, status and
// error code.
func TestPromCallAllocatesNothing(t *testing.T) {
	p := newTestProm(t)
	notFound := axp.NotFound("task", "tsk_x")
	p.Call("get_task", "rest", 200, nil, time.Millisecond)
	p.Call("get_task", "rest", 404, notFound, time.Millisecond)
	const runs = 1000 // AllocsPerRun calls once more to warm up
	for _, c := range []struct {
		status int
		err    error
	}{{200, nil}, {404, notFound}} {
		if n := testing.AllocsPerRun(runs, func() { p.Call("get_task", "rest", c.status, c.err, time.Millisecond) }); n != 0 {
			t.Errorf("status %d: %v allocations per call", c.status, n)
		}
	}
	p.Call("get_task", "mcp", 500, errors.New("boom"), time.Millisecond)
	want := map[string]float64{"[200 rest get_task]": runs + 2, "[404 rest get_task]": runs + 2, "[500 mcp get_task]": 1}
	if got := series(t, p, "axp_requests_total"); !reflect.DeepEqual(got, want) {
		t.Errorf("requests %v, want %v", got, want)
	}
	want = map[string]float64{fmt.Sprintf("[rest %s get_task]", axp.CodeNotFound): runs + 2, fmt.Sprintf("[mcp %s get_task]", axp.CodeInternal): 1}
	if got := series(t, p, "axp_request_errors_total"); !reflect.DeepEqual(got, want) {
		t.Errorf("errors %v, want %v", got, want)
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
