package screen

import "testing"

// A cell under a password column of a semicolon table, an HTML table or a spreadsheet given by
// cell references, and passwords of dashed words in any table. Look-alikes: empty, masked,
// placeholder and reference cells, and tables whose column names no password.
func TestSecretPasswordColumns(t *testing.T) {
	checkMarked(t, []string{
		"login;server;password\nmarta;files.example.test;«harbor-velvet-orchid»",
		"name;host;pwd;notes\nops;db.example.test;«Kr7!vLm2pQ»;rotated monthly",
		"user\tpassword\nalice\t«orchid-lantern-pebble»",
		"| account | password |\n|---|---|\n| billing | «meadow-copper-falcon» |",
		"service,user,password\nvault-ui,ops,«walnut-saddle-prism»",
		"<table><tr><th>Host</th><th>Pass</th></tr><tr><td>nas</td><td>«Tw9$kQm4Lz»</td></tr></table>",
		"<table>\n<tr><th>User</th><th>Password</th><th>Note</th></tr>\n<tr><td>ana</td><td>«sparrow-ginger-atlas»</td><td>temp</td></tr>\n</table>",
		"A1: Site  B1: User  C1: Password\nA2: Jira  B2: ops  C2: «canyon-ember-tulip»",
		"A1: Login  B1: Pass\nA2: root  B2: «Xv8#pLq2Rt»",
	}, []string{
		"login;server;password\nmarta;files.example.test;",
		"login;server;password\nmarta;files.example.test;••••••••",
		"login;server;password\nmarta;files.example.test;op://vault/item/password",
		"login;server;password\nmarta;files.example.test;<your-password>",
		"name;host;port\nops;db.example.test;harbor-velvet-orchid",
		"user\tpassword\nalice\t$DB_PASSWORD",
		"<table><tr><th>Host</th><th>Pass</th></tr><tr><td>nas</td><td>********</td></tr></table>",
		"<table><tr><th>Host</th><th>Owner</th></tr><tr><td>nas</td><td>sparrow-ginger-atlas</td></tr></table>",
		"<table><tr><th>Host</th><th>Password</th></tr><tr><td>nas</td><td>see vault</td></tr></table>",
		"A1: Site  B1: User  C1: Password\nA2: Jira  B2: ops  C2: (in vault)",
		"A1: Site  B1: User  C1: Team\nA2: Jira  B2: ops  C2: canyon-ember-tulip",
	})
}

// A password handed by position: a login call's second string after a user's name (words joined
// by dashes too), a client built with host, user and password, a form filled in a login test, a
// value typed into a password input, libcurl's user:password, a typed field's default.
// Look-alikes: variables, empty strings, inputs that are not a password's, other fields.
func TestSecretPositionalPasswords(t *testing.T) {
	checkMarked(t, []string{
		`ftp.login("deploy", "«maple-otter-quartz»")`,
		`server.login('alerts@example.test', '«cobalt-fennel-raven»')`,
		`auth = HTTPBasicAuth("svc", "«juniper-ember-lagoon»")`,
		`var c = new SftpClient("files.example.test", "backup", "«Lx7!qWm2Rt»");`,
		`client = SmbClient("nas.example.test", "ops", "«pepper-violet-marble»")`,
		`@Test void login() { form.fill("ops", "«saffron-harbor-atlas»"); }`,
		`cy.get("input[name=pass]").type("«tundra-mosaic-pebble»")`,
		`await page.fill('#password', '«Gq4$zRm8Lk»');`,
		`driver.find_element(By.ID, "pwd").send_keys("«Vn3!kPq7Ws»")`,
		`curl_easy_setopt(h, CURLOPT_USERPWD, "ops:«Rk8#mLq2Tz»");`,
		`data class Db(val user: String = "app", val password: String = "«kettle-prairie-onyx»")`,
		`let secret: String = "«Wq9!tLm4Zx»"`,
		`    db_password: str = "«Pz6%nKq3Vr»"`,
	}, []string{
		`ftp.login(user, password)`,
		`ftp.login("deploy", "")`,
		`ftp.login("deploy", os.environ["FTP_PASSWORD"])`,
		`var c = new SftpClient("files.example.test", "backup", config.Password);`,
		`form.fill("ops", "search-term-here")`,
		`cy.get("input[name=email]").type("maple-otter-quartz")`,
		`cy.get("input[name=pass]").type(password)`,
		`await page.fill('#password', process.env.PW);`,
		`curl_easy_setopt(h, CURLOPT_USERPWD, userpwd);`,
		`data class Db(val user: String = "app", val password: String = "")`,
		`data class Db(val user: String = "app", val title: String = "kettle-prairie-onyx")`,
		`let secret: String = "<secret>"`,
		`cy.get("#passport-number").type("X12345678Q")`,
		`await page.fill("input[name=passenger]", "Maria-Lopez-2291")`,
	})
}

// Speech and chat: a password typed or used "for now" about a lock-out, the answer after a
// question about a password, a user and its pass, Hungarian and Swedish password words, user /
// password after a login word, an FTP session's pass line. Look-alikes: the same words in prose.
func TestSecretSpokenPasswords(t *testing.T) {
	checkMarked(t, []string{
		"(transcript) ok just type «lanternPebble4821» that's the password for the front desk",
		"just enter «Maple-Otter-7731», it's your new password",
		"Voicemail: locked out again? use «orchidFalcon6620» for now, capital on the second word",
		"Sam: what's the wifi password at the studio?\nLee: «copper-meadow-falcon»\nSam: ty",
		"[10:02] ops: user deploy, pass «prairie-kettle-onyx»",
		"Szia! A jelszavad: «Tavasz2024!x»",
		"A jelszó az új fiókhoz: «sparrow-ginger-atlas»",
		"Lösenordet till wifi är «canyon-ember-tulip», hälsningar",
		"Done: site live, admin login: owner / «Velvet-Harbor-2291»",
		"<dl><dt>NAS admin</dt><dd>admin / «Qz7!pLm4Rt»</dd></dl>",
		"ftp> user deploy\n331 Password required\nftp> pass «raven-quartz-fennel»\n230 Login successful.",
	}, []string{
		"just type your name, that's the password hint",
		"use Python3 for now, we'll move to Go later",
		"Voicemail: locked out again? use the reset link for now",
		"Sam: what's the wifi password at the studio?\nLee: ask the front desk\nSam: ty",
		"Sam: did you change the password?\nLee: yes",
		"A jelszó megváltozott.",
		"Lösenordet är hemligt.",
		"Select the pairs: input / output",
		"<dl><dt>Admin menu</dt><dd>Settings / Security</dd></dl>",
		"admin login: owner / see the vault",
		"ftp> pass\n530 Login incorrect.",
	})
}

// Webhooks by their path on any host, an RPC link with a key in its path, a link's password
// holding an @, and a Tendermint private key. Look-alikes: short or low ids, other paths.
func TestSecretShapedRound14(t *testing.T) {
	checkMarked(t, []string{
		"https://chat.example.test/api/webhooks/123456789012345678/«aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK7lM9nO1pQ3rS»",
		"POST https://hooks.example.test/services/T0A1B2C3D/B0A1B2C3D4E/«xY7zQ2wE9rT4yU6iO8pA1sD3»",
		"RPC_URL=https://mainnet.rpc.example.test/v3/«9f3c1a7e5b2d4f6a8c0e1b3d5f7a9c2e»",
		"amqp://ops:«Pa@ss8word»@mq.example.test:5672/orders",
		`{"priv_key":{"type":"tendermint/PrivKeyEd25519","value":"«Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG9mcmVkcGx1Z3h5enp5VVZXWFlaMTIzNA==»"}}`,
	}, []string{
		"https://chat.example.test/api/webhooks/123456789012345678",
		"see /api/webhooks/{id}/{token} in the docs",
		"https://hooks.example.test/services/T0A1B2C3D/B0A1B2C3D4E/XXXXXXXXXXXXXXXXXXXXXXXX",
		"https://api.example.test/v3/users",
		"mailto:ops@example.test?cc=team@example.test",
		`{"pub_key":{"type":"tendermint/PubKeyEd25519","value":"Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5"}}`,
	})
}

// Secrets given to commands: restic's --password-command, a here-string to a stdin password
// flag, SNMP's -A, -X and -c, a community in a host definition, a PSK after its name.
// Look-alikes: a command reading a file, variables, public and private communities.
func TestSecretCommandRound14(t *testing.T) {
	checkMarked(t, []string{
		"restic backup /srv --password-command 'echo «OrchidPebble4471»'",
		"borg create --password-command \"printf «Lx7!qWm2Rt»\" ::arch",
		"openconnect vpn.example.test -u ana --passwd-on-stdin <<< '«pebble@81x»'",
		"docker login -u ci --password-stdin <<< «Qz7!pLm4Rt»",
		"snmpwalk -v3 -l authPriv -u mon -a SHA -A «velvet-harbor-onyx» -x AES -X «Tw9kQm4Lz» 10.0.0.1",
		"snmpget -v2c -c «k3yc0mmun1ty» 192.0.2.1 sysDescr.0",
		"define host {\n  _SNMP_COMMUNITY «zq8rt5wk2m»\n}",
		"agent PSK «433da58bf04946fcb952bfb7dad9d29b»",
	}, []string{
		"restic backup /srv --password-command 'cat /run/secrets/restic'",
		"restic backup /srv --password-command 'echo $RESTIC_PW'",
		"openconnect vpn.example.test -u ana --passwd-on-stdin < pw.txt",
		"snmpget -v2c -c public 192.0.2.1 sysDescr.0",
		"snmpwalk -v2c -c private 10.0.0.1",
		"snmpwalk -v2c -c $COMMUNITY 10.0.0.1",
		"define host {\n  _SNMP_COMMUNITY public\n}",
		"the PSK is stored in the agent config",
	})
}

// Secrets in files and markup: an auth-user-pass file shown after it, a sasl_passwd line, a
// hidden input holding a secret, Android meta-data named a secret or token, an environment map
// set in code, a private key exported as base64, a passphrase of dashed words. Look-alikes:
// csrf inputs, API_KEY meta-data (a public SDK key), short or placeholder values.
func TestSecretFilesRound14(t *testing.T) {
	checkMarked(t, []string{
		"auth-user-pass login.conf\n(login.conf holds:)\nana\n«Pebble2019x»",
		"sasl_passwd:\n[smtp.example.test]:587 relay@example.test:«Qz7!pLm4Rt»",
		`<input type="hidden" name="client_secret" value="«f3a9c1e7b5d24680ace13579bdf02468»">`,
		`<meta-data android:name="com.example.sdk.CLIENT_SECRET" android:value="«Zx8kQ2mW9pL4rT6vN1bY3cH5jF7dS0gA»"/>`,
		`ENV["PAYMENTS_TOKEN"] = "«tk_9Zx8kQ2mW9pL4rT6vN1bY3cH5j»"`,
		"private key export (base64): «" + "Q2hhbmdlIG1lIHBsZWFzZSB0aGlzIGlzIGEgdGVzdCBrZXkgbWF0ZXJpYWwgZm9yIHRoZSBzY3JlZW4gdGVzdHM" + "»",
		"exchange: apiKey set, passphrase «lantern-orchid-falcon»",
	}, []string{
		"auth-user-pass login.conf",
		`<input type="hidden" name="csrf_token" value="f3a9c1e7b5d24680ace13579bdf02468">`,
		`<input type="hidden" name="api_secret" value="">`,
		`<meta-data android:name="com.example.maps.API_KEY" android:value="mapkey-public-web-client-2291"/>`,
		`<meta-data android:name="com.example.sdk.SECRET" android:value="${sdkSecret}"/>`,
		`ENV["PAYMENTS_TOKEN"] = "changeme"`,
		"private key export (base64): see the attached file",
		"choose a passphrase self-service-portal style",
		"apiKey from the portal; passphrase long-and-memorable",
	})
}

// Values that point at a secret or hide it are none: a reference's tag or key, bullets.
func TestSecretReferencesAndMasks(t *testing.T) {
	checkMarked(t, []string{
		"<connection><user>ops</user><password>«Kr7!vLm2pQ»</password></connection>",
		"password: «Kr7!vLm2pQ»",
	}, []string{
		"<connection><user>ops</user><passwordRef>erp-db</passwordRef></connection>",
		"secretName: db-credentials-prod",
		"password_file: /run/secrets/db",
		"passwordEnv: DB_PASSWORD_PROD",
		"Password: •••••••••• (hidden)",
		"password: ●●●●●●●●",
	})
}
