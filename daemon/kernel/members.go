package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

func SecretHash(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

func ModeOf(m *axp.Member) string {
	if m.PullMode() {
		return "pull"
	}
	return "push"
}

// LoadMember reads a member inside a transaction, as not_found when missing.
func LoadMember(tx *store.Tx, id string) (*axp.Member, error) {
	m, err := tx.Member(id)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, axp.NotFound("member", id)
	}
	return m, nil
}

func (k *Kernel) Member(id string) (*axp.Member, error) {
	var m *axp.Member
	err := k.Store.View(func(tx *store.Tx) error {
		var err error
		m, err = LoadMember(tx, id)
		return err
	})
	return m, err
}

// Private renders the member's own view; the secret fingerprint is the stored hash's prefix, which
// is the same value protocol.Fingerprint gives for the secret.
func Private(m *axp.Member) axp.PrivateMember { return m.Private(m.SecretHash[:8]) }

// CheckInPeriod is the liveness check-in clock (spec 8).
const CheckInPeriod = 24 * time.Hour
