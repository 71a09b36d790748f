#!/usr/bin/env python3
"""Fourteenth held-out credential corpus for the screen package.

Writes heldout14_secret.txt (texts holding at least one credential, every value
that must be removed wrapped in «...») and heldout14_lookalike.txt (texts in
which nothing may be found). Written blind: without reading the detector, its
tests, or the other corpora. Every value is random in the shape of its kind and
none is or was a working credential; domains are reserved or made up.

Stdlib only; seeded, so running it again writes the same files.
"""

import base64
import binascii
import hashlib
import json
import os
import random
import string
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BIP39_PATH = os.path.join(HERE, "..", "..", "bip39_english.txt")
BIP39_SHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"

R = random.Random(2026112914)

N_SECRET = 550
N_LOOK = 550

# ---------------------------------------------------------------- helpers

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
B64 = string.ascii_letters + string.digits + "+/"
B64URL = string.ascii_letters + string.digits + "-_"


def M(v):
    return "«" + v + "»"


def rs(n, alphabet=ALNUM):
    return "".join(R.choice(alphabet) for _ in range(n))


def rhex(n):
    return rs(n, HEX)


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def b64(b):
    return base64.b64encode(b).decode()


def b64u(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def pick(xs):
    return R.choice(xs)


def uuid4():
    h = rhex(32)
    h = h[:12] + "4" + h[13:16] + pick("89ab") + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def b58encode(b):
    n = int.from_bytes(b, "big")
    out = ""
    while n > 0:
        n, r = divmod(n, 58)
        out = B58[r] + out
    pad = len(b) - len(b.lstrip(b"\0"))
    return "1" * pad + out


def b58check(payload):
    chk = hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    return b58encode(payload + chk)


def b58check_ok(s):
    n = 0
    for c in s:
        n = n * 58 + B58.index(c)
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    raw = b"\0" * (len(s) - len(s.lstrip("1"))) + raw
    p, c = raw[:-4], raw[-4:]
    return hashlib.sha256(hashlib.sha256(p).digest()).digest()[:4] == c


# bech32 (BIP-173)
BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _polymod(values):
    gen = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    chk = 1
    for v in values:
        b = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if ((b >> i) & 1) else 0
    return chk


def _hrp_expand(hrp):
    return [ord(x) >> 5 for x in hrp] + [0] + [ord(x) & 31 for x in hrp]


def _convertbits(data, frm, to):
    acc = bits = 0
    ret = []
    maxv = (1 << to) - 1
    for v in data:
        acc = (acc << frm) | v
        bits += frm
        while bits >= to:
            bits -= to
            ret.append((acc >> bits) & maxv)
    if bits:
        ret.append((acc << (to - bits)) & maxv)
    return ret


def bech32(hrp, data_bytes):
    data = _convertbits(data_bytes, 8, 5)
    values = _hrp_expand(hrp) + data
    pm = _polymod(values + [0] * 6) ^ 1
    chk = [(pm >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(BECH[d] for d in data + chk)


def base62(n, width):
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = (string.digits + string.ascii_letters)[r] + out
    return out.rjust(width, "0")


def gh_token(prefix="ghp_"):
    body = rs(30)
    return prefix + body + base62(binascii.crc32(body.encode()), 6)


# ---------------------------------------------------------------- BIP-39

with open(BIP39_PATH, encoding="utf-8") as f:
    _raw = f.read()
if hashlib.sha256(_raw.encode()).hexdigest() != BIP39_SHA256:
    sys.exit("bip39_english.txt is not the published English list; refusing")
WORDS = _raw.split()
assert len(WORDS) == 2048


def bip39_ok(words):
    n = len(words)
    if n not in (12, 15, 18, 21, 24):
        return False
    try:
        idx = [WORDS.index(w) for w in words]
    except ValueError:
        return False
    bits = "".join(format(i, "011b") for i in idx)
    cs = n // 3
    ent = int(bits[:-cs], 2).to_bytes((len(bits) - cs) // 8, "big")
    want = format(hashlib.sha256(ent).digest()[0], "08b")[:cs]
    return bits[-cs:] == want


def mnemonic(n=12):
    ent = rbytes(n * 4 // 3)
    cs = n // 3
    bits = "".join(format(b, "08b") for b in ent)
    bits += format(hashlib.sha256(ent).digest()[0], "08b")[:cs]
    words = [WORDS[int(bits[i:i + 11], 2)] for i in range(0, len(bits), 11)]
    assert bip39_ok(words)
    return words


def bad_mnemonic(n=12):
    while True:
        words = [pick(WORDS) for _ in range(n)]
        # no window of 12..24 words may carry a valid checksum either
        if not any(bip39_ok(words[i:i + k]) for k in (12, 15, 18, 21, 24)
                   for i in range(0, n - k + 1)):
            return words


# ---------------------------------------------------------------- value kinds

FIRST = ["anna", "marek", "lucia", "joao", "priya", "tomasz", "olga", "kenji", "amara", "diego",
         "fatima", "lars", "mei", "ivan", "chloe", "omar", "sven", "nadia", "raul", "yuki"]
PWWORDS = ["sunflower", "tulipan", "Bananas", "kotek", "Liverpool", "dragon", "Marzipan", "barcelona",
           "Zorro", "milano", "summer", "Winter", "gatito", "Pinguin", "oceano", "Sakura", "kasztan",
           "Chelsea", "limonada", "Rosalie", "tigre", "Falcon", "morango", "Hamster", "biscuit",
           "Kolobok", "azucar", "Eisbaer", "paprika", "Lavender", "maracuja", "Snoopy", "girassol",
           "Warszawa", "ciruela", "Moonlight", "fenix", "Tortuga", "koala", "Pomodoro"]
SYMS = "!@#$%&*?._-+="


ENVPFX = ["DB", "APP", "PROD", "SHOP", "SMTP", "REDIS", "PG", "MYSQL", "CRM", "API", "STRIPE", "OPENAI", "GH", "CI"]


def envn(suffix):
    return pick(ENVPFX) + "_" + suffix


def password():
    k = R.randrange(9)
    w = pick(PWWORDS)
    y = str(R.choice([R.randrange(1970, 2026), R.randrange(10, 99), R.randrange(100, 9999)]))
    if k == 0:
        return w + y
    if k == 1:
        return w.capitalize() + y + pick(SYMS)
    if k == 2:
        return pick(FIRST).capitalize() + pick(SYMS) + y
    if k == 3:
        return "-".join(pick(PWWORDS).lower() for _ in range(3)) + "-" + str(R.randrange(10))
    if k == 4:
        return rs(R.randrange(12, 20), ALNUM + "!#%*-_")
    if k == 5:
        return w.lower().replace("a", "@").replace("o", "0") + y
    if k == 6:
        return pick(FIRST) + y + pick(PWWORDS).lower()
    if k == 7:
        return w + pick(SYMS) + w[::-1].lower() + str(R.randrange(10))
    return rs(4, string.ascii_uppercase) + rs(4, string.digits) + rs(4, string.ascii_lowercase)


def strong():
    return rs(R.randrange(20, 33), ALNUM + "-_")


def user():
    return pick(FIRST) + pick(["", ".dev", "_admin", str(R.randrange(1, 99)), "-ops"])


def host():
    return pick(["db", "pg", "mysql", "cache", "api", "mq", "mongo", "sftp", "mail", "git"]) + "." + \
        pick(["internal.example", "prod.example.net", "shop-demo.test", "corp.example.org",
              "client-a.invalid", "staging.example.com"])


def ip():
    return pick(["192.0.2.", "198.51.100.", "203.0.113."]) + str(R.randrange(2, 250))


def aws_id():
    return pick(["AKIA", "ASIA"]) + rs(16, string.ascii_uppercase + "234567")


def aws_secret():
    return rs(40, ALNUM + "+/")


def jwt(payload, alg="HS256"):
    h = b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    p = b64u(json.dumps(payload, separators=(",", ":")).encode())
    return h + "." + p + "." + b64u(rbytes(32 if alg == "HS256" else 256))


def user_jwt():
    return jwt({"sub": str(R.randrange(10 ** 5, 10 ** 7)), "name": pick(FIRST).capitalize(),
                "iat": 1760000000 + R.randrange(10 ** 7), "exp": 1790000000 + R.randrange(10 ** 7)},
               pick(["HS256", "RS256"]))


def pem_body(kind):
    prefix = {"RSA": "MIIEowIBAAKCAQEA", "EC": "MHcCAQEEI", "OPENSSH": "b3BlbnNzaC1rZXktdjEAAAAA",
              "PKCS8": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"}[kind]
    n = {"RSA": 1580, "EC": 150, "OPENSSH": 380, "PKCS8": 1600}[kind]
    body = prefix + b64(rbytes(n))[len(prefix):]
    width = 70 if kind == "OPENSSH" else 64
    return "\n".join(body[i:i + width] for i in range(0, len(body), width))


def pem_private(kind=None):
    kind = kind or pick(["RSA", "EC", "OPENSSH", "PKCS8"])
    label = {"RSA": "RSA PRIVATE KEY", "EC": "EC PRIVATE KEY", "OPENSSH": "OPENSSH PRIVATE KEY",
             "PKCS8": "PRIVATE KEY"}[kind]
    return "-----BEGIN " + label + "-----\n" + M(pem_body(kind)) + "\n-----END " + label + "-----"


def pem_public():
    body = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + b64(rbytes(230))
    body = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
    return "-----BEGIN PUBLIC KEY-----\n" + body + "\n-----END PUBLIC KEY-----"


def ssh_pub():
    return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(rbytes(33))[1:44] + " " + user() + "@laptop"


def wif():
    return b58check(b"\x80" + rbytes(32) + b"\x01")


def xkey(priv=True):
    ver = bytes.fromhex("0488ade4" if priv else "0488b21e")
    key = b"\x00" + rbytes(32) if priv else pick([b"\x02", b"\x03"]) + rbytes(32)
    return b58check(ver + bytes([R.randrange(0, 4)]) + rbytes(4) + rbytes(4) + rbytes(32) + key)


def sol_secret():
    return b58encode(rbytes(64))


def sol_addr():
    return b58encode(rbytes(32))


def eth_priv():
    return "0x" + rhex(64)


def eth_addr():
    return "0x" + rhex(40)


def age_secret():
    return bech32("age-secret-key-", rbytes(32)).upper()


def age_public():
    return bech32("age", rbytes(32))


def wg_key():
    return b64(rbytes(32))


TOKENS = {
    # kind: (generator, display name)
    "github": (lambda: gh_token(pick(["ghp_", "gho_", "ghs_", "ghu_"])), "GitHub token"),
    "github_fine": (lambda: "github_pat_" + rs(22) + "_" + rs(59), "GitHub fine-grained PAT"),
    "gitlab": (lambda: "glpat-" + rs(20, ALNUM + "-_"), "GitLab PAT"),
    "slack_bot": (lambda: "xoxb-" + str(R.randrange(10 ** 10, 10 ** 12)) + "-" + str(R.randrange(10 ** 12, 10 ** 13)) + "-" + rs(24), "Slack bot token"),
    "slack_user": (lambda: "xoxp-" + str(R.randrange(10 ** 10, 10 ** 12)) + "-" + str(R.randrange(10 ** 10, 10 ** 12)) + "-" + str(R.randrange(10 ** 12, 10 ** 13)) + "-" + rhex(32), "Slack user token"),
    "stripe_secret": (lambda: pick(["sk_live_", "sk_test_", "rk_live_"]) + rs(pick([24, 99])), "Stripe secret key"),
    "stripe_webhook": (lambda: "whsec_" + rs(32), "Stripe webhook secret"),
    "openai": (lambda: "sk-proj-" + rs(74, ALNUM + "-_") + "T3BlbkFJ" + rs(74, ALNUM + "-_"), "OpenAI key"),
    "anthropic": (lambda: "sk-ant-api03-" + rs(93, ALNUM + "-_") + "AA", "Anthropic key"),
    "google": (lambda: "AIza" + rs(35, ALNUM + "-_"), "Google API key"),
    "hf": (lambda: "hf_" + rs(34), "Hugging Face token"),
    "groq": (lambda: "gsk_" + rs(52), "Groq key"),
    "replicate": (lambda: "r8_" + rs(37), "Replicate token"),
    "xai": (lambda: "xai-" + rs(80), "xAI key"),
    "pplx": (lambda: "pplx-" + rs(48), "Perplexity key"),
    "npm": (lambda: "npm_" + rs(36), "npm token"),
    "pypi": (lambda: "pypi-AgEIcHlwaS5vcmc" + rs(140, ALNUM + "-_"), "PyPI token"),
    "sendgrid": (lambda: "SG." + rs(22, ALNUM + "-_") + "." + rs(43, ALNUM + "-_"), "SendGrid key"),
    "mailgun": (lambda: "key-" + rhex(32), "Mailgun key"),
    "twilio_token": (lambda: rhex(32), "Twilio auth token"),
    "shopify": (lambda: pick(["shpat_", "shpss_", "shpca_"]) + rhex(32), "Shopify token"),
    "square": (lambda: "EAAA" + rs(60, ALNUM + "-_"), "Square access token"),
    "digitalocean": (lambda: "dop_v1_" + rhex(64), "DigitalOcean token"),
    "databricks": (lambda: "dapi" + rhex(32), "Databricks token"),
    "notion": (lambda: pick(["secret_", "ntn_"]) + rs(43), "Notion token"),
    "linear": (lambda: "lin_api_" + rs(40), "Linear key"),
    "figma": (lambda: "figd_" + rs(40, ALNUM + "-_"), "Figma token"),
    "postman": (lambda: "PMAK-" + rhex(24) + "-" + rhex(34), "Postman key"),
    "atlassian": (lambda: "ATATT3xFfGF0" + rs(170, ALNUM + "-_") + "=" + rhex(8).upper(), "Atlassian token"),
    "doppler": (lambda: "dp.st.prd." + rs(43), "Doppler token"),
    "vault": (lambda: "hvs." + rs(90, ALNUM + "_-"), "Vault token"),
    "telegram": (lambda: str(R.randrange(10 ** 9, 8 * 10 ** 9)) + ":AA" + rs(33, ALNUM + "-_"), "Telegram bot token"),
    "discord": (lambda: b64u(str(R.randrange(10 ** 17, 10 ** 18)).encode()) + "." + rs(6, ALNUM + "-_") + "." + rs(38, ALNUM + "-_"), "Discord bot token"),
    "datadog": (lambda: rhex(32), "Datadog API key"),
    "cloudflare": (lambda: rs(40, ALNUM + "-_"), "Cloudflare API token"),
    "mapbox_secret": (lambda: "sk.eyJ1Ijoi" + rs(60) + "." + rs(22, ALNUM + "-_"), "Mapbox secret token"),
    "alchemy": (lambda: rs(32, ALNUM + "-_"), "Alchemy key"),
    "heroku": (lambda: "HRKU-AA" + rs(58, ALNUM + "-_"), "Heroku key"),
    "okta": (lambda: "00" + rs(40, ALNUM + "-_"), "Okta API token"),
    "supabase_service": (lambda: jwt({"iss": "supabase", "ref": rs(20, string.ascii_lowercase), "role": "service_role", "iat": 1735000000 + R.randrange(10 ** 7), "exp": 2050000000 + R.randrange(10 ** 7)}), "Supabase service key"),
    "azure_storage": (lambda: b64(rbytes(64)), "Azure storage key"),
    "binance_secret": (lambda: rs(64), "Binance secret"),
}


def tok(kind):
    return TOKENS[kind][0]()


# ---------------------------------------------------------------- secret texts
# Each generator returns (kind, context, text).

SEC = {g: [] for g in "abcdef"}
LOOK = {g: [] for g in "abcdef"}


def sec(group):
    def deco(fn):
        SEC[group].append(fn)
        return fn
    return deco


def look(group):
    def deco(fn):
        LOOK[group].append(fn)
        return fn
    return deco


# ---- (a) passwords in human messages, many languages

HUMAN_PW = [
    ("en", "buyer message", "Hi! For the WordPress fix you'll need the admin login: user {u}, password {p}. Please change nothing in the theme settings."),
    ("en", "seller question answer", "Q: Can I get access to the staging panel?\nA: sure, {u} / {p} — it's only staging"),
    ("en", "chat", "ok the pass is {p} (capital letter at the start)"),
    ("en", "chat", "pw for the shared drive: {p}"),
    ("en", "offer note", "I will need SSH access to the VPS. If you prefer, create a user for me; otherwise root + {p} works too, I'll rotate it when done."),
    ("en", "dispute statement", "I gave the seller my cPanel login ({u}, password {p}) on day one and they never used it. I am asking for a full refund."),
    ("en", "review", "Fast and careful. I sent the FTP password ({p}) in chat and he reminded me to change it afterwards. 5 stars."),
    ("en", "chat", "use {p} to get in, the username is your email"),
    ("en", "buyer message", "Router admin page is 192.168.1.1, login admin and the password is {p}"),
    ("en", "chat reply", "> what's the password for the zip?\nit's {p}"),
    ("en", "deliverable note", "The archive is encrypted. Password to open it: {p}"),
    ("en", "chat", "new password after reset is {p} — let me know if it works"),
    ("en", "buyer message", "Shopify staff account: {u}@shop-demo.test, pass: {p}"),
    ("en", "chat", "try {p}\nthat's the wifi one, not the router one"),
    ("es", "mensaje del comprador", "Hola, te paso el acceso al panel: usuario {u} y contraseña {p}. Gracias!"),
    ("es", "chat", "la clave del wifi de la oficina es {p}"),
    ("es", "respuesta", "¿Cuál es la contraseña? -> {p}"),
    ("pt", "mensagem", "Oi! O login do painel é {u} e a senha é {p}"),
    ("pt", "chat", "senha do banco: {p} (não compartilha com ninguém por favor)"),
    ("pt", "disputa", "Eu passei a senha {p} para o vendedor e ele alterou o e-mail da conta sem permissão."),
    ("fr", "message", "Bonjour, voici les accès : identifiant {u}, mot de passe : {p}"),
    ("fr", "chat", "le mdp c'est {p}"),
    ("de", "Nachricht", "Hallo, das Passwort für den Admin-Bereich lautet {p}. Benutzer ist {u}."),
    ("de", "Chat", "Kennwort: {p}\nBitte nach dem Test ändern."),
    ("it", "messaggio", "Ciao, la password del gestionale è {p}, utente {u}"),
    ("nl", "bericht", "Hoi, het wachtwoord voor de FTP is {p}"),
    ("pl", "wiadomość", "Cześć, hasło do panelu: {p}, login {u}"),
    ("pl", "czat", "hasło to {p} — wielka litera na początku"),
    ("ru", "сообщение", "Привет! Логин {u}, пароль {p}. Доступ к админке сайта."),
    ("ru", "чат", "пароль от почты — {p}"),
    ("uk", "повідомлення", "Доступ до хостингу: логін {u}, пароль: {p}"),
    ("tr", "mesaj", "Merhaba, panel şifresi: {p} kullanıcı adı {u}"),
    ("zh", "消息", "你好，后台账号 {u}，密码是 {p}，用完请告诉我。"),
    ("zh", "聊天", "服务器密码：{p}"),
    ("ja", "メッセージ", "管理画面のパスワードは {p} です。ユーザー名は {u} です。"),
    ("ko", "메시지", "관리자 계정 {u}, 비밀번호는 {p} 입니다"),
    ("vi", "tin nhắn", "Chào bạn, mật khẩu quản trị là {p}"),
    ("id", "pesan", "Halo, kata sandi untuk dashboard: {p} (user: {u})"),
    ("sv", "meddelande", "Hej! Lösenordet till kontot är {p}"),
    ("ar", "رسالة", "مرحبا، اسم المستخدم {u} وكلمة المرور {p}"),
    ("hi", "chat (romanized)", "bhai admin ka password {p} hai, login {u}"),
    ("cs", "zpráva", "Ahoj, heslo k serveru je {p}"),
    ("ro", "mesaj", "Salut, parola pentru cont este {p}"),
    ("el", "μήνυμα", "Γεια, ο κωδικός πρόσβασης είναι {p}"),
    ("he", "הודעה", "היי, הסיסמה לממשק הניהול היא {p}"),
    ("fa", "پیام", "سلام، رمز عبور پنل {p} است"),
    ("es", "login line", "login: {u} contraseña {p}"),
    ("pt", "login line", "login: admin senha {p}"),
    ("en", "support ticket", "Tried logging in with {u} / {p} but it says account locked. Can you check?"),
    ("en", "voice transcript", "[00:04:12] Buyer: so the password, I'll just read it out, it's {p}, all one word."),
]


def _mk_human(lang, ctx, tpl):
    def fn():
        p = password()
        return ("password " + lang, ctx, tpl.format(u=user(), p=M(p)))
    return fn


for _l, _c, _t in HUMAN_PW:
    SEC["a"].append(_mk_human(_l, _c, _t))


@sec("a")
def _a_two_pw():
    return ("passwords en", "buyer message",
            f"Two accounts:\n- main site: {user()} / {M(password())}\n- staging: {user()} / {M(password())}")


@sec("a")
def _a_wifi():
    return ("wifi password", "offer note",
            f"On-site visit: network \"{pick(PWWORDS)}-5G\", WPA2 key {M(password())}")


@sec("a")
def _a_pin():
    return ("PIN + password en", "buyer message",
            f"Bank portal for the bookkeeping task: client number {R.randrange(10**7, 10**8)}, password {M(password())}. The SMS code I will send live.")


# ---- (b) code

@sec("b")
def _b_requests():
    return ("password python requests", "deliverable code",
            f"import requests\n\nresp = requests.get(\"https://{host()}/api/v1/orders\", auth=(\"{user()}\", \"{M(password())}\"), timeout=10)\nresp.raise_for_status()")


@sec("b")
def _b_psycopg():
    return ("password python psycopg2", "deliverable code",
            f"conn = psycopg2.connect(host=\"{host()}\", dbname=\"shop\", user=\"{user()}\", password=\"{M(password())}\")")


@sec("b")
def _b_boto():
    return ("aws secret boto3", "deliverable code",
            f"s3 = boto3.client(\n    \"s3\",\n    aws_access_key_id=\"{aws_id()}\",\n    aws_secret_access_key=\"{M(aws_secret())}\",\n    region_name=\"eu-west-1\",\n)")


@sec("b")
def _b_jdbc():
    return ("password java positional", "deliverable code",
            f"Connection c = DriverManager.getConnection(\"jdbc:mysql://{host()}:3306/crm\", \"{user()}\", \"{M(password())}\");")


@sec("b")
def _b_pdo():
    return ("password php PDO positional", "deliverable code",
            f"<?php\n$pdo = new PDO('mysql:host={host()};dbname=wp', 'root', '{M(password())}');")


@sec("b")
def _b_go_sql():
    return ("password go DSN", "deliverable code",
            f"db, err := sql.Open(\"postgres\", \"host={host()} user={user()} password={M(password())} dbname=app sslmode=require\")\nif err != nil {{\n\tlog.Fatal(err)\n}}")


@sec("b")
def _b_node_pg():
    return ("password js object", "deliverable code",
            f"const pool = new Pool({{\n  host: '{host()}',\n  user: '{user()}',\n  password: '{M(password())}',\n  database: 'orders',\n}});")


@sec("b")
def _b_nodemailer():
    return ("smtp password js", "deliverable code",
            f"const transporter = nodemailer.createTransport({{ host: 'smtp.example.com', port: 587, auth: {{ user: '{user()}@example.com', pass: '{M(password())}' }} }});")


@sec("b")
def _b_smtplib():
    return ("smtp password python positional", "deliverable code",
            f"with smtplib.SMTP_SSL(\"mail.example.org\", 465) as s:\n    s.login(\"{user()}@example.org\", \"{M(password())}\")\n    s.send_message(msg)")


@sec("b")
def _b_paramiko():
    return ("ssh password python", "deliverable code",
            f"client.connect(\"{ip()}\", username=\"deploy\", password=\"{M(password())}\", port=22)")


@sec("b")
def _b_rust_builder():
    return ("password rust builder", "deliverable code",
            f"let opts = MySqlConnectOptions::new()\n    .host(\"{host()}\")\n    .username(\"{user()}\")\n    .password(\"{M(password())}\")\n    .database(\"inventory\");")


@sec("b")
def _b_java_builder():
    return ("password java builder", "deliverable code",
            f"HikariConfig cfg = new HikariConfig();\ncfg.setJdbcUrl(\"jdbc:postgresql://{host()}/billing\");\ncfg.setUsername(\"{user()}\");\ncfg.setPassword(\"{M(password())}\");")


@sec("b")
def _b_csharp():
    return ("connection string c#", "deliverable code",
            f"var cs = \"Server={host()};Database=Shop;User Id={user()};Password={M(password())};TrustServerCertificate=True\";\nusing var conn = new SqlConnection(cs);")


@sec("b")
def _b_ruby():
    return ("redis password ruby", "deliverable code",
            f"$redis = Redis.new(host: \"{host()}\", port: 6379, password: \"{M(strong())}\")")


@sec("b")
def _b_kotlin():
    return ("password kotlin", "deliverable code",
            f"val session = jsch.getSession(\"{user()}\", \"{ip()}\", 22)\nsession.setPassword(\"{M(password())}\")\nsession.connect()")


@sec("b")
def _b_swift():
    return ("api key swift", "deliverable code (iOS)",
            f"enum Secrets {{\n    static let openAIKey = \"{M(tok('openai'))}\"\n}}")


@sec("b")
def _b_openai_py():
    return ("openai key python", "deliverable code",
            f"from openai import OpenAI\nclient = OpenAI(api_key=\"{M(tok('openai'))}\")")


@sec("b")
def _b_anthropic_py():
    return ("anthropic key python positional env default", "deliverable code",
            f"client = anthropic.Anthropic(api_key=os.getenv(\"ANTHROPIC_API_KEY\", \"{M(tok('anthropic'))}\"))")


@sec("b")
def _b_stripe():
    return ("stripe key assignment", "deliverable code",
            f"import stripe\nstripe.api_key = \"{M(tok('stripe_secret'))}\"\nstripe.Refund.create(payment_intent=pi_id)")


@sec("b")
def _b_octokit():
    return ("github token js", "deliverable code",
            f"const octokit = new Octokit({{ auth: \"{M(tok('github'))}\" }});")


@sec("b")
def _b_jwt_sign():
    return ("jwt signing secret js", "deliverable code",
            f"const token = jwt.sign({{ uid: user.id }}, '{M(strong())}', {{ expiresIn: '1h' }});")


@sec("b")
def _b_flask():
    return ("flask secret key", "deliverable code",
            f"app = Flask(__name__)\napp.secret_key = b'{M(rhex(48))}'")


@sec("b")
def _b_django():
    sk = rs(50, string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)")
    return ("django SECRET_KEY", "deliverable settings.py",
            f"DEBUG = False\nSECRET_KEY = \"{M('django-insecure-' + sk)}\"\nALLOWED_HOSTS = [\"shop-demo.test\"]")


@sec("b")
def _b_test_login():
    p = password()
    return ("password in test", "deliverable tests",
            f"def test_admin_can_login(client):\n    r = client.post(\"/login\", data={{\"username\": \"admin\", \"password\": \"{M(p)}\"}})\n    assert r.status_code == 302")


@sec("b")
def _b_go_test():
    return ("password go test table", "deliverable tests",
            f"func TestLogin(t *testing.T) {{\n\tok := auth.Check(\"{user()}\", \"{M(password())}\")\n\tif !ok {{\n\t\tt.Fatal(\"seed user cannot log in\")\n\t}}\n}}")


@sec("b")
def _b_curl():
    return ("curl basic auth", "deliverable README",
            f"curl -u {user()}:{M(password())} https://{host()}/api/export.csv -o export.csv")


@sec("b")
def _b_curl_bearer():
    return ("bearer token curl", "deliverable README",
            f"curl -s https://api.example.com/v2/items -H \"Authorization: Bearer {M(tok(pick(['hf', 'groq', 'replicate', 'xai', 'pplx'])))}\"")


@sec("b")
def _b_mysql_cli():
    return ("mysql -p password", "deliverable script",
            f"mysqldump -h {host()} -u {user()} -p{M(password())} shop > shop.sql")


@sec("b")
def _b_hmac():
    return ("hmac key go", "deliverable code",
            f"var webhookKey = []byte(\"{M(rs(32))}\")\n\nfunc verify(body []byte, sig string) bool {{\n\tm := hmac.New(sha256.New, webhookKey)\n\tm.Write(body)\n\treturn hmac.Equal([]byte(hex.EncodeToString(m.Sum(nil))), []byte(sig))\n}}")


@sec("b")
def _b_ldap():
    return ("ldap bind password", "deliverable code",
            f"conn.simple_bind_s(\"cn=admin,dc=example,dc=org\", \"{M(password())}\")")


@sec("b")
def _b_ftp():
    return ("ftp password python", "deliverable code",
            f"ftp = FTP(\"{host()}\")\nftp.login(\"{user()}\", \"{M(password())}\")")


@sec("b")
def _b_telegram():
    return ("telegram bot token", "deliverable code",
            f"bot = telebot.TeleBot(\"{M(tok('telegram'))}\")\n\n@bot.message_handler(commands=['start'])\ndef start(m):\n    bot.reply_to(m, 'hi')")


@sec("b")
def _b_discord():
    return ("discord bot token", "deliverable code",
            f"client.run('{M(tok('discord'))}')")


@sec("b")
def _b_ts_const():
    k = pick(["sendgrid", "mailgun", "postman", "linear", "notion", "figma"])
    return (TOKENS[k][1] + " ts const", "deliverable code",
            f"export const config = {{\n  apiBase: 'https://api.example.com',\n  apiKey: '{M(tok(k))}',\n  retries: 3,\n}};")


@sec("b")
def _b_php_define():
    return ("password php array", "deliverable code",
            f"'mail' => [\n    'driver' => 'smtp',\n    'username' => '{user()}',\n    'password' => '{M(password())}',\n],")


@sec("b")
def _b_powershell():
    return ("password powershell", "deliverable script",
            f"$sec = ConvertTo-SecureString \"{M(password())}\" -AsPlainText -Force\n$cred = New-Object System.Management.Automation.PSCredential (\"{user()}\", $sec)")


@sec("b")
def _b_twilio():
    sid = "AC" + rhex(32)
    return ("twilio auth token beside SID", "deliverable code",
            f"client = Client(\"{sid}\", \"{M(tok('twilio_token'))}\")")


@sec("b")
def _b_mongo_js():
    return ("mongodb uri js", "deliverable code",
            f"mongoose.connect('mongodb+srv://{user()}:{M(password())}@cluster0.ab1cd.example.net/app?retryWrites=true')")


# ---- (c) infra / config / CI

@sec("c")
def _c_env():
    return (".env file", "deliverable .env",
            f"APP_ENV=production\nDB_HOST={host()}\nDB_USER={user()}\nDB_PASSWORD={M(password())}\nREDIS_URL=redis://{host()}:6379/0")


@sec("c")
def _c_env2():
    k = pick(list(TOKENS))
    name = pick(["API_KEY", "SERVICE_TOKEN", "PROVIDER_SECRET", "ACCESS_TOKEN"])
    return (TOKENS[k][1] + " in .env", "deliverable .env",
            f"PORT=8080\n# generated {R.randrange(1, 28)}.11.2026\n{name}={M(tok(k))}\nLOG_LEVEL=info")


@sec("c")
def _c_compose():
    return ("docker-compose env", "deliverable docker-compose.yml",
            f"services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: {user()}\n      POSTGRES_PASSWORD: {M(password())}\n    ports:\n      - \"5432:5432\"")


@sec("c")
def _c_k8s_b64():
    p = password()
    return ("k8s secret base64", "deliverable manifest",
            f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\ntype: Opaque\ndata:\n  username: {b64(user().encode())}\n  password: {M(b64(p.encode()))}")


@sec("c")
def _c_k8s_string():
    return ("k8s secret stringData", "deliverable manifest",
            f"kind: Secret\napiVersion: v1\nmetadata:\n  name: smtp\nstringData:\n  SMTP_PASS: \"{M(password())}\"")


@sec("c")
def _c_tf():
    return ("terraform aws secret", "deliverable main.tf",
            f"provider \"aws\" {{\n  region     = \"us-east-1\"\n  access_key = \"{aws_id()}\"\n  secret_key = \"{M(aws_secret())}\"\n}}")


@sec("c")
def _c_aws_creds():
    return ("aws credentials file", "deliverable ~/.aws/credentials",
            f"[default]\naws_access_key_id = {aws_id()}\naws_secret_access_key = {M(aws_secret())}\nregion = eu-central-1")


@sec("c")
def _c_ansible():
    return ("ansible become pass", "deliverable inventory",
            f"[web]\n{ip()} ansible_user=deploy ansible_ssh_pass={M(password())} ansible_become_pass={M(password())}")


@sec("c")
def _c_npmrc():
    return ("npmrc auth token", "deliverable .npmrc",
            f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={M(tok('npm'))}")


@sec("c")
def _c_pypirc():
    return ("pypirc token", "deliverable .pypirc",
            f"[pypi]\nusername = __token__\npassword = {M(tok('pypi'))}")


@sec("c")
def _c_git_remote():
    return ("token in git remote url", "CI log",
            f"$ git remote -v\norigin\thttps://{user()}:{M(tok('github'))}@github.com/acme-demo/shop.git (fetch)")


@sec("c")
def _c_docker_login():
    return ("docker login password", "CI log",
            f"+ docker login -u ci-bot -p {M(strong())} registry.example.com\nWARNING! Using --password via the CLI is insecure. Use --password-stdin.\nLogin Succeeded")


@sec("c")
def _c_ci_echo():
    k = pick(["digitalocean", "databricks", "vault", "doppler", "heroku", "cloudflare"])
    return (TOKENS[k][1] + " echoed in CI log", "CI log",
            f"Run ./deploy.sh\n+ export TOKEN={M(tok(k))}\n+ ./bin/release --env prod\nrelease 2026.11.{R.randrange(1, 29)} done")


@sec("c")
def _c_pg_uri():
    scheme = pick(["postgres", "postgresql", "mysql", "amqp", "redis", "mongodb"])
    return ("password in connection url " + scheme, "deliverable config",
            f"DATABASE_URL={scheme}://{user()}:{M(password())}@{host()}:{R.randrange(1000, 9999)}/app")


@sec("c")
def _c_redis_cli():
    return ("redis-cli -a", "deliverable runbook",
            f"redis-cli -h {host()} -p 6379 -a {M(strong())} --no-auth-warning INFO memory")


@sec("c")
def _c_wpconfig():
    return ("wp-config DB_PASSWORD", "deliverable wp-config.php",
            f"define( 'DB_NAME', 'wp_shop' );\ndefine( 'DB_USER', '{user()}' );\ndefine( 'DB_PASSWORD', '{M(password())}' );\ndefine( 'DB_HOST', 'localhost' );")


@sec("c")
def _c_spring():
    return ("spring datasource password", "deliverable application.properties",
            f"spring.datasource.url=jdbc:postgresql://{host()}:5432/crm\nspring.datasource.username={user()}\nspring.datasource.password={M(password())}")


@sec("c")
def _c_maven():
    return ("maven settings password", "deliverable settings.xml",
            f"<server>\n  <id>nexus-releases</id>\n  <username>{user()}</username>\n  <password>{M(password())}</password>\n</server>")


@sec("c")
def _c_netrc():
    return (".netrc", "deliverable .netrc",
            f"machine api.example.com\n  login {user()}\n  password {M(strong())}")


@sec("c")
def _c_kafka():
    return ("kafka jaas password", "deliverable client.properties",
            f"security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"{rs(16, string.ascii_uppercase + string.digits)}\" password=\"{M(rs(64, ALNUM + '+/'))}\";")


@sec("c")
def _c_wireguard():
    return ("wireguard private key", "deliverable wg0.conf",
            f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {M(wg_key())}\n\n[Peer]\nPublicKey = {wg_key()}\nEndpoint = {ip()}:51820")


@sec("c")
def _c_azure_cs():
    return ("azure storage account key", "deliverable appsettings.json",
            f"\"ConnectionStrings\": {{\n  \"Blob\": \"DefaultEndpointsProtocol=https;AccountName=shopdemo{R.randrange(100)};AccountKey={M(tok('azure_storage'))};EndpointSuffix=core.windows.net\"\n}}")


@sec("c")
def _c_kubeconfig():
    return ("kubeconfig bearer token", "deliverable kubeconfig",
            f"users:\n- name: ci\n  user:\n    token: {M(user_jwt())}")


@sec("c")
def _c_helm():
    return ("helm values password", "deliverable values.yaml",
            f"postgresql:\n  auth:\n    username: app\n    password: \"{M(password())}\"\n    postgresPassword: \"{M(password())}\"")


@sec("c")
def _c_gha_log():
    return ("password in CI log", "CI log",
            f"2026-11-2{R.randrange(10)}T10:1{R.randrange(10)}:0{R.randrange(10)}Z Connecting to {host()} as {user()} with password '{M(password())}'\n2026-11-2{R.randrange(10)}T10:1{R.randrange(10)}:1{R.randrange(10)}Z migration 0042 applied")


@sec("c")
def _c_rclone():
    return ("rclone s3 secret", "deliverable rclone.conf",
            f"[backup]\ntype = s3\nprovider = Wasabi\naccess_key_id = {rs(20, string.ascii_uppercase + string.digits)}\nsecret_access_key = {M(rs(40, ALNUM))}\nendpoint = s3.eu-central-1.example.com")


@sec("c")
def _c_sql_create():
    return ("sql create user password", "deliverable migration",
            f"CREATE USER {pick(FIRST)}_ro WITH ENCRYPTED PASSWORD '{M(password())}';\nGRANT SELECT ON ALL TABLES IN SCHEMA public TO {pick(FIRST)}_ro;")


@sec("c")
def _c_sshpass():
    return ("sshpass", "deliverable deploy.sh",
            f"sshpass -p '{M(password())}' rsync -az ./dist/ deploy@{ip()}:/var/www/html/")


@sec("c")
def _c_pip_index():
    return ("token in pip index url", "deliverable pip.conf",
            f"[global]\nindex-url = https://__token__:{M(tok('gitlab'))}@gitlab.example.com/api/v4/projects/{R.randrange(100, 999)}/packages/pypi/simple")


@sec("c")
def _c_smtp_yaml():
    return ("smtp password yaml", "deliverable config.yml",
            f"mailer:\n  host: smtp.example.net\n  port: 587\n  user: noreply@example.net\n  pass: {M(password())}")


# ---- (d) provider tokens in headers, urls, cookies, mobile configs

PROVIDERS_D = ["github", "github_fine", "gitlab", "slack_bot", "slack_user", "stripe_secret", "stripe_webhook",
               "openai", "anthropic", "google", "hf", "groq", "replicate", "xai", "pplx", "sendgrid", "shopify",
               "square", "digitalocean", "databricks", "notion", "linear", "figma", "postman", "atlassian",
               "doppler", "vault", "mapbox_secret", "okta", "heroku", "supabase_service", "npm"]


@sec("d")
def _d_header():
    k = pick(PROVIDERS_D)
    hdr = pick(["Authorization: Bearer ", "authorization: bearer ", "X-API-Key: ", "x-api-key: ", "Authorization: token ", "api-key: "])
    return (TOKENS[k][1] + " header", "deliverable HTTP log",
            f"POST /v1/run HTTP/1.1\nHost: api.example.com\n{hdr}{M(tok(k))}\nContent-Type: application/json")


@sec("d")
def _d_url():
    k = pick(["google", "mailgun", "datadog", "alchemy", "pplx", "replicate"])
    p = pick(["key", "api_key", "apikey", "access_token", "token"])
    return (TOKENS[k][1] + " in url query", "chat",
            f"here's the request that fails: https://api.example.com/v3/lookup?q=berlin&{p}={M(tok(k))}&format=json")


@sec("d")
def _d_alchemy():
    return ("alchemy key in RPC url", "deliverable hardhat.config.js",
            f"networks: {{\n  mainnet: {{ url: \"https://eth-mainnet.g.alchemy.com/v2/{M(tok('alchemy'))}\" }}\n}}")


@sec("d")
def _d_cookie():
    name = pick(["sessionid", "_session_id", "connect.sid", "PHPSESSID", "laravel_session", "__Secure-next-auth.session-token"])
    val = user_jwt() if "next-auth" in name else rs(R.randrange(26, 48), LOWER_ALNUM)
    return ("session cookie " + name, "seller question",
            f"I can reproduce it with this request, copied from my browser:\ncurl 'https://app.example.com/dashboard' -H 'Cookie: theme=dark; {name}={M(val)}; lang=en'")


@sec("d")
def _d_basic():
    u, p = user(), password()
    return ("basic auth header", "deliverable HTTP log",
            f"GET /admin/ HTTP/1.1\nHost: {host()}\nAuthorization: Basic {M(b64((u + ':' + p).encode()))}")


@sec("d")
def _d_plist():
    k = pick(["google", "openai", "stripe_secret", "mapbox_secret"])
    return (TOKENS[k][1] + " in Info.plist", "deliverable iOS config",
            f"<key>ServerAPIKey</key>\n<string>{M(tok(k))}</string>\n<key>CFBundleShortVersionString</key>\n<string>2.4.{R.randrange(10)}</string>")


@sec("d")
def _d_strings_xml():
    k = pick(["google", "openai", "hf", "square"])
    return (TOKENS[k][1] + " android strings.xml", "deliverable Android",
            f"<resources>\n    <string name=\"app_name\">ShopDemo</string>\n    <string name=\"backend_key\">{M(tok(k))}</string>\n</resources>")


@sec("d")
def _d_manifest():
    return ("google maps server key android manifest", "deliverable Android",
            f"<meta-data\n    android:name=\"com.google.android.geo.API_KEY\"\n    android:value=\"{M(tok('google'))}\" />")


@sec("d")
def _d_slack_webhook():
    return ("slack webhook url", "deliverable config",
            f"alerts:\n  slack: https://hooks.slack.com/services/T{rs(8, string.ascii_uppercase + string.digits)}/B{rs(8, string.ascii_uppercase + string.digits)}/{M(rs(24))}")


@sec("d")
def _d_discord_webhook():
    return ("discord webhook url", "chat",
            f"post the alerts to https://discord.com/api/webhooks/{R.randrange(10**17, 10**18)}/{M(rs(68, ALNUM + '-_'))} please")


@sec("d")
def _d_binance():
    return ("exchange secret beside api key", "buyer message",
            f"For the trading bot: API key {rs(64)}\nSecret: {M(tok('binance_secret'))}\n(withdrawals are disabled on this key)")


@sec("d")
def _d_paypal():
    return ("paypal client secret beside client id", "deliverable .env",
            f"PAYPAL_CLIENT_ID=A{rs(79, ALNUM + '-_')}\nPAYPAL_CLIENT_SECRET={M('E' + rs(79, ALNUM + '-_'))}")


@sec("d")
def _d_oauth_client():
    return ("oauth client secret beside client id", "deliverable client_secret.json",
            json.dumps({"web": {"client_id": f"{R.randrange(10**11, 10**12)}-{rs(32, LOWER_ALNUM)}.apps.googleusercontent.com",
                                "client_secret": "@@S@@", "redirect_uris": ["https://app.example.com/cb"]}}, indent=1).replace("@@S@@", M("GOCSPX-" + rs(28, ALNUM + "-_"))))


@sec("d")
def _d_raw_chat():
    k = pick(PROVIDERS_D)
    return (TOKENS[k][1] + " bare in chat", "chat",
            f"{pick(['here you go', 'key:', 'token below', 'use this one', 'new one after rotating'])}\n{M(tok(k))}")


@sec("d")
def _d_json_body():
    k = pick(PROVIDERS_D)
    return (TOKENS[k][1] + " in json", "deliverable export",
            json.dumps({"integration": "webhook", "enabled": True, "credentials": {"token": "@@S@@"}}).replace("@@S@@", M(tok(k))))


@sec("d")
def _d_sendgrid_header():
    return ("sendgrid key python header", "deliverable code",
            f"headers = {{\"Authorization\": f\"Bearer {M(tok('sendgrid'))}\"}}")


@sec("d")
def _d_shopify_header():
    return ("shopify access token header", "deliverable HTTP log",
            f"X-Shopify-Access-Token: {M(tok('shopify'))}\nContent-Type: application/json")


@sec("d")
def _d_jwt_url():
    return ("jwt in url", "support ticket",
            f"The magic link I got: https://app.example.com/auth/callback?token={M(user_jwt())}\nit says expired")


@sec("d")
def _d_firebase_server():
    return ("firebase server key", "deliverable code",
            f"fetch('https://fcm.googleapis.com/fcm/send', {{ headers: {{ Authorization: 'key={M('AAAA' + rs(7, ALNUM + '-_') + ':APA91b' + rs(134, ALNUM + '-_'))}' }} }})")


@sec("d")
def _d_razorpay():
    return ("razorpay key secret beside key id", "deliverable .env",
            f"RAZORPAY_KEY_ID=rzp_live_{rs(14)}\nRAZORPAY_KEY_SECRET={M(rs(24))}")


# ---- (e) private keys, seeds, wallets

def phrase_fmt(words):
    k = R.randrange(5)
    if k == 0:
        return " ".join(words)
    if k == 1:
        return "\n".join(f"{i + 1}. {w}" for i, w in enumerate(words))
    if k == 2:
        return ", ".join(words)
    if k == 3:
        return "\n".join(" ".join(words[i:i + 4]) for i in range(0, len(words), 4))
    return " ".join(f"{i + 1}) {w}" for i, w in enumerate(words))


SEED_CTX = [
    ("en", "buyer message", "My MetaMask recovery phrase, please restore the wallet and move the NFTs:\n{s}"),
    ("en", "dispute statement", "I only shared the seed with the seller because he asked for it to \"verify\" the wallet: {s}"),
    ("en", "chat", "{s}"),
    ("en", "deliverable test fixture", "MNEMONIC=\"{s}\"\nHD_PATH=m/44'/60'/0'/0"),
    ("en", "code", "wallet = Wallet.from_mnemonic(\"{s}\")"),
    ("es", "mensaje", "Estas son mis palabras de recuperación:\n{s}"),
    ("pt", "mensagem", "frase de recuperação da carteira: {s}"),
    ("ru", "сообщение", "сид-фраза от кошелька: {s}"),
    ("zh", "消息", "助记词：{s}"),
    ("de", "Nachricht", "Hier die Wiederherstellungsphrase vom Ledger: {s}"),
    ("en", "ledger backup photo transcript", "(transcribed from the photo of the backup card)\n{s}"),
    ("en", "hardhat config", "accounts: {{ mnemonic: \"{s}\" }}"),
]


def _mk_seed(lang, ctx, tpl):
    def fn():
        n = pick([12, 12, 12, 15, 18, 24, 24])
        w = mnemonic(n)
        inline = any(x in tpl for x in ("MNEMONIC=", "from_mnemonic", "mnemonic:"))
        return (f"bip39 {n} words {lang}", ctx, tpl.format(s=M(" ".join(w) if inline else phrase_fmt(w))))
    return fn


for _l, _c, _t in SEED_CTX:
    SEC["e"].append(_mk_seed(_l, _c, _t))


@sec("e")
def _e_pem():
    kind = pick(["RSA", "EC", "OPENSSH", "PKCS8"])
    return (f"{kind} private key pem", pick(["chat", "deliverable", "buyer message"]),
            pick(["Here is the deploy key for the server:\n", "id_ed25519 below\n", "", "key.pem:\n"]) + pem_private(kind))


@sec("e")
def _e_gcp_sa():
    body = pem_body("PKCS8")
    pk = "-----BEGIN PRIVATE KEY-----\n" + M(body) + "\n-----END PRIVATE KEY-----\n"
    d = {"type": "service_account", "project_id": "shop-demo-" + str(R.randrange(1000, 9999)),
         "private_key_id": rhex(40), "private_key": "@@PK@@",
         "client_email": "ci@shop-demo.iam.gserviceaccount.com", "client_id": str(R.randrange(10**20, 10**21))}
    s = json.dumps(d, indent=2).replace("@@PK@@", pk.replace("\n", "\\n"))
    # the JSON escape of newline inside a string stays literal "\n" in the file; keep text backslash-free
    s = s.replace("\\n", "\n")
    return ("gcp service account private_key", "deliverable json", s)


@sec("e")
def _e_wif():
    return ("bitcoin WIF", pick(["chat", "buyer message"]),
            f"{pick(['private key of the paper wallet:', 'WIF for the import:', 'importprivkey'])} {M(wif())}")


@sec("e")
def _e_xprv():
    return ("bitcoin xprv", "deliverable config",
            f"[wallet]\n; electrum watch + sign\nmaster_key = {M(xkey(True))}\nderivation = m/84'/0'/0'")


@sec("e")
def _e_sol_b58():
    return ("solana secret key base58", "chat",
            f"Phantom export of the bot wallet: {M(sol_secret())}")


@sec("e")
def _e_sol_json():
    arr = "[" + ",".join(str(b) for b in rbytes(64)) + "]"
    return ("solana keypair json", "deliverable id.json",
            f"$ cat ~/.config/solana/id.json\n{M(arr)}")


@sec("e")
def _e_age():
    return ("age secret key", "deliverable keys.txt",
            f"$ cat ~/.config/sops/age/keys.txt\n# created: 2026-11-{R.randrange(10, 29)}T09:12:44Z\n# public key: {age_public()}\n{M(age_secret())}")


@sec("e")
def _e_nsec():
    return ("nostr nsec", "chat",
            f"bot account nsec: {M(bech32('nsec', rbytes(32)))}")


@sec("e")
def _e_eth():
    return ("ethereum private key hex", pick(["deliverable .env", "chat"]),
            f"PRIVATE_KEY={M(eth_priv())}\nRPC_URL=https://rpc.example.org\nCHAIN_ID=8453")


@sec("e")
def _e_eth_code():
    return ("ethereum private key ethers", "deliverable code",
            f"const wallet = new ethers.Wallet(\"{M(eth_priv()[2:])}\", provider);")


@sec("e")
def _e_pgp():
    body = "lQOYBG" + b64(rbytes(700))
    body = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
    return ("pgp private key block", "deliverable",
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + M(body + "\n=" + b64(rbytes(3))) + "\n-----END PGP PRIVATE KEY BLOCK-----")


@sec("e")
def _e_seed_split():
    w = mnemonic(12)
    return ("bip39 split in two messages", "chat log",
            f"[09:01] buyer: first half: {M(' '.join(w[:6]))}\n[09:02] buyer: second half: {M(' '.join(w[6:]))}")


# ---- (f) tables, exports, diffs, chat logs

@sec("f")
def _f_csv():
    rows = ["email,name,password,role"]
    for _ in range(R.randrange(2, 5)):
        rows.append(f"{pick(FIRST)}@example.com,{pick(FIRST).capitalize()},{M(password())},{pick(['admin', 'editor', 'viewer'])}")
    return ("passwords in csv export", "deliverable users.csv", "\n".join(rows))


@sec("f")
def _f_md_table():
    rows = ["| Service | Login | Password |", "|---|---|---|"]
    for s in R.sample(["cPanel", "FTP", "WordPress", "Mailchimp", "Router", "NAS", "Hosting"], 3):
        rows.append(f"| {s} | {user()} | {M(password())} |")
    return ("passwords in markdown table", "buyer handover doc", "\n".join(rows))


@sec("f")
def _f_diff():
    return ("passwords in git diff", "deliverable diff",
            f"--- a/config/database.yml\n+++ b/config/database.yml\n@@ -4,3 +4,3 @@ production:\n   username: {user()}\n-  password: {M(password())}\n+  password: {M(password())}\n   host: {host()}")


@sec("f")
def _f_diff_token():
    k = pick(PROVIDERS_D)
    return (TOKENS[k][1] + " in diff", "deliverable diff",
            f"diff --git a/.env.example b/.env.example\n@@ -1,2 +1,3 @@\n APP_NAME=shop\n+SERVICE_TOKEN={M(tok(k))}\n LOG_LEVEL=debug")


@sec("f")
def _f_chatlog():
    return ("password in chat log export", "dispute evidence",
            f"[2026-11-{R.randrange(10, 29)} 14:0{R.randrange(10)}] buyer: did you get in?\n[2026-11-{R.randrange(10, 29)} 14:1{R.randrange(10)}] seller: no, which password?\n[2026-11-{R.randrange(10, 29)} 14:1{R.randrange(10)}] buyer: {M(password())}\n[2026-11-{R.randrange(10, 29)} 14:2{R.randrange(10)}] seller: works, thanks")


@sec("f")
def _f_browser_export():
    rows = ["name,url,username,password"]
    for _ in range(R.randrange(2, 4)):
        d = pick(["shop-demo.test", "mail.example.org", "bank.example", "forum.example.net"])
        rows.append(f"{d},https://{d}/login,{user()},{M(password())}")
    return ("browser password export", "deliverable passwords.csv", "\n".join(rows))


@sec("f")
def _f_bitwarden_json():
    items = [{"type": 1, "name": pick(["Hosting", "Gmail", "Router", "Shopify"]),
              "login": {"username": user(), "password": "@@P%d@@" % i, "totp": None}} for i in range(2)]
    s = json.dumps({"encrypted": False, "items": items})
    for i in range(2):
        s = s.replace("@@P%d@@" % i, M(password()))
    return ("password manager json export", "deliverable export.json", s)


@sec("f")
def _f_sql_insert():
    return ("plaintext password sql insert", "deliverable seed.sql",
            f"INSERT INTO users (email, password, is_admin) VALUES\n  ('{pick(FIRST)}@example.com', '{M(password())}', true),\n  ('{pick(FIRST)}@example.com', '{M(password())}', false);")


@sec("f")
def _f_slack_export():
    return ("token in slack export json", "deliverable export",
            json.dumps([{"ts": f"17{R.randrange(10**7, 10**8)}.000{R.randrange(100, 999)}", "user": "U" + rs(9, string.ascii_uppercase + string.digits),
                         "text": "prod key is @@S@@ dont lose it"}]).replace("@@S@@", M(tok(pick(PROVIDERS_D)))))


@sec("f")
def _f_tsv():
    return ("password in tsv", "deliverable accounts.tsv",
            f"site\tlogin\tpass\n{host()}\t{user()}\t{M(password())}\n{host()}\t{user()}\t{M(password())}")


@sec("f")
def _f_transcript():
    return ("password in call transcript", "deliverable transcript",
            f"SPEAKER 1: can you give me the login for the CRM?\nSPEAKER 2: yes, username {user()}, password {M(password())}\nSPEAKER 1: got it, thanks")


@sec("f")
def _f_excel():
    return ("password in spreadsheet cell dump", "deliverable sheet",
            f"A1: Client\tB1: Portal\tC1: User\tD1: Pass\nA2: {pick(FIRST).capitalize()} GmbH\tB2: https://portal.example\tC2: {user()}\tD2: {M(password())}")


# ---------------------------------------------------------------- look-alikes

PROSE = [
    ("en", "buyer message", "I reset the admin password this morning, so the old one won't work any more. I'll type the new one into the secure field when you're ready."),
    ("en", "chat", "the password is in our 1Password vault under \"Hosting\" — I invited you to it"),
    ("en", "chat reply", "> what's the password?\nsame as before, I didn't change it"),
    ("en", "offer note", "I never ask for passwords. Please create a collaborator account for me instead of sending yours."),
    ("en", "review", "Didn't need any of my passwords, worked entirely through the invite link. Great job."),
    ("en", "dispute statement", "The seller claims I never gave access, but I added him as a staff member on {d}. I never shared any password."),
    ("en", "Q&A answer", "Passwords must be at least 12 characters and include a digit; the form rejects anything shorter."),
    ("en", "chat", "forgot my password again lol, requesting a reset link now"),
    ("en", "support ticket", "Login fails with 'invalid password' even after the reset. Username is {u}."),
    ("en", "deliverable note", "The archive is not encrypted, no password needed."),
    ("es", "mensaje", "Cambié la contraseña ayer; te la mando por el canal seguro de la plataforma, no por aquí."),
    ("es", "chat", "la contraseña es la misma que la del correo, pruébala tú"),
    ("pt", "mensagem", "Não vou mandar a senha por chat. Vou te adicionar como colaborador."),
    ("fr", "message", "Le mot de passe doit contenir au moins 10 caractères, c'est la règle de l'hébergeur."),
    ("de", "Nachricht", "Das Passwort schicke ich dir nicht hier, sondern lege es im Tresor unter \"Shop\" ab."),
    ("it", "messaggio", "Ho dimenticato la password, ho chiesto il reset al supporto."),
    ("pl", "wiadomość", "Hasło jest w menedżerze haseł, udostępniłem ci folder."),
    ("ru", "сообщение", "Пароль не пришлю в чат — добавил тебя как администратора."),
    ("uk", "повідомлення", "Пароль змінено, старий більше не діє."),
    ("tr", "mesaj", "Şifreyi buradan göndermeyeceğim, seni ekip üyesi olarak ekledim."),
    ("zh", "消息", "密码不能在这里发，我已经把你加为协作者了。"),
    ("ja", "メッセージ", "パスワードはここには書きません。招待リンクを送りました。"),
    ("ko", "메시지", "비밀번호는 보내지 않을게요. 팀원으로 초대했습니다."),
    ("vi", "tin nhắn", "Mật khẩu phải có ít nhất 8 ký tự."),
    ("id", "pesan", "Kata sandi lama sudah tidak berlaku, saya sudah reset."),
    ("nl", "bericht", "Het wachtwoord staat in de kluis, niet in deze chat."),
    ("ar", "رسالة", "لن أرسل كلمة المرور هنا، أضفتك كمسؤول."),
    ("hi", "chat (romanized)", "password yahan nahi bhejunga bhai, invite bhej diya hai"),
    ("en", "chat", "password: see the sticky note I mailed you last week (physical mail!)"),
    ("en", "chat", "my password manager generated a 24-character one, so I can't read it out anyway"),
    ("en", "Q&A", "Q: Do you need my password?\nA: No. Add {u}@example.com as a developer in the console."),
    ("en", "chat", "password is correct now, the problem was caps lock"),
    ("en", "review", "He asked for my password three times; I declined and he still finished the job. 4 stars."),
    ("en", "seller message", "Please don't paste keys here. Put them in the project's secret settings and tell me the name."),
    ("es", "respuesta", "¿La contraseña? Pídela a soporte, yo no la tengo."),
    ("de", "Chat", "Passwort vergessen? Klick auf \"Passwort zurücksetzen\" unten links."),
    ("en", "chat", "the wifi has no password, it's the open guest network"),
    ("en", "dispute statement", "At no point did I share credentials; the seller's claim that the password {u}123 was sent by me is false, I only ever sent an invite."),
]


def _mk_prose(lang, ctx, tpl):
    def fn():
        text = tpl.format(u=user(), d=f"2026-11-{R.randrange(10, 29)}")
        k = R.randrange(4)
        if k == 1 and "\n" not in text and not text.startswith(("Q:", ">")):
            if lang == "en" and not text.startswith("I ") and text[1:2].islower():
                text = text[0].lower() + text[1:]
            text = pick(FIRST).capitalize() + ", " + text
        elif k == 2:
            text = text + " " + pick(["🙂", "👍", "thx", "(sorry)", "!!", "ok?", "—" + pick(FIRST).capitalize()])
        return ("prose about passwords " + lang, ctx, text)
    return fn


# the last one contains a password-shaped claim; keep it out to stay unambiguous
for _l, _c, _t in PROSE[:-1]:
    LOOK["a"].append(_mk_prose(_l, _c, _t))


@look("a")
def _la_masked():
    return ("masked password", "buyer message",
            f"Login is {user()}, password {pick(['********', '••••••••', '[hidden]', '(sent separately)', '<redacted>', 'xxxxxx'])}. Ask me on the call.")


@look("a")
def _la_policy():
    n = R.randrange(8, 17)
    return ("password policy", "Q&A answer",
            f"Our policy: min {n} characters, one uppercase, one digit, rotated every {pick([30, 60, 90])} days, no reuse of the last {R.randrange(3, 10)} passwords.")


@look("a")
def _la_withheld():
    return ("withheld credential", "offer note",
            f"Access I will need: SSH (key-based, I'll send my public key), a staging DB user, read-only. Please don't send passwords in chat; I'll request them via the secure form on {pick(['Monday', 'Tuesday', 'day 2', 'delivery'])}.")


@look("a")
def _la_reset_code():
    return ("order number in message", "buyer message",
            f"Order #{R.randrange(10**5, 10**6)} — the password reset email never arrived for {user()}@example.com. Reference {rs(8, string.ascii_uppercase + string.digits)}.")


# (b) code look-alikes

@look("b")
def _lb_env_py():
    return ("password from env python", "deliverable code",
            f"conn = psycopg2.connect(host=os.environ[\"{envn('HOST')}\"], user=os.environ[\"{envn('USER')}\"], password=os.environ[\"{envn('PASSWORD')}\"])")


@look("b")
def _lb_env_js():
    return ("key from process.env", "deliverable code",
            f"const client = new {pick(['OpenAI', 'Anthropic', 'Groq', 'Replicate'])}({{ apiKey: process.env.{envn('API_KEY')} }});\nconst stripe = new Stripe(process.env.{envn('STRIPE_SECRET')});")


@look("b")
def _lb_placeholder():
    return ("placeholder credentials", "deliverable README",
            f"curl -u YOUR_USERNAME:YOUR_PASSWORD https://{host()}/api/export.csv\n# replace both values before running")


@look("b")
def _lb_var_pass():
    return ("password variable passed", "deliverable code",
            f"def {pick(['login', 'sign_in', 'authenticate', 'do_login'])}(session, username: str, password: str) -> bool:\n    resp = session.post(LOGIN_URL, data={{\"username\": username, \"password\": password}})\n    return resp.ok")


@look("b")
def _lb_go_test_empty():
    return ("test of empty password", "deliverable tests",
            "func TestLoginEmptyPassword(t *testing.T) {\n\tif auth.Check(\"" + user() + "\", \"\") {\n\t\tt.Fatal(\"empty password accepted\")\n\t}\n}")


@look("b")
def _lb_hash_verify():
    h = "$2b$12$" + rs(53, ALNUM + "./")
    return ("bcrypt hash in test", "deliverable tests",
            f"HASH = \"{h}\"\n\ndef test_wrong_password_rejected():\n    assert not bcrypt.checkpw(b\"wrong\", HASH.encode())")


@look("b")
def _lb_getpass():
    return ("password prompt", "deliverable code",
            "password = getpass.getpass(\"" + pick(["Database", "SMTP", "Vault", "Admin", "FTP"]) + " password: \")\nif not password:\n    sys.exit(\"no password given\")")


@look("b")
def _lb_field():
    return ("password field schema", "deliverable code",
            f"class User(models.Model):\n    email = models.EmailField(unique=True)\n    password = models.CharField(max_length={pick([128, 255])})\n    api_key_id = models.UUIDField(default=uuid.uuid4)")


@look("b")
def _lb_keyring():
    return ("keyring lookup", "deliverable code",
            f"token = keyring.get_password(\"{pick(['github', 'pypi', 'shop'])}\", \"{user()}\")")


@look("b")
def _lb_hmac_env():
    return ("hmac key from config", "deliverable code",
            "key := []byte(cfg." + pick(["WebhookSecret", "SigningKey", "HMACSecret", "Secret"]) + ")\nmac := hmac.New(sha256.New, key)\nmac.Write(body)")


@look("b")
def _lb_builder_env():
    return ("builder with env password", "deliverable code",
            f"cfg.setPassword(System.getenv(\"{envn('PASSWORD')}\"));\ncfg.setUsername(System.getenv(\"{envn('USER')}\"));")


@look("b")
def _lb_sha():
    return ("sha256 of a file in code", "deliverable code",
            f"EXPECTED_SHA256 = \"{rhex(64)}\"\nassert hashlib.sha256(open(\"model.bin\", \"rb\").read()).hexdigest() == EXPECTED_SHA256")


@look("b")
def _lb_uuid_const():
    return ("request id constant", "deliverable tests",
            f"REQUEST_ID = \"{uuid4()}\"\nORDER_ID = \"{uuid4()}\"\nIDEMPOTENCY_KEY = \"{uuid4()}\"")


@look("b")
def _lb_pk_stripe():
    return ("stripe publishable key", "deliverable code",
            f"const stripe = Stripe('{pick(['pk_live_', 'pk_test_'])}{rs(99)}');\nconst elements = stripe.elements();")


@look("b")
def _lb_firebase():
    return ("firebase web config", "deliverable code",
            f"const firebaseConfig = {{\n  apiKey: \"AIza{rs(35, ALNUM + '-_')}\",\n  authDomain: \"shop-demo-{R.randrange(100, 999)}.firebaseapp.com\",\n  projectId: \"shop-demo\",\n  messagingSenderId: \"{R.randrange(10**11, 10**12)}\",\n}};")


@look("b")
def _lb_named_args():
    return ("password kwarg from settings", "deliverable code",
            f"client = {pick(['Redis', 'Client', 'StrictRedis', 'Connection'])}(host=settings.{envn('HOST')}, password=settings.{envn('PASSWORD')}, ssl=True)")


@look("b")
def _lb_mock():
    return ("mock secret in test", "deliverable tests",
            f"monkeypatch.setenv(\"{envn('API_KEY')}\", \"test\")\nmonkeypatch.setenv(\"{envn('PASSWORD')}\", \"\")")


@look("b")
def _lb_hash_const():
    return ("git commit sha in code", "deliverable code",
            f"PINNED_COMMIT = \"{rhex(40)}\"  # upstream fix for the CSV parser")


# (c) config look-alikes

@look("c")
def _lc_env_ref():
    return ("env references", "deliverable docker-compose.yml",
            f"services:\n  db:\n    image: postgres:{R.randrange(12, 18)}\n    environment:\n      POSTGRES_USER: {user()}\n      POSTGRES_PASSWORD: ${{{envn('PASSWORD')}:?set it in .env}}")


@look("c")
def _lc_gha():
    return ("github actions secret reference", "deliverable workflow",
            "- name: " + pick(["Deploy", "Release", "Migrate", "Publish"]) + "\n  env:\n    API_TOKEN: ${{ secrets." + envn("TOKEN") + " }}\n    DB_PASSWORD: ${{ secrets." + envn("PASSWORD") + " }}\n  run: ./" + pick(["deploy", "release", "migrate"]) + ".sh")


@look("c")
def _lc_k8s_ref():
    return ("k8s secretKeyRef", "deliverable manifest",
            f"env:\n  - name: {envn('PASSWORD')}\n    valueFrom:\n      secretKeyRef:\n        name: {pick(['db', 'smtp', 'redis', 'api'])}-credentials\n        key: {pick(['password', 'token', 'secret'])}")


@look("c")
def _lc_arn():
    return ("secrets manager arn", "deliverable config",
            f"db_secret: arn:aws:secretsmanager:eu-west-1:{R.randrange(10**11, 10**12)}:secret:prod/shop/db-{rs(6)}")


@look("c")
def _lc_op():
    return ("1password reference", "deliverable .env.tpl",
            f"DB_PASSWORD=op://{pick(['Engineering', 'Shop', 'Ops'])}/postgres-prod/password\nSTRIPE_KEY=op://Shop/stripe/secret-key")


@look("c")
def _lc_vault_ref():
    return ("vault path reference", "deliverable config",
            f"database:\n  password: vault:secret/data/{pick(['shop', 'crm', 'api'])}/{pick(['db', 'pg', 'mysql'])}#password\n  username: vault:secret/data/shop/db#username\n  pool: {R.randrange(5, 50)}")


@look("c")
def _lc_sops():
    return ("sops encrypted value", "deliverable secrets.enc.yaml",
            f"db_password: ENC[AES256_GCM,data:{b64(rbytes(18))},iv:{b64(rbytes(32))},tag:{b64(rbytes(16))},type:str]\nsops:\n  version: 3.9.1")


@look("c")
def _lc_ansible_vault():
    lines = "\n".join(rhex(80) for _ in range(4))
    return ("ansible vault block", "deliverable group_vars",
            f"db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  " + lines.replace("\n", "\n  "))


@look("c")
def _lc_placeholder_env():
    return ("placeholder .env.example", "deliverable .env.example",
            f"DB_HOST=localhost\nDB_USER={user()}\nDB_PASSWORD=\nSTRIPE_SECRET_KEY=sk_test_...\n{envn('API_KEY')}={pick(['<your key here>', 'YOUR_API_KEY', 'REPLACE_ME', 'xxx', '...'])}")


@look("c")
def _lc_failed_login():
    lines = []
    for _ in range(R.randrange(2, 5)):
        lines.append(f"Nov {R.randrange(10, 29)} 03:{R.randrange(10, 59)}:{R.randrange(10, 59)} vps sshd[{R.randrange(1000, 99999)}]: Failed password for invalid user {pick(['admin', 'oracle', 'test', 'ubuntu', 'pi'])} from {ip()} port {R.randrange(30000, 65000)} ssh2")
    return ("failed ssh logins", "deliverable log", "\n".join(lines))


@look("c")
def _lc_auth_log_app():
    return ("failed login app log", "deliverable log",
            f"2026-11-{R.randrange(10, 29)}T08:{R.randrange(10, 59)}:00Z WARN auth: login failed user={user()} reason=bad_password attempts={R.randrange(1, 6)}\n2026-11-{R.randrange(10, 29)}T08:{R.randrange(10, 59)}:05Z INFO auth: password reset requested user={user()}")


@look("c")
def _lc_docker_stdin():
    return ("docker login password-stdin", "CI log",
            f"+ echo \"${envn('TOKEN')}\" | docker login -u {user()} --password-stdin registry.example.com\nLogin Succeeded")


@look("c")
def _lc_ci_masked():
    return ("masked secret in CI log", "CI log",
            "Run ./deploy.sh\n  env:\n    " + envn("TOKEN") + ": ***\n+ curl -H 'Authorization: Bearer ***' https://api.example.com/deploy\n{\"status\":\"queued\"}")


@look("c")
def _lc_iam_list():
    return ("iam key listing", "deliverable output",
            json.dumps({"AccessKeyMetadata": [{"UserName": "ci", "AccessKeyId": aws_id(), "Status": "Active",
                                               "CreateDate": f"2026-0{R.randrange(1, 9)}-1{R.randrange(10)}T10:00:00Z"}]}, indent=2))


@look("c")
def _lc_wg_pub():
    return ("wireguard public keys only", "deliverable peers",
            f"[Peer]\n# laptop\nPublicKey = {wg_key()}\nAllowedIPs = 10.8.0.3/32\n\n[Peer]\n# phone\nPublicKey = {wg_key()}\nAllowedIPs = 10.8.0.4/32")


@look("c")
def _lc_image_digest():
    return ("image digests", "deliverable manifest",
            f"image: registry.example.com/shop/api@sha256:{rhex(64)}\n# built from commit {rhex(40)}")


@look("c")
def _lc_htpasswd():
    return ("htpasswd hash", "deliverable .htpasswd",
            f"{user()}:$apr1${rs(8, ALNUM + './')}${rs(22, ALNUM + './')}")


@look("c")
def _lc_shadow():
    return ("shadow hash line", "deliverable incident notes",
            f"deploy:$6${rs(16, ALNUM + './')}${rs(86, ALNUM + './')}:19{R.randrange(700, 999)}:0:99999:7:::")


@look("c")
def _lc_kms_cipher():
    return ("kms ciphertext", "deliverable config",
            f"db:\n  # encrypted with KMS key alias/shop-prod\n  password_ciphertext: AQICAHh{b64(rbytes(150))}")


@look("c")
def _lc_pg_url_noauth():
    return ("connection url without password", "deliverable config",
            f"DATABASE_URL=postgres://{user()}@{host()}:5432/app?sslmode=require\n# password comes from PGPASSFILE")


@look("c")
def _lc_sql_role():
    return ("sql role without password", "deliverable migration",
            f"CREATE ROLE {pick(FIRST)}_ro NOLOGIN;\nALTER ROLE app_rw PASSWORD NULL;\n-- password is set by the operator through the secret store")


# (d) provider-shaped look-alikes

@look("d")
def _ld_masked_tok():
    k = pick(["github", "stripe_secret", "openai", "anthropic", "slack_bot", "hf"])
    t = tok(k)
    return ("masked " + TOKENS[k][1], "chat",
            f"the key that leaked starts with {t[:7]}… and ends with …{t[-4:]}; I already revoked it in the dashboard")


@look("d")
def _ld_masked_stars():
    k = pick(["stripe_secret", "openai", "github", "sendgrid"])
    t = tok(k)
    return ("masked token in settings screen", "support ticket",
            f"Settings > API keys shows: {t[:8]}{'*' * 20}{t[-4:]} (created 2026-11-{R.randrange(10, 29)})")


@look("d")
def _ld_pk():
    return ("publishable keys", "deliverable .env",
            f"NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_{rs(99)}\nNEXT_PUBLIC_POSTHOG_KEY=phc_{rs(43)}\nNEXT_PUBLIC_MAPBOX_TOKEN=pk.eyJ1Ijoi{rs(60)}.{rs(22, ALNUM + '-_')}")


@look("d")
def _ld_supabase_anon():
    anon = jwt({"iss": "supabase", "ref": rs(20, string.ascii_lowercase), "role": "anon", "iat": 1735000000 + R.randrange(10**7), "exp": 2050000000 + R.randrange(10**7)})
    return ("supabase anon key", "deliverable code",
            f"const supabase = createClient('https://{rs(20, string.ascii_lowercase)}.supabase.co', '{anon}')")


@look("d")
def _ld_rzp_id():
    return ("razorpay key id alone", "deliverable code",
            f"const rzp = new Razorpay({{ key: 'rzp_live_{rs(14)}', amount: {R.randrange(100, 99999)}, currency: 'INR' }});")


@look("d")
def _ld_aws_id():
    return ("aws access key id alone", "chat",
            f"the key id that shows in CloudTrail is {aws_id()}, can you check which user owns it?")


@look("d")
def _ld_client_id():
    return ("oauth client id alone", "deliverable config",
            f"GOOGLE_CLIENT_ID={R.randrange(10**11, 10**12)}-{rs(32, LOWER_ALNUM)}.apps.googleusercontent.com\nGITHUB_CLIENT_ID=Iv1.{rhex(16)}")


@look("d")
def _ld_header_ref():
    return ("header with variable", "deliverable code",
            "headers = {\"Authorization\": f\"Bearer {" + pick(["token", "access_token", "self.token", "creds.token"]) + "}\", \"X-Request-Id\": str(uuid.uuid4())}")


@look("d")
def _ld_header_placeholder():
    return ("header placeholder", "deliverable README",
            f"curl https://api.example.com/v1/items -H \"Authorization: Bearer $API_TOKEN\" -H \"X-Request-Id: {uuid4()}\"")


@look("d")
def _ld_twilio_sid():
    return ("twilio sids", "deliverable log",
            f"message sent sid=SM{rhex(32)} account=AC{rhex(32)} status=queued")


@look("d")
def _ld_stripe_ids():
    return ("stripe object ids", "deliverable log",
            f"refund created: re_{rs(24)} for charge ch_{rs(24)} (payment_intent pi_{rs(24)}, customer cus_{rs(14)})")


@look("d")
def _ld_url_ids():
    return ("url with ids", "chat",
            f"see https://app.example.com/projects/{uuid4()}/runs/{R.randrange(10**6, 10**7)}?tab=logs&page=2")


@look("d")
def _ld_cookie_prefs():
    return ("non-session cookies", "deliverable HTTP log",
            f"Cookie: theme=dark; lang=de; consent=analytics%3Dfalse; _ga=GA1.1.{R.randrange(10**8, 10**9)}.{R.randrange(10**9, 2 * 10**9)}")


@look("d")
def _ld_gh_fine_name():
    return ("token names and scopes", "chat",
            f"I created a fine-grained token named {pick(['ci-release', 'deploy-bot', 'docs-sync'])} with contents:write only, expiring in {pick([7, 30, 60, 90])} days; it's stored as {envn('TOKEN')} in the repo secrets.")


@look("d")
def _ld_plist_ref():
    return ("Info.plist build variable", "deliverable iOS config",
            f"<key>{pick(['ServerAPIKey', 'BackendKey', 'MapsKey'])}</key>\n<string>$({envn('API_KEY')})</string>")


@look("d")
def _ld_webhook_event():
    return ("webhook event ids", "deliverable log",
            f"evt_{rs(24)} checkout.session.completed delivered to https://shop-demo.test/webhooks/stripe (200, {R.randrange(50, 900)} ms)")


@look("d")
def _ld_revoked():
    return ("revoked key notice", "seller message",
            f"Heads-up: the token you pasted yesterday is now revoked (I rotated it in the {pick(['GitHub', 'Slack', 'OpenAI', 'Stripe'])} dashboard). Please generate a new one and store it as a repo secret.")


# (e) keys/wallet look-alikes

@look("e")
def _le_pubpem():
    return ("public key pem", "deliverable", "Verify the webhook signatures with this key:\n" + pem_public())


@look("e")
def _le_ssh_pub():
    return ("ssh public key", "seller message", "Please add my public key to authorized_keys:\n" + ssh_pub())


@look("e")
def _le_xpub():
    x = xkey(False)
    assert b58check_ok(x)
    return ("xpub", "deliverable config", f"[watch-only]\nxpub = {x}\ngap_limit = 20")


@look("e")
def _le_eth_addr():
    return ("eth addresses and tx hash", "deliverable log",
            f"transfer from {eth_addr()} to {eth_addr()}\ntx hash: 0x{rhex(64)}\nblock 0x{rhex(64)}")


@look("e")
def _le_sol_addr():
    return ("solana address and signature", "deliverable log",
            f"payer: {sol_addr()}\nsignature: {b58encode(rbytes(64))} (confirmed in slot {R.randrange(2 * 10**8, 4 * 10**8)})")


@look("e")
def _le_npub():
    return ("nostr npub", "chat", f"follow the bot at {bech32('npub', rbytes(32))}")


@look("e")
def _le_age_pub():
    return ("age recipients", "deliverable .sops.yaml",
            f"creation_rules:\n  - path_regex: secrets/.*\n    age: >-\n      {age_public()},\n      {age_public()}")


@look("e")
def _le_bad_seed():
    n = pick([12, 12, 24])
    w = bad_mnemonic(n)
    ctx = pick([
        ("word list game", "Today's spelling words: {s}"),
        ("validator test case", "def test_rejects_bad_checksum():\n    # invalid mnemonic: checksum must fail\n    INVALID = \"{s}\""),
        ("random bip39 words", "{s}"),
        ("vocabulary list", "Vocabulary for lesson {n}:\n{s}"),
    ])
    return ("bip39 words failing checksum (" + ctx[0] + ")", "deliverable",
            ctx[1].format(s=" ".join(w), n=R.randrange(2, 20)))


@look("e")
def _le_seed_talk():
    return ("prose about seed phrase", "buyer message",
            f"Never type your {pick([12, 24])}-word recovery phrase into any website. I only need the public address {pick(['', 'of the ' + pick(['MetaMask', 'Ledger', 'Trezor', 'Phantom']) + ' wallet '])}to check the balances.")


@look("e")
def _le_key_id():
    return ("gcp private_key_id alone", "deliverable json",
            json.dumps({"type": "service_account", "project_id": "shop-demo", "private_key_id": rhex(40),
                        "client_email": "ci@shop-demo.iam.gserviceaccount.com"}, indent=2))


@look("e")
def _le_fingerprint():
    fp = ":".join(rhex(2) for _ in range(16))
    return ("key fingerprints", "seller message",
            f"Host key fingerprint SHA256:{b64(rbytes(32)).rstrip('=')}\nold md5 {fp}\nGPG key id {rhex(16).upper()}")


@look("e")
def _le_zero_key():
    return ("dummy zero key", "deliverable .env.example",
            "PRIVATE_KEY=0x" + "0" * 64 + "\n# placeholder: set a real key in the environment")


@look("e")
def _le_pem_redacted():
    return ("redacted private key", "chat",
            f"-----BEGIN {pick(['OPENSSH ', 'RSA ', 'EC ', ''])}PRIVATE KEY-----\n{pick(['[redacted — sent through the secure upload]', '...', '<contents of id_ed25519>', '(removed)'])}\n-----END PRIVATE KEY-----")


@look("e")
def _le_btc_addr():
    p2pkh = b58check(bytes([0]) + rbytes(20))
    p2sh = b58check(bytes([5]) + rbytes(20))
    return ("bitcoin addresses", "deliverable report",
            f"Cold wallet: {p2pkh}\nChange: {p2sh}\nbalance checked on block {R.randrange(850000, 930000)}")


# (f) table/export/diff look-alikes

@look("f")
def _lf_csv_hash():
    rows = ["email,password_hash,created_at"]
    for _ in range(R.randrange(2, 4)):
        rows.append(f"{pick(FIRST)}@example.com,$argon2id$v=19$m=65536,t=3,p=4${b64(rbytes(16)).rstrip('=')}${b64(rbytes(32)).rstrip('=')},2026-0{R.randrange(1, 9)}-1{R.randrange(10)}")
    return ("hashed passwords in csv", "deliverable export", "\n".join(rows))


@look("f")
def _lf_md_empty():
    rows = ["| Service | Login | Password |", "|---|---|---|"]
    for s in R.sample(["cPanel", "FTP", "WordPress", "Mailchimp", "Router", "NAS"], 3):
        rows.append(f"| {s} | {user()} | {pick(['', '(in vault)', 'see 1Password', 'ask Marta', '—'])} |")
    return ("empty password column", "handover doc", "\n".join(rows))


@look("f")
def _lf_diff_ref():
    return ("diff replacing secret with reference", "deliverable diff",
            f"--- a/config/database.yml\n+++ b/config/database.yml\n@@ -4,3 +4,3 @@ production:\n   username: {user()}\n-  password: <%= ENV['DB_PASS'] %>\n+  password: <%= ENV.fetch('{envn('PASSWORD')}') %>")


@look("f")
def _lf_chatlog():
    return ("chat log about passwords", "dispute evidence",
            f"[2026-11-{R.randrange(10, 29)} 14:02] seller: I need access to the admin\n[2026-11-{R.randrange(10, 29)} 14:05] buyer: invited you as admin, check your inbox\n[2026-11-{R.randrange(10, 29)} 14:09] seller: got it, no password needed")


@look("f")
def _lf_csv_ids():
    rows = ["order_id,customer_id,payment_ref,amount"]
    for _ in range(R.randrange(2, 5)):
        rows.append(f"{uuid4()},{R.randrange(10**5, 10**6)},{rs(16, string.ascii_uppercase + string.digits)},{R.randrange(5, 500)}.{R.randrange(10, 99)}")
    return ("ids in csv export", "deliverable export", "\n".join(rows))


@look("f")
def _lf_checksums():
    rows = [f"{rhex(64)}  {n}" for n in R.sample(["app-linux-amd64.tar.gz", "app-darwin-arm64.tar.gz", "app-windows.zip", "SHA256SUMS.sig"], 3)]
    return ("checksums file", "deliverable SHA256SUMS", "\n".join(rows))


@look("f")
def _lf_user_export_nopw():
    return ("user export without passwords", "deliverable export.json",
            json.dumps({"users": [{"id": uuid4(), "email": f"{pick(FIRST)}@example.com", "mfa": True, "password_set": True, "last_login": "2026-11-20T10:00:00Z"}]}))


@look("f")
def _lf_bitwarden_enc():
    return ("encrypted password manager export", "deliverable export.json",
            json.dumps({"encrypted": True, "passwordProtected": True, "salt": b64(rbytes(16)),
                        "kdfType": 0, "kdfIterations": 600000,
                        "encKeyValidation_DO_NOT_EDIT": "2." + b64(rbytes(16)) + "|" + b64(rbytes(32)) + "|" + b64(rbytes(32)),
                        "data": "2." + b64(rbytes(16)) + "|" + b64(rbytes(96)) + "|" + b64(rbytes(32))}))


@look("f")
def _lf_git_log():
    return ("git log with shas", "deliverable",
            "\n".join(f"{rhex(7)} {m}" for m in R.sample(["remove hard-coded password from config", "rotate API keys (values in vault)", "fix login form validation", "add password strength meter", "move secrets to env vars"], 3)))


@look("f")
def _lf_tsv_masked():
    return ("masked passwords in tsv", "deliverable accounts.tsv",
            f"site\tlogin\tpass\n{host()}\t{user()}\t********\n{host()}\t{user()}\t********")


@look("f")
def _lf_transcript():
    return ("transcript without password", "deliverable transcript",
            f"SPEAKER 1: can you give me the login for the {pick(['CRM', 'shop', 'ERP', 'mail server', 'NAS'])}?\nSPEAKER 2: I'll add you as a user, you'll get an email to set your own password.\nSPEAKER 1: perfect")


@look("f")
def _lf_sql_hash():
    return ("sql insert with hashes", "deliverable seed.sql",
            f"INSERT INTO users (email, password_hash) VALUES\n  ('{pick(FIRST)}@example.com', '$2y$10${rs(53, ALNUM + './')}');")


@look("f")
def _lf_audit():
    return ("audit log of secret changes", "deliverable log",
            f"2026-11-{R.randrange(10, 29)} 09:{R.randrange(10, 59)} {user()} rotated secret STRIPE_SECRET_KEY (version {R.randrange(2, 30)})\n2026-11-{R.randrange(10, 29)} 09:{R.randrange(10, 59)} {user()} viewed secret DB_PASSWORD")


# ---------------------------------------------------------------- more kinds

MORE_PW = [
    ("th", "ข้อความ", "สวัสดีครับ รหัสผ่านเข้าระบบคือ {p}"),
    ("hu", "üzenet", "Szia, a jelszó: {p}"),
    ("fi", "viesti", "Moi, salasana on {p}"),
    ("da", "besked", "Hej, adgangskoden er {p}"),
    ("sw", "ujumbe", "Habari, nenosiri ni {p}"),
    ("en", "chat", "(pwd {p})"),
    ("en", "chat", "PW - {p}"),
    ("en", "chat", "login {u} pass \"{p}\""),
    ("en", "offer note", "I'll use the temporary password you set ({p}) only for the migration and then ask you to change it."),
    ("es", "chat", "contra: {p}"),
    ("fr", "chat", "identifiants : {u} / {p}"),
    ("de", "Chat", "Zugang: {u} // PW {p}"),
    ("en", "review", "Heads up to other buyers: I had to send my Etsy password ({p}) and the seller was very professional about it."),
]
for _l, _c, _t in MORE_PW:
    SEC["a"].append(_mk_human(_l, _c, _t))


@sec("a")
def _a_passphrase():
    pp = " ".join(pick(["correct", "purple", "tractor", "window", "mango", "river", "silent", "cactus", "violin", "pepper"]) for _ in range(4))
    return ("passphrase with spaces", "buyer message",
            f"The laptop's disk passphrase is \"{M(pp)}\" (all lowercase, spaces included)")


@sec("a")
def _a_qa_next_line():
    return ("password on line after question", "Q&A thread",
            f"seller: what's the password for the staging basic auth?\nbuyer: {M(password())}")


@sec("c")
def _c_azure_sas():
    return ("azure SAS signature", "deliverable config",
            f"BLOB_URL=https://shopdemo{R.randrange(100)}.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2027-01-01T00:00:00Z&spr=https&sig={M(b64(rbytes(32)).replace('+', '%2B').replace('/', '%2F').replace('=', '%3D'))}")


@sec("c")
def _c_gitlab_ci_log():
    return ("token in CI variables dump", "CI log",
            f"$ env | sort\nCI_COMMIT_SHA={rhex(40)}\nCI_JOB_ID={R.randrange(10**8, 10**9)}\nDEPLOY_TOKEN={M(tok(pick(['gitlab', 'digitalocean', 'vault', 'npm'])))}\nHOME=/root")


@sec("d")
def _d_har():
    k = pick(PROVIDERS_D)
    return (TOKENS[k][1] + " in HAR export", "deliverable .har",
            json.dumps({"request": {"method": "GET", "url": "https://api.example.com/v1/me",
                                    "headers": [{"name": "Authorization", "value": "Bearer @@S@@"},
                                                {"name": "Accept", "value": "application/json"}]}}).replace("@@S@@", M(tok(k))))


@sec("d")
def _d_postman_env():
    k = pick(PROVIDERS_D)
    return (TOKENS[k][1] + " in postman environment", "deliverable environment.json",
            json.dumps({"name": "prod", "values": [{"key": "baseUrl", "value": "https://api.example.com", "enabled": True},
                                                   {"key": "apiKey", "value": "@@S@@", "type": "secret", "enabled": True}]}).replace("@@S@@", M(tok(k))))


@sec("e")
def _e_descriptor():
    return ("xprv in output descriptor", "deliverable wallet backup",
            f"wpkh({M(xkey(True))}/84'/0'/0'/0/*)")


@sec("e")
def _e_wif_uncompressed():
    return ("bitcoin WIF uncompressed", "dispute statement",
            f"The seller asked me to paste the key of my old paper wallet, so I did: {M(b58check(bytes([0x80]) + rbytes(32)))}. Two days later the coins were gone.")


@sec("e")
def _e_sol_rust():
    return ("solana keypair base58 rust", "deliverable code",
            f"let payer = Keypair::from_base58_string(\"{M(sol_secret())}\");")


@sec("f")
def _f_pr_comment():
    return ("password in PR review comment", "deliverable review",
            f"> +SMTP_PASSWORD={M(password())}\n\nPlease don't commit this, move it to the secret store. I'll rotate it after merge.")


@sec("f")
def _f_ticket():
    return ("password in ticket export", "deliverable tickets.csv",
            f"id,title,body\n{R.randrange(1000, 9999)},Cannot log in,\"user {user()} says password {M(password())} is rejected since Monday\"")


MORE_PROSE = [
    ("en", "Q&A thread", "seller: what's the password for the admin?\nbuyer: it's on the sticker under the router, I'll send a photo of the device label tomorrow"),
    ("en", "chat", "login: {u} (password reset pending, wait for the email)"),
    ("en", "chat", "password hint: the name of our first office dog"),
    ("en", "chat", "Secret Santa this year is on the {d}, no gifts over 20 EUR!"),
    ("en", "buyer message", "The token expired, so the integration stopped at midnight. Can you add a refresh step?"),
    ("es", "chat", "contraseña: la de siempre, la tienes en el gestor"),
    ("pt", "chat", "senha: pede pro {u}, ele tem acesso"),
    ("fr", "chat", "mot de passe : celui du coffre-fort, entrée \"Hébergement\""),
    ("en", "chat", "pass: not needed, it's SSO through Google Workspace"),
    ("en", "review", "Recommended. Set up 2FA and a password manager for our whole team."),
]
for _l, _c, _t in MORE_PROSE:
    LOOK["a"].append(_mk_prose(_l, _c, _t))


@look("b")
def _lb_ml_seed():
    return ("random seed in code", "deliverable code",
            f"SEED = {R.randrange(1, 99999)}\ntorch.manual_seed(SEED)\nnp.random.seed(SEED)\nrandom.seed(SEED)")


@look("b")
def _lb_asm_mnemonic():
    return ("assembler mnemonic", "deliverable docs",
            f"The mnemonic {pick(['MOV', 'JMP', 'LDA', 'CMP'])} is encoded as 0x{rhex(2).upper()}; the disassembler prints mnemonic and operands separated by a tab.")


@look("b")
def _lb_tokens_count():
    return ("llm token counts", "deliverable log",
            f"usage: prompt_tokens={R.randrange(100, 9000)} completion_tokens={R.randrange(10, 4000)} max_tokens={pick([1024, 4096, 8192])} model=claude-sonnet request_id=req_{rs(24)}")


@look("b")
def _lb_sri():
    return ("subresource integrity hash", "deliverable html",
            f"<script src=\"https://cdn.example.com/lib-{R.randrange(1, 5)}.{R.randrange(10)}.min.js\" integrity=\"sha384-{b64(rbytes(48))}\" crossorigin=\"anonymous\"></script>")


@look("b")
def _lb_lock():
    return ("package-lock integrity", "deliverable package-lock.json",
            json.dumps({"node_modules/" + pick(["lodash", "axios", "zod", "dayjs"]): {"version": f"{R.randrange(1, 5)}.{R.randrange(20)}.{R.randrange(10)}",
                        "resolved": "https://registry.npmjs.org/pkg/-/pkg.tgz", "integrity": "sha512-" + b64(rbytes(64))}}, indent=2))


@look("b")
def _lb_gosum():
    return ("go.sum lines", "deliverable go.sum",
            f"example.com/lib v1.{R.randrange(20)}.{R.randrange(10)} h1:{b64(rbytes(32))}\nexample.com/lib v1.{R.randrange(20)}.{R.randrange(10)}/go.mod h1:{b64(rbytes(32))}")


@look("c")
def _lc_lfs():
    return ("git lfs pointer", "deliverable",
            f"version https://git-lfs.github.com/spec/v1\noid sha256:{rhex(64)}\nsize {R.randrange(10**5, 10**9)}")


@look("c")
def _lc_jira():
    return ("ticket about rotation", "deliverable notes",
            f"SEC-{R.randrange(100, 999)}: rotate the {pick(['SMTP', 'database', 'Redis', 'FTP'])} password after the contractor offboarding. Owner: {pick(FIRST)}. Due {R.randrange(1, 28)}.12.")


@look("d")
def _ld_data_uri():
    return ("base64 image data uri", "deliverable html",
            f"<img alt=\"logo\" src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{b64(rbytes(120))}\">")


@look("d")
def _ld_ids_table():
    return ("api key ids in table", "deliverable docs",
            f"| Key name | Key id | Created |\n|---|---|---|\n| ci | {uuid4()} | 2026-10-{R.randrange(10, 29)} |\n| backup | {uuid4()} | 2026-11-{R.randrange(10, 29)} |")


@look("e")
def _le_bytecode():
    return ("contract bytecode", "deliverable artifact",
            f"\"bytecode\": \"0x608060405234801561001057600080fd5b50{rhex(R.randrange(120, 300))}\"")


@look("e")
def _le_txid_chat():
    return ("transaction hash in chat", "buyer message",
            f"paid the milestone, tx: 0x{rhex(64)} — should confirm in a minute")


@look("e")
def _le_btc_txid():
    return ("bitcoin txid", "dispute statement",
            f"I sent {R.randrange(1, 9)}.{R.randrange(10, 99)} mBTC, txid {rhex(64)}, and the seller still says nothing arrived.")


@look("f")
def _lf_csv_empty():
    rows = ["email,password,role"]
    for _ in range(R.randrange(2, 4)):
        rows.append(f"{pick(FIRST)}@example.com,,{pick(['admin', 'editor'])}")
    return ("empty password column csv", "deliverable import template", "\n".join(rows))


@look("f")
def _lf_har_noauth():
    return ("HAR export without credentials", "deliverable .har",
            json.dumps({"request": {"method": "GET", "url": f"https://api.example.com/v1/items?page={R.randrange(1, 9)}",
                                    "headers": [{"name": "Authorization", "value": "[filtered]"},
                                                {"name": "X-Request-Id", "value": uuid4()}]}}))


# ---------------------------------------------------------------- code variety

@sec("b")
def _b_django_db():
    return ("password django DATABASES", "deliverable settings.py",
            f"DATABASES = {{\n    'default': {{\n        'ENGINE': 'django.db.backends.postgresql',\n        'NAME': 'shop',\n        'USER': '{user()}',\n        'PASSWORD': '{M(password())}',\n        'HOST': '{host()}',\n    }}\n}}")


@sec("b")
def _b_go_struct():
    return ("password go struct literal", "deliverable code",
            f"cfg := mysql.Config{{\n\tUser:   \"{user()}\",\n\tPasswd: \"{M(password())}\",\n\tNet:    \"tcp\",\n\tAddr:   \"{host()}:3306\",\n\tDBName: \"erp\",\n}}")


@sec("b")
def _b_java_props():
    return ("password java properties put", "deliverable code",
            f"Properties props = new Properties();\nprops.put(\"user\", \"{user()}\");\nprops.put(\"password\", \"{M(password())}\");\nConnection c = DriverManager.getConnection(url, props);")


@sec("b")
def _b_perl():
    return ("password perl DBI positional", "deliverable code",
            f"my $dbh = DBI->connect(\"DBI:mysql:database=crm;host={host()}\", \"{user()}\", \"{M(password())}\", {{ RaiseError => 1 }});")


@sec("b")
def _b_r():
    return ("password R dbConnect", "deliverable analysis.R",
            f"con <- dbConnect(RPostgres::Postgres(), dbname = \"analytics\", host = \"{host()}\", user = \"{user()}\", password = \"{M(password())}\")")


@sec("b")
def _b_dart():
    k = pick(["openai", "google", "stripe_secret", "anthropic"])
    return (TOKENS[k][1] + " dart const", "deliverable Flutter code",
            f"class Env {{\n  static const apiKey = '{M(tok(k))}';\n  static const baseUrl = 'https://api.example.com';\n}}")


@sec("b")
def _b_elixir():
    return ("password elixir config", "deliverable config/prod.exs",
            f"config :shop, Shop.Repo,\n  username: \"{user()}\",\n  password: \"{M(password())}\",\n  hostname: \"{host()}\",\n  pool_size: 10")


@sec("b")
def _b_sqlcmd():
    return ("sqlcmd -P password", "deliverable script",
            f"sqlcmd -S {host()} -U sa -P \"{M(password())}\" -i migrate.sql")


@sec("b")
def _b_jest():
    return ("password in js test fixture", "deliverable tests",
            f"it('logs in the seeded admin', async () => {{\n  await page.fill('#email', 'admin@shop-demo.test');\n  await page.fill('#password', '{M(password())}');\n  await page.click('button[type=submit]');\n}});")


@sec("b")
def _b_csharp_cred():
    return ("password c# NetworkCredential", "deliverable code",
            f"smtp.Credentials = new NetworkCredential(\"{user()}@example.org\", \"{M(password())}\");")


@sec("d")
def _d_set_cookie():
    return ("session cookie in Set-Cookie", "deliverable HTTP log",
            f"HTTP/1.1 302 Found\nLocation: /dashboard\nSet-Cookie: {pick(['session', 'sid', 'auth_token', 'remember_token'])}={M(rs(R.randrange(32, 64), ALNUM))}; Path=/; HttpOnly; Secure; SameSite=Lax")


@sec("d")
def _d_ws():
    k = pick(["supabase_service", "doppler", "linear", "hf"])
    return (TOKENS[k][1] + " in websocket url", "deliverable code",
            f"const ws = new WebSocket(`wss://realtime.example.com/socket?token={M(tok(k))}&vsn=1.0.0`);")


@sec("d")
def _d_grpc():
    k = pick(PROVIDERS_D)
    return (TOKENS[k][1] + " grpc metadata", "deliverable code",
            f"md := metadata.Pairs(\"authorization\", \"Bearer {M(tok(k))}\")\nctx := metadata.NewOutgoingContext(context.Background(), md)")


@look("b")
def _lb_go_env():
    return ("go struct from env", "deliverable code",
            f"cfg := mysql.Config{{\n\tUser:   os.Getenv(\"{envn('USER')}\"),\n\tPasswd: os.Getenv(\"{envn('PASSWORD')}\"),\n\tAddr:   \"{host()}:3306\",\n}}")


@look("b")
def _lb_dart_env():
    return ("dart fromEnvironment", "deliverable Flutter code",
            f"static const apiKey = String.fromEnvironment('{envn('API_KEY')}');")


@look("b")
def _lb_jest_env():
    return ("test password from env", "deliverable tests",
            f"await page.fill('#password', process.env.{envn('E2E_PASSWORD')} ?? '');")


@look("b")
def _lb_pw_validator():
    return ("password validator", "deliverable code",
            f"if len(password) < {R.randrange(8, 16)} or password.lower() in COMMON_PASSWORDS:\n    raise ValidationError(\"password too weak\")")


@look("d")
def _ld_set_cookie_clear():
    return ("cleared session cookie", "deliverable HTTP log",
            f"HTTP/1.1 302 Found\nLocation: /login\nSet-Cookie: {pick(['session', 'sid', 'auth_token'])}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly")


# ---------------------------------------------------------------- assembly

QUOTA_S = {"a": 120, "b": 100, "c": 95, "d": 105, "e": 70, "f": 60}
QUOTA_L = {"a": 105, "b": 100, "c": 100, "d": 95, "e": 75, "f": 75}
assert sum(QUOTA_S.values()) == N_SECRET and sum(QUOTA_L.values()) == N_LOOK

GROUP_NAME = {"a": "a: passwords in messages", "b": "b: code", "c": "c: infra/config/CI",
              "d": "d: provider tokens", "e": "e: keys/seeds/wallets", "f": "f: tables/exports/diffs/chats"}


def escape(text):
    if "\\" in text:
        raise ValueError("backslash in text: " + text[:60])
    if "\r" in text:
        raise ValueError("carriage return in text")
    return text.replace("\n", "\\n").replace("\t", "\\t")


def marks_ok(text):
    depth = 0
    n = 0
    for ch in text:
        if ch == "«":
            if depth:
                return False
            depth = 1
            n += 1
        elif ch == "»":
            if not depth:
                return False
            depth = 0
    return depth == 0 and n >= 1


WORDSET = set(WORDS)
REJECTED = [0]


def has_valid_phrase(text):
    """True when some run of 12..24 BIP-39 words in the text carries a valid checksum."""
    toks = "".join(c if c.isalpha() and c.isascii() else " " for c in text.lower()).split()
    for k in (12, 15, 18, 21, 24):
        for i in range(len(toks) - k + 1):
            w = toks[i:i + k]
            if all(x in WORDSET for x in w) and bip39_ok(w):
                return True
    return False


def build(table, quota, secret):
    out = []
    seen = set()
    dropped = 0
    for g in "abcdef":
        fns = table[g]
        order = []
        count = 0
        tries = 0
        while count < quota[g]:
            tries += 1
            if tries > quota[g] * 50:
                raise SystemExit(f"cannot fill group {g}")
            if not order:
                order = list(fns)
                R.shuffle(order)
            kind, ctx, text = order.pop()()
            line = escape(text)
            if line.startswith("#"):
                raise SystemExit("text starts with #: " + line[:60])
            if not line.strip():
                raise SystemExit("empty text")
            if secret:
                if not marks_ok(text):
                    raise SystemExit("bad marks: " + line[:80])
            else:
                if "«" in text or "»" in text:
                    raise SystemExit("mark in look-alike: " + line[:80])
                if has_valid_phrase(text):
                    REJECTED[0] += 1
                    continue
            if line in seen:
                dropped += 1
                continue
            seen.add(line)
            comment = f"# {kind} | {ctx} ({GROUP_NAME[g]})"
            out.append((comment, line))
            count += 1
    return out, dropped


def write(name, header, rows):
    with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as f:
        for h in header:
            f.write("# " + h + "\n")
        for comment, line in rows:
            f.write(comment.replace("\n", " ") + "\n")
            f.write(line + "\n")


def main():
    secrets, d1 = build(SEC, QUOTA_S, True)
    looks, d2 = build(LOOK, QUOTA_L, False)
    # cross-check: no look-alike equals a secret text with its marks taken off
    unmarked = {l.replace("«", "").replace("»", "") for _, l in secrets}
    clash = [l for _, l in looks if l in unmarked]
    if clash:
        raise SystemExit("look-alike equals an unmarked secret text")
    write("heldout14_secret.txt", [
        "Fourteenth held-out credentials: texts holding at least one credential; «...» marks every value to remove.",
        "Written by heldout14_gen.py (seed 2026112914), blind to the detector. Random, fake values; reserved or made-up domains.",
    ], secrets)
    write("heldout14_lookalike.txt", [
        "Fourteenth held-out look-alikes: texts in which nothing may be found.",
        "Written by heldout14_gen.py (seed 2026112914), blind to the detector. Random, fake values; reserved or made-up domains.",
    ], looks)
    nmarks = sum(l.count("«") for _, l in secrets)
    print(f"heldout14_secret.txt: {len(secrets)} texts, {nmarks} marks, {d1} duplicates dropped")
    print(f"heldout14_lookalike.txt: {len(looks)} texts, {d2} duplicates dropped, "
          f"{REJECTED[0]} regenerated because a run of BIP-39 words happened to carry a valid checksum")
    for g in "abcdef":
        print(f"  group {g}: {QUOTA_S[g]} secret, {QUOTA_L[g]} look-alike, "
              f"{len(SEC[g])}/{len(LOOK[g])} generators")


if __name__ == "__main__":
    main()
