package x402

import (
	"crypto/ecdsa"
	"crypto/rand"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp/daemon/chain"
	"github.com/axp-exchange/axp/daemon/chain/escrow"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// Pay signs an exact EVM payment of r from key, as an x402 client does, and returns the value of
// the header that carries it (PAYMENT-SIGNATURE for version 2, X-PAYMENT for version 1, whose
// network is networkV1). The authorization is valid from a minute ago for r.MaxTimeoutSeconds. A
// version 1 payment echoes resource as its `resource` when it is not "" (the reference v1 clients
// echo nothing).
func Pay(key *ecdsa.PrivateKey, r Requirements, resource string, version int, networkV1 string, now time.Time) (string, error) {
	id, err := strconv.ParseUint(strings.TrimPrefix(r.Network, "eip155:"), 10, 64)
	if err != nil || !strings.HasPrefix(r.Network, "eip155:") {
		return "", fmt.Errorf("network %q is not eip155:<chain id>", r.Network)
	}
	name, _ := r.Extra["name"].(string)
	ver, _ := r.Extra["version"].(string)
	value, ok := new(big.Int).SetString(r.Amount, 10)
	if !ok {
		return "", fmt.Errorf("amount %q is not a number", r.Amount)
	}
	a := chain.Authorization{From: crypto.PubkeyToAddress(key.PublicKey), To: common.HexToAddress(r.PayTo), Value: value,
		ValidAfter: big.NewInt(now.Unix() - 60), ValidBefore: big.NewInt(now.Unix() + int64(r.MaxTimeoutSeconds))}
	if _, err := rand.Read(a.Nonce[:]); err != nil {
		return "", err
	}
	sig, err := chain.AuthorizationSignature(key, chain.Domain{Name: name, Version: ver}, id, common.HexToAddress(r.Asset), a)
	if err != nil {
		return "", err
	}
	p := Payment{X402Version: version, Payload: ExactPayload{Signature: hexutil.Encode(sig), Authorization: Authorization{
		From: a.From.Hex(), To: a.To.Hex(), Value: a.Value.String(), ValidAfter: a.ValidAfter.String(),
		ValidBefore: a.ValidBefore.String(), Nonce: hexutil.Encode(a.Nonce[:])}}}
	if version == 1 {
		p.Scheme, p.Network = SchemeExact, networkV1
		if resource != "" { // a URL, as the v1 requirements name it
			return Encode(struct {
				Payment
				Resource string `json:"resource"`
			}{p, resource}), nil
		}
	} else {
		acc := r
		p.Accepted, p.Resource = &acc, &Resource{URL: resource}
	}
	return Encode(p), nil
}

// PayAuthCapture signs an auth-capture EVM payment of r (the ERC-3009 path, unbound) from key, as
// an x402 v2 client does, and returns the value of the PAYMENT-SIGNATURE header. The payment's salt
// is the keccak of the resource and 32 random bytes (any 32 bytes would do: the salt only keeps two
// payments of equal terms apart); its authorization is valid until r.MaxTimeoutSeconds from now,
// or the capture deadline if that comes first.
func PayAuthCapture(key *ecdsa.PrivateKey, r Requirements, resource string, now time.Time) (string, error) {
	id, err := strconv.ParseUint(strings.TrimPrefix(r.Network, "eip155:"), 10, 64)
	if err != nil || !strings.HasPrefix(r.Network, "eip155:") {
		return "", fmt.Errorf("network %q is not eip155:<chain id>", r.Network)
	}
	str := func(k string) string { s, _ := r.Extra[k].(string); return s }
	for _, k := range []string{"authCaptureEscrow", "tokenCollector", "captureAuthorizer", "feeRecipient"} {
		if !common.IsHexAddress(str(k)) {
			return "", fmt.Errorf("extra.%s %q is not an address", k, str(k))
		}
	}
	capture, ok1 := uintOf(r.Extra["captureDeadline"])
	refund, ok2 := uintOf(r.Extra["refundDeadline"])
	minFee, ok3 := uintOf(r.Extra["minFeeBps"])
	maxFee, ok4 := uintOf(r.Extra["maxFeeBps"])
	amount, ok := new(big.Int).SetString(r.Amount, 10)
	if !ok || !ok1 || !ok2 || !ok3 || !ok4 {
		return "", fmt.Errorf("the requirements' amount or extra (deadlines, fee bounds) do not parse")
	}
	var nonce [32]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return "", err
	}
	salt := crypto.Keccak256([]byte(resource), nonce[:])
	info := escrow.PaymentInfo{Operator: common.HexToAddress(str("captureAuthorizer")), Payer: crypto.PubkeyToAddress(key.PublicKey),
		Receiver: common.HexToAddress(r.PayTo), Token: common.HexToAddress(r.Asset), MaxAmount: amount,
		PreApprovalExpiry: min(uint64(now.Unix())+uint64(r.MaxTimeoutSeconds), capture), AuthorizationExpiry: capture, RefundExpiry: refund,
		MinFeeBps: uint16(minFee), MaxFeeBps: uint16(maxFee), FeeReceiver: common.HexToAddress(str("feeRecipient")), Salt: new(big.Int).SetBytes(salt)}
	esc, collector := common.HexToAddress(str("authCaptureEscrow")), common.HexToAddress(str("tokenCollector"))
	digest, err := escrow.Digest(chain.Domain{Name: str("name"), Version: str("version")}, id, esc, collector, info)
	if err != nil {
		return "", err
	}
	sig, err := chain.SignDigest(key, digest)
	if err != nil {
		return "", err
	}
	a := escrow.Authorization(id, esc, collector, info)
	acc := r
	p := Payment{X402Version: 2, Accepted: &acc, Resource: &Resource{URL: resource}, Payload: ExactPayload{Signature: hexutil.Encode(sig),
		Salt: hexutil.Encode(salt), Authorization: Authorization{From: a.From.Hex(), To: a.To.Hex(), Value: a.Value.String(),
			ValidAfter: a.ValidAfter.String(), ValidBefore: a.ValidBefore.String(), Nonce: hexutil.Encode(a.Nonce[:])}}}
	return Encode(p), nil
}
