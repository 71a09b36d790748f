#!/usr/bin/env python3
"""Writes heldout3_secret.txt and heldout3_lookalike.txt: a third credential corpus written
without reading the credential rules. Every value is random and fake. Seeded: running it again
writes the same files."""
import base64
import hashlib
import os
import string

import random

R = random.Random(20261129)
HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = [w.strip() for w in open(os.path.join(HERE, "..", "..", "bip39_english.txt")) if w.strip()]

# ---- keccak-256 for checksummed addresses ----
RC = [0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
      0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
      0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
      0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
      0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
      0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008]
ROT = [[0, 36, 3, 41, 18], [1, 44, 10, 45, 2], [62, 6, 43, 15, 61], [28, 55, 25, 21, 56], [27, 20, 39, 8, 14]]
M64 = (1 << 64) - 1


def _rol(x, n):
    return ((x << n) | (x >> (64 - n))) & M64 if n else x


def _f(A):
    for rc in RC:
        C = [A[x][0] ^ A[x][1] ^ A[x][2] ^ A[x][3] ^ A[x][4] for x in range(5)]
        D = [C[(x - 1) % 5] ^ _rol(C[(x + 1) % 5], 1) for x in range(5)]
        A = [[A[x][y] ^ D[x] for y in range(5)] for x in range(5)]
        B = [[0] * 5 for _ in range(5)]
        for x in range(5):
            for y in range(5):
                B[y][(2 * x + 3 * y) % 5] = _rol(A[x][y], ROT[x][y])
        A = [[B[x][y] ^ ((~B[(x + 1) % 5][y]) & B[(x + 2) % 5][y]) for y in range(5)] for x in range(5)]
        A[0][0] ^= rc
    return A


def keccak256(data):
    rate = 136
    data = bytearray(data) + b"\x01"
    while len(data) % rate:
        data += b"\x00"
    data[-1] |= 0x80
    A = [[0] * 5 for _ in range(5)]
    for off in range(0, len(data), rate):
        blk = data[off:off + rate]
        for i in range(rate // 8):
            x, y = i % 5, i // 5
            A[x][y] ^= int.from_bytes(blk[8 * i:8 * i + 8], "little")
        A = _f(A)
    out = b""
    for i in range(4):
        out += A[i % 5][i // 5].to_bytes(8, "little")
    return out


assert keccak256(b"").hex() == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"


# ---- random values ----
def hexs(n):
    return "".join(R.choice("0123456789abcdef") for _ in range(n))


def alnum(n, chars=string.ascii_letters + string.digits):
    return "".join(R.choice(chars) for _ in range(n))


def up(n):
    return alnum(n, string.ascii_uppercase + string.digits)


def low(n):
    return alnum(n, string.ascii_lowercase + string.digits)


def b64(n):
    return base64.b64encode(bytes(R.getrandbits(8) for _ in range(n))).decode()


def b64url(n):
    return base64.urlsafe_b64encode(bytes(R.getrandbits(8) for _ in range(n))).decode().rstrip("=")


def pk():
    return hexs(64)


def addr():
    a = hexs(40)
    h = keccak256(a.encode()).hex()
    return "0x" + "".join(c.upper() if c.isalpha() and int(h[i], 16) >= 8 else c for i, c in enumerate(a))


def phrase(n=None):
    n = n or R.choice([12, 12, 12, 15, 18, 21, 24, 24])
    ent_bits = n * 11 * 32 // 33
    ent = bytes(R.getrandbits(8) for _ in range(ent_bits // 8))
    cs = ent_bits // 32
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(ent_bits)
    bits += bin(hashlib.sha256(ent).digest()[0])[2:].zfill(8)[:cs]
    return [WORDS[int(bits[i:i + 11], 2)] for i in range(0, len(bits), 11)]


def valid(ws):
    if len(ws) not in (12, 15, 18, 21, 24):
        return False
    bits = "".join(bin(WORDS.index(w))[2:].zfill(11) for w in ws)
    cs = len(bits) // 33
    ent = int(bits[:-cs], 2).to_bytes((len(bits) - cs) // 8, "big")
    return bin(hashlib.sha256(ent).digest()[0])[2:].zfill(8)[:cs] == bits[-cs:]


def notphrase(n):
    while True:
        ws = R.sample(WORDS, n)
        if not valid(ws):
            return ws


def pw():
    w = R.choice(["Tundra", "quokka", "Mirage", "pelican", "Saffron", "ostrich", "Vortex", "lantern", "Cobalt", "marlin"])
    return w + R.choice(["!", "#", "$", "%", "&", "*", "_", "."]) + str(R.randint(10, 9999)) + alnum(R.randint(2, 5))


def uuid():
    h = hexs(32)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], R.choice("89ab"), h[17:20], h[20:32])


def ip():
    return R.choice(["192.0.2.", "198.51.100.", "203.0.113.", "10.%d.%d." % (R.randint(0, 255), R.randint(0, 255))]) + str(R.randint(2, 250))


def host():
    return R.choice(["db", "pg", "rpc", "node", "vault", "ops", "api", "mx"]) + str(R.randint(1, 9)) + "." + R.choice(
        ["example.com", "example.org", "example.net", "swapdesk.test", "corp.internal", "ledger.internal"])


def user():
    return R.choice(["svc_settle", "admin", "trader", "deploy", "ops", "otc_bot", "relayer", "kyc_ro", "mmaker"])


def pem(kind="RSA PRIVATE KEY", lines=8):
    body = "\\n".join(b64(48) for _ in range(lines))
    return "-----BEGIN %s-----\\n«%s»\\n-----END %s-----" % (kind, body, kind)


def cid():
    return "bafybei" + alnum(52, "abcdefghijklmnopqrstuvwxyz234567")


def ulid():
    return alnum(26, "0123456789ABCDEFGHJKMNPQRSTVWXYZ")


def b32(n):
    return alnum(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")


def jwt(payload):
    h = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    p = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
    return h + "." + p + "." + b64url(32)


def nx(k):
    return R.choice(["0x", ""]) + k


def M(v):
    return "«" + v + "»"


# ---- secret texts: each template returns one line (escaped) ----
def evm_keys():
    k = pk
    return [
        lambda: "const wallet = new ethers.Wallet(\"%s\", provider);" % M("0x" + k()),
        lambda: "import { privateKeyToAccount } from 'viem/accounts'\\nconst account = privateKeyToAccount('%s')\\nconst client = createWalletClient({ account, chain: mainnet, transport: http() })" % M("0x" + k()),
        lambda: "const web3 = new Web3(rpc);\\nconst acct = web3.eth.accounts.privateKeyToAccount('%s');\\nweb3.eth.accounts.wallet.add(acct);" % M("0x" + k()),
        lambda: "from eth_account import Account\\nacct = Account.from_key(\"%s\")\\nprint(acct.address)" % M(nx(k())),
        lambda: "w3 = Web3(Web3.HTTPProvider(RPC))\\nsigned = w3.eth.account.sign_transaction(tx, private_key='%s')\\nw3.eth.send_raw_transaction(signed.raw_transaction)" % M(nx(k())),
        lambda: "key, err := crypto.HexToECDSA(\"%s\")\\nif err != nil {\\n\\tlog.Fatal(err)\\n}" % M(k()),
        lambda: "let wallet: LocalWallet = \"%s\".parse::<LocalWallet>()?.with_chain_id(1u64);" % M(k()),
        lambda: "let signer: PrivateKeySigner = \"%s\".parse()?;\\nlet provider = ProviderBuilder::new().wallet(EthereumWallet::from(signer)).on_http(url);" % M("0x" + k()),
        lambda: "Credentials credentials = Credentials.create(\"%s\");\\nTransactionReceipt r = Transfer.sendFunds(web3j, credentials, to, BigDecimal.ONE, Convert.Unit.ETHER).send();" % M(k()),
        lambda: "var account = new Nethereum.Web3.Accounts.Account(\"%s\", Chain.MainNet);\\nvar web3 = new Web3(account, rpcUrl);" % M("0x" + k()),
        lambda: "<?php\\n$privateKey = '%s';\\n$tx = new Transaction($nonce, $gasPrice, $gasLimit, $to, $value, $data);\\n$signed = '0x' . $tx->sign($privateKey);" % M(k()),
        lambda: "key = Eth::Key.new priv: \"%s\"\\ntx.sign key" % M(k()),
        lambda: "val credentials = Credentials.create(\"%s\")  // settlement hot wallet\\nval manager = RawTransactionManager(web3j, credentials, 137L)" % M("0x" + k()),
        lambda: "function run() external {\\n    uint256 deployerKey = %s;\\n    vm.startBroadcast(deployerKey);\\n    new Escrow(usdc);\\n    vm.stopBroadcast();\\n}" % M("0x" + k()),
        lambda: "$ cast send %s \"transfer(address,uint256)\" %s 2500000000 --rpc-url $RPC --private-key %s" % (addr(), addr(), M("0x" + k())),
        lambda: "forge script script/Deploy.s.sol --broadcast --rpc-url https://rpc.%s --private-key=%s" % (R.choice(["example.org", "chain.test"]), M(k())),
        lambda: "foundry.toml:\\n[profile.default]\\nsrc = \"src\"\\n[rpc_endpoints]\\nsepolia = \"${SEPOLIA_RPC}\"\\n# deployer (do not commit!!) %s" % M(k()),
        lambda: "module.exports = {\\n  solidity: \"0.8.24\",\\n  networks: {\\n    polygon: { url: \"https://rpc.example.net\", accounts: [\"%s\"] }\\n  }\\n};" % M("0x" + k()),
        lambda: "const HDWalletProvider = require('@truffle/hdwallet-provider');\\nmodule.exports = { networks: { bsc: { provider: () => new HDWalletProvider('%s', 'https://bsc.example.org'), network_id: 56 } } };" % M(k()),
        lambda: "resource \"aws_secretsmanager_secret_version\" \"relayer\" {\\n  secret_id     = aws_secretsmanager_secret.relayer.id\\n  secret_string = \"%s\"\\n}" % M(k()),
        lambda: "apiVersion: v1\\nkind: Secret\\nmetadata:\\n  name: payout-signer\\ntype: Opaque\\nstringData:\\n  SIGNER_KEY: \"%s\"" % M("0x" + k()),
        lambda: "values-prod.yaml:\\nrelayer:\\n  replicas: 2\\n  signer:\\n    privateKey: %s\\n  gasCap: 80" % M(k()),
        lambda: "services:\\n  bot:\\n    image: ghcr.io/acme/arb-bot:1.4\\n    environment:\\n      - CHAIN_ID=8453\\n      - WALLET_PK=%s" % M(k()),
        lambda: "      - name: Deploy vault\\n        run: npx hardhat run scripts/deploy.ts --network base\\n        env:\\n          DEPLOYER_PRIVATE_KEY: %s" % M("0x" + k()),
        lambda: "RPC_URL=https://rpc.example.com\\nCHAIN_ID=137\\nPRIVATE_KEY=%s\\nUSDC=%s" % (M(k()), addr()),
        lambda: "[Service]\\nExecStart=/usr/local/bin/keeper --chain arbitrum\\nEnvironment=KEEPER_KEY=%s\\nRestart=always" % M("0x" + k()),
        lambda: "./payout-cli sweep --to %s --key %s --dry-run=false" % (addr(), M(k())),
        lambda: "here is the key of the test wallet you funded with 40 USDC, import it into MetaMask: %s" % M(k()),
        lambda: "Lieferung wie besprochen. Der private Schlüssel der Wallet lautet %s – bitte sofort in einen neuen Tresor verschieben." % M("0x" + k()),
        lambda: "Entregado. Clave privada de la billetera: %s (no la compartas con nadie)." % M(k()),
        lambda: "钱包已经创建好了，私钥：%s，请尽快转走资产。" % M("0x" + k()),
        lambda: "ウォレットの秘密鍵は「%s」です。確認したら教えてください。" % M(k()),
        lambda: "Вот приватный ключ от кошелька для тестов: %s . Баланс 12 USDT." % M("0x" + k()),
        lambda: "Chave privada da carteira de deploy → %s (guarde num cofre, por favor)" % M(k()),
        lambda: "Özel anahtar: %s — cüzdanda 300 USDC var, teslimat tamam." % M("0x" + k()),
        lambda: "Khóa riêng tư của ví: %s. Anh kiểm tra giúp em nhé." % M(k()),
        lambda: "المفتاح الخاص للمحفظة هو %s يرجى نقله فورًا" % M("0x" + k()),
        lambda: "Klucz prywatny do portfela: %s, saldo 75 USDC." % M(k()),
        lambda: "{\"network\":\"base\",\"signer\":{\"address\":\"%s\",\"privateKey\":\"%s\"}}" % (addr(), M("0x" + k())),
        lambda: "seller: ok the bot is running on the box. pk if you need to move funds manually\\nseller: %s\\nbuyer: got it thanks" % M(k()),
        lambda: "2026-11-02T10:14:55Z DEBUG signer init chain=1 from=%s key=%s" % (addr(), M("0x" + k())),
        lambda: ">>> from web3 import Account\\n>>> Account.from_key('%s').address\\n'%s'" % (M("0x" + k()), addr()),
        lambda: "let pk = std::env::var(\"PK\").unwrap_or_else(|_| \"%s\".to_string()); // fallback for local runs" % M(k()),
        lambda: "private static final String OPERATOR_KEY = \"%s\";" % M(k()),
        lambda: "Subject: wallet handover\\n\\nHi,\\n\\nAs agreed, the operator account is now yours. Its key:\\n\\n    %s\\n\\nPlease rotate it after you move the funds.\\n\\nBest,\\nMara" % M("0x" + k()),
        lambda: "| env | address | key |\\n|---|---|---|\\n| staging | %s | %s |" % (addr(), M(k())),
    ]


def seeds():
    def j(ws, sep=" "):
        return sep.join(ws)
    return [
        lambda: "Recovery phrase for the wallet: %s" % M(j(phrase())),
        lambda: "seed:\\n%s" % "\\n".join("%d. %s" % (i + 1, M(w)) for i, w in enumerate(phrase(12))),
        lambda: "mnemonic = \"%s\"\\nacct = Account.from_mnemonic(mnemonic)" % M(j(phrase())),
        lambda: "const wallet = ethers.Wallet.fromPhrase(\"%s\");" % M(j(phrase())),
        lambda: "MNEMONIC=\"%s\"\\nINFURA_ID=${INFURA_ID}" % M(j(phrase(24))),
        lambda: "{\"mnemonic\": \"%s\", \"path\": \"m/44'/60'/0'/0/0\"}" % M(j(phrase())),
        lambda: "words: %s" % ", ".join(M(w) for w in phrase(12)),
        lambda: "%s" % "\\n".join(M(w) for w in phrase(R.choice([12, 18]))),
        lambda: "助记词如下：%s。请务必离线保存。" % M(j(phrase(12))),
        lambda: "ニーモニック：%s" % M(j(phrase(15))),
        lambda: "Frase semilla (24 palabras): %s" % M(j(phrase(24))),
        lambda: "Сид-фраза: %s — запиши на бумагу." % M(j(phrase(12))),
        lambda: "Phrase de récupération : “%s”" % M(j(phrase(12))),
        lambda: "anvil --mnemonic \"%s\" --accounts 3" % M(j(phrase(12))),
        lambda: "cast wallet derive-private-key \"%s\" 0" % M(j(phrase(12))),
        lambda: "buyer: which words?\\nseller: %s\\nseller: 21 words, no passphrase" % M(j(phrase(21))),
        lambda: "Kelime listesi (kurtarma): %s" % M(j(phrase(18))),
        lambda: "Cụm từ khôi phục: %s" % M(j(phrase(12))),
        lambda: "mnemonic: |\\n  %s" % M(j(phrase(24))),
        lambda: "| # | word |\\n%s" % "\\n".join("| %d | %s |" % (i + 1, M(w)) for i, w in enumerate(phrase(12))),
        lambda: "Frasa pemulihan dompet: %s. Tolong simpan baik-baik." % M(j(phrase(12))),
        lambda: " ".join("%d) %s" % (i + 1, M(w)) for i, w in enumerate(phrase(12))),
        lambda: "new HDWalletProvider({ mnemonic: { phrase: '%s' }, providerOrUrl: rpc })" % M(j(phrase(12))),
    ]


def keystore():
    return [
        lambda: "geth account import --password <(echo '%s') key.txt" % M(pw()),
        lambda: "keystore file attached (UTC--2026-11-01T08-12-33Z--%s). Password: %s" % (hexs(40), M(pw())),
        lambda: "acct = Account.decrypt(json.load(open('keystore.json')), '%s')" % M(pw()),
        lambda: "const w = await ethers.Wallet.fromEncryptedJson(json, \"%s\");" % M(pw()),
        lambda: "clef password for the signer keystore is %s" % M(pw()),
        lambda: "Keystore-Passwort: %s" % M(pw()),
    ]


def exchanges():
    return [
        lambda: "client = Client(api_key='%s', api_secret='%s')  # binance spot" % (M(alnum(64)), M(alnum(64))),
        lambda: "BINANCE_API_KEY=%s\\nBINANCE_API_SECRET=%s" % (M(alnum(64)), M(alnum(64))),
        lambda: "exchange = ccxt.kraken({\\n    'apiKey': '%s',\\n    'secret': '%s',\\n})" % (M(b64(42)), M(b64(64))),
        lambda: "OKX:\\n  apiKey: %s\\n  secretKey: %s\\n  passphrase: %s" % (M(uuid()), M(hexs(32).upper()), M(pw())),
        lambda: "coinbase cdp key\\nname: organizations/%s/apiKeys/%s\\nprivateKey: %s" % (uuid(), uuid(), pem("EC PRIVATE KEY", 3)),
        lambda: "const okx = new ccxt.okx({ apiKey: '%s', secret: '%s', password: '%s' })" % (M(uuid()), M(hexs(32).upper()), M(pw())),
        lambda: "Binance sub-account for the MM bot\\nkey    %s\\nsecret %s\\nIP whitelist %s" % (M(alnum(64)), M(alnum(64)), ip()),
        lambda: "Kraken API — Key: %s / Private key: %s" % (M(b64(42)), M(b64(64))),
    ]


def rpc():
    return [
        lambda: "ETH_RPC=https://eth-mainnet.g.alchemy.com/v2/%s" % M(alnum(32)),
        lambda: "provider = new JsonRpcProvider('https://mainnet.infura.io/v3/%s')" % M(hexs(32)),
        lambda: "rpc: https://%s-%s.quiknode.pro/%s/" % (R.choice(["wild-frosty", "quiet-lake", "misty-bold"]), R.choice(["mainnet", "base-mainnet"]), M(hexs(40))),
        lambda: "curl -s https://polygon-mainnet.g.alchemy.com/v2/%s -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_blockNumber\",\"params\":[]}'" % M(alnum(32)),
        lambda: "wss://arbitrum-mainnet.infura.io/ws/v3/%s" % M(hexs(32)),
    ]


def others():
    return [
        lambda: "[default]\\naws_access_key_id = %s\\naws_secret_access_key = %s" % (M("AKIA" + up(16)), M(alnum(40, string.ascii_letters + string.digits + "/+"))),
        lambda: "export AWS_ACCESS_KEY_ID=%s\\nexport AWS_SECRET_ACCESS_KEY=%s" % (M("AKIA" + up(16)), M(alnum(40))),
        lambda: "{\\n  \"type\": \"service_account\",\\n  \"project_id\": \"otc-desk-2291\",\\n  \"private_key_id\": \"%s\",\\n  \"private_key\": \"%s\",\\n  \"client_email\": \"sync@otc-desk-2291.iam.gserviceaccount.com\"\\n}" % (M(hexs(40)), pem("PRIVATE KEY", 6).replace("\\n", "\\\\n")),
        lambda: "DefaultEndpointsProtocol=https;AccountName=kycdocs;AccountKey=%s;EndpointSuffix=core.windows.net" % M(b64(64)),
        lambda: "https://kycdocs.blob.core.windows.net/uploads?sv=2022-11-02&ss=b&srt=co&sp=rwl&se=2026-12-31T00:00:00Z&sig=%s" % M(b64(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")),
        lambda: "git clone https://x-access-token:%s@github.com/acme/escrow.git" % M("ghp_" + alnum(36)),
        lambda: "GITHUB_TOKEN=%s" % M("github_pat_" + alnum(22) + "_" + alnum(59)),
        lambda: "gitlab token for the runner: %s" % M("glpat-" + alnum(20, string.ascii_letters + string.digits + "-_")),
        lambda: "bitbucket user: deploybot\\napp password: %s" % M("ATBB" + alnum(32)),
        lambda: "SLACK_BOT_TOKEN=%s" % M("xoxb-%d-%d-%s" % (R.randint(10**10, 10**11), R.randint(10**12, 10**13), alnum(24))),
        lambda: "webhook: https://hooks.slack.com/services/T%s/B%s/%s" % (up(8), up(10), M(alnum(24))),
        lambda: "client.login('%s');" % M(b64url(18) + "." + b64url(5) + "." + b64url(28)),
        lambda: "bot = telebot.TeleBot(\"%s\")" % M("%d:AA%s" % (R.randint(10**9, 10**10), alnum(33, string.ascii_letters + string.digits + "_-"))),
        lambda: "stripe.api_key = \"%s\"" % M("sk_live_" + alnum(99)),
        lambda: "STRIPE_WEBHOOK_SECRET=%s" % M("whsec_" + alnum(32)),
        lambda: "PAYPAL_CLIENT_ID=%s\\nPAYPAL_CLIENT_SECRET=%s" % ("A" + alnum(79, string.ascii_letters + string.digits + "-_"), M("E" + alnum(79, string.ascii_letters + string.digits + "-_"))),
        lambda: "square access token (production): %s" % M("EAAA" + alnum(60, string.ascii_letters + string.digits + "-_")),
        lambda: "client = OpenAI(api_key=\"%s\")" % M("sk-proj-" + alnum(48, string.ascii_letters + string.digits + "-_") + "T3BlbkFJ" + alnum(48, string.ascii_letters + string.digits + "-_")),
        lambda: "ANTHROPIC_API_KEY=%s" % M("sk-ant-api03-" + alnum(93, string.ascii_letters + string.digits + "-_") + "AA"),
        lambda: "co = cohere.Client(\"%s\")" % M(alnum(40)),
        lambda: "MISTRAL_API_KEY=%s" % M(alnum(32)),
        lambda: "groq: %s" % M("gsk_" + alnum(52)),
        lambda: "export REPLICATE_API_TOKEN=%s" % M("r8_" + alnum(37)),
        lambda: "DATABASE_URL=postgres://%s:%s@%s:5432/ledger?sslmode=require" % (user(), M(pw()), host()),
        lambda: "spring.datasource.url=jdbc:mysql://%s:3306/orders\\nspring.datasource.username=%s\\nspring.datasource.password=%s" % (host(), user(), M(pw())),
        lambda: "dsn := \"%s:%s@tcp(%s:3306)/trades?parseTime=true\"" % (user(), M(pw()), ip()),
        lambda: "mongodb+srv://%s:%s@cluster0.%s/?retryWrites=true" % (user(), M(pw()), R.choice(["mongo.example.net", "db.test"])),
        lambda: "redis-cli -h %s -a '%s' info" % (ip(), M(pw())),
        lambda: "%s" % pem("OPENSSH PRIVATE KEY", 7),
        lambda: "the deploy key, put it in ~/.ssh/id_rsa:\\n%s" % pem("RSA PRIVATE KEY", 10),
        lambda: "%s" % pem("PGP PRIVATE KEY BLOCK", 9),
        lambda: "Cookie: session=%s; theme=dark" % M(b64url(36)),
        lambda: "curl -H 'Cookie: connect.sid=s%%3A%s' https://admin.example.com/orders" % M(b64url(24) + "." + b64url(32)),
        lambda: "{\"access_token\":\"expired\",\"refresh_token\":\"%s\",\"token_type\":\"Bearer\"}" % M("1//0" + alnum(100, string.ascii_letters + string.digits + "-_")),
        lambda: "curl https://%s:%s@%s/api/export" % (user(), M(pw()), host()),
        lambda: "pip install --index-url https://deploy:%s@pypi.corp.internal/simple escrow-sdk" % M(pw()),
        lambda: "otpauth://totp/SwapDesk:ops?secret=%s&issuer=SwapDesk" % M(b32(32)),
        lambda: "2FA backup secret for the admin panel: %s" % M(" ".join(b32(4) for _ in range(8))),
        lambda: "SMTP_HOST=smtp.example.com\\nSMTP_USER=noreply@example.com\\nSMTP_PASS=%s" % M(pw()),
        lambda: "//registry.npmjs.org/:_authToken=%s" % M("npm_" + alnum(36)),
        lambda: "[pypi]\\n  username = __token__\\n  password = %s" % M("pypi-AgEIcHlwaS5vcmc" + alnum(60, string.ascii_letters + string.digits + "-_")),
        lambda: "echo %s | docker login -u acmebot --password-stdin" % M("dckr_pat_" + alnum(27, string.ascii_letters + string.digits + "-_")),
        lambda: "SENTRY_DSN=https://%s:%s@o%d.ingest.sentry.io/%d" % (hexs(32), M(hexs(32)), R.randint(10**5, 10**6), R.randint(10**6, 10**7)),
        lambda: "SUPABASE_SERVICE_ROLE_KEY=%s" % M(jwt('{"iss":"supabase","ref":"%s","role":"service_role","iat":1730000000,"exp":2045000000}' % low(20))),
        lambda: "CLOUDFLARE_API_TOKEN=%s" % M(alnum(40, string.ascii_letters + string.digits + "_-")),
        lambda: "firebase admin: \"private_key\": \"%s\"" % pem("PRIVATE KEY", 5).replace("\\n", "\\\\n"),
    ]


def passwords():
    return [
        lambda: "Login for the admin panel: %s / %s" % (user(), M(pw())),
        lambda: "Das Passwort für den Server ist %s" % M(pw()),
        lambda: "La contraseña del panel es %s" % M(pw()),
        lambda: "Le mot de passe : %s" % M(pw()),
        lambda: "A senha do painel é %s" % M(pw()),
        lambda: "La password dell'account è %s" % M(pw()),
        lambda: "Hasło do konta: %s" % M(pw()),
        lambda: "Пароль от панели: %s" % M(pw()),
        lambda: "密码：%s" % M(pw()),
        lambda: "パスワードは %s です。" % M(pw()),
        lambda: "비밀번호: %s" % M(pw()),
        lambda: "كلمة المرور: %s" % M(pw()),
        lambda: "पासवर्ड है: %s" % M(pw()),
        lambda: "Şifre: %s" % M(pw()),
        lambda: "Mật khẩu: %s" % M(pw()),
        lambda: "Kata sandi: %s" % M(pw()),
        lambda: "buyer: can you send me the VPS creds?\\nseller: root@%s pass %s" % (ip(), M(pw())),
        lambda: "ssh deploy@%s  (pw: %s)" % (ip(), M(pw())),
        lambda: "mysql -u %s -p'%s' -h %s" % (user(), M(pw()), ip()),
        lambda: "Ticket #%d: customer cannot log in. Reset done, temp password %s" % (R.randint(1000, 9999), M(pw())),
    ]


def secret_texts():
    out = []
    groups = [(evm_keys(), 2), (seeds(), 2), (keystore(), 2), (exchanges(), 2), (rpc(), 2), (others(), 2), (passwords(), 2)]
    for ts, n in groups:
        for t in ts:
            for _ in range(n):
                out.append(t())
    return out


# ---- look-alikes ----
def lookalikes():
    h = hexs
    ts = [
        lambda: "Sent 1,200 USDC, tx hash %s" % ("0x" + h(64)),
        lambda: "https://etherscan.io/tx/0x%s" % h(64),
        lambda: "block %d hash 0x%s parent 0x%s" % (R.randint(18000000, 21000000), h(64), h(64)),
        lambda: "Transfer(address,address,uint256) topic0 = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef; topic1 = 0x000000000000000000000000%s" % h(40),
        lambda: "cast storage %s 0x%s --rpc-url $RPC" % (addr(), h(64)),
        lambda: "calldata: 0xa9059cbb000000000000000000000000%s%s" % (h(40), "0" * 52 + h(12)),
        lambda: "Please pay to %s on Polygon, 250 USDT." % addr(),
        lambda: "receipt: {\"transactionHash\":\"0x%s\",\"blockHash\":\"0x%s\",\"from\":\"%s\",\"status\":\"0x1\"}" % (h(64), h(64), addr()),
        lambda: "uncompressed public key: 0x04%s" % h(128),
        lambda: "compressed pubkey 0x0%d%s" % (R.choice([2, 3]), h(64)),
        lambda: "commit %s\\nAuthor: Mara <mara@example.com>\\n\\n    fix escrow rounding" % h(40),
        lambda: "sha256sum release.tar.gz\\n%s  release.tar.gz" % h(64),
        lambda: "metadata pinned: ipfs://%s" % cid(),
        lambda: "order id %s, request id %s" % (uuid(), uuid()),
        lambda: "trace=%s span=%s" % (ulid(), h(16)),
        lambda: "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA%s\">" % b64(60),
        lambda: "merkle root 0x%s, leaf count %d" % (h(64), R.randint(100, 9000)),
        lambda: "PRIVATE_KEY=<your-private-key>\\nRPC_URL=<your-rpc-url>",
        lambda: "password: ********",
        lambda: "API_KEY=${API_KEY}\\nAPI_SECRET=${API_SECRET}",
        lambda: "const wallet = new ethers.Wallet(process.env.PRIVATE_KEY!, provider);",
        lambda: "const account = privateKeyToAccount(process.env.DEPLOYER_KEY as `0x${string}`)",
        lambda: "acct = Account.from_key(os.environ[\"SIGNER_KEY\"])",
        lambda: "key, err := crypto.HexToECDSA(os.Getenv(\"KEEPER_KEY\"))",
        lambda: "let wallet: LocalWallet = std::env::var(\"PK\")?.parse()?;",
        lambda: "Credentials c = Credentials.create(System.getenv(\"OPERATOR_KEY\"));",
        lambda: "var key = Environment.GetEnvironmentVariable(\"SIGNER_KEY\");\\nvar account = new Account(key, Chain.MainNet);",
        lambda: "$privateKey = getenv('WALLET_PK');",
        lambda: "key = Eth::Key.new priv: ENV.fetch(\"WALLET_PK\")",
        lambda: "val credentials = Credentials.create(System.getenv(\"SIGNER\"))",
        lambda: "uint256 deployerKey = vm.envUint(\"PRIVATE_KEY\");\\nvm.startBroadcast(deployerKey);",
        lambda: "networks: { base: { url: process.env.BASE_RPC, accounts: [process.env.DEPLOYER_PK] } }",
        lambda: "secret_string = var.relayer_key",
        lambda: "env:\\n  - name: SIGNER_KEY\\n    valueFrom:\\n      secretKeyRef:\\n        name: payout-signer\\n        key: key",
        lambda: "env:\\n  DEPLOYER_PRIVATE_KEY: ${{ secrets.DEPLOYER_PRIVATE_KEY }}",
        lambda: "environment:\\n  - WALLET_PK=${WALLET_PK}",
        lambda: "EnvironmentFile=/etc/keeper/keeper.env",
        lambda: "key = vault.read('secret/data/relayer')['data']['data']['key']",
        lambda: "aws secretsmanager get-secret-value --secret-id prod/binance --query SecretString",
        lambda: "Never share your private key or seed phrase with anyone, not even support staff.",
        lambda: "I will send the keystore file but keep the password to yourself; call me and I'll read it out.",
        lambda: "Tu frase semilla son 12 palabras; escríbelas en papel y no las fotografíes.",
        lambda: "Der private Schlüssel wird nie per Chat verschickt, nur über den Tresor.",
        lambda: "私钥不要发在聊天里，用密码管理器共享。",
        lambda: "Пароль я пришлю отдельно через Signal, тут не пишу.",
        lambda: "Şifreyi buraya yazmayın, kasaya koydum.",
        lambda: "Glossary: %s" % ", ".join("%s (noun)" % w for w in R.sample(WORDS, 6)),
        lambda: "The BIP-39 English list has 2048 words, from \"abandon\" to \"zoo\"; the first four letters of each are unique.",
        lambda: "Word game round %d: %s" % (R.randint(1, 40), " ".join(notphrase(R.choice([5, 7, 9, 10])))),
        lambda: "tags: %s" % ", ".join(notphrase(R.choice([4, 6, 8]))),
        lambda: "Rotated the Binance API key last week; the new secret is in the vault under prod/binance.",
        lambda: "The Alchemy URL is https://eth-mainnet.g.alchemy.com/v2/<API_KEY> — put your own key there.",
        lambda: "protobuf payload (base64): %s" % base64.b64encode(b"\x08\x96\x01\x12\x07testing" + bytes(R.getrandbits(8) for _ in range(20))).decode(),
        lambda: "ETag: \"%s\"" % h(32),
        lambda: "Docker image digest sha256:%s" % h(64),
        lambda: "nonce %d, gasUsed %d, effectiveGasPrice %d" % (R.randint(1, 900), R.randint(21000, 300000), R.randint(10**9, 10**11)),
        lambda: "EIP-712 domain separator 0x%s" % h(64),
        lambda: "Safe tx hash to sign in the UI: 0x%s" % h(64),
        lambda: "Withdrawal %s of 500 USDC to %s confirmed in block %d." % (ulid(), addr(), R.randint(10**7, 10**8)),
        lambda: "password = \"\"  # set in config.local.toml",
        lambda: "Set `STRIPE_SECRET_KEY` in your environment; the app refuses to start without it.",
        lambda: "Mật khẩu phải có ít nhất 12 ký tự, gồm chữ hoa và số.",
        lambda: "Kata sandi lama sudah kedaluwarsa, silakan atur ulang lewat email.",
        lambda: "A senha precisa ter pelo menos 10 caracteres.",
        lambda: "Hasło zmieniłem wczoraj, nowe jest w menedżerze haseł.",
        lambda: "कृपया अपना पासवर्ड किसी के साथ साझा न करें।",
        lambda: "لا تشارك كلمة المرور الخاصة بك مع أي شخص",
        lambda: "パスワードは管理画面から再設定してください。",
        lambda: "비밀번호는 별도로 전달하겠습니다.",
        lambda: "contract %s verified, bytecode hash 0x%s" % (addr(), h(64)),
        lambda: "event OrderFilled(bytes32 indexed orderHash, address maker) -> orderHash=0x%s maker=%s" % (h(64), addr()),
        lambda: "git log --oneline\\n%s fix fee calc\\n%s add USDT route\\n%s bump deps" % (h(7), h(7), h(7)),
        lambda: "Invoice INV-%d, reference %s, amount 3,400.00 USDC" % (R.randint(10000, 99999), up(12)),
        lambda: "device fingerprint %s" % h(40),
        lambda: "keccak256(\"Transfer(address,address,uint256)\") is the topic everyone knows; the first four bytes of a selector come from the same hash.",
        lambda: "mnemonic = os.environ[\"MNEMONIC\"]\\nacct = Account.from_mnemonic(mnemonic)",
        lambda: "seed phrase: [redacted by the seller, will share in person]",
        lambda: "API key: xxxxxxxxxxxxxxxxxxxxxxxx",
        lambda: "AWS_ACCESS_KEY_ID=<from-iam>\\nAWS_SECRET_ACCESS_KEY=<from-iam>",
        lambda: "DATABASE_URL=postgres://%s@%s:5432/ledger" % (user(), host()),
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI%s mara@laptop" % alnum(43, string.ascii_letters + string.digits + "+/"),
        lambda: "GPG fingerprint: %s" % " ".join(h(4).upper() for _ in range(10)),
        lambda: "ipfs cat %s > abi.json" % cid(),
        lambda: "Block explorer shows pending for %s; gas too low I think." % ("0x" + h(64)),
        lambda: "slot 0x%s holds 0x%s" % (h(64), "0" * 24 + h(40)),
    ]
    ENV = ["PRIVATE_KEY", "SIGNER_KEY", "DEPLOYER_PK", "HOT_WALLET_KEY", "RELAYER_KEY", "PAYOUT_KEY"]
    ts += [
        lambda: "const signer = new ethers.Wallet(process.env.%s ?? '', provider)" % R.choice(ENV),
        lambda: "pk = os.getenv(\"%s\")\\nif not pk:\\n    sys.exit(\"%s is not set\")" % ((R.choice(ENV),) * 2),
        lambda: "export %s=$(vault kv get -field=key secret/%s)" % (R.choice(ENV), R.choice(["relayer", "payout", "mm-bot"])),
        lambda: "forge script script/Deploy.s.sol --broadcast --rpc-url $RPC --account %s --sender %s" % (R.choice(["deployer", "ops", "hot"]), addr()),
        lambda: "Paid %s USDC for milestone %d; tx 0x%s" % (R.randint(50, 9000), R.randint(1, 6), hexs(64)),
        lambda: "buyer: did you get it?\\nseller: yes, confirmed at block %d, hash 0x%s" % (R.randint(10**7, 3 * 10**7), hexs(64)),
        lambda: "USDC on Base: %s, my receiving address %s" % (addr(), addr()),
        lambda: "Error: nonce too low (tx 0x%s, account %s)" % (hexs(64), addr()),
        lambda: "  \"integrity\": \"sha512-%s\"" % b64(64),
        lambda: "request_id=%s status=200 latency_ms=%d" % (uuid(), R.randint(3, 900)),
        lambda: "user %s logged in from %s (session expired after 30 min)" % (user(), ip()),
        lambda: "keystore: UTC--2026-%02d-%02dT10-00-00Z--%s (password in 1Password, vault Ops)" % (R.randint(1, 12), R.randint(1, 28), hexs(40)),
        lambda: "derivation path m/44'/60'/0'/0/%d gives %s" % (R.randint(0, 20), addr()),
        lambda: "permit signature v=%d r=0x%s s=0x%s" % (R.choice([27, 28]), hexs(64), hexs(64)),
        lambda: "ticket #%d: withdrawal stuck, hash 0x%s, customer id %s" % (R.randint(1000, 99999), hexs(64), uuid()),
        lambda: "SELECT * FROM trades WHERE tx_hash = '0x%s';" % hexs(64),
        lambda: "chainId %d, USDT contract %s, decimals 6" % (R.choice([1, 56, 137, 8453, 42161]), addr()),
        lambda: "docker pull ghcr.io/acme/relayer@sha256:%s" % hexs(64),
        lambda: "The seller sent a %d-word list for the crossword: %s" % ((lambda ws: (len(ws), ", ".join(ws)))(notphrase(R.choice([6, 8, 11])))),
        lambda: "Cargo.lock checksum = \"%s\"" % hexs(64),
        lambda: "go.sum: golang.org/x/crypto v0.%d.0 h1:%s=" % (R.randint(10, 40), b64(32)[:43]),
        lambda: "%s -> %s : %s USDC (fee %s)" % (addr(), addr(), R.randint(1, 99999), R.randint(1, 9)),
        lambda: "Wallet fingerprint %s, xpub stays on the hardware device." % hexs(8),
        lambda: "release notes v%d.%d: signer now loads its key from the KMS; no key in config any more." % (R.randint(1, 4), R.randint(0, 20)),
    ]
    out = []
    for t in ts:
        for _ in range(4):
            out.append(t())
    return out


def write(name, head, lines):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        f.write("# " + head + "\n# Generated by heldout3_gen.py (seeded); do not edit by hand.\n")
        for ln in lines:
            assert "\n" not in ln, ln
            f.write(ln + "\n")


def dedup(lines):
    seen, out = set(), []
    for ln in lines:
        if ln not in seen:
            seen.add(ln)
            out.append(ln)
    return out


if __name__ == "__main__":
    sec = secret_texts()
    look = dedup(lookalikes())
    for ln in sec:
        assert "«" in ln, ln
    for ln in look:
        assert "«" not in ln, ln
    write("heldout3_secret.txt", "Third held-out credential corpus: texts each holding credentials; «» marks each value to remove.", sec)
    write("heldout3_lookalike.txt", "Third held-out credential corpus: look-alikes in which nothing may be found.", look)
    print(len(sec), len(look))
