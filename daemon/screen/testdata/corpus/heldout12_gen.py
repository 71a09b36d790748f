#!/usr/bin/env python3
"""Writes the twelfth held-out credential corpus: heldout12_secret.txt and
heldout12_lookalike.txt.

Written apart from the credential rules: its author read only the corpus format, the labelling
sections of the corpus README and the credential decisions. Every value is random in the shape of
its kind (prefixes, lengths, alphabets; CRC32 for GitHub classic tokens, base58check for WIF and
extended keys, the BIP-39 checksum for recovery phrases); none is or was a working credential.
Domains are reserved or made up, people are made up.

Run from anywhere: python3 heldout12_gen.py. Seeded, so a rerun writes the same files.
"""

import base64
import hashlib
import json
import os
import random
import string
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
R = random.Random(2026112912)

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIG = string.digits
ALNUM = LOWER + UPPER + DIG
HEX = "0123456789abcdef"
B64 = UPPER + LOWER + DIG + "+/"
B64URL = UPPER + LOWER + DIG + "-_"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
B32 = UPPER + "234567"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def rs(n, alphabet=ALNUM):
    return "".join(R.choice(alphabet) for _ in range(n))


def hx(n):
    return rs(n, HEX)


def rbytes(n):
    return bytes(R.randrange(256) for _ in range(n))


def b64(nbytes):
    return base64.b64encode(rbytes(nbytes)).decode()


def b64u(nbytes):
    return base64.urlsafe_b64encode(rbytes(nbytes)).decode().rstrip("=")


def uid():
    h = hx(32)
    h = h[:12] + "4" + h[13:16] + R.choice("89ab") + h[17:]
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def pick(seq):
    return R.choice(seq)


def M(v):
    return "\u00ab" + v + "\u00bb"


def b58enc(data):
    n = int.from_bytes(data, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    pad = len(data) - len(data.lstrip(b"\0"))
    return "1" * pad + out


def b58check(payload):
    chk = hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    return b58enc(payload + chk)


def base62(n, width):
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = (DIG + UPPER + LOWER)[r] + out
    return out.rjust(width, "0")


# --- values of real shapes -------------------------------------------------------------------

def gh(prefix="ghp_"):
    body = rs(30)
    return prefix + body + base62(zlib.crc32(body.encode()) & 0xFFFFFFFF, 6)


def gh_fine():
    return "github_pat_" + rs(22, UPPER + DIG) + "_" + rs(59)


def evm():
    return hx(64)


def wif():
    return b58check(b"\x80" + rbytes(32) + b"\x01")


def xprv(testnet=False):
    ver = bytes.fromhex("04358394" if testnet else "0488ade4")
    depth = bytes([R.choice([0, 3, 4])])
    fp = b"\0\0\0\0" if depth == b"\0" else rbytes(4)
    child = b"\0\0\0\0" if depth == b"\0" else rbytes(4)
    return b58check(ver + depth + fp + child + rbytes(32) + b"\0" + rbytes(32))


def sol_secret():
    return b58enc(rbytes(64))


def sol_array():
    return "[" + ",".join(str(b) for b in rbytes(64)) + "]"


def jwt(payload, alg="HS256", siglen=None):
    head = {"alg": alg, "typ": "JWT"}

    def enc(o):
        return base64.urlsafe_b64encode(json.dumps(o, separators=(",", ":")).encode()).decode().rstrip("=")

    if siglen is None:
        siglen = 32 if alg.startswith("HS") else 256
    return enc(head) + "." + enc(payload) + "." + b64u(siglen)


def now_ts():
    return 1790000000 + R.randrange(10000000)


def pem_body(nbytes):
    raw = base64.b64encode(rbytes(nbytes)).decode()
    return "\n".join(raw[i:i + 64] for i in range(0, len(raw), 64))


def age_key():
    return "AGE-SECRET-KEY-1" + rs(58, BECH32).upper()


def aws_secret():
    return rs(40, B64)


def aws_id(prefix="AKIA"):
    return prefix + rs(16, UPPER + "234567")


def azure_key():
    return b64(64)


def azure_client_secret():
    return rs(3, ALNUM) + "8Q~" + rs(34, ALNUM + "_.~-")


def google_key():
    return "AIza" + rs(35, B64URL)


def slack_bot():
    return "xoxb-%s-%s-%s" % (rs(12, DIG), rs(13, DIG), rs(24))


def slack_user():
    return "xoxp-%s-%s-%s-%s" % (rs(12, DIG), rs(12, DIG), rs(13, DIG), hx(32))


def tg_bot():
    return "%d:AA%s" % (R.randrange(10 ** 9, 8 * 10 ** 9), rs(33, B64URL))


def discord_bot():
    user_id = str(R.randrange(10 ** 17, 10 ** 18 + 5 * 10 ** 17))
    return base64.b64encode(user_id.encode()).decode().rstrip("=") + "." + rs(6, B64URL) + "." + rs(38, B64URL)


def bip39(words, n):
    ent = rbytes(n * 4 // 3)
    h = hashlib.sha256(ent).digest()
    bits = "".join("{:08b}".format(b) for b in ent) + "{:08b}".format(h[0])[: len(ent) * 8 // 32]
    return " ".join(words[int(bits[i:i + 11], 2)] for i in range(0, len(bits), 11))


def load_bip39():
    path = os.path.join(HERE, "..", "..", "bip39_english.txt")
    data = open(path, "rb").read()
    if hashlib.sha256(data).hexdigest() != "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda":
        raise SystemExit("bip39_english.txt is not the BIP-39 English list")
    return data.decode().split()


WORDS = load_bip39()

# --- people, places, words -------------------------------------------------------------------

NAMES = ["Ilse", "Tamar", "Okonkwo", "Birte", "Radu", "Yusra", "Kaito", "Maelle", "Dorin", "Shreya",
         "Lukas", "Anouk", "Teodor", "Nkechi", "Paulo", "Svea", "Hamid", "Ludmila", "Joaquin", "Wen"]
HANDLES = ["@quillfox", "@ember_ops", "@nightjar", "@tessellate", "@brine", "@kobold_dev", "@marl",
           "@vantage-ai", "@sable.agent", "@copperleaf"]
DOMS = ["orchardline.test", "velvetmint.example", "example.com", "example.org", "kestrel-labs.test",
        "tidewater.invalid", "shop.example.net", "brackenfield.example", "lumora.test", "quaywise.example"]
HOSTS = ["db-prod-2.orchardline.test", "10.20.4.17", "pg.internal.kestrel-labs.test", "mysql.lumora.test",
         "172.16.8.40", "sql01.quaywise.example", "data.brackenfield.example"]
PROJECTS = ["invoice-ocr", "lead-scraper", "shopify-sync", "rag-bot", "price-watch", "pdf-summarizer",
            "crm-bridge", "ticket-triage", "nft-minter", "podcast-clipper"]
USERS = ["admin", "deploy", "svc_etl", "app", "root", "ops", "reporting", "wp_admin", "postgres", "agent"]


def dom():
    return pick(DOMS)


def name():
    return pick(NAMES)


def proj():
    return pick(PROJECTS)


def human_pw():
    w = pick(["Lighthouse", "marmot", "Quokka", "tangerine", "Velvet", "Harbor", "cobalt", "Pelikan",
              "girasol", "Sonnenblume", "hirondelle", "Zebra", "Kirsche", "nuvola", "Orchidee"])
    return pick([
        w + str(R.randrange(10, 9999)) + pick("!?#$%&*"),
        pick("!@#") + w + "_" + str(R.randrange(1970, 2030)),
        w.lower() + pick("-._") + rs(4, LOWER + DIG) + pick(["!", "", "#1"]),
        rs(R.randrange(12, 20), ALNUM + "!#%*+-_=?@"),
        rs(3, UPPER) + rs(5, DIG) + rs(3, LOWER) + pick("!$%"),
        w + pick(["2024", "2025", "2026"]) + pick(["!", "!!", "$", "."]),
    ])


def strong_pw():
    return rs(R.randrange(16, 28), ALNUM + "!#%*+-_=?@^")


# --- the samples -----------------------------------------------------------------------------

SECRET = []
LOOK = []


def secret(kind, ctx, w=1):
    def deco(f):
        SECRET.extend([(kind, ctx, f)] * w)
        return f
    return deco


def look(kind, ctx, w=1):
    def deco(f):
        LOOK.extend([(kind, ctx, f)] * w)
        return f
    return deco


PW_WORDS = [
    ("en", "password"), ("en", "pass"), ("en", "pwd"), ("de", "Passwort"), ("de", "Kennwort"),
    ("es", "contraseña"), ("es", "clave"), ("fr", "mot de passe"), ("fr", "mdp"), ("pt", "senha"),
    ("it", "password"), ("nl", "wachtwoord"), ("pl", "hasło"), ("cs", "heslo"), ("ru", "пароль"),
    ("uk", "пароль"), ("tr", "şifre"), ("ro", "parola"), ("sv", "lösenord"), ("da", "adgangskode"),
    ("fi", "salasana"), ("hu", "jelszó"), ("el", "κωδικός"), ("he", "סיסמה"), ("ar", "كلمة المرور"),
    ("hi", "पासवर्ड"), ("vi", "mật khẩu"), ("id", "kata sandi"), ("zh", "密码"), ("ja", "パスワード"),
    ("ko", "비밀번호"), ("sw", "nenosiri"), ("sl", "geslo"), ("hr", "lozinka"), ("tl", "password"),
]

PW_LINES = {
    "en": ["Login for the staging panel is {u}, password {p}. Change it once you're done please.",
           "hey, creds for the VPS: user {u} / pass {p}",
           "FYI the pwd for the shared mailbox is {p} (same user as before)"],
    "de": ["Hallo, der Zugang zum Backend: Benutzer {u}, Passwort {p}. Bitte nach dem Test ändern.",
           "Kennwort für den FTP-Server lautet {p}, Benutzername {u}."],
    "es": ["Te paso el acceso: usuario {u} y la contraseña es {p}",
           "La clave del panel de WordPress: {p} (usuario {u})"],
    "fr": ["Voici les accès : identifiant {u}, mot de passe {p}. Merci de le changer après.",
           "le mdp du compte de test c'est {p}, login {u}"],
    "pt": ["Segue o acesso ao painel: usuário {u}, senha {p}", "senha do banco: {p} (usuário {u})"],
    "it": ["Ecco l'accesso al gestionale: utente {u}, password {p}"],
    "nl": ["Inloggegevens: gebruiker {u}, wachtwoord {p}. Graag na oplevering wijzigen."],
    "pl": ["Dane do logowania: login {u}, hasło {p}"],
    "cs": ["Přihlášení do administrace: uživatel {u}, heslo {p}"],
    "ru": ["Доступ к серверу: логин {u}, пароль {p}", "пароль от админки {p}, логин {u}"],
    "uk": ["Доступ до панелі: логін {u}, пароль {p}"],
    "tr": ["Panel girişi: kullanıcı adı {u}, şifre {p}"],
    "ro": ["Date de acces: utilizator {u}, parola {p}"],
    "sv": ["Inloggning till adminpanelen: användare {u}, lösenord {p}"],
    "da": ["Login til serveren: bruger {u}, adgangskode {p}"],
    "fi": ["Tunnukset hallintapaneeliin: käyttäjä {u}, salasana {p}"],
    "hu": ["Belépés az admin felületre: felhasználó {u}, jelszó {p}"],
    "el": ["Στοιχεία σύνδεσης: χρήστης {u}, κωδικός {p}"],
    "he": ["פרטי התחברות: משתמש {u}, סיסמה {p}"],
    "ar": ["بيانات الدخول: اسم المستخدم {u} و كلمة المرور {p}"],
    "hi": ["सर्वर लॉगिन: यूज़र {u}, पासवर्ड {p}"],
    "vi": ["Thông tin đăng nhập: tài khoản {u}, mật khẩu {p}"],
    "id": ["Akses dashboard: username {u}, kata sandi {p}"],
    "zh": ["后台账号 {u}，密码 {p}，测试完请修改。", "服务器登录：用户名 {u} 密码：{p}"],
    "ja": ["管理画面のログイン情報です。ユーザー名 {u}、パスワード {p}"],
    "ko": ["관리자 계정: 아이디 {u}, 비밀번호 {p}"],
    "sw": ["Maelezo ya kuingia: jina la mtumiaji {u}, nenosiri {p}"],
    "sl": ["Prijava v skrbniško ploščo: uporabnik {u}, geslo {p}"],
    "hr": ["Pristupni podaci: korisnik {u}, lozinka {p}"],
    "tl": ["Ito yung login sa admin: username {u}, password {p}"],
}


@secret("password", "chat message, many languages")
def _():
    lang, _w = pick(PW_WORDS)
    return pick(PW_LINES[lang]).format(u=pick(USERS), p=M(human_pw()))


@secret("password", "offer note, many languages")
def _():
    lang, _w = pick(PW_WORDS)
    line = pick(PW_LINES[lang]).format(u=pick(USERS) + "@" + dom(), p=M(human_pw()))
    return pick(["Offer note: I can start today. ", "Before I quote: ", "Re: scope. "]) + line


@secret("password", "dispute statement")
def _():
    return pick([
        "Dispute: on the 3rd I gave the seller full access (cPanel user {u}, password {p}) and the site was down for two days after. Attaching the chat log.",
        "Statement from buyer: the agent was given the store login ({u} / {p}) only to export products. It also changed the theme. I am asking for a refund.",
        "I never shared anything beyond what the brief said. For the record the password I sent was {p} and it was for the sandbox account {u}, not production.",
    ]).format(u=pick(USERS), p=M(human_pw()))


@secret("password", "review")
def _():
    return pick([
        "4/5. Good work on the scraper. Note for others: the seller asked for my router login and I sent it (admin / {p}), in hindsight I should have made a temp account.",
        "Fast delivery. Only complaint: the README still has my DB password in it ({p}) so I had to rotate.",
    ]).format(p=M(human_pw()))


@secret("password", "email")
def _():
    return ("From: %s <%s@%s>\nTo: ops@%s\nSubject: access for the contractor\n\nHi,\n\nthe VPN account for the agent is %s, "
            "initial password: %s\nIt expires at the end of the month.\n\nThanks,\n%s") % (
        name(), name().lower(), dom(), dom(), pick(USERS), M(human_pw()), name())


@secret("password", "support ticket")
def _():
    return ("Ticket #%d | Priority: high\nCustomer can't log in after the migration. Tried with their old credentials: "
            "username %s, pw %s. Returns 403. Steps to reproduce attached.") % (
        R.randrange(10000, 99999), pick(USERS), M(human_pw()))


@secret("password", "Q&A answer")
def _():
    return pick([
        "Q: Which account should the agent use?\nA: Use the read-only one, login reporting, the password is {p}",
        "Answer to clarification #2: yes, the SFTP is sftp.{d} port 2222, user {u}, password: {p}",
        "> what are the db creds?\nuser {u}, password {p}, database is called shop_live",
    ]).format(p=M(human_pw()), u=pick(USERS), d=dom())


@secret("password", "spreadsheet (TSV)")
def _():
    rows = ["service\tlogin\tpassword\tnotes"]
    n = R.randrange(2, 4)
    for _ in range(n):
        rows.append("%s\t%s\t%s\t%s" % (pick(["Mailchimp", "Hostinger", "Shopify staff", "Zendesk", "Webflow", "GoDaddy"]),
                                        name().lower() + "@" + dom(), M(human_pw()),
                                        pick(["shared", "2FA off", "owner", "", "temp"])))
    return "\n".join(rows)


@secret("password", "spreadsheet (CSV export)")
def _():
    return "site,url,username,password\n%s,https://%s/wp-admin,%s,%s\n%s,https://cpanel.%s,%s,%s" % (
        proj(), dom(), pick(USERS), M(human_pw()), proj(), dom(), pick(USERS), M(human_pw()))


@secret("password", "shell history")
def _():
    u = pick(USERS)
    p = human_pw()
    return pick([
        "  501  mysql -h %s -u %s -p'%s' shop < dump.sql\n  502  ls -la" % (pick(HOSTS), u, M(p)),
        "$ sshpass -p '%s' ssh %s@%s 'systemctl restart worker'" % (M(p), u, pick(HOSTS)),
        "history | tail -3\n 1187  htpasswd -b -c /etc/nginx/.htpasswd %s %s\n 1188  nginx -t" % (u, M(p)),
        "$ echo '%s' | docker login registry.%s -u %s --password-stdin\nLogin Succeeded" % (M(p), dom(), u),
        "PGPASSWORD=%s psql -h %s -U %s -d analytics -c 'select 1'" % (M(p), pick(HOSTS), u),
        "$ curl -u %s:%s https://ci.%s/api/json" % (u, M(p), dom()),
        "smbclient //%s/share -U %s%%%s" % (pick(HOSTS), u, M(p)),
        "$ redis-cli -h %s -a %s INFO keyspace" % (pick(HOSTS), M(p)),
        "$ mongosh \"mongodb://%s:%s@%s:27017/admin\"" % (u, M(p), pick(HOSTS)),
    ])


@secret("password", "code: Python requests auth tuple")
def _():
    return 'resp = requests.get(f"https://api.%s/v2/orders", auth=("%s", "%s"), timeout=30)' % (dom(), pick(USERS), M(strong_pw()))


@secret("password", "code: Java JDBC")
def _():
    return 'Connection conn = DriverManager.getConnection("jdbc:sqlserver://%s:1433;databaseName=erp", "%s", "%s");' % (
        pick(HOSTS), pick(USERS), M(strong_pw()))


@secret("password", "code: C mysql_real_connect")
def _():
    return 'if (!mysql_real_connect(conn, "%s", "%s", "%s", "inventory", 3306, NULL, 0)) {\n    fprintf(stderr, "%%s", mysql_error(conn));\n}' % (
        pick(HOSTS), pick(USERS), M(strong_pw()))


@secret("password", "code: PowerShell")
def _():
    return '$secure = ConvertTo-SecureString "%s" -AsPlainText -Force\n$cred = New-Object System.Management.Automation.PSCredential ("%s", $secure)' % (
        M(strong_pw()), pick(["CORP/svc-backup", "svc-sql", "administrator"]))


@secret("password", "code: PHP PDO")
def _():
    return "$pdo = new PDO('mysql:host=%s;dbname=crm;charset=utf8mb4', '%s', '%s', [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION]);" % (
        pick(HOSTS), pick(USERS), M(strong_pw()))


@secret("password", "code: Go sql.Open")
def _():
    return 'db, err := sql.Open("postgres", "host=%s user=%s password=%s dbname=ledger sslmode=require")' % (
        pick(HOSTS), pick(USERS), M(strong_pw()))


@secret("password", "code: Ruby Net::SMTP")
def _():
    return "Net::SMTP.start('smtp.%s', 587, 'mail.%s', 'noreply@%s', '%s', :login) do |smtp|\n  smtp.send_message msg, from, to\nend" % (
        dom(), dom(), dom(), M(strong_pw()))


@secret("password", "code: Kotlin / Spring properties")
def _():
    return "spring.datasource.url=jdbc:postgresql://%s:5432/billing\nspring.datasource.username=%s\nspring.datasource.password=%s" % (
        pick(HOSTS), pick(USERS), M(strong_pw()))


@secret("password", "code: Elixir config")
def _():
    return 'config :my_app, MyApp.Repo,\n  username: "%s",\n  password: "%s",\n  hostname: "%s",\n  database: "my_app_prod"' % (
        pick(USERS), M(strong_pw()), pick(HOSTS))


@secret("password", "code: Node nodemailer")
def _():
    return "const transporter = nodemailer.createTransport({\n  host: 'smtp.%s',\n  port: 465,\n  secure: true,\n  auth: { user: 'bot@%s', pass: '%s' },\n});" % (
        dom(), dom(), M(strong_pw()))


@secret("password", "code: C# SqlConnection")
def _():
    return 'var cs = "Server=tcp:%s,1433;Initial Catalog=Sales;User ID=%s;Password=%s;Encrypt=True;";' % (
        pick(HOSTS), pick(USERS), M(strong_pw()))


@secret("password", "SQL")
def _():
    return pick([
        "CREATE USER '%s'@'%%' IDENTIFIED BY '%s';\nGRANT SELECT ON shop.* TO '%s'@'%%';",
        "ALTER ROLE %s WITH LOGIN PASSWORD '%s';\n-- %s only needs read access",
    ]) % (pick(USERS), M(strong_pw()), pick(USERS))


@secret("password", "config: docker-compose")
def _():
    return "services:\n  db:\n    image: mariadb:11\n    environment:\n      MARIADB_ROOT_PASSWORD: %s\n      MARIADB_DATABASE: wp\n      MARIADB_USER: wp\n      MARIADB_PASSWORD: %s" % (
        M(strong_pw()), M(strong_pw()))


@secret("password", "config: Kubernetes Secret stringData")
def _():
    return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s-db\ntype: Opaque\nstringData:\n  DB_USER: %s\n  DB_PASS: %s" % (
        proj(), pick(USERS), M(strong_pw()))


@secret("password", "config: Kubernetes Secret data (base64)")
def _():
    pw = base64.b64encode(strong_pw().encode()).decode()
    return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: smtp-creds\ndata:\n  username: %s\n  password: %s" % (
        base64.b64encode(b"mailer").decode(), M(pw))


@secret("password", "config: Ansible inventory")
def _():
    return "[web]\n%s ansible_user=%s ansible_ssh_pass=%s ansible_become_pass=%s" % (
        pick(HOSTS), pick(USERS), M(human_pw()), M(human_pw()))


@secret("password", "config: redis.conf / grafana.ini / rabbitmq")
def _():
    return pick([
        "bind 0.0.0.0\nport 6379\nrequirepass %s\nmaxmemory 512mb" % M(strong_pw()),
        "[security]\nadmin_user = admin\nadmin_password = %s\nsecret_key = %s" % (M(human_pw()), M(rs(32, ALNUM))),
        "listeners.tcp.default = 5672\ndefault_user = %s\ndefault_pass = %s" % (pick(USERS), M(strong_pw())),
        "[domain/corp]\nldap_uri = ldaps://ldap.%s\nldap_default_bind_dn = cn=sssd,ou=svc,dc=corp\nldap_default_authtok = %s" % (dom(), M(strong_pw())),
    ])


@secret("password", "config: wpa_supplicant / router handover")
def _():
    return pick([
        'network={\n    ssid="%s-5G"\n    psk="%s"\n    key_mgmt=WPA-PSK\n}' % (pick(["Atelier", "Lager", "Office", "Kantoor"]), M(human_pw())),
        "Handover notes\n- Router: http://192.168.1.1, admin / %s\n- Wi-Fi (guest): %s-guest, key %s" % (M(human_pw()), proj(), M(human_pw())),
    ])


@secret("password", "diff")
def _():
    return "--- a/config/database.yml\n+++ b/config/database.yml\n@@ -4,3 +4,3 @@ production:\n   username: %s\n-  password: %s\n+  password: %s\n   host: %s" % (
        pick(USERS), M(human_pw()), M(strong_pw()), pick(HOSTS))


@secret("password", "log line")
def _():
    return pick([
        "2026-10-02T11:04:55Z WARN auth: login failed user=%s password=%s ip=10.0.3.8 reason=locked",
        "[debug] POST /api/login body={\"username\":\"%s\",\"password\":\"%s\"} 401 12ms",
        "Oct 02 11:04:55 box app[812]: connecting to amqp as %s with pw %s",
    ]) % (pick(USERS), M(human_pw()))


@secret("password", ".netrc / git credential store")
def _():
    return pick([
        "machine api.%s\n  login %s\n  password %s" % (dom(), pick(USERS), M(strong_pw())),
        "cat ~/.git-credentials\nhttps://%s:%s@git.%s" % (pick(USERS), M(strong_pw()), dom()),
    ])


@secret("password", "FileZilla sitemanager (base64)")
def _():
    return '<Server>\n  <Host>ftp.%s</Host>\n  <Port>21</Port>\n  <User>%s</User>\n  <Pass encoding="base64">%s</Pass>\n</Server>' % (
        dom(), pick(USERS), M(base64.b64encode(human_pw().encode()).decode()))


@secret("password", "Docker config.json auth")
def _():
    auth = base64.b64encode(("%s:%s" % (pick(USERS), strong_pw())).encode()).decode()
    return '{\n  "auths": {\n    "registry.%s": {\n      "auth": "%s"\n    }\n  }\n}' % (dom(), M(auth))


@secret("password", "Keycloak / Elastic bootstrap")
def _():
    return pick([
        "docker run -p 8080:8080 -e KC_BOOTSTRAP_ADMIN_USERNAME=admin -e KC_BOOTSTRAP_ADMIN_PASSWORD=%s quay.io/keycloak/keycloak start-dev",
        "ELASTIC_PASSWORD=%s\nKIBANA_SYSTEM_PASSWORD=%s",
    ]).replace("%s", "{}", 2).format(M(strong_pw()), M(strong_pw()))


@secret("password", "Jenkins API token via curl -u")
def _():
    return "curl -X POST -u %s:%s 'https://jenkins.%s/job/%s/build?delay=0sec'" % (
        pick(USERS), M("11" + hx(32)), dom(), proj())


# --- service keys ---

@secret("github classic token (CRC)", "git remote")
def _():
    return "git remote set-url origin https://%s@github.com/%s/%s.git && git push -u origin main" % (
        M(gh()), pick(["orchardline", "kestrel-labs", "quaywise"]), proj())


@secret("github token", "chat / Actions secret")
def _():
    t = pick([gh("ghp_"), gh("gho_"), gh("ghs_"), gh_fine()])
    return pick([
        "I added it as a repo secret but here it is in case: %s (expires in 30 days)" % M(t),
        "GH_TOKEN=%s gh release create v1.4.0 dist/*" % M(t),
        "Seller: pushed to your repo with the token you sent (%s). You can revoke it now." % M(t),
    ])


@secret("gitlab tokens", "CI / runner config")
def _():
    return pick([
        "curl --header \"PRIVATE-TOKEN: %s\" \"https://gitlab.%s/api/v4/projects/42/pipelines\"" % (M("glpat-" + rs(20, B64URL)), dom()),
        "[[runners]]\n  name = \"build-01\"\n  url = \"https://gitlab.%s\"\n  token = \"%s\"\n  executor = \"docker\"" % (dom(), M("glrt-" + rs(20, B64URL))),
        "git clone https://gitlab+deploy-token-17:%s@gitlab.%s/team/%s.git" % (M("gldt-" + rs(20, B64URL)), dom(), proj()),
    ])


@secret("slack token", "Python code")
def _():
    return 'from slack_sdk import WebClient\nclient = WebClient(token="%s")\nclient.chat_postMessage(channel="#alerts", text="deploy done")' % M(slack_bot())


@secret("slack user token / app token", "env")
def _():
    return "SLACK_USER_TOKEN=%s\nSLACK_APP_TOKEN=%s" % (M(slack_user()), M("xapp-1-A0%s-%s-%s" % (rs(9, UPPER + DIG), rs(13, DIG), hx(64))))


@secret("slack webhook URL", "JS fetch")
def _():
    return "await fetch('https://hooks.slack.com/services/%s', {method: 'POST', body: JSON.stringify({text})});" % M(
        "T0%s/B0%s/%s" % (rs(8, UPPER + DIG), rs(9, UPPER + DIG), rs(24)))


@secret("stripe secret key", "PHP / Node")
def _():
    k = pick(["sk_live_", "sk_test_", "rk_live_"]) + rs(pick([24, 99]))
    return pick([
        "$stripe = new StripeClient('%s');\n$stripe->refunds->create(['charge' => $chargeId]);" % M(k),
        "const stripe = require('stripe')('%s', { apiVersion: '2024-06-20' });" % M(k),
    ])


@secret("stripe webhook secret", ".env diff")
def _():
    return "+STRIPE_SECRET_KEY=%s\n+STRIPE_WEBHOOK_SECRET=%s\n STRIPE_PUBLISHABLE_KEY=pk_live_%s" % (
        M("sk_live_" + rs(99)), M("whsec_" + rs(32)), rs(99))


@secret("openai key", "notebook cell")
def _():
    k = pick(["sk-proj-" + rs(156, B64URL), "sk-" + rs(20) + "T3BlbkFJ" + rs(20), "sk-svcacct-" + rs(140, B64URL)])
    return "In [3]: from openai import OpenAI\n       client = OpenAI(api_key=\"%s\")\n       client.models.list()" % M(k)


@secret("anthropic key", "Q&A with curl")
def _():
    return ("Why do I get 401 here?\ncurl https://api.anthropic.com/v1/messages -H 'x-api-key: %s' -H 'anthropic-version: 2023-06-01' -d @body.json") % M(
        "sk-ant-api03-" + rs(93, B64URL) + "AA")


@secret("google api key (Gemini/Maps server)", "Kotlin / URL")
def _():
    k = google_key()
    return pick([
        'val model = GenerativeModel(modelName = "gemini-1.5-flash", apiKey = "%s")' % M(k),
        "https://maps.googleapis.com/maps/api/geocode/json?address=Main+St&key=%s" % M(k),
        "GEMINI_API_KEY=%s python eval.py --n 200" % M(k),
    ])


@secret("google oauth client secret / refresh token", "JSON files")
def _():
    cid = "%d-%s.apps.googleusercontent.com" % (R.randrange(10 ** 11, 10 ** 12), rs(32, LOWER + DIG))
    return pick([
        '{"installed":{"client_id":"%s","project_id":"%s","client_secret":"%s","redirect_uris":["http://localhost"]}}' % (cid, proj(), M("GOCSPX-" + rs(28, B64URL))),
        "[gdrive]\ntype = drive\nscope = drive\ntoken = {\"access_token\":\"%s\",\"token_type\":\"Bearer\",\"refresh_token\":\"%s\",\"expiry\":\"2026-11-30T10:00:00Z\"}" % (
            M("ya29.a0" + rs(150, B64URL)), M("1//0" + rs(2, UPPER) + rs(99, B64URL))),
    ])


@secret("aws secret key", "credentials file")
def _():
    return "[%s]\naws_access_key_id = %s\naws_secret_access_key = %s" % (pick(["default", "prod", "client-acme"]), aws_id(), M(aws_secret()))


@secret("aws session credentials", "export block")
def _():
    return "export AWS_ACCESS_KEY_ID=%s\nexport AWS_SECRET_ACCESS_KEY=%s\nexport AWS_SESSION_TOKEN=%s" % (
        aws_id("ASIA"), M(aws_secret()), M("IQoJb3JpZ2luX2Vj" + rs(300, B64)))


@secret("aws secret key", "Terraform provider")
def _():
    return 'provider "aws" {\n  region     = "eu-central-1"\n  access_key = "%s"\n  secret_key = "%s"\n}' % (aws_id(), M(aws_secret()))


@secret("aws secret key", "spreadsheet row")
def _():
    return "Account\tUser\tAccess key\tSecret\n%s\tci-bot\t%s\t%s" % (R.randrange(10 ** 11, 10 ** 12), aws_id(), M(aws_secret()))


@secret("S3-compatible secret (R2/MinIO/B2)", "rclone / env")
def _():
    return pick([
        "[r2]\ntype = s3\nprovider = Cloudflare\naccess_key_id = %s\nsecret_access_key = %s\nendpoint = https://%s.r2.cloudflarestorage.com" % (hx(32), M(hx(64)), hx(32)),
        "MINIO_ROOT_USER=minioadmin-%s\nMINIO_ROOT_PASSWORD=%s" % (rs(4, LOWER), M(strong_pw())),
        "b2 authorize-account 005%s %s" % (hx(21), M("K005" + rs(27, B64))),
    ])


@secret("azure storage key / SAS", "connection string / URL")
def _():
    acct = pick(["stlumora", "orchardfiles", "kestrelbackup"])
    return pick([
        "DefaultEndpointsProtocol=https;AccountName=%s;AccountKey=%s;EndpointSuffix=core.windows.net" % (acct, M(azure_key())),
        "https://%s.blob.core.windows.net/exports/report.csv?sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2026-12-31T00:00:00Z&spr=https&sig=%s" % (
            acct, M(b64(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"))),
    ])


@secret("azure ad client secret", "appsettings.json")
def _():
    return '"AzureAd": {\n  "Instance": "https://login.microsoftonline.com/",\n  "TenantId": "%s",\n  "ClientId": "%s",\n  "ClientSecret": "%s"\n}' % (
        uid(), uid(), M(azure_client_secret()))


@secret("npm / pypi token", "rc files")
def _():
    return pick([
        "//registry.npmjs.org/:_authToken=%s" % M("npm_" + rs(36)),
        "[pypi]\n  username = __token__\n  password = %s" % M("pypi-AgEIcHlwaS5vcmc" + rs(150, B64URL)),
        "twine upload dist/* -u __token__ -p %s" % M("pypi-AgEIcHlwaS5vcmc" + rs(130, B64URL)),
    ])


@secret("twilio auth token", "Ruby")
def _():
    return "client = Twilio::REST::Client.new('AC%s', '%s')\nclient.messages.create(from: '+15005550006', to: to, body: body)" % (hx(32), M(hx(32)))


@secret("sendgrid key", "C#")
def _():
    return 'var client = new SendGridClient("%s");\nvar msg = MailHelper.CreateSingleEmail(from, to, subject, text, html);' % M(
        "SG." + rs(22, B64URL) + "." + rs(43, B64URL))


@secret("heroku api key", "shell")
def _():
    return pick(["HEROKU_API_KEY=%s git push heroku main" % M(uid()),
                 "heroku config:set --app %s API_TOKEN=x && export HEROKU_API_KEY=%s" % (proj(), M("HRKU-" + rs(60, B64URL)))])


@secret("digitalocean token", "doctl config")
def _():
    return "access-token: %s\ncontext: default\noutput: text" % M(pick(["dop_v1_", "doo_v1_"]) + hx(64))


@secret("telegram bot token", "URL in a log")
def _():
    return "requests.exceptions.HTTPError: 409 Client Error: Conflict for url: https://api.telegram.org/bot%s/getUpdates" % M(tg_bot())


@secret("discord tokens", "bot code / webhook")
def _():
    return pick([
        "bot = commands.Bot(command_prefix='!', intents=intents)\nbot.run('%s')" % M(discord_bot()),
        "DISCORD_WEBHOOK=https://discord.com/api/webhooks/%d/%s" % (R.randrange(10 ** 17, 10 ** 18), M(rs(68, B64URL))),
    ])


@secret("hugging face token", "shell history")
def _():
    return " 2041  huggingface-cli login --token %s --add-to-git-credential\n 2042  python train.py" % M("hf_" + rs(34, LOWER + UPPER))


@secret("vault token", "export")
def _():
    return "export VAULT_ADDR=https://vault.%s:8200\nexport VAULT_TOKEN=%s\nvault kv get secret/%s" % (
        dom(), M(pick(["hvs.", "hvb."]) + rs(pick([24, 90]), B64URL)), proj())


@secret("shopify admin token", "GraphQL curl")
def _():
    return "curl -X POST https://%s.myshopify.com/admin/api/2024-07/graphql.json -H 'X-Shopify-Access-Token: %s' -d '{\"query\":\"{ shop { name } }\"}'" % (
        proj(), M(pick(["shpat_", "shpca_", "shppa_"]) + hx(32)))


@secret("mailgun / mailchimp / brevo / resend / postmark", "mailer configs", w=2)
def _():
    return pick([
        'mg := mailgun.NewMailgun("mg.%s", "%s")' % (dom(), M("key-" + hx(32))),
        "MAILCHIMP_API_KEY=%s" % M(hx(32) + "-us" + str(R.randrange(1, 22))),
        "BREVO_API_KEY=%s" % M("xkeysib-" + hx(64) + "-" + rs(16)),
        "const resend = new Resend('%s');" % M("re_" + rs(8) + "_" + rs(24)),
        "X-Postmark-Server-Token: %s" % M(uid()),
    ])


@secret("observability keys (Datadog, New Relic, Grafana, Sentry)", "docker run / config", w=2)
def _():
    return pick([
        "docker run -d -e DD_API_KEY=%s -e DD_APP_KEY=%s -e DD_SITE=datadoghq.eu gcr.io/datadoghq/agent:7" % (M(hx(32)), M(hx(40))),
        "NEW_RELIC_API_KEY=%s" % M("NRAK-" + rs(27, UPPER + DIG)),
        "apiVersion: 1\ndatasources:\n  - name: prod\n    secureJsonData:\n      token: %s" % M("glsa_" + rs(32) + "_" + hx(8)),
        "[auth]\ntoken=%s" % M("sntryu_" + hx(64)),
    ])


@secret("productivity API keys (Linear, Notion, Airtable, Asana, Figma)", "chat", w=2)
def _():
    return pick([
        "here's a Linear key with write scope: %s" % M("lin_api_" + rs(40)),
        "Notion integration secret is %s, I shared the 'Roadmap' page with it" % M(pick(["ntn_" + rs(46), "secret_" + rs(43)])),
        "const base = new Airtable({ apiKey: '%s' }).base('app%s');" % (M("pat" + rs(14) + "." + hx(64)), rs(14)),
        "Asana PAT for the sync: %s" % M("2/%d/%d:%s" % (R.randrange(10 ** 15, 10 ** 16), R.randrange(10 ** 15, 10 ** 16), hx(32))),
        "FIGMA_TOKEN=%s" % M("figd_" + rs(40, B64URL)),
    ])


@secret("atlassian / bitbucket / trello tokens", "curl")
def _():
    return pick([
        "curl -u %s@%s:%s https://%s.atlassian.net/rest/api/3/myself" % (name().lower(), dom(), M("ATATT3xFfGF0" + rs(180, B64URL) + "=" + hx(8).upper()), proj()),
        "git clone https://%s:%s@bitbucket.org/team/%s.git" % (name().lower(), M("ATBB" + rs(28) + hx(8).upper()), proj()),
        "https://api.trello.com/1/members/me/boards?key=%s&token=%s" % (hx(32), M("ATTA" + hx(64) + hx(8).upper())),
    ])


@secret("infra tokens (Doppler, Pulumi, TFC, Netlify, Cloudflare, Vercel, Fly)", "CI env", w=2)
def _():
    return pick([
        "DOPPLER_TOKEN=%s doppler run -- npm start" % M("dp.st.prd." + rs(40)),
        "PULUMI_ACCESS_TOKEN=%s pulumi up --yes" % M("pul-" + hx(40)),
        'credentials "app.terraform.io" {\n  token = "%s"\n}' % M(rs(14) + ".atlasv1." + rs(67)),
        "netlify deploy --prod --auth %s --site %s" % (M("nfp_" + rs(40)), uid()),
        "CLOUDFLARE_API_TOKEN=%s npx wrangler deploy" % M(rs(40, B64URL)),
        "vercel --prod --token %s" % M(rs(24)),
        "FLY_API_TOKEN=\"%s\"" % M("FlyV1 fm2_" + rs(200, B64) + "==,fm2_" + rs(120, B64)),
    ])


@secret("supabase service_role key", ".env with anon key beside")
def _():
    ref = rs(20, LOWER)
    anon = jwt({"iss": "supabase", "ref": ref, "role": "anon", "iat": 1727000000, "exp": 2042576000})
    srv = jwt({"iss": "supabase", "ref": ref, "role": "service_role", "iat": 1727000000, "exp": 2042576000})
    return "NEXT_PUBLIC_SUPABASE_URL=https://%s.supabase.co\nNEXT_PUBLIC_SUPABASE_ANON_KEY=%s\nSUPABASE_SERVICE_ROLE_KEY=%s" % (ref, anon, M(srv))


@secret("database URL with password", "many schemes", w=3)
def _():
    u, p, h = pick(USERS), strong_pw().replace("@", "A").replace("/", "s").replace(":", "c").replace("#", "h").replace("?", "q").replace("%", "p"), pick(HOSTS)
    return pick([
        "DATABASE_URL=postgres://%s:%s@%s:5432/app?sslmode=require" % (u, M(p), h),
        "mongodb+srv://%s:%s@cluster0.%s.mongodb.net/?retryWrites=true&w=majority" % (u, M(p), rs(5, LOWER + DIG)),
        "REDIS_URL=rediss://default:%s@%s:6380/0" % (M(p), h),
        "CELERY_BROKER_URL = 'amqp://%s:%s@%s:5672/vhost'" % (u, M(p), h),
        "DATABASE_URL=mysql://%s:%s@aws.connect.psdb.cloud/shop?sslaccept=strict" % (rs(12, LOWER + DIG), M("pscale_pw_" + rs(43, B64URL))),
        "Driver={ODBC Driver 18 for SQL Server};Server=%s;UID=%s;PWD=%s;Database=dw" % (h, u, M(p)),
        "clickhouse-client --host %s --user %s --password %s --secure" % (h, u, M(p)),
        "snowflake://%s:%s@%s/ANALYTICS/PUBLIC?warehouse=WH_XS" % (u, M(p), "xy" + rs(5, DIG) + ".eu-west-1"),
        "neo4j+s://%s:%s@%s.databases.neo4j.io" % ("neo4j", M(p), rs(8, LOWER + DIG)),
        "cloudinary://%d:%s@%s" % (R.randrange(10 ** 14, 10 ** 15), M(rs(27, B64URL)), proj()),
    ])


@secret("AI provider keys (less common)", "benchmark script / configs", w=3)
def _():
    return pick([
        'Sys.setenv(REPLICATE_API_TOKEN = "%s")' % M("r8_" + rs(37)),
        'let client = Groq::new("%s");' % M("gsk_" + rs(52)),
        "llm:\n  provider: openrouter\n  api_key: %s\n  model: anthropic/claude-3.5-sonnet" % M("sk-or-v1-" + hx(64)),
        "PERPLEXITY_API_KEY=%s" % M("pplx-" + rs(48)),
        "XAI_API_KEY=%s" % M("xai-" + rs(80)),
        "MISTRAL_API_KEY=%s\nCOHERE_API_KEY=%s" % (M(rs(32)), M(rs(40))),
        "pc = Pinecone(api_key=\"%s\")" % M("pcsk_" + rs(5) + "_" + rs(63)),
        "LANGSMITH_API_KEY=%s" % M("lsv2_pt_" + hx(32) + "_" + hx(10)),
        'request.setValue("%s", forHTTPHeaderField: "xi-api-key")' % M("sk_" + hx(48)),
        "curl -H 'Authorization: Token %s' https://api.deepgram.com/v1/listen" % M(hx(40)),
        "TOGETHER_API_KEY=%s" % M(hx(64)),
        "DEEPSEEK_API_KEY=%s" % M("sk-" + hx(32)),
        "FIREWORKS_API_KEY=%s" % M("fw_" + rs(24)),
        "WANDB_API_KEY=%s wandb login" % M(hx(40)),
    ])


@secret("MCP server config keys", "claude_desktop_config.json")
def _():
    return '{\n  "mcpServers": {\n    "search": {\n      "command": "npx",\n      "args": ["-y", "tavily-mcp"],\n      "env": { "TAVILY_API_KEY": "%s" }\n    },\n    "crawl": {\n      "command": "npx",\n      "args": ["-y", "firecrawl-mcp"],\n      "env": { "FIRECRAWL_API_KEY": "%s" }\n    }\n  }\n}' % (
        M("tvly-" + pick(["dev-", "prod-", ""]) + rs(32)), M("fc-" + hx(32)))


@secret("web3 provider keys", "hardhat config / RPC URL")
def _():
    return pick([
        "networks: { sepolia: { url: 'https://eth-sepolia.g.alchemy.com/v2/%s', accounts: [process.env.PK] } },\netherscan: { apiKey: '%s' }" % (M(rs(32, B64URL)), M(rs(34, UPPER + DIG))),
        "const provider = new JsonRpcProvider('https://mainnet.helius-rpc.com/?api-key=%s')" % M(uid()),
        "INFURA_API_KEY_SECRET=%s" % M(hx(32)),
    ])


@secret("exchange API secret", "ccxt / Go / OKX")
def _():
    return pick([
        "exchange = ccxt.binance({'apiKey': '%s', 'secret': '%s', 'options': {'defaultType': 'future'}})" % (rs(64), M(rs(64))),
        'api := kraken.New("%s", "%s")' % (rs(56, B64), M(b64(64))),
        "OKX_API_KEY=%s\nOKX_SECRET_KEY=%s\nOKX_PASSPHRASE=%s" % (uid(), M(hx(32).upper()), M(human_pw())),
        "KUCOIN_KEY=%s\nKUCOIN_SECRET=%s\nKUCOIN_PASSPHRASE=%s" % (hx(24), M(uid()), M(human_pw())),
    ])


@secret("coinbase CDP key (EC PEM)", ".env multi-line")
def _():
    return 'CDP_API_KEY_NAME="organizations/%s/apiKeys/%s"\nCDP_API_KEY_PRIVATE_KEY="-----BEGIN EC PRIVATE KEY-----\n%s\n-----END EC PRIVATE KEY-----"' % (
        uid(), uid(), M(pem_body(121)))


@secret("payment provider secrets (less common)", "configs", w=2)
def _():
    return pick([
        "SQUARE_ACCESS_TOKEN=%s" % M("EAAA" + rs(60, B64URL)),
        "PAYPAL_CLIENT_ID=%s\nPAYPAL_CLIENT_SECRET=%s" % ("A" + rs(79, B64URL), M("E" + rs(79, B64URL))),
        "PAYSTACK_SECRET_KEY=%s" % M("sk_live_" + hx(40)),
        "FLW_SECRET_KEY=%s" % M("FLWSECK-" + hx(32) + "-X"),
        "RAZORPAY_KEY_ID=rzp_live_%s\nRAZORPAY_KEY_SECRET=%s" % (rs(14), M(rs(24))),
        "MOLLIE_API_KEY=%s" % M("live_" + rs(30)),
        "braintree.Configuration.configure(braintree.Environment.Production, merchant_id='%s', public_key='%s', private_key='%s')" % (rs(16, LOWER + DIG), rs(16, LOWER + DIG), M(hx(32))),
        "PLAID_CLIENT_ID=%s\nPLAID_SECRET=%s" % (hx(24), M(hx(30))),
    ])


@secret("dev-tool tokens (Postman, Docker Hub, Sonar, Buildkite, Okta, Contentful)", "misc", w=2)
def _():
    return pick([
        "newman run collection.json --env-var apiKey=%s" % M("PMAK-" + hx(24) + "-" + hx(34)),
        "echo %s | docker login -u %s --password-stdin" % (M("dckr_pat_" + rs(27, B64URL)), name().lower()),
        "sonar-scanner -Dsonar.token=%s -Dsonar.host.url=https://sonar.%s" % (M("squ_" + hx(40)), dom()),
        "BUILDKITE_API_TOKEN=%s" % M("bkua_" + hx(40)),
        "Authorization: SSWS %s" % M("00" + rs(40, B64URL)),
        "contentful space export --management-token %s" % M("CFPAT-" + rs(43, B64URL)),
    ])


@secret("network tokens (Tailscale, ngrok, cloudflared)", "install scripts")
def _():
    return pick([
        "curl -fsSL https://tailscale.com/install.sh | sh && tailscale up --authkey %s" % M("tskey-auth-k" + rs(10) + "CNTRL-" + rs(33)),
        "ngrok config add-authtoken %s" % M("2" + rs(26) + "_" + rs(21)),
        "cloudflared service install %s" % M("eyJhIjoi" + rs(180, B64)),
    ])


@secret("consumer platform tokens (Meta, Twitch, Dropbox, Mapbox secret, Algolia admin, FCM server key)", "misc", w=2)
def _():
    return pick([
        "GRAPH_TOKEN=%s" % M("EAAB" + rs(180)),
        "twitch: oauth:%s" % M(rs(30, LOWER + DIG)),
        "dbx = dropbox.Dropbox('%s')" % M("sl.B" + rs(135, B64URL)),
        "MAPBOX_SECRET_TOKEN=%s" % M("sk.eyJ1Ijoi" + rs(50, B64URL) + "." + rs(22, B64URL)),
        "ALGOLIA_APP_ID=%s\nALGOLIA_ADMIN_API_KEY=%s" % (rs(10, UPPER + DIG), M(hx(32))),
        "Authorization: key=%s" % M("AAAA" + rs(7, B64URL) + ":APA91b" + rs(134, B64URL)),
    ])


@secret("webhook signing secret (Svix)", "env")
def _():
    return "SVIX_WEBHOOK_SECRET=%s" % M("whsec_" + b64(24))


# --- keys and wallets ---

@secret("evm private key", ".env / foundry / web3.py")
def _():
    k = evm()
    return pick([
        "PRIVATE_KEY=0x%s\nRPC_URL=https://sepolia.%s" % (M(k), dom()),
        "forge script script/Deploy.s.sol --rpc-url $RPC --broadcast --private-key 0x%s" % M(k),
        "acct = Account.from_key('0x%s')\nprint(acct.address)" % M(k),
        "const wallet = new ethers.Wallet('%s', provider);" % M(k),
        "cast send 0x%s 'transfer(address,uint256)' 0x%s 1000 --private-key %s" % (hx(40), hx(40), M(k)),
    ])


@secret("evm private key", "chat / dispute")
def _():
    k = evm()
    return pick([
        "%s: deployer key is %s, it only holds test ETH" % (pick(HANDLES), M(k)),
        "The seller asked me for the hot wallet key to 'verify ownership'. I sent 0x%s and the wallet was drained an hour later." % M(k),
        "import this into MetaMask (Import account -> private key): %s" % M(k),
    ])


@secret("solana secret key", "id.json / Phantom export")
def _():
    return pick([
        "$ cat ~/.config/solana/id.json\n%s" % M(sol_array()),
        "Phantom > Settings > Export private key gave me this: %s. Is that what the bot needs?" % M(sol_secret()),
        "SOLANA_PRIVATE_KEY=%s" % M(sol_secret()),
    ])


@secret("bitcoin WIF / xprv", "CLI / message")
def _():
    return pick([
        "bitcoin-cli -rpcwallet=hot importprivkey %s \"label\" false" % M(wif()),
        "extended private key for the watch-only setup (sorry, this is the xprv): %s" % M(xprv()),
        "descriptor: wpkh(%s/84h/1h/0h/0/*)" % M(xprv(testnet=True)),
    ])


@secret("bip39 recovery phrase (valid checksum)", "dispute / chat / numbered")
def _():
    n = pick([12, 12, 24, 18])
    ph = bip39(WORDS, n)
    ws = ph.split()
    return pick([
        "I am attaching proof the wallet is mine. Seed phrase: %s" % M(ph),
        "here's the mnemonic for the test wallet so the agent can restore it: %s" % M(ph),
        "Recovery words:\n" + "\n".join("%d. %s" % (i + 1, M(w)) for i, w in enumerate(ws)),
        "MNEMONIC=\"%s\"" % M(ph),
        "助记词：%s" % M(ph),
    ])


@secret("age secret key", "sops keys file")
def _():
    return "keys.txt:\n# created: 2026-09-14T08:12:44Z\n# public key: age1%s\n%s" % (rs(58, BECH32), M(age_key()))


@secret("wireguard private key", "wg0.conf")
def _():
    return "[Interface]\nAddress = 10.8.0.2/32\nPrivateKey = %s\nDNS = 1.1.1.1\n\n[Peer]\nPublicKey = %s\nEndpoint = vpn.%s:51820\nAllowedIPs = 0.0.0.0/0" % (
        M(b64(32)), b64(32), dom())


@secret("PEM private key body", "OpenSSH / RSA / PKCS8 / encrypted")
def _():
    label, n = pick([("OPENSSH PRIVATE KEY", 300), ("RSA PRIVATE KEY", 600), ("PRIVATE KEY", 180), ("ENCRYPTED PRIVATE KEY", 400)])
    pre = pick(["deploy key for the staging box:\n", "cat id_ed25519\n", "", "key.pem (from the ticket attachment):\n"])
    return "%s-----BEGIN %s-----\n%s\n-----END %s-----" % (pre, label, M(pem_body(n)), label)


@secret("PGP private key", "armored block")
def _():
    return "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n%s\n=%s\n-----END PGP PRIVATE KEY BLOCK-----" % (M(pem_body(500)), rs(4, B64))


@secret("PuTTY private key", "ppk file")
def _():
    return "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@%s\nPublic-Lines: 2\n%s\nPrivate-Lines: 1\n%s\nPrivate-MAC: %s" % (
        proj(), pem_body(51), M(b64(36)), hx(64))


@secret("kubernetes TLS key / kubeconfig", "yaml")
def _():
    return pick([
        "apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t%s\n  tls.key: %s" % (
            rs(60, B64), M("LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t" + rs(200, B64))),
        "users:\n- name: ci\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t%s\n    client-key-data: %s" % (
            rs(60, B64), M("LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tL" + rs(200, B64))),
        "users:\n- name: deployer\n  user:\n    token: %s" % M(jwt({"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "ci", "sub": "system:serviceaccount:ci:deployer"}, "RS256")),
    ])


@secret("google service account private_key", "yaml")
def _():
    return "gcp:\n  type: service_account\n  project_id: %s-%d\n  private_key_id: %s\n  private_key: |\n    -----BEGIN PRIVATE KEY-----\n    %s\n    -----END PRIVATE KEY-----\n  client_email: etl@%s.iam.gserviceaccount.com" % (
        proj(), R.randrange(100000, 999999), hx(40), M(pem_body(300).replace("\n", "\n    ")), proj())


# --- sessions, JWTs, headers ---

def user_jwt():
    iat = now_ts()
    return jwt({"sub": str(R.randrange(10 ** 5, 10 ** 7)), "email": "%s@%s" % (name().lower(), dom()), "iat": iat, "exp": iat + pick([900, 3600, 86400])},
               pick(["HS256", "RS256", "ES256"]))


@secret("JWT", "HAR / cookie / URL / localStorage / GraphQL variables")
def _():
    t = user_jwt()
    return pick([
        '{"name": "Cookie", "value": "lang=en; auth_token=%s"}' % M(t),
        "GET /export?format=csv&access_token=%s HTTP/1.1" % M(t),
        "localStorage.getItem('sb-auth') -> {\"access_token\":\"%s\",\"token_type\":\"bearer\"}" % M(t),
        "Variables: { \"orderId\": 88121, \"jwt\": \"%s\" }" % M(t),
        "wss://rt.%s/socket?token=%s" % (dom(), M(t)),
        "Screenshot text (OCR): Authorization Bearer %s" % M(t),
    ])


@secret("bearer / basic authorization", "HTTP dumps")
def _():
    return pick([
        "> GET /v1/invoices HTTP/2\n> Host: api.%s\n> Authorization: Bearer %s\n> User-Agent: curl/8.5.0" % (dom(), M(rs(48, B64URL))),
        "Authorization: Basic %s" % M(base64.b64encode(("%s:%s" % (pick(USERS), human_pw())).encode()).decode()),
        "http --auth-type=bearer --auth=%s GET https://api.%s/me" % (M(rs(40)), dom()),
        "proxy_set_header Authorization \"Basic %s\";" % M(base64.b64encode(("%s:%s" % (pick(USERS), strong_pw())).encode()).decode()),
    ])


@secret("session cookie (opaque)", "devtools copy / Set-Cookie")
def _():
    return pick([
        "Cookie: csrftoken=%s; sessionid=%s" % (rs(32), M(rs(32, LOWER + DIG))),
        "Set-Cookie: _shop_session=%s; path=/; secure; HttpOnly; SameSite=Lax" % M(rs(180, B64URL) + "--" + hx(40)),
        "laravel_session=%s" % M("eyJpdiI6I" + rs(240, B64)),
        "paste this in the console to skip login: document.cookie = 'connect.sid=%s'" % M("s%3A" + rs(32, B64URL) + "." + rs(43, B64)),
    ])


@secret("framework secret keys", "settings files", w=2)
def _():
    return pick([
        "SECRET_KEY = '%s'" % M("django-insecure-" + rs(50, LOWER + DIG + "!@#$%^&*(-_=+)")),
        "SECRET_KEY = '%s'" % M(rs(50, LOWER + DIG + "!@#$%^&*(-_=+)")),
        "production:\n  secret_key_base: %s" % M(hx(128)),
        "APP_KEY=base64:%s" % M(b64(32)),
        "NEXTAUTH_SECRET=%s" % M(b64(32)),
        "app.config['SECRET_KEY'] = '%s'" % M(hx(32)),
        "JWT_SIGNING_SECRET=%s" % M(rs(64, B64URL)),
        "config/master.key: %s" % M(hx(32)),
    ])


@secret("TOTP seed / backup codes", "otpauth URI / note")
def _():
    return pick([
        "otpauth://totp/%s:%s?secret=%s&issuer=%s" % (proj(), pick(USERS), M(rs(32, B32)), proj()),
        "2FA setup key (if the QR doesn't scan): %s" % M(" ".join(rs(4, B32).lower() for _ in range(8))),
        "Backup codes for the shared account:\n%s\n%s\n%s" % (M(rs(4, DIG) + "-" + rs(4, DIG)), M(rs(4, DIG) + "-" + rs(4, DIG)), M(rs(4, DIG) + "-" + rs(4, DIG))),
    ])


# --- more places and providers ---

@secret("package registry credentials", "pgpass / my.cnf / pip / maven / gradle / nuget / composer / yarn / cargo / gem", w=3)
def _():
    return pick([
        "%s:5432:*:%s:%s" % (pick(HOSTS), pick(USERS), M(strong_pw().replace(":", "c"))),
        "[client]\nuser=%s\npassword=%s\nhost=%s" % (pick(USERS), M(strong_pw()), pick(HOSTS)),
        "[global]\nindex-url = https://%s:%s@pkgs.%s/simple/" % (pick(USERS), M(rs(52, LOWER + DIG)), dom()),
        "<server>\n  <id>nexus-releases</id>\n  <username>%s</username>\n  <password>%s</password>\n</server>" % (pick(USERS), M(strong_pw().replace("<", "L").replace("&", "n"))),
        "ossrhUsername=%s\nossrhPassword=%s\nsigning.password=%s" % (name().lower(), M(strong_pw()), M(human_pw())),
        '<packageSourceCredentials>\n  <internal>\n    <add key="Username" value="%s" />\n    <add key="ClearTextPassword" value="%s" />\n  </internal>\n</packageSourceCredentials>' % (pick(USERS), M(rs(52, LOWER + DIG))),
        '{\n  "http-basic": {\n    "repo.packagist.com": { "username": "token", "password": "%s" }\n  },\n  "github-oauth": { "github.com": "%s" }\n}' % (M(hx(40)), M(gh("ghp_"))),
        'npmScopes:\n  acme:\n    npmRegistryServer: "https://npm.pkg.github.com"\n    npmAuthToken: "%s"' % M(gh("ghp_")),
        "[registry]\ntoken = \"%s\"" % M("cio" + rs(32)),
        "---\n:rubygems_api_key: %s" % M("rubygems_" + hx(48)),
        "helm repo add internal https://charts.%s --username %s --password %s" % (dom(), pick(USERS), M(strong_pw())),
        "storePassword=%s\nkeyPassword=%s\nkeyAlias=upload\nstoreFile=upload-keystore.jks" % (M(human_pw()), M(human_pw())),
    ])


@secret("secrets baked into build and service files", "Dockerfile / systemd / cron / Makefile / launchd / serverless", w=3)
def _():
    return pick([
        "FROM node:20-alpine\nENV NODE_ENV=production\nENV OPENAI_API_KEY=%s\nCOPY . .\nRUN npm ci" % M("sk-proj-" + rs(156, B64URL)),
        "ARG NPM_TOKEN=%s\nRUN echo \"//registry.npmjs.org/:_authToken=${NPM_TOKEN}\" > .npmrc" % M("npm_" + rs(36)),
        "[Service]\nExecStart=/opt/%s/bin/worker\nEnvironment=\"API_TOKEN=%s\"\nRestart=always" % (proj(), M(rs(40, B64URL))),
        "*/15 * * * * curl -s -H 'X-Api-Key: %s' https://api.%s/sync > /dev/null" % (M(rs(32)), dom()),
        "deploy:\n\tnetlify deploy --prod --dir=dist --auth=%s" % M("nfp_" + rs(40)),
        "<key>EnvironmentVariables</key>\n<dict>\n  <key>HOMEASSISTANT_TOKEN</key>\n  <string>%s</string>\n</dict>" % M(jwt({"iss": hx(32), "iat": 1790000000, "exp": 2105360000})),
        "provider:\n  name: aws\n  environment:\n    STRIPE_KEY: %s\n    TABLE: orders" % M("sk_live_" + rs(99)),
        "Procfile env dump (heroku config):\nDATABASE_URL: postgres://%s:%s@ec2-%d-%d-%d-%d.compute-1.amazonaws.com:5432/%s" % (
            rs(14, LOWER), M(hx(64)), R.randrange(3, 99), R.randrange(256), R.randrange(256), R.randrange(256), rs(14, LOWER + DIG)),
    ])


@secret("credentials in code, more languages", "Lua / Dart / Perl / R / Bash / Swift / Scala / Haskell / Zig", w=3)
def _():
    return pick([
        'local red = redis.connect("%s", 6379)\nred:auth("%s")' % (pick(HOSTS), M(strong_pw())),
        "const String apiKey = '%s'; // TODO move to --dart-define" % M(google_key()),
        "my $dbh = DBI->connect(\"dbi:Pg:dbname=crm;host=%s\", '%s', '%s', { RaiseError => 1 });" % (pick(HOSTS), pick(USERS), M(strong_pw())),
        'con <- dbConnect(RPostgres::Postgres(), host = "%s", user = "%s", password = "%s")' % (pick(HOSTS), pick(USERS), M(strong_pw())),
        'curl -sS -H "X-API-Key: %s" "https://api.%s/v1/leads?page=$1"' % (M(rs(40)), dom()),
        'let client = APIClient(baseURL: url, token: "%s")' % M(gh("ghp_")),
        'val conf = ConfigFactory.parseString("""db.password = "%s" """)' % M(strong_pw()),
        'main = withConnection (defaultConnectInfo { connectUser = "%s", connectPassword = "%s" }) run' % (pick(USERS), M(strong_pw())),
        'const token = "%s";\nvar client = try http.Client.init(allocator, token);' % M("xoxb-%s-%s-%s" % (rs(12, DIG), rs(13, DIG), rs(24))),
        '$mail->Username = "noreply@%s";\n$mail->Password = "%s";' % (dom(), M(strong_pw())),
        "define( 'DB_PASSWORD', '%s' );\ndefine( 'AUTH_KEY', '%s' );" % (M(strong_pw()), M(rs(64, ALNUM + "!@#$%^&*()-_[]{}<>~`+=,.;:/?|"))),
        "'db' => [\n    'connection' => [\n        'default' => [\n            'host' => '%s',\n            'username' => 'magento',\n            'password' => '%s',\n        ],\n    ],\n]," % (pick(HOSTS), M(strong_pw())),
    ])


@secret("credentials in tool exports", "Postman / Insomnia / VS Code / Terraform state / Jupyter output / Excel", w=3)
def _():
    return pick([
        '"auth": {\n  "type": "bearer",\n  "bearer": [{ "key": "token", "value": "%s", "type": "string" }]\n}' % M(rs(64, B64URL)),
        '"sqltools.connections": [{ "name": "prod", "driver": "PostgreSQL", "server": "%s", "username": "%s", "password": "%s" }]' % (pick(HOSTS), pick(USERS), M(strong_pw())),
        '"resources": [{ "type": "aws_db_instance", "instances": [{ "attributes": { "username": "%s", "password": "%s", "engine": "postgres" } }] }]' % (pick(USERS), M(strong_pw())),
        '{"output_type": "stream", "name": "stdout", "text": ["Using key %s", "200 OK"]}' % M("sk-proj-" + rs(156, B64URL)),
        '=WEBSERVICE("https://api.%s/quote?symbol="&A2&"&apikey=%s")' % (dom(), M(rs(16, UPPER + DIG))),
        "x-hasura-admin-secret: %s" % M(rs(48)),
        '{"_type": "request", "headers": [{"name": "Authorization", "value": "Bearer %s"}]}' % M("pat-na1-" + uid()),
    ])


@secret("less common platform tokens", "env / headers", w=4)
def _():
    return pick([
        "MATRIX_ACCESS_TOKEN=%s" % M("syt_" + base64.b64encode(b"ops-bot").decode().rstrip("=") + "_" + rs(20) + "_" + rs(6)),
        "HUBSPOT_PRIVATE_APP_TOKEN=%s" % M("pat-na1-" + uid()),
        "Authorization: Bearer %s" % M("dG9rOj" + rs(50, B64) + "=="),
        "curl -u %s@%s/token:%s https://%s.zendesk.com/api/v2/tickets.json" % (name().lower(), dom(), M(rs(40)), proj()),
        "SALESFORCE_PASSWORD=%s\nSALESFORCE_SECURITY_TOKEN=%s" % (M(human_pw()), M(rs(25))),
        "AUTH0_CLIENT_ID=%s\nAUTH0_CLIENT_SECRET=%s" % (rs(32), M(rs(64, B64URL))),
        "CLERK_SECRET_KEY=%s" % M("sk_live_" + rs(40)),
        "UPSTASH_REDIS_REST_URL=https://%s.upstash.io\nUPSTASH_REDIS_REST_TOKEN=%s" % (proj(), M("AX" + rs(60, B64URL))),
        "DATABASE_URL=postgresql://neondb_owner:%s@ep-%s.eu-central-1.aws.neon.tech/neondb?sslmode=require" % (M("npg_" + rs(12)), rs(12, LOWER)),
        "TURSO_AUTH_TOKEN=%s" % M(jwt({"a": "rw", "iat": now_ts(), "id": uid()}, "EdDSA", 64)),
        "CONVEX_DEPLOY_KEY=%s" % M("prod:%s|%s" % (pick(["happy-otter-123", "brave-lynx-481", "quiet-heron-77"]), b64(60))),
        "RAILWAY_TOKEN=%s" % M(uid()),
        "RENDER_API_KEY=%s" % M("rnd_" + rs(32)),
        "MODAL_TOKEN_ID=ak-%s\nMODAL_TOKEN_SECRET=%s" % (rs(22), M("as-" + rs(22))),
        "E2B_API_KEY=%s" % M("e2b_" + hx(40)),
        "BROWSERBASE_API_KEY=%s" % M("bb_live_" + rs(27, B64URL)),
        "EXA_API_KEY=%s" % M(uid()),
        "JINA_API_KEY=%s" % M("jina_" + rs(60)),
        "VOYAGE_API_KEY=%s" % M("pa-" + rs(43, B64URL)),
        "CEREBRAS_API_KEY=%s" % M("csk-" + rs(48, LOWER + DIG)),
        "ANTHROPIC_ADMIN_KEY=%s" % M("sk-ant-admin01-" + rs(93, B64URL) + "AA"),
        "Authorization: token %s" % M(hx(40)) + "  # our Gitea instance",
        "PORTAINER_TOKEN=%s" % M("ptr_" + rs(43, B64)),
        "Authorization: PVEAPIToken=root@pam!ci=%s" % M(uid()),
        "Nextcloud app password for the sync client: %s" % M("-".join(rs(5, ALNUM) for _ in range(5))),
        "xcrun notarytool store-credentials notary --apple-id dev@%s --team-id %s --password %s" % (dom(), rs(10, UPPER + DIG), M("-".join(rs(4, LOWER) for _ in range(4)))),
        "SMTP: smtp.gmail.com:587, user reports@%s, app password %s" % (dom(), M(" ".join(rs(4, LOWER) for _ in range(4)))),
        "PUSHER_APP_ID=%d\nPUSHER_APP_KEY=%s\nPUSHER_APP_SECRET=%s" % (R.randrange(10 ** 6, 10 ** 7), hx(20), M(hx(20))),
        "ABLY_API_KEY=%s" % ("%s.%s:" % (rs(6, B64URL), rs(6, B64URL)) + M(rs(43, B64URL))),
        "AGORA_APP_ID=%s\nAGORA_APP_CERTIFICATE=%s" % (hx(32), M(hx(32))),
        "LIVEKIT_API_KEY=API%s\nLIVEKIT_API_SECRET=%s" % (rs(12), M(rs(43))),
        "MUX_TOKEN_ID=%s\nMUX_TOKEN_SECRET=%s" % (uid(), M(rs(75, B64))),
        "TWITTER_BEARER_TOKEN=%s" % M("AAAAAAAAAAAAAAAAAAAAA" + rs(91, ALNUM + "%")),
        "reddit = praw.Reddit(client_id='%s', client_secret='%s', username='%s', password='%s', user_agent='bot')" % (rs(22, B64URL), M(rs(30, B64URL)), name().lower(), M(human_pw())),
        "SPOTIFY_CLIENT_ID=%s\nSPOTIFY_CLIENT_SECRET=%s" % (hx(32), M(hx(32))),
        "YANDEX_OAUTH_TOKEN=%s" % M("y0_" + rs(55, B64URL)),
        "EXPO_TOKEN=%s" % M(rs(40, B64URL)),
        "SHODAN_API_KEY=%s\nVT_API_KEY=%s" % (M(rs(32)), M(hx(64))),
        "HCLOUD_TOKEN=%s" % M(rs(64)),
        "LINODE_TOKEN=%s\nVULTR_API_KEY=%s" % (M(hx(64)), M(rs(36, UPPER + DIG))),
    ])


@secret("less common cloud secrets (Alibaba, Tencent, IBM, OCI, Scaleway, OVH)", "configs", w=2)
def _():
    return pick([
        "access_key_id = LTAI%s\naccess_key_secret = %s" % (rs(20), M(rs(30))),
        "TENCENTCLOUD_SECRET_ID=AKID%s\nTENCENTCLOUD_SECRET_KEY=%s" % (rs(32), M(rs(32))),
        "IBMCLOUD_API_KEY=%s" % M(rs(44, B64URL)),
        "[DEFAULT]\nuser=ocid1.user.oc1..%s\nfingerprint=%s\nkey_file=~/.oci/oci_api_key.pem\npass_phrase=%s" % (rs(60, LOWER + DIG), ":".join(hx(2) for _ in range(16)), M(human_pw())),
        "SCW_ACCESS_KEY=SCW%s\nSCW_SECRET_KEY=%s" % (rs(17, UPPER + DIG), M(uid())),
        "[ovh-eu]\napplication_key=%s\napplication_secret=%s\nconsumer_key=%s" % (rs(16), M(rs(32)), M(rs(32))),
    ])


@secret("signed URLs", "S3 presigned / GCS signed", w=2)
def _():
    return pick([
        "https://%s.s3.eu-west-1.amazonaws.com/exports/%s.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=%s%%2F20261104%%2Feu-west-1%%2Fs3%%2Faws4_request&X-Amz-Date=20261104T101500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=%s" % (
            proj(), proj(), aws_id(), M(hx(64))),
        "https://storage.googleapis.com/%s/report.pdf?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=svc%%40%s.iam.gserviceaccount.com%%2F20261104%%2Fauto%%2Fstorage%%2Fgoog4_request&X-Goog-Date=20261104T101500Z&X-Goog-Expires=86400&X-Goog-SignedHeaders=host&X-Goog-Signature=%s" % (
            proj(), proj(), M(hx(512))),
    ])


@secret("tokens named in other languages", "chat, many languages", w=3)
def _():
    t = pick([gh("ghp_"), "sk-proj-" + rs(156, B64URL), tg_bot(), "hf_" + rs(34, LOWER + UPPER), "glpat-" + rs(20, B64URL), slack_bot(), rs(40, B64URL)])
    return pick([
        "La clé API pour l'intégration : %s",
        "Der API-Schlüssel lautet %s, bitte nicht weitergeben.",
        "Aquí está el token de acceso: %s",
        "Токен доступа: %s",
        "APIキー：%s（本番用です）",
        "这是访问令牌：%s",
        "Chave da API: %s",
        "Il token per il deploy è %s",
        "API 키는 %s 입니다",
        "Token dostępu: %s",
        "API anahtarı: %s",
        "Klucz API do panelu: %s",
        "Ключ API: %s — только для теста",
        "المفتاح السري: %s",
    ]) % M(t)


@secret("printenv / crash dump", "env dumped in a bug report", w=2)
def _():
    return "Environment at crash:\nHOME=/home/app\nLANG=C.UTF-8\nNODE_ENV=production\n%s=%s\nPORT=8080\nPWD=/srv/%s" % (
        pick(["SENTRY_AUTH_TOKEN", "STRIPE_API_KEY", "GITHUB_TOKEN", "OPENAI_KEY", "DB_PASSWORD"]),
        M(pick(["sntrys_" + b64(60).rstrip("=") + "_" + rs(43, B64URL), "sk_live_" + rs(99), gh("ghp_"), "sk-proj-" + rs(156, B64URL), strong_pw()])), proj())


@secret("JWT in unusual places", "QR payload / deep link / commit message / CSV", w=2)
def _():
    t = user_jwt()
    return pick([
        "QR code decodes to: myapp://login?session=%s" % M(t),
        "commit 1f3e: 'temp: hardcode token for demo' (+ const TOKEN = \"%s\")" % M(t),
        "user_id,email,last_token\n%d,%s@%s,%s" % (R.randrange(1000, 9999), name().lower(), dom(), M(t)),
        "Reply to the buyer: the magic link is https://app.%s/magic?t=%s, valid 24h" % (dom(), M(t)),
    ])


@secret("password, more places", "transcripts, tables, URLs, test scripts, archives, Wi-Fi QR", w=6)
def _():
    u, h = pick(USERS), pick(HOSTS)
    p = human_pw()
    return pick([
        "[00:14:32] %s: ok so the password for the staging admin is %s, capital letter at the start\n[00:14:40] %s: got it" % (name(), M(p), name()),
        "| Env | URL | User | Password |\n|---|---|---|---|\n| staging | https://staging.%s | %s | %s |\n| prod | https://%s | %s | ask Birte |" % (dom(), u, M(p), dom(), u),
        '{"type": "message", "user": "U0%s", "text": "pass for the FTP is %s"}' % (rs(8, UPPER + DIG), M(p)),
        "- [x] set the DB password to %s\n- [ ] rotate it after launch" % M(p),
        "the passphrase for the signing key is %s (all lower case, spaces included)" % M(" ".join(pick(["purple", "ferry", "quiet", "lantern", "mosaic", "walnut", "orbit", "saffron", "tundra", "velvet"]) for _ in range(4)) + " " + str(R.randrange(10, 99))),
        "GET https://%s/cgi-bin/report?user=%s&pass=%s&fmt=csv" % (dom(), u, M(p)),
        "curl -X POST https://%s/login -d 'username=%s&password=%s' -c cookies.txt" % (dom(), u, M(p.replace("&", "a").replace("'", "q"))),
        "INSERT INTO app_settings (k, v) VALUES ('smtp_password', '%s');" % M(p.replace("'", "q")),
        '<add name="Default" connectionString="Data Source=%s;Initial Catalog=Shop;User ID=%s;Password=%s" />' % (h, u, M(strong_pw().replace('"', "q").replace("<", "L").replace("&", "n"))),
        "await page.fill('#email', '%s@%s');\nawait page.fill('#password', '%s');\nawait page.click('text=Sign in');" % (u, dom(), M(p.replace("'", "q"))),
        "0 3 * * * mysqldump -u %s --password=%s shop | gzip > /backups/shop.sql.gz" % (u, M(p)),
        "ftp://%s:%s@ftp.%s/incoming/" % (u, M(rs(14)), dom()),
        "WIFI:T:WPA;S:%s-Office;P:%s;;" % (proj(), M(rs(14, ALNUM))),
        "zip -P %s deliverable.zip report.pdf data.xlsx" % M(rs(12)),
        "7z a -p%s -mhe=on export.7z export/" % M(rs(14)),
        "keytool -genkeypair -alias upload -keystore upload.jks -storepass %s -keypass %s" % (M(human_pw()), M(human_pw())),
        "x11vnc -display :0 -passwd %s -forever" % M(rs(8)),
        "[options]\nadmin_passwd = %s\ndb_host = %s\ndb_user = odoo\ndb_password = %s" % (M(strong_pw()), h, M(strong_pw())),
        "EMAIL_HOST_USER = 'noreply@%s'\nEMAIL_HOST_PASSWORD = '%s'" % (dom(), M(p.replace("'", "q"))),
        "celery -A app flower --basic_auth=%s:%s" % (u, M(p)),
        "mc alias set prod https://s3.%s %s %s" % (dom(), rs(20, UPPER + DIG), M(rs(40, B64))),
        "[gdrive-crypt]\ntype = crypt\nremote = gdrive:vault\npassword = %s" % M(rs(54, B64URL)),
        "docker run -d --name pg -e POSTGRES_PASSWORD=%s -p 5432:5432 postgres:16" % M(p),
        "git clone https://oauth2:%s@gitlab.%s/data/%s.git" % (M("glpat-" + rs(20, B64URL)), dom(), proj()),
        "rsyncd.secrets:\n%s:%s" % (u, M(rs(16))),
        "Passwort fürs NAS (admin): %s — bitte nicht ins Ticket kopieren, ups." % M(p),
        "Contraseña nueva del router: %s. La anterior ya no sirve." % M(p),
    ])


@secret("notebook / app tokens", "Jupyter URL / Airflow Fernet / Flask", w=2)
def _():
    return pick([
        "    To access the server, open this file in a browser:\n        file:///home/%s/.local/share/jupyter/runtime/jpserver-%d-open.html\n    Or copy and paste one of these URLs:\n        http://127.0.0.1:8888/lab?token=%s" % (name().lower(), R.randrange(1000, 99999), M(hx(48))),
        "jupyter lab --ip 0.0.0.0 --IdentityProvider.token=%s" % M(hx(48)),
        "AIRFLOW__CORE__FERNET_KEY=%s" % M(base64.urlsafe_b64encode(rbytes(32)).decode()),
        "AIRFLOW__WEBSERVER__SECRET_KEY=%s" % M(hx(32)),
        "code-server: password: %s" % M(rs(24, LOWER + DIG)),
    ])


# --- look-alikes ---------------------------------------------------------------------------------

@look("hashes", "checksums in a delivery note")
def _():
    return "Build artifacts:\n%s  dist/%s-linux-amd64.tar.gz\n%s  dist/%s-darwin-arm64.tar.gz" % (hx(64), proj(), hx(64), proj())


@look("hashes", "git log / commit reference")
def _():
    return pick([
        "Fixed in %s (merged), the regression came from %s." % (hx(40), hx(7)),
        "commit %s\nAuthor: %s <%s@%s>\nDate:   Tue Oct 6 14:02:11 2026 +0200\n\n    rotate token handling into its own module" % (hx(40), name(), name().lower(), dom()),
        "git cherry-pick %s..%s" % (hx(12), hx(12)),
    ])


@look("hashes", "image digest / integrity")
def _():
    return pick([
        "image: ghcr.io/kestrel-labs/%s@sha256:%s" % (proj(), hx(64)),
        '"integrity": "sha512-%s=="' % rs(86, B64),
        '<script src="https://cdn.%s/lib.min.js" integrity="sha384-%s" crossorigin="anonymous"></script>' % (dom(), rs(64, B64)),
        "ETag: \"%s\"" % hx(32),
        "md5(%s.csv) = %s" % (proj(), hx(32)),
    ])


@look("password hash", "bcrypt / argon2 in a fixture named as such")
def _():
    return pick([
        "INSERT INTO users (email, password_hash) VALUES ('demo@%s', '$2b$12$%s');" % (dom(), rs(53, ALNUM + "./")),
        "stored hash: $argon2id$v=19$m=65536,t=3,p=4$%s$%s" % (rs(22, ALNUM + "+/"), rs(43, ALNUM + "+/")),
        "htpasswd entry for the staging gate is a bcrypt hash (%s:$2y$05$%s), the plain value is in 1Password." % (pick(USERS), rs(53, ALNUM + "./")),
    ])


@look("transaction / block hash", "payment dispute")
def _():
    return pick([
        "I paid the milestone, tx hash 0x%s on Base, block %d. Please confirm." % (hx(64), R.randrange(10 ** 7, 3 * 10 ** 7)),
        "Refund sent: https://basescan.org/tx/0x%s" % hx(64),
        "block hash 0x%s, parent 0x%s" % (hx(64), hx(64)),
        "The escrow contract is at 0x%s and my address is 0x%s." % (hx(40), hx(40)),
    ])


@look("ids", "UUIDs and request ids")
def _():
    return pick([
        "Order %s failed with request-id %s; retry with Idempotency-Key %s" % (uid(), uid(), uid()),
        "traceparent: 00-%s-%s-01" % (hx(32), hx(16)),
        "Task id %s, offer id %s, accepted at 2026-10-11 09:14 UTC." % (uid(), uid()),
        "Stripe objects for the dispute: ch_%s, pi_%s, cus_%s" % (rs(24), rs(24), rs(14)),
        "x-amz-request-id: %s\nx-amz-id-2: %s" % (rs(16, UPPER + DIG), rs(76, B64)),
    ])


@look("placeholders", "README / .env.example")
def _():
    return pick([
        "OPENAI_API_KEY=sk-...\nANTHROPIC_API_KEY=<your key here>\nDATABASE_URL=postgres://user:password@localhost:5432/app",
        "# copy to .env and fill in\nSTRIPE_SECRET_KEY=\nSTRIPE_WEBHOOK_SECRET=\nGITHUB_TOKEN=".lstrip("# "),
        "Set GITHUB_TOKEN to a token with repo scope (ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx) before running.",
        "api_key: YOUR_API_KEY\nsecret: CHANGE_ME\npassword: <set in vault>",
        "Replace {{API_TOKEN}} in config.yaml with the token from your dashboard.",
        "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/XXXXXXXXX/XXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX",
        "connection string format: Server=<host>;Database=<db>;User Id=<user>;Password=<password>;",
        "mongodb+srv://<username>:<password>@<cluster>.mongodb.net/",
        "PRIVATE_KEY=0x<64 hex characters, never commit this>",
        "AWS_SECRET_ACCESS_KEY=...  # ask ops",
    ])


@look("env reads", "code in many languages")
def _():
    return pick([
        'api_key = os.environ["OPENAI_API_KEY"]',
        'token := os.Getenv("GITHUB_TOKEN")\nif token == "" {\n    log.Fatal("GITHUB_TOKEN not set")\n}',
        "const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);",
        'let key = std::env::var("GROQ_API_KEY").expect("GROQ_API_KEY");',
        'String pw = System.getenv("DB_PASSWORD");',
        "password: ENV.fetch('SMTP_PASSWORD')",
        'var secret = Environment.GetEnvironmentVariable("AZURE_CLIENT_SECRET");',
        "$token = getenv('SHOPIFY_TOKEN') ?: throw new RuntimeException('missing token');",
        'my $pass = $ENV{"PGPASSWORD"} // die "no password";',
        "private_key = Deno.env.get('DEPLOYER_KEY');",
        'val apiKey = BuildConfig.GEMINI_API_KEY',
        "export VAULT_TOKEN=$(cat /run/secrets/vault_token)",
        "password=$(aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text)",
        "PASSWORD=\"${DB_PASSWORD:?set DB_PASSWORD}\"",
    ])


@look("secret references", "CI / templating / secret managers")
def _():
    return pick([
        "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }}",
        "password: {{ .Values.postgres.password }}",
        "db_password = data.aws_secretsmanager_secret_version.db.secret_string",
        "DATABASE_PASSWORD=op://Engineering/%s-db/password" % proj(),
        "api_key: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  %s\n  %s" % (rs(64, DIG + "abcdef"), rs(64, DIG + "abcdef")),
        "valueFrom:\n  secretKeyRef:\n    name: %s-secrets\n    key: api-token" % proj(),
        "LoadCredential=dbpass:/etc/credstore/dbpass",
        "password = \"${var.db_password}\"",
        "secret: arn:aws:secretsmanager:eu-west-1:%d:secret:prod/stripe-AbC123" % R.randrange(10 ** 11, 10 ** 12),
        "token: vault:secret/data/%s#token" % proj(),
    ])


@look("redacted values", "logs and messages")
def _():
    return pick([
        "Authorization: Bearer [REDACTED]",
        "using key sk_live_••••••••••%s" % rs(4),
        "ghp_****************************%s (revoked)" % rs(4),
        "password=******** user=%s status=ok" % pick(USERS),
        "DB_PASSWORD=<redacted>  # rotated 2026-10-01",
        "The token ending in …%s is the one that leaked; I've revoked it." % rs(4),
        "aws_secret_access_key = ****************************************",
        "\"client_secret\": \"[hidden]\"",
        "{\"level\":\"info\",\"msg\":\"auth ok\",\"api_key\":\"sk-...%s\"}" % rs(4),
    ])


@look("public keys", "SSH / PEM / PGP / WireGuard / xpub / age")
def _():
    return pick([
        "Please add my key to authorized_keys:\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI%s %s@laptop" % (rs(43, B64), name().lower()),
        "-----BEGIN PUBLIC KEY-----\n%s\n-----END PUBLIC KEY-----" % pem_body(294),
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n%s\n=%s\n-----END PGP PUBLIC KEY BLOCK-----" % (pem_body(300), rs(4, B64)),
        "[Peer]\nPublicKey = %s\nAllowedIPs = 10.8.0.0/24" % b64(32),
        "watch-only xpub for the treasury: %s" % b58check(bytes.fromhex("0488b21e") + b"\x03" + rbytes(8) + rbytes(32) + b"\x02" + rbytes(32)),
        "age recipient (public): age1%s" % rs(58, BECH32),
        "-----BEGIN CERTIFICATE-----\n%s\n-----END CERTIFICATE-----" % pem_body(700),
        "host key fingerprint: SHA256:%s (ED25519)" % rs(43, B64),
        "GPG fingerprint: %s" % " ".join(hx(4).upper() for _ in range(10)),
    ])


@look("ids that open nothing alone", "AWS key id / OAuth client id / SIDs / publishable")
def _():
    return pick([
        "The IAM user for the bot has access key id %s; the secret lives in our vault, not here." % aws_id(),
        "OAuth client id: %d-%s.apps.googleusercontent.com (redirect URI is /auth/callback)" % (R.randrange(10 ** 11, 10 ** 12), rs(32, LOWER + DIG)),
        "Twilio Account SID AC%s, Messaging Service SID MG%s" % (hx(32), hx(32)),
        "Stripe.js init: Stripe('pk_live_%s')" % rs(99),
        "posthog.init('phc_%s', { api_host: 'https://eu.posthog.com' })" % rs(43),
        "mapboxgl.accessToken = 'pk.eyJ1Ijoi%s.%s';" % (rs(50, B64URL), rs(22, B64URL)),
        "Azure tenant %s, application (client) id %s" % (uid(), uid()),
        "Razorpay key id for checkout.js: rzp_live_%s" % rs(14),
        "GitHub App id 84%s, installation id %s" % (rs(4, DIG), rs(8, DIG)),
        "private_key_id: %s" % hx(40),
    ])


@look("firebase web config", "frontend code")
def _():
    return "const firebaseConfig = {\n  apiKey: \"%s\",\n  authDomain: \"%s.firebaseapp.com\",\n  projectId: \"%s\",\n  messagingSenderId: \"%d\",\n  appId: \"1:%d:web:%s\"\n};" % (
        google_key(), proj(), proj(), R.randrange(10 ** 11, 10 ** 12), R.randrange(10 ** 11, 10 ** 12), hx(22))


@look("supabase anon key", "frontend env")
def _():
    ref = rs(20, LOWER)
    return "NEXT_PUBLIC_SUPABASE_URL=https://%s.supabase.co\nNEXT_PUBLIC_SUPABASE_ANON_KEY=%s" % (
        ref, jwt({"iss": "supabase", "ref": ref, "role": "anon", "iat": 1727000000, "exp": 2042576000}))


@look("documentation examples", "marked as such")
def _():
    return pick([
        "From the AWS docs (example values): AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "Example from the jwt.io homepage, not a real session: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ",
        "Local Anvil account #0 (public test key every dev has): 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
        "Hardhat's default mnemonic 'test test test test test test test test test test test junk' funds the local accounts.",
        "In the docs the token looks like xoxb-0000000000-0000000000-xxxxxxxxxxxxxxxxxxxxxxxx; yours will differ.",
        "Format: sk_live_ followed by 24+ characters. The test-mode equivalent starts with sk_test_.",
        "GitHub tokens have prefixes: ghp_ (classic), github_pat_ (fine-grained), gho_ (OAuth), ghs_ (app installation).",
    ])


@look("prose about passwords", "brief / policy / review")
def _():
    return pick([
        "The login form must reject passwords shorter than 12 characters and show a strength meter.",
        "Reviewer note: the agent never asked for my password, which I appreciated. Used OAuth instead.",
        "Brief: build a password reset flow (email link, 30 min expiry, one use).",
        "Please don't send credentials in chat; invite me as a collaborator and I'll use my own account.",
        "Passwort vergessen? Dann bitte über den Link auf der Anmeldeseite ein neues setzen.",
        "La contraseña debe tener al menos una mayúscula, un número y un símbolo.",
        "Le mot de passe sera communiqué par téléphone, pas par la plateforme.",
        "密码请通过公司密码管理器共享，不要发在这里。",
        "パスワードは別途お送りします。",
        "Пароль я пришлю отдельно через менеджер паролей.",
        "The API key rotation runbook: create new key, deploy, verify, then revoke the old one.",
        "My seed phrase stays offline; the agent only needs the public address to build the dashboard.",
        "Token expired again — can you add a refresh step so the job doesn't die at 3am?",
        "Q: Do you need our AWS credentials?\nA: No, I'll deliver a CloudFormation template you deploy yourself.",
        "Password: whatever you like, you will be asked to set it on first login.",
        "Senha: a mesma do e-mail corporativo (não vou escrever aqui).",
        "Hasło: zapytaj Kasię, nie wysyłam go na czacie.",
    ])


@look("code handling passwords", "no value inside")
def _():
    return pick([
        "hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=12))",
        "if not check_password(raw_password, user.password):\n    raise AuthError('invalid credentials')",
        "password = request.form['password']\nuser = authenticate(username=username, password=password)",
        "func Login(ctx context.Context, username, password string) (*Session, error) {",
        "const { email, password } = await req.json();\nif (!password || password.length < 12) return bad('weak');",
        "String password = new String(console.readPassword(\"Password: \"));",
        "password := r.FormValue(\"password\")",
        "def rotate_api_key(user_id: int) -> str:\n    new_key = secrets.token_urlsafe(32)\n    store_hash(user_id, sha256(new_key))\n    return new_key",
        "token = jwt.encode(claims, signing_key, algorithm='RS256')",
        "let secret = read_secret_from_keychain(\"deploy\")?;",
        "$hash = password_hash($_POST['password'], PASSWORD_ARGON2ID);",
        "wallet = Account.from_key(os.environ['PK'])",
        "password = getpass.getpass('DB password: ')",
        "self.api_key = api_key or settings.API_KEY",
        "passwd = input('New password: ')\nconfirm = input('Repeat: ')",
    ])


@look("test fixtures named as such", "tests")
def _():
    return pick([
        "FAKE_TOKEN = 'not-a-real-token'\ndef test_rejects_bad_token(client):\n    assert client.get('/me', headers={'Authorization': f'Bearer {FAKE_TOKEN}'}).status_code == 401",
        "it('masks the key', () => expect(mask('sk_test_' + 'x'.repeat(24))).toBe('sk_test_…xxxx'));",
        "fixtures/users.yml: every fixture user logs in through the test IdP stub, no passwords stored",
        "func TestLoginEmptyPassword(t *testing.T) {\n\tif _, err := Login(ctx, \"alice\", \"\"); err == nil {\n\t\tt.Fatal(\"want error\")\n\t}\n}",
        "mock_secrets = {'stripe_key': MagicMock(), 'db_password': MagicMock()}",
        "@pytest.fixture\ndef api_key(monkeypatch):\n    monkeypatch.setenv('API_KEY', 'dummy')\n    return 'dummy'",
    ])


@look("random-looking non-secrets", "misc ids")
def _():
    return pick([
        "IPFS CID of the delivered dataset: bafybei%s" % rs(52, "abcdefghijklmnopqrstuvwxyz234567"),
        "Tracking number 1Z%s" % rs(16, UPPER + DIG),
        "Coupon code for the early-bird offer: %s" % rs(8, UPPER + DIG),
        "YouTube video id %s, playlist PL%s" % (rs(11, B64URL), rs(32, B64URL)),
        "Mongo ObjectId('%s')" % hx(24),
        "Invoice INV-%s-%s, VAT ref %s" % (rs(4, DIG), rs(5, DIG), rs(10, UPPER + DIG)),
        "base64 of the logo thumbnail: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA%s" % rs(120, B64),
        "ULID %s" % rs(26, "0123456789ABCDEFGHJKMNPQRSTVWXYZ"),
        "nonce: 0x%s (EIP-3009 authorization, already used)" % hx(64),
        "signature 0x%s" % hx(130),
        "Google Drive file id %s" % rs(33, B64URL),
        "color palette: #%s #%s #%s" % (hx(6), hx(6), hx(6)),
        "Sentry event %s" % hx(32),
    ])


@look("BIP-39 word lists without wallet", "word games / lists")
def _():
    ws = [pick(WORDS) for _ in range(R.randrange(6, 11))]
    return pick([
        "Vocabulary list for the flashcard app (unit 4): %s" % ", ".join(ws),
        "Tags for the stock photos: %s" % ", ".join(ws),
        "Crossword answers, row by row: %s" % " / ".join(ws),
    ])


@look("prose about seed phrases and keys", "security advice / Q&A")
def _():
    return pick([
        "Never paste your 12 or 24 recovery words anywhere, including here. The agent only needs your public address.",
        "Q: Should I give you my private key so you can deploy?\nA: No. I'll send you the unsigned transaction and you sign it in your wallet.",
        "A private key is 64 hexadecimal characters; an address is 40. If you see 40, it is safe to share.",
        "Der private Schlüssel bleibt auf dem Ledger, ich brauche nur die Adresse.",
        "La frase semilla nunca se comparte; si alguien te la pide, es una estafa.",
        "Dispute: the seller asked for my seed phrase. I refused and reported it. No funds lost.",
    ])


@look("password-adjacent config keys without values", "configs")
def _():
    return pick([
        "password_min_length: 12\npassword_require_symbol: true\npassword_max_age_days: 90",
        "PASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher']",
        "auth:\n  method: oidc\n  password_login: disabled",
        "token_ttl: 3600\nrefresh_token_ttl: 2592000\nsecret_rotation: weekly",
        "ssh:\n  PasswordAuthentication: no\n  PubkeyAuthentication: yes",
        "[auth.basic]\nenabled = false",
        "api_key_header: X-Api-Key\napi_key_required: true",
        "PermitRootLogin prohibit-password",
    ])


@look("shell history without secrets", "session logs")
def _():
    return pick([
        " 301  git pull\n 302  npm ci\n 303  npm run build\n 304  pm2 restart %s" % proj(),
        "$ gh auth login --web\n! First copy your one-time code: %s-%s\nPress Enter to open github.com in your browser..." % (rs(4, UPPER + DIG), rs(4, UPPER + DIG)),
        "$ aws sso login --profile prod\nAttempting to automatically open the SSO authorization page",
        "$ ssh-keygen -t ed25519 -C deploy@%s\nYour identification has been saved in /home/deploy/.ssh/id_ed25519" % proj(),
        "$ docker login ghcr.io\nUsername: %s\nPassword:\nLogin Succeeded" % name().lower(),
        "$ psql \"host=%s dbname=app user=readonly\"\nPassword for user readonly:" % pick(HOSTS),
        "$ vault login -method=oidc\nSuccess! You are now authenticated.",
        "$ openssl rand -hex 32 > .secret && chmod 600 .secret",
    ])


@look("connection strings without password", "configs / docs")
def _():
    return pick([
        "DATABASE_URL=postgres://%s@%s:5432/app?sslmode=require" % (pick(USERS), pick(HOSTS)),
        "redis://%s:6379/0" % pick(HOSTS),
        "mongodb://localhost:27017/test",
        "jdbc:postgresql://%s:5432/billing?ssl=true" % pick(HOSTS),
        "Server=%s;Database=Sales;Integrated Security=true;" % pick(HOSTS),
        "sqlite:///data/app.db",
        "https://%s@github.com/%s/%s.git" % (name().lower(), "kestrel-labs", proj()),
    ])


@look("JWT-like public material", "JWKS / decoded claims")
def _():
    return pick([
        '{"keys":[{"kty":"RSA","kid":"%s","use":"sig","n":"%s","e":"AQAB"}]}' % (hx(16), rs(342, B64URL)),
        "Decoded claims (no signature shown): {\"sub\":\"%d\",\"role\":\"buyer\",\"exp\":%d}" % (R.randrange(10 ** 5, 10 ** 7), now_ts()),
        "JWT header only: eyJhbGciOiJSUzI1NiIsImtpZCI6I%s" % rs(20, B64URL),
    ])


@look("spreadsheet without secrets", "TSV / CSV")
def _():
    return pick([
        "service\towner\tauth method\trotated\nStripe\t%s\trestricted key in vault\t2026-09-30\nGitHub\t%s\tSSO + app\t2026-10-02" % (name(), name()),
        "account,plan,seats,last_login\n%s,pro,5,2026-10-01\n%s,team,12,2026-09-28" % (proj(), proj()),
        "sku\tean\tprice\n%s\t%s\t%d.99" % (rs(8, UPPER + DIG), rs(13, DIG), R.randrange(5, 200)),
    ])


@look("diff without secret", "code review")
def _():
    return pick([
        "-    api_key = \"%s\"\n+    api_key = os.environ[\"SERVICE_API_KEY\"]" .replace("%s", "REPLACE_ME"),
        "--- a/.env.example\n+++ b/.env.example\n+SENTRY_AUTH_TOKEN=\n+LINEAR_API_KEY=",
        "-password: hardcoded\n+password: ${DB_PASSWORD}".replace("hardcoded", "\"{{ db_password }}\""),
        "@@ -12,4 +12,4 @@\n-    timeout=10,\n+    timeout=30,\n     verify=True,",
    ])


@look("email without credentials", "access arranged elsewhere")
def _():
    return ("From: %s <%s@%s>\nSubject: access\n\nHi,\n\nI've invited you to the GitHub org and the staging project. "
            "You'll get an email from 1Password with a shared vault; nothing sensitive in this thread.\n\nBest,\n%s") % (
        name(), name().lower(), dom(), name())


@look("ticket about credentials, none inside", "support")
def _():
    return pick([
        "Ticket #%d: user reports 'invalid API key' after rotation. Cause: the old key was cached in the worker. Fixed by restart." % R.randrange(10000, 99999),
        "Ticket #%d: SSO login loops. Password login is disabled by policy; escalate to IdP admin." % R.randrange(10000, 99999),
        "Incident: an AWS key was committed to a public repo on 10/03, revoked within 6 minutes, CloudTrail shows no use.",
    ])


@look("hex and base64 blobs in non-secret roles", "crypto outputs")
def _():
    return pick([
        "ciphertext (AES-GCM, key held by the buyer): %s" % b64(96),
        "salt: %s, iterations: 600000" % hx(32),
        "SHA-256 of the deliverable: %s" % hx(64),
        "HMAC-SHA256 signature header: X-Signature: t=%d,v1=%s" % (now_ts(), hx(64)),
        "public key (secp256k1, compressed): 02%s" % hx(64),
        "keccak256(abi.encode(order)) = 0x%s" % hx(64),
        "webhook payload hash %s matches" % hx(64),
        "EIP-712 domain separator 0x%s" % hx(64),
    ])


@look("chat about access, no values", "chat transcripts")
def _():
    return pick([
        "%s: can you send the db password?\n%s: I'll add you to the vault instead, 5 min" % (pick(HANDLES), pick(HANDLES)),
        "%s: token works now, thanks\n%s: great, I'll revoke the temp one tonight" % (pick(HANDLES), pick(HANDLES)),
        "%s: the API key you sent last week is expired\n%s: sent a fresh one via the secure link" % (pick(HANDLES), pick(HANDLES)),
        "%s: is the staging password still the same?\n%s: yes, it's in the team vault under 'staging'" % (pick(HANDLES), pick(HANDLES)),
    ])


@look("package and product names with credential words", "deps and docs")
def _():
    return pick([
        "requirements: python-dotenv, keyring, passlib[bcrypt], pyjwt[crypto]",
        "npm i jsonwebtoken bcryptjs @aws-sdk/client-secrets-manager",
        "We use the `secret-scanner` GitHub app and `gitleaks` in pre-commit.",
        "Crates: secrecy, argon2, jsonwebtoken, aws-sdk-secretsmanager",
        "See docs/auth/tokens.md and docs/auth/passwords.md for the flow diagrams.",
    ])


@look("Key names listed without values", "handover docs")
def _():
    return pick([
        "Env vars the service needs: OPENAI_API_KEY, STRIPE_SECRET_KEY, DATABASE_URL, REDIS_URL. Values are in the vault.",
        "Secrets to rotate after handover: GitHub deploy key, npm token, Slack bot token, AWS access keys.",
        "Required GitHub secrets: DOCKERHUB_TOKEN, SSH_PRIVATE_KEY, KUBE_CONFIG.",
    ])


@look("numbers in password-like position, not passwords", "prose")
def _():
    return pick([
        "Password reset rate: 4.2%% of logins in October, down from 6.1%%.",
        "Token usage: %d input / %d output tokens per call, about $%d.%02d a day." % (R.randrange(1000, 9000), R.randrange(100, 900), R.randrange(1, 30), R.randrange(100)),
        "API key count per org capped at 10; secrets older than 90 days are flagged.",
        "The private key ceremony is scheduled for 2026-12-01 at 14:00 UTC.",
    ])


@look("encrypted material (not a key)", "SOPS / sealed-secrets / age / PGP message", w=3)
def _():
    return pick([
        "db:\n    password: ENC[AES256_GCM,data:%s,iv:%s,tag:%s,type:str]\nsops:\n    age:\n        - recipient: age1%s" % (b64(18), b64(32), b64(16), rs(58, BECH32)),
        "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nspec:\n  encryptedData:\n    password: AgB%s" % rs(300, B64),
        "-----BEGIN AGE ENCRYPTED FILE-----\n%s\n-----END AGE ENCRYPTED FILE-----" % pem_body(200),
        "Encrypted to your key as agreed:\n-----BEGIN PGP MESSAGE-----\n\n%s\n=%s\n-----END PGP MESSAGE-----" % (pem_body(240), rs(4, B64)),
        "Keycloak realm export, client 'portal': \"secret\": \"**********\", \"publicClient\": false",
    ])


@look("registry and build configs without secrets", "npmrc / maven / docker / k8s", w=3)
def _():
    return pick([
        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\nalways-auth=true",
        "<server>\n  <id>nexus-releases</id>\n  <username>${env.NEXUS_USER}</username>\n  <password>${env.NEXUS_PASSWORD}</password>\n</server>",
        "RUN --mount=type=secret,id=npmrc,target=/root/.npmrc npm ci",
        "[Service]\nEnvironmentFile=/etc/%s/env\nExecStart=/usr/local/bin/%s" % (proj(), proj()),
        "kubectl create secret generic db --from-literal=password=\"$(openssl rand -base64 24)\"",
        "define( 'DB_PASSWORD', getenv( 'WP_DB_PASSWORD' ) );",
        "[global]\nindex-url = https://pypi.org/simple\nextra-index-url = https://pkgs.%s/simple/" % dom(),
        "storePassword=System.getenv(\"KEYSTORE_PASSWORD\")",
        "helm repo add bitnami https://charts.bitnami.com/bitnami",
        "cargo login   # paste the token when prompted, it is stored in ~/.cargo/credentials.toml",
    ])


@look("cloud resource ids", "infra notes", w=3)
def _():
    return pick([
        "Instance i-0%s in vpc-0%s, security group sg-0%s" % (hx(16), hx(16), hx(16)),
        "arn:aws:iam::%d:role/%s-deployer" % (R.randrange(10 ** 11, 10 ** 12), proj()),
        "Azure subscription %s, resource group rg-%s" % (uid(), proj()),
        "GCP project %s-%d (number %d)" % (proj(), R.randrange(100000, 999999), R.randrange(10 ** 11, 10 ** 12)),
        "CloudFront distribution E%s, hosted zone Z%s" % (rs(13, UPPER + DIG), rs(20, UPPER + DIG)),
        "pod %s-%s-%s restarted 3 times" % (proj(), rs(10, LOWER + DIG), rs(5, LOWER + DIG)),
        "ocid1.instance.oc1.eu-frankfurt-1.%s" % rs(60, LOWER + DIG),
        "Shopify product gid://shopify/Product/%d, Stripe price price_%s" % (R.randrange(10 ** 12, 10 ** 13), rs(24)),
        "Cloudflare zone id %s, account id %s" % (hx(32), hx(32)),
        "Vercel project prj_%s, team team_%s" % (rs(28), rs(24)),
    ])


@look("chain data in base58 / bech32", "Solana / Bitcoin", w=3)
def _():
    return pick([
        "Solana tx signature: %s (see explorer)" % b58enc(rbytes(64)),
        "Paid in USDC on Solana: https://solscan.io/tx/%s" % b58enc(rbytes(64)),
        "Send to my Solana address %s please" % b58enc(rbytes(32)),
        "Bitcoin txid %s, 3 confirmations" % hx(64),
        "mint address %s, metadata account %s" % (b58enc(rbytes(32)), b58enc(rbytes(32))),
        "My BTC address: bc1q%s" % rs(38, BECH32),
        "method selector 0xa9059cbb (transfer), topic0 0x%s" % hx(64),
    ])


@look("lock files and sums", "go.sum / nix / lfs / package-lock", w=3)
def _():
    return pick([
        "github.com/%s/%s v1.%d.%d h1:%s=\ngithub.com/%s/%s v1.%d.%d/go.mod h1:%s=" % (
            pick(["kestrel", "brine", "quay"]), proj(), R.randrange(10), R.randrange(20), rs(43, B64), pick(["kestrel", "brine"]), proj(), R.randrange(10), R.randrange(20), rs(43, B64)),
        "/nix/store/%s-%s-1.4.2" % (rs(32, "0123456789abcdfghijklmnpqrsvwxyz"), proj()),
        "version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d" % (hx(64), R.randrange(10 ** 5, 10 ** 9)),
        '"resolved": "https://registry.npmjs.org/%s/-/%s-2.1.0.tgz",\n"integrity": "sha512-%s=="' % (proj(), proj(), rs(86, B64)),
        "%s  %s.iso" % (hx(128), proj()),
        "Checksum (BLAKE3): %s" % hx(64),
    ])


@look("UI strings and schemas about passwords", "i18n / forms / OpenAPI / JSON Schema", w=3)
def _():
    return pick([
        '<input type="password" name="password" autocomplete="current-password" minlength="12" required>',
        '"login.password.label": "Passwort",\n"login.password.placeholder": "Geben Sie Ihr Passwort ein"',
        'password_placeholder: "Introduce tu contraseña"',
        '"password": { "type": "string", "minLength": 12, "writeOnly": true }',
        "securitySchemes:\n  ApiKeyAuth:\n    type: apiKey\n    in: header\n    name: X-API-Key",
        "mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { token } }",
        "UPDATE users SET password_hash = crypt($1, gen_salt('bf', 12)) WHERE id = $2;",
        'path "secret/data/ci/*" {\n  capabilities = ["read"]\n}',
        '{"Effect": "Allow", "Action": "secretsmanager:GetSecretValue", "Resource": "arn:aws:secretsmanager:*:*:secret:prod/*"}',
        "Error: incorrect password. 2 attempts left before the account is locked for 15 minutes.",
        "toast.error('Mot de passe incorrect')",
        "パスワードが違います。もう一度入力してください。",
        "Неверный пароль или имя пользователя.",
        "Şifreniz en az 10 karakter olmalıdır.",
        "密码长度至少为 12 位，需包含大小写字母和数字。",
    ])


@look("security tooling output without the secret", "gitleaks / trufflehog / audits", w=2)
def _():
    return pick([
        "Finding:     REDACTED\nRuleID:      generic-api-key\nFile:        src/config.ts\nLine:        14\nCommit:      %s" % hx(40),
        "Found unverified result\nDetector Type: Stripe\nRaw result: sk_live_*****\nFile: .env.bak",
        "npm audit: 3 vulnerabilities (1 moderate, 2 high) in jsonwebtoken <9.0.0",
        "Scan complete: 0 secrets found in 1,284 files (%s)" % hx(12),
        "Semgrep: hardcoded-password rule matched tests/fixtures/README.md, marked as false positive.",
    ])


@look("prose with famous example passwords", "security training notes")
def _():
    return pick([
        "Training slide: passphrases like the xkcd 'correct horse battery staple' beat short complex ones, but don't reuse the comic's.",
        "The most common leaked passwords are still 123456 and qwerty, per the yearly lists.",
        "Stripe test card 4242 4242 4242 4242, any future date, any CVC.",
    ])


@look("commit messages and changelogs about secrets", "git / release notes", w=2)
def _():
    return pick([
        "%s remove hardcoded token from config (rotated, now read from env)" % hx(7),
        "v2.3.1: API keys are now hashed at rest; existing keys keep working.",
        "fix(auth): don't log Authorization headers (closes #%d)" % R.randrange(100, 999),
        "chore: move DB password to Vault, drop .env from repo history",
        "feat: support age-encrypted secrets files via SOPS",
    ])


@look("offer notes and reviews about access, no values", "marketplace messages", w=3)
def _():
    return pick([
        "Offer note: I'll need a read-only API key for the store; please create one scoped to orders and share it through your secrets manager, not here.",
        "Review: 5/5. Worked entirely with a sandbox account the agent set up itself, never touched our production credentials.",
        "Dispute: the buyer claims I kept their token. The token was revoked on delivery day; see the audit log entry %s." % uid(),
        "Q: Can you work without our admin password?\nA: Yes, invite %s as a staff member with 'Products' permission only." % pick(HANDLES),
        "Delivery note: all secrets are read from environment variables; see .env.example for the names.",
        "Angebot: Ich brauche keinen Zugang zu Ihrem Konto, nur einen Export der Bestellungen als CSV.",
        "Note de livraison : les clés API sont à créer de votre côté, le script les lit depuis les variables d'environnement.",
        "Oferta: no necesito tus contraseñas; me das acceso de colaborador y listo.",
        "Avaliação: entrega rápida, e o agente nunca pediu senha nenhuma.",
        "Отзыв: всё сделано через OAuth, пароли не понадобились.",
    ])


@look("hex keys that are public by role", "addresses / pubkeys / contract data", w=2)
def _():
    return pick([
        "uncompressed public key 04%s" % hx(128),
        "validator pubkey 0x%s" % hx(96),
        "Nostr npub1%s" % rs(58, BECH32),
        "ed25519 public key (hex) %s, for verifying the release signatures" % hx(64),
        "Merkle root 0x%s, leaf 0x%s" % (hx(64), hx(64)),
        "storage slot 0x%s = 0x%s" % (hx(64), hx(64)),
    ])


ENV_NAMES = ["OPENAI_API_KEY", "STRIPE_SECRET_KEY", "DB_PASSWORD", "GITHUB_TOKEN", "SLACK_BOT_TOKEN", "DEPLOYER_PRIVATE_KEY",
             "SENDGRID_API_KEY", "REDIS_PASSWORD", "JWT_SECRET", "HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "TELEGRAM_BOT_TOKEN"]


@look("env reads and placeholders, parametrised", "code and configs in many languages", w=4)
def _():
    v = pick(ENV_NAMES)
    low = v.lower()
    return pick([
        "%s = os.getenv(\"%s\", \"\")" % (low, v),
        "const %s = process.env.%s ?? '';" % (low, v),
        "%s := os.Getenv(\"%s\")" % (low, v),
        "%s=${%s}" % (v, v),
        "%s: \"{{ lookup('env', '%s') }}\"" % (low, v),
        "%s=<paste here>" % v,
        "%s=your_%s_here" % (v, low),
        "%s=  # left empty on purpose, set in the CI settings" % v,
        "export %s=\"$(pass show %s/%s)\"" % (v, proj(), low),
        "%s = config(\"%s\")  # python-decouple" % (v, v),
        "@Value(\"${%s}\") private String %s;" % (low.replace("_", "."), low.split("_")[0]),
        "%s = Rails.application.credentials.dig(:%s)" % (v, low),
        "settings.%s = env(\"%s\", default=None)" % (low, v),
        "fly secrets set %s=\"$%s\"" % (v, v),
        "gh secret set %s < /dev/stdin" % v,
        "doppler secrets get %s --plain" % v,
        "%s: !Ref %sParameter" % (v, v.title().replace("_", "")),
        "echo \"$%s\" | wc -c   # should print 52" % v,
        "if [ -z \"$%s\" ]; then echo '%s is not set' >&2; exit 1; fi" % (v, v),
        "%s=**** (set in the hosting panel)" % v,
    ])


@look("more prose without values", "messages in many languages", w=4)
def _():
    return pick([
        "I rotated the %s after the demo, so the one in the recording is dead." % pick(["API key", "token", "bot token", "DB password"]),
        "Where should I put the %s? The README says .env but the Dockerfile reads /run/secrets." % pick(["Stripe key", "OpenAI key", "database password"]),
        "You'll find the password in the shared vault entry called '%s staging'." % proj(),
        "The seller asked for my %s in the chat; I declined and used the invite flow." % pick(["password", "seed phrase", "private key", "API token"]),
        "Brief: rotate all %s stored in the old Jenkins and move them to Vault." % pick(["credentials", "tokens", "passwords"]),
        "Pouvez-vous m'envoyer le mot de passe par Signal plutôt qu'ici ?",
        "Das Passwort bekommen Sie telefonisch, nicht per Nachricht.",
        "Nie wysyłaj hasła na czacie, użyj menedżera haseł.",
        "La contraseña del wifi está pegada en la nevera, no hace falta para el trabajo.",
        "A senha expira a cada 90 dias; o script precisa lidar com isso.",
        "De API-sleutel staat in de kluis, niet in de repo.",
        "API anahtarını kod deposuna koymayın, ortam değişkeninden okuyun.",
        "Chìa khóa API nằm trong biến môi trường, không có trong mã.",
        "パスワードはチャットに貼らないでください。",
        "비밀번호는 메시지로 보내지 마세요.",
        "Пароль от базы лежит в Vault, в репозитории его нет.",
        "كلمة المرور ستصلك عبر مدير كلمات المرور.",
        "Je, nenosiri litatumwa kwa njia salama? Ndiyo, kupitia kidhibiti cha manenosiri.",
        "The %s must be at least 32 random bytes; generate it with openssl rand." % pick(["JWT secret", "session secret", "webhook secret"]),
        "Tokens expire after %d minutes and are refreshed silently." % pick([15, 30, 60]),
        "My old password leaked in a breach in 2019, so everything uses a manager now.",
        "Question for the buyer: do you want the admin password reset email to go to you or to IT?",
        "Can the agent log in with SSO? We don't hand out passwords to contractors.",
        "The bot token belongs to your workspace; I only need it to be in the channel, no need to send it.",
        "Dispute: the deliverable hardcoded a placeholder key instead of reading it from the environment.",
        "Review: clean code, secrets handled via env vars and a .env.example with empty values.",
    ])


@look("code that generates or verifies secrets", "no value inside", w=3)
def _():
    return pick([
        "key = secrets.token_hex(32)\nprint('store this in your vault; it is shown once')",
        "const secret = crypto.randomBytes(32).toString('base64url');",
        "b := make([]byte, 32)\nif _, err := rand.Read(b); err != nil { return err }\ntoken := base64.RawURLEncoding.EncodeToString(b)",
        "openssl genpkey -algorithm ed25519 -out key.pem && chmod 600 key.pem",
        "ssh-keygen -t ed25519 -N '' -f ./deploy_key",
        "wg genkey | tee privatekey | wg pubkey > publickey",
        "age-keygen -o key.txt",
        "cast wallet new",
        "solana-keygen new --no-bip39-passphrase -o deployer.json",
        "if !hmac.Equal(sig, expected) { return errBadSignature }",
        "valid = pyotp.TOTP(user.totp_secret).verify(code)",
        "jwt.verify(token, publicKey, { algorithms: ['RS256'] })",
        "stripe.webhooks.constructEvent(body, sig, endpointSecret)",
        "password_verify($input, $row['password_hash'])",
    ])


@look("test fixtures and examples named as such", "tests / docs", w=3)
def _():
    return pick([
        "TEST_TOKEN = 'test-token'  # fixture, obviously fake",
        "const mockApiKey = 'mock-api-key';",
        "pw = make_random_password()  # built at test time\nassert redact(f'password={pw}') == 'password=[removed]'",
        "class FakeVault: def get(self, path): return 'fake-secret-for-%s' % path",
        "describe('login', () => { it('rejects an empty password', async () => { await expect(login('a@b.test', '')).rejects.toThrow(); }); });",
        "tests/fixtures/keys/README: all keys in this folder are public test vectors from RFC 8032.",
        "example.env: API_KEY=example-key-not-valid",
        "conftest.py: monkeypatch.setenv('STRIPE_SECRET_KEY', 'sk_test_dummy')",
    ])


def esc(text):
    if "\\" in text:
        raise SystemExit("backslash in text: %r" % text[:80])
    return text.replace("\n", "\\n").replace("\t", "\\t")


def build(templates, want, marked):
    out = []
    seen = set()
    i = 0
    tries = 0
    while len(out) < want:
        kind, ctx, f = templates[i % len(templates)]
        i += 1
        tries += 1
        if tries > want * 20:
            raise SystemExit("too many duplicates")
        text = f()
        if text in seen:
            continue
        if text.lstrip().startswith("#"):
            raise SystemExit("text starts with #: %r" % text[:60])
        opens, closes = text.count("\u00ab"), text.count("\u00bb")
        if marked:
            if opens == 0 or opens != closes:
                raise SystemExit("secret text without balanced marks: %r" % text[:80])
            depth = 0
            for ch in text:
                if ch == "\u00ab":
                    depth += 1
                elif ch == "\u00bb":
                    depth -= 1
                if depth not in (0, 1):
                    raise SystemExit("nested or stray mark: %r" % text[:80])
        elif opens or closes:
            raise SystemExit("look-alike holds a mark: %r" % text[:80])
        seen.add(text)
        out.append((kind, ctx, text))
    return out


def write(path, samples, title):
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("# %s\n# Written by heldout12_gen.py (seed 2026112912); do not edit by hand.\n" % title)
        for kind, ctx, text in samples:
            fh.write("# %s | %s\n%s\n" % (kind, ctx, esc(text)))


def main():
    secrets_ = build(SECRET, 550, True)
    looks = build(LOOK, 550, False)
    write(os.path.join(HERE, "heldout12_secret.txt"), secrets_,
          "Twelfth held-out credentials: texts holding credentials; \u00ab...\u00bb marks each value to remove.")
    write(os.path.join(HERE, "heldout12_lookalike.txt"), looks,
          "Twelfth held-out credentials: texts that hold no credential.")
    print("secret %d, lookalike %d" % (len(secrets_), len(looks)))


if __name__ == "__main__":
    main()
