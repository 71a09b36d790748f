package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
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

// BenchmarkQuoteRound measures the push quote round for 1, 100 and 1,000 sellers on loopback, each
// a real signed MCP endpoint answering quote after 50 ms. Figure: overhead-ms = time from posting
// the task to the answer holding every offer, minus the 50 ms (aim: under 100 ms at 1,000), plus
// the goroutines at the rounds' peak and left after them, and the process's peak RSS (overall,
// and of the rounds alone where Linux lets the setup's peak be reset). cpu-ms/round is the CPU time
// the whole process (exchange, sellers and client) spent per round, a figure that other load on a
// shared machine disturbs less than the wall time (Linux only).
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
	sellers := benchServe(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	}))

	ctx := context.Background()
	anon := client.New(base, "")
	anon.HTTP.Transport = &http.Transport{MaxIdleConnsPerHost: 16}
	var ids []string
	for i := range n {
		var reg axp.Registered
		if err := anon.Call(ctx, "register", map[string]any{"roles": []string{"seller"}, "name": fmt.Sprintf("seller %d", i),
			"mcp_url": sellers + "/mcp", "skills": []map[string]any{{"task_type": "text-file"}}}, &reg); err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		keys[reg.MemberID] = []byte(reg.PlatformKey)
		mu.Unlock()
		ids = append(ids, reg.MemberID)
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
	cpu0 := processCPU()
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
	close(sampling)
	<-sampled
	cpu := processCPU() - cpu0
	overhead := total/time.Duration(b.N) - quoteDelay
	b.ReportMetric(float64(overhead.Microseconds())/1000, "overhead-ms")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/round")
	}
	b.ReportMetric(float64(most.Load()), "peak-goroutines")
	runtime.GC()
	b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines")
	b.ReportMetric(max(setupRSS, peakRSSMB()), "peak-RSS-MB")
	b.ReportMetric(peakRSSMB(), "round-peak-RSS-MB")
}

// processCPU is the CPU time (user and system) the process has used, from /proc/self/stat (0 where
// there is none).
func processCPU() time.Duration {
	raw, err := os.ReadFile("/proc/self/stat")
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
