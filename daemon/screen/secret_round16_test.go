package screen

import "testing"

// A password alone on the line after a line that holds only its label, in forms, exports and
// notes of several languages. Look-alikes: a label followed by prose, a mask, a format's name, a
// user's line, a label that is not a password's.
func TestSecretLabelOnItsOwnLine(t *testing.T) {
	checkMarked(t, []string{
		"Password:\n«kasztan81»\n",
		"Usuario\nmarek\nContraseña\n«kasztan81»\n",
		"Username:\nadmin\nPassword:\n«trustno1zebra»\n",
		"**Passwort**\n«sonne2020x»",
		"Mot de passe :\n  «soleil1980»\nÀ changer vite",
		"Senha\n«Tr0pic4l!Mar»",
		"Пароль:\n«medved2019»",
		"パスワード\n«sakura2024»",
		"wachtwoord\r\n«tulp1999»\r\n",
	}, []string{
		"Password:\nChoose one you can remember\n",
		"Password:\n********\n",
		"Password\nsha256\n",
		"Username:\nadmin2024\n",
		"Password\nForgot password?\n",
		"Token\nabc12345xyz\n",
		"Password:\n2026-11-30\n",
	})
}

// A password that a sentence hands over with no colon after a password word: the new one, what
// it was changed to, a value used as the password, a login's user and its password, in several
// languages. Look-alikes: the same sentences with prose, versions or ways of logging in.
func TestSecretPhrasedHandOver(t *testing.T) {
	checkMarked(t, []string{
		"reset the wifi password, new one: «kasztan81»",
		"I changed it to '«kasztan81»' yesterday",
		"changed the password to «summer1996», tell the team",
		"la cambié a «girasol88» ayer",
		"je l'ai changé en «soleil1980» ce matin",
		"mudei para «saudade77» hoje",
		"ich habe es auf «sonne2020x» geändert",
		"use «kasztan81» as the password",
		"pon «girasol88» como contraseña",
		"mets «soleil1980» comme mot de passe",
		"nimm «sonne2020x» als Passwort",
		"log in with admin and «kasztan81»",
		"entra con admin y «girasol88»",
		"connecte-toi avec marie et «soleil1980»",
		"bitte mit admin und «sonne2020x» anmelden",
	}, []string{
		"the new one: v2.4.1 is out",
		"new one: kasztan81 about the release",
		"I changed it to 'read-only' yesterday",
		"set it to sha256 for the checksum",
		"use sha256 as the password hash",
		"use your email as the password",
		"log in with Google and Facebook2",
		"log in with admin and your password",
		"entra con tu cuenta y listo",
	})
}

// A Wi-Fi's key or code beside its network's name, on its line or the next. Look-alikes: a key
// id, a promo code, a country code, a key too short for WPA.
func TestSecretWifiKeyBesideNetwork(t *testing.T) {
	checkMarked(t, []string{
		"SSID: CafeNet\nKey: «moonlight42»",
		"Wifi: CafeNet / code: «moonlight42»",
		"Red: Casa_Lopez, clave: «girasol8812»",
		"WLAN-Name: FritzBox 7590\nSchlüssel: «sonne2020x»",
		"réseau : Livebox-3A2F — clé : «Xq7mW2kLz9Rt»",
	}, []string{
		"SSID: CafeNet\nKey ID: abc12345",
		"wifi is free, promo code: SUMMER2024",
		"SSID: CafeNet, country code: DE",
		"Wifi: CafeNet / code: 1234",
	})
}

// A user's string then a password's string handed to a client's, a connection's or a session's
// constructor. Look-alikes: a client's id and a key read from the environment, a public key, a
// locale and a time zone, a host and a port.
func TestSecretClientConstructorPassword(t *testing.T) {
	checkMarked(t, []string{
		`client = Client("svc_user", "«kasztan81xQ»")`,
		`db = PostgresClient('admin', '«Tr0ub4dor3»')`,
		`ftp = new FtpClient(host, "deploy", "«summer1996»");`,
		`conn = mysql_connection("db.internal", "root", "«moonlight42»")`,
		`s = SmtpSession("mailer@shop.example", "«girasol88»")`,
	}, []string{
		`client = Client("AC1234567890abcdef1234567890abcdef", os.environ["TWILIO_AUTH_TOKEN"])`,
		`tz = DateClient("en-US", "America/New_York")`,
		`r = RedisClient("localhost", "6379")`,
		`c = ApiClient("my-app", "1.2.3")`,
		`const sb = createClient('shop-prod-eu', 'Xq7mW2kLz9RtB4vN1cPe6Yh3') // anon key, fine in the browser`,
	})
}

// The private members of a JSON Web Key, alone or in a key set. Look-alikes: public keys, which
// hold no private member, and a "d" outside a key.
func TestSecretJWKPrivateMembers(t *testing.T) {
	checkMarked(t, []string{
		`{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"«jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI»"}]}`,
		`{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","d":"«nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A»"}`,
		`{"kty":"oct","alg":"HS256","k":"«GawgguFyGrWKav7AX4VKUg7qR2Yk3cJ5bZt»"}`,
		"{\n  \"kty\": \"RSA\",\n  \"e\": \"AQAB\",\n  \"p\": \"«83i-7IvMGXoMXCskv73TKr8637FiO7Z27zv8oj6pbWUQyLPQBQxtPVnw»\",\n  \"q\": \"«3dfOR9cuYq-0S-mkFLzgItgMEfFzB2q3hWehMuG0oCuqnb3vobLyumqj»\"\n}",
	}, []string{
		`{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","use":"sig","kid":"1"}]}`,
		`{"kty":"RSA","e":"AQAB","kid":"2024-11","alg":"RS256"}`,
		`{"d":"2026-11-30T10:00:00", "q":"search terms here"}`,
	})
}

// A password of small words joined by dots in an environment entry, as docker-compose and .env
// files write them. Look-alikes: hosts, a setting's path, a placeholder.
func TestSecretDottedEnvPassword(t *testing.T) {
	checkMarked(t, []string{
		"environment:\n  - POSTGRES_PASSWORD=«correct.horse.battery.staple»\n  - MYSQL_ROOT_PASSWORD=«tiger.lily.rose»",
		"REDIS_PASS=«purple.monkey.dishwasher»",
		`    DB_PASSWORD: "«otter.maple.canyon»"`,
	}, []string{
		"  - SMTP_PASSWORD=mail.example.com",
		"  - DB_PASSWORD=settings.database.password",
		"  - POSTGRES_PASSWORD_FILE=run.secrets.db",
	})
}

// Values round 16 leaves alone: a password label's translation, a path to a file that holds the
// password, an account's id handed to a client beside a secret read from the environment, a
// Google OAuth client's id, masks and pointers.
func TestSecretRound16LookAlikes(t *testing.T) {
	checkMarked(t, []string{
		`{"password": "«Contraseña2024»"}`,
		`password: "«Tr0ub4dor&3»"`,
		`client = Client("svc_user", os.environ["PW"], "«kasztan81xQ»")`,
	}, []string{
		`{"password": "Contraseña", "username": "Usuario"}`,
		`password: "Passwort"`,
		`"login.password": "Mot de passe"`,
		`"reset.password": "Nueva contraseña"`,
		`password_label = "Kennwort"`,
		"kubectl create secret generic db --from-file=password=./password.txt",
		"kubectl create secret generic db --from-file=password=../secrets/db-pass",
		`client = Client("AC1234567890abcdef1234567890abcdef", os.environ["TWILIO_AUTH_TOKEN"])`,
		`twilio = Client("AC1234567890abcdef1234567890abcdef", process.env.TWILIO_TOKEN)`,
		"GOOGLE_CLIENT_ID=123456789012-abcdefghijklmnopqrstuvwxyz123456.apps.googleusercontent.com",
		"Authorization: Bearer",
		`{"token_last4": "9f3a", "password": "********"}`,
		"db_password: stored-in-kms",
		`{"password": null}`,
	})
}

// A password given further from its word than the next clause ("the password for X, which ...,
// is V"), and one a blank line away from its label. Look-alikes: the same sentences about a
// password's policy or manager, a value that does not end its clause.
func TestSecretPasswordAfterAClause(t *testing.T) {
	checkMarked(t, []string{
		"the password for the staging server, which Tom set up last week, is «kasztan81»",
		"the password to the NAS, the one in the closet, is now «summer1996».",
		"das Passwort für den Router, das Jens eingerichtet hat, ist «sonne2020x»",
		"la contraseña del panel, la que puso Ana, es «girasol88» y no la cambies",
		"Password:\n\n«kasztan81»",
	}, []string{
		"the password manager, which we all use, is 1Password",
		"the password for the staging server, which Tom set up, is kasztan81 characters long",
		"Password:\n\nChoose one\n",
	})
}

// Classes earlier rounds already take, kept here against a change that would lose them: a
// legacy FCM server key, Gradle's signing passwords, a Python dict in a log, every row of a
// Markdown table and of an SQL INSERT, both lines of a diff.
func TestSecretRound16AlreadyHeld(t *testing.T) {
	checkMarked(t, []string{
		"fcm_server_key = «AAAAx8Yq1bE:APA91bHkLm2Qw3ErTy6UiOp9AsDfGhJkLzXcVbNm1Qw2Er3Ty4Ui5Op6AsDfGhJkLzXcVbNm7Qw8Er9Ty0UiOp1AsDfGhJkLzXcVbNm2Qw3ErTy4UiOp5AsDfGhJkLzXcVbNm6Qw7ErTy8Ui9OpAsDfGhJk»",
		"signingConfigs {\n  release {\n    storeFile file('release.jks')\n    storePassword '«kasztan81x»'\n    keyAlias 'upload'\n    keyPassword \"«summer1996q»\"\n  }\n}",
		"INFO config loaded: {'db_host': 'db1', 'db_password': '«kasztan81»', 'debug': False}",
		"| user | password |\n|---|---|\n| ana | «kasztan81» |\n| bob | «summer1996» |\n| eve | «moonlight42» |",
		"INSERT INTO users (name, password) VALUES ('ana', '«kasztan81»'), ('bob', '«summer1996»');",
		"-  password: «summer1996»\n+  password: «kasztan81»",
	}, nil)
}

// A JWT library's signing or verifying secret given as a literal, in JavaScript, Python, PHP,
// Java and C#. Look-alikes: a secret read from the environment or a variable, a private key's
// variable with an algorithm, the libraries' documented placeholders.
func TestSecretJWTLiteralSecret(t *testing.T) {
	checkMarked(t, []string{
		"const token = jwt.sign(payload, '«shopsecret2024»')",
		"jwt.verify(token, '«shopsecret2024»', (err, decoded) => {})",
		`token = jwt.encode(payload, "«kasztan81xyz»", algorithm="HS256")`,
		`data = jwt.decode(token, "«Xq7mW2kLz9RtB4vN»", algorithms=["HS256"])`,
		`$decoded = JWT::decode($jwt, new Key('«b8Fq2LmZx91KpQ»', 'HS256'));`,
		`$jwt = JWT::encode($payload, '«b8Fq2LmZx91KpQ»', 'HS256');`,
		`String token = JWT.create().withIssuer("shop").sign(Algorithm.HMAC256("«kasztan81xyz»"));`,
		`var key = new SymmetricSecurityKey(Encoding.UTF8.GetBytes("«n7Gv2QpLk9XzR4tWm8Yc»"));`,
	}, []string{
		"jwt.sign(payload, process.env.JWT_SECRET)",
		"jwt.sign(payload, privateKey, { algorithm: 'RS256' })",
		"jwt.sign({ foo: 'bar' }, 'shhhhh')",
		`jwt.encode(payload, "your-256-bit-secret", algorithm="HS256")`,
		"Algorithm.HMAC256(secret)",
		`jwt.decode(token, options={"verify_signature": False})`,
		`var key = new SymmetricSecurityKey(Encoding.UTF8.GetBytes(config["Jwt:Key"]));`,
	})
}

// The answer to a question about a password on the next chat turn, the speaker on a line of
// their own with the time, as Slack, Telegram and Discord copy them. Look-alikes: an answer that
// is prose or a time, a question about something else.
func TestSecretChatHeaderAnswer(t *testing.T) {
	checkMarked(t, []string{
		"Ana  2:06 PM\nwhat's the wifi password?\nBob  2:07 PM\n«kasztan81»",
		"Ana, [29.11.26 14:06]\nwie ist das Passwort vom Router?\nJens, [29.11.26 14:07]\n«sonne2020x»",
		"Marta — Today at 14:06\n¿cuál es la contraseña del panel?\nLuis — Today at 14:07\n«girasol88»",
		"Ana  2:06 PM\nque mot de passe pour le NAS ?\nBob  2:07 p.m.\n«soleil1980»",
	}, []string{
		"Ana  2:06 PM\nwhat's the wifi password?\nBob  2:07 PM\nsame as before",
		"Ana  2:06 PM\nwhat's the build number?\nBob  2:07 PM\nrelease2024",
		"Ana  2:06 PM\nwhen do we reset the password?\nBob  2:07 PM\n2026-11-30",
	})
}

// Small letters with one digit right after a password word, what it opens, and its copula or
// colon, in several languages. Look-alikes: formats and encodings, prose after the copula, a
// value that does not end its clause, a value with no digit.
func TestSecretOneDigitAfterPasswordWord(t *testing.T) {
	checkMarked(t, []string{
		"password for the router is «trustno1zebra»",
		"la contraseña es «trustno1zebra»",
		"Passwort: «sonnenschein7»",
		"le mot de passe du wifi est «papillon7bleu», merci",
		"het wachtwoord van de kluis is «fietsbel3rood»",
		"lösenordet är «kanelbulle5» och användaren är admin",
	}, []string{
		"password: sha256sum",
		"the password is base64encoded",
		"password for the router is sunflower",
		"password for the router is trustno1zebra characters long",
		"Passwort: utf8mb4general",
	})
}

// Small letters with one digit as a secret's or a password's value under a section of an INI or
// TOML file. Look-alikes: a format's name, a value with no digit, a key that only names a
// secret's file, such a line outside a section.
func TestSecretINISectionSecret(t *testing.T) {
	checkMarked(t, []string{
		"[stripe]\nsecret = «hunter2hunter»\n",
		"[mailgun]\ndomain = mg.example.com\napi_secret = «sonnenschein7»",
		"[mail.smtp]\nuser = shop\npassword = \"«papillon7bleu»\"\n",
		"[[servers]]\nname = \"db\"\npass = '«kanelbulle5»'",
	}, []string{
		"[hash]\npassword = sha256sum\n",
		"[stripe]\nsecret = sunflower\n",
		"[stripe]\nsecret_file = secret2file\n",
		"secret = hunter2hunter\n",
	})
}
