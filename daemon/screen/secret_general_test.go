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

// Tokens of more services by their own prefix and shape, wherever they stand (here after words
// that name nothing), and their look-alikes: the prefix alone or in prose, placeholders, a run
// of one character, public counterparts (a Supabase publishable key, a Langfuse public key),
// hashes of the same length without the prefix.
func TestSecretPrefixedTokens(t *testing.T) {
	var found []string
	for _, tok := range prefixedTokens {
		found = append(found, "here you go: "+tok)
	}
	checkMarked(t, append(found,
		"ASANA_PAT=«2/3409271317428960/7798045466303418:447ab57a683536c4499d863386ce10cd»",
		"client = asana.Client.access_token('«1/3409271317428960:447ab57a683536c4499d863386ce10cd»')",
	), []string{
		"The pcsk_ prefix marks a Pinecone key; lsv2_pt_ a LangSmith one; never paste them.",
		"sk_ keys from ElevenLabs start with sk_ and 48 hex digits",
		"ATBB is the prefix of a Bitbucket app password",
		"sl.B is the start of a Dropbox short-lived token",
		"SUPABASE_PUBLISHABLE_KEY=sb_publishable_Xy7q2LmN9vR4tB8kW1zE3pQ6",
		"LANGFUSE_PUBLIC_KEY=pk-lf-1c2d3e4f-5a6b-7c8d-9e0f-a1b2c3d4e5f6",
		"sk_000000000000000000000000000000000000000000000000",
		"pat-na1-00000000-0000-0000-0000-000000000000",
		"pat-na1-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
		"commit 447ab57a683536c4499d863386ce10cd9e1f3a5c Merge branch",
		"sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"fw_version = 'fw_3a9f2c1d7e6b5a4c3d2e1f0a'",
		"patterns.e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"dt0c01 is Dynatrace's token version",
		"see https://app.asana.com/0/1203456789012345/1203456789012399 for the task",
		"rubygems_api_key: <your key>",
		"the fw_version is 2.1",
	})
}

// A Wi-Fi QR code's password, the private lines of a PuTTY key file, ngrok's auth token; their
// look-alikes: a QR code with a placeholder or no password, a PuTTY file's public lines alone,
// ngrok's command without a token.
func TestSecretWifiPuttyAgentToken(t *testing.T) {
	checkMarked(t, []string{
		"WIFI:T:WPA;S:HomeNet;P:«Tr0ub4dor&3x»;;",
		`WIFI:S:Cafe\;Bar;T:WPA2;P:«lemon-grove-48»;H:false;;`,
		"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ed25519-key-20261101\nPublic-Lines: 2\n" +
			"AAAAC3NzaC1lZDI1NTE5AAAAInkTY88mHwg2KDInTEGbOY1xHvAV8DnRlzGW7hUNw\nRlzGW7hUNw\nPrivate-Lines: 1\n«AAAAIg5ApYzTTOkq2BEDbN2AHRQ73l5PuXay1F6gcqI=»\nPrivate-MAC: 91925fe6d7ab",
		"ngrok config add-authtoken «2SoGOsDbjqMVzaVp62BSKLVPA2o_QUP44XPSL2oRlPhDBuqOS»",
		"version: \"2\"\nauthtoken: «2SoGOsDbjqMVzaVp62BSKLVPA2o_QUP44XPSL2oRlPhDBuqOS»",
	}, []string{
		"WIFI:T:WPA;S:HomeNet;P:<password>;;",
		"WIFI:T:nopass;S:GuestNet;;",
		"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: key\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAInkTY88mHwg2KDInTEGbOY1xHvAV8DnRlzGW7hUNw\nRlzGW7hUNw",
		"ngrok config add-authtoken $NGROK_AUTHTOKEN",
		"ngrok config add-authtoken <token>",
	})
}

var prefixedTokens = []string{
	"«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»",
	"«pcsk_DL7Dx_tpYlSXpfKtHF4vUCsMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rESQedUS»",
	"«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»",
	"«pat-na1-c48bbf33-feff-9243-a8f5-06b40928b5b7»",
	"«pscale_pw_IIXGvOoNZYW2mZp0zVZomHFwUbbYrEqmSM9wCZ7Uw9x»",
	"«pscale_tkn_fogoEmvnEN5N1aE6PwZPf1Qh6yYTWmE4lBYOvfZ8UzD»",
	"«FLWSECK-c255404e4fb440034d6608697a8d41be-X»",
	"«QL05HA064GiIjH.atlasv1.Gb3CXlMaXZjljENUhJduRHHJEYXg4JdpmrcXgGCJbW56eCuNGMGmSrCGIZEG8pSH448»",
	"«pat7q7J58m1CiAhzC.a27d26934b484e73cf575dcad6ba2b0aee0ca923732881584d8c4fa2815d2802»",
	"«sl.BZqfM2oeq3hDavJA76rNicHTp8hkqdlm7tOtHWnsCGRlrwZbqcabUGJmGEp7CgQ0PBQFI14zGtSnovm14TUOizwd1iaeOV4qBkdfQ1y3GQsMpSscDlkrCaqx9vJupc94tnw»",
	"«ATBBlavyfErGPmpGXafq0fjzLczbttOofL9H»",
	"«CCIPAT_2WjQ5TY4MyWuUFjsUNPjc0_d4072014b3ce107f80e222f828767efc2f91624a»",
	"«CFPAT-qPVStNKiaEdFrRgSnRFsTHsDDDXh5Jmtf7EbsDe0G9C»",
	"«FlyV1 fm2_ryn687neLfjVHq8xiM0OGr4hTxoF54Fzbka8FRCztUjAwyuh1vauWv1zh87mTa5Vsqxezy3Lex7BWr2d»",
	"«rubygems_8319478da6bd0c621de49f145fda9988c79fc35526f7eaed»",
	"«duffel_live_iJmpflvJfupxqZKm4bV3AyAVHnyrvWdFrK9xiRGHOY3»",
	"«EZAK6287cced9041dff02cee737443e210471948d33296c87009e8a7f7»",
	"«dt0c01.9PB0TDBM50FQO1XO5CV0XZMA.S6EN5MTMO3OQSG5LO50DJZDNBJ0DDLZ2UHFKVML73CTYXV2KGAFRFW0H9NYWT1FD»",
	"«bkua_f6be6abf0d7c1c1e21862ab8a18a8902073fec8d»",
	"«pnu_0Fi7FlaZ7Vt0SXjMpu3uDxYYMfGmzWkpAePc»",
	"«sgp_fa5d328263dfe574de739988b886e7577496a2c8»",
	"«tfp_pGHoPZgPDcgaE40o1C6xc4sohdmM0Lm7exG3lCMqXXQ8»",
	"«tgp_v1_agOMTNwncxvjcnqcMUP6n0a0uARxlNtencYFJEeAgYz»",
	"«sb_secret_QJjOIfPkzSrAsQtA9dtVK4wAAb3XZxPm»",
	"«y0_zUzn8aB5kBh0fzK4xDXkiadJjPZ6zfKN7xVGkjwskHk7egyFWZY9Zmt»",
	"«sk-lf-41fa1c25-7c6f-561c-5cb3-47611a3ce9d9»",
	"«sk_7dcbee500fe7ee5fc324bdb2e1142a21c402364f9572b85a»",
	"«sk-8e48f687ab165c58ac5831be38cb8cb4»",
	"«re_xvWfColN_V9ds0HqtO93L7Q5uUaVcojsN»",
	"«fw_OBAGx5diFoNPcbdaKwtgHwIo»",
	"«dapid946bf54074e3248c801bef750110c57»",
	"«access_token$production$kdga9mj0m760l6te$91f0cde2e5738713a818d8962058765a»",
	"«dG9rOjm4yvMpy62O6SQ1IEE1HSa2bB9UoK4tYnzNLeK6kjcbhgN7kwjSbbci=»",
	"«AAAAAAAAAAAAAAAAAAAAASPOcSeVce2LWxm090I5Q%2Be43W6T8ygpnnhcc826ZWOf0WOOsEgi%3DgYWPnsuvBqbwq7sdTWx6uX9MGE2sNVbYAbBHXgwETdIKnT30fK»",
	"«vcp_0skBaHmsWWdawFgFSY0l9FLw91GqK8ks0n8SoFkh»",
	"«oy2f59guwgzzf1bxntq186kyo3i8cwu7j29uk32qoiv3p6»",
}

// An id and a secret handed side by side to a client's constructor or factory, with no key word;
// a password of small words and digits given after the user to a login call. Their look-alikes:
// a key the line calls public (search-only, publishable, anon), environment reads, two hashes
// compared or asserted, a transaction's hashes, a translation, a path, a user alone.
func TestSecretClientPairsAndLoginCalls(t *testing.T) {
	checkMarked(t, []string{
		"twitch = Twitch('qujo803wp8jmi7zmer3fv1wl71c8li', '«ukzdx6cn80em0y5tth97ogponi1e08»')",
		"const client = algoliasearch('O4CGBNUO1K', '«cccd85d43c65c42b5d3f65ace4aae986»'); // admin key, server only",
		`!function(){var x=algoliasearch("7OPKSQDJ9A","«9d389faef34abea36b5efde2a6d305ad»");x.initIndex("p")}();`,
		"const kraken = new KrakenClient('731O7I9xmAG0fMsTUoouc5v4HScQsRGq6oKIVoXYiUC7mcx6GPr/LTLW', '«/fDAUTJ+Qzi8CkKk44pWWDD7Vd1RqMkWg5SXBAEDEHVSpCKwE0ck3RgqIZhGdWbvEb6OAKlgBT6J15TZ3G35DA==»');",
		"auth = tweepy.OAuthHandler('Xq7mW2kLz9RtB4vN1cPe', '«k8Zr3Tq9vLm2Xw7Bn4Cd1Fg6Hj0Kp5Rs8Uy2Wz4Ae6»')",
		"pusher = Pusher('1734982', '«9f3c2a1b7e5d4c8a6b0f»')",
		"server.login(user, '«walnut_sparrow-20»')",
		"smtp.login('alerts@shop.example', '«maple.finch.2044»')",
		"conn.bind_s('cn=admin,dc=shop', '«cedar-harbor-77»')",
	}, []string{
		"algoliasearch('I9W9F5OPC1', 'f14cc80e9b5eebe9b7f58c28c1d66795') // search-only key, safe in the browser",
		"const client = algoliasearch('8OX7MU11LK', 'e53dd9cda0b7aa99d43231eca30652d7'); // search-only key, public",
		"twitch = Twitch(os.environ['TWITCH_ID'], os.environ['TWITCH_SECRET'])",
		"const client = algoliasearch('3XCL427M94', process.env.ALGOLIA_ADMIN_KEY);",
		"assertEqual('9d389faef34abea36b5efde2a6d305ad', 'cccd85d43c65c42b5d3f65ace4aae986')",
		"Compare('e3b0c44298fc1c149afbf4c8996fb924', '27ae41e4649b934ca495991b7852b855')",
		"Transfer('0x52908400098527886E0F7030069857D2E4169EE7', '0x8617E340B3D01FA5F11F306F4090FD50E238070D')",
		"new Intl.NumberFormat('de-DE', 'currency-EUR-2dp-rounded-v12')",
		"Backup('/var/lib/db/main.db', '/mnt/backup/2026-11-29/main.db')",
		"const sb = createClient('shop-prod-eu', 'Xq7mW2kLz9RtB4vN1cPe6Yh3') // anon key, fine in the browser",
		"Pusher('1734982', 'eu')",
		"Sku('WIDGET-BLUE-XL', 'A7F3K9Q2M8R4T6V1W5Y0')",
		"Download('setup-2.4.1.exe', '9d389faef34abea36b5efde2a6d305ad') # md5",
		"server.login(user, password)",
		"server.login('alerts@shop.example', os.environ['SMTP_PASSWORD'])",
		"smtp.login('alerts@shop.example', '<password>')",
		"client.login('release-bot-2026')",
	})
}

// Strings joined by concatenation are read as the one string they make: a key cut in two, each
// half too short to read as one, goes whole. Their look-alikes: joined strings of prose, SQL, a
// URL, a hash cut in two, a public key.
func TestSecretJoinedStrings(t *testing.T) {
	checkMarked(t, []string{
		"const key = \"«sk_live_NdiPA»\" +\n  \"«AyaYSlOcwsUsMic2wHE1yzBKoNx»\";",
		"token = ('«ghp_8fK2mQ»'\n         '«x9LzR4vT1nWc7YbE3pJ6sH0dA5uG2kN»')",
		"$pw = '«Kq8#mW»' . '«2xLz!9»';",
		"String password = \"«Tulip$»\" + \"«8842vx»\";",
		"api_key: \"«d076dba599ad35»\" + \"«a8c38556bd76c75cd6»\"",
	}, []string{
		`const q = "SELECT id, name " + "FROM users WHERE active = 1";`,
		`msg = ("Your order has shipped and "` + "\n" + `       "will arrive within three days.")`,
		`url = "https://api.example.com" + "/v1/orders?page=2"`,
		`const tx = "0x8f3a2c9d1e7b4a6f0c5d8e2b9a1f7c3e" + "4d6a8b0c2e1f3a5c7e9b1d3f5a7c9e2b";`,
		`const pk = "pk_live_51HqLy" + "jWDarjtT1zdp7dcEXAMPLEkey00";`,
		`label = "Password" + ": "`,
	})
}

// A password after the word for it in more languages (Bulgarian, Malay, Lithuanian, Estonian,
// Croatian, Albanian, Basque, Galician, Welsh, Irish, Afrikaans, Uzbek and Azerbaijani, Georgian,
// Armenian, Kazakh, Mongolian, Tamil, Amharic); their look-alikes: the same words in prose
// with no password after them.
func TestSecretPasswordWordsMoreLanguages(t *testing.T) {
	words := []string{"парола:", "kata laluan:", "slaptažodis:", "salasõna:", "zaporka:", "fjalëkalimi:", "pasahitza:",
		"contrasinal:", "cyfrinair:", "pasfhocal:", "wagwoord:", "parol:", "პაროლი:", "գաղտնաբառ:", "құпия сөз:",
		"нууц үг:", "கடவுச்சொல்:", "የይለፍ ቃል:"}
	var found []string
	for i, w := range words {
		found = append(found, w+" «"+[]string{"Tulpe!4482", "Perla*7721", "veloz88Xq#", "N0rte#552v"}[i%4]+"»")
	}
	checkMarked(t, found, []string{
		"парола: същата като миналия път",
		"kata laluan: tanya pentadbir sistem",
		"slaptažodis: paklauskite administratoriaus",
		"cyfrinair: gofynnwch i'r gweinyddwr",
		"wagwoord: vra die administrateur",
		"the prisoner was released on parole last May",
		"parol: administratordan so'rang",
	})
}

// Credentials of network configurations and services named by their own fields: a Wi-Fi or VPN
// pre-shared key, an SNMP community, an IRC services password, a Lightning macaroon, a
// Terraform variable's default under a secret's name, a key handed over in prose ("use X as the
// api key", "my api key → X"); a prose word after a password label. Their look-alikes: flags
// and placeholders in the same files, the default communities, public keys, a variable without
// a default or named for something else, prose.
func TestSecretNetworkAndBlockValues(t *testing.T) {
	checkMarked(t, []string{
		"[wifi-security]\nkey-mgmt=wpa-psk\npsk=«s7Vq!kR2mW»",
		"network={\n    ssid=\"HomeNet\"\n    psk=\"«Zq8!vN2wLp»\"\n}",
		"10.0.0.1 10.0.0.2 : PSK \"«Harbor$7731q»\"",
		"snmp-server community «Xk9LYfaBfBDg» RO",
		"rocommunity «n0c-Mon1tor» 10.0.0.0/8",
		"/msg NickServ IDENTIFY «Harbor$7731q»",
		"/msg NickServ IDENTIFY bob «Harbor$7731q»",
		"macaroon: «0201036c6e6402f801030a1058b504ee8fa5a41c4e63cadaa62277c57d7a25112fc68ea05dda854fb4fee5ef9ee3f1e63bf0cda1643d03464780b1161676605e8fbbba790e3516c9ba5fa9ff0f082a30db05bbba8a8c57922f2263bca77148c50»",
		"variable \"db_password\" {\n  type    = string\n  default = \"«Gl4cier#Pine88»\"\n}",
		"variable \"stripe_api_key\" {\n  default = \"«rk_9fK2mQx9LzR4vT1nWc7YbE3p»\"\n}",
		"use «o2qh20xlReGsaL1dvnyzv0ZzyA0xIfl4» as the api key",
		"my api key → «ysCW9f4CA96qeGs6R3uYEIi75qB4sA9Q»",
	}, []string{
		"[wifi-security]\nkey-mgmt=wpa-psk\npsk-flags=1",
		"network={\n    ssid=\"HomeNet\"\n    psk=<your-wifi-password>\n}",
		"snmp-server community public RO",
		"snmp-server community private RW",
		"/msg NickServ IDENTIFY <password>",
		"variable \"db_password\" {\n  type      = string\n  sensitive = true\n}",
		"variable \"region\" {\n  default = \"eu-west-1-Zq8vN2wLp\"\n}",
		"variable \"db_password\" {\n  default = \"${var.fallback}\"\n}",
		"use 8 spaces as the indent",
		"use the key as the token for now",
		"Google app password: generate one under Security",
		"the request id → 6f1c2a9e-4b3d-4e8a-9c7b-1d2e3f4a5b6c",
	})
}

// A value piped or fed as a here-string into a command that stores a secret; a Markdown table
// whose header follows words on its line; an empty value in a connection string's pair is none.
// Their look-alikes: variables piped in, other pipes, a table about keys without one, empty pairs.
func TestSecretPipedTablesAndEmptyPairs(t *testing.T) {
	checkMarked(t, []string{
		`vercel env add API_SECRET production <<< "«sJ1AwaPX8JqdF7fLnV8RqW3Ab6qcX3XE»"`,
		`echo -n '«sJ1AwaPX8JqdF7fLnV8RqW3Ab6qcX3XE»' | wrangler secret put API_KEY`,
		`printf '%s' "«Harbor$7731q»" | gh secret set DB_PASSWORD`,
		`echo '«Harbor$7731q»' | firebase functions:secrets:set DB_PASSWORD`,
		"Review (4/5): | Service | Key | Owner |\n|---|---|---|\n| Mailchimp | `«cc127beac332a6219558f196e697f655-us3»` | marketing |\n| Datadog | `«d076dba599ad35a8c38556bd76c75cd6»` | ops |",
	}, []string{
		`echo "$API_KEY" | gh secret set API_KEY`,
		`gh secret set API_KEY < key.txt`,
		`echo done | tee secret.log`,
		`vercel env add API_SECRET production <<< "$API_SECRET"`,
		"Review: | Service | Key | Owner |\n|---|---|---|\n| Mailchimp | (in vault) | marketing |",
		"Pwd=;Encrypt=yes;",
		"Server=db;Database=crm;Pwd=;Encrypt=yes;",
		"password=;timeout=30;",
	})
}

// Credentials given to commands: a password flag after a user flag in any tool, credentials by
// position (mc alias set, http-basic, a token after a login subcommand), an expect script's
// answer to a password prompt, an XML password element with attributes, the value a console
// prints after a command that reads a secret. Their look-alikes: ports and projects after -p,
// variables, prompts, other output.
func TestSecretCommandCredentials(t *testing.T) {
	checkMarked(t, []string{
		"cqlsh -u cassandra -p «m0ss-Otter!42» 10.0.0.4",
		"psexec \\\\10.0.0.5 -u Administrator -p «Tulip$8842vx» cmd",
		"schtasks /Create /TN nightly /TR backup.bat /RU CORP\\svc /RP «Tulip$8842vx»",
		"influx -username admin -password '«Gl4cier#Pine88»'",
		"mc alias set myminio http://10.0.0.9:9000 QF71CY951HGEUGM3FH1Z «RsHhyjx3qtg56zArq6iF9ndycwCnHPJf0JoLbzOI»",
		"composer config http-basic.repo.example.com deploy «Tulip$8842vx»",
		"poetry config http-basic.private deploy «s7Vq!kR2mW»",
		"cargo login «ciokvNGF8k7rx9aYy9EY7AkdkrSCjDXGcCa»",
		"expect \"password:\"\nsend \"«s7Vq!kR2mW»\\r\"",
		`<Server><Host>ftp.example.com</Host><User>bob</User><Pass encoding="base64">«VHVsaXAkODg0MnZ4»</Pass></Server>`,
		"$ vault kv get -field=password secret/db\n«Harbor$7731q»",
		"op item get db --fields password\n«m0ss-Otter!42»\n",
		"kubectl get secret db -o jsonpath=\"{.data.password}\" | base64 -d\n«m0ss-Otter!42»",
		"$ gh auth token\n«gho_16C7e42F292c6912E7710c838347Ae178B4a»\n$ ",
		"clé d'API : «qugpmrNC93MvXkuGCLwW0LvHLe2e6spU4sqdlpb5»",
		"chave de API: «nUpcFEbazhHAvWx8zU59C1J38HD8auUQ»",
		"APIキー: «RdvkuH3dbpuZTv1xwn1k6nGJWt7nFt4G»",
		"the API key is «suJLpqaFmokkryHNgWwY3szi85MSjMqz»",
		"la clave de la API es «rEM4QAkBPZE3KmtSPQPsWedZgnXCZC3U»",
	}, []string{
		"docker run -u 1000:1000 -p 8080:80 -v data:/data web:v2",
		"ssh -l deploy -p 2222 10.0.0.5",
		"psql -U app -p 5432 -h db shop",
		"mysql -u root -p shop_db2 < dump.sql",
		"oc new-app -u dev -p APP_NAME=Shop2024",
		"az login -u bob@corp.example -p $AZ_PASSWORD",
		"mc alias set myminio http://10.0.0.9:9000 $MINIO_USER $MINIO_PASSWORD",
		"composer config http-basic.repo.example.com deploy ${REPO_TOKEN}",
		"cargo login",
		"then run cargo login and paste the token from crates.io",
		"expect \"password:\"\nsend \"$env(PASS)\\r\"",
		`<Pass encoding="base64"></Pass>`,
		"$ vault kv get -field=password secret/db\nError reading secret/db: permission denied",
		"kubectl get secret db -o jsonpath=\"{.data.password}\" | base64 -d",
		"$ base64 -d logo.b64 > logo.png\n$ ls",
		"token mint: EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
		"token address: 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
	})
}

// Values set apart from their names by a document's layout (an HTML table's label and value
// cells, a definition list, a password input's value, a YAML block scalar) and password and
// token words written short or split (pword, pswd, psw, pass word, PAT). Their look-alikes:
// cells and inputs without a secret, a block scalar of prose or under another name, "Pat" the
// name.
func TestSecretLayoutValuesAndWordVariants(t *testing.T) {
	checkMarked(t, []string{
		"<tr><td>Password</td><td>«Gl4cier#Pine88»</td></tr>",
		"<tr><th>API key</th><td><code>«olfGPytMy8tSrKAQkx8VQL044oyMIssT»</code></td></tr>",
		"<dl><dt>Token</dt>\n<dd>«qugpmrNC93MvXkuGCLwW0LvHLe2e6spU4sqdlpb5»</dd></dl>",
		`<input type="password" name="pw" value="«Kx9#mPq2vL»">`,
		`<input value="«Kx9#mPq2vL»" type=password>`,
		"db:\n  password: |\n    «Gl4cier#Pine88»\n  user: app",
		"pword: «m0ss-Otter!42»",
		"pswd: «Harbor$7731q»",
		"psw: «Gl4cier#Pine88»",
		"pass-word: «m0ss-Otter!42»",
		"pass word: «Harbor$7731q»",
		"PAT: «olfGPytMy8tSrKAQkx8VQL044oyMIssT»",
	}, []string{
		"<tr><td>Password</td><td>(ask Dana)</td></tr>",
		"<tr><td>Password</td><td>********</td></tr>",
		"<tr><td>Order</td><td>ORD-2024-118273</td></tr>",
		`<input type="password" name="pw" value="">`,
		`<input type="password" name="pw" placeholder="Password">`,
		`<input type="text" value="Kx9#mPq2vL">`,
		"description: |\n  Reset the password after the first login.",
		"script: |\n  echo Harbor7731",
		"Pat: I think the deploy is fine now",
		"pass word of it along to the team",
	})
}

// Other chains' private keys: Sui and Cardano by prefix, a Stellar secret seed by its checksum
// or by the words on its line, Substrate's secret seed, a Tendermint validator's private key
// object. Their look-alikes: a Stellar account (G...), a random run of capitals with no such
// word, public keys and addresses.
func TestSecretOtherChainKeys(t *testing.T) {
	checkMarked(t, []string{
		"sui keytool export: «suiprivkey1q2w9zzmc0z3d9e7mhwtr7xln5fecxdszkyvxxjy7xlk7p08rkc9d3l8mknu»",
		"payment.skey: «ed25519_sk1q2w9zzmc0z3d9e7mhwtr7xln5fecxdszkyvxxjy7xlk7p08rkc9d3l8mkn»",
		"here: «SBCCBAR47XTPDQTLGD4Q5R65AHSIQ5JUUIHQWDIEYNXNQDTR4D6XOQ4V»",
		"stellar seed «SVN4I4AACSH3WCXRHJN4Q5ZZPO3UNG76U5X6GQOZLYBKZNGPBOCSA3JK»",
		`Secret seed:       «0xc2dcf28cd751ae9a2f3e7d4340a8c4228b9e813cb672619eb0b520c760d310e3»`,
		`{"priv_key":{"type":"tendermint/PrivKeyEd25519","value":"«q3Vf8mX2kLz9RtB4vN1cPe6Yh3Wq7mW2kLz9RtB4vN1cPe6Yh3Wq7mW2kLz9RtB4vN1cPe6Yh3Wq7mW2kLz9RtB4==»"}}`,
	}, []string{
		"stellar account GCYHM4HLSQF5KM27S462VWDBTOI77SIR6V6M5VCYXO7SZYBXKPE33GEK",
		"ref SVN4I4AACSH3WCXRHJN4Q5ZZPO3UNG76U5X6GQOZLYBKZNGPBOCSA3JK in the batch log",
		`{"pub_key":{"type":"tendermint/PubKeyEd25519","value":"q3Vf8mX2kLz9RtB4vN1cPe6Yh3Wq7mW2kLz9RtB4vN1="}}`,
		"random seed: 0xc2dcf28cd751ae9a2f3e7d4340a8c4228b9e813cb672619eb0b520c760d310e3",
		"cardano address addr1q2w9zzmc0z3d9e7mhwtr7xln5fecxdszkyvxxjy7xlk7p08rkc9d3l8mknu",
	})
}

// A text whose quotes and brackets are HTML entities is read as it reads unescaped. Its
// look-alikes: escaped text without a secret, an escaped placeholder.
func TestSecretEscapedHTML(t *testing.T) {
	checkMarked(t, []string{
		"&lt;password&gt;«Harbor$7731q»&lt;/password&gt;",
		"{&quot;password&quot;: &quot;«Harbor$7731q»&quot;}",
		"{&#34;api_key&#34;:&#34;«qugpmrNC93MvXkuGCLwW0LvHLe2e6spU4sqdlpb5»&#34;}",
		"&lt;input type=&quot;password&quot; value=&quot;«Kx9#mPq2vL»&quot;&gt;",
	}, []string{
		"{&quot;password&quot;: &quot;&lt;your password&gt;&quot;}",
		"&lt;p&gt;Reset your password from the account page.&lt;/p&gt;",
		"{&quot;order&quot;: &quot;ORD-2024-118273&quot;, &quot;status&quot;: &quot;shipped&quot;}",
		"Tom &amp; Jerry&#39;s shop",
	})
}

// Android's debug keystore password, published with the SDK, opens nothing of the seller's;
// a release keystore's password after the same names still goes.
func TestSecretAndroidDebugKeystore(t *testing.T) {
	checkMarked(t, []string{
		"storePassword=«android2024!»",
		"keyPassword=«Android#77x»",
	}, []string{
		"storePassword=android",
		"signingConfigs { debug { storePassword 'android'\nkeyPassword 'android' } }",
	})
}

// A value opening with % that is no reference nor format (one %, capitals, small letters and
// digits) is the value; Windows' %VAR%, Python's %(name)s, %s and %{x} are references.
func TestSecretPercentValues(t *testing.T) {
	checkMarked(t, []string{
		"password: «%UtQY5K9HF5z0eS7y»",
		"DB_PASSWORD=«%Kq8mW2xLv9»",
		"<password>«%UtQY5K9HF5z0eS7y»</password>",
	}, []string{
		"password: %DB_PASSWORD%",
		"password = %(password)s",
		"password: %s",
		"password: %{db_password}",
		"DB_PASSWORD=%APPDATA%\\db.pass",
	})
}
