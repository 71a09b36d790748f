package wallet

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/task"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/spf13/cobra"
)

// ReclaimOptions are the inputs of `axp wallet reclaim`.
type ReclaimOptions struct {
	F       *cmdutil.Factory
	IO      *cmdutil.IOStreams
	Export  cmdutil.Exporter
	Wallet  *Flags
	TaskID  string
	Token   string
	RPCURL  string
	Yes     bool
	Timeout time.Duration
	// Poll is the time between looks at the chain while waiting for the receipt.
	Poll time.Duration
}

// NewCmdReclaim builds `axp wallet reclaim`.
func NewCmdReclaim(f *cmdutil.Factory, w *Flags, runF func(context.Context, *ReclaimOptions) error) *cobra.Command {
	o := &ReclaimOptions{F: f, IO: f.IO, Wallet: w, Poll: 500 * time.Millisecond}
	c := &cobra.Command{
		Use:   "reclaim TASK [--token TOKEN] [--yes] [--rpc-url URL] [--timeout D]",
		Short: "Take back a task's money from the escrow contract once its authorization expiry has passed",
		Long: `Reclaim the money of a task paid into the exchange's escrow contract (axp wallet pay --escrow)
when the exchange neither paid it out nor refunded it in time: from the payment's authorization
expiry on, the escrow returns everything it still holds to the paying wallet on the payer's own
call, with no exchange involved.

It reads the task's escrow terms from the exchange, checks them against the chain (the payment's
hash, what the escrow still holds) and that the expiry has passed by the chain's clock (it says
how long is left otherwise), shows what will happen and asks (--yes skips the question; without a
terminal --yes is required), then signs reclaim(paymentInfo) from the wallet that paid (which
needs gas), sends it and waits for its receipt. The exchange notices the reclaim on chain and ends
the task refunded. Nothing is sent when a check fails.`,
		Example: `  axp wallet reclaim tsk_123
  axp wallet reclaim tsk_123 --yes --rpc-url https://node.example`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: task.CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if o.Timeout <= 0 {
				return cmdutil.Usagef("--timeout must be positive")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return reclaimRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Token, "token", "", "the task's buyer token (default: the one saved when the task was posted)")
	addRPCFlag(c, &o.RPCURL)
	c.Flags().DurationVar(&o.Timeout, "timeout", 2*time.Minute, "how long to wait for the reclaim's receipt once it is sent")
	cmdutil.AddYesFlag(c, &o.Yes)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// reclaim is a reclaim ready to send.
type reclaim struct {
	t      *axp.Task
	e      *axp.EscrowHold
	w      *Wallet
	n      *node
	from   common.Address
	escrow common.Address
	held   *big.Int
	tx     call
}

func reclaimRun(ctx context.Context, o *ReclaimOptions) error {
	r, err := prepareReclaim(ctx, o)
	if err != nil {
		return nothingSent(err)
	}
	defer r.n.close()
	action := fmt.Sprintf("reclaim %s of %s from the escrow %s to %s for task %s", r.n.usd(r.held).Display(), r.n.symbol, r.e.EscrowAddress, r.from.Hex(), r.t.ID)
	if err := cmdutil.ConfirmStep(o.IO, o.Yes, action, func() ([]string, error) {
		return []string{
			fmt.Sprintf("the escrow %s holds %s units of %s (%s) for task %s's payment %s", r.e.EscrowAddress, r.held, r.n.symbol, r.n.token.Hex(), r.t.ID, r.e.PaymentHash),
			fmt.Sprintf("its authorization expiry passed at %s: the exchange can no longer pay it out", r.e.AuthorizationExpiry.UTC().Format(time.RFC3339)),
			fmt.Sprintf("your wallet %s sends reclaim (gas at most %s ETH) and gets it all back", r.from.Hex(), ETH(r.tx.maxCost())),
		}, nil
	}); err != nil {
		return nothingSent(err)
	}
	hash, err := r.n.send(ctx, r.w.Key, r.from, &r.tx, "reclaim", func(string) string {
		return "look the transaction up on the chain before reclaiming again"
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Sent the reclaim of task %s: transaction %s\n", r.t.ID, hash.Hex())
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	rcpt, err := r.receipt(wctx, hash, o.Poll)
	if err != nil {
		return err
	}
	if rcpt.Status != types.ReceiptStatusSuccessful {
		return &axp.Error{Code: axp.CodeConflict, Message: fmt.Sprintf("the reclaim %s reverted in block %s: no money moved", hash.Hex(), rcpt.BlockNumber),
			Hint: "`axp task view " + r.t.ID + "` shows where the money is"}
	}
	got := new(big.Int)
	for _, l := range rcpt.Logs {
		if ev, ok, err := escrow.Decode(*l); err == nil && ok && ev.Name == "PaymentReclaimed" && strings.EqualFold(ev.Hash.Hex(), r.e.PaymentHash) && ev.Amount != nil {
			got = ev.Amount
		}
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Reclaimed %s of %s from the escrow %s; the exchange ends the task refunded once it sees it\n", r.n.usd(got).Display(), r.n.symbol, r.e.EscrowAddress)
	if o.Export.Enabled() {
		raw, err := json.Marshal(map[string]any{"task_id": r.t.ID, "reclaimed_usd": r.n.usd(got), "reclaimed_units": got.String(), "escrow": r.e.EscrowAddress,
			"payment_hash": r.e.PaymentHash, "tx_hash": strings.ToLower(hash.Hex()), "block": rcpt.BlockNumber.Uint64(), "to": r.from.Hex()})
		if err != nil {
			return err
		}
		return o.Export.Write(o.IO, raw)
	}
	return cmdutil.KeyValues(o.IO, "Task", r.t.ID, "Reclaimed", cmdutil.Money(o.IO, r.n.usd(got)), "Escrow", r.e.EscrowAddress,
		"Payment", r.e.PaymentHash, "Transaction", strings.ToLower(hash.Hex()), "Block", rcpt.BlockNumber.String(), "To", r.from.Hex())
}

// prepareReclaim reads the task, the wallet and the chain, and checks everything a reclaim needs.
func prepareReclaim(ctx context.Context, o *ReclaimOptions) (*reclaim, error) {
	w, err := Load(o.F, o.IO.In, o.Wallet)
	if err != nil {
		return nil, err
	}
	buyer, err := o.F.BuyerClient(o.TaskID, o.Token)
	if err != nil {
		return nil, err
	}
	t, _, err := client.Call(ctx, buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: o.TaskID}})
	if err != nil {
		return nil, cmdutil.WithHint(err, cmdutil.BuyerAuthHint, axp.CodeUnauthorized, axp.CodeForbidden)
	}
	e := t.Escrow
	switch {
	case e == nil:
		return nil, axp.Conflict("task "+t.ID+" was not paid into the escrow contract: there is nothing to reclaim", "`axp task view "+t.ID+"` shows where its money is")
	case e.State != axp.EscrowHeld:
		return nil, axp.Conflict(fmt.Sprintf("task %s's escrowed money was %s already: there is nothing to reclaim", t.ID, e.State), "`axp task view "+t.ID+"` shows where it went")
	}
	info, err := escrow.ParseTerms(e.PaymentInfo)
	if err != nil {
		return nil, axp.Conflict(fmt.Sprintf("task %s's escrow terms are malformed: %v", t.ID, err), "ask the exchange's operator")
	}
	r := &reclaim{t: t, e: e, w: w, from: common.HexToAddress(w.Address()), escrow: common.HexToAddress(e.EscrowAddress)}
	if info.Payer != r.from {
		return nil, axp.Conflict(fmt.Sprintf("task %s was paid from %s, not from this wallet %s: only the payer may reclaim", t.ID, e.PaymentInfo.Payer, r.from.Hex()),
			"run it with the wallet that paid: --wallet or AXP_WALLET")
	}
	pr, err := Pricing(ctx, o.F)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(e.PaymentInfo.Token, pr.Chain.TokenAddress) {
		return nil, axp.Conflict(fmt.Sprintf("task %s's escrow payment is in token %s, but /api/pricing names %s", t.ID, e.PaymentInfo.Token, pr.Chain.TokenAddress), "ask the exchange's operator")
	}
	url, err := rpcURL(o.F, o.RPCURL, pr)
	if err != nil {
		return nil, err
	}
	if r.n, err = dial(ctx, url, o.RPCURL != "", pr); err != nil {
		return nil, err
	}
	if err := r.check(ctx, info); err != nil {
		r.n.close()
		return nil, err
	}
	return r, nil
}

// check checks the terms against the chain and the expiry against the chain's clock, and prices
// the reclaim.
func (r *reclaim) check(ctx context.Context, info escrow.PaymentInfo) error {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	hash := escrow.Hash(r.n.id, r.escrow, info)
	if !strings.EqualFold(hash.Hex(), r.e.PaymentHash) {
		return axp.Conflict(fmt.Sprintf("task %s's escrow terms hash to %s on chain %d, but the exchange names the payment %s", r.t.ID, hash.Hex(), r.n.id, r.e.PaymentHash),
			"ask the exchange's operator")
	}
	head, err := r.n.ec.HeaderByNumber(cctx, nil)
	if err != nil {
		return fmt.Errorf("read the latest block: %w", err)
	}
	if exp := int64(info.AuthorizationExpiry); int64(head.Time) < exp {
		left := time.Duration(exp-int64(head.Time)) * time.Second
		return axp.Conflict(fmt.Sprintf("task %s's money can be reclaimed from %s on (the chain's clock): %s left", r.t.ID,
			time.Unix(exp, 0).UTC().Format(time.RFC3339), left),
			"until then the exchange may still pay it out or refund it; run it again after the expiry")
	}
	st, err := escrow.ReadState(cctx, r.n.ec, r.escrow, hash)
	if err != nil {
		return fmt.Errorf("read the payment's state on the escrow %s: %w", r.e.EscrowAddress, err)
	}
	if r.held = st.Capturable; r.held.Sign() == 0 {
		return axp.Conflict(fmt.Sprintf("the escrow %s holds nothing for task %s's payment %s any more", r.e.EscrowAddress, r.t.ID, r.e.PaymentHash),
			"`axp task view "+r.t.ID+"` shows where it went")
	}
	r.tx.to = r.escrow
	if r.tx.data, err = escrow.Reclaim(info); err != nil {
		return err
	}
	gas, err := r.n.ec.EstimateGas(cctx, ethereum.CallMsg{From: r.from, To: &r.escrow, Data: r.tx.data})
	if err != nil {
		if rv, ok := escrow.RevertOf(err); ok {
			return axp.Conflict("the escrow refuses the reclaim: "+rv.Error(), "`axp task view "+r.t.ID+"` shows where the money is")
		}
		return fmt.Errorf("the reclaim would fail on chain %d: %w", r.n.id, err)
	}
	if err := r.n.price(cctx, &r.tx, gas, head); err != nil {
		return err
	}
	wei, err := r.n.gasBalance(cctx, r.from)
	if err != nil {
		return err
	}
	if cost := r.tx.maxCost(); wei.Cmp(cost) < 0 {
		return axp.Conflict(fmt.Sprintf("the wallet %s holds %s ETH for gas; the reclaim may cost up to %s ETH", r.from.Hex(), ETH(wei), ETH(cost)),
			r.n.fundHint(r.from.Hex()))
	}
	return nil
}

// receipt waits for transaction hash's receipt.
func (r *reclaim) receipt(ctx context.Context, hash common.Hash, poll time.Duration) (*types.Receipt, error) {
	for {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		rcpt, err := r.n.ec.TransactionReceipt(cctx, hash)
		cancel()
		if err == nil {
			return rcpt, nil
		}
		select {
		case <-ctx.Done():
			return nil, &axp.Error{Code: axp.CodeUnavailable, Message: fmt.Sprintf("the reclaim %s has no receipt yet (%v)", hash.Hex(), err),
				Hint: "it was sent: do not send it again; `axp task view " + r.t.ID + "` says reclaimed once the exchange sees it"}
		case <-time.After(poll):
		}
	}
}
