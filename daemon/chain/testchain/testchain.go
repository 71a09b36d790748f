// Package testchain runs test mode's chain inside the exchange's process: a go-ethereum node in
// developer mode (a simulated beacon sealing a block every second) whose state lives in a
// directory of the data dir, serving JSON-RPC on a loopback port, with TestUSD deployed, a deposit
// address and a hot wallet funded with TestUSD and gas. Money on it is not real.
//
// The directory holds the node's database (geth/), the keys (mode 0600: the faucet, which pays for
// gas and deploys, the deposit address's and the hot wallet's) and chain.json, what the first start
// set up. The genesis follows from the keys, so the chain a restart opens is the one the ledger was
// written against; Genesis names it for the store to compare.
package testchain

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/axp-exchange/axp/daemon/chain/testusd"
	"github.com/axp-exchange/axp/internal/atomicfile"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/event"
	"github.com/ethereum/go-ethereum/log"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// Float is the TestUSD the hot wallet gets at the first start, for payouts and refunds.
const Float = axp.Money(1_000_000 * 1_000_000)

// gasGift is the gas the faucet sends an address holding less than half of it.
var gasGift = new(big.Int).Mul(big.NewInt(1), big.NewInt(params.Ether))

// Options say where the chain lives and how it runs.
type Options struct {
	// Dir holds the chain's database, keys and setup (created at the first start).
	Dir string
	// Listen is the JSON-RPC address, on loopback (default 127.0.0.1:0, a free port).
	Listen string
	// Period is the time between blocks (default 1 s).
	Period time.Duration
	// Log receives the chain's warnings and errors (default: discarded).
	Log *slog.Logger
}

// Chain is a running test chain.
type Chain struct {
	// URL is the node's JSON-RPC endpoint.
	URL     string
	ChainID uint64
	// Token is TestUSD's address; Deposit where buyers pay; HotWallet the address payouts leave
	// from, whose key HotKeyFile holds (hex, mode 0600).
	Token, Deposit, HotWallet common.Address
	HotKeyFile                string
	// Escrow is the escrow contract and its collectors (package escrow), deployed at the first
	// start (or the first start that knew it).
	Escrow escrow.Contracts
	// Genesis is the chain's genesis hash: the store records it, and refuses another chain.
	Genesis common.Hash

	stack *node.Node
	// beacon seals the blocks: every period from the loop seal starts, and when AdjustTime asks,
	// one at a time under sealMu (two seals at once would build on the same head). stop ends the
	// loop, which closes sealed.
	beacon       *catalyst.SimulatedBeacon
	sealMu       sync.Mutex
	stop, sealed chan struct{}
	synced       chan struct{} // closed when the loop that syncs each new block to disk ends
	sub          event.Subscription
	ec           *ethclient.Client
	abi          abi.ABI
	faucet       *ecdsa.PrivateKey
	// mu is held while the faucet signs and sends, never while it waits for a receipt; nonce is
	// the faucet's next nonce (nil: ask the node).
	mu    sync.Mutex
	nonce *uint64
}

// setup is chain.json: what the first start deployed.
type setup struct {
	ChainID   uint64           `json:"chain_id"`
	Genesis   common.Hash      `json:"genesis"`
	Token     common.Address   `json:"token"`
	Deposit   common.Address   `json:"deposit_address"`
	HotWallet common.Address   `json:"hot_wallet"`
	Escrow    escrow.Contracts `json:"escrow"`
}

// Key files in the chain's directory.
const (
	faucetKeyFile  = "faucet.key"
	depositKeyFile = "deposit.key"
	hotKeyFile     = "hot-wallet.key"
	setupFile      = "chain.json"
)

// Open starts the chain in o.Dir: the first time it makes the keys, the genesis, deploys TestUSD
// and funds the hot wallet; later it opens the chain it made. A directory whose node database is
// gone while its setup remains is refused: the ledger written against that chain could not agree
// with a new one.
func Open(ctx context.Context, o Options) (*Chain, error) {
	if o.Dir == "" {
		return nil, errors.New("test chain: no directory given")
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.Period <= 0 {
		o.Period = time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	host, portText, err := net.SplitHostPort(o.Listen)
	if err != nil {
		return nil, fmt.Errorf("test chain listen address %q: %w", o.Listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("test chain listen address %q: the port is not a number", o.Listen)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("test chain listen address %q: the test chain listens on loopback only", o.Listen)
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("test chain: %w", err)
	}
	var prior *setup
	if raw, err := os.ReadFile(filepath.Join(o.Dir, setupFile)); err == nil {
		prior = &setup{}
		if err := json.Unmarshal(raw, prior); err != nil {
			return nil, fmt.Errorf("test chain: %s: %w", filepath.Join(o.Dir, setupFile), err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("test chain: %w", err)
	}
	geth := filepath.Join(o.Dir, "geth")
	if _, err := os.Stat(geth); prior != nil && errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("test chain: %s is gone but %s remains: the chain this exchange's ledger was written against is lost; start with a fresh data dir",
			geth, filepath.Join(o.Dir, setupFile))
	}
	faucet, err := loadOrMakeKey(filepath.Join(o.Dir, faucetKeyFile))
	if err != nil {
		return nil, err
	}
	deposit, err := loadOrMakeKey(filepath.Join(o.Dir, depositKeyFile))
	if err != nil {
		return nil, err
	}
	hot, err := loadOrMakeKey(filepath.Join(o.Dir, hotKeyFile))
	if err != nil {
		return nil, err
	}
	// go-ethereum logs to its own root logger: only its warnings reach the exchange's log.
	log.SetDefault(log.NewLogger(quiet{o.Log.Handler()}))

	genesis := core.DeveloperGenesisBlock(ethconfig.Defaults.Miner.GasCeil, ptr(addr(faucet)))
	// The forks public chains run today (through Osaka), not the experimental one after them, whose
	// gas prices would make an ERC-20 transfer cost what no wallet estimates elsewhere.
	forks := *genesis.Config
	forks.BogotaTime = nil
	genesis.Config = &forks
	genesis.Alloc[addr(hot)] = types.Account{Balance: new(big.Int).Mul(big.NewInt(1000), big.NewInt(params.Ether))}
	genesis.Alloc[addr(deposit)] = types.Account{Balance: new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether))}
	// A fixed timestamp: the genesis, and so its hash, follows from the keys alone.
	genesis.Timestamp = 1_700_000_000
	chainID := genesis.Config.ChainID.Uint64()

	nodeConf := node.DefaultConfig
	nodeConf.Name = "axp-test-chain"
	nodeConf.DataDir = geth
	nodeConf.IPCPath = ""
	nodeConf.HTTPHost, nodeConf.HTTPPort = host, port
	nodeConf.HTTPModules = []string{"eth", "net", "web3"}
	nodeConf.WSHost, nodeConf.AuthPort = "", 0
	nodeConf.P2P = p2p.Config{NoDiscovery: true, MaxPeers: 0, ListenAddr: ""}
	nodeConf.UseLightweightKDF = true
	nodeConf.Logger = log.Root()
	stack, err := node.New(&nodeConf)
	if err != nil {
		return nil, fmt.Errorf("test chain: %w", err)
	}
	ethConf := ethconfig.Defaults
	ethConf.Genesis = genesis
	ethConf.NetworkId = chainID
	ethConf.SyncMode = ethconfig.FullSync
	// Every block's state is written as it is sealed (an archive of the hash scheme): a kill -9
	// loses no block the exchange may have read a payment in.
	ethConf.NoPruning = true
	ethConf.StateScheme = rawdb.HashScheme
	ethConf.SnapshotCache = 0
	ethConf.DatabaseCache, ethConf.TrieCleanCache, ethConf.TrieDirtyCache = 16, 16, 16
	ethConf.TxPool.NoLocals = true
	ethConf.LogNoHistory = true
	ethConf.Miner.GasPrice = big.NewInt(1)
	backend, err := eth.New(stack, &ethConf)
	if err != nil {
		stack.Close()
		return nil, fmt.Errorf("test chain: %w", err)
	}
	if got := backend.BlockChain().Genesis().Hash(); prior != nil && got != prior.Genesis {
		stack.Close()
		return nil, fmt.Errorf("test chain: the chain in %s (genesis %s) is not the one set up there (genesis %s): start with a fresh data dir", geth, got, prior.Genesis)
	}
	stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filters.NewFilterAPI(filters.NewFilterSystem(backend.APIBackend, filters.Config{}))}})
	// Period 0: the beacon's own loop stays off and seal drives it. Its APIs are not registered:
	// at period 0 they would seal a block on every transaction, beside seal's.
	beacon, err := catalyst.NewSimulatedBeacon(0, addr(faucet), backend)
	if err != nil {
		stack.Close()
		return nil, fmt.Errorf("test chain: %w", err)
	}
	stack.RegisterLifecycle(beacon)
	if err := stack.Start(); err != nil {
		stack.Close()
		return nil, fmt.Errorf("test chain: start the node (listen %s): %w", o.Listen, err)
	}
	c := &Chain{URL: stack.HTTPEndpoint(), ChainID: chainID, Genesis: backend.BlockChain().Genesis().Hash(),
		Deposit: addr(deposit), HotWallet: addr(hot), HotKeyFile: filepath.Join(o.Dir, hotKeyFile),
		stack: stack, beacon: beacon, ec: ethclient.NewClient(stack.Attach()), abi: testusd.ABI(), faucet: faucet}
	c.seal(max(time.Second, o.Period.Truncate(time.Second)))
	c.syncBlocks(backend, o.Log)
	if prior != nil {
		c.Token, c.Escrow = prior.Token, prior.Escrow
		code, err := c.ec.CodeAt(ctx, c.Token, nil)
		if err != nil || len(code) == 0 {
			c.Close()
			return nil, fmt.Errorf("test chain: TestUSD (%s) is not on the chain in %s (%v): start with a fresh data dir", c.Token, geth, err)
		}
		if c.Escrow.Escrow != (common.Address{}) {
			return c, nil
		}
		// A chain set up before the escrow existed gets it now.
		if err := c.deployEscrow(ctx); err != nil {
			c.Close()
			return nil, err
		}
	} else if err := c.deploy(ctx, hot); err != nil {
		c.Close()
		return nil, err
	}
	raw, _ := json.MarshalIndent(setup{ChainID: chainID, Genesis: c.Genesis, Token: c.Token, Deposit: c.Deposit, HotWallet: c.HotWallet,
		Escrow: c.Escrow}, "", "  ")
	if err := atomicfile.Write(filepath.Join(o.Dir, setupFile), append(raw, '\n'), 0o600); err != nil {
		c.Close()
		return nil, fmt.Errorf("test chain: %w", err)
	}
	return c, nil
}

// syncBlocks writes each new block through to the disk as it becomes the head. The node's database
// writes without waiting for the disk, so a kill -9 could lose the newest blocks; test mode's
// watcher reads a block only once another is sealed on top of it (two confirmations, a second
// later), by which time the block is on disk.
func (c *Chain) syncBlocks(backend *eth.Ethereum, log *slog.Logger) {
	heads := make(chan core.ChainHeadEvent, 16)
	c.sub = backend.BlockChain().SubscribeChainHeadEvent(heads)
	c.synced = make(chan struct{})
	db := backend.ChainDb()
	go func() {
		defer close(c.synced)
		for {
			select {
			case h := <-heads:
				if err := db.SyncKeyValue(); err != nil {
					log.Warn("the test chain could not write a block through to the disk", "source", "payments", "block", h.Header.Number, "err", err)
				}
			case <-c.sub.Err():
				return
			}
		}
	}()
}

// deploy puts TestUSD on the chain and mints the hot wallet's float.
func (c *Chain) deploy(ctx context.Context, hot *ecdsa.PrivateKey) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, err := c.send(ctx, nil, testusd.Code(), nil)
	if err != nil {
		return fmt.Errorf("test chain: deploy TestUSD: %w", err)
	}
	c.Token = r.ContractAddress
	if _, err := c.mint(ctx, addr(hot), Float); err != nil {
		return fmt.Errorf("test chain: fund the hot wallet: %w", err)
	}
	return c.deployEscrowLocked(ctx)
}

// deployEscrow puts the project's escrow contract and its collectors on the chain (package escrow).
func (c *Chain) deployEscrow(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deployEscrowLocked(ctx)
}

func (c *Chain) deployEscrowLocked(ctx context.Context) error {
	k, err := escrow.Deploy(ctx, c.ec, c.faucet)
	// escrow.Deploy counts the faucet's nonces itself: ask the node again next time.
	c.nonce = nil
	if err != nil {
		return fmt.Errorf("test chain: %w", err)
	}
	c.Escrow = k
	return nil
}

// Close stops the node; its state stays in the directory.
func (c *Chain) Close() error {
	if c.stop != nil {
		close(c.stop)
		<-c.sealed
		c.stop = nil
	}
	if c.ec != nil {
		c.ec.Close()
	}
	if c.sub != nil {
		c.sub.Unsubscribe()
		<-c.synced
	}
	return c.stack.Close()
}

// seal seals a block at once and then every period, until Close.
func (c *Chain) seal(period time.Duration) {
	c.stop, c.sealed = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(c.sealed)
		t := time.NewTimer(0)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
			}
			c.sealMu.Lock()
			c.beacon.Commit()
			c.sealMu.Unlock()
			t.Reset(period)
		}
	}()
}

// AdjustTime moves the chain's clock d ahead: it seals a block whose time is the newest block's
// plus d, and the blocks after it follow on from there (a second a block). Tests use it to pass an
// escrow payment's expiries. The beacon refuses while transactions wait for a block: it tries
// again after the next one, until ctx ends.
func (c *Chain) AdjustTime(ctx context.Context, d time.Duration) error {
	for {
		c.sealMu.Lock()
		err := c.beacon.AdjustTime(d)
		c.sealMu.Unlock()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("test chain: the clock was not moved (%v): %w", err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Fund is the faucet: it mints usd of TestUSD to to and, when to holds less than half an ETH of
// gas, sends it one. Both transactions are sent at once with the faucet's next nonces and the lock
// is let go before waiting for them, so gifts asked for together are mined together (in the next
// block or two), not one after another. It waits for both to be mined. out.TokenTx is set once the
// mint was sent, even when the error says the wait for it failed: the gift may still arrive.
func (c *Chain) Fund(ctx context.Context, to string, usd axp.Money) (axp.TestFunds, error) {
	if !common.IsHexAddress(to) {
		return axp.TestFunds{}, axp.Invalid("address", "not an address: "+to, "give a 0x address of 40 hex digits")
	}
	who := common.HexToAddress(to)
	out := axp.TestFunds{Address: who.Hex(), USD: usd, TestMode: true}
	gas, err := c.ec.BalanceAt(ctx, who, nil)
	if err != nil {
		return out, axp.Errorf(axp.CodeUnavailable, "the test chain did not answer: %v", err)
	}
	data, err := c.abi.Pack("mint", who, big.NewInt(int64(usd)))
	if err != nil {
		return out, err
	}
	var mint, gasTx *types.Transaction
	var gasErr error
	c.mu.Lock()
	mint, err = c.sendNext(ctx, &c.Token, data, nil)
	if err == nil && gas.Cmp(new(big.Int).Div(gasGift, big.NewInt(2))) < 0 {
		gasTx, gasErr = c.sendNext(ctx, &who, nil, gasGift)
	}
	c.mu.Unlock()
	if err != nil {
		return out, axp.Errorf(axp.CodeUnavailable, "the test chain did not mint: %v", err)
	}
	out.TokenTx = strings.ToLower(mint.Hash().Hex())
	if gasTx != nil {
		out.GasTx = strings.ToLower(gasTx.Hash().Hex())
	}
	if _, err := c.mined(ctx, mint); err != nil {
		return out, axp.Errorf(axp.CodeUnavailable, "the test chain did not mint: %v", err)
	}
	if gasErr != nil {
		return out, axp.Errorf(axp.CodeUnavailable, "the test chain did not send gas: %v", gasErr)
	}
	if gasTx != nil {
		if _, err := c.mined(ctx, gasTx); err != nil {
			return out, axp.Errorf(axp.CodeUnavailable, "the test chain did not send gas: %v", err)
		}
		gas.Add(gas, gasGift)
	}
	out.GasWei = gas.String()
	bal, err := c.Balance(ctx, who)
	if err != nil {
		return out, axp.Errorf(axp.CodeUnavailable, "the test chain did not answer: %v", err)
	}
	out.BalanceUSD = bal
	return out, nil
}

// Balance is who's TestUSD balance.
func (c *Chain) Balance(ctx context.Context, who common.Address) (axp.Money, error) {
	data, err := c.abi.Pack("balanceOf", who)
	if err != nil {
		return 0, err
	}
	raw, err := c.ec.CallContract(ctx, ethereum.CallMsg{To: &c.Token, Data: data}, nil)
	if err != nil {
		return 0, err
	}
	v := new(big.Int).SetBytes(raw)
	if !v.IsInt64() {
		return 0, errors.New("a balance beyond what the exchange counts")
	}
	return axp.Money(v.Int64()), nil
}

// mint mints usd of TestUSD (6 decimals: a micro-USD is a unit) to who.
func (c *Chain) mint(ctx context.Context, who common.Address, usd axp.Money) (*types.Receipt, error) {
	data, err := c.abi.Pack("mint", who, big.NewInt(int64(usd)))
	if err != nil {
		return nil, err
	}
	return c.send(ctx, &c.Token, data, nil)
}

// send signs a transaction from the faucet, sends it and waits until it is mined successfully.
// Callers hold c.mu.
func (c *Chain) send(ctx context.Context, to *common.Address, data []byte, value *big.Int) (*types.Receipt, error) {
	tx, err := c.sendNext(ctx, to, data, value)
	if err != nil {
		return nil, err
	}
	return c.mined(ctx, tx)
}

// sendNext signs a transaction from the faucet with its next nonce and sends it, without waiting.
// Callers hold c.mu. The count is the faucet's own: the node's pool may not count a transaction
// just sent yet. After a failed send it is asked of the node again (it may or may not have taken
// the transaction).
func (c *Chain) sendNext(ctx context.Context, to *common.Address, data []byte, value *big.Int) (*types.Transaction, error) {
	if c.nonce == nil {
		n, err := c.ec.PendingNonceAt(ctx, addr(c.faucet))
		if err != nil {
			return nil, err
		}
		c.nonce = &n
	}
	tx, err := testusd.SendNonce(ctx, c.ec, c.faucet, *c.nonce, to, data, value)
	if err != nil {
		c.nonce = nil
		return nil, err
	}
	*c.nonce++
	return tx, nil
}

// mined waits until tx is mined successfully.
func (c *Chain) mined(ctx context.Context, tx *types.Transaction) (*types.Receipt, error) {
	for {
		r, err := c.ec.TransactionReceipt(ctx, tx.Hash())
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return r, fmt.Errorf("transaction %s reverted", tx.Hash())
			}
			return r, nil
		}
		// A node still indexing its transactions (just started) answers so until it is done.
		if !errors.Is(err, ethereum.NotFound) && !strings.Contains(err.Error(), "indexing is in progress") {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("transaction %s not mined: %w", tx.Hash(), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// loadOrMakeKey reads one of the chain's keys from path, or makes it there.
func loadOrMakeKey(path string) (*ecdsa.PrivateKey, error) {
	k, err := chain.LoadOrMakeKey(path)
	if err != nil {
		return nil, fmt.Errorf("test chain: %w", err)
	}
	return k, nil
}

func addr(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

func ptr[T any](v T) *T { return &v }

// quiet passes on a handler's records of level warning and above only.
type quiet struct{ slog.Handler }

func (q quiet) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && q.Handler.Enabled(ctx, l)
}

func (q quiet) Handle(ctx context.Context, r slog.Record) error {
	// Said of every new database before its genesis is written, and of every JSON-RPC call that
	// answers an error (a receipt asked for while the node still indexes): the callers say what
	// matters to them.
	if r.Message == "Head block is not reachable" || strings.HasPrefix(r.Message, "Served ") {
		return nil
	}
	return q.Handler.Handle(ctx, r)
}

func (q quiet) WithAttrs(a []slog.Attr) slog.Handler { return quiet{q.Handler.WithAttrs(a)} }
func (q quiet) WithGroup(n string) slog.Handler      { return quiet{q.Handler.WithGroup(n)} }
