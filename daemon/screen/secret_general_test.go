package screen

import (
	"strings"
	"testing"
)

// checkMarked asserts that FindSecrets removes every value marked «...» in each of found (the
// marks taken out of the text first), and finds nothing in clean.
func checkMarked(t *testing.T, found, clean []string) {
	t.Helper()
	for _, s := range found {
		var want []string
		text := s
		for {
			i := strings.Index(text, "«")
			j := strings.Index(text, "»")
			if i < 0 || j < i {
				break
			}
			want = append(want, text[i+len("«"):j])
			text = text[:i] + text[i+len("«"):j] + text[j+len("»"):]
		}
		if len(want) == 0 {
			t.Fatalf("no mark in %q", s)
		}
		checkRemoved(t, text, want...)
	}
	for _, s := range clean {
		if r := FindSecrets(s); len(r) != 0 {
			t.Errorf("false positive: %q -> %v", s, r)
		}
	}
}

// Small words joined by dots and ending in digits, after a password's name in any syntax, are a
// password, not a code reference; a value starting with $ that holds signs no reference holds is
// one too. Their look-alikes: dotted code references (types with their width, names code starts
// from), templates, variables, crypt(3) hashes.
func TestSecretDottedWordsAndDollar(t *testing.T) {
	checkMarked(t, []string{
		"storePassword=«cobalt.meadow42»",
		"Driver={ODBC Driver 18};Uid=etl;Pwd=«thistle.granite17»;Encrypt=yes;",
		"DB_PASS ?= «falcon.harbor93»",
		"pw -> «willow.canyon28»",
		"service,username,password\nvps,jenkins,«amber.lantern55»",
		"password: «bramble.tundra.63»",
		`"password": "«$$T=K@19w*$p742»"`,
		"DB_PASSWORD=«$Kq8=mW2x!v»",
	}, []string{
		"password = np.float64",
		"password = torch.bfloat16",
		"password = self.conn42",
		"password = config.pool16",
		"password = settings.db_password",
		"password = hashlib.sha256",
		"password = encoding.utf16",
		"password = data.v2",
		`"password": "$DB_PASSWORD"`,
		`"password": "${DB_PASSWORD}"`,
		`"password": "$(cat /run/secrets/db)"`,
		"password: $2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
		"password = $argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG",
		"$env:DB_PASSWORD",
		"password = $_ENV['DB_PASSWORD']",
		"the price is $$19.99",
	})
}
