package screen

import (
	"fmt"
	"strings"
	"testing"
)

// An ordinary password (a word and digits, a name with a sign, words joined with a digit) after
// a password word and its copula or colon, in the world's major languages and scripts.
// Look-alikes: prose about a password, with and without digits, and names of formats.
func TestSecretOrdinaryPasswordsInLanguages(t *testing.T) {
	checkMarked(t, []string{
		"the new password is «summer1996»",
		"pw: «Zorro12»",
		"new password after reset is «ZGjdGMxRoTj%» — let me know if it works",
		"I gave them my login (tomasz74, password «k0tek2011») and they never used it",
		"PW - «Snoopy=ypoons8»",
		"Salut, parola pentru cont este «Winter=retniw6»",
		"la contraseña del panel es «girasol88»",
		"la clave del wifi de la oficina es «LWNL5912nzun»",
		"a senha do wifi é «saudade77»",
		"senha do banco: «yuki59moonlight» (não compartilha)",
		"le mot de passe est «soleil1980»",
		"das Passwort lautet «sonne2020»",
		"het wachtwoord is «tulp1999»",
		"la password del router è «pizza2021», utente admin",
		"hasło do panelu: «pierogi88»",
		"Ahoj, heslo k serveru je «kasztan81»",
		"heslo je «tatry88»",
		"a jelszó: «balaton72»",
		"parola este «carpati1990»",
		"Hej, adgangskoden er «p0m0d0r01988»",
		"passordet er «fjord1905»",
		"lösenordet är «sommar2020»",
		"salasana on «sauna1999»",
		"parool on «tallinn77»",
		"slaptažodis yra «vilnius88»",
		"şifre: «kartal1903»",
		"kata sandinya adalah «melati45»",
		"Halo, kata sandi untuk dashboard: «joao45paprika» (user: marek)",
		"kata laluan: «harimau88»",
		"mật khẩu là «hanoi2024»",
		"ang password ay «sampaguita12»",
		"nenosiri ni «simba2023»",
		"пароль от сервера: «medved2019»",
		"пароль до адмінки: «kyiv1982»",
		"паролата е «sofia2020»",
		"лозинка је «beograd99»",
		"Γεια, ο κωδικός πρόσβασης είναι «summer1996»",
		"συνθηματικό: «olympos77»",
		"היי, הסיסמה לממשק הניהול היא «tomasz1983warszawa»",
		"סיסמא: «tapuz77»",
		"مرحبا، اسم المستخدم nadia87 وكلمة المرور «gatito6721»",
		"كلمة السر: «nakhla55»",
		"سلام، رمز عبور پنل «maracuja60» است",
		"رمز ورود: «kaveh1988»",
		"สวัสดีครับ รหัสผ่านเข้าระบบคือ «amara9774koala»",
		"พาสเวิร์ด: «somchai88»",
		"관리자 계정 raul-ops, 비밀번호는 «nadia18lavender» 입니다",
		"패스워드: «haneul2021»",
		"你好，后台账号 kenji_admin，密码是 «moonlight-fenix-zorro-3»，用完请告诉我。",
		"密碼：«taipei101x»",
		"パスワードは «sakura1998» です",
		"パスワードは«sakura1998»です",
		"密码是«xiaolong88»，别告诉别人",
		"비밀번호는«nadia18lavender»입니다",
		"mera password hai «rahul1985»",
		"Mật khẩu quản trị: «hanoi2024»",
		"पासवर्ड है «rahul1985»",
		"পাসওয়ার্ড: «dhaka2022»",
		"contra: «sunflower53»",
		"pw for the NAS is «kotek2011»",
		"(pwd «kotek2011»)",
		"Seller gave me the admin password («kotek2011») and it worked",
		"the password «kotek2011» didn't work",
		"su contraseña «girasol88» no funciona",
		"my pass is «kotek2011»",
		"pw → «kotek2011»",
		"login: admin senha «*FtAqUnmCP%8*XaUTW»",
	}, []string{
		"the password is required",
		"password is at least 8 characters",
		"password must be 12 characters or more",
		"heslo je v trezoru",
		"la contraseña es obligatoria",
		"le mot de passe est trop court",
		"das Passwort muss 12 Zeichen haben",
		"пароль должен содержать 8 символов",
		"密码长度至少8位",
		"password expires in 90 days",
		"the password is sha256 hashed",
		"password: see ticket INC0012345",
		"the password for prod01 is in the vault",
		"Error: password for user db01 expired",
		"the wifi password is on the router sticker (AX3000)",
		"the password, it's in 1Password",
		"password = apps.v1beta1",
		"All tests pass (8/8). build: 4f9e2c71ab03d58e96c2f1a0b7d4e3c2",
		"token = keyring.get_password(\"shop\", \"kenji92\")",
		"contra: el viento",
		"the password is 2FA-protected",
		"password is 12-char minimum",
		"the password is md5-hashed, sadly",
		"password is iso-8859-1 encoded",
		"your password is case-sensitive",
		"password is valid until 2026",
		"la contraseña es la misma que en prod02",
		"passwort ist abgelaufen seit 2024",
		"heslo je stejné jako loni",
		"the password is the one from email #4412",
		"password policy v2.1: 12 chars",
		"use Office365 to sign in",
		"use Windows11 to log in",
		"password is base64 encoded before it is sent",
		"password: 2026-11-30",
		"pw: windows10",
		"the password is md5-hashed, sadly",
		"Tags: admin / #BlackFriday2024",
		"Passwortänderung am 12.03.2024 erledigt",
	})
}

// Passwords given without a password word right before them: used to get in, named by the next
// line, spoken as "it's X", a user and password after a login word joined by a slash or a plus,
// a login label's user then password, the answer on the next chat turn after a time stamp.
// Look-alikes: the same phrasings holding no password.
func TestSecretPasswordsGivenInSpeechAndPairs(t *testing.T) {
	checkMarked(t, []string{
		"use «marek5117girassol» to get in, the username is your email",
		"use «Kotek66=» to get in",
		"try «Falcon88x» to sign in",
		"try «Marek+5729»\nthat's the wifi one, not the router one",
		"«kiwi-lemon-42»\nthat's the password for the guest network",
		"[00:04:12] Buyer: so the password, I'll just read it out, it's «Pomodoro58», all one word.",
		"the wifi pw? it's «Mango2021»",
		"identifiants : olga.dev / «z0rr026»",
		"Two accounts:\n- main site: amara / «chelse@64»\n- staging: omar / «-Y*LYsqGnCxK5zKG62X»",
		"Q: Can I get access to the staging panel?\nA: sure, marek_admin / «dr@g0n46» — it's only staging",
		"Tried logging in with sven_admin / «kotek73» but it says account locked.",
		"credenciales: jperez / «Girasol#2023»",
		"Zugang: admin / «Sonne2020!»",
		"usuario: admin / «Girasol2023»",
		"Benutzer: max / «Sommer2021»",
		"账号 admin / «mima2024x»",
		"Q: What's the wifi password?\nA: «Mango2021»",
		"I need SSH access to the VPS; otherwise root + «Zorro12» works too",
		"login: admin «Qw7!rTz9x»",
		"[2026-11-11 14:15] seller: no, which password?\n[2026-11-19 14:10] buyer: «koala-alaok0»",
		"<ana> what's the wifi password?\n<bo> «Kiwi!4142»",
		"ana: which pw?\nbo: «summer63»",
		"what's the wifi password?\n«mango2021»",
		"Qual é a senha do wifi?\nbo: «saudade77»",
		"11/12/26, 14:06 - Ana: which password?\n11/12/26, 14:07 - Bo: «Nadia!4142»",
		"ana (14:06): wifi password?\nbo (14:07): «tulip1988x»",
		"usa «Girasol2023» para entrar, el usuario es tu correo",
		"utilise «soleil1980x» pour te connecter",
		"nutze «Sonne2020!» zum Einloggen",
		"prueba «naranja77»\nesa es la clave del wifi",
		"«Kiwi!4142»\nc'est le mot de passe du wifi",
	}, []string{
		"use SSO to log in",
		"try again to log in",
		"use Chrome to sign in, Safari fails",
		"try restarting\nthat's the usual fix",
		"the password? it's in the vault",
		"the password, it's the same as before",
		"login permissions: read / write",
		"account settings: yes / no",
		"access report for Q3 / Q4",
		"admin login: admin / ********",
		"login: admin / $ADMIN_PASS",
		"ssh access: deploy / (ask ops for the key)",
		"access costs 10 / 20 EUR",
		"server load: input + output2",
		"\ts := pos + strings.Index(text[pos:pos+end], v) // the login's line",
		"total := admin + Counter2024 // account totals",
		"[2026-11-11 14:15] seller: which password?\n[2026-11-19 14:10] buyer: the usual one",
		"ana: did you reset the password?\nbo: done",
		"what's the wifi password?\nI'll check tomorrow2",
		"which password?\nthe one from 2024",
		"11/12/26, 14:06 - Ana: which password?\n11/12/26, 14:07 - Bo: the old one",
		"usa Chrome para entrar",
		"prueba otra vez\nesa es la solución",
		"Zimmer 4B\ndas ist das WLAN von nebenan",
		"Colour: admin / #ff00aa",
	})
}

// Every row of a table's password column, in CSV, TSV and spreadsheet cells, ordinary passwords
// and generated ones without a digit. Look-alikes: empty, masked, vault and manager cells.
func TestSecretPasswordColumnRows(t *testing.T) {
	checkMarked(t, []string{
		"email,name,password,role\nnadia@example.com,Tomasz,«kotek9313»,viewer\nomar@example.com,Nadia,«nadia8966barcelona»,admin\nraul@example.com,Yuki,«OGaerTs_ovt_I»,editor",
		"name,url,username,password\nbank.example,https://bank.example/login,olga29,«Rosalie.eilasor6»\nshop.test,https://shop.test/login,nadia.dev,«sn00py2828»",
		"user\tpass\nana\t«tulip1988»\nbo\t«maple2020x»",
		"A1: Client\tB1: Portal\tC1: User\tD1: Pass\nA2: Kenji GmbH\tB2: https://portal.example\tC2: amara.dev\tD2: «pinguin1311»",
		"Benutzer;Kennwort;Rolle\nmax;«Sommer2021»;admin\nana;«tulip1988»;user",
		"| Login | Wachtwoord |\n|---|---|\n| jan | «fiets1234» |\n| piet | «Molen!77» |",
		"A1: Konto\tB1: Hasło\nA2: sklep\tB2: «pierogi88»",
		"folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp\n,,login,Shop,,,0,https://shop.example,ana,«tulip1988»,\n,,login,Bank,,,0,https://bank.example,ana.l,«Kiwi!4142»,",
		"\"url\",\"username\",\"password\",\"httpRealm\"\n\"https://a.example\",\"ana\",\"«tulip1988»\",\"\"\n\"https://b.example\",\"bo\",\"«fjord1905x»\",\"\"",
		"id;user;pass\n1;ana;«tulip1988»\n2;bo;«Molen!77»\n3;cy;«maple2020x»",
		"| user | password |\n|------|----------|\n| ana | «tulip1988» |\n| bo | «Molen!77» |\n| cy | «OGaerTs_ovt_I» |",
		"<table><tr><th>User</th><th>Password</th></tr><tr><td>ana</td><td>«walnut77»</td></tr><tr><td>bo</td><td>«fjord1905»</td></tr></table>",
	}, []string{
		"email,name,password,role\nnadia@example.com,Tomasz,,viewer\nomar@example.com,Nadia,********,admin",
		"email,name,password,role\nnadia@example.com,Tomasz,(in vault),viewer\nomar@example.com,Nadia,see vault,admin",
		"email,name,password,role\nnadia@example.com,Tomasz,(in vault),viewer\nomar@example.com,Nadia,1Password,admin",
		"user\tpass\nana\treset\nbo\tN/A",
		"Benutzer;Kennwort;Rolle\nmax;(im Tresor);admin\nana;;user",
		"| Login | Wachtwoord |\n|---|---|\n| jan | zie kluis |",
		"folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp\n,,login,Shop,,,0,https://shop.example,ana,,",
		"id;user;pass\n1;ana;yes\n2;bo;no\n3;cy;pending",
		"test,result,pass\nlogin,ok,true\nsignup,fail,false",
		"| user | password |\n|------|----------|\n| ana | (reset) |\n| bo | see 1Password |",
		"| metric | p50 | p99 |\n|---|---|---|\n| login2024 | 12ms | 40ms |",
		"email,name,password,role\nnadia@example.com,Tomasz,Seed-Phrase-Backup,viewer",
	})
}

// Passwords and keys in code: by position after a user's name in a call whose name says login,
// auth, credential, bind or connect; given to a setter or a builder; typed into a password
// field; signing keys written as literals; sshpass's -p. Look-alikes: variables, lookups,
// empty and placeholder strings, other fields, public keys.
func TestSecretPasswordsInCode(t *testing.T) {
	checkMarked(t, []string{
		"ok := auth.Check(\"tomasz_admin\", \"«azucar_racuza3»\")",
		"ok := auth.Check(\"chloe_admin\", \"«RDYT7907auyj»\")",
		"smtp.Credentials = new NetworkCredential(\"yuki.dev@example.org\", \"«Ivan=2025»\");",
		"conn.simple_bind_s(\"cn=admin,dc=example,dc=org\", \"«lucia17paprika»\")",
		"await client.login('ana', '«tulip1988»')",
		"session.setPassword(\"«k0tek7027»\")",
		"    .password(\"«lucia71falcon»\")",
		"ds.setPassword(\"«fjord1905x»\");",
		"user.set_password(\"«harbor2021»\")",
		"HikariConfig().apply { withPassword(\"«maple2020»\") }",
		"await page.fill('#password', '«paprika1984»');",
		"cy.get('input[name=password]').type('«walnut77x»')",
		"var webhookKey = []byte(\"«mGVygOCjD6a66Tw59z7AKXll42Xjcu8I»\")",
		"mac := hmac.New(sha256.New, []byte(\"«pQ8vXz2LmN4rT6yW1bK9»\"))",
		"SIGNING_SECRET = b\"«Zt4kQp9LmX2vWn7RbY3s»\"",
		"const sig = crypto.createHmac('sha256', '«hV3nQ8zLpX6mT1rW9kYb»').update(body).digest('hex')",
		"Key k = new SecretKeySpec(\"«rT7pX2mQ9vLz4nW8kB1y»\".getBytes(), \"HmacSHA256\");",
		"sshpass -p '«ciruela.aleuric0»' rsync -az ./dist/ deploy@198.51.100.160:/var/www/html/",
		"sshpass -p «Hunter2024x» scp backup.tar ops@203.0.113.7:",
		"echo \"«tulip1988»\" | sudo -S apt update",
		"printf '«Kiwi!4142»\\n' | sudo -S systemctl restart app",
		"echo «maple2020x» | docker login -u ana --password-stdin registry.example.org",
		"echo -n '«fjord1905»' | passwd --stdin deploy",
		"echo «Sonne2020!» | kinit ana@EXAMPLE.ORG",
		"Connection c = DriverManager.getConnection(url, \"sa\", \"«tulip1988»\");",
		"server.login(sender_email, \"«harbor2021x»\")",
		"ldap.bind(bind_dn, '«Maple!2020»')",
		"User.objects.create_user(\"ana\", \"ana@example.com\", \"«tulip1988»\")",
		"$mbox = imap_open(\"{imap.example.org:993/imap/ssl}INBOX\", \"ana\", \"«kotek2011»\");",
		"await signUp(\"ana@example.com\", \"«Kiwi!4142»\")",
		"ldap_bind($conn, \"cn=admin,dc=example,dc=org\", \"«maple2020»\");",
		"config := &ssh.ClientConfig{User: \"deploy\", Auth: []ssh.AuthMethod{ssh.Password(\"«tulip1988»\")}}",
		"val a = PasswordAuthentication(\"ana\", \"«tulip1988»\".toCharArray())",
		"await signIn(\"ana@example.com\", \"«tulip1988»\")",
		"req.SetBasicAuth(\"ana\", \"«tulip1988»\")",
		"new UsernamePasswordAuthenticationToken(\"ana\", \"«tulip1988»\")",
		"await page.getByLabel('Password').fill('«tulip1988»')",
		"driver.findElement(By.id(\"password\")).sendKeys(\"«tulip1988»\");",
		"s, _ := token.SignedString([]byte(\"«pQ8vXz2LmN4rT6yW1bK9»\"))",
		"let mac = HmacSha256::new_from_slice(b\"«Zt4kQp9LmX2vWn7RbY3s»\").unwrap();",
		"$sig = hash_hmac('sha256', $payload, '«hV3nQ8zLpX6mT1rW9kYb»');",
		"sig = OpenSSL::HMAC.hexdigest('SHA256', '«rT7pX2mQ9vLz4nW8kB1y»', body)",
	}, []string{
		"ok := auth.Check(user, pw)",
		"ok := auth.Check(\"ops\", \"\")",
		"token = keyring.get_password(\"shop\", \"kenji92\")",
		"session.setPassword(System.getenv(\"SSH_PASSWORD\"))",
		"    .password(env::var(\"DB_PASSWORD\")?)",
		"user.set_password(\"changeme\")",
		"if err := validatePassword(\"abc12345\"); err == nil {",
		"await page.fill('#email', 'admin@shop-demo.test');",
		"cy.get('#passport').type('X1234567')",
		"mac := hmac.New(sha256.New, key)",
		"var publicKey = []byte(\"mGVygOCjD6a66Tw59z7AKXll42Xjcu8I\")",
		"var body = []byte(\"hello world, this is the body\")",
		"sshpass -p \"$DEPLOY_PASS\" ssh deploy@host",
		"sshpass -f ~/.deploy_pw ssh deploy@host",
		"echo \"$SUDO_PASS\" | sudo -S apt update",
		"echo \"$CR_PAT\" | docker login ghcr.io -u ana --password-stdin",
		"echo done | sudo tee /var/log/x",
		"echo \"hello world\" | sudo -S true",
		"conn.simple_bind_s(\"cn=admin,dc=example,dc=org\", password)",
		"server.login(sender_email, password)",
		"$('#btn').bind(\"click\", onClick)",
		"token := auth.GetToken(\"svc\", \"scope2024\")",
		"server.login(retries, \"timeout30s\")",
		"mqtt.connect(\"mqtt.example.org\", \"client42\")",
		"connectWith(\"eu-west-1\", \"prod2024\")",
		"$(el).bind(\"click\", \"handler2024\")",
		"s, _ := token.SignedString(key)",
		"$sig = hash_hmac('sha256', $payload, $secret);",
		"driver.findElement(By.id(\"username\")).sendKeys(\"ana.lopez\");",
	})
}

// Solana secret keys in base58 (64 bytes) where the line names an export or a secret, Nostr nsec
// keys with a valid checksum. Look-alikes: a signature of the same shape, an npub, an nsec whose
// checksum fails.
func TestSecretSolanaAndNostrKeys(t *testing.T) {
	checkMarked(t, []string{
		"Phantom export of the bot wallet: «37wb9NNrwxNpskyW6gTpxC4jZ1Hxz8qvuJS4nb2iAMutPfVWcFFWKNxWX2eWnBjGyoZs4yVmc9D4i3NRm759k4mj»",
		"exported private key from Solflare → «5sZuSnc3dGVTjahMRYC8yT4C6vvRxzYAqJVqd3NE8MrVJuKiKJ5ctSc2Njv43npabvw9xjnVTgpw4gwzxnQLsMHX»",
		"bot account nsec: «nsec1m53a3r8z0cxw02k02cgsr6lrp7kwdmvxcl5w9nel2kswdadfau4s4fwqtx»",
		"«nsec1d4c90nphej56te5zt29dg0vmwz998pv5fhjhkn8k847xajkmwxfqqz9nlw»",
		"clave privada de la billetera: «cBtg9Y8MQEgK5rnB9LDzzExaV6n5vzmnRq2pMCFxsZsXu2T4a4Mj2WMjrMyKim4T7cSuLJRdL5V3p9T5xHTuv78»",
		"私钥：«cBtg9Y8MQEgK5rnB9LDzzExaV6n5vzmnRq2pMCFxsZsXu2T4a4Mj2WMjrMyKim4T7cSuLJRdL5V3p9T5xHTuv78»",
	}, []string{
		"wallet tx signature: 37wb9NNrwxNpskyW6gTpxC4jZ1Hxz8qvuJS4nb2iAMutPfVWcFFWKNxWX2eWnBjGyoZs4yVmc9D4i3NRm759k4mj",
		"see the transaction on the explorer: 5sZuSnc3dGVTjahMRYC8yT4C6vvRxzYAqJVqd3NE8MrVJuKiKJ5ctSc2Njv43npabvw9xjnVTgpw4gwzxnQLsMHX",
		"firma de la transacción: cBtg9Y8MQEgK5rnB9LDzzExaV6n5vzmnRq2pMCFxsZsXu2T4a4Mj2WMjrMyKim4T7cSuLJRdL5V3p9T5xHTuv78",
		"exporté la firma desde Phantom: cBtg9Y8MQEgK5rnB9LDzzExaV6n5vzmnRq2pMCFxsZsXu2T4a4Mj2WMjrMyKim4T7cSuLJRdL5V3p9T5xHTuv78",
		"follow me: npub16rcvaurn5npmft7p4z4nzsl7wd6z2kuusdh84l5ql308379a2fks58kdkk",
		"nsec1m53a3r8z0cxw02k02cgsr6lrp7kwdmvxcl5w9nel2kswdadfau4s4fwqty",
	})
}

// A YAML tag standing for a value (an Ansible Vault block, a Home Assistant secret, a
// CloudFormation reference) is no secret; a password that starts with ! still is.
func TestSecretYAMLTags(t *testing.T) {
	checkMarked(t, []string{
		"db_password: «!Passw0rd-2024x»",
		"license_key: «XKQPZ-48213-ABCDE-12345»",
	}, []string{
		"db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  61626364656667686970717273747576\n  31323334353637383930616263646566",
		"api_key: !secret openai_api_key",
		"MasterUserPassword: !Ref DbPassword",
		"password: !env_var DB_PASSWORD",
	})
}

// Ordinary passwords after a password word in more layouts (capitalised words, full-width and
// glued colons, Markdown bold, arrows, a Wi-Fi's password in Thai and Russian) and prose with
// digits that gives none: a password manager's name, "see ...", dates, lengths, hints.
func TestSecretOrdinaryPasswordsMoreLayouts(t *testing.T) {
	checkMarked(t, []string{
		"Mein Passwort ist «Schatz2024»",
		"o meu password é «benfica1904»",
		"Şifre: «Galatasaray1905»",
		"Пароль: «Barsik2015»",
		"비번 «sarang0420»",
		"wachtwoord = «fiets1234»",
		"the router password is «admin2024x»",
		"password (case sensitive): «Lemon88tree»",
		"pass: «hunter2024»",
		"heslo: «kocka1234»",
		"parolă: «brasov2022»",
		"Lösenord: «Solros1990»",
		"adgangskode: «kage2019»",
		"salasanani on «kissa2020»",
		"hasło: «Kotek123»",
		"パスワード：«sakura1998»",
		"密码:«xiaolong88»",
		"*password:* «tulip1988»",
		"wifi: CasaLopez5G, pass: «naranja77»",
		"mot de passe du wifi : «soleil1980»",
		"la contraseña del wifi: «girasol88»",
		"รหัส wifi คือ «mango2023»",
		"wifi password → «Mango2021»",
		"Пароль от вайфая: «kotik777»",
		"root password: «Bananas1975=»",
	}, []string{
		"Passwort ist vergessen",
		"Mein Passwort ist seit 2024 abgelaufen",
		"password: N/A",
		"password is the same as for user42",
		"passwort: siehe KeePass2",
		"the password is 8 chars",
		"password is at least 12 characters long and contains 1 digit",
		"password: use your email",
		"Passwort: wie besprochen",
		"password changed on 2024-05-01",
		"password for server3 expires on Friday",
		"la password è scaduta nel 2024",
		"mật khẩu là bí mật",
		"密码是上次的",
		"login: admin / password",
		"use your SSO account to log in",
		"the password is in the envelope, room 4B",
		"wifi password: on the router",
		"password: same as staging01",
		"Password hint: first pet + 1990",
		"password length: 16",
		"password manager: Bitwarden2024 plan",
		"password: see vault entry db-prod-01",
	})
}

// A login label's user and the password after a key word that also names a password in its
// language (clave, chave), a password word after a user's name, and Solana and Nostr secret keys
// in code, .env and JSON. Look-alikes: withheld values, a signature, a transaction.
func TestSecretLoginLabelsAndKeysInFiles(t *testing.T) {
	checkMarked(t, []string{
		"usuario: admin clave: «Girasol2023»",
		"user: admin, clave: «girasol88»",
		"Benutzer admin Kennwort «Sommer2021»",
		"utilisateur: marc mdp: «soleil1980»",
		"login: ana pw: «tulip1988»",
		"const kp = Keypair.fromSecretKey(bs58.decode(\"«37wb9NNrwxNpskyW6gTpxC4jZ1Hxz8qvuJS4nb2iAMutPfVWcFFWKNxWX2eWnBjGyoZs4yVmc9D4i3NRm759k4mj»\"))",
		"NOSTR_NSEC=«nsec1m53a3r8z0cxw02k02cgsr6lrp7kwdmvxcl5w9nel2kswdadfau4s4fwqtx»",
		"{\"nsec\": \"«nsec1d4c90nphej56te5zt29dg0vmwz998pv5fhjhkn8k847xajkmwxfqqz9nlw»\"}",
		"wallet key (Phantom): «5sZuSnc3dGVTjahMRYC8yT4C6vvRxzYAqJVqd3NE8MrVJuKiKJ5ctSc2Njv43npabvw9xjnVTgpw4gwzxnQLsMHX»",
	}, []string{
		"usuario: admin clave: (la de siempre)",
		"the clave is a Latin word for key",
		"Signature: 37wb9NNrwxNpskyW6gTpxC4jZ1Hxz8qvuJS4nb2iAMutPfVWcFFWKNxWX2eWnBjGyoZs4yVmc9D4i3NRm759k4mj",
		"tx 5sZuSnc3dGVTjahMRYC8yT4C6vvRxzYAqJVqd3NE8MrVJuKiKJ5ctSc2Njv43npabvw9xjnVTgpw4gwzxnQLsMHX confirmed",
	})
}

// Texts about passwords that hold digits and give none: failed-login logs, a password's change,
// hints, tickets named passes, a word glued to a number after a password word mid-sentence, code
// that only handles a password, withheld values in several languages.
func TestSecretProseAndLogsStayClean(t *testing.T) {
	checkMarked(t, nil, []string{
		"Failed password for invalid user admin123 from 203.0.113.5 port 52211 ssh2",
		"Accepted password for deploy2024 from 198.51.100.7 port 40022 ssh2",
		"Invalid password: attempt 3 of 5",
		"login failed for user 'ops2024' (password mismatch)",
		"password changed by admin42 at 10:30",
		"new password: same as old one",
		"pw hint: dog's name + 1990",
		"Pass rate: 98.5% (build 2024)",
		"boarding pass: seat 12A, gate B22, flight LH2024",
		"Day pass: summer2024 edition",
		"season pass: winter2025 is on sale",
		"ski pass is valid for zone2b",
		"Secret Santa 2024: draw at noon, budget 20 EUR",
		"pass: not needed",
		"password: it's on the sticker",
		"Password2024 is the name of the conference",
		"our password policy2024 document",
		"the password reset2024 campaign starts today",
		"I'll pass tomorrow2 maybe",
		"hashed_password = bcrypt.hashpw(b\"hunter2024\", salt)",
		"def test_empty_password(): assert login(\"ana\", \"\") is False",
		"if password == \"\":",
		"echo $PASSWORD | docker login -u ana --password-stdin",
		"Passwort vergessen? Klicke hier: reset2024.example.org",
		"Пароль изменён 12.03.2024",
		"密码已于2024年修改",
	})
}

// Every ordinary password shape (a word and a year, a name with a sign and digits, leetspeak,
// three dashed words, a reversed word, a random string) in every phrasing of the messages the
// fourteenth set was written from and in thirty languages' "password: X".
func TestSecretOrdinaryPasswordMatrix(t *testing.T) {
	vals := []string{"kotek2011", "Marek!58", "p0m0d0r0", "tulipan-harbor-velvet", "Snoopy=ypoons8", "Xk9#mQ2v", "summer1996", "Zorro12", "sven98morango", "moonlight-fenix-zorro-3"}
	phr := []string{"the pw for the router is %s", "use %s to get in", "login: admin senha %s", "Q: what's the password?\nA: it's %s", "what's the password?\n%s",
		"admin login: admin / %s", "(pwd %s)", "PW - %s", "password \"%s\"", "the password (%s) is wrong", "I sent the password %s yesterday and they never used it",
		"My password is %s.", "wifi key: %s", "Password: '%s'", "pass=%s", "the password was changed to %s", "new password: %s",
		"Hi! Credentials for the panel: user marta, password %s", "password for the NAS → %s", "creds: ops / %s", "the admin pass is \"%s\"",
		"Passwort: %s", "contraseña: %s", "mot de passe : %s", "senha: %s", "hasło: %s", "пароль: %s", "密码：%s", "パスワード: %s", "비밀번호: %s",
		"mật khẩu: %s", "şifre: %s", "κωδικός: %s", "סיסמה: %s", "كلمة المرور: %s", "رمز عبور: %s", "पासवर्ड: %s", "kata sandi: %s", "heslo: %s", "jelszó: %s",
		"lösenord: %s", "salasana: %s", "adgangskode: %s", "parola: %s", "wachtwoord: %s", "nenosiri: %s", "รหัสผ่าน: %s"}
	for _, p := range phr {
		for _, v := range vals {
			s := fmt.Sprintf(p, v)
			got := false
			for _, r := range FindSecrets(s) {
				if strings.Contains(s[r.Start:r.End], v) || strings.Contains(v, s[r.Start:r.End]) && r.End-r.Start >= len(v)-1 {
					got = true
				}
			}
			if !got {
				t.Errorf("not removed: %q", s)
			}
		}
	}
}

// Prose, withheld values, ids, versions, formats and compounds of prose words in the same
// phrasings: none is taken.
func TestSecretProseValueMatrix(t *testing.T) {
	vals := []string{"required", "in the vault", "on the sticker", "same as before", "reset", "8 characters", "changeme", "********", "<redacted>",
		"case-sensitive", "2FA-protected", "sent separately", "the usual one", "your email", "not needed", "expired", "Bitwarden", "1Password",
		"see ticket 4412", "in LastPass", "at least 8 characters", "long-and-random", "state-of-the-art", "well-known-default",
		"write-only-field", "read-only-access", "single-sign-on", "end-to-end-encrypted", "rotated-every-quarter", "stored-in-keychain", "ORD-2024-11A",
		"v2.4.1", "2026-11-30", "sha256", "bcrypt-12", "argon2id", "utf-8", "SSO-only", "WPA2-Personal", "same-as-staging", "ask-the-admin",
		"managed-by-vault", "see-onboarding-doc", "mixed-case-letters", "letters-and-digits", "first-pet-name"}
	phr := []string{"the pw for the router is %s", "login: admin senha %s", "what's the password?\n%s",
		"(pwd %s)", "PW - %s", "the password (%s) is wrong", "My password is %s.", "Password: '%s'", "new password: %s",
		"Passwort: %s", "contraseña: %s", "senha: %s", "пароль: %s", "密码：%s", "heslo: %s", "the password was changed to %s"}
	for _, p := range phr {
		for _, v := range vals {
			s := fmt.Sprintf(p, v)
			if r := FindSecrets(s); len(r) > 0 {
				t.Errorf("false positive: %q -> %q", s, s[r[0].Start:r[0].End])
			}
		}
	}
}

// Code that names a login, a bind, a connection, a signing key or a password field without
// handing over a password: variables, lookups, empty strings, hosts and client ids, roles,
// assertions, public keys and bodies as bytes.
func TestSecretCodeLookAlikes(t *testing.T) {
	checkMarked(t, nil, []string{
		`client.login("ana", os.environ["PW"])`, `login(user, pw)`, `auth.Check(ctx, "read:orders")`, `$(el).bind("click", handler2)`,
		`connect("db.example.org", 5432)`, `session.setPassword(pw)`, `builder.password(cfg.Password)`, `builder.password("")`,
		`await page.fill('#password', process.env.PW)`, `await page.fill('#password', '')`, `cy.get('#password').type(Cypress.env('PW'))`,
		`echo "$PW" | sudo -S apt update`, `sshpass -e ssh deploy@host`, `ldap.bind(dn, getpass())`, `key := []byte(os.Getenv("KEY"))`,
		`key := []byte("example-key-do-not-use")`, `hmac.New(sha256.New, []byte(secret))`, `auth.Verify(token, "HS256")`,
		`mqtt.connect("mqtt.example.org", "client42")`, `conn.Connect("tcp", "10.0.0.1:5432")`, `bindAddress("0.0.0.0", "8080")`,
		`auth.Check("ana", "admin")`, `connectWith("eu-west-1", "prod2024")`, `auth.HasRole("ana", "editor2")`,
		`connect("localhost", "app_db", "utf8mb4")`, `loginPage.assertTitle("Login", "Welcome2024")`,
		`expect(auth.Check("ana", "wrong")).toBe(false)`, `auth.Check("ana", strings.Repeat("x", 80))`,
		`var publicKey = []byte("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE")`, `var body = []byte("{\"id\": 42, \"name\": \"ana\"}")`,
		`logger.connect("app.log", "level2")`,
	})
}

// Every password shape in the calls, setters, fills, commands and configs that take one.
func TestSecretPasswordsInCodeMatrix(t *testing.T) {
	vals := []string{"kotek2011", "Marek!58x", "tulipan-harbor-velvet", "Snoopy=ypoons8", "Xk9#mQ2vLp", "sven98morango"}
	phr := []string{
		`ok := auth.Check("ana", "%s")`, `assert client.login("ana", "%s")`, `conn.bind_s("cn=admin,dc=x,dc=y", "%s")`,
		`new NetworkCredential("ana", "%s")`, `Credentials = new NetworkCredential(userName, "%s");`, `session.setPassword("%s");`,
		`    .password("%s")`, `builder.withPassword("%s")`, `user.set_password("%s")`, `await page.fill('#password', '%s')`,
		`cy.get('input[type=password]').type('%s')`, `driver.find_element(By.NAME, "password").send_keys("%s")`,
		`sshpass -p '%s' ssh deploy@203.0.113.9`, `echo '%s' | sudo -S reboot`, `ftp.login("deploy", "%s")`,
		`$mbox = imap_open("{imap.example.org:993/imap/ssl}INBOX", "ana", "%s");`, `mysqli_connect("db.example.org", "app", "%s", "shop")`,
		`r = requests.get(url, auth=("ana", "%s"))`, `HTTPBasicAuth("ana", "%s")`, `smtplib.SMTP_SSL(host).login("ana@example.org", "%s")`,
		`val cred = UsernamePasswordCredentials("ana", "%s")`, `client.authenticate("ana", "%s")`, `Auth.signIn("ana@example.org", "%s")`,
		`login_user(client, "ana", "%s")`, `def test_login(): assert authenticate(username="ana", password="%s")`,
		`PASSWORD = "%s"`, `"password": "%s",`, `<password>%s</password>`, `spring.datasource.password=%s`, `DB_PASS=%s`,
	}
	for _, p := range phr {
		for _, v := range vals {
			s := fmt.Sprintf(p, v)
			got := false
			for _, r := range FindSecrets(s) {
				got = got || strings.Contains(s[r.Start:r.End], v)
			}
			if !got {
				t.Errorf("not removed: %s", s)
			}
		}
	}
}
