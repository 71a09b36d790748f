package daemon_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axp-exchange/axp/daemon"
)

// BenchmarkDoors measures the MCP and A2A doors over real TCP on 127.0.0.1 with the same client
// (keep-alive, several parallel workers) as BenchmarkLoopback.
//
// get_task: MCP tools/call get_task beside REST GET /api/tasks/{id} for the same task and buyer
// token, in alternating rounds of the same run. Figures: mcp-req/s, rest-req/s, ratio (MCP/REST) and
// aim, the ratio the door is held to (mcpAim). get_task_modern is get_task as a stateless
// 2026-07-28 client sends it. get_task_sdk is the same comparison with every MCP
// request served by mcp-go alone (no fast path); docs/performance.md keeps the figures. One op is one
// call through each door.
//
// a2a_text and a2a_data: A2A message/send a second, with a text part (a suggested task, the search
// operation) and with a data part (a posted task: create_task, a synced write).
func BenchmarkDoors(b *testing.B) {
	cfg := daemon.Defaults()
	cfg.DataDir = b.TempDir()
	cfg.AdminToken = "axp_admin_bench"
	cfg.AnonReadsPerMinute = 0 // one client IP makes every request
	cfg.AnonTasksPerMinute = 1 << 30
	d, _, err := daemon.New(cfg, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	base := benchServe(b, d.Handler())
	d.SetBaseURL(base)

	workers := 4 * runtime.GOMAXPROCS(0)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * workers, MaxIdleConnsPerHost: workers,
		IdleConnTimeout: time.Minute}}
	b.Cleanup(hc.CloseIdleConnections)

	// One task to read, posted over REST.
	resp, err := hc.Post(base+"/api/tasks", "application/json", strings.NewReader(`{"type":"text-file","params":{"prompt":"a haiku about benchmarks"}}`))
	if err != nil {
		b.Fatal(err)
	}
	var created struct {
		ID         string `json:"id"`
		BuyerToken string `json:"buyer_token"`
	}
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if created.ID == "" {
		b.Fatalf("no task: %s", resp.Status)
	}

	mcpHeader := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	a2aHeader := http.Header{"Content-Type": {"application/json"}}
	rest := benchReq{method: http.MethodGet, url: base + "/api/tasks/" + created.ID + "?token=" + created.BuyerToken}
	mcp := benchReq{method: http.MethodPost, url: base + "/mcp", header: mcpHeader,
		body: fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_task","arguments":{"id":%q,"buyer_token":%q}}}`, created.ID, created.BuyerToken),
		want: `"structuredContent"`}

	b.Run("get_task_sdk", func(b *testing.B) {
		// The same comparison with every MCP request served by mcp-go alone (no fast path).
		d.SetMCPFastPath(false)
		defer d.SetMCPFastPath(true)
		benchCheck(b, hc, mcp)
		benchCalls(b, hc, mcp, 4*workers, workers)
		b.ResetTimer()
		restTime := benchCalls(b, hc, rest, b.N, workers)
		mcpTime := benchCalls(b, hc, mcp, b.N, workers)
		b.StopTimer()
		restRPS, mcpRPS := float64(b.N)/restTime.Seconds(), float64(b.N)/mcpTime.Seconds()
		b.ReportMetric(mcpRPS, "mcp-req/s")
		b.ReportMetric(restRPS, "rest-req/s")
		b.ReportMetric(mcpRPS/restRPS, "ratio")
		b.ReportMetric(mcpAim, "aim")
	})

	// The same call as a stateless 2026-07-28 client makes it.
	modernHeader := mcpHeader.Clone()
	modernHeader.Set("Mcp-Protocol-Version", "2026-07-28")
	modernHeader.Set("Mcp-Method", "tools/call")
	modernHeader.Set("Mcp-Name", "get_task")
	modern := benchReq{method: http.MethodPost, url: base + "/mcp", header: modernHeader,
		body: fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_task","arguments":{"id":%q,"buyer_token":%q},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}`,
			created.ID, created.BuyerToken),
		want: `"resultType":"complete"`}

	alternate := func(b *testing.B, mcp benchReq) {
		benchCheck(b, hc, rest)
		benchCheck(b, hc, mcp)
		benchCalls(b, hc, rest, 4*workers, workers)
		benchCalls(b, hc, mcp, 4*workers, workers)
		rounds := 8
		if b.N < rounds*workers {
			rounds = 1
		}
		var restTime, mcpTime time.Duration
		b.ResetTimer()
		for r := range rounds {
			n := b.N / rounds
			if r == rounds-1 {
				n = b.N - n*(rounds-1)
			}
			b.StopTimer()
			runtime.GC()
			b.StartTimer()
			restTime += benchCalls(b, hc, rest, n, workers)
			b.StopTimer()
			runtime.GC()
			b.StartTimer()
			mcpTime += benchCalls(b, hc, mcp, n, workers)
		}
		b.StopTimer()
		restRPS := float64(b.N) / restTime.Seconds()
		mcpRPS := float64(b.N) / mcpTime.Seconds()
		b.ReportMetric(mcpRPS, "mcp-req/s")
		b.ReportMetric(restRPS, "rest-req/s")
		b.ReportMetric(mcpRPS/restRPS, "ratio")
		b.ReportMetric(mcpAim, "aim")
	}
	b.Run("get_task", func(b *testing.B) { alternate(b, mcp) })
	b.Run("get_task_modern", func(b *testing.B) { alternate(b, modern) })

	for _, c := range []struct{ name, part string }{
		{"a2a_text", `{"kind":"text","text":"write a short poem about the sea"}`},
		{"a2a_data", `{"kind":"data","data":{"type":"text-file","params":{"prompt":"a short poem about the sea"}}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := benchReq{method: http.MethodPost, url: base + "/a2a", header: a2aHeader,
				body: `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[` + c.part + `]}}}`,
				want: `"result"`}
			benchCheck(b, hc, req)
			benchCalls(b, hc, req, workers, workers)
			b.ResetTimer()
			elapsed := benchCalls(b, hc, req, b.N, workers)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "a2a-req/s")
		})
	}
}

// mcpAim is the share of REST's rate the MCP door is to reach on get_task; mcp-go alone must reach
// it before the door's fast path (daemon/mcp/fast.go) can go.
const mcpAim = 0.8

// benchReq is one request of a benchmark; want, when set, must appear in the answer (checked once).
type benchReq struct {
	method, url, body string
	header            http.Header
	want              string
}

func (q benchReq) do(hc *http.Client) (*http.Response, error) {
	var body io.Reader
	if q.body != "" {
		body = strings.NewReader(q.body)
	}
	req, err := http.NewRequest(q.method, q.url, body)
	if err != nil {
		return nil, err
	}
	for k, v := range q.header {
		req.Header[k] = v
	}
	return hc.Do(req)
}

// benchCheck makes the request once and fails unless it succeeds with the wanted answer.
func benchCheck(b *testing.B, hc *http.Client, q benchReq) {
	b.Helper()
	resp, err := q.do(hc)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || (q.want != "" && !bytes.Contains(body, []byte(q.want))) || bytes.Contains(body, []byte(`"isError":true`)) {
		b.Fatalf("%s %s: %s\n%s", q.method, q.url, resp.Status, body)
	}
}

// benchCalls makes n requests from workers goroutines and returns the wall time they took.
func benchCalls(b *testing.B, hc *http.Client, q benchReq, n, workers int) time.Duration {
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				resp, err := q.do(hc)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("%s %s: %s", q.method, q.url, resp.Status)
					}
				}
				if err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	return elapsed
}
