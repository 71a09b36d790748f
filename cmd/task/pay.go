package task

import (
	"context"
	"fmt"
	"regexp"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// PayOptions are the inputs of `axp task pay`.
type PayOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID string
	TxHash string
	// Signature is the sending address's signature of the task's payer message (payer_signature).
	Signature string
	Yes       bool
}

var txHash = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)

// NewCmdPay builds `axp task pay`.
func NewCmdPay(f *cmdutil.Factory, runF func(context.Context, *PayOptions) error) *cobra.Command {
	o := &PayOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "pay TASK [--tx HASH [--payer-signature SIG]]",
		Short: "Show what to pay and where; with --tx, report the payment",
		Long: `Without --tx, show the payable amount (send exactly it: its last digits identify your
payment), the deposit address, the chain and token, the amount in token units, an EIP-681 payment
URI a wallet can open, and the deadline. With --tx, report the stablecoin transaction that paid.
On an exchange that reads the chain (verifier evm) its watcher finds the payment on chain by itself
once it is sent, so a report only speeds it up; it is checked at once (a reverted transaction,
another token or another recipient is refused). Elsewhere report it and the operator confirms it.
Either way the job starts when the payment is confirmed. A transfer whose amount is not exactly
the payable amount names no task: report it with --payer-signature, the sending address's
signature (personal_sign) of the payment's payer_message, or it goes back to its sender.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if o.TxHash != "" && !txHash.MatchString(o.TxHash) {
				return cmdutil.Usagef("--tx %q: a transaction hash is 0x followed by 64 hex digits", o.TxHash)
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return payRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.TxHash, "tx", "", "the transaction `hash` that paid (0x + 64 hex)")
	c.Flags().StringVar(&o.Signature, "payer-signature", "", "the sending address's `signature` of payment.payer_message (0x + 130 hex), for a transfer of another amount than payable_usd")
	cmdutil.AddYesFlag(c, &o.Yes)
	addTokenFlag(c, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func payRun(ctx context.Context, o *PayOptions) error {
	if o.TxHash == "" {
		t, raw, err := getTask(ctx, o.F, o.TaskID, o.Token, "")
		if err != nil {
			return err
		}
		if t.Payment == nil {
			hint := "choose an offer first: axp task choose " + t.ID
			if t.PaymentMethod == axp.PayFree {
				hint = "free jobs need no payment"
			}
			return axp.Conflict("task "+t.ID+" ("+t.Status+") has nothing to pay", hint)
		}
		if o.Export.Enabled() {
			return o.Export.Write(o.IO, raw)
		}
		if err := cmdutil.KeyValues(o.IO, paymentPairs(o.IO, t.Payment)...); err != nil {
			return err
		}
		if t.Status == axp.TaskAwaitingPayment && t.Payment.TxHash == "" {
			fmt.Fprintln(o.IO.ErrOut, payNext(t.ID, t.Payment, "Once sent, report it"))
		}
		return nil
	}
	err := cmdutil.ConfirmStep(o.IO, o.Yes, "report "+o.TxHash+" as the payment of task "+o.TaskID, func() ([]string, error) {
		t, _, err := getTask(ctx, o.F, o.TaskID, o.Token, "")
		if err != nil {
			return nil, err
		}
		if t.Payment == nil {
			return []string{"task " + t.ID + " is " + t.Status + " and has nothing to pay"}, nil
		}
		return []string{fmt.Sprintf("task %s (%s) is %s; payable %s to %s", t.ID, t.Type, t.Status, t.Payment.PayableUSD.Display(), t.Payment.DepositAddress),
			"a hash funds one task only: make sure this transaction sent exactly the payable amount"}, nil
	})
	if err != nil {
		return err
	}
	out, raw, err := asBuyer(ctx, o.F, o.TaskID, o.Token, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: taskRef(o.TaskID), TxHash: o.TxHash, PayerSignature: o.Signature})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Reported %s for task %s: %s\n", o.TxHash, out.TaskID, out.Message)
	return cmdutil.KeyValues(o.IO, paymentPairs(o.IO, out.Payment)...)
}

// payNext tells the buyer what happens once the payable amount is sent. On an exchange that reads
// its chain (the payment's verifier is evm) its watcher finds the transfer by itself and a report
// only speeds it up; in test mode axp wallet pays from a test wallet. Elsewhere (verifier manual, even where the payment names a chain and token for
// the wallet) nobody watches the chain: the buyer reports the hash (manual, the lead-in of today's
// wording of each command) and the operator confirms it.
func payNext(id string, p *axp.PaymentInfo, manual string) string {
	if p != nil && p.TestMode {
		return "Test mode (money here is not real): pay from a test wallet with axp wallet pay " + id + " (first axp wallet new, then axp wallet fund)"
	}
	if p != nil && p.Verifier == "evm" {
		return "Once it is sent, the exchange's watcher finds the payment on chain by itself; reporting the hash only speeds it up: axp task pay " + id + " --tx <hash>"
	}
	return manual + ": axp task pay " + id + " --tx <hash>"
}
