#!/usr/bin/env python3
"""Writes heldout5_secret.txt and heldout5_lookalike.txt: a fifth held-out credential corpus.

Texts between a buyer and a seller on a stablecoin-paid exchange. Every value is random and fake,
in the real format of its kind (BIP-39 and base58check checksums are valid); made-up hosts use
reserved domains and addresses. Rerunning writes identical files.
"""
import hashlib
import os
import random
import string

R = random.Random(20261201)
HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = open(os.path.join(HERE, "..", "..", "bip39_english.txt")).read().split()
assert len(WORDS) == 2048

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def rs(alphabet, n):
    return "".join(R.choice(alphabet) for _ in range(n))


def hexs(n):
    return rs(HEX, n)


def b58encode(b):
    n = int.from_bytes(b, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    pad = len(b) - len(b.lstrip(b"\0"))
    return "1" * pad + out


def b58check(payload):
    ck = hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    return b58encode(payload + ck)


def mnemonic(n=None):
    n = n or R.choice([12, 12, 15, 18, 24])
    ent = R.getrandbits(n * 32 // 3).to_bytes(n * 4 // 3, "big")
    cs = hashlib.sha256(ent).digest()
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(len(ent) * 8)
    bits += bin(cs[0])[2:].zfill(8)[: len(ent) * 8 // 32]
    return [WORDS[int(bits[i : i + 11], 2)] for i in range(0, len(bits), 11)]


def evm_key(prefix=None):
    k = hexs(64)
    if prefix is None:
        prefix = R.random() < 0.6
    return ("0x" + k) if prefix else k


def wif():
    return b58check(b"\x80" + R.getrandbits(256).to_bytes(32, "big") + b"\x01")


def sol_secret():
    return b58encode(R.getrandbits(512).to_bytes(64, "big"))


def password():
    stems = ["Kaktus", "sommer", "Zebra", "otono", "Lapin", "neve", "Moskva", "tiger", "Yildiz", "Drak", "Kwiat", "Ocelot"]
    return R.choice(stems) + R.choice(["!", "#", "_", ".", "$", "-", "@"]) + str(R.randint(10, 9999)) + rs(ALNUM, R.randint(3, 6)) + R.choice(["%", "&", "?", "*", "+", "="])


def host():
    return R.choice(["db", "pg", "api", "node", "mail", "cache", "vault", "build"]) + str(R.randint(1, 9)) + "." + R.choice(["example.com", "example.net", "example.org", "corp.example", "shop.test", "internal.example"])


def ip():
    return R.choice(["192.0.2.", "198.51.100.", "203.0.113."]) + str(R.randint(2, 250))


def b64(n):
    return rs(ALNUM + "+/", n)


def b64url(n):
    return rs(ALNUM + "-_", n)


def jwt():
    return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJ" + b64url(R.randint(60, 110)) + "." + b64url(43)


def m(v):
    return "\u00ab" + v + "\u00bb"


def pem(kind):
    body = "\n".join(b64(64) for _ in range(R.randint(5, 9))) + "\n" + b64(R.randint(20, 60)) + "="
    return "-----BEGIN %s-----\n%s\n-----END %s-----" % (kind, m(body), kind)


def who():
    return R.choice(["buyer", "seller", "client", "dev", "freelancer", "ops"])


def amount():
    return "%d.%02d %s" % (R.randint(40, 9000), R.randint(0, 99), R.choice(["USDC", "USDT", "DAI", "PYUSD"]))


# ---------- wallet material ----------

def s_evm_code():
    k = m(evm_key(True))
    k2 = m(evm_key(False))
    return R.choice([
        "const wallet = new ethers.Wallet(\"%s\", provider);\nconst tx = await wallet.sendTransaction({to, value});" % k,
        "from eth_account import Account\nacct = Account.from_key('%s')\nprint(acct.address)" % k,
        "key, err := crypto.HexToECDSA(\"%s\")\nif err != nil {\n\tlog.Fatal(err)\n}" % k2,
        "let signer: LocalWallet = \"%s\".parse()?;\nlet client = SignerMiddleware::new(provider, signer);" % k2,
        "module.exports = {\n  networks: { sepolia: { url: RPC, accounts: [\"%s\"] } }\n};" % k,
        "$ cast send 0xTOKEN \"transfer(address,uint256)\" $TO 1000000 --private-key %s --rpc-url $RPC" % k,
        "PRIVATE_KEY=%s\nRPC_URL=https://rpc.example.net\nCHAIN_ID=137" % k,
        "deployer_pk = \"%s\"  # temp, rotate after demo" % k,
        "val credentials = Credentials.create(\"%s\")\nval web3 = Web3j.build(HttpService(rpc))" % k2,
        "$wallet = new Wallet('%s'); // php signer for the payout cron" % k2,
        "signer:\n  type: local\n  key: \"%s\"\n  chain: base" % k,
        "export ETH_PK=%s && forge script script/Deploy.s.sol --broadcast" % k2,
        "var account = new Nethereum.Web3.Accounts.Account(\"%s\");" % k,
        "INSERT INTO hot_wallets (label, privkey) VALUES ('payout', '%s');" % k2,
    ])


def s_evm_prose():
    k = m(evm_key())
    return R.choice([
        "hey, here's the deployer wallet priv key so you can test the payout flow: %s - pls move the funds after" % k,
        "Hier der private Schlüssel der Test-Wallet: %s (bitte nach dem Test nicht mehr benutzen)" % k,
        "Voici la clé privée du portefeuille de dépôt : %s, ne la partage pas stp" % k,
        "Esta es la clave privada de la billetera de pagos: %s. Ojo, tiene %s." % (k, amount()),
        "Chave privada da carteira: %s — usa só na testnet por favor" % k,
        "Приватный ключ кошелька: %s, после проверки переведи всё на новый адрес" % k,
        "钱包私钥是 %s ，测试完请转走余额" % k,
        "ウォレットの秘密鍵です：%s 確認したら削除してください" % k,
        "Cüzdanın özel anahtarı: %s — teslimattan sonra değiştireceğim" % k,
        "Klucz prywatny portfela: %s, wyślij mi potwierdzenie jak zadziała" % k,
        "Chiave privata del wallet: %s. L'ho generata ieri, puoi usarla per i test" % k,
        "kunci privat dompetnya %s ya kak, jangan dishare" % k,
        "privkey for the escrow test acct -> %s\nsent %s to it already" % (k, amount()),
        "Ticket #%d: seller pasted their hot wallet pk in the delivery notes (%s). Escalating." % (R.randint(1000, 9999), k),
        "private key (tron, same hex format): %s" % m(evm_key(False)),
    ])


def mn_layout(ws):
    n = len(ws)
    lay = R.randrange(8)
    if lay == 0:
        return m(" ".join(ws))
    if lay == 1:
        return "\n".join("%d. %s" % (i + 1, m(w)) for i, w in enumerate(ws))
    if lay == 2:
        return m(", ".join(ws))
    if lay == 3:
        return "[" + ", ".join('"%s"' % m(w) for w in ws) + "]"
    if lay == 4:
        rows = []
        for i in range(0, n, 4):
            rows.append(" | ".join("%2d %s" % (j + 1, m(ws[j])) for j in range(i, min(i + 4, n))))
        return "\n".join(rows)
    if lay == 5:
        return "\n".join(m(w) for w in ws)
    if lay == 6:
        return m(" ".join(ws).upper())
    return " ".join("%d)%s" % (i + 1, m(w)) for i, w in enumerate(ws))


def s_mnemonic():
    p = mn_layout(mnemonic())
    return R.choice([
        "seed phrase for the test wallet:\n%s",
        "Here is the recovery phrase you asked for, keep it safe:\n%s",
        "Mnemonic (BIP39):\n%s\nderivation m/44'/60'/0'/0/0",
        "MNEMONIC=\"%s\"",
        "Frase semilla de la cartera:\n%s",
        "Phrase de récupération :\n%s",
        "Wiederherstellungsphrase:\n%s\nBitte sofort ändern nach Übergabe.",
        "сид-фраза от кошелька:\n%s",
        "助记词如下：\n%s",
        "const mnemonic = `%s`;\nconst w = ethers.Wallet.fromPhrase(mnemonic);",
        "frase de recuperação (12/24 palavras):\n%s",
        "yedek kelimeler:\n%s",
        "hdwallet:\n  mnemonic: %s\n  accounts: 5",
        "Subject: wallet handover\n\nHi, as agreed the seed is below.\n\n%s\n\nRegards",
    ]) % p


def s_keystore():
    pw = m(password())
    return R.choice([
        "keystore file is attached (UTC--2026-11-02...json), the password is %s" % pw,
        "geth account unlock: --password pass.txt, and pass.txt contains %s" % pw,
        "KEYSTORE_PATH=./keys/deployer.json\nKEYSTORE_PASSWORD=%s" % pw,
        "Contraseña del keystore: %s" % pw,
        "Das Keystore-Passwort lautet %s" % pw,
        "clef unlock pw -> %s (same as the metamask vault one)" % pw,
        "MetaMask password on the test laptop: %s" % pw,
    ])


def s_exchange():
    k, s = m(rs(ALNUM, 64)), m(rs(ALNUM, 64))
    return R.choice([
        "BINANCE_API_KEY=%s\nBINANCE_API_SECRET=%s" % (k, s),
        "exchange:\n  name: binance\n  apiKey: %s\n  secret: %s\n  sandbox: false" % (k, s),
        "ccxt.kraken({'apiKey': '%s', 'secret': '%s'})" % (m(b64(56)), m(b64(86) + "==")),
        "api key: %s\napi secret: %s\npassphrase: %s  (okx sub-account, trade only)" % (m(hexs(8) + "-" + hexs(4) + "-" + hexs(4) + "-" + hexs(4) + "-" + hexs(12)), m(hexs(32).upper()), m(password())),
        "[bybit]\nkey = %s\nsecret = %s" % (m(rs(ALNUM, 18)), m(rs(ALNUM, 36))),
        "Clave API: %s / secreto: %s — solo permisos de lectura" % (k, s),
        "coinbase advanced: key name organizations/%s/apiKeys/%s, private key below\n%s" % (hexs(8), hexs(8), pem("EC PRIVATE KEY")),
    ])


def s_rpc():
    return R.choice([
        "RPC_URL=https://mainnet.infura.io/v3/%s" % m(hexs(32)),
        "provider = new JsonRpcProvider(\"https://eth-mainnet.g.alchemy.com/v2/%s\")" % m(rs(ALNUM + "_-", 32)),
        "rpc: https://%s-%s.quiknode.pro/%s/" % (R.choice(["silent", "proud", "wild"]), R.choice(["fog", "lake", "owl"]), m(hexs(40))),
        "polygon rpc https://polygon-mainnet.infura.io/v3/%s (my paid plan, dont hammer it)" % m(hexs(32)),
        "wss://base-mainnet.g.alchemy.com/v2/%s" % m(rs(ALNUM + "_-", 32)),
        "ALCHEMY_API_KEY=%s\nETHERSCAN_API_KEY=%s" % (m(rs(ALNUM + "_-", 32)), m(rs(string.ascii_uppercase + string.digits, 34))),
        "curl -s https://solana-mainnet.g.alchemy.com/v2/%s -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"getSlot\"}'" % m(rs(ALNUM + "_-", 32)),
    ])


def s_otherchain():
    return R.choice([
        "bitcoin hot wallet WIF: %s (compressed)" % m(wif()),
        "bitcoin-cli importprivkey %s \"payout\" false" % m(wif()),
        "solana keypair secret (base58): %s" % m(sol_secret()),
        "SOLANA_PRIVATE_KEY=%s" % m(sol_secret()),
        "id.json for the devnet deployer:\n[%s]" % m(",".join(str(R.randrange(256)) for _ in range(64))),
        "Clé WIF du portefeuille BTC : %s" % m(wif()),
    ])


# ---------- other credentials ----------

def s_cloud():
    return R.choice([
        "[default]\naws_access_key_id = AKIA%s\naws_secret_access_key = %s\nregion = eu-west-1" % (rs("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), m(b64(40))),
        "AWS_SECRET_ACCESS_KEY=%s" % m(b64(40)),
        "az login --service-principal -u %s -p %s --tenant corp.example" % (hexs(8), m(rs(ALNUM + "~._-", 40))),
        "DO_TOKEN=dop_v1_%s" % m(hexs(64)),
        "\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n%s\\n-----END PRIVATE KEY-----\\n\"" % m(b64(64) + "\\n" + b64(64) + "\\n" + b64(40)),
        "CLOUDFLARE_API_TOKEN=%s" % m(b64url(40)),
        "hcloud context create prod  # token: %s" % m(rs(ALNUM, 64)),
    ])


def s_forge():
    return R.choice([
        "git remote set-url origin https://x-access-token:%s@github.com/acme-shop/payouts.git" % m("ghp_" + rs(ALNUM, 36)),
        "GITHUB_TOKEN=%s" % m("github_pat_" + rs(ALNUM, 22) + "_" + rs(ALNUM, 59)),
        "gitlab token for CI: %s" % m("glpat-" + rs(ALNUM + "-_", 20)),
        "//registry.npmjs.org/:_authToken=%s" % m("npm_" + rs(ALNUM, 36)),
        "[pypi]\nusername = __token__\npassword = %s" % m("pypi-AgEIcHlwaS5vcmc" + b64url(R.randint(60, 120))),
        "echo %s | docker login -u shopdev --password-stdin" % m("dckr_pat_" + rs(ALNUM + "-_", 27)),
        "HF_TOKEN=%s" % m("hf_" + rs(string.ascii_letters, 34)),
    ])


def s_chat():
    return R.choice([
        "SLACK_BOT_TOKEN=%s" % m("xoxb-%d-%d-%s" % (R.randint(10**11, 10**12), R.randint(10**12, 10**13), rs(ALNUM, 24))),
        "webhook: https://hooks.slack.com/services/T%s/B%s/%s" % (rs("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 8), rs("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 10), m(rs(ALNUM, 24))),
        "discord alerts -> https://discord.com/api/webhooks/%d/%s" % (R.randint(10**17, 10**18), m(b64url(68))),
        "TELEGRAM_BOT_TOKEN=%s" % m("%d:AA%s" % (R.randint(10**9, 10**10), b64url(33))),
        "bot = telebot.TeleBot('%s')" % m("%d:AA%s" % (R.randint(10**9, 10**10), b64url(33))),
    ])


def s_payment():
    return R.choice([
        "STRIPE_SECRET_KEY=%s" % m("sk_live_" + rs(ALNUM, 99)),
        "stripe.api_key = \"%s\"" % m("rk_live_" + rs(ALNUM, 99)),
        "STRIPE_WEBHOOK_SECRET=%s" % m("whsec_" + rs(ALNUM, 32)),
        "Twilio: account %s, auth token %s" % ("AC" + hexs(32), m(hexs(32))),
        "SENDGRID_API_KEY=%s" % m("SG." + b64url(22) + "." + b64url(43)),
        "paypal client_secret: %s" % m(b64url(80)),
        "Mollie live key %s" % m("live_" + rs(ALNUM, 30)),
    ])


def s_ai():
    return R.choice([
        "OPENAI_API_KEY=%s" % m("sk-proj-" + b64url(156)),
        "client = Anthropic(api_key=\"%s\")" % m("sk-ant-api03-" + b64url(93) + "AA"),
        "export GROQ_API_KEY=%s" % m("gsk_" + rs(ALNUM, 52)),
        "openai.api_key = '%s'  # TODO move to env" % m("sk-" + rs(ALNUM, 48)),
        "REPLICATE_API_TOKEN=%s" % m("r8_" + rs(ALNUM, 37)),
    ])


def s_db():
    u = R.choice(["app", "shop", "postgres", "admin", "payout_rw", "reporting"])
    p = m(password())
    h = host()
    return R.choice([
        "DATABASE_URL=postgres://%s:%s@%s:5432/orders?sslmode=require" % (u, p, h),
        "mongodb+srv://%s:%s@cluster0.%s/?retryWrites=true" % (u, p, "example.net"),
        "redis://default:%s@%s:6379/0" % (p, h),
        "Server=%s;Database=Shop;User Id=%s;Password=%s;TrustServerCertificate=True" % (ip(), u, p),
        "dsn := \"%s:%s@tcp(%s:3306)/shop?parseTime=true\"" % (u, p, h),
        "$ psql \"host=%s user=%s password=%s dbname=ledger\"" % (h, u, p),
        "[client]\nuser=%s\npassword=%s\nhost=%s" % (u, p, ip()),
        "spring.datasource.url=jdbc:postgresql://%s/shop\nspring.datasource.username=%s\nspring.datasource.password=%s" % (h, u, p),
        "amqp://%s:%s@%s:5672/vhost" % (u, p, h),
        "<connectionStrings><add name=\"Main\" connectionString=\"Data Source=%s;User ID=%s;Password=%s\" /></connectionStrings>" % (ip(), u, p),
    ])


def s_pem():
    return R.choice([
        "deploy key for the box:\n%s" % pem("OPENSSH PRIVATE KEY"),
        pem("RSA PRIVATE KEY"),
        "tls.key: |\n" + pem("PRIVATE KEY"),
        "here's the signing key the validator uses\n%s" % pem("EC PRIVATE KEY"),
    ])


def s_token():
    return R.choice([
        "curl -H \"Authorization: Bearer %s\" https://api.example.com/v1/orders" % m(jwt()),
        "Cookie: session=%s; theme=dark" % m(b64url(48)),
        "Set-Cookie: sid=%s; HttpOnly; Secure" % m(rs(ALNUM, 40)),
        "Authorization: Basic %s" % m(b64(R.choice([24, 28, 32])) + "="),
        "requests.get(url, headers={'Authorization': 'Token %s'})" % m(hexs(40)),
        "access_token=%s&token_type=bearer" % m(b64url(64)),
        "X-Api-Key: %s" % m(rs(ALNUM, 40)),
    ])


def s_oauth():
    return R.choice([
        "GOOGLE_CLIENT_SECRET=%s" % m("GOCSPX-" + b64url(28)),
        "oauth:\n  client_id: shop-web\n  client_secret: %s" % m(b64url(40)),
        "refresh_token: %s" % m("1//0" + b64url(100)),
        "AUTH0_CLIENT_SECRET=%s" % m(b64url(64)),
    ])


def s_basic():
    p = m(password())
    return R.choice([
        "https://admin:%s@%s/grafana/" % (p, host()),
        "curl -u deploy:%s https://%s/api/release" % (p, host()),
        "ftp://upload:%s@%s/incoming/" % (p, ip()),
        "git clone https://buildbot:%s@%s/shop.git" % (p, host()),
    ])


PROSE = [
    "my password for the admin panel is %s",
    "login: admin / pw: %s",
    "Das Passwort für den Server ist %s",
    "El contraseña del panel es %s, cámbiala luego",
    "Le mot de passe du compte est %s",
    "A senha do painel é %s",
    "La password del gestionale è %s",
    "Пароль от админки: %s",
    "管理后台密码是：%s",
    "管理画面のパスワードは %s です",
    "관리자 비밀번호는 %s 입니다",
    "Şifre: %s (geçici)",
    "Hasło do panelu: %s",
    "Het wachtwoord is %s",
    "Lösenordet till servern är %s",
    "Kata sandinya %s ya",
    "Mật khẩu quản trị: %s",
    "كلمة المرور هي %s",
    "पासवर्ड है %s",
    "ssh root@%s, pass %s" % ("203.0.113.9", "%s"),
    "wp-admin user shopowner pw %s (pls dont change it yet)",
    "pasword for the vpn is %s, username same as email",
]


def s_prose():
    return R.choice(PROSE) % m(password())


def s_smtp():
    p = m(password())
    return R.choice([
        "SMTP_HOST=smtp.example.com\nSMTP_USER=noreply@example.com\nSMTP_PASS=%s" % p,
        "spring.mail.password=%s" % p,
        "mail:\n  host: mail.example.org\n  port: 587\n  username: alerts\n  password: %s" % p,
        "MAILGUN_API_KEY=%s" % m("key-" + hexs(32)),
        "app password for gmail smtp: %s" % m(" ".join(rs(string.ascii_lowercase, 4) for _ in range(4))),
    ])


def s_totp():
    seed = rs("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 32)
    return R.choice([
        "otpauth://totp/Shop:admin?secret=%s&issuer=Shop" % m(seed),
        "2FA backup seed for the exchange account: %s" % m(seed),
        "TOTP secret (base32): %s" % m(" ".join(seed[i:i + 4] for i in range(0, 32, 4))),
    ])


def s_misc():
    return R.choice([
        "JWT_SECRET=%s" % m(b64url(48)),
        "SECRET_KEY_BASE=%s" % m(hexs(128)),
        "vault token: %s" % m("hvs." + b64url(90)),
        "DJANGO_SECRET_KEY='%s'" % m(rs(ALNUM + "!@%^&*(-_=+)", 50)),
        "NEXTAUTH_SECRET=%s" % m(b64(44)),
    ])


WALLET = [s_evm_code, s_evm_code, s_evm_prose, s_evm_prose, s_mnemonic, s_mnemonic, s_keystore, s_exchange, s_rpc, s_otherchain]
OTHER = [s_cloud, s_forge, s_chat, s_payment, s_ai, s_db, s_db, s_pem, s_token, s_oauth, s_basic, s_prose, s_prose, s_smtp, s_totp, s_misc]

WRAP = [
    "%s",
    "%s",
    "Hi! delivery for order %d is done.\n%s\nthanks" ,
    "re: milestone 2 (%d)\n\n%s",
    "[%d] seller: %s",
    "```\n%s\n```\nlmk if it works (job %d)",
    "Fix for ticket %d — updated config:\n%s",
    "%s\n\n-- sent from the order chat, order %d",
]


def wrap(t):
    w = R.choice(WRAP)
    n = R.randint(1000, 99999)
    if w == "%s":
        return t
    if w.index("%d") < w.index("%s"):
        return w % (n, t)
    return w % (t, n)


# ---------- look-alikes ----------

def l_placeholder():
    return R.choice([
        "PRIVATE_KEY=<your private key here>\nRPC_URL=https://rpc.example.net",
        "PRIVATE_KEY=0xYOUR_PRIVATE_KEY\nCHAIN_ID=8453",
        "STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
        "DATABASE_URL=postgres://user:password@localhost:5432/app",
        "OPENAI_API_KEY=your-api-key-here",
        "aws_secret_access_key = REPLACE_ME",
        "mnemonic: \"<twelve words go here>\"",
        "api_key: ${EXCHANGE_API_KEY}\nsecret: ${EXCHANGE_API_SECRET}",
        "GITHUB_TOKEN=changeme",
        "password: ********",
        "SMTP_PASS=\nSMTP_USER=\nSMTP_HOST=smtp.example.com",
        "Authorization: Bearer <token>",
        "redis://localhost:6379/0",
        "JWT_SECRET=  # set in production",
        "KEYSTORE_PASSWORD=... (ask me on a call)",
    ])


def l_env():
    return R.choice([
        "const wallet = new ethers.Wallet(process.env.PRIVATE_KEY, provider);",
        "acct = Account.from_key(os.environ[\"DEPLOYER_KEY\"])",
        "key, err := crypto.HexToECDSA(os.Getenv(\"SIGNER_KEY\"))",
        "uint256 pk = vm.envUint(\"PRIVATE_KEY\");\nvm.startBroadcast(pk);",
        "secret = client.secrets.kv.read_secret_version(path='payout/hot')['data']['data']['key']",
        "password: {{ vault_db_password }}",
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password",
        "export STRIPE_SECRET_KEY=$(op read op://shop/stripe/secret)",
        "let mnemonic = std::env::var(\"MNEMONIC\").expect(\"MNEMONIC not set\");",
        "api_key = config.get(\"binance\", \"api_key\")\nsecret = keyring.get_password(\"binance\", \"secret\")",
        "aws ssm get-parameter --name /shop/db/password --with-decryption --query Parameter.Value",
        "FROM node:20-alpine\nWORKDIR /app\nCOPY . .\nRUN npm ci\nCMD [\"node\", \"server.js\"]",
        "${{ secrets.DEPLOY_KEY }} is injected by the workflow, never echo it",
        "*/5 * * * * /usr/local/bin/payout --config /etc/payout.toml >> /var/log/payout.log 2>&1",
    ])


def l_prose():
    return R.choice([
        "I will never ask for your seed phrase. Please don't send private keys in the chat.",
        "The password is stored in the team vault; ask the buyer to grant you access.",
        "Keep your recovery phrase offline, written on paper, in two places.",
        "Pls send the API key via the secure share link, not here.",
        "Das Passwort schicke ich dir separat per Signal.",
        "La contraseña te la paso por llamada, no por aquí.",
        "Le mot de passe a été changé hier, je te l'envoie autrement.",
        "Пароль пришлю отдельно, не в этом чате.",
        "密码我会单独发给你，不在这里发。",
        "パスワードは別途お送りします。",
        "Şifreyi ayrıca telefonla söyleyeceğim.",
        "Hasło wyślę osobno przez menedżera haseł.",
        "A senha vai por outro canal, combinado?",
        "I rotated the Stripe key after the demo, the old one no longer works.",
        "The exchange API key only has read permission; withdrawals are disabled.",
        "Your keystore password must be at least 12 characters long.",
        "Reminder: the private key never leaves the hardware wallet, signing happens on the device.",
        "We used the password reset flow, it sends a 6 digit code that expires in 10 minutes.",
        "Can you add 2FA to the admin page? TOTP via any authenticator app is fine.",
        "Milestone 3: move all secrets from .env into the cloud secret manager.",
    ])


def l_words():
    return R.choice([
        "The abandon cart email should go out after one hour, not one day.",
        "Great work on the ability to filter orders by date, the buyer is happy.",
        "Please add a toggle for dark mode and make the logo a bit smaller on mobile.",
        "We need a simple table with the total, the fee and the net amount for each month.",
        "The ocean theme looks good but the button color is too light to read.",
        "Can you zoom the chart to the last week and add a legend under it?",
        "Our coffee shop wants a loyalty card: ten stamps, one free drink.",
        "The word list for the quiz game: apple, banana, cherry — players pick one each round.",
        "I found a typo in the about page: 'recieve' should be 'receive'.",
        "Brief: a landing page for a bike repair shop with an hours table and a map.",
    ])


def l_data():
    n = R.randint(3, 6)
    rows = "\n".join("%d,2026-%02d-%02d,%s,%s" % (R.randint(1000, 9999), R.randint(1, 12), R.randint(1, 28), amount(), R.choice(["paid", "pending", "refunded"])) for _ in range(n))
    return R.choice([
        "order_id,date,amount,status\n" + rows,
        "SELECT id, email_verified, password_changed_at FROM users WHERE last_login < now() - interval '90 days';",
        "ALTER TABLE users ADD COLUMN password_hash TEXT NOT NULL DEFAULT '';",
        "Traceback (most recent call last):\n  File \"payout.py\", line %d, in send\n    raise AuthError(\"invalid api key\")\nAuthError: invalid api key" % R.randint(10, 300),
        "2026-11-%02d 14:%02d:%02d WARN auth: login failed for user=shopowner reason=bad_password attempts=%d" % (R.randint(1, 28), R.randint(0, 59), R.randint(0, 59), R.randint(1, 5)),
        "[server]\nport = %d\nworkers = %d\ntimeout = \"30s\"\n\n[payout]\ntoken = \"USDC\"\nmin_amount = %d" % (R.randint(3000, 9000), R.randint(2, 16), R.randint(5, 100)),
        "resource \"aws_db_instance\" \"main\" {\n  engine = \"postgres\"\n  instance_class = \"db.t3.micro\"\n  manage_master_user_password = true\n}",
        "<settings><timeout>%d</timeout><retries>%d</retries><currency>USDC</currency></settings>" % (R.randint(5, 60), R.randint(1, 5)),
        "invoice %d: %s, due 2026-12-%02d, net 14" % (R.randint(100, 999), amount(), R.randint(1, 28)),
        "v%d.%d.%d released: fixes the rounding bug in the fee calculation (%d files changed)" % (R.randint(0, 3), R.randint(0, 20), R.randint(0, 9), R.randint(2, 40)),
        "gas limit %d, max fee %d gwei, chain id %d" % (R.randint(21000, 900000), R.randint(1, 80), R.choice([1, 10, 137, 8453, 42161])),
        "$ ssh -i ~/.ssh/id_ed25519 deploy@%s\nLast login: Mon Nov %d 09:12:44 2026" % (ip(), R.randint(1, 28)),
        "function validatePassword(pw) {\n  return pw.length >= 12 && /[0-9]/.test(pw);\n}",
        "password_min_length: 12\npassword_require_symbol: true\nsession_ttl: 3600",
        "Meeting moved to %02d:%02d UTC, call link in the order page." % (R.randint(8, 20), R.choice([0, 15, 30, 45])),
    ])


LOOK = [l_placeholder, l_env, l_env, l_prose, l_prose, l_words, l_data, l_data, l_data]


def esc(t):
    return t.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def write(name, header, lines):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        f.write(header)
        for ln in lines:
            assert not ln.startswith("#"), ln
            f.write(ln + "\n")


def main():
    secrets, seen = [], set()
    while len(secrets) < 300:
        pool = WALLET if R.random() < 0.45 else OTHER
        t = esc(wrap(R.choice(pool)()))
        if t not in seen:
            seen.add(t)
            secrets.append(t)
    looks, seen = [], set()
    while len(looks) < 270:
        t = esc(wrap(R.choice(LOOK)()))
        assert "\u00ab" not in t
        if t not in seen:
            seen.add(t)
            looks.append(t)
    write("heldout5_secret.txt",
          "# Fifth held-out credential corpus: texts holding credentials; \u00ab...\u00bb marks each value to remove.\n"
          "# Generated by heldout5_gen.py (seeded); do not edit by hand.\n", secrets)
    write("heldout5_lookalike.txt",
          "# Fifth held-out credential corpus: look-alikes in which nothing may be found.\n"
          "# Generated by heldout5_gen.py (seeded); do not edit by hand.\n", looks)


if __name__ == "__main__":
    main()
