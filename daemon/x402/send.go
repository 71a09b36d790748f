package x402

import (
	"context"
	"fmt"
	"time"

	"github.com/axp-exchange/axp/daemon/chain"
)

// sender sends the hot wallet's transactions for x402 payments (an exact payment's settlement, an
// auth-capture payment's authorize, capture and void) crash-safely: each is signed under the
// wallet's lock, its hash handed to onSubmit (which stores it) before it is broadcast, broadcast to
// the end even when the caller leaves meanwhile, then waited for.
type sender struct {
	Chain  *chain.Client
	Wallet *chain.Wallet
	// Wait bounds the wait for the receipt (a minute when 0).
	Wait time.Duration
	// Sent, when not nil, is called once a transaction was broadcast, before it is waited for.
	Sent func(txHash string)
}

// sent is what became of one send. Hash is "" when nothing was sent: the signing (the node's gas
// estimate refuses a call that would revert) or onSubmit failed, and Err says why. Otherwise the
// transaction may be on its way whatever Err says; Receipt is its receipt when it was mined in time.
type sent struct {
	Hash    string
	Receipt chain.Receipt
	Err     error
}

// send signs with sign, stores the hash with onSubmit (when not nil), broadcasts and waits.
func (s *sender) send(ctx context.Context, sign func(context.Context) (chain.Signed, error), onSubmit func(string) error) sent {
	release, err := s.Wallet.Acquire(ctx)
	if err != nil {
		return sent{Err: err}
	}
	signed, err := sign(ctx)
	if err == nil && onSubmit != nil {
		err = onSubmit(signed.Hash)
	}
	if err != nil {
		release()
		return sent{Err: err}
	}
	// The hash is stored: the transaction is the exchange's to finish, a caller who leaves now does
	// not stop its broadcast.
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), broadcastWait)
	err = s.Wallet.Broadcast(bctx, signed.Raw)
	cancel()
	release()
	if err != nil {
		return sent{Hash: signed.Hash, Err: fmt.Errorf("broadcast %s: %w", signed.Hash, err)}
	}
	if s.Sent != nil {
		s.Sent(signed.Hash)
	}
	wait := s.Wait
	if wait == 0 {
		wait = time.Minute
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	r, err := s.Chain.WaitMined(wctx, signed.Hash, 200*time.Millisecond)
	if err != nil {
		return sent{Hash: signed.Hash, Err: fmt.Errorf("%s was not mined in time: %w", signed.Hash, err)}
	}
	return sent{Hash: signed.Hash, Receipt: r}
}
