package kernel

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// KeyFile is the name of the file holding the exchange's sealing key, beside (not inside) the
// database, so that a copy of the database alone reveals no platform key.
const KeyFile = "secret.key"

// Sealer encrypts secrets the exchange must be able to read back (platform keys, auth tokens).
type Sealer struct {
	aead cipher.AEAD
	Raw  []byte
}

func LoadSealer(dir string) (*Sealer, error) {
	path := filepath.Join(dir, KeyFile)
	raw, err := os.ReadFile(path)
	var key []byte
	switch {
	case errors.Is(err, os.ErrNotExist):
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		// Written whole under a temporary name, then linked into place: daemons sharing a data
		// dir that start together agree on the key the first one links.
		f, err := os.CreateTemp(dir, ".secret-*")
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
		defer os.Remove(f.Name())
		_, err = f.WriteString(hex.EncodeToString(key) + "\n")
		if err == nil {
			err = f.Chmod(0o600)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Link(f.Name(), path)
			if errors.Is(err, os.ErrExist) {
				return LoadSealer(dir)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	default:
		key, err = hex.DecodeString(strings.TrimSpace(string(raw)))
		if err != nil || len(key) != 32 {
			return nil, fmt.Errorf("%s is not a 64-hex-digit key; restore it from backup", path)
		}
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead, Raw: key}, nil
}

func (s *Sealer) Seal(plain []byte) []byte {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic(err)
	}
	return s.aead.Seal(nonce, nonce, plain, nil)
}

func (s *Sealer) open(sealed []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("sealed value too short")
	}
	return s.aead.Open(nil, sealed[:n], sealed[n:], nil)
}

// sealWith seals plain with a one-off key (idempotent answers, sealed by a key only the caller holds).
func sealWith(key, plain []byte) []byte {
	block, _ := aes.NewCipher(key)
	aead, _ := cipher.NewGCM(block)
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	return aead.Seal(nonce, nonce, plain, nil)
}

func OpenWith(key, sealed []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	n := aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("sealed value too short")
	}
	return aead.Open(nil, sealed[:n], sealed[n:], nil)
}
