package daemon

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/rest"
	"github.com/axp-exchange/axp/protocol"
)

// metricsDoor is GET /metrics on the exchange's own listener: the Prometheus series for a scraper
// that sends the metrics token as a bearer token. It is outside the operation catalog (a scraper's
// door, like /mcp is an MCP client's): no MCP tool, no OpenAPI operation.
func (d *Daemon) metricsDoor() http.Handler {
	want := sha256.Sum256([]byte(d.Cfg.MetricsToken))
	h := d.Prom.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		got := sha256.Sum256([]byte(strings.TrimSpace(token)))
		// Hashes of equal length are compared, so the time taken says nothing of the token's length
		// or of how much of it matched.
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 || !ok {
			trace := rest.TraceOf(r)
			w.Header().Set(protocol.HeaderTraceID, trace)
			w.Header().Set("WWW-Authenticate", `Bearer realm="axp metrics"`)
			rest.WriteError(w, trace, axp.Unauthorized("GET /metrics needs the metrics token",
				"send Authorization: Bearer <metrics_token>, or scrape the metrics_listen address"), http.StatusUnauthorized)
			return
		}
		metricsOnly(h).ServeHTTP(w, r)
	})
}

// metricsOnly answers GET (and HEAD) with the series and refuses other methods.
func metricsOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			rest.WriteError(w, rest.TraceOf(r), &axp.Error{Code: axp.CodeNotFound, Message: r.Method + " is not allowed on /metrics",
				Hint: "use GET"}, http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// serveMetrics listens on metrics_listen and serves only /metrics there, with no token: the
// address's reach (loopback, a private network) is its protection. It stops when the daemon
// closes.
func (d *Daemon) serveMetrics() error {
	ln, err := net.Listen("tcp", d.Cfg.MetricsListen)
	if err != nil {
		return fmt.Errorf("metrics_listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metricsOnly(d.Prom.Handler()))
	d.metricsSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 16 << 10,
		ErrorLog: slog.NewLogLogger(d.Log.Handler(), slog.LevelWarn)}
	d.metricsAddr = ln.Addr().String()
	go func() {
		if err := d.metricsSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.Log.Warn("the metrics listener stopped", "source", "daemon", "addr", d.metricsAddr, "err", err)
		}
	}()
	d.Log.Info("serving metrics", "source", "daemon", "addr", d.metricsAddr)
	return nil
}

// MetricsAddr is the address the metrics listener listens on ("" without metrics_listen).
func (d *Daemon) MetricsAddr() string { return d.metricsAddr }
