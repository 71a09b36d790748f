#!/usr/bin/env python3
"""Writes heldout8_secret.txt and heldout8_lookalike.txt (eighth held-out credential set).

Stdlib only and seeded: running it again rewrites identical files. Every value is random and
fake, in the real format of its kind. «...» marks each value that must be removed.
"""
import base64
import hashlib
import json
import os
import random
import urllib.parse

R = random.Random(20261201)
HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = open(os.path.join(HERE, "..", "..", "bip39_english.txt"), encoding="utf-8").read().split()
assert len(WORDS) == 2048

HEX = "0123456789abcdef"
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
LOWALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


DECKS = {}


def deal(name, items):
    """Items in shuffled rounds, so that every one is used before any repeats."""
    d = DECKS.setdefault(name, [])
    if not d:
        d.extend(items)
        R.shuffle(d)
    return d.pop()


def M(s):
    return "«" + s + "»"


def rs(alpha, n):
    return "".join(R.choice(alpha) for _ in range(n))


def hx(n):
    return rs(HEX, n)


def rbytes(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def b58encode(b):
    n = int.from_bytes(b, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    pad = len(b) - len(b.lstrip(b"\0"))
    return "1" * pad + out


def b58check(payload):
    chk = hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    return b58encode(payload + chk)


def wif(compressed=True, testnet=False):
    p = bytes([0xEF if testnet else 0x80]) + rbytes(32) + (b"\x01" if compressed else b"")
    return b58check(p)


def xkey(private=True, version=None):
    if version is None:
        version = 0x0488ADE4 if private else 0x0488B21E
    depth = R.choice([0, 3, 4])
    fp = b"\0\0\0\0" if depth == 0 else rbytes(4)
    child = b"\0\0\0\0" if depth == 0 else R.choice([b"\x80\0\0\0", b"\0\0\0\0", b"\0\0\0\x01"])
    cc = rbytes(32)
    key = b"\0" + rbytes(32) if private else bytes([R.choice([2, 3])]) + rbytes(32)
    return b58check(version.to_bytes(4, "big") + bytes([depth]) + fp + child + cc + key)


def solana_secret():
    return b58encode(rbytes(64))


def solana_pub():
    return b58encode(rbytes(32))


def mnemonic(n=None):
    n = n or R.choice([12, 12, 12, 15, 18, 21, 24, 24])
    ent_bits = n * 32 // 3
    ent = rbytes(ent_bits // 8)
    cs = n // 3
    h = hashlib.sha256(ent).digest()
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(ent_bits) + bin(h[0])[2:].zfill(8)[:cs]
    return [WORDS[int(bits[i * 11:(i + 1) * 11], 2)] for i in range(n)]


def mnemonic_valid(ws):
    try:
        idx = [WORDS.index(w) for w in ws]
    except ValueError:
        return False
    n = len(ws)
    if n % 3:
        return False
    bits = "".join(bin(i)[2:].zfill(11) for i in idx)
    cs = n // 3
    ent_bits = n * 11 - cs
    ent = int(bits[:ent_bits], 2).to_bytes(ent_bits // 8, "big")
    h = hashlib.sha256(ent).digest()
    return bin(h[0])[2:].zfill(8)[:cs] == bits[ent_bits:]


def bad_mnemonic(n=12):
    while True:
        ws = [R.choice(WORDS) for _ in range(n)]
        if not mnemonic_valid(ws):
            return ws


def evm_key(prefix=None):
    k = hx(64)
    if prefix is None:
        prefix = R.random() < 0.6
    return ("0x" + k) if prefix else k


def addr():
    return "0x" + hx(40)


def txh():
    return "0x" + hx(64)


def uuid():
    h = hx(32)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], R.choice("89ab"), h[17:20], h[20:32])


def b64(n):
    return base64.b64encode(rbytes(n)).decode()


def b64url(n):
    return base64.urlsafe_b64encode(rbytes(n)).decode().rstrip("=")


def jwt(payload=None):
    h = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    p = payload or {"sub": str(R.randint(1000, 99999)), "role": R.choice(["service_role", "admin", "seller"]),
                    "iat": 1790000000 + R.randint(0, 9999999)}
    pp = base64.urlsafe_b64encode(json.dumps(p, separators=(",", ":")).encode()).decode().rstrip("=")
    return h + "." + pp + "." + b64url(32)


def password():
    kind = R.random()
    if kind < 0.3:
        w = R.choice(["Sunflower", "tigre", "Krasnodar", "maracuja", "Bosphorus", "kiwi", "Lisboa", "Drachen",
                      "soleil", "Sakura", "Mombasa", "jaguar", "Hanoi", "Pyramid", "nebula", "Falcon", "Zorro"])
        return w + R.choice(["", "_", "!", ".", "#", "-", "@"]) + str(R.randint(10, 9999)) + R.choice(["", "!", "$", "?", "*"])
    if kind < 0.55:
        return rs(ALNUM + "!@#$%^&*-_+=?", R.randint(10, 20))
    if kind < 0.7:
        return "-".join(R.choice(WORDS[:1800]) for _ in range(R.randint(3, 4))) + str(R.randint(1, 99))
    if kind < 0.85:
        return rs(ALNUM, R.randint(12, 24))
    return R.choice(["Qw", "Zx", "Mn", "Pl", "Tr"]) + rs(LOWALNUM, 6) + R.choice(["!", "#", "%"]) + rs(UPALNUM, 3)


def user():
    return R.choice(["dmitri.k", "ana_lima", "seller42", "ops", "deploy", "root", "admin", "mehmet", "fatima.n",
                     "wanjiru", "nguyen.h", "budi", "akira", "jiwoo", "ravi", "zahra", "chen.li", "oksana"])


def host():
    return R.choice(["db.example.com", "api.example.net", "vps.example.org", "staging.example.com",
                     "192.0.2.14", "198.51.100.23", "203.0.113.77", "node1.example.net", "mail.example.org"])


def amt():
    return "%d %s" % (R.randint(20, 4800), R.choice(["USDT", "USDC", "DAI"]))


def oid():
    return R.choice(["ORD-", "#", "order ", "job "]) + str(R.randint(10000, 99999))


# ---------------------------------------------------------------- wallet material (secrets)

def w_evm_python():
    k = evm_key()
    return "evm-privkey", "python web3", R.choice([
        'from eth_account import Account\nacct = Account.from_key("%s")\nprint(acct.address)' % M(k),
        'w3 = Web3(Web3.HTTPProvider(RPC))\nsigner = w3.eth.account.from_key(\'%s\')\ntx = build_payout(signer)' % M(k),
        'PRIVATE_KEY = "%s"  # payout wallet, seller side\nACCOUNT = Account.from_key(PRIVATE_KEY)' % M(k),
        'signed = w3.eth.account.sign_transaction(tx, private_key="%s")' % M(k),
    ])


def w_evm_js():
    k = evm_key(True)
    return "evm-privkey", R.choice(["ethers.js", "viem", "web3.js"]), R.choice([
        'const wallet = new ethers.Wallet("%s", provider);' % M(k),
        "import { privateKeyToAccount } from 'viem/accounts'\nconst account = privateKeyToAccount('%s')" % M(k),
        'const acct = web3.eth.accounts.privateKeyToAccount("%s");\nweb3.eth.accounts.wallet.add(acct);' % M(k),
        "const signer = new Wallet(`%s`).connect(provider) // hot wallet for refunds" % M(k),
    ])


def w_evm_tools():
    k = evm_key(R.random() < 0.5)
    return "evm-privkey", R.choice(["foundry", "hardhat", "shell", "env"]), R.choice([
        "forge script script/Deploy.s.sol --rpc-url $RPC --private-key %s --broadcast" % M(k),
        "cast send 0x%s 'transfer(address,uint256)' %s 25000000 --private-key %s" % (hx(40), addr(), M(k)),
        "networks: {\n  sepolia: { url: process.env.SEPOLIA_RPC, accounts: ['%s'] }\n}" % M(k),
        "DEPLOYER_PRIVATE_KEY=%s\nRPC_URL=https://rpc.example.net" % M(k),
        "export PRIVATE_KEY=%s && npx hardhat run scripts/payout.ts --network polygon" % M(k),
        "[wallet]\nprivate_key = \"%s\"\nchain_id = 137" % M(k),
        "cast wallet address --private-key %s" % M(k),
    ])


def w_evm_other_lang():
    k = evm_key(False)
    return "evm-privkey", R.choice(["go", "rust", "java", "kotlin", "c#", "php"]), R.choice([
        'key, err := crypto.HexToECDSA("%s")\nif err != nil {\n\tlog.Fatal(err)\n}' % M(k),
        'let wallet: LocalWallet = "%s".parse::<LocalWallet>()?.with_chain_id(1u64);' % M(k),
        'Credentials credentials = Credentials.create("%s");' % M(k),
        'val creds = Credentials.create("%s") // escrow signer' % M(k),
        'var account = new Nethereum.Web3.Accounts.Account("%s", Chain.MainNet);' % M(k),
        '$privateKey = \'%s\';\n$tx->sign($privateKey);' % M(k),
    ])


def w_evm_prose():
    k = evm_key()
    return "evm-privkey", R.choice(["chat", "mail", "ticket", "chat es", "chat ru", "chat tr", "chat vi"]), R.choice([
        "ok here is the private key of the test wallet you funded: %s — please sweep it after delivery" % M(k),
        "Hola, la clave privada de la billetera es %s, ya tiene los %s" % (M(k), amt()),
        "Приватный ключ кошелька: %s (не публикуйте)" % M(k),
        "cüzdanın özel anahtarı -> %s ; işi bitirince bakiyeyi boşalt" % M(k),
        "khóa riêng tư của ví: %s" % M(k),
        "Exported from MetaMask (Account details > Show private key): %s" % M(k),
        "pk for the deployer (don't ask why it's in chat lol) %s" % M(k),
        "Screenshot shows the MetaMask export dialog; the key reads %s" % M(k),
        "As requested, the signer key is\n\n    %s\n\nThe address is %s." % (M(k), addr()),
        "私钥是 %s ，转完 %s 之后请换掉" % (M(k), amt()),
    ])


def w_evm_split():
    k = hx(64)
    a, b = k[:32], k[32:]
    return "evm-privkey", "chat split", R.choice([
        "key part 1: %s\nkey part 2: %s" % (M(a), M(b)),
        "private key (two lines because the form cut it)\n%s\n%s" % (M(a), M(b)),
    ])


def w_keystore():
    p = password()
    return "keystore-password", R.choice(["shell", "chat", "json", "python"]), R.choice([
        "geth account unlock --unlock 0x%s --password <(echo '%s')" % (hx(40), M(p)),
        "the UTC--2026 keystore file is attached, its password is %s" % M(p),
        'acct = Account.decrypt(json.load(open("keystore.json")), "%s")' % M(p),
        "const w = await ethers.Wallet.fromEncryptedJson(json, '%s')" % M(p),
        "keystore: ./keys/payout.json\nkeystore_password: %s" % M(p),
        "clef --keystore ./ks # passphrase when it asks: %s" % M(p),
        "Senha do keystore JSON: %s" % M(p),
    ])


def w_mnemonic():
    ws = mnemonic()
    n = len(ws)
    lay = R.randrange(12)
    if lay == 0:
        t = "seed phrase: " + M(" ".join(ws))
    elif lay == 1:
        t = "Recovery phrase (%d words):\n" % n + M("\n".join("%d. %s" % (i + 1, w) for i, w in enumerate(ws)))
    elif lay == 2:
        t = "MNEMONIC=\"%s\"" % M(" ".join(ws))
    elif lay == 3:
        t = "mnemonic: %s" % M(", ".join(ws))
    elif lay == 4:
        rows = []
        for i in range(0, n, 4):
            rows.append("  ".join("%2d %s" % (j + 1, ws[j]) for j in range(i, min(i + 4, n))))
        t = "backup card transcribed:\n" + M("\n".join(rows))
    elif lay == 5:
        t = "const wallet = ethers.Wallet.fromPhrase('%s')" % M(" ".join(ws))
    elif lay == 6:
        t = "Frase semilla de la cuenta: %s" % M(" ".join(ws))
    elif lay == 7:
        t = "Seed: %s" % M(" ".join(w.upper() for w in ws))
    elif lay == 8:
        t = "words are %s — in that order" % M("-".join(ws))
    elif lay == 9:
        t = "助记词：%s" % M(" ".join(ws))
    elif lay == 10:
        t = "phrase = [%s]" % M(", ".join('"%s"' % w for w in ws))
    else:
        t = "Kelime listesi (kurtarma): %s" % M(" ".join(ws))
    return "bip39-mnemonic-%d" % n, "layout-%d" % lay, t


def w_mnemonic_prose():
    ws = mnemonic(R.choice([12, 24]))
    return "bip39-mnemonic-%d" % len(ws), R.choice(["chat", "mail", "ticket"]), R.choice([
        "Here's the seed for the hot wallet so you can test the withdrawal flow: %s. Please confirm once imported." % M(" ".join(ws)),
        "Die Wiederherstellungsphrase lautet %s, bitte nach dem Test löschen." % M(" ".join(ws)),
        "La phrase de récupération : %s" % M(" ".join(ws)),
        "Seed do Ledger de teste -> %s" % M(" ".join(ws)),
        "hardhat.config: accounts: { mnemonic: \"%s\" }" % M(" ".join(ws)),
        "frasa pemulihan dompet: %s (jangan disebar)" % M(" ".join(ws)),
    ])


def w_wif():
    k = wif(R.random() < 0.7, R.random() < 0.2)
    return "btc-wif", R.choice(["cli", "chat", "python", "electrum"]), R.choice([
        "bitcoin-cli importprivkey \"%s\" \"escrow\" false" % M(k),
        "WIF for the change address: %s" % M(k),
        "key = PrivateKey.from_wif('%s')" % M(k),
        "Electrum → Import keys: p2wpkh:%s" % M(k),
        "dumpprivkey output:\n%s" % M(k),
    ])


def w_xprv():
    k = xkey(True)
    return "btc-xprv", R.choice(["config", "python", "chat"]), R.choice([
        "XPRV=%s" % M(k),
        "root = BIP32.from_xpriv(\"%s\")" % M(k),
        "account extended private key (m/84'/0'/0'): %s" % M(k),
        "wallet:\n  xprv: %s\n  gap_limit: 20" % M(k),
    ])


def w_solana():
    k = solana_secret()
    arr = list(rbytes(64))
    return "solana-secret", R.choice(["json", "ts", "chat", "rust"]), R.choice([
        "const kp = Keypair.fromSecretKey(bs58.decode('%s'))" % M(k),
        "Phantom export (private key): %s" % M(k),
        "SOLANA_PRIVATE_KEY=%s" % M(k),
        "~/.config/solana/id.json:\n%s" % M(json.dumps(arr, separators=(",", ":"))),
        "let kp = Keypair::from_base58_string(\"%s\");" % M(k),
    ])


def w_tron():
    k = hx(64)
    return "tron-privkey", R.choice(["js", "python"]), R.choice([
        "const tronWeb = new TronWeb({ fullHost: 'https://api.trongrid.io', privateKey: '%s' })" % M(k),
        "priv = PrivateKey(bytes.fromhex(\"%s\"))  # TRC20 USDT payouts" % M(k),
    ])


WALLET = [w_evm_python, w_evm_js, w_evm_tools, w_evm_other_lang, w_evm_prose, w_evm_split, w_keystore,
          w_mnemonic, w_mnemonic, w_mnemonic_prose, w_wif, w_xprv, w_solana, w_tron]

# ---------------------------------------------------------------- passwords

PW_LINES = [
    ("en", "chat", "login is {u} and the password is {p}"),
    ("en", "mail", "Hi,\n\nAdmin panel: https://{h}/admin\nUser: {u}\nPassword: {p}\n\nThanks"),
    ("en", "ticket", "Repro steps: log in as {u} / {p}, open Orders, click Refund."),
    ("en", "chat", "pwd {p}  (capital first letter)"),
    ("en", "chat", "pass: {p}"),
    ("en", "chat", "ssh {u}@{h}  — password {p}"),
    ("en", "chat", "creds → {u} : {p}"),
    ("en", "note", "WordPress admin ({u}) pw is {p}, change it after handover"),
    ("es", "chat", "usuario {u}, contraseña {p}"),
    ("es", "mail", "Te paso el acceso al cPanel: usuario: {u} clave: {p}"),
    ("pt", "chat", "a senha do painel é {p} (usuário {u})"),
    ("pt", "ticket", "Login: {u}\nSenha: {p}"),
    ("fr", "mail", "Identifiant : {u}\nMot de passe : {p}"),
    ("fr", "chat", "le mdp c'est {p}"),
    ("de", "chat", "Benutzer {u}, Passwort: {p}"),
    ("de", "mail", "Das Kennwort für den FTP-Zugang lautet {p}."),
    ("it", "chat", "utente {u} e password {p}"),
    ("it", "mail", "La parola d'ordine del router è {p}"),
    ("ru", "chat", "логин {u}, пароль {p}"),
    ("ru", "ticket", "Пароль от админки: {p}"),
    ("uk", "chat", "пароль до сервера: {p}"),
    ("uk", "mail", "Логін: {u}\nПароль: {p}"),
    ("pl", "chat", "hasło do panelu to {p}"),
    ("pl", "mail", "Login: {u}, hasło: {p}"),
    ("tr", "chat", "kullanıcı adı {u}, şifre {p}"),
    ("tr", "ticket", "Parola: {p}"),
    ("ar", "chat", "كلمة المرور: {p}"),
    ("ar", "mail", "اسم المستخدم {u} وكلمة السر {p}"),
    ("fa", "chat", "رمز عبور: {p}"),
    ("fa", "chat", "پسورد سرور {p} هست"),
    ("hi", "chat", "पासवर्ड है {p}"),
    ("hi", "mail", "यूज़र {u}, पासवर्ड: {p}"),
    ("ur", "chat", "پاس ورڈ: {p}"),
    ("id", "chat", "kata sandi: {p}"),
    ("id", "mail", "username {u} password {p}"),
    ("vi", "chat", "mật khẩu là {p}"),
    ("vi", "mail", "Tài khoản: {u}\nMật khẩu: {p}"),
    ("th", "chat", "รหัสผ่าน: {p}"),
    ("zh", "chat", "密码：{p}"),
    ("zh", "mail", "账号 {u} 密码 {p}"),
    ("ja", "chat", "パスワードは {p} です"),
    ("ja", "mail", "ユーザー名: {u}\nパスワード: {p}"),
    ("ko", "chat", "비밀번호: {p}"),
    ("ko", "mail", "아이디 {u} / 비번 {p}"),
    ("sw", "chat", "nenosiri ni {p}"),
    ("sw", "mail", "Jina la mtumiaji: {u}\nNenosiri: {p}"),
    ("ha", "chat", "kalmar sirri: {p}"),
    ("ha", "chat", "sunan mai amfani {u}, kalmar wucewa {p}"),
    ("en", "typo", "paswrod: {p}"),
    ("en", "typo", "passwrd = {p}"),
    ("en", "parens", "you can log in (pass {p}) whenever"),
    ("en", "dash", "db user {u} - {p} - port 5432"),
    ("es", "typo", "contrasena:{p}"),
    ("en", "screenshot", "the screenshot shows the router page: SSID ShopNet, WPA2 key {p}"),
    ("en", "voice", "transcribed from the call: 'the password is {p}, all one word'"),
]

PW_CONFIGS = [
    ("yaml", "database:\n  host: {h}\n  user: {u}\n  password: {P}"),
    ("yaml", "spring:\n  datasource:\n    url: jdbc:postgresql://{h}:5432/shop\n    username: {u}\n    password: '{p}'"),
    ("env", "DB_PASSWORD={p}"),
    ("env", "SMTP_USER={u}@example.com\nSMTP_PASS={p}"),
    ("env", "REDIS_PASSWORD=\"{p}\""),
    ("ini", "[mysql]\nuser = {u}\npassword = {p}"),
    ("properties", "spring.datasource.password={p}"),
    ("xml", "<add key=\"SmtpPassword\" value=\"{p}\" />"),
    ("toml", "[smtp]\nusername = \"{u}\"\npassword = \"{p}\""),
    ("json", "{{\"user\": \"{u}\", \"pass\": \"{p}\"}}"),
    ("compose", "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: {p}"),
    ("url", "postgres://{u}:{p}@{h}:5432/orders"),
    ("url", "mysql://{u}:{p}@{h}/shop?charset=utf8mb4"),
    ("url", "mongodb+srv://{u}:{p}@cluster0.example.net/escrow"),
    ("url", "redis://:{p}@{h}:6379/0"),
    ("url", "amqp://{u}:{p}@{h}:5672/%2f"),
    ("url", "ftp://{u}:{p}@{h}/public_html"),
    ("cli", "mysql -h {h} -u {u} -p'{p}' shop"),
    ("cli", "sshpass -p '{p}' ssh {u}@{h}"),
    ("cli", "PGPASSWORD={p} psql -h {h} -U {u} orders"),
    ("cli", "redis-cli -h {h} -a {p} ping"),
    ("cli", "curl -u {u}:{p} https://{h}/api/v1/export"),
    ("cli", "docker login registry.example.com -u {u} -p {p}"),
    ("cli", "wget --user={u} --password={p} https://{h}/backup.tar.gz"),
    ("netrc", "machine {h}\n  login {u}\n  password {p}"),
    ("sql", "CREATE USER {u} WITH PASSWORD '{p}';"),
    ("sql", "ALTER USER 'app'@'%' IDENTIFIED BY '{p}';"),
    ("csharp", "\"ConnectionStrings\": {{ \"Default\": \"Server={h};Database=Shop;User Id={u};Password={p};\" }}"),
    ("jdbc", "jdbc:sqlserver://{h}:1433;databaseName=shop;user={u};password={p}"),
    ("php", "define('DB_PASSWORD', '{p}');"),
    ("python", "conn = psycopg2.connect(host=\"{h}\", user=\"{u}\", password=\"{p}\")"),
    ("ruby", "Net::SMTP.start('{h}', 587, 'example.com', '{u}', '{p}', :login)"),
    ("powershell", "$pw = ConvertTo-SecureString '{p}' -AsPlainText -Force"),
    ("systemd", "[Service]\nEnvironment=DB_PASS={p}\nExecStart=/usr/local/bin/shop"),
    ("k8s", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: {p}"),
    ("k8s-b64", "apiVersion: v1\nkind: Secret\ntype: Opaque\ndata:\n  username: {U64}\n  password: {B64}"),
    ("ci", "- name: migrate\n  run: ./migrate --db-pass '{p}'"),
    ("log", "2026-11-28T10:14:03Z DEBUG auth: login attempt user={u} password={p} ok=true"),
    ("trace", "Traceback (most recent call last):\n  File \"pay.py\", line 41, in <module>\n    smtp.login(\"{u}\", \"{p}\")\nsmtplib.SMTPAuthenticationError: (535, b'5.7.8 Username and Password not accepted')"),
    ("nginx", "# htpasswd was generated from {u}:{p}\nauth_basic \"staging\";"),
    ("spreadsheet", "service\tuser\tpassword\nhosting\t{u}\t{p}\nmail\tinfo\t{p2}"),
    ("helm", "postgresql:\n  auth:\n    username: {u}\n    password: {p}"),
    ("hcl", "resource \"aws_db_instance\" \"shop\" {{\n  username = \"{u}\"\n  password = \"{p}\"\n}}"),
    ("lua", "local conf = {{ user = \"{u}\", password = \"{p}\" }}"),
    ("r", "con <- dbConnect(RPostgres::Postgres(), host = \"{h}\", user = \"{u}\", password = \"{p}\")"),
]


def pw_prose():
    lang, ctx, t = deal("pwlines", PW_LINES)
    return "password", "%s %s" % (ctx, lang), t.format(u=user(), h=host(), p=M(password()))


def pw_config():
    ctx, t = deal("pwconfigs", PW_CONFIGS)
    p = password()
    if ctx == "url":
        p = rs(ALNUM + "-_.~", R.randint(10, 20))
    u = user()
    return "password", ctx, t.format(u=u, h=host(), p=M(p), P=M(p), p2=M(password()),
                                      U64=base64.b64encode(u.encode()).decode(),
                                      B64=M(base64.b64encode(p.encode()).decode()))


PASSWORDS = [pw_prose, pw_prose, pw_config]

# ---------------------------------------------------------------- API keys and tokens


def svc_values():
    """(service, list of (name, value, secret?))"""
    c = deal("svc", range(46))
    if c == 0:
        return "aws", [("AWS_ACCESS_KEY_ID", "AKIA" + rs(UPALNUM.replace("0", "").replace("1", ""), 16), False),
                       ("AWS_SECRET_ACCESS_KEY", rs(ALNUM + "/+", 40), True)]
    if c == 1:
        return "github", [("GITHUB_TOKEN", "ghp_" + rs(ALNUM, 36), True)]
    if c == 2:
        return "github-fine", [("GH_PAT", "github_pat_" + rs(ALNUM, 22) + "_" + rs(ALNUM, 59), True)]
    if c == 3:
        return "gitlab", [("GITLAB_TOKEN", "glpat-" + rs(URLSAFE, 20), True)]
    if c == 4:
        return "slack-bot", [("SLACK_BOT_TOKEN", "xoxb-%d-%d-%s" % (R.randint(10**10, 10**11), R.randint(10**12, 10**13), rs(ALNUM, 24)), True)]
    if c == 5:
        return "stripe", [("STRIPE_SECRET_KEY", "sk_live_" + rs(ALNUM, 99), True)]
    if c == 6:
        return "stripe-webhook", [("STRIPE_WEBHOOK_SECRET", "whsec_" + rs(ALNUM, 32), True)]
    if c == 7:
        return "openai", [("OPENAI_API_KEY", "sk-proj-" + rs(URLSAFE, 48) + "T3BlbkFJ" + rs(URLSAFE, 48), True)]
    if c == 8:
        return "anthropic", [("ANTHROPIC_API_KEY", "sk-ant-api03-" + rs(URLSAFE, 93) + "AA", True)]
    if c == 9:
        return "google", [("GOOGLE_MAPS_SERVER_KEY", "AIza" + rs(URLSAFE, 35), True)]
    if c == 10:
        return "twilio", [("TWILIO_ACCOUNT_SID", "AC" + hx(32), False), ("TWILIO_AUTH_TOKEN", hx(32), True)]
    if c == 11:
        return "sendgrid", [("SENDGRID_API_KEY", "SG." + rs(URLSAFE, 22) + "." + rs(URLSAFE, 43), True)]
    if c == 12:
        return "mailgun", [("MAILGUN_API_KEY", "key-" + hx(32), True)]
    if c == 13:
        return "telegram", [("TELEGRAM_BOT_TOKEN", "%d:AA%s" % (R.randint(10**9, 7 * 10**9), rs(URLSAFE, 33)), True)]
    if c == 14:
        return "discord", [("DISCORD_TOKEN", "M" + rs(ALNUM, 25) + "." + rs(URLSAFE, 6) + "." + rs(URLSAFE, 38), True)]
    if c == 15:
        return "npm", [("NPM_TOKEN", "npm_" + rs(ALNUM, 36), True)]
    if c == 16:
        return "pypi", [("TWINE_PASSWORD", "pypi-AgEIcHlwaS5vcmc" + rs(URLSAFE, 60), True)]
    if c == 17:
        return "dockerhub", [("DOCKERHUB_TOKEN", "dckr_pat_" + rs(URLSAFE, 27), True)]
    if c == 18:
        return "digitalocean", [("DIGITALOCEAN_TOKEN", "dop_v1_" + hx(64), True)]
    if c == 19:
        return "shopify", [("SHOPIFY_ACCESS_TOKEN", "shpat_" + hx(32), True)]
    if c == 20:
        return "binance", [("BINANCE_API_KEY", rs(ALNUM, 64), False), ("BINANCE_API_SECRET", rs(ALNUM, 64), True)]
    if c == 21:
        return "kraken", [("KRAKEN_API_KEY", rs(ALNUM + "+/", 56), False), ("KRAKEN_PRIVATE_KEY", b64(64), True)]
    if c == 22:
        return "alchemy", [("ALCHEMY_API_KEY", rs(URLSAFE, 32), True)]
    if c == 23:
        return "infura", [("INFURA_PROJECT_ID", hx(32), False), ("INFURA_API_SECRET", hx(32), True)]
    if c == 24:
        return "etherscan", [("ETHERSCAN_API_KEY", rs(UPALNUM, 34), True)]
    if c == 25:
        return "cloudflare", [("CLOUDFLARE_API_TOKEN", rs(URLSAFE, 40), True)]
    if c == 26:
        return "datadog", [("DD_API_KEY", hx(32), True)]
    if c == 27:
        return "newrelic", [("NEW_RELIC_API_KEY", "NRAK-" + rs(UPALNUM, 27), True)]
    if c == 28:
        return "huggingface", [("HF_TOKEN", "hf_" + rs(ALNUM, 34), True)]
    if c == 29:
        return "replicate", [("REPLICATE_API_TOKEN", "r8_" + rs(ALNUM, 37), True)]
    if c == 30:
        return "azure-storage", [("AZURE_STORAGE_KEY", b64(64), True)]
    if c == 31:
        return "firebase-fcm", [("FCM_SERVER_KEY", "AAAA" + rs(URLSAFE, 7) + ":APA91b" + rs(URLSAFE, 134), True)]
    if c == 32:
        return "mapbox-secret", [("MAPBOX_SECRET_TOKEN", "sk.eyJ1Ijoi" + rs(ALNUM, 30) + "." + rs(URLSAFE, 22), True)]
    if c == 33:
        return "supabase", [("SUPABASE_SERVICE_ROLE_KEY", jwt({"iss": "supabase", "role": "service_role", "iat": 1780000000}), True)]
    if c == 34:
        return "vault", [("VAULT_TOKEN", "hvs." + rs(URLSAFE, 24 + R.choice([0, 66])), True)]
    if c == 35:
        return "doppler", [("DOPPLER_TOKEN", "dp.st.prd." + rs(ALNUM, 43), True)]
    if c == 36:
        return "linear", [("LINEAR_API_KEY", "lin_api_" + rs(ALNUM, 40), True)]
    if c == 37:
        return "notion", [("NOTION_TOKEN", "ntn_" + rs(ALNUM, 46), True)]
    if c == 38:
        return "atlassian", [("JIRA_API_TOKEN", "ATATT3xFfGF0" + rs(URLSAFE, 180) + "=" + hx(8).upper(), True)]
    if c == 39:
        return "postman", [("POSTMAN_API_KEY", "PMAK-" + hx(24) + "-" + hx(34), True)]
    if c == 40:
        return "okta", [("OKTA_API_TOKEN", "00" + rs(URLSAFE, 40), True)]
    if c == 41:
        return "circle", [("CIRCLE_API_KEY", "LIVE_API_KEY:" + hx(32) + ":" + hx(32), True)]
    if c == 42:
        return "coinbase-cdp", [("CDP_API_KEY_NAME", "organizations/%s/apiKeys/%s" % (uuid(), uuid()), False),
                                ("CDP_API_KEY_SECRET", b64(64), True)]
    if c == 43:
        return "pusher", [("PUSHER_APP_KEY", hx(20), False), ("PUSHER_APP_SECRET", hx(20), True)]
    if c == 44:
        return "algolia-admin", [("ALGOLIA_APP_ID", rs(UPALNUM, 10), False), ("ALGOLIA_ADMIN_KEY", hx(32), True)]
    return "figma", [("FIGMA_TOKEN", "figd_" + rs(URLSAFE, 40), True)]


def lower_name(n):
    return n.lower()


def camel(n):
    p = n.lower().split("_")
    return p[0] + "".join(x.title() for x in p[1:])


def render(ctx, vals):
    """Render the name/value pairs in a context; secrets marked."""
    def v(x):
        return M(x[1]) if x[2] else x[1]
    if ctx == "env":
        return "\n".join("%s=%s" % (n, v(x)) for x in vals for n in [x[0]])
    if ctx == "env-export":
        return "\n".join("export %s=\"%s\"" % (x[0], v(x)) for x in vals)
    if ctx == "yaml":
        return "secrets:\n" + "\n".join("  %s: %s" % (lower_name(x[0]), v(x)) for x in vals)
    if ctx == "toml":
        return "[credentials]\n" + "\n".join("%s = \"%s\"" % (lower_name(x[0]), v(x)) for x in vals)
    if ctx == "json":
        return "{\n" + ",\n".join("  \"%s\": \"%s\"" % (camel(x[0]), v(x)) for x in vals) + "\n}"
    if ctx == "ini":
        return "[api]\n" + "\n".join("%s=%s" % (lower_name(x[0]), v(x)) for x in vals)
    if ctx == "hcl":
        return "\n".join("variable \"%s\" {\n  default   = \"%s\"\n  sensitive = true\n}" % (lower_name(x[0]), v(x)) for x in vals)
    if ctx == "properties":
        return "\n".join("app.%s=%s" % (lower_name(x[0]).replace("_", "."), v(x)) for x in vals)
    if ctx == "xml":
        return "<settings>\n" + "\n".join("  <add key=\"%s\" value=\"%s\"/>" % (camel(x[0]), v(x)) for x in vals) + "\n</settings>"
    if ctx == "k8s-b64":
        return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-keys\ndata:\n" + "\n".join(
            "  %s: %s" % (x[0], M(base64.b64encode(x[1].encode()).decode()) if x[2] else base64.b64encode(x[1].encode()).decode()) for x in vals)
    if ctx == "k8s":
        return "env:\n" + "\n".join("  - name: %s\n    value: \"%s\"" % (x[0], v(x)) for x in vals)
    if ctx == "helm":
        return "helm upgrade --install shop ./chart " + " ".join("--set secrets.%s=%s" % (camel(x[0]), v(x)) for x in vals)
    if ctx == "compose":
        return "services:\n  worker:\n    environment:\n" + "\n".join("      - %s=%s" % (x[0], v(x)) for x in vals)
    if ctx == "ci":
        return "jobs:\n  deploy:\n    env:\n" + "\n".join("      %s: %s" % (x[0], v(x)) for x in vals)
    if ctx == "systemd":
        return "[Service]\n" + "\n".join("Environment=\"%s=%s\"" % (x[0], v(x)) for x in vals)
    if ctx == "python":
        return "import os\n" + "\n".join("%s = \"%s\"" % (x[0], v(x)) for x in vals) + "\nclient = Client(%s)" % ", ".join(x[0] for x in vals)
    if ctx == "python-dict":
        return "settings = {" + ", ".join("'%s': '%s'" % (lower_name(x[0]), v(x)) for x in vals) + "}"
    if ctx == "js":
        return "const config = {\n" + "\n".join("  %s: '%s'," % (camel(x[0]), v(x)) for x in vals) + "\n};"
    if ctx == "ts":
        return "\n".join("export const %s: string = \"%s\";" % (x[0], v(x)) for x in vals)
    if ctx == "go":
        return "const (\n" + "\n".join("\t%s = \"%s\"" % (camel(x[0]), v(x)) for x in vals) + "\n)"
    if ctx == "rust":
        return "\n".join("const %s: &str = \"%s\";" % (x[0], v(x)) for x in vals)
    if ctx == "java":
        return "\n".join("private static final String %s = \"%s\";" % (x[0], v(x)) for x in vals)
    if ctx == "kotlin":
        return "\n".join("val %s = \"%s\"" % (camel(x[0]), v(x)) for x in vals)
    if ctx == "csharp":
        return "\n".join("var %s = \"%s\";" % (camel(x[0]), v(x)) for x in vals)
    if ctx == "php":
        return "<?php\nreturn [\n" + "\n".join("    '%s' => '%s'," % (lower_name(x[0]), v(x)) for x in vals) + "\n];"
    if ctx == "ruby":
        return "\n".join("ENV['%s'] ||= '%s'" % (x[0], v(x)) for x in vals)
    if ctx == "swift":
        return "\n".join("let %s = \"%s\"" % (camel(x[0]), v(x)) for x in vals)
    if ctx == "dart":
        return "\n".join("const %s = '%s';" % (camel(x[0]), v(x)) for x in vals)
    if ctx == "elixir":
        return "config :shop, :api,\n" + ",\n".join("  %s: \"%s\"" % (lower_name(x[0]), v(x)) for x in vals)
    if ctx == "scala":
        return "\n".join("val %s = \"%s\"" % (camel(x[0]), v(x)) for x in vals)
    if ctx == "r":
        return "\n".join("Sys.setenv(%s = \"%s\")" % (x[0], v(x)) for x in vals)
    if ctx == "lua":
        return "\n".join("local %s = \"%s\"" % (lower_name(x[0]), v(x)) for x in vals)
    if ctx == "powershell":
        return "\n".join("$env:%s = \"%s\"" % (x[0], v(x)) for x in vals)
    if ctx == "sql":
        return "\n".join("INSERT INTO integrations (name, value) VALUES ('%s', '%s');" % (lower_name(x[0]), v(x)) for x in vals)
    if ctx == "notebook":
        return "In [3]: " + "\n        ".join("%s = '%s'" % (lower_name(x[0]), v(x)) for x in vals)
    if ctx == "spreadsheet":
        return "name\tvalue\tnote\n" + "\n".join("%s\t%s\tprod" % (x[0], v(x)) for x in vals)
    if ctx == "nginx":
        return "location /upstream/ {\n" + "\n".join("    proxy_set_header X-%s \"%s\";" % (camel(x[0]), v(x)) for x in vals) + "\n    proxy_pass https://api.example.net;\n}"
    if ctx == "log":
        return "2026-11-27 22:03:11,482 INFO boot config loaded: " + " ".join("%s=%s" % (lower_name(x[0]), v(x)) for x in vals)
    if ctx == "cli-flags":
        return "./payout-worker " + " ".join("--%s=%s" % (lower_name(x[0]).replace("_", "-"), v(x)) for x in vals)
    if ctx == "chat":
        return "here you go: " + ", ".join("%s %s" % (lower_name(x[0]).replace("_", " "), v(x)) for x in vals) + " — let me know if it works"
    if ctx == "chat-es":
        return "Te dejo las credenciales de la API: " + "; ".join("%s: %s" % (x[0], v(x)) for x in vals)
    if ctx == "mail-de":
        return "Hallo,\nhier die Zugangsdaten:\n" + "\n".join("%s = %s" % (x[0], v(x)) for x in vals) + "\nGrüße"
    return "\n".join("%s=%s" % (x[0], v(x)) for x in vals)


CTXS = ["env", "env-export", "yaml", "toml", "json", "ini", "hcl", "properties", "xml", "k8s-b64", "k8s", "helm",
        "compose", "ci", "systemd", "python", "python-dict", "js", "ts", "go", "rust", "java", "kotlin", "csharp",
        "php", "ruby", "swift", "dart", "elixir", "scala", "r", "lua", "powershell", "sql", "notebook",
        "spreadsheet", "nginx", "log", "cli-flags", "chat", "chat-es", "mail-de"]


def api_generic():
    svc, vals = svc_values()
    ctx = deal("ctxs", CTXS)
    return svc, ctx, render(ctx, vals)


def api_http():
    c = R.randrange(14)
    if c == 0:
        t = "ghp_" + rs(ALNUM, 36)
        return "github", "curl", "curl -H \"Authorization: Bearer %s\" https://api.github.com/user/repos" % M(t)
    if c == 1:
        t = "sk_live_" + rs(ALNUM, 99)
        return "stripe", "curl", "curl https://api.stripe.com/v1/charges -u %s: -d amount=2000" % M(t)
    if c == 2:
        t = rs(ALNUM, 64)
        return "generic-bearer", "httpie", "http POST https://api.example.com/v2/payouts Authorization:\"Bearer %s\" amount=150" % M(t)
    if c == 3:
        t = "xoxb-%d-%d-%s" % (R.randint(10**10, 10**11), R.randint(10**12, 10**13), rs(ALNUM, 24))
        return "slack-bot", "curl", "curl -X POST -H 'Authorization: Bearer %s' -d channel=C0AB12 https://slack.com/api/chat.postMessage" % M(t)
    if c == 4:
        p = "T%s/B%s/%s" % (rs(UPALNUM, 10), rs(UPALNUM, 10), rs(ALNUM, 24))
        return "slack-webhook", "chat", "webhook for alerts: https://hooks.slack.com/services/%s" % M(p)
    if c == 5:
        t = "%d:AA%s" % (R.randint(10**9, 7 * 10**9), rs(URLSAFE, 33))
        return "telegram", "wget", "wget -qO- \"https://api.telegram.org/bot%s/sendMessage?chat_id=-100%d&text=paid\"" % (M(t), R.randint(10**9, 10**10))
    if c == 6:
        k = rs(URLSAFE, 32)
        return "alchemy", "url", "RPC=https://eth-mainnet.g.alchemy.com/v2/%s" % M(k)
    if c == 7:
        k = uuid()
        return "helius", "url", "const conn = new Connection('https://mainnet.helius-rpc.com/?api-key=%s')" % M(k)
    if c == 8:
        k = hx(40)
        return "quicknode", "url", "QUICKNODE_URL=https://wispy-cold-morning.quiknode.pro/%s/" % M(k)
    if c == 9:
        t = jwt()
        return "jwt", "curl", "curl -H 'Authorization: Bearer %s' https://api.example.org/admin/orders" % M(t)
    if c == 10:
        a, b = user(), password()
        tok = base64.b64encode(("%s:%s" % (a, b)).encode()).decode()
        return "basic-auth", "http", "GET /api/v1/orders HTTP/1.1\nHost: api.example.com\nAuthorization: Basic %s" % M(tok)
    if c == 11:
        k = rs(ALNUM, 32)
        return "generic-apikey", "curl", "curl 'https://api.example.net/v1/rates?symbol=USDT' -H 'X-API-Key: %s'" % M(k)
    if c == 12:
        k = "00" + rs(URLSAFE, 40)
        return "okta", "powershell", "Invoke-RestMethod -Uri https://example.okta.com/api/v1/users -Headers @{ Authorization = \"SSWS %s\" }" % M(k)
    k = "dop_v1_" + hx(64)
    return "digitalocean", "curl", "curl -X GET -H \"Authorization: Bearer %s\" \"https://api.digitalocean.com/v2/droplets\"" % M(k)


def api_pem():
    body = b64(R.choice([256, 600]))
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    kind = R.choice(["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY"])
    pem = "-----BEGIN %s-----\n%s\n-----END %s-----" % (kind, "\n".join(lines), kind)
    c = R.randrange(3)
    if c == 0:
        return "pem-private-key", "chat", "deploy key for the repo:\n" + M(pem)
    if c == 1:
        sa = {"type": "service_account", "project_id": "shop-prod-%d" % R.randint(100, 999),
              "private_key_id": hx(40)}
        inner = pem.replace("\n", "\\n") + "\\n"
        return "gcp-service-account", "json", "{\"type\": \"service_account\", \"project_id\": \"%s\", \"private_key_id\": \"%s\", \"private_key\": \"%s\", \"client_email\": \"deployer@%s.iam.gserviceaccount.example\"}" % (
            sa["project_id"], sa["private_key_id"], M(inner), sa["project_id"])
    return "pem-private-key", "file", "$ cat ~/.ssh/id_shop\n" + M(pem)


def api_conn():
    c = R.randrange(6)
    if c == 0:
        k = b64(64)
        return "azure-storage", "connection-string", "DefaultEndpointsProtocol=https;AccountName=shopblobs;AccountKey=%s;EndpointSuffix=core.windows.net" % M(k)
    if c == 1:
        k = b64(32)
        return "azure-servicebus", "connection-string", "Endpoint=sb://shop-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=%s" % M(k)
    if c == 2:
        k = urllib.parse.quote(b64(32), safe="")
        return "azure-sas", "url", "https://shopblobs.blob.core.windows.net/exports/orders.csv?sv=2024-08-04&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&sig=%s" % M(k)
    if c == 3:
        return "sentry-auth", "cli", "sentry-cli --auth-token %s releases new 1.4.2" % M("sntrys_" + b64url(60))
    if c == 4:
        dc = R.randint(1, 21)
        return "mailchimp", "python", "client.set_config({\"api_key\": \"%s\", \"server\": \"us%d\"})" % (M(hx(32) + "-us%d" % dc), dc)
    p = rs(ALNUM, 20)
    return "smtp", "python", "server = smtplib.SMTP_SSL('mail.example.org', 465)\nserver.login('noreply@example.org', '%s')" % M(p)


def api_trace():
    svc, vals = svc_values()
    sec = [x for x in vals if x[2]][0]
    c = R.randrange(3)
    if c == 0:
        return svc, "stack-trace", "Error: Request failed with status code 401\n    at createError (node_modules/axios/lib/core/createError.js:16:15)\n  config: { headers: { Authorization: 'Bearer %s' } }" % M(sec[1])
    if c == 1:
        return svc, "log-json", "{\"level\":\"error\",\"msg\":\"upstream rejected\",\"request\":{\"headers\":{\"x-api-key\":\"%s\"}}}" % M(sec[1])
    return svc, "ticket", "Support ticket #%d: payouts fail since morning. Our key is %s, account %s." % (R.randint(1000, 9999), M(sec[1]), user())


APIS = [api_generic, api_generic, api_generic, api_http, api_pem, api_conn, api_trace]

# ---------------------------------------------------------------- look-alikes

HARDHAT0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
HARDHAT1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"


def la_chain():
    c = R.randrange(12)
    if c == 0:
        return "tx-hash", "chat", "sent %s, tx hash %s" % (amt(), txh())
    if c == 1:
        return "tx-hash", "mail", "Payment for %s confirmed on Polygon: https://polygonscan.com/tx/%s" % (oid(), txh())
    if c == 2:
        return "block-hash", "log", "2026-11-28T09:12:44Z INFO new head number=%d hash=%s parent=%s" % (R.randint(18000000, 21000000), txh(), txh())
    if c == 3:
        return "address", "chat", "please pay to %s (USDT on Arbitrum), not the old %s" % (addr(), addr())
    if c == 4:
        return "public-key", "json", "{\"address\": \"%s\", \"publicKey\": \"0x04%s\"}" % (addr(), hx(128))
    if c == 5:
        return "xpub", "config", "watch-only wallet\nxpub: %s\nderivation: m/84'/0'/0'" % xkey(False)
    if c == 6:
        return "solana-pubkey", "chat", "my Solana address is %s, USDC SPL please" % solana_pub()
    if c == 7:
        return "tx-hash", "code", "receipt = w3.eth.wait_for_transaction_receipt(\"%s\")" % txh()
    if c == 8:
        return "event-topic", "log", "topics[0]=0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef topics[1]=0x000000000000000000000000%s" % hx(40)
    if c == 9:
        return "storage-slot", "code", "bytes32 constant SLOT = 0x%s; // keccak256(\"shop.escrow.v1\") - 1" % hx(64)
    if c == 10:
        return "signature", "json", "{\"order\": \"%s\", \"signature\": \"0x%s1b\"}" % (oid(), hx(128))
    return "tx-hash", "ru", "Транзакция %s подтверждена, %s" % (txh(), amt())


def la_testkeys():
    c = R.randrange(8)
    if c == 0:
        return "hardhat-key", "docs", "Hardhat's account #0 (never use on mainnet): private key %s" % HARDHAT0
    if c == 1:
        return "anvil-key", "shell", "anvil prints ten funded accounts; e.g. --private-key %s for account 1 on localhost:8545" % HARDHAT1
    if c == 2:
        return "hardhat-mnemonic", "config", "accounts: { mnemonic: \"test test test test test test test test test test test junk\" } // default dev mnemonic"
    if c == 3:
        return "aws-example", "docs", "aws configure\nAWS Access Key ID [None]: AKIAIOSFODNN7EXAMPLE\nAWS Secret Access Key [None]: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    if c == 4:
        return "stripe-publishable", "js", "const stripe = Stripe('pk_live_%s');" % rs(ALNUM, 99)
    if c == 5:
        return "mapbox-public", "js", "mapboxgl.accessToken = 'pk.eyJ1Ijoi%s.%s';" % (rs(ALNUM, 30), rs(URLSAFE, 22))
    if c == 6:
        return "firebase-web", "js", "const firebaseConfig = {\n  apiKey: \"AIza%s\",\n  authDomain: \"shop-%d.firebaseapp.com\",\n  projectId: \"shop-%d\"\n};" % (rs(URLSAFE, 35), R.randint(100, 999), R.randint(100, 999))
    return "posthog-public", "html", "<script>posthog.init('phc_%s', {api_host: 'https://eu.i.posthog.com'})</script>" % rs(ALNUM, 43)


def la_ids():
    c = R.randrange(12)
    if c == 0:
        return "git-sha", "chat", "fixed in commit %s, please pull" % hx(40)
    if c == 1:
        return "uuid", "json", "{\"order_id\": \"%s\", \"status\": \"paid\", \"amount\": \"%s\"}" % (uuid(), amt())
    if c == 2:
        return "sha256sum", "shell", "$ sha256sum release.tar.gz\n%s  release.tar.gz" % hx(64)
    if c == 3:
        return "ssh-fingerprint", "chat", "host key fingerprint is SHA256:%s — check it before accepting" % b64(32).rstrip("=")
    if c == 4:
        return "pgp-fingerprint", "mail", "My PGP key: %s" % " ".join(hx(4).upper() for _ in range(10))
    if c == 5:
        return "payment-id", "log", "payment_intent=pi_%s status=succeeded order=%s" % (rs(ALNUM, 24), oid())
    if c == 6:
        return "docker-digest", "yaml", "image: registry.example.com/shop/api@sha256:%s" % hx(64)
    if c == 7:
        return "aws-key-id", "chat", "the IAM user's access key id is AKIA%s (the secret is in the vault)" % rs("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
    if c == 8:
        return "client-id", "env", "GOOGLE_CLIENT_ID=%d-%s.apps.googleusercontent.com" % (R.randint(10**11, 10**12), rs(LOWALNUM, 32))
    if c == 9:
        return "npm-integrity", "json", "\"integrity\": \"sha512-%s\"" % b64(64)
    if c == 10:
        return "cert-thumbprint", "powershell", "Get-ChildItem Cert:\\LocalMachine\\My\\%s" % hx(40).upper()
    return "invoice-id", "chat", "invoice INV-%s-%d paid, ref %s" % (rs(UPALNUM, 6), R.randint(100, 999), hx(16))


def la_placeholders():
    c = R.randrange(16)
    opts = [
        ("placeholder", "env", "OPENAI_API_KEY=sk-...\nSTRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx\nDB_PASSWORD=changeme"),
        ("placeholder", "yaml", "database:\n  password: <your-password-here>\n  user: <user>"),
        ("redacted", "log", "auth ok user=%s password=******** token=[REDACTED]" % user()),
        ("redacted", "chat", "your key ends in …%s, the rest is hidden in the dashboard" % hx(4)),
        ("env-read", "python", "api_key = os.environ[\"BINANCE_API_SECRET\"]\npassword = os.getenv(\"DB_PASSWORD\")"),
        ("env-read", "js", "const key = process.env.PRIVATE_KEY;\nconst wallet = new ethers.Wallet(key, provider);"),
        ("secret-ref", "ci", "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  PRIVATE_KEY: ${{ secrets.DEPLOYER_KEY }}"),
        ("secret-ref", "k8s", "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password"),
        ("secret-ref", "hcl", "password = data.aws_secretsmanager_secret_version.db.secret_string"),
        ("secret-ref", "shell", "export VAULT_TOKEN=$(vault login -token-only -method=oidc)\nPGPASSWORD=\"$(pass show shop/db)\" psql"),
        ("placeholder", "go", "key, err := crypto.HexToECDSA(os.Getenv(\"PRIVATE_KEY\"))"),
        ("placeholder", "docs", "Replace YOUR_API_KEY with the key from Settings → API, e.g. `curl -H 'X-API-Key: YOUR_API_KEY' ...`"),
        ("dummy", "test", "func TestSign(t *testing.T) {\n\tkey := strings.Repeat(\"00\", 31) + \"01\" // smallest valid scalar\n}"),
        ("placeholder", "json", "{\"apiKey\": \"\", \"apiSecret\": \"\", \"passphrase\": null}"),
        ("masked", "mail", "Your new password has been set. For security we never send it by email. Card: **** **** **** %d" % R.randint(1000, 9999)),
        ("placeholder", "php", "'password' => env('DB_PASSWORD', ''),"),
    ]
    return opts[c]


def la_encrypted():
    c = R.randrange(8)
    if c == 0:
        return "sops", "yaml", "db_password: ENC[AES256_GCM,data:%s,iv:%s,tag:%s,type:str]\nsops:\n  kms:\n  - arn: arn:aws:kms:eu-west-1:123456789012:key/%s" % (b64(14), b64(32), b64(16), uuid())
    if c == 1:
        return "vault-transit", "json", "{\"ciphertext\": \"vault:v1:%s\"}" % b64(48)
    if c == 2:
        return "bcrypt", "sql", "INSERT INTO users (email, password_hash) VALUES ('buyer@example.com', '$2b$12$%s');" % rs(ALNUM + "./", 53)
    if c == 3:
        return "argon2", "log", "stored hash: $argon2id$v=19$m=65536,t=3,p=4$%s$%s" % (b64(16).rstrip("="), b64(32).rstrip("="))
    if c == 4:
        return "scrypt", "config", "password_hash = \"scrypt:32768:8:1$%s$%s\"" % (rs(ALNUM, 16), hx(128))
    if c == 5:
        return "keystore-json", "json", json.dumps({"address": hx(40), "crypto": {"cipher": "aes-128-ctr", "ciphertext": hx(64),
                                                    "cipherparams": {"iv": hx(32)}, "kdf": "scrypt",
                                                    "kdfparams": {"dklen": 32, "n": 262144, "p": 1, "r": 8, "salt": hx(64)},
                                                    "mac": hx(64)}, "id": uuid(), "version": 3})
    if c == 6:
        return "age-recipient", "chat", "encrypt the file to my age public key: age1%s" % rs("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
    return "htpasswd", "file", "%s:$apr1$%s$%s" % (user(), rs(ALNUM, 8), rs(ALNUM + "./", 22))


PROSE = [
    ("en", "Never send your seed phrase or private key to anyone, including support or the buyer."),
    ("en", "I rotated the API key yesterday; the old one no longer works, and the new one is in the team vault."),
    ("en", "Password must be at least 12 characters and contain a digit."),
    ("en", "Can you add a 'forgot password' link under the login form?"),
    ("es", "Nunca compartas tu frase semilla ni tu clave privada por chat."),
    ("es", "La contraseña debe tener al menos 10 caracteres."),
    ("pt", "Troquei a senha do painel, te mando pelo cofre compartilhado."),
    ("fr", "Le mot de passe est stocké haché avec argon2id, jamais en clair."),
    ("de", "Bitte schick mir niemals das Passwort per Chat, nutze den Passwort-Manager."),
    ("it", "La chiave API va messa nella variabile d'ambiente, non nel codice."),
    ("ru", "Пароль я отправлю через одноразовую ссылку, не в этот чат."),
    ("uk", "Ключ API треба зберігати в менеджері секретів."),
    ("pl", "Hasło zmieniłem, nowe jest w menedżerze haseł."),
    ("tr", "Şifreyi buraya yazma, kasadan paylaşalım."),
    ("ar", "لا تشارك كلمة المرور أو العبارة السرية مع أي شخص."),
    ("fa", "رمز عبور را هرگز در چت نفرستید."),
    ("hi", "कृपया पासवर्ड चैट में न भेजें, वॉल्ट का उपयोग करें।"),
    ("ur", "براہ کرم پاس ورڈ یہاں مت لکھیں۔"),
    ("id", "Kata sandi sudah saya ganti, cek di pengelola kata sandi."),
    ("vi", "Đừng gửi mật khẩu qua chat, hãy dùng kho bí mật."),
    ("th", "อย่าส่งรหัสผ่านทางแชท"),
    ("zh", "请不要在聊天中发送助记词或私钥。"),
    ("ja", "パスワードはチャットで送らないでください。"),
    ("ko", "비밀번호는 채팅으로 보내지 마세요."),
    ("sw", "Usitume nenosiri kupitia gumzo."),
    ("ha", "Kada ka aika kalmar sirri ta hira."),
    ("en", "The password field is now masked and the 'show password' toggle works on mobile."),
    ("en", "private key handling: the signer reads it from the HSM; we never see it."),
    ("en", "passwordless login via magic link is live for buyers."),
    ("en", "Token expired — click 'Reconnect' to get a new one."),
    ("es", "La clave es: usar siempre variables de entorno."),
    ("en", "The password is: whatever you set during onboarding, I don't have it."),
    ("de", "Das Passwort lautet wie besprochen – steht im Tresor unter 'Shop Prod'."),
    ("pt", "A senha é a mesma de antes, nada mudou."),
    ("fr", "Le mot de passe est celui que tu as choisi à l'inscription."),
    ("ru", "Пароль: тот же, что и раньше."),
]


def la_prose():
    lang, t = deal("prose", PROSE)
    pre = R.choice(["", "", "Re: %s — " % oid(), "[%02d:%02d] %s: " % (R.randint(0, 23), R.randint(0, 59), user()), "> "])
    return "prose", "chat " + lang, pre + t


def la_bad_mnemonic():
    n = R.choice([12, 12, 24])
    ws = bad_mnemonic(n)
    c = R.randrange(5)
    if c == 0:
        return "wordlist-bad-checksum", "chat", "random words for the captcha test: " + " ".join(ws)
    if c == 1:
        return "wordlist-bad-checksum", "code", "TAGS = [%s]" % ", ".join('"%s"' % w for w in ws)
    if c == 2:
        return "wordlist-bad-checksum", "copy", "Seed ideas for the banner headline: " + ", ".join(ws)
    if c == 3:
        return "wordlist-bad-checksum", "yaml", "keywords:\n" + "\n".join("  - " + w for w in ws)
    return "wordlist-bad-checksum", "spreadsheet", "word\tcount\n" + "\n".join("%s\t%d" % (w, R.randint(1, 99)) for w in ws[:8])


def la_numbers():
    c = R.randrange(8)
    if c == 0:
        return "checksum", "shell", "md5: %s\ncrc32: %s" % (hx(32), hx(8))
    if c == 1:
        return "hex-color-list", "css", ":root { --brand: #%s; --accent: #%s; }" % (hx(6), hx(6))
    if c == 2:
        return "sri-hash", "html", "<script src=\"https://cdn.example.com/app.js\" integrity=\"sha384-%s\" crossorigin=\"anonymous\"></script>" % b64(48)
    if c == 3:
        return "session-id-expired", "log", "session %s expired at 2026-11-28T10:00:00Z" % uuid()
    if c == 4:
        return "nonce", "json", "{\"nonce\": %d, \"gasPrice\": \"%d\", \"to\": \"%s\"}" % (R.randint(1, 900), R.randint(10**9, 10**11), addr())
    if c == 5:
        return "ipfs-cid", "chat", "the deliverable is pinned: ipfs://bafybei%s" % rs("abcdefghijklmnopqrstuvwxyz234567", 52)
    if c == 6:
        return "tracking-number", "mail", "Your hardware wallet ships with tracking %s%d" % (rs(UPALNUM, 2), R.randint(10**9, 10**10))
    return "etag", "http", "HTTP/1.1 200 OK\nETag: \"%s\"\nX-Request-Id: %s" % (hx(32), uuid())


ENVNAMES = ["PRIVATE_KEY", "DB_PASSWORD", "STRIPE_SECRET_KEY", "BINANCE_API_SECRET", "MNEMONIC", "SMTP_PASS",
            "OPENAI_API_KEY", "TELEGRAM_BOT_TOKEN", "JWT_SECRET", "WALLET_SEED"]


def la_reads():
    n = deal("envnames", ENVNAMES)
    lo = n.lower()
    c = deal("reads", range(16))
    opts = [
        ("env-read", "go", "%s := os.Getenv(\"%s\")\nif %s == \"\" {\n\tlog.Fatal(\"%s is not set\")\n}" % (camel(n), n, camel(n), n)),
        ("env-read", "rust", "let %s = std::env::var(\"%s\").expect(\"%s must be set\");" % (lo, n, n)),
        ("env-read", "java", "String %s = System.getenv(\"%s\");" % (camel(n), n)),
        ("env-read", "csharp", "var %s = Environment.GetEnvironmentVariable(\"%s\");" % (camel(n), n)),
        ("env-read", "php", "$%s = getenv('%s');" % (camel(n), n)),
        ("env-read", "ruby", "%s = ENV.fetch('%s')" % (lo, n)),
        ("env-read", "elixir", "config :shop, %s: System.fetch_env!(\"%s\")" % (lo, n)),
        ("env-read", "compose", "environment:\n  %s: ${%s:?set it in .env}" % (n, n)),
        ("secret-ref", "k8s", "envFrom:\n  - secretRef:\n      name: %s" % lo.replace("_", "-")),
        ("secret-ref", "ci", "- run: ./deploy.sh\n  env:\n    %s: ${{ secrets.%s }}" % (n, n)),
        ("secret-ref", "gitlab-ci", "script:\n  - echo \"$%s\" | docker login -u ci --password-stdin registry.example.com" % n),
        ("secret-ref", "shell", "%s=$(aws secretsmanager get-secret-value --secret-id prod/%s --query SecretString --output text)" % (n, lo)),
        ("secret-ref", "shell", "export %s=\"$(op read op://Shop/%s/credential)\"" % (n, lo)),
        ("placeholder", "env", "%s=<%s>" % (n, R.choice(["paste-here", "secret", "your value", "redacted"]))),
        ("placeholder", "yaml", "%s: \"%s\"  # fill in locally" % (lo, R.choice(["", "CHANGE_ME", "xxxxxxxx", "TODO"]))),
        ("redacted", "log", "%s level=info msg=\"config loaded\" %s=%s" % ("2026-11-2%dT0%d:1%d:00Z" % (R.randint(1, 8), R.randint(0, 9), R.randint(0, 9)), lo, R.choice(["***", "[redacted]", "<hidden>", "****" + hx(4)]))),
    ]
    return opts[c]


LOOKS = [la_reads, la_chain, la_chain, la_testkeys, la_ids, la_ids, la_placeholders, la_encrypted, la_prose, la_prose,
         la_bad_mnemonic, la_numbers]


def esc(s):
    return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def check_marks(t):
    depth = 0
    for ch in t:
        if ch == "«":
            depth += 1
            assert depth == 1, t
        elif ch == "»":
            depth -= 1
            assert depth == 0, t
    assert depth == 0 and "«" in t, t


def main():
    secrets = []
    # weights: ~30% wallet, ~25% passwords, ~45% API keys and tokens
    seen = set()

    def draw(pool, n, out):
        while n:
            s = R.choice(pool)()
            if s[2] not in seen:
                seen.add(s[2])
                out.append(s)
                n -= 1

    draw(WALLET, 105, secrets)
    draw(PASSWORDS, 88, secrets)
    draw(APIS, 157, secrets)
    R.shuffle(secrets)
    looks = []
    draw(LOOKS, 320, looks)
    R.shuffle(looks)
    with open(os.path.join(HERE, "heldout8_secret.txt"), "w", encoding="utf-8") as f:
        f.write("# Eighth held-out credentials: texts holding credentials; «...» marks each value to remove.\n"
                "# Written by heldout8_gen.py (seeded); see README.md. Each sample follows a comment naming its kind and context.\n\n")
        for kind, ctx, t in secrets:
            check_marks(t)
            f.write("# %s | %s\n%s\n" % (kind, ctx, esc(t)))
    with open(os.path.join(HERE, "heldout8_lookalike.txt"), "w", encoding="utf-8") as f:
        f.write("# Eighth held-out look-alikes: nothing here may be found.\n"
                "# Written by heldout8_gen.py (seeded); see README.md. Each sample follows a comment naming its kind and context.\n\n")
        for kind, ctx, t in looks:
            assert "«" not in t and "»" not in t
            f.write("# %s | %s\n%s\n" % (kind, ctx, esc(t)))


if __name__ == "__main__":
    main()
