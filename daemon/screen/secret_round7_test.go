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

// Any key whose name holds a secret word, in any case and separator, as a subscript or a flag in
// an argument list; names of fields, references and addresses stay.
func TestFindSecretsRound7KeyNames(t *testing.T) {
	checkSecrets(t, []secretCase{
		{"DD_APP_KEY=01a80c366c9728d8d66460b1220b00ddefbd386d", SecretAPIKey, "01a80c366c9728d8d66460b1220b00ddefbd386d"},
		{"license_key: 99fcde158b00a4b949fe0107c3852f9298b4NRAL", SecretAPIKey, "99fcde158b00a4b949fe0107c3852f9298b4NRAL"},
		{"app.config['SECRET_KEY'] = '93168cb9537ad147bb1d0242cca72ed0d3df9452fe9ae062'", SecretGeneric, "93168cb9537ad147"},
		{`settings["signing_key"] = "Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1"`, SecretAPIKey, "Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1"},
		{"pk_hex = 41c330879b925e0624696ee52fc3595bf3a961c2bb6db1d56e2dda4fc446de02", SecretPrivateKey, "41c330879b92"},
		{`command: ["redis-server", "--requirepass", "MRIGHgli9nJqSB5cShU5IA4e"]`, SecretPassword, "MRIGHgli9nJqSB5cShU5IA4e"},
		{"ansible_become_pass: \"Flip1020x\"", SecretPassword, "Flip1020x"},
		// neighbours that stay
		{"app.config['SECRET_KEY'] = os.environ['SECRET_KEY']", "", ""},
		{`fields = ["password", "email", "api_key"]`, "", ""},
		{"DD_APP_KEY=${DD_APP_KEY}", "", ""},
		{"license_key: true", "", ""},
		{"app_key_id = 4213", "", ""},
		{`cfg["token"] = "0x1e268828bfd3588b45fd35b4c13b614cbacdc26f"`, "", ""},
	})
}

// Every Authorization scheme: the credential after it goes; a variable or a placeholder stays.
func TestFindSecretsRound7Authorization(t *testing.T) {
	checkSecrets(t, []secretCase{
		{`proxy_set_header Authorization "Basic c3ZjOlNoaW5lJkJsYW5rZXQ5OA==";`, SecretToken, "c3ZjOlNoaW5lJkJsYW5rZXQ5OA=="},
		{`Authorization: Token token="b2nwqMYCgEhRyWdyuHUIT88n", email="ops@example.com"`, SecretToken, "b2nwqMYCgEhRyWdyuHUIT88n"},
		{"Authorization: SSWS 0040sn9Pz8ZfB3ZvnZyRSNpaPC0yW9AJb8xGov5AEv", SecretToken, "0040sn9Pz8ZfB3ZvnZyRSNpaPC0yW9AJb8xGov5AEv"},
		{`curl -H "Authorization: Splunk 3d92d4b8-c7be-4768-8f1f-9a142485f98d" https://splunk.example.com`, SecretToken, "3d92d4b8-c7be-4768-8f1f-9a142485f98d"},
		{"Authorization: key=AAAA2_VtruB:APA91bSWq92slIquKX96m9ESSyoH4vgfc4ubSW5rUq", SecretToken, "APA91bSWq92sl"},
		{`headers = {"Authorization": f"Bearer {'JX_duYbK2mgkBKA8avCigJxUjt0g68TT'}"}`, SecretToken, "JX_duYbK2mgkBKA8avCigJxUjt0g68TT"},
		{`Authorization: Digest-X9 Kq8Wm2Rt5Yx1Zb4Nc7Vd0Hf`, SecretToken, "Kq8Wm2Rt5Yx1Zb4Nc7Vd0Hf"},
		// neighbours that stay
		{`headers = {"Authorization": f"Bearer {api_token}"}`, "", ""},
		{`Authorization: Bearer ${TOKEN}`, "", ""},
		{`proxy_set_header Authorization $http_authorization;`, "", ""},
		{"Authorization: Basic <base64 of user:password>", "", ""},
		{"The Authorization header carries the session token.", "", ""},
		{"Authorization: Splunk your-hec-token-here-0000", "", ""},
	})
}

// Passwords in prose: "(pass X)", three words and a number, a copula after a short word, a long
// label, user : password after a word for credentials, an administrator's name and a slash.
func TestFindSecretsRound7Prose(t *testing.T) {
	checkSecrets(t, []secretCase{
		{"ssh market@203.0.113.63 (pass FNUG3320!xloey)", SecretPassword, "FNUG3320!xloey"},
		{"he asked for my cPanel password (QAII0143!eqwin) and", SecretPassword, "QAII0143!eqwin"},
		{"ssh root@203.0.113.48, password transfer-vast-camp-43, port 2222.", SecretPassword, "transfer-vast-camp-43"},
		{"FTP host ftp.example.net\nuser deploy\npass night-help-maze-76\n", SecretPassword, "night-help-maze-76"},
		{"La clave del panel es Lunch7359$foil, cámbiala.", SecretPassword, "Lunch7359$foil"},
		{"password for the zip with the source: Melt6085.carr", SecretPassword, "Melt6085.carr"},
		{"creds for the staging admin -> lin.wei : YLSB2858$jkhus", SecretPassword, "YLSB2858$jkhus"},
		{"I sent 'root / shallow-broom-general-24' on the 3rd", SecretPassword, "shallow-broom-general-24"},
		{"admin/Kq8!wm2Rt5 works on the router", SecretPassword, "Kq8!wm2Rt5"},
		// neighbours that stay
		{"all tests pass (42/42)", "", ""},
		{"run $(pwd)/bin/start", "", ""},
		{"clave pública: 7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV", "", ""},
		{"the password for the zip with the source is in the README", "", ""},
		{"branch feature-branch-reset-v2 merged; password policy unchanged", "", ""},
		{"copy it to /root/backups/2024 and /admin/logs", "", ""},
		{"login page -> shop.example : 443", "", ""},
		{"the build passes release-notes-draft-12", "", ""},
	})
}

// A password or key handed to a connection's or a client's constructor as a positional
// argument; other arguments (hosts, users, files, nested calls) stay.
func TestFindSecretsRound7Calls(t *testing.T) {
	checkSecrets(t, []secretCase{
		{"$pdo = new PDO('mysql:host=192.0.2.41;dbname=shop', 'root', 'CFLU6166$bkczj');", SecretPassword, "CFLU6166$bkczj"},
		{`var cred = new NetworkCredential("app", "Season!Odor47");`, SecretPassword, "Season!Odor47"},
		{"Net::SMTP.start('smtp.example.net', 587, 'shop', 'deploy', 'Shoulder7255.chil', :login)", SecretPassword, "Shoulder7255.chil"},
		{`conn = DriverManager.getConnection("jdbc:mysql://db:3306/shop", "app", "Kq8!wm2Rt5x");`, SecretPassword, "Kq8!wm2Rt5x"},
		{"conn = psycopg2.connect('dbname=shop', 'app', 'Harbor7712!x')", SecretPassword, "Harbor7712!x"},
		{"ftp.login('deploy', 'night-help-maze-76')", SecretPassword, "night-help-maze-76"},
		{"r = redis.Redis('cache.internal', 6379, 0, 'Meadow4471!rock')", SecretPassword, "Meadow4471!rock"},
		{"ftp = Net::FTP.new('ftp.example.com', 'deploy', 'Meadow4471!rock')", SecretPassword, "Meadow4471!rock"},
		{"client = Postmark::ApiClient.new('3655fd1f-0131-45c4-84f7-cdf6ea9f0379')", SecretAPIKey, "3655fd1f-0131-45c4-84f7-cdf6ea9f0379"},
		{"const client = new RestClientV5({ key: 'XDJeCfLhkWkjJWOvT0', secret: '9Ev2GZmSmYxNK5BMSXDEQIcdfAz3Aw54BN0i' });", SecretAPIKey, "XDJeCfLhkWkjJWOvT0"},
		{"client = Client('128e7462629e70d943e8fd1c', '83536284-e077-4e56-a0e7-812dd3467aee', 'basket-alien-nerve-36')", SecretAPIKey, "128e7462629e70d943e8fd1c"},
		// neighbours that stay
		{"$pdo = new PDO($dsn, $user, $pass);", "", ""},
		{"smtp.login(user, os.environ['SMTP_PASSWORD'])", "", ""},
		{"ftp.login('anonymous', 'guest')", "", ""},
		{"s3 = boto3.client('s3', region_name='eu-west-1')", "", ""},
		{"client = OpenAI(api_key=os.getenv('OPENAI_API_KEY'))", "", ""},
		{"client = Client(open('config.json').read())", "", ""},
		{"httpClient.get('https://api.example.com/v2/orders')", "", ""},
	})
}

// A column whose name is a secret word makes its cells secrets: CSV, Markdown tables, SQL
// INSERT; SQL's IDENTIFIED BY. Hash, hint and date columns, placeholders and empty cells stay.
func TestFindSecretsRound7Tables(t *testing.T) {
	const hexKey = "41c330879b925e0624696ee52fc3595bf3a961c2bb6db1d56e2dda4fc446de02"
	checkSecrets(t, []secretCase{
		{"service,user,password\nwordpress,ana.souza,Faith!Limb68\nftp,deploy,Hundred8490!oval", SecretPassword, "Hundred8490!oval"},
		{"service,user,password\nwordpress,ana.souza,Faith!Limb68\nftp,deploy,Hundred8490!oval", SecretPassword, "Faith!Limb68"},
		{"id,email,api_secret\n323,lena@example.com,c840674a76090857ffe0c3fd011de21dfd3d1781ca8dbebd", SecretGeneric, "c840674a76090857"},
		{"| service | login | password |\n|---|---|---|\n| grafana | admin | tourist-traffic-sign-48 |\n| rabbitmq | orders | ^3PC+oyjrtFhooBO |", SecretPassword, "^3PC+oyjrtFhooBO"},
		{"| service | login | password |\n|---|---|---|\n| grafana | admin | tourist-traffic-sign-48 |", SecretPassword, "tourist-traffic-sign-48"},
		{"INSERT INTO hot_wallets (chain, address, pk_hex) VALUES ('polygon', '0xdcf583f5afb82a057574c745edbc34d04fc42f3e', '" + hexKey + "');", SecretPrivateKey, hexKey},
		{"INSERT INTO users (name, password) VALUES ('ana', 'Kq8!wm2Rt5'), ('bo', 'Zx9#Lm4Qp7');", SecretPassword, "Zx9#Lm4Qp7"},
		{"ALTER USER 'shop'@'%' IDENTIFIED BY 'Noise3259$stam';", SecretPassword, "Noise3259$stam"},
		{"CREATE USER app IDENTIFIED WITH mysql_native_password BY 'Kq8!wm2Rt5';", SecretPassword, "Kq8!wm2Rt5"},
		// neighbours that stay
		{"id,email,password_hash\n1,ana@example.com,$2b$12$Kq8Wm2Rt5Yx1Zb4Nc7Vd0uHf3Jg6Lp9S", "", ""},
		{"| field | type | password policy |\n|---|---|---|\n| login | text | min 12 chars |", "", ""},
		{"user,password\nana,\nbo,<set on first login>", "", ""},
		{"INSERT INTO users (name, password_hash) VALUES ('ana', 'Kq8Wm2Rt5Yx1Zb4Nc7Vd0uHf3Jg6Lp9S');", "", ""},
		{"INSERT INTO tokens (id, token) VALUES (1, ?);", "", ""},
		{"INSERT INTO wallets (chain, address) VALUES ('base', '0xdcf583f5afb82a057574c745edbc34d04fc42f3e');", "", ""},
		{"ALTER USER app IDENTIFIED BY '${DB_PASSWORD}';", "", ""},
		{"name,token\nUSDC,0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "", ""},
		{"test,result,pass\nlogin,ok,PASS\nlogout,ok,FAILED", "", ""},
		{"| step | pass |\n|---|---|\n| build | yes |\n| deploy | skipped |", "", ""},
	})
}

// A 64-hex value handed to a call that signs with a private key is the key, whatever the
// argument's place or a hash word before it (tx_dict); a hash given to a call signing a hash stays.
func TestFindSecretsRound7SigningCalls(t *testing.T) {
	const key = "9b86bfd86955a9e6b2cded28729b3f2eb01d216be0d26879f37c8f27d05a4b0c"
	checkSecrets(t, []secretCase{
		{`signed = w3.eth.account.sign_transaction(tx_dict, "0x` + key + `")`, SecretWalletKey, key},
		{`acct = Account.from_key("0x` + key + `")`, SecretWalletKey, key},
		{`const w = new ethers.Wallet("0x` + key + `", provider);`, SecretWalletKey, key},
		{`const account = privateKeyToAccount('0x` + key + `')`, SecretWalletKey, key},
		{`key, _ := crypto.HexToECDSA("` + key + `")`, SecretWalletKey, key},
		// neighbours that stay
		{`receipt = w3.eth.get_transaction_receipt("0x` + key + `")`, "", ""},
		{`sig = account.unsafe_sign_hash("0x` + key + `")`, "", ""},
		{`print(tx_hash("0x` + key + `"))`, "", ""},
	})
}

// A Kubernetes Secret's data value that decodes to a credential (or to any value under a secret
// key) goes; one that decodes to a setting stays.
func TestFindSecretsRound7EncodedData(t *testing.T) {
	stripe := "c2tfbGl2ZV81MUVFVUVNcHp4c216QUtnU3ZpNnFHazY0bUxEaFpkWlE3NnRQV2pvZHo4b2FHVWNqaXczMnU1VTBjY2xDanRtcE5HZTlZVVZ4Zk1rUk5uOFRsNFlmZ0RWT2NPaWtObE1ZR0s="
	checkSecrets(t, []secretCase{
		{"data:\n  STRIPE_KEY: " + stripe + "\n  LOG_LEVEL: aW5mbw==", SecretAPIKey, stripe},
		{"kind: Secret\ndata:\n  DB_PASSWORD: S3E4IXdtMlJ0NXg=\n", SecretPassword, "S3E4IXdtMlJ0NXg="}, // Kq8!wm2Rt5x
		{"stringData:\n  API_TOKEN: \"Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1\"\n", SecretToken, "Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1"},
		// neighbours that stay
		{"data:\n  LOG_LEVEL: aW5mbw==\n  REGION: ZXUtd2VzdC0x\n", "", ""},
		{"kind: ConfigMap\ndata:\n  app.mode: production\n  workers: \"4\"\n", "", ""},
	})
}

// "API key", "secret" and "token" in Chinese, Japanese and Korean, and a key word a sentence
// before its value's colon.
func TestFindSecretsRound7KeyWords(t *testing.T) {
	checkSecrets(t, []secretCase{
		{"API 密钥：vnd9fvv0lmn1PU7sFMB82083yy28g9Ko，只读权限", SecretAPIKey, "vnd9fvv0lmn1PU7sFMB82083yy28g9Ko"},
		{"APIシークレットは 7454f0b330f195c2c0bef34900301e26ba35f815ef50ad0b34055fff7f288566 です。", SecretAPIKey, "7454f0b330f1"},
		{"API 시크릿 키: HZHMsIPAIiNvvy6KRgKq83MECfemoKwCjURkgE38", SecretAPIKey, "HZHMsIPAIiNvvy6KRgKq83MECfemoKwCjURkgE38"},
		{"访问令牌：Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1", SecretAPIKey, "Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1"},
		{"use this key for the sandbox, it has 100 USD credit: 7PXOf5cz4h0aEN2L3r9T4ukiXrN3zTl5", SecretAPIKey, "7PXOf5cz4h0aEN2L3r9T4ukiXrN3zTl5"},
		// neighbours that stay
		{"交易哈希：7454f0b330f195c2c0bef34900301e26ba35f815ef50ad0b34055fff7f288566", "", ""},
		{"키: 180cm, 몸무게: 75kg", "", ""},
		{"keystore: UTC--2026-07-12T10-00-00Z--4a2ef424a2c7c182a849e5e9427fda1f64e1b255", "", ""},
		{"api key: 437ead48-d50d-8289-e2f6-4dbb905ebff2", "", ""},
		{"use this key for the sandbox, it has 100 USD credit: see the dashboard", "", ""},
		{"the key fingerprint for the release, published on the site: 7PXOf5cz4h0aEN2L3r9T4ukiXrN3zTl5", "", ""},
	})
}

// A link's password is text as is: dots and a leading $ with symbols make no reference; $VAR,
// ${VAR} and {{ var }} do. Key words in more languages, and a copula between word and value.
func TestFindSecretsRound7LinksAndLanguages(t *testing.T) {
	checkSecrets(t, []secretCase{
		{"mongodb+srv://admin:$tr0ngP4ss!@cluster0.example.net/db", SecretConnection, "$tr0ngP4ss!"},
		{"amqps://svc:Pa.ss.w0rd@mq.example.com:5671", SecretConnection, "Pa.ss.w0rd"},
		{"clave API de Kraken: Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1", SecretAPIKey, "Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1"},
		{"chave da API: Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1", SecretAPIKey, "Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1"},
		{"API-Schlüssel lautet Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1", SecretAPIKey, "Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1"},
		{"токен бота: Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1", SecretAPIKey, "Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1"},
		// neighbours that stay
		{"redis://default:$REDIS_PASSWORD@redis:6379", "", ""},
		{"postgres://app:{{ db_password }}@db/shop", "", ""},
		{"mysql://app:%(password)s@db/shop", "", ""},
		{"the enclave: Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1", "", ""},
		{"token address 0x7148d2a8ea345fb424669a75c6933f9682e2d5fe, token id 71699, tokenURI ipfs://Qm6UQCs9oipWNeDPwVuQApjnRd9LBuD76U54wk1ioQvVVZ", "", ""},
	})
}

// An XML element named for a secret holds one; a placeholder, a reference or a hash does not.
func TestFindSecretsRound7XMLElements(t *testing.T) {
	checkSecrets(t, []secretCase{
		{"<password>Meadow4471!rock</password>", SecretPassword, "Meadow4471!rock"},
		{"<server><id>repo</id><password>Meadow4471rock</password></server>", SecretPassword, "Meadow4471rock"},
		{"<apiToken>Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1</apiToken>", SecretToken, "Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1"},
		// neighbours that stay
		{"<password>${env.REPO_PASSWORD}</password>", "", ""},
		{"<passwordPolicy>strict</passwordPolicy>", "", ""},
		{"<tokenUrl>https://auth.example.com/token</tokenUrl>", "", ""},
		{"<password>{{ repo_password }}</password>", "", ""},
	})
}

// Neighbours of the round's classes that must stay: an address after "token", a client's name,
// a table about passwords.
func TestFindSecretsRound7Neighbours(t *testing.T) {
	checkSecrets(t, []secretCase{
		{"Token contract: 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "", ""},
		{"token 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48 on mainnet", "", ""},
		{"const client = new Client('projectAbc123DefGhi');", "", ""},
		{"password,strength\nhunter2,weak\nTr0ub4dor&3,medium", "", ""},
		{"symbol,token_address\nUSDC,0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "", ""},
		{"passport.authenticate('local', { failureRedirect: '/login' })", "", ""},
		// and what still goes next to them
		{"const client = new Client({ apiKey: 'projectAbc123DefGhi' });", SecretAPIKey, "projectAbc123DefGhi"},
		{"const client = new Client('Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1Qa5');", SecretAPIKey, "Zq4Xr8Tn2Wm6Yp0Ks3Lv7Hj1Qa5"},
	})
}

// A table's header is a row of column names: a line of quoted file names with "secret" in one
// is not a header, and file names are not cells' secrets.
func TestFindSecretsRound7TableHeaders(t *testing.T) {
	checkSecrets(t, []secretCase{
		{"\t{\"first\", \"credential_secret.txt\", \"credential_lookalike.txt\"},\n\t{\"second\", \"heldout2_secret.txt\", \"heldout2_lookalike.txt\"},", "", ""},
		{"name,secret_file\napi,secrets/api_key.txt", "", ""},
		{"名前,密码\nana,Kq8!wm2Rt5", SecretPassword, "Kq8!wm2Rt5"},
	})
}
