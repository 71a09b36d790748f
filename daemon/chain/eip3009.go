package chain

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Authorization is an EIP-3009 transferWithAuthorization: the payer's signed permission for anyone
// to move Value of the token from From to To once, between ValidAfter and ValidBefore (unix
// seconds), under a random Nonce.
type Authorization struct {
	From, To                       common.Address
	Value, ValidAfter, ValidBefore *big.Int
	Nonce                          [32]byte
}

// Domain is the token's EIP-712 domain name and version, which authorizations are signed under.
type Domain struct {
	Name, Version string
}

// Domain reads the token's name() and version(); a token without version() (not EIP-3009 ready)
// is an error.
func (c *Client) Domain(ctx context.Context) (Domain, error) {
	var d Domain
	if err := c.call(ctx, "name", &d.Name); err != nil {
		return d, fmt.Errorf("the token at %s does not answer name(): %w", c.token.Hex(), err)
	}
	if err := c.call(ctx, "version", &d.Version); err != nil {
		return d, fmt.Errorf("the token at %s does not answer version() (no EIP-3009 support): %w", c.token.Hex(), err)
	}
	return d, nil
}

// AuthorizationDigest is the EIP-712 hash an authorization's signature signs, for the token of
// this client on its chain.
func (c *Client) AuthorizationDigest(d Domain, a Authorization) ([]byte, error) {
	return AuthorizationDigest(d, c.cfg.ChainID, c.token, a)
}

// AuthorizationDigest is the EIP-712 hash of a TransferWithAuthorization message.
func AuthorizationDigest(d Domain, chainID uint64, token common.Address, a Authorization) ([]byte, error) {
	return authorizationDigest("TransferWithAuthorization", d, chainID, token, a)
}

// ReceiveAuthorizationDigest is the EIP-712 hash of a ReceiveWithAuthorization message: the same
// fields as a transfer's under another type name, redeemable only by a.To itself (an escrow's
// payment collector uses it, so no one else can move the money to the collector out of turn).
func ReceiveAuthorizationDigest(d Domain, chainID uint64, token common.Address, a Authorization) ([]byte, error) {
	return authorizationDigest("ReceiveWithAuthorization", d, chainID, token, a)
}

func authorizationDigest(primary string, d Domain, chainID uint64, token common.Address, a Authorization) ([]byte, error) {
	td := apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
				{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			primary: {{Name: "from", Type: "address"}, {Name: "to", Type: "address"},
				{Name: "value", Type: "uint256"}, {Name: "validAfter", Type: "uint256"}, {Name: "validBefore", Type: "uint256"},
				{Name: "nonce", Type: "bytes32"}},
		},
		PrimaryType: primary,
		Domain: apitypes.TypedDataDomain{Name: d.Name, Version: d.Version,
			ChainId: math.NewHexOrDecimal256(int64(chainID)), VerifyingContract: token.Hex()},
		Message: apitypes.TypedDataMessage{"from": a.From.Hex(), "to": a.To.Hex(), "value": a.Value.String(),
			"validAfter": a.ValidAfter.String(), "validBefore": a.ValidBefore.String(), "nonce": a.Nonce[:]},
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	return digest, err
}

// Signer recovers the address that made a 65-byte secp256k1 signature (v as 0/1 or 27/28) of
// digest. Malleable signatures (s in the upper half of the curve order) are refused, as the token
// contracts refuse them.
func Signer(digest, sig []byte) (common.Address, error) {
	if len(sig) != 65 {
		return common.Address{}, fmt.Errorf("the signature is %d bytes; an EOA signature is 65", len(sig))
	}
	s := append([]byte(nil), sig...)
	if s[64] >= 27 {
		s[64] -= 27
	}
	if s[64] > 1 {
		return common.Address{}, errors.New("the signature's v is neither 27 nor 28")
	}
	if !crypto.ValidateSignatureValues(s[64], new(big.Int).SetBytes(s[:32]), new(big.Int).SetBytes(s[32:64]), true) {
		return common.Address{}, errors.New("the signature's r or s is out of range")
	}
	pub, err := crypto.SigToPub(digest, s)
	if err != nil {
		return common.Address{}, err
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// AuthorizationUsed reports whether the token has already used (or cancelled) from's nonce.
func (c *Client) AuthorizationUsed(ctx context.Context, from common.Address, nonce [32]byte) (bool, error) {
	var used bool
	err := c.call(ctx, "authorizationState", &used, from, nonce)
	return used, err
}

// SignAuthorization signs the transaction that submits an authorization with its signature, from
// the hot wallet (which pays the gas; the money moves from the payer to the authorization's
// recipient). The node simulates it first: an authorization the token would refuse is an error.
// Hold Lock until it is stored and broadcast.
func (w *Wallet) SignAuthorization(ctx context.Context, a Authorization, sig []byte) (Signed, error) {
	if len(sig) != 65 {
		return Signed{}, fmt.Errorf("the signature is %d bytes; an EOA signature is 65", len(sig))
	}
	v := sig[64]
	if v < 27 {
		v += 27
	}
	data, err := erc20.Pack("transferWithAuthorization", a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce,
		v, [32]byte(sig[:32]), [32]byte(sig[32:64]))
	if err != nil {
		return Signed{}, err
	}
	return w.signCall(ctx, w.c.token, data, 0, "the authorization")
}

// WaitMined waits until a transaction is mined (or ctx ends) and returns its receipt.
func (c *Client) WaitMined(ctx context.Context, txHash string, poll time.Duration) (Receipt, error) {
	for {
		r, err := c.Receipt(ctx, txHash)
		if err != nil && !errors.Is(err, ethereum.NotFound) {
			return r, err
		}
		if r.Found {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// AuthorizationTx is the transaction that used from's nonce (lower-case 0x hex), looked for in the
// token's AuthorizationUsed events from block fromBlock on; "" when none is found there.
func (c *Client) AuthorizationTx(ctx context.Context, from, nonce string, fromBlock uint64) (string, error) {
	b := common.FromHex(nonce)
	if len(b) != 32 || !common.IsHexAddress(from) {
		return "", fmt.Errorf("not an authorization: %s %s", from, nonce)
	}
	logs, err := c.ec.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(fromBlock), Addresses: []common.Address{c.token},
		Topics: [][]common.Hash{{AuthorizationUsedTopic}, {common.BytesToHash(common.HexToAddress(from).Bytes())}, {common.BytesToHash(b)}}})
	if err != nil {
		return "", err
	}
	for _, l := range logs {
		if !l.Removed {
			return strings.ToLower(l.TxHash.Hex()), nil
		}
	}
	return "", nil
}

// TokenAddress is the token contract.
func (c *Client) TokenAddress() common.Address { return c.token }

// AuthorizationUsedHex is AuthorizationUsed with the payer and the nonce as 0x hex.
func (c *Client) AuthorizationUsedHex(ctx context.Context, from, nonce string) (bool, error) {
	b := common.FromHex(nonce)
	if len(b) != 32 || !common.IsHexAddress(from) {
		return false, fmt.Errorf("not an authorization: %s %s", from, nonce)
	}
	return c.AuthorizationUsed(ctx, common.HexToAddress(from), [32]byte(b))
}

// TaskNonce is the EIP-3009 nonce of an authorization that pays task taskID on this exchange
// (its chain and deposit address): derived from the task id and round (the offer chosen and what
// the task had received when the terms were given), so the authorization is for that task and no
// other, and a task chosen again or paid in part asks for a new one.
func TaskNonce(chainID uint64, deposit, taskID, round string) [32]byte {
	return crypto.Keccak256Hash([]byte(fmt.Sprintf("axp task payment\nchain: %d\ndeposit: %s\ntask: %s\nround: %s",
		chainID, strings.ToLower(deposit), taskID, round)))
}

// SignTerms signs a task's authorization terms (axp.AuthorizationTerms) with key, valid from
// validAfter until validBefore (unix seconds), as a buyer's wallet does: the 0x-hex 65-byte
// signature (v as 27 or 28) that pay_authorization takes. The terms are checked first: their
// domain, value and nonce must parse.
func SignTerms(key *ecdsa.PrivateKey, t *axp.AuthorizationTerms, validAfter, validBefore int64) (string, error) {
	value, ok := new(big.Int).SetString(t.Value, 10)
	nonce := common.FromHex(t.Nonce)
	if !ok || value.Sign() <= 0 || len(nonce) != 32 || !common.IsHexAddress(t.To) || !common.IsHexAddress(t.Domain.VerifyingContract) {
		return "", fmt.Errorf("the authorization terms are malformed (value %q, nonce %q, to %q)", t.Value, t.Nonce, t.To)
	}
	a := Authorization{From: crypto.PubkeyToAddress(key.PublicKey), To: common.HexToAddress(t.To), Value: value,
		ValidAfter: big.NewInt(validAfter), ValidBefore: big.NewInt(validBefore), Nonce: [32]byte(nonce)}
	sig, err := AuthorizationSignature(key, Domain{Name: t.Domain.Name, Version: t.Domain.Version}, t.Domain.ChainID,
		common.HexToAddress(t.Domain.VerifyingContract), a)
	if err != nil {
		return "", err
	}
	return "0x" + hex.EncodeToString(sig), nil
}

// AuthorizationSignature is key's 65-byte signature (v as 27 or 28) of authorization a under the
// token's EIP-712 domain, as wallets sign it.
func AuthorizationSignature(key *ecdsa.PrivateKey, d Domain, chainID uint64, token common.Address, a Authorization) ([]byte, error) {
	digest, err := AuthorizationDigest(d, chainID, token, a)
	if err != nil {
		return nil, err
	}
	return SignDigest(key, digest)
}

// SignDigest is key's 65-byte signature of a 32-byte digest with v as 27 or 28, as wallets give
// it (go-ethereum's crypto.Sign gives v as 0 or 1).
func SignDigest(key *ecdsa.PrivateKey, digest []byte) ([]byte, error) {
	sig, err := crypto.Sign(digest, key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}

// SignReceive signs the ReceiveWithAuthorization of a task's escrow terms
// (axp.EscrowAuthorization) with key, as a buyer's wallet does: the 0x-hex 65-byte signature (v as
// 27 or 28) that pay_escrow takes. The terms are checked first: their domain, value and nonce must
// parse.
func SignReceive(key *ecdsa.PrivateKey, t *axp.EscrowAuthorization) (string, error) {
	value, ok := new(big.Int).SetString(t.Value, 10)
	nonce := common.FromHex(t.Nonce)
	if !ok || value.Sign() <= 0 || len(nonce) != 32 || !common.IsHexAddress(t.To) || !common.IsHexAddress(t.Domain.VerifyingContract) {
		return "", fmt.Errorf("the escrow authorization is malformed (value %q, nonce %q, to %q)", t.Value, t.Nonce, t.To)
	}
	a := Authorization{From: crypto.PubkeyToAddress(key.PublicKey), To: common.HexToAddress(t.To), Value: value,
		ValidAfter: big.NewInt(t.ValidAfter), ValidBefore: big.NewInt(t.ValidBefore), Nonce: [32]byte(nonce)}
	digest, err := ReceiveAuthorizationDigest(Domain{Name: t.Domain.Name, Version: t.Domain.Version}, t.Domain.ChainID,
		common.HexToAddress(t.Domain.VerifyingContract), a)
	if err != nil {
		return "", err
	}
	sig, err := SignDigest(key, digest)
	if err != nil {
		return "", err
	}
	return "0x" + hex.EncodeToString(sig), nil
}
