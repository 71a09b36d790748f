#!/usr/bin/env python3
"""Writes heldout4_secret.txt and heldout4_lookalike.txt: a fourth held-out credential corpus.

Written without reading the credential rules or the earlier corpora. Every value is random and
fake; domains are reserved or made up (provider host names appear only where the format of a key
is a URL on that host); IPs are documentation ranges. Rerunning writes identical files.
"""
import base64
import hashlib
import os
import random

R = random.Random(20261130)
HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = open(os.path.join(HERE, "..", "..", "bip39_english.txt")).read().split()
assert len(WORDS) == 2048

# ---------------------------------------------------------------- primitives

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def rb(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def hexs(n):
    return "".join(R.choice("0123456789abcdef") for _ in range(n))


def chars(alpha, n):
    return "".join(R.choice(alpha) for _ in range(n))


def alnum(n):
    return chars(ALNUM, n)


def b64(nbytes):
    return base64.b64encode(rb(nbytes)).decode()


def b64u(n):
    return chars(ALNUM + "-_", n)


def b58enc(b):
    n = int.from_bytes(b, "big")
    s = ""
    while n:
        n, r = divmod(n, 58)
        s = B58[r] + s
    pad = len(b) - len(b.lstrip(b"\0"))
    return "1" * pad + s


def b58check(payload):
    return b58enc(payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4])


def rol(a, n):
    n %= 64
    return ((a << n) | (a >> (64 - n))) & ((1 << 64) - 1)


def keccak_f(lanes):
    r = 1
    for _ in range(24):
        c = [lanes[x][0] ^ lanes[x][1] ^ lanes[x][2] ^ lanes[x][3] ^ lanes[x][4] for x in range(5)]
        d = [c[(x + 4) % 5] ^ rol(c[(x + 1) % 5], 1) for x in range(5)]
        lanes = [[lanes[x][y] ^ d[x] for y in range(5)] for x in range(5)]
        x, y = 1, 0
        cur = lanes[x][y]
        for t in range(24):
            x, y = y, (2 * x + 3 * y) % 5
            cur, lanes[x][y] = lanes[x][y], rol(cur, (t + 1) * (t + 2) // 2)
        for y in range(5):
            row = [lanes[x][y] for x in range(5)]
            for x in range(5):
                lanes[x][y] = row[x] ^ ((~row[(x + 1) % 5]) & row[(x + 2) % 5])
        for j in range(7):
            r = ((r << 1) ^ ((r >> 7) * 0x71)) % 256
            if r & 2:
                lanes[0][0] ^= 1 << ((1 << j) - 1)
    return lanes


def keccak256(data):
    rate = 136
    msg = bytearray(data) + b"\x01"
    while len(msg) % rate:
        msg += b"\0"
    msg[-1] |= 0x80
    state = bytearray(200)
    for off in range(0, len(msg), rate):
        for i in range(rate):
            state[i] ^= msg[off + i]
        lanes = [[int.from_bytes(state[8 * (x + 5 * y):8 * (x + 5 * y) + 8], "little") for y in range(5)] for x in range(5)]
        lanes = keccak_f(lanes)
        for x in range(5):
            for y in range(5):
                state[8 * (x + 5 * y):8 * (x + 5 * y) + 8] = lanes[x][y].to_bytes(8, "little")
    return bytes(state[:32])


assert keccak256(b"").hex() == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"


def addr():
    h = hexs(40)
    k = keccak256(h.encode()).hex()
    return "0x" + "".join(ch.upper() if ch.isalpha() and int(k[i], 16) >= 8 else ch for i, ch in enumerate(h))


def evmkey():
    while True:
        k = hexs(64)
        if any(c.isalpha() for c in k) and k[0] != "0":
            return k


def mnemonic(n=None):
    n = n or R.choice([12, 12, 12, 15, 18, 24, 24])
    ent = rb(n * 4 // 3)
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(len(ent) * 8)
    cs = bin(hashlib.sha256(ent).digest()[0])[2:].zfill(8)[: len(ent) * 8 // 32]
    bits += cs
    return [WORDS[int(bits[i:i + 11], 2)] for i in range(0, len(bits), 11)]


def xkey(version):
    depth = R.choice([0, 3, 4])
    fp = b"\0" * 4 if depth == 0 else rb(4)
    child = (0).to_bytes(4, "big") if depth == 0 else R.choice([0, 1, 0x80000000]).to_bytes(4, "big")
    cc = rb(32)
    if version in ("xprv", "tprv", "zprv"):
        key = b"\0" + rb(32)
    else:
        key = bytes([R.choice([2, 3])]) + rb(32)
    v = {"xprv": "0488ade4", "tprv": "04358394", "zprv": "04b2430c",
         "xpub": "0488b21e", "tpub": "043587cf", "zpub": "04b24746"}[version]
    return b58check(bytes.fromhex(v) + bytes([depth]) + fp + child + cc + key)


def wif(compressed=True, testnet=False):
    p = bytes([0xEF if testnet else 0x80]) + rb(32) + (b"\x01" if compressed else b"")
    return b58check(p)


def solkey():
    return b58enc(rb(64))


def solpub():
    return b58enc(rb(32))


def jwt():
    hdr = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = '{"sub":"%s","role":"seller","iat":%d,"exp":%d}' % (hexs(12), 1790000000 + R.randint(0, 9999999), 1800000000 + R.randint(0, 9999999))
    return hdr + "." + base64.urlsafe_b64encode(body.encode()).decode().rstrip("=") + "." + b64u(43)


def uuid():
    h = hexs(32)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], R.choice("89ab"), h[17:20], h[20:32])


def ulid():
    return R.choice("01") + chars("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 25)


def cid0():
    return b58enc(b"\x12\x20" + rb(32))


def cid1():
    return "b" + base64.b32encode(b"\x01\x70\x12\x20" + rb(32)).decode().lower().rstrip("=")


def b32(n):
    return chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", n)


PWW = ["Falcon", "harbor", "Lima", "Otter", "quartz", "Sunset", "tiger", "Mango", "Neptun", "kasza", "Zorro",
       "pelikan", "Cobalt", "ranura", "Birke", "Sakura", "jaguar", "Volna", "kiwi", "Hamsa", "Dorado", "Twiga"]
SYM = "!@#$%^&*-_.?+="


def pw():
    k = R.randint(0, 4)
    if k == 0:
        return R.choice(PWW) + R.choice(SYM) + R.choice(PWW).lower() + str(R.randint(10, 9999))
    if k == 1:
        return chars(ALNUM + SYM, R.randint(12, 20))
    if k == 2:
        return R.choice(PWW) + str(R.randint(1970, 2029)) + R.choice(SYM) + R.choice(PWW)
    if k == 3:
        return alnum(R.randint(16, 28))
    return R.choice(PWW).lower() + R.choice("-_.") + R.choice(PWW).lower() + R.choice("-_.") + str(R.randint(100, 999)) + R.choice(SYM)


def host():
    return R.choice(["db", "pg", "mysql-1", "cache", "mq", "core", "api", "vault", "mail", "ledger"]) + R.choice(
        [".internal", ".example.com", ".prod.internal", ".shop.test", ".example.net", ".svc.internal"])


def ip():
    return R.choice(["192.0.2.", "198.51.100.", "203.0.113.", "10.%d.%d." % (R.randint(0, 255), R.randint(0, 255))]) + str(R.randint(2, 250))


def user():
    return R.choice(["app", "svc_ledger", "admin", "deploy", "reporter", "payout", "ops", "mkt_bot", "readonly", "etl"])


def person():
    return R.choice(["alice", "bruno", "chen", "dana", "emeka", "farah", "goran", "hana", "ivan", "julia", "kemal",
                     "lena", "mateo", "nia", "oksana", "pavel", "quynh", "rafael", "sara", "tomasz", "yusuf", "zoe"])


def m(v):
    return "«" + v + "»"


def q(v):
    return '"' + v + '"'


def mark_words(ws, sep=" "):
    return sep.join(m(w) for w in ws)


# ---------------------------------------------------------------- wallet secrets


def w_evm():
    k = evmkey()
    px = R.choice(["0x", ""])
    v = px + m(k)
    a = addr()
    opts = [
        lambda: "PRIVATE_KEY=" + v + "\nRPC_URL=https://rpc.example.org\nCHAIN_ID=8453",
        lambda: "const wallet = new ethers.Wallet(\"" + v + "\", provider);",
        lambda: "acct = Account.from_key('" + v + "')  # deployer " + a,
        lambda: "key, _ := crypto.HexToECDSA(\"" + m(k) + "\")",
        lambda: "let signer: LocalWallet = \"" + v + "\".parse()?;",
        lambda: "Credentials creds = Credentials.create(\"" + v + "\");",
        lambda: "var account = new Account(\"" + v + "\", chainId: 137);",
        lambda: "uint256 pk = " + "0x" + m(k) + ";\nvm.startBroadcast(pk);",
        lambda: "$ cast wallet address --private-key " + v + "\n" + a,
        lambda: "forge script script/Deploy.s.sol --rpc-url $RPC --broadcast --private-key " + v,
        lambda: "hardhat.config.ts:\n  networks: { base: { url: process.env.BASE_RPC, accounts: [\"0x" + m(k) + "\"] } }",
        lambda: "foundry.toml:\n[profile.deploy]\nsender = \"" + a + "\"\nprivate_key = \"" + v + "\"",
        lambda: "hey, here is the hot wallet key so you can top it up yourself: " + v + " (the one ending in " + a[-4:] + ")",
        lambda: "Hola, te paso la clave privada de la billetera de pruebas: " + v + " — no la subas al repo porfa",
        lambda: "Привет! Приватный ключ от кошелька для деплоя: " + v + "\nАдрес " + a,
        lambda: "Der private Schlüssel vom Treasury-Wallet lautet " + v + ", bitte nach dem Import löschen.",
        lambda: "钱包私钥：" + v + "\n地址：" + a,
        lambda: "ウォレットの秘密鍵です → " + v + "　使ったら消してください",
        lambda: "Clé privée du portefeuille de test : " + v + " (réseau Sepolia)",
        lambda: "מפתח פרטי של הארנק: " + v + " תמחק אחרי השימוש",
        lambda: "SIGNER_PK: '" + v + "'\nSIGNER_ADDR: '" + a + "'",
        lambda: "<add key=\"EthPrivateKey\" value=\"" + v + "\" />",
        lambda: "Ticket OPS-" + str(R.randint(100, 999)) + ": relayer stuck. Repro: import " + v + " into MetaMask, nonce is off by one.",
        lambda: "kluczPrywatny = \"" + v + "\" // portfel operacyjny, nie commitować",
    ]
    return R.choice(opts)()


def w_evm_more():
    k = evmkey()
    opts = [
        lambda: "wallet,address,private_key\nops-hot," + addr() + "," + m(k) + "\nops-cold," + addr() + ",(ledger)",
        lambda: "[wallet]\nkeyfile = none\nraw_key = " + m(k),
        lambda: "INSERT INTO signer_keys (chain, address, pk_hex) VALUES ('base', '" + addr() + "', '" + m(k) + "');",
        lambda: "{\n  \"network\": \"arbitrum\",\n  \"privateKey\": \"0x" + m(k) + "\",\n  \"gasLimit\": 900000\n}",
        lambda: "In [3]: from eth_account import Account\nIn [4]: Account.from_key(\"0x" + m(k) + "\").address\nOut[4]: '" + addr() + "'",
        lambda: "Traceback (most recent call last):\n  File \"bot.py\", line 41, in <module>\n    signer = Account.from_key(\"" + m(k) + "\")\nValueError: insufficient funds for gas",
        lambda: "export DEPLOYER_PRIVATE_KEY=0x" + m(k) + "\nnpx hardhat run scripts/deploy.ts --network sepolia",
        lambda: "docker run -e PK=" + m(k) + " -e RPC=https://node.example.net ghcr.io/example/keeper:1.4",
        lambda: "screenshot transcript: MetaMask > Account details > Show private key\n" + m(k) + "\n[Copy to clipboard]",
        lambda: "Asante! Ufunguo binafsi wa pochi ni " + m(k) + " — usiushiriki na mtu mwingine.",
        lambda: "Chave privada da carteira de testes: 0x" + m(k) + " (só Sepolia, sem fundos reais)",
        lambda: "variable \"relayer_key\" {\n  default = \"" + m(k) + "\"\n}",
    ]
    return R.choice(opts)()


def w_mnemonic():
    ws = mnemonic()
    s = " ".join(ws)
    opts = [
        lambda: "seed phrase for the escrow test wallet: " + m(s),
        lambda: "MNEMONIC=\"" + m(s) + "\"",
        lambda: "mnemonic: " + m(s) + "\nderivation_path: m/44'/60'/0'/0",
        lambda: "Recovery phrase (write it down!):\n" + "\n".join("%d. %s" % (i + 1, m(w)) for i, w in enumerate(ws)),
        lambda: "  ".join("%d) %s" % (i + 1, m(w)) for i, w in enumerate(ws)),
        lambda: "const wallet = ethers.Wallet.fromPhrase(\"" + m(s) + "\");",
        lambda: "from bip_utils import Bip39SeedGenerator\nseed = Bip39SeedGenerator(\"" + m(s) + "\").Generate()",
        lambda: "Сид-фраза от кошелька: " + m(s) + ". Не потеряй!",
        lambda: "Frase semilla (12/24 palabras): " + m(s),
        lambda: "Wiederherstellungsphrase: " + m(s),
        lambda: "助记词如下，请妥善保管：" + m(s),
        lambda: "Phrase de récupération : " + m(s) + " — à garder hors ligne",
        lambda: "cüzdan kurtarma kelimeleri: " + m(s),
        lambda: "עבור הארנק, זו הפרזה: " + m(s),
        lambda: "عبارت بازیابی کیف پول: " + m(s),
        lambda: "วลีกู้คืนกระเป๋า: " + m(s),
        lambda: "Φράση ανάκτησης πορτοφολιού: " + m(s),
        lambda: "Фраза відновлення гаманця: " + m(s),
        lambda: "[" + ", ".join("\"" + m(w) + "\"" for w in ws) + "]",
        lambda: "words:\n" + "\n".join("  - " + m(w) for w in ws),
        lambda: "| # | word |\n|---|---|\n" + "\n".join("| %d | %s |" % (i + 1, m(w)) for i, w in enumerate(ws)),
        lambda: "$ cast wallet derive-private-key \"" + m(s) + "\" 0",
        lambda: "Maneno ya siri ya pochi: " + m(s),
        lambda: "ok so the wallet backup is " + m(s) + " lmk if it imports",
        lambda: "frase di recupero del wallet di staging: " + m(s),
        lambda: ",".join(m(w) for w in ws),
    ]
    return R.choice(opts)()


def w_xprv():
    v = R.choice(["xprv", "xprv", "tprv", "zprv"])
    k = xkey(v)
    opts = [
        lambda: "master extended private key: " + m(k),
        lambda: "HD_ROOT_KEY=" + m(k),
        lambda: "$ bitcoin-cli -rpcwallet=ops listdescriptors true | jq -r '.descriptors[0].desc'\nwpkh(" + m(k) + "/84h/1h/0h/0/*)#" + chars("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 8),
        lambda: "account_xprv = \"" + m(k) + "\"\naccount_xpub = \"" + xkey("xpub") + "\"",
        lambda: "la xprv del nodo raíz es " + m(k) + " (sacada del Trezor de pruebas)",
        lambda: "const root = HDKey.fromExtendedKey(\"" + m(k) + "\");",
        lambda: "electrum wallet file excerpt:\n\"keystore\": {\"type\": \"bip32\", \"xprv\": \"" + m(k) + "\", \"xpub\": \"" + xkey("xpub") + "\"}",
        lambda: "расширенный приватный ключ: " + m(k),
    ]
    return R.choice(opts)()


def w_wif_sol():
    w = wif(R.random() < 0.8, testnet=False)
    s = solkey()
    arr = ",".join(str(b) for b in rb(64))
    opts = [
        lambda: "$ bitcoin-cli dumpprivkey " + "bc1q" + chars("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 38) + "\n" + m(w),
        lambda: "BTC_WIF=" + m(w),
        lambda: "Imported the paper wallet, WIF was " + m(w) + ", balance 0.0031 BTC",
        lambda: "wif = '" + m(w) + "'\nkey = Key(wif)",
        lambda: "SOLANA_PRIVATE_KEY=" + m(s),
        lambda: "const payer = Keypair.fromSecretKey(bs58.decode(\"" + m(s) + "\"));",
        lambda: "~/.config/solana/id.json:\n[" + m(arr) + "]",
        lambda: "Phantom export (private key): " + m(s),
        lambda: "ключ от соланы (приватник): " + m(s),
        lambda: "keypair = Keypair.from_base58_string(\"" + m(s) + "\")",
        lambda: "solana:\n  fee_payer_secret: [" + m(arr) + "]\n  rpc: https://sol.example.net",
        lambda: "Llave privada de Solana para el bot: " + m(s),
    ]
    return R.choice(opts)()


def w_keystore():
    p = pw()
    fn = "UTC--2026-%02d-%02dT10-%02d-11.%dZ--%s" % (R.randint(1, 12), R.randint(1, 28), R.randint(0, 59), R.randint(100000000, 999999999), hexs(40))
    opts = [
        lambda: "keystore: ./keys/" + fn + "\nkeystore password: " + m(p),
        lambda: "KEYSTORE_PASSWORD=" + m(p) + "\nKEYSTORE_PATH=/secrets/" + fn,
        lambda: "geth account import --password <(echo '" + m(p) + "') key.txt",
        lambda: "$ cast wallet import deployer --keystore-dir ./ks\nEnter password: " + m(p),
        lambda: "acct = Account.decrypt(json.load(open('" + fn + "')), '" + m(p) + "')",
        lambda: "el JSON del keystore va adjunto, la contraseña para descifrarlo es " + m(p),
        lambda: "Keystore-Datei liegt im Drive, Passwort zum Entschlüsseln: " + m(p),
        lambda: "const w = await ethers.Wallet.fromEncryptedJson(json, \"" + m(p) + "\");",
    ]
    return R.choice(opts)()


def w_exchange():
    bk, bs = alnum(64), alnum(64)
    opts = [
        lambda: "BINANCE_API_KEY=" + m(bk) + "\nBINANCE_API_SECRET=" + m(bs),
        lambda: "client = Client(api_key='" + m(bk) + "', api_secret='" + m(bs) + "')",
        lambda: "exchange = ccxt.binance({\n    'apiKey': '" + m(bk) + "',\n    'secret': '" + m(bs) + "',\n})",
        lambda: "okx:\n  api_key: " + uuid() + "\n  secret_key: " + m(hexs(32).upper()) + "\n  passphrase: " + m(pw()),
        lambda: "[kraken]\nkey = " + m(b64(42)) + "\nprivate_key = " + m(b64(64)),
        lambda: "bybit key " + m(alnum(18)) + " / secret " + m(alnum(36)) + " (read+trade, no withdraw)",
        lambda: "KUCOIN_KEY=" + hexs(24) + "\nKUCOIN_SECRET=" + m(uuid()) + "\nKUCOIN_PASSPHRASE=" + m(pw()),
        lambda: "Coinbase Advanced API:\nname: organizations/" + uuid() + "/apiKeys/" + uuid() + "\nprivateKey: -----BEGIN EC PRIVATE KEY-----\\n" + m("MHcCAQEEI" + b64(111)) + "\\n-----END EC PRIVATE KEY-----\\n",
        lambda: "Gate.io 的 API：key " + m(hexs(32)) + "，secret " + m(hexs(64)),
        lambda: "API биржи: ключ " + m(bk) + ", секрет " + m(bs) + ". Только спот, без вывода.",
        lambda: "const binance = new Binance().options({ APIKEY: '" + m(bk) + "', APISECRET: '" + m(bs) + "' });",
        lambda: "curl -H \"X-MBX-APIKEY: " + m(bk) + "\" \"https://api.binance.com/api/v3/account?timestamp=1790000000000&signature=" + hexs(64) + "\"\n(secret for signing: " + m(bs) + ")",
        lambda: "Bitget passphrase " + m(pw()) + ", secret " + m(hexs(64)) + ", key bg_" + hexs(32),
        lambda: "clé API Kraken : " + m(b64(42)) + "\nclé privée : " + m(b64(64)),
    ]
    return R.choice(opts)()


def w_rpc():
    opts = [
        lambda: "RPC_URL=https://mainnet.infura.io/v3/" + m(hexs(32)),
        lambda: "const provider = new JsonRpcProvider(\"https://eth-mainnet.g.alchemy.com/v2/" + m(b64u(32)) + "\");",
        lambda: "rpc_url = \"https://base-mainnet.g.alchemy.com/v2/" + m(b64u(32)) + "\"",
        lambda: "wss://polygon-mainnet.infura.io/ws/v3/" + m(hexs(32)) + " drops every ~10 min, anyone else?",
        lambda: "QUICKNODE_URL=https://" + R.choice(["frosty-lively", "old-wiser", "silent-damp"]) + "-" + R.choice(["pond", "field", "sky"]) + ".quiknode.pro/" + m(hexs(40)) + "/",
        lambda: "ankr: https://rpc.ankr.com/eth/" + m(hexs(64)),
        lambda: "helius = \"https://mainnet.helius-rpc.com/?api-key=" + m(uuid()) + "\"",
        lambda: "ETHERSCAN_API_KEY=" + m(chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 34)),
        lambda: "[rpc_endpoints]\narbitrum = \"https://arb-mainnet.g.alchemy.com/v2/" + m(b64u(32)) + "\"",
        lambda: "la URL del RPC con mi key: https://sepolia.infura.io/v3/" + m(hexs(32)),
        lambda: "etherscan:\n  apiKey: " + m(chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 34)),
        lambda: "2026-11-02T09:14:07Z WARN rpc: retrying https://opt-mainnet.g.alchemy.com/v2/" + m(b64u(32)) + " (429)",
    ]
    return R.choice(opts)()


# ---------------------------------------------------------------- other secrets


def pem_body(prefix, nbytes, width=64):
    s = prefix + base64.b64encode(rb(nbytes)).decode()
    return "\\n".join(s[i:i + width] for i in range(0, len(s), width))


def mpem(prefix, nbytes, width=64, sep="\n"):
    """A key body wrapped at width, each line marked, lines joined by sep."""
    s = prefix + base64.b64encode(rb(nbytes)).decode()
    return sep.join(m(s[i:i + width]) for i in range(0, len(s), width))


def o_cloud():
    sec = chars(ALNUM + "/+", 40)
    opts = [
        lambda: "[default]\naws_access_key_id = AKIA" + b32(16) + "\naws_secret_access_key = " + m(sec),
        lambda: "AWS_ACCESS_KEY_ID=AKIA" + b32(16) + "\nAWS_SECRET_ACCESS_KEY=" + m(sec) + "\nAWS_REGION=eu-central-1",
        lambda: "s3 = boto3.client('s3', aws_access_key_id='AKIA" + b32(16) + "', aws_secret_access_key='" + m(sec) + "')",
        lambda: "{\n  \"type\": \"service_account\",\n  \"project_id\": \"shop-test-1\",\n  \"private_key_id\": \"" + hexs(40) + "\",\n  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n" + mpem("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 600, sep="\\n") + "\\n-----END PRIVATE KEY-----\\n\",\n  \"client_email\": \"deployer@shop-test-1.iam.gserviceaccount.com\"\n}",
        lambda: "DefaultEndpointsProtocol=https;AccountName=shopassets;AccountKey=" + m(b64(64)) + ";EndpointSuffix=core.windows.net",
        lambda: "DIGITALOCEAN_TOKEN=dop_v1_" + m(hexs(64)) if R.random() < 0.5 else "DIGITALOCEAN_TOKEN=" + m("dop_v1_" + hexs(64)),
        lambda: "cloudflare api token (zone edit): " + m(b64u(40)),
        lambda: "VAULT_TOKEN=" + m("hvs." + b64u(90)),
        lambda: "az storage blob upload --account-name shopassets --account-key \"" + m(b64(64)) + "\" -f build.zip",
        lambda: "Secret access key AWS pro deploy: " + m(sec) + " (key id AKIA" + b32(16) + ")",
        lambda: "HCLOUD_TOKEN=" + m(alnum(64)),
        lambda: "provider \"aws\" {\n  region     = \"us-east-1\"\n  access_key = \"AKIA" + b32(16) + "\"\n  secret_key = \"" + m(sec) + "\"\n}",
    ]
    return R.choice(opts)()


def o_forge():
    opts = [
        lambda: "GITHUB_TOKEN=" + m("ghp_" + alnum(36)),
        lambda: "git clone https://" + person() + ":" + m("ghp_" + alnum(36)) + "@github.com/example-org/escrow-ui.git",
        lambda: "fine-grained PAT for the CI: " + m("github_pat_" + alnum(22) + "_" + alnum(59)),
        lambda: "GITLAB_TOKEN: " + m("glpat-" + b64u(20)),
        lambda: "[remote \"origin\"]\n\turl = https://oauth2:" + m("glpat-" + b64u(20)) + "@gitlab.example.com/shop/api.git",
        lambda: "//npm.pkg.github.com/:_authToken=" + m("ghp_" + alnum(36)),
        lambda: "Bitbucket app password for the deploy user: " + m(alnum(20)),
        lambda: "gh auth login --with-token <<< " + m("gho_" + alnum(36)),
        lambda: "Hier ist das Token fürs Repo: " + m("ghp_" + alnum(36)) + " – läuft in 30 Tagen ab.",
        lambda: "token de acceso personal de GitHub: " + m("github_pat_" + alnum(22) + "_" + alnum(59)),
    ]
    return R.choice(opts)()


def o_chat():
    opts = [
        lambda: "SLACK_BOT_TOKEN=" + m("xoxb-" + str(R.randint(10 ** 10, 10 ** 12)) + "-" + str(R.randint(10 ** 12, 10 ** 13)) + "-" + alnum(24)),
        lambda: "webhook: https://hooks.slack.com/services/T" + chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10) + "/B" + chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10) + "/" + m(alnum(24)),
        lambda: "DISCORD_TOKEN=" + m(base64.b64encode(str(R.randint(10 ** 17, 10 ** 18)).encode()).decode().rstrip("=") + "." + b64u(6) + "." + b64u(38)),
        lambda: "https://discord.com/api/webhooks/" + str(R.randint(10 ** 17, 10 ** 18)) + "/" + m(b64u(68)),
        lambda: "bot = telebot.TeleBot(\"" + m(str(R.randint(10 ** 9, 10 ** 10 - 1)) + ":AA" + b64u(33)) + "\")",
        lambda: "TELEGRAM_BOT_TOKEN=" + m(str(R.randint(10 ** 9, 10 ** 10 - 1)) + ":AA" + b64u(33)),
        lambda: "Токен бота для уведомлений о сделках: " + m(str(R.randint(10 ** 9, 10 ** 10 - 1)) + ":AA" + b64u(33)),
        lambda: "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"payout done\"}' https://hooks.slack.com/services/T" + chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10) + "/B" + chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10) + "/" + m(alnum(24)),
        lambda: "slack user token (xoxp) if you need to post as me: " + m("xoxp-" + str(R.randint(10 ** 10, 10 ** 12)) + "-" + str(R.randint(10 ** 10, 10 ** 12)) + "-" + str(R.randint(10 ** 12, 10 ** 13)) + "-" + hexs(32)),
        lambda: "matrix access token: " + m("syt_" + b64u(12) + "_" + alnum(20) + "_" + alnum(6)),
    ]
    return R.choice(opts)()


def o_payment():
    opts = [
        lambda: "STRIPE_SECRET_KEY=" + m("sk_live_51" + alnum(96)),
        lambda: "stripe.api_key = \"" + m("rk_live_51" + alnum(96)) + "\"",
        lambda: "STRIPE_WEBHOOK_SECRET=" + m("whsec_" + alnum(32)),
        lambda: "PAYPAL_CLIENT_ID=A" + b64u(79) + "\nPAYPAL_CLIENT_SECRET=" + m("E" + b64u(79)),
        lambda: "square:\n  access_token: " + m("EAAA" + b64u(60)) + "\n  application_secret: " + m("sq0csp-" + b64u(43)),
        lambda: "Braintree private key: " + m(hexs(32)) + " (merchant id " + alnum(16).lower() + ")",
        lambda: "la clave secreta de Stripe en prod es " + m("sk_live_51" + alnum(96)),
        lambda: "Adyen API key: " + m("AQE" + b64u(120)),
        lambda: "Circle API key for USDC payouts: " + m("LIVE_API_KEY:" + hexs(32) + ":" + hexs(32)),
        lambda: "Mollie: " + m("live_" + alnum(30)),
    ]
    return R.choice(opts)()


def o_ai():
    opts = [
        lambda: "OPENAI_API_KEY=" + m("sk-proj-" + b64u(156)),
        lambda: "client = Anthropic(api_key=\"" + m("sk-ant-api03-" + b64u(93) + "AA") + "\")",
        lambda: "HF_TOKEN=" + m("hf_" + alnum(34)),
        lambda: "GEMINI_API_KEY=" + m("AIza" + b64u(35)),
        lambda: "groq key " + m("gsk_" + alnum(52)),
        lambda: "export REPLICATE_API_TOKEN=" + m("r8_" + alnum(37)),
        lambda: "In [1]: import openai\nIn [2]: openai.api_key = \"" + m("sk-proj-" + b64u(156)) + "\"",
        lambda: "清单里的 OpenAI key：" + m("sk-proj-" + b64u(156)),
        lambda: "huggingface-cli login --token " + m("hf_" + alnum(34)),
        lambda: "Mistral-Schlüssel für das Projekt: " + m(alnum(32)),
    ]
    return R.choice(opts)()


def o_db():
    p = pw()
    pu = alnum(R.randint(14, 24))
    h = host()
    opts = [
        lambda: "DATABASE_URL=postgres://" + user() + ":" + m(pu) + "@" + h + ":5432/escrow",
        lambda: "mysql://" + user() + ":" + m(pu) + "@" + ip() + ":3306/shop?charset=utf8mb4",
        lambda: "MONGO_URI=mongodb+srv://" + user() + ":" + m(pu) + "@cluster0.example.net/orders?retryWrites=true",
        lambda: "REDIS_URL=redis://:" + m(pu) + "@" + h + ":6379/0",
        lambda: "amqp://" + user() + ":" + m(pu) + "@" + h + ":5672/%2F",
        lambda: "spring.datasource.url=jdbc:postgresql://" + h + ":5432/ledger\nspring.datasource.username=" + user() + "\nspring.datasource.password=" + m(p),
        lambda: "jdbc:sqlserver://" + ip() + ":1433;databaseName=Payouts;user=sa;password=" + m(pu) + ";encrypt=true",
        lambda: "\"ConnectionStrings\": {\n  \"Default\": \"Server=" + h + ";Database=Shop;User Id=" + user() + ";Password=" + m(pu) + ";TrustServerCertificate=True\"\n}",
        lambda: "$ PGPASSWORD=" + m(pu) + " psql -h " + h + " -U " + user() + " escrow",
        lambda: "$ mysql -h " + ip() + " -u root -p" + m(pu) + " shop",
        lambda: "db:\n  host: " + h + "\n  user: " + user() + "\n  password: \"" + m(p) + "\"",
        lambda: "dsn := \"" + user() + ":" + m(pu) + "@tcp(" + ip() + ":3306)/shop?parseTime=true\"",
        lambda: "engine = create_engine(\"postgresql+psycopg://" + user() + ":" + m(pu) + "@" + h + "/analytics\")",
        lambda: "host=" + h + " port=5432 dbname=ledger user=" + user() + " password=" + m(pu) + " sslmode=require",
        lambda: "CREATE USER report_ro WITH PASSWORD '" + m(p) + "';",
        lambda: "ALTER ROLE payout LOGIN PASSWORD '" + m(p) + "' VALID UNTIL '2027-01-01';",
    ]
    return R.choice(opts)()


def o_keyblock():
    opts = [
        lambda: "-----BEGIN OPENSSH PRIVATE KEY-----\n" + mpem("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", 300, 70) + "\n-----END OPENSSH PRIVATE KEY-----",
        lambda: "deploy key for the box (" + ip() + "):\n-----BEGIN RSA PRIVATE KEY-----\n" + mpem("MIIEpAIBAAKCAQEA", 880) + "\n-----END RSA PRIVATE KEY-----",
        lambda: "tls.key: |\n  -----BEGIN EC PRIVATE KEY-----\n  " + mpem("MHcCAQEEI", 110, sep="\n  ") + "\n  -----END EC PRIVATE KEY-----",
        lambda: "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + mpem("lQVYBG", 700) + "\n=" + b64(3) + "\n-----END PGP PRIVATE KEY BLOCK-----",
        lambda: "ssh_private_key = \"-----BEGIN OPENSSH PRIVATE KEY-----\\n" + mpem("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", 300, 70, sep="\\n") + "\\n-----END OPENSSH PRIVATE KEY-----\"",
        lambda: "Aquí va la llave SSH privada del servidor de staging:\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + mpem("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", 300, 70) + "\n-----END OPENSSH PRIVATE KEY-----",
    ]
    return R.choice(opts)()


def o_web():
    u, p = user(), alnum(R.randint(12, 20))
    opts = [
        lambda: "curl -H \"Authorization: Bearer " + m(jwt()) + "\" https://api.example.com/v1/orders",
        lambda: "GET /admin/payouts HTTP/1.1\nHost: shop.example.com\nCookie: sessionid=" + m(alnum(32)) + "; theme=dark",
        lambda: "document.cookie shows __Secure-next-auth.session-token=" + m(b64u(180)),
        lambda: "Authorization: Basic " + m(base64.b64encode((u + ":" + p).encode()).decode()),
        lambda: "curl -u " + u + ":" + m(p) + " https://ci.example.org/job/release/build",
        lambda: "GOOGLE_CLIENT_ID=" + str(R.randint(10 ** 11, 10 ** 12)) + "-" + chars("abcdefghijklmnopqrstuvwxyz0123456789", 32) + ".apps.googleusercontent.com\nGOOGLE_CLIENT_SECRET=" + m("GOCSPX-" + b64u(28)),
        lambda: "refresh_token: " + m("1//0" + b64u(99)),
        lambda: "OAUTH_CLIENT_SECRET=" + m(b64u(40)) + "\nOAUTH_CLIENT_ID=shop-backoffice",
        lambda: "https://" + u + ":" + m(p) + "@registry.example.com/v2/_catalog",
        lambda: "x-api-key: " + m(alnum(40)) + "\n(that's the partner key for the order API)",
        lambda: "set-cookie: remember_token=" + m(hexs(64)) + "; Path=/; HttpOnly; Secure",
        lambda: "{\"access_token\":\"" + m(jwt()) + "\",\"token_type\":\"Bearer\",\"expires_in\":3600,\"refresh_token\":\"" + m(b64u(64)) + "\"}",
        lambda: "requests.get(url, auth=('" + u + "', '" + m(p) + "'))",
        lambda: "Bearer-токен для стейджа: " + m(jwt()),
        lambda: "api_token = \"" + m(hexs(40)) + "\"  # partner sandbox, rotate monthly",
        lambda: "fetch(\"/api/escrow\", { headers: { Authorization: \"Token " + m(hexs(40)) + "\" } })",
    ]
    return R.choice(opts)()


def o_registry():
    opts = [
        lambda: "//registry.npmjs.org/:_authToken=" + m("npm_" + alnum(36)),
        lambda: "[pypi]\nusername = __token__\npassword = " + m("pypi-AgEIcHlwaS5vcmc" + b64u(140)),
        lambda: "echo " + m("dckr_pat_" + b64u(27)) + " | docker login -u shopbot --password-stdin",
        lambda: "docker login -u deploy -p " + m(alnum(24)) + " registry.example.com",
        lambda: "{\"auths\":{\"registry.example.com\":{\"auth\":\"" + m(base64.b64encode(("deploy:" + alnum(20)).encode()).decode()) + "\"}}}",
        lambda: "CARGO_REGISTRY_TOKEN=" + m("cio" + alnum(32)),
        lambda: "NUGET_API_KEY=" + m("oy2" + chars("abcdefghijklmnopqrstuvwxyz234567", 43)),
        lambda: "RUBYGEMS_API_KEY=" + m("rubygems_" + hexs(48)),
    ]
    return R.choice(opts)()


def o_smtp():
    p = pw()
    opts = [
        lambda: "SMTP_HOST=smtp.example.com\nSMTP_USER=noreply@example.com\nSMTP_PASS=" + m(p),
        lambda: "spring.mail.password=" + m(p),
        lambda: "SENDGRID_API_KEY=" + m("SG." + b64u(22) + "." + b64u(43)),
        lambda: "MAILGUN_API_KEY=" + m("key-" + hexs(32)),
        lambda: "smtp:\n  server: mail.example.net\n  port: 587\n  login: billing@example.net\n  password: " + m(p),
        lambda: "TWILIO_ACCOUNT_SID=AC" + hexs(32) + "\nTWILIO_AUTH_TOKEN=" + m(hexs(32)),
        lambda: "Postmark server token: " + m(uuid()),
    ]
    return R.choice(opts)()


def o_signed():
    opts = [
        lambda: "download (valid 1h): https://deliverables.s3.amazonaws.com/order-" + str(R.randint(1000, 9999)) + "/final.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA" + b32(16) + "%2F20261129%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261129T010203Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=" + m(hexs(64)),
        lambda: "https://shopassets.blob.core.windows.net/drop/report.pdf?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-01T00:00:00Z&spr=https&sig=" + m(b64u(43) + "%3D"),
        lambda: "https://storage.googleapis.com/example-drop/model.bin?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=uploader%40example.iam.gserviceaccount.com%2F20261129%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261129T000000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature=" + m(hexs(512)),
        lambda: "Link zum Download: https://cdn.example.com/files/build.tar.gz?expires=1796000000&token=" + m(b64u(32)),
        lambda: "ACCOUNT_SAS=\"?sv=2023-01-03&ss=bfqt&srt=sco&sp=rwdlacup&se=2026-12-31&sig=" + m(b64u(43) + "%3D") + "\"",
    ]
    return R.choice(opts)()


def o_totp():
    s = b32(32)
    opts = [
        lambda: "otpauth://totp/Exchange:" + person() + "@example.com?secret=" + m(s) + "&issuer=Exchange",
        lambda: "2FA setup key (if the QR won't scan): " + m(" ".join(s[i:i + 4] for i in range(0, 32, 4))),
        lambda: "TOTP_SECRET=" + m(s),
        lambda: "pyotp.TOTP(\"" + m(s) + "\").now()",
        lambda: "Schlüssel für den Authenticator: " + m(s),
        lambda: "clave 2FA de la cuenta del exchange: " + m(s.lower()),
    ]
    return R.choice(opts)()


def o_password_prose():
    p = pw()
    u = person()
    opts = [
        lambda: "login for the staging admin is " + u + " / " + m(p),
        lambda: "Das Passwort für den Admin-Bereich ist " + m(p),
        lambda: "Le mot de passe du panneau est " + m(p) + ", change-le après la livraison.",
        lambda: "La contraseña del panel es " + m(p) + " y el usuario " + u,
        lambda: "A senha do painel é " + m(p) + ", troque depois.",
        lambda: "La password dell'account di test è " + m(p),
        lambda: "Пароль от админки: " + m(p),
        lambda: "Пароль до панелі керування: " + m(p) + ", змініть його після здачі.",
        lambda: "Hasło do panelu: " + m(p),
        lambda: "Panelin şifresi " + m(p) + ", teslimden sonra değiştir.",
        lambda: "הסיסמה לפאנל היא " + m(p),
        lambda: "رمز عبور پنل مدیریت: " + m(p),
        lambda: "كلمة المرور للوحة التحكم: " + m(p),
        lambda: "รหัสผ่านของแผงควบคุมคือ " + m(p),
        lambda: "Ο κωδικός πρόσβασης για το panel είναι " + m(p),
        lambda: "Nenosiri la paneli ni " + m(p) + ", tafadhali libadilishe baadaye.",
        lambda: "管理后台密码：" + m(p),
        lambda: "管理画面のパスワードは " + m(p) + " です。",
        lambda: "관리자 비밀번호는 " + m(p) + " 입니다.",
        lambda: "Mật khẩu trang quản trị là " + m(p),
        lambda: "एडमिन पैनल का पासवर्ड " + m(p) + " है।",
        lambda: "Kata sandi panel admin: " + m(p),
        lambda: "Het wachtwoord van het dashboard is " + m(p),
        lambda: "user: " + u + "\npass: " + m(p),
        lambda: "sshpass -p '" + m(p) + "' ssh " + u + "@" + ip(),
        lambda: "wifi at the office: SSID shop-guest, pw " + m(p),
    ]
    return R.choice(opts)()


def o_config_pw():
    p = pw()
    opts = [
        lambda: "[mysqld_client]\nuser = " + user() + "\npassword = " + m(p),
        lambda: "<connectionString>Data Source=" + host() + ";Initial Catalog=Ledger;User ID=" + user() + ";Password=" + m(p) + "</connectionString>",
        lambda: "<property name=\"password\" value=\"" + m(p) + "\"/>",
        lambda: "ENV ADMIN_PASSWORD=" + m(p) + "\nEXPOSE 8080",
        lambda: "deploy:\n\tRELEASE_PASSWORD='" + m(p) + "' ./scripts/release.sh",
        lambda: "*/15 * * * * BACKUP_PASS='" + m(p) + "' /opt/backup/run.sh >> /var/log/backup.log 2>&1",
        lambda: "resource \"aws_db_instance\" \"main\" {\n  username = \"" + user() + "\"\n  password = \"" + m(p) + "\"\n}",
        lambda: "environment:\n  POSTGRES_USER: app\n  POSTGRES_PASSWORD: " + m(p),
        lambda: "kind: Secret\nstringData:\n  admin-password: " + m(p),
        lambda: "1042  export ADMIN_PASS='" + m(p) + "'\n1043  ./manage.py createsuperuser --noinput",
        lambda: "RABBITMQ_DEFAULT_PASS=" + m(p),
        lambda: "[client]\npassword=\"" + m(p) + "\"\nhost=" + ip(),
    ]
    return R.choice(opts)()


# ---------------------------------------------------------------- look-alikes


def txh():
    return "0x" + hexs(64)


def l_chain():
    a = addr()
    opts = [
        lambda: "paid 1,250 USDC, tx " + txh() + " (block 21" + str(R.randint(100000, 999999)) + ")",
        lambda: "Transaction hash: " + txh() + "\nStatus: Success\nFrom: " + a + "\nTo: " + addr(),
        lambda: "blockHash: '" + txh() + "',\nblockNumber: " + str(R.randint(10 ** 7, 10 ** 8)) + ",\ntransactionHash: '" + txh() + "'",
        lambda: "topics: [\"0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef\", \"0x000000000000000000000000" + addr()[2:].lower() + "\", \"0x000000000000000000000000" + addr()[2:].lower() + "\"]",
        lambda: "calldata: 0xa9059cbb000000000000000000000000" + addr()[2:].lower() + "0" * 56 + hexs(8),
        lambda: "bytes32 constant SLOT = " + txh() + "; // keccak256(\"escrow.storage.v1\") - 1",
        lambda: "signature: 0x" + hexs(128) + R.choice(["1b", "1c"]) + "\nmessage: \"I agree to the terms of order #" + str(R.randint(1000, 9999)) + "\"",
        lambda: "seller payout address: " + a + " (checksummed, please double-check before sending)",
        lambda: "pubkey (uncompressed): 0x04" + hexs(128),
        lambda: "validator pubkey 0x" + hexs(96),
        lambda: "Hash de la transacción: " + txh() + " — ya está confirmada.",
        lambda: "Хэш транзакции: " + txh() + ", подтверждений 12.",
        lambda: "交易哈希：" + txh() + "，已确认",
        lambda: "xpub for the watch-only wallet: " + xkey("xpub"),
        lambda: "zpub (watch-only, send the invoice addresses from here): " + xkey("zpub"),
        lambda: "Solana tx signature: " + b58enc(rb(64)) + "\nslot " + str(R.randint(10 ** 8, 10 ** 9)),
        lambda: "USDC mint on Solana devnet example: " + solpub() + ", recipient " + solpub(),
        lambda: "merkle root 0x" + hexs(64) + "\nproof: [\"0x" + hexs(64) + "\", \"0x" + hexs(64) + "\"]",
        lambda: "safeTxHash " + txh() + " needs 2 more confirmations",
        lambda: "EIP-712 domain separator: " + txh(),
        lambda: "event Released(bytes32 indexed orderId, address seller, uint256 amount)\norderId = " + txh(),
        lambda: "bitcoin txid " + hexs(64) + " vout 1",
        lambda: "receive address bc1q" + chars("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 38) + " (BTC), " + a + " (USDT ERC-20)",
        lambda: "storage slot 0x" + hexs(64) + " -> value 0x" + "0" * 24 + addr()[2:].lower(),
        lambda: "INSERT INTO payments (order_id, tx_hash, payer) VALUES (" + str(R.randint(1, 99999)) + ", '" + txh() + "', '" + a + "');",
        lambda: "order_id,tx_hash,amount_usdc\n" + str(R.randint(100, 999)) + "," + txh() + ",420.00\n" + str(R.randint(100, 999)) + "," + txh() + ",75.50",
        lambda: "initCodeHash = \"" + txh() + "\"",
        lambda: "2026-11-28T22:10:41Z INFO settle: order=" + ulid() + " tx=" + txh() + " gas=51234",
        lambda: "ECDSA pubkey (compressed): 0" + R.choice("23") + hexs(64),
        lambda: "ed25519 public key: " + solpub(),
    ]
    return R.choice(opts)()


def l_ids():
    opts = [
        lambda: "fixed in commit " + hexs(40) + ", see PR #" + str(R.randint(10, 999)),
        lambda: "sha256(deliverable.zip) = " + hexs(64),
        lambda: "SHA512 (release.tar.gz) = " + hexs(128),
        lambda: "request_id=" + uuid() + " status=200 latency_ms=" + str(R.randint(5, 900)),
        lambda: "order " + ulid() + " moved to DELIVERED",
        lambda: "pinned to IPFS: " + cid0() + " and " + cid1(),
        lambda: "image: ghcr.io/example/api@sha256:" + hexs(64),
        lambda: "integrity=\"sha384-" + b64(48) + "\"",
        lambda: "ETag: \"" + hexs(32) + "\"",
        lambda: "md5: " + hexs(32) + "  dataset_v3.parquet",
        lambda: "git log --oneline\n" + "\n".join(hexs(7) + " " + R.choice(["fix escrow timeout", "add payout csv", "bump deps", "refactor signer", "docs: api"]) for _ in range(4)),
        lambda: "correlation-id: " + uuid() + "\ntrace-id: " + hexs(32) + "\nspan-id: " + hexs(16),
        lambda: "\"resolved\": \"https://registry.npmjs.org/ethers/-/ethers-6.13.2.tgz\",\n\"integrity\": \"sha512-" + b64(64) + "\"",
        lambda: "go.sum: golang.org/x/crypto v0.31.0 h1:" + b64(32),
        lambda: "invoice INV-2026-" + str(R.randint(1000, 9999)) + " / ref " + uuid(),
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(32)[:43] + " " + person() + "@laptop",
        lambda: "fingerprint SHA256:" + b64(32).rstrip("=") + " (ED25519)",
        lambda: "-----BEGIN PUBLIC KEY-----\n" + pem_body("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", 250).replace("\\n", "\n") + "\n-----END PUBLIC KEY-----",
        lambda: "PGP fingerprint: " + " ".join(hexs(4).upper() for _ in range(10)),
        lambda: "AWS account 123456789012, role arn:aws:iam::123456789012:role/deployer, bucket example-deliverables",
    ]
    return R.choice(opts)()


def l_data():
    opts = [
        lambda: "thumbnail: data:image/png;base64," + b64(120),
        lambda: "payload (base64 of the JSON body): " + base64.b64encode(('{"order":%d,"status":"shipped","items":%d}' % (R.randint(1, 9999), R.randint(1, 9))).encode()).decode(),
        lambda: "font-face src: url(data:font/woff2;base64," + b64(90) + ")",
        lambda: "avatar_b64 = \"" + base64.b64encode(("avatar-of-" + person() + "-128px").encode()).decode() + "\"",
        lambda: "public JWKS: {\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" + b64u(43) + "\",\"kid\":\"" + ulid() + "\"}",
        lambda: "color palette: #" + hexs(6) + " #" + hexs(6) + " #" + hexs(6),
        lambda: "-----BEGIN CERTIFICATE-----\n" + pem_body("MIIDdzCCAl+gAwIBAgIE", 700).replace("\\n", "\n") + "\n-----END CERTIFICATE-----",
        lambda: "nonce=" + str(R.randint(0, 99)) + " chainId=8453 gasPrice=" + str(R.randint(10 ** 8, 10 ** 10)) + " value=0",
        lambda: "wasm hash: 0x" + hexs(64) + "\ncode id: " + str(R.randint(100, 999)),
        lambda: "csp nonce-" + b64(16) + " applied to inline scripts",
    ]
    return R.choice(opts)()


def l_placeholder():
    opts = [
        lambda: "PRIVATE_KEY=<your-private-key>\nRPC_URL=<your-rpc-url>",
        lambda: "BINANCE_API_KEY=xxxxxxxxxxxxxxxx\nBINANCE_API_SECRET=xxxxxxxxxxxxxxxx",
        lambda: "OPENAI_API_KEY=${OPENAI_API_KEY}",
        lambda: "password: REPLACE_ME",
        lambda: "DATABASE_URL=postgres://user:password@localhost:5432/dbname",
        lambda: "mnemonic: \"<twelve words here>\"",
        lambda: "api_key = \"YOUR_API_KEY\"  # get one at the dashboard",
        lambda: "STRIPE_SECRET_KEY=sk_live_...  (ask finance)",
        lambda: "export AWS_SECRET_ACCESS_KEY=***",
        lambda: "token: ********** (redacted)",
        lambda: "aws_secret_access_key = <redacted>",
        lambda: "PRIVATE_KEY=0x...",
        lambda: "secret: \"{{ .Values.apiSecret }}\"",
        lambda: "DB_PASSWORD=%DB_PASSWORD%",
        lambda: "-p $MYSQL_ROOT_PASSWORD",
        lambda: "Authorization: Bearer <token>",
        lambda: "https://mainnet.infura.io/v3/YOUR_PROJECT_ID",
        lambda: "https://eth-mainnet.g.alchemy.com/v2/${ALCHEMY_KEY}",
        lambda: "clave_privada = \"<pon-aquí-tu-clave>\"",
        lambda: "ключ: <ваш_ключ_API>",
        lambda: "GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    ]
    return R.choice(opts)()


def l_code():
    opts = [
        lambda: "pk = os.environ[\"PRIVATE_KEY\"]\nacct = Account.from_key(pk)",
        lambda: "const wallet = new ethers.Wallet(process.env.DEPLOYER_KEY!, provider);",
        lambda: "key, err := crypto.HexToECDSA(strings.TrimPrefix(os.Getenv(\"SIGNER_KEY\"), \"0x\"))",
        lambda: "let key = std::env::var(\"PRIVATE_KEY\").expect(\"set PRIVATE_KEY\");",
        lambda: "String secret = System.getenv(\"EXCHANGE_API_SECRET\");",
        lambda: "var pwd = Environment.GetEnvironmentVariable(\"DB_PASSWORD\");",
        lambda: "api_secret = ENV.fetch(\"KRAKEN_PRIVATE_KEY\")",
        lambda: "$password = getenv('SMTP_PASSWORD');",
        lambda: "uint256 deployerKey = vm.envUint(\"PRIVATE_KEY\");\nvm.startBroadcast(deployerKey);",
        lambda: "val token = System.getenv(\"TELEGRAM_BOT_TOKEN\") ?: error(\"missing token\")",
        lambda: "let apiKey = ProcessInfo.processInfo.environment[\"API_KEY\"] ?? \"\"",
        lambda: ": \"${DEPLOYER_KEY:?DEPLOYER_KEY must be set}\"\ncast send --private-key \"$DEPLOYER_KEY\" \"$TOKEN\" \"transfer(address,uint256)\" \"$TO\" 1000000",
        lambda: "password = var.db_password\nsensitive = true",
        lambda: "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: ledger-db\n        key: password",
        lambda: "env:\n  PRIVATE_KEY: ${{ secrets.DEPLOYER_PRIVATE_KEY }}\n  ALCHEMY_KEY: ${{ secrets.ALCHEMY_KEY }}",
        lambda: "environment:\n  POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?}",
        lambda: "$ vault kv get -field=api_secret secret/exchange/binance",
        lambda: "aws secretsmanager get-secret-value --secret-id prod/escrow/signer --query SecretString --output text",
        lambda: "op read \"op://Shop/Stripe/secret key\"",
        lambda: "mnemonic = keyring.get_password(\"escrow\", \"mnemonic\")",
        lambda: "const secret = await sm.getSecretValue({ SecretId: 'kraken-api' }).promise();",
        lambda: "if not os.getenv(\"MNEMONIC\"):\n    raise SystemExit(\"MNEMONIC not set; see README\")",
        lambda: "PRIVATE_KEY=$(gcloud secrets versions access latest --secret=deployer-key)",
        lambda: "password := readPassword(\"Keystore password: \")\nks.Unlock(acct, password)",
    ]
    return R.choice(opts)()


def l_prose():
    opts = [
        lambda: "Never paste your seed phrase anywhere. I will never ask for it, and neither will support.",
        lambda: "I'll send the admin password over Signal, not here.",
        lambda: "The private key stays on the Ledger; I only need the xpub to generate invoices.",
        lambda: "Rotate the Binance API secret after the job is done and disable withdrawals on it.",
        lambda: "Das Passwort schicke ich dir separat per Telefon.",
        lambda: "Le mot de passe doit faire au moins 14 caractères avec un symbole.",
        lambda: "No compartas la frase semilla con nadie, ni siquiera con el soporte.",
        lambda: "A senha será enviada por outro canal, por segurança.",
        lambda: "Пароль пришлю отдельно, в личке.",
        lambda: "Пароль надішлю окремим повідомленням.",
        lambda: "Hasło wyślę SMS-em.",
        lambda: "Şifreyi ayrı bir kanaldan göndereceğim.",
        lambda: "את הסיסמה אשלח בהודעה נפרדת.",
        lambda: "رمز عبور را جداگانه برایت می‌فرستم.",
        lambda: "سأرسل كلمة المرور في رسالة منفصلة.",
        lambda: "ฉันจะส่งรหัสผ่านให้ทางช่องทางอื่นนะ",
        lambda: "Θα σου στείλω τον κωδικό σε ξεχωριστό μήνυμα.",
        lambda: "Nitakutumia nenosiri kwa ujumbe tofauti.",
        lambda: "助记词千万不要截图或发给任何人。",
        lambda: "秘密鍵は絶対にチャットに貼らないでください。",
        lambda: "비밀번호는 따로 전화로 알려드릴게요.",
        lambda: "Mật khẩu tôi sẽ gửi qua kênh khác.",
        lambda: "पासवर्ड मैं अलग से भेज दूँगा।",
        lambda: "The keystore file is encrypted; the password is in the team vault under 'escrow-signer'.",
        lambda: "Acceptance criteria: the bot reads the API key and secret from env vars, never from the repo.",
        lambda: "Question: does the deliverable need the private key, or can it use a remote signer?",
        lambda: "Il wallet di test ha 12 parole di recupero; le custodisco io offline.",
        lambda: "Wachtwoord komt via de password manager, niet via de chat.",
        lambda: "Please reset my password, the reset link expired.",
        lambda: "Tip: set a strong password and enable 2FA with an authenticator app, not SMS.",
        lambda: "The token expired at 14:00 UTC; generate a new one in the dashboard and put it in the CI secrets.",
        lambda: "Kata sandi akan saya kirim lewat pesan terpisah.",
    ]
    return R.choice(opts)()


def l_words():
    opts = [
        lambda: "Please review the final report before the meeting, then submit the invoice and wait for approval.",
        lambda: "We need a simple design for the home page: clean layout, bright color, clear button, short text.",
        lambda: "Task list: fix the bridge contract, update the token balance display, add a menu for history.",
        lambda: "The seller should deliver the source code, a demo video and a short guide; the buyer will test it on a fresh machine.",
        lambda: "Word count: about 1500; topic: ocean energy; tone: calm, honest, simple.",
        lambda: "Tags: animal, forest, river, mountain, winter, garden",
        lambda: "Keywords for the SEO brief: coffee, machine, kitchen, office, morning, fresh",
        lambda: "Found a typo: 'abandon' should be 'abandoned' in the second paragraph.",
        lambda: "Valid BIP-39 words include ordinary English ones like 'apple', 'bridge' and 'zoo', which is why a single word proves nothing.",
        lambda: "Enum values: ACTIVE, PAUSED, CANCEL, EXPIRE, REFUND",
    ]
    return R.choice(opts)()


def l_misc():
    opts = [
        lambda: "Password requirements: min 12 chars, 1 uppercase, 1 digit. Current policy id: " + uuid(),
        lambda: "HTTP/1.1 401 Unauthorized\nWWW-Authenticate: Bearer realm=\"api\", error=\"invalid_token\"",
        lambda: "[mysql]\nuser = readonly\npassword_file = /run/secrets/db_password",
        lambda: "key_id: " + uuid() + "\nalgorithm: ed25519\nstatus: active",
        lambda: "--password-file ./secrets/keystore.pass",
        lambda: "The API key prefix shown in the dashboard is sk_live_…" + alnum(4) + " (last four only)",
        lambda: "UPDATE users SET password_reset_required = true WHERE last_login < '2025-01-01';",
        lambda: "AUTH_SECRET_LENGTH=64\nSESSION_TTL=3600\nPASSWORD_MIN_LENGTH=12",
        lambda: "Stripe publishable key for the checkout page (public): pk_live_51" + alnum(96),
        lambda: "GA measurement id G-" + chars("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 10) + ", GTM-" + chars("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 7),
        lambda: "\"passwordless\": true, \"mfa\": \"webauthn\"",
        lambda: "chmod 600 ~/.ssh/id_ed25519 && ssh-add ~/.ssh/id_ed25519",
        lambda: "wallet.json is encrypted with scrypt (n=262144, r=8, p=1); mac " + hexs(64),
        lambda: "coupon code SPRING" + str(R.randint(10, 99)) + " gives 10% off the listing fee",
        lambda: "tracking number 1Z" + chars("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 16) + ", order " + ulid(),
        lambda: "OAuth client id (public): " + str(R.randint(10 ** 11, 10 ** 12)) + "-" + chars("abcdefghijklmnopqrstuvwxyz0123456789", 32) + ".apps.googleusercontent.com",
    ]
    return R.choice(opts)()



def l_chat():
    o = str(R.randint(1000, 99999))
    n = person()
    opts = [
        lambda: "buyer: sent 300 USDT for order #" + o + "\nseller: got it, tx " + txh() + " confirmed. starting now",
        lambda: n + ": which address do I pay?\nseller: " + addr() + " on Base, USDC only please",
        lambda: "Ticket SUP-" + o + ": customer asks us to 'recover' their wallet. Reply: we never hold keys or seed phrases; nothing we can do.",
        lambda: "PR #" + o + ": move signer key loading to KMS\n- remove PRIVATE_KEY from .env.example\n- read key id from config\n- add test with a mocked signer",
        lambda: "Hi " + n + ", the staging DB password was rotated today; ask ops for the new one via the vault request form.",
        lambda: "Re: order " + o + " — el comprador pide la contraseña del panel; se la mando por el canal seguro, no por aquí.",
        lambda: "Bestellung " + o + ": Zugangsdaten kommen per verschlüsselter Mail, bitte nicht im Chat posten.",
        lambda: "Заказ " + o + ": ключи API создаёт покупатель сам, мне нужны только права на чтение.",
        lambda: "commande " + o + " : le client garde sa phrase de récupération, on n'en a pas besoin pour l'intégration.",
        lambda: "pedido " + o + ": o comprador fornece a chave de API com permissão só de leitura, sem saque.",
        lambda: "Changelog v1." + str(R.randint(0, 30)) + ": signer now refuses to start when PRIVATE_KEY is unset; secrets are loaded from the OS keychain.",
        lambda: "deliverable checklist for " + n + ":\n[x] contract verified\n[x] tests green (commit " + hexs(40) + ")\n[ ] hand over: no keys in the repo",
        lambda: "2026-11-" + str(R.randint(10, 28)) + " 12:0" + str(R.randint(0, 9)) + ":11 ERROR auth: invalid api key for account " + uuid() + " (key redacted)",
        lambda: "WARN config: PRIVATE_KEY not set, falling back to read-only mode (chain " + str(R.choice([1, 10, 137, 8453, 42161])) + ")",
        lambda: "Stack trace:\n  at Signer.load (signer.ts:" + str(R.randint(10, 200)) + ")\nError: env var SIGNER_KEY is empty",
        lambda: "חשבונית " + o + " שולמה, מזהה העסקה " + txh(),
        lambda: "سفارش " + o + " پرداخت شد، هش تراکنش " + txh(),
        lambda: "Malipo ya oda " + o + " yamethibitishwa: " + txh(),
    ]
    return R.choice(opts)()


def l_combo():
    return l_chat() + "\n" + R.choice([l_chain, l_ids, l_code, l_placeholder])()


def w_combo():
    return R.choice([l_chat, l_chain, l_ids])() + "\n" + R.choice([w_evm, w_mnemonic, w_exchange, w_rpc, w_keystore])()


def o_combo():
    return R.choice([l_chat, l_ids, l_code])() + "\n" + R.choice([o_db, o_web, o_password_prose, o_cloud, o_ai])()



def w_typo():
    k = evmkey()
    ws = mnemonic(12)
    opts = [
        lambda: "heres the privkey lol " + m(k) + " dont lose it",
        lambda: "pirvate key for teh test walet: 0x" + m(k),
        lambda: "sead phrase (sorry for typos, copying from paper): " + m(" ".join(ws)),
        lambda: "ok fine here: " + m(k) + "\nits the sepolia one, no real money",
        lambda: "diff --git a/.env b/.env\n+RPC_URL=https://rpc.example.org\n+PRIVATE_KEY=" + m(k),
        lambda: "Screenshot (OCR): Export Private Key\nThis key gives full control of your account\n" + m(k[:32]) + "\n" + m(k[32:]),
        lambda: "wallet words in groups of 4 for readability:\n" + "\n".join(" ".join(m(w) for w in ws[i:i + 4]) for i in range(0, 12, 4)),
        lambda: "{\n \"cells\": [{\"cell_type\": \"code\", \"source\": [\"PK = '" + m(k) + "'\\n\", \"w3.eth.account.from_key(PK)\"]}]\n}",
        lambda: "Memo for the handover — wallet: " + addr() + " / priv: " + m(k) + " / chain: Polygon",
        lambda: "Q: why does this revert?\n```\nconst signer = new Wallet('" + m(k) + "', provider)\nawait escrow.release(orderId)\n```",
    ]
    return R.choice(opts)()


def o_typo():
    p = pw()
    u = person()
    opts = [
        lambda: "pasword for teh admin: " + m(p),
        lambda: "passwrod: " + m(p) + " (user " + u + ")",
        lambda: "login " + u + " pw " + m(p) + " pls change it",
        lambda: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: ledger-db\ntype: Opaque\ndata:\n  password: " + m(base64.b64encode(p.encode()).decode()),
        lambda: "~/.pgpass:\n" + host() + ":5432:ledger:" + user() + ":" + m(alnum(18)),
        lambda: "~/.netrc\nmachine api.example.com\n  login " + u + "\n  password " + m(alnum(20)),
        lambda: "[Interface]\nPrivateKey = " + m(b64(32)) + "\nAddress = 10.8.0.2/32\n\n[Peer]\nPublicKey = " + b64(32) + "\nEndpoint = 203.0.113.7:51820",
        lambda: "~/.git-credentials:\nhttps://" + u + ":" + m("ghp_" + alnum(36)) + "@github.com",
        lambda: "{\"info\":{\"name\":\"Escrow API\"},\"auth\":{\"type\":\"apikey\",\"apikey\":[{\"key\":\"value\",\"value\":\"" + m(alnum(40)) + "\"}]}}",
        lambda: "id,email,api_secret\n" + str(R.randint(1, 999)) + "," + u + "@example.com," + m(hexs(48)),
        lambda: "gradle.properties:\nsigning.password=" + m(p) + "\nsigning.keyId=" + hexs(8).upper(),
        lambda: "Mot de passe WiFi du coworking : " + m(p),
    ]
    return R.choice(opts)()


def l_more():
    opts = [
        lambda: "{\n  \"parentHash\": \"" + txh() + "\",\n  \"stateRoot\": \"" + txh() + "\",\n  \"receiptsRoot\": \"" + txh() + "\",\n  \"mixHash\": \"" + txh() + "\",\n  \"number\": \"0x" + hexs(7) + "\"\n}",
        lambda: "permit signature split:\nv: " + R.choice(["27", "28"]) + "\nr: " + txh() + "\ns: " + txh(),
        lambda: "keccak256(abi.encodePacked(orderId, seller)) = " + txh(),
        lambda: "[Peer]\nPublicKey = " + b64(32) + "\nAllowedIPs = 10.8.0.0/24\nEndpoint = 198.51.100.20:51820",
        lambda: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: ledger-db\ntype: Opaque\nstringData:\n  password: ${DB_PASSWORD}",
        lambda: "blob " + hexs(40) + "\ntree " + hexs(40) + "\nparent " + hexs(40),
        lambda: "eth_getStorageAt(" + addr() + ", 0x" + hexs(64) + ") -> 0x" + "0" * 63 + "1",
        lambda: "log index 3: Transfer(from=" + addr() + ", to=" + addr() + ", value=" + str(R.randint(10 ** 6, 10 ** 10)) + ")\ntopic0 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
        lambda: "uploaded to Arweave: " + b64u(43) + " (tx id)",
        lambda: "Tx подписана, r=" + txh() + " s=" + txh() + " v=" + R.choice(["0", "1"]),
        lambda: "blob hash (EIP-4844): 0x01" + hexs(62),
        lambda: "commitment: 0x" + hexs(96) + "\nproof: 0x" + hexs(96),
    ]
    return R.choice(opts)()


# ---------------------------------------------------------------- write

WALLET = [(w_evm, 30), (w_evm_more, 18), (w_mnemonic, 32), (w_xprv, 10), (w_wif_sol, 14), (w_keystore, 10),
          (w_exchange, 20), (w_rpc, 14), (w_combo, 14), (w_typo, 14)]
OTHER = [(o_cloud, 18), (o_forge, 12), (o_chat, 12), (o_payment, 12), (o_ai, 12), (o_db, 22), (o_keyblock, 8),
         (o_web, 20), (o_registry, 8), (o_smtp, 8), (o_signed, 6), (o_totp, 6), (o_password_prose, 28),
         (o_config_pw, 14), (o_combo, 12), (o_typo, 16)]
LOOK = [(l_chain, 80), (l_ids, 40), (l_data, 20), (l_placeholder, 40), (l_code, 45), (l_prose, 50), (l_words, 12),
        (l_misc, 26), (l_chat, 30), (l_combo, 40), (l_more, 36)]


def esc(s):
    return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def build(table, marked):
    out, seen = [], set()
    for fn, n in table:
        got, tries = 0, 0
        while got < n and tries < n * 30:
            tries += 1
            s = fn()
            line = esc(s)
            if line in seen:
                continue
            seen.add(line)
            assert not line.startswith("#") and line.strip(), line
            assert ("«" in line) == marked, line
            assert line.count("«") == line.count("»")
            out.append(line)
            got += 1
    R.shuffle(out)
    return out


def write(name, head, lines):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        f.write(head + "\n")
        for line in lines:
            f.write(line + "\n")


secrets = build(WALLET, True) + build(OTHER, True)
R.shuffle(secrets)
looks = build(LOOK, False)
write("heldout4_secret.txt",
      "# Fourth held-out credential corpus: texts between buyers and sellers, each holding credentials; «» marks what must be removed.\n"
      "# Generated by heldout4_gen.py (seeded); all values random and fake. Do not edit by hand.", secrets)
write("heldout4_lookalike.txt",
      "# Fourth held-out credential corpus: look-alikes (hashes, addresses, public keys, ids, placeholders, env reads, prose) in which nothing may be found.\n"
      "# Generated by heldout4_gen.py (seeded); all values random and fake. Do not edit by hand.", looks)
print(len(secrets), len(looks))
