package screen

import (
	"strings"
	"testing"
)

// The scorer: a credential word of any language, misspelt or as part of a name, then a value
// of a password's or a key's shape; and its near look-alikes.
func TestSecretScoredPasswords(t *testing.T) {
	checkFound(t, []string{
		"paswrod: LOPdxf646xcjfX0",
		"passwrd = Falcon.2532?",
		"contrasena:XqsodQL80eAJbh",
		"kalmar sirri: Drachen5859$",
		"sunan mai amfani root, kalmar wucewa ankle-elder-swear91",
		"پسورد سرور maracuja-4421 هست",
		"아이디 oksana / 비번 Falcon-9678*",
		"Senha do keystore JSON: *lIRGY^FZfms3w",
		"transcribed from the call: 'the password is %Sm%fmf-wMYGf?_, all one word'",
		"Das Kennwort für den FTP-Zugang lautet *vSyIRnom+H7.",
		"ssh fatima.n@api.example.net  — password Y#Xs2KCT_v?=G",
		"Login: dmitri.k, hasło: cDldHUMPyVhenc",
		"the router page: SSID ShopNet, WPA2 key 1@qQ-xawMVhBXk?",
	}, []string{
		"Bitte gib niemals dein Passwort oder deine Seed-Phrase weiter.",
		"> Bitte schick mir niemals das Passwort per Chat, nutze den Passwort-Manager.",
		"INSERT INTO users (name, password_hash) VALUES ('ana', '$2b$12$Kq8Wm2Rt5Yx1Zb4Nc7Vd0uHf3Jg6Lp9S');",
		"the password is: whatever you set during onboarding",
		"password: ********",
		"docker run --rm -v $(pwd):/work image:1.0",
		"tests passed: 42/42 in 3.2s",
		"Your passport number must match the booking, e.g. X1234567.",
		"kubectl create secret generic db --from-literal=password=\"$DB_PASSWORD\"",
	})
}

// Users and passwords on one line, joined by dashes, slashes or arrows.
func TestSecretScoredLogins(t *testing.T) {
	checkFound(t, []string{
		"db user seller42 - maracuja#5387* - port 5432",
		"Repro steps: log in as ops / cinnamon-finger-guilt24, open Orders, click Refund.",
		"creds → chen.li : zmj$J=-TpF!",
	}, []string{
		"log in as ops and open Orders, then click Refund.",
		"user seller42 - port 5432 - db shop",
		"postgres://user:password@localhost:5432/mydb",
	})
}

// Keys named by a part of their name (a header, a PHP array key, an SQL pair) or by "key" in
// prose; public, search-only, page and SSH keys pass.
func TestSecretScoredKeys(t *testing.T) {
	checkFound(t, []string{
		"proxy_set_header X-oktaApiToken \"00aUgNHpdy8Ny4enU3cduUkCGcahNN0hc_TUCJpsWJ\";",
		"    'algolia_admin_key' => '88e6e58e826ba6bd5e14a740d6a9af62',",
		"Our key is 89dc8bc163b8419204dec3c62b6dd3af, account dmitri.k.",
		"INSERT INTO integrations (name, value) VALUES ('azure_storage_key', '68PSPoqsAq/G74rWARDDVFwg6pJ4tMJlA/5DvPqOhnYdb/xO8NDMHJhfpc4+Sgo8wf+g9V+M88MckHIEQ1JbZA==');",
		"Sys.setenv(FCM_SERVER_KEY = \"AAAAj5FtkCd:APA91bwKMmzQK8MwODGCmU6-kRJ6o5FvmH0zuMQeNLG4sMZkv0wzeRtA7LQCSuYoYJxzQ3PMBVlHFJLXKZgQWCrrg2xINW8Sv93dIkqydifsElcFdbIIiMOPwaipQb60M3NEIU21CQoc\")",
	}, []string{
		"algoliasearch('UDDIL36GL6', 'search-only key 7147248e3396ad7964b95047b4e5484b — public by design')",
		"next_page_token: CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA0",
		"add this to authorized_keys: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMgNvtNH7rZgUxuP/mtD2mMCBFg2AB29X28KAYismVbW buyer@laptop",
		"The request needs the headers X-API-Key and X-API-Signature (HMAC-SHA256 of the body with your secret).",
		"Unsigned PSBT for you to co-sign (no keys inside): cHNidP8BAHECgKRm0nbA595LU52SONVeY6Gx/mzRblerbTDUjfl478mSKTCD8vj1OSrN2JR32lNp",
		"the idempotency key 4f1da8169a06de1538b90fadcf803663 was reused",
		"commit key fix 89dc8bc163b8419204dec3c62b6dd3af40ab12cd",
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"token mint: 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU",
	})
}

// A private key in a JSON string goes with the line break that ends it; a wallet key cut over
// two lines goes when the words before name a key; a numbered phrase laid out in columns goes
// with its numbers when its checksum holds.
func TestSecretScoredLayouts(t *testing.T) {
	pem := `{"private_key": "-----BEGIN EC PRIVATE KEY-----\nSFWZjedusjQu1fjiG/7aj2NGTe5yAuQTtN6hCy06XMsVP5JGcFi91pMCs/+V0asK\n-----END EC PRIVATE KEY-----\n"}`
	if rs := FindSecrets(pem); len(rs) != 1 || !strings.HasSuffix(pem[rs[0].Start:rs[0].End], `-----\n`) {
		t.Errorf("PEM in JSON: %+v", rs)
	}
	card := "backup card transcribed:\n 1 girl   2 area   3 shuffle   4 brave\n 5 route   6 chest   7 must   8 suggest\n 9 patch  10 enable  11 love  12 gun\n13 awful  14 wish  15 day  16 buddy\n17 devote  18 hotel  19 absorb  20 poverty\n21 clown  22 person  23 spike  24 enact"
	checkFound(t, []string{
		"private key (two lines because the form cut it)\na213f3db250fc584aa63f7648a0ad403\n5a13f2b9ea15b965f057b047bf61b2c2",
		card,
	}, []string{
		"tx hash (two lines because the form cut it)\na213f3db250fc584aa63f7648a0ad403\n5a13f2b9ea15b965f057b047bf61b2c2",
		strings.Replace(card, "24 enact", "24 zoo", 1),
		"Seed ideas for the banner headline: vast, muffin, rice, wage, manual, file, whisper, employ, cram, lift, congress, mistake",
	})
	if rs := FindSecrets(card); len(rs) != 1 || rs[0].Start != strings.Index(card, " 1 girl")+1 {
		t.Errorf("numbered card: %+v", rs)
	}
}

// Round 9 (classes of miss of the ninth held-out set): the answer on the line after a question
// about a password or credentials, a value right after a copula or a colon as near as the next
// word, passwords of small letters that read as generated, a full-width colon, "pass X", .npmrc's
// _auth, a CSV password column of letters and digits; and their near look-alikes.
func TestSecretScoredRound9(t *testing.T) {
	checkFound(t, []string{
		"[09:24] buyer: the FTP doesn't accept my credentials\n[09:18] seller: try ci-bot / glacierMarble023?",
		"[09:24] buyer: I need the DB password to run the report\n[09:22] seller: here: jmyMjjnuY5kQB*d — please don't share it",
		"[09:47] buyer: what do I type at the password prompt?\n[09:45] seller: 439hxiwwb6n7 (capital first letter)",
		"A senha do servidor é zdc029bi42mc (sem espaços).",
		"Hasło do panelu: lvntogufmmnt",
		"生产环境的 API 密钥：jxcrxdhtdnclxf9yh266styhnx8k22g2y8x5whjj",
		"registry=https://nexus.example.net/repository/npm/\n_auth=bWVpLmxpbjpwZXBwZXItbWFyYmxlLWZhbGNvbi04NQ==\nemail=ci@example.net",
		"[09:28] seller: user sasha_k, pass m4dcp5edi4vi",
		"host,user,password,port\npg-main.example.net,tran.v,x6kwso6uitou,5432",
	}, []string{
		"cache:\n  key: deps-281f82ca068e282256b8e4049a9be489dedcfe47\n  paths:\n    - node_modules/",
		"- name: Login to registry\n  uses: docker/login-action@v3\n  with:\n    username: ${{ github.actor }}\n    password: ${{ secrets.GITHUB_TOKEN }}",
		"Error: env var SIGNER_KEY is empty\npinned to IPFS: QmTgL7dU6J8uH1xwEXgx7wowMPDXko5JryFvi6S2dEpbgX",
		"Encoded sample (not a secret): KE0mNYKWvDZZrdz93GSrkUQMWy4Z6oICyky9KxwAdlxKRPhQ58mzxcbszqLafG==",
		"[10:12] buyer: what's the admin password?\n[10:13] seller: I'll send it through 1Password, not here.",
		"Hasło do panelu: administrator",
		"All tests pass (42/42) on every platform.",
		"[10:12] buyer: which password manager do you use?\n[10:13] seller: Bitwarden, version 2026.11.0",
	})
}

// Round 10 (classes of miss and false alarm of the tenth held-out set): passphrases of small
// words joined by dashes or written with spaces after a password word, in quotes or after a
// colon, and a quoted one given to a tool; "pw" and short words reaching a label's value; letters
// around a block of digits that read as generated; .npmrc's _auth under a registry's path; a
// Teams webhook. Not secrets: code that computes a password, an indexed name, a resource name
// after a key's name; and their near look-alikes.
func TestSecretScoredRound10(t *testing.T) {
	checkFound(t, []string{
		"Das Passwort lautet hollow-ginger-plank-meteor",
		"kullanıcı adı deniz, şifre lotus-cedar-pebble-anvil",
		"le mdp du serveur c'est amber-tulip-oxide-rocket",
		"The passphrase for the backup is 'fern gravel lotus quiver 38'",
		"passphrase: oxide plank cedar ginger tulip 07",
		"7z a secrets.7z notes/ -p'gravel anvil meteor fern 62'",
		"acct = Wallet.fromEncryptedJsonSync(blob, 'quiver-oxide-fern-hollow')",
		"pw for the build box: qwtr58kxzplm",
		"DB_PASSWORD=Rq7[vN2xLp!",
		"비밀번호는 rvxk4417nbtq 입니다",
		"@corp:registry=https://npm.corp.example/\n//npm.corp.example/:_auth=ZGV2b3BzOnF1aXZlci1veGlkZS1mZXJuLWhvbGxvdw==",
		"https://acme.webhook.office.com/webhookb2/3f1c2a9e-5b7d-4e0a-9c1f-2d8b6a4e7c90@9a8b7c6d-1e2f-4a3b-8c9d-0e1f2a3b4c5d/IncomingWebhook/8c2e5a1f9d3b7c6e4a0f2d8b1e9c7a53/b1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f",
	}, []string{
		"user.password = params[:password]",
		"String password = new String(System.console().readPassword());",
		"let password = await readSecret('db');",
		"signing_key_arn = \"arn:aws:kms:us-east-2:111122223333:key/0f3e2d1c-4b5a-4968-8776-a5b4c3d2e1f0\"",
		"A senha precisa ter pelo menos 12 caracteres e um simbolo.",
		"The passphrase is \"the name of your first pet\"",
		"All tests pass (8/8). build: 4f9e2c71ab03d58e96c2f1a0b7d4e3c2",
		"pw reset link expires in 30 minutes",
		"feature branch: fix-login-page-crash",
	})
}
