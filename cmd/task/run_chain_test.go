//go:build !shorttier

// The chain tests run the exchange in the test's process (they set its chain in its configuration),
// so this package's test binary links the daemon; make test-short (tag shorttier, where -short
// skips them anyway) leaves them out, and the binary links no daemon.

package task_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp/cmd/cmdtest/inproc"
	"github.com/axp-exchange/axp/cmd/task"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/daemon/chain/chaintest"
)

// On an exchange that reads its chain (payments verified "evm"), choose and pay say that its watcher
// finds the payment on chain by itself once it is sent, and that reporting the hash only speeds it
// up; without a chain they ask for the report (TestChooseAsksOnATerminal, TestPayDeliverAccept).
func TestChooseAndPayOnAChain(t *testing.T) {
	c := chaintest.Start(t)
	e := envOn(t, inproc.NewExchange(t, func(cfg *daemon.Config) {
		cfg.ChainRPCURL, cfg.ChainID, cfg.TokenAddress, cfg.DepositAddress = c.URL, c.ID, c.Token, chaintest.Addr(c.NewKey())
		cfg.Confirmations, cfg.ChainPoll = 1, time.Second
	}).Exchange)
	e.sellers()
	id := e.post()
	want := "Once it is sent, the exchange's watcher finds the payment on chain by itself; reporting the hash only speeds it up: axp task pay " + id + " --tx <hash>\n"
	out := e.must(task.NewCmdChoose(e.f, nil), id, "--yes")
	if msg := e.s.ErrOut.String(); !strings.Contains(msg, want) || strings.Contains(msg, "then report it") {
		t.Errorf("choose: %q", msg)
	}
	if !strings.Contains(out, "chain:\t"+strconv.FormatUint(c.ID, 10)) || !strings.Contains(out, "token:\t") {
		t.Errorf("choose shows no chain:\n%s", out)
	}
	e.must(task.NewCmdPay(e.f, nil), id)
	if msg := e.s.ErrOut.String(); msg != want {
		t.Errorf("pay without --tx: %q", msg)
	}
}
