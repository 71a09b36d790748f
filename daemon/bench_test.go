package daemon_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axp-exchange/axp/daemon"
)

// BenchmarkLoopback measures the exchange over real TCP on 127.0.0.1 beside a bare net/http
// handler that writes the same status, Content-Type and body, with the same client (keep-alive,
// several parallel workers) in the same run. Rounds alternate between the two servers so that drift
// affects both alike.
//
// Figures: daemon-req/s and bare-req/s are requests a second; ratio is daemon/bare (the figure to
// watch; aim >= 0.6). One op is one request to each server, so ns/op is the pair.
func BenchmarkLoopback(b *testing.B) {
	cfg := daemon.Defaults()
	cfg.DataDir = b.TempDir()
	cfg.AdminToken = "axp_admin_bench"
	cfg.AnonReadsPerMinute = 0 // one client IP makes every request: the per-IP limit would measure 429s
	d, _, err := daemon.New(cfg, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	exchange := benchServe(b, d.Handler())
	d.SetBaseURL(exchange)

	workers := 4 * runtime.GOMAXPROCS(0)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * workers, MaxIdleConnsPerHost: workers,
		IdleConnTimeout: time.Minute}}
	b.Cleanup(hc.CloseIdleConnections)

	for _, ep := range []struct{ name, path string }{
		{"services", "/api/services"},
		{"quote", "/api/quote?type=video&prompt=x&duration=10"},
	} {
		b.Run(ep.name, func(b *testing.B) {
			status, header, body := benchFetch(b, hc, exchange+ep.path)
			bare := benchServe(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h := w.Header()
				for k, v := range header {
					h[k] = v
				}
				w.WriteHeader(status)
				w.Write(body)
			}))
			// Open the keep-alive connections to both before measuring.
			benchHammer(b, hc, exchange+ep.path, 4*workers, workers)
			benchHammer(b, hc, bare+ep.path, 4*workers, workers)

			rounds := 8
			if b.N < rounds*workers {
				rounds = 1
			}
			var exchangeTime, bareTime time.Duration
			b.ResetTimer()
			for r := range rounds {
				n := b.N / rounds
				if r == rounds-1 {
					n = b.N - n*(rounds-1)
				}
				// Collect garbage between phases so that neither pays for the other's.
				b.StopTimer()
				runtime.GC()
				b.StartTimer()
				bareTime += benchHammer(b, hc, bare+ep.path, n, workers)
				b.StopTimer()
				runtime.GC()
				b.StartTimer()
				exchangeTime += benchHammer(b, hc, exchange+ep.path, n, workers)
			}
			b.StopTimer()
			exchangeRPS := float64(b.N) / exchangeTime.Seconds()
			bareRPS := float64(b.N) / bareTime.Seconds()
			b.ReportMetric(exchangeRPS, "daemon-req/s")
			b.ReportMetric(bareRPS, "bare-req/s")
			b.ReportMetric(exchangeRPS/bareRPS, "ratio")
			b.ReportMetric(float64(len(body)), "body-bytes")
		})
	}
}

// benchServe serves h on a fresh loopback listener and returns its base URL.
func benchServe(b *testing.B, h http.Handler) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	go srv.Serve(ln)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String()
}

// benchFetch answers one GET: status, the headers the handler set (so that the bare handler sends
// the same Content-Type, Content-Length and the like) and body.
func benchFetch(b *testing.B, hc *http.Client, url string) (int, http.Header, []byte) {
	b.Helper()
	resp, err := hc.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
	}
	h := resp.Header.Clone()
	h.Del("Date") // net/http sets its own
	return resp.StatusCode, h, body
}

// benchHammer makes n GETs of url from workers goroutines and returns the wall time they took.
func benchHammer(b *testing.B, hc *http.Client, url string, n, workers int) time.Duration {
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				resp, err := hc.Get(url)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("GET %s: %s", url, resp.Status)
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
