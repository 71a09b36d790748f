#!/usr/bin/env python3
"""Writes heldout6_secret.txt and heldout6_lookalike.txt (sixth held-out credential corpus).

Written apart from the credential rules: see README.md, "Sixth held-out credentials".
Stdlib only and seeded, so rerunning rewrites both files identically.
Every value is random and fake; hosts are reserved or made up, IPs from documentation ranges.
"""
import base64
import hashlib
import json
import os
import random
import struct
import zlib

rng = random.Random(20261129)
HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = open(os.path.join(HERE, "..", "..", "bip39_english.txt")).read().split()
assert len(WORDS) == 2048

UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LO = "abcdefghijklmnopqrstuvwxyz"
DIG = "0123456789"
ALNUM = UP + LO + DIG
HEX = "0123456789abcdef"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
B32 = UP + "234567"


def M(v):
    return "\u00ab" + v + "\u00bb"


def rs(n, alpha=ALNUM):
    return "".join(rng.choice(alpha) for _ in range(n))


def rbytes(n):
    return bytes(rng.randrange(256) for _ in range(n))


def hexs(n):
    return rs(n, HEX)


def pick(xs):
    return rng.choice(xs)


def b58enc(b):
    n = int.from_bytes(b, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    pad = len(b) - len(b.lstrip(b"\0"))
    return "1" * pad + out


def b58check(payload):
    return b58enc(payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4])


N_SECP = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def privkey():
    while True:
        b = rbytes(32)
        if 0 < int.from_bytes(b, "big") < N_SECP:
            return b


def evm_key(prefix=None):
    h = privkey().hex()
    if prefix is None:
        prefix = rng.random() < 0.6
    return ("0x" + h) if prefix else h


def wif(compressed=True, testnet=False):
    p = (b"\xef" if testnet else b"\x80") + privkey() + (b"\x01" if compressed else b"")
    return b58check(p)


def xkey(version_hex, priv=True):
    v = bytes.fromhex(version_hex)
    depth = bytes([pick([0, 3, 4])])
    fp = b"\0\0\0\0" if depth == b"\0" else rbytes(4)
    child = b"\0\0\0\0" if depth == b"\0" else struct.pack(">I", rng.randrange(0, 2**31) | (0x80000000 if rng.random() < 0.5 else 0))
    chain = rbytes(32)
    keydata = (b"\0" + privkey()) if priv else (bytes([pick([2, 3])]) + rbytes(32))
    return b58check(v + depth + fp + child + chain + keydata)


def xprv():
    return xkey(pick(["0488ade4", "0488ade4", "04b2430c", "04358394"]))


def xpub():
    return xkey(pick(["0488b21e", "04b24746"]), priv=False)


def sol_secret():
    return b58enc(rbytes(64))


def sol_pub():
    return b58enc(rbytes(32))


def mnemonic(n=None):
    n = n or pick([12, 12, 15, 18, 21, 24, 24])
    ent_bits = n * 11 * 32 // 33
    ent = rbytes(ent_bits // 8)
    cs = ent_bits // 32
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(ent_bits)
    h = bin(int.from_bytes(hashlib.sha256(ent).digest(), "big"))[2:].zfill(256)[:cs]
    bits += h
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
    ent_bits = n * 11 * 32 // 33
    ent = int(bits[:ent_bits], 2).to_bytes(ent_bits // 8, "big")
    h = bin(int.from_bytes(hashlib.sha256(ent).digest(), "big"))[2:].zfill(256)[: ent_bits // 32]
    return bits[ent_bits:] == h


def bad_mnemonic(n):
    while True:
        ws = [pick(WORDS) for _ in range(n)]
        if not mnemonic_valid(ws):
            return ws


def b64(b):
    return base64.b64encode(b).decode()


def b64url(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def uuid4():
    h = list(hexs(32))
    h[12] = "4"
    h[16] = pick("89ab")
    h = "".join(h)
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def b62(n, width):
    s = ""
    while n:
        n, r = divmod(n, 62)
        s = (DIG + UP + LO)[r] + s
    return s.rjust(width, "0")


def gh_token(prefix="ghp_"):
    body = rs(30)
    return prefix + body + b62(zlib.crc32(body.encode()) & 0xFFFFFFFF, 6)


def jwt(claims=None, alg="HS256"):
    hdr = {"alg": alg, "typ": "JWT"}
    now = 1795000000 + rng.randrange(10**6)
    c = claims or {"sub": str(rng.randrange(10**5, 10**6)), "role": pick(["buyer", "seller", "admin", "service"]), "iat": now, "exp": now + 3600}
    sig = rbytes(256 if alg == "RS256" else 32)
    return ".".join([b64url(json.dumps(hdr, separators=(",", ":")).encode()), b64url(json.dumps(c, separators=(",", ":")).encode()), b64url(sig)])


def password():
    kind = rng.randrange(5)
    a, b = pick(WORDS).capitalize(), pick(WORDS).capitalize()
    if kind == 0:
        return a + pick("!$&*") + b + str(rng.randrange(10, 99))
    if kind == 1:
        return rs(rng.randrange(14, 22), ALNUM + "!^&*-_=+")
    if kind == 2:
        return "%s-%s-%s-%d" % (pick(WORDS), pick(WORDS), pick(WORDS), rng.randrange(10, 99))
    if kind == 3:
        return rs(4, UP) + rs(4, DIG) + pick("!$") + rs(5, LO)
    return a + str(rng.randrange(1000, 9999)) + pick("!.$") + b[:4].lower()


def pem_body(nbytes, prefix=b""):
    raw = prefix + rbytes(nbytes - len(prefix))
    s = b64(raw)
    return "\n".join(s[i:i + 64] for i in range(0, len(s), 64))


RSA_PKCS8 = bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7308204a30201000282010100")
RSA_PKCS1 = bytes.fromhex("308204a40201000282010100")
EC_SEC1 = bytes.fromhex("307702010104")


def user():
    return pick(["deploy", "app", "svc_orders", "admin", "ci-bot", "postgres", "root", "market", "ledger", "reporting", "maria", "jdoe", "kwame", "lin.wei", "ana.souza"])


def host():
    return pick(["db.example.com", "db-1.internal.example", "pg.shop.example.net", "10.0.0.12", "192.0.2.41", "198.51.100.7", "203.0.113.25", "mysql.staging.example.org", "cache.example.test", "api.example.com", "vault.corp.example"])


def domain():
    return pick(["example.com", "example.org", "example.net", "shop.example", "acme.test", "seller-tools.example", "buyer-portal.example.com", "invalid.example"])


def ip():
    return pick(["192.0.2.", "198.51.100.", "203.0.113."]) + str(rng.randrange(2, 250))


def esc(s):
    return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def evm_addr():
    return "0x" + hexs(40)


def fill(t, **kv):
    base = {"U": user(), "H": host(), "D": domain(), "IP": ip(), "A": evm_addr(), "N": str(rng.randrange(1000, 99999)), "ORD": "ORD-%d" % rng.randrange(100000, 999999)}
    base.update(kv)
    while "@A@" in t and "A" not in kv:
        t = t.replace("@A@", evm_addr(), 1)
    for k, v in base.items():
        t = t.replace("@" + k + "@", v)
    assert "@" + "K@" not in t
    return t


SECRETS = []
LOOKS = []


def sec(kind, ctx, text):
    assert "\u00ab" in text, (kind, ctx, text)
    SECRETS.append((kind, ctx, text))


def look(kind, ctx, text):
    assert "\u00ab" not in text and "\u00bb" not in text, text
    LOOKS.append((kind, ctx, text))


# ---------------------------------------------------------------- EVM private keys
EVM_T = [
    ("ethers.js", "const wallet = new ethers.Wallet(\"@K@\", provider);\nconst tx = await wallet.sendTransaction({ to: \"@A@\", value: parseUnits(\"0.01\", 18) });"),
    ("ethers v6 ts", "import { Wallet, JsonRpcProvider } from 'ethers';\n\nconst signer = new Wallet('@K@', new JsonRpcProvider('https://rpc.example.com'));"),
    ("viem", "import { privateKeyToAccount } from 'viem/accounts'\nconst account = privateKeyToAccount('@K@')\nconst client = createWalletClient({ account, chain: base, transport: http() })"),
    ("web3.js", "const acct = web3.eth.accounts.privateKeyToAccount('@K@');\nweb3.eth.accounts.wallet.add(acct);"),
    ("web3.py", "from eth_account import Account\nacct = Account.from_key(\"@K@\")\nsigned = w3.eth.account.sign_transaction(tx, private_key=acct.key)"),
    ("web3.py sign", "signed = w3.eth.account.sign_transaction(tx_dict, \"@K@\")\nw3.eth.send_raw_transaction(signed.raw_transaction)"),
    ("go-ethereum", "key, err := crypto.HexToECDSA(\"@K@\")\nif err != nil {\n\tlog.Fatal(err)\n}\nauth, _ := bind.NewKeyedTransactorWithChainID(key, big.NewInt(8453))"),
    ("rust alloy", "let signer: PrivateKeySigner = \"@K@\".parse()?;\nlet wallet = EthereumWallet::from(signer);"),
    ("rust ethers-rs", "let wallet = \"@K@\"\n    .parse::<LocalWallet>()?\n    .with_chain_id(1u64);"),
    ("java web3j", "Credentials credentials = Credentials.create(\"@K@\");\nTransactionReceipt r = Transfer.sendFunds(web3, credentials, \"@A@\", BigDecimal.ONE, Convert.Unit.ETHER).send();"),
    ("kotlin web3j", "val creds = Credentials.create(\"@K@\")\nval manager = RawTransactionManager(web3j, creds, 137L)"),
    ("c# nethereum", "var account = new Nethereum.Web3.Accounts.Account(\"@K@\", Chain.MainNet);\nvar web3 = new Web3(account, \"https://rpc.example.org\");"),
    ("php", "$signer = new \\Web3p\\EthereumTx\\Transaction($txParams);\n$signed = '0x' . $signer->sign('@K@');"),
    ("ruby eth", "key = Eth::Key.new(priv: \"@K@\")\ntx.sign(key)"),
    ("foundry cast", "$ cast send @A@ \"transfer(address,uint256)\" @A@ 250000000 --rpc-url $RPC --private-key @K@"),
    ("forge script", "forge script script/Deploy.s.sol:Deploy --rpc-url https://rpc.example.net --broadcast --private-key @K@ -vvvv"),
    (".env", "RPC_URL=https://rpc.example.com\nCHAIN_ID=8453\nDEPLOYER_PRIVATE_KEY=@K@\nUSDC_ADDRESS=@A@"),
    (".env lower", "bots/payout/.env:\n# payout bot\nprivate_key=@K@\npayout_wallet=@A@"),
    ("hardhat config", "module.exports = {\n  solidity: \"0.8.24\",\n  networks: {\n    base: { url: \"https://mainnet.base.org\", accounts: [\"@K@\"] },\n  },\n};"),
    ("foundry.toml", "[profile.default]\nsrc = \"src\"\n\n[rpc_endpoints]\nbase = \"https://mainnet.base.org\"\n\n# deployer\n[etherscan]\n# key below is the signer, not etherscan\nsigner_key = \"@K@\""),
    ("k8s stringData", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: payout-signer\ntype: Opaque\nstringData:\n  SIGNER_KEY: \"@K@\""),
    ("docker-compose", "services:\n  settler:\n    image: ghcr.io/acme/settler:1.4.2\n    environment:\n      - NETWORK=polygon\n      - HOT_WALLET_PK=@K@"),
    ("github actions", "      - name: Deploy\n        run: npx hardhat run scripts/deploy.ts --network base\n        env:\n          PRIVATE_KEY: @K@"),
    ("systemd", "[Unit]\nDescription=USDT payout worker\n\n[Service]\nEnvironment=WALLET_KEY=@K@\nExecStart=/usr/local/bin/payout --chain tron-evm\nRestart=always"),
    ("json", "{\n  \"network\": \"arbitrum\",\n  \"address\": \"@A@\",\n  \"privateKey\": \"@K@\"\n}"),
    ("yaml", "signer:\n  address: \"@A@\"\n  private_key: @K@\n  gas_limit: 210000"),
    ("toml", "[wallet]\naddress = \"@A@\"\nkey = \"@K@\""),
    ("ini", "[hot_wallet]\naddress=@A@\nsecret=@K@"),
    ("hcl", "resource \"aws_secretsmanager_secret_version\" \"signer\" {\n  secret_id     = aws_secretsmanager_secret.signer.id\n  secret_string = \"@K@\"\n}"),
    ("shell export", "$ export PK=@K@\n$ node scripts/withdraw.js --amount 1200 --token USDC"),
    ("shell history", "  501  cd ~/bots/arb\n  502  vim .env\n  503  PRIVATE_KEY=@K@ python3 run.py --dry-run\n  504  git status"),
    ("python repl", ">>> from eth_account import Account\n>>> Account.from_key('@K@').address\n'@A@'"),
    ("log line", "2026-11-02T08:14:55Z DEBUG signer loaded key=@K@ addr=@A@ chain=56"),
    ("stack trace", "Traceback (most recent call last):\n  File \"/app/payout.py\", line 88, in <module>\n    acct = Account.from_key(\"@K@\")\n  File \"/usr/lib/python3/site-packages/eth_account/account.py\", line 250, in from_key\nValueError: insufficient funds for gas"),
    ("notebook", "{\"cell_type\": \"code\", \"execution_count\": 4, \"source\": [\"acct = Account.from_key(\\\"@K@\\\")\\n\", \"print(acct.address)\"]}"),
    ("sql", "INSERT INTO hot_wallets (chain, address, pk_hex) VALUES ('polygon', '@A@', '@K@');"),
    ("markdown table", "| wallet | address | private key |\n|---|---|---|\n| payout | @A@ | @K@ |"),
    ("csv", "label,address,private_key\nmerchant-1,@A@,@K@"),
    ("metamask export", "MetaMask > Account details > Show private key:\n@K@\n(copied for the buyer as agreed in @ORD@)"),
    ("solidity test", "uint256 deployerKey = vm.envOr(\"PK\", uint256(@K@));\naddress deployer = vm.addr(deployerKey);"),
    ("chat en", "ok here's the private key of the test wallet with the 500 USDT, import it in metamask: @K@"),
    ("chat en2", "pk for the hot wallet -> @K@ (please move the funds out and tell me when done)"),
    ("chat es", "Te paso la clave privada de la billetera para que verifiques el saldo: @K@"),
    ("chat pt", "Segue a chave privada da carteira de pagamento: @K@ — não compartilhe"),
    ("chat de", "Hier der private Schlüssel für die Auszahlungs-Wallet: @K@"),
    ("chat fr", "Voici la clé privée du portefeuille de test : @K@"),
    ("chat it", "Ti mando la chiave privata del wallet: @K@, importala e controlla i 300 USDC"),
    ("chat nl", "De privésleutel van de wallet is @K@, zet hem in je .env"),
    ("chat pl", "Klucz prywatny do portfela: @K@"),
    ("chat ru", "Приватный ключ от кошелька: @K@ — после проверки переведи всё на свой адрес"),
    ("chat uk", "Ось приватний ключ гаманця: @K@"),
    ("chat tr", "Cüzdanın özel anahtarı: @K@ lütfen kimseyle paylaşma"),
    ("chat ar", "هذا هو المفتاح الخاص للمحفظة: @K@"),
    ("chat hi", "वॉलेट की प्राइवेट की यह है: @K@"),
    ("chat zh", "钱包私钥：@K@，导入后请确认余额"),
    ("chat ja", "ウォレットの秘密鍵です：@K@ 確認したら消してください"),
    ("chat ko", "지갑 개인키: @K@ 확인 후 삭제 부탁드려요"),
    ("chat vi", "Khóa riêng tư của ví: @K@"),
    ("chat id", "Kunci privat dompetnya: @K@ tolong jangan disebar"),
    ("dispute", "Dispute statement for @ORD@: the seller delivered the bot but the config shipped with my production signer key (@K@). I want a refund and I have rotated the wallet."),
    ("review", "5/5 fast delivery. Only issue: the README example still contains his own key 0x... no wait, the full one: @K@. Told him."),
    ("mail", "---------- Forwarded message ---------\nFrom: ops <ops@example.com>\nSubject: treasury signer\n\nKey for the Safe co-signer: @K@\nDo not forward."),
]


def gen_evm():
    for ctx, t in EVM_T:
        k = evm_key()
        if ctx.startswith("go-ethereum") or ctx.startswith("rust") or ctx in ("php",):
            k = evm_key(False) if ctx != "rust alloy" else evm_key(True)
        if ctx == "solidity test":
            k = evm_key(True)
        sec("evm-private-key", ctx, fill(t, K=M(k)))


# ---------------------------------------------------------------- BIP-39 phrases
def mn_line(ws):
    return M(" ".join(ws))


def mn_numbered(ws, fmt="%d. %s", sep="\n"):
    return sep.join(fmt % (i + 1, M(w)) for i, w in enumerate(ws))


def mn_grid(ws, cols=4):
    rows = []
    for r in range(0, len(ws), cols):
        rows.append(" | ".join("%d %s" % (r + c + 1, M(ws[r + c])) for c in range(cols) if r + c < len(ws)))
    return "\n".join(rows)


MN_T = [
    ("chat en", lambda ws: "seed phrase for the wallet with the escrow funds: " + mn_line(ws)),
    ("chat en lower", lambda ws: "ok restoring on your side should work with these words -> " + mn_line(ws) + " <- in that order"),
    ("numbered lines", lambda ws: "Recovery phrase (keep offline):\n" + mn_numbered(ws)),
    ("numbered inline", lambda ws: "words: " + mn_numbered(ws, "%d) %s", " ")),
    ("one per line", lambda ws: "mnemonic\n" + "\n".join(M(w) for w in ws)),
    ("comma separated", lambda ws: "backup: " + M(", ".join(ws))),
    ("json array", lambda ws: "{\"wallet\": \"trading\", \"mnemonic\": " + M(json.dumps(ws)) + "}"),
    ("json string", lambda ws: "{\n  \"name\": \"payout\",\n  \"seed\": \"" + M(" ".join(ws)) + "\",\n  \"path\": \"m/44'/60'/0'/0/0\"\n}"),
    ("yaml list", lambda ws: "wallet:\n  mnemonic:\n" + "\n".join("    - " + M(w) for w in ws)),
    (".env", lambda ws: "MNEMONIC=\"" + M(" ".join(ws)) + "\"\nRPC=https://rpc.example.org"),
    ("hardhat", lambda ws: "networks: {\n  sepolia: {\n    url: process.env.SEPOLIA_RPC,\n    accounts: { mnemonic: \"" + M(" ".join(ws)) + "\" },\n  },\n}"),
    ("ethers", lambda ws: "const w = ethers.Wallet.fromPhrase(\"" + M(" ".join(ws)) + "\");"),
    ("python", lambda ws: "Account.enable_unaudited_hdwallet_features()\nacct = Account.from_mnemonic(\"" + M(" ".join(ws)) + "\", account_path=\"m/44'/60'/0'/0/0\")"),
    ("cast", lambda ws: "$ cast wallet address --mnemonic \"" + M(" ".join(ws)) + "\" --mnemonic-index 0"),
    ("anvil", lambda ws: "anvil --fork-url $RPC -m '" + M(" ".join(ws)) + "' --accounts 3"),
    ("grid table", lambda ws: "Backup card (photo transcribed):\n" + mn_grid(ws)),
    ("markdown table", lambda ws: "| # | word |\n|---|---|\n" + "\n".join("| %d | %s |" % (i + 1, M(w)) for i, w in enumerate(ws))),
    ("upper", lambda ws: "SEED: " + M(" ".join(w.upper() for w in ws))),
    ("dashes", lambda ws: "phrase " + M("-".join(ws)) + " (dashes instead of spaces)"),
    ("csv", lambda ws: "wallet,words\ncold-2," + M(" ".join(ws))),
    ("solana", lambda ws: "$ solana-keygen recover 'prompt://?key=0/0' -o recovered.json\n[recover] seed phrase: " + M(" ".join(ws)) + "\n[recover] If this seed phrase has an associated passphrase, enter it now."),
    ("electrum", lambda ws: "Electrum restore -> Standard wallet -> I already have a seed -> " + mn_line(ws)),
    ("dispute", lambda ws: "Statement: I gave the seller the recovery words " + mn_line(ws) + " only so he could check the balance, and 2,300 USDT left the wallet the next day."),
    ("mail", lambda ws: "Subject: Re: wallet handover @ORD@\n\n> can you send the phrase?\n\nHere: " + mn_line(ws) + "\n\nBest, M."),
    ("es", lambda ws: "La frase semilla es: " + mn_line(ws)),
    ("pt", lambda ws: "Frase de recuperação: " + mn_line(ws) + ". Guarde com cuidado."),
    ("de", lambda ws: "Die Wiederherstellungsphrase lautet " + mn_line(ws)),
    ("fr", lambda ws: "Phrase de récupération : " + mn_line(ws)),
    ("it", lambda ws: "Le parole di recupero sono: " + mn_line(ws)),
    ("nl", lambda ws: "Herstelzin: " + mn_line(ws)),
    ("pl", lambda ws: "Fraza odzyskiwania: " + mn_line(ws)),
    ("ru", lambda ws: "Сид-фраза: " + mn_line(ws)),
    ("uk", lambda ws: "Мнемонічна фраза: " + mn_line(ws)),
    ("tr", lambda ws: "Kurtarma kelimeleri: " + mn_line(ws)),
    ("ar", lambda ws: "عبارة الاسترداد: " + mn_line(ws)),
    ("hi", lambda ws: "रिकवरी फ्रेज़: " + mn_line(ws)),
    ("zh", lambda ws: "助记词：" + mn_line(ws) + "。请妥善保管。"),
    ("ja", lambda ws: "シードフレーズは「" + mn_line(ws) + "」です。"),
    ("ko", lambda ws: "복구 구문: " + mn_line(ws)),
    ("vi", lambda ws: "Cụm từ khôi phục: " + mn_line(ws)),
    ("id", lambda ws: "Frasa pemulihan: " + mn_line(ws)),
]


def gen_mnemonic():
    sizes = [12, 15, 18, 21, 24]
    for i, (ctx, f) in enumerate(MN_T):
        n = sizes[i % 5]
        ws = mnemonic(n)
        assert mnemonic_valid(ws)
        sec("bip39-%d" % n, ctx, fill(f(ws)))


# ---------------------------------------------------------------- other wallet material
def gen_wallet_other():
    T = [
        ("keystore-password", "geth", lambda: "geth account unlock @A@ --password <(echo '" + M(password()) + "')"),
        ("keystore-password", "ethers", lambda: "const wallet = await Wallet.fromEncryptedJson(fs.readFileSync('keystore.json', 'utf8'), \"" + M(password()) + "\");"),
        ("keystore-password", "web3.py", lambda: "with open('UTC--2026-10-01T10-00-00Z--wallet.json') as f:\n    key = Account.decrypt(f.read(), '" + M(password()) + "')"),
        ("keystore-password", "chat en", lambda: "the keystore file is attached, its password is " + M(password())),
        ("keystore-password", "chat es", lambda: "El archivo keystore va adjunto y la contraseña es " + M(password())),
        ("keystore-password", "chat de", lambda: "Keystore liegt im Anhang, Passwort: " + M(password())),
        ("keystore-password", "chat ru", lambda: "Пароль от keystore: " + M(password())),
        ("keystore-password", "chat zh", lambda: "keystore 文件的密码是 " + M(password())),
        ("keystore-password", "cast", lambda: "cast wallet import deployer --interactive\nEnter private key:\nEnter password: " + M(password()) + "\n`deployer` keystore was saved successfully."),
        ("keystore-password", "clef", lambda: "echo \"" + M(password()) + "\" > /tmp/pw.txt && geth --unlock @A@ --password /tmp/pw.txt"),
        ("keystore-password", "metamask", lambda: "MetaMask vault password: " + M(password()) + " (the extension on the shared laptop)"),
        ("wif", "bitcoin-cli", lambda: "$ bitcoin-cli importprivkey " + M(wif()) + " \"escrow\" false"),
        ("wif", "electrum", lambda: "Electrum > Wallet > Private keys > Sweep: " + M(wif()) + " " + M(wif()) + " (two inputs)"),
        ("wif", "chat", lambda: "WIF for the refund address: " + M(wif(rng.random() < 0.5)) + " import it and send back the BTC"),
        ("wif", "python", lambda: "from bitcoinlib.keys import Key\nk = Key('" + M(wif()) + "')\nprint(k.address())"),
        ("wif", "json", lambda: "{\"network\": \"testnet\", \"wif\": \"" + M(wif(True, True)) + "\"}"),
        ("wif", "pt", lambda: "Chave privada (WIF) da carteira BTC: " + M(wif()) ),
        ("xprv", "descriptor", lambda: "importdescriptors '[{\"desc\": \"wpkh(" + M(xprv()) + "/84h/0h/0h/0/*)#" + rs(8, LO + DIG) + "\", \"timestamp\": \"now\", \"active\": true}]'"),
        ("xprv", "chat", lambda: "master private key: " + M(xprv())),
        ("xprv", "electrum", lambda: "Electrum -> Wallet information -> Master private key\n" + M(xprv())),
        ("xprv", "yaml", lambda: "btc:\n  account_xprv: " + M(xprv()) + "\n  gap_limit: 20"),
        ("xprv", "python", lambda: "root = BIP32.from_xpriv(\"" + M(xprv()) + "\")"),
        ("xprv", "de", lambda: "Erweiterter privater Schlüssel: " + M(xprv())),
        ("solana", "id.json", lambda: "cat ~/.config/solana/id.json\n" + M(json.dumps(list(rbytes(64)), separators=(",", ":")))),
        ("solana", "base58 chat", lambda: "phantom export -> private key " + M(sol_secret()) + " (the one with 800 USDC on SPL)"),
        ("solana", "js", lambda: "const payer = Keypair.fromSecretKey(bs58.decode(\"" + M(sol_secret()) + "\"));"),
        ("solana", "rust", lambda: "let payer = Keypair::from_base58_string(\"" + M(sol_secret()) + "\");"),
        ("solana", ".env", lambda: "SOLANA_RPC=https://api.mainnet-beta.solana.com\nSOLANA_PRIVATE_KEY=" + M(sol_secret())),
        ("solana", "python", lambda: "kp = Keypair.from_bytes(bytes(" + M(json.dumps(list(rbytes(64)))) + "))"),
        ("solana", "es", lambda: "Clave privada de Phantom: " + M(sol_secret())),
        ("tron", "tronweb", lambda: "const tronWeb = new TronWeb({ fullHost: 'https://api.trongrid.io', privateKey: '" + M(evm_key(False)) + "' });"),
        ("tron", "chat", lambda: "TRC20 wallet private key (TronLink export): " + M(evm_key(False))),
    ]
    for kind, ctx, f in T:
        sec(kind, ctx, fill(f()))


# ---------------------------------------------------------------- exchange and RPC
def gen_exchange():
    T = [
        ("binance", "python", lambda: "client = Client(api_key='" + M(rs(64)) + "', api_secret='" + M(rs(64)) + "')"),
        ("binance", ".env", lambda: "BINANCE_API_KEY=" + M(rs(64)) + "\nBINANCE_SECRET_KEY=" + M(rs(64))),
        ("binance", "chat", lambda: "binance api key " + M(rs(64)) + " secret " + M(rs(64)) + " (spot only, no withdrawals)"),
        ("kraken", "yaml", lambda: "kraken:\n  key: " + M(rs(56, ALNUM + "+/")) + "\n  secret: " + M(b64(rbytes(64)))),
        ("kraken", "ccxt", lambda: "ex = ccxt.kraken({'apiKey': '" + M(rs(56, ALNUM + "+/")) + "', 'secret': '" + M(b64(rbytes(64))) + "'})"),
        ("okx", "json", lambda: "{\"okx\": {\"apiKey\": \"" + M(uuid4()) + "\", \"secretKey\": \"" + M(hexs(32).upper()) + "\", \"passphrase\": \"" + M(password()) + "\"}}"),
        ("okx", "chat", lambda: "OKX: key " + M(uuid4()) + " / secret " + M(hexs(32).upper()) + " / passphrase " + M(password())),
        ("bybit", "ts", lambda: "const client = new RestClientV5({ key: '" + M(rs(18)) + "', secret: '" + M(rs(36)) + "' });"),
        ("bybit", "ini", lambda: "[bybit]\napi_key = " + M(rs(18)) + "\napi_secret = " + M(rs(36))),
        ("coinbase", "cdp json", lambda: "{\n  \"name\": \"organizations/" + uuid4() + "/apiKeys/" + uuid4() + "\",\n  \"privateKey\": \"-----BEGIN EC PRIVATE KEY-----\\n" + M(b64(EC_SEC1 + rbytes(32) + bytes.fromhex("a00a06082a8648ce3d030107a144034200") + b"\x04" + rbytes(64))) + "\\n-----END EC PRIVATE KEY-----\\n\"\n}"),
        ("coinbase", "env", lambda: "COINBASE_API_KEY=" + M(rs(16)) + "\nCOINBASE_API_SECRET=" + M(rs(32))),
        ("kucoin", "python", lambda: "client = Client('" + M(hexs(24)) + "', '" + M(uuid4()) + "', '" + M(password()) + "')  # key, secret, passphrase"),
        ("infura", "url", lambda: "const provider = new ethers.JsonRpcProvider('https://mainnet.infura.io/v3/" + M(hexs(32)) + "');"),
        ("infura", "wss", lambda: "WS_RPC=wss://polygon-mainnet.infura.io/ws/v3/" + M(hexs(32))),
        ("alchemy", "url", lambda: "ALCHEMY_URL=https://eth-mainnet.g.alchemy.com/v2/" + M(rs(32, ALNUM + "-_"))),
        ("alchemy", "toml", lambda: "[rpc_endpoints]\nbase = \"https://base-mainnet.g.alchemy.com/v2/" + M(rs(32, ALNUM + "-_")) + "\""),
        ("alchemy", "chat", lambda: "use my alchemy key for now: " + M(rs(32, ALNUM + "-_"))),
        ("quicknode", "url", lambda: "curl -s https://" + rs(3, LO) + "-" + rs(5, LO) + "-" + rs(5, LO) + ".quiknode.pro/" + M(hexs(40)) + "/ -X POST -d '{\"jsonrpc\":\"2.0\",\"method\":\"eth_blockNumber\",\"params\":[],\"id\":1}'"),
        ("quicknode", "yaml", lambda: "rpc:\n  solana: https://" + rs(6, LO) + "-" + rs(6, LO) + ".solana-mainnet.quiknode.pro/" + M(hexs(40)) + "/"),
        ("etherscan", ".env", lambda: "ETHERSCAN_API_KEY=" + M(rs(34, UP + DIG))),
        ("helius", "url", lambda: "const conn = new Connection('https://mainnet.helius-rpc.com/?api-key=" + M(uuid4()) + "');"),
    ]
    for kind, ctx, f in T:
        sec(kind, ctx, fill(f()))


# ---------------------------------------------------------------- other services
def aws_id():
    return pick(["AKIA", "AKIA", "ASIA"]) + rs(16, B32)


def aws_secret():
    return rs(40, ALNUM + "+/")


def gcp_sa():
    body = pem_body(1218, RSA_PKCS8)
    body_json = "\\n".join(M(line) for line in body.split("\n"))
    proj = pick(["market-prod", "axp-sandbox-41", "payouts-7731"])
    return ("{\n  \"type\": \"service_account\",\n  \"project_id\": \"%s\",\n  \"private_key_id\": \"%s\",\n  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n%s\\n-----END PRIVATE KEY-----\\n\",\n  \"client_email\": \"deployer@%s.iam.gserviceaccount.com\",\n  \"client_id\": \"%s\"\n}"
            % (proj, hexs(40), body_json, proj, "".join(rng.choice(DIG) for _ in range(21))))


def azure_secret():
    return rs(3, ALNUM) + "8Q~" + rs(34, ALNUM + "_-.~")


def slack_bot():
    return "xoxb-%d-%d-%s" % (rng.randrange(10**10, 10**12), rng.randrange(10**12, 10**13), rs(24))


def discord_bot():
    uid = str(rng.randrange(10**17, 10**18 * 1))
    return b64url(uid.encode()) + "." + rs(6, URLSAFE) + "." + rs(38, URLSAFE)


def tg_bot():
    return "%d:AA%s" % (rng.randrange(10**9, 8 * 10**9), rs(33, URLSAFE))


def stripe_sk(mode="live"):
    return "sk_%s_51%s" % (mode, rs(97))


def openai_key():
    return "sk-proj-" + rs(74, URLSAFE) + "T3BlbkFJ" + rs(74, URLSAFE)


def anthropic_key():
    return "sk-ant-api03-" + rs(93, URLSAFE) + "AA"


def sendgrid():
    return "SG." + rs(22, URLSAFE) + "." + rs(43, URLSAFE)


def pypi():
    return "pypi-AgEIcHlwaS5vcmc" + rs(150, URLSAFE)


def pem(label, nbytes, prefix=b""):
    return "-----BEGIN %s-----\n%s\n-----END %s-----" % (label, M(pem_body(nbytes, prefix)), label)


def openssh_key():
    raw = b"openssh-key-v1\0" + struct.pack(">I", 4) + b"none" + struct.pack(">I", 4) + b"none" + struct.pack(">I", 0) + struct.pack(">I", 1) + rbytes(280)
    s = b64(raw)
    return "-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----" % M("\n".join(s[i:i + 70] for i in range(0, len(s), 70)))


def pgp_key():
    s = b64(b"\x95\x03\xc6\x04" + rbytes(900))
    body = "\n".join(s[i:i + 64] for i in range(0, len(s), 64))
    crc = b64(rbytes(3))
    return "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n%s\n=%s\n-----END PGP PRIVATE KEY BLOCK-----" % (M(body), M(crc))


OTHER_T = [
    # cloud
    ("aws", "credentials file", lambda: "[default]\naws_access_key_id = " + M(aws_id()) + "\naws_secret_access_key = " + M(aws_secret()) + "\nregion = eu-central-1"),
    ("aws", "aws configure", lambda: "$ aws configure\nAWS Access Key ID [None]: " + M(aws_id()) + "\nAWS Secret Access Key [None]: " + M(aws_secret()) + "\nDefault region name [None]: us-east-1"),
    ("aws", "env", lambda: "export AWS_ACCESS_KEY_ID=" + M(aws_id()) + "\nexport AWS_SECRET_ACCESS_KEY=" + M(aws_secret())),
    ("aws", "boto3", lambda: "s3 = boto3.client('s3', aws_access_key_id='" + M(aws_id()) + "', aws_secret_access_key='" + M(aws_secret()) + "')"),
    ("aws", "chat es", lambda: "credenciales de AWS del bucket: " + M(aws_id()) + " / " + M(aws_secret())),
    ("aws", "terraform", lambda: "provider \"aws\" {\n  region     = \"us-west-2\"\n  access_key = \"" + M(aws_id()) + "\"\n  secret_key = \"" + M(aws_secret()) + "\"\n}"),
    ("gcp", "service account json", gcp_sa),
    ("gcp", "service account json", gcp_sa),
    ("gcp", "gcloud", lambda: "gcloud auth activate-service-account --key-file=sa.json\n# sa.json contents\n" + gcp_sa()),
    ("azure", "connection string", lambda: "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=shopmedia;AccountKey=" + M(b64(rbytes(64))) + ";EndpointSuffix=core.windows.net"),
    ("azure", "az login", lambda: "az login --service-principal -u " + uuid4() + " -p " + M(azure_secret()) + " --tenant " + uuid4()),
    ("azure", "json", lambda: "{\n  \"appId\": \"" + uuid4() + "\",\n  \"displayName\": \"ci-deployer\",\n  \"password\": \"" + M(azure_secret()) + "\",\n  \"tenant\": \"" + uuid4() + "\"\n}"),
    ("azure", "appsettings", lambda: "\"AzureAd\": {\n  \"ClientId\": \"" + uuid4() + "\",\n  \"ClientSecret\": \"" + M(azure_secret()) + "\"\n}"),
    ("digitalocean", "doctl", lambda: "doctl auth init -t " + M("dop_v1_" + hexs(64))),
    ("cloudflare", "wrangler", lambda: "CLOUDFLARE_API_TOKEN=" + M(rs(40, URLSAFE)) + " npx wrangler deploy"),
    # forges
    ("github", "git remote", lambda: "git remote set-url origin https://" + M(gh_token()) + "@github.com/acme-shop/payout-bot.git"),
    ("github", "gh auth", lambda: "echo " + M(gh_token()) + " | gh auth login --with-token"),
    ("github", "actions log", lambda: "Run curl -H \"Authorization: token " + M(gh_token()) + "\" https://api.github.com/repos/acme/bot/releases"),
    ("github", "fine-grained", lambda: "GITHUB_TOKEN=" + M("github_pat_11" + rs(20, UP + DIG) + "_" + rs(59)) + "\nREPO=acme/settlement"),
    ("github", "chat pt", lambda: "te dei acesso, o token é " + M(gh_token("gho_"))),
    ("github", "npmrc", lambda: "//npm.pkg.github.com/:_authToken=" + M(gh_token()) + "\n@acme:registry=https://npm.pkg.github.com"),
    ("gitlab", "ci", lambda: "git clone https://oauth2:" + M("glpat-" + rs(20, URLSAFE)) + "@gitlab.example.com/shop/api.git"),
    ("gitlab", "header", lambda: "curl --header \"PRIVATE-TOKEN: " + M("glpat-" + rs(20, URLSAFE)) + "\" https://gitlab.example.com/api/v4/projects"),
    ("gitlab", "runner", lambda: "gitlab-runner register --url https://gitlab.example.com --token " + M("glrt-" + rs(20, URLSAFE))),
    ("bitbucket", "app password", lambda: "git clone https://" + user() + ":" + M("ATBB" + rs(32) + hexs(8).upper()) + "@bitbucket.org/acme/shop.git"),
    ("bitbucket", "chat", lambda: "Bitbucket app password: " + M("ATBB" + rs(32) + hexs(8).upper())),
    # chat
    ("slack", "bot token", lambda: "SLACK_BOT_TOKEN=" + M(slack_bot()) + "\nSLACK_CHANNEL=#payouts"),
    ("slack", "webhook", lambda: "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"paid\"}' https://hooks.slack.com/services/T" + rs(8, UP + DIG) + "/B" + rs(10, UP + DIG) + "/" + M(rs(24))),
    ("slack", "python", lambda: "client = WebClient(token=\"" + M(slack_bot()) + "\")"),
    ("slack", "user token", lambda: "xoxp token for the export: " + M("xoxp-%d-%d-%d-%s" % (rng.randrange(10**10, 10**11), rng.randrange(10**10, 10**11), rng.randrange(10**12, 10**13), hexs(32)))),
    ("discord", "bot", lambda: "client.login('" + M(discord_bot()) + "');"),
    ("discord", "python", lambda: "bot.run(\"" + M(discord_bot()) + "\")"),
    ("discord", "webhook", lambda: "DISCORD_WEBHOOK=https://discord.com/api/webhooks/" + str(rng.randrange(10**17, 10**18)) + "/" + M(rs(68, URLSAFE))),
    ("telegram", "url", lambda: "curl \"https://api.telegram.org/bot" + M(tg_bot()) + "/sendMessage?chat_id=-100" + str(rng.randrange(10**9, 10**10)) + "&text=paid\""),
    ("telegram", "python", lambda: "app = ApplicationBuilder().token(\"" + M(tg_bot()) + "\").build()"),
    ("telegram", "chat ru", lambda: "Токен бота: " + M(tg_bot())),
    ("telegram", "yaml", lambda: "notify:\n  telegram:\n    bot_token: \"" + M(tg_bot()) + "\"\n    chat_id: " + str(rng.randrange(10**8, 10**9))),
    # payments
    ("stripe", "env", lambda: "STRIPE_SECRET_KEY=" + M(stripe_sk()) + "\nSTRIPE_PUBLISHABLE_KEY=pk_live_51" + rs(97)),
    ("stripe", "node", lambda: "const stripe = require('stripe')('" + M(stripe_sk()) + "');"),
    ("stripe", "curl", lambda: "curl https://api.stripe.com/v1/charges -u " + M(stripe_sk("test")) + ": -d amount=2000 -d currency=usd"),
    ("stripe", "restricted", lambda: "restricted key for reporting: " + M("rk_live_51" + rs(97))),
    ("stripe", "webhook secret", lambda: "STRIPE_WEBHOOK_SECRET=" + M("whsec_" + rs(32))),
    ("paypal", "env", lambda: "PAYPAL_CLIENT_ID=A" + rs(79, URLSAFE) + "\nPAYPAL_CLIENT_SECRET=" + M("E" + rs(79, URLSAFE))),
    ("paypal", "bearer", lambda: "Authorization: Bearer " + M("A21AA" + rs(92, URLSAFE))),
    ("square", "env", lambda: "SQUARE_ACCESS_TOKEN=" + M("EAAA" + rs(60, URLSAFE))),
    ("square", "oauth", lambda: "square oauth: app secret " + M("sq0csp-" + rs(43, URLSAFE))),
    ("adyen", "header", lambda: "curl https://checkout-test.adyen.com/v71/payments -H \"x-API-key: " + M("AQE" + rs(4) + "Rnxb" + rs(90, ALNUM + "+/=")) + "\""),
    ("mollie", "php", lambda: "$mollie->setApiKey(\"" + M("live_" + rs(30)) + "\");"),
    ("braintree", "ruby", lambda: "Braintree::Configuration.private_key = \"" + M(hexs(32)) + "\""),
    # AI
    ("openai", "python", lambda: "client = OpenAI(api_key=\"" + M(openai_key()) + "\")"),
    ("openai", "curl", lambda: "curl https://api.openai.com/v1/chat/completions -H \"Authorization: Bearer " + M(openai_key()) + "\" -H \"Content-Type: application/json\""),
    ("openai", "legacy chat", lambda: "temporarily using my key " + M("sk-" + rs(20) + "T3BlbkFJ" + rs(20)) + " until you add credits"),
    ("anthropic", "env", lambda: "ANTHROPIC_API_KEY=" + M(anthropic_key())),
    ("anthropic", "ts", lambda: "const anthropic = new Anthropic({ apiKey: '" + M(anthropic_key()) + "' });"),
    ("cohere", "python", lambda: "co = cohere.ClientV2(api_key=\"" + M(rs(40)) + "\")"),
    ("mistral", "env", lambda: "MISTRAL_API_KEY=" + M(rs(32))),
    ("groq", "python", lambda: "client = Groq(api_key=\"" + M("gsk_" + rs(52)) + "\")"),
    ("replicate", "env", lambda: "export REPLICATE_API_TOKEN=" + M("r8_" + rs(37))),
    ("huggingface", "cli", lambda: "huggingface-cli login --token " + M("hf_" + rs(34))),
    ("huggingface", "python", lambda: "login(token=\"" + M("hf_" + rs(34)) + "\")"),
    ("huggingface", "git", lambda: "git clone https://user:" + M("hf_" + rs(34)) + "@huggingface.co/acme/private-model"),
    # mail
    ("sendgrid", "env", lambda: "SENDGRID_API_KEY=" + M(sendgrid())),
    ("sendgrid", "python", lambda: "sg = SendGridAPIClient('" + M(sendgrid()) + "')"),
    ("mailgun", "curl", lambda: "curl -s --user 'api:" + M("key-" + hexs(32)) + "' https://api.mailgun.net/v3/mg.example.com/messages"),
    ("mailgun", "new", lambda: "MAILGUN_API_KEY=" + M(hexs(32) + "-" + hexs(8) + "-" + hexs(8))),
    ("postmark", "header", lambda: "X-Postmark-Server-Token: " + M(uuid4())),
    ("postmark", "ruby", lambda: "client = Postmark::ApiClient.new('" + M(uuid4()) + "')"),
    ("smtp", "django", lambda: "EMAIL_HOST = 'smtp.example.com'\nEMAIL_HOST_USER = 'noreply@example.com'\nEMAIL_HOST_PASSWORD = '" + M(password()) + "'"),
    ("gmail app password", "chat", lambda: "gmail app password for the notifier: " + M(" ".join(rs(4, LO) for _ in range(4)))),
    ("gmail app password", "nodemailer", lambda: "auth: { user: 'shop.alerts@example.com', pass: '" + M(rs(16, LO)) + "' }"),
    # registries
    ("npm", "npmrc", lambda: "//registry.npmjs.org/:_authToken=" + M("npm_" + rs(36))),
    ("npm", "npm config", lambda: "npm config set //registry.npmjs.org/:_authToken " + M("npm_" + rs(36))),
    ("pypi", "pypirc", lambda: "[pypi]\nusername = __token__\npassword = " + M(pypi())),
    ("pypi", "twine", lambda: "twine upload dist/* -u __token__ -p " + M(pypi())),
    ("pip index", "pip.conf", lambda: "[global]\nindex-url = https://ci:" + M(rs(24)) + "@pypi.internal.example/simple"),
    ("docker hub", "login", lambda: "echo " + M("dckr_pat_" + rs(27, URLSAFE)) + " | docker login -u acmeshop --password-stdin"),
    ("docker", "config.json", lambda: "{\n  \"auths\": {\n    \"registry.example.com\": {\n      \"auth\": \"" + M(b64(("ci:" + password()).encode())) + "\"\n    }\n  }\n}"),
    ("docker", "login -p", lambda: "docker login registry.example.com -u deploy -p " + M(password())),
    ("cargo", "credentials", lambda: "[registry]\ntoken = \"" + M("cio" + rs(32)) + "\""),
    # observability
    ("datadog", "env", lambda: "DD_API_KEY=" + M(hexs(32)) + "\nDD_APP_KEY=" + M(hexs(40)) + "\nDD_SITE=datadoghq.eu"),
    ("datadog", "yaml", lambda: "datadog:\n  apiKey: " + M(hexs(32)) + "\n  site: datadoghq.com"),
    ("sentry", "dsn", lambda: "SENTRY_DSN=https://" + hexs(32) + ":" + M(hexs(32)) + "@o" + str(rng.randrange(10**5, 10**6)) + ".ingest.sentry.io/" + str(rng.randrange(10**6, 10**7))),
    ("sentry", "auth token", lambda: "SENTRY_AUTH_TOKEN=" + M("sntrys_" + b64(rbytes(90)).rstrip("="))),
    ("newrelic", "license", lambda: "license_key: " + M(hexs(36) + "NRAL")),
    ("newrelic", "user key", lambda: "curl -X POST https://api.newrelic.com/graphql -H 'API-Key: " + M("NRAK-" + rs(27, UP + DIG)) + "'"),
    ("grafana", "token", lambda: "GRAFANA_TOKEN=" + M("glsa_" + rs(32) + "_" + hexs(8))),
]

OTHER_T += [
    # JWT, cookies, sessions
    ("jwt", "authorization", lambda: "GET /api/v1/orders HTTP/1.1\nHost: api.example.com\nAuthorization: Bearer " + M(jwt())),
    ("jwt", "curl", lambda: "curl -H 'Authorization: Bearer " + M(jwt(alg="RS256")) + "' https://api.example.com/payouts"),
    ("jwt", "localStorage", lambda: "localStorage.setItem('token', '" + M(jwt()) + "')"),
    ("jwt", "chat de", lambda: "Hier mein Zugangstoken für die API, gilt eine Stunde: " + M(jwt())),
    ("jwt", "refresh json", lambda: "{\"access_token\": \"" + M(jwt()) + "\", \"refresh_token\": \"" + M(rs(64, URLSAFE)) + "\", \"expires_in\": 3600}"),
    ("cookie", "header", lambda: "Cookie: _ga=GA1.2.8812.1790000000; sessionid=" + M(rs(32, LO + DIG)) + "; csrftoken=" + rs(64)),
    ("cookie", "set-cookie", lambda: "Set-Cookie: connect.sid=" + M("s%3A" + rs(32, URLSAFE) + "." + rs(43, ALNUM + "%")) + "; Path=/; HttpOnly"),
    ("cookie", "curl -b", lambda: "curl -b 'laravel_session=" + M(b64(rbytes(180))) + "' https://shop.example/admin"),
    ("cookie", "chat", lambda: "if login fails just paste my cookie: PHPSESSID=" + M(rs(26, LO + DIG))),
    ("cookie", "rails", lambda: "_shop_session=" + M(b64(rbytes(120)).replace("=", "%3D") + "--" + hexs(40)) + " (copied from devtools)"),
    ("session", "flask", lambda: "app.config['SECRET_KEY'] = '" + M(hexs(48)) + "'"),
    ("session", "django", lambda: "SECRET_KEY = '" + M(rs(50, LO + DIG + "!@#%^&*(-_=+)")) + "'"),
    ("session", "rails", lambda: "production:\n  secret_key_base: " + M(hexs(128))),
    ("oauth", "client secret", lambda: "GOOGLE_CLIENT_ID=" + str(rng.randrange(10**11, 10**12)) + "-" + rs(32, LO + DIG) + ".apps.googleusercontent.com\nGOOGLE_CLIENT_SECRET=" + M("GOCSPX-" + rs(28, URLSAFE))),
    ("oauth", "refresh", lambda: "refresh_token=" + M("1//0" + rs(100, URLSAFE)) + "&client_id=shop-app&grant_type=refresh_token"),
    # PEM
    ("pem rsa", "pkcs8", lambda: "server.key:\n" + pem("PRIVATE KEY", 1218, RSA_PKCS8)),
    ("pem rsa", "pkcs1", lambda: pem("RSA PRIVATE KEY", 1190, RSA_PKCS1)),
    ("pem ec", "sec1", lambda: "tls key for the webhook endpoint\n" + pem("EC PRIVATE KEY", 121, EC_SEC1)),
    ("pem openssh", "deploy key", lambda: "deploy key for the box (ssh deploy@" + ip() + "):\n" + openssh_key()),
    ("pem openssh", "chat", lambda: "cat ~/.ssh/id_ed25519\n" + openssh_key()),
    ("pem pgp", "armored", lambda: "My signing key for the release, import with gpg --import:\n" + pgp_key()),
    ("pem rsa", "k8s tls", lambda: "apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\nmetadata:\n  name: shop-tls\ndata:\n  tls.crt: " + b64(b"-----BEGIN CERTIFICATE-----\n" + rbytes(40)) + "\n  tls.key: " + M(b64(b"-----BEGIN PRIVATE KEY-----\n" + rbytes(200)))),
    # database URLs and CLI flags
    ("db url", "postgres", lambda: "DATABASE_URL=postgres://@U@:" + M(password()) + "@@H@:5432/market?sslmode=require"),
    ("db url", "mysql", lambda: "spring.datasource.url=jdbc:mysql://@H@:3306/shop\nspring.datasource.username=@U@\nspring.datasource.password=" + M(password())),
    ("db url", "mongodb", lambda: "client = MongoClient(\"mongodb+srv://@U@:" + M(rs(16)) + "@cluster0.ab12cd.mongodb.net/?retryWrites=true\")"),
    ("db url", "redis", lambda: "REDIS_URL=rediss://default:" + M(rs(32)) + "@cache.example.test:6380/0"),
    ("db url", "amqp", lambda: "amqp://orders:" + M(password()) + "@mq.example.com:5672/%2F"),
    ("db url", "sqlalchemy", lambda: "engine = create_engine(\"mysql+pymysql://@U@:" + M(password()) + "@@H@/ledger\")"),
    ("db url", "ado.net", lambda: "\"ConnectionStrings\": { \"Default\": \"Server=tcp:@H@,1433;Database=shop;User ID=@U@;Password=" + M(password()) + ";Encrypt=True;\" }"),
    ("db url", "go dsn", lambda: "db, err := sql.Open(\"mysql\", \"@U@:" + M(password()) + "@tcp(@H@:3306)/orders?parseTime=true\")"),
    ("db cli", "mysql", lambda: "$ mysql -h @H@ -u @U@ -p'" + M(password()) + "' shop < dump.sql"),
    ("db cli", "mysql nospace", lambda: "mysqldump -u@U@ -p" + M(rs(14)) + " --single-transaction shop > shop.sql"),
    ("db cli", "psql", lambda: "PGPASSWORD='" + M(password()) + "' psql -h @H@ -U @U@ -d market -c 'select count(*) from orders'"),
    ("db cli", "pgpass", lambda: "~/.pgpass\n@H@:5432:market:@U@:" + M(password())),
    ("db cli", "redis-cli", lambda: "redis-cli -h @H@ -p 6379 -a '" + M(password()) + "' KEYS 'session:*'"),
    ("db sql", "create user", lambda: "CREATE USER report_ro WITH PASSWORD '" + M(password()) + "';\nGRANT SELECT ON ALL TABLES IN SCHEMA public TO report_ro;"),
    ("db sql", "alter user", lambda: "ALTER USER 'shop'@'%' IDENTIFIED BY '" + M(password()) + "';"),
    ("k8s base64", "secret data", lambda: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  DB_USER: " + b64(b"market") + "\n  DB_PASSWORD: " + M(b64(password().encode()))),
    ("k8s base64", "secret data api", lambda: "data:\n  STRIPE_KEY: " + M(b64(stripe_sk().encode())) + "\n  LOG_LEVEL: " + b64(b"info")),
    ("kubectl", "set-credentials", lambda: "kubectl config set-credentials ci --token=" + M(jwt(alg="RS256"))),
    ("kubectl", "basic", lambda: "kubectl config set-credentials admin --username=admin --password=" + M(password())),
    ("kubectl", "create secret", lambda: "kubectl create secret generic api --from-literal=API_TOKEN=" + M(rs(40)) + " -n shop"),
    ("basic auth", "curl -u", lambda: "curl -u @U@:" + M(password()) + " https://api.example.com/v2/invoices"),
    ("basic auth", "url", lambda: "https://admin:" + M(password()) + "@dashboard.example.org/login"),
    ("basic auth", "header", lambda: "Authorization: Basic " + M(b64(("merchant:" + password()).encode()))),
    ("basic auth", "nginx", lambda: "location /api/ {\n    proxy_pass http://upstream;\n    proxy_set_header Authorization \"Basic " + M(b64(("svc:" + password()).encode())) + "\";\n}"),
    ("basic auth", "apache", lambda: "RequestHeader set Authorization \"Bearer " + M(rs(40)) + "\"\nProxyPass /api http://" + ip() + ":8080/"),
    ("basic auth", "python requests", lambda: "r = requests.get(url, auth=('@U@', '" + M(password()) + "'))"),
    ("basic auth", "wget", lambda: "wget --user=@U@ --password='" + M(password()) + "' https://files.example.com/export.csv"),
    ("basic auth", "netrc", lambda: "machine api.example.com login @U@ password " + M(password())),
    ("api key", "x-api-key", lambda: "curl -H \"X-API-Key: " + M(rs(40)) + "\" https://api.example.net/v1/rates"),
    ("api key", "query", lambda: "https://api.example.com/v1/quotes?symbol=USDT&apikey=" + M(rs(32, UP + DIG))),
    ("api key", "ini", lambda: "[provider]\nendpoint = https://api.example.org\napi_secret = " + M(rs(48))),
    ("totp", "otpauth", lambda: "otpauth://totp/Shop:admin@example.com?secret=" + M(rs(32, B32)) + "&issuer=Shop"),
    ("totp", "chat", lambda: "2FA seed so you can log in while I'm away: " + M(" ".join(rs(4, B32.lower()) for _ in range(8)))),
    ("vault", "token", lambda: "export VAULT_TOKEN=" + M("hvs." + rs(90, URLSAFE))),
    ("twilio", "env", lambda: "TWILIO_ACCOUNT_SID=AC" + hexs(32) + "\nTWILIO_AUTH_TOKEN=" + M(hexs(32))),
    ("shopify", "token", lambda: "X-Shopify-Access-Token: " + M("shpat_" + hexs(32))),
    ("supabase", "service role", lambda: "SUPABASE_SERVICE_ROLE_KEY=" + M(jwt({"iss": "supabase", "ref": rs(20, LO), "role": "service_role", "iat": 1790000000, "exp": 2105000000}))),
    ("wireguard", "conf", lambda: "[Interface]\nPrivateKey = " + M(b64(rbytes(32))) + "\nAddress = 10.8.0.2/24\n\n[Peer]\nPublicKey = " + b64(rbytes(32)) + "\nEndpoint = " + ip() + ":51820"),
]

OTHER_T += [
    ("auth header", "discord Bot scheme", lambda: "curl -H \"Authorization: Bot " + M(discord_bot()) + "\" https://discord.com/api/v10/users/@me"),
    ("auth header", "Token scheme", lambda: "Authorization: Token " + M(hexs(40))),
    ("auth header", "Token token=", lambda: "Authorization: Token token=\"" + M(rs(24)) + "\", email=\"ops@example.com\""),
    ("auth header", "Api-Key scheme", lambda: "Authorization: Api-Key " + M(rs(8) + "." + rs(32))),
    ("auth header", "SSWS okta", lambda: "Authorization: SSWS " + M("00" + rs(40, URLSAFE))),
    ("auth header", "Splunk HEC", lambda: "curl -k https://splunk.example.com:8088/services/collector -H \"Authorization: Splunk " + M(uuid4()) + "\" -d '{\"event\": \"payout\"}'"),
    ("auth header", "fcm key", lambda: "Authorization: key=" + M("AAAA" + rs(7, URLSAFE) + ":APA91b" + rs(134, URLSAFE))),
    ("auth header", "python headers dict", lambda: "headers = {\"Authorization\": f\"Bearer {'" + M(rs(48, URLSAFE)) + "'}\", \"Accept\": \"application/json\"}"),
    ("pip index", "pip install flag", lambda: "pip install --extra-index-url https://__token__:" + M(rs(32)) + "@pkgs.example.com/simple/ acme-signer==2.1.0"),
    ("gcloud", "flag", lambda: "gcloud sql users set-password market --instance=shop-db --password='" + M(password()) + "'"),
    ("api key", "use this key", lambda: "use this key for the sandbox, it has 100 USD credit: " + M(rs(32))),
    ("api key", "it's in the text", lambda: "forgot to say — the api secret is " + M(hexs(64)) + " (the key id is on the dashboard)"),
    ("multi", "README deliverable", lambda: "README.md of the bot:\n## Setup\n\n| var | value |\n|---|---|\n| TELEGRAM_TOKEN | " + M(tg_bot()) + " |\n| DB_URL | postgres://bot:" + M(password()) + "@" + host() + "/bot |\n| CHAIN | polygon |\n| SIGNER | " + M(evm_key(True)) + " |"),
    ("multi", ".env full", lambda: "NODE_ENV=production\nPORT=8080\nDATABASE_URL=mysql://shop:" + M(password()) + "@" + host() + ":3306/shop\nSTRIPE_SECRET_KEY=" + M(stripe_sk()) + "\nSENDGRID_API_KEY=" + M(sendgrid()) + "\nJWT_SECRET=" + M(rs(64)) + "\nPUBLIC_URL=https://shop.example"),
    ("multi", "docker-compose", lambda: "services:\n  api:\n    image: acme/api:2.4\n    environment:\n      OPENAI_API_KEY: " + M(openai_key()) + "\n      REDIS_URL: redis://:" + M(rs(24)) + "@redis:6379/0\n  redis:\n    image: redis:7\n    command: [\"redis-server\", \"--requirepass\", \"" + M(rs(24)) + "\"]"),
    ("jwt", "jwt secret", lambda: "JWT_SECRET=" + M(b64(rbytes(48)))),
    ("jwt", "ws query", lambda: "wss://stream.example.com/v1/orders?access_token=" + M(jwt())),
    ("api key", "zh", lambda: "API 密钥：" + M(rs(32)) + "，只读权限"),
    ("api key", "ja", lambda: "APIシークレットは " + M(hexs(64)) + " です。"),
    ("api key", "ko", lambda: "API 시크릿 키: " + M(rs(40))),
]


# ---------------------------------------------------------------- passwords in prose
PW_T = [
    ("en", "login: @U@ / @P@"),
    ("en", "user is @U@ and the pw is @P@"),
    ("en", "creds for the staging admin -> @U@ : @P@"),
    ("en", "Q: how do I get into the panel? A: https://panel.@D@ , username admin, password @P@"),
    ("en", "password for the zip with the source: @P@"),
    ("en", "ssh @U@@@IP@ (pass @P@)"),
    ("en", "the wifi at the office is ShopGuest, passcode @P@"),
    ("es", "usuario: @U@ contraseña: @P@"),
    ("es", "La clave del panel es @P@, cámbiala cuando entres."),
    ("pt", "O login do painel é @U@ e a senha é @P@"),
    ("pt", "senha do servidor: @P@"),
    ("de", "Benutzer @U@, Passwort @P@ – bitte nach dem ersten Login ändern."),
    ("de", "Das Kennwort für das Archiv lautet @P@"),
    ("fr", "Identifiant : @U@, mot de passe : @P@"),
    ("fr", "le mdp du FTP c'est @P@"),
    ("it", "La password dell'account admin è @P@"),
    ("nl", "Het wachtwoord van de database is @P@"),
    ("pl", "Hasło do panelu: @P@"),
    ("ru", "Логин @U@, пароль @P@"),
    ("ru", "пароль от сервера: @P@"),
    ("uk", "Пароль до адмінки: @P@"),
    ("tr", "Panel şifresi: @P@"),
    ("ar", "كلمة المرور: @P@"),
    ("hi", "पासवर्ड है @P@"),
    ("zh", "后台账号 @U@ 密码 @P@"),
    ("zh", "服务器密码：@P@"),
    ("ja", "管理画面のパスワードは @P@ です"),
    ("ko", "관리자 비밀번호: @P@"),
    ("vi", "Mật khẩu quản trị: @P@"),
    ("id", "Kata sandi admin: @P@"),
    ("en dispute", "Dispute @ORD@: seller never delivered. As proof that I gave him access: I sent 'root / @P@' on the 3rd and he logged in from @IP@."),
    ("en review", "Great work. Note for others: he asked for my cPanel password (@P@) and didn't misuse it, but change yours after."),
    ("en offer note", "Offer note: after payment in USDC you get the VPS: ssh root@@IP@, password @P@, port 2222."),
    ("en mail", "From: seller@@D@\nTo: buyer@@D@\nSubject: access\n\nHi,\nFTP host ftp.@D@\nuser @U@\npass @P@\n\nRegards"),
    ("csv", "service,user,password\nwordpress,@U@,@P@\nftp,deploy,@P2@"),
    ("markdown table", "| service | login | password |\n|---|---|---|\n| grafana | admin | @P@ |\n| rabbitmq | orders | @P2@ |"),
    ("shell session", "$ ssh deploy@@IP@\ndeploy@@IP@'s password: @P@\nWelcome to Ubuntu 24.04 LTS"),
    ("sshpass", "sshpass -p '@P@' rsync -av ./dist/ deploy@@IP@:/var/www/shop"),
    ("cron", "0 3 * * * BACKUP_PASS='@P@' /opt/backup/run.sh >> /var/log/backup.log 2>&1"),
    ("ansible", "all:\n  vars:\n    ansible_user: deploy\n    ansible_password: \"@P@\"\n    ansible_become_pass: \"@P2@\""),
    ("docker-compose", "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: shop\n      POSTGRES_PASSWORD: @P@"),
    ("ci yaml", "deploy:\n  stage: deploy\n  script:\n    - sshpass -p \"@P@\" scp build.tar.gz ci@@IP@:/srv/"),
    ("log", "2026-11-20 14:02:11,902 ERROR auth: login failed for user=@U@ password=@P@ ip=@IP@"),
    ("stack trace", "java.sql.SQLException: Access denied for user '@U@'@'@IP@' (using password: YES)\n\tat com.mysql.cj.jdbc.ConnectionImpl.createNewIO(ConnectionImpl.java:836)\n# datasource.password=@P@"),
    ("xml", "<connectionStrings>\n  <add name=\"Shop\" connectionString=\"Data Source=@H@;Initial Catalog=shop;User Id=@U@;Password=@P@;\" />\n</connectionStrings>"),
    ("php", "$pdo = new PDO('mysql:host=@H@;dbname=shop', '@U@', '@P@');"),
    ("go", "cfg := mysql.Config{User: \"@U@\", Passwd: \"@P@\", Net: \"tcp\", Addr: \"@H@:3306\"}"),
    ("rust", "let pool = PgPoolOptions::new().connect(\"postgres://@U@:@P@@@H@/market\").await?;"),
    ("js", "const conn = await mysql.createConnection({ host: '@H@', user: '@U@', password: '@P@', database: 'shop' });"),
    ("java", "props.setProperty(\"password\", \"@P@\");\nConnection c = DriverManager.getConnection(url, props);"),
    ("c#", "var cred = new NetworkCredential(\"@U@\", \"@P@\");"),
    ("ruby", "Net::SMTP.start('smtp.@D@', 587, 'shop', '@U@', '@P@', :login)"),
    ("notebook", "{\"cell_type\": \"code\", \"source\": [\"conn = psycopg2.connect(host='@H@', user='@U@', password='@P@')\"]}"),
    ("toml", "[database]\nhost = \"@H@\"\nuser = \"@U@\"\npassword = \"@P@\""),
    ("ini", "[mysql]\nuser=@U@\npassword=@P@\nhost=@H@"),
    ("hcl", "resource \"aws_db_instance\" \"shop\" {\n  engine   = \"postgres\"\n  username = \"shop\"\n  password = \"@P@\"\n}"),
    ("systemd", "[Service]\nEnvironment=\"SMTP_PASSWORD=@P@\"\nExecStart=/usr/bin/notifier"),
    ("shell history", "  88  mysql -u root -p\n  89  htpasswd -b /etc/nginx/.htpasswd admin @P@\n  90  systemctl reload nginx"),
    ("keepass-like", "Entry: Exchange hot wallet\nUser: treasury\nPassword: @P@\nURL: https://wallet.@D@"),
    ("wifi", "nmcli dev wifi connect ShopOffice password '@P@'"),
    ("app password", "Outlook app password for the invoices mailbox: @P@"),
]


def gen_passwords():
    for ctx, t in PW_T:
        sec("password", ctx, fill(t, P=M(password()), P2=M(password())))


def gen_other():
    for kind, ctx, f in OTHER_T:
        sec(kind, ctx, fill(f()))


# ================================================================ look-alikes
def txh():
    return "0x" + hexs(64)


def btc_p2pkh():
    return b58check(b"\x00" + rbytes(20))


def bech32_addr():
    CH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

    def polymod(values):
        gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
        chk = 1
        for v in values:
            b = chk >> 25
            chk = (chk & 0x1ffffff) << 5 ^ v
            for i in range(5):
                chk ^= gen[i] if ((b >> i) & 1) else 0
        return chk
    prog = rbytes(20)
    acc, bits, data = 0, 0, [0]
    for x in prog:
        acc = (acc << 8) | x
        bits += 8
        while bits >= 5:
            bits -= 5
            data.append((acc >> bits) & 31)
    if bits:
        data.append((acc << (5 - bits)) & 31)
    hrp = "bc"
    exp = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    pm = polymod(exp + data + [0] * 6) ^ 1
    chk = [(pm >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(CH[d] for d in data + chk)


def sha256hex():
    return hashlib.sha256(rbytes(16)).hexdigest()


def gitsha():
    return hashlib.sha1(rbytes(16)).hexdigest()


def png_b64():
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    w = h = rng.randrange(4, 12)
    raw = b"".join(b"\0" + rbytes(w * 3) for _ in range(h))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return b64(png)


LANG_TX = [
    ("en", "Payment sent, tx hash @T@ — 1,250 USDC on Base, please confirm."),
    ("en", "Here's the proof of payment: https://etherscan.io/tx/@T@"),
    ("en", "refund done. txid: @T@ (polygon, 340 USDT)"),
    ("es", "Ya pagué, el hash de la transacción es @T@"),
    ("pt", "Pagamento feito, hash da transação: @T@"),
    ("de", "Die Zahlung ist raus, Transaktions-Hash: @T@"),
    ("fr", "Paiement envoyé, hash de transaction : @T@"),
    ("it", "Pagamento inviato, hash della transazione @T@"),
    ("nl", "Betaling verstuurd, transactiehash @T@"),
    ("pl", "Przelew wysłany, hash transakcji: @T@"),
    ("ru", "Оплатил, хеш транзакции: @T@"),
    ("uk", "Оплата відправлена, хеш транзакції: @T@"),
    ("tr", "Ödeme gönderildi, işlem hash'i: @T@"),
    ("ar", "تم الدفع، رقم المعاملة: @T@"),
    ("hi", "भुगतान हो गया, ट्रांज़ैक्शन हैश: @T@"),
    ("zh", "已付款，交易哈希：@T@"),
    ("ja", "送金しました。トランザクションハッシュ：@T@"),
    ("ko", "송금 완료, 트랜잭션 해시: @T@"),
    ("vi", "Đã thanh toán, mã giao dịch: @T@"),
    ("id", "Sudah bayar, hash transaksi: @T@"),
    ("en dispute", "Dispute @ORD@: I paid 900 USDC in @T@ at block 21,845,113; the seller says nothing arrived. The key point is the tx succeeded."),
    ("en private", "I will not share my private key, but here is the tx that proves I own the wallet: @T@"),
    ("json receipt", "{\"transactionHash\": \"@T@\", \"blockHash\": \"@T2@\", \"blockNumber\": \"0x14d2a7f\", \"status\": \"0x1\"}"),
    ("log", "2026-11-21T10:00:03Z INFO payout broadcast hash=@T@ nonce=42 gas=21000"),
    ("cast receipt", "$ cast receipt @T@\n\nblockHash            @T2@\nblockNumber          21845113\nstatus               1 (success)"),
    ("safe", "Safe tx hash (to sign in the app): @T@ — safeTxHash, not a key"),
    ("topic", "Transfer topic0 = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef, topic1 = 0x000000000000000000000000@A40@"),
    ("signature", "signature: 0x@S130@ (EIP-191 personal_sign of the order id)"),
    ("signature json", "{\"message\": \"I am the seller of @ORD@\", \"address\": \"@A@\", \"sig\": \"0x@S130@\"}"),
    ("merkle", "merkleRoot = @T@; // airdrop of the loyalty points"),
    ("block", "finalized block @T@ at height 21,900,004"),
    ("bitcoin txid", "BTC refund txid @H64@ (2 confirmations)"),
    ("solana sig", "Solana payment signature: @SOLSIG@ https://solscan.io/tx/@SOLSIG@"),
    ("solana sig es", "Firma de la transacción en Solana: @SOLSIG@"),
    ("calldata", "input: 0xa9059cbb000000000000000000000000@A40@00000000000000000000000000000000000000000000000000000000@H8@"),
    ("storage slot", "vm.store(usdc, bytes32(uint256(@T@)), bytes32(uint256(1e12)));  // slot of balances[me]"),
    ("keccak", "bytes32 public constant MINTER_ROLE = @T@; // keccak256(\"MINTER_ROLE\")"),
    ("pubkey", "uncompressed public key: 0x04@H128@"),
    ("pubkey compressed", "signer pubkey (compressed) 0x0@C@@H64@, derived address @A@"),
]


def gen_look_hashes():
    for ctx, t in LANG_TX:
        solsig = b58enc(rbytes(64))
        look("hash/signature", ctx, fill(t, T=txh(), T2=txh(), S130=hexs(128) + pick(["1b", "1c"]), A40=hexs(40), H64=hexs(64), H8=hexs(8), SOLSIG=solsig, H128=hexs(128), C=pick("23")))


ADDR_T = [
    ("evm", "Send the USDC (ERC-20) to @A@ only, not to the old address."),
    ("evm es", "Mi dirección de pago es @A@ (red Polygon)."),
    ("evm zh", "收款地址：@A@（Arbitrum）"),
    ("evm list", "payout addresses:\n- @A@\n- @A@\n- @A@"),
    ("evm json", "{\"seller\": \"@A@\", \"buyer\": \"@A@\", \"token\": \"@A@\", \"amount\": \"2500000000\"}"),
    ("solana", "My Solana wallet (USDC-SPL): @SOL@"),
    ("solana ru", "Мой адрес в Solana: @SOL@"),
    ("solana pubkey", "Program id @SOL@, mint @SOL2@, authority @SOL3@"),
    ("btc", "refund to bitcoin address @BTC@ please"),
    ("btc bech32", "Adresse BTC (SegWit) : @BECH@"),
    ("xpub", "watch-only import: @XPUB@ (public, it cannot spend)"),
    ("xpub de", "Erweiterter öffentlicher Schlüssel zum Beobachten: @XPUB@"),
    ("xpub descriptor", "wpkh([@H8@/84h/0h/0h]@XPUB@/0/*)"),
    ("tron", "TRC20 USDT address: T@TRON@"),
]


def gen_look_addresses():
    for ctx, t in ADDR_T:
        look("address/public", ctx, fill(t, SOL=sol_pub(), SOL2=sol_pub(), SOL3=sol_pub(), BTC=btc_p2pkh(), BECH=bech32_addr(), XPUB=xpub(), H8=hexs(8), TRON=b58check(b"\x41" + rbytes(20))[1:]))


def cert_b64():
    return b64(b"0\x82\x03\x1d0\x82\x02\x05\xa0\x03\x02\x01\x02\x02\x14" + rbytes(600))


def pem_wrap(s, w=64):
    return "\n".join(s[i:i + w] for i in range(0, len(s), w))


PUB_T = [
    ("ssh public", lambda: "add this to authorized_keys: ssh-ed25519 " + b64(b"\0\0\0\x0bssh-ed25519\0\0\0 " + rbytes(32)) + " buyer@laptop"),
    ("ssh public rsa", lambda: "ssh-rsa " + b64(b"\0\0\0\x07ssh-rsa\0\0\0\x03\x01\0\x01\0\0\x01\x01\0" + rbytes(256)) + " deploy@ci"),
    ("pem public", lambda: "Webhook signatures are verified with our public key:\n-----BEGIN PUBLIC KEY-----\n" + pem_wrap(b64(bytes.fromhex("30820122300d06092a864886f70d01010105000382010f003082010a0282010100") + rbytes(256) + b"\x02\x03\x01\x00\x01")) + "\n-----END PUBLIC KEY-----"),
    ("certificate", lambda: "-----BEGIN CERTIFICATE-----\n" + pem_wrap(cert_b64()) + "\n-----END CERTIFICATE-----"),
    ("pgp public", lambda: "My PGP public key, encrypt the deliverable to it:\n-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + pem_wrap(b64(b"\x98\x33\x04" + rbytes(400))) + "\n=" + b64(rbytes(3)) + "\n-----END PGP PUBLIC KEY BLOCK-----"),
    ("jwks", lambda: "{\"keys\": [{\"kty\": \"RSA\", \"use\": \"sig\", \"kid\": \"" + hexs(16) + "\", \"alg\": \"RS256\", \"n\": \"" + b64url(rbytes(256)) + "\", \"e\": \"AQAB\"}]}"),
    ("wireguard public", lambda: "[Peer]\nPublicKey = " + b64(rbytes(32)) + "\nAllowedIPs = 10.8.0.0/24\nEndpoint = " + ip() + ":51820"),
    ("k8s configmap ca", lambda: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: trust\nbinaryData:\n  ca.crt: " + b64(b"-----BEGIN CERTIFICATE-----\n" + cert_b64()[:300].encode() + b"\n-----END CERTIFICATE-----\n")),
    ("sentry public dsn", lambda: "Sentry.init({ dsn: \"https://" + hexs(32) + "@o" + str(rng.randrange(10**5, 10**6)) + ".ingest.sentry.io/" + str(rng.randrange(10**6, 10**7)) + "\", tracesSampleRate: 0.2 });"),
    ("age public", lambda: "encrypt to my age recipient: age1" + "".join(rng.choice("qpzry9x8gf2tvdw0s3jn54khce6mua7l") for _ in range(58))),
    ("nostr npub", lambda: "find me on nostr: npub1" + "".join(rng.choice("qpzry9x8gf2tvdw0s3jn54khce6mua7l") for _ in range(58))),
    ("gpg fingerprint", lambda: "Key fingerprint = " + " ".join(hexs(4).upper() for _ in range(10))),
]

DIGEST_T = [
    ("sha256sum", lambda: "$ sha256sum axp-bot-v2.3.1-linux-amd64.tar.gz\n" + sha256hex() + "  axp-bot-v2.3.1-linux-amd64.tar.gz"),
    ("checksums file", lambda: "\n".join(sha256hex() + "  dist/" + f for f in ["bot-darwin-arm64", "bot-linux-amd64", "bot-windows.exe"])),
    ("docker digest", lambda: "image: ghcr.io/acme/settler@sha256:" + sha256hex()),
    ("docker pull", lambda: "Digest: sha256:" + sha256hex() + "\nStatus: Downloaded newer image for postgres:16.4"),
    ("git log", lambda: "commit " + gitsha() + "\nAuthor: Seller <seller@example.com>\nDate:   Tue Nov 17 10:22:01 2026 +0000\n\n    rotate the API key and read it from env"),
    ("git short", lambda: "fixed in " + gitsha()[:7] + " and " + gitsha()[:12] + ", merged as " + gitsha()),
    ("go.sum", lambda: "github.com/ethereum/go-ethereum v1.14.11 h1:" + b64(rbytes(32)) + "\ngithub.com/ethereum/go-ethereum v1.14.11/go.mod h1:" + b64(rbytes(32))),
    ("npm integrity", lambda: "\"integrity\": \"sha512-" + b64(rbytes(64)) + "\""),
    ("sri", lambda: "<script src=\"https://cdn.example.com/widget.js\" integrity=\"sha384-" + b64(rbytes(48)) + "\" crossorigin=\"anonymous\"></script>"),
    ("cargo.lock", lambda: "[[package]]\nname = \"k256\"\nversion = \"0.13.4\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"" + sha256hex() + "\""),
    ("md5", lambda: "MD5 (invoice-@ORD@.pdf) = " + hexs(32)),
    ("etag", lambda: "HTTP/1.1 200 OK\nETag: \"" + hexs(32) + "\"\nx-request-id: " + uuid4()),
    ("ipfs", lambda: "metadata pinned at ipfs://Qm" + b58enc(rbytes(32))[:44] + " and bafy" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(55))),
    ("poetry lock", lambda: "{file = \"eth_account-0.13.4-py3-none-any.whl\", hash = \"sha256:" + sha256hex() + "\"}"),
    ("bcrypt-free sha", lambda: "sha256(\"order-@ORD@\") = " + sha256hex() + " (used as the idempotency key of the payout, derived from the order id)"),
]

ID_T = [
    ("uuid", lambda: "order id " + uuid4() + ", buyer id " + uuid4()),
    ("uuid log", lambda: "request_id=" + uuid4() + " trace_id=" + hexs(32) + " span_id=" + hexs(16)),
    ("stripe ids", lambda: "Stripe: customer cus_" + rs(14) + ", payment intent pi_" + rs(24) + ", charge ch_" + rs(24)),
    ("stripe event", lambda: "{\"id\": \"evt_" + rs(24) + "\", \"type\": \"payment_intent.succeeded\", \"data\": {\"object\": {\"id\": \"pi_" + rs(24) + "\", \"client_secret\": null}}}"),
    ("stripe more", lambda: "price_" + rs(24) + " / prod_" + rs(14) + " / sub_" + rs(24) + " / in_" + rs(24) + " / acct_" + rs(16)),
    ("order numbers", lambda: "Orders @ORD@, @ORD@ and @ORD@ are settled; invoice INV-2026-" + str(rng.randrange(1000, 9999))),
    ("tracking", lambda: "Tracking: 1Z" + rs(6, UP + DIG) + "03" + rs(8, DIG) + " (UPS), DHL " + rs(10, DIG)),
    ("ulid", lambda: "job " + "01J" + rs(23, "0123456789ABCDEFGHJKMNPQRSTVWXYZ") + " finished in 4.2 s"),
    ("paypal ids", lambda: "PayPal transaction ID " + rs(17, UP + DIG) + ", invoice " + "INV2-" + "-".join(rs(4, UP + DIG) for _ in range(4))),
    ("aws ids", lambda: "arn:aws:iam::" + rs(12, DIG) + ":role/payout-worker, instance i-" + hexs(17) + ", sg-" + hexs(17)),
    ("telegram ids", lambda: "chat_id -100" + rs(10, DIG) + ", message_id " + rs(5, DIG)),
    ("github run", lambda: "https://github.com/acme/shop/actions/runs/" + rs(11, DIG) + "/job/" + rs(11, DIG)),
    ("discord id", lambda: "user id " + rs(18, DIG) + " in guild " + rs(19, DIG)),
    ("gcp key id", lambda: "service account deployer@market-prod.iam.gserviceaccount.com, client id " + rs(21, DIG)),
]

PLACE_T = [
    ("angle", "OPENAI_API_KEY=<your-openai-key>\nANTHROPIC_API_KEY=<your-anthropic-key>"),
    ("dots", "set the key like this: export OPENAI_API_KEY=sk-... (never commit it)"),
    ("xxxx", "STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx"),
    ("xxxx gh", "git clone https://ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx@github.com/acme/shop.git  # replace the x's with your token"),
    ("env var ref", "DATABASE_URL=postgres://${DB_USER}:${DB_PASSWORD}@${DB_HOST}:5432/market"),
    ("env var ref 2", "curl -u \"$API_USER:$API_TOKEN\" https://api.example.com/v1/orders"),
    ("bearer var", "curl -H \"Authorization: Bearer $ACCESS_TOKEN\" https://api.example.com/me"),
    ("your key", "const wallet = new ethers.Wallet(\"YOUR_PRIVATE_KEY\", provider);"),
    ("0xyour", "PRIVATE_KEY=0xYOUR_PRIVATE_KEY_HERE"),
    ("empty env", ".env.example:\nPRIVATE_KEY=\nMNEMONIC=\nSTRIPE_SECRET_KEY=\nDB_PASSWORD="),
    ("stars", "Password: ********  (hidden, I'll send it through the platform's secure field)"),
    ("redacted", "aws_secret_access_key = [REDACTED]\naws_access_key_id = [REDACTED]"),
    ("redacted 2", "Authorization: Bearer <redacted>"),
    ("mnemonic placeholder", "MNEMONIC=\"word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12\""),
    ("pem placeholder", "-----BEGIN PRIVATE KEY-----\n...paste your key here...\n-----END PRIVATE KEY-----"),
    ("angle pw", "mysql -h db.example.com -u shop -p<password> shop"),
    ("prompt pw", "$ mysql -h db.example.com -u shop -p\nEnter password:\nWelcome to the MySQL monitor."),
    ("curly", "api_key: {{ .Values.apiKey }}\npassword: {{ required \"db password\" .Values.db.password }}"),
    ("gha", "env:\n  PRIVATE_KEY: ${{ secrets.DEPLOYER_PRIVATE_KEY }}\n  RPC_URL: ${{ vars.RPC_URL }}"),
    ("infura var", "const provider = new ethers.JsonRpcProvider(`https://mainnet.infura.io/v3/${process.env.INFURA_PROJECT_ID}`);"),
    ("alchemy var", "ALCHEMY_URL=https://eth-mainnet.g.alchemy.com/v2/${ALCHEMY_KEY}"),
    ("docs example", "Your key looks like sk-ant-api03-... and is shown only once in the console."),
    ("typed placeholder", "--private-key <PRIVATE_KEY> --rpc-url <RPC_URL>"),
    ("k8s secretKeyRef", "env:\n  - name: SIGNER_KEY\n    valueFrom:\n      secretKeyRef:\n        name: payout-signer\n        key: SIGNER_KEY"),
    ("vault ref", "password: vault:secret/data/shop/db#password"),
    ("aws sm ref", "\"secrets\": [{\"name\": \"DB_PASSWORD\", \"valueFrom\": \"arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf\"}]"),
    ("1password ref", "op run --env-file=.env -- node server.js  # .env holds op://Shop/Stripe/secret_key"),
    ("sops", "stripe_key: ENC[AES256_GCM,data:" + "@B64A@" + ",iv:@B64B@,tag:@B64C@,type:str]"),
    ("zero key", "// dummy key for unit tests, all zeros, never funded\nconst ZERO = \"0x0000000000000000000000000000000000000000000000000000000000000000\";"),
    ("env lookup compose", "environment:\n  - POSTGRES_PASSWORD=${POSTGRES_PASSWORD:?set it in .env}\n  - STRIPE_KEY=${STRIPE_KEY}"),
    ("password prompt prose", "When it asks `Password:` type the one from the sealed envelope, not here."),
]

ENV_T = [
    ("python", "import os\nPRIVATE_KEY = os.environ[\"PRIVATE_KEY\"]\nacct = Account.from_key(PRIVATE_KEY)"),
    ("python getenv", "api_key = os.getenv(\"STRIPE_SECRET_KEY\")\nif not api_key:\n    raise SystemExit(\"set STRIPE_SECRET_KEY\")"),
    ("python boto", "secret = boto3.client(\"secretsmanager\").get_secret_value(SecretId=\"prod/signer\")[\"SecretString\"]"),
    ("python keyring", "password = keyring.get_password(\"shop-db\", \"market\")"),
    ("python getpass", "pw = getpass.getpass(\"Keystore password: \")\nkey = Account.decrypt(keystore, pw)"),
    ("js", "const wallet = new ethers.Wallet(process.env.PRIVATE_KEY!, provider);"),
    ("js dotenv", "require('dotenv').config();\nconst stripe = require('stripe')(process.env.STRIPE_SECRET_KEY);"),
    ("ts hardhat", "accounts: process.env.DEPLOYER_KEY ? [process.env.DEPLOYER_KEY] : [],"),
    ("go", "key := os.Getenv(\"SIGNER_KEY\")\nif key == \"\" {\n\treturn errors.New(\"SIGNER_KEY is empty: set it in the unit file\")\n}"),
    ("go password", "password := os.Getenv(\"DB_PASSWORD\")\ndsn := fmt.Sprintf(\"%s:%s@tcp(%s)/shop\", user, password, host)"),
    ("rust", "let key = std::env::var(\"PRIVATE_KEY\").expect(\"PRIVATE_KEY not set\");\nlet signer: PrivateKeySigner = key.parse()?;"),
    ("java", "String secret = System.getenv(\"BINANCE_SECRET\");\nCredentials creds = Credentials.create(System.getenv(\"ETH_KEY\"));"),
    ("kotlin", "val token = System.getenv(\"TELEGRAM_BOT_TOKEN\") ?: error(\"missing TELEGRAM_BOT_TOKEN\")"),
    ("c#", "var password = Environment.GetEnvironmentVariable(\"DB_PASSWORD\");\nvar key = builder.Configuration[\"Stripe:SecretKey\"];"),
    ("php", "$key = getenv('MOLLIE_API_KEY');\n$password = $_ENV['DB_PASSWORD'] ?? '';"),
    ("ruby", "Stripe.api_key = ENV.fetch(\"STRIPE_SECRET_KEY\")\npassword = Rails.application.credentials.dig(:db, :password)"),
    ("shell", "read -rsp 'DB password: ' PGPASSWORD && export PGPASSWORD\npsql -h db.example.com -U market"),
    ("shell vault", "export VAULT_TOKEN=$(vault login -token-only -method=oidc)\nDB_PASSWORD=$(vault kv get -field=password secret/shop/db)"),
    ("gcloud", "gcloud secrets versions access latest --secret=stripe-secret-key"),
    ("aws cli", "aws secretsmanager get-secret-value --secret-id prod/payout/signer --query SecretString --output text"),
    ("az", "az keyvault secret show --vault-name shop-kv --name db-password --query value -o tsv"),
    ("terraform", "variable \"db_password\" {\n  type      = string\n  sensitive = true\n}\n\nresource \"aws_db_instance\" \"shop\" {\n  password = var.db_password\n}"),
    ("systemd", "[Service]\nEnvironmentFile=/etc/payout/secrets.env\nLoadCredential=signer:/etc/credstore/signer\nExecStart=/usr/local/bin/payout"),
    ("docker secret", "services:\n  api:\n    secrets:\n      - db_password\nsecrets:\n  db_password:\n    file: ./secrets/db_password.txt"),
    ("solidity", "uint256 deployerKey = vm.envUint(\"PRIVATE_KEY\");\nvm.startBroadcast(deployerKey);"),
    ("cast keystore", "cast send $TOKEN \"transfer(address,uint256)\" $TO 1000000 --account deployer --rpc-url $RPC"),
    ("nginx", "location /admin {\n    auth_basic \"Restricted\";\n    auth_basic_user_file /etc/nginx/.htpasswd;\n}"),
    ("sql", "SELECT id, email, password_hash FROM users WHERE last_login < now() - interval '90 days';"),
    ("ci", "- name: Login to registry\n  uses: docker/login-action@v3\n  with:\n    username: ${{ github.actor }}\n    password: ${{ secrets.GITHUB_TOKEN }}"),
    ("config getter", "password = config.get('database', 'password')\napi_key = settings.STRIPE_SECRET_KEY"),
]

PROSE_T = [
    ("en", "Never send your seed phrase or private key to anyone, including me. I only need your public address to deliver."),
    ("en", "The password must be at least 14 characters and is stored as an Argon2 hash; I can't see it."),
    ("en", "I rotated the API key after the demo, so the one in the screenshot is dead. Ask for a new one through the vault invite."),
    ("en", "Q: Do you need my exchange API secret? A: No. Create a read-only key yourself and enter it in the settings page; I never see it."),
    ("en", "Review: seller asked for my 12 words \"to verify the wallet\" — that's a scam, reported."),
    ("es", "Nunca compartas tu frase semilla ni tu clave privada. La contraseña la eliges tú al instalar."),
    ("pt", "Não precisa me mandar a senha; eu uso uma chave de API com permissão só de leitura."),
    ("de", "Bitte schick mir weder dein Passwort noch deinen privaten Schlüssel. Die Wiederherstellungsphrase bleibt bei dir."),
    ("fr", "Ne partagez jamais votre phrase de récupération. Le mot de passe est défini par vous lors de l'installation."),
    ("it", "La chiave privata resta sul tuo dispositivo; io ho bisogno solo dell'indirizzo pubblico."),
    ("nl", "Deel nooit je herstelzin of wachtwoord via de chat, ook niet met de verkoper."),
    ("pl", "Nie wysyłaj mi hasła ani klucza prywatnego — wystarczy adres portfela."),
    ("ru", "Никогда не отправляйте сид-фразу и приватный ключ. Пароль задаёте вы сами при первом запуске."),
    ("uk", "Не надсилайте пароль і приватний ключ у чаті, достатньо публічної адреси."),
    ("tr", "Özel anahtarınızı ve kurtarma kelimelerinizi kimseyle paylaşmayın; şifreyi kurulumda siz belirlersiniz."),
    ("ar", "لا تشارك عبارة الاسترداد أو المفتاح الخاص مع أي شخص، ولا حتى مع البائع."),
    ("hi", "अपना पासवर्ड या प्राइवेट की कभी किसी से साझा न करें, मुझे सिर्फ़ वॉलेट एड्रेस चाहिए।"),
    ("zh", "请不要把助记词或私钥发给任何人，包括我。密码由你在安装时自己设置。"),
    ("ja", "秘密鍵やシードフレーズは絶対に送らないでください。パスワードはご自身で設定します。"),
    ("ko", "개인키나 복구 구문은 절대 공유하지 마세요. 비밀번호는 설치할 때 직접 정하시면 됩니다."),
    ("vi", "Đừng gửi cụm từ khôi phục hay khóa riêng tư cho bất kỳ ai. Mật khẩu do bạn tự đặt."),
    ("id", "Jangan pernah bagikan frasa pemulihan atau kunci privat. Kata sandi Anda tentukan sendiri."),
    ("en offer", "Offer note: I deliver a Telegram bot that pays out in USDT. You create the bot token with BotFather and paste it into the .env yourself; I never handle it."),
    ("en dispute", "Dispute statement: the seller claims I leaked the private key. The key was generated on his server (see log of 2026-11-02), I never had it. I ask for the 50/50 split."),
    ("en policy", "Password policy: 12+ characters, one symbol, rotated every 90 days. Example of a strong pattern: three random words plus digits."),
    ("en key length", "An EVM private key is 32 bytes (64 hex characters); the address is the last 20 bytes of the keccak hash of the public key."),
    ("en bip39", "BIP-39 phrases have 12 to 24 words from a list of 2048; the last word carries a checksum, so a random list of words is almost never valid."),
    ("en pw field", "password field: hidden\napi key field: hidden\nstatus: stored in the vault on 2026-11-03"),
    ("en git", "commit 3f1c2a9: remove hardcoded password from config.py, read DB_PASSWORD from env instead"),
    ("en header names", "The request needs the headers X-API-Key and X-API-Signature (HMAC-SHA256 of the body with your secret). Don't paste them here."),
]


BIP_LOOK = [
    ("word game", lambda: "Word game for the kids' channel, today's 12 words: " + " ".join(bad_mnemonic(12))),
    ("tags", lambda: "tags: " + ", ".join(bad_mnemonic(12))),
    ("glossary", lambda: "Glossary (EN→ES): " + "; ".join("%s = ?" % w for w in bad_mnemonic(8))),
    ("24 words", lambda: "Test of the phrase validator (should be rejected, wrong checksum): " + " ".join(bad_mnemonic(24))),
    ("numbered", lambda: "Spelling list week 3:\n" + "\n".join("%d. %s" % (i + 1, w) for i, w in enumerate(bad_mnemonic(12)))),
    ("hardhat public", lambda: "Hardhat and Anvil's public test mnemonic (documented, never holds real funds): test test test test test test test test test test test junk"),
    ("list of 6", lambda: "Six words to rhyme with: " + " ".join(bad_mnemonic(6))),
    ("song", lambda: "Lyrics draft: " + " ".join(bad_mnemonic(15)) + " (la la la)"),
    ("json words", lambda: "{\"stopwords\": " + json.dumps(bad_mnemonic(12)) + "}"),
    ("wordlist file", lambda: "head -n 12 english.txt\n" + "\n".join(WORDS[:12])),
]

PUBLIC_KEYS_T = [
    ("stripe publishable", lambda: "STRIPE_PUBLISHABLE_KEY=pk_live_51" + rs(97) + "\n# the secret key goes in the server's vault"),
    ("stripe publishable js", lambda: "const stripe = Stripe('pk_test_51" + rs(97) + "');"),
    ("stripe publishable chat", lambda: "this is the publishable key, safe for the frontend: pk_live_" + rs(99)),
    ("hardhat account 0", lambda: "Account #0: 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (10000 ETH)\nPrivate Key: 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80\n\nWARNING: These accounts, and their private keys, are publicly known."),
    ("aws docs example", lambda: "From the AWS docs example: aws_access_key_id = AKIAIOSFODNN7EXAMPLE, aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("recaptcha site key", lambda: "<div class=\"g-recaptcha\" data-sitekey=\"6L" + rs(38, URLSAFE) + "\"></div>"),
    ("algolia search key", lambda: "algoliasearch('" + rs(10, UP + DIG) + "', 'search-only key " + hexs(32) + " — public by design')"),
    ("mapbox public", lambda: "mapboxgl.accessToken = 'pk.eyJ1Ijoi" + rs(20) + "." + rs(22, URLSAFE) + "';"),
]

MISC_T = [
    ("base64 png", lambda: "<img alt=\"logo\" src=\"data:image/png;base64," + png_b64() + "\">"),
    ("base64 png md", lambda: "![qr](data:image/png;base64," + png_b64() + ")"),
    ("minified", lambda: "!function(e,t){\"object\"==typeof exports?module.exports=t():e.Widget=t()}(this,function(){var n=\"build-" + hexs(12) + "\",r=function(e){return e.split(\"\").reverse().join(\"\")};return{v:\"3.2.1\",id:n,r:r}});"),
    ("minified css", lambda: ".btn{color:#1a2b3c;background:#f0f4f8}.k" + rs(6, LO) + "{margin:0}/*# sourceMappingURL=data:application/json;base64," + b64(json.dumps({"version": 3, "mappings": rs(60, B64[:-2] + ",;")}).encode()) + " */"),
    ("hexdump", lambda: "\n".join("%08x  %s  |%s|" % (o, " ".join(hexs(2) for _ in range(16)), "".join(rng.choice(LO + ".") for _ in range(16))) for o in range(0, 64, 16))),
    ("xxd", lambda: "$ xxd -l 32 invoice.pdf\n00000000: 2550 4446 2d31 2e37 0a25 " + " ".join(hexs(4) for _ in range(3)) + "  %PDF-1.7.%......\n00000010: " + " ".join(hexs(4) for _ in range(8)) + "  ................"),
    ("versions", lambda: "go 1.23.4, node v22.11.0, geth 1.14.11-stable-" + hexs(8) + ", solc 0.8.28+commit." + hexs(8)),
    ("pip freeze", lambda: "eth-account==0.13.4\nweb3==7.5.0\ncryptography==43.0.3\npython-dotenv==1.0.1"),
    ("benchmark", lambda: "BenchmarkSign-2   \t   41230\t     29012 ns/op\t    1840 B/op\t      23 allocs/op\nBenchmarkVerify-2 \t   18022\t     66513 ns/op"),
    ("hyperfine", lambda: "Time (mean ± σ):     412.3 ms ±   9.1 ms    [User: 380.2 ms, System: 31.0 ms]"),
    ("csv payouts", lambda: "date,order,amount_usdc,tx_hash\n2026-11-01,@ORD@,120.00," + txh() + "\n2026-11-02,@ORD@,75.50," + txh()),
    ("sql select", lambda: "SELECT order_id, tx_hash, payer_address FROM payments WHERE tx_hash = '" + txh() + "';"),
    ("notebook output", lambda: "{\"output_type\": \"execute_result\", \"data\": {\"text/plain\": [\"'" + txh() + "'\"]}, \"execution_count\": 7}"),
    ("stack trace", lambda: "Error: insufficient funds for intrinsic transaction cost (transaction=\"" + "0x02f8b1" + hexs(120) + "\", code=INSUFFICIENT_FUNDS, version=6.13.4)\n    at makeError (node_modules/ethers/lib.commonjs/utils/errors.js:129:21)"),
    ("k8s no secret", lambda: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: settler\nspec:\n  template:\n    spec:\n      containers:\n        - name: settler\n          image: ghcr.io/acme/settler@sha256:" + sha256hex() + "\n          envFrom:\n            - secretRef:\n                name: settler-env"),
    ("mail forwarded", lambda: "---------- Forwarded message ---------\nFrom: billing@example.com\nSubject: Your invoice @ORD@\n\nAmount: 480.00 USDC\nReference: " + uuid4() + "\nPaid with tx " + txh()),
    ("markdown table", lambda: "| order | status | tx |\n|---|---|---|\n| @ORD@ | paid | " + txh()[:18] + "… |\n| @ORD@ | refunded | " + txh()[:18] + "… |"),
    ("random nonce", lambda: "nonce: " + hexs(32) + " (one-time, already used; replay protection for the login message)"),
    ("color palette", lambda: "palette: #0F172A #1E293B #334155 #F59E0B, font Inter 400/600"),
    ("eip712", lambda: "{\"domain\": {\"name\": \"USD Coin\", \"version\": \"2\", \"chainId\": 8453, \"verifyingContract\": \"@A@\"}, \"primaryType\": \"Permit\", \"message\": {\"owner\": \"@A@\", \"spender\": \"@A@\", \"value\": \"1000000\", \"nonce\": 0, \"deadline\": 1798000000}}"),
]

HARD_T = [
    ("not a key", lambda: "To be clear, this is the transaction hash, NOT my private key: " + txh()),
    ("not a key ru", lambda: "Это хеш транзакции, а не приватный ключ: " + txh()),
    ("env public values", lambda: "PAYOUT_ADDRESS=" + evm_addr() + "\nUSDC_CONTRACT=" + evm_addr() + "\nCHAIN_ID=8453\nSTART_BLOCK=21845113"),
    ("key words non-secret", lambda: "idempotency_key: " + uuid4() + "\ncache_key: " + sha256hex() + "\npartition_key: seller#" + rs(6, DIG)),
    ("token address", lambda: "token address " + evm_addr() + ", token id " + rs(5, DIG) + ", tokenURI ipfs://Qm" + b58enc(rbytes(32))[:44]),
    ("secret santa", lambda: "Secret Santa draw for the team: budget 30 USDT, results sent privately. The secret ingredient is patience."),
    ("psbt", lambda: "Unsigned PSBT for you to co-sign (no keys inside): cHNidP8BAHEC" + b64(rbytes(120))),
    ("lightning invoice", lambda: "pay this invoice: lnbc25u1p" + "".join(rng.choice("qpzry9x8gf2tvdw0s3jn54khce6mua7l") for _ in range(200))),
    ("walletconnect", lambda: "WalletConnect projectId (public, shipped in the frontend bundle): " + hexs(32)),
    ("public rpc", lambda: "RPC endpoints without keys: https://mainnet.base.org, https://polygon-rpc.com, https://rpc.ankr.com/eth, https://arb1.arbitrum.io/rpc"),
    ("git remote no token", lambda: "git remote -v\norigin\tgit@github.com:acme/shop.git (fetch)\norigin\thttps://github.com/acme/shop.git (push)"),
    ("curl -u prompt", lambda: "curl -u admin https://api.example.com/v1/health   # curl asks for the password"),
    ("pgpassfile", lambda: "PGPASSFILE=/run/secrets/pgpass psql -h db.example.com -U market -d shop"),
    ("max uint", lambda: "approve(spender, 115792089237316195423570985008687907853269984665640564039457584007913129639935) — infinite allowance, revoke later"),
    ("ens", lambda: "send to seller.eth or pay.acme-shop.eth, resolver " + evm_addr()),
    ("constructor args", lambda: "Constructor Arguments ABI-encoded: 000000000000000000000000" + hexs(40) + "00000000000000000000000000000000000000000000000000000000000f4240"),
    ("solana tx json", lambda: "{\"signatures\": [\"" + b58enc(rbytes(64)) + "\"], \"message\": {\"accountKeys\": [\"" + sol_pub() + "\", \"" + sol_pub() + "\"], \"recentBlockhash\": \"" + sol_pub() + "\"}}"),
    ("blockhash sol", lambda: "recentBlockhash: " + sol_pub() + " lastValidBlockHeight: 301928441"),
    ("vrf", lambda: "VRF keyHash 0x" + hexs(64) + " (Chainlink gas lane, a public constant)"),
    ("create2 salt", lambda: "CREATE2 salt = keccak256(abi.encode(orderId)) = 0x" + hexs(64) + " -> deterministic escrow address " + evm_addr()),
    ("permit sig rsv", lambda: "permit(owner, spender, value, deadline, v=27, r=0x" + hexs(64) + ", s=0x" + hexs(64) + ")"),
    ("bitcoin block", lambda: "block 871234 hash 00000000000000000001" + hexs(44) + " merkle root " + hexs(64)),
    ("password reset", lambda: "Password reset link expired; request a new one from the login page (the link is valid 15 minutes)."),
    ("password hint", lambda: "Passwort-Hinweis: der Name unseres ersten Projekts plus das Jahr. Mehr schreibe ich hier nicht."),
    ("api key last4", lambda: "Your API key ending in …" + rs(4) + " was created on 2026-10-14 and last used 2 days ago."),
    ("masked key", lambda: "Active key: sk_live_" + "•" * 20 + rs(4) + " (masked in the dashboard)"),
    ("masked pk", lambda: "private key: 0x" + hexs(4) + "…" + hexs(4) + " (truncated on purpose, full key stays with me)"),
    ("gpg key id", lambda: "Signed with key ID " + hexs(16).upper() + ", verify with the published fingerprint."),
    ("ssh known_hosts", lambda: ip() + " ecdsa-sha2-nistp256 " + b64(b"\0\0\0\x13ecdsa-sha2-nistp256\0\0\0\x08nistp256\0\0\0A\x04" + rbytes(64))),
    ("ssh fingerprint", lambda: "The authenticity of host '" + ip() + "' can't be established.\nED25519 key fingerprint is SHA256:" + b64(rbytes(32)).rstrip("=") + "."),
    ("totp explained", lambda: "2FA uses TOTP: a 6-digit code every 30 seconds. I'll read you the code on a call, not the seed."),
    ("hmac signature header", lambda: "X-Signature: sha256=" + hexs(64) + "\nX-Timestamp: 1798001234\n(the signature of this webhook body, computed with the shared secret that stays on the server)"),
]


def gen_looks():
    gen_look_hashes()
    gen_look_addresses()
    for ctx, f in PUB_T:
        for _ in range(2):
            look("public key/cert", ctx, fill(f()))
    for ctx, f in DIGEST_T:
        for _ in range(2):
            look("digest", ctx, fill(f()))
    for ctx, f in ID_T:
        for _ in range(2):
            look("id", ctx, fill(f()))
    for ctx, t in PLACE_T:
        look("placeholder", ctx, fill(t, B64A=b64(rbytes(40)), B64B=b64(rbytes(32)), B64C=b64(rbytes(16))))
    for ctx, t in ENV_T:
        look("secret read from env/manager", ctx, fill(t))
    for ctx, t in PROSE_T:
        look("prose", ctx, fill(t))
    for ctx, f in BIP_LOOK:
        look("bip39 words, no valid phrase", ctx, fill(f()))
    for ctx, f in PUBLIC_KEYS_T:
        look("public/publishable key", ctx, fill(f()))
    for ctx, f in HARD_T:
        look("hard", ctx, fill(f()))
    for ctx, f in MISC_T:
        for _ in range(2):
            look("misc", ctx, fill(f()))


def gen_secrets():
    gen_evm()
    gen_mnemonic()
    gen_wallet_other()
    gen_exchange()
    gen_other()
    gen_passwords()


def write(path, header, items):
    with open(os.path.join(HERE, path), "w", encoding="utf-8") as f:
        f.write(header)
        for kind, ctx, text in items:
            line = esc(text)
            assert not line.startswith("#") and line.strip(), (kind, ctx, text)
            f.write("# %s | %s\n%s\n" % (kind, ctx, line))


def main():
    gen_secrets()
    gen_looks()
    write("heldout6_secret.txt",
          "# Sixth held-out credentials: texts holding credentials; \u00ab...\u00bb marks every value that must be removed.\n"
          "# Written by heldout6_gen.py (seeded); do not edit by hand. Every value is random and fake.\n"
          "# Each sample is preceded by a comment: kind | context.\n",
          SECRETS)
    write("heldout6_lookalike.txt",
          "# Sixth held-out look-alikes: texts in which nothing may be found.\n"
          "# Written by heldout6_gen.py (seeded); do not edit by hand. Every value is random and fake.\n"
          "# Each sample is preceded by a comment: kind | context.\n",
          LOOKS)
    print("secrets", len(SECRETS), "lookalikes", len(LOOKS))


if __name__ == "__main__":
    main()
