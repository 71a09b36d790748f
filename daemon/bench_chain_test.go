package daemon_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
	"github.com/axp-exchange/axp/store"
)

// benchChainExchange is an exchange on a local anvil chain (1 confirmation) polling every poll.
func benchChainExchange(b *testing.B, c *chaintest.Chain, deposit string, poll time.Duration) (*daemon.Daemon, *client.Client, string) {
	cfg := daemon.Defaults()
	cfg.DataDir = b.TempDir()
	cfg.AdminToken = "axp_admin_bench"
	cfg.AnonReadsPerMinute, cfg.AnonTasksPerMinute = 0, 0
	cfg.QuoteWindow = 50 * time.Millisecond
	cfg.ChainRPCURL, cfg.ChainID, cfg.TokenAddress, cfg.DepositAddress = c.URL, chaintest.ID, c.Token, deposit
	cfg.Confirmations, cfg.ChainPoll = 1, poll
	d, _, err := daemon.New(cfg, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	base := benchServe(b, d.Handler())
	d.SetBaseURL(base)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: 30 * time.Second}
	return d, &client.Client{BaseURL: base, HTTP: hc}, cfg.AdminToken
}

// BenchmarkChainPayment measures, on a real local chain (anvil), how long a buyer's transfer takes
// from its inclusion in a block to the task being funded by the watcher, with no tx hash reported
// (chain_poll 250 ms, 1 confirmation): ms/payment and polls/payment (aim: under 2 poll intervals).
func BenchmarkChainPayment(b *testing.B) {
	c := chaintest.Start(b)
	deposit := chaintest.Addr(c.NewKey())
	const poll = 250 * time.Millisecond
	d, anon, _ := benchChainExchange(b, c, deposit, poll)
	ctx := context.Background()
	var reg axp.Registered
	if err := anon.Call(ctx, "register", map[string]any{"roles": []string{"seller"}, "name": "bench seller",
		"skills": []map[string]any{{"task_type": "text-file", "instant_price_usd": 0.2, "instant_eta_minutes": 5}}}, &reg); err != nil {
		b.Fatal(err)
	}
	verify(b, d, reg.MemberID)
	buyerKey := c.NewKey()
	c.Mint(c.Token, chaintest.Addr(buyerKey), 1_000_000_000)
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		var created axp.CreatedTask
		if err := anon.Call(ctx, "create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "x"}}, &created); err != nil {
			b.Fatal(err)
		}
		buyer := anon.With(created.BuyerToken)
		var chosen axp.Task
		if err := buyer.Call(ctx, "choose_offer", map[string]any{"id": created.ID, "offer_id": created.Offers[0].OfferID}, &chosen); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c.Transfer(buyerKey, c.Token, deposit, chosen.Payment.PayableUSD) // returns once mined
		mined := time.Now()
		for {
			var t axp.Task
			if err := buyer.Call(ctx, "get_task", map[string]any{"id": created.ID}, &t); err != nil {
				b.Fatal(err)
			}
			if t.Status != axp.TaskAwaitingPayment {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		total += time.Since(mined)
	}
	b.StopTimer()
	per := total / time.Duration(b.N)
	b.ReportMetric(float64(per.Microseconds())/1000, "ms/payment")
	b.ReportMetric(float64(per)/float64(poll), "polls/payment")
}

// BenchmarkChainWatcher measures one watcher pass over 1,000 new blocks holding 20 transfers to the
// deposit address (each funding nothing): ms/1000-blocks.
func BenchmarkChainWatcher(b *testing.B) {
	c := chaintest.Start(b)
	deposit := chaintest.Addr(c.NewKey())
	d, _, _ := benchChainExchange(b, c, deposit, time.Hour) // the background pass runs once, at start
	ctx := context.Background()
	key := c.NewKey()
	c.Mint(c.Token, chaintest.Addr(key), 1_000_000_000)
	time.Sleep(100 * time.Millisecond)
	var total time.Duration
	for i := range b.N {
		b.StopTimer()
		for j := range 20 {
			c.Transfer(key, c.Token, deposit, axp.Money(1_000+i*20+j))
			c.Mine(49)
		}
		b.StartTimer()
		start := time.Now()
		if err := d.ChainPass(ctx); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
	}
	b.StopTimer()
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/1000-blocks")
	var n int
	d.DB().View(func(tx *store.Tx) error {
		return tx.EachInbound(func(*axp.InboundTransfer) bool { n++; return true })
	})
	if n != 20*b.N {
		b.Fatalf("the watcher recorded %d transfers, want %d", n, 20*b.N)
	}
}

// verify marks a member verified straight in the store (the handshake is not what is measured).
func verify(b *testing.B, d *daemon.Daemon, id string) {
	if err := d.DB().Update(func(tx *store.Tx) error {
		m, err := tx.Member(id)
		if err != nil {
			return err
		}
		m.State = axp.MemberVerified
		return tx.PutMember(m)
	}); err != nil {
		b.Fatal(err)
	}
}
