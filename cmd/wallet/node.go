package wallet

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// Pricing reads the exchange's GET /api/pricing and refuses an exchange that names no chain: there
// is nothing to pay on.
func Pricing(ctx context.Context, f *cmdutil.Factory) (*axp.PricingInfo, error) {
	p, _, err := client.Call(ctx, f.Client(""), contract.GetPricing, contract.NoInput{})
	if err != nil {
		return nil, err
	}
	if p.Chain == nil || p.Chain.ChainID == 0 || p.Chain.TokenAddress == "" {
		return nil, &axp.Error{Code: axp.CodeUnavailable, Message: "the exchange at " + f.ExchangeURL() + " names no chain in /api/pricing: it takes no payments on chain",
			Hint: "use an exchange with a chain (or one run with axp serve --test-mode), set with --exchange or AXP_EXCHANGE"}
	}
	return p, nil
}

// rpcURL is the JSON-RPC node to use: --rpc-url, else $AXP_RPC_URL, else the test chain the
// exchange publishes (test mode only).
func rpcURL(f *cmdutil.Factory, flag string, p *axp.PricingInfo) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if env := getenv(f, "AXP_RPC_URL"); env != "" {
		return env, nil
	}
	if p.Chain.RPCURL != "" {
		return p.Chain.RPCURL, nil
	}
	return "", &axp.Error{Code: axp.CodeInvalidInput, Field: "--rpc-url",
		Message: fmt.Sprintf("no node of chain %d to talk to: the exchange publishes one only in test mode", p.Chain.ChainID),
		Hint:    fmt.Sprintf("pass --rpc-url (or set AXP_RPC_URL) with the JSON-RPC URL of a node of chain %d (your own node or a provider's)", p.Chain.ChainID)}
}

// erc20 is the part of ERC-20 the wallet calls.
var erc20 = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[
{"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"owner","type":"address"}],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"transfer","stateMutability":"nonpayable","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"type":"bool"}]}
]`))
	if err != nil {
		panic(err)
	}
	return a
}()

// node is a JSON-RPC node of the exchange's chain, with the exchange's token on it.
type node struct {
	ec     *ethclient.Client
	url    string
	id     uint64
	token  common.Address
	dec    uint8
	symbol string
	test   bool
}

// callTimeout bounds each call to the node.
const callTimeout = 20 * time.Second

// dial connects to the node at url and checks that it is on the chain the exchange names (flag
// says --rpc-url named it).
func dial(ctx context.Context, url string, flag bool, p *axp.PricingInfo) (*node, error) {
	ch := p.Chain
	rc, err := rpc.DialContext(ctx, url)
	if err != nil {
		return nil, unreachableNode(url, err)
	}
	ec := ethclient.NewClient(rc)
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	id, err := ec.ChainID(cctx)
	if err != nil {
		ec.Close()
		return nil, unreachableNode(url, err)
	}
	if id.Uint64() != ch.ChainID {
		ec.Close()
		msg := fmt.Sprintf("the node at %s is on chain %s, but the exchange takes payments on chain %d", url, id, ch.ChainID)
		if flag {
			return nil, &axp.Error{Code: axp.CodeInvalidInput, Field: "--rpc-url", Message: msg,
				Hint: fmt.Sprintf("point --rpc-url at a node of chain %d", ch.ChainID)}
		}
		return nil, &axp.Error{Code: axp.CodeConflict, Message: msg + " (the node the exchange publishes)",
			Hint: fmt.Sprintf("pass --rpc-url with a node of chain %d, and tell the operator", ch.ChainID)}
	}
	symbol := ch.TokenSymbol
	if symbol == "" {
		symbol = "the token"
	}
	return &node{ec: ec, url: url, id: ch.ChainID, token: common.HexToAddress(ch.TokenAddress), dec: ch.TokenDecimals,
		symbol: symbol, test: p.TestMode}, nil
}

func unreachableNode(url string, err error) error {
	return &axp.Error{Code: axp.CodeUnavailable, Message: fmt.Sprintf("cannot reach the chain's node at %s: %v", url, err),
		Hint: "check --rpc-url (or, in test mode, that the exchange's test chain runs)"}
}

func (n *node) close() { n.ec.Close() }

// tokenBalance is addr's balance of the token, in its units.
func (n *node) tokenBalance(ctx context.Context, addr common.Address) (*big.Int, error) {
	data, err := erc20.Pack("balanceOf", addr)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	raw, err := n.ec.CallContract(cctx, ethereum.CallMsg{To: &n.token, Data: data}, nil)
	if err != nil {
		return nil, fmt.Errorf("read the %s balance of %s: %w", n.symbol, addr.Hex(), err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("no token contract answers at %s on chain %d (the exchange's token_address)", n.token.Hex(), n.id)
	}
	return new(big.Int).SetBytes(raw), nil
}

// gasBalance is addr's balance of the chain's own coin (gas), in wei.
func (n *node) gasBalance(ctx context.Context, addr common.Address) (*big.Int, error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	b, err := n.ec.BalanceAt(cctx, addr, nil)
	if err != nil {
		return nil, fmt.Errorf("read the gas balance of %s: %w", addr.Hex(), err)
	}
	return b, nil
}

// usd is units of the token in micro-USD, rounded down.
func (n *node) usd(units *big.Int) axp.Money {
	q := new(big.Int).Set(units)
	if n.dec >= 6 {
		q.Quo(q, pow10(int(n.dec)-6))
	} else {
		q.Mul(q, pow10(6-int(n.dec)))
	}
	if !q.IsInt64() {
		return axp.Money(1<<63 - 1)
	}
	return axp.Money(q.Int64())
}

// units is m in the token's units (exchanges take tokens of 6 decimals or more).
func (n *node) units(m axp.Money) *big.Int {
	u := big.NewInt(int64(m))
	if n.dec >= 6 {
		return u.Mul(u, pow10(int(n.dec)-6))
	}
	return u.Quo(u, pow10(6-int(n.dec)))
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// ETH renders wei as ETH with at most 6 decimals, rounded down.
func ETH(wei *big.Int) string {
	return string(axp.FormatRat(new(big.Rat).SetFrac(wei, pow10(18)), 6, false))
}

// fundHint says how to get more money into addr.
func (n *node) fundHint(addr string) string {
	if n.test {
		return "this exchange runs in test mode: get test money and gas with `axp wallet fund`"
	}
	return fmt.Sprintf("send %s and ETH for gas on chain %d to %s, then try again", n.symbol, n.id, addr)
}

// call is a transaction the wallet signs and pays the gas of itself: data to a contract, priced.
type call struct {
	to     common.Address
	data   []byte
	gas    uint64
	tip    *big.Int
	feeCap *big.Int
}

// price sets c's gas to estimate and a fifth more, its tip to the node's suggestion and its fee cap
// to that tip plus twice head's base fee.
func (n *node) price(ctx context.Context, c *call, estimate uint64, head *types.Header) error {
	c.gas = estimate + estimate/5
	tip, err := n.ec.SuggestGasTipCap(ctx)
	if err != nil {
		return fmt.Errorf("read the gas tip: %w", err)
	}
	base := head.BaseFee
	if base == nil {
		base = new(big.Int)
	}
	c.tip, c.feeCap = tip, new(big.Int).Add(tip, new(big.Int).Mul(big.NewInt(2), base))
	return nil
}

// maxCost is the most c's gas can cost, in wei.
func (c *call) maxCost() *big.Int { return new(big.Int).Mul(new(big.Int).SetUint64(c.gas), c.feeCap) }

// send signs c with key under from's next nonce and broadcasts it. An error the node answered
// means nothing was sent; one it did not answer may hide a transaction that left, and says so
// with hint(its hash). what names the call in errors ("transfer", "reclaim").
func (n *node) send(ctx context.Context, key *ecdsa.PrivateKey, from common.Address, c *call, what string, hint func(hash string) string) (common.Hash, error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	nonce, err := n.ec.PendingNonceAt(cctx, from)
	if err != nil {
		return common.Hash{}, nothingSent(fmt.Errorf("read the wallet's nonce: %w", err))
	}
	id := new(big.Int).SetUint64(n.id)
	signed, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: c.tip, GasFeeCap: c.feeCap, Gas: c.gas,
		To: &c.to, Value: new(big.Int), Data: c.data}), types.LatestSignerForChainID(id), key)
	if err != nil {
		return common.Hash{}, nothingSent(err)
	}
	err = n.ec.SendTransaction(cctx, signed)
	if err == nil {
		return signed.Hash(), nil
	}
	if _, _, kerr := n.ec.TransactionByHash(cctx, signed.Hash()); kerr == nil {
		return signed.Hash(), nil // it arrived after all
	}
	var refused rpc.Error
	if errors.As(err, &refused) {
		return common.Hash{}, nothingSent(fmt.Errorf("the node refused the %s: %w", what, err))
	}
	hash := strings.ToLower(signed.Hash().Hex())
	return common.Hash{}, &axp.Error{Code: axp.CodeUnavailable, Message: fmt.Sprintf("the node did not answer the %s (%v): it may have been sent as %s", what, err, hash),
		Hint: hint(hash)}
}
