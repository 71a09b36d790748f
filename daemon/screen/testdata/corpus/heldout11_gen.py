#!/usr/bin/env python3
"""Writes the eleventh held-out credential corpus.

heldout11_secret.txt holds texts with credentials, each value that must be
removed inside «...»; heldout11_lookalike.txt holds texts in which nothing may
be found. Every value is random and fake; hosts are reserved or made up.
Seeded: running it again writes the same files. Standard library only.
"""

import base64
import hashlib
import json
import os
import random

R = random.Random(2026112911)
HERE = os.path.dirname(os.path.abspath(__file__))

LOWER = "abcdefghijklmnopqrstuvwxyz"
UPPER = LOWER.upper()
DIGITS = "0123456789"
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
B32 = UPPER + "234567"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
SIGNS = "!@#$%^&*-_+=?"

with open(os.path.join(HERE, "..", "..", "bip39_english.txt")) as f:
    BIP39 = [w.strip() for w in f if w.strip()]
assert len(BIP39) == 2048


def rs(n, alph=ALNUM):
    return "".join(R.choice(alph) for _ in range(n))


def mixed(n):
    """Random characters with at least one capital, small letter and digit."""
    while True:
        v = rs(n)
        if any(c.isupper() for c in v) and any(c.islower() for c in v) and any(c.isdigit() for c in v):
            return v


def m(v):
    return "«" + v + "»"


def pick(*xs):
    return R.choice(xs)


WORDS = ("harbor maple cobalt tundra falcon pepper violet anchor meadow quartz ember "
         "lantern walnut orbit saffron glacier thistle marble canyon juniper otter "
         "sparrow copper velvet cinder prairie beacon mango raven cedar willow basil "
         "nimbus pebble comet tango zephyr hazel indigo bramble").split()

HOSTS = ["db.internal.example", "10.0.4.17", "pg-prod.corp.invalid", "mysql.staging.example.net",
         "cache.example.org", "mq.example.com", "ldap.corp.example", "smtp.mailhost.example",
         "vps-2291.example.net", "build01.lan"]
USERS = ["admin", "deploy", "app_rw", "svc_backup", "root", "postgres", "ops", "jenkins", "ubuntu",
         "reporting", "sa", "etl_user"]


def pw():
    k = R.randrange(7)
    if k == 0:
        return R.choice(WORDS).capitalize() + rs(R.randint(2, 4), DIGITS) + R.choice(SIGNS)
    if k == 1:
        while True:
            v = rs(R.randint(12, 20), ALNUM + SIGNS)
            if any(c in SIGNS for c in v) and any(c.isdigit() for c in v):
                return v
    if k == 2:
        return R.choice(WORDS) + pick("-", ".", "_") + R.choice(WORDS) + pick("-", "", "#") + rs(2, DIGITS)
    if k == 3:
        return mixed(R.randint(10, 16))
    if k == 4:
        return rs(R.randint(10, 14), LOWER + DIGITS) + rs(1, DIGITS)
    if k == 5:
        return R.choice(WORDS).capitalize() + R.choice(WORDS).capitalize() + rs(3, DIGITS) + R.choice("!?.")
    return rs(3, UPPER) + rs(4, LOWER) + R.choice(SIGNS) + rs(4, DIGITS) + rs(2, LOWER)


def hexkey():
    return rs(64, HEX)


def b64url(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def jwt(payload):
    head = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = b64url(json.dumps(payload, separators=(",", ":")).encode())
    return head + "." + body + "." + rs(43, B64URL)


def user_jwt():
    return jwt({"sub": rs(8, DIGITS), "name": pick("Lena K", "J. Ortiz", "Mia"), "iat": 1790000000 + R.randrange(10**6),
                "exp": 1799000000 + R.randrange(10**6), "scope": pick("read write", "admin", "orders:rw")})


def supabase_jwt(role):
    return jwt({"iss": "supabase", "ref": rs(20, LOWER), "role": role, "iat": 1780000000 + R.randrange(10**6),
                "exp": 2095000000 + R.randrange(10**6)})


def uuid():
    h = rs(32, HEX)
    return "-".join([h[:8], h[8:12], "4" + h[13:16], pick("8", "9", "a", "b") + h[17:20], h[20:]])


# DER, for private keys whose bodies parse.
def der_len(n):
    if n < 128:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def der(tag, body):
    return bytes([tag]) + der_len(len(body)) + body


def der_int(b):
    if b[0] & 0x80:
        b = b"\x00" + b
    return der(0x02, b)


def rand_bytes(n):
    return bytes(R.randrange(256) for _ in range(n))


def rsa_pkcs8():
    parts = [b"\x00", rand_bytes(256), b"\x01\x00\x01", rand_bytes(256), rand_bytes(128), rand_bytes(128),
             rand_bytes(128), rand_bytes(128), rand_bytes(128)]
    rsa = der(0x30, b"".join(der_int(p) for p in parts))
    alg = der(0x30, der(0x06, bytes.fromhex("2a864886f70d010101")) + b"\x05\x00")
    return der(0x30, der_int(b"\x00") + alg + der(0x04, rsa))


def ec_der():
    body = (der_int(b"\x01") + der(0x04, rand_bytes(32)) +
            bytes([0xa0]) + der_len(10) + der(0x06, bytes.fromhex("2a8648ce3d030107")) +
            bytes([0xa1]) + der_len(68) + der(0x03, b"\x00\x04" + rand_bytes(64)))
    return der(0x30, body)


def pem_lines(blob):
    s = base64.b64encode(blob).decode()
    return [s[i:i + 64] for i in range(0, len(s), 64)]


def pem_marked(label, blob, sep="\n"):
    lines = pem_lines(blob)
    return sep.join(["-----BEGIN %s-----" % label] + [m(x) for x in lines] + ["-----END %s-----" % label])


def pem_public(blob):
    lines = pem_lines(blob)
    return "\n".join(["-----BEGIN PUBLIC KEY-----"] + lines + ["-----END PUBLIC KEY-----"])


def phrase(n):
    ent = rand_bytes(n * 4 // 3)
    bits = int.from_bytes(ent, "big")
    cs_len = len(ent) * 8 // 32
    cs = hashlib.sha256(ent).digest()[0] >> (8 - cs_len)
    total = (bits << cs_len) | cs
    idx = [(total >> (11 * (n - 1 - i))) & 2047 for i in range(n)]
    return [BIP39[i] for i in idx]


def phrase_valid(words):
    n = len(words)
    total = 0
    for w in words:
        total = (total << 11) | BIP39.index(w)
    cs_len = n // 3
    ent = (total >> cs_len).to_bytes(n * 4 // 3, "big")
    return (total & ((1 << cs_len) - 1)) == hashlib.sha256(ent).digest()[0] >> (8 - cs_len)


def bad_phrase(n):
    while True:
        w = [R.choice(BIP39) for _ in range(n)]
        if not phrase_valid(w):
            return w


def otp_secret():
    return rs(pick(16, 26, 32), B32)


# Framing shared by both sets, so a frame tells nothing about the label.
def frame(t):
    k = R.randrange(9)
    order = "#" + rs(6, DIGITS)
    if k == 0:
        return "Delivery for order %s:\n%s" % (order, t)
    if k == 1:
        return "Re: dispute on %s\n\n%s\n\n-- sent from the order thread" % (order, t)
    if k == 2:
        return "```\n%s\n```" % t
    if k == 3:
        return "Offer note: %s" % t
    if k == 4:
        return "Review (%d/5): %s" % (R.randint(1, 5), t)
    return t


SECRETS = []
LOOKS = []


def secret(kind, ctx, weight=1):
    def deco(fn):
        SECRETS.append((kind, ctx, fn, weight))
        return fn
    return deco


def look(kind, ctx, weight=1):
    def deco(fn):
        LOOKS.append((kind, ctx, fn, weight))
        return fn
    return deco


# ---------------------------------------------------------------- secrets

@secret("password", "java stack trace printing a config")
def _():
    return ("Exception in thread \"main\" java.sql.SQLException: Access denied for user '%s'@'10.1.2.3'\n"
            "\tat com.acme.db.Pool.open(Pool.java:%d)\n"
            "Caused by config: DataSourceConfig{url=jdbc:mysql://%s:3306/shop, username=%s, password=%s, maxPool=%d}"
            % (R.choice(USERS), R.randint(40, 400), R.choice(HOSTS), R.choice(USERS), m(pw()), R.randint(4, 40)))


@secret("password", "python traceback with settings dict")
def _():
    return ("Traceback (most recent call last):\n  File \"/srv/app/worker.py\", line %d, in connect\n"
            "    conn = psycopg2.connect(**cfg)\npsycopg2.OperationalError: connection refused\n"
            "cfg = {'host': '%s', 'user': '%s', 'password': '%s', 'dbname': 'orders'}"
            % (R.randint(10, 300), R.choice(HOSTS), R.choice(USERS), m(pw())))


@secret("api key", "crash report json")
def _():
    key = "sk_live_" + mixed(pick(24, 34, 91))
    return json.dumps({"crash": {"signal": "SIGSEGV", "thread": R.randint(1, 9)},
                       "env": {"NODE_ENV": "production", "STRIPE_SECRET_KEY": "@@"}}).replace("@@", m(key))


@secret("api key", "sql insert of api keys")
def _():
    k = pick("rk_live_" + mixed(24), "shpat_" + rs(32, HEX), "dop_v1_" + rs(64, HEX), "key-" + rs(32, HEX))
    return ("INSERT INTO integrations (id, provider, api_key, created_at) VALUES\n  (%d, '%s', '%s', '2026-0%d-1%d');"
            % (R.randint(1, 900), pick("stripe", "shopify", "digitalocean", "mailgun"), m(k), R.randint(1, 9), R.randint(0, 9)))


@secret("password", "sql create user")
def _():
    u = R.choice(USERS)
    return pick("CREATE USER '%s'@'%%' IDENTIFIED BY '%s';\nGRANT ALL ON shop.* TO '%s'@'%%';" % (u, m(pw()), u),
                "CREATE USER %s WITH PASSWORD '%s';" % (u, m(pw())),
                "-- migration 0042\nALTER USER %s WITH ENCRYPTED PASSWORD '%s';" % (u, m(pw())),
                "create login %s with password = '%s', check_policy = off;" % (u, m(pw())))


@secret("password", "sql dump users table with plaintext column")
def _():
    return ("-- Dumping data for table `smtp_accounts`\nINSERT INTO `smtp_accounts` (`id`,`host`,`login`,`password`) VALUES (%d,'%s','noreply@shop.example','%s');"
            % (R.randint(1, 50), R.choice(HOSTS), m(pw())))


@secret("api key", "jupyter notebook cell")
def _():
    k = pick("sk-proj-" + rs(48, B64URL), "sk-ant-api03-" + rs(93, B64URL) + "AA", "hf_" + rs(34, ALNUM))
    var = pick("openai.api_key", "client = Anthropic(api_key", "HF_TOKEN")
    src = '%s = "%s"' % (var, m(k)) if "(" not in var else '%s="%s")' % (var, m(k))
    return json.dumps({"cells": [{"cell_type": "code", "execution_count": R.randint(1, 30), "metadata": {},
                                  "source": ["import os", "@@"]}]}).replace("@@", src.replace('"', '\\"'))


@secret("password", "terraform state json")
def _():
    st = {"version": 4, "terraform_version": "1.%d.%d" % (R.randint(3, 9), R.randint(0, 9)),
          "resources": [{"mode": "managed", "type": "aws_db_instance", "name": "main",
                         "instances": [{"attributes": {"identifier": "shop-prod", "username": R.choice(USERS),
                                                       "password": "@@", "port": 5432}}]}]}
    return json.dumps(st, indent=pick(None, 2)).replace("@@", m(pw()))


@secret("token", "terraform state json random_password result")
def _():
    st = {"resources": [{"type": "random_password", "name": "db",
                         "instances": [{"attributes": {"length": 24, "special": True, "result": "@@"}}]}]}
    return json.dumps(st).replace("@@", m(rs(24, ALNUM + "!#$%&*()-_=+[]{}<>:?")))


@secret("api key", "postman collection")
def _():
    k = pick(rs(32, HEX), mixed(40), "PMAK-" + rs(24, HEX) + "-" + rs(34, HEX))
    coll = {"info": {"name": "Orders API", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
            "auth": {"type": "apikey", "apikey": [{"key": "value", "value": "@@", "type": "string"},
                                                  {"key": "key", "value": "X-Api-Key", "type": "string"}]}}
    return json.dumps(coll).replace("@@", m(k))


@secret("token", "insomnia export bearer")
def _():
    return json.dumps({"_type": "request", "name": "List payouts", "url": "https://api.example.com/v2/payouts",
                       "authentication": {"type": "bearer", "token": "@@"}}).replace("@@", m(user_jwt()))


@secret("token", "har file header")
def _():
    t = pick("Bearer " + m(user_jwt()), "token " + m("ghp_" + rs(36)), "Bearer " + m(mixed(40)))
    return ('{"log":{"entries":[{"request":{"method":"GET","url":"https://api.example.com/me","headers":['
            '{"name":"Accept","value":"application/json"},{"name":"Authorization","value":"%s"}]}}]}}' % t)


@secret("cookie", "har file cookie")
def _():
    return ('{"request":{"cookies":[{"name":"sessionid","value":"%s","httpOnly":true}],"url":"https://shop.example/admin"}}'
            % m(rs(32, LOWER + DIGITS)))


@secret("token", "browser localStorage dump")
def _():
    return pick("> localStorage\nStorage {access_token: '%s', theme: 'dark', length: 2}" % m(user_jwt()),
                "localStorage.getItem('refresh_token')\n'%s'" % m(rs(64, B64URL)),
                'Object.entries(localStorage)\n[["auth.token","%s"],["lang","en"]]' % m(user_jwt()))


@secret("api key", "Info.plist with a server secret")
def _():
    return ("<key>CFBundleIdentifier</key>\n<string>com.example.shop</string>\n<key>%s</key>\n<string>%s</string>"
            % (pick("StripeSecretKey", "RevenueCatSecretKey", "BackendApiSecret"),
               m(pick("sk_live_" + mixed(24), "sk_" + rs(32, ALNUM), mixed(40)))))


@secret("password", "gradle.properties signing")
def _():
    a, b = pw(), pw()
    return ("org.gradle.jvmargs=-Xmx2048m\nRELEASE_STORE_FILE=release.jks\nRELEASE_STORE_PASSWORD=%s\nRELEASE_KEY_ALIAS=upload\nRELEASE_KEY_PASSWORD=%s"
            % (m(a), m(b)))


@secret("password", "gradle.properties maven")
def _():
    return "ossrhUsername=%s\nossrhPassword=%s\nsigning.keyId=%s" % (R.choice(USERS), m(pw()), rs(8, HEX.upper()))


@secret("password", "local.properties keystore")
def _():
    return "sdk.dir=/Users/dev/Library/Android/sdk\nstorePassword=%s\nkeyPassword=%s\nkeyAlias=key0" % (m(pw()), m(pw()))


@secret("password", "keystore.properties / spring ssl")
def _():
    return pick("server.ssl.key-store=classpath:keystore.p12\nserver.ssl.key-store-password=%s\nserver.ssl.key-alias=tomcat" % m(pw()),
                "javax.net.ssl.trustStorePassword=%s" % m(pw()),
                "keytool -importkeystore -srckeystore old.jks -srcstorepass %s -destkeystore new.p12" % m(pw()))


@secret("password", "csv export")
def _():
    rows = ["service,username,password,notes"]
    marked = []
    for _ in range(R.randint(2, 4)):
        p = pw().replace(",", "")
        rows.append("%s,%s,%s,%s" % (pick("vps", "mail", "ftp", "wp-admin", "router"), R.choice(USERS), m(p),
                                      pick("", "rotate in may", "shared")))
    return "\n".join(rows)


@secret("api key", "markdown table of keys")
def _():
    return ("| Service | Key | Owner |\n|---|---|---|\n| Mailchimp | `%s` | marketing |\n| Datadog | `%s` | ops |"
            % (m(rs(32, HEX) + "-us" + str(R.randint(1, 21))), m(rs(32, HEX))))


@secret("api key", "diff adding a secret")
def _():
    k = pick("sk_live_" + mixed(24), "xoxb-" + rs(12, DIGITS) + "-" + rs(13, DIGITS) + "-" + rs(24),
             "glpat-" + rs(20, B64URL), "SG." + rs(22, B64URL) + "." + rs(43, B64URL))
    return ("diff --git a/config/.env.production b/config/.env.production\nindex %s..%s 100644\n--- a/config/.env.production\n+++ b/config/.env.production\n@@ -3,3 +3,4 @@\n APP_ENV=production\n LOG_LEVEL=info\n+%s=%s\n"
            % (rs(7, HEX), rs(7, HEX), pick("PAYMENT_KEY", "SLACK_TOKEN", "CI_TOKEN", "MAIL_KEY"), m(k)))


@secret("password", "diff removing a secret")
def _():
    return ("@@ -12,7 +12,7 @@ database:\n   host: %s\n   user: %s\n-  password: %s\n+  password: ${DB_PASSWORD}\n"
            % (R.choice(HOSTS), R.choice(USERS), m(pw())))


@secret("api key", "code review comment")
def _():
    k = pick("sk_live_" + mixed(24), "AKIA" + rs(16, UPPER + DIGITS), "ghp_" + rs(36))
    if k.startswith("AKIA"):
        sec = mixed(40)
        return ("> `aws_secret_access_key = %s`\n\n**reviewer:** this is the live key pair (id %s), please rotate and move it to the vault before merge."
                % (m(sec), k))
    return "src/billing.ts line %d: you committed `%s` — rotate it, then read it from the env. blocking." % (R.randint(10, 300), m(k))


@secret("password", "escaped json inside json")
def _():
    inner = '{\\"user\\":\\"%s\\",\\"password\\":\\"%s\\"}' % (R.choice(USERS), m(pw().replace("\\", "")))
    return '{"level":"debug","msg":"payload","body":"%s"}' % inner


@secret("password", "url-encoded form body")
def _():
    raw = pw()
    enc = "".join(c if c.isalnum() else "%%%02X" % ord(c) for c in raw)
    if enc == raw:
        enc = raw + "%21"
    return "POST /login HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\nusername=%s&password=%s&remember=1" % (R.choice(USERS), m(enc))


@secret("password", "percent-escaped url userinfo")
def _():
    raw = rs(6, ALNUM) + pick("@", "#", "/", ":") + rs(6, ALNUM) + pick("!", "%", "?")
    enc = "".join(c if c.isalnum() else "%%%02X" % ord(c) for c in raw)
    return pick("DATABASE_URL=postgres://%s:%s@%s:5432/app" % (R.choice(USERS), m(enc), R.choice(HOSTS)),
                "amqp://%s:%s@%s:5672/%%2Fprod" % (R.choice(USERS), m(enc), R.choice(HOSTS)))


@secret("api key", "secret split with concatenation")
def _():
    k = "sk_live_" + mixed(32)
    cut = R.randint(12, 24)
    return pick('const key = "%s" +\n  "%s";' % (m(k[:cut]), m(k[cut:])),
                "STRIPE_KEY = ('%s'\n              '%s')" % (m(k[:cut]), m(k[cut:])))


@secret("private key", "hex key split across lines")
def _():
    k = hexkey()
    return pick("deployer key, first half: %s\nsecond half: %s" % (m(k[:32]), m(k[32:])),
                "pk (two lines, join them):\n%s\n%s" % (m(k[:32]), m(k[32:])))


@secret("api key", "minified js bundle")
def _():
    k = pick("sk_live_" + mixed(24), rs(32, HEX))
    v = rs(1, LOWER)
    if len(k) == 32:
        return '!function(){var %s=algoliasearch("%s","%s");/*admin*/%s.initIndex("products")}();' % (v, rs(10, UPPER + DIGITS), m(k), v)
    return 'var e=require("stripe"),%s=e("%s",{apiVersion:"2024-06-20"});module.exports=%s;' % (v, m(k), v)


@secret("token", "Makefile variable")
def _():
    return pick("DEPLOY_TOKEN := %s\n\ndeploy:\n\tcurl -H \"Authorization: Bearer $(DEPLOY_TOKEN)\" https://deploy.example.com/hook" % m(mixed(40)),
                "REGISTRY_PASS ?= %s\nlogin:\n\tdocker login -u ci -p $(REGISTRY_PASS) registry.example.com" % m(pw()))


@secret("token", "Dockerfile ARG/ENV")
def _():
    return pick("FROM node:20-alpine\nARG NPM_TOKEN=%s\nRUN echo \"//registry.npmjs.org/:_authToken=${NPM_TOKEN}\" > .npmrc" % m("npm_" + rs(36)),
                "FROM python:3.12-slim\nENV SENTRY_AUTH_TOKEN=%s\nENV PYTHONUNBUFFERED=1" % m("sntrys_" + rs(60, B64URL)),
                "ENV DB_PASSWORD %s" % m(pw()))


@secret("token", "github actions yaml literal")
def _():
    return ("jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      VERCEL_TOKEN: %s\n      NODE_VERSION: 20\n    steps:\n      - uses: actions/checkout@v4"
            % m(rs(24, ALNUM)))


@secret("password", "ansible vars")
def _():
    return pick("group_vars/db.yml:\nmysql_root_password: %s\nmysql_port: 3306" % m(pw()),
                "ansible_user: %s\nansible_become_pass: \"%s\"" % (R.choice(USERS), m(pw())),
                "- name: create db user\n  postgresql_user:\n    name: app\n    password: '%s'" % m(pw()))


@secret("password", "systemd unit Environment")
def _():
    return pick("[Service]\nEnvironment=\"REDIS_PASSWORD=%s\"\nExecStart=/usr/local/bin/worker" % m(pw()),
                "[Service]\nEnvironment=API_SECRET=%s PORT=8080" % m(mixed(32)))


@secret("password", "windows registry export")
def _():
    return ('Windows Registry Editor Version 5.00\n\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon]\n'
            '"AutoAdminLogon"="1"\n"DefaultUserName"="kiosk"\n"DefaultPassword"="%s"' % m(pw().replace("\\", "")))


@secret("password", "powershell securestring")
def _():
    return pick('$pw = ConvertTo-SecureString "%s" -AsPlainText -Force\n$cred = New-Object PSCredential("CORP\\svc", $pw)' % m(pw().replace("$", "")),
                "$secure = ConvertTo-SecureString -String '%s' -AsPlainText -Force" % m(pw()))


@secret("password", "jdbc odbc connection string")
def _():
    return pick("jdbc:postgresql://%s:5432/ledger?user=%s&password=%s&ssl=true" % (R.choice(HOSTS), R.choice(USERS), m(mixed(14))),
                "Driver={ODBC Driver 18 for SQL Server};Server=tcp:%s,1433;Database=crm;Uid=%s;Pwd=%s;Encrypt=yes;" % (R.choice(HOSTS), R.choice(USERS), m(pw().replace(";", ""))),
                "jdbc:sqlserver://%s;databaseName=erp;user=sa;password=%s" % (R.choice(HOSTS), m(mixed(12))),
                "jdbc:oracle:thin:%s/%s@//%s:1521/ORCL" % (R.choice(USERS), m(mixed(12)), R.choice(HOSTS)))


@secret("password", "ldap bind")
def _():
    return pick('ldapsearch -x -H ldap://%s -D "cn=admin,dc=corp,dc=example" -w %s -b "dc=corp,dc=example"' % (R.choice(HOSTS), m(mixed(14))),
                "ldap:\n  url: ldaps://%s:636\n  bindDN: cn=svc-sync,ou=services,dc=corp,dc=example\n  bindPassword: %s" % (R.choice(HOSTS), m(pw())),
                "spring.ldap.username=uid=reader,ou=system\nspring.ldap.password=%s" % m(pw()))


@secret("password", "smtp credentials")
def _():
    return pick("MAIL_HOST=%s\nMAIL_PORT=587\nMAIL_USERNAME=noreply@shop.example\nMAIL_PASSWORD=%s" % (R.choice(HOSTS), m(pw())),
                "smtp:\n  host: smtp.mailhost.example\n  user: alerts\n  pass: %s" % m(pw()),
                "server.login('alerts@shop.example', '%s')" % m(pw()))


@secret("password", "redis auth")
def _():
    return pick("$ redis-cli -h %s\n%s:6379> AUTH %s\nOK" % (R.choice(HOSTS), R.choice(HOSTS), m(mixed(20))),
                "REDIS_URL=redis://:%s@%s:6379/0" % (m(mixed(24)), R.choice(HOSTS)),
                "requirepass %s" % m(mixed(20)))


@secret("password", "mongodb+srv uri")
def _():
    return "MONGO_URI=mongodb+srv://%s:%s@cluster0.%s.mongodb.net/shop?retryWrites=true&w=majority" % (R.choice(USERS), m(mixed(16)), rs(5, LOWER + DIGITS))


@secret("password", "amqp url")
def _():
    return pick("CELERY_BROKER_URL = 'amqp://%s:%s@%s:5672//'" % (R.choice(USERS), m(mixed(14)), R.choice(HOSTS)),
                "spring.rabbitmq.password=%s" % m(pw()))


@secret("private key", "evm key wrappings", 2)
def _():
    k = hexkey()
    return pick('PRIVATE_KEY="0x%s"' % m(k), "export DEPLOYER_PK=%s" % m(k),
                '{"network":"base","deployer":{"privateKey":"0x%s"}}' % m(k),
                "const wallet = new ethers.Wallet('0x%s', provider);" % m(k),
                "cast send --private-key %s 0xC0ffee000000000000000000000000000000beef \"ping()\"" % m(k),
                "accounts: [\"0x%s\"]," % m(k),
                "wallet key for the payout hot wallet: 0x%s (keep it off chat after this)" % m(k),
                "| hot wallet | `0x%s` |" % m(k),
                "key = bytes.fromhex(\"%s\")\nacct = Account.from_key(key)" % m(k))


@secret("private key", "evm key in other languages' prose", 2)
def _():
    k = "0x" + hexkey() if R.random() < .5 else hexkey()
    t = pick("clave privada de la wallet: %s", "chave privada: %s", "privater Schlüssel der Wallet: %s",
             "clé privée du portefeuille : %s", "chiave privata: %s", "klucz prywatny: %s", "приватный ключ: %s",
             "приватний ключ гаманця — %s", "özel anahtar: %s", "私钥：%s", "秘密鍵は %s です", "개인키: %s",
             "khóa riêng tư: %s", "kunci privat dompet: %s", "ufunguo wa siri wa wallet: %s", "المفتاح الخاص: %s")
    return t % m(k)


def phrase_layout(words):
    k = R.randrange(8)
    n = len(words)
    if k == 0:
        return "seed phrase: " + m(" ".join(words))
    if k == 1:
        return "recovery words:\n" + "\n".join("%d. %s" % (i + 1, m(w)) for i, w in enumerate(words))
    if k == 2:
        return "mnemonic = \"%s\"" % m(" ".join(words))
    if k == 3:
        return "backup (%d words): %s" % (n, ", ".join(m(w) for w in words))
    if k == 4:
        return "wallet restore words, one per line:\n" + "\n".join(m(w) for w in words)
    if k == 5:
        return pick("frase semilla: %s", "frase de recuperação: %s", "Wiederherstellungsphrase: %s",
                    "phrase de récupération : %s", "фраза восстановления: %s", "助记词：%s",
                    "シードフレーズ：%s", "복구 구문: %s", "cụm từ khôi phục: %s", "frasa pemulihan: %s") % m(" ".join(words))
    if k == 6:
        return '{"mnemonic": [%s]}' % ", ".join('"%s"' % m(w) for w in words)
    return "MNEMONIC=" + m(" ".join(w.upper() for w in words) if R.random() < .3 else " ".join(words))


@secret("seed phrase", "bip39 12/18/24 layouts", 3)
def _():
    return phrase_layout(phrase(pick(12, 12, 18, 24)))


@secret("otp secret", "otpauth uri")
def _():
    s = otp_secret()
    return pick("otpauth://totp/Shop:%s?secret=%s&issuer=Shop&digits=6" % (R.choice(USERS), m(s)),
                "2FA for the admin panel: otpauth://totp/admin%%40shop.example?secret=%s&issuer=ShopAdmin" % m(s),
                "TOTP seed (enter manually in the app): %s" % m(" ".join(s[i:i + 4] for i in range(0, len(s), 4))))


@secret("recovery codes", "2fa recovery codes")
def _():
    codes = [rs(5, LOWER + DIGITS) + "-" + rs(5, LOWER + DIGITS) for _ in range(R.randint(4, 8))]
    return "GitHub recovery codes for the org owner account:\n" + "\n".join(m(c) for c in codes)


@secret("api key", "provider keys in env", 3)
def _():
    opts = [
        ("STRIPE_RESTRICTED_KEY", "rk_live_" + mixed(24 + R.randrange(70))),
        ("SQUARE_ACCESS_TOKEN", "EAAA" + rs(60, B64URL)),
        ("SHOPIFY_ADMIN_TOKEN", "shpat_" + rs(32, HEX)),
        ("SHOPIFY_API_SECRET", "shpss_" + rs(32, HEX)),
        ("MAILGUN_API_KEY", "key-" + rs(32, HEX)),
        ("MAILCHIMP_API_KEY", rs(32, HEX) + "-us" + str(R.randint(1, 21))),
        ("DD_API_KEY", rs(32, HEX)),
        ("DD_APP_KEY", rs(40, HEX)),
        ("NEW_RELIC_API_KEY", "NRAK-" + rs(27, UPPER + DIGITS)),
        ("NEW_RELIC_LICENSE_KEY", rs(36, HEX) + "NRAL"),
        ("ALGOLIA_ADMIN_KEY", rs(32, HEX)),
        ("CLOUDFLARE_API_TOKEN", rs(40, B64URL)),
        ("DIGITALOCEAN_TOKEN", "dop_v1_" + rs(64, HEX)),
        ("HEROKU_API_KEY", uuid()),
        ("VERCEL_TOKEN", rs(24, ALNUM)),
        ("NETLIFY_AUTH_TOKEN", "nfp_" + rs(36, ALNUM)),
        ("OKTA_API_TOKEN", "00" + rs(40, B64URL)),
        ("AUTH0_CLIENT_SECRET", rs(64, B64URL)),
        ("TWITCH_CLIENT_SECRET", rs(30, LOWER + DIGITS)),
        ("SPOTIFY_CLIENT_SECRET", rs(32, HEX)),
        ("PAYPAL_CLIENT_SECRET", "E" + rs(79, B64URL)),
        ("BRAINTREE_PRIVATE_KEY", rs(32, HEX)),
        ("PLAID_SECRET", rs(30, HEX)),
        ("COINBASE_API_SECRET", rs(32, ALNUM)),
        ("BINANCE_API_SECRET", rs(64, ALNUM)),
    ]
    name, v = R.choice(opts)
    sep = pick("=", "=", ": ", " = ")
    q = pick("", "\"", "'") if sep != ": " else pick("", "\"")
    return "%s%s%s%s%s" % (name, sep, q, m(v), q)


@secret("api key", "provider keys in code", 3)
def _():
    opts = [
        lambda: "stripe.api_key = \"%s\"" % m("rk_live_" + mixed(40)),
        lambda: "client = Square::Client.new(access_token: '%s', environment: 'production')" % m("EAAA" + rs(60, B64URL)),
        lambda: "const shopify = new Shopify({ shop: 'acme.myshopify.com', accessToken: '%s' })" % m("shpat_" + rs(32, HEX)),
        lambda: "mailgun.client({username: 'api', key: '%s'})" % m("key-" + rs(32, HEX)),
        lambda: "mailchimp.setConfig({ apiKey: \"%s\", server: \"us%d\" });" % (m(rs(32, HEX) + "-us7"), 7),
        lambda: "configuration.api_key['apiKeyAuth'] = '%s'  # datadog" % m(rs(32, HEX)),
        lambda: "Sentry.init({ dsn: \"https://%s:%s@o%s.ingest.sentry.io/%s\" });" % (rs(32, HEX), m(rs(32, HEX)), rs(6, DIGITS), rs(7, DIGITS)),
        lambda: "const client = algoliasearch('%s', '%s'); // admin key, server only" % (rs(10, UPPER + DIGITS), m(rs(32, HEX))),
        lambda: "cf = CloudFlare.CloudFlare(token='%s')" % m(rs(40, B64URL)),
        lambda: "do_client = pydo.Client(token=\"%s\")" % m("dop_v1_" + rs(64, HEX)),
        lambda: "heroku = Heroku.connect_oauth(\"%s\")" % m(uuid()),
        lambda: "createClient('https://%s.supabase.co', '%s')  // service role, backend only" % (rs(20, LOWER), m(supabase_jwt("service_role"))),
        lambda: "new okta.Client({ orgUrl: 'https://corp.okta.com', token: '%s' })" % m("00" + rs(40, B64URL)),
        lambda: "AUTH0 = {'domain': 'corp.eu.auth0.com', 'client_id': '%s', 'client_secret': '%s'}" % (rs(32, ALNUM), m(rs(64, B64URL))),
        lambda: "twitch = Twitch('%s', '%s')" % (rs(30, LOWER + DIGITS), m(rs(30, LOWER + DIGITS))),
        lambda: "SpotifyOAuth(client_id=\"%s\", client_secret=\"%s\", redirect_uri=\"http://127.0.0.1:9090\")" % (rs(32, HEX), m(rs(32, HEX))),
        lambda: "paypalrestsdk.configure({'mode': 'live', 'client_id': '%s', 'client_secret': '%s'})" % (rs(80, B64URL), m("E" + rs(79, B64URL))),
        lambda: "gateway = braintree.BraintreeGateway(access_token=\"%s\")" % m("access_token$production$" + rs(16, LOWER + DIGITS) + "$" + rs(32, HEX)),
        lambda: "plaid_client = plaid.Client(client_id='%s', secret='%s', environment='production')" % (rs(24, HEX), m(rs(30, HEX))),
        lambda: "client = Client(api_key='%s', api_secret='%s')  # coinbase" % (rs(16, ALNUM), m(rs(32, ALNUM))),
        lambda: "binance = ccxt.binance({'apiKey': '%s', 'secret': '%s'})" % (rs(64, ALNUM), m(rs(64, ALNUM))),
    ]
    return R.choice(opts)()


@secret("private key", "firebase admin service account json")
def _():
    lines = pem_lines(rsa_pkcs8())
    body = "\n".join(m(x) for x in lines)
    return ('{\n  "type": "service_account",\n  "project_id": "shop-%s",\n  "private_key_id": "%s",\n  "private_key": "-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n",\n  "client_email": "firebase-adminsdk-%s@shop-%s.iam.gserviceaccount.com"\n}'
            % (rs(5, LOWER), rs(40, HEX), body, rs(5, LOWER), rs(5, LOWER)))


@secret("private key", "coinbase cdp ec key")
def _():
    return "name: organizations/%s/apiKeys/%s\nprivateKey: |\n  %s" % (uuid(), uuid(), pem_marked("EC PRIVATE KEY", ec_der(), "\n  "))


@secret("token", "supabase service role in .env")
def _():
    return "SUPABASE_URL=https://%s.supabase.co\nSUPABASE_SERVICE_ROLE_KEY=%s" % (rs(20, LOWER), m(supabase_jwt("service_role")))


PW_LANG = [
    "la contraseña es %s", "contraseña del panel: %s", "a senha é %s", "senha do servidor: %s",
    "das Passwort lautet %s", "Kennwort fürs NAS: %s", "le mot de passe est %s", "mdp du wifi : %s",
    "la password è %s", "password dell'admin: %s", "hasło to %s", "hasło do panelu: %s", "пароль: %s",
    "пароль от сервера — %s", "ось пароль: %s", "пароль до бази %s", "şifre: %s", "şifresi %s",
    "كلمة المرور: %s", "كلمة السر هي %s", "הסיסמה היא %s", "סיסמה: %s", "पासवर्ड है %s", "पासवर्ड: %s",
    "পাসওয়ার্ড: %s", "পাসওয়ার্ড হলো %s", "密码是%s", "密码：%s", "登录密码 %s", "パスワードは%sです",
    "パスワード：%s", "비밀번호는 %s 입니다", "비번: %s", "mật khẩu là %s", "mật khẩu: %s",
    "kata sandinya %s", "password-nya %s", "nenosiri ni %s", "nywila: %s",
]


@secret("password", "password in a message, many languages", 3)
def _():
    return R.choice(PW_LANG) % m(pw())


@secret("password", "casual english with typos", 2)
def _():
    p = pw()
    return pick("the pw is %s btw", "pass for the box: %s", "creds below\nuser: %s\npass: %%s" % R.choice(USERS),
                "pasword: %s", "passwd = %s", "ok here you go, login %s / %%s" % R.choice(USERS),
                "ssh %s@%s, pwd %%s" % (R.choice(USERS), R.choice(HOSTS)), "pw -> %s",
                "Password for the staging admin is %s (change it after handover)",
                "use this to log in: %s", "creds: %s:%%s" % R.choice(USERS)) % m(p)


@secret("password", "chat two turns")
def _():
    return pick("buyer: what's the password for the cpanel?\nseller: %s",
                "[10:02] ana: can you resend the db creds?\n[10:03] tom: %s:%%s" % R.choice(USERS),
                "A: wifi pass?\nB: it's %s") % m(pw())


@secret("api key", "offer note / dispute statement with key")
def _():
    k = pick("sk_live_" + mixed(24), "shpat_" + rs(32, HEX), "dop_v1_" + rs(64, HEX), "NRAK-" + rs(27, UPPER + DIGITS),
             "xoxp-" + rs(11, DIGITS) + "-" + rs(11, DIGITS) + "-" + rs(13, DIGITS) + "-" + rs(32, HEX))
    return pick("Dispute statement: the seller delivered the integration but left the production key %s inside the repo.",
                "As agreed in the offer, I tested with your account's key %s and it worked.",
                "Review: great work, though he pasted our token (%s) into the public ticket.") % m(k)


@secret("basic auth", "curl -u and header")
def _():
    u = R.choice(USERS)
    p = mixed(14)
    return pick("curl -u %s:%s https://ci.example.com/api/json" % (u, m(p)),
                "Authorization: Basic %s" % m(base64.b64encode(("%s:%s" % (u, p)).encode()).decode()))


@secret("private key", "pem private key in a ticket")
def _():
    if R.random() < .5:
        return "attached the deploy key:\n" + pem_marked("EC PRIVATE KEY", ec_der())
    return "key.pem:\n" + pem_marked("PRIVATE KEY", rsa_pkcs8())


@secret("token", "yaml k8s secret stringData")
def _():
    return ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: payments\ntype: Opaque\nstringData:\n  PAYPAL_SECRET: %s\n  WEBHOOK_SECRET: %s"
            % (m("E" + rs(79, B64URL)), m("whsec_" + rs(32, ALNUM))))


# ---------------------------------------------------------------- look-alikes

@look("hash", "checksums file")
def _():
    return "\n".join("%s  %s" % (rs(64, HEX), f) for f in pick(["axp-linux-amd64.tar.gz", "axp-darwin-arm64.tar.gz"],
                                                                 ["release.zip"], ["app.apk", "app.aab", "mapping.txt"]))


@look("git sha", "git log / review")
def _():
    return pick("commit %s\nAuthor: dev <dev@example.com>\n\n    fix rounding in payouts" % rs(40, HEX),
                "LGTM, merged as %s (squash of %s..%s)" % (rs(40, HEX), rs(7, HEX), rs(7, HEX)),
                "diff --git a/README.md b/README.md\nindex %s..%s 100644" % (rs(7, HEX), rs(7, HEX)))


@look("uuid/ulid", "ids")
def _():
    return pick("request_id=%s status=200 latency_ms=%d" % (uuid(), R.randint(3, 900)),
                "order %s created (ulid %s)" % (uuid(), "01J" + rs(23, "0123456789ABCDEFGHJKMNPQRSTVWXYZ")),
                "Idempotency-Key: %s" % uuid(),
                "X-Request-Id: %s" % rs(32, HEX))


@look("content id", "cid / blob refs")
def _():
    return pick("ipfs://bafybei%s" % rs(52, "abcdefghijklmnopqrstuvwxyz234567"),
                "<img src=\"cid:image001.png@01DA%s.%s\">" % (rs(4, HEX.upper()), rs(8, HEX.upper())),
                "blob sha256:%s uploaded" % rs(64, HEX))


@look("base64 image", "data uri")
def _():
    blob = b"\x89PNG\r\n\x1a\n" + rand_bytes(R.randint(60, 140))
    return pick("background: url(data:image/png;base64,%s);", "<img src=\"data:image/png;base64,%s\" alt=\"logo\">") % base64.b64encode(blob).decode()


@look("base64 font", "css font-face")
def _():
    return "@font-face{font-family:Inter;src:url(data:font/woff2;base64,%s) format(\"woff2\")}" % base64.b64encode(b"wOF2" + rand_bytes(120)).decode()


@look("public key", "pem public key / cert")
def _():
    if R.random() < .5:
        return "server public key for pinning:\n" + pem_public(rand_bytes(R.choice([91, 294])))
    lines = pem_lines(rand_bytes(R.randint(500, 700)))
    return "-----BEGIN CERTIFICATE-----\n" + "\n".join(lines) + "\n-----END CERTIFICATE-----"


@look("public key", "ssh public key in authorized_keys")
def _():
    return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI%s %s@laptop" % (rs(43, B64), R.choice(USERS))


@look("wallet address", "payout addresses")
def _():
    return pick("send the USDC to 0x%s on Base" % rs(40, HEX),
                "BTC: bc1q%s" % rs(38, "qpzry9x8gf2tvdw0s3jn54khce6mua7l"),
                "Solana payout wallet %s" % rs(44, B58),
                "ENS: %s.eth -> 0x%s" % (R.choice(WORDS) + R.choice(WORDS), rs(40, HEX)))


@look("tx hash", "transaction hashes in prose", 2)
def _():
    h = rs(64, HEX)
    return pick("paid, tx hash 0x%s (block %d)" % (h, R.randint(10**7, 4 * 10**7)),
                "hash da transação: 0x%s" % h, "Transaktions-Hash: 0x%s" % h, "交易哈希：0x%s" % h,
                "https://basescan.org/tx/0x%s" % h,
                "| tx | 0x%s | confirmed |" % h)


@look("ens name", "ens")
def _():
    return "my ENS is %s.eth, resolves to the same wallet as last time" % (R.choice(WORDS) + str(R.randint(1, 99)))


@look("placeholder", "env example")
def _():
    name = pick("API_KEY", "STRIPE_SECRET_KEY", "DB_PASSWORD", "SECRET", "CLOUDFLARE_API_TOKEN", "SUPABASE_SERVICE_ROLE_KEY")
    v = pick("<API_KEY>", "YOUR_SECRET_HERE", "sk_test_...", "xxxx", "***", "${{ secrets.%s }}" % name,
             "{{ vault \"secret/data/app\" }}", "changeme", "<paste-here>", "REPLACE_ME", "", "\"\"", "${%s}" % name,
             "sk_live_XXXXXXXXXXXXXXXXXXXXXXXX", "your-token-goes-here", "TODO")
    return ".env.example:\n%s=%s" % (name, v)


@look("env read", "code reading secrets", 2)
def _():
    return pick("const key = process.env.STRIPE_SECRET_KEY;",
                "password := os.Getenv(\"DB_PASSWORD\")",
                "api_key = os.environ[\"OPENAI_API_KEY\"]",
                "token = ENV.fetch('SHOPIFY_ADMIN_TOKEN')",
                "String secret = System.getenv(\"PAYPAL_CLIENT_SECRET\");",
                "$pw = getenv('MAIL_PASSWORD');",
                "let t = std::env::var(\"DO_TOKEN\")?;",
                "password: ${DB_PASSWORD:?missing}",
                "env:\n  - name: DD_API_KEY\n    valueFrom:\n      secretKeyRef:\n        name: datadog\n        key: api-key",
                "      STRIPE_KEY: ${{ secrets.STRIPE_KEY }}",
                "password = getpass.getpass('Password: ')")


@look("redacted", "redacted logs")
def _():
    return pick("2026-11-%02dT10:%02d:00Z INFO connect user=%s password=[REDACTED] host=%s" % (R.randint(1, 28), R.randint(0, 59), R.choice(USERS), R.choice(HOSTS)),
                "Authorization: Bearer ****************",
                "STRIPE_SECRET_KEY=sk_live_••••••••••%s" % rs(4, DIGITS),
                "{\"password\":\"<redacted>\",\"user\":\"%s\"}" % R.choice(USERS),
                "Run echo ${{ secrets.NPM_TOKEN }}\n***",
                "token=%s…(truncated)" % rs(4, LOWER))


@look("documentation example", "docs examples")
def _():
    return pick("Example (not a real key): `sk_test_4eC39HqLyjWDarjtT1zdp7dc`",
                "For example, AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY as shown in the AWS docs.",
                "e.g. `export OPENAI_API_KEY=sk-...` then run the script",
                "Set `password: <your password>` in config.yml (see docs/setup.md).",
                "the token looks like `ghp_` followed by 36 characters")


@look("order id", "order and tracking numbers")
def _():
    return pick("Order #%s shipped, tracking %s" % (rs(8, DIGITS), "1Z" + rs(16, UPPER + DIGITS)),
                "invoice INV-%s-%s due %s" % (rs(4, DIGITS), rs(5, DIGITS), "2026-12-01"),
                "DHL tracking JD%s" % rs(18, DIGITS),
                "Stripe charge ch_%s refunded" % rs(24, ALNUM),
                "payment intent pi_%s succeeded" % rs(24, ALNUM))


@look("iban", "bank details")
def _():
    return pick("IBAN: DE%s %s %s %s %s %s" % (rs(2, DIGITS), rs(4, DIGITS), rs(4, DIGITS), rs(4, DIGITS), rs(4, DIGITS), rs(2, DIGITS)),
                "bank: GB%s NWBK %s, BIC NWBKGB2L" % (rs(2, DIGITS), rs(14, DIGITS)))


@look("license plate", "logistics")
def _():
    return "driver plate %s-%s-%s, container MSCU%s" % (rs(2, UPPER), rs(2, UPPER), rs(4, DIGITS), rs(7, DIGITS))


@look("word list", "not a seed phrase", 2)
def _():
    k = R.randrange(4)
    if k == 0:
        return "shopping list: " + ", ".join(R.sample(["milk", "eggs", "bread", "apple", "cheese", "rice", "butter", "lemon", "onion", "garlic", "coffee", "sugar", "salt", "tomato"], 12))
    if k == 1:
        return "tags: " + " ".join("#" + w for w in R.sample(BIP39, 12))
    if k == 2:
        return "vocabulary quiz words: " + " ".join(bad_phrase(12))
    return "brand name ideas: " + ", ".join(bad_phrase(R.choice([12, 18])))


@look("talk about passwords", "policy and prose", 2)
def _():
    return pick("Reset your password from the account page; the link expires in 30 minutes.",
                "Password policy: at least 12 characters, one digit, one symbol, no reuse of the last 5.",
                "I'll send the password over Signal, not here.",
                "The password is in the shared vault under 'staging'.",
                "Forgot password? We never ask for your password by email.",
                "la contraseña la envío por otro canal", "das Passwort schicke ich separat",
                "mot de passe oublié ? cliquez sur le lien", "пароль пришлю в личку",
                "密码请通过安全渠道发送", "パスワードは別途お送りします", "비밀번호는 따로 보내드릴게요",
                "senha: a mesma de sempre", "hasło wyślę SMS-em", "şifreyi ayrıca gönderiyorum",
                "mật khẩu sẽ gửi qua Zalo", "nenosiri nitatuma kwa SMS", "पासवर्ड अलग से भेजूंगा",
                "Never paste your seed phrase or private key into a chat.",
                "password must be rotated every 90 days; the old one stops working at midnight")


@look("placeholder", "config templates", 2)
def _():
    return pick("spring.datasource.password=${DB_PASSWORD}",
                "ldap:\n  bindDN: cn=svc,dc=corp,dc=example\n  bindPassword: {{ vault \"ldap/bind\" }}",
                "MONGO_URI=mongodb+srv://<user>:<password>@cluster0.example.mongodb.net/shop",
                "redis://:${REDIS_PASSWORD}@cache:6379/0",
                "[Service]\nEnvironment=\"API_SECRET=%i\"\nEnvironmentFile=/etc/app/secret.env",
                "ARG NPM_TOKEN\nRUN --mount=type=secret,id=npm cat /run/secrets/npm > .npmrc",
                "jdbc:postgresql://db:5432/app?user=app&password=",
                "Driver={ODBC Driver 18 for SQL Server};Server=tcp:db,1433;Uid=sa;Pwd={your_password};",
                "ansible_become_pass: \"{{ vault_become_pass }}\"",
                "$pw = Read-Host -AsSecureString \"Password\"",
                "storePassword=System.getenv(\"KEYSTORE_PASSWORD\")",
                "RELEASE_STORE_PASSWORD=",
                "smtp:\n  user: alerts\n  pass: ${SMTP_PASS}")


@look("public config", "google-services.json / firebase web")
def _():
    key = "AIza" + rs(35, B64URL)
    if R.random() < .5:
        return json.dumps({"project_info": {"project_number": rs(12, DIGITS), "project_id": "shop-" + rs(5, LOWER)},
                           "client": [{"client_info": {"mobilesdk_app_id": "1:%s:android:%s" % (rs(12, DIGITS), rs(16, HEX)),
                                                       "android_client_info": {"package_name": "com.example.shop"}},
                                       "api_key": [{"current_key": key}]}]}, indent=pick(None, 2))
    return "const firebaseConfig = {\n  apiKey: \"%s\",\n  authDomain: \"shop-%s.firebaseapp.com\",\n  messagingSenderId: \"%s\"\n};" % (key, rs(5, LOWER), rs(12, DIGITS))


@look("publishable key", "publishable / anon keys", 2)
def _():
    return pick("STRIPE_PUBLISHABLE_KEY=pk_live_" + mixed(24),
                "NEXT_PUBLIC_SUPABASE_ANON_KEY=" + supabase_jwt("anon"),
                "posthog.init('phc_%s', {api_host: 'https://eu.posthog.com'})" % rs(43, ALNUM),
                "algoliasearch('%s', '%s') // search-only key, safe in the browser" % (rs(10, UPPER + DIGITS), "search-only"),
                "AWS_ACCESS_KEY_ID=AKIA" + rs(16, UPPER + DIGITS),
                "Sentry.init({ dsn: \"https://%s@o%s.ingest.sentry.io/%s\" });" % (rs(32, HEX), rs(6, DIGITS), rs(7, DIGITS)),
                "kms_key_id = \"arn:aws:kms:eu-west-1:%s:key/%s\"" % (rs(12, DIGITS), uuid()),
                "client_id: %s.apps.googleusercontent.com" % (rs(12, DIGITS) + "-" + rs(32, LOWER + DIGITS)))


@look("sql", "migrations and dumps without secrets")
def _():
    return pick("CREATE TABLE api_keys (id serial primary key, name text, key_hash char(64) not null, created_at timestamptz);",
                "INSERT INTO users (id, email, password_hash) VALUES (%d, 'a@example.com', '$2b$12$%s');" % (R.randint(1, 999), rs(53, ALNUM + "./")),
                "CREATE USER %s WITH PASSWORD NULL; -- login via IAM only" % R.choice(USERS),
                "ALTER TABLE users ADD COLUMN password_changed_at timestamptz;",
                "INSERT INTO products (sku, name) VALUES ('SKU-%s', 'Harbor mug');" % rs(8, UPPER + DIGITS))


@look("notebook", "jupyter cell without secrets")
def _():
    return json.dumps({"cells": [{"cell_type": "code", "execution_count": R.randint(1, 40), "metadata": {},
                                  "outputs": [{"output_type": "stream", "name": "stdout", "text": ["sha256 %s" % rs(64, HEX)]}],
                                  "source": ["import os", "key = os.environ['OPENAI_API_KEY']"]}]})


@look("terraform state", "tfstate without secrets")
def _():
    return json.dumps({"version": 4, "serial": R.randint(1, 400), "lineage": uuid(),
                       "resources": [{"type": "aws_s3_bucket", "name": "assets",
                                      "instances": [{"attributes": {"arn": "arn:aws:s3:::assets-%s" % rs(6, LOWER + DIGITS),
                                                                    "id": "assets-" + rs(6, LOWER + DIGITS)}, "sensitive_attributes": []}]}]})


@look("postman", "collection with variables")
def _():
    return json.dumps({"auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{access_token}}", "type": "string"}]},
                       "variable": [{"key": "baseUrl", "value": "https://api.example.com"}, {"key": "orderId", "value": uuid()}]})


@look("har", "har without credentials")
def _():
    return ('{"log":{"entries":[{"request":{"method":"GET","url":"https://cdn.example.com/app.%s.js","headers":[{"name":"If-None-Match","value":"W/\\"%s\\""}]},"response":{"status":304}}]}}'
            % (rs(8, HEX), rs(32, HEX)))


@look("localStorage", "storage dump without secrets")
def _():
    return "> localStorage\nStorage {theme: 'dark', cartId: '%s', lastSeen: '%d', length: 3}" % (uuid(), 1790000000 + R.randrange(10**6))


@look("mobile config", "Info.plist / gradle without secrets")
def _():
    return pick("<key>CFBundleVersion</key>\n<string>%d</string>\n<key>GIDClientID</key>\n<string>%s.apps.googleusercontent.com</string>" % (R.randint(1, 500), rs(12, DIGITS) + "-" + rs(32, LOWER + DIGITS)),
                "org.gradle.jvmargs=-Xmx4g\nandroid.useAndroidX=true\nVERSION_CODE=%d" % R.randint(1, 900),
                "sdk.dir=/home/dev/Android/Sdk\nndk.dir=/home/dev/Android/Sdk/ndk/26.1.%d" % R.randint(10000000, 99999999))


@look("csv", "exports without secrets")
def _():
    rows = ["order_id,sku,qty,tracking"] + ["%s,SKU-%s,%d,1Z%s" % (rs(8, DIGITS), rs(6, UPPER + DIGITS), R.randint(1, 9), rs(16, UPPER + DIGITS)) for _ in range(3)]
    return "\n".join(rows)


@look("markdown table", "status tables")
def _():
    return ("| Build | Commit | Digest |\n|---|---|---|\n| #%d | %s | sha256:%s |" % (R.randint(100, 999), rs(7, HEX), rs(64, HEX)))


@look("diff", "diff moving a secret to env")
def _():
    return ("@@ -8,3 +8,3 @@\n-  password: ${DB_PASS}\n+  password: ${DATABASE_PASSWORD}\n   pool: %d" % R.randint(2, 20))


@look("code review", "review without a secret")
def _():
    return pick("nit: rename `apiKey` to `apiKeyHash`, we only store sha256 of it",
                "please don't log `password` here, use `redact(password)` instead",
                "the test uses `password = \"\"` on purpose to check the empty case",
                "why is the token length 32 here and 40 in the migration?")


@look("hash", "password hashes")
def _():
    return pick("admin:$6$%s$%s:19700:0:99999:7:::" % (rs(16, ALNUM + "./"), rs(86, ALNUM + "./")),
                "$argon2id$v=19$m=65536,t=3,p=4$%s$%s" % (rs(22, B64.replace("+", "")), rs(43, B64.replace("+", ""))),
                "md5(%s) = %s" % (R.choice(WORDS), rs(32, HEX)))


@look("otp", "otp talk without secret")
def _():
    return pick("enter the 6-digit code from your authenticator (it rotates every 30 s)",
                "otpauth://totp/Shop:user?secret=<BASE32_SECRET>&issuer=Shop",
                "your verification code is %s, valid 10 minutes" % rs(6, DIGITS),
                "recovery codes were regenerated; store them in the password manager")


@look("minified js", "bundle without secrets")
def _():
    return '!function(e){var t={};function n(r){if(t[r])return t[r].exports}n.p="/static/",n(n.s="%s")}({"%s":function(e,t){e.exports="%s"}});' % (rs(4, HEX), rs(4, HEX), rs(20, HEX))


@look("escaped json", "nested json without secrets")
def _():
    return '{"event":"order.paid","data":"{\\"order\\":\\"%s\\",\\"amount\\":%d,\\"currency\\":\\"USDC\\"}"}' % (uuid(), R.randint(1, 9000))


@look("url-encoded", "query strings")
def _():
    return "GET /search?q=%s%%20%s&page=%d&sig=%s HTTP/1.1" % (R.choice(WORDS), R.choice(WORDS), R.randint(1, 9), "none")


@look("crash report", "stack trace without secrets")
def _():
    return ("Exception in thread \"main\" java.lang.NullPointerException\n\tat com.acme.Orders.total(Orders.java:%d)\n"
            "build=%s commit=%s" % (R.randint(10, 500), rs(8, DIGITS), rs(40, HEX)))


@look("windows", "registry and powershell without secrets")
def _():
    return pick('[HKEY_CURRENT_USER\\Software\\Acme\\Shop]\n"InstallId"="%s"\n"LastUser"="kiosk"' % uuid(),
                "$cred = Get-Credential -UserName 'CORP\\svc' -Message 'enter password'",
                "Get-FileHash .\\setup.exe -Algorithm SHA256\n\nSHA256 %s" % rs(64, HEX.upper()))


@look("connection strings", "no password")
def _():
    return pick("jdbc:postgresql://%s:5432/ledger?sslmode=require" % R.choice(HOSTS),
                "mongodb+srv://cluster0.%s.mongodb.net/?authMechanism=MONGODB-AWS" % rs(5, LOWER + DIGITS),
                "amqp://%s:5672/" % R.choice(HOSTS),
                "ldapsearch -x -H ldap://%s -b \"dc=corp,dc=example\" \"(uid=jdoe)\"" % R.choice(HOSTS),
                "Server=tcp:%s,1433;Database=crm;Authentication=Active Directory Default;" % R.choice(HOSTS))


# ---------------------------------------------------------------- output

def escape(t):
    # A line starting with "#" is a comment to the harness.
    assert not t.startswith("#"), t
    assert "\\n" not in t and "\\t" not in t and "\\u" not in t and "\\U" not in t, t
    return t.replace("\n", "\\n").replace("\t", "\\t")


def build(templates, target, path, header):
    out = []
    seen = set()
    per = target // sum(t[3] for t in templates) + 1
    for kind, ctx, fn, weight in templates:
        made = 0
        tries = 0
        while made < per * weight and tries < per * weight * 20:
            tries += 1
            t = frame(fn())
            if t in seen:
                continue
            if "\\n" in t or "\\t" in t or "\\u" in t or "\\U" in t:
                continue
            seen.add(t)
            out.append("# %s | %s\n%s\n" % (kind, ctx, escape(t)))
            made += 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(header)
        f.writelines(out)
    return len(out)


HEAD = ("# Eleventh held-out credential corpus, written by heldout11_gen.py (do not edit by hand).\n"
        "# Written before the author read the credential rules; see README.md.\n")

if __name__ == "__main__":
    n1 = build(SECRETS, 560, os.path.join(HERE, "heldout11_secret.txt"), HEAD + "# Texts with credentials; «...» marks each value to remove.\n")
    n2 = build(LOOKS, 540, os.path.join(HERE, "heldout11_lookalike.txt"), HEAD + "# Look-alikes: nothing here may be found.\n")
    print("secrets", n1, "look-alikes", n2)
