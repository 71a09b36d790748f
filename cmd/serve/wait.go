package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/rest"
	"github.com/axp-exchange/axp/store"
)

// maxStoreBackoff is the longest pause between two tries to reach the store at start, so that the
// exchange serves within about that long of the database's return. A try that fails costs one
// refused connection, so a short pause is cheap; the log says so at most every storeLogEvery.
const (
	maxStoreBackoff = 250 * time.Millisecond
	storeLogEvery   = 5 * time.Second
)

// start builds the exchange on ln. While its store cannot be reached (store.ErrUnavailable: the
// database is down or starting), it tries again with backoff, logging each try and its cause, and
// meanwhile answers on ln itself: /healthz 200 (the process is alive) and every other path,
// /readyz among them, 503 unavailable with Retry-After. cfg.StoreWait bounds the wait (zero: for
// ever). Any other failure, a wrong password or a refused schema among them, ends the start at
// once. It returns the listener the exchange is to serve on.
func start(ctx context.Context, cfg daemon.Config, io *cmdutil.IOStreams, ln net.Listener) (*daemon.Daemon, string, net.Listener, error) {
	d, generated, err := daemon.New(cfg, io.ErrOut)
	if err == nil || !errors.Is(err, store.ErrUnavailable) {
		return d, generated, ln, err
	}
	log := slog.New(slog.NewTextHandler(io.ErrOut, nil))
	g := newGate(ln)
	var cause atomic.Value
	cause.Store(err.Error())
	tmp := &http.Server{Handler: waiting(&cause), ReadHeaderTimeout: 10 * time.Second}
	go tmp.Serve(g.view(false))
	stopWaiting := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tmp.Shutdown(sctx)
	}
	began := time.Now()
	backoff := 100 * time.Millisecond
	var logged time.Time
	lastCause := ""
	for try := 1; ; try++ {
		pause := backoff
		if cfg.StoreWait > 0 {
			// The last pause ends at store_wait, for one last try there.
			left := cfg.StoreWait - time.Since(began)
			if left <= 0 {
				stopWaiting()
				ln.Close()
				return nil, "", nil, fmt.Errorf("the store was not reachable within store_wait (%s): %w", cfg.StoreWait, err)
			}
			pause = min(pause, left)
		}
		// A line when the cause changes, else one every storeLogEvery: tries come 4 a second.
		if err.Error() != lastCause || time.Since(logged) >= storeLogEvery {
			log.Warn("waiting for the store", "source", "daemon", "try", try, "err", err.Error(), "next_try_in", pause.String(),
				"waited", time.Since(began).Round(time.Millisecond).String())
			logged, lastCause = time.Now(), err.Error()
		}
		select {
		case <-ctx.Done():
			stopWaiting()
			ln.Close()
			return nil, "", nil, ctx.Err()
		case <-time.After(pause):
		}
		d, generated, err = daemon.New(cfg, io.ErrOut)
		if err == nil {
			log.Info("the store is reachable", "source", "daemon", "tries", try+1, "waited", time.Since(began).Round(time.Millisecond).String())
			stopWaiting()
			return d, generated, g.view(true), nil
		}
		if !errors.Is(err, store.ErrUnavailable) {
			stopWaiting()
			ln.Close()
			return nil, "", nil, err
		}
		cause.Store(err.Error())
		backoff = min(2*backoff, maxStoreBackoff)
	}
}

// waiting is the exchange's answer while it waits for its store.
func waiting(cause *atomic.Value) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == contract.Health.Op().Path {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(axp.OK{OK: true, Message: "axp exchange is up (waiting for its store)"})
			return
		}
		e := pipeline.Unavailable()
		e.Message = "not ready: the exchange is starting and its store is unreachable: " + cause.Load().(string)
		rest.WriteError(w, rest.TraceOf(r), e, 0)
	})
}

// gate accepts on a listener for one server after another: the waiting handler's, then the
// exchange's, without closing the socket in between (no connection is refused at the handover).
type gate struct {
	ln     net.Listener
	conns  chan net.Conn
	err    chan error
	closed chan struct{}
	once   sync.Once
}

func newGate(ln net.Listener) *gate {
	g := &gate{ln: ln, conns: make(chan net.Conn), err: make(chan error, 1), closed: make(chan struct{})}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				g.err <- err
				return
			}
			select {
			case g.conns <- c:
			case <-g.closed:
				c.Close()
				return
			}
		}
	}()
	return g
}

// view is a listener over the gate; closing the last view (owns) closes the socket.
func (g *gate) view(owns bool) net.Listener {
	return &gateView{g: g, owns: owns, done: make(chan struct{})}
}

type gateView struct {
	g    *gate
	owns bool
	done chan struct{}
	once sync.Once
}

func (v *gateView) Accept() (net.Conn, error) {
	select {
	case c := <-v.g.conns:
		return c, nil
	case err := <-v.g.err:
		v.g.err <- err
		return nil, err
	case <-v.done:
		return nil, net.ErrClosed
	}
}

func (v *gateView) Close() error {
	v.once.Do(func() { close(v.done) })
	if !v.owns {
		return nil
	}
	v.g.once.Do(func() { close(v.g.closed) })
	return v.g.ln.Close()
}

func (v *gateView) Addr() net.Addr { return v.g.ln.Addr() }
