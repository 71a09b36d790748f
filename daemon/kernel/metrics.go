package kernel

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// latencyBounds are the upper bounds (ms) of the latency histogram buckets; one more bucket holds
// everything slower.
var latencyBounds = []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000}

type metricKey struct {
	hour  int64
	route string
}

// Metrics aggregates request and outbound-call figures per route and hour, in memory, and merges
// them into the store every few seconds, so figures survive restarts at the cost of one small
// write transaction per flush.
type Metrics struct {
	mu      sync.Mutex
	pending map[metricKey]*store.MetricAgg
	db      *store.DB
}

func NewMetrics(db *store.DB) *Metrics {
	return &Metrics{pending: map[metricKey]*store.MetricAgg{}, db: db}
}

func bucketOf(ms float64) int {
	return sort.SearchFloat64s(latencyBounds, ms)
}

func (m *Metrics) Observe(route string, elapsed time.Duration, failed bool, now time.Time) {
	ms := float64(elapsed.Microseconds()) / 1000
	k := metricKey{now.Unix() / 3600 * 3600, route}
	m.mu.Lock()
	a := m.pending[k]
	if a == nil {
		a = &store.MetricAgg{Buckets: make([]int64, len(latencyBounds)+1)}
		m.pending[k] = a
	}
	a.Count++
	if failed {
		a.Errors++
	}
	a.Buckets[bucketOf(ms)]++
	m.mu.Unlock()
}

func (m *Metrics) Flush() error {
	m.mu.Lock()
	p := m.pending
	m.pending = map[metricKey]*store.MetricAgg{}
	m.mu.Unlock()
	if len(p) == 0 {
		return nil
	}
	return m.db.Update(func(tx *store.Tx) error {
		for k, a := range p {
			if err := tx.AddMetrics(time.Unix(k.hour, 0).UTC(), k.route, *a); err != nil {
				return err
			}
		}
		return nil
	})
}

// Report merges stored and pending aggregates since the start of the window.
func (m *Metrics) Report(hours int, now time.Time) (axp.Metrics, error) {
	since := now.Add(-time.Duration(hours) * time.Hour)
	sinceHour := time.Unix(since.Unix()/3600*3600, 0).UTC()
	sum := map[string]*store.MetricAgg{}
	add := func(route string, a store.MetricAgg) {
		s := sum[route]
		if s == nil {
			s = &store.MetricAgg{Buckets: make([]int64, len(latencyBounds)+1)}
			sum[route] = s
		}
		s.Count += a.Count
		s.Errors += a.Errors
		for i, n := range a.Buckets {
			if i < len(s.Buckets) {
				s.Buckets[i] += n
			}
		}
	}
	err := m.db.View(func(tx *store.Tx) error {
		return tx.EachMetric(sinceHour, func(_ time.Time, route string, a store.MetricAgg) { add(route, a) })
	})
	m.mu.Lock()
	for k, a := range m.pending {
		if k.hour >= sinceHour.Unix() {
			add(k.route, *a)
		}
	}
	m.mu.Unlock()
	out := axp.Metrics{Hours: hours, Since: sinceHour, Routes: []axp.RouteMetrics{}, Outbound: []axp.RouteMetrics{}}
	names := make([]string, 0, len(sum))
	for r := range sum {
		names = append(names, r)
	}
	sort.Strings(names)
	for _, r := range names {
		a := sum[r]
		rm := axp.RouteMetrics{Route: r, Count: a.Count, Errors: a.Errors, P50Millis: quantile(a.Buckets, 0.50), P95Millis: quantile(a.Buckets, 0.95)}
		if a.Count > 0 {
			rm.ErrorRate = float64(a.Errors) / float64(a.Count)
		}
		if name, ok := strings.CutPrefix(r, "out:"); ok {
			rm.Route = name
			out.Outbound = append(out.Outbound, rm)
		} else {
			out.Routes = append(out.Routes, rm)
		}
	}
	return out, err
}

// quantile estimates the q-quantile (ms) from histogram buckets, interpolating inside the bucket.
func quantile(b []int64, q float64) float64 {
	var total int64
	for _, n := range b {
		total += n
	}
	if total == 0 {
		return 0
	}
	rank := q * float64(total)
	var seen int64
	for i, n := range b {
		if n == 0 {
			continue
		}
		if float64(seen+n) >= rank {
			lo := 0.0
			if i > 0 {
				lo = latencyBounds[i-1]
			}
			hi := lo * 2
			if i < len(latencyBounds) {
				hi = latencyBounds[i]
			}
			frac := (rank - float64(seen)) / float64(n)
			return round3(lo + (hi-lo)*frac)
		}
		seen += n
	}
	return latencyBounds[len(latencyBounds)-1]
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
