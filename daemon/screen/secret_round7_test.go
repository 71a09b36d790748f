package screen

import (
	"strings"
	"testing"
)

// Every value below is made up for the test; none is or was a working credential.

// A password of a word, digits, a dot and a word is a password wherever it stands, not a code
// reference or a file name; code references, secret-manager references and files still pass.
func TestFindSecretsRound7DottedPasswords(t *testing.T) {
	checkSecrets(t, []secretCase{
		{"DATABASE_URL=postgres://app:Alter9786.blam@db.example.net:5432/shop", SecretConnection, "Alter9786.blam"},
		{"amqp://svc:Grove2231.pike@mq.example.net/", SecretConnection, "Grove2231.pike"},
		{"*/5 * * * * BACKUP_PASS='tiger1977.jaguar' /opt/backup.sh", SecretPassword, "tiger1977.jaguar"},
		{"ansible_become_pass: \"Flip1020.alle\"", SecretPassword, "Flip1020.alle"},
		{"the keystore password is Rapid9808.enve", SecretPassword, "Rapid9808.enve"},
		{"password for the zip: Melt6085.carr", SecretPassword, "Melt6085.carr"},
		// neighbours that stay
		{"password = config.db.password", "", ""},
		{"password: settings.DB_PASSWORD", "", ""},
		{"digest = hashlib.sha256", "", ""},
		{"password file: backup2024.zip", "", ""},
		{"the password is in keys2024.txt", "", ""},
		{"postgres://app:${DB_PASSWORD}@db:5432/shop", "", ""},
	})
}

// Values that name a secret kept elsewhere, a credential's file, an address or a fingerprint are
// not secrets.
func TestFindSecretsRound7References(t *testing.T) {
	checkSecrets(t, []secretCase{
		{"password: vault:secret/data/shop/db#password", "", ""},
		{"DB_PASSWORD=op://Shop/Postgres/password", "", ""},
		{"api_secret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:shop/api-Ab12Cd", "", ""},
		{"[Service]\nLoadCredential=signer:/etc/credstore/signer\nExecStart=/usr/bin/payout", "", ""},
		{`{"seller": "0xb1d0b520b80ea3384b05f17e3f6b61250de8ecb8", "token": "0x1e268828bfd3588b45fd35b4c13b614cbacdc26f"}`, "", ""},
		{"TOKEN_ADDRESS=0x1e268828bfd3588b45fd35b4c13b614cbacdc26f", "", ""},
		{"ED25519 key fingerprint is SHA256:ZqeaG+P1CSMOJyfCx3tbWXuSj8AwfNBhN5/wSB14uB4.", "", ""},
		{"RSA key fingerprint is MD5:4b:1f:92:0c:aa:13:77:5e:31:02:9d:e8:4f:10:66:2b.", "", ""},
		// near neighbours that still go
		{"password: Qv8!vault-Mz2", SecretPassword, "Qv8!vault-Mz2"},
		{"SetCredential=signer:Kq8Wm2Rt5Yx1Zb4Nc7Vd0Hf", SecretGeneric, "Kq8Wm2Rt5Yx1Zb4Nc7Vd0Hf"},
		{`{"token": "0x1e268828bfd3588b45fd35b4c13b614cbacdc26f1e268828bfd3588b45fd35b4"}`, SecretToken, "1e268828"},
	})
}

// Hardhat's and Anvil's funded test accounts are public; a 64-hex value the writer says is not a
// key is not one.
func TestFindSecretsRound7PublicKeysAndDenials(t *testing.T) {
	const key = "a4c123b1612dd272d1371c17149d439536b3216fdaeeb975729fae923d5a4fd1"
	checkSecrets(t, []secretCase{
		{"Account #0: 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (10000 ETH)\nPrivate Key: 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", "", ""},
		{"PRIVATE_KEY=0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", "", ""},
		{"To be clear, this is the transaction hash, NOT my private key: 0x" + key, "", ""},
		{"Это хеш транзакции, а не приватный ключ: 0x" + key, "", ""},
		// neighbours that still go
		{"Private Key: 0x" + key, SecretWalletKey, key},
		{"do not share this private key: 0x" + key, SecretWalletKey, key},
		{"not the tx hash, it is my private key: 0x" + key, SecretWalletKey, key},
	})
}

// A list of 12 to 24 BIP-39 words is a phrase only with a valid checksum, unless a word of a
// wallet's recovery (seed, mnemonic, recovery, derive) names it; "phrase", "12 words" or numbering
// alone do not.
func TestFindSecretsRound7SeedChecksum(t *testing.T) {
	const (
		valid   = "avoid mass luggage choice fabric argue gather cash brand thought elegant divide"
		invalid = "empower much rifle joy forest fat thing bacon still shallow joy job"
	)
	numbered := func(ws string) string {
		var b strings.Builder
		for i, w := range strings.Fields(ws) {
			b.WriteString(string(rune('1'+i%9)) + ". " + w + "\n")
		}
		return b.String()
	}
	checkSecrets(t, []secretCase{
		{"today's 12 words: " + invalid, "", ""},
		{"Spelling list week 3:\n" + numbered(invalid), "", ""},
		{"Test of the phrase validator (wrong checksum): " + invalid, "", ""},
		{"Test of the seed phrase validator (should be rejected): " + invalid, "", ""},
		{"today's 12 words: " + valid, SecretSeedPhrase, valid},
		{"Spelling list:\n" + numbered(valid), SecretSeedPhrase, "divide"},
		{"my seed: " + invalid, SecretSeedPhrase, invalid},
		{"phrase " + strings.ReplaceAll(valid, " ", "-") + " (dashes instead of spaces)", SecretSeedPhrase, "avoid-mass"},
		{"cast wallet derive-private-key \"" + invalid + "\" 0", SecretSeedPhrase, invalid},
	})
}
