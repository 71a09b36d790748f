// Package inproc runs a test exchange in the test's own process, for the tests that reach into
// the daemon (its configuration, its store, its logs) and for the helper process of package
// cmdtest. A test package that imports it links the whole daemon: a test that needs no more than
// the exchange's doors uses cmdtest.NewExchange.
package inproc

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/store"
)

// Config is the configuration of a test exchange over dataDir: generous limits, a short quote
// window, the test admin token and deposit address.
func Config(dataDir string) daemon.Config {
	cfg := daemon.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = dataDir
	cfg.AdminToken = cmdtest.AdminToken
	cfg.NoSync = true
	cfg.RegistrationsPerHour = 100000
	cfg.AnonTasksPerMinute = 100000
	cfg.AnonReadsPerMinute = 0
	cfg.QuoteWindow = 2 * time.Second
	cfg.DepositAddress = cmdtest.DepositAddress
	cfg.SweepEvery = time.Hour
	cfg.SandboxWait = 20 * time.Second
	return cfg
}

// Exchange is a test exchange in the test's process, with its daemon.
type Exchange struct {
	*cmdtest.Exchange
	D *daemon.Daemon
}

// NewExchange starts an exchange on loopback over a temporary data dir; mod changes its config.
func NewExchange(t testing.TB, mod ...func(*daemon.Config)) *Exchange {
	t.Helper()
	cfg := Config(t.TempDir())
	for _, m := range mod {
		m(&cfg)
	}
	s, err := Serve(cfg)
	if err != nil {
		t.Fatalf("start exchange: %v", err)
	}
	return &Exchange{Exchange: cmdtest.Attach(t, s.URL, cfg.AdminToken, s), D: s.D}
}

// Server is a daemon served on loopback, with cmdtest.StatePath beside its doors.
type Server struct {
	URL  string
	D    *daemon.Daemon
	srv  *httptest.Server
	once sync.Once
	err  error
}

// Serve starts cfg's daemon on loopback.
func Serve(cfg daemon.Config) (*Server, error) {
	d, _, err := daemon.New(cfg, io.Discard)
	if err != nil {
		return nil, err
	}
	s := &Server{D: d}
	mux := http.NewServeMux()
	mux.Handle("/", d.Handler())
	mux.HandleFunc("POST "+cmdtest.StatePath, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+cfg.AdminToken {
			http.Error(w, "admin token needed", http.StatusUnauthorized)
			return
		}
		if err := s.SetState(r.FormValue("id"), r.FormValue("state")); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	d.SetBaseURL(s.URL)
	return s, nil
}

// SetState sets a member's state in the store.
func (s *Server) SetState(id, state string) error {
	return s.D.DB().Update(func(tx *store.Tx) error {
		m, err := tx.Member(id)
		if err != nil {
			return err
		}
		if m == nil {
			return fmt.Errorf("no member %s", id)
		}
		m.State = state
		return tx.PutMember(m)
	})
}

// Close stops the server and closes the exchange's database.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.srv.Close()
		s.err = s.D.Close()
	})
	return s.err
}

// Seed registers verified sellers on the exchange of dataDir (which must not be running), so that
// a separately started `axp serve --data-dir dataDir` has them.
func Seed(dataDir string, sellers ...cmdtest.SellerSpec) ([]*axp.Registered, error) {
	cfg := Config(dataDir)
	cfg.NoSync = false
	s, err := Serve(cfg)
	if err != nil {
		return nil, err
	}
	var out []*axp.Registered
	for _, spec := range sellers {
		r, err := cmdtest.SellerOn(s.URL, s, spec)
		if err != nil {
			s.Close()
			return nil, err
		}
		out = append(out, r)
	}
	return out, s.Close()
}
