package wallet

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/task"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/spf13/cobra"
)

// PayOptions are the inputs of `axp wallet pay`.
type PayOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Wallet *Flags
	TaskID string
	Token  string
	RPCURL string
	Yes    bool
	// Transfer sends a plain ERC-20 transfer even when the exchange takes an authorization.
	Transfer bool
	// Escrow pays into the exchange's escrow contract (pay_escrow) instead of the deposit address.
	Escrow  bool
	Timeout time.Duration
	// Poll is the time between looks at the chain and the task while waiting.
	Poll time.Duration
}

// NewCmdPay builds `axp wallet pay`.
func NewCmdPay(f *cmdutil.Factory, w *Flags, runF func(context.Context, *PayOptions) error) *cobra.Command {
	o := &PayOptions{F: f, IO: f.IO, Wallet: w, Poll: 500 * time.Millisecond}
	c := &cobra.Command{
		Use:   "pay TASK [--token TOKEN] [--yes] [--transfer | --escrow] [--rpc-url URL] [--timeout D]",
		Short: "Pay a task from the wallet and wait until the exchange has it funded",
		Long: `Pay a task awaiting payment from the wallet: read its payment instructions, check them against
the chain the exchange publishes (GET /api/pricing: chain id, stablecoin, deposit address) and the
node against that chain, check that the wallet holds the amount, show what will be paid and ask
(--yes skips the question; without a terminal --yes is required), then pay and wait, with one
line of progress on stderr, until the exchange reports the task funded (or --timeout passes).

Where the exchange takes one, the wallet signs an EIP-3009 authorization of exactly the task's
price to the deposit address, under a nonce the exchange derived from the task, and the exchange
submits it (and pays its gas): the money can pay this task and no other. Otherwise, or with
--transfer, it sends exactly the payable amount in token units to the deposit address (an
EIP-1559 ERC-20 transfer signed here, which needs gas) and reports its hash with the wallet's
signature of the task's payer message, so the transfer is credited to this task.

With --escrow, where the exchange has an escrow contract, the wallet signs an EIP-3009
ReceiveWithAuthorization of the task's price to the escrow's payment collector, under the nonce
that names the payment's terms (checked here against them: the seller's payout address receives,
the exchange's hot wallet operates), and the exchange calls the escrow's authorize (and pays its
gas): the money stays in the escrow contract, not at an address of the exchange, until it is paid
to the seller or goes back to the wallet.

Nothing is sent when a check fails: a task already paid or not awaiting payment, instructions
that disagree with the exchange's chain, a node on another chain, too little money or gas. The
buyer token is --token, else the one saved when the task was posted here.`,
		Example: `  axp wallet pay tsk_123
  axp wallet pay tsk_123 --yes --rpc-url https://node.example --timeout 5m`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: task.CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if o.Timeout <= 0 {
				return cmdutil.Usagef("--timeout must be positive")
			}
			if o.Transfer && o.Escrow {
				return cmdutil.Usagef("--transfer and --escrow are two ways to pay: give one")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return payRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Token, "token", "", "the task's buyer token (default: the one saved when the task was posted)")
	c.Flags().BoolVar(&o.Transfer, "transfer", false, "send a plain ERC-20 transfer (with gas) even where the exchange takes a signed authorization")
	c.Flags().BoolVar(&o.Escrow, "escrow", false, "pay into the exchange's escrow contract (a signed authorization; the exchange pays the gas)")
	addRPCFlag(c, &o.RPCURL)
	c.Flags().DurationVar(&o.Timeout, "timeout", 2*time.Minute, "how long to wait for the exchange to have the task funded once the transfer is sent")
	cmdutil.AddYesFlag(c, &o.Yes)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// payment is a payment ready to send: the task, what it is owed, and how.
type payment struct {
	t       *axp.Task
	buyer   *client.Client
	w       *Wallet
	n       *node
	from    common.Address
	to      common.Address
	units   *big.Int
	usd     axp.Money
	tx      call   // the transfer, when the wallet sends one
	confirm uint64 // the confirmations the exchange waits for
	balance *big.Int
	gasWei  *big.Int
	// auth is the authorization the wallet signs instead of sending a transfer (nil: a transfer).
	auth *axp.AuthorizationTerms
	// escrow is the escrow payment the wallet signs instead (nil: none).
	escrow *axp.EscrowTerms
}

func payRun(ctx context.Context, o *PayOptions) error {
	p, err := prepare(ctx, o)
	if err != nil {
		return nothingSent(err)
	}
	defer p.n.close()
	if err := cmdutil.ConfirmStep(o.IO, o.Yes, p.action(), p.describe); err != nil {
		return nothingSent(err)
	}
	hash, report, err := p.pay(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.IO.ErrOut, p.sent(hash))
	return follow(ctx, o, p, hash, report)
}

// action is what the confirmation asks to do.
func (p *payment) action() string {
	if p.escrow != nil {
		return fmt.Sprintf("authorize %s of %s from %s into the escrow %s for task %s", p.usd.Display(), p.n.symbol, p.from.Hex(), p.escrow.EscrowAddress, p.t.ID)
	}
	if p.auth != nil {
		return fmt.Sprintf("authorize %s of %s from %s to %s for task %s", p.usd.Display(), p.n.symbol, p.from.Hex(), p.to.Hex(), p.t.ID)
	}
	return fmt.Sprintf("send %s of %s to %s for task %s", p.usd.Display(), p.n.symbol, p.to.Hex(), p.t.ID)
}

// sent says that the payment left, as transaction hash.
func (p *payment) sent(hash string) string {
	if p.escrow != nil {
		return fmt.Sprintf("✓ Authorized %s of %s into the escrow %s; the exchange submitted it: transaction %s", p.usd.Display(), p.n.symbol, p.escrow.EscrowAddress, hash)
	}
	if p.auth != nil {
		return fmt.Sprintf("✓ Authorized %s of %s to %s; the exchange submitted it: transaction %s", p.usd.Display(), p.n.symbol, p.to.Hex(), hash)
	}
	return fmt.Sprintf("✓ Sent %s of %s to %s: transaction %s", p.usd.Display(), p.n.symbol, p.to.Hex(), hash)
}

// pay signs the authorization, which the exchange submits, or sends the transfer. For a transfer,
// report tells the exchange which task it pays (nil for an authorization: it names its task).
func (p *payment) pay(ctx context.Context) (hash string, report func(context.Context) error, err error) {
	if p.escrow != nil {
		hash, err := p.payEscrow(ctx)
		if err != nil {
			return "", nil, nothingSent(err)
		}
		return hash, nil, nil
	}
	if p.auth != nil {
		hash, err := p.authorize(ctx)
		if err != nil {
			return "", nil, nothingSent(err)
		}
		return hash, nil, nil
	}
	// The wallet's signature of the task's payer message binds the transfer to this task, whatever
	// its amount turns out to be.
	var sig string
	if msg := p.t.Payment.PayerMessage; msg != "" {
		if sig, err = chain.SignText(p.w.Key, msg); err != nil {
			return "", nil, nothingSent(err)
		}
	}
	if hash, err = p.send(ctx); err != nil {
		return "", nil, err
	}
	report = func(ctx context.Context) error {
		_, _, err := client.Call(ctx, p.buyer, contract.PayCryptoOp, axp.PayCryptoInput{TaskRef: axp.TaskRef{ID: p.t.ID}, TxHash: hash, PayerSignature: sig})
		return err
	}
	return hash, report, nil
}

// Payer pays tasks from the wallet for the terminal UI, as `axp wallet pay` does: the same checks,
// the same description and the same payment. The UI asks the question and shows the task as it
// refreshes, so the Payer neither asks nor waits for the task to be funded.
type Payer struct {
	F      *cmdutil.Factory
	Wallet *Flags
}

func (w *Payer) prepare(ctx context.Context, id string) (*payment, error) {
	fl := w.Wallet
	if fl == nil {
		fl = &Flags{}
	}
	p, err := prepare(ctx, &PayOptions{F: w.F, IO: w.F.IO, Wallet: fl, TaskID: id})
	if err != nil {
		return nil, nothingSent(err)
	}
	return p, nil
}

// Preview checks everything paying task id needs and says what the payment sends; nothing is sent.
func (w *Payer) Preview(ctx context.Context, id string) ([]string, error) {
	p, err := w.prepare(ctx, id)
	if err != nil {
		return nil, err
	}
	defer p.n.close()
	lines, err := p.describe()
	if err != nil {
		return nil, err
	}
	return append([]string{p.action() + "?"}, lines...), nil
}

// Pay checks again, pays task id and reports the payment; it returns the transaction's hash.
func (w *Payer) Pay(ctx context.Context, id string) (string, error) {
	p, err := w.prepare(ctx, id)
	if err != nil {
		return "", err
	}
	defer p.n.close()
	hash, report, err := p.pay(ctx)
	if err != nil || report == nil {
		return hash, err
	}
	if err := report(ctx); err != nil {
		// The exchange watches its deposit address: it may have credited the transfer before the
		// report arrived, and then the report has nothing left to do.
		if t, _, terr := client.Call(ctx, p.buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: id}}); terr == nil && t.Payment != nil &&
			t.Payment.Status == "confirmed" && strings.EqualFold(t.Payment.TxHash, hash) {
			return hash, nil
		}
		return hash, &axp.Error{Code: axp.CodeUnavailable, Message: fmt.Sprintf("sent as transaction %s, but the exchange did not take its report: %v", hash, err),
			Hint: "do not pay again; report it: axp task pay " + id + " --tx " + hash}
	}
	return hash, nil
}

// authorize signs the task's authorization terms, valid for at most an hour, and posts them; the
// exchange submits the transaction, whose hash it answers.
func (p *payment) authorize(ctx context.Context) (string, error) {
	before := min(time.Now().Add(time.Hour).Unix(), p.auth.ValidBeforeMax)
	sig, err := chain.SignTerms(p.w.Key, p.auth, 0, before)
	if err != nil {
		return "", err
	}
	rep, _, err := client.Call(ctx, p.buyer, contract.PayAuthorizationOp, axp.PayAuthorizationInput{TaskRef: axp.TaskRef{ID: p.t.ID},
		From: p.from.Hex(), ValidBefore: before, Signature: sig})
	if err != nil {
		return "", err
	}
	if rep.Payment == nil || rep.Payment.TxHash == "" {
		return "", fmt.Errorf("the exchange took the authorization but named no transaction")
	}
	return rep.Payment.TxHash, nil
}

// payEscrow signs the task's escrow authorization and posts it; the exchange calls the escrow's
// authorize, whose transaction it answers.
func (p *payment) payEscrow(ctx context.Context) (string, error) {
	sig, err := chain.SignReceive(p.w.Key, &p.escrow.Authorization)
	if err != nil {
		return "", err
	}
	rep, _, err := client.Call(ctx, p.buyer, contract.PayEscrowOp, axp.PayEscrowInput{TaskRef: axp.TaskRef{ID: p.t.ID},
		Payer: p.from.Hex(), Signature: sig})
	if err != nil {
		return "", err
	}
	if rep.Payment == nil || rep.Payment.TxHash == "" {
		return "", fmt.Errorf("the exchange took the escrow authorization but named no transaction")
	}
	return rep.Payment.TxHash, nil
}

// checkEscrow refuses escrow terms that disagree with the chain the exchange publishes, with the
// task's price, or with themselves: the authorization must be of the whole amount to the collector,
// valid until the terms' preApprovalExpiry, under the nonce the collector derives from the terms.
func checkEscrow(t *axp.Task, e *axp.EscrowTerms, ch *axp.ChainInfo, n *node) error {
	hint := "ask the exchange's operator, or pay without --escrow"
	p, a := t.Payment, e.Authorization
	info, err := escrow.ParseTerms(e.PaymentInfo)
	if err != nil {
		return axp.Conflict(fmt.Sprintf("task %s's escrow terms are malformed: %v", t.ID, err), hint)
	}
	switch {
	case !chain.IsAddress(e.EscrowAddress) || !chain.IsAddress(e.CollectorAddress):
		return axp.Conflict(fmt.Sprintf("task %s's escrow %q or collector %q is not an address", t.ID, e.EscrowAddress, e.CollectorAddress), hint)
	case a.Domain.ChainID != ch.ChainID || !strings.EqualFold(a.Domain.VerifyingContract, ch.TokenAddress) || !strings.EqualFold(e.PaymentInfo.Token, ch.TokenAddress):
		return axp.Conflict(fmt.Sprintf("task %s's escrow payment names token %s on chain %d, but /api/pricing names %s on chain %d", t.ID,
			a.Domain.VerifyingContract, a.Domain.ChainID, ch.TokenAddress, ch.ChainID), hint)
	case a.PrimaryType != "ReceiveWithAuthorization" || !strings.EqualFold(a.To, e.CollectorAddress) || a.ValidAfter != 0 || a.ValidBefore != e.PaymentInfo.PreApprovalExpiry:
		return axp.Conflict(fmt.Sprintf("task %s's escrow authorization (%s to %s, valid %d to %d) is not the collector's for these terms", t.ID,
			a.PrimaryType, a.To, a.ValidAfter, a.ValidBefore), hint)
	case a.ValueUSD != p.AmountUSD-p.ReceivedUSD || a.Value != e.PaymentInfo.MaxAmount:
		return axp.Conflict(fmt.Sprintf("task %s's escrow authorization asks for %s (%s units, terms %s); the task waits for %s", t.ID, a.ValueUSD.Display(),
			a.Value, e.PaymentInfo.MaxAmount, (p.AmountUSD-p.ReceivedUSD).Display()), hint)
	}
	if units, ok := new(big.Int).SetString(a.Value, 10); !ok || units.Cmp(n.units(a.ValueUSD)) != 0 {
		return axp.Conflict(fmt.Sprintf("task %s's escrow units (%s) are not its amount (%s)", t.ID, a.Value, a.ValueUSD.Display()), hint)
	}
	if nonce := escrow.Nonce(ch.ChainID, common.HexToAddress(e.EscrowAddress), info); !strings.EqualFold(a.Nonce, common.Hash(nonce).Hex()) {
		return axp.Conflict(fmt.Sprintf("task %s's escrow authorization nonce %s is not the one its terms give (%s): the signature would not be for these terms", t.ID,
			a.Nonce, common.Hash(nonce).Hex()), hint)
	}
	return nil
}

// checkTerms refuses authorization terms that disagree with the chain the exchange publishes, or
// that ask for another amount than the task's price less what it received.
func checkTerms(t *axp.Task, a *axp.AuthorizationTerms, ch *axp.ChainInfo, n *node) error {
	hint := "ask the exchange's operator, or pay by transfer with --transfer"
	p := t.Payment
	switch {
	case a.Domain.ChainID != ch.ChainID || !strings.EqualFold(a.Domain.VerifyingContract, ch.TokenAddress):
		return axp.Conflict(fmt.Sprintf("task %s's authorization names token %s on chain %d, but /api/pricing names %s on chain %d", t.ID,
			a.Domain.VerifyingContract, a.Domain.ChainID, ch.TokenAddress, ch.ChainID), hint)
	case !strings.EqualFold(a.To, ch.DepositAddress):
		return axp.Conflict(fmt.Sprintf("task %s's authorization pays %s, not the deposit address %s", t.ID, a.To, ch.DepositAddress), hint)
	case a.ValueUSD != p.AmountUSD-p.ReceivedUSD:
		return axp.Conflict(fmt.Sprintf("task %s's authorization asks for %s; the task waits for %s", t.ID, a.ValueUSD.Display(), (p.AmountUSD-p.ReceivedUSD).Display()), hint)
	}
	if units, ok := new(big.Int).SetString(a.Value, 10); !ok || units.Cmp(n.units(a.ValueUSD)) != 0 {
		return axp.Conflict(fmt.Sprintf("task %s's authorization units (%s) are not its amount (%s)", t.ID, a.Value, a.ValueUSD.Display()), hint)
	}
	return nil
}

// prepare reads the task, the wallet and the chain, and checks everything a payment needs.
func prepare(ctx context.Context, o *PayOptions) (*payment, error) {
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
	usd, err := due(t)
	if err != nil {
		return nil, err
	}
	pr, err := Pricing(ctx, o.F)
	if err != nil {
		return nil, err
	}
	if err := checkInstructions(t.ID, t.Payment, pr.Chain); err != nil {
		return nil, err
	}
	url, err := rpcURL(o.F, o.RPCURL, pr)
	if err != nil {
		return nil, err
	}
	n, err := dial(ctx, url, o.RPCURL != "", pr)
	if err != nil {
		return nil, err
	}
	p := &payment{t: t, buyer: buyer, w: w, n: n, from: common.HexToAddress(w.Address()), to: common.HexToAddress(t.Payment.DepositAddress),
		usd: usd, confirm: pr.Chain.Confirmations}
	if o.Escrow {
		e := t.Payment.Escrow
		if e == nil {
			n.close()
			return nil, axp.Conflict("task "+t.ID+" cannot be paid into escrow here: the exchange has no escrow contract, the seller no payout address, or part of the price was paid already",
				"pay without --escrow: axp wallet pay "+t.ID)
		}
		if err := checkEscrow(t, e, pr.Chain, n); err != nil {
			n.close()
			return nil, err
		}
		p.escrow, p.usd, p.to = e, e.Authorization.ValueUSD, common.HexToAddress(e.EscrowAddress)
		p.units, _ = new(big.Int).SetString(e.Authorization.Value, 10)
		if err := p.covered(ctx); err != nil {
			n.close()
			return nil, err
		}
		return p, nil
	}
	if a := t.Payment.Authorization; a != nil && !o.Transfer {
		if err := checkTerms(t, a, pr.Chain, n); err != nil {
			n.close()
			return nil, err
		}
		p.auth, p.usd = a, a.ValueUSD
		p.units, _ = new(big.Int).SetString(a.Value, 10)
		if err := p.covered(ctx); err != nil {
			n.close()
			return nil, err
		}
		return p, nil
	}
	if err := p.plan(ctx); err != nil {
		n.close()
		return nil, err
	}
	return p, nil
}

// covered reads the wallet's token balance and refuses one short of the units a signed payment moves.
func (p *payment) covered(ctx context.Context) error {
	var err error
	if p.balance, err = p.n.tokenBalance(ctx, p.from); err != nil {
		return err
	}
	if p.balance.Cmp(p.units) < 0 {
		return axp.Conflict(fmt.Sprintf("the wallet %s holds %s of %s; task %s needs %s", p.from.Hex(), p.n.usd(p.balance).Display(), p.n.symbol, p.t.ID, p.usd.Display()),
			p.n.fundHint(p.from.Hex()))
	}
	return nil
}

// due is what a task awaiting payment is still owed, or the error that says why nothing is: its
// payable amount, which after a part payment is the rest.
func due(t *axp.Task) (axp.Money, error) {
	p := t.Payment
	watch := "follow it with `axp task watch " + t.ID + "`"
	switch {
	case t.Status == axp.TaskOpen:
		return 0, axp.Conflict("task "+t.ID+" is open: no offer is chosen yet, so there is nothing to pay",
			"choose an offer first: axp task choose "+t.ID)
	case t.Status != axp.TaskAwaitingPayment && p != nil && p.Status == "confirmed":
		return 0, axp.Conflict(fmt.Sprintf("task %s is already paid (%s, payment confirmed)", t.ID, t.Status), watch+"; do not pay it again")
	case t.Status != axp.TaskAwaitingPayment:
		return 0, axp.Conflict("task "+t.ID+" is "+t.Status+": it awaits no payment", "`axp task view "+t.ID+"` shows where it is")
	case p == nil:
		return 0, axp.Conflict("task "+t.ID+" has nothing to pay", "")
	case p.Status == "reported":
		return 0, axp.Conflict(fmt.Sprintf("a payment of task %s (%s) was already sent and reported; it awaits confirmation", t.ID, p.TxHash),
			watch+"; do not pay it again")
	case p.Status != "unpaid" && p.Status != "partial":
		return 0, axp.Conflict("the payment of task "+t.ID+" is "+p.Status+": nothing to pay now", "`axp task view "+t.ID+"` shows where it is")
	case p.ChainID == 0 || p.TokenAddress == "" || p.DepositAddress == "" || p.PayableUnits == "":
		return 0, axp.Conflict("the exchange names no chain and stablecoin for the payment of task "+t.ID,
			"`axp task pay "+t.ID+"` says what to send; send it from a wallet of your own and report it with --tx")
	}
	// The payable amount is what is still due: after a part payment the exchange asks for the rest
	// (less a new tag), never for the price again.
	if p.PayableUSD <= 0 {
		return 0, axp.Conflict("task "+t.ID+" received its payable amount already; the exchange is confirming it", watch)
	}
	return p.PayableUSD, nil
}

// checkInstructions refuses payment instructions that disagree with the chain the exchange
// publishes in /api/pricing, or with themselves (the units are not the amount shown).
func checkInstructions(id string, p *axp.PaymentInfo, ch *axp.ChainInfo) error {
	hint := "ask the exchange's operator; do not pay until the task and /api/pricing agree"
	switch {
	case p.ChainID != ch.ChainID:
		return axp.Conflict(fmt.Sprintf("task %s's payment names chain %d, but the exchange's /api/pricing names chain %d", id, p.ChainID, ch.ChainID), hint)
	case !strings.EqualFold(p.TokenAddress, ch.TokenAddress):
		return axp.Conflict(fmt.Sprintf("task %s's payment names the token %s, but the exchange's /api/pricing names %s", id, p.TokenAddress, ch.TokenAddress), hint)
	case !strings.EqualFold(p.DepositAddress, ch.DepositAddress):
		return axp.Conflict(fmt.Sprintf("task %s's payment goes to %s, but the exchange's /api/pricing names the deposit address %s", id, p.DepositAddress, ch.DepositAddress), hint)
	case !chain.IsAddress(p.DepositAddress):
		return axp.Conflict(fmt.Sprintf("task %s's deposit address %q is not an address", id, p.DepositAddress), hint)
	case p.TokenDecimals != ch.TokenDecimals:
		return axp.Conflict(fmt.Sprintf("task %s's payment counts the token in %d decimals, /api/pricing in %d", id, p.TokenDecimals, ch.TokenDecimals), hint)
	}
	n := &node{dec: ch.TokenDecimals}
	if units, ok := new(big.Int).SetString(p.PayableUnits, 10); !ok || units.Cmp(n.units(p.PayableUSD)) != 0 {
		return axp.Conflict(fmt.Sprintf("task %s's payable units (%s) are not its payable amount (%s)", id, p.PayableUnits, p.PayableUSD.Display()), hint)
	}
	return nil
}

// plan reads the wallet's balances and prices the transfer: the units owed, then the gas.
func (p *payment) plan(ctx context.Context) error {
	// Exactly the instructions' units, which checkInstructions found equal to the payable amount.
	p.units, _ = new(big.Int).SetString(p.t.Payment.PayableUnits, 10)
	var err error
	if p.balance, err = p.n.tokenBalance(ctx, p.from); err != nil {
		return err
	}
	if p.gasWei, err = p.n.gasBalance(ctx, p.from); err != nil {
		return err
	}
	addr := p.from.Hex()
	if p.balance.Cmp(p.units) < 0 {
		return axp.Conflict(fmt.Sprintf("the wallet %s holds %s of %s; task %s needs %s", addr, p.n.usd(p.balance).Display(), p.n.symbol, p.t.ID, p.usd.Display()),
			p.n.fundHint(addr))
	}
	if p.gasWei.Sign() == 0 {
		return axp.Conflict(fmt.Sprintf("the wallet %s holds no ETH to pay the transfer's gas", addr), p.n.fundHint(addr))
	}
	p.tx.to = p.n.token
	if p.tx.data, err = erc20.Pack("transfer", p.to, p.units); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	gas, err := p.n.ec.EstimateGas(cctx, ethereum.CallMsg{From: p.from, To: &p.tx.to, Data: p.tx.data})
	if err != nil {
		return fmt.Errorf("the transfer would fail on chain %d: %w", p.n.id, err)
	}
	head, err := p.n.ec.HeaderByNumber(cctx, nil)
	if err != nil {
		return fmt.Errorf("read the latest block: %w", err)
	}
	if err := p.n.price(cctx, &p.tx, gas, head); err != nil {
		return err
	}
	if cost := p.tx.maxCost(); p.gasWei.Cmp(cost) < 0 {
		return axp.Conflict(fmt.Sprintf("the wallet %s holds %s ETH for gas; the transfer may cost up to %s ETH", addr, ETH(p.gasWei), ETH(cost)),
			p.n.fundHint(addr))
	}
	return nil
}

// describe is what the confirmation shows.
func (p *payment) describe() ([]string, error) {
	chainLine := fmt.Sprintf("chain %d", p.n.id)
	if p.n.test {
		chainLine += " (the exchange's test chain: not real money)"
	}
	if e := p.escrow; e != nil {
		return []string{
			fmt.Sprintf("task %s (%s) is awaiting payment: %s", p.t.ID, p.t.Type, p.usd.Display()),
			fmt.Sprintf("sign an authorization of %s units of %s (%s) into the escrow %s on %s, for this task only (nonce %s…)",
				p.units, p.n.symbol, p.n.token.Hex(), e.EscrowAddress, chainLine, e.Authorization.Nonce[:12]),
			fmt.Sprintf("the escrow holds it until the exchange (%s) pays the seller's %s, or returns it; from %s you may reclaim it yourself",
				e.PaymentInfo.Operator, e.PaymentInfo.Receiver, time.Unix(e.PaymentInfo.AuthorizationExpiry, 0).UTC().Format("2006-01-02 15:04 UTC")),
			fmt.Sprintf("from your wallet %s (it holds %s); the exchange submits it and pays the gas", p.from.Hex(), p.n.usd(p.balance).Display()),
		}, nil
	}
	if p.auth != nil {
		return []string{
			fmt.Sprintf("task %s (%s) is awaiting payment: %s", p.t.ID, p.t.Type, p.usd.Display()),
			fmt.Sprintf("sign an authorization of %s units of %s (%s) to the deposit address %s on %s, for this task only (nonce %s…)",
				p.units, p.n.symbol, p.n.token.Hex(), p.to.Hex(), chainLine, p.auth.Nonce[:12]),
			fmt.Sprintf("from your wallet %s (it holds %s); the exchange submits it and pays the gas", p.from.Hex(), p.n.usd(p.balance).Display()),
		}, nil
	}
	return []string{
		fmt.Sprintf("task %s (%s) is awaiting payment: %s", p.t.ID, p.t.Type, p.usd.Display()),
		fmt.Sprintf("send %s units of %s (%s) to the deposit address %s on %s", p.units, p.n.symbol, p.n.token.Hex(), p.to.Hex(), chainLine),
		fmt.Sprintf("from your wallet %s (it holds %s and %s ETH; gas at most %s ETH)", p.from.Hex(), p.n.usd(p.balance).Display(),
			ETH(p.gasWei), ETH(p.tx.maxCost())),
	}, nil
}

// send signs the transfer and broadcasts it (node.send).
func (p *payment) send(ctx context.Context) (string, error) {
	h, err := p.n.send(ctx, p.w.Key, p.from, &p.tx, "transfer", func(hash string) string {
		return "look the transaction up on the chain before paying again; if it is mined, report it: axp task pay " + p.t.ID + " --tx " + hash
	})
	if err != nil {
		return "", err
	}
	return strings.ToLower(h.Hex()), nil
}

// follow reports the transfer and waits until the exchange has the task funded, showing the
// transfer's and the task's progress on one line of stderr.
//
// send, when set, reports the transfer (again while it fails); an authorization needs no report.
func follow(ctx context.Context, o *PayOptions, p *payment, hash string, send func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	var reportErr error
	report := func() {
		if send != nil {
			reportErr = send(ctx)
		}
	}
	report()
	if reportErr != nil {
		fmt.Fprintf(o.IO.ErrOut, "warning: the exchange did not take the report of %s yet (%v); trying again while waiting\n", hash, reportErr)
	}
	pr := &progress{io: o.IO, start: time.Now()}
	chainState, taskState := "tx "+hash[:10]+"… sent", "task "+p.t.Status
	tick := time.NewTicker(o.Poll)
	defer tick.Stop()
	for i := 0; ; i++ {
		if s, ok, err := p.mined(ctx, hash); err != nil {
			pr.done()
			return err
		} else if ok {
			chainState = s
		}
		t, raw, err := client.Call(ctx, p.buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: p.t.ID}})
		if err == nil {
			taskState = "task " + t.Status
			if t.Payment != nil {
				taskState += ", payment " + t.Payment.Status
			}
			if t.Status != axp.TaskAwaitingPayment && t.Payment != nil && t.Payment.Status == "confirmed" {
				pr.show(chainState + " · " + taskState)
				pr.done()
				return funded(o, p, t, raw, hash)
			}
			if axp.Terminal(t.Status) {
				pr.done()
				return &axp.Error{Code: axp.CodeConflict, Message: fmt.Sprintf("task %s is %s; the transfer %s reached the deposit address after it stopped waiting", t.ID, t.Status, hash),
					Hint: "the exchange returns a late payment once its operator approves the refund: axp task view " + t.ID}
			}
			if reportErr != nil && t.Status == axp.TaskAwaitingPayment && i%5 == 4 {
				report()
			}
		}
		pr.show(chainState + " · " + taskState)
		select {
		case <-ctx.Done():
			pr.done()
			waited := "after " + o.Timeout.String()
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				waited = "when the wait was stopped"
			}
			msg := fmt.Sprintf("the exchange has not reported task %s funded %s; last seen: %s; %s", p.t.ID, waited, chainState, taskState)
			hint := "the transfer was sent: do not pay again; follow the task with `axp task watch " + p.t.ID + "`"
			if reportErr != nil {
				hint += "; the exchange did not take its report (" + reportErr.Error() + "): report it with axp task pay " + p.t.ID + " --tx " + hash
			}
			return &axp.Error{Code: axp.CodeUnavailable, Message: msg, Hint: hint}
		case <-tick.C:
		}
	}
}

// mined says where the transfer is on chain (ok is false when the node did not answer); a transfer
// that reverted is an error (no money moved).
func (p *payment) mined(ctx context.Context, hash string) (state string, ok bool, err error) {
	short := hash[:10] + "…"
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	r, err := p.n.ec.TransactionReceipt(cctx, common.HexToHash(hash))
	if errors.Is(err, ethereum.NotFound) {
		return "tx " + short + " pending", true, nil
	}
	if err != nil {
		return "", false, nil
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return "", false, &axp.Error{Code: axp.CodeConflict, Message: fmt.Sprintf("the transfer %s reverted on chain %d: it moved no money", hash, p.n.id),
			Hint: "check the wallet's balance (axp wallet balance) and pay again"}
	}
	head, err := p.n.ec.BlockNumber(cctx)
	if err != nil || head < r.BlockNumber.Uint64() {
		return fmt.Sprintf("tx %s mined in block %d", short, r.BlockNumber), true, nil
	}
	need := max(p.confirm, 1)
	return fmt.Sprintf("tx %s mined in block %d, %d/%d confirmations", short, r.BlockNumber, min(head-r.BlockNumber.Uint64()+1, need), need), true, nil
}

// funded prints the outcome of a funded task.
func funded(o *PayOptions, p *payment, t *axp.Task, raw []byte, hash string) error {
	fmt.Fprintf(o.IO.ErrOut, "✓ Task %s is funded: %s, payment confirmed\n", t.ID, t.Status)
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	return cmdutil.KeyValues(o.IO, "Task", t.ID, "Status", o.IO.ColorScheme().Status(t.Status), "Paid", cmdutil.Money(o.IO, p.usd),
		"Transaction", hash, "From", p.from.Hex(), "To", p.to.Hex())
}

// nothingSent adds to an error met before the transfer left that no money moved.
func nothingSent(err error) error {
	if err == nil || errors.Is(err, cmdutil.ErrCancelled) {
		return err
	}
	var e *axp.Error
	if errors.As(err, &e) {
		c := *e
		c.Message += " (nothing was sent)"
		return &c
	}
	return fmt.Errorf("%w (nothing was sent)", err)
}

// progress is the one line of stderr that shows a wait: rewritten in place on a terminal, a new
// line at each change elsewhere.
type progress struct {
	io    *cmdutil.IOStreams
	start time.Time
	last  string
	drawn bool
}

func (pr *progress) show(line string) {
	if pr.io.StderrTTY {
		fmt.Fprintf(pr.io.ErrOut, "\r\x1b[K%s (%ds)", line, int(time.Since(pr.start).Seconds()))
		pr.drawn = true
		return
	}
	if line != pr.last {
		fmt.Fprintln(pr.io.ErrOut, line)
		pr.last = line
	}
}

// done ends the line on a terminal.
func (pr *progress) done() {
	if pr.drawn {
		fmt.Fprint(pr.io.ErrOut, "\r\x1b[K")
		pr.drawn = false
	}
}
