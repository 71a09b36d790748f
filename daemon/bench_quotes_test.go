package daemon_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// quoteDelay is how long every benchmark seller takes to answer a quote.
const quoteDelay = 50 * time.Millisecond

// The aims of a round to 1,000 sellers: at most 50 ms beyond the slowest seller, and half the
// exchange's CPU of a round measured before they were set (115 ms on a quiet 2-core machine; see
// docs/performance.md). Both are printed beside the figures; on a loaded machine CPU times
// inflate, so compare runs made alternately in the same minutes.
const (
	overheadAim    = 50.0
	exchangeCPUAim = 115.0 / 2
)

// BenchmarkQuoteRound measures the push quote round for 1, 100 and 1,000 sellers on loopback, each
// a real signed MCP endpoint answering quote after 50 ms. Figure: overhead-ms = time from posting
// the task to the answer holding every offer, minus the 50 ms (aim at 1,000: overheadAim), plus
// the exchange process's goroutines at the rounds' peak and left after them, and its peak RSS
// (overall, and of the rounds alone where Linux lets the setup's peak be reset).
//
// The sellers run in a process of their own (this test binary again, see serveBenchSellers), as
// they would in the world: what the exchange costs is not mixed with what its sellers cost, their
// garbage included, while they still share the machine's cores. cpu-ms/round is the CPU time both
// processes spent per round, exchange-cpu-ms/round the exchange's (with the benchmark's client),
// seller-cpu-ms/round the sellers' (Linux only): figures that other load on a shared machine
// disturbs less than the wall time. At 1,000 sellers the aims are printed beside the figures
// (aim-overhead-ms, aim-exchange-cpu-ms/round).
func BenchmarkQuoteRound(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("sellers=%d", n), func(b *testing.B) { benchQuoteRound(b, n) })
	}
}

func benchQuoteRound(b *testing.B, n int) {
	cfg := daemon.Defaults()
	cfg.DataDir = b.TempDir()
	cfg.AdminToken = "axp_admin_bench"
	cfg.AnonReadsPerMinute, cfg.AnonTasksPerMinute, cfg.RegistrationsPerHour = 0, 0, 0
	cfg.QuoteWindow = 10 * time.Second
	d, _, err := daemon.New(cfg, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	base := benchServe(b, d.Handler())
	d.SetBaseURL(base)
	sellers, sellerPID := startBenchSellers(b)

	ctx := context.Background()
	anon := client.New(base, "")
	anon.HTTP.Transport = &http.Transport{MaxIdleConnsPerHost: 16}
	var ids []string
	keys := map[string]string{}
	for i := range n {
		var reg axp.Registered
		if err := anon.Call(ctx, "register", map[string]any{"roles": []string{"seller"}, "name": fmt.Sprintf("seller %d", i),
			"mcp_url": sellers + "/mcp", "skills": []map[string]any{{"task_type": "text-file"}}}, &reg); err != nil {
			b.Fatal(err)
		}
		keys[reg.MemberID] = reg.PlatformKey
		ids = append(ids, reg.MemberID)
	}
	body, _ := json.Marshal(keys)
	resp, err := http.Post(sellers+"/keys", "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		b.Fatalf("the sellers' process took the keys with HTTP %d", resp.StatusCode)
	}
	if err := d.DB().Update(func(tx *store.Tx) error {
		for _, id := range ids {
			m, err := tx.Member(id)
			if err != nil {
				return err
			}
			m.State = axp.MemberVerified
			if err := tx.PutMember(m); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}

	// The rounds' own peak: the setup's is forgotten (Linux: writing 5 to clear_refs resets the
	// peak RSS), and the goroutines are sampled while the rounds run.
	runtime.GC()
	setupRSS := peakRSSMB()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	var most atomic.Int64
	sampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-sampling:
				return
			case <-tick.C:
				if g := int64(runtime.NumGoroutine()); g > most.Load() {
					most.Store(g)
				}
			}
		}
	}()
	var total time.Duration
	stopProfile := roundProfile(b, n)
	cpu0, sellerCPU0 := processCPU("self"), processCPU(sellerPID)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		var t axp.CreatedTask
		if err := anon.Call(ctx, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku"}}, &t); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		if len(t.Offers) != n {
			b.Fatalf("%d offers, want %d", len(t.Offers), n)
		}
	}
	b.StopTimer()
	cpu, sellerCPU := processCPU("self")-cpu0, processCPU(sellerPID)-sellerCPU0
	stopProfile()
	close(sampling)
	<-sampled
	overhead := total/time.Duration(b.N) - quoteDelay
	b.ReportMetric(float64(overhead.Microseconds())/1000, "overhead-ms")
	if n == 1000 {
		b.ReportMetric(overheadAim, "aim-overhead-ms")
		b.ReportMetric(exchangeCPUAim, "aim-exchange-cpu-ms/round")
	}
	if cpu > 0 {
		perRound := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
		b.ReportMetric(perRound(cpu+sellerCPU), "cpu-ms/round")
		b.ReportMetric(perRound(cpu), "exchange-cpu-ms/round")
		b.ReportMetric(perRound(sellerCPU), "seller-cpu-ms/round")
	}
	b.ReportMetric(float64(most.Load()), "peak-goroutines")
	runtime.GC()
	b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines")
	b.ReportMetric(max(setupRSS, peakRSSMB()), "peak-RSS-MB")
	b.ReportMetric(peakRSSMB(), "round-peak-RSS-MB")
}

// roundProfileEnv names a file prefix: BenchmarkQuoteRound then writes a CPU profile of the rounds
// alone, without the registration of their sellers, to <prefix>-<sellers>.prof (go test's
// -cpuprofile covers the setup too, which at 1,000 sellers costs far more than the rounds), and
// the allocations before and after them to <prefix>-<sellers>.mem0 and .mem1 (the rounds' own:
// go tool pprof -sample_index=alloc_space -base <prefix>-1000.mem0 <prefix>-1000.mem1).
const roundProfileEnv = "AXP_BENCH_ROUND_PROFILE"

// roundProfile starts the rounds' profile when roundProfileEnv asks for one, and returns what
// stops it.
func roundProfile(b *testing.B, n int) func() {
	prefix := os.Getenv(roundProfileEnv)
	if prefix == "" {
		return func() {}
	}
	f, err := os.Create(fmt.Sprintf("%s-%d.prof", prefix, n))
	if err != nil {
		b.Fatal(err)
	}
	heap := func(suffix string) {
		runtime.GC() // the profile is as of the last collection
		if h, err := os.Create(fmt.Sprintf("%s-%d.%s", prefix, n, suffix)); err == nil {
			pprof.Lookup("allocs").WriteTo(h, 0)
			h.Close()
		}
	}
	heap("mem0")
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatalf("%v (%s cannot be used with -cpuprofile)", err, roundProfileEnv)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		heap("mem1")
	}
}

// processCPU is the CPU time (user and system) process pid ("self": this one) has used, from
// /proc/<pid>/stat (0 where there is none).
func processCPU(pid string) time.Duration {
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name (which is in parentheses and may hold spaces): utime and
	// stime are the 12th and 13th, in clock ticks (100 a second on Linux).
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// benchSellersEnv set to 1 makes the test binary the sellers' process of BenchmarkQuoteRound
// (see TestMain).
const benchSellersEnv = "AXP_BENCH_SELLERS"

// startBenchSellers starts the sellers' process and returns its base URL and pid. It ends with the
// benchmark (or with this process: it stops when its stdin closes).
func startBenchSellers(b *testing.B) (string, string) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchSellersEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("the sellers' process did not say where it listens: %v", err)
	}
	return strings.TrimSpace(line), strconv.Itoa(cmd.Process.Pid)
}

// serveBenchSellers is the sellers' process: one mcp-go Streamable HTTP server (stateless) on
// 127.0.0.1 whose /mcp verifies each call's signature with the caller's platform key and answers
// quote after quoteDelay (and every other member tool at once). POST /keys adds platform keys
// (a JSON object, member id to key). It prints its base URL, then serves until stdin closes.
func serveBenchSellers() {
	var mu sync.RWMutex
	keys := map[string][]byte{}
	s := server.NewMCPServer("bench-sellers", "1.0.0", server.WithToolCapabilities(false))
	for _, tool := range protocol.MemberTools {
		in, _ := json.Marshal(protocol.SchemaOf(tool.In))
		def := mcp.NewToolWithRawSchema(tool.Name, tool.Description, in)
		name := tool.Name
		s.AddTool(def, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var v any = map[string]any{"received": true}
			if name == "quote" {
				t := time.NewTimer(quoteDelay)
				defer t.Stop()
				select {
				case <-t.C:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				v = map[string]any{"price_usd": 2.5, "eta_minutes": 15}
			}
			raw, _ := json.Marshal(v)
			return mcp.NewToolResultStructured(v, string(raw)), nil
		})
	}
	inner := server.NewStreamableHTTPServer(s, server.WithStateLess(true), server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)))
	mux := http.NewServeMux()
	mux.HandleFunc("POST /keys", func(w http.ResponseWriter, r *http.Request) {
		var add map[string]string
		if err := json.NewDecoder(r.Body).Decode(&add); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		for id, k := range add {
			keys[id] = []byte(k)
		}
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id := r.Header.Get(protocol.HeaderMemberID)
		mu.RLock()
		key := keys[id]
		mu.RUnlock()
		if err := protocol.VerifyRequest(r.Header, id, key, body, time.Now()); err != nil || key == nil {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench sellers:", err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	go srv.Serve(ln)
	fmt.Println("http://" + ln.Addr().String())
	io.Copy(io.Discard, os.Stdin)
	srv.Close()
}
