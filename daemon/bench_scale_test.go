package daemon_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/store"
)

// benchAdminToken is the admin token of the exchanges benchExchange starts.
const benchAdminToken = "axp_admin_bench"

// createConns is the number of client connections BenchmarkCreateTask posts from.
const createConns = 50

// BenchmarkCreateTask posts tasks (no sellers, so no quote round) from 50 keep-alive connections to an
// exchange whose store syncs every commit. Beside it, in the same run, the raw limit: serial synced
// bbolt commits of one 2 KB value a second (one commit per task would cap the exchange there).
// Figures: tasks/s, p50-ms and p99-ms of one POST, raw-commits/s, ratio = tasks/s / raw-commits/s
// (above 1 only when tasks share commits), calls/commit (store write calls per synced commit).
func BenchmarkCreateTask(b *testing.B) {
	d, base := benchExchange(b, b.TempDir(), nil)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: createConns, MaxConnsPerHost: createConns},
		Timeout: time.Minute}
	b.Cleanup(hc.CloseIdleConnections)
	if _, err := benchPostTask(hc, base); err != nil { // warm up, and prove the path works
		b.Fatal(err)
	}
	commits0, calls0 := d.DB().GroupStats()
	all, elapsed := timedRuns(b, createConns, func() error {
		_, err := benchPostTask(hc, base)
		return err
	})
	commits, calls := d.DB().GroupStats()
	tps := float64(b.N) / elapsed.Seconds()
	raw := rawWrites(b, 1, false)
	b.ReportMetric(tps, "tasks/s")
	b.ReportMetric(benchMS(benchPercentile(all, 0.50)), "p50-ms")
	b.ReportMetric(benchMS(benchPercentile(all, 0.99)), "p99-ms")
	b.ReportMetric(raw, "raw-commits/s")
	b.ReportMetric(tps/raw, "ratio")
	if commits > commits0 {
		b.ReportMetric(float64(calls-calls0)/float64(commits-commits0), "calls/commit")
	}
}

// BenchmarkRecordBytes runs whole crypto lifecycles, every mutating call with an Idempotency-Key, and
// reports the bytes (keys and values) each lifecycle adds to the store: written-B as the calls
// leave it, then, after the packing pass has moved the history past its packing age into
// compressed blocks (as the daemon's hourly pass does once the records are a week old), per
// bucket: task (the task record), events (its timeline), audit, log (with the trace index),
// idempotency, other, and total. kept-B leaves out the idempotency records, which are deleted 24
// hours after their call. order=sequential runs one lifecycle after another, so a block holds the
// records of a few whole lifecycles; order=interleaved keeps 64 lifecycles under way and takes the
// next step of a random one each time, as a busy exchange's records arrive (a block then holds
// pieces of many). AXP_BENCH_BUCKETS=1 logs every bucket that grew.
func BenchmarkRecordBytes(b *testing.B) {
	b.Run("order=sequential", func(b *testing.B) { benchRecordBytes(b, 1) })
	b.Run("order=interleaved", func(b *testing.B) { benchRecordBytes(b, 64) })
}

func benchRecordBytes(b *testing.B, inFlight int) {
	d, base := benchExchange(b, b.TempDir(), func(c *daemon.Config) { c.DepositAddress = "0x" + strings.Repeat("1", 40) })
	steps := lifecycleSteps(b, d, base, true)
	run := func(all []func() error) {
		for _, step := range all {
			if err := step(); err != nil {
				b.Fatal(err)
			}
		}
	}
	run(steps())
	d.FlushLogs()
	before, err := d.DB().BucketBytes()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	r := mrand.New(mrand.NewPCG(1, 2))
	var under [][]func() error
	for started := 0; started < b.N || len(under) > 0; {
		for len(under) < inFlight && started < b.N {
			under = append(under, steps())
			started++
		}
		i := r.IntN(len(under))
		if err := under[i][0](); err != nil {
			b.Fatal(err)
		}
		if under[i] = under[i][1:]; len(under[i]) == 0 {
			under = slices.Delete(under, i, i+1)
		}
	}
	b.StopTimer()
	d.FlushLogs()
	grown := func() map[string]float64 {
		after, err := d.DB().BucketBytes()
		if err != nil {
			b.Fatal(err)
		}
		out := map[string]float64{}
		for name, n := range after {
			if grew := float64(n-before[name]) / float64(b.N); grew != 0 {
				out[name] = grew
			}
		}
		return out
	}
	written := 0.0
	for _, n := range grown() {
		written += n
	}
	if _, err := d.DB().PackAll(time.Now().Add(8*24*time.Hour), true); err != nil {
		b.Fatal(err)
	}
	named := map[string]string{"tasks": "task", "events": "events", "audit": "audit", "log": "log",
		"trace_index": "log", "idempotency": "idempotency"}
	per := map[string]float64{}
	total := 0.0
	for name, grew := range grown() {
		label := named[strings.TrimSuffix(name, "_packed")]
		if label == "" {
			label = "other"
		}
		per[label] += grew
		if os.Getenv("AXP_BENCH_BUCKETS") != "" {
			b.Logf("%-20s %8.1f B", name, grew)
		}
		total += grew
	}
	for _, label := range []string{"task", "events", "audit", "log", "idempotency", "other"} {
		b.ReportMetric(per[label], label+"-B")
	}
	b.ReportMetric(written, "written-B")
	b.ReportMetric(total, "total-B")
	b.ReportMetric(total-per["idempotency"], "kept-B")
}

// BenchmarkStoredTasks posts a task and reads one back (GET /api/tasks/{id}) on an exchange holding 0,
// 100k and 1M tasks, and times a sweeper pass: the figures must stay flat as the store grows.
// Stored tasks are seeded straight into the store without syncing (1% open, 1% awaiting payment, 1%
// delivered, the rest released, each with two timeline events), once per size and schema version,
// into a file under the system temp dir that later runs copy (seeding 1M takes minutes here).
// Figures: post-ms and get-ms (mean of one call), their p99, sweep-ms (one pass), open-ms (opening
// the exchange on that store, in process, after a clean close) and heap-MB after the run.
func BenchmarkStoredTasks(b *testing.B) {
	for _, n := range []int{0, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) { benchStoredTasks(b, n) })
	}
}

func benchStoredTasks(b *testing.B, n int) {
	dir := b.TempDir()
	if n > 0 {
		seeded := seededTasks(b, n)
		if err := benchCopyFile(seeded, filepath.Join(dir, store.FileName)); err != nil {
			b.Fatal(err)
		}
		// A seed written before Close wrote bbolt's freelist makes the first open rebuild it
		// from every page: open and close it once, as an exchange that has run before.
		db, err := store.Open(filepath.Join(dir, store.FileName), store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
	t0 := time.Now()
	d, base := benchExchange(b, dir, func(c *daemon.Config) { c.SweepEvery = time.Hour })
	open := time.Since(t0)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: time.Minute}
	b.Cleanup(hc.CloseIdleConnections)
	var posts, gets []time.Duration
	b.ResetTimer()
	for range b.N {
		t1 := time.Now()
		created, err := benchPostTask(hc, base)
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := benchGetTask(hc, base, created.ID, created.BuyerToken); err != nil {
			b.Fatal(err)
		}
		posts, gets = append(posts, t2.Sub(t1)), append(gets, time.Since(t2))
	}
	b.StopTimer()
	var sweep time.Duration
	const passes = 3
	for range passes {
		t := time.Now()
		d.Sweep()
		sweep += time.Since(t)
	}
	runtime.GC()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	b.ReportMetric(benchMS(benchMean(posts)), "post-ms")
	b.ReportMetric(benchMS(benchPercentile(posts, 0.99)), "post-p99-ms")
	b.ReportMetric(benchMS(benchMean(gets)), "get-ms")
	b.ReportMetric(benchMS(benchPercentile(gets, 0.99)), "get-p99-ms")
	b.ReportMetric(benchMS(sweep/passes), "sweep-ms")
	b.ReportMetric(benchMS(open), "open-ms")
	b.ReportMetric(float64(mem.HeapInuse)/(1<<20), "heap-MB")
}

// seededTasks returns the path of a store holding n tasks, seeding it under the system temp dir when
// this schema version has none yet, with the history past its age packed. Runs only read the file
// (they copy it).
func seededTasks(b *testing.B, n int) string {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("axp-bench-tasks-%d-schema%d.db", n, store.SchemaVersion))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := path + fmt.Sprintf(".%d.tmp", os.Getpid())
	defer os.Remove(tmp)
	db, err := store.Open(tmp, store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC()
	const batch = 20_000
	for lo := 0; lo < n; lo += batch {
		if err := db.Update(func(tx *store.Tx) error {
			for i := lo; i < min(lo+batch, n); i++ {
				t := seedTask(i, n, now)
				status := t.Status
				t.Status = axp.TaskOpen
				if err := tx.AppendEvent(t, axp.Event{At: t.CreatedAt, Kind: "create", Actor: "anonymous", Status: axp.TaskOpen}); err != nil {
					return err
				}
				t.Status = status
				if err := tx.AppendEvent(t, axp.Event{At: t.UpdatedAt, Kind: "seeded", Actor: "system", Status: status}); err != nil {
					return err
				}
				if err := tx.PutTask(t, ""); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	// An exchange that has run for years holds its history packed (the hourly pass keeps up).
	if _, err := db.PackAll(now, false); err != nil {
		b.Fatal(err)
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// seedTask is the i-th of n stored tasks: created over the n minutes before now, one in a hundred
// open, awaiting payment or delivered (with windows that end in a month), the others released.
func seedTask(i, n int, now time.Time) *axp.TaskRecord {
	created := now.Add(-time.Duration(n-i) * time.Minute)
	month := now.Add(30 * 24 * time.Hour)
	price := axp.Money(200_000)
	t := &axp.TaskRecord{ID: axp.NewID("tsk", created), Type: "text-file", Description: "a haiku about autumn",
		Params: map[string]any{"prompt": "a haiku"}, PaymentMethod: "crypto",
		BuyerTokenHash: fmt.Sprintf("%064x", i), Status: axp.TaskReleased,
		SellerID: "mem_seed", SellerName: "seed seller", ChosenOfferID: fmt.Sprintf("ofr_seed_%d", i), Price: price,
		ETAMinutes: 5, Payable: price + axp.Money(i%9999+1), Received: price + axp.Money(i%9999+1),
		OpenUntil: created.Add(24 * time.Hour), CreatedAt: created, UpdatedAt: created.Add(time.Hour)}
	switch i % 100 {
	case 0:
		t.Status, t.SellerID, t.SellerName, t.ChosenOfferID, t.Price, t.Payable, t.Received = axp.TaskOpen, "", "", "", 0, 0, 0
		t.OpenUntil = month
	case 1:
		t.Status, t.Received, t.PayBy = axp.TaskAwaitingPayment, 0, &month
	case 2:
		t.Status, t.AutoReleaseAt = axp.TaskDelivered, &month
	}
	return t
}

func benchCopyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// benchExchange starts an exchange on dir (store synced, no rate limits) and serves it on loopback.
func benchExchange(b *testing.B, dir string, tune func(*daemon.Config)) (*daemon.Daemon, string) {
	cfg := daemon.Defaults()
	cfg.DataDir = dir
	cfg.AdminToken = benchAdminToken
	cfg.AnonReadsPerMinute, cfg.AnonTasksPerMinute = 0, 0
	if tune != nil {
		tune(&cfg)
	}
	d, _, err := daemon.New(cfg, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	base := benchServe(b, d.Handler())
	d.SetBaseURL(base)
	return d, base
}

var benchTaskBody = []byte(`{"type":"text-file","params":{"prompt":"a haiku about autumn"}}`)

// benchPostTask posts an anonymous task and answers its id and buyer token.
func benchPostTask(hc *http.Client, base string) (*axp.CreatedTask, error) {
	resp, err := hc.Post(base+"/api/tasks", "application/json", bytes.NewReader(benchTaskBody))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("POST /api/tasks: %s %s", resp.Status, body)
	}
	var t axp.CreatedTask
	return &t, json.Unmarshal(body, &t)
}

func benchGetTask(hc *http.Client, base, id, token string) error {
	req, _ := http.NewRequest(http.MethodGet, base+"/api/tasks/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET /api/tasks/%s: %s %s", id, resp.Status, strings.TrimSpace(string(body)))
	}
	return err
}

func benchMS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func benchMean(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

// benchPercentile is the q-quantile of ds (sorted in place).
func benchPercentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(q*float64(len(ds))))]
}
