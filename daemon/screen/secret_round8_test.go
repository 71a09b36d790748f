package screen

import (
	"strings"
	"testing"
)

// checkFound asserts that FindSecrets finds something in each of found and nothing in each of clean.
func checkFound(t *testing.T, found, clean []string) {
	t.Helper()
	for _, s := range found {
		if len(FindSecrets(s)) == 0 {
			t.Errorf("missed: %q", s)
		}
	}
	for _, s := range clean {
		if r := FindSecrets(s); len(r) != 0 {
			t.Errorf("false positive: %q -> %v", s, r)
		}
	}
}

// A value set apart from a name that names a secret: an environment read's fallback, a constant
// with its type, PHP's define, a property put, a YAML list of variables, a name with the secret's
// word inside it, a Markdown row.
func TestSecretNamedValues(t *testing.T) {
	checkFound(t, []string{
		`NUGET_API_KEY = os.getenv("NUGET_API_KEY", "oy27esc6aatlk144x17lfqu1dhz65cswfy7fr1fm9t8quu")`,
		`secret = os.environ.get('STRIPE_WEBHOOK_SECRET', 'q8Vd2kLm0PzX4rTn7YwB1cHs')`,
		`const CARGO_REGISTRY_TOKEN = process.env.CARGO_REGISTRY_TOKEN || 'cioxitOv8DFORU2hea5ddZy4CW0yP4hrhP2';`,
		`const t = process.env.AIRTABLE_PAT ?? "patdCxWwOMnhxIPRR.c022534c202658fadfcda6f0b2dea7902ab7ce394fba9056363bbff704f2351e";`,
		`let key = env::var("DD_API_KEY").unwrap_or("3b885caafadfe17d38d0f1fca1d3e02a".to_string());`,
		`$t = getenv('SENTRY_AUTH_TOKEN') ?: 'a81f3c09b27d4e5fa61c0d93b8e7f241';`,
		`const DD_API_KEY: &str = "3b885caafadfe17d38d0f1fca1d3e02a";`,
		`const ApiToken string = "Zx81kQm2Lp9VtR4sWn7Y"`,
		`define('OKTA_API_TOKEN', '00wBLvPh661Mb7ltO50obx0xdoAKMQPgp0f2Vwv9Xc');`,
		`define( 'DB_PASSWORD', 'L@ntern4775' );`,
		`props.put("mail.smtp.password", "blue9408");`,
		"env:\n  - name: VERCEL_TOKEN\n    value: \"521BD9ZEcEBThJSk5RKOrxgA\"",
		"Environment=TF_TOKEN_app_terraform_io=eTA94cFEotc7NI.atlasv1.Gnk5syllExM6hnQ3rgBesIMFXYLzq33PdulPGLQHIOm",
		`$env:ALGOLIA_ADMIN_KEY = "3ff78338b0d24ab5f737645e9ffb5a9a"`,
		`algolia_admin_key = "1907aa5cd04d421b767b4155cdfe461b"`,
		"| `TWILIO_AUTH_TOKEN` | `7bd7cec964241ea4acd8245f4209c741` |",
		"name,value\nOKTA_API_TOKEN,00wBLvPh661Mb7ltO50obx0xdoAKMQPgp0f2Vwv9Xc",
		"ALGOLIA_ADMIN_KEY\t3ff78338b0d24ab5f737645e9ffb5a9a",
	}, []string{
		"name,value\nOKTA_ORG_URL,https://dev-000000.okta.example",
		"TOKEN_TTL_SECONDS,3600",
		"SECRET_MANAGER_PATH,projects/acme/secrets/api",
		`region = os.getenv("AWS_REGION", "eu-central-1")`,
		`const url = process.env.API_URL || 'https://api.example.com/v1';`,
		`token = os.getenv("GITHUB_TOKEN", "")`,
		`define('OKTA_ORG_URL', 'https://dev-000000.okta.example');`,
		`define('DB_PASSWORD', 'your_password_here');`,
		`const TOKEN_HEADER: &str = "X-Auth-Token-Value";`,
		"env:\n  - name: VERCEL_ORG_ID\n    value: \"team_S3reiXFLFusc331fehiXPJSH\"",
		"env:\n  - name: API_TOKEN\n    valueFrom:\n      secretKeyRef: {name: api, key: token}",
		`cache_key = "user:8f3a9c2b1d7e4f60:profile"`,
		`idempotency_key = "3f9a8c1e-7b2d-4e6f-9a0c-5d8e7f6a1b2c"`,
		"| `TOKEN_TTL` | `3600` |",
		"| `ALGOLIA_APP_ID` | `CDU1BKBAMT` |",
	})
}

// A wallet's key written with 0X, or after a key word in Bengali.
func TestSecretWalletKeyUpperPrefix(t *testing.T) {
	checkFound(t, []string{
		"KEY: 0X4AB27DEDA6F6A67032D140CD2D35101F0E43FC5BC5612C2EAAAC4FC6FED3D646",
		"টেস্ট ওয়ালেটের প্রাইভেট কী: 0x590690e910d34c5ce15af8c35da0e1c1cd7b7dd3df71ffc1693628ad796d9edf , কাজ শেষে মুছে দিও",
	}, []string{
		"tx hash: 0X4AB27DEDA6F6A67032D140CD2D35101F0E43FC5BC5612C2EAAAC4FC6FED3D646",
		"ব্লক হ্যাশ 0x590690e910d34c5ce15af8c35da0e1c1cd7b7dd3df71ffc1693628ad796d9edf",
	})
}

// Public or dummy values beside real ones: an IAM listing's key id, a Supabase anon key,
// a SOPS-encrypted value, a dummy key, prose about a password's hash.
func TestSecretPublicValues(t *testing.T) {
	checkFound(t, []string{
		`{"AccessKey":{"UserName":"ci","AccessKeyId":"AKIAII3PPKI4DAALMO6F","SecretAccessKey":"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzK8mpl3Q2x","Status":"Active"}}`,
		"const supabase = createClient('https://x.supabase.co', 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJvbGUiOiJzZXJ2aWNlX3JvbGUifQ.hutwdqp3J0TXd8h4vgBsWP0XOSznP2rk6R2In_ereEE')",
		"stripe_secret: sk_live_51HqLmX2eZvKYlo2C8n3bQ9vT",
		"const KEY = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';",
		"Das Passwort lautet: Argon2Tiger!77",
	}, []string{
		`{"AccessKey":{"UserName":"ci","AccessKeyId":"AKIAII3PPKI4DAALMO6F","Status":"Active","CreateDate":"2026-11-01T10:00:00Z"}}`,
		"const supabase = createClient('https://x.supabase.co', 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJvbGUiOiJhbm9uIn0.hutwdqp3J0TXd8h4vgBsWP0XOSznP2rk6R2In_ereEE')",
		"stripe_secret: ENC[AES256_GCM,data:ZqWagnQtUlkwhk4gmi5Y+h+zma/GTTblS6Wo+jreAPbGSaS/pExa2w==,iv:xPoc7o0fpQziHXt1l6uUNo/e0/P/D/Pwl6T8rONpcyI=,type:str]",
		"const DUMMY_KEY = '0x0000000000000000000000000000000000000000000000000000000000000001';",
		"Das Passwort wird nur als Argon2-Hash gespeichert.",
		"The password is stored as a bcrypt-hash.",
	})
}

// Credentials set by their place: a JWT library's signing secret, a builder's password, a secure
// string from plain text, Cisco's type 0, a .pgpass line, HTTPie's -a, Django's generated key, a
// private key block in base64, Jenkins' UsernamePasswordCredentialsImpl.
func TestSecretPlacedCredentials(t *testing.T) {
	checkFound(t, []string{
		`const token = jwt.sign({ uid }, 'JKsSfVYQ!fWLwW$JVIIyGAcpHsy13kz7', { expiresIn: '7d' });`,
		`encoded = jwt.encode(payload, "s3cr3t-Kq81vXz", algorithm="HS256")`,
		`s, err := token.SignedString([]byte("Kq81vXz!p0wLm3"))`,
		`PgConnectOptions::new().host("db").username("app").password("Sunrise2043")`,
		`$sec = ConvertTo-SecureString 'kFZTr##pj7ALQedugh' -AsPlainText -Force`,
		" username admin privilege 15 secret 0 Sunrise#99152",
		"shop.example:5432:escrow:maria:saffron8006",
		"http -a ci-bot:volcano3707_ POST https://payments.example.com/api/refunds",
		`o.Secret = "django-insecure-_=ur#eikdt!tc5pst$u+-2w(d0$vxxu+3jdokop#j7%o^+v#mg";`,
		"client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQostGclOjn7qhxtnfaQLa2VOyO5D10+ZfQxBjaw0PGY8yCRnDc8mvz8",
		`new UsernamePasswordCredentialsImpl(CredentialsScope.GLOBAL, 'nexus', 'Nexus', 'deploy', 'CedarStorm$3124x')`,
	}, []string{
		`const token = jwt.sign({ uid }, process.env.JWT_SECRET, { expiresIn: '7d' });`,
		`const token = jwt.sign({ uid }, 'your-secret-here');`,
		`builder.password("changeme")`,
		`$sec = Read-Host -AsSecureString`,
		" username admin privilege 15 secret 5 $1$mERr$hx5rVt7rPNoS4wqbXKX7m0",
		"db01:5432:*:*:*",
		"http -a user:password POST https://example.com",
		"client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCiCFx11X7ykF5C9MePR+U6kVBJuWjCQ/DvbU8MKDgPy",
		"12:30:45:00:100 ms elapsed",
	})
}

// Passwords in prose: a word and a number right after a label or a copula, password words in
// Arabic with its conjunction and in Bengali with its copula.
func TestSecretProseWordNumber(t *testing.T) {
	checkFound(t, []string{
		"Hallo, Ihr vorläufiges Passwort lautet: tiger9423?\nBitte nach der ersten Anmeldung ändern.",
		"a senha do MetaMask desse navegador é rocket7342.",
		"the admin password is falcon2291",
		"اسم المستخدم admin وكلمة السر juniper406*",
		"ড্যাশবোর্ডের পাসওয়ার্ড হলো JuniperStack%7895",
	}, []string{
		"Das Passwort wird als sha256 gespeichert.",
		"Password: sha512",
		"the password is at least 12 characters",
		"password policy: min 12 chars, rotated every 90 days",
		"Passwort lautet: siehe Tresor",
	})
}

// A wallet's key copied in groups or sent in two halves after a word for a key; the same shapes
// after a hash's words pass.
func TestSecretWalletKeyGroups(t *testing.T) {
	checkFound(t, []string{
		"pk (copied from the paper backup, grouped by 8): d44f422f a1d42a97 9a158518 18de686f e296b03f 7ff2ef98 c0d198b4 caa945b4",
		"private key: d44f 422f a1d4 2a97 9a15 8518 18de 686f e296 b03f 7ff2 ef98 c0d1 98b4 caa9 45b4",
		"key part 1: 0x2664584e269c53d21020d786756bdcfe\n(sending the rest separately for safety)\npart 2: 49889fb38134c0a4dbc4947be7365bcf",
	}, []string{
		"tx hash (grouped by 8): d44f422f a1d42a97 9a158518 18de686f e296b03f 7ff2ef98 c0d198b4 caa945b4",
		"checksum: d44f422f a1d42a97 9a158518 18de686f e296b03f 7ff2ef98 c0d198b4 caa945b4",
		"private key: 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000001",
		"part 1: 2664584e269c53d21020d786756bdcfe of the trace id, part 2: 49889fb38134c0a4dbc4947be7365bcf of the span id",
	})
}

// A column named key of a CSV or tab-separated table holds keys when its values have a key's
// shape; a tab-separated table is read like a CSV one.
func TestSecretKeyColumn(t *testing.T) {
	checkFound(t, []string{
		"service,key,owner\nrates,LfOuyR8UummVHhxLzNlBH2b7KcqXWa4S,finance",
		"Service\tUser\tKey\tNotes\nMailgun\tpostmaster\t1e602f48d5d696ff2016dff81eca478e-30fed789-103ace95\tprod",
		"host\tuser\tpassword\ndb1\tapp\tCedarStorm$3124x",
	}, []string{
		"key,value\ngreeting.hello,Hello there\nbutton.submit,Submit",
		"key,count\nuser:8f3a9c2b1d7e4f60a1b2c3d4:profile,12",
		"Key\tSummary\tStatus\nPROJ-1234\tFix the login page\tDone",
		"name\tvalue\nregion\teu-central-1",
	})
}

// A BIP-39 phrase laid out in a numbered table's columns or split in two pieces is checked in its
// numbers' order or joined; the same words with the checksum failing pass.
func TestSecretSplitPhrases(t *testing.T) {
	table := "| # | word | # | word |\n|---|---|---|---|\n| 1 | daughter | 7 | puppy |\n| 2 | verify | 8 | fever |\n" +
		"| 3 | art | 9 | sound |\n| 4 | enough | 10 | liberty |\n| 5 | usual | 11 | clump |\n| 6 | say | 12 | pride |"
	split := "first half: road border inside decline holiday eagle\n...\nand the rest: sight birth lemon fine barrel wink"
	checkFound(t, []string{table, split}, []string{
		strings.Replace(table, "pride", "proud", 1),
		strings.Replace(split, "wink", "wine", 1),
		"| 1 | daughter | 7 | puppy |\n| 2 | verify | 8 | fever |\n| 3 | art | 9 | sound |",
	})
}

// A password after a user's name on a login line, and the answer to a question about a password.
func TestSecretLoginLineAndAnswer(t *testing.T) {
	checkFound(t, []string{
		"login: admin senha cedar4052?",
		"user deploy pass Kq81vXz!p0",
		"Q: do I need a password for the admin?\nA: yes — it's rocket*992966, and the 2FA is disabled for now",
	}, []string{
		"login: admin senha: (ask me in private)",
		"user admin pass the test suite",
		"Q: do I need a password for the admin?\nA: yes — it's in the vault, ask ops",
		"Q: is the password policy strict?\nA: it's 12 characters minimum",
	})
}
