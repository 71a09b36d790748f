#!/usr/bin/env python3
"""Fifteenth held-out credential corpus for the screen package.

Writes heldout15_secret.txt (texts holding at least one credential, every value that
must be removed wrapped in «...») and heldout15_lookalike.txt (texts in which nothing
may be found). Stdlib only; seeded, so running it again writes the same files.

Every value is random in the shape of its kind; none is or was a working credential.
Domains are reserved (example.com/.org/.net, .test, .example, .invalid) or made up.
"""

import base64
import hashlib
import json
import os
import random
import string
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WORDLIST = os.path.join(HERE, "..", "..", "bip39_english.txt")
WORDLIST_SHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"
N = 550

R = random.Random(2026112915)


def load_words():
    with open(WORDLIST, "rb") as f:
        data = f.read()
    if hashlib.sha256(data).hexdigest() != WORDLIST_SHA256:
        sys.exit("bip39_english.txt does not have the expected SHA-256; refusing")
    words = data.decode().split()
    if len(words) != 2048:
        sys.exit("bip39_english.txt does not hold 2048 words; refusing")
    return words


BIP = load_words()
BIPIDX = {w: i for i, w in enumerate(BIP)}

# ---------------------------------------------------------------- primitives

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
ALNUM = LOW + UP + DIG
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def rs(n, alpha=ALNUM):
    return "".join(R.choice(alpha) for _ in range(n))


def mixed(n, alpha=ALNUM):
    """random string that surely holds a lower, an upper and a digit"""
    while True:
        s = rs(n, alpha)
        if all(any(c in cls for c in s) for cls in (LOW, UP, DIG) if any(c in cls for c in alpha)):
            return s


def hx(n):
    return rs(n, HEX)


def rbytes(n):
    return bytes(R.randrange(256) for _ in range(n))


def b64(n_bytes):
    return base64.b64encode(rbytes(n_bytes)).decode()


def b64url_nopad(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def digits(n):
    return str(R.randint(1, 9)) + rs(n - 1, DIG)


def uuid4():
    h = hx(32)
    h = h[:12] + "4" + h[13:16] + R.choice("89ab") + h[17:]
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def M(v):
    return "«" + v + "»"


def pick(*xs):
    return R.choice(xs)


# base58 / base58check
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


def wif(compressed=True, testnet=False):
    key = rbytes(32)
    p = (b"\xef" if testnet else b"\x80") + key + (b"\x01" if compressed else b"")
    return b58check(p)


def xkey(private=True, testnet=False):
    if private:
        ver = bytes.fromhex("04358394" if testnet else "0488ade4")
    else:
        ver = bytes.fromhex("043587cf" if testnet else "0488b21e")
    depth = bytes([R.choice([0, 3, 4])])
    fp = b"\0\0\0\0" if depth == b"\0" else rbytes(4)
    child = b"\0\0\0\0" if depth == b"\0" else (R.randrange(2 ** 31) | (R.choice([0, 1]) << 31)).to_bytes(4, "big")
    chain = rbytes(32)
    key = (b"\0" + rbytes(32)) if private else (bytes([R.choice([2, 3])]) + rbytes(32))
    return b58check(ver + depth + fp + child + chain + key)


# bech32
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


def _hrp_expand(h):
    return [ord(x) >> 5 for x in h] + [0] + [ord(x) & 31 for x in h]


def _convertbits(data, frm, to, pad=True):
    acc = 0
    bits = 0
    ret = []
    maxv = (1 << to) - 1
    for v in data:
        acc = (acc << frm) | v
        bits += frm
        while bits >= to:
            bits -= to
            ret.append((acc >> bits) & maxv)
    if pad and bits:
        ret.append((acc << (to - bits)) & maxv)
    return ret


def bech32(hrp, data5):
    values = _hrp_expand(hrp) + data5
    pm = _polymod(values + [0] * 6) ^ 1
    chk = [(pm >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(BECH[d] for d in data5 + chk)


def bech32_bytes(hrp, b):
    return bech32(hrp, _convertbits(b, 8, 5))


def segwit_addr():
    return bech32("bc", [0] + _convertbits(rbytes(20), 8, 5))


def age_secret():
    return bech32_bytes("age-secret-key-", rbytes(32)).upper()


def age_public():
    return bech32_bytes("age", rbytes(32))


def nsec():
    return bech32_bytes("nsec", rbytes(32))


def npub():
    return bech32_bytes("npub", rbytes(32))


# BIP-39
def mnemonic(nwords=12):
    ent_bits = nwords * 11 * 32 // 33
    ent = rbytes(ent_bits // 8)
    cs = ent_bits // 32
    h = hashlib.sha256(ent).digest()
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(ent_bits) + bin(int.from_bytes(h, "big"))[2:].zfill(256)[:cs]
    words = [BIP[int(bits[i:i + 11], 2)] for i in range(0, len(bits), 11)]
    assert checksum_ok(words)
    return words


def checksum_ok(words):
    if len(words) not in (12, 15, 18, 21, 24):
        return False
    bits = "".join(bin(BIPIDX[w])[2:].zfill(11) for w in words)
    ent_bits = len(words) * 11 * 32 // 33
    ent = int(bits[:ent_bits], 2).to_bytes(ent_bits // 8, "big")
    cs = len(bits) - ent_bits
    h = bin(int.from_bytes(hashlib.sha256(ent).digest(), "big"))[2:].zfill(256)[:cs]
    return h == bits[ent_bits:]


AVOID_IN_LISTS = {"seed", "phrase", "derive", "secret", "private", "key", "word", "twelve"}


def bad_mnemonic(nwords=12):
    while True:
        ws = [R.choice(BIP) for _ in range(nwords)]
        if AVOID_IN_LISTS & set(ws):
            continue
        # no window of 12, 15, 18, 21 or 24 words may hold a valid checksum either
        if not any(checksum_ok(ws[i:i + L]) for L in (12, 15, 18, 21, 24) for i in range(len(ws) - L + 1)):
            return ws


def jwt(payload, alg="HS256", sig_len=43):
    head = b64url_nopad(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    body = b64url_nopad(json.dumps(payload, separators=(",", ":")).encode())
    return head + "." + body + "." + rs(sig_len, B64URL)


def pem_body(nbytes):
    s = base64.b64encode(rbytes(nbytes)).decode()
    return "\n".join(s[i:i + 64] for i in range(0, len(s), 64))


# ---------------------------------------------------------------- vocabulary

FIRST = ["Marta", "Jonas", "Aiko", "Priya", "Tomás", "Lena", "Omar", "Sven", "Ines", "Kwame", "Yuki", "Dmitri",
         "Fatima", "Lucas", "Mei", "Arjun", "Zofia", "Emeka", "Hana", "Rafael", "Noor", "Bjorn", "Chloe", "Tariq",
         "Ana", "Kenji", "Olga", "Mateo", "Ayla", "Nikos", "Sara", "Linh", "Pablo", "Greta", "Idris", "Maya"]
WORDS = ["copper", "lantern", "river", "falcon", "maple", "orbit", "velvet", "harbor", "cobalt", "meadow",
         "thunder", "pepper", "glacier", "saffron", "willow", "ember", "quartz", "tundra", "mango", "ripple",
         "canyon", "biscuit", "nimbus", "walnut", "cactus", "lotus", "marble", "otter", "prism", "sparrow",
         "tango", "violet", "zephyr", "bramble", "cinder", "dolphin", "juniper", "kettle", "lynx", "nectar"]
LWORDS = ["Sonnenblume", "Primavera", "Mariposa", "Girassol", "Papillon", "Zvezda", "Kotik", "Yildiz",
          "Kirschbaum", "Estrella", "Tramonto", "Sakura", "Bintang", "Solrosen", "Pomarańcza", "Hoamai",
          "Lumière", "Golondrina", "Babochka", "Tulipan", "Arcoiris", "Nuvola", "Matahari", "Fjaril"]
SYM = "!#$%&*@?-_.+="
DOM = ["example.com", "example.org", "example.net", "acme-widgets.test", "northwind-labs.example",
       "bluefin.invalid", "staging.example.com", "orchard-crm.test", "kestrel-apps.example", "tidepool.test"]
USERS = ["admin", "deploy", "app_user", "svc_reports", "root", "postgres", "etl", "marta", "jonas.k", "qa_bot",
         "ci-runner", "billing", "wp_admin", "analytics", "sftpuser", "ops", "backup", "grafana", "api"]
DBS = ["shop", "crm_prod", "analytics", "orders", "app", "inventory", "billing", "wordpress", "metrics"]


def name():
    return R.choice(FIRST)


def dom():
    return R.choice(DOM)


def user():
    return R.choice(USERS)


def host():
    return pick("db", "pg-main", "mysql-01", "redis", "mq", "cache", "api", "sftp", "mail", "ldap") + "." + dom()


def ip():
    return pick("192.0.2.", "198.51.100.", "203.0.113.", "10.0.3.", "172.16.8.") + str(R.randint(2, 250))


def pw_word_digits():
    w = R.choice(WORDS + LWORDS)
    w = w.capitalize() if R.random() < 0.7 else w
    return w + digits(R.choice([2, 3, 4])) + (R.choice(SYM[:8]) if R.random() < 0.4 else "")


def pw_name_year():
    return R.choice(FIRST).replace("á", "a") + pick("", "_", ".", "@") + str(R.randint(1962, 2019)) + (R.choice("!#*") if R.random() < 0.5 else "")


def pw_dashed():
    n = R.choice([3, 3, 4])
    ws = R.sample(WORDS, n)
    s = pick("-", "-", ".", "_").join(ws)
    return s + digits(R.choice([1, 2, 2]))


def pw_random():
    alpha = ALNUM + "!#$%*@?-_"
    while True:
        s = rs(R.randint(12, 20), alpha)
        if any(c in DIG for c in s) and any(c in UP for c in s) and any(c in LOW for c in s):
            return s


def pw_words_cap():
    return "".join(w.capitalize() for w in R.sample(WORDS, 2)) + digits(2) + R.choice("!?#$")


def pw():
    return R.choice([pw_word_digits, pw_word_digits, pw_name_year, pw_dashed, pw_dashed, pw_random, pw_words_cap])()


def stamp():
    return "2026-%02d-%02d %02d:%02d" % (R.randint(1, 11), R.randint(1, 28), R.randint(0, 23), R.randint(0, 59))


def iso():
    return "2026-%02d-%02dT%02d:%02d:%02dZ" % (R.randint(1, 11), R.randint(1, 28), R.randint(0, 23), R.randint(0, 59), R.randint(0, 59))


# provider token shapes -------------------------------------------------------
def tok_github():
    return pick("ghp_", "gho_", "ghu_", "ghs_") + mixed(36)


def tok_github_pat():
    return "github_pat_11" + mixed(20, UP + DIG) + "_" + mixed(59)


def tok_gitlab():
    return "glpat-" + mixed(20, B64URL)


def tok_slack_bot():
    return "xoxb-" + digits(12) + "-" + digits(13) + "-" + mixed(24)


def tok_slack_user():
    return "xoxp-" + digits(12) + "-" + digits(12) + "-" + digits(13) + "-" + hx(32)


def tok_stripe():
    return pick("sk_live_", "rk_live_", "sk_test_") + "51" + mixed(R.choice([24, 97]))


def tok_whsec():
    return "whsec_" + mixed(32)


def tok_openai():
    return pick("sk-proj-", "sk-svcacct-", "sk-") + mixed(R.choice([48, 64]), B64URL) + "T3BlbkFJ" + mixed(R.choice([20, 48]), B64URL)


def tok_anthropic():
    return "sk-ant-api03-" + mixed(93, B64URL) + "AA"


def tok_google():
    return "AIza" + mixed(35, B64URL)


def tok_hf():
    return "hf_" + mixed(34, LOW + UP)


def tok_npm():
    return "npm_" + mixed(36)


def tok_pypi():
    return "pypi-AgEIcHlwaS5vcmc" + mixed(R.choice([64, 120]), B64URL)


def tok_sendgrid():
    return "SG." + mixed(22, B64URL) + "." + mixed(43, B64URL)


def tok_groq():
    return "gsk_" + mixed(52)


def tok_replicate():
    return "r8_" + mixed(37)


def tok_pplx():
    return "pplx-" + mixed(48)


def tok_xai():
    return "xai-" + mixed(80)


def tok_pinecone():
    return "pcsk_" + mixed(5) + "_" + mixed(60)


def tok_databricks():
    return "dapi" + hx(32)


def tok_do():
    return "dop_v1_" + hx(64)


def tok_cf():
    return mixed(40, B64URL)


def tok_aws_secret():
    return mixed(40, ALNUM + "+/")


def tok_azure_key():
    return base64.b64encode(rbytes(64)).decode()


def tok_telegram():
    return digits(10) + ":AA" + mixed(33, B64URL)


def tok_discord_bot():
    uid = b64url_nopad(digits(18).encode())
    return uid + "." + mixed(6, B64URL) + "." + mixed(38, B64URL)


def tok_linear():
    return "lin_api_" + mixed(40)


def tok_notion():
    return "ntn_" + mixed(46)


def tok_airtable():
    return "pat" + mixed(14) + "." + hx(64)


def tok_postman():
    return "PMAK-" + hx(24) + "-" + hx(34)


def tok_dckr():
    return "dckr_pat_" + mixed(27, B64URL)


def tok_tfc():
    return mixed(14) + ".atlasv1." + mixed(67)


def tok_figma():
    return "figd_" + mixed(40, B64URL)


def tok_klaviyo():
    return "pk_" + hx(34)


def tok_mailchimp():
    return hx(32) + "-us" + str(R.randint(2, 21))


def tok_hubspot():
    return "pat-" + pick("na1", "eu1") + "-" + uuid4()


def tok_square():
    return "EAAA" + mixed(60, B64URL)


def tok_flw():
    return "FLWSECK-" + hx(32) + "-X"


def tok_paystack():
    return "sk_live_" + hx(40)


def tok_mollie():
    return "live_" + mixed(30)


def tok_sbp():
    return "sbp_" + hx(40)


def tok_gocspx():
    return "GOCSPX-" + mixed(28, B64URL)


def tok_azure_ad():
    return rs(3, ALNUM) + "8Q~" + mixed(34, ALNUM + "_.~-")


def tok_okta():
    return "00" + mixed(40, B64URL)


def tok_sentry():
    return "sntrys_" + b64url_nopad(json.dumps({"iat": R.randint(1_700_000_000, 1_800_000_000), "url": "https://sentry.io", "org": "acme"}).encode()) + "_" + mixed(43, B64URL)


def tok_fcm():
    return "AAAA" + mixed(7, B64URL) + ":APA91b" + mixed(134, B64URL)


def tok_twilio_auth():
    return hx(32)


def tok_mapbox_secret():
    return "sk.eyJ1Ijoi" + mixed(50, B64URL) + "." + mixed(22, B64URL)


def tok_alchemy():
    return mixed(32, B64URL)


def tok_etherscan():
    return mixed(34, UP + DIG)


def tok_vercel():
    return mixed(24)


def tok_netlify():
    return "nfp_" + mixed(36)


def tok_contentful():
    return "CFPAT-" + mixed(43, B64URL)


def tok_dropbox():
    return "sl.u." + mixed(140, B64URL)


def tok_bitbucket():
    return "ATBB" + mixed(28) + hx(8).upper()


def tok_datadog():
    return hx(32)


def tok_newrelic():
    return "NRAK-" + mixed(27, UP + DIG)


def tok_glsa():
    return "glsa_" + mixed(32) + "_" + hx(8)


def tok_pulumi():
    return "pul-" + hx(40)


def tok_fly():
    return "fm2_" + mixed(160, B64URL)


def tok_doppler():
    return "dp.st.prd." + mixed(43)


def tok_shopify():
    return pick("shpat_", "shpca_", "shppa_") + hx(32)


def tok_mailgun():
    return "key-" + hx(32)


def tok_bearer_opaque():
    return mixed(R.choice([32, 40, 48, 64]), B64URL)


def service_role_jwt():
    now = R.randint(1_700_000_000, 1_760_000_000)
    return jwt({"iss": "supabase", "ref": rs(20, LOW), "role": "service_role", "iat": now, "exp": now + 315360000})


def anon_jwt():
    now = R.randint(1_700_000_000, 1_760_000_000)
    return jwt({"iss": "supabase", "ref": rs(20, LOW), "role": "anon", "iat": now, "exp": now + 315360000})


def user_jwt():
    now = R.randint(1_760_000_000, 1_780_000_000)
    return jwt({"sub": digits(7), "email": name().lower() + "@" + dom(), "scope": "orders:write", "iat": now, "exp": now + 3600},
               alg=pick("HS256", "RS256"), sig_len=pick(43, 342))


def akia():
    return pick("AKIA", "ASIA") + rs(16, UP + "234567")


# ---------------------------------------------------------------- samples

SECRET = []   # (kind, context, group, fn)
LOOK = []


def secret(kind, ctx, group):
    def deco(fn):
        SECRET.append((kind, ctx, group, fn))
        return fn
    return deco


def look(kind, ctx, group):
    def deco(fn):
        LOOK.append((kind, ctx, group, fn))
        return fn
    return deco


# ======================================================= (a) human messages

PW_LINES = [
    # (language, template) -- {p} is the marked password, {u} a user, {h} a host
    ("en", "hey, staging login is {u} / {p} - please change it after you're in"),
    ("en", "Sure! The admin panel is at https://{h}/admin, user {u}, pass is {p}. Let me know if it doesn't work."),
    ("en", "forgot to add: the zip is locked, the password is {p}"),
    ("en", "Credentials for the test shop: username {u}, password {p} (same one for the FTP)"),
    ("en", "the wifi here is GuestNet and the code is {p} if you're joining the call from the office"),
    ("en", "pw for the shared drive → {p}"),
    ("en", "I reset it for you, new one: {p}\nIt will ask you to change it on first login."),
    ("en", "Login: {u}\nPassword: {p}\nURL: https://{h}/wp-admin"),
    ("en", "ok so it's {u} and then {p} as the password, capital first letter"),
    ("es", "Hola, te paso el acceso: usuario {u}, contraseña {p}. Cualquier cosa me avisas."),
    ("es", "La clave del panel es {p}, pero no la compartas con nadie más por favor"),
    ("pt", "Segue o acesso ao servidor: usuário {u} e senha {p}"),
    ("pt", "a senha do wi-fi do escritório é {p}, rede Escritorio_5G"),
    ("fr", "Bonjour, voici les identifiants : login {u}, mot de passe {p}. Merci de le changer ensuite."),
    ("fr", "Le mdp du back-office c'est {p} (avec la majuscule)"),
    ("de", "Hallo, die Zugangsdaten: Benutzer {u}, Passwort {p}. Bitte nach dem ersten Login ändern."),
    ("de", "Kennwort für das Archiv lautet {p}"),
    ("it", "Ciao, ecco l'accesso: utente {u}, password {p}, fammi sapere"),
    ("it", "la parola d'ordine per il file è {p}"),
    ("nl", "Inloggegevens: gebruikersnaam {u}, wachtwoord {p}. Succes!"),
    ("pl", "Dane do logowania: login {u}, hasło {p}"),
    ("pl", "hasło do bazy to {p}, użytkownik {u}"),
    ("ru", "Привет! Доступ к админке: логин {u}, пароль {p}"),
    ("ru", "пароль от архива — {p}"),
    ("uk", "Ось доступи: логін {u}, пароль {p}. Після входу змініть, будь ласка."),
    ("tr", "Merhaba, panel girişi: kullanıcı adı {u}, şifre {p}"),
    ("tr", "Parola: {p} (büyük harfe dikkat)"),
    ("id", "Ini akses ke server ya, username {u} dan kata sandi {p}"),
    ("id", "password-nya {p} kak, nanti diganti aja"),
    ("vi", "Gửi anh thông tin đăng nhập: tài khoản {u}, mật khẩu {p}"),
    ("ja", "お疲れ様です。管理画面のログイン情報です。ID: {u} パスワード: {p}"),
    ("ja", "ZIPのパスワードは{p}です。よろしくお願いします。"),
    ("zh", "你好，后台账号 {u}，密码 {p}，登录后记得改一下"),
    ("zh", "压缩包解压密码：{p}"),
    ("zh-tw", "測試機帳號 {u}／密碼 {p}"),
    ("ko", "안녕하세요, 관리자 계정은 {u}이고 비밀번호는 {p}입니다."),
    ("ko", "와이파이 비번 {p} 이에요"),
    ("ar", "مرحبا، بيانات الدخول: اسم المستخدم {u} وكلمة المرور {p}"),
    ("he", "היי, שם משתמש {u} וסיסמה {p}"),
    ("hi", "नमस्ते, लॉगिन के लिए यूज़र {u} और पासवर्ड {p} है"),
    ("th", "รหัสผ่านเข้าระบบคือ {p} ชื่อผู้ใช้ {u} ค่ะ"),
    ("el", "Καλησπέρα, ο κωδικός πρόσβασης είναι {p} και το όνομα χρήστη {u}"),
    ("sv", "Här är inloggningen: användarnamn {u}, lösenord {p}"),
    ("cs", "Přihlašovací údaje: uživatel {u}, heslo {p}"),
    ("ro", "Datele de acces: utilizator {u}, parola {p}"),
    ("fil", "Ito po yung login: user {u}, password po ay {p}"),
    ("sw", "Habari, jina la mtumiaji ni {u} na nenosiri ni {p}"),
    ("fa", "سلام، نام کاربری {u} و رمز عبور {p} هست"),
    ("hu", "Belépés: felhasználó {u}, jelszó {p}"),
    ("fi", "Tunnukset: käyttäjä {u}, salasana {p}"),
    ("da", "Login: {u} / adgangskode {p}"),
    ("no", "Brukernavn {u} og passord {p}, bytt det etterpå"),
    ("bn", "ইউজার {u}, পাসওয়ার্ড {p}"),
    ("ms", "Nama pengguna {u}, kata laluan {p}"),
]

CONTEXTS_A = ["buyer message", "seller message", "offer note", "Q&A answer", "dispute statement", "review", "delivery note"]


def make_pw_msg():
    lang, t = R.choice(PW_LINES)
    text = t.format(u=user(), p=M(pw()), h=host())
    return lang, text


@secret("password", "message in many languages", "a")
def _():
    lang, text = make_pw_msg()
    return "password (%s)" % lang, R.choice(CONTEXTS_A), text


for _i in range(14):  # the many-language messages are the bulk of group (a)
    SECRET.append(SECRET[-1])


@secret("password", "dispute statement", "a")
def _():
    p = pw()
    return "password", "dispute statement", pick(
        "I delivered on time. The seller's own message on %s says the hosting login was %s / %s and it worked for me that day; it was changed later, not by me." % (stamp()[:10], user(), M(p)),
        "Statement: buyer gave me access (user %s, password %s) and then claimed I never had it. Screenshot attached." % (user(), M(p)),
        "Para el árbitro: el vendedor tenía la contraseña %s desde el primer día y aun así no entregó." % M(p),
    )


@secret("password", "review", "a")
def _():
    return "password", "review", pick(
        "5 stars. Fixed my WooCommerce in an hour. (note to self: the temp admin pass was %s, remember to delete the account)" % M(pw()),
        "Great seller!!! ps the password %s still works, you can log in again if the bug comes back" % M(pw()),
        "Très bon travail. Le mot de passe temporaire %s peut être supprimé maintenant." % M(pw()),
    )


@secret("password", "two-line chat", "a")
def _():
    q = pick("what's the password for the staging box?", "¿cuál es la contraseña?", "und das Passwort?", "パスワードは？", "пароль какой?", "密码是多少？", "what pw did you set?")
    return "password", "chat question then bare answer", "[%s] %s: %s\n[%s] %s: %s" % (stamp()[11:], name(), q, stamp()[11:], name(), M(pw()))


@secret("password", "message with name+year password", "a")
def _():
    p = pw_name_year()
    return "password", "offer note", pick(
        "Offer note: I'll need SSH access. If you prefer I can use the account you mentioned (%s, password %s)." % (user(), M(p)),
        "your cpanel password %s is very weak btw, I'd change it after I finish" % M(p),
        "Login is my email and the password is my daughter's name plus year, %s — please don't laugh" % M(p),
    )


@secret("password", "dashed-words password", "a")
def _():
    p = pw_dashed()
    return "password", "buyer message", pick(
        "Vault export attached. Master password for the KeePass file: %s" % M(p),
        "passphrase for the 7z is %s (all lowercase)" % M(p),
        "Hier das Passwort für die Datenbank-Sicherung: %s" % M(p),
        "the unlock phrase for the encrypted disk image: %s" % M(p),
    )


@secret("password", "password in quotes after a verb", "a")
def _():
    p = pw()
    return "password", "seller message", pick(
        "I've set the mailbox password to \"%s\" for now" % M(p),
        "I changed it to '%s' so we both know it" % M(p),
        "Changed the router admin pass to %s and disabled WPS" % M(p),
        "He cambiado la contraseña a %s, ya puedes entrar" % M(p),
        "Passwort geändert auf %s" % M(p),
    )


@secret("wifi password", "message", "a")
def _():
    ssid = pick("Cafe_Lumen", "Office-5G", "FRITZ!Box 7590 XQ", "Livebox-8A21", "TP-Link_4C2E", "Coworking Guest")
    return "wifi password", "message", pick(
        "Wi-Fi: %s / %s" % (ssid, M(pw())),
        "SSID %s, key %s" % (ssid, M(pw())),
        "WLAN %s – Schlüssel %s" % (ssid, M(pw())),
        "Red: %s\nClave: %s" % (ssid, M(pw())),
    )


@secret("PIN and password", "message", "a")
def _():
    return "password", "message", "Bank sandbox portal: login %s, password %s (the 2FA goes to my phone, I'll forward the code)" % (user(), M(pw()))


@secret("app password", "email client help", "a")
def _():
    g = " ".join(rs(4, LOW) for _ in range(4))
    return "app password", "Q&A answer", pick(
        "Gmail won't take your normal password over SMTP; I generated an app password for the bot: %s" % M(g),
        "Use this app-specific password in Thunderbird: %s" % M(g),
        "Contraseña de aplicación: %s" % M(g),
    )


# ======================================================= (b) code

def db_pw():
    return pick(pw(), mixed(R.choice([16, 20, 24])), pw_random())


@secret("database password", "python psycopg2", "b")
def _():
    return "password", "deliverable code (Python)", "conn = psycopg2.connect(\n    host=\"%s\",\n    dbname=\"%s\",\n    user=\"%s\",\n    password=\"%s\",\n)" % (host(), R.choice(DBS), user(), M(db_pw()))


@secret("database password", "java jdbc positional", "b")
def _():
    return "password", "deliverable code (Java)", "Connection c = DriverManager.getConnection(\"jdbc:postgresql://%s:5432/%s\", \"%s\", \"%s\");" % (host(), R.choice(DBS), user(), M(db_pw()))


@secret("database password", "php pdo positional", "b")
def _():
    return "password", "deliverable code (PHP)", "$pdo = new PDO('mysql:host=%s;dbname=%s;charset=utf8mb4', '%s', '%s');" % (host(), R.choice(DBS), user(), M(db_pw()))


@secret("database password", "perl dbi", "b")
def _():
    return "password", "deliverable code (Perl)", "my $dbh = DBI->connect(\"dbi:Pg:dbname=%s;host=%s\", '%s', '%s', { RaiseError => 1 });" % (R.choice(DBS), host(), user(), M(db_pw()))


@secret("database password", "go sql.Open dsn", "b")
def _():
    return "password", "deliverable code (Go)", "db, err := sql.Open(\"mysql\", \"%s:%s@tcp(%s:3306)/%s?parseTime=true\")" % (user(), M(db_pw()), host(), R.choice(DBS))


@secret("database password", "C mysql_real_connect", "b")
def _():
    return "password", "deliverable code (C)", "if (!mysql_real_connect(conn, \"%s\", \"%s\", \"%s\", \"%s\", 0, NULL, 0)) {\n    fprintf(stderr, \"%%s\", mysql_error(conn));\n}" % (host(), user(), M(db_pw()), R.choice(DBS))


@secret("database password", "rust tokio-postgres", "b")
def _():
    return "password", "deliverable code (Rust)", "let (client, connection) = tokio_postgres::connect(\"host=%s user=%s password=%s dbname=%s\", NoTls).await?;" % (host(), user(), M(db_pw()), R.choice(DBS))


@secret("database password", "C# connection string", "b")
def _():
    return "password", "deliverable code (C#)", "var cs = \"Server=%s;Database=%s;User Id=%s;Password=%s;TrustServerCertificate=True\";\nusing var conn = new SqlConnection(cs);" % (host(), R.choice(DBS), user(), M(db_pw()))


@secret("database password", "node mysql2", "b")
def _():
    return "password", "deliverable code (JavaScript)", "const pool = mysql.createPool({\n  host: '%s',\n  user: '%s',\n  password: '%s',\n  database: '%s',\n});" % (host(), user(), M(db_pw()), R.choice(DBS))


@secret("database password", "ruby activerecord", "b")
def _():
    return "password", "deliverable code (Ruby)", "ActiveRecord::Base.establish_connection(adapter: 'postgresql', host: '%s', username: '%s', password: '%s', database: '%s')" % (host(), user(), M(db_pw()), R.choice(DBS))


@secret("database password", "hikari builder", "b")
def _():
    return "password", "deliverable code (Kotlin)", "val ds = HikariDataSource(HikariConfig().apply {\n    jdbcUrl = \"jdbc:mysql://%s/%s\"\n    username = \"%s\"\n    setPassword(\"%s\")\n})" % (host(), R.choice(DBS), user(), M(db_pw()))


@secret("database password", "R DBI", "b")
def _():
    return "password", "deliverable code (R)", "con <- dbConnect(RPostgres::Postgres(), dbname = \"%s\", host = \"%s\", user = \"%s\", password = \"%s\")" % (R.choice(DBS), host(), user(), M(db_pw()))


@secret("database password", "elixir ecto config", "b")
def _():
    return "password", "deliverable code (Elixir)", "config :shop, Shop.Repo,\n  username: \"%s\",\n  password: \"%s\",\n  hostname: \"%s\",\n  database: \"%s\"" % (user(), M(db_pw()), host(), R.choice(DBS))


@secret("database password", "scala slick", "b")
def _():
    return "password", "deliverable code (Scala)", "val db = Database.forURL(\"jdbc:postgresql://%s/%s\", user = \"%s\", password = \"%s\", driver = \"org.postgresql.Driver\")" % (host(), R.choice(DBS), user(), M(db_pw()))


@secret("database password", "dart postgres", "b")
def _():
    return "password", "deliverable code (Dart)", "final conn = await Connection.open(Endpoint(host: '%s', database: '%s', username: '%s', password: '%s'));" % (host(), R.choice(DBS), user(), M(db_pw()))


@secret("smtp password", "python smtplib positional", "b")
def _():
    return "password", "deliverable code (Python)", "with smtplib.SMTP_SSL(\"smtp.%s\", 465) as s:\n    s.login(\"reports@%s\", \"%s\")\n    s.send_message(msg)" % (dom(), dom(), M(pw()))


@secret("basic auth", "python requests auth tuple", "b")
def _():
    return "password", "deliverable code (Python)", "r = requests.get(f\"{BASE}/api/v2/orders\", auth=(\"%s\", \"%s\"), timeout=30)" % (user(), M(pw()))


@secret("basic auth", "axios auth object", "b")
def _():
    return "password", "deliverable code (TypeScript)", "const res = await axios.get(url, { auth: { username: '%s', password: '%s' } });" % (user(), M(pw()))


@secret("ssh password", "paramiko", "b")
def _():
    return "password", "deliverable code (Python)", "client = paramiko.SSHClient()\nclient.set_missing_host_key_policy(paramiko.AutoAddPolicy())\nclient.connect(\"%s\", username=\"%s\", password=\"%s\")" % (ip(), user(), M(pw()))


@secret("amqp password", "pika PlainCredentials", "b")
def _():
    return "password", "deliverable code (Python)", "credentials = pika.PlainCredentials('%s', '%s')\nparams = pika.ConnectionParameters('%s', 5672, '/', credentials)" % (user(), M(pw()), host())


@secret("redis password", "go-redis options", "b")
def _():
    return "password", "deliverable code (Go)", "rdb := redis.NewClient(&redis.Options{\n\tAddr:     \"%s:6379\",\n\tPassword: \"%s\",\n\tDB:       0,\n})" % (host(), M(mixed(32)))


@secret("elastic password", "python elasticsearch", "b")
def _():
    return "password", "deliverable code (Python)", "es = Elasticsearch(\"https://%s:9200\", basic_auth=(\"elastic\", \"%s\"), verify_certs=False)" % (host(), M(mixed(20)))


@secret("swift credential", "URLCredential", "b")
def _():
    return "password", "deliverable code (Swift)", "let cred = URLCredential(user: \"%s\", password: \"%s\", persistence: .forSession)" % (user(), M(pw()))


@secret("powershell secure string", "PowerShell", "b")
def _():
    return "password", "deliverable script (PowerShell)", "$sec = ConvertTo-SecureString '%s' -AsPlainText -Force\n$cred = New-Object System.Management.Automation.PSCredential ('%s', $sec)" % (M(pw()), user())


@secret("aws secret access key", "boto3 client", "b")
def _():
    return "aws secret access key", "deliverable code (Python)", "s3 = boto3.client(\n    \"s3\",\n    aws_access_key_id=\"%s\",\n    aws_secret_access_key=\"%s\",\n    region_name=\"eu-west-1\",\n)" % (akia(), M(tok_aws_secret()))


@secret("aws secret access key", "aws sdk js v3", "b")
def _():
    return "aws secret access key", "deliverable code (TypeScript)", "const client = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: '%s', secretAccessKey: '%s' } });" % (akia(), M(tok_aws_secret()))


@secret("openai key", "SDK constructor", "b")
def _():
    return "openai api key", "deliverable code (Python)", pick(
        "client = OpenAI(api_key=\"%s\")" % M(tok_openai()),
        "from openai import OpenAI\n\nclient = OpenAI(\"%s\")  # TODO env" % M(tok_openai()),
        "const openai = new OpenAI({ apiKey: \"%s\" });" % M(tok_openai()),
    )


@secret("anthropic key", "SDK constructor", "b")
def _():
    return "anthropic api key", "deliverable code", pick(
        "client = anthropic.Anthropic(api_key=\"%s\")" % M(tok_anthropic()),
        "const anthropic = new Anthropic({ apiKey: '%s' });" % M(tok_anthropic()),
    )


@secret("ai provider key", "langchain / SDK", "b")
def _():
    f = R.choice([
        ("groq", lambda: "llm = ChatGroq(model=\"llama-3.3-70b-versatile\", groq_api_key=\"%s\")" % M(tok_groq())),
        ("replicate", lambda: "replicate = Replicate(auth=\"%s\")" % M(tok_replicate())),
        ("perplexity", lambda: "client = OpenAI(api_key=\"%s\", base_url=\"https://api.perplexity.ai\")" % M(tok_pplx())),
        ("xai", lambda: "client = OpenAI(base_url=\"https://api.x.ai/v1\", api_key=\"%s\")" % M(tok_xai())),
        ("pinecone", lambda: "pc = Pinecone(api_key=\"%s\")\nindex = pc.Index(\"docs\")" % M(tok_pinecone())),
        ("gemini", lambda: "genai.configure(api_key=\"%s\")\nmodel = genai.GenerativeModel(\"gemini-1.5-pro\")" % M(tok_google())),
        ("huggingface", lambda: "login(token=\"%s\")\nmodel = AutoModel.from_pretrained(\"acme/private-model\")" % M(tok_hf())),
        ("mistral", lambda: "client = Mistral(api_key=\"%s\")" % M(mixed(32))),
        ("cohere", lambda: "co = cohere.ClientV2(\"%s\")" % M(mixed(40))),
    ])
    return "%s api key" % f[0], "deliverable code (Python)", f[1]()


@secret("stripe secret key", "code", "b")
def _():
    return "stripe secret key", "deliverable code", pick(
        "stripe.api_key = \"%s\"" % M(tok_stripe()),
        "const stripe = require('stripe')('%s');" % M(tok_stripe()),
        "Stripe.apiKey = \"%s\";" % M(tok_stripe()),
        "client := stripe.NewClient(\"%s\")" % M(tok_stripe()),
    )


@secret("twilio auth token", "twilio client", "b")
def _():
    return "twilio auth token", "deliverable code (Python)", "client = Client(\"AC%s\", \"%s\")\nclient.messages.create(to=to, from_=FROM, body=text)" % (hx(32), M(tok_twilio_auth()))


@secret("slack bot token", "slack sdk", "b")
def _():
    return "slack bot token", "deliverable code", pick(
        "app = App(token=\"%s\", signing_secret=\"%s\")" % (M(tok_slack_bot()), M(hx(32))),
        "const web = new WebClient('%s');" % M(tok_slack_bot()),
    )


@secret("telegram bot token", "bot code", "b")
def _():
    return "telegram bot token", "deliverable code", pick(
        "bot = telebot.TeleBot(\"%s\")" % M(tok_telegram()),
        "app = ApplicationBuilder().token(\"%s\").build()" % M(tok_telegram()),
        "const bot = new Telegraf('%s')" % M(tok_telegram()),
    )


@secret("discord bot token", "bot code", "b")
def _():
    return "discord bot token", "deliverable code", pick(
        "client.run(\"%s\")" % M(tok_discord_bot()),
        "client.login('%s');" % M(tok_discord_bot()),
    )


@secret("jwt signing secret", "framework config", "b")
def _():
    s = pick(mixed(48), hx(64), b64(32))
    return "signing secret", "deliverable code", pick(
        "app.config[\"SECRET_KEY\"] = \"%s\"" % M(s),
        "SECRET_KEY = '%s'" % M("django-insecure-" + rs(50, LOW + DIG + "!@#%^&*(-_=+)")),
        "const token = jwt.sign({ sub: user.id }, '%s', { expiresIn: '1h' });" % M(s),
        "token := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)\nsigned, _ := token.SignedString([]byte(\"%s\"))" % M(s),
    )


@secret("password in test", "test fixture", "b")
def _():
    return "password", "tests in deliverable", pick(
        "def test_login_staging(client):\n    r = client.post(\"/login\", data={\"email\": \"qa@%s\", \"password\": \"%s\"})\n    assert r.status_code == 302" % (dom(), M(pw())),
        "it('logs in on staging', async () => {\n  await page.fill('#password', '%s');\n  await page.click('text=Sign in');\n});" % M(pw()),
        "@Test\nvoid connectsToSandbox() {\n    var api = new PartnerApi(\"%s\", \"%s\");\n    assertTrue(api.ping());\n}" % (user(), M(pw())),
    )


@secret("orm url", "sqlalchemy create_engine", "b")
def _():
    return "database password", "deliverable code (Python)", "engine = create_engine(\"postgresql+psycopg://%s:%s@%s:5432/%s\", pool_pre_ping=True)" % (user(), M(db_pw().replace("@", "").replace("/", "").replace("#", "").replace("?", "")), host(), R.choice(DBS))


@secret("prisma url", "schema/env", "b")
def _():
    return "database password", "deliverable config", "DATABASE_URL=\"mysql://%s:%s@%s:3306/%s\"" % (user(), M(mixed(22)), host(), R.choice(DBS))


@secret("google oauth client secret", "oauth config", "b")
def _():
    cid = digits(12) + "-" + rs(32, LOW + DIG) + ".apps.googleusercontent.com"
    return "oauth client secret", "deliverable code", pick(
        "flow = Flow.from_client_config({\"web\": {\"client_id\": \"%s\", \"client_secret\": \"%s\", \"auth_uri\": \"https://accounts.google.com/o/oauth2/auth\"}}, scopes=SCOPES)" % (cid, M(tok_gocspx())),
        "GoogleProvider({ clientId: '%s', clientSecret: '%s' })" % (cid, M(tok_gocspx())),
    )


@secret("azure ad client secret", "msal", "b")
def _():
    return "azure client secret", "deliverable code (Python)", "app = msal.ConfidentialClientApplication(\n    \"%s\",\n    authority=\"https://login.microsoftonline.com/%s\",\n    client_credential=\"%s\",\n)" % (uuid4(), uuid4(), M(tok_azure_ad()))


@secret("private key in code", "ethers wallet", "b")
def _():
    return "ethereum private key", "deliverable code (JavaScript)", pick(
        "const wallet = new ethers.Wallet(\"0x%s\", provider);" % M(hx(64)),
        "account = Account.from_key(\"%s\")" % M(hx(64)),
        "const signer = privateKeyToAccount('0x%s')" % M(hx(64)),
    )


# ======================================================= (c) infra / config / CI

@secret("env file", ".env", "c")
def _():
    lines = ["APP_ENV=production", "APP_URL=https://%s" % dom(), "DB_HOST=%s" % host(), "DB_USERNAME=%s" % user(),
             "DB_PASSWORD=%s" % M(db_pw()), "MAIL_MAILER=smtp", "QUEUE_CONNECTION=redis"]
    if R.random() < 0.5:
        lines.append("MAIL_PASSWORD=%s" % M(pw()))
    return "env file passwords", "deliverable .env", "\n".join(lines)


@secret("docker compose env", "compose file", "c")
def _():
    p = mixed(R.choice([18, 24]))
    return "database password", "docker-compose.yml", "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: %s\n      POSTGRES_PASSWORD: %s\n      POSTGRES_DB: %s" % (user(), M(p), R.choice(DBS))


@secret("k8s secret stringData", "manifest", "c")
def _():
    return "kubernetes secret", "manifest", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-credentials\ntype: Opaque\nstringData:\n  username: %s\n  password: %s" % (user(), M(pw()))


@secret("k8s secret data base64", "manifest", "c")
def _():
    p = pw()
    return "kubernetes secret (base64)", "manifest", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  DB_USER: %s\n  DB_PASS: %s" % (base64.b64encode(user().encode()).decode(), M(base64.b64encode(p.encode()).decode()))


@secret("helm values", "values.yaml", "c")
def _():
    return "password", "helm values.yaml", "postgresql:\n  auth:\n    username: %s\n    password: %s\n    postgresPassword: %s\n  primary:\n    persistence:\n      size: 20Gi" % (user(), M(mixed(16)), M(mixed(16)))


@secret("connection string", "uri", "c")
def _():
    s = R.choice(["postgres://{u}:{p}@{h}:5432/{d}", "mongodb+srv://{u}:{p}@cluster0.{r}.mongodb.net/{d}?retryWrites=true",
                  "amqp://{u}:{p}@{h}:5672/%2F", "redis://:{p}@{h}:6379/0", "rediss://default:{p}@{h}:6380",
                  "mysql://{u}:{p}@{h}/{d}", "ftp://{u}:{p}@{h}/uploads/", "sftp://{u}:{p}@{h}:22/", "smtp://{u}:{p}@smtp.{dm}:587",
                  "clickhouse://{u}:{p}@{h}:9000/{d}", "neo4j+s://neo4j:{p}@{r}.databases.neo4j.io"])
    p = mixed(R.choice([14, 20, 24]))
    text = s.format(u=user(), p=M(p), h=host(), d=R.choice(DBS), r=rs(5, LOW + DIG), dm=dom())
    return "connection string password", pick("log line", "message", "config", "ticket"), pick("", "connection: ", "Use this: ", "DSN = ", "broker_url = ") + text


@secret("cli password", "command line", "c")
def _():
    p = pw()
    c = R.choice([
        "mysql -h %s -u %s -p'%s' %s < dump.sql" % (host(), user(), M(p), R.choice(DBS)),
        "PGPASSWORD=%s psql -h %s -U %s -d %s -c 'select 1'" % (M(p), host(), user(), R.choice(DBS)),
        "sshpass -p '%s' ssh %s@%s" % (M(p), user(), ip()),
        "docker login registry.%s -u %s -p %s" % (dom(), user(), M(p)),
        "redis-cli -h %s -a %s --no-auth-warning" % (host(), M(p)),
        "kubectl create secret generic db-pass --from-literal=password=%s" % M(p),
        "htpasswd -bc /etc/nginx/.htpasswd %s %s" % (user(), M(p)),
        "curl -u %s:%s https://%s/api/export -o export.json" % (user(), M(p), dom()),
        "zip -P %s backup.zip *.sql" % M(p),
        "7z a -p%s archive.7z ./exports" % M(p),
        "mongosh \"mongodb://%s/%s\" -u %s -p %s" % (host(), R.choice(DBS), user(), M(p)),
        "smbclient //%s/share -U %s%%%s" % (ip(), user(), M(p)),
        "wget --user=%s --password=%s https://%s/private/build.tar.gz" % (user(), M(p), dom()),
        "mysqldump -u%s -p%s --single-transaction %s > backup.sql" % (user(), M(p), R.choice(DBS)),
        "lftp -u %s,%s sftp://%s" % (user(), M(p), host()),
        "xfreerdp /u:%s /p:%s /v:%s" % (user(), M(p), ip()),
        "rclone config create box webdav url https://dav.%s vendor other user %s pass %s" % (dom(), user(), M(p)),
        "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:%s" % M(p),
        "keytool -genkeypair -alias upload -keystore upload.jks -storepass %s -keypass %s" % (M(p), M(p)),
        "ansible-playbook site.yml -e 'ansible_become_password=%s'" % M(p),
    ])
    return "cli password", pick("shell history in deliverable", "README step", "chat message", "ticket"), pick("", "$ ", "run: ", "I used ") + c


@secret("ci log leak", "ci log", "c")
def _():
    p = R.choice([tok_npm, tok_github, tok_dckr, tok_pypi, tok_do])()
    return "token printed in CI log", "CI log excerpt", "2026-11-%02dT%02d:%02d:11.482Z ##[group]Run ./scripts/publish.sh\n+ echo \"using token %s\"\nusing token %s\n+ npm publish --access public\nnpm notice Publishing to https://registry.npmjs.org/" % (
        R.randint(1, 28), R.randint(0, 23), R.randint(0, 59), M(p), M(p))


@secret("ci log debug dump", "ci log", "c")
def _():
    return "password in debug log", "CI log excerpt", "[debug] settings resolved: {'db_host': '%s', 'db_user': '%s', 'db_password': '%s', 'pool': 10}\n[info] migrations applied: 14" % (host(), user(), M(pw()))


@secret("npmrc / pip.conf", "config", "c")
def _():
    return "registry token", "config file", pick(
        "//registry.npmjs.org/:_authToken=%s" % M(tok_npm()),
        "@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=%s" % M(tok_github()),
        "[global]\nindex-url = https://__token__:%s@pypi.%s/simple" % (M(tok_pypi()), dom()),
        "[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = %s" % M(tok_pypi()),
    )


@secret("git credentials", "clone url", "c")
def _():
    return "git token", pick("README", "message", "CI config"), pick(
        "git clone https://%s:%s@github.com/acme/%s.git" % (user(), M(tok_github()), R.choice(DBS)),
        "git remote set-url origin https://oauth2:%s@gitlab.%s/team/app.git" % (M(tok_gitlab()), dom()),
        "https://x-token-auth:%s@bitbucket.org/acme/site.git" % M(tok_bitbucket()),
    )


@secret("aws credentials file", "~/.aws/credentials", "c")
def _():
    return "aws secret access key", "config file", "[default]\naws_access_key_id = %s\naws_secret_access_key = %s\nregion = eu-central-1" % (akia(), M(tok_aws_secret()))


@secret("docker config auth", "config.json", "c")
def _():
    a = base64.b64encode(("%s:%s" % (user(), pw())).encode()).decode()
    return "registry auth", "config file", "{\n  \"auths\": {\n    \"registry.%s\": {\n      \"auth\": \"%s\"\n    }\n  }\n}" % (dom(), M(a))


@secret("pgpass/netrc", "dotfile", "c")
def _():
    return "password", "dotfile", pick(
        "%s:5432:%s:%s:%s" % (host(), R.choice(DBS), user(), M(pw())),
        "machine api.%s\n  login %s\n  password %s" % (dom(), user(), M(pw())),
    )


@secret("wp-config", "php config", "c")
def _():
    return "database password", "wp-config.php", "define( 'DB_NAME', '%s' );\ndefine( 'DB_USER', '%s' );\ndefine( 'DB_PASSWORD', '%s' );\ndefine( 'DB_HOST', 'localhost' );" % (R.choice(DBS), user(), M(pw()))


@secret("spring properties", "application.properties", "c")
def _():
    return "database password", "application.properties", "spring.datasource.url=jdbc:postgresql://%s:5432/%s\nspring.datasource.username=%s\nspring.datasource.password=%s\nspring.jpa.hibernate.ddl-auto=validate" % (host(), R.choice(DBS), user(), M(pw()))


@secret("terraform provider", "hcl", "c")
def _():
    return "provider token", "terraform file", pick(
        "provider \"digitalocean\" {\n  token = \"%s\"\n}" % M(tok_do()),
        "provider \"cloudflare\" {\n  api_token = \"%s\"\n}" % M(tok_cf()),
        "resource \"aws_db_instance\" \"main\" {\n  engine   = \"postgres\"\n  username = \"%s\"\n  password = \"%s\"\n}" % (user(), M(mixed(20))),
    )


@secret("wireguard private key", "wg config", "c")
def _():
    return "wireguard private key", "config file", "[Interface]\nPrivateKey = %s\nAddress = 10.8.0.2/32\n\n[Peer]\nPublicKey = %s\nEndpoint = %s:51820\nAllowedIPs = 0.0.0.0/0" % (M(b64(32)), b64(32), ip())


@secret("redis.conf / mosquitto", "server config", "c")
def _():
    return "password", "server config", pick("requirepass %s" % M(mixed(32)), "masterauth %s\nrequirepass %s" % (M(mixed(24)), M(mixed(24))),
                                            "bind 0.0.0.0\nport 6379\nrequirepass %s" % M(pw()))


@secret("wpa_supplicant", "config", "c")
def _():
    return "wifi password", "config file", "network={\n    ssid=\"%s\"\n    psk=\"%s\"\n    key_mgmt=WPA-PSK\n}" % (pick("Workshop", "Lab-2.4", "HomeNet"), M(pw()))


@secret("github actions env", "workflow", "c")
def _():
    return "token in workflow", "workflow yaml", "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      NODE_ENV: production\n      VERCEL_TOKEN: %s\n    steps:\n      - run: npx vercel deploy --prod --token $VERCEL_TOKEN" % M(tok_vercel())


@secret("tool flags", "command", "c")
def _():
    return "token flag", "command line", pick(
        "gh auth login --with-token < <(echo %s)" % M(tok_github()),
        "terraform login; echo 'credentials \"app.terraform.io\" { token = \"%s\" }' >> ~/.terraformrc" % M(tok_tfc()),
        "netlify deploy --prod --auth %s" % M(tok_netlify()),
        "vercel --token %s" % M(tok_vercel()),
        "doctl auth init --access-token %s" % M(tok_do()),
        "flyctl deploy --access-token \"FlyV1 %s\"" % M(tok_fly()),
        "./bin/sync --api-key=%s --dry-run" % M(mixed(40)),
        "aws configure set aws_secret_access_key %s" % M(tok_aws_secret()),
    )


@secret("jupyter token url", "log", "c")
def _():
    return "jupyter token", "log output", "    To access the server, open this file in a browser:\n    Or copy and paste one of these URLs:\n        http://127.0.0.1:8888/lab?token=%s" % M(hx(48))


@secret("grafana / env admin", "compose", "c")
def _():
    return "admin password", "docker-compose.yml", "  grafana:\n    image: grafana/grafana:11.2.0\n    environment:\n      - GF_SECURITY_ADMIN_USER=%s\n      - GF_SECURITY_ADMIN_PASSWORD=%s" % (user(), M(pw()))


# ======================================================= (d) provider tokens in headers/urls/cookies/mobile

PROVIDERS = [
    ("github token", tok_github), ("github fine-grained pat", tok_github_pat), ("gitlab pat", tok_gitlab),
    ("slack user token", tok_slack_user), ("stripe secret key", tok_stripe), ("stripe webhook secret", tok_whsec),
    ("openai key", tok_openai), ("anthropic key", tok_anthropic), ("google api key", tok_google), ("hugging face token", tok_hf),
    ("npm token", tok_npm), ("sendgrid key", tok_sendgrid), ("groq key", tok_groq), ("replicate token", tok_replicate),
    ("databricks token", tok_databricks), ("digitalocean token", tok_do), ("linear key", tok_linear), ("notion token", tok_notion),
    ("airtable pat", tok_airtable), ("postman key", tok_postman), ("docker hub pat", tok_dckr), ("figma token", tok_figma),
    ("klaviyo private key", tok_klaviyo), ("mailchimp key", tok_mailchimp), ("hubspot private app token", tok_hubspot),
    ("square access token", tok_square), ("flutterwave secret", tok_flw), ("paystack secret", tok_paystack),
    ("mollie live key", tok_mollie), ("supabase access token", tok_sbp), ("okta api token", tok_okta),
    ("sentry auth token", tok_sentry), ("mapbox secret token", tok_mapbox_secret), ("contentful pat", tok_contentful),
    ("dropbox token", tok_dropbox), ("new relic key", tok_newrelic), ("grafana service token", tok_glsa),
    ("pulumi token", tok_pulumi), ("doppler token", tok_doppler), ("shopify admin token", tok_shopify),
    ("mailgun key", tok_mailgun), ("pinecone key", tok_pinecone), ("xai key", tok_xai), ("perplexity key", tok_pplx),
    ("terraform cloud token", tok_tfc), ("bitbucket app password", tok_bitbucket), ("netlify token", tok_netlify),
    ("user jwt", user_jwt), ("supabase service role key", service_role_jwt),
]


def prov():
    return R.choice(PROVIDERS)


@secret("provider token", "http header", "d")
def _():
    k, f = prov()
    t = f()
    h = R.choice(["Authorization: Bearer %s", "authorization: bearer %s", "X-API-Key: %s", "x-api-key: %s", "Api-Token: %s",
                  "X-Auth-Token: %s", "Authorization: token %s", "Private-Token: %s"])
    req = "%s /v1/%s HTTP/1.1\nHost: api.%s\n%s\nContent-Type: application/json" % (pick("GET", "POST"), pick("items", "jobs", "export", "runs"), dom(), h % M(t))
    return k, "request dump in ticket", req


@secret("provider token", "curl", "d")
def _():
    k, f = prov()
    return k, pick("README step", "bug report", "Q&A answer"), "curl -s https://api.%s/v2/%s -H \"%s\"" % (
        dom(), pick("me", "projects", "usage"), pick("Authorization: Bearer ", "X-Api-Key: ", "Authorization: Token ") + M(f()))


@secret("provider token", "url query", "d")
def _():
    k, f = prov()
    return k, pick("log line", "message", "webhook config"), pick(
        "GET https://api.%s/v1/report?format=csv&api_key=%s 200 84ms" % (dom(), M(f())),
        "https://hooks.%s/ingest?access_token=%s" % (dom(), M(f())),
        "callback url: https://%s/cb?key=%s&mode=live" % (dom(), M(f())),
    )


@secret("provider token", "env var in message", "d")
def _():
    k, f = prov()
    var = k.upper().replace(" ", "_").replace("-", "_")
    return k, pick("seller message", "buyer message", "delivery note"), pick(
        "set %s=%s in your env and rerun" % (var, M(f())),
        "Here's the key you asked for: %s" % M(f()),
        "Aquí tienes la API key: %s" % M(f()),
        "API-Schlüssel: %s" % M(f()),
        "APIキー：%s" % M(f()),
        "ключ API %s" % M(f()),
        "the %s is %s, it has full scope so be careful" % (k, M(f())),
    )


@secret("webhook url", "slack/discord/telegram", "d")
def _():
    return "webhook secret", pick("config", "message", "code"), pick(
        "SLACK_WEBHOOK=https://hooks.slack.com/services/T%s/B%s/%s" % (rs(10, UP + DIG), rs(10, UP + DIG), M(mixed(24))),
        "webhook: https://discord.com/api/webhooks/%s/%s" % (digits(19), M(mixed(68, B64URL))),
        "requests.post(f\"https://api.telegram.org/bot%s/sendMessage\", json=payload)" % M(tok_telegram()),
    )


@secret("session cookie", "cookie header", "d")
def _():
    c = R.choice([
        "Cookie: sessionid=%s; csrftoken=%s" % (M(rs(32, LOW + DIG)), mixed(32)),
        "Cookie: connect.sid=s%%3A%s.%s" % (M(mixed(32, B64URL)), M(mixed(43, B64URL))),
        "Cookie: _ga=GA1.1.%s.%s; session=%s" % (digits(9), digits(10), M(user_jwt())),
        "Set-Cookie: auth_token=%s; Path=/; HttpOnly; Secure" % M(mixed(64, B64URL)),
        "Cookie: PHPSESSID=%s" % M(rs(26, LOW + DIG)),
    ])
    return "session cookie", "HAR excerpt in bug report", "GET /dashboard HTTP/2\nHost: app.%s\n%s\nUser-Agent: Mozilla/5.0" % (dom(), c)


@secret("android config", "gradle/strings", "d")
def _():
    return "mobile secret", "mobile project file", pick(
        "gradle.properties:\nRELEASE_STORE_FILE=upload.jks\nRELEASE_STORE_PASSWORD=%s\nRELEASE_KEY_ALIAS=upload\nRELEASE_KEY_PASSWORD=%s" % (M(pw()), M(pw())),
        "<resources>\n    <string name=\"app_name\">Orchard</string>\n    <string name=\"openai_api_key\">%s</string>\n</resources>" % M(tok_openai()),
        "signingConfigs {\n    release {\n        storeFile file(\"release.keystore\")\n        storePassword \"%s\"\n        keyAlias \"release\"\n        keyPassword \"%s\"\n    }\n}" % (M(pw()), M(pw())),
        "buildConfigField(\"String\", \"MAPS_SERVER_KEY\", '\"%s\"')" % M(tok_google()),
    )


@secret("ios / flutter / expo config", "mobile", "d")
def _():
    return "mobile secret", "mobile project file", pick(
        "<key>SENDGRID_API_KEY</key>\n<string>%s</string>" % M(tok_sendgrid()),
        "// lib/env.dart\nconst supabaseServiceKey = '%s';" % M(service_role_jwt()),
        "\"extra\": {\n  \"eas\": { \"projectId\": \"%s\" },\n  \"openaiKey\": \"%s\"\n}" % (uuid4(), M(tok_openai())),
        "FCM server key (legacy): %s" % M(tok_fcm()),
    )


@secret("payment gateway pair", "integration notes", "d")
def _():
    return "payment secret beside its id", "integration notes", pick(
        "Razorpay live keys\nkey_id: rzp_live_%s\nkey_secret: %s" % (mixed(14), M(mixed(24))),
        "PayPal REST app (live)\nClient ID: %s\nSecret: %s" % (mixed(80, B64URL), M(mixed(80, B64URL))),
        "Binance API\nAPI Key: %s\nSecret Key: %s" % (mixed(64), M(mixed(64))),
        "Coinbase Advanced: key name organizations/%s/apiKeys/%s, secret: %s" % (uuid4(), uuid4(), M(mixed(88, B64))),
        "Square production: Application ID sq0idp-%s, access token %s" % (mixed(22, B64URL), M(tok_square())),
        "Kraken API key %s\nPrivate key %s" % (mixed(56, B64), M(base64.b64encode(rbytes(64)).decode())),
    )


@secret("rpc provider key", "web3 config", "d")
def _():
    return "rpc key", "web3 config", pick(
        "RPC_URL=https://eth-mainnet.g.alchemy.com/v2/%s" % M(tok_alchemy()),
        "const provider = new JsonRpcProvider('https://mainnet.infura.io/v3/%s')" % M(hx(32)),
        "ETHERSCAN_API_KEY=%s" % M(tok_etherscan()),
        "rpc: https://solana-mainnet.g.alchemy.com/v2/%s" % M(tok_alchemy()),
        "networks: { base: { url: \"https://base-mainnet.infura.io/v3/%s\", accounts: [\"0x%s\"] } }" % (M(hx(32)), M(hx(64))),
    )


@secret("basic auth header", "header", "d")
def _():
    a = base64.b64encode(("%s:%s" % (user(), pw())).encode()).decode()
    return "basic auth", "request dump", "Authorization: Basic %s" % M(a)


@secret("azure storage", "connection string", "d")
def _():
    return "azure storage key", pick("appsettings.json", "message"), pick(
        "\"StorageConnection\": \"DefaultEndpointsProtocol=https;AccountName=%s;AccountKey=%s;EndpointSuffix=core.windows.net\"" % (rs(12, LOW + DIG), M(tok_azure_key())),
        "https://%s.blob.core.windows.net/exports/report.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&spr=https&sig=%s" % (rs(10, LOW), M(mixed(43, B64URL) + "%3D")),
    )


# ======================================================= (e) keys, seeds, wallets

PEM_KINDS = [("RSA PRIVATE KEY", 1190), ("PRIVATE KEY", 1216), ("EC PRIVATE KEY", 121), ("OPENSSH PRIVATE KEY", 399), ("ENCRYPTED PRIVATE KEY", 1298)]


@secret("pem private key", "pem block", "e")
def _():
    kind, n = R.choice(PEM_KINDS[:4])
    body = pem_body(n)
    text = "-----BEGIN %s-----\n%s\n-----END %s-----" % (kind, M(body), kind)
    return "private key (%s)" % kind, pick("deliverable file", "message", "ticket"), pick("", "here is the deploy key:\n", "id_ed25519 for the build box:\n", "server.key:\n") + text


@secret("service account json", "gcp", "e")
def _():
    body = pem_body(1216)
    return "gcp service account private key", "deliverable file", "{\n  \"type\": \"service_account\",\n  \"project_id\": \"orchard-%s\",\n  \"private_key_id\": \"%s\",\n  \"private_key\": \"-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\",\n  \"client_email\": \"etl@orchard-%s.iam.gserviceaccount.com\",\n  \"client_id\": \"%s\"\n}" % (
        digits(6), hx(40), M(body), digits(6), digits(21))


@secret("pgp private key", "armored", "e")
def _():
    return "pgp private key", "message", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n%s\n=%s\n-----END PGP PRIVATE KEY BLOCK-----" % (M(pem_body(700)), rs(4, B64))


@secret("bip39 mnemonic", "seed phrase", "e")
def _():
    n = R.choice([12, 12, 12, 15, 18, 24, 24])
    ws = mnemonic(n)
    fmt = R.choice(["space", "numbered", "lines", "comma"])
    if fmt == "space":
        body = " ".join(ws)
    elif fmt == "numbered":
        body = " ".join("%d. %s" % (i + 1, w) for i, w in enumerate(ws))
    elif fmt == "lines":
        body = "\n".join(ws)
    else:
        body = ", ".join(ws)
    intro = R.choice([
        "my seed phrase is: ", "Recovery phrase for the test wallet:\n", "MetaMask backup — ", "frase semilla: ",
        "мнемоническая фраза: ", "助记词：", "Ledger 24 words (don't lose): ", "mnemonic = \"", "Phrase de récupération : ",
        "Wiederherstellungsphrase: ", "secret recovery phrase\n", "", "wallet words: ",
    ])
    end = "\"" if intro.endswith("\"") else ""
    return "bip39 mnemonic (%d words, %s)" % (n, fmt), pick("message", "dispute statement", "deliverable", "Q&A answer"), intro + M(body) + end


SECRET.append(SECRET[-1])  # recovery phrases get twice the weight of the other key kinds


@secret("bip39 mnemonic", "code / cli", "e")
def _():
    ws = " ".join(mnemonic(R.choice([12, 24])))
    return "bip39 mnemonic", "deliverable code", pick(
        "const wallet = ethers.Wallet.fromPhrase(\"%s\");" % M(ws),
        "MNEMONIC=\"%s\"" % M(ws),
        "echo '%s' | cast wallet address --mnemonic-stdin" % M(ws),
        "accounts: { mnemonic: \"%s\" }" % M(ws),
        "solana-keygen recover 'prompt:?key=0/0' # then typed: %s" % M(ws),
    )


@secret("wif key", "bitcoin", "e")
def _():
    w = wif(compressed=R.random() < 0.7, testnet=R.random() < 0.3)
    return "bitcoin wif private key", pick("message", "deliverable", "ticket"), pick(
        "importprivkey %s \"cold\" false" % M(w),
        "WIF: %s" % M(w),
        "privkey for the faucet wallet → %s" % M(w),
        "bitcoin-cli -rpcwallet=ops importprivkey %s" % M(w),
    )


@secret("xprv", "bitcoin", "e")
def _():
    x = xkey(private=True, testnet=R.random() < 0.3)
    return "bip32 extended private key", pick("config", "message"), pick(
        "XPRV=%s" % M(x),
        "descriptor: wpkh(%s/84h/0h/0h/0/*)" % M(x),
        "master key (keep offline): %s" % M(x),
    )


@secret("solana keypair", "solana", "e")
def _():
    kp = list(rbytes(64))
    if R.random() < 0.5:
        return "solana keypair (json array)", "deliverable file", "// id.json\n%s" % M("[" + ",".join(str(b) for b in kp) + "]")
    return "solana secret key (base58)", "message", pick("Phantom export: %s", "SOLANA_PRIVATE_KEY=%s", "Keypair.fromSecretKey(bs58.decode(\"%s\"))") % M(b58enc(bytes(kp)))


@secret("ethereum private key", "hex key", "e")
def _():
    k = hx(64)
    return "ethereum private key", pick("message", "env file", "dispute statement"), pick(
        "PRIVATE_KEY=0x%s" % M(k),
        "deployer private key: %s" % M(k),
        "la clé privée du wallet de test : 0x%s" % M(k),
        "私钥：%s" % M(k),
        "export DEPLOYER_PK=%s" % M(k),
    )


@secret("age / nostr / minisign", "key files", "e")
def _():
    return "age or nostr secret key", pick("message", "key file"), pick(
        "key.txt:\n# created: %s\n# public key: %s\n%s" % (iso(), age_public(), M(age_secret())),
        "nostr bot key: %s" % M(nsec()),
        "NOSTR_NSEC=%s" % M(nsec()),
        "SOPS_AGE_KEY=%s" % M(age_secret()),
    )


@secret("jwk private", "json", "e")
def _():
    return "jwk private key", "config file", "{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"%s\",\"x\":\"%s\",\"y\":\"%s\",\"d\":\"%s\"}" % (
        rs(8, LOW + DIG), b64url_nopad(rbytes(32)), b64url_nopad(rbytes(32)), M(b64url_nopad(rbytes(32))))


@secret("totp seed", "2fa", "e")
def _():
    s = rs(32, UP + "234567")
    return "totp secret", pick("message", "runbook"), pick(
        "2FA secret for the shared account: %s" % M(s),
        "otpauth://totp/Acme:%s?secret=%s&issuer=Acme" % (user(), M(s)),
    )


# ======================================================= (f) tables, exports, diffs, chat logs

@secret("markdown table", "handover doc", "f")
def _():
    rows = ["| Service | User | Password |", "|---|---|---|"]
    for s in R.sample(["WordPress", "cPanel", "FTP", "MySQL", "Mailchimp", "Router", "NAS", "Jira"], R.randint(2, 4)):
        rows.append("| %s | %s | %s |" % (s, user(), M(pw())))
    return "passwords in table", "handover document", "Access handover\n\n" + "\n".join(rows)


@secret("csv export", "csv", "f")
def _():
    lines = ["email,name,role,temp_password"]
    for _ in range(R.randint(2, 4)):
        n = name()
        lines.append("%s@%s,%s,%s,%s" % (n.lower().replace("á", "a"), dom(), n, pick("editor", "viewer", "admin"), M(pw())))
    return "temp passwords in CSV", "export", "\n".join(lines)


@secret("tsv export", "spreadsheet", "f")
def _():
    lines = ["host\tuser\tpass\tnotes"]
    for _ in range(R.randint(2, 3)):
        lines.append("%s\t%s\t%s\t%s" % (ip(), user(), M(pw()), pick("prod", "old box", "staging", "-")))
    return "passwords in TSV", "spreadsheet paste", "\n".join(lines)


@secret("git diff", "diff", "f")
def _():
    old = pw()
    new = pw()
    return "password in diff", "PR diff in delivery", "diff --git a/config/settings.py b/config/settings.py\n@@ -12,7 +12,7 @@ DATABASES = {\n         'USER': '%s',\n-        'PASSWORD': '%s',\n+        'PASSWORD': '%s',\n         'HOST': '%s'," % (
        user(), M(old), M(new), host())


@secret("diff adds token", "diff", "f")
def _():
    k, f = prov()
    return k + " in diff", "PR diff", "--- a/.env.production\n+++ b/.env.production\n@@ -3,3 +3,4 @@\n LOG_LEVEL=info\n SENTRY_ENV=production\n+%s=%s" % (
        k.upper().replace(" ", "_").replace("-", "_"), M(f()))


@secret("chat log", "transcript", "f")
def _():
    lines = ["[%s] %s: %s" % (stamp()[11:], name(), pick("can you check the db?", "the migration failed again", "ok I'm in the server now"))]
    lines.append("[%s] %s: %s" % (stamp()[11:], name(), pick("user is %s pass %s" % (user(), M(pw())), "try %s" % M(pw()), "the root pw is %s" % M(pw()))))
    lines.append("[%s] %s: %s" % (stamp()[11:], name(), pick("thanks, works", "👍", "merci", "got it")))
    return "password in chat log", "transcript export", "\n".join(lines)


@secret("json export", "json", "f")
def _():
    d = {"integration": pick("shopify", "hubspot", "zendesk"), "enabled": True, "username": user(), "api_token": "__T__", "created_at": iso()}
    s = json.dumps(d, ensure_ascii=False)
    return "token in JSON export", "settings export", s.replace("__T__", M(pick(mixed(40), tok_hubspot(), tok_shopify())))


@secret("sql insert", "sql dump", "f")
def _():
    return "plaintext passwords in SQL", "sql dump", "INSERT INTO `integrations` (`id`, `name`, `login`, `secret`) VALUES\n(1, 'sms-gateway', '%s', '%s'),\n(2, 'erp', '%s', '%s');" % (
        user(), M(pw()), user(), M(mixed(24)))


@secret("email thread", "email", "f")
def _():
    return "password in email", "forwarded email in ticket", "---------- Forwarded message ---------\nFrom: IT Desk <it@%s>\nSubject: Your new account\n\nHi %s,\n\nyour account has been created.\nUsername: %s\nTemporary password: %s\n\nRegards" % (
        dom(), name(), user(), M(pw()))


@secret("ticket", "support ticket", "f")
def _():
    return "password in ticket", "support ticket", "Ticket #%s — Cannot log in to staging\nSteps: go to https://staging.%s, enter %s / %s, click Sign in\nExpected: dashboard. Actual: 500" % (
        digits(5), dom(), user(), M(pw()))


@secret("log with secret", "application log", "f")
def _():
    return "secret in log", "log excerpt", pick(
        "%s INFO  auth: POST /oauth/token grant_type=client_credentials client_id=%s client_secret=%s -> 200" % (iso(), rs(20, LOW + DIG), M(mixed(40))),
        "%s DEBUG mailer: connecting smtp.%s:587 as noreply with password=%s" % (iso(), dom(), M(pw())),
        "%s WARN  retrying request with header Authorization=Bearer %s" % (iso(), M(prov()[1]())),
    )


@secret("yaml export", "yaml", "f")
def _():
    return "credentials in yaml", "exported config", "integrations:\n  - name: erp\n    url: https://erp.%s\n    user: %s\n    password: %s\n  - name: crm\n    api_key: %s" % (
        dom(), user(), M(pw()), M(mixed(40)))


# ======================================================= more secrets (all groups)

def tok_twitter():
    return "A" * 22 + mixed(20) + "%2B" + mixed(20) + "%3D" + mixed(40)


def tok_aws_session():
    return "FwoGZXIvYXdzE" + mixed(R.choice([180, 300]), ALNUM + "+/")


def tok_google_access():
    return "ya29." + mixed(R.choice([120, 160]), B64URL)


def tok_google_refresh():
    return "1//0" + mixed(2, UP + LOW) + mixed(96, B64URL)


def tok_ado():
    return rs(52, LOW + "234567")


def tok_atlassian():
    return "ATATT3xFfGF0" + mixed(170, B64URL) + "=" + hx(8).upper()


def tok_resend():
    return "re_" + mixed(8) + "_" + mixed(24)


def tok_langsmith():
    return "lsv2_" + pick("pt", "sk") + "_" + hx(32) + "_" + hx(10)


def tok_openrouter():
    return "sk-or-v1-" + hx(64)


def tok_deepseek():
    return "sk-" + hx(32)


def tok_elevenlabs():
    return "sk_" + hx(48)


def tok_tavily():
    return "tvly-" + pick("dev-", "") + mixed(32)


def tok_firecrawl():
    return "fc-" + hx(32)


def tok_render():
    return "rnd_" + mixed(32)


def tok_ant_admin():
    return "sk-ant-admin01-" + mixed(93, B64URL) + "AA"


PROVIDERS.extend([
    ("twitter bearer token", tok_twitter), ("google oauth access token", tok_google_access), ("azure devops pat", tok_ado),
    ("atlassian api token", tok_atlassian), ("resend key", tok_resend), ("langsmith key", tok_langsmith),
    ("openrouter key", tok_openrouter), ("deepseek key", tok_deepseek), ("elevenlabs key", tok_elevenlabs),
    ("tavily key", tok_tavily), ("firecrawl key", tok_firecrawl), ("render key", tok_render), ("anthropic admin key", tok_ant_admin),
])


@secret("password", "login phrasing without label", "a")
def _():
    u, p = user(), M(pw())
    return "password", R.choice(CONTEXTS_A), pick(
        "you can log in as %s with %s" % (u, p),
        "creds: %s:%s" % (u, p),
        "%s/%s works on both boxes" % (u, p),
        "entra con %s y %s" % (u, p),
        "melde dich mit %s und %s an" % (u, p),
        "connecte-toi avec %s et %s" % (u, p),
        "%s でログインして、パスは %s" % (u, p),
        "用 %s 登录，密码 %s" % (u, p),
        "заходи под %s, пасс %s" % (u, p),
    )


@secret("password", "label on its own line", "a")
def _():
    return "password", pick("delivery note", "offer note", "email"), pick(
        "Username:\n%s\nPassword:\n%s" % (user(), M(pw())),
        "Benutzer:\n%s\nPasswort:\n%s" % (user(), M(pw())),
        "Usuario\n%s\nContraseña\n%s" % (user(), M(pw())),
        "ログインID\n%s\nパスワード\n%s" % (user(), M(pw())),
    )


@secret("password", "email subject", "a")
def _():
    return "password", "forwarded email", "Subject: new pw for the shop is %s\n\nsee subject, delete after reading" % M(pw())


@secret("password", "url-encoded in log", "c")
def _():
    p = pw_word_digits()
    enc = "".join("%%%02X" % ord(c) if c in "!#$&@?*%" else c for c in p)
    return "url-encoded password", "access log", "%s - - [12/Nov/2026:10:%02d:11 +0000] \"GET /login?user=%s&password=%s HTTP/1.1\" 302 0" % (ip(), R.randint(0, 59), user(), M(enc))


@secret("password", "oauth password grant body", "c")
def _():
    return "password", "request body in ticket", "POST /oauth/token\nContent-Type: application/x-www-form-urlencoded\n\ngrant_type=password&username=%s&password=%s&client_id=%s" % (user(), M(pw_word_digits()), rs(16, LOW + DIG))


@secret("password", "graphql mutation", "b")
def _():
    return "password", "deliverable code (GraphQL)", "mutation {\n  login(email: \"qa@%s\", password: \"%s\") {\n    token\n  }\n}" % (dom(), M(pw()))


@secret("database password", "sql create user", "f")
def _():
    p = M(pw())
    return "database password", "sql script", pick(
        "CREATE USER '%s'@'%%' IDENTIFIED BY '%s';\nGRANT ALL ON %s.* TO '%s'@'%%';" % (user(), p, R.choice(DBS), user()),
        "ALTER ROLE %s WITH LOGIN PASSWORD '%s';" % (user().replace(".", "_").replace("-", "_"), p),
        "CREATE LOGIN etl_reader WITH PASSWORD = '%s';" % p,
    )


@secret("password", "xml configs", "c")
def _():
    return "password", "config file", pick(
        "<servers>\n  <server>\n    <id>nexus-releases</id>\n    <username>%s</username>\n    <password>%s</password>\n  </server>\n</servers>" % (user(), M(pw())),
        "<user username=\"%s\" password=\"%s\" roles=\"manager-gui,admin-gui\"/>" % (user(), M(pw())),
        "<UserAccounts>\n  <AdministratorPassword>\n    <Value>%s</Value>\n    <PlainText>true</PlainText>\n  </AdministratorPassword>\n</UserAccounts>" % M(pw()),
        "<Server>\n  <Host>%s</Host>\n  <User>%s</User>\n  <Pass encoding=\"base64\">%s</Pass>\n</Server>" % (host(), user(), M(base64.b64encode(pw().encode()).decode())),
    )


@secret("password", "ini/toml/my.cnf", "c")
def _():
    return "password", "config file", pick(
        "[client]\nuser=%s\npassword=%s\nhost=%s" % (user(), M(pw()), host()),
        "[database]\nhost = \"%s\"\nuser = \"%s\"\npassword = \"%s\"\npool_size = 8" % (host(), user(), M(pw())),
        "[smtp]\nserver = smtp.%s\nport = 587\nlogin = reports\nsecret = %s" % (dom(), M(pw())),
    )


@secret("secret in dockerfile/systemd/cron", "ops files", "c")
def _():
    return "secret in ops file", pick("Dockerfile", "systemd unit", "crontab"), pick(
        "FROM node:20-alpine\nARG NPM_TOKEN=%s\nRUN echo \"//registry.npmjs.org/:_authToken=${NPM_TOKEN}\" > .npmrc && npm ci" % M(tok_npm()),
        "ENV DB_PASSWORD=%s" % M(pw()),
        "[Service]\nEnvironment=\"API_TOKEN=%s\"\nExecStart=/usr/local/bin/sync" % M(tok_bearer_opaque()),
        "0 3 * * * PGPASSWORD='%s' pg_dump -h %s -U %s %s | gzip > /backups/db.sql.gz" % (M(pw()), host(), user(), R.choice(DBS)),
        "proxy_set_header Authorization \"Bearer %s\";" % M(tok_bearer_opaque()),
        "listen stats\n    bind :8404\n    stats enable\n    stats auth admin:%s" % M(pw()),
    )


@secret("password", "ansible / tfvars / vagrant", "c")
def _():
    return "password", "infra file", pick(
        "[web]\n%s ansible_user=%s ansible_ssh_pass=%s ansible_become_pass=%s" % (ip(), user(), M(pw()), M(pw())),
        "db_password = \"%s\"\ndb_instance_class = \"db.t4g.medium\"" % M(mixed(20)),
        "config.ssh.username = \"vagrant\"\nconfig.ssh.password = \"%s\"" % M(pw()),
        "ldapsearch -x -H ldap://%s -D \"cn=admin,dc=example,dc=org\" -w %s -b \"dc=example,dc=org\"" % (host(), M(pw())),
    )


@secret("token in api client export", "postman/har/insomnia", "f")
def _():
    t = prov()[1]()
    return "token in tool export", pick("postman collection", "HAR export", "REST client file"), pick(
        "\"auth\": {\"type\": \"bearer\", \"bearer\": [{\"key\": \"token\", \"value\": \"%s\", \"type\": \"string\"}]}" % M(t),
        "{\"name\": \"Authorization\", \"value\": \"Bearer %s\"}" % M(t),
        "@baseUrl = https://api.%s\n@token = %s\n\nGET {{baseUrl}}/me\nAuthorization: Bearer {{token}}" % (dom(), M(t)),
        "{\"key\": \"apiKey\", \"value\": \"%s\", \"enabled\": true}" % M(t),
    )


@secret("pair with public part", "integration notes", "d")
def _():
    return "secret beside its public/id part", "integration notes", pick(
        "CLOUDINARY_URL=cloudinary://%s:%s@%s" % (digits(15), M(mixed(27, B64URL)), rs(8, LOW)),
        "PUSHER_APP_ID=%s\nPUSHER_KEY=%s\nPUSHER_SECRET=%s\nPUSHER_CLUSTER=eu" % (digits(7), hx(20), M(hx(20))),
        "ALGOLIA_APP_ID=%s\nALGOLIA_ADMIN_KEY=%s" % (rs(10, UP + DIG), M(hx(32))),
        "NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=pk_live_%s\nCLERK_SECRET_KEY=%s" % (base64.b64encode(b"clerk.%s$" % dom().encode()).decode().rstrip("="), M("sk_live_" + mixed(40))),
        "kaggle.json: {\"username\": \"%s\", \"key\": \"%s\"}" % (name().lower().replace("á", "a"), M(hx(32))),
        "AWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=%s\nAWS_SESSION_TOKEN=%s" % (akia(), M(tok_aws_secret()), M(tok_aws_session())),
        "wandb login %s" % M(hx(40)),
        "access_token: %s\nrefresh_token: %s\nexpires_in: 3599" % (M(tok_google_access()), M(tok_google_refresh())),
    )


@secret("jupyter notebook cell", "notebook json", "b")
def _():
    k, f = R.choice([("openai", tok_openai), ("openrouter", tok_openrouter), ("deepseek", tok_deepseek), ("tavily", tok_tavily), ("elevenlabs", tok_elevenlabs), ("langsmith", tok_langsmith)])
    return k + " key", "notebook (ipynb)", "{\"cell_type\": \"code\", \"execution_count\": 3, \"source\": [\"import os\", \"os.environ['%s_API_KEY'] = '%s'\"]}" % (k.upper(), M(f()))


# ================================================================ LOOK-ALIKES

# (a) prose about passwords, many languages
PROSE = [
    ("en", "I won't paste the password here — I'll send it through the platform's secure note once the contract starts."),
    ("en", "Your password must be at least 12 characters and include a number and a symbol."),
    ("en", "The password field on the signup form doesn't show an error when it's too short, that's the bug."),
    ("en", "Please reset your password from the login page; the link expires after 30 minutes."),
    ("en", "I don't have the password for the old hosting, can you ask your previous developer?"),
    ("en", "Password changed successfully. You can now sign in with your new password."),
    ("en", "Quick question: do you want the password rules to follow NIST 800-63B (no forced rotation)?"),
    ("en", "The client forgot their WordPress password, so I used the reset link — no password was shared with me."),
    ("en", "Seller delivered the script but it asks for a password I never received."),
    ("en", "We rotated all passwords after the incident on Tuesday; nobody needs to send anything."),
    ("es", "No voy a enviar la contraseña por aquí, te la paso por el gestor de contraseñas."),
    ("es", "La contraseña debe tener al menos 10 caracteres, una mayúscula y un número."),
    ("pt", "Esqueci minha senha, você pode me mandar o link de redefinição?"),
    ("fr", "Je ne partage jamais de mot de passe par message ; utilisez le lien d'invitation."),
    ("fr", "Le mot de passe a expiré, il faut le réinitialiser depuis la page de connexion."),
    ("de", "Bitte schick mir das Passwort nicht hier, sondern über den Passwortmanager."),
    ("de", "Das Passwort muss mindestens 12 Zeichen lang sein und eine Ziffer enthalten."),
    ("it", "La password è scaduta, ti arriverà una mail per reimpostarla."),
    ("nl", "Het wachtwoord stuur ik apart via Signal, niet via dit platform."),
    ("pl", "Hasło wyślę osobno, nie przez czat."),
    ("ru", "Пароль не присылайте в чат, я сам сброшу его через почту."),
    ("ru", "Пароль должен содержать не менее 12 символов."),
    ("uk", "Пароль я надішлю окремо після підписання договору."),
    ("tr", "Şifrenizi kimseyle paylaşmayın; destek ekibi asla şifre istemez."),
    ("id", "Kata sandi akan dikirim terpisah setelah pembayaran dikonfirmasi."),
    ("vi", "Mật khẩu phải có ít nhất 8 ký tự, bao gồm chữ hoa và số."),
    ("ja", "パスワードは別途お送りしますので、こちらには記載しません。"),
    ("ja", "パスワードを忘れた場合は、ログイン画面の「パスワードをお忘れの方」から再設定してください。"),
    ("zh", "密码不要发在聊天里，我会通过密码管理器共享给你。"),
    ("zh", "密码长度至少12位，需要包含数字和字母。"),
    ("ko", "비밀번호는 여기 올리지 마시고 따로 전달해 주세요."),
    ("ar", "لن أرسل كلمة المرور هنا، سأرسلها عبر مدير كلمات المرور."),
    ("he", "את הסיסמה אשלח בנפרד, לא בצ'אט הזה."),
    ("hi", "पासवर्ड यहाँ साझा न करें, मैं रीसेट लिंक भेज दूँगा।"),
    ("th", "กรุณาอย่าส่งรหัสผ่านในแชทนี้ค่ะ"),
    ("el", "Ο κωδικός πρόσβασης πρέπει να έχει τουλάχιστον 12 χαρακτήρες."),
    ("sv", "Lösenordet skickar jag separat via vår lösenordshanterare."),
    ("cs", "Heslo vám pošlu zvlášť, ne přes tento chat."),
    ("ro", "Parola trebuie schimbată la prima autentificare."),
    ("fil", "Hindi ko ibibigay ang password dito, sa secure na channel na lang."),
    ("fa", "رمز عبور را اینجا ارسال نکنید."),
    ("sw", "Nenosiri litatumwa kwa njia salama baada ya malipo."),
    ("hu", "A jelszót külön küldöm, nem ebben az üzenetben."),
]


@look("prose about passwords", "message in many languages", "a")
def _():
    lang, t = R.choice(PROSE)
    extra = pick("", "", " Thanks!", " 🙏", " (order %s)" % digits(6))
    return "prose about passwords (%s)" % lang, R.choice(CONTEXTS_A), t + extra


for _i in range(7):
    LOOK.append(LOOK[-1])


@look("password word then ordinary word", "message", "a")
def _():
    return "password word followed by prose", R.choice(CONTEXTS_A), pick(
        "Password: sent separately via the secure note feature.",
        "password: same as the one you gave me last week (not repeating it here)",
        "Passwort: bekommst du telefonisch.",
        "contraseña: la que te mandé por otro canal",
        "password is in the vault under \"Client %s / staging\"" % name(),
        "The password is correct, the problem is the 2FA code.",
        "password was wrong three times so the account got locked for 15 minutes",
        "パスワード：別途お知らせします",
        "密码：稍后单独发送",
        "пароль: отправлю отдельно",
        "mot de passe : envoyé par SMS",
        "Password hint: the name of the project, but I'm not writing it here.",
    )


@look("masked password", "message", "a")
def _():
    return "masked password", R.choice(CONTEXTS_A), pick(
        "Login: %s / Password: ********" % user(),
        "user %s, pass •••••••••• (I'll tell you on the call)" % user(),
        "password: [REDACTED]",
        "pw: <removed by me before posting>",
        "Passwort: ***** (per Telefon)",
        "contraseña: xxxxxxxx",
        "password: (hidden)",
        "password = \"<your password here>\"",
        "Password: ●●●●●●●●●●",
    )


@look("reset/expiry notice", "email", "a")
def _():
    return "password notice without value", "forwarded email", "Subject: Password reset requested\n\nHi %s,\n\nsomeone asked to reset the password for %s. If it was you, use the Reset password button in the app within 30 minutes (request %s).\n\nIf not, ignore this message." % (
        name(), user(), uuid4())


@look("password policy", "Q&A answer", "a")
def _():
    n = R.randint(8, 16)
    return "password policy", "Q&A answer", pick(
        "Password policy: min %d chars, 1 upper, 1 digit, 1 symbol, history of 5, lockout after 5 attempts." % n,
        "Política de contraseñas: mínimo %d caracteres, sin caducidad forzada." % n,
        "Passwortrichtlinie: mindestens %d Zeichen, Wechsel alle 90 Tage." % n,
        "要求：密码至少%d位，90天更换一次。" % n,
    )


@look("review mentioning password", "review", "a")
def _():
    return "review mentioning passwords", "review", pick(
        "Excellent work, and he never asked for my password — used a delegated account instead. 5/5",
        "Seller was careful: asked me to create a temporary user rather than share the main password.",
        "Muy profesional, nunca pidió la contraseña principal.",
        "Sehr gut. Hat die Passwörter nach Abschluss alle ändern lassen.",
        "Recommended. Password manager setup for our 12-person team, including 2FA on every account.",
    )


@look("word+digits non-password", "message", "a")
def _():
    return "word+digit identifiers", R.choice(CONTEXTS_A), pick(
        "Branch is feature/%s-%d, PR #%d" % (R.choice(WORDS), R.randint(10, 999), R.randint(100, 9999)),
        "Invoice %s%d attached, due in 14 days" % (R.choice(["INV", "FAC", "RE"]), R.randint(10000, 99999)),
        "I'm %s%d on the forum if you want to check my posts" % (R.choice(WORDS), R.randint(10, 99)),
        "Room %s-%d, floor 3" % (R.choice(["B", "C"]), R.randint(100, 400)),
        "Use coupon %s%d for 10%% off" % (R.choice(WORDS).upper(), R.randint(10, 50)),
        "Model number %s-%d%s" % (R.choice(["XR", "TX", "MK"]), R.randint(100, 999), R.choice(UP)),
        "Release %s-%d.%d.%d is live" % (R.choice(WORDS), 2026, R.randint(1, 12), R.randint(0, 9)),
    )


@look("login failure chat", "dispute statement", "a")
def _():
    return "failed login talk", "dispute statement", pick(
        "The seller says the password they gave me works, but every attempt returns \"Invalid credentials\". I recorded a video of three attempts.",
        "I typed the password exactly as sent and the site says it's wrong. I did not change it.",
        "El comprador cambió la contraseña antes de que yo pudiera entrar, por eso no pude entregar a tiempo.",
        "Der Käufer hat das Passwort zurückgesetzt, deshalb war mein Zugang weg.",
    )


# (b) code that handles passwords without holding one
@look("code handling passwords", "code", "b")
def _():
    return "code handling passwords", "deliverable code", R.choice([
        "def set_password(self, raw: str) -> None:\n    self.password_hash = bcrypt.hashpw(raw.encode(), bcrypt.gensalt(rounds=12))",
        "if len(password) < MIN_PASSWORD_LENGTH:\n    raise ValidationError(\"password too short\")",
        "password = getpass.getpass(\"Password: \")\nconn = psycopg2.connect(host=host, user=user, password=password)",
        "const password = process.env.DB_PASSWORD;\nif (!password) throw new Error('DB_PASSWORD not set');",
        "db_password = os.environ[\"DB_PASSWORD\"]",
        "String password = System.getenv(\"SMTP_PASSWORD\");\nsession.getTransport(\"smtp\").connect(host, user, password);",
        "password := os.Getenv(\"REDIS_PASSWORD\")\nrdb := redis.NewClient(&redis.Options{Addr: addr, Password: password})",
        "let password = std::env::var(\"PGPASSWORD\").expect(\"PGPASSWORD\");",
        "$password = getenv('DB_PASSWORD');\n$pdo = new PDO($dsn, $user, $password);",
        "password: str = Field(..., min_length=12, repr=False)",
        "@PostMapping(\"/login\")\npublic ResponseEntity<?> login(@RequestBody LoginRequest req) {\n    return auth.check(req.getUsername(), req.getPassword());\n}",
        "password = request.form.get(\"password\", \"\")\nif not check_password_hash(user.password_hash, password):\n    abort(401)",
        "await page.fill('#password', process.env.E2E_PASSWORD!);",
        "client.connect(host, username=user, password=password, timeout=10)",
        "api_key = config.get(\"openai\", \"api_key\")\nclient = OpenAI(api_key=api_key)",
        "stripe.api_key = settings.STRIPE_SECRET_KEY",
        "const client = new Anthropic({ apiKey: process.env.ANTHROPIC_API_KEY });",
        "token = keyring.get_password(\"acme-cli\", username)",
        "s3 = boto3.client(\"s3\")  # credentials come from the instance role",
        "password_hash = argon2.PasswordHasher().hash(password)",
        "def test_rejects_short_password():\n    assert not is_valid_password(\"a\" * 7)",
        "PASSWORD_RESET_TIMEOUT = 60 * 30\nAUTH_PASSWORD_VALIDATORS = [{\"NAME\": \"django.contrib.auth.password_validation.MinimumLengthValidator\"}]",
        "passwordEncoder.matches(rawPassword, user.getPasswordHash())",
        "self.password = password  # never logged",
        "secret = secrets.token_urlsafe(32)\nstore.put(user_id, hash_secret(secret))\nreturn secret",
    ])


@look("code reference after key word", "code", "b")
def _():
    return "reference after secret word", "deliverable code", pick(
        "password = settings.DATABASES[\"default\"][\"PASSWORD\"]",
        "password: config.db.password,",
        "apiKey: import.meta.env.VITE_API_BASE_URL_V2,",
        "token = ctx.obj.token",
        "secret_key = load_secret(\"jwt-signing\")",
        "password=self._password,",
        "client_secret = vault_client.read(\"secret/data/oauth\")[\"data\"][\"client_secret\"]",
        "PASSWORD = env.str(\"PASSWORD\", default=None)",
        "let token = try Keychain.read(service: \"api\", account: userId)",
        "val password = BuildConfig.KEYSTORE_PASSWORD_ENV_NAME",
        "options.Password = builder.Configuration[\"Redis:Password\"];",
    )


@look("test placeholder values", "code", "b")
def _():
    return "placeholder in code", "deliverable code", pick(
        "client = OpenAI(api_key=\"YOUR_API_KEY\")",
        "stripe.api_key = \"sk_test_...\"  # put your key here",
        "conn = psycopg2.connect(host=\"localhost\", user=\"postgres\", password=\"<password>\")",
        "const pool = mysql.createPool({ host: 'localhost', user: 'root', password: process.env.MYSQL_PWD ?? '' });",
        "redis.Redis(host=\"localhost\", port=6379, password=None)",
        "DriverManager.getConnection(url, user, \"\");",
        "new Stripe(\"sk_live_REPLACE_ME\");",
        "api_key: \"${API_KEY}\"",
        "Authorization: Bearer <token>",
        "token = \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"",
        "bot = telebot.TeleBot(\"<BOT_TOKEN>\")",
        "export GITHUB_TOKEN=ghp_your_token_here",
    )


@look("public / publishable keys in code", "code", "b")
def _():
    return "publishable or public key", "deliverable code", pick(
        "const stripe = Stripe('pk_live_51%s');" % mixed(97),
        "const stripePromise = loadStripe(\"pk_test_51%s\");" % mixed(97),
        "mapboxgl.accessToken = 'pk.eyJ1Ijoi%s.%s';" % (mixed(50, B64URL), mixed(22, B64URL)),
        "posthog.init('phc_%s', { api_host: 'https://eu.i.posthog.com' })" % mixed(43),
        "const firebaseConfig = {\n  apiKey: \"%s\",\n  authDomain: \"orchard-%s.firebaseapp.com\",\n  projectId: \"orchard-%s\",\n  messagingSenderId: \"%s\",\n  appId: \"1:%s:web:%s\"\n};" % (
            tok_google(), digits(5), digits(5), digits(12), digits(12), hx(22)),
        "const supabase = createClient('https://%s.supabase.co', '%s') // anon key, row level security on" % (rs(20, LOW), anon_jwt()),
        "NEXT_PUBLIC_SUPABASE_ANON_KEY=%s" % anon_jwt(),
    )


@look("ids beside env secret", "code", "b")
def _():
    return "ids with secret from env", "deliverable code", pick(
        "s3 = boto3.client(\"s3\", aws_access_key_id=\"%s\", aws_secret_access_key=os.environ[\"AWS_SECRET_ACCESS_KEY\"])" % akia(),
        "client = Client(\"AC%s\", os.environ[\"TWILIO_AUTH_TOKEN\"])" % hx(32),
        "GoogleProvider({ clientId: '%s-%s.apps.googleusercontent.com', clientSecret: process.env.GOOGLE_CLIENT_SECRET! })" % (digits(12), rs(32, LOW + DIG)),
        "msal.ConfidentialClientApplication(\"%s\", authority=AUTH, client_credential=os.environ[\"AZURE_CLIENT_SECRET\"])" % uuid4(),
        "razorpay.Client(auth=(\"rzp_live_%s\", os.getenv(\"RAZORPAY_SECRET\")))" % mixed(14),
    )


@look("hashes in code/tests", "code", "b")
def _():
    return "hash values", "tests in deliverable", pick(
        "EXPECTED_SHA256 = \"%s\"  # fixture file checksum" % hx(64),
        "stored = \"$2b$12$%s\"\nassert bcrypt.checkpw(candidate, stored.encode()) is False" % rs(53, ALNUM + "./"),
        "password_hash = \"$argon2id$v=19$m=65536,t=3,p=4$%s$%s\"" % (b64(16).rstrip("="), b64(32).rstrip("=")),
        "\"integrity\": \"sha512-%s\"" % b64(64),
        "commit %s" % hx(40),
        "image: ghcr.io/acme/api@sha256:%s" % hx(64),
        "const ETAG = '\"%s\"';" % hx(32),
        "user.password = \"pbkdf2_sha256$600000$%s$%s\"" % (rs(22, ALNUM), b64(32)),
    )


# (c) infra references, encrypted values
@look("secret manager reference", "config", "c")
def _():
    return "secret-manager reference", pick("config file", "manifest", "message"), R.choice([
        "DB_PASSWORD=op://Production/Postgres/password",
        "password: vault:secret/data/%s/db#password" % R.choice(DBS),
        "secret: arn:aws:secretsmanager:eu-west-1:%s:secret:prod/%s-AbC1d2" % (digits(12), R.choice(DBS)),
        "DB_PASS=ssm:/prod/%s/db/password" % R.choice(DBS),
        "\"password\": \"@Microsoft.KeyVault(SecretUri=https://kv-%s.vault.azure.net/secrets/db-password/)\"" % rs(6, LOW),
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-credentials\n        key: password",
        "password: {{ vault \"secret/data/%s\" \"password\" }}" % R.choice(DBS),
        "api_key = projects/orchard-%s/secrets/openai-api-key/versions/latest" % digits(5),
        "LoadCredential=dbpass:/etc/credstore/dbpass",
        "password: ${{ secrets.DB_PASSWORD }}",
        "NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
        "--secret=deployer-key",
        "password_file: /run/secrets/postgres_password",
        "SENDGRID_API_KEY=${SENDGRID_API_KEY:?missing}",
        "token: \"{{ lookup('env', 'GITHUB_TOKEN') }}\"",
        "DOPPLER_CONFIG=prd  # secrets injected by doppler run",
    ])


@look("encrypted value", "config", "c")
def _():
    return "encrypted value", pick("config file", "manifest"), R.choice([
        "db_password: ENC[AES256_GCM,data:%s,iv:%s,tag:%s,type:str]" % (b64(18), b64(32), b64(16)),
        "$ANSIBLE_VAULT;1.1;AES256\n%s\n%s\n%s" % (hx(80), hx(80), hx(60)),
        "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: db\nspec:\n  encryptedData:\n    password: Ag%s" % mixed(300, B64),
        "\"crypto\": {\"cipher\": \"aes-128-ctr\", \"kdf\": \"scrypt\", \"kdfparams\": {\"n\": 262144, \"r\": 8, \"p\": 1, \"salt\": \"%s\"}, \"mac\": \"%s\"}" % (hx(64), hx(64)),
        "sops:\n  age:\n    - recipient: %s\n  lastmodified: \"%s\"\n  mac: ENC[AES256_GCM,data:%s,type:str]" % (age_public(), iso(), b64(48)),
    ])


@look("failed login logs", "logs", "c")
def _():
    lines = []
    for _ in range(R.randint(2, 4)):
        lines.append(R.choice([
            "%s sshd[%s]: Failed password for invalid user %s from %s port %s ssh2" % (pick("Nov 12 03:14:07", "Nov 13 22:01:56", "Oct 30 11:45:10"), digits(5), user(), ip(), digits(5)),
            "%s sshd[%s]: Failed password for root from %s port %s ssh2" % (pick("Nov 12 03:14:09", "Nov 14 08:00:01"), digits(5), ip(), digits(5)),
            "%s [warn] auth: login failed for user=%s reason=bad_password attempts=%d" % (iso(), user(), R.randint(1, 5)),
            "%s FATAL:  password authentication failed for user \"%s\"" % (iso(), user()),
            "%s Access denied for user '%s'@'%s' (using password: YES)" % (iso(), user(), ip()),
            "%s 401 POST /api/login 12ms \"invalid password\"" % iso(),
        ]))
    return "failed-login log", "log excerpt", "\n".join(lines)


@look("empty password config", "config", "c")
def _():
    return "empty password", "config file", R.choice([
        "DB_HOST=localhost\nDB_USER=root\nDB_PASSWORD=\nDB_NAME=%s" % R.choice(DBS),
        "spring.datasource.username=sa\nspring.datasource.password=",
        "POSTGRES_HOST_AUTH_METHOD=trust\nPOSTGRES_PASSWORD=",
        "\"password\": \"\",\n\"password_required\": false",
        "requirepass \"\"",
        "password: null  # set by the operator at install time",
        "MYSQL_ALLOW_EMPTY_PASSWORD=yes\nMYSQL_ROOT_PASSWORD=",
        "password: ~",
    ])


@look("env example", "config", "c")
def _():
    return "env template", ".env.example", "\n".join([
        "APP_URL=https://%s" % dom(),
        "DB_HOST=%s" % host(),
        "DB_PASSWORD=%s" % pick("<set-me>", "REPLACE_ME", "your-db-password", "changeme-in-prod", "${DB_PASSWORD}", ""),
        "STRIPE_SECRET_KEY=%s" % pick("sk_live_xxx", "sk_test_your_key", "<stripe secret>", ""),
        "OPENAI_API_KEY=%s" % pick("sk-...", "your-openai-key", "<insert>"),
    ])


@look("command with prompt/env", "command", "c")
def _():
    return "command without secret", "README step", R.choice([
        "mysql -h %s -u %s -p %s   # you will be prompted for the password" % (host(), user(), R.choice(DBS)),
        "psql \"host=%s user=%s dbname=%s\"  # uses ~/.pgpass" % (host(), user(), R.choice(DBS)),
        "docker run -p 5432:5432 -e POSTGRES_PASSWORD_FILE=/run/secrets/pg postgres:16",
        "kubectl exec -it api-%s -- sh" % rs(5, LOW + DIG),
        "echo \"$CR_PAT\" | docker login ghcr.io -u %s --password-stdin" % user(),
        "ssh -i ~/.ssh/id_ed25519 %s@%s" % (user(), ip()),
        "aws sts assume-role --role-arn arn:aws:iam::%s:role/deploy --role-session-name ci" % digits(12),
        "gh auth login --web",
        "htpasswd -B /etc/nginx/.htpasswd %s   # prompts twice" % user(),
        "kubectl create secret generic db --from-file=password=./db_password.txt",
        "openssl rand -base64 32 > jwt.key",
        "vault kv get -field=password secret/%s/db" % R.choice(DBS),
        "op read \"op://Shared/SMTP/password\"",
        "ssh-keygen -t ed25519 -C \"deploy@%s\" -f ~/.ssh/deploy" % dom(),
    ])


@look("public keys in config", "config", "c")
def _():
    return "public key", "config file", R.choice([
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI%s deploy@%s" % (mixed(43, B64), pick("ci", "laptop", "build-01")),
        "[Peer]\nPublicKey = %s\nPresharedKey = (see vault)\nAllowedIPs = 10.8.0.0/24\nEndpoint = %s:51820" % (b64(32), ip()),
        "-----BEGIN PUBLIC KEY-----\n%s\n-----END PUBLIC KEY-----" % pem_body(294),
        "-----BEGIN CERTIFICATE-----\n%s\n-----END CERTIFICATE-----" % pem_body(900),
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n%s\n=%s\n-----END PGP PUBLIC KEY BLOCK-----" % (pem_body(400), rs(4, B64)),
        "authorized_keys:\n  - ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ%s ops" % mixed(300, B64),
        "recipients:\n  - %s\n  - %s" % (age_public(), age_public()),
        "Host key fingerprint is SHA256:%s" % b64(32).rstrip("="),
    ])


@look("ci log without secrets", "ci log", "c")
def _():
    return "CI log with masked values", "CI log excerpt", "%s ##[group]Run ./deploy.sh\nenv:\n  NODE_ENV: production\n  VERCEL_TOKEN: ***\n  DATABASE_URL: ***\n+ vercel deploy --prod --token ***\nDeployed to https://%s (build %s)" % (
        iso(), dom(), hx(7))


@look("connection string without password", "config", "c")
def _():
    return "connection string without password", pick("config", "message"), R.choice([
        "postgres://%s@%s:5432/%s?sslmode=require" % (user(), host(), R.choice(DBS)),
        "mongodb://%s:27017/%s?replicaSet=rs0" % (host(), R.choice(DBS)),
        "Server=%s;Database=%s;Integrated Security=SSPI;" % (host(), R.choice(DBS)),
        "redis://%s:6379/2" % host(),
        "postgresql://%s:${DB_PASSWORD}@%s/%s" % (user(), host(), R.choice(DBS)),
        "amqp://%s@%s:5672/ (password comes from AMQP_PASSWORD)" % (user(), host()),
        "jdbc:mysql://%s:3306/%s?useSSL=true" % (host(), R.choice(DBS)),
        "mysql://%s:****@%s/%s" % (user(), host(), R.choice(DBS)),
    ])


# (d) provider-shaped ids, masked tokens, publishable keys in headers/urls
@look("masked provider tokens", "message", "d")
def _():
    return "masked token", pick("message", "log line", "ticket"), R.choice([
        "the key ending in …%s was revoked this morning" % rs(4, ALNUM),
        "sk_live_••••••••••••%s" % rs(4, ALNUM),
        "Authorization: Bearer ***",
        "x-api-key: [FILTERED]",
        "ghp_************************************",
        "Token: sk-proj-****%s (last 4)" % rs(4, ALNUM),
        "AKIA************%s" % rs(4, UP + DIG),
        "Your new API key was created: name \"ci-%s\", prefix \"%s\". Copy the full key from the dashboard." % (digits(3), rs(8, LOW + DIG)),
        "GitHub: token ghp_%s… (truncated in the screenshot)" % rs(4, ALNUM),
    ])


@look("identifiers that open nothing", "config", "d")
def _():
    return "key id / client id / account id", pick("config", "message", "integration notes"), R.choice([
        "AWS_ACCESS_KEY_ID=%s\nAWS_REGION=eu-west-1\n# secret comes from the role" % akia(),
        "Access key ID: %s (the secret is in 1Password)" % akia(),
        "Twilio Account SID: AC%s" % hx(32),
        "key_id: rzp_live_%s" % mixed(14),
        "client_id=%s-%s.apps.googleusercontent.com" % (digits(12), rs(32, LOW + DIG)),
        "\"private_key_id\": \"%s\"" % hx(40),
        "Tenant ID: %s\nClient ID: %s" % (uuid4(), uuid4()),
        "GPG key id 0x%s, fingerprint %s" % (hx(16).upper(), " ".join(hx(4).upper() for _ in range(10))),
        "Stripe account: acct_1%s" % mixed(15),
        "App ID: %s, Installation ID: %s" % (digits(6), digits(8)),
        "Apple Key ID: %s, Team ID: %s" % (rs(10, UP + DIG), rs(10, UP + DIG)),
        "Algolia application id: %s" % rs(10, UP + DIG),
        "Sentry DSN project id %s, org %s" % (digits(7), rs(6, LOW)),
        "PayPal Client ID: %s" % mixed(80, B64URL),
        "Binance API Key (read-only id shown in the UI): %s — the secret stays with me" % mixed(64),
    ])


@look("object ids", "payments", "d")
def _():
    return "object ids", pick("ticket", "dispute statement", "log line"), R.choice([
        "Refund issued for pi_3%s (charge ch_3%s), customer cus_%s" % (mixed(23), mixed(23), mixed(14)),
        "price_1%s / prod_%s" % (mixed(23), mixed(14)),
        "Idempotency-Key: %s" % uuid4(),
        "X-Request-Id: %s" % uuid4(),
        "traceparent: 00-%s-%s-01" % (hx(32), hx(16)),
        "order_id=ord_%s&status=paid" % mixed(24),
        "Slack channel C%s, message ts %s.%s" % (rs(10, UP + DIG), digits(10), digits(6)),
        "event evt_1%s delivered to we_1%s" % (mixed(23), mixed(23)),
        "Sentry event %s" % hx(32),
        "workflow run %s, job %s" % (digits(11), digits(11)),
    ])


@look("csrf / nonce headers", "http", "d")
def _():
    return "csrf token and nonces", "HAR excerpt", "POST /settings HTTP/2\nHost: app.%s\nCookie: csrftoken=%s; theme=dark; _ga=GA1.1.%s.%s\nX-CSRFToken: %s\nX-Request-Id: %s" % (
        dom(), mixed(32), digits(9), digits(10), mixed(64), uuid4())


@look("public url params", "url", "d")
def _():
    return "url with ids", pick("message", "log line"), R.choice([
        "https://%s/search?q=%s&page=2&utm_source=newsletter&utm_campaign=%s" % (dom(), R.choice(WORDS), digits(6)),
        "https://etherscan.io/tx/0x%s" % hx(64),
        "https://%s/blog/%s-%d" % (dom(), R.choice(WORDS), R.randint(2019, 2026)),
        "https://youtu.be/%s?t=42" % rs(11, B64URL),
        "https://pypi.org/project/%s/%d.%d.%d/" % (R.choice(WORDS), R.randint(0, 5), R.randint(0, 20), R.randint(0, 9)),
        "https://github.com/acme/%s/commit/%s" % (R.choice(DBS), hx(40)),
        "https://cdn.%s/assets/app.%s.js" % (dom(), hx(20)),
        "https://api.%s/v1/reports?format=csv&page_size=100&cursor=%s" % (dom(), b64url_nopad(rbytes(12))),
        "https://maps.example.com/embed?pb=!1m18!1m12!1m3!1d%s" % digits(8),
    ])


@look("mobile config public values", "mobile", "d")
def _():
    return "mobile public config", "mobile project file", R.choice([
        "<key>CFBundleIdentifier</key>\n<string>com.orchard.app%s</string>\n<key>CFBundleVersion</key>\n<string>%d</string>" % (digits(2), R.randint(100, 999)),
        "android {\n    namespace \"com.kestrel.app\"\n    defaultConfig { versionCode %d versionName \"2.%d.%d\" }\n}" % (R.randint(10, 500), R.randint(0, 9), R.randint(0, 9)),
        "RELEASE_STORE_PASSWORD=System.getenv(\"STORE_PASSWORD\")",
        "storePassword System.getenv(\"KEYSTORE_PASSWORD\")\nkeyPassword System.getenv(\"KEY_PASSWORD\")",
        "\"extra\": { \"eas\": { \"projectId\": \"%s\" } }" % uuid4(),
        "<meta-data android:name=\"com.google.android.geo.API_KEY\" android:value=\"${MAPS_API_KEY}\" />",
        "EXPO_PUBLIC_API_URL=https://api.%s" % dom(),
    ])


@look("data uri / base64 content", "code", "d")
def _():
    return "base64 content", pick("HTML deliverable", "email source"), R.choice([
        "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA%s\" alt=\"logo\">" % mixed(120, B64),
        "Content-Transfer-Encoding: base64\n\n%s" % pem_body(180),
        "font-src: url(data:font/woff2;base64,d09GMgABAAAAA%s)" % mixed(90, B64),
    ])


# (e) public wallet data, bad checksums, public facts
@look("addresses and public keys", "web3", "e")
def _():
    return "addresses / public keys", pick("message", "Q&A answer", "config"), R.choice([
        "Send the USDC to 0x%s on Base, please." % hx(40),
        "payout address: %s" % segwit_addr(),
        "My xpub for the watch-only wallet: %s" % xkey(private=False),
        "Solana address: %s" % b58enc(rbytes(32)),
        "npub: %s" % npub(),
        "\"token\": \"0x%s\"" % hx(40),
        "contract deployed at 0x%s, verified on the explorer" % hx(40),
        "age recipient %s" % age_public(),
        "Pubkey (compressed): 0%s%s" % (R.choice("23"), hx(64)),
    ])


@look("tx and block hashes", "web3", "e")
def _():
    return "transaction / block hash", pick("dispute statement", "message", "log"), R.choice([
        "Here's proof I paid: tx hash 0x%s, block %s." % (hx(64), digits(8)),
        "the transaction hash, NOT my private key: 0x%s" % hx(64),
        "Block hash %s, height %s" % (hx(64), digits(6)),
        "txid %s confirmed (6 confirmations)" % hx(64),
        "Solana signature: %s" % b58enc(rbytes(64)),
        "storage slot 0x%s holds the owner" % hx(64),
        "keccak256(\"Transfer(address,address,uint256)\") = 0x%s" % hx(64),
        "merkle root: 0x%s" % hx(64),
        "это хеш транзакции, а не приватный ключ: 0x%s" % hx(64),
    ])


@look("bip39 words failing checksum", "word list", "e")
def _():
    n = R.choice([12, 12, 15, 18, 24])
    ws = bad_mnemonic(n)
    return "BIP-39 words, checksum fails (%d)" % n, pick("deliverable", "Q&A answer", "code"), R.choice([
        "Spelling list for week %d: %s" % (R.randint(1, 30), ", ".join(ws)),
        "it('rejects a mnemonic with a bad checksum', () => {\n  expect(validateMnemonic('%s')).toBe(false);\n});" % " ".join(ws),
        "Checksum test vector (invalid, must be rejected): \"%s\"" % " ".join(ws),
        "Word game round %d — guess the connection: %s" % (R.randint(1, 9), " ".join(ws)),
        "tags: %s" % ", ".join(ws),
        "The validator said \"invalid checksum\" for these %d words, so they are not a real phrase: %s" % (n, " ".join(ws)),
        "Vocabulary flashcards (English B1): %s" % " / ".join(ws),
    ])


@look("hardhat public key", "web3", "e")
def _():
    return "published dev-chain key", "README", R.choice([
        "Local node: npx hardhat node prints its 20 funded accounts; Account #0 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 with private key 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80 (public, never use on mainnet).",
        "anvil default mnemonic: test test test test test test test test test test test junk",
    ])


@look("derivation paths and key metadata", "web3", "e")
def _():
    return "key metadata", pick("config", "message"), R.choice([
        "derivation path m/44'/60'/0'/0/%d, account index %d" % (R.randint(0, 9), R.randint(0, 9)),
        "master fingerprint %s, path m/84'/0'/0'" % hx(8),
        "key type ed25519, created %s, expires never" % iso()[:10],
        "keystore: UTC--%s--%s.json (encrypted; the password is with the client)" % (iso().replace(":", "-"), hx(40)),
        "Ledger firmware 2.%d.%d, app Ethereum 1.%d.%d" % (R.randint(0, 9), R.randint(0, 9), R.randint(0, 12), R.randint(0, 9)),
    ])


@look("seed phrase talk", "prose", "e")
def _():
    return "prose about seed phrases", R.choice(CONTEXTS_A), R.choice([
        "Never send your seed phrase to anyone, including me. I only need the public address.",
        "La frase semilla nunca se comparte. Solo necesito tu dirección pública.",
        "Die Seed-Phrase bleibt bei dir; ich brauche nur den xpub.",
        "助记词千万不要发给任何人。",
        "シードフレーズは絶対に共有しないでください。",
        "The wallet uses a 24-word recovery phrase written on steel plates; I never saw it.",
        "Je n'ai jamais demandé votre phrase de récupération.",
    ])


# (f) tables, exports, diffs, chat logs without secrets
@look("user table without passwords", "table", "f")
def _():
    rows = ["| User | Role | Password | 2FA |", "|---|---|---|---|"]
    for _ in range(R.randint(2, 4)):
        rows.append("| %s | %s | %s | %s |" % (user(), pick("admin", "editor", "viewer"), pick("(set by user)", "SSO", "—", "reset link sent", "n/a", ""), pick("yes", "no", "TOTP")))
    return "table without passwords", "handover document", "\n".join(rows)


@look("csv with empty password column", "csv", "f")
def _():
    lines = ["email,name,password,last_login"]
    for _ in range(R.randint(2, 4)):
        n = name()
        lines.append("%s@%s,%s,,%s" % (n.lower().replace("á", "a"), dom(), n, iso()[:10]))
    return "empty password column", "export", "\n".join(lines)


@look("csv with hashes", "csv", "f")
def _():
    lines = ["id,email,password_hash,created"]
    for i in range(R.randint(2, 3)):
        lines.append("%d,%s@%s,$2y$10$%s,%s" % (R.randint(1, 999), name().lower().replace("á", "a"), dom(), rs(53, ALNUM + "./"), iso()[:10]))
    return "bcrypt hashes in export", "export", "\n".join(lines)


@look("diff replacing literal with env", "diff", "f")
def _():
    return "diff with references only", "PR diff", "--- a/settings.py\n+++ b/settings.py\n@@ -8,3 +8,3 @@\n-    'PASSWORD': os.getenv('PGPASS'),\n+    'PASSWORD': env('DATABASE_PASSWORD'),\n     'HOST': '%s'," % host()


@look("diff of migration", "diff", "f")
def _():
    return "migration diff", "PR diff", "diff --git a/migrations/00%d_password_hash.py b/migrations/00%d_password_hash.py\n+    op.add_column('users', sa.Column('password_hash', sa.String(255), nullable=True))\n+    op.drop_column('users', 'password_plain')" % (R.randint(10, 99), R.randint(10, 99))


@look("chat log without secrets", "transcript", "f")
def _():
    lines = ["[%s] %s: %s" % (stamp()[11:], name(), pick("what's the password for staging?", "can you send the api key?", "need the db creds")),
             "[%s] %s: %s" % (stamp()[11:], name(), pick("shared it in 1Password, check the Staging vault", "not over chat — I invited you to the vault", "use SSO, there is no password", "I'll call you")),
             "[%s] %s: %s" % (stamp()[11:], name(), pick("got it, thanks", "ok", "works now", "👍"))]
    return "chat about credentials", "transcript export", "\n".join(lines)


@look("tsv of hosts", "spreadsheet", "f")
def _():
    lines = ["host\tuser\tauth\tnotes"]
    for _ in range(R.randint(2, 4)):
        lines.append("%s\t%s\t%s\t%s" % (ip(), user(), pick("ssh key", "SSO", "key in vault", "password (ask ops)"), pick("prod", "staging", "old", "-")))
    return "host inventory without secrets", "spreadsheet paste", "\n".join(lines)


@look("json export without secrets", "json", "f")
def _():
    d = {"integration": pick("shopify", "hubspot", "zendesk"), "enabled": True, "username": user(), "api_token": pick("********", None, "", "stored-in-kms"),
         "token_last4": rs(4, ALNUM), "token_created_at": iso(), "webhook_id": uuid4()}
    return "settings export with masked token", "settings export", json.dumps(d, ensure_ascii=False)


@look("support ticket without secrets", "ticket", "f")
def _():
    return "ticket about login", "support ticket", "Ticket #%s — Login loop on staging\nUser %s reports being sent back to /login after entering the correct password. Session cookie is set but expires immediately (Max-Age=0). Browser: Firefox %d." % (
        digits(5), user(), R.randint(110, 135))


@look("audit log", "log", "f")
def _():
    lines = []
    for _ in range(R.randint(2, 4)):
        lines.append("%s %s %s" % (iso(), user(), R.choice(["password_changed", "api_key_rotated id=key_%s" % rs(12, LOW + DIG), "mfa_enabled", "login_success ip=%s" % ip(),
                                                             "token_revoked prefix=ghp_%s" % rs(4, ALNUM), "secret_read path=secret/data/%s" % R.choice(DBS)])))
    return "audit log events", "log excerpt", "\n".join(lines)


@look("email without secret", "email", "f")
def _():
    return "account email without password", "forwarded email", "Subject: Your account is ready\n\nHi %s,\n\nyour account %s has been created. Sign in at https://accounts.%s with your company SSO; no password is needed.\n\nIT Desk" % (
        name(), user(), dom())


@look("sql without secrets", "sql", "f")
def _():
    return "sql about passwords", "sql dump", pick(
        "ALTER TABLE users ADD COLUMN password_hash VARCHAR(255) NOT NULL DEFAULT '';",
        "UPDATE users SET password_reset_token = NULL WHERE reset_expires < NOW();",
        "SELECT id, email FROM users WHERE password_hash IS NULL;",
        "CREATE USER report_reader WITH LOGIN; -- password set via ALTER ROLE from the vault",
        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO analytics;",
    )


# ------------------------------------------------------- more look-alikes (all groups)

@look("i18n strings", "code", "b")
def _():
    return "translation strings about passwords", "deliverable code (i18n)", R.choice([
        "{\n  \"login.password\": \"Mot de passe\",\n  \"login.forgot\": \"Mot de passe oublié ?\"\n}",
        "de:\n  auth:\n    password: \"Passwort\"\n    password_confirmation: \"Passwort bestätigen\"",
        "\"passwordPlaceholder\": \"Enter your password\",\n\"passwordTooShort\": \"Password must be at least 12 characters\"",
        "es.json: {\"password\": \"Contraseña\", \"apiKey\": \"Clave de API\", \"token\": \"Token de acceso\"}",
        "ja.yml:\n  password: パスワード\n  password_confirm: パスワード（確認）",
        "msgid \"Password\"\nmsgstr \"Пароль\"",
    ])


@look("html/openapi password fields", "code", "b")
def _():
    return "password field definitions", "deliverable code", R.choice([
        "<input type=\"password\" name=\"password\" placeholder=\"••••••••\" autocomplete=\"current-password\" minlength=\"12\" required>",
        "password:\n  type: string\n  format: password\n  minLength: 12\n  writeOnly: true",
        "apiKey:\n  type: apiKey\n  in: header\n  name: X-API-Key",
        "securitySchemes:\n  bearerAuth:\n    type: http\n    scheme: bearer\n    bearerFormat: JWT",
        "class LoginForm(forms.Form):\n    password = forms.CharField(widget=forms.PasswordInput, min_length=12)",
        "<PasswordInput value={password} onChange={e => setPassword(e.target.value)} />",
    ])


@look("cli output with ids only", "logs", "c")
def _():
    return "tool output without secrets", "terminal output", R.choice([
        "$ kubectl describe secret db-credentials\nName:         db-credentials\nNamespace:    prod\nType:  Opaque\n\nData\n====\npassword:  %d bytes\nusername:  %d bytes" % (R.randint(12, 32), R.randint(4, 10)),
        "$ gpg --list-secret-keys\nsec   ed25519/0x%s %s [SC]\n      %s\nuid   [ultimate] %s <%s@%s>" % (hx(16).upper(), iso()[:10], hx(40).upper(), name(), name().lower().replace("á", "a"), dom()),
        "$ aws sts get-caller-identity\n{\n    \"UserId\": \"AIDA%s\",\n    \"Account\": \"%s\",\n    \"Arn\": \"arn:aws:iam::%s:user/deploy\"\n}" % (rs(17, UP + "234567"), digits(12), digits(12)),
        "$ gh auth status\ngithub.com\n  ✓ Logged in to github.com account %s (keyring)\n  - Token: gho_************************************\n  - Token scopes: 'gist', 'read:org', 'repo'" % user(),
        "$ ssh-keygen -lf ~/.ssh/id_ed25519.pub\n256 SHA256:%s %s@%s (ED25519)" % (b64(32).rstrip("="), user(), pick("laptop", "ci")),
        "$ npm token list\n│ id     │ token   │ created    │ readonly │\n│ %s │ npm_%s… │ %s │ no       │" % (hx(6), rs(4, ALNUM), iso()[:10]),
        "$ vault kv metadata get secret/%s\ncreated_time    %s\ncurrent_version %d\nmax_versions    0" % (R.choice(DBS), iso(), R.randint(1, 9)),
    ])


@look("hashes in auth files", "config", "c")
def _():
    return "password hashes in auth files", "config file", R.choice([
        "%s:$apr1$%s$%s" % (user(), rs(8, ALNUM), rs(22, ALNUM + "./")),
        "%s:$6$%s$%s:19876:0:99999:7:::" % (user(), rs(16, ALNUM + "./"), rs(86, ALNUM + "./")),
        "%s:{SSHA}%s" % (user(), b64(24)),
        "<password>{AQAAABAAAAAQ%s}</password>" % mixed(64, B64),
        "userlist.txt: \"%s\" \"SCRAM-SHA-256$4096:%s$%s:%s\"" % (user(), b64(16), b64(32), b64(32)),
        "md5 of the backup: %s" % hx(32),
    ])


@look("file paths to keys", "config", "c")
def _():
    return "paths to key files", "config file", R.choice([
        "PRIVATE_KEY_FILE=/etc/ssl/private/%s.key" % R.choice(DBS),
        "GOOGLE_APPLICATION_CREDENTIALS=/secrets/sa-%s.json" % digits(4),
        "private_key_path = \"~/.ssh/id_ed25519\"",
        "ssl_certificate_key /etc/letsencrypt/live/%s/privkey.pem;" % dom(),
        "--password-file /run/secrets/restic_pw",
        "IdentityFile ~/.ssh/deploy_%s" % digits(4),
        "keystore.path=/opt/app/conf/keystore.p12\nkeystore.password.env=KEYSTORE_PASS",
    ])


@look("authorization header with references", "http", "d")
def _():
    return "authorization header without a value", pick("README step", "CI config"), R.choice([
        "curl -H \"Authorization: Bearer $(gcloud auth print-access-token)\" https://run.googleapis.com/v2/projects/p/locations/eu/services",
        "curl -H \"Authorization: Bearer $TOKEN\" https://api.%s/v1/me" % dom(),
        "-H 'X-API-Key: ${{ secrets.API_KEY }}'",
        "WWW-Authenticate: Basic realm=\"staging\", charset=\"UTF-8\"",
        "headers = {\"Authorization\": f\"Bearer {token}\"}",
        "Authorization: Bearer <access_token from step 2>",
        "every token starts with eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 — that part is only the base64 of the header {\"alg\":\"HS256\",\"typ\":\"JWT\"}",
    ])


@look("public halves of pairs", "integration notes", "d")
def _():
    return "public or id half only", "integration notes", R.choice([
        "NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=pk_live_%s" % base64.b64encode(b"clerk.%s$" % dom().encode()).decode().rstrip("="),
        "PUSHER_APP_ID=%s\nPUSHER_KEY=%s\nPUSHER_CLUSTER=eu  # the secret stays on the server" % (digits(7), hx(20)),
        "ALGOLIA_APP_ID=%s" % rs(10, UP + DIG),
        "CLOUDINARY_CLOUD_NAME=%s" % rs(8, LOW),
        "VITE_STRIPE_PUBLISHABLE_KEY=pk_test_51%s" % mixed(97),
        "AWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=****************************************" % akia(),
        "Algolia search-only key goes in the frontend; admin key stays in the vault.",
    ])


@look("username with digits only", "message", "a")
def _():
    return "username and ids with digits", R.choice(CONTEXTS_A), pick(
        "Login: %s%d (password via the vault share)" % (R.choice(FIRST).lower().replace("á", "a"), R.randint(1960, 2015)),
        "my username there is %s_%d, no password needed, it's SSO" % (R.choice(WORDS), R.randint(10, 999)),
        "user id %s, tenant %s" % (digits(8), R.choice(WORDS) + "-" + digits(3)),
        "Account name: %s-%s-%d" % (R.choice(WORDS), R.choice(WORDS), R.randint(1, 99)),
        "Benutzername: %s.%s%d" % (R.choice(FIRST).lower().replace("á", "a"), R.choice(WORDS), R.randint(1, 99)),
    )


@look("wifi without password", "message", "a")
def _():
    return "wifi info without password", R.choice(CONTEXTS_A), pick(
        "Wi-Fi: Cafe_Lumen (open network, no password, just accept the terms)",
        "The guest network is Coworking Guest; the code is printed on the desk card, I don't have it.",
        "WLAN heißt Office-5G, das Passwort hängt an der Küchentür.",
        "La red es Livebox-8A21 pero la clave la tiene el dueño.",
    )


@look("solidity private/salt constants", "code", "e")
def _():
    return "public chain constants", "deliverable code (Solidity)", R.choice([
        "bytes32 private constant SALT = 0x%s; // CREATE2 salt, public by design" % hx(64),
        "bytes32 public constant MINTER_ROLE = keccak256(\"MINTER_ROLE\");\nbytes32 private constant _TYPEHASH = 0x%s;" % hx(64),
        "address private immutable owner = 0x%s;" % hx(40),
        "uint256 private constant SECRET_ROUND = %d; // just a round number" % R.randint(1, 100),
        "function verify(bytes32 root, bytes32 leaf) private pure returns (bool) { /* merkle root 0x%s */ }" % hx(64),
    ])


@look("seed talk in code", "code", "e")
def _():
    return "random seeds, not wallet seeds", "deliverable code", R.choice([
        "random.seed(%d)\nnp.random.seed(%d)" % (R.randint(0, 99999), R.randint(0, 99999)),
        "torch.manual_seed(%d)  # reproducible split" % R.randint(0, 99999),
        "SEED = %d" % R.randint(0, 2 ** 31),
        "const rng = seedrandom('%s-%d');" % (R.choice(WORDS), R.randint(1, 99)),
        "python manage.py loaddata seed_%s.json" % R.choice(DBS),
        "npx prisma db seed  # creates demo users without passwords (magic link only)",
    ])


# ---------------------------------------------------------------- build

def escape(s):
    if "\\" in s:
        raise ValueError("backslash in sample: %r" % s[:80])
    if "\r" in s:
        raise ValueError("carriage return in sample")
    return s.replace("\n", "\\n").replace("\t", "\\t")


def balanced(s):
    depth = 0
    for c in s:
        if c == "«":
            if depth:
                return False
            depth = 1
        elif c == "»":
            if not depth:
                return False
            depth = 0
    return depth == 0


SECRET_WEIGHTS = {"a": 26, "b": 18, "c": 17, "d": 15, "e": 12, "f": 12}
LOOK_WEIGHTS = {"a": 20, "b": 17, "c": 18, "d": 15, "e": 13, "f": 17}


def build(templates, want, is_secret):
    weights = SECRET_WEIGHTS if is_secret else LOOK_WEIGHTS
    by_group = {}
    for t in templates:
        by_group.setdefault(t[2], []).append(t)
    groups = sorted(by_group)
    cursor = {g: 0 for g in groups}
    orders = {g: list(range(len(by_group[g]))) for g in groups}
    out = []
    seen = set()
    dropped = 0
    while len(out) < want:
        g = R.choices(groups, weights=[weights[x] for x in groups])[0]
        if cursor[g] % len(orders[g]) == 0:
            R.shuffle(orders[g])
        kind, ctx, group, fn = by_group[g][orders[g][cursor[g] % len(orders[g])]]
        cursor[g] += 1
        k2, c2, text = fn()
        if text in seen:
            dropped += 1
            if dropped > 20000:
                sys.exit("too many duplicates")
            continue
        if text.startswith("#"):
            sys.exit("sample starts with '#': %r" % text[:60])
        if is_secret:
            if "«" not in text or not balanced(text):
                sys.exit("secret sample without balanced marks: %r" % text[:80])
            if any(not m.split("»")[0].strip() for m in text.split("«")[1:]):
                sys.exit("empty mark: %r" % text[:80])
        else:
            if "«" in text or "»" in text:
                sys.exit("look-alike holds a mark: %r" % text[:80])
        line = escape(text)
        if line.startswith("#"):
            sys.exit("line starts with '#'")
        seen.add(text)
        comment = "# %s | %s (%s)" % (k2, c2, group)
        out.append((comment.replace("\n", " "), line, group))
    return out, dropped


HEADER_SECRET = """# Fifteenth held-out credential corpus: texts holding at least one credential.
# Written by heldout15_gen.py (seed 2026112915); every value random in the shape of its kind.
# «...» marks what must be removed. Each sample is preceded by '# kind | context (group)'.
"""
HEADER_LOOK = """# Fifteenth held-out credential corpus: look-alikes, texts in which nothing may be found.
# Written by heldout15_gen.py (seed 2026112915). Each sample is preceded by '# kind | context (group)'.
"""


def write(path, header, rows):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(header)
        for comment, line, _ in rows:
            f.write(comment + "\n" + line + "\n")


def main():
    sec, d1 = build(SECRET, N, True)
    lk, d2 = build(LOOK, N, False)
    write(os.path.join(HERE, "heldout15_secret.txt"), HEADER_SECRET, sec)
    write(os.path.join(HERE, "heldout15_lookalike.txt"), HEADER_LOOK, lk)
    marks = sum(line.count("«") for _, line, _ in sec)
    for label, rows in (("secret", sec), ("lookalike", lk)):
        groups = {}
        for _, _, g in rows:
            groups[g] = groups.get(g, 0) + 1
        print("%s: %d texts, by group %s" % (label, len(rows), ", ".join("%s=%d" % kv for kv in sorted(groups.items()))))
    print("marks in secret texts: %d; duplicates dropped: %d secret, %d look-alike" % (marks, d1, d2))
    print("templates: %d secret, %d look-alike" % (len(SECRET), len(LOOK)))


if __name__ == "__main__":
    main()
