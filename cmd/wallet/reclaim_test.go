package wallet_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
)

// viewJSON reads task id as `axp task view --json` prints it.
func viewJSON(t *testing.T, c *cli, id string) axp.Task {
	t.Helper()
	var tk axp.Task
	if err := json.Unmarshal([]byte(c.must("", "task", "view", id, "--json")), &tk); err != nil {
		t.Fatal(err)
	}
	return tk
}

// wallet reclaim, end to end on anvil: a task paid with `wallet pay --escrow` shows in `task view`
// where the money is and the command that reclaims it; before the authorization expiry the
// reclaim is refused with the time left and nothing sent; once the chain's clock has passed it, the
// wallet signs reclaim(paymentInfo), gets the whole price back and prints what came back, and the
// exchange, which noticed the reclaim on chain, shows the task refunded and the money reclaimed. A
// second reclaim is refused, nothing sent.
func TestReclaim(t *testing.T) {
	m, k, _, _ := newEscrowMarket(t)
	c := newCLI(t, m.x.URL)
	c.env["AXP_RPC_URL"] = m.c.URL
	tk := m.awaiting(t, c)
	addr := strings.TrimSpace(c.must("", "wallet", "new"))
	m.c.Mint(m.c.Token, addr, 10_000_000)
	m.c.SetETH(addr, 1)
	c.must("", "wallet", "pay", tk.ID, "--yes", "--escrow")
	price := tk.Payment.AmountUSD
	paid := viewJSON(t, c, tk.ID)
	if paid.Escrow == nil || paid.Escrow.State != axp.EscrowHeld {
		t.Fatalf("the paid task's escrow: %+v", paid.Escrow)
	}
	expiry := paid.Escrow.AuthorizationExpiry
	view := c.must("", "task", "view", tk.ID)
	if want := "Your " + price.String() + " is held by the escrow contract " + k.Escrow.Hex() + "; if the exchange does not pay out or refund by " +
		expiry.UTC().Format(time.RFC3339) + ", run `axp wallet reclaim " + tk.ID + "`"; !strings.Contains(view, want) {
		t.Fatalf("task view lacks %q:\n%s", want, view)
	}

	c.refused(6, []string{"can be reclaimed from " + expiry.UTC().Format(time.RFC3339), "left", "nothing was sent"}, "wallet", "reclaim", tk.ID, "--yes")
	if n := m.nonce(t, addr); n != 0 {
		t.Fatalf("the refused reclaim sent %d transactions", n)
	}

	m.c.SetTime(expiry.Add(time.Second))
	m.c.Mine(1)
	status, out, errOut := c.run("", "wallet", "reclaim", tk.ID, "--yes", "--json")
	if status != 0 {
		t.Fatalf("wallet reclaim: exit %d\nstdout:\n%s\nstderr:\n%s", status, out, errOut)
	}
	var got struct {
		TaskID       string    `json:"task_id"`
		ReclaimedUSD axp.Money `json:"reclaimed_usd"`
		TxHash       string    `json:"tx_hash"`
		Block        uint64    `json:"block"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.TaskID != tk.ID || got.ReclaimedUSD != price || got.TxHash == "" || got.Block == 0 ||
		!strings.Contains(errOut, "✓ Reclaimed "+price.Display()+" of TUSD from the escrow "+k.Escrow.Hex()) {
		t.Fatalf("wallet reclaim printed (%v):\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	if got := m.c.Balance(m.c.Token, addr); got != 10_000_000 {
		t.Fatalf("the wallet holds %s after the reclaim", got)
	}
	deadline := time.Now().Add(30 * time.Second)
	for viewJSON(t, c, tk.ID).Status != axp.TaskRefunded {
		if time.Now().After(deadline) {
			t.Fatalf("the exchange did not end the task refunded: %+v", viewJSON(t, c, tk.ID))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if view := c.must("", "task", "view", tk.ID); !strings.Contains(view, "reclaimed: the buyer took the "+price.String()+" back from the escrow contract "+k.Escrow.Hex()) {
		t.Fatalf("task view after the reclaim:\n%s", view)
	}
	c.refused(6, []string{"reclaimed already", "nothing was sent"}, "wallet", "reclaim", tk.ID, "--yes")
	if n := m.nonce(t, addr); n != 1 {
		t.Fatalf("the wallet sent %d transactions; one reclaim", n)
	}
}
