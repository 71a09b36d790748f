package daemon_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/store"
)

// BenchmarkStoredTaskPaths times the request paths and passes that read open or unpaid tasks or
// members, on the seeded stores of BenchmarkStoredTasks (0 and 100k tasks; 1% of them open and
// 1% awaiting payment): list_quote_requests for a seller of a type nobody posts and for a
// text-file seller (a full page of 200), the chain watcher matching an amount, list_my_tasks for a
// buyer member, GET /api/sellers and a liveness pass. Flat means the figures do not grow with the
// tasks stored.
func BenchmarkStoredTaskPaths(b *testing.B) {
	for _, n := range []int{0, 100_000} {
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) { benchStoredTaskPaths(b, n) })
	}
}

func benchStoredTaskPaths(b *testing.B, n int) {
	dir := b.TempDir()
	if n > 0 {
		if err := benchCopyFile(seededTasks(b, n), filepath.Join(dir, store.FileName)); err != nil {
			b.Fatal(err)
		}
	}
	d, base := benchExchange(b, dir, func(c *daemon.Config) { c.SweepEvery = time.Hour })
	ctx := context.Background()
	anon := client.New(base, "")
	anon.HTTP.Transport = &http.Transport{MaxIdleConnsPerHost: 4}
	member := func(roles []string, typ string) *client.Client {
		in := map[string]any{"roles": roles, "name": fmt.Sprintf("bench %s %s", roles[0], typ)}
		if typ != "" {
			in["skills"] = []map[string]any{{"task_type": typ}}
		}
		var reg axp.Registered
		if err := anon.Call(ctx, "register", in, &reg); err != nil {
			b.Fatal(err)
		}
		verify(b, d, reg.MemberID)
		return anon.With(reg.MemberSecret)
	}
	rare, texts := member([]string{"seller"}, "transcription"), member([]string{"seller"}, "text-file")
	buyer := member([]string{"buyer"}, "")
	var created axp.CreatedTask
	if err := buyer.Call(ctx, "create_task", map[string]any{"type": "translation", "params": map[string]any{"text": "bonjour", "target_language": "en"}}, &created); err != nil {
		b.Fatal(err)
	}
	timed := func(fn func()) time.Duration {
		t := time.Now()
		fn()
		return time.Since(t)
	}
	var rareT, textT, matchT, mineT, sellersT, liveT time.Duration
	b.ResetTimer()
	for range b.N {
		var list axp.TaskList
		rareT += timed(func() {
			if err := rare.Call(ctx, "list_quote_requests", nil, &list); err != nil || len(list.Tasks) != 0 {
				b.Fatalf("%d tasks, %v", len(list.Tasks), err)
			}
		})
		textT += timed(func() {
			if err := texts.Call(ctx, "list_quote_requests", nil, &list); err != nil || (n > 0 && len(list.Tasks) != 200) {
				b.Fatalf("%d tasks, %v", len(list.Tasks), err)
			}
		})
		matchT += timed(func() {
			if _, err := d.MatchPayable(axp.Money(123_456_789), time.Now()); err != nil {
				b.Fatal(err)
			}
		})
		mineT += timed(func() {
			if err := buyer.Call(ctx, "list_my_tasks", nil, &list); err != nil || len(list.Tasks) != 1 {
				b.Fatalf("%d tasks, %v", len(list.Tasks), err)
			}
		})
		sellersT += timed(func() {
			var s axp.SellerList
			if err := anon.Call(ctx, "list_sellers", nil, &s); err != nil {
				b.Fatal(err)
			}
		})
		liveT += timed(d.Liveness)
	}
	b.StopTimer()
	per := func(t time.Duration) float64 { return benchMS(t / time.Duration(b.N)) }
	b.ReportMetric(per(rareT), "quote-requests-none-ms")
	b.ReportMetric(per(textT), "quote-requests-200-ms")
	b.ReportMetric(per(matchT), "match-payable-ms")
	b.ReportMetric(per(mineT), "my-tasks-ms")
	b.ReportMetric(per(sellersT), "sellers-ms")
	b.ReportMetric(per(liveT), "liveness-ms")
}
