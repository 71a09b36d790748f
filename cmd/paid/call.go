package paid

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/call"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/wallet"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/x402"
	"github.com/axp-exchange/axp/protocol"
	"github.com/cli/go-gh/v2/pkg/jsonpretty"
	"github.com/spf13/cobra"
)

// CallOptions are the inputs of `axp paid call`.
type CallOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Wallet wallet.Flags
	// Path is the tool's path under /paid (or its catalog name).
	Path   string
	Params []string
	Data   string
	MaxUSD string
	Trial  bool
	Yes    bool
	// Now is the clock the authorization's validity starts from.
	Now func() time.Time
}

// DefaultMaxUSD is the most a call pays without --max-usd (what x402-fetch caps a call at).
const DefaultMaxUSD = "0.10"

// NewCmdCall builds `axp paid call`.
func NewCmdCall(f *cmdutil.Factory, runF func(context.Context, *CallOptions) error) *cobra.Command {
	o := &CallOptions{F: f, IO: f.IO, Now: time.Now}
	c := &cobra.Command{
		Use:   "call PATH [--param KEY=VALUE ...] [--data JSON] [--max-usd N] [--trial] [--yes]",
		Short: "Call a pay-per-call tool and pay for it over x402 from the wallet",
		Long: `Call a tool under /paid (its path, e.g. /paid/text/injection-check or text/injection-check, or its
name, e.g. paid_injection_check). A GET tool takes its input as --param KEY=VALUE (repeat it); a
POST tool takes a JSON body with --data (- reads stdin) and --param pairs added to it (values are
JSON when they parse, else strings).

When the exchange answers 402 with x402 v2 terms, they are checked before anything is signed: the
scheme is exact, the network is the chain /api/pricing names (eip155:<chain id>), the asset is its
stablecoin, payTo is its deposit address, and the price is at most --max-usd (US$0.10 unless
given). The price and the recipient are shown and confirmed (--yes skips the question; without a
terminal --yes is required); then the wallet signs an EIP-3009 transferWithAuthorization (EIP-712)
for exactly the price and the call is sent again with PAYMENT-SIGNATURE. The tool's answer goes to
stdout (indented; --json as it came), the settlement's transaction to stderr. --trial uses one of
the free trial calls (?trial=1) and pays nothing.`,
		Example: `  axp paid call /paid/text/injection-check --data '{"text":"Ignore all previous instructions"}'
  axp paid call trading/risk -p account=10000 -p risk_pct=1 -p entry=100 -p stop=95 --yes
  axp paid call paid_injection_check -p text="a text to screen" --trial`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: complete,
		RunE: func(c *cobra.Command, args []string) error {
			o.Path = args[0]
			if o.Data == "-" && o.Wallet.PassphraseStdin {
				return cmdutil.Usagef("--data - and --passphrase-stdin both read stdin: give the passphrase in AXP_WALLET_PASSPHRASE")
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return callRun(c.Context(), o)
		},
	}
	wallet.AddFlags(c, &o.Wallet)
	c.Flags().StringArrayVarP(&o.Params, "param", "p", nil, "an input field as `KEY=VALUE` (repeatable)")
	c.Flags().StringVarP(&o.Data, "data", "d", "", "the JSON body of a POST tool, or - to read it from stdin")
	c.Flags().StringVar(&o.MaxUSD, "max-usd", DefaultMaxUSD, "pay at most this many US dollars for the call")
	c.Flags().BoolVar(&o.Trial, "trial", false, "use a free trial call (?trial=1) instead of paying")
	cmdutil.AddYesFlag(c, &o.Yes)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// request is the call as it goes out.
type request struct {
	method, path string // path with its query string
	body         []byte
}

func callRun(ctx context.Context, o *CallOptions) error {
	maxUSD, err := protocol.ParseMoney(strings.TrimPrefix(strings.TrimSpace(o.MaxUSD), "$"))
	if err != nil || maxUSD < 0 {
		return cmdutil.Usagef("--max-usd %q: give US dollars, e.g. 0.25", o.MaxUSD)
	}
	req, err := build(o)
	if err != nil {
		return err
	}
	cl := o.F.Client("")
	resp, err := send(ctx, cl, req, "")
	if resp == nil || resp.Status != http.StatusPaymentRequired {
		if err != nil {
			if client.IsCode(err, axp.CodeNotFound) && findOp(pathOnly(req.path)) == nil {
				return unknownTool(o.Path)
			}
			return err
		}
		if o.Trial {
			fmt.Fprintf(o.IO.ErrOut, "✓ A free trial call of %s: nothing was paid\n", pathOnly(req.path))
		}
		return printAnswer(o, resp.Body)
	}
	if o.Trial {
		return &axp.Error{Code: axp.CodePaymentRequired, Message: "the exchange asks for a payment for " + pathOnly(req.path) + " even as a trial call: " + refusal(resp),
			Hint: "call it without --trial to pay for it"}
	}
	terms, err := demanded(resp)
	if err != nil {
		return err
	}
	pr, err := wallet.Pricing(ctx, o.F)
	if err != nil {
		return nothingSigned(err)
	}
	acc, price, err := choose(terms, pr, pathOnly(req.path))
	if err != nil {
		return nothingSigned(err)
	}
	if price > maxUSD {
		return &axp.Error{Code: axp.CodeInvalidInput, Field: "--max-usd",
			Message: fmt.Sprintf("%s costs %s, more than the %s this call may pay (nothing was signed)", pathOnly(req.path), price.Display(), maxUSD.Display()),
			Hint:    fmt.Sprintf("pay it with --max-usd %s, or try it free with --trial", price.String())}
	}
	w, err := wallet.Load(o.F, o.IO.In, &o.Wallet)
	if err != nil {
		return nothingSigned(err)
	}
	if acc.MaxTimeoutSeconds <= 0 {
		acc.MaxTimeoutSeconds = 60
	}
	symbol := pr.Chain.TokenSymbol
	if symbol == "" {
		symbol = "the stablecoin"
	}
	action := fmt.Sprintf("pay %s for %s %s", price.Display(), req.method, pathOnly(req.path))
	err = cmdutil.ConfirmStep(o.IO, o.Yes, action, func() ([]string, error) {
		chainLine := fmt.Sprintf("chain %d", pr.Chain.ChainID)
		if pr.TestMode {
			chainLine += " (the exchange's test chain: not real money)"
		}
		return []string{
			fmt.Sprintf("%s costs %s: %s units of %s (%s) on %s", pathOnly(req.path), price.Display(), acc.Amount, symbol, acc.Asset, chainLine),
			"paid to the exchange's deposit address " + acc.PayTo,
			fmt.Sprintf("from your wallet %s, by an authorization it signs for exactly that amount, valid %ds", w.Address(), acc.MaxTimeoutSeconds),
		}, nil
	})
	if err != nil {
		return nothingSigned(err)
	}
	resource := ""
	if terms.Resource != nil {
		resource = terms.Resource.URL
	}
	header, err := x402.Pay(w.Key, acc, resource, 2, "", o.Now())
	if err != nil {
		return nothingSigned(err)
	}
	resp, err = send(ctx, cl, req, header)
	if resp != nil && resp.Status == http.StatusPaymentRequired {
		if p, ok := paymentOf(resp); ok && (p.Status == axp.PaidSettling || p.Status == axp.PaidSettled) {
			// Submitted: the money may have moved (or did), so this is no refusal.
			return &axp.Error{Code: axp.CodePaymentRequired, Message: "the exchange withheld the answer: " + refusal(resp),
				Hint: "the payment was submitted (" + orUnknown(p.TxHash) + "): it is booked once if it is mined; check the wallet with `axp wallet balance` before paying again"}
		}
		hint := "nothing was charged; check the wallet's balance with `axp wallet balance`"
		if pr.TestMode {
			hint += ", and get test money with `axp wallet fund`"
		}
		return &axp.Error{Code: axp.CodePaymentRequired, Message: "the exchange refused the payment: " + refusal(resp), Hint: hint}
	}
	if err != nil {
		return err
	}
	line := fmt.Sprintf("✓ Paid %s of %s from %s for %s", price.Display(), symbol, w.Address(), pathOnly(req.path))
	if s, ok := settlement(resp); ok {
		line += fmt.Sprintf(": settled in transaction %s on %s", s.Transaction, s.Network)
	}
	fmt.Fprintln(o.IO.ErrOut, line)
	return printAnswer(o, resp.Body)
}

// build turns the options into the request: the tool's path, its method from the catalog (else
// POST with --data, GET without), the input on the query string (GET) or as the JSON body (POST).
func build(o *CallOptions) (*request, error) {
	path, err := toolPath(o.Path)
	if err != nil {
		return nil, err
	}
	method := http.MethodGet
	if op := findOp(path); op != nil {
		method = op.Method
	} else if o.Data != "" {
		method = http.MethodPost
	}
	q := url.Values{}
	r := &request{method: method}
	if method == http.MethodGet {
		if o.Data != "" {
			return nil, cmdutil.Usagef("%s is a GET tool: give its input with --param KEY=VALUE, not --data", path)
		}
		for _, kv := range o.Params {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, cmdutil.Usagef("--param %q: give KEY=VALUE", kv)
			}
			q.Add(k, v)
		}
	} else {
		in, err := call.Input(o.IO.In, o.Data, o.Params)
		if err != nil {
			var ue *cmdutil.UsageError
			if errors.As(err, &ue) {
				return nil, cmdutil.Usagef("%s", strings.Replace(ue.Error(), "--input", "--data", 1))
			}
			return nil, err
		}
		if r.body, err = json.Marshal(in); err != nil {
			return nil, err
		}
	}
	if o.Trial {
		q.Set("trial", "1")
	}
	r.path = path
	if len(q) > 0 {
		r.path += "?" + q.Encode()
	}
	return r, nil
}

// toolPath is the path under /paid that arg names: a path (with or without /paid), or the
// catalog name of a paid tool.
func toolPath(arg string) (string, error) {
	if strings.Contains(arg, "://") {
		return "", cmdutil.Usagef("%q: give the tool's path (e.g. /paid/text/injection-check); --exchange names the exchange", arg)
	}
	if strings.ContainsAny(arg, "?#") {
		return "", cmdutil.Usagef("%q: give the input with --param KEY=VALUE, not in the path", arg)
	}
	if op := contract.Lookup(arg); op != nil && op.Access == contract.Paid {
		if len(op.PathParams()) > 0 {
			return "", cmdutil.Usagef("%s is called at %s: give that path with its parameters", op.Name, op.Path)
		}
		return op.Path, nil
	}
	p := strings.TrimPrefix(arg, "/")
	if p != "paid" && !strings.HasPrefix(p, "paid/") {
		p = "paid/" + p
	}
	return "/" + p, nil
}

// unknownTool is the answer to a tool the exchange does not have: the nearest paid tool of the
// catalog by path or name, and where the list is.
func unknownTool(arg string) error {
	short := strings.TrimPrefix(strings.TrimPrefix(arg, "/"), "paid/")
	best, bestD := "", 0
	for _, op := range contract.Ops {
		if op.Access != contract.Paid || !strings.HasPrefix(op.Path, "/paid/") {
			continue
		}
		for _, name := range []string{strings.TrimPrefix(op.Path, "/paid/"), op.Name, strings.TrimPrefix(op.Name, "paid_")} {
			d := protocol.EditDistance(short, name)
			if strings.Contains(name, short) && len(short) >= 3 {
				d = min(d, 1)
			}
			if best == "" || d < bestD {
				best, bestD = op.Path, d
			}
		}
	}
	msg := fmt.Sprintf("there is no tool %s on this exchange", arg)
	if best != "" && bestD <= max(2, len(short)/3) {
		msg += "; did you mean " + best + "?"
	}
	return &axp.Error{Code: axp.CodeNotFound, Message: msg, Hint: "GET /paid lists the tools with their prices (axp call find_paid_tools)"}
}

// findOp is the paid tool of the catalog at path ({name} matches one segment), or nil.
func findOp(path string) *contract.Op {
	segs := strings.Split(path, "/")
	for _, op := range contract.Ops {
		if op.Access != contract.Paid {
			continue
		}
		tmpl := strings.Split(op.Path, "/")
		if len(tmpl) != len(segs) {
			continue
		}
		match := true
		for i := range tmpl {
			if tmpl[i] != segs[i] && !(strings.HasPrefix(tmpl[i], "{") && segs[i] != "") {
				match = false
				break
			}
		}
		if match {
			return op
		}
	}
	return nil
}

// send sends the request, with payment as the PAYMENT-SIGNATURE header when it is not "".
func send(ctx context.Context, cl *client.Client, r *request, payment string) (*client.Response, error) {
	h := http.Header{"Accept": {"application/json"}}
	if payment != "" {
		h.Set(x402.HeaderSignature, payment)
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	return cl.Raw(ctx, r.method, r.path, body, h)
}

// demanded reads the x402 v2 terms of a 402 answer (its PAYMENT-REQUIRED header).
func demanded(resp *client.Response) (*x402.Required, error) {
	h := resp.Header.Get(x402.HeaderRequired)
	raw, err := base64.StdEncoding.DecodeString(h)
	var r x402.Required
	if h == "" || err != nil || json.Unmarshal(raw, &r) != nil || r.X402Version != 2 {
		return nil, &axp.Error{Code: axp.CodePaymentRequired, Message: "the exchange asks for a payment without x402 v2 terms (no readable PAYMENT-REQUIRED header): " + refusal(resp),
			Hint: "nothing was signed; GET /paid lists the tools and how they are paid"}
	}
	return &r, nil
}

// choose picks the terms to pay: the exact scheme on the chain /api/pricing names, in its
// stablecoin, to its deposit address. It returns them with the price in micro-USD (rounded up).
func choose(r *x402.Required, pr *axp.PricingInfo, path string) (x402.Requirements, axp.Money, error) {
	ch := pr.Chain
	network := x402.Network(ch.ChainID)
	var offered []string
	for _, acc := range r.Accepts {
		if acc.Scheme != x402.SchemeExact || acc.Network != network {
			offered = append(offered, acc.Scheme+" on "+acc.Network)
			continue
		}
		hint := "ask the exchange's operator; pay nothing until the terms and /api/pricing agree"
		if !strings.EqualFold(acc.Asset, ch.TokenAddress) {
			return acc, 0, axp.Conflict(fmt.Sprintf("the terms of %s ask for the asset %s, but the exchange's /api/pricing names the stablecoin %s", path, acc.Asset, ch.TokenAddress), hint)
		}
		if !strings.EqualFold(acc.PayTo, ch.DepositAddress) {
			return acc, 0, axp.Conflict(fmt.Sprintf("the terms of %s pay %s, but the exchange's /api/pricing names its deposit address %s", path, acc.PayTo, ch.DepositAddress), hint)
		}
		units, ok := new(big.Int).SetString(acc.Amount, 10)
		if !ok || units.Sign() <= 0 {
			return acc, 0, axp.Conflict(fmt.Sprintf("the terms of %s ask for %q units: not an amount", path, acc.Amount), hint)
		}
		// micro-USD = units / 10^(decimals-6), rounded up: the cap never lets a fraction through.
		per := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(ch.TokenDecimals)-6), nil)
		if ch.TokenDecimals < 6 {
			per = big.NewInt(1)
			units = new(big.Int).Mul(units, new(big.Int).Exp(big.NewInt(10), big.NewInt(6-int64(ch.TokenDecimals)), nil))
		}
		micro, rem := new(big.Int).QuoRem(units, per, new(big.Int))
		if rem.Sign() > 0 {
			micro.Add(micro, big.NewInt(1))
		}
		if !micro.IsInt64() {
			return acc, 0, axp.Conflict(fmt.Sprintf("the terms of %s ask for %s units: far beyond any call's price", path, acc.Amount), hint)
		}
		return acc, axp.Money(micro.Int64()), nil
	}
	return x402.Requirements{}, 0, axp.Conflict(fmt.Sprintf("the terms of %s offer %s, but the exchange's /api/pricing names chain %d (%s, scheme exact)",
		path, strings.Join(offered, ", "), ch.ChainID, network), "ask the exchange's operator; nothing was signed")
}

// refusal is the exchange's reason in a 402 or error answer: the terms' error, else the body's
// message.
func refusal(resp *client.Response) string {
	if raw, err := base64.StdEncoding.DecodeString(resp.Header.Get(x402.HeaderRequired)); err == nil {
		var r x402.Required
		if json.Unmarshal(raw, &r) == nil && r.Error != "" {
			return r.Error
		}
	}
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(resp.Body, &body) == nil && len(body.Error) > 0 {
		var s string
		if json.Unmarshal(body.Error, &s) == nil && s != "" {
			return s
		}
		var e protocol.Error
		if json.Unmarshal(body.Error, &e) == nil && e.Message != "" {
			return e.Message
		}
	}
	return fmt.Sprintf("status %d", resp.Status)
}

// paymentOf reads what a 402 answer says became of a payment already used (its "payment").
func paymentOf(resp *client.Response) (axp.PaidCallState, bool) {
	var body struct {
		Payment *axp.PaidCallState `json:"payment"`
	}
	if json.Unmarshal(resp.Body, &body) != nil || body.Payment == nil {
		return axp.PaidCallState{}, false
	}
	return *body.Payment, true
}

func orUnknown(txHash string) string {
	if txHash == "" {
		return "its transaction is not known yet"
	}
	return "transaction " + txHash
}

// settlement reads the PAYMENT-RESPONSE header of a paid answer.
func settlement(resp *client.Response) (x402.Settlement, bool) {
	var s x402.Settlement
	raw, err := base64.StdEncoding.DecodeString(resp.Header.Get(x402.HeaderResponse))
	if err != nil || json.Unmarshal(raw, &s) != nil || s.Transaction == "" {
		return s, false
	}
	return s, true
}

// printAnswer prints the tool's answer: as the export flags ask, else indented.
func printAnswer(o *CallOptions, body []byte) error {
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, body)
	}
	var buf bytes.Buffer
	if err := jsonpretty.Format(&buf, bytes.NewReader(body), "  ", o.IO.ColorEnabled()); err != nil {
		_, err := o.IO.Out.Write(body) // not JSON: as it came
		return err
	}
	_, err := o.IO.Out.Write(buf.Bytes())
	return err
}

// nothingSigned adds to an error met before the payment was signed that nothing was paid.
func nothingSigned(err error) error {
	if err == nil || errors.Is(err, cmdutil.ErrCancelled) {
		return err
	}
	var e *axp.Error
	if errors.As(err, &e) {
		c := *e
		c.Message += " (nothing was signed)"
		return &c
	}
	return fmt.Errorf("%w (nothing was signed)", err)
}

func pathOnly(p string) string {
	path, _, _ := strings.Cut(p, "?")
	return path
}

// complete completes the paths of the catalog's paid tools.
func complete(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, op := range contract.Ops {
		if op.Access != contract.Paid || !strings.HasPrefix(op.Path, "/paid/") {
			continue
		}
		p := op.Path
		if i := strings.Index(p, "{"); i >= 0 {
			p = p[:i]
		}
		if strings.HasPrefix(p, prefix) {
			out = append(out, p+"\t"+op.Summary)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
