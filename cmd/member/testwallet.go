package member

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/axp-exchange/axp/api"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/memberkit"
)

// SellerWalletFile is the key of the payout wallet `axp member serve` makes for a seller of an
// exchange in test mode, in the member's directory.
const SellerWalletFile = memberkit.TestWalletFile

// testModeWallet gives a new seller of an exchange in test mode a payout address of its own: the
// address of a key it makes in dir (memberkit.TestWallet), or of the one an earlier start made.
// On an exchange with real money it does nothing: a real payout address is the seller's to give.
func testModeWallet(ctx context.Context, exchange, dir string, errw io.Writer) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p, _, err := api.Call(ctx, client.New(exchange, ""), contract.GetPricing, contract.NoInput{})
	if err != nil || !p.TestMode {
		return "", nil // the exchange's answer comes with registration, and its errors there
	}
	addr, path, err := memberkit.TestWallet(dir)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(errw, "test mode (money here is not real): payouts go to the wallet in %s, %s; see them with axp member earnings --dir %s\n",
		path, addr, dir)
	return addr, nil
}
