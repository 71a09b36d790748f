// Package chain is the exchange's adapter to one EVM chain and one ERC-20 stablecoin on it: it reads
// transfers to the deposit address (the evm verifier and the watcher) and signs and sends transfers
// from the hot wallet (the evm payout rail). It speaks JSON-RPC through go-ethereum; the daemon decides
// what to do with what it reads, and nothing here touches the store.
//
// Amounts cross this package's boundary twice: token units (big integers, the contract's decimals) on
// the chain side and micro-USD (axp.Money) on the exchange's side. A token with 6 decimals has one unit
// per micro-USD; one with more decimals has 10^(decimals-6) units per micro-USD, and a transfer's
// amount is rounded down to the micro-USD (a buyer never gets credit for a fraction they did not send).
// Tokens with fewer than 6 decimals are refused: the exchange's money could not be expressed in them.
package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/outbound"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// Config names the chain, the token and the deposit address.
type Config struct {
	RPCURL  string
	ChainID uint64
	Token   string
	// Decimals, when not zero, must match the token's own (checked at start).
	Decimals uint8
	Deposit  string
	// Confirmations a block needs before a transfer in it funds a task or a payout counts as
	// confirmed (1: the block that includes it is enough).
	Confirmations uint64
}

// AuthorizationUsedTopic is the topic of the EIP-3009 AuthorizationUsed(address,bytes32) event.
var AuthorizationUsedTopic = crypto.Keccak256Hash([]byte("AuthorizationUsed(address,bytes32)"))

// TransferTopic is the topic of the ERC-20 Transfer(address,address,uint256) event.
var TransferTopic = common.HexToHash("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")

// erc20ABI is the part of ERC-20 the exchange calls.
const erc20ABI = `[
{"type":"function","name":"decimals","stateMutability":"view","inputs":[],"outputs":[{"type":"uint8"}]},
{"type":"function","name":"symbol","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
{"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"owner","type":"address"}],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"transfer","stateMutability":"nonpayable","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"name","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
{"type":"function","name":"version","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
{"type":"function","name":"authorizationState","stateMutability":"view","inputs":[{"name":"authorizer","type":"address"},{"name":"nonce","type":"bytes32"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"transferWithAuthorization","stateMutability":"nonpayable","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"},{"name":"v","type":"uint8"},{"name":"r","type":"bytes32"},{"name":"s","type":"bytes32"}],"outputs":[]}
]`

var erc20 = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(erc20ABI))
	if err != nil {
		panic(err)
	}
	return a
}()

// Info is what the chain said at start.
type Info struct {
	ChainID  uint64
	Symbol   string
	Decimals uint8
	Head     uint64
}

// Transfer is one ERC-20 Transfer log of the token.
type Transfer struct {
	TxHash    string // lower-case 0x hex
	LogIndex  uint
	Block     uint64
	BlockHash string // lower-case 0x hex
	BlockTime time.Time
	From, To  string // EIP-55 checksummed
	Units     *big.Int
	// Amount is Units in micro-USD, rounded down.
	Amount axp.Money
}

// Receipt is what the chain knows of one transaction.
type Receipt struct {
	// Found is false while the transaction is not in a block (pending, dropped or unknown).
	Found bool
	// Success is the receipt's status (false: reverted).
	Success       bool
	Block         uint64
	BlockHash     string // lower-case 0x hex
	BlockTime     time.Time
	Confirmations uint64
	// Transfers are the token's Transfer logs of the transaction.
	Transfers []Transfer
	// Authorizations are the token's AuthorizationUsed logs (EIP-3009): whose signed
	// authorization, under which nonce, the transaction used.
	Authorizations []AuthorizationUse
	// Logs are all the transaction's logs, of any contract (the escrow's events among them).
	Logs []types.Log
}

// AuthorizationUse is an EIP-3009 AuthorizationUsed log: the authorizer and the nonce it signed.
type AuthorizationUse struct {
	Authorizer string // checksummed
	Nonce      string // lower-case 0x hex, 32 bytes
}

// Client reads one chain and one token.
type Client struct {
	cfg     Config
	ec      *ethclient.Client
	token   common.Address
	deposit common.Address
	// per is the number of token units in one micro-USD.
	per *big.Int

	mu    sync.Mutex
	times map[uint64]time.Time // block timestamps already read
	head  atomic.Uint64        // the newest block number read
}

// Dial connects to the node and checks the configuration against the chain: the chain id, the
// token's decimals (and symbol). A mismatch is an error naming the setting to fix.
func Dial(ctx context.Context, cfg Config) (*Client, Info, error) {
	var info Info
	if cfg.Confirmations == 0 {
		cfg.Confirmations = 1
	}
	if !common.IsHexAddress(cfg.Token) {
		return nil, info, fmt.Errorf("token_address %q is not an EVM address", cfg.Token)
	}
	if cfg.Deposit != "" && !common.IsHexAddress(cfg.Deposit) {
		return nil, info, fmt.Errorf("deposit_address %q is not an EVM address", cfg.Deposit)
	}
	// The operator's own node: any address, but never through a proxy from the environment.
	rc, err := rpc.DialOptions(ctx, cfg.RPCURL, rpc.WithHTTPClient(outbound.NewClient(outbound.NewTransport(outbound.Guard{AllowPrivate: true}), 0)))
	if err != nil {
		return nil, info, fmt.Errorf("chain_rpc_url %s: %w", cfg.RPCURL, err)
	}
	ec := ethclient.NewClient(rc)
	c := &Client{cfg: cfg, ec: ec, token: common.HexToAddress(cfg.Token), deposit: common.HexToAddress(cfg.Deposit),
		times: map[uint64]time.Time{}}
	id, err := ec.ChainID(ctx)
	if err != nil {
		ec.Close()
		return nil, info, fmt.Errorf("chain_rpc_url %s does not answer eth_chainId: %w", cfg.RPCURL, err)
	}
	info.ChainID = id.Uint64()
	if cfg.ChainID != 0 && info.ChainID != cfg.ChainID {
		ec.Close()
		return nil, info, fmt.Errorf("chain_id is %d but the node at chain_rpc_url is on chain %d", cfg.ChainID, info.ChainID)
	}
	c.cfg.ChainID = info.ChainID
	var dec uint8
	if err := c.call(ctx, "decimals", &dec); err != nil {
		ec.Close()
		return nil, info, fmt.Errorf("token_address %s does not answer decimals() on chain %d (is it the stablecoin's contract?): %w", c.token.Hex(), info.ChainID, err)
	}
	if cfg.Decimals != 0 && dec != cfg.Decimals {
		ec.Close()
		return nil, info, fmt.Errorf("token_decimals is %d but the token at %s has %d", cfg.Decimals, c.token.Hex(), dec)
	}
	if dec < 6 {
		ec.Close()
		return nil, info, fmt.Errorf("the token at %s has %d decimals; the exchange needs at least 6 (micro-USD)", c.token.Hex(), dec)
	}
	info.Decimals, c.cfg.Decimals = dec, dec
	c.per = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec-6)), nil)
	_ = c.call(ctx, "symbol", &info.Symbol) // optional in ERC-20
	if info.Head, err = ec.BlockNumber(ctx); err != nil {
		ec.Close()
		return nil, info, fmt.Errorf("chain_rpc_url %s does not answer eth_blockNumber: %w", cfg.RPCURL, err)
	}
	c.head.Store(info.Head)
	return c, info, nil
}

// Close ends the connection; a nil Client has none.
func (c *Client) Close() {
	if c != nil {
		c.ec.Close()
	}
}

// ChainID is the chain's id.
func (c *Client) ChainID() uint64 { return c.cfg.ChainID }

// Token is the token contract, checksummed.
func (c *Client) Token() string { return c.token.Hex() }

// Deposit is the deposit address, checksummed.
func (c *Client) Deposit() string { return c.deposit.Hex() }

// Confirmations is the number of confirmations that make a transfer final for the exchange.
func (c *Client) Confirmations() uint64 { return c.cfg.Confirmations }

// Decimals is the token's.
func (c *Client) Decimals() uint8 { return c.cfg.Decimals }

// Units converts micro-USD into token units.
func (c *Client) Units(m axp.Money) *big.Int { return new(big.Int).Mul(big.NewInt(int64(m)), c.per) }

// Money converts token units into micro-USD, rounding down; amounts beyond what axp.Money holds
// saturate (no real transfer is that large, and saturating never credits more than was sent to a
// task: such a transfer is far above any payable amount).
func (c *Client) Money(units *big.Int) axp.Money {
	q := new(big.Int).Quo(units, c.per)
	if !q.IsInt64() {
		return axp.Money(1<<63 - 1)
	}
	return axp.Money(q.Int64())
}

// PaymentURI is the EIP-681 URI of a transfer of amount to the deposit address, which wallets turn
// into a prefilled payment.
func (c *Client) PaymentURI(amount axp.Money) string {
	return PaymentURI(c.token.Hex(), c.cfg.ChainID, c.deposit.Hex(), c.Units(amount))
}

// PaymentURI builds an EIP-681 ERC-20 transfer URI:
// ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<units>.
func PaymentURI(token string, chainID uint64, to string, units *big.Int) string {
	return fmt.Sprintf("ethereum:%s@%d/transfer?address=%s&uint256=%s", token, chainID, to, units.String())
}

// Head is the latest block number.
func (c *Client) Head(ctx context.Context) (uint64, error) {
	n, err := c.ec.BlockNumber(ctx)
	if err == nil {
		c.head.Store(n)
	}
	return n, err
}

// LastHead is the newest block number read (at start, and by every Head since): the chain's clock
// for what was mined before something happened, with no call to the node.
func (c *Client) LastHead() uint64 { return c.head.Load() }

// Safe is the newest block with the configured confirmations (0 while the chain is shorter).
func (c *Client) Safe(ctx context.Context) (uint64, error) {
	head, err := c.Head(ctx)
	if err != nil {
		return 0, err
	}
	if head+1 < c.cfg.Confirmations {
		return 0, nil
	}
	return head + 1 - c.cfg.Confirmations, nil
}

// TransfersTo lists the token's transfers to addr in blocks from..to (inclusive), oldest first.
func (c *Client) TransfersTo(ctx context.Context, addr string, from, to uint64) ([]Transfer, error) {
	q := ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to),
		Addresses: []common.Address{c.token},
		Topics:    [][]common.Hash{{TransferTopic}, nil, {common.BytesToHash(common.HexToAddress(addr).Bytes())}}}
	logs, err := c.ec.FilterLogs(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]Transfer, 0, len(logs))
	for i := range logs {
		tr, ok := c.transfer(&logs[i])
		if !ok {
			continue
		}
		if tr.BlockTime, err = c.blockTime(ctx, tr.Block); err != nil {
			return nil, err
		}
		out = append(out, tr)
	}
	return out, nil
}

// transfer decodes a Transfer log of the token; ok is false for anything else.
func (c *Client) transfer(l *types.Log) (Transfer, bool) {
	if l.Removed || l.Address != c.token || len(l.Topics) != 3 || l.Topics[0] != TransferTopic || len(l.Data) != 32 {
		return Transfer{}, false
	}
	units := new(big.Int).SetBytes(l.Data)
	return Transfer{TxHash: strings.ToLower(l.TxHash.Hex()), LogIndex: l.Index, Block: l.BlockNumber, BlockHash: strings.ToLower(l.BlockHash.Hex()),
		From: common.BytesToAddress(l.Topics[1].Bytes()).Hex(), To: common.BytesToAddress(l.Topics[2].Bytes()).Hex(),
		Units: units, Amount: c.Money(units)}, true
}

func (c *Client) blockTime(ctx context.Context, n uint64) (time.Time, error) {
	c.mu.Lock()
	t, ok := c.times[n]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	h, err := c.ec.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if err != nil {
		return time.Time{}, err
	}
	t = time.Unix(int64(h.Time), 0).UTC()
	c.mu.Lock()
	if len(c.times) > 4096 {
		clear(c.times)
	}
	c.times[n] = t
	c.mu.Unlock()
	return t, nil
}

// Receipt reads a transaction's receipt, its token transfers and its confirmations.
func (c *Client) Receipt(ctx context.Context, txHash string) (Receipt, error) {
	var r Receipt
	rc, err := c.ec.TransactionReceipt(ctx, common.HexToHash(txHash))
	if errors.Is(err, ethereum.NotFound) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	head, err := c.Head(ctx)
	if err != nil {
		return r, err
	}
	r.Found, r.Success, r.Block = true, rc.Status == types.ReceiptStatusSuccessful, rc.BlockNumber.Uint64()
	r.BlockHash = strings.ToLower(rc.BlockHash.Hex())
	if head >= r.Block {
		r.Confirmations = head - r.Block + 1
	}
	if r.BlockTime, err = c.blockTime(ctx, r.Block); err != nil {
		return r, err
	}
	for _, l := range rc.Logs {
		r.Logs = append(r.Logs, *l)
		if tr, ok := c.transfer(l); ok {
			tr.BlockTime = r.BlockTime
			r.Transfers = append(r.Transfers, tr)
		}
		if !l.Removed && l.Address == c.token && len(l.Topics) == 3 && l.Topics[0] == AuthorizationUsedTopic {
			r.Authorizations = append(r.Authorizations, AuthorizationUse{Authorizer: common.BytesToAddress(l.Topics[1].Bytes()).Hex(),
				Nonce: strings.ToLower(l.Topics[2].Hex())})
		}
	}
	return r, nil
}

// Eth is the client's connection to the node, for the contracts of other packages (the escrow) to
// read through.
func (c *Client) Eth() *ethclient.Client { return c.ec }

// Known reports whether the node knows the transaction, pending or mined.
func (c *Client) Known(ctx context.Context, txHash string) (bool, error) {
	_, _, err := c.ec.TransactionByHash(ctx, common.HexToHash(txHash))
	if errors.Is(err, ethereum.NotFound) {
		return false, nil
	}
	return err == nil, err
}

// BlockHash is the hash of the canonical block n (lower-case 0x hex); ok is false when the chain has
// no block n (it is shorter, as after a reorg to a shorter chain).
func (c *Client) BlockHash(ctx context.Context, n uint64) (hash string, ok bool, err error) {
	h, err := c.ec.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if errors.Is(err, ethereum.NotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return strings.ToLower(h.Hash().Hex()), true, nil
}

// BalanceOf is addr's token balance in units.
func (c *Client) BalanceOf(ctx context.Context, addr string) (*big.Int, error) {
	var out *big.Int
	if err := c.call(ctx, "balanceOf", &out, common.HexToAddress(addr)); err != nil {
		return nil, err
	}
	return out, nil
}

// call runs a view function of the token and unpacks its single result into out.
func (c *Client) call(ctx context.Context, method string, out any, args ...any) error {
	data, err := erc20.Pack(method, args...)
	if err != nil {
		return err
	}
	raw, err := c.ec.CallContract(ctx, ethereum.CallMsg{To: &c.token, Data: data}, nil)
	if err != nil {
		return err
	}
	if len(raw) == 0 {
		return fmt.Errorf("no contract answered %s() at %s", method, c.token.Hex())
	}
	vals, err := erc20.Unpack(method, raw)
	if err != nil {
		return err
	}
	if len(vals) != 1 {
		return fmt.Errorf("%s() answered %d values", method, len(vals))
	}
	switch p := out.(type) {
	case *uint8:
		v, ok := vals[0].(uint8)
		if !ok {
			return fmt.Errorf("%s() answered %T", method, vals[0])
		}
		*p = v
	case *string:
		v, ok := vals[0].(string)
		if !ok {
			return fmt.Errorf("%s() answered %T", method, vals[0])
		}
		*p = v
	case *bool:
		v, ok := vals[0].(bool)
		if !ok {
			return fmt.Errorf("%s() answered %T", method, vals[0])
		}
		*p = v
	case **big.Int:
		v, ok := vals[0].(*big.Int)
		if !ok {
			return fmt.Errorf("%s() answered %T", method, vals[0])
		}
		*p = v
	default:
		return fmt.Errorf("cannot unpack into %T", out)
	}
	return nil
}

// IsAddress reports whether s is a 0x-prefixed 40-hex-digit address whose mixed case, if any, is a
// valid EIP-55 checksum.
func IsAddress(s string) bool {
	if len(s) != 42 || !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") {
		return false
	}
	body := s[2:]
	if strings.ToLower(body) == body || strings.ToUpper(body) == body {
		return true
	}
	return common.HexToAddress(s).Hex() == s
}

// Checksummed returns addr in its EIP-55 form.
func Checksummed(addr string) string { return common.HexToAddress(addr).Hex() }
