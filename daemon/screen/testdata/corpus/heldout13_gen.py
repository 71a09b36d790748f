#!/usr/bin/env python3
"""Thirteenth held-out credential corpus for the screen package.

Written blind to the credential rules and to earlier corpora. Stdlib only.
Rerunning writes identical files: heldout13_secret.txt and heldout13_lookalike.txt.
Every value is random in the shape of its kind; none is or was a working credential.
"""
import base64
import hashlib
import os
import random
import string

HERE = os.path.dirname(os.path.abspath(__file__))
R = random.Random(2026112913)
TARGET = 550

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
AN = LOW + UP + DIG
HEXL = "0123456789abcdef"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
B64 = AN + "+/"
URLSAFE = AN + "-_"


def rs(n, cs=AN):
    return "".join(R.choice(cs) for _ in range(n))


def hx(n):
    return rs(n, HEXL)


def pick(xs):
    return R.choice(xs)


def b64(nbytes):
    return base64.b64encode(bytes(R.getrandbits(8) for _ in range(nbytes))).decode()


def b64url(nbytes):
    return base64.urlsafe_b64encode(bytes(R.getrandbits(8) for _ in range(nbytes))).decode().rstrip("=")


def b58enc(b):
    n = int.from_bytes(b, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    pad = len(b) - len(b.lstrip(b"\0"))
    return "1" * pad + out


def b58check(payload):
    chk = hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    return b58enc(payload + chk)


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


# ---------- BIP-39 ----------
WL_PATH = os.path.join(HERE, "..", "..", "bip39_english.txt")
WL_SHA = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"
with open(WL_PATH, "rb") as fh:
    _raw = fh.read()
if hashlib.sha256(_raw).hexdigest() != WL_SHA:
    raise SystemExit("bip39_english.txt is not the published English list")
WORDS = _raw.decode().split()
assert len(WORDS) == 2048


def mnemonic(n=12):
    ent_bits = n * 11 * 32 // 33
    ent = rbytes(ent_bits // 8)
    cs = ent_bits // 32
    h = hashlib.sha256(ent).digest()
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(ent_bits) + bin(h[0])[2:].zfill(8)[:cs]
    return " ".join(WORDS[int(bits[i:i + 11], 2)] for i in range(0, len(bits), 11))


def mnemonic_valid(words):
    n = len(words)
    if n not in (12, 15, 18, 21, 24):
        return False
    try:
        bits = "".join(bin(WORDS.index(w))[2:].zfill(11) for w in words)
    except ValueError:
        return False
    ent_bits = n * 11 * 32 // 33
    ent = int(bits[:ent_bits], 2).to_bytes(ent_bits // 8, "big")
    cs = bits[ent_bits:]
    h = hashlib.sha256(ent).digest()
    return bin(h[0])[2:].zfill(8)[:len(cs)] == cs


def bad_mnemonic(n=12):
    while True:
        ws = [pick(WORDS) for _ in range(n)]
        if not mnemonic_valid(ws):
            return " ".join(ws)


# ---------- key shapes ----------
def eth_key():
    return hx(64)


def eth_addr():
    return "0x" + hx(40)


def xprv():
    payload = bytes.fromhex("0488ade4") + bytes([R.randrange(1, 5)]) + rbytes(4) + rbytes(4) + rbytes(32) + b"\0" + rbytes(32)
    return b58check(payload)


def xpub():
    payload = bytes.fromhex("0488b21e") + bytes([R.randrange(1, 5)]) + rbytes(4) + rbytes(4) + rbytes(32) + bytes([pick([2, 3])]) + rbytes(32)
    return b58check(payload)


def wif():
    return b58check(b"\x80" + rbytes(32) + b"\x01")


def sol_secret():
    return b58enc(rbytes(64))


def sol_pub():
    return b58enc(rbytes(32))


def wg_key():
    return b64(32)


def pem_body(nlines=None):
    if nlines is None:
        nlines = R.randrange(6, 10)
    raw = b64(48 * nlines)
    return [raw[i:i + 64] for i in range(0, len(raw), 64)]


def age_key():
    return "AGE-SECRET-KEY-1" + rs(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")


def jwt(payload_obj=None):
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    if payload_obj is None:
        payload_obj = '{"sub":"%s","iat":%d,"exp":%d}' % (rs(10, LOW + DIG), 1780000000 + R.randrange(9999999), 1790000000 + R.randrange(9999999))
    body = base64.urlsafe_b64encode(payload_obj.encode()).decode().rstrip("=")
    return head + "." + body + "." + b64url(32)


def uuid4():
    h = hx(32)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], pick("89ab"), h[17:20], h[20:32])


# ---------- passwords ----------
PW_WORDS = ["sonnenblume", "tartine", "maracuja", "harbor", "lavender", "pelican", "otono", "kirsche", "bolacha",
            "matryoshka", "ciruela", "fjord", "pomodoro", "kestrel", "zeppelin", "tulipan", "gizmo", "ravioli",
            "wombat", "cactus", "saffron", "ninja", "biscotti", "quokka", "papagaio", "sakura", "tigre", "oliva",
            "meteor", "juniper", "hibou", "leopard", "caramelo", "ventana", "borscht", "mango", "snowdrop"]


def password():
    k = R.randrange(7)
    w = pick(PW_WORDS)
    if k == 0:
        return w.capitalize() + str(R.randrange(1960, 2027))
    if k == 1:
        return w + pick("!@#$%&*") + str(R.randrange(10, 99))
    if k == 2:
        return w.capitalize() + pick(PW_WORDS).capitalize() + str(R.randrange(1, 999))
    if k == 3:
        return rs(R.randrange(10, 16), AN + "!#%*-_=+")
    if k == 4:
        return w + "-" + pick(PW_WORDS) + "-" + pick(PW_WORDS)
    if k == 5:
        return pick(["Winter", "Sommer", "Primavera", "Autumn", "Invierno"]) + str(R.randrange(2019, 2027)) + pick("!?.#")
    return w[:1].upper() + w[1:].replace("a", "@").replace("o", "0") + str(R.randrange(10, 99))


def user():
    return pick(["mkovac", "svc_billing", "deploy", "admin", "j.ortega", "ops", "backup", "etl_reader", "root",
                 "app_rw", "n.haddad", "agent-07", "reporting", "tmp_contractor", "li.wei", "grafana", "ci-bot"])


def host():
    return pick(["db01.internal.example", "pg-main.corp.example.net", "10.20.4.17", "mq.staging.example.org",
                 "ldap.acme.test", "mail.vendor.example", "vpn.shop.example", "redis-2.cache.example",
                 "sftp.partner.example.com", "mongo-a.example.internal", "172.16.8.40", "nas.office.test"])


def m(v):
    return "«" + v + "»"


# ---------- tokens ----------
def tok(kind):
    if kind == "github":
        return "ghp_" + rs(36)
    if kind == "github_fine":
        return "github_pat_" + rs(22) + "_" + rs(59)
    if kind == "gitlab":
        return "glpat-" + rs(20, URLSAFE)
    if kind == "slack_bot":
        return "xoxb-%d-%d-%s" % (R.randrange(10**11, 10**12), R.randrange(10**12, 10**13), rs(24))
    if kind == "slack_user":
        return "xoxp-%d-%d-%d-%s" % (R.randrange(10**11, 10**12), R.randrange(10**11, 10**12), R.randrange(10**12, 10**13), hx(32))
    if kind == "stripe":
        return pick(["sk_live_", "rk_live_", "sk_test_"]) + rs(pick([24, 99]))
    if kind == "openai":
        return "sk-proj-" + rs(48, URLSAFE) + "T3BlbkFJ" + rs(48, URLSAFE)
    if kind == "anthropic":
        return "sk-ant-api03-" + rs(93, URLSAFE) + "AA"
    if kind == "hf":
        return "hf_" + rs(34, LOW + UP)
    if kind == "npm":
        return "npm_" + rs(36)
    if kind == "pypi":
        return "pypi-AgEIcHlwaS5vcmc" + rs(60, URLSAFE)
    if kind == "sendgrid":
        return "SG." + rs(22, URLSAFE) + "." + rs(43, URLSAFE)
    if kind == "telegram":
        return "%d:AA%s" % (R.randrange(10**9, 8 * 10**9), rs(33, URLSAFE))
    if kind == "google":
        return "AIza" + rs(35, URLSAFE)
    if kind == "do":
        return "dop_v1_" + hx(64)
    if kind == "shopify":
        return "shpat_" + hx(32)
    if kind == "vault":
        return "hvs." + rs(24)
    if kind == "groq":
        return "gsk_" + rs(52)
    if kind == "replicate":
        return "r8_" + rs(37)
    if kind == "linear":
        return "lin_api_" + rs(40)
    if kind == "figma":
        return "figd_" + rs(40, URLSAFE)
    if kind == "postman":
        return "PMAK-" + hx(24) + "-" + hx(34)
    if kind == "databricks":
        return "dapi" + hx(32)
    if kind == "tailscale":
        return "tskey-auth-k" + rs(10) + "CNTRL-" + rs(33)
    if kind == "grafana":
        return "glsa_" + rs(32) + "_" + hx(8)
    if kind == "notion":
        return "ntn_" + rs(46, DIG + LOW + UP)
    if kind == "resend":
        return "re_" + rs(8) + "_" + rs(24)
    if kind == "doppler":
        return "dp.st.prd." + rs(43)
    if kind == "pinecone":
        return "pcsk_" + rs(6) + "_" + rs(64)
    if kind == "atlassian":
        return "ATATT3xFfGF0" + rs(170, URLSAFE) + "=" + hx(8).upper()
    if kind == "netlify":
        return "nfp_" + rs(36)
    if kind == "flyio":
        return "fo1_" + rs(43, URLSAFE)
    if kind == "discord":
        return rs(24, URLSAFE[:62]) + "." + rs(6, URLSAFE) + "." + rs(38, URLSAFE)
    if kind == "mailgun":
        return "key-" + hx(32)
    if kind == "twilio_auth":
        return hx(32)
    if kind == "aws_secret":
        return rs(40, AN + "+/")
    if kind == "azure_key":
        return b64(64)
    if kind == "dropbox":
        return "sl.B" + rs(130, URLSAFE)
    if kind == "square":
        return "EAAA" + rs(60, URLSAFE)
    if kind == "clerk":
        return "sk_live_" + rs(42)
    if kind == "okta":
        return "00" + rs(40, URLSAFE)
    if kind == "alchemy":
        return rs(32, URLSAFE)
    if kind == "hex32":
        return hx(32)
    if kind == "jwt":
        return jwt()
    raise KeyError(kind)


TOKEN_KINDS = ["github", "github_fine", "gitlab", "slack_bot", "slack_user", "stripe", "openai", "anthropic", "hf",
               "npm", "pypi", "sendgrid", "telegram", "google", "do", "shopify", "vault", "groq", "replicate",
               "linear", "figma", "postman", "databricks", "tailscale", "grafana", "notion", "resend", "doppler",
               "pinecone", "atlassian", "netlify", "flyio", "discord", "mailgun", "dropbox", "square", "clerk", "okta"]
TOKEN_NAMES = {"github": "GitHub", "github_fine": "GitHub", "gitlab": "GitLab", "slack_bot": "Slack", "slack_user": "Slack",
               "stripe": "Stripe", "openai": "OpenAI", "anthropic": "Anthropic", "hf": "Hugging Face", "npm": "npm",
               "pypi": "PyPI", "sendgrid": "SendGrid", "telegram": "Telegram", "google": "Gemini", "do": "DigitalOcean",
               "shopify": "Shopify", "vault": "Vault", "groq": "Groq", "replicate": "Replicate", "linear": "Linear",
               "figma": "Figma", "postman": "Postman", "databricks": "Databricks", "tailscale": "Tailscale",
               "grafana": "Grafana", "notion": "Notion", "resend": "Resend", "doppler": "Doppler", "pinecone": "Pinecone",
               "atlassian": "Jira", "netlify": "Netlify", "flyio": "Fly.io", "discord": "Discord", "mailgun": "Mailgun",
               "dropbox": "Dropbox", "square": "Square", "clerk": "Clerk", "okta": "Okta"}


# =====================================================================
# (a) passwords in natural messages
# =====================================================================
def s_msg_lang():
    pw = password()
    t = pick([
        "Hi team, the shared inbox for support@helpdesk.example now uses the password %s until IT rotates it on Monday.",
        "Kurz zur Info: das WLAN im Büro heißt Gast-3OG, Passwort ist %s. Bitte nicht weitergeben.",
        "Bonjour, voici le mot de passe provisoire du compte client : %s (à changer à la première connexion).",
        "Hola! la contraseña del router nuevo es %s, la pegué también en la nevera jaja",
        "Oi, a senha do painel do fornecedor ficou %s, depois me avisa se entrou",
        "Привет, пароль от тестового стенда: %s — логин как обычно admin",
        "Ciao, per accedere al gestionale usa utente magazzino e password %s",
        "Hej! Lösenordet till kundportalen är %s, byt gärna efter första inloggningen.",
        "hey so the login for the staging dashboard is ops / %s dont share pls",
        "Dear Ms. Varga, as requested, your temporary credentials are: username guest4471, password %s. Kind regards, Facilities",
        "テスト環境のパスワードは %s です。ユーザー名は demo です。",
        "測試帳號的密碼是 %s ，登入後請改掉。",
        "Merhaba, sunucu şifresi %s, kullanıcı adı deploy.",
        "Cześć, hasło do panelu to %s, login jak zawsze.",
        "Hallo, het wachtwoord voor de gedeelde map is %s.",
        "pw for the vendor portal: %s (same as last quarter lol)",
        "ok so uh the password is %s all one word capital first letter",
        "yo the netflix on the office tv, pass is %s",
        "Szia! A jelszó a tesztfiókhoz: %s",
        "passwort fürs NAS hab ich geändert auf %s, sag bescheid wenns hakt",
        "FYI changed the root pw on the backup box to %s — will move it to the vault tomorrow",
        "Estimado cliente, su clave de acceso temporal es %s. Le recomendamos cambiarla.",
        "the wifi at the offsite is CabinGuest and the password %s",
        "ακολουθεί ο κωδικός για το σύστημα: %s",
        "Mình gửi mật khẩu tài khoản quản trị: %s nhé",
        "pass do zoom admin: %s i nie mów nikomu xD",
        "I reset your account, new password %s, you'll be asked to change it.",
    ])
    return "password", "message", t % m(pw)


def s_msg_voice():
    w1, w2 = pick(PW_WORDS), pick(PW_WORDS)
    n = str(R.randrange(10, 9999))
    pw = w1 + w2.capitalize() + n
    t = pick([
        "[voice note transcript] okay so for the warehouse tablet the password is %s, I'll spell it later if it doesn't work",
        "Transcribed: hi it's Dana from accounts, the login's accounts at shopfront and the password is %s thanks bye",
        "(auto-transcript) yeah just type %s that's the password for the kiosk",
        "Voicemail: hey, locked out again? use %s for now, capital on the second word",
    ])
    return "password", "voice transcript", t % m(pw)


def s_msg_typo():
    pw = password()
    t = pick([
        "sory forgot to send, pasword: %s",
        "the passwrod for teh ftp is %s",
        "paswd %s pls dont loose it again",
        "contrasena (sin tilde xd): %s",
        "Passwort:%s",
        "pwd=%s for the guest account",
        "heres the pw -> %s",
        "pass: %s user: %s" % ("%s", user()),
    ])
    return "password", "typo message", t % m(pw)


def s_msg_mixed():
    pw = password()
    t = pick([
        "Ok team, el server de staging ya está up. Login: root, password: %s. Let me know si falla.",
        "Bro, der Admin-Zugang ist jetzt admin / %s, pls check ob es works",
        "on a migré la base hier, the new password for app_rw is %s, merci!",
        "Сервер поднял, login deploy, pass %s, check plz",
        "คุณครับ password ของ server คือ %s นะครับ",
        "Sir, the Jira admin password ab %s hai, kal change kar dena",
    ])
    return "password", "mixed-language message", t % m(pw)


def s_msg_chatlog():
    pw = password()
    a, b = pick([("Priya", "Tom"), ("Kenji", "Alba"), ("Oskar", "Mei"), ("Fatou", "Lars"), ("agent-buyer", "agent-seller")])
    t = pick([
        "[09:14] %s: can you send me the db login again?\n[09:15] %s: user reporting, pass %s\n[09:15] %s: thx",
        "%s: what's the admin password on the new kiosk?\n%s: %s\n%s: 👍",
        "<%s> anyone knows the grafana admin pw?\n<%s> it's %s since the reinstall\n<%s> ty",
    ])
    return "password", "chat log", t % (a, b, m(pw), a)


def s_msg_email():
    pw = password()
    u = user()
    t = pick([
        "Subject: Access to the reporting server\n\nHello,\n\nPlease find below your login details:\nUser: %s\nPassword: %s\n\nBest regards,\nIT Service Desk",
        "Betreff: Zugangsdaten\n\nSehr geehrte Damen und Herren,\nBenutzername: %s\nKennwort: %s\n\nMit freundlichen Grüßen",
        "Objet : accès SFTP\n\nIdentifiant : %s\nMot de passe : %s\n\nCordialement",
    ])
    return "password", "email", t % (u, m(pw))


def s_msg_delivery():
    pw = password()
    t = pick([
        "Delivered: WordPress site set up at https://bakery.example/wp-admin — admin login: owner / %s. Please change it after first login.",
        "Deliverable ready. The Shopify staff account I created is staff@store.example with password %s.",
        "Task done ✅ — the Airflow UI is at http://10.0.3.5:8080, user airflow, password %s",
        "As agreed, here is the VPS access: ssh ubuntu@203.0.113.77, sudo password %s",
        "Migrated the mailbox. IMAP login info@shop.example, app password %s",
    ])
    return "password", "marketplace deliverable", t % m(pw)


def s_msg_wifi():
    pw = password()
    t = pick([
        "WIFI:T:WPA;S:Office-5G;P:%s;;",
        "Guest network: SSID CafeLuna, WPA2 key %s",
        "wpa_passphrase=%s",
        "network={\n\tssid=\"HomeLab\"\n\tpsk=\"%s\"\n}",
    ])
    return "wifi password", "wifi", t % m(pw)


# =====================================================================
# (b) credentials inside code
# =====================================================================
def s_code_positional():
    pw = password()
    h = host()
    t = pick([
        'conn = psycopg2.connect("%s", "orders", "%s", "%s")' % (h, user(), m(pw)),
        'db, err := sql.Open("mysql", "%s:%s@tcp(%s:3306)/shop")' % (user(), m(pw), h),
        'Connection c = DriverManager.getConnection("jdbc:postgresql://%s/app", "%s", "%s");' % (h, user(), m(pw)),
        'client = pymongo.MongoClient("%s", 27017, username="%s", password="%s")' % (h, user(), m(pw)),
        '$pdo = new PDO("mysql:host=%s;dbname=crm", "%s", "%s");' % (h, user(), m(pw)),
        'ftp.login("%s", "%s")' % (user(), m(pw)),
        'smtp.login("reports@mailer.example", "%s")' % m(pw),
        'redis.Redis(host="%s", port=6379, db=0, password="%s")' % (h, m(pw)),
        'mysql_real_connect(conn, "%s", "%s", "%s", "billing", 0, NULL, 0);' % (h, user(), m(pw)),
        'let pool = PgPool::connect_with(opts.host("%s").username("%s").password("%s")).await?;' % (h, user(), m(pw)),
        'ssh.connect("%s", username="%s", password="%s")' % (h, user(), m(pw)),
        'auth = HTTPBasicAuth("%s", "%s")' % (user(), m(pw)),
        'curl_easy_setopt(curl, CURLOPT_USERPWD, "%s:%s");' % (user(), m(pw)),
        'imap.login("inbox@store.example", "%s")' % m(pw),
        'val ds = HikariDataSource().apply { jdbcUrl = "jdbc:mysql://%s/app"; username = "%s"; password = "%s" }' % (h, user(), m(pw)),
    ])
    return "password", "code positional", t


def s_code_builder():
    k = pick(TOKEN_KINDS)
    v = tok(k)
    t = pick([
        'OkHttpClient client = new OkHttpClient.Builder().addInterceptor(chain -> chain.proceed(chain.request().newBuilder().header("Authorization", "Bearer %s").build())).build();',
        'req = Request.Builder().url(API).addHeader("Authorization", "token %s").build()',
        'HttpRequest.newBuilder(uri).header("X-Api-Key", "%s").GET().build();',
        'client := resty.New().SetAuthToken("%s")',
        'const octo = new Octokit({ auth: "%s" });',
        'let client = reqwest::Client::builder().default_headers(hdrs).build()?; hdrs.insert("Authorization", HeaderValue::from_static("Bearer %s"));',
        'services.AddHttpClient("api", c => c.DefaultRequestHeaders.Add("Authorization", "Bearer %s"));',
        'Faraday.new(url: base) { |f| f.request :authorization, "Bearer", "%s" }',
        'axios.create({ baseURL: "https://api.vendor.example", headers: { Authorization: `Bearer %s` } })',
        'WebClient.builder().defaultHeader("Authorization", "Bearer %s").build()',
    ])
    return TOKEN_NAMES[k] + " token", "code builder", t % m(v)


def s_code_struct():
    pw = password()
    k = pick(TOKEN_KINDS)
    v = tok(k)
    t = pick([
        'cfg := Config{Host: "%s", User: "%s", Password: "%s", Port: 5432}' % (host(), user(), m(pw)),
        'let creds = Credentials { user: "%s".into(), pass: "%s".into() };' % (user(), m(pw)),
        'var opts = new SmtpOptions { Host = "smtp.mailer.example", User = "noreply", Pass = "%s" };' % m(pw),
        'notifier := slack.Notifier{Channel: "#alerts", Token: "%s"}' % m(v),
        'client = ApiClient(endpoint="https://api.vendor.example/v2", key="%s", timeout=30)' % m(v),
        'const settings = { smtp: { user: "bot@shop.example", pass: "%s" }, retries: 3 };' % m(pw),
        'struct db_conf conf = { .host = "%s", .user = "%s", .passwd = "%s" };' % (host(), user(), m(pw)),
        'data class Creds(val login: String = "%s", val secret: String = "%s")' % (user(), m(pw)),
        '@Bean DataSource ds() { return DataSourceBuilder.create().url(URL).username("%s").password("%s").build(); }' % (user(), m(pw)),
        'Settings{ApiKey: "%s", Region: "eu-west"}' % m(v),
    ])
    return "credential in struct", "code struct literal", t


def s_code_annotation():
    pw = password()
    t = pick([
        '@DataSourceDefinition(name = "java:app/db", className = "org.postgresql.ds.PGSimpleDataSource", user = "%s", password = "%s", serverName = "%s")' % (user(), m(pw), host()),
        '@Value("${db.password:%s}")\nprivate String dbPassword;' % m(pw),
        '[Credential(User = "svc_sync", Password = "%s")]' % m(pw),
        'mod db_tests {\n#[sqlx::test]\nasync fn it_connects() { let url = "postgres://%s:%s@%s/app"; }\n}' % (user(), m(pw), host()),
        '@WithMockUser(username = "ops") @Test void login() { form.fill("ops", "%s"); }' % m(pw),
    ])
    return "password", "code annotation", t


def s_code_test():
    pw = password()
    v = tok(pick(TOKEN_KINDS))
    t = pick([
        'def test_sync_orders():\n    client = ShopClient("https://shop.example", "%s")\n    assert client.orders()' % m(v),
        'it("uploads report", async () => {\n  await page.fill("#password", "%s");\n  await page.click("text=Sign in");\n});' % m(pw),
        'func TestExport(t *testing.T) {\n\tc := NewClient("%s")\n\tif _, err := c.Export(); err != nil { t.Fatal(err) }\n}' % m(v),
        'describe "billing" do\n  let(:api) { Billing::Api.new(key: "%s") }\nend' % m(v),
        '[Fact] public void Connects() { var c = new FtpClient("%s", "%s", "%s"); Assert.True(c.Connect()); }' % (host(), user(), m(pw)),
        'cy.get("input[name=pass]").type("%s")' % m(pw),
        'driver.find_element(By.ID, "pwd").send_keys("%s")' % m(pw),
    ])
    return "credential in test", "test setup", t


def s_code_script():
    pw = password()
    t = pick([
        'sshpass -p %s scp backup.tar.gz %s@%s:/srv/' % (m(pw), user(), host()),
        'mysqldump -u %s -p%s shop > shop.sql' % (user(), m(pw)),
        'PGPASSWORD=%s psql -h %s -U %s app' % (m(pw), host(), user()),
        'echo "%s" | docker login registry.example.io -u ci --password-stdin' % m(pw),
        'Invoke-Sqlcmd -ServerInstance "%s" -Username sa -Password "%s"' % (host(), m(pw)),
        '$cred = New-Object PSCredential("svc_sync@corp.example", (ConvertTo-SecureString "%s" -AsPlainText -Force))' % m(pw),
        'mongo "mongodb://%s:%s@%s:27017/admin"' % (user(), m(pw), host()),
        'rclone config create nas sftp host %s user %s pass %s' % (host(), user(), m(pw)),
        'wget --user=%s --password=%s https://files.vendor.example/export.zip' % (user(), m(pw)),
        'lftp -u %s,%s sftp://%s' % (user(), m(pw), host()),
    ])
    return "password", "shell", t


def s_code_env():
    k = pick(TOKEN_KINDS)
    v = tok(k)
    t = pick([
        'os.environ["%s_TOKEN"] = "%s"',
        'process.env.API_TOKEN = "%s"',
        'ENV["SERVICE_KEY"] = "%s"',
        'export %s_API_KEY=%s',
        'Environment.SetEnvironmentVariable("TOKEN", "%s");',
    ])
    if t.count("%s") == 2:
        t = t % (TOKEN_NAMES[k].upper().replace(" ", "_").replace(".", ""), m(v))
    else:
        t = t % m(v)
    return TOKEN_NAMES[k] + " token", "code env", t


# =====================================================================
# (c) infrastructure configs and tool outputs
# =====================================================================
def s_infra_k8s():
    pw = password()
    v = tok(pick(TOKEN_KINDS))
    t = pick([
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: pg-creds\ntype: Opaque\nstringData:\n  POSTGRES_PASSWORD: %s" % m(pw),
        "env:\n  - name: DB_PASSWORD\n    value: \"%s\"\n  - name: DB_HOST\n    value: %s" % (m(pw), host()),
        "helm upgrade --install shop ./chart --set postgresql.auth.password=%s --set image.tag=1.8.2" % m(pw),
        "kubectl create secret generic api-token --from-literal=token=%s -n payments" % m(v),
        "containers:\n- name: worker\n  args: [\"--api-token\", \"%s\", \"--queue\", \"orders\"]" % m(v),
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: mq\ndata:\n  password: %s" % m(base64.b64encode(pw.encode()).decode()),
    ])
    return "password", "kubernetes", t


def s_infra_tf():
    pw = password()
    t = pick([
        'resource "aws_db_instance" "main" {\n  engine   = "postgres"\n  username = "%s"\n  password = "%s"\n}' % (user(), m(pw)),
        'provider "grafana" {\n  url  = "https://grafana.ops.example"\n  auth = "%s"\n}' % m(tok("grafana")),
        'module "vpn" {\n  source     = "./modules/wg"\n  admin_pass = "%s"\n}' % m(pw),
        'terraform plan -var "db_password=%s" -out plan.bin' % m(pw),
        'variable "cloudflare_api_token" {\n  default = "%s"\n}' % m(rs(40, URLSAFE)),
    ])
    return "password", "terraform", t


def s_infra_ci():
    v = tok(pick(TOKEN_KINDS))
    pw = password()
    t = pick([
        "Run ./deploy.sh\n+ curl -sf -H 'Authorization: Bearer %s' https://deploy.example/api/release\n{\"status\":\"queued\"}" % m(v),
        "[build 4471] Step 6/12 : RUN pip install --index-url https://ci:%s@pypi.internal.example/simple -r requirements.txt" % m(pw),
        "2026-11-02T10:14:03Z + docker login -u deploy -p %s registry.example.io\nWARNING! Using --password via the CLI is insecure." % m(pw),
        "Run npm publish\n##[debug]Evaluating: secrets.NPM_TOKEN\n##[debug]Result: '%s'" % m(tok("npm")),
        "$ git clone https://oauth2:%s@gitlab.example.com/team/infra.git\nCloning into 'infra'..." % m(tok("gitlab")),
        "+ export SENTRY_AUTH_TOKEN=sntrys_%s\n+ sentry-cli releases new 4.2.0" % m(rs(64)),
        "job 'publish' failed: npm ERR! 403 Forbidden - token npm_%s is not authorised for @shop/ui" % m(rs(36)),
    ])
    t = t.replace("sntrys_«", "«sntrys_").replace("token npm_«", "token «npm_")
    return "token", "CI log", t


def s_infra_db():
    pw = password()
    h = host()
    t = pick([
        "DATABASE_URL=postgres://%s:%s@%s:5432/shop?sslmode=require" % (user(), m(pw), h),
        "spring.datasource.url=jdbc:mysql://%s:3306/crm\nspring.datasource.username=%s\nspring.datasource.password=%s" % (h, user(), m(pw)),
        "[client]\nuser=%s\npassword=%s\nhost=%s" % (user(), m(pw), h),
        "%s:5432:*:%s:%s" % (h, user(), m(pw)),
        "Server=%s;Database=Sales;User Id=%s;Password=%s;TrustServerCertificate=True" % (h, user(), m(pw)),
        "redis-cli -h %s -a %s INFO replication" % (h, m(pw)),
        "mongodb+srv://%s:%s@cluster0.abcde.mongodb.example/?retryWrites=true" % (user(), m(pw)),
        "CONFIG SET requirepass \"%s\"" % m(pw),
        "clickhouse-client --host %s --user %s --password %s --query 'SELECT 1'" % (h, user(), m(pw)),
    ])
    return "database password", "database client", t


def s_infra_broker():
    pw = password()
    t = pick([
        "amqp://%s:%s@%s:5672/orders" % (user(), m(pw), host()),
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"%s\" password=\"%s\";" % (user(), m(pw)),
        "rabbitmqctl add_user %s %s" % (user(), m(pw)),
        "nats://%s:%s@%s:4222" % (user(), m(pw), host()),
        "mosquitto_pub -h %s -u sensor -P %s -t plant/temp -m 21.5" % (host(), m(pw)),
    ])
    return "broker password", "message broker", t


def s_infra_vpn():
    k = wg_key()
    pw = password()
    t = pick([
        "[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = %s\nDNS = 10.8.0.1\n\n[Peer]\nPublicKey = %s\nEndpoint = vpn.shop.example:51820" % (m(k), wg_key()),
        "[Peer]\nPublicKey = %s\nPresharedKey = %s\nAllowedIPs = 0.0.0.0/0" % (wg_key(), m(wg_key())),
        "auth-user-pass creds.txt\n# creds.txt:\n%s\n%s" % (user(), m(pw)),
        "conn office\n  left=%%defaultroute\n  right=vpn.shop.example\n  authby=secret\n\n: PSK \"%s\"" % m(pw),
        "openconnect vpn.corp.example -u %s --passwd-on-stdin <<< '%s'" % (user(), m(pw)),
    ])
    t = t.replace("auth-user-pass creds.txt\n# creds.txt:", "auth-user-pass creds.txt\n(creds.txt holds:)")
    return "vpn secret", "VPN", t


def s_infra_services():
    pw = password()
    t = pick([
        "ldapsearch -x -H ldap://ldap.acme.test -D \"cn=admin,dc=acme,dc=test\" -w %s -b dc=acme,dc=test" % m(pw),
        "snmpwalk -v3 -l authPriv -u monitor -a SHA -A %s -x AES -X %s 10.0.0.1" % (m(pw), m(password())),
        "snmpget -v2c -c %s 192.0.2.10 sysUpTime.0" % m(rs(12, LOW + DIG)),
        "smtp_sasl_password_maps: [smtp.mailer.example]:587 relay@shop.example:%s" % m(pw),
        "restic -r s3:s3.example.com/backups backup /srv --password-command 'echo %s'" % m(pw),
        "export BORG_PASSPHRASE='%s'\nborg create ::nightly /srv" % m(pw),
        "define host {\n  use generic\n  _SNMP_COMMUNITY %s\n}" % m(rs(10, LOW + DIG)),
        "zabbix_sender -z zbx.example -s web01 -k ping -o 1 # agent PSK %s" % m(hx(64)),
        "curl -u elastic:%s https://es.ops.example:9200/_cluster/health" % m(pw),
        "ftp> user backup\n331 Password required\nftp> pass %s\n230 Login successful." % m(pw),
        "bind_dn = cn=readonly,dc=corp,dc=example\nbind_password = %s" % m(pw),
        "dovecot: auth: passwd-file(%s): password is %s (plain)" % (user(), m(pw)),
    ])
    t = t.replace(" # agent PSK ", " ; agent PSK ")
    return "service password", "infra service", t


def s_infra_cloud():
    t = pick([
        "$ aws configure\nAWS Access Key ID [None]: AKIA%s\nAWS Secret Access Key [None]: %s\nDefault region name [None]: eu-central-1" % (rs(16, UP + DIG), m(tok("aws_secret"))),
        "[default]\naws_access_key_id = AKIA%s\naws_secret_access_key = %s" % (rs(16, UP + DIG), m(tok("aws_secret"))),
        "az storage blob upload --account-name shopdata --account-key %s -c exports -f out.csv" % m(tok("azure_key")),
        "DefaultEndpointsProtocol=https;AccountName=shoplogs;AccountKey=%s;EndpointSuffix=core.windows.net" % m(tok("azure_key")),
        "doctl auth init --access-token %s" % m(tok("do")),
        "gcloud auth activate-service-account --key-file=- <<< '{\"type\":\"service_account\",\"private_key_id\":\"%s\",\"private_key\":\"-----BEGIN PRIVATE KEY-----%s-----END PRIVATE KEY-----\"}'" % (hx(40), m("".join(pem_body(4)))),
        "https://shoplogs.blob.core.windows.net/exports/out.csv?sv=2024-08-04&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&sig=%s" % m(base64.b64encode(rbytes(32)).decode().replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")),
        "hcloud context create prod\nToken: %s" % m(rs(64)),
    ])
    return "cloud secret", "cloud CLI", t


def s_infra_ssh():
    pw = password()
    t = pick([
        "Host legacy\n  HostName 198.51.100.23\n  User %s\n  # password: %s" % (user(), m(pw)),
        "%s@%s's password: %s" % (user(), host(), m(pw)),
        "ansible_host=10.1.2.3 ansible_user=%s ansible_password=%s ansible_become_pass=%s" % (user(), m(pw), m(password())),
        "[web]\n10.0.5.11 ansible_ssh_pass=%s" % m(pw),
    ])
    t = t.replace("  # password:", "  ; password:")
    return "ssh password", "SSH", t


# =====================================================================
# (d) SaaS / AI / web3 tokens in places
# =====================================================================
def s_tok_places():
    k = pick(TOKEN_KINDS)
    v = tok(k)
    n = TOKEN_NAMES[k]
    t = pick([
        "curl -H \"Authorization: Bearer %s\" https://api.vendor.example/v1/me",
        "GET /v1/reports?api_key=%s HTTP/1.1\nHost: api.vendor.example",
        "Cookie: session_id=%s; theme=dark" if k in ("hex32",) else "Cookie: theme=dark; auth_token=%s; lang=en",
        "localStorage.setItem(\"token\", \"%s\")",
        "https://hooks.vendor.example/ingest?token=%s&source=shop",
        "X-API-Key: %s",
        "Here's my " + n + " key so you can finish the integration: %s",
        n + " token for the bot: %s — please revoke when done",
        "otpauth-migration style QR decoded: {\"url\":\"https://api.vendor.example\",\"token\":\"%s\"}",
        "<string name=\"api_token\">%s</string>",
        "<key>APIToken</key>\n<string>%s</string>",
        "buildConfigField \"String\", \"API_KEY\", \"\\\"%s\\\"\"",
        "NEXT_SERVER_TOKEN=%s",
        "Authorization: token %s",
        "window.__CONFIG__ = {apiBase: \"/api\", serviceToken: \"%s\"};",
    ])
    t = t.replace('\\"', "'")
    return n + " token", "token placement", t % m(v)


def s_tok_ai():
    k = pick(["openai", "anthropic", "groq", "replicate", "hf", "pinecone", "google"])
    v = tok(k)
    n = TOKEN_NAMES[k]
    t = pick([
        "from openai import OpenAI\nclient = OpenAI(api_key=\"%s\")",
        "client = anthropic.Anthropic(api_key=\"%s\")",
        "llm = ChatModel(model=\"fast-v2\", api_key=\"%s\", temperature=0.2)",
        "mcp.json: {\"servers\": {\"search\": {\"command\": \"npx\", \"env\": {\"API_KEY\": \"%s\"}}}}",
        "The agent's tool config: provider=" + n.lower() + " key=%s model=default",
        "curl https://api.ai.example/v1/chat -H \"x-api-key: %s\" -d '{\"prompt\":\"hi\"}'",
        "genai.configure(api_key=\"%s\")",
        "export " + n.upper().replace(" ", "_") + "_API_KEY=\"%s\"",
    ])
    return n + " key", "AI provider", t % m(v)


def s_tok_web3():
    t = pick([
        "https://eth-mainnet.g.alchemy.example/v2/%s" % m(tok("alchemy")),
        "INFURA_PROJECT_SECRET=%s" % m(hx(32)),
        "etherscan: { apiKey: \"%s\" }" % m(rs(34, UP + DIG)),
        "wss://mainnet.infura.example/ws/v3/%s" % m(hx(32)),
        "BINANCE_API_KEY=%s\nBINANCE_API_SECRET=%s" % (rs(64), m(rs(64))),
        "const exchange = new ccxt.kraken({ apiKey: '%s', secret: '%s' })" % (rs(56, URLSAFE), m(b64(64))),
        "bybit api key %s secret %s" % (rs(18), m(rs(36))),
        "OKX: apiKey %s secretKey %s passphrase %s" % (uuid4(), m(hx(32).upper()), m(password())),
    ])
    return "web3 provider key", "web3 service", t


def s_tok_jwt():
    j = jwt()
    t = pick([
        "Authorization: Bearer %s",
        "curl -b 'access_token=%s' https://app.shop.example/api/cart",
        "SUPABASE_SERVICE_ROLE_KEY=%s",
        "{\"refresh_token\": \"%s\", \"expires_in\": 3600}",
        "sessionStorage: jwt = %s",
    ])
    return "JWT", "session token", t % m(j)


def s_tok_webhook():
    t = pick([
        "https://hooks.slack.example/services/T%s/B%s/%s" % (rs(8, UP + DIG), rs(10, UP + DIG), m(rs(24))),
        "https://discord.example/api/webhooks/%d/%s" % (R.randrange(10**17, 10**18), m(rs(68, URLSAFE))),
        "STRIPE_WEBHOOK_SECRET=whsec_%s" % m(rs(32)),
        "https://api.telegram.example/bot%s/sendMessage?chat_id=-100%d" % (m(tok("telegram")), R.randrange(10**9, 10**10)),
    ])
    t = t.replace("whsec_«", "«whsec_")
    return "webhook secret", "webhook URL", t


def s_tok_mobile():
    v = tok(pick(["stripe", "google", "square", "clerk", "okta", "hex32"]))
    t = pick([
        "<meta-data android:name=\"com.vendor.sdk.SECRET\" android:value=\"%s\"/>",
        "static let apiSecret = \"%s\"",
        "google-services style config: {\"server_key\": \"%s\"}",
        "react-native .env: PAYMENTS_SECRET=%s",
        "flutter: const String kBackendSecret = '%s';",
    ])
    return "mobile secret", "mobile config", t % m(v)


# =====================================================================
# (e) private keys and wallet secrets
# =====================================================================
def s_key_pem():
    kind = pick(["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY"])
    if kind == "ENCRYPTED PRIVATE KEY":
        kind = "PRIVATE KEY"
    body = pem_body()
    pre = pick(["", "Here is the deploy key:\n", "key.pem:\n", "ssh_key: |\n", "tls.key: |\n  "])
    joiner = "\n  " if pre.endswith("  ") or pre.endswith("|\n") else "\n"
    if pre.endswith("|\n"):
        pre = pre + "  "
    t = pre + "-----BEGIN %s-----%s%s%s-----END %s-----" % (kind, joiner, m(joiner.join(body)), joiner, kind)
    return "private key", "PEM", t


def s_key_pem_oneline():
    body = "".join(pem_body(R.randrange(5, 9)))
    t = pick([
        "TLS_KEY=\"-----BEGIN PRIVATE KEY-----%s-----END PRIVATE KEY-----\"",
        "{\"private_key\": \"-----BEGIN RSA PRIVATE KEY-----%s-----END RSA PRIVATE KEY-----\"}",
    ])
    return "private key", "PEM one line", t % m(body)


def s_key_eth():
    k = eth_key()
    t = pick([
        "PRIVATE_KEY=0x%s",
        "const wallet = new ethers.Wallet(\"0x%s\", provider);",
        "account = Account.from_key(\"%s\")",
        "forge script Deploy.s.sol --broadcast --private-key 0x%s",
        "мой приватный ключ от кошелька: %s",
        "clave privada de la wallet de pruebas (tiene fondos!): 0x%s",
        "networks: { sepolia: { url: RPC, accounts: [\"0x%s\"] } }",
        "cast send %s \"mint()\" --private-key %s" % (eth_addr(), "%s"),
        "Wallet export\nAddress: %s\nPrivate key: %s" % (eth_addr(), "%s"),
        "私钥：%s",
        "signer, _ := crypto.HexToECDSA(\"%s\")",
    ])
    return "wallet private key", "EVM", t % m(k)


def s_key_mnemonic():
    n = pick([12, 12, 12, 24, 24, 15, 18])
    ph = mnemonic(n)
    sep = pick([" ", " ", "-", "\n"])
    if sep == "\n":
        shown = "\n".join("%d. %s" % (i + 1, w) for i, w in enumerate(ph.split()))
        t = pick(["Recovery phrase backup:\n%s", "seed words (wrote them down from the card):\n%s"]) % m(shown)
    else:
        shown = sep.join(ph.split())
        t = pick([
            "my seed phrase is %s please help me recover the funds",
            "MNEMONIC=\"%s\"",
            "wallet = Wallet.from_mnemonic(\"%s\")",
            "frase semilla de la billetera: %s",
            "助记词：%s",
            "сид-фраза: %s",
            "const hd = HDNodeWallet.fromPhrase(\"%s\");",
            "restore with: %s",
        ]) % m(shown)
    return "recovery phrase", "mnemonic", t


def s_key_btc():
    t = pick([
        "importprivkey %s \"cold\" false" % m(wif()),
        "WIF: %s" % m(wif()),
        "master private key %s" % m(xprv()),
        "descriptor: wpkh(%s/84h/0h/0h/0/*)" % m(xprv()),
        "electrum restore %s" % m(xprv()),
        "{\"xprv\": \"%s\", \"xpub\": \"%s\"}" % (m(xprv()), xpub()),
    ])
    return "bitcoin key", "bitcoin", t


def s_key_sol():
    k = sol_secret()
    arr = "[" + ",".join(str(R.randrange(256)) for _ in range(64)) + "]"
    t = pick([
        "SOLANA_SECRET_KEY=%s" % m(k),
        "id.json: %s" % m(arr),
        "const kp = Keypair.fromSecretKey(bs58.decode(\"%s\"));" % m(k),
        "phantom export private key: %s" % m(k),
        "let keypair = Keypair::from_bytes(&%s)?;" % m(arr),
    ])
    return "solana key", "solana", t


def s_key_other():
    t = pick([
        "age key for the backups:\n%s" % m(age_key()),
        "# created: 2026-10-01T10:00:00Z\n# public key: age1%s\n%s" % (rs(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l"), m(age_key())),
        "ED25519 signing key (hex seed): %s" % m(hx(64)),
        "JWT_SIGNING_SECRET=%s" % m(b64(48)),
        "gpg private subkey export (base64): %s" % m(b64(96)),
        "nostr nsec: nsec1%s" % m(rs(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")),
        "cosmos priv_key: {\"type\":\"tendermint/PrivKeyEd25519\",\"value\":\"%s\"}" % m(b64(64)),
        "keystore json password: %s" % m(password()),
    ])
    t = t.replace("# created: 2026-10-01T10:00:00Z\n# public key:", "created: 2026-10-01T10:00:00Z\npublic key:")
    t = t.replace("nsec1«", "«nsec1")
    return "private key", "key encodings", t


# =====================================================================
# (f) structured data
# =====================================================================
def s_struct_csv():
    rows = []
    for _ in range(R.randrange(2, 4)):
        rows.append((user(), host(), m(password())))
    sep = pick([",", ";", "\t", " | "])
    head = sep.join(["user", "host", "password"])
    body = "\n".join(sep.join(r) for r in rows)
    if sep == " | ":
        t = "| user | host | password |\n|---|---|---|\n" + "\n".join("| %s | %s | %s |" % r for r in rows)
    else:
        t = head + "\n" + body
    return "password", "table", t


def s_struct_sheet():
    svc = pick(["Mailchimp", "Zendesk", "Xero", "QuickBooks", "Hubspot", "Canva", "Figma", "Notion"])
    t = pick([
        "Service\tLogin\tPassword\tNotes\n%s\tmarketing@shop.example\t%s\tshared with agency" % (svc, m(password())),
        "A1: Account  B1: Email  C1: Pass\nA2: %s  B2: ops@shop.example  C2: %s" % (svc, m(password())),
        "Tool,Owner,Key,Expires\n%s,ops,%s,2027-01-31" % (svc, m(tok(pick(TOKEN_KINDS)))),
    ])
    return "password", "spreadsheet", t


def s_struct_html():
    t = pick([
        "<table><tr><th>System</th><th>User</th><th>Password</th></tr><tr><td>ERP</td><td>%s</td><td>%s</td></tr></table>" % (user(), m(password())),
        "<input type=\"hidden\" name=\"api_secret\" value=\"%s\">" % m(tok("hex32")),
        "<dl><dt>Router admin</dt><dd>admin / %s</dd></dl>" % m(password()),
    ])
    return "password", "HTML", t


def s_struct_json():
    t = pick([
        "{\"integrations\": [{\"name\": \"crm\", \"username\": \"%s\", \"password\": \"%s\"}]}" % (user(), m(password())),
        "{\"service\": \"mailer\", \"credentials\": {\"apiKey\": \"%s\"}}" % m(tok(pick(["sendgrid", "mailgun", "resend"]))),
        "- name: smtp\n  user: noreply@shop.example\n  pass: %s\n- name: sftp\n  user: partner\n  pass: %s" % (m(password()), m(password())),
        "<connection name=\"erp\"><user>%s</user><password>%s</password></connection>" % (user(), m(password())),
        "{\"bitwarden_export\": [{\"login\": {\"username\": \"ops@shop.example\", \"password\": \"%s\", \"uris\": [{\"uri\": \"https://erp.shop.example\"}]}}]}" % m(password()),
        "[{\"id\": 17, \"site\": \"admin.vendor.example\", \"user\": \"%s\", \"pwd\": \"%s\"}]" % (user(), m(password())),
        "<add key=\"ApiSecret\" value=\"%s\" />" % m(tok("hex32")),
    ])
    return "password", "JSON/YAML/XML", t


def s_struct_diff():
    pw, old = password(), password()
    t = pick([
        "--- a/config/prod.yml\n+++ b/config/prod.yml\n@@ -4,3 +4,3 @@\n   host: %s\n-  password: ${DB_PASSWORD}\n+  password: %s" % (host(), m(pw)),
        "diff --git a/.env b/.env\n+SLACK_BOT_TOKEN=%s" % m(tok("slack_bot")),
        "-    token: \"{{ vault_token }}\"\n+    token: \"%s\"" % m(tok("vault")),
        "commit 4f2a9c1\n    fix login\n\n-smtp_pass = '%s'\n+smtp_pass = os.environ['SMTP_PASS']" % m(old),
    ])
    return "password", "diff", t


def s_struct_chat():
    a, b = pick([("Sam (buyer)", "Nova (seller agent)"), ("Ines", "Bot"), ("li.wei", "ops-bot"), ("Rafael", "Jonas")])
    k = pick(TOKEN_KINDS)
    t = pick([
        "%s: I need the integration tested against my %s account\n%s: sure, I need an API token\n%s: here: %s",
        "%s: send creds pls\n%s: ok\n%s: %s token %s",
    ])
    if t.count("%s") == 5 and t.startswith("%s: I need"):
        t = t % (a, TOKEN_NAMES[k], b, a, m(tok(k)))
    else:
        t = t % (a, b, b, TOKEN_NAMES[k], m(tok(k)))
    return TOKEN_NAMES[k] + " token", "chat log", t


SECRET_GENS = {
    "a": [s_msg_lang, s_msg_lang, s_msg_voice, s_msg_typo, s_msg_mixed, s_msg_chatlog, s_msg_email, s_msg_delivery, s_msg_wifi],
    "b": [s_code_positional, s_code_positional, s_code_builder, s_code_struct, s_code_annotation, s_code_test, s_code_script, s_code_env],
    "c": [s_infra_k8s, s_infra_tf, s_infra_ci, s_infra_db, s_infra_broker, s_infra_vpn, s_infra_services, s_infra_services, s_infra_cloud, s_infra_ssh],
    "d": [s_tok_places, s_tok_places, s_tok_ai, s_tok_web3, s_tok_jwt, s_tok_webhook, s_tok_mobile],
    "e": [s_key_pem, s_key_pem_oneline, s_key_eth, s_key_eth, s_key_mnemonic, s_key_mnemonic, s_key_btc, s_key_sol, s_key_other],
    "f": [s_struct_csv, s_struct_sheet, s_struct_html, s_struct_json, s_struct_json, s_struct_diff, s_struct_chat],
}


# =====================================================================
# look-alikes
# =====================================================================
def sha256hex():
    return hx(64)


def bcrypt_hash():
    return "$2b$12$" + rs(53, AN + "./")


def argon_hash():
    return "$argon2id$v=19$m=65536,t=3,p=4$" + b64(16).rstrip("=") + "$" + b64(32).rstrip("=")


def l_prose():
    t = pick([
        "Please choose a password of at least %d characters with one digit; the old one expires in %d days." % (R.randrange(10, 17), R.randrange(3, 30)),
        "Ihr Passwort wurde am %02d.%02d.2026 geändert. Wenn Sie das nicht waren, melden Sie sich beim Support." % (R.randrange(1, 29), R.randrange(1, 13)),
        "Le mot de passe doit contenir au moins %d caractères, dont une majuscule." % R.randrange(8, 16),
        "La contraseña se envía por un canal aparte, no por este chat (ticket %d)." % R.randrange(1000, 99999),
        "Пароль я передам голосом по телефону, в чат не пишу. Заявка №%d." % R.randrange(1000, 9999),
        "the password is in 1Password under \"%s admin\", ask Mira for access" % pick(["ERP", "Zendesk", "router", "NAS"]),
        "I reset your password; you'll get a link by email that expires in %d minutes." % R.randrange(10, 60),
        "Forgot password? Enter your email and we'll send a reset link. Ref %s" % rs(8, UP + DIG),
        "pw is the same as the wifi one from the onboarding sheet, not writing it here",
        "A senha é a mesma do ano passado, só troque o ano no final. Chamado %d." % R.randrange(100, 9999),
        "パスワードは別途メールでお送りします。件名: 案件%d" % R.randrange(100, 999),
        "密码已通过短信发送，请查收。订单号 %d" % R.randrange(10**6, 10**7),
        "Password strength: %s. Tip: use a passphrase of four or more random words." % pick(["weak", "fair", "strong"]),
        "Your API token was revoked on 2026-%02d-%02d because it had not been used for 90 days." % (R.randrange(1, 13), R.randrange(1, 29)),
        "voice note: hey I'll text you the password separately, don't want it in the transcript, thanks",
        "sory i cant send the pasword here, company policy, ask IT for a temp one",
        "We never ask for your password or seed phrase. Report suspicious messages to abuse@shop.example.",
        "Rotated all %s tokens this morning; the new ones are in the secret store, nothing to do on your side." % pick(["GitHub", "Slack", "Stripe", "npm"]),
        "Hasło zostało zresetowane. Nowe ustawisz sam po kliknięciu w link (ważny %d h)." % R.randrange(1, 48),
        "[09:14] Priya: can you send me the db login again?\n[09:15] Tom: check the vault, path kv/reporting/%s\n[09:15] Priya: thx" % pick(["ro", "rw", "etl"]),
        "The seller agent asked for my password, I refused and opened dispute #%d." % R.randrange(1000, 99999),
        "Passwort vergessen? Kein Problem, klick auf 'Zurücksetzen'. Vorgang %s" % rs(6, UP + DIG),
    ])
    return "prose", "message", t


def l_masked():
    t = pick([
        "password: ********",
        "Password: •••••••••• (hidden)",
        "token: %s" % ("ghp_" + "*" * 32 + rs(4)),
        "API key ending in ...%s was used from a new IP." % rs(4, UP + DIG),
        "sk_live_%s (masked in logs)" % ("*" * 20),
        "DB_PASSWORD=[REDACTED]",
        "Authorization: Bearer ***",
        "2026-11-02T10:14:03Z + docker login -u deploy -p *** registry.example.io",
        "api_secret: <hidden, %d chars>" % R.randrange(20, 64),
        "pass=XXXXXXXX user=%s" % user(),
        "token=%s...%s (truncated for display)" % (rs(4, LOW), rs(3, LOW)),
    ])
    return "masked", "masked value", t


def l_placeholder():
    t = pick([
        "export OPENAI_API_KEY=<your-key-here>",
        "password: \"CHANGE_ME\"",
        "DATABASE_URL=postgres://USER:PASSWORD@HOST:5432/DB",
        "curl -H \"Authorization: Bearer $API_TOKEN\" https://api.vendor.example/v1/me",
        "api_key = \"YOUR_API_KEY\"",
        "token: ${{ secrets.DEPLOY_TOKEN }}",
        "password = {{ vault_db_password }}",
        "client = OpenAI(api_key=os.environ[\"OPENAI_API_KEY\"])",
        "spring.datasource.password=${DB_PASSWORD}",
        "STRIPE_SECRET_KEY=sk_test_...",
        "Example (from the vendor docs, not a real key): AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "ssh user@host -i ~/.ssh/id_ed25519",
        "mysql -u %s -p shop   (you will be prompted for the password)" % user(),
        "PGPASSWORD=$(cat /run/secrets/pg_pass) psql -h %s -U %s app" % (host(), user()),
        "wg genkey | tee privatekey | wg pubkey > publickey",
        "helm upgrade shop ./chart --set postgresql.auth.existingSecret=pg-creds",
        "<password>%s</password>" % pick(["${env.NEXUS_PASS}", "{{PASSWORD}}", "@@DB_PASS@@"]),
        "redis-cli -h %s -a \"$REDIS_PASSWORD\" PING" % host(),
    ])
    return "placeholder", "placeholder", t


def l_refs():
    t = pick([
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: pg-creds\n        key: password",
        "password = var.db_password",
        "arn:aws:secretsmanager:eu-central-1:%d:secret:prod/shop/db-%s" % (R.randrange(10**11, 10**12), rs(6)),
        "op://Engineering/%s/credential" % pick(["Stripe", "Postgres prod", "Grafana"]),
        "vault kv get -field=password secret/apps/%s" % pick(["shop", "crm", "etl"]),
        "LoadCredential=dbpass:/etc/credstore/%s.pass" % pick(["shop", "crm"]),
        "password_file = /run/secrets/%s" % pick(["smtp", "ldap", "db"]),
        "aws ssm get-parameter --name /prod/%s/api_key --with-decryption" % pick(["shop", "billing"]),
        "gcloud secrets versions access latest --secret=%s-token" % pick(["slack", "github", "sentry"]),
        "keyring.get_password(\"shop-sync\", \"%s\")" % user(),
        "api_token: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  %s\n  %s" % (hx(64), hx(64)),
        "db_password: ENC[AES256_GCM,data:%s,iv:%s,tag:%s,type:str]" % (b64(18), b64(24), b64(16)),
        "spec:\n  encryptedData:\n    password: AgB%s" % b64(150),
        "{\"password\": {\"ciphertext\": \"%s\", \"kms_key\": \"projects/shop/locations/eu/keyRings/app/cryptoKeys/db\"}}" % b64(48),
        "vault:v1:%s" % b64(40),
        "bind_password_file = /etc/sssd/bind.pw",
    ])
    return "reference", "secret store reference", t


def l_code_reads():
    t = pick([
        "pw = getpass.getpass(\"Password for %s: \")" % user(),
        "if not bcrypt.checkpw(form.password.encode(), row.password_hash):\n    raise AuthError()",
        "password := os.Getenv(\"DB_PASSWORD\")\nif password == \"\" {\n\tlog.Fatal(\"DB_PASSWORD not set\")\n}",
        "const ok = await argon2.verify(user.passwordHash, req.body.password);",
        "String pass = System.getenv(\"SMTP_PASS\");",
        "type Login struct {\n\tUser     string `json:\"user\"`\n\tPassword string `json:\"password\"`\n}",
        "password: z.string().min(%d).regex(/[0-9]/)" % R.randrange(8, 16),
        "def set_password(self, raw):\n    self.password_hash = hasher.hash(raw)",
        "let token = std::env::var(\"API_TOKEN\").expect(\"API_TOKEN\");",
        "$password = $_POST['password'] ?? '';",
        "token = request.headers.get(\"Authorization\", \"\").removeprefix(\"Bearer \")",
        "cfg.Password = viper.GetString(\"db.password\")",
        "assert len(generate_password(%d)) == %d" % ((lambda n: (n, n))(R.randrange(12, 40))),
        "password = secrets.token_urlsafe(%d)" % R.randrange(16, 48),
        "<input type=\"password\" name=\"password\" autocomplete=\"current-password\" minlength=\"%d\">" % R.randrange(8, 16),
        "if (password.length < %d) errors.push('Password too short');" % R.randrange(8, 14),
        "@Column(name = \"password_hash\", length = %d) private String passwordHash;" % pick([60, 97, 128]),
    ])
    return "code", "code reads password", t


def l_hashes():
    t = pick([
        "sha256: %s  release-1.%d.tar.gz" % (sha256hex(), R.randrange(30)),
        "commit %s\nAuthor: ops-bot <ops@shop.example>\n\n    bump chart" % hx(40),
        "image: registry.example.io/shop/api@sha256:%s" % sha256hex(),
        "\"integrity\": \"sha512-%s\"" % b64(64),
        "tx hash: 0x%s (confirmed in block %d)" % (hx(64), R.randrange(19000000, 22000000)),
        "ETag: \"%s\"" % hx(32),
        "admin,%s,2026-03-01" % bcrypt_hash(),
        "password_hash = '%s'" % argon_hash(),
        "md5(readme.txt) = %s" % hx(32),
        "Request-Id: %s" % uuid4(),
        "Fingerprint: SHA256:%s" % b64(32).rstrip("="),
        "git rev-parse HEAD -> %s" % hx(40),
        "blockhash %s" % sol_pub(),
        "user_id=%s&session_started=%d" % (uuid4(), 1780000000 + R.randrange(10**7)),
        "Idempotency-Key: %s" % uuid4(),
        "checksum (crc32): %s" % hx(8),
    ])
    return "hash or id", "hashes and ids", t


def l_public():
    t = pick([
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI%s deploy@ci" % rs(43, AN + "+/"),
        "-----BEGIN PUBLIC KEY-----\n%s\n-----END PUBLIC KEY-----" % "\n".join(pem_body(4)),
        "-----BEGIN CERTIFICATE-----\n%s\n-----END CERTIFICATE-----" % "\n".join(pem_body(6)),
        "[Peer]\nPublicKey = %s\nAllowedIPs = 10.8.0.0/24\nEndpoint = vpn.shop.example:51820" % wg_key(),
        "xpub for the watch-only wallet: %s" % xpub(),
        "Send USDC to %s (my public address)" % eth_addr(),
        "const stripe = Stripe(\"pk_live_%s\");" % rs(99),
        "const firebaseConfig = { apiKey: \"AIza%s\", authDomain: \"shop-demo.firebaseapp.com\", projectId: \"shop-demo\", messagingSenderId: \"%d\" };" % (rs(35, URLSAFE), R.randrange(10**11, 10**12)),
        "mapboxgl.accessToken = 'pk.%s.%s';" % (b64url(40), rs(22, URLSAFE)),
        "posthog.init('phc_%s', { api_host: 'https://eu.posthog.example' })" % rs(43),
        "aws_access_key_id = AKIA%s" % rs(16, UP + DIG),
        "client_id: %d-%s.apps.googleusercontent.com" % (R.randrange(10**11, 10**12), rs(32, LOW + DIG)),
        "Solana wallet (public): %s" % sol_pub(),
        "age recipient: age1%s" % rs(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l"),
        "GitHub App ID: %d, installation %d" % (R.randrange(10**5, 10**7), R.randrange(10**7, 10**8)),
        "private_key_id: %s" % hx(40),
        "npub1%s" % rs(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l"),
        "gpg --recv-keys %s" % hx(40).upper(),
        "Twilio Account SID: AC%s" % hx(32),
    ])
    return "public value", "public keys and ids", t


def l_words():
    n = pick([12, 12, 24, 15])
    t = pick([
        "Spelling list week %d: %s" % (R.randrange(1, 40), ", ".join(bad_mnemonic(n).split())),
        "Word game round %d — make a story with: %s" % (R.randrange(1, 20), bad_mnemonic(n)),
        "checksum test case (must be rejected as invalid): \"%s\"" % bad_mnemonic(n),
        "Tags: %s" % ", ".join(pick(WORDS) for _ in range(R.randrange(4, 9))),
        "Vocabulary: %s" % " / ".join(pick(WORDS) for _ in range(R.randrange(5, 11))),
    ])
    return "word list", "words", t


def l_infra():
    t = pick([
        "$ aws sts get-caller-identity\n{\"UserId\": \"AIDA%s\", \"Account\": \"%d\", \"Arn\": \"arn:aws:iam::%d:user/ci\"}" % (rs(17, UP + DIG), R.randrange(10**11, 10**12), R.randrange(10**11, 10**12)),
        "kubectl get secret pg-creds -o yaml | grep -c password\n1",
        "Run ./deploy.sh\n+ curl -sf -H 'Authorization: Bearer ***' https://deploy.example/api/release\n{\"status\":\"queued\"}",
        "snmpwalk -v3 -l authPriv -u monitor -a SHA -A \"$SNMP_AUTH\" -x AES -X \"$SNMP_PRIV\" 10.0.0.1",
        "ldapsearch -x -H ldap://ldap.acme.test -D \"cn=admin,dc=acme,dc=test\" -W -b dc=acme,dc=test",
        "ftp> user backup\n331 Password required for backup\n530 Login incorrect.",
        "sshd[%d]: Failed password for invalid user %s from 203.0.113.%d port %d ssh2" % (R.randrange(1000, 99999), user(), R.randrange(1, 254), R.randrange(30000, 65000)),
        "postgres: FATAL:  password authentication failed for user \"%s\"" % user(),
        "restic -r s3:s3.example.com/backups backup /srv --password-file /etc/restic/pass",
        "Host legacy\n  HostName 198.51.100.23\n  User %s\n  IdentityFile ~/.ssh/legacy_ed25519" % user(),
        "[Interface]\nAddress = 10.8.0.2/24\nPostUp = wg set %%i private-key /etc/wireguard/%s.key" % pick(["office", "home", "lab"]),
        "resource \"random_password\" \"db\" {\n  length  = %d\n  special = true\n}" % R.randrange(16, 40),
        "ansible-playbook site.yml --ask-become-pass --vault-password-file ~/.vault_pass",
        "mosquitto_passwd -c /etc/mosquitto/passwd sensor",
        "smtpd_sasl_auth_enable = yes\nsmtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd",
        "Datadog agent: api_key set via DD_API_KEY env, site datadoghq.eu, hostname web-%02d" % R.randrange(1, 40),
        "rabbitmqctl change_password %s (prompted)" % user(),
        "docker login registry.example.io -u ci --password-stdin < /run/secrets/registry",
        "Vault: sealed=false, version=1.17.%d, cluster_id=%s" % (R.randrange(9), uuid4()),
    ])
    return "infra", "infra look-alike", t


def l_struct():
    rows = [(user(), host(), pick(["(in vault)", "see 1Password", "••••••", "rotated", "n/a - key auth"])) for _ in range(R.randrange(2, 4))]
    t = pick([
        "user,host,password\n" + "\n".join(",".join(r) for r in rows),
        "| user | host | password |\n|---|---|---|\n" + "\n".join("| %s | %s | %s |" % r for r in rows),
        "<table><tr><th>System</th><th>Owner</th><th>Password</th></tr><tr><td>ERP</td><td>%s</td><td>stored in vault</td></tr></table>" % user(),
        "{\"integrations\": [{\"name\": \"crm\", \"username\": \"%s\", \"password\": null, \"password_ref\": \"vault:kv/crm\"}]}" % user(),
        "id\temail\tpassword_hash\n%d\t%s@shop.example\t%s" % (R.randrange(1, 9999), user().replace("_", "."), bcrypt_hash()),
        "--- a/config/prod.yml\n+++ b/config/prod.yml\n@@ -4,3 +4,3 @@\n   host: %s\n-  pool: 10\n+  pool: %d\n   password: ${DB_PASSWORD}" % (host(), R.randrange(11, 50)),
        "- name: smtp\n  user: noreply@shop.example\n  pass_env: SMTP_PASS\n- name: sftp\n  user: partner\n  key_file: /etc/keys/partner_ed25519",
        "Service\tLogin\tPassword\tNotes\n%s\tmarketing@shop.example\t(SSO)\tuse Google login" % pick(["Mailchimp", "Zendesk", "Xero", "Canva"]),
        "Sam (buyer): can you send the token?\nNova (seller agent): I can't take credentials in chat, please add me as a collaborator instead.\nSam (buyer): ok done",
        "<connection name=\"erp\"><user>%s</user><passwordRef>erp-db</passwordRef></connection>" % user(),
        "Order,Item,Qty,Total\n%d,USB hub,%d,%d.%02d" % (R.randrange(10**4, 10**5), R.randrange(1, 9), R.randrange(10, 500), R.randrange(100)),
        "key,value\nretries,%d\ntimeout_ms,%d\npassword_min_length,%d" % (R.randrange(1, 9), R.randrange(100, 9000), R.randrange(8, 16)),
    ])
    return "structured", "structured look-alike", t


def l_tokens_near():
    t = pick([
        "curl https://api.vendor.example/v1/orders/%s -H 'Accept: application/json'" % uuid4(),
        "https://shop.example/checkout?session=%s&utm_source=newsletter" % ("cs_" + pick(["live", "test"]) + "_" + "session_id_placeholder"),
        "Stripe charge ch_%s for cus_%s succeeded" % (rs(24), rs(14)),
        "Your verification link: https://shop.example/verify?email=%s%%40mail.example&step=2" % user().replace("_", "."),
        "Slack channel C%s, user U%s, team T%s" % (rs(10, UP + DIG), rs(10, UP + DIG), rs(8, UP + DIG)),
        "GitHub run https://github.example/acme/shop/actions/runs/%d" % R.randrange(10**9, 10**10),
        "Discord user id %d, guild %d" % (R.randrange(10**17, 10**18), R.randrange(10**17, 10**18)),
        "Telegram chat_id -100%d, message_id %d" % (R.randrange(10**9, 10**10), R.randrange(1, 99999)),
        "Key ID: %s (public half published at /.well-known/jwks.json)" % rs(16, LOW + DIG),
        "Tracking number 1Z%s" % rs(16, UP + DIG),
        "Notion page https://notion.example/Shop-Runbook-%s" % hx(32),
        "IBAN DE00 0000 0000 0000 0000 00 (example format)",
        "kid: %s, alg: RS256, use: sig" % b64url(12),
        "header.payload.signature is the shape of a JWT; ours expire after %d minutes" % R.randrange(5, 60),
        "Model %s-%d-instruct latency p95 %dms" % (pick(["fast", "large", "mini"]), R.randrange(1, 9), R.randrange(100, 2000)),
    ])
    return "id or url", "token look-alike", t


def l_msg_mirror():
    u = user()
    t = pick([
        "Hi team, the shared inbox password for support@helpdesk.example was rotated on %02d.%02d; get the new one from the vault entry \"helpdesk\"." % (R.randrange(1, 29), R.randrange(1, 13)),
        "Kurz zur Info: das WLAN im Büro heißt Gast-%dOG, das Passwort hängt am Empfang aus." % R.randrange(1, 6),
        "Bonjour, le mot de passe provisoire vous sera communiqué par SMS au %d-XX-XX (masqué)." % R.randrange(600, 699),
        "Hola! la contraseña del router la tiene Marta, pregúntale a ella (yo no me la sé)",
        "Привет, пароль от стенда %s в менеджере паролей, папка QA." % pick(["stage-1", "stage-2", "demo"]),
        "[voice note transcript] okay so the password for the warehouse tablet is... hold on, I'll text it to you, not saying it here",
        "Transcribed: hi it's Dana from accounts, I've reset your login for the %s portal, check your email for the link" % pick(["supplier", "payroll", "expenses"]),
        "Subject: Access to the reporting server\n\nHello,\n\nYour login is %s. The password will follow in a separate message.\n\nBest regards,\nIT Service Desk" % u,
        "Delivered: WordPress site set up at https://bakery.example/wp-admin — admin user %s, the password is in the platform's secure note." % u,
        "Guest network: SSID Cafe%s, open network, no password, portal asks for room number" % pick(["Luna", "Sol", "Mar", "Nord"]),
        "ok so uh the password is the one on the sticker under the router, capital first letter, don't type the dashes",
        "Betreff: Zugangsdaten\n\nSehr geehrte Damen und Herren,\nIhr Benutzername lautet %s. Das Kennwort erhalten Sie per Post.\n\nMit freundlichen Grüßen" % u,
        "Ciao, utente %s; la password la imposti tu al primo accesso (almeno %d caratteri)." % (u, R.randrange(8, 16)),
        "hey the pw for staging changed again lol, ping %s on slack for it" % pick(["Mira", "Jonas", "Ines", "Kenji"]),
        "[%02d:%02d] %s: what's the grafana admin password?\n[%02d:%02d] %s: we use SSO now, no local admin" % (R.randrange(24), R.randrange(60), pick(["Oskar", "Fatou"]), R.randrange(24), R.randrange(60), pick(["Mei", "Lars"])),
        "Estimado cliente, nunca le pediremos su contraseña por teléfono. Referencia %s." % rs(8, UP + DIG),
        "Task done ✅ — Airflow at http://10.0.3.%d:8080, login with your company SSO account." % R.randrange(2, 250),
        "Mình đã đặt lại mật khẩu, bạn kiểm tra email nhé (mã yêu cầu %d)." % R.randrange(1000, 9999),
        "Cześć, hasło do panelu wyślę Ci Signalem, tu nie wklejam. Zgłoszenie %d." % R.randrange(100, 9999),
        "Sir, Jira admin ka password vault mein hai, entry number %d" % R.randrange(10, 999),
    ])
    return "prose", "message without secret", t


def l_code_mirror():
    h = host()
    u = user()
    t = pick([
        'conn = psycopg2.connect("%s", "orders", "%s", os.environ["PGPASS"])' % (h, u),
        'db, err := sql.Open("mysql", fmt.Sprintf("%s:%%s@tcp(%s:3306)/shop", os.Getenv("MYSQL_PWD")))' % (u, h),
        'Connection c = DriverManager.getConnection("jdbc:postgresql://%s/app", "%s", System.getenv("DB_PASS"));' % (h, u),
        'ftp.login("%s", getpass.getpass())' % u,
        'OkHttpClient client = new OkHttpClient.Builder().addInterceptor(new TokenInterceptor(tokenProvider)).build();',
        'const octo = new Octokit({ auth: process.env.GITHUB_TOKEN });',
        'cfg := Config{Host: "%s", User: "%s", Password: os.Getenv("PGPASSWORD"), Port: 5432}' % (h, u),
        '@Value("${db.password}")\nprivate String dbPassword;',
        'cy.get("input[name=pass]").type(Cypress.env("ADMIN_PASSWORD"), { log: false })',
        'sshpass -f ~/.ssh/%s.pass scp backup.tar.gz %s@%s:/srv/' % (pick(["legacy", "nas", "backup"]), u, h),
        'mysqldump --login-path=%s shop > shop.sql' % pick(["backup", "ro", "local"]),
        'client = ApiClient(endpoint="https://api.vendor.example/v2", key=settings.VENDOR_KEY, timeout=%d)' % R.randrange(5, 120),
        'redis.Redis(host="%s", port=6379, password=cfg["redis"]["password"])' % h,
        'let creds = Credentials { user: "%s".into(), pass: read_secret("/run/secrets/db")? };' % u,
        'driver.find_element(By.ID, "pwd").send_keys(os.environ["E2E_PASSWORD"])',
        'smtp.login(cfg.SMTP_USER, cfg.SMTP_PASS)',
        'auth = HTTPBasicAuth("%s", keyring.get_password("vendor", "%s"))' % (u, u),
        'services.AddHttpClient("api", c => c.DefaultRequestHeaders.Authorization = new("Bearer", config["Api:Token"]));',
        'Faraday.new(url: base) { |f| f.request :authorization, "Bearer", -> { TokenStore.fetch } }',
        'curl_easy_setopt(curl, CURLOPT_USERPWD, userpwd); /* built from getenv("FTP_USER"), getenv("FTP_PASS") */',
        'val ds = HikariDataSource().apply { jdbcUrl = "jdbc:mysql://%s/app"; username = "%s"; password = env("DB_PASS") }' % (h, u),
        'func TestExport(t *testing.T) {\n\tc := NewClient(os.Getenv("VENDOR_TOKEN"))\n\tif c == nil { t.Skip("no token") }\n}',
    ])
    return "code", "code without secret", t


def l_infra_mirror():
    h = host()
    u = user()
    t = pick([
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: pg-creds\ntype: Opaque\nstringData:\n  POSTGRES_PASSWORD: {{ .Values.pgPassword | quote }}",
        'resource "aws_db_instance" "main" {\n  engine   = "postgres"\n  username = "%s"\n  password = random_password.db.result\n}' % u,
        "DATABASE_URL=postgres://%s@%s:5432/shop?sslmode=verify-full&sslrootcert=/etc/ssl/rds.pem" % (u, h),
        "[client]\nuser=%s\nhost=%s\n(password read from ~/.mylogin.cnf)" % (u, h),
        "Server=%s;Database=Sales;Integrated Security=SSPI;TrustServerCertificate=True" % h,
        "amqp://%s@%s:5672/orders (password from RABBITMQ_PASS)" % (u, h),
        "spring.datasource.url=jdbc:mysql://%s:3306/crm\nspring.datasource.username=%s\nspring.datasource.password=${CRM_DB_PASS}" % (h, u),
        "%s's password: \nPermission denied, please try again." % u,
        "[build %d] Step 6/12 : RUN --mount=type=secret,id=pip pip install -r requirements.txt" % R.randrange(1000, 9999),
        "auth-user-pass /etc/openvpn/%s.auth" % pick(["office", "client", "lab"]),
        "snmpget -v2c -c $SNMP_COMMUNITY 192.0.2.%d sysUpTime.0" % R.randrange(1, 254),
        "bind_dn = cn=readonly,dc=corp,dc=example\nbind_password_file = /etc/ldap/readonly.pw",
        "export BORG_PASSCOMMAND='pass show backup/borg'\nborg create ::nightly-%d /srv" % R.randrange(1, 999),
        "kubectl create secret generic api-token --from-file=token=./token.txt -n %s" % pick(["payments", "shop", "etl"]),
        "containers:\n- name: worker\n  args: [\"--api-token-file\", \"/var/run/secrets/api/token\", \"--queue\", \"%s\"]" % pick(["orders", "mail", "sync"]),
        "hcloud context create %s\nToken: (entered interactively, not echoed)" % pick(["prod", "stage"]),
        "[default]\naws_access_key_id = AKIA%s\naws_secret_access_key = ****************" % rs(16, UP + DIG),
    ])
    return "infra", "config without secret", t


LOOK_GENS = {
    "a": [l_prose, l_prose, l_msg_mirror, l_msg_mirror, l_masked],
    "b": [l_code_reads, l_code_mirror, l_code_mirror, l_placeholder],
    "c": [l_infra, l_infra_mirror, l_infra_mirror, l_refs],
    "d": [l_tokens_near, l_public, l_masked, l_placeholder],
    "e": [l_public, l_hashes, l_words],
    "f": [l_struct, l_struct, l_hashes, l_refs],
}


# =====================================================================
# output
# =====================================================================
def escape(text):
    if "\\" in text:
        raise ValueError("literal backslash in sample: %r" % text)
    return text.replace("\n", "\\n").replace("\t", "\\t")


def balanced(text):
    depth = 0
    marks = 0
    for ch in text:
        if ch == "«":
            if depth:
                return False
            depth = 1
        elif ch == "»":
            if not depth:
                return False
            depth = 0
            marks += 1
    return depth == 0 and marks > 0


def build(gens, secret):
    cats = sorted(gens)
    seen = set()
    out = []
    i = 0
    tries = 0
    while len(out) < TARGET:
        tries += 1
        if tries > TARGET * 200:
            raise SystemExit("too few distinct samples")
        cat = cats[i % len(cats)]
        fn = R.choice(gens[cat])
        kind, ctx, text = fn()
        i += 1
        line = escape(text)
        if line in seen:
            continue
        if line.startswith("#"):
            raise ValueError("sample starts with '#': %r" % line)
        if secret:
            if not balanced(text):
                raise ValueError("secret sample without balanced mark: %r" % text)
            if "««" in text or "«»" in text:
                raise ValueError("empty or nested mark: %r" % text)
        else:
            if "«" in text or "»" in text:
                raise ValueError("look-alike holds a mark: %r" % text)
        seen.add(line)
        out.append("# %s | %s (%s)\n%s\n" % (kind, ctx, cat, line))
    return out


def main():
    sec = build(SECRET_GENS, True)
    look = build(LOOK_GENS, False)
    head = "# Thirteenth held-out credential corpus, written by heldout13_gen.py (seed 2026112913). %s\n"
    with open(os.path.join(HERE, "heldout13_secret.txt"), "w", encoding="utf-8") as fh:
        fh.write(head % "Each credential value is marked.")
        fh.writelines(sec)
    with open(os.path.join(HERE, "heldout13_lookalike.txt"), "w", encoding="utf-8") as fh:
        fh.write(head % "No text holds a credential.")
        fh.writelines(look)
    print("secret", len(sec), "lookalike", len(look))


if __name__ == "__main__":
    main()
