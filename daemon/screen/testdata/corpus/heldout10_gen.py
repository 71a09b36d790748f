#!/usr/bin/env python3
"""Writes heldout10_secret.txt and heldout10_lookalike.txt (tenth held-out credential corpus).

Stdlib only and seeded: rerunning writes identical files. Every value is random and fake.
Format: one sample a line, `# kind | context` before it, `\\n` for a newline, `\\u005c` for a
backslash; «...» marks each value that must be removed.
"""
import base64
import hashlib
import json
import os
import random
import string

R = random.Random(20261210)
HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = open(os.path.join(HERE, "..", "..", "bip39_english.txt")).read().split()

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
ALNUM = LOW + UP + DIG
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"


def rs(alpha, n):
    return "".join(R.choice(alpha) for _ in range(n))


def pick(*xs):
    return R.choice(xs)


def camel(e):
    parts = e.lower().split("_")
    return parts[0] + "".join(x.title() for x in parts[1:])


def m(v):
    return "«" + v + "»"


def b64(bs):
    return base64.b64encode(bs).decode()


def b64url(bs):
    return base64.urlsafe_b64encode(bs).decode().rstrip("=")


# ---------------------------------------------------------------- value makers

def eth_key():
    return rs(HEX, 64)


def bip39(n):
    ent_bits = n * 11 * 32 // 33
    ent = R.getrandbits(ent_bits).to_bytes(ent_bits // 8, "big")
    cs = n * 11 - ent_bits
    h = int.from_bytes(hashlib.sha256(ent).digest(), "big") >> (256 - cs)
    bits = (int.from_bytes(ent, "big") << cs) | h
    return [WORDS[(bits >> (11 * (n - 1 - i))) & 2047] for i in range(n)]


def bip39_valid(ws):
    if len(ws) % 3 or len(ws) < 12:
        return False
    try:
        idx = [WORDS.index(w) for w in ws]
    except ValueError:
        return False
    n = len(ws)
    bits = 0
    for i in idx:
        bits = (bits << 11) | i
    cs = n * 11 // 33
    ent_bits = n * 11 - cs
    ent = (bits >> cs).to_bytes(ent_bits // 8, "big")
    return (bits & ((1 << cs) - 1)) == int.from_bytes(hashlib.sha256(ent).digest(), "big") >> (256 - cs)


def bad_words(n):
    while True:
        ws = [R.choice(WORDS) for _ in range(n)]
        if not bip39_valid(ws):
            return ws


PASS_WORDS = ("harbor lantern quartz meadow pixel thunder cobalt saffron orbit velvet canyon "
              "sprocket maple juniper falcon ember glacier nimbus pepper walnut tundra raven "
              "copper mango violet sierra willow bramble comet marble").split()


def password():
    k = R.randrange(8)
    if k == 0:
        return rs(ALNUM, 5) + R.choice("!#%&*?@$") + rs(ALNUM, 4) + R.choice("!#%&*?") + rs(ALNUM, 3)
    if k == 1:
        return R.choice(PASS_WORDS).capitalize() + rs(DIG, R.choice((2, 4))) + R.choice("!#$*.")
    if k == 2:
        return "-".join(R.sample(PASS_WORDS, 4))
    if k == 3:
        return rs(LOW, 4) + rs(DIG, 2) + rs(LOW + DIG, 6)
    if k == 4:
        return rs(ALNUM, 20)
    if k == 5:
        return R.choice(PASS_WORDS).capitalize() + R.choice("_.-") + R.choice(PASS_WORDS).capitalize() + rs(DIG, 3)
    if k == 6:
        return rs(UP, 1) + rs(LOW, 5) + rs(DIG, 3) + R.choice("@!") + rs(LOW, 2)
    return rs(ALNUM + "^~%", 14)


def passphrase():
    return " ".join(R.sample(PASS_WORDS, R.choice((4, 5)))) + " " + rs(DIG, 2)


def jwt(claims=None):
    h = b64url(json.dumps({"alg": pick("HS256", "RS256", "ES256"), "typ": "JWT"}, separators=(",", ":")).encode())
    c = claims or {"sub": rs(DIG, 7), "name": pick("svc-deploy", "ana", "ops-bot", "m.keller"),
                   "iat": 1764000000 + R.randrange(900000), "exp": 1765000000 + R.randrange(900000)}
    p = b64url(json.dumps(c, separators=(",", ":")).encode())
    return h + "." + p + "." + b64url(R.randbytes(pick(32, 64)))


def aws_id():
    return pick("AKIA", "ASIA") + rs(UP + "234567", 16)


def aws_secret():
    return rs(ALNUM + "+/", 40)


def azure_key():
    return b64(R.randbytes(64))


def der_len(n):
    if n < 128:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def der(tag, body):
    return bytes([tag]) + der_len(len(body)) + body


def der_int(bits):
    v = R.getrandbits(bits) | (1 << (bits - 1))
    b = v.to_bytes((v.bit_length() + 8) // 8, "big")
    return der(0x02, b)


def rsa_pkcs8():
    rsa = der(0x30, der(0x02, b"\x00") + der_int(2048) + der(0x02, b"\x01\x00\x01") + der_int(2048)
              + der_int(1024) + der_int(1024) + der_int(1024) + der_int(1024) + der_int(1024))
    alg = der(0x30, der(0x06, bytes.fromhex("2a864886f70d010101")) + b"\x05\x00")
    return der(0x30, der(0x02, b"\x00") + alg + der(0x04, rsa))


def ec_key():
    return der(0x30, der(0x02, b"\x01") + der(0x04, R.randbytes(32))
               + der(0xa0, der(0x06, bytes.fromhex("2a8648ce3d030107")))
               + der(0xa1, der(0x03, b"\x00\x04" + R.randbytes(64))))


def sshstr(b):
    return len(b).to_bytes(4, "big") + b


def openssh_key():
    pub = sshstr(b"ssh-ed25519") + sshstr(R.randbytes(32))
    chk = R.randbytes(4)
    priv = chk + chk + pub + sshstr(R.randbytes(64)) + sshstr(pick(b"deploy@ci", b"ana@laptop", b"build"))
    priv += bytes(range(1, 1 + (-len(priv)) % 8))
    return (b"openssh-key-v1\x00" + sshstr(b"none") + sshstr(b"none") + sshstr(b"")
            + (1).to_bytes(4, "big") + sshstr(pub) + sshstr(priv))


def pem_lines(body, width=64):
    s = b64(body)
    return [s[i:i + width] for i in range(0, len(s), width)]


def pem(kind, body, width=64, mark=True, sep="\n"):
    lines = pem_lines(body, width)
    if mark:
        lines = [m(x) for x in lines]
    return sep.join(["-----BEGIN %s-----" % kind] + lines + ["-----END %s-----" % kind])


def pgp_block():
    lines = pem_lines(R.randbytes(R.randrange(500, 800)), 64)
    return "\n".join(["-----BEGIN PGP PRIVATE KEY BLOCK-----", ""] + [m(x) for x in lines]
                     + ["=" + rs(B64, 4), "-----END PGP PRIVATE KEY BLOCK-----"])


def bech32_upper(n):
    return rs("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", n)


# token makers: (kind, maker, env name, human label)
TOKENS = [
    ("github-classic", lambda: "ghp_" + rs(ALNUM, 36), "GITHUB_TOKEN", "GitHub token"),
    ("github-fine", lambda: "github_pat_" + rs(ALNUM, 22) + "_" + rs(ALNUM, 59), "GH_PAT", "fine-grained PAT"),
    ("github-app", lambda: pick("ghs_", "gho_", "ghu_") + rs(ALNUM, 36), "GH_APP_TOKEN", "GitHub app token"),
    ("gitlab", lambda: "glpat-" + rs(URLSAFE, 20), "GITLAB_TOKEN", "GitLab token"),
    ("slack-bot", lambda: "xoxb-" + rs(DIG, 12) + "-" + rs(DIG, 13) + "-" + rs(ALNUM, 24), "SLACK_BOT_TOKEN", "Slack bot token"),
    ("slack-user", lambda: "xoxp-" + rs(DIG, 12) + "-" + rs(DIG, 12) + "-" + rs(DIG, 13) + "-" + rs(HEX, 32), "SLACK_USER_TOKEN", "Slack user token"),
    ("stripe-live", lambda: "sk_live_" + rs(ALNUM, pick(24, 99)), "STRIPE_SECRET_KEY", "Stripe secret key"),
    ("stripe-test", lambda: "sk_test_" + rs(ALNUM, pick(24, 99)), "STRIPE_KEY", "Stripe test key"),
    ("stripe-restricted", lambda: "rk_live_" + rs(ALNUM, 99), "STRIPE_RK", "restricted key"),
    ("stripe-webhook", lambda: "whsec_" + rs(ALNUM, 32), "STRIPE_WEBHOOK_SECRET", "webhook signing secret"),
    ("twilio-token", lambda: rs(HEX, 32), "TWILIO_AUTH_TOKEN", "Twilio auth token"),
    ("sendgrid", lambda: "SG." + rs(URLSAFE, 22) + "." + rs(URLSAFE, 43), "SENDGRID_API_KEY", "SendGrid key"),
    ("openai", lambda: pick("sk-proj-" + rs(URLSAFE, 120) + "T3BlbkFJ" + rs(URLSAFE, 20),
                            "sk-" + rs(ALNUM, 20) + "T3BlbkFJ" + rs(ALNUM, 20)), "OPENAI_API_KEY", "OpenAI key"),
    ("anthropic", lambda: "sk-ant-api03-" + rs(URLSAFE, 93) + "AA", "ANTHROPIC_API_KEY", "Anthropic key"),
    ("huggingface", lambda: "hf_" + rs(ALNUM, 34), "HF_TOKEN", "Hugging Face token"),
    ("npm", lambda: "npm_" + rs(ALNUM, 36), "NPM_TOKEN", "npm token"),
    ("pypi", lambda: "pypi-AgEIcHlwaS5vcmc" + rs(URLSAFE, 150), "PYPI_TOKEN", "PyPI token"),
    ("dockerhub", lambda: "dckr_pat_" + rs(URLSAFE, 27), "DOCKERHUB_TOKEN", "Docker Hub token"),
    ("discord-bot", lambda: b64(rs(DIG, 18).encode()).rstrip("=") + "." + rs(URLSAFE, 6) + "." + rs(URLSAFE, 38), "DISCORD_TOKEN", "Discord bot token"),
    ("telegram-bot", lambda: rs(DIG, 10) + ":AA" + rs(URLSAFE, 33), "TELEGRAM_BOT_TOKEN", "Telegram bot token"),
    ("google-server", lambda: "AIza" + rs(URLSAFE, 35), "GEMINI_API_KEY", "Gemini key"),
    ("digitalocean", lambda: "dop_v1_" + rs(HEX, 64), "DO_TOKEN", "DigitalOcean token"),
    ("shopify", lambda: "shpat_" + rs(HEX, 32), "SHOPIFY_ADMIN_TOKEN", "Shopify admin token"),
    ("mailgun", lambda: "key-" + rs(HEX, 32), "MAILGUN_API_KEY", "Mailgun key"),
    ("vault", lambda: "hvs." + rs(URLSAFE, 90), "VAULT_TOKEN", "Vault token"),
    ("linear", lambda: "lin_api_" + rs(ALNUM, 40), "LINEAR_API_KEY", "Linear key"),
    ("groq", lambda: "gsk_" + rs(ALNUM, 52), "GROQ_API_KEY", "Groq key"),
    ("replicate", lambda: "r8_" + rs(ALNUM, 37), "REPLICATE_API_TOKEN", "Replicate token"),
    ("postman", lambda: "PMAK-" + rs(HEX, 24) + "-" + rs(HEX, 34), "POSTMAN_API_KEY", "Postman key"),
    ("newrelic", lambda: "NRAK-" + rs(UP + DIG, 27), "NEW_RELIC_API_KEY", "New Relic key"),
    ("sentry", lambda: "sntrys_" + rs(URLSAFE, 150), "SENTRY_AUTH_TOKEN", "Sentry auth token"),
    ("doppler", lambda: "dp.st.prd." + rs(ALNUM, 43), "DOPPLER_TOKEN", "Doppler token"),
    ("cloudflare", lambda: rs(URLSAFE, 40), "CLOUDFLARE_API_TOKEN", "Cloudflare API token"),
    ("azure-ad-secret", lambda: rs(ALNUM, 3) + "8Q~" + rs(ALNUM + "._~-", 34), "AZURE_CLIENT_SECRET", "client secret"),
    ("jwt", jwt, "API_JWT", "access token"),
    ("alchemy", lambda: rs(URLSAFE, 32), "ALCHEMY_API_KEY", "Alchemy key"),
    ("datadog", lambda: rs(HEX, 32), "DD_API_KEY", "Datadog API key"),
    ("flyio", lambda: "fo1_" + rs(URLSAFE, 43), "FLY_API_TOKEN", "Fly token"),
    ("atlassian", lambda: "ATATT3xFfGF0" + rs(URLSAFE, 170) + "=" + rs(UP + DIG, 8), "JIRA_API_TOKEN", "Jira API token"),
]


def token():
    kind, mk, env, label = R.choice(TOKENS)
    return kind, mk(), env, label


NAMES = ["ana", "deploy", "svc_billing", "m.keller", "ops", "admin", "ci-bot", "jlopez", "root", "appuser",
         "kenji", "priya", "olga.v", "backup"]
HOSTS = ["db.internal.example", "10.0.3.14", "pg-main.corp.test", "mysql.staging.example.net",
         "cache.svc.local", "mq.example.org", "192.168.40.7", "mongo-0.example.com", "sftp.example.io"]


def host():
    return R.choice(HOSTS)


def user():
    return R.choice(NAMES)


# ---------------------------------------------------------------- writers

SECRETS, LOOKS = [], []


def S(kind, ctx, text):
    assert "«" in text, (kind, ctx)
    SECRETS.append((kind, ctx, text))


def L(kind, ctx, text):
    assert "«" not in text and "»" not in text, (kind, ctx)
    LOOKS.append((kind, ctx, text))


# ---------------------------------------------------------------- code contexts: (lang, fn(env, marked))

def code_ctx():
    return [
        ("go", lambda e, v: pick('package main\n\nconst %s = "%s"\n' % (camel(e), v),
                                 'client := api.New(api.Config{\n\tToken: "%s",\n\tTimeout: 10 * time.Second,\n})' % v,
                                 'req.Header.Set("Authorization", "Bearer %s")' % v)),
        ("python", lambda e, v: pick('%s = "%s"\n' % (e, v),
                                     "client = Client(api_key='%s')\nprint(client.ping())" % v,
                                     'import requests\n\nr = requests.get(URL, headers={"Authorization": f"Bearer %s"})' % v,
                                     "os.environ.setdefault('%s', '%s')" % (e, v))),
        ("javascript", lambda e, v: pick("const %s = '%s';\nmodule.exports = { %s };" % (e.lower(), v, e.lower()),
                                         "fetch(url, { headers: { Authorization: `Bearer %s` } })" % v,
                                         "process.env.%s ||= \"%s\"" % (e, v))),
        ("typescript", lambda e, v: pick("export const config: Config = {\n  token: \"%s\",\n  retries: 3,\n};" % v,
                                         "const api = new ApiClient({ apiKey: '%s' })" % v)),
        ("java", lambda e, v: pick('private static final String %s = "%s";' % (e, v),
                                   'conn.setRequestProperty("Authorization", "Bearer %s");' % v)),
        ("csharp", lambda e, v: pick('var client = new ServiceClient("%s");' % v,
                                     'private const string ApiKey = @"%s";' % v,
                                     'http.DefaultRequestHeaders.Add("X-Api-Key", "%s");' % v)),
        ("ruby", lambda e, v: pick("%s = '%s'.freeze" % (e, v),
                                   "Client.configure do |c|\n  c.token = \"%s\"\nend" % v)),
        ("php", lambda e, v: pick("<?php\ndefine('%s', '%s');" % (e, v),
                                  "$client = new Client(['api_key' => '%s']);" % v,
                                  "'token' => env('%s', '%s')," % (e, v))),
        ("rust", lambda e, v: pick('const %s: &str = "%s";' % (e, v),
                                   'let client = Client::builder().bearer("%s").build()?;' % v)),
        ("kotlin", lambda e, v: 'val %s = "%s"' % (e.lower(), v)),
        ("swift", lambda e, v: 'let %s = "%s"' % (e.lower(), v)),
        ("shell", lambda e, v: pick("export %s=%s" % (e, v), "export %s='%s'\n./deploy.sh" % (e, v),
                                    "%s=\"%s\" npm run release" % (e, v))),
        ("powershell", lambda e, v: '$env:%s = "%s"' % (e, v)),
    ]


def cfg_ctx():
    return [
        (".env", lambda e, v: "NODE_ENV=production\n%s=%s\nPORT=8080" % (e, v)),
        (".env-quoted", lambda e, v: '%s="%s"' % (e, v)),
        ("yaml", lambda e, v: "service:\n  name: billing\n  %s: %s" % (e.lower(), v)),
        ("yaml-quoted", lambda e, v: "auth:\n  token: '%s'\n  timeout: 30s" % v),
        ("toml", lambda e, v: "[api]\nendpoint = \"https://api.example.com\"\n%s = \"%s\"" % (e.lower(), v)),
        ("ini", lambda e, v: "[credentials]\n%s = %s" % (e.lower(), v)),
        ("json", lambda e, v: '{\n  "name": "worker",\n  "%s": "%s"\n}' % (e.lower(), v)),
        ("xml", lambda e, v: '<add key="%s" value="%s" />' % (e, v)),
        ("terraform", lambda e, v: 'variable "%s" {\n  default = "%s"\n}' % (e.lower(), v)),
        ("tfvars", lambda e, v: '%s = "%s"' % (e.lower(), v)),
        ("helm", lambda e, v: "secrets:\n  %s: %s\nreplicaCount: 2" % (e.lower(), v)),
        ("compose", lambda e, v: "services:\n  api:\n    image: api:1.4\n    environment:\n      - %s=%s" % (e, v)),
        ("k8s-env", lambda e, v: "env:\n  - name: %s\n    value: \"%s\"" % (e, v)),
        ("systemd", lambda e, v: "[Service]\nEnvironment=%s=%s" % (e, v)),
        ("properties", lambda e, v: "%s=%s" % (e.lower().replace("_", "."), v)),
    ]


def lang_api_prose():
    return [
        ("en", lambda l, v: pick("here's the %s you asked for: %s" % (l, v), "use this %s for now, I'll rotate it later -> %s" % (l, v))),
        ("es", lambda l, v: "Te paso el %s para que pruebes: %s" % (l, v)),
        ("de", lambda l, v: "Hier ist der %s für die Staging-Umgebung: %s" % (l, v)),
        ("fr", lambda l, v: "Voici le %s pour la prod : %s" % (l, v)),
        ("pt", lambda l, v: "Segue o %s do cliente: %s" % (l, v)),
        ("ru", lambda l, v: "Вот %s для теста: %s" % (l, v)),
        ("zh", lambda l, v: "这是测试环境的 %s：%s" % (l, v)),
        ("ja", lambda l, v: "%s はこちらです: %s" % (l, v)),
        ("hi", lambda l, v: "यह रहा %s: %s" % (l, v)),
        ("it", lambda l, v: "Ecco il %s che ti serve: %s" % (l, v)),
        ("tr", lambda l, v: "%s şu: %s" % (l, v)),
        ("ko", lambda l, v: "%s 보내드려요: %s" % (l, v)),
    ]


def pw_prose():
    return [
        ("en", lambda u, v: pick("login is %s and the password is %s" % (u, v),
                                 "pw for the staging box: %s" % v,
                                 "Password for %s -> %s (please change it after first login)" % (u, v),
                                 "creds: %s / %s" % (u, v))),
        ("es", lambda u, v: pick("usuario: %s\ncontraseña: %s" % (u, v), "la contraseña del panel es %s" % v)),
        ("de", lambda u, v: pick("Benutzer %s, Passwort: %s" % (u, v), "Das Kennwort für den Server lautet %s" % v)),
        ("fr", lambda u, v: pick("identifiant %s, mot de passe : %s" % (u, v), "le mdp du back-office c'est %s" % v)),
        ("pt", lambda u, v: pick("a senha do painel é %s" % v, "usuário %s senha %s" % (u, v))),
        ("ru", lambda u, v: pick("логин %s, пароль %s" % (u, v), "пароль от сервера: %s" % v)),
        ("zh", lambda u, v: pick("用户名：%s\n密码：%s" % (u, v), "服务器密码是 %s" % v)),
        ("ja", lambda u, v: pick("ユーザー名 %s / パスワード %s" % (u, v), "パスワードは %s です" % v)),
        ("hi", lambda u, v: "यूज़र %s और पासवर्ड %s है" % (u, v)),
        ("it", lambda u, v: "la password dell'admin è %s" % v),
        ("pl", lambda u, v: "hasło do panelu: %s" % v),
        ("nl", lambda u, v: "het wachtwoord is %s" % v),
        ("tr", lambda u, v: "kullanıcı adı %s, şifre %s" % (u, v)),
        ("vi", lambda u, v: "mật khẩu là %s" % v),
        ("id", lambda u, v: "kata sandinya %s ya" % v),
        ("ko", lambda u, v: "비밀번호는 %s 입니다" % v),
        ("ar", lambda u, v: "كلمة المرور: %s" % v),
    ]


def email(subj, body, lang="en"):
    sig = pick("Best,\nMarta", "Thanks,\nLuis", "Grüße\nJonas", "Cordialement,\nClaire", "— Priya", "С уважением,\nОльга")
    return "From: %s@example.com\nTo: %s@example.org\nSubject: %s\n\n%s\n\n%s" % (
        user().replace(".", ""), user().replace(".", ""), subj, body, sig)


def chat(lines):
    who = ["buyer", "seller"]
    out = []
    t = R.randrange(8, 20) * 60 + R.randrange(60)
    for i, l in enumerate(lines):
        out.append("[%02d:%02d] %s: %s" % (t // 60, t % 60, who[i % 2], l))
        t += R.randrange(1, 4)
    return "\n".join(out)


# ---------------------------------------------------------------- secrets

def gen_secrets():
    # 1. service tokens in code and config
    for _ in range(70):
        kind, v, env, label = token()
        lang, f = R.choice(code_ctx())
        S(kind, "code/" + lang, f(env, m(v)))
    for _ in range(55):
        kind, v, env, label = token()
        fmt, f = R.choice(cfg_ctx())
        S(kind, "config/" + fmt, f(env, m(v)))
    # 2. tokens in prose, chat and mail
    for _ in range(30):
        kind, v, env, label = token()
        lang, f = R.choice(lang_api_prose())
        t = f(label, m(v))
        if R.random() < 0.3:
            t = chat(["can you send me the %s?" % label, t])
        elif R.random() < 0.3:
            t = email("access", t)
        S(kind, "prose/" + lang, t)
    # 3. HTTP: curl, raw request, cookies, httpie
    for _ in range(22):
        kind, v, env, label = token()
        c = R.randrange(6)
        if c == 0:
            t = "curl -s -H 'Authorization: Bearer %s' https://api.example.com/v1/me" % m(v)
        elif c == 1:
            t = "GET /v2/orders HTTP/1.1\nHost: api.example.com\nAuthorization: Bearer %s\nAccept: application/json" % m(v)
        elif c == 2:
            t = "curl https://api.example.com/hooks \\\n  -H \"X-API-Key: %s\" -d @payload.json".replace("\\", "\\u005c") % m(v)
        elif c == 3:
            t = "http POST api.example.com/deploy Authorization:\"token %s\"" % m(v)
        elif c == 4:
            t = "wget --header=\"PRIVATE-TOKEN: %s\" https://gitlab.example.com/api/v4/projects" % m(v)
        else:
            t = "> POST /graphql HTTP/2\n> host: api.example.com\n> authorization: Bearer %s\n> content-type: application/json\n< HTTP/2 200" % m(v)
        S(kind, "http", t)
    for _ in range(8):
        j = jwt()
        c = R.randrange(4)
        if c == 0:
            t = "Cookie: theme=dark; session=%s; lang=en" % m(j)
        elif c == 1:
            t = "Set-Cookie: access_token=%s; Path=/; HttpOnly; Secure" % m(j)
        elif c == 2:
            t = "https://app.example.com/callback#access_token=%s&token_type=bearer" % m(j)
        else:
            t = "localStorage.setItem('id_token', '%s')" % m(j)
        S("jwt", "http/cookie-url", t)
    for _ in range(6):
        sid = rs(ALNUM + "%", 40)
        t = pick("Cookie: _ga=GA1.2.%s; sessionid=%s" % (rs(DIG, 9), m(sid)),
                 "curl -b 'connect.sid=s%%3A%s' https://shop.example.com/admin" % m(rs(URLSAFE, 32) + "." + rs(URLSAFE, 43)))
        S("session-cookie", "http/cookie", t)
    # basic auth
    for _ in range(12):
        u, p = user(), password()
        enc = b64(("%s:%s" % (u, p)).encode())
        c = R.randrange(4)
        if c == 0:
            t = "Authorization: Basic %s" % m(enc)
        elif c == 1:
            t = "curl -u %s:%s https://registry.example.com/v2/_catalog" % (u, m(p))
        elif c == 2:
            t = "headers = {'Authorization': 'Basic %s'}" % m(enc)
        else:
            t = "proxy_set_header Authorization \"Basic %s\";" % m(enc)
        S("basic-auth", "http", t)
    # 4. URLs with userinfo and DSNs
    for _ in range(26):
        u, p, h = user(), password(), host()
        p = p.replace("@", "!").replace("#", "!").replace("/", "!").replace("?", "!").replace("%", "!").replace("^", "!")
        c = R.randrange(10)
        if c == 0:
            t = "DATABASE_URL=postgres://%s:%s@%s:5432/app?sslmode=require" % (u, m(p), h)
        elif c == 1:
            t = "mysql://%s:%s@%s:3306/shop" % (u, m(p), h)
        elif c == 2:
            t = "MONGO_URI=mongodb+srv://%s:%s@cluster0.ab12c.mongodb.net/prod?retryWrites=true" % (u, m(p))
        elif c == 3:
            t = "REDIS_URL=redis://default:%s@%s:6379/0" % (m(p), h)
        elif c == 4:
            t = "amqp://%s:%s@%s:5672/%%2F" % (u, m(p), h)
        elif c == 5:
            t = "git clone https://%s:%s@git.example.com/team/app.git" % (u, m(p))
        elif c == 6:
            t = "spring.datasource.url=jdbc:postgresql://%s/app\nspring.datasource.username=%s\nspring.datasource.password=%s" % (h, u, m(p))
        elif c == 7:
            t = 'dsn := "%s:%s@tcp(%s:3306)/orders?parseTime=true"' % (u, m(p), h)
        elif c == 8:
            t = "Server=%s;Database=Sales;User Id=%s;Password=%s;TrustServerCertificate=True" % (h, u, m(p))
        else:
            t = "ftp://%s:%s@%s/uploads/" % (u, m(p), h)
        S("dsn-url", "url", t)
    # 5. credential files
    for _ in range(6):
        S("netrc", ".netrc", "machine %s\n  login %s\n  password %s" % (host(), user(), m(password())))
    for _ in range(5):
        v = "npm_" + rs(ALNUM, 36)
        t = pick("//registry.npmjs.org/:_authToken=%s" % m(v),
                 "@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=%s" % m("ghp_" + rs(ALNUM, 36)),
                 "registry=https://npm.example.com/\n//npm.example.com/:_auth=%s\nalways-auth=true" % m(b64(("%s:%s" % (user(), password())).encode())))
        S("npmrc", ".npmrc", t)
    for _ in range(5):
        S("pypirc", ".pypirc", pick(
            "[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = %s" % m("pypi-AgEIcHlwaS5vcmc" + rs(URLSAFE, 140)),
            "[internal]\nrepository = https://pypi.example.com/\nusername = %s\npassword = %s" % (user(), m(password()))))
    for _ in range(5):
        S("git-credentials", ".git-credentials", "https://%s:%s@github.com\nhttps://oauth2:%s@gitlab.example.com" % (
            user(), m("ghp_" + rs(ALNUM, 36)), m("glpat-" + rs(URLSAFE, 20))))
    for _ in range(5):
        S("pgpass", ".pgpass", "%s:5432:*:%s:%s" % (host(), user(), m(password().replace(":", "!"))))
    for _ in range(4):
        S("sshpass", "shell", "sshpass -p '%s' ssh -o StrictHostKeyChecking=no %s@%s" % (m(password()), user(), host()))
    for _ in range(5):
        auth = b64(("%s:%s" % (user(), pick("dckr_pat_" + rs(URLSAFE, 27), password()))).encode())
        S("docker-config", "config.json", '{\n  "auths": {\n    "https://index.docker.io/v1/": {\n      "auth": "%s"\n    }\n  }\n}' % m(auth))
    for _ in range(4):
        S("docker-login", "ci", pick("docker login -u %s -p %s registry.example.com" % (user(), m(password())),
                                     "echo %s | docker login ghcr.io -u %s --password-stdin" % (m("ghp_" + rs(ALNUM, 36)), user())))
    # 6. k8s Secrets with base64 data
    for _ in range(10):
        k, v, env, label = token()
        if R.random() < 0.5:
            v = password()
            k = "password"
        enc = b64(v.encode())
        S(k, "k8s-secret-data", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\ntype: Opaque\ndata:\n  %s: %s" % (
            pick("app-secrets", "db-creds", "api"), pick("token", "password", "apiKey", "DB_PASSWORD"), m(enc)))
    for _ in range(4):
        S("password", "k8s-stringData", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  username: %s\n  password: \"%s\"" % (user(), m(password())))
    # 7. AWS secret beside the id, Azure, GCP
    for _ in range(10):
        i, s = aws_id(), aws_secret()
        c = R.randrange(4)
        if c == 0:
            t = "[default]\naws_access_key_id = %s\naws_secret_access_key = %s\nregion = eu-west-1" % (i, m(s))
        elif c == 1:
            t = "export AWS_ACCESS_KEY_ID=%s\nexport AWS_SECRET_ACCESS_KEY=%s" % (i, m(s))
        elif c == 2:
            t = "session = boto3.Session(\n    aws_access_key_id=\"%s\",\n    aws_secret_access_key=\"%s\",\n)" % (i, m(s))
        else:
            t = "new BasicAWSCredentials(\"%s\", \"%s\")" % (i, m(s))
        S("aws-secret", "aws", t)
    for _ in range(8):
        acct = pick("stprodfiles", "mediastore01", "acmelogs")
        k = azure_key()
        c = R.randrange(3)
        if c == 0:
            t = "DefaultEndpointsProtocol=https;AccountName=%s;AccountKey=%s;EndpointSuffix=core.windows.net" % (acct, m(k))
        elif c == 1:
            t = "\"AzureWebJobsStorage\": \"DefaultEndpointsProtocol=https;AccountName=%s;AccountKey=%s\"" % (acct, m(k))
        else:
            t = "Endpoint=sb://%s.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=%s" % (acct, m(b64(R.randbytes(32))))
        S("azure-conn", "azure", t)
    for _ in range(6):
        sig = b64(R.randbytes(32)).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
        S("azure-sas", "url", "https://%s.blob.core.windows.net/exports/report.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31T23:59:59Z&st=2026-11-01T00:00:00Z&spr=https&sig=%s" % (
            pick("stprodfiles", "acmelogs"), m(sig)))
    for _ in range(8):
        lines = pem_lines(rsa_pkcs8(), 64)
        pk = "-----BEGIN PRIVATE KEY-----\\u005cn" + "\\u005cn".join(m(x) for x in lines) + "\\u005cn-----END PRIVATE KEY-----\\u005cn"
        doc = ('{\n  "type": "service_account",\n  "project_id": "%s",\n  "private_key_id": "%s",\n  "private_key": "%s",\n'
               '  "client_email": "deployer@%s.iam.gserviceaccount.com",\n  "client_id": "%s"\n}') % (
            pick("acme-prod", "shop-analytics-7", "data-lake-22"), rs(HEX, 40), pk, pick("acme-prod", "shop-analytics-7"), rs(DIG, 21))
        S("gcp-service-account", "json", doc)
    # 8. private keys
    for _ in range(6):
        S("rsa-key", "pem", pick("deploy key:\n", "", "id_rsa attached below\n\n") + pem("PRIVATE KEY", rsa_pkcs8()))
    for _ in range(5):
        S("openssh-key", "pem", pem("OPENSSH PRIVATE KEY", openssh_key(), 70))
    for _ in range(4):
        S("ec-key", "pem", pem("EC PRIVATE KEY", ec_key()))
    for _ in range(4):
        S("pgp-key", "pem", pgp_block())
    for _ in range(6):
        k = "AGE-SECRET-KEY-1" + bech32_upper(58)
        S("age-key", "age", pick("# created: 2026-11-02T10:11:12Z\n# public key: age1%s\n%s" % (rs("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58), m(k)),
                                 "SOPS_AGE_KEY=%s" % m(k), "age key for the backups: %s" % m(k)).lstrip("#").lstrip())
    # 9. wallet material
    for _ in range(40):
        k = eth_key()
        x = pick("0x", "", "0x")
        mk = x + m(k)
        c = R.randrange(16)
        texts = [
            "PRIVATE_KEY=%s" % mk,
            "const wallet = new ethers.Wallet(\"%s\", provider);" % mk,
            "account = Account.from_key('%s')" % mk,
            "forge script script/Deploy.s.sol --rpc-url $RPC --private-key %s --broadcast" % mk,
            "key, _ := crypto.HexToECDSA(\"%s\")" % m(k),
            "deployer:\n  private_key: \"%s\"" % mk,
            "my metamask private key is %s, please import it and move the USDC" % mk,
            "la clave privada de la wallet: %s" % mk,
            "Privater Schlüssel der Hot-Wallet: %s" % mk,
            "clé privée du compte de déploiement : %s" % mk,
            "приватный ключ кошелька: %s" % mk,
            "钱包私钥：%s" % mk,
            "秘密鍵は %s です" % mk,
            "const account = privateKeyToAccount('0x%s')" % m(k),
            "cast send %s 'transfer(address,uint256)' %s 1000000 --private-key %s" % ("0x" + rs(HEX, 40), "0x" + rs(HEX, 40), mk),
            "networks: {\n  sepolia: {\n    url: process.env.RPC_URL,\n    accounts: [\"0x%s\"]\n  }\n}" % m(k),
        ]
        t = texts[c]
        if R.random() < 0.2:
            t = chat(["did you get access to the treasury wallet?", t])
        S("eth-private-key", "wallet", t)
    for _ in range(26):
        n = pick(12, 12, 24, 24, 15, 18)
        ws = bip39(n)
        c = R.randrange(10)
        if c == 0:
            t = "seed phrase: %s" % m(" ".join(ws))
        elif c == 1:
            t = "Recovery words (keep offline!)\n" + "\n".join("%d. %s" % (i + 1, m(w)) for i, w in enumerate(ws))
        elif c == 2:
            t = "mnemonic = \"%s\"" % m(" ".join(ws))
        elif c == 3:
            t = "frase semilla de la billetera: %s" % m(" ".join(ws))
        elif c == 4:
            t = "助记词：%s" % m(" ".join(ws))
        elif c == 5:
            t = "сид-фраза от кошелька: %s" % m(" ".join(ws))
        elif c == 6:
            t = '"mnemonic": [' + ", ".join('"%s"' % m(w) for w in ws) + "]"
        elif c == 7:
            t = "MNEMONIC=%s" % m(" ".join(ws))
        elif c == 8:
            t = chat(["what are the 12 words for the test wallet?" if n == 12 else "send me the backup words",
                      m(" ".join(ws))])
        else:
            t = "Wiederherstellungsphrase:\n" + "  ".join("%s" % m(w) for w in ws)
        S("bip39-%d" % n, "wallet", t)
    for _ in range(6):
        pw = password()
        S("keystore-password", "wallet", pick("geth --unlock 0x%s --password <(echo '%s')" % (rs(HEX, 40), m(pw)),
                                              "wallet = Wallet.fromEncryptedJsonSync(json, \"%s\")" % m(pw),
                                              "keystore password: %s" % m(pw)))
    # 10. passwords of every shape in prose, chat, mail, config, code
    for _ in range(52):
        u = user()
        pw = password()
        lang, f = R.choice(pw_prose())
        t = f(u, m(pw))
        r = R.random()
        if r < 0.25:
            t = email(pick("server access", "Zugang", "acceso", "accès"), t)
        elif r < 0.45:
            t = chat([pick("how do I log in?", "¿cuál es la clave?", "wie komme ich rein?", "как зайти?"), t])
        S("password", "prose/" + lang, t)
    for _ in range(8):
        pp = passphrase()
        S("passphrase", "prose", pick("The passphrase for the zip is \"%s\"" % m(pp),
                                      "passphrase: %s" % m(pp),
                                      "7z x backup.7z -p\"%s\"" % m(pp)))
    for _ in range(22):
        u, pw = user(), password()
        c = R.randrange(11)
        texts = [
            "DB_PASSWORD=%s" % m(pw),
            "db:\n  host: %s\n  user: %s\n  password: %s" % (host(), u, m(pw)),
            "[mysql]\nuser=%s\npassword=\"%s\"" % (u, m(pw)),
            "mysql -h %s -u %s -p'%s' shop" % (host(), u, m(pw)),
            "PGPASSWORD=%s psql -h %s -U %s" % (m(pw), host(), u),
            "<connectionStrings>\n  <add name=\"Main\" connectionString=\"Data Source=%s;User ID=%s;Password=%s\" />\n</connectionStrings>" % (host(), u, m(pw)),
            "ALTER USER %s WITH PASSWORD '%s';" % (u.replace(".", "_"), m(pw)),
            "conn = psycopg2.connect(host=\"%s\", user=\"%s\", password=\"%s\")" % (host(), u, m(pw)),
            "$db = new PDO($dsn, '%s', '%s');" % (u, m(pw)),
            "redis-cli -h %s -a '%s' ping" % (host(), m(pw)),
            "smtp:\n  host: smtp.example.com\n  username: %s@example.com\n  password: %s" % (u, m(pw)),
        ]
        S("password", "config/cli", texts[c])
    # 11. CI logs
    for _ in range(18):
        kind, v, env, label = token()
        c = R.randrange(6)
        if c == 0:
            t = "Run npm config set //registry.npmjs.org/:_authToken %s\nnpm notice Publishing to https://registry.npmjs.org/" % m("npm_" + rs(ALNUM, 36))
            kind = "npm"
        elif c == 1:
            t = "2026-11-28T10:14:03.118Z [debug] env %s=%s\n2026-11-28T10:14:03.120Z [info] starting worker" % (env, m(v))
        elif c == 2:
            t = "+ git remote set-url origin https://x-access-token:%s@github.com/acme/app.git\n+ git push origin HEAD" % m("ghs_" + rs(ALNUM, 36))
            kind = "github-app"
        elif c == 3:
            t = "$ env | sort\nHOME=/root\n%s=%s\nPATH=/usr/local/bin:/usr/bin" % (env, m(v))
        elif c == 4:
            t = "Step 7/12 : RUN curl -fsSL -H \"Authorization: token %s\" https://api.github.com/repos/acme/infra/tarball | tar xz" % m("ghp_" + rs(ALNUM, 36))
            kind = "github-classic"
        else:
            t = "{\"level\":\"debug\",\"msg\":\"client init\",\"config\":{\"endpoint\":\"https://api.example.com\",\"api_key\":\"%s\"}}" % m(v)
        S(kind, "ci-log", t)
    # 12. webhook URLs with secrets
    for _ in range(6):
        c = R.randrange(3)
        if c == 0:
            t = "SLACK_WEBHOOK=https://hooks.slack.com/services/T%s/B%s/%s" % (rs(UP + DIG, 8), rs(UP + DIG, 10), m(rs(ALNUM, 24)))
        elif c == 1:
            t = "https://discord.com/api/webhooks/%s/%s" % (rs(DIG, 19), m(rs(URLSAFE, 68)))
        else:
            t = "webhook: https://outlook.office.com/webhook/%s@%s/IncomingWebhook/%s/%s" % (
                rs(HEX, 8) + "-" + rs(HEX, 4) + "-" + rs(HEX, 4) + "-" + rs(HEX, 4) + "-" + rs(HEX, 12),
                rs(HEX, 8) + "-" + rs(HEX, 4) + "-" + rs(HEX, 4) + "-" + rs(HEX, 4) + "-" + rs(HEX, 12), m(rs(HEX, 32)), rs(HEX, 8) + "-" + rs(HEX, 4) + "-" + rs(HEX, 4) + "-" + rs(HEX, 4) + "-" + rs(HEX, 12))
        S("webhook-url", "url", t)
    # 13. RPC URLs with keys
    for _ in range(5):
        S("rpc-key", "url", pick("RPC_URL=https://eth-mainnet.g.alchemy.com/v2/%s" % m(rs(URLSAFE, 32)),
                                 "wss://mainnet.infura.io/ws/v3/%s" % m(rs(HEX, 32))))
    # 14. Twilio token beside SID
    for _ in range(4):
        S("twilio-token", "code", "client = Client(\"AC%s\", \"%s\")" % (rs(HEX, 32), m(rs(HEX, 32))))


# ---------------------------------------------------------------- look-alikes

def uuid():
    h = rs(HEX, 32)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], pick("8", "9", "a", "b"), h[17:20], h[20:32])


PLACEHOLDERS = ["<your-token>", "xxxx-xxxx-xxxx", "changeme", "YOUR_API_KEY", "********", "REPLACE_ME",
                "${API_TOKEN}", "{{ .Values.apiKey }}", "<redacted>", "[REDACTED]", "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
                "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "your-password-here", "<PASSWORD>", "TODO", "",
                "${{ secrets.DEPLOY_TOKEN }}", "%(db_password)s", "***"]


def env_reads():
    return [
        ("python", lambda e: pick("%s = os.environ[\"%s\"]" % (e.lower(), e), "token = os.getenv('%s')\nif not token:\n    raise SystemExit('set %s')" % (e, e))),
        ("js", lambda e: pick("const key = process.env.%s;" % e, "const { %s } = process.env" % e)),
        ("go", lambda e: "token := os.Getenv(\"%s\")\nif token == \"\" {\n\tlog.Fatal(\"missing %s\")\n}" % (e, e)),
        ("rust", lambda e: "let key = std::env::var(\"%s\").expect(\"%s not set\");" % (e, e)),
        ("java", lambda e: "String key = System.getenv(\"%s\");" % e),
        ("csharp", lambda e: "var key = Environment.GetEnvironmentVariable(\"%s\");" % e),
        ("ruby", lambda e: "key = ENV.fetch(\"%s\")" % e),
        ("php", lambda e: "$key = getenv('%s');" % e),
        ("shell", lambda e: "curl -H \"Authorization: Bearer $%s\" https://api.example.com/v1/me" % e),
        ("k8s", lambda e: "env:\n  - name: %s\n    valueFrom:\n      secretKeyRef:\n        name: app-secrets\n        key: %s" % (e, e.lower())),
        ("actions", lambda e: "env:\n  %s: ${{ secrets.%s }}" % (e, e)),
        ("compose", lambda e: "environment:\n  %s: ${%s:?set it in .env}" % (e, e)),
        ("vault", lambda e: "%s=vault:secret/data/prod/api#%s" % (e, e.lower())),
        ("terraform", lambda e: "data \"aws_secretsmanager_secret_version\" \"api\" {\n  secret_id = \"prod/%s\"\n}" % e.lower()),
        ("1password", lambda e: "%s=op://Engineering/api/%s" % (e, e.lower())),
    ]


def lookalike_prose():
    return [
        ("en", pick("Remember to rotate the API key every 90 days and never paste it in chat.",
                    "The password must be at least 12 characters and include a number.",
                    "I reset my password but the login page still says invalid credentials.",
                    "Where do I put the token? The README says to export it before running the script.",
                    "Please don't send me the seed phrase, I only need the public address.")),
        ("es", "Nunca compartas tu contraseña ni tu frase semilla con nadie, ni siquiera con soporte."),
        ("de", "Das Passwort bitte nicht per Mail schicken, wir nutzen dafür den Passwortmanager."),
        ("fr", "Le mot de passe doit être changé à la première connexion ; je te l'envoie par Signal."),
        ("pt", "Esqueci a senha do painel, você pode resetar pelo console?"),
        ("ru", "Пароль пришлю отдельно, в чат его не пишу."),
        ("zh", "请不要在聊天里发送密码或私钥，用密码管理器共享。"),
        ("ja", "パスワードはチャットに貼らないでください。管理ツールで共有します。"),
        ("hi", "कृपया पासवर्ड चैट में न भेजें, मैं उसे अलग से साझा करूँगा।"),
        ("it", "La password scade ogni 90 giorni, ricordati di cambiarla."),
        ("ko", "비밀번호는 채팅으로 보내지 마세요."),
        ("tr", "Şifreyi buraya yazma, kasadan paylaşırım."),
        ("pl", "Hasło wyślę osobnym kanałem, nie przez czat."),
        ("nl", "Het wachtwoord stuur ik apart via de kluis."),
    ]


def gen_lookalikes():
    # hashes and ids in context
    for _ in range(28):
        c = R.randrange(11)
        texts = [
            "commit %s\nAuthor: %s <%s@example.com>\nDate:   Thu Nov 26 14:02:11 2026 +0100\n\n    fix retry loop" % (rs(HEX, 40), user(), user()),
            "%s  release-v2.4.1.tar.gz" % rs(HEX, 64),
            "sha1: %s" % rs(HEX, 40),
            "image: registry.example.com/api@sha256:%s" % rs(HEX, 64),
            "Merged in %s (pull request #%d)" % (rs(HEX, 12), R.randrange(100, 999)),
            "git cherry-pick %s" % rs(HEX, 40),
            "md5sum: %s" % rs(HEX, 32),
            "\"integrity\": \"sha512-%s\"" % b64(R.randbytes(64)),
            "ETag: \"%s\"" % rs(HEX, 32),
            "X-Request-Id: %s" % uuid(),
            "uid: %s" % uuid(),
        ]
        L("hash-id", "context", texts[c])
    for _ in range(12):
        c = R.randrange(6)
        texts = [
            "order %s was paid, invoice INV-%s" % (uuid(), rs(DIG, 6)),
            "trace_id=%s span_id=%s" % (rs(HEX, 32), rs(HEX, 16)),
            "{\"id\": \"%s\", \"status\": \"queued\", \"created\": 1764201122}" % uuid(),
            "Stripe: charge ch_%s, customer cus_%s" % (rs(ALNUM, 24), rs(ALNUM, 14)),
            "tracking number 1Z%s" % rs(UP + DIG, 16),
            "job %s finished in 41.2s" % rs(HEX, 24),
        ]
        L("ids", "context", texts[c])
    # wallet look-alikes
    for _ in range(44):
        c = R.randrange(12)
        texts = [
            "tx hash: 0x%s" % rs(HEX, 64),
            "The payment went through, transaction 0x%s on Base." % rs(HEX, 64),
            "send the USDC to 0x%s (my address, not a key)" % rs(HEX, 40),
            "block 0x%s finalized" % rs(HEX, 64),
            "https://etherscan.io/tx/0x%s" % rs(HEX, 64),
            "topics[0]: 0x%s" % rs(HEX, 64),
            "El hash de la transacción es 0x%s" % rs(HEX, 64),
            "Transaktions-Hash: 0x%s" % rs(HEX, 64),
            "交易哈希：0x%s" % rs(HEX, 64),
            "адрес кошелька: 0x%s" % rs(HEX, 40),
            "bytes32 constant MINTER_ROLE = 0x%s;" % rs(HEX, 64),
            "public key (uncompressed): 04%s" % rs(HEX, 128),
        ]
        L("chain", "context", texts[c])
    # word lists that are not seeds
    for _ in range(16):
        n = pick(12, 12, 24, 8, 6, 15)
        ws = bad_words(n)
        c = R.randrange(6)
        texts = [
            "Vocabulary for Friday's spelling quiz: %s" % ", ".join(ws),
            "tags: %s" % " ".join(ws),
            "Word cloud top terms this week -> %s" % " ".join(ws),
            "palabras del crucigrama: %s" % ", ".join(ws),
            "Wortliste für das Ratespiel:\n" + "\n".join(ws),
            "[\"%s\"]" % "\", \"".join(ws),
        ]
        L("wordlist", "words", texts[c])
    # placeholders in configs and code
    envs = [t[2] for t in TOKENS] + ["DB_PASSWORD", "SMTP_PASSWORD", "PRIVATE_KEY", "MNEMONIC"]
    for _ in range(70):
        e = R.choice(envs)
        p = R.choice(PLACEHOLDERS)
        c = R.randrange(12)
        texts = [
            "# .env.example\n%s=%s" % (e, p),
            "%s=%s" % (e, p),
            "password: %s" % (p or "\"\""),
            "api_key = \"%s\"" % p,
            "auth:\n  token: \"%s\"" % p,
            "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
            "[pypi]\nusername = __token__\npassword = <paste your pypi token>",
            "Authorization: Bearer %s" % pick("<token>", "$TOKEN", "${ACCESS_TOKEN}", "YOUR_TOKEN"),
            "DATABASE_URL=postgres://%s:%s@localhost:5432/app" % (pick("user", "postgres"), pick("<password>", "${PGPASSWORD}", "password")),
            "PRIVATE_KEY=0x%s" % pick("0" * 64, "x" * 64, "YOUR_PRIVATE_KEY"),
            "machine api.example.com\n  login %s\n  password %s" % (user(), pick("<your-password>", "REPLACE_ME")),
            "AWS_SECRET_ACCESS_KEY=%s" % pick("<secret>", "****************************************", "${AWS_SECRET_ACCESS_KEY}"),
        ]
        t = texts[c]
        if t.startswith("#"):
            t = "Example config:\n" + t
        L("placeholder", "config", t)
    # env and vault reads
    for _ in range(60):
        e = R.choice(envs)
        lang, f = R.choice(env_reads())
        L("env-read", lang, f(e))
    # redacted / masked
    for _ in range(18):
        e = R.choice(envs)
        c = R.randrange(6)
        texts = [
            "Run docker login -u deploy -p *** registry.example.com\nLogin Succeeded",
            "2026-11-28T09:12:44Z env %s=***" % e,
            "token: ghp_****************************%s" % rs(ALNUM, 4),
            "password=[REDACTED] user=%s host=%s" % (user(), host()),
            "Your key ending in …%s was revoked." % rs(ALNUM, 4),
            "%s: sk-...%s (masked)" % (e, rs(ALNUM, 4)),
        ]
        L("masked", "log", texts[c])
    # public keys and public identifiers
    for _ in range(30):
        c = R.randrange(10)
        texts = [
            "ssh-ed25519 %s %s@laptop" % (b64(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + R.randbytes(32)), user()),
            pem("PUBLIC KEY", der(0x30, der(0x30, der(0x06, bytes.fromhex("2a8648ce3d0201")) + der(0x06, bytes.fromhex("2a8648ce3d030107"))) + der(0x03, b"\x00\x04" + R.randbytes(64))), mark=False),
            "aws_access_key_id = %s\n# secret is in the vault" % aws_id(),
            "const firebaseConfig = {\n  apiKey: \"AIza%s\",\n  authDomain: \"shop-%s.firebaseapp.com\",\n  projectId: \"shop-%s\",\n  messagingSenderId: \"%s\"\n};" % (rs(URLSAFE, 35), rs(LOW, 4), rs(LOW, 4), rs(DIG, 12)),
            "STRIPE_PUBLISHABLE_KEY=pk_live_%s" % rs(ALNUM, 99),
            "NEXT_PUBLIC_STRIPE_KEY=pk_test_%s" % rs(ALNUM, 24),
            "mapboxgl.accessToken = 'pk.%s.%s';" % (b64url(json.dumps({"u": user(), "a": rs(LOW, 8)}).encode()), rs(URLSAFE, 22)),
            "age recipient: age1%s" % rs("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
            "client_id: %s.apps.googleusercontent.com" % (rs(DIG, 12) + "-" + rs(LOW + DIG, 32)),
            "posthog.init('phc_%s', { api_host: 'https://eu.posthog.com' })" % rs(ALNUM, 43),
        ]
        L("public", "key", texts[c])
    # base64 images and data
    for _ in range(12):
        c = R.randrange(4)
        texts = [
            "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA%s\" />" % b64(R.randbytes(90)),
            "background: url(data:image/svg+xml;base64,%s);" % b64(b"<svg xmlns='http://www.w3.org/2000/svg' width='" + rs(DIG, 2).encode() + b"'><path d='M0 0h" + rs(DIG, 3).encode() + b"'/></svg>"),
            "payload (base64): %s" % b64(json.dumps({"event": "order.paid", "amount": R.randrange(100, 9999), "currency": "USD"}).encode()),
            "\"thumbnail\": \"/9j/4AAQSkZJRgABAQ%s\"" % b64(R.randbytes(60)),
        ]
        L("base64-data", "data", texts[c])
    # test fixtures named as such
    for _ in range(14):
        c = R.randrange(6)
        texts = [
            "func TestLogin(t *testing.T) {\n\tfakeToken := \"test-token\"\n\tsrv := newTestServer(t, fakeToken)\n}",
            "def test_rejects_bad_key():\n    with pytest.raises(AuthError):\n        Client(api_key=\"not-a-real-key\")",
            "it('fails without a token', () => {\n  expect(() => connect({ token: 'dummy' })).toThrow();\n});",
            "@Test void rejectsEmptyPassword() {\n  assertThrows(() -> login(\"alice\", \"\"));\n}",
            "fixtures/users.yml:\n  alice:\n    password_digest: <%= BCrypt::Password.create('secret') %>",
            "const MOCK_API_KEY = 'mock-key'; // test fixture only",
        ]
        L("fixture", "test", texts[c])
    # code that talks about passwords
    for _ in range(26):
        c = R.randrange(10)
        texts = [
            "def check_password(user, password):\n    return bcrypt.checkpw(password.encode(), user.password_hash)",
            "if len(password) < 12 {\n\treturn errors.New(\"password too short\")\n}",
            "const password = await prompt('Password: ', { hidden: true });",
            "String password = new String(console.readPassword(\"Password: \"));",
            "var hash = BCrypt.Net.BCrypt.HashPassword(password);",
            "user.password = params[:password]\nuser.save!",
            "$hash = password_hash($password, PASSWORD_ARGON2ID);",
            "let token = read_token_from(&path)?;",
            "read -s -p \"Password: \" PASSWORD\nexport PGPASSWORD=\"$PASSWORD\"",
            "password_hash: $2b$12$%s" % rs(ALNUM + "./", 53),
        ]
        L("code-about-secrets", "code", texts[c])
    # prose, chat and mail about credentials without one
    for _ in range(36):
        lang, t = R.choice(lookalike_prose())
        r = R.random()
        if r < 0.3:
            t = email(pick("re: access", "Passwort", "contraseña"), t)
        elif r < 0.5:
            t = chat([pick("can you send the credentials?", "necesito la clave", "schick mir das Passwort"), t])
        L("prose", lang, t)
    # lorem ipsum and docs
    for _ in range(10):
        L("lorem", "doc", pick(
            "Lorem ipsum dolor sit amet, consectetur adipiscing elit. Password: lorem ipsum. Token: dolor sit.",
            "README, Configuration:\n\nSet `API_TOKEN` to the token shown on your dashboard, then run `make deploy`.",
            "The `password` field is required. Example: `{\"user\": \"alice\", \"password\": \"<password>\"}`",
            "Step 3: paste your secret key into the Settings page (it starts with sk_live_).",
            "Tokens expire after 30 days; use the refresh endpoint to obtain a new one."))
    # ssh config, pgpass templates, misc config without secrets
    for _ in range(14):
        c = R.randrange(7)
        texts = [
            "Host bastion\n  HostName %s\n  User %s\n  IdentityFile ~/.ssh/id_ed25519\n  IdentitiesOnly yes" % (host(), user()),
            "Host *.internal\n  ProxyJump bastion\n  ForwardAgent no",
            "# ~/.pgpass format: hostname:port:database:username:password\nchmod 0600 ~/.pgpass".lstrip("# "),
            "[client]\nuser=%s\nhost=%s\nport=3306" % (user(), host()),
            "redis:\n  host: %s\n  port: 6379\n  db: 0" % host(),
            "server {\n  listen 443 ssl;\n  ssl_certificate_key /etc/ssl/private/site.key;\n}",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: empty\ntype: Opaque\ndata: {}",
        ]
        L("config-no-secret", "config", texts[c])
    # CI logs without secrets
    for _ in range(14):
        c = R.randrange(6)
        texts = [
            "Restoring cache... key: node-modules-%s\nCache restored successfully" % rs(HEX, 64),
            "Run actions/checkout@v4\nSyncing repository: acme/app\nHEAD is now at %s" % rs(HEX, 7),
            "Successfully built %s\nSuccessfully tagged api:latest" % rs(HEX, 12),
            "npm WARN deprecated uuid@3.4.0\nadded 812 packages in 21s",
            "Login Succeeded\nWARNING! Your credentials are stored unencrypted in '/root/.docker/config.json'.",
            "Downloading https://files.pythonhosted.org/packages/%s/%s/%s/requests-2.32.3-py3-none-any.whl" % (rs(HEX, 2), rs(HEX, 2), rs(HEX, 60)),
        ]
        L("ci-log", "ci", texts[c])
    # signatures, nonces, lock files, other chains, hashed passwords
    for _ in range(70):
        c = R.randrange(16)
        texts = [
            "X-Hub-Signature-256: sha256=%s" % rs(HEX, 64),
            "Stripe-Signature: t=%d,v1=%s" % (1764000000 + R.randrange(99999), rs(HEX, 64)),
            "state=%s&nonce=%s" % (rs(URLSAFE, 32), rs(URLSAFE, 24)),
            "golang.org/x/crypto v0.%d.0 h1:%s=" % (R.randrange(20, 40), b64(R.randbytes(32))[:43]),
            "%s:$6$%s$%s:19700:0:99999:7:::" % (user().replace(".", ""), rs(ALNUM, 16), rs(ALNUM + "./", 86)),
            "send SOL to %s" % rs("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", 44),
            "BTC deposit address: bc1q%s" % rs("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 38),
            "key_arn = \"arn:aws:kms:eu-west-1:%s:key/%s\"" % (rs(DIG, 12), uuid()),
            "0000%s  %s  |%s|" % (rs(HEX, 4), " ".join(rs(HEX, 2) for _ in range(16)), rs(LOW + ".", 16)),
            "!function(e,t){var n=%s;e.%s=t(n)}(this,function(r){return r.%s})" % (R.randrange(9999), rs(LOW, 2), rs(LOW, 3)),
            "resolved \"https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#%s\"" % rs(HEX, 40),
            "fingerprint: SHA256:%s" % b64(R.randbytes(32)).rstrip("="),
            "ipfs://%s" % ("bafybei" + rs("abcdefghijklmnopqrstuvwxyz234567", 52)),
            "%s ALTER TABLE users ADD COLUMN password_hash text NOT NULL DEFAULT ''; -- migration %s" % ("--", rs(DIG, 14)),
            "argon2: $argon2id$v=19$m=65536,t=3,p=4$%s$%s" % (b64(R.randbytes(16)).rstrip("="), b64(R.randbytes(32)).rstrip("=")),
            "pub %s 2026-11-01 [SC]\n      %s\nuid           %s <%s@example.com>" % (pick("ed25519", "rsa4096"), rs(HEX.upper(), 40), user(), user()),
        ]
        L("other", "context", texts[c])
    # more prose with names and numbers
    for _ in range(20):
        u = user()
        L("prose", "chat", chat([pick("I can't log in as %s" % u, "%s got locked out again" % u, "¿%s tiene acceso?" % u),
                                 pick("reset it from the admin page, the link expires in %d minutes" % R.randrange(10, 60),
                                      "I sent the password through the vault share, check item #%d" % R.randrange(100, 999),
                                      "Passwort kommt per SMS, Ticket %d" % R.randrange(1000, 9999),
                                      "他的密码已经重置了，工单号 %d" % R.randrange(1000, 9999))]))
    # numbers and versions
    for _ in range(8):
        L("misc", "numbers", pick("version 4.12.0-rc.3 built %s" % rs(HEX, 8),
                                  "gas used: 21000, base fee 0.%s gwei" % rs(DIG, 6),
                                  "p95 latency 182ms over %s requests" % rs(DIG, 6),
                                  "session expires in 3600 seconds; refresh at 2026-11-30T12:00:00Z"))


def esc(t):
    assert all(t[i + 1:i + 6] == "u005c" for i, ch in enumerate(t) if ch == "\\"), t
    t = t.replace("\t", "\\t").replace("\n", "\\n")
    assert "\\\\" not in t
    assert not t.startswith("#"), t
    return t


def write(path, head, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write(head)
        for kind, ctx, text in rows:
            f.write("# %s | %s\n%s\n" % (kind, ctx, esc(text)))


def main():
    gen_secrets()
    gen_lookalikes()
    R.shuffle(SECRETS)
    R.shuffle(LOOKS)
    for rows in (SECRETS, LOOKS):
        seen = set()
        rows[:] = [r for r in rows if not (r[2] in seen or seen.add(r[2]))]
    for _, _, t in SECRETS:
        assert t.count("«") == t.count("»")
    write(os.path.join(HERE, "heldout10_secret.txt"),
          "# Tenth held-out credential corpus: texts holding credentials; «...» marks each value to remove.\n"
          "# Written by heldout10_gen.py before reading the credential rules. Every value is random and fake.\n",
          SECRETS)
    write(os.path.join(HERE, "heldout10_lookalike.txt"),
          "# Tenth held-out credential corpus: look-alikes, nothing may be found.\n"
          "# Written by heldout10_gen.py before reading the credential rules. Every value is random and fake.\n",
          LOOKS)
    print(len(SECRETS), "secrets,", len(LOOKS), "look-alikes")


if __name__ == "__main__":
    main()
