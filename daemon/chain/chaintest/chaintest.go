// Package chaintest runs a real local EVM chain for tests: anvil (installed by scripts/chain-tools
// from the pinned npm package @foundry-rs/anvil) with the test stablecoin TestUSD deployed on it
// (package testusd: 6 decimals, EIP-3009). Test wallets are fresh keys funded with anvil_setBalance.
package chaintest

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain/testusd"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// ID is the chain id of the test chain.
const ID = 31337

// Chain is a running anvil with TestUSD deployed.
type Chain struct {
	URL   string
	ID    uint64 // the chain id
	Token string // TestUSD's address, checksummed
	t     testing.TB
	rpc   *rpc.Client
	ec    *ethclient.Client
	abi   abi.ABI
	owner *ecdsa.PrivateKey
	sent  sync.Map // tx hash -> signed transaction, for Resend
}

// Anvil returns the path of the anvil binary: $AXP_ANVIL, or the one scripts/chain-tools installed.
// ok is false when there is none.
func Anvil() (string, bool) {
	if p := os.Getenv("AXP_ANVIL"); p != "" {
		return p, true
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	p := filepath.Join(root, "tools", "chain", "node_modules", "@foundry-rs", "anvil-"+runtime.GOOS+"-"+runtime.GOARCH, "bin", "anvil")
	if _, err := os.Stat(p); err != nil {
		return "", false
	}
	return p, true
}

// Start runs anvil on a free loopback port for the test and deploys TestUSD. Without anvil the test
// is skipped, or fails when AXP_REQUIRE_CHAIN=1 (make test sets it after installing anvil); under
// go test -short it is skipped.
func Start(t testing.TB) *Chain {
	t.Helper()
	return StartID(t, ID)
}

// StartID is Start with another chain id (84532 is a chain x402 v1 clients know by name).
func StartID(t testing.TB, id uint64) *Chain {
	t.Helper()
	if testing.Short() {
		t.Skip("anvil chain test: make test runs it")
	}
	bin, ok := Anvil()
	if !ok {
		msg := "anvil is not installed: run scripts/chain-tools (make test does)"
		if os.Getenv("AXP_REQUIRE_CHAIN") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--chain-id", fmt.Sprint(id),
		"--accounts", "1", "--silent")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start anvil: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	c := &Chain{URL: fmt.Sprintf("http://127.0.0.1:%d", port), ID: id, t: t}
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c.rpc, err = rpc.DialContext(ctx, c.URL); err == nil {
			c.ec = ethclient.NewClient(c.rpc)
			if _, err = c.ec.ChainID(ctx); err == nil {
				break
			}
		}
		select {
		case <-exited:
			t.Fatalf("anvil exited: %s", stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("anvil did not answer at %s: %v\n%s", c.URL, err, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(c.ec.Close)
	c.abi = testusd.ABI()
	c.owner = c.NewKey()
	c.Token = c.Deploy()
	return c
}

// NewKey returns a fresh key whose address holds 100 ETH for gas.
func (c *Chain) NewKey() *ecdsa.PrivateKey {
	c.t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		c.t.Fatal(err)
	}
	c.SetETH(Addr(k), 100)
	return k
}

// SetETH sets addr's balance of the chain's own coin (for gas) to eth whole ETH.
func (c *Chain) SetETH(addr string, eth int64) {
	c.t.Helper()
	wei := new(big.Int).Mul(big.NewInt(eth), big.NewInt(1e18))
	if err := c.rpc.Call(nil, "anvil_setBalance", addr, hexutil.EncodeBig(wei)); err != nil {
		c.t.Fatalf("anvil_setBalance: %v", err)
	}
}

// Addr is a key's address, checksummed.
func Addr(k *ecdsa.PrivateKey) string { return crypto.PubkeyToAddress(k.PublicKey).Hex() }

// KeyHex is a key as hex, as a payout key file holds it.
func KeyHex(k *ecdsa.PrivateKey) string { return hex.EncodeToString(crypto.FromECDSA(k)) }

// Deploy deploys another TestUSD (a second token, for transfers the exchange must not count) and
// returns its address.
func (c *Chain) Deploy() string {
	c.t.Helper()
	r := c.send(c.owner, nil, testusd.Code())
	return r.ContractAddress.Hex()
}

// Mint creates amount micro-USD of token for to.
func (c *Chain) Mint(token, to string, amount axp.Money) {
	c.t.Helper()
	c.sendCall(c.owner, token, "mint", common.HexToAddress(to), big.NewInt(int64(amount)))
}

// Transfer sends amount of token from the key's address to to and returns the mined transaction's
// hash (lower-case).
func (c *Chain) Transfer(from *ecdsa.PrivateKey, token, to string, amount axp.Money) string {
	c.t.Helper()
	r := c.sendCall(from, token, "transfer", common.HexToAddress(to), big.NewInt(int64(amount)))
	return strings.ToLower(r.TxHash.Hex())
}

// TransferPending sends a transfer of amount of token (a fixed gas limit) and returns its hash at
// once, without waiting for a block (with automine off it waits in the pool).
func (c *Chain) TransferPending(from *ecdsa.PrivateKey, token, to string, amount axp.Money) string {
	c.t.Helper()
	data, err := c.abi.Pack("transfer", common.HexToAddress(to), big.NewInt(int64(amount)))
	if err != nil {
		c.t.Fatal(err)
	}
	tok := common.HexToAddress(token)
	return strings.ToLower(c.broadcast(from, &tok, data, 100_000).Hex())
}

// Reverted sends a transfer of more than the key holds with a fixed gas limit, so it is mined and
// reverts; it returns its hash.
func (c *Chain) Reverted(from *ecdsa.PrivateKey, to string, amount axp.Money) string {
	c.t.Helper()
	data, err := c.abi.Pack("transfer", common.HexToAddress(to), big.NewInt(int64(amount)))
	if err != nil {
		c.t.Fatal(err)
	}
	tok := common.HexToAddress(c.Token)
	r := c.sendTx(from, &tok, data, 100_000)
	if r.Status != types.ReceiptStatusFailed {
		c.t.Fatalf("the transfer did not revert")
	}
	return strings.ToLower(r.TxHash.Hex())
}

// Call sends a transaction calling method of token with args from the key's address (a fixed gas
// limit, so a call that reverts is mined too) and reports whether it succeeded.
func (c *Chain) Call(from *ecdsa.PrivateKey, token, method string, args ...any) bool {
	c.t.Helper()
	data, err := c.abi.Pack(method, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	tok := common.HexToAddress(token)
	return c.sendTx(from, &tok, data, 300_000).Status == types.ReceiptStatusSuccessful
}

// Balance is addr's token balance in micro-USD.
func (c *Chain) Balance(token, addr string) axp.Money {
	c.t.Helper()
	data, _ := c.abi.Pack("balanceOf", common.HexToAddress(addr))
	tok := common.HexToAddress(token)
	out, err := c.ec.CallContract(context.Background(), ethereum.CallMsg{To: &tok, Data: data}, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return axp.Money(new(big.Int).SetBytes(out).Int64())
}

// Mine mines n empty blocks.
func (c *Chain) Mine(n int) {
	c.t.Helper()
	if err := c.rpc.Call(nil, "anvil_mine", hexutil.EncodeUint64(uint64(n))); err != nil {
		c.t.Fatalf("anvil_mine: %v", err)
	}
}

// SetAutomine turns mining of each transaction as it arrives on or off (off: transactions wait in
// the pool until Mine).
func (c *Chain) SetAutomine(on bool) {
	c.t.Helper()
	if err := c.rpc.Call(nil, "evm_setAutomine", on); err != nil {
		c.t.Fatalf("evm_setAutomine: %v", err)
	}
}

// DropTransaction removes a pending transaction from the node's pool, as a node that lost it (a
// restart, an eviction) would.
func (c *Chain) DropTransaction(txHash string) {
	c.t.Helper()
	if err := c.rpc.Call(nil, "anvil_dropTransaction", common.HexToHash(txHash)); err != nil {
		c.t.Fatalf("anvil_dropTransaction: %v", err)
	}
}

// SignTransfer signs, without sending, a transfer of amount of token from the key's address to to
// with the address's next nonce; it returns the transaction's hash (lower-case) and its bytes, for
// SendRaw. The same bytes sent again after a reorg dropped them are the same transaction.
func (c *Chain) SignTransfer(from *ecdsa.PrivateKey, token, to string, amount axp.Money) (string, []byte) {
	c.t.Helper()
	data, err := c.abi.Pack("transfer", common.HexToAddress(to), big.NewInt(int64(amount)))
	if err != nil {
		c.t.Fatal(err)
	}
	tok := common.HexToAddress(token)
	ctx := context.Background()
	gas, err := c.ec.EstimateGas(ctx, ethereum.CallMsg{From: crypto.PubkeyToAddress(from.PublicKey), To: &tok, Data: data})
	if err != nil {
		c.t.Fatalf("estimate gas: %v", err)
	}
	// The margin covers a transfer run against other state than the estimate's: a reorg may carry
	// it into blocks where the recipient held nothing, and a first deposit to an empty balance
	// costs 20,000 gas more than one to a held balance (the transfer would revert, out of gas).
	signed := c.sign(from, &tok, data, gas+gas/5+20_000)
	raw, err := signed.MarshalBinary()
	if err != nil {
		c.t.Fatal(err)
	}
	return strings.ToLower(signed.Hash().Hex()), raw
}

// SendRaw sends a signed transaction (again) and, while the chain mines each transaction as it
// arrives, waits until it is mined; it returns the transaction's hash (lower-case). A transaction
// the node still holds in its pool (anvil may put back one a revert took out) is mined from there.
func (c *Chain) SendRaw(raw []byte) string {
	c.t.Helper()
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		c.t.Fatal(err)
	}
	// Sent again until mined: a node busy with a revert or a reorg may lose a transaction it took
	// (the money model saw it twice in 62 runs under load).
	deadline := time.Now().Add(20 * time.Second)
	for {
		if err := c.ec.SendTransaction(context.Background(), tx); err != nil && !strings.Contains(err.Error(), "already") {
			c.t.Fatalf("send: %v", err)
		}
		if c.Receipt(tx.Hash().Hex()) == nil {
			c.Mine(1)
		}
		for wait := time.Now().Add(time.Second); time.Now().Before(wait); time.Sleep(20 * time.Millisecond) {
			if c.Receipt(tx.Hash().Hex()) != nil {
				return strings.ToLower(tx.Hash().Hex())
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("transaction %s not mined", tx.Hash().Hex())
		}
	}
}

// Snapshot saves the chain's state (evm_snapshot) and returns its id for Revert.
func (c *Chain) Snapshot() string {
	c.t.Helper()
	var id string
	if err := c.rpc.Call(&id, "evm_snapshot"); err != nil {
		c.t.Fatalf("evm_snapshot: %v", err)
	}
	return id
}

// Revert puts the chain back to a snapshot (evm_revert): the blocks mined since are gone, and
// their transactions with them, though anvil may keep one in its pool (DropTransaction takes it
// out). A snapshot is used once.
func (c *Chain) Revert(id string) {
	c.t.Helper()
	var ok bool
	if err := c.rpc.Call(&ok, "evm_revert", id); err != nil || !ok {
		c.t.Fatalf("evm_revert %s: %v (reverted: %v)", id, err, ok)
	}
}

// Reorg replaces the newest depth blocks by as many new ones (anvil_reorg): the chain keeps its
// height, the transactions of the replaced blocks are gone, and the signed transactions raw (from
// SignTransfer) are in the first new block instead, below the height the chain had reached.
func (c *Chain) Reorg(depth uint64, raw ...[]byte) {
	c.t.Helper()
	txs := []any{}
	for _, r := range raw {
		txs = append(txs, []any{hexutil.Encode(r), 0})
	}
	if err := c.rpc.Call(nil, "anvil_reorg", depth, txs); err != nil {
		c.t.Fatalf("anvil_reorg %d: %v", depth, err)
	}
}

// SetTime sets the chain's clock (anvil_setTime): the blocks mined from now on are stamped from t
// on. A test that moves an exchange's clock moves the chain's with it; after a Revert or a Reorg
// the chain's clock lags (anvil stamps the new blocks from the old ones' time) until it is set.
func (c *Chain) SetTime(t time.Time) {
	c.t.Helper()
	if err := c.rpc.Call(nil, "anvil_setTime", t.Unix()); err != nil {
		c.t.Fatalf("anvil_setTime: %v", err)
	}
}

// Log is one Transfer event of a token.
type Log struct {
	TxHash   string // lower-case
	LogIndex uint
	Block    uint64
	From, To string // checksummed
	Amount   axp.Money
}

// Transfers lists every Transfer event of token on the chain as it is now (the canonical chain:
// what a reorg removed is not there), oldest first.
func (c *Chain) Transfers(token string) []Log {
	c.t.Helper()
	topic := c.abi.Events["Transfer"].ID
	logs, err := c.ec.FilterLogs(context.Background(), ethereum.FilterQuery{FromBlock: new(big.Int),
		Addresses: []common.Address{common.HexToAddress(token)}, Topics: [][]common.Hash{{topic}}})
	if err != nil {
		c.t.Fatalf("eth_getLogs: %v", err)
	}
	out := make([]Log, 0, len(logs))
	for _, l := range logs {
		if len(l.Topics) != 3 || l.Removed {
			continue
		}
		out = append(out, Log{TxHash: strings.ToLower(l.TxHash.Hex()), LogIndex: l.Index, Block: l.BlockNumber,
			From: common.BytesToAddress(l.Topics[1].Bytes()).Hex(), To: common.BytesToAddress(l.Topics[2].Bytes()).Hex(),
			Amount: axp.Money(new(big.Int).SetBytes(l.Data).Int64())})
	}
	return out
}

// Head is the latest block number.
func (c *Chain) Head() uint64 {
	c.t.Helper()
	n, err := c.ec.BlockNumber(context.Background())
	if err != nil {
		c.t.Fatal(err)
	}
	return n
}

// Receipt returns a transaction's receipt, nil while it is not mined.
func (c *Chain) Receipt(txHash string) *types.Receipt {
	r, err := c.ec.TransactionReceipt(context.Background(), common.HexToHash(txHash))
	if err != nil {
		return nil
	}
	return r
}

// Known reports whether the node holds a transaction, pending or mined.
func (c *Chain) Known(txHash string) bool {
	_, _, err := c.ec.TransactionByHash(context.Background(), common.HexToHash(txHash))
	return err == nil
}

func (c *Chain) sendCall(from *ecdsa.PrivateKey, token, method string, args ...any) *types.Receipt {
	c.t.Helper()
	data, err := c.abi.Pack(method, args...)
	if err != nil {
		c.t.Fatal(err)
	}
	tok := common.HexToAddress(token)
	r := c.send(from, &tok, data)
	if r.Status != types.ReceiptStatusSuccessful {
		c.t.Fatalf("%s reverted", method)
	}
	return r
}

func (c *Chain) send(from *ecdsa.PrivateKey, to *common.Address, data []byte) *types.Receipt {
	c.t.Helper()
	ctx := context.Background()
	gas, err := c.ec.EstimateGas(ctx, ethereum.CallMsg{From: crypto.PubkeyToAddress(from.PublicKey), To: to, Data: data})
	if err != nil {
		c.t.Fatalf("estimate gas: %v", err)
	}
	return c.sendTx(from, to, data, gas+gas/5)
}

func (c *Chain) sendTx(from *ecdsa.PrivateKey, to *common.Address, data []byte, gas uint64) *types.Receipt {
	c.t.Helper()
	return c.sendSigned(c.sign(from, to, data, gas))
}

// broadcast signs and sends a transaction without waiting for it to be mined.
func (c *Chain) broadcast(from *ecdsa.PrivateKey, to *common.Address, data []byte, gas uint64) common.Hash {
	c.t.Helper()
	signed := c.sign(from, to, data, gas)
	c.sendOnly(signed)
	return signed.Hash()
}

// sign signs a call with the key's next nonce (pending transactions counted).
func (c *Chain) sign(from *ecdsa.PrivateKey, to *common.Address, data []byte, gas uint64) *types.Transaction {
	c.t.Helper()
	addr := crypto.PubkeyToAddress(from.PublicKey)
	nonce, err := c.ec.PendingNonceAt(context.Background(), addr)
	if err != nil {
		c.t.Fatal(err)
	}
	tip := big.NewInt(1e9)
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: new(big.Int).SetUint64(c.ID), Nonce: nonce, GasTipCap: tip,
		GasFeeCap: big.NewInt(100e9), Gas: gas, To: to, Value: new(big.Int), Data: data})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(new(big.Int).SetUint64(c.ID)), from)
	if err != nil {
		c.t.Fatal(err)
	}
	return signed
}

// sendOnly sends a signed transaction, remembering it for Resend.
func (c *Chain) sendOnly(signed *types.Transaction) {
	c.t.Helper()
	if err := c.ec.SendTransaction(context.Background(), signed); err != nil {
		c.t.Fatalf("send: %v", err)
	}
	c.sent.Store(strings.ToLower(signed.Hash().Hex()), signed)
}

// sendSigned sends a signed transaction and waits for its receipt.
func (c *Chain) sendSigned(signed *types.Transaction) *types.Receipt {
	c.t.Helper()
	c.sendOnly(signed)
	return c.wait(signed.Hash())
}

// Resend broadcasts again a transaction this chain sent (the same signed bytes, so the same hash),
// as a node does with the transactions of blocks a reorg dropped, and waits for it to be mined.
func (c *Chain) Resend(txHash string) {
	c.t.Helper()
	v, ok := c.sent.Load(strings.ToLower(txHash))
	if !ok {
		c.t.Fatalf("resend: %s was not sent by this chain", txHash)
	}
	c.sendSigned(v.(*types.Transaction))
}

// wait waits until the transaction is mined and returns its receipt.
func (c *Chain) wait(hash common.Hash) *types.Receipt {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, err := c.ec.TransactionReceipt(context.Background(), hash)
		if err == nil {
			return r
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("transaction %s not mined: %v", hash.Hex(), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
