package daemon_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
)

// TestGeneratedAdminToken: with no admin token configured, one is generated on first start, returned
// once, stored hashed, and still valid after a restart.
func TestGeneratedAdminToken(t *testing.T) {
	dir := t.TempDir()
	start := func() (*daemon.Daemon, string, *httptest.Server) {
		cfg := daemon.Defaults()
		cfg.DataDir, cfg.NoSync, cfg.Store = dir, true, storeFor(t, dir)
		d, tok, err := daemon.New(cfg, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(d.Handler())
		d.SetBaseURL(srv.URL)
		return d, tok, srv
	}
	d, token, srv := start()
	if !strings.HasPrefix(token, "axp_admin_") || len(token) < 40 {
		t.Fatalf("generated token %q", token)
	}
	callOp(t, client.New(srv.URL, token), contract.AdminStats, contract.NoInput{})
	_, err := doOp(client.New(srv.URL, token+"x"), contract.AdminStats, contract.NoInput{})
	apiErr(t, err, axp.CodeUnauthorized, "-")
	srv.Close()
	d.Close()

	d, again, srv := start()
	if again != "" {
		t.Fatalf("a second token was generated: %q", again)
	}
	callOp(t, client.New(srv.URL, token), contract.AdminStats, contract.NoInput{})
	var al axp.AuditList
	al = *callOp(t, client.New(srv.URL, token), contract.AdminAudit, axp.AuditQuery{Action: "admin_token.generate"})
	if len(al.Records) != 1 || al.Records[0].Actor != "system" {
		t.Fatalf("token generation audit %+v", al.Records)
	}
	srv.Close()
	d.Close()
	if bytes.Contains(stored(t, dir), []byte(token)) {
		t.Fatalf("the admin token is stored in clear")
	}
}

// TestTrustedProxies: the client address comes from X-Forwarded-For only behind a trusted proxy, so
// per-IP limits cannot be dodged by sending the header.
func TestTrustedProxies(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		e := newEnv(t, func(c *daemon.Config) {
			c.RegistrationsPerHour = 1
			if trusted {
				c.TrustedProxies = []string{"127.0.0.1"}
			}
		})
		statuses := []int{}
		for i, ip := range []string{"203.0.113.1", "203.0.113.2", "203.0.113.2"} {
			// Names differ: a second "p" would be refused as reading like the first.
			resp, _ := raw(e.anon, "POST", "/api/members/register", []byte(`{"roles":["buyer"],"name":"p`+string(rune('a'+i))+`"}`),
				http.Header{"X-Forwarded-For": {"10.0.0.1, " + ip}})
			statuses = append(statuses, resp.Status)
		}
		want := []int{201, 429, 429}
		if trusted {
			want = []int{201, 201, 429}
		}
		if len(statuses) != 3 || statuses[0] != want[0] || statuses[1] != want[1] || statuses[2] != want[2] {
			t.Fatalf("trusted=%v: statuses %v, want %v", trusted, statuses, want)
		}
	}
}
