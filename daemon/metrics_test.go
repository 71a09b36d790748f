package daemon_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

const metricsToken = "axp_metrics_test_0123456789abcdef"

// scrape reads url with the given bearer token ("" for none): the status, and the parsed series
// when it is 200.
func scrape(t *testing.T, url, token string) (int, map[string]*dto.MetricFamily) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("/metrics answered Content-Type %q, want the text exposition format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return resp.StatusCode, fams
}

// value is the value of the series of family name whose labels include want (a counter, a
// gauge, or a histogram's count); found is false when there is none.
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) (v float64, found bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		for k, w := range want {
			if labels[k] != w {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			v += m.Counter.GetValue()
		case m.Gauge != nil:
			v += m.Gauge.GetValue()
		case m.Histogram != nil:
			v += float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			v += m.Untyped.GetValue()
		}
		found = true
	}
	return v, found
}

// TestMetricsPrometheus scrapes GET /metrics after a few calls: the request counters and
// latencies per operation and door, errors by code, tasks by status, open approvals by kind, the
// quote round, outbound calls, the store's commits, the leader flag and the Go runtime are there
// with the values the calls imply. Without the token /metrics answers 401; the metrics_listen
// address serves the same series with no token.
func TestMetricsPrometheus(t *testing.T) {
	e := newMarket(t, func(c *daemon.Config) {
		c.MetricsToken = metricsToken
		c.MetricsListen = "127.0.0.1:0"
	})
	instant := e.instantSeller("text-file", "3.00", 10, nil, nil)
	push := e.newPushSeller("text-file", nil, nil, map[string]any{"payout_address": payoutAddress})
	created, _ := createTask(t, e.anon, map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku about the sea"}})
	push.waitCall("quote", created.ID)
	buyer := e.anon.With(created.BuyerToken)
	const reads = 3
	for range reads {
		getTask(t, buyer, created.ID)
	}
	if a := e.mcpCall("", "get_task", map[string]any{"id": created.ID, "buyer_token": created.BuyerToken}); a.status != http.StatusOK {
		t.Fatalf("get_task over MCP: %d %s", a.status, a.raw)
	}
	_, err := doOp(buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: "tsk_missing"}})
	apiErr(t, err, axp.CodeNotFound, "")
	// A payment reported and not yet confirmed is an open approval of kind payment.
	offer := offerOf(t, created.Offers, instant.MemberID)
	callOp(t, buyer, contract.ChooseOffer, axp.ChooseInput{TaskRef: axp.TaskRef{ID: created.ID}, OfferID: offer.OfferID})
	callOp(t, buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: created.ID}, TxHash: newTxHash()})

	if st, _ := scrape(t, e.srv.URL+"/metrics", ""); st != http.StatusUnauthorized {
		t.Fatalf("/metrics without the token: %d, want 401", st)
	}
	if st, _ := scrape(t, e.srv.URL+"/metrics", "not-the-token-0123456789"); st != http.StatusUnauthorized {
		t.Fatalf("/metrics with a wrong token: %d, want 401", st)
	}
	// On PostgreSQL the daemon takes the leader's lease a moment after it starts.
	waitFor(t, func() (bool, error) {
		if !e.d.Leading() {
			return false, errors.New("not leading yet")
		}
		return true, nil
	})
	st, fams := scrape(t, e.srv.URL+"/metrics", metricsToken)
	if st != http.StatusOK {
		t.Fatalf("/metrics with the token: %d", st)
	}

	atLeast := func(name string, labels map[string]string, least float64) {
		t.Helper()
		v, ok := value(fams, name, labels)
		if !ok || v < least {
			t.Errorf("%s%v = %v (present %v), want at least %v", name, labels, v, ok, least)
		}
	}
	atLeast("axp_requests_total", map[string]string{"op": "get_task", "door": "rest", "code": "200"}, reads)
	atLeast("axp_requests_total", map[string]string{"op": "get_task", "door": "mcp", "code": "200"}, 1)
	atLeast("axp_requests_total", map[string]string{"op": "get_task", "door": "rest", "code": "404"}, 1)
	atLeast("axp_request_errors_total", map[string]string{"op": "get_task", "door": "rest", "error": "not_found"}, 1)
	atLeast("axp_request_duration_seconds", map[string]string{"op": "get_task", "door": "rest"}, reads+1)
	atLeast("axp_requests_total", map[string]string{"op": "create_task", "door": "rest", "code": "201"}, 1)
	if v, _ := value(fams, "axp_request_errors_total", map[string]string{"op": "get_task", "door": "rest", "error": "internal"}); v != 0 {
		t.Errorf("get_task counted %v internal errors", v)
	}
	atLeast("axp_tasks", map[string]string{"status": axp.TaskAwaitingPayment}, 1)
	if v, _ := value(fams, "axp_approvals_pending", map[string]string{"kind": axp.ApprovePayment}); v != 1 {
		t.Errorf("axp_approvals_pending{kind=payment} = %v, want 1 (the payment reported)", v)
	}
	// Every other kind is there as 0, not absent: an alert on the series sees the queue empty.
	for _, kind := range axp.ApprovalKinds {
		if kind == axp.ApprovePayment {
			continue
		}
		if v, ok := value(fams, "axp_approvals_pending", map[string]string{"kind": kind}); !ok || v != 0 {
			t.Errorf("axp_approvals_pending{kind=%s} = %v (present %v), want 0", kind, v, ok)
		}
	}
	atLeast("axp_quote_round_duration_seconds", nil, 1)
	atLeast("axp_outbound_calls_total", map[string]string{"call": "mcp:quote", "result": "ok"}, 1)
	atLeast("axp_outbound_call_duration_seconds", map[string]string{"call": "mcp:quote"}, 1)
	atLeast("axp_store_commits_total", nil, 1)
	atLeast("axp_store_updates_total", nil, 1)
	atLeast("axp_store_commit_duration_seconds", nil, 1)
	atLeast("axp_leader", nil, 1)
	atLeast("go_goroutines", nil, 1)
	atLeast("process_start_time_seconds", nil, 1)
	if _, ok := value(fams, "axp_store_serialization_retries_total", nil); !ok {
		t.Error("axp_store_serialization_retries_total is missing")
	}
	// No chain is configured: the watcher's series are not shown.
	if _, ok := fams["axp_chain_head"]; ok {
		t.Error("axp_chain_head is shown without a chain")
	}

	// The separate listener needs no token and serves only /metrics.
	addr := e.d.MetricsAddr()
	if addr == "" {
		t.Fatal("no metrics listener")
	}
	st, sep := scrape(t, "http://"+addr+"/metrics", "")
	if st != http.StatusOK {
		t.Fatalf("metrics_listen /metrics: %d", st)
	}
	if v, _ := value(sep, "axp_requests_total", map[string]string{"op": "get_task", "door": "rest", "code": "200"}); v < reads {
		t.Errorf("metrics_listen: get_task counted %v, want at least %d", v, reads)
	}
	if st, _ := scrape(t, "http://"+addr+"/api/services", ""); st != http.StatusNotFound {
		t.Errorf("metrics_listen /api/services: %d, want 404", st)
	}
}

// TestMetricsOffWithoutToken: with no metrics_token /metrics is not served on the exchange's
// listener (404, as any unknown path), token or not.
func TestMetricsOffWithoutToken(t *testing.T) {
	e := newEnv(t)
	if st, _ := scrape(t, e.srv.URL+"/metrics", ""); st != http.StatusNotFound {
		t.Fatalf("/metrics: %d, want 404", st)
	}
	if st, _ := scrape(t, e.srv.URL+"/metrics", metricsToken); st != http.StatusNotFound {
		t.Fatalf("/metrics with a token: %d, want 404", st)
	}
	if e.d.MetricsAddr() != "" {
		t.Fatalf("a metrics listener without metrics_listen: %s", e.d.MetricsAddr())
	}
}

// TestMetricsChain: on a real local chain the payment watcher's series follow its passes (head,
// cursor, lag, the time of the last pass), the hot wallet's balance is read, and a
// reconciliation's outcome is a series once the operator runs one.
func TestMetricsChain(t *testing.T) {
	m := newChainMarket(t, func(c *daemon.Config) { c.MetricsToken = metricsToken })
	var fams map[string]*dto.MetricFamily
	eventually(t, func() error {
		var st int
		st, fams = scrape(t, m.srv.URL+"/metrics", metricsToken)
		if st != http.StatusOK {
			return fmt.Errorf("/metrics: %d", st)
		}
		if v, _ := value(fams, "axp_chain_last_pass_timestamp_seconds", nil); v == 0 {
			return errors.New("no watcher pass yet")
		}
		// A pass whose node reads failed (a loaded machine) leaves the head or the balance unread;
		// the next pass reads them.
		if v, _ := value(fams, "axp_chain_head", nil); v == 0 {
			return errors.New("no pass has read the head yet")
		}
		if v, _ := value(fams, "axp_hot_wallet_balance_usd", nil); v == 0 {
			return errors.New("no pass has read the hot wallet's balance yet")
		}
		return nil
	})
	head, _ := value(fams, "axp_chain_head", nil)
	cursor, _ := value(fams, "axp_chain_cursor", nil)
	lag, _ := value(fams, "axp_chain_lag_blocks", nil)
	if head == 0 || cursor > head || lag != head-cursor {
		t.Errorf("head %v, cursor %v, lag %v", head, cursor, lag)
	}
	if v, ok := value(fams, "axp_hot_wallet_balance_usd", nil); !ok || v != 100 {
		t.Errorf("axp_hot_wallet_balance_usd = %v (present %v), want 100 (the wallet's 100 TUSD)", v, ok)
	}
	if v, _ := value(fams, "axp_ledger_reconcile_timestamp_seconds", nil); v != 0 {
		t.Errorf("reconciled at %v before any reconciliation", v)
	}
	var r axp.Reconciliation
	r = *callOp(t, m.admin, contract.AdminReconcile, contract.NoInput{})
	_, fams = scrape(t, m.srv.URL+"/metrics", metricsToken)
	want := 0.0
	if r.Covered {
		want = 1
	}
	if v, _ := value(fams, "axp_ledger_reconcile_covered", nil); v != want {
		t.Errorf("axp_ledger_reconcile_covered = %v, want %v (%+v)", v, want, r)
	}
	if v, _ := value(fams, "axp_ledger_reconcile_timestamp_seconds", nil); v == 0 {
		t.Error("no reconciliation time after admin_reconcile")
	}
}
