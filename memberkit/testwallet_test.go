package memberkit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// A new seller of an exchange in test mode registers with the payout address of a test wallet of
// its own, as `axp member serve` does; on an exchange with real money it registers without one.
func TestAgentSellerGetsATestWallet(t *testing.T) {
	for _, testMode := range []bool{true, false} {
		var mu sync.Mutex
		var payout string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch r.URL.Path {
			case "/api/pricing":
				json.NewEncoder(w).Encode(map[string]any{"test_mode": testMode})
			case "/api/members/register":
				var reg axp.Registration
				json.NewDecoder(r.Body).Decode(&reg)
				mu.Lock()
				payout = reg.PayoutAddress
				mu.Unlock()
				w.WriteHeader(http.StatusCreated)
				json.NewEncoder(w).Encode(map[string]any{"member_id": "mem_1", "member_secret": "ss_mem_1_x",
					"member": map[string]any{"id": "mem_1", "roles": []string{"seller"}}})
			default:
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(`{"error":{"code":"not_found","message":"no"}}`))
			}
		}))
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		a := &memberkit.Agent{Exchange: srv.URL, Dir: dir, Pull: true,
			Registration: axp.Registration{Roles: []string{protocol.RoleSeller}, Name: "kit seller"},
			Seller:       memberkit.Defaults{}, OnStart: func(memberkit.Started) { cancel() }}
		a.Run(ctx)
		srv.Close()
		key := filepath.Join(dir, memberkit.TestWalletFile)
		_, statErr := os.Stat(key)
		mu.Lock()
		got := payout
		mu.Unlock()
		if !testMode {
			if got != "" || statErr == nil {
				t.Errorf("real money: registered with payout %q, wallet file %v", got, statErr)
			}
			continue
		}
		addr, _, err := memberkit.TestWallet(dir)
		if err != nil || got == "" || got != addr || !protocol.IsEVMAddress(got) {
			t.Errorf("test mode: registered with payout %q, the wallet in %s is %q (%v)", got, dir, addr, err)
		}
		if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("wallet key %v %v", st, err)
		}
	}
}
