# Writes heldout2_secret.txt and heldout2_lookalike.txt: a second held-out corpus, written apart
# from the credential rules. Every value is random; the seed makes it reproducible.
import base64, hashlib, json, os, random, string, sys

R = random.Random(20261128)
HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = [w.strip() for w in open(os.path.join(HERE, "..", "..", "bip39_english.txt")) if w.strip()]
assert len(WORDS) == 2048

def hx(n, up=False):
    s = "".join(R.choice("0123456789abcdef") for _ in range(n))
    return s.upper() if up else s
def an(n, cs=string.ascii_letters + string.digits): return "".join(R.choice(cs) for _ in range(n))
def lo(n): return an(n, string.ascii_lowercase + string.digits)
def upn(n): return an(n, string.ascii_uppercase + string.digits)
def b64(nbytes): return base64.b64encode(R.randbytes(nbytes)).decode()
def b64u(nbytes): return base64.urlsafe_b64encode(R.randbytes(nbytes)).decode().rstrip("=")
def key(): return hx(64)
def k0x(): return "0x" + hx(64)
def addr(): return "0x" + an(40, "0123456789abcdefABCDEF")
def mnem(n):
    ent = R.randbytes(n * 11 * 32 // 33 // 8)
    h = hashlib.sha256(ent).digest()
    cs = n * 11 - len(ent) * 8
    bits = int.from_bytes(ent, "big") << cs | h[0] >> (8 - cs)
    return [WORDS[(bits >> (11 * (n - 1 - i))) & 2047] for i in range(n)]
def ph(n=None): return " ".join(mnem(n or R.choice([12, 12, 12, 15, 18, 24])))
def pw():
    return R.choice([
        lambda: an(R.randint(10, 16), string.ascii_letters + string.digits + "!@#$%^&*-_"),
        lambda: R.choice(["Tr0mb0ne", "Kasia", "Verano", "Sonnen", "Lobo", "Marzipan", "Gatito", "Pierogi"]) + str(R.randint(10, 9999)) + R.choice("!?#$*"),
        lambda: "-".join(R.choice(WORDS) for _ in range(4)) + str(R.randint(1, 99)),
        lambda: an(20, string.ascii_letters + string.digits),
    ])()
def jwt():
    h = b64u_s(json.dumps({"alg": R.choice(["HS256", "RS256", "ES256"]), "typ": "JWT"}))
    p = b64u_s(json.dumps({"sub": str(R.randint(1000, 99999)), "iat": R.randint(1.7e9, 1.8e9), "role": R.choice(["admin", "seller", "buyer"])}))
    return h + "." + p + "." + b64u(32)
def b64u_s(s): return base64.urlsafe_b64encode(s.encode()).decode().rstrip("=")
def pem(kind="RSA PRIVATE KEY", n=6):
    body = "\n".join(b64(48) for _ in range(n))
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"
def S(v): return "«" + v + "»"

# ---------------------------------------------------------------- secrets
EVM = [
 lambda: f"here's the deployer key, pls only use it on sepolia: {S(k0x())}",
 lambda: f"priv key {S(key())} (no 0x) — wallet has ~0.3 ETH for gas",
 lambda: f"const wallet = new ethers.Wallet(\"{S(k0x())}\", provider);",
 lambda: f"const signer = new Wallet('{S(key())}', new JsonRpcProvider(RPC))\nawait signer.sendTransaction({{to, value: parseEther('0.05')}})",
 lambda: f"acct = w3.eth.account.from_key(\"{S(k0x())}\")\nsigned = acct.sign_transaction(tx)",
 lambda: f"from eth_account import Account\nacct = Account.from_key('{S(key())}')",
 lambda: f"const account = privateKeyToAccount('{S(k0x())}')\nconst client = createWalletClient({{ account, chain: base, transport: http() }})",
 lambda: f"key, err := crypto.HexToECDSA(\"{S(key())}\")\nif err != nil {{ log.Fatal(err) }}",
 lambda: f"let signer: PrivateKeySigner = \"{S(k0x())}\".parse()?;",
 lambda: f"forge script script/Deploy.s.sol --rpc-url $RPC --private-key {S(k0x())} --broadcast",
 lambda: f"cast send 0x{hx(40)} \"mint(uint256)\" 3 --private-key {S(k0x())}",
 lambda: f"networks: {{ sepolia: {{ url: \"https://rpc.sepolia.org\", accounts: [\"{S(k0x())}\"] }} }}",
 lambda: f"module.exports = {{ solidity: '0.8.24', networks: {{ amoy: {{ url: RPC, accounts: ['{S(key())}'] }} }} }}",
 lambda: f"accounts.add('{S(k0x())}')\ntoken = Token.deploy({{'from': accounts[-1]}})",
 lambda: f"ape accounts import deployer  # pasted {S(key())} when it asked",
 lambda: f"PRIVATE_KEY={S(k0x())}\nRPC_URL=https://eth-sepolia.g.alchemy.com/v2/demo",
 lambda: f"DEPLOYER_PK=\"{S(key())}\"",
 lambda: f"export ETH_PRIVATE_KEY={S(k0x())}",
 lambda: f"wallet:\n  address: {addr()}\n  private_key: \"{S(k0x())}\"",
 lambda: f"{{\"network\": \"arbitrum\", \"signerKey\": \"{S(key())}\", \"gasLimit\": 300000}}",
 lambda: f"[signer]\nkey = \"{S(k0x())}\"\nchain_id = 8453",
 lambda: f"La clave privada de la billetera de pruebas es {S(key())}, no la compartas.",
 lambda: f"Chave privada da carteira: {S(k0x())} — usei só pra testnet, relaxa",
 lambda: f"Privater Schlüssel (nur Testnetz): {S(key())}",
 lambda: f"Voici la clé privée du wallet de déploiement : {S(k0x())}",
 lambda: f"chiave privata: {S(key())}\nl'indirizzo è {addr()}",
 lambda: f"Klucz prywatny do portfela: {S(k0x())} (tylko testnet!!)",
 lambda: f"Приватный ключ кошелька: {S(key())}",
 lambda: f"私钥是 {S(k0x())}，只在测试网用",
 lambda: f"秘密鍵：{S(key())} です。テストネット専用。",
 lambda: f"yo the bot wallet pk is {S(key())} lmk if it signs",
 lambda: f"sorry forgot — privkey:{S(k0x())}",
 lambda: f"node bot.js --key={S(k0x())} --chain=polygon",
 lambda: f"python arb.py --private-key {S(key())} --rpc https://polygon-rpc.com",
 lambda: f"Error: insufficient funds for gas * price + value (account {addr()}, key {S(k0x())})",
 lambda: f"  env:\n    PRIVATE_KEY: {S(k0x())}\n    RPC: ${{{{ secrets.RPC }}}}",
 lambda: f"docker run -e SIGNER_KEY={S(key())} ghcr.io/acme/relayer:1.4",
 lambda: f"resource \"aws_ssm_parameter\" \"pk\" {{\n  name  = \"/bot/pk\"\n  type  = \"SecureString\"\n  value = \"{S(k0x())}\"\n}}",
 lambda: f"Dispute: the seller used MY key {S(k0x())} to move funds after delivery. I gave it only for the deploy.",
 lambda: f"Review: great dev, but he asked me to paste my private key ({S(key())}) in chat. Rotated it since.",
 lambda: f"Q: which key should the script use?\nA: this one {S(k0x())} — it's funded on holesky",
 lambda: f"private String key = \"{S(key())}\";\nCredentials creds = Credentials.create(key);",
 lambda: f"var account = new Account(\"{S(k0x())}\", 11155111);\nvar web3 = new Web3(account, url);",
 lambda: f"$wallet = new Wallet('{S(key())}');",
 lambda: f"key = Eth::Key.new priv: \"{S(key())}\"",
 lambda: f"signer = LocalAccount.from_key(\"{S(k0x())}\")  # type: ignore",
 lambda: f"ok so the two keys are\nhot: {S(k0x())}\ncold-ish: {S(k0x())}",
 lambda: f"MetaMask → Account details → Show private key gave me {S(key())}",
 lambda: f"vm.startBroadcast({S(k0x())});",
 lambda: f"uint256 deployerKey = {S(k0x())};\nvm.startBroadcast(deployerKey);",
 lambda: f"INSERT INTO wallets(address, pk) VALUES ('{addr()}', '{S(key())}');",
 lambda: f"In [3]: pk = \"{S(k0x())}\"\nIn [4]: Account.from_key(pk).address\nOut[4]: '{addr()}'",
 lambda: f"apiVersion: v1\nkind: Secret\nmetadata: {{name: signer}}\nstringData:\n  key: \"{S(key())}\"",
 lambda: f"Subject: Fwd: wallet handover\n> Private key for the treasury test wallet: {S(k0x())}\n> Please confirm receipt.",
]
SEED = [
 lambda: f"seed phrase (test wallet): {S(ph())}",
 lambda: f"my recovery words are {S(ph(12))} — pls don't move anything",
 lambda: f"\"{S(ph(12))}\"",
 lambda: f"mnemonic: \"{S(ph(24))}\"",
 lambda: "words:\n" + "\n".join(f"{i+1}. " + S(w) for i, w in enumerate(mnem(12))),
 lambda: "\n".join(S(w) for w in mnem(12)),
 lambda: ", ".join(S(w) for w in mnem(12)),
 lambda: json.dumps({"mnemonic": "XX"}).replace("XX", S(ph(12))),
 lambda: "[" + ", ".join('"' + S(w) + '"' for w in mnem(12)) + "]",
 lambda: f"MNEMONIC=\"{S(ph())}\"",
 lambda: f"const wallet = Wallet.fromPhrase('{S(ph(12))}')",
 lambda: f"const account = mnemonicToAccount('{S(ph(12))}')",
 lambda: f"hdwallet: new HDWalletProvider({{ mnemonic: {{ phrase: \"{S(ph(12))}\" }}, providerOrUrl: RPC }})",
 lambda: f"Account.enable_unaudited_hdwallet_features()\nacct = Account.from_mnemonic(\"{S(ph(24))}\")",
 lambda: f"cast wallet address --mnemonic \"{S(ph(12))}\"",
 lambda: f"anvil --mnemonic \"{S(ph(12))}\" --accounts 5",
 lambda: f"Frase semilla: {S(ph(12))}. Guárdala bien.",
 lambda: f"Frase de recuperação: {S(ph(12))}",
 lambda: f"Wiederherstellungsphrase: {S(ph(24))}",
 lambda: f"phrase de récupération → {S(ph(12))}",
 lambda: f"fraza odzyskiwania: {S(ph(12))}",
 lambda: f"сид-фраза: {S(ph(12))}",
 lambda: f"助记词：{S(ph(12))}",
 lambda: f"リカバリーフレーズ: {S(ph(12))}",
 lambda: f"dispute: I only shared {S(ph(12))} so he could check the balance and the wallet was emptied next day",
 lambda: " ".join(f"{i+1}) {S(w)}" for i, w in enumerate(mnem(12))),
 lambda: f"hardhat: {{ accounts: {{ mnemonic: \"{S(ph(12))}\", count: 10 }} }}",
 lambda: f"[wallet]\nmnemonic = \"{S(ph(15))}\"",
 lambda: f"seed: {S(ph(18))}\npassphrase: none",
]
PW = [
 lambda: f"login is admin / {S(pw())}",
 lambda: f"the wp-admin password is {S(pw())}",
 lambda: f"DB_PASSWORD={S(pw())}",
 lambda: f"password: \"{S(pw())}\"",
 lambda: f"[database]\nuser = shop\npassword = {S(pw())}",
 lambda: f"<add key=\"SmtpPassword\" value=\"{S(pw())}\" />",
 lambda: f"\"password\": \"{S(pw())}\",",
 lambda: f"user: deploy\npass: {S(pw())}",
 lambda: f"La contraseña del panel es {S(pw())}",
 lambda: f"senha do cPanel: {S(pw())}",
 lambda: f"Das Passwort für den FTP-Zugang lautet {S(pw())}",
 lambda: f"mot de passe : {S(pw())}",
 lambda: f"la password del server è {S(pw())}",
 lambda: f"hasło do panelu: {S(pw())}",
 lambda: f"пароль от админки: {S(pw())}",
 lambda: f"密码：{S(pw())}",
 lambda: f"パスワードは {S(pw())} です",
 lambda: f"mysql -u root -p'{S(pw())}' shop < dump.sql",
 lambda: f"sshpass -p '{S(pw())}' ssh ubuntu@203.0.113.7",
 lambda: f"ssh creds: root@198.51.100.4 pw {S(pw())}",
 lambda: f"spring.datasource.password={S(pw())}",
]
OTHER = [
 lambda: f"AWS_ACCESS_KEY_ID={S('AKIA' + upn(16))}\nAWS_SECRET_ACCESS_KEY={S(an(40, string.ascii_letters + string.digits + '/+'))}",
 lambda: f"[default]\naws_access_key_id = {S('AKIA' + upn(16))}\naws_secret_access_key = {S(an(40, string.ascii_letters + string.digits + '/+'))}",
 lambda: f"s3 = boto3.client('s3', aws_access_key_id='{S('AKIA' + upn(16))}', aws_secret_access_key='{S(an(40))}')",
 lambda: "{\n  \"type\": \"service_account\",\n  \"project_id\": \"shop-" + lo(6) + "\",\n  \"private_key_id\": \"" + hx(40) + "\",\n  \"private_key\": \"" + S(pem("PRIVATE KEY", 5).replace("\n", "\\n")) + "\\n\",\n  \"client_email\": \"bot@shop.iam.gserviceaccount.com\"\n}",
 lambda: f"DefaultEndpointsProtocol=https;AccountName=shopmedia;AccountKey={S(b64(64))};EndpointSuffix=core.windows.net",
 lambda: f"https://shopmedia.blob.core.windows.net/uploads?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2026-12-31T00:00:00Z&st=2026-11-01T00:00:00Z&spr=https&sig={S(b64(32).replace('+', '%2B').replace('/', '%2F').replace('=', '%3D'))}",
 lambda: f"DIGITALOCEAN_TOKEN={S('dop_v1_' + hx(64))}",
 lambda: f"doctl auth init -t {S('dop_v1_' + hx(64))}",
 lambda: f"CLOUDFLARE_API_TOKEN={S(an(40, string.ascii_letters + string.digits + '_-'))}",
 lambda: f"provider \"cloudflare\" {{\n  api_token = \"{S(an(40, string.ascii_letters + string.digits + '_'))}\"\n}}",
 lambda: f"git clone https://{S('ghp_' + an(36))}@github.com/acme/shop.git",
 lambda: f"GITHUB_TOKEN: {S('github_pat_' + an(22) + '_' + an(59))}",
 lambda: f"token de GitHub: {S('ghp_' + an(36))}",
 lambda: f"GITLAB_TOKEN={S('glpat-' + an(20, string.ascii_letters + string.digits + '-_'))}",
 lambda: f"SLACK_BOT_TOKEN={S('xoxb-' + str(R.randint(10**11, 10**12)) + '-' + str(R.randint(10**12, 10**13)) + '-' + an(24))}",
 lambda: f"curl -X POST -d '{{\"text\":\"deploy ok\"}}' {S('https://hooks.slack.com/services/T' + upn(8) + '/B' + upn(10) + '/' + an(24))}",
 lambda: f"DISCORD_TOKEN={S(b64u(18)[:24] + '.' + an(6, string.ascii_letters + string.digits + '-_') + '.' + an(38, string.ascii_letters + string.digits + '-_'))}",
 lambda: f"webhook: {S('https://discord.com/api/webhooks/' + str(R.randint(10**17, 10**18)) + '/' + an(68, string.ascii_letters + string.digits + '-_'))}",
 lambda: f"bot = telebot.TeleBot(\"{S(str(R.randint(10**9, 10**10)) + ':AA' + an(33, string.ascii_letters + string.digits + '_-'))}\")",
 lambda: f"TELEGRAM_BOT_TOKEN={S(str(R.randint(10**9, 10**10)) + ':AA' + an(33, string.ascii_letters + string.digits + '_-'))}",
 lambda: f"stripe.api_key = \"{S('sk_live_' + an(99)[:R.choice([24, 99])])}\"",
 lambda: f"STRIPE_SECRET_KEY={S('sk_test_' + an(99))}\nSTRIPE_WEBHOOK_SECRET={S('whsec_' + an(32))}",
 lambda: f"restricted key for the reporting job: {S('rk_live_' + an(99))}",
 lambda: f"PAYPAL_CLIENT_ID=A{an(79, string.ascii_letters + string.digits + '-_')}\nPAYPAL_CLIENT_SECRET={S('E' + an(79, string.ascii_letters + string.digits + '-_'))}",
 lambda: f"SQUARE_ACCESS_TOKEN={S('EAAA' + an(60, string.ascii_letters + string.digits + '-_'))}",
 lambda: f"client = OpenAI(api_key=\"{S('sk-proj-' + an(156, string.ascii_letters + string.digits + '_-'))}\")",
 lambda: f"OPENAI_API_KEY={S('sk-' + an(48))}",
 lambda: f"const anthropic = new Anthropic({{ apiKey: '{S('sk-ant-api03-' + an(93, string.ascii_letters + string.digits + '_-') + 'AA')}' }})",
 lambda: f"HF_TOKEN={S('hf_' + an(34))}",
 lambda: f"huggingface-cli login --token {S('hf_' + an(34))}",
 lambda: f"export REPLICATE_API_TOKEN={S('r8_' + an(37))}",
 lambda: f"GROQ_API_KEY=\"{S('gsk_' + an(52))}\"",
 lambda: f"co = cohere.Client(\"{S(an(40))}\")",
 lambda: f"SENDGRID_API_KEY={S('SG.' + an(22, string.ascii_letters + string.digits + '-_') + '.' + an(43, string.ascii_letters + string.digits + '-_'))}",
 lambda: f"MAILGUN_API_KEY={S('key-' + hx(32))}",
 lambda: f"mg = Mailgun(api_key='{S(hx(32) + '-' + hx(8) + '-' + hx(8))}')",
 lambda: f"POSTMARK_SERVER_TOKEN={S(hx(8) + '-' + hx(4) + '-' + hx(4) + '-' + hx(4) + '-' + hx(12))}",
 lambda: f"mailchimp.setConfig({{ apiKey: '{S(hx(32) + '-us' + str(R.randint(1, 21)))}', server: 'us6' }})",
 lambda: f"//registry.npmjs.org/:_authToken={S('npm_' + an(36))}",
 lambda: f"[pypi]\nusername = __token__\npassword = {S('pypi-AgEIcHlwaS5vcmc' + an(70, string.ascii_letters + string.digits + '-_'))}",
 lambda: f"echo {S('dckr_pat_' + an(27, string.ascii_letters + string.digits + '-_'))} | docker login -u acme --password-stdin",
 lambda: f"Authorization: Bearer {S(jwt())}",
 lambda: f"the admin token (expires friday): {S(jwt())}",
 lambda: f"Cookie: session={S(b64u(32))}; theme=dark",
 lambda: f"connect.sid={S('s%3A' + an(32, string.ascii_letters + string.digits + '-_') + '.' + b64(32).rstrip('='))}",
 lambda: f"id_rsa for the staging box:\n{S(pem('RSA PRIVATE KEY', 8))}",
 lambda: f"{S(pem('OPENSSH PRIVATE KEY', 5))}",
 lambda: f"key.pem:\n{S(pem('EC PRIVATE KEY', 3))}",
 lambda: f"DATABASE_URL=postgres://shop:{S(pw())}@db.internal:5432/shop",
 lambda: f"mongodb+srv://admin:{S(an(16))}@cluster0.{lo(5)}.mongodb.net/prod",
 lambda: f"REDIS_URL=redis://default:{S(an(32))}@redis-12345.c1.us-east-1.ec2.cloud.redislabs.com:12345",
 lambda: f"engine = create_engine(\"mysql+pymysql://app:{S(pw())}@10.0.0.5/shop\")",
 lambda: f"curl -u admin:{S(pw())} https://ci.example.org/api/json",
 lambda: f"Authorization: Basic {S(base64.b64encode(('deploy:' + pw()).encode()).decode())}",
 lambda: f"TWILIO_ACCOUNT_SID=AC{hx(32)}\nTWILIO_AUTH_TOKEN={S(hx(32))}",
 lambda: f"client = Client('AC{hx(32)}', '{S(hx(32))}')",
 lambda: f"SHOPIFY_ACCESS_TOKEN={S('shpat_' + hx(32))}",
 lambda: f"age secret key: {S('AGE-SECRET-KEY-1' + an(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L'))}",
 lambda: f"VAULT_TOKEN={S('hvs.' + an(90, string.ascii_letters + string.digits + '_-'))}",
 lambda: f"OP_SERVICE_ACCOUNT_TOKEN={S('ops_' + b64u(300))}",
 lambda: f"DOPPLER_TOKEN={S('dp.st.prd.' + an(43))}",
 lambda: f"LINEAR_API_KEY={S('lin_api_' + an(40))}",
 lambda: f"const notion = new Client({{ auth: '{S('secret_' + an(43))}' }})",
 lambda: f"NOTION_TOKEN={S('ntn_' + an(46))}",
 lambda: f"X-Figma-Token: {S('figd_' + an(40, string.ascii_letters + string.digits + '-_'))}",
 lambda: f"JIRA_API_TOKEN={S('ATATT3xFfGF0' + an(170, string.ascii_letters + string.digits + '-_') + '=' + hx(8, True))}",
 lambda: f"const provider = new JsonRpcProvider('https://mainnet.infura.io/v3/{S(hx(32))}')",
 lambda: f"RPC_URL=https://eth-mainnet.g.alchemy.com/v2/{S(an(32, string.ascii_letters + string.digits + '_-'))}",
 lambda: f"w3 = Web3(Web3.HTTPProvider('https://polygon-mainnet.g.alchemy.com/v2/{S(an(32))}'))",
 lambda: f"Traceback (most recent call last):\n  File \"pay.py\", line 12, in <module>\n    stripe.Charge.create(api_key='{S('sk_live_' + an(24))}')\nstripe.error.CardError: declined",
 lambda: f"[2026-11-27 10:02:11] INFO using token {S('ghp_' + an(36))} for api.github.com",
 lambda: f"apiVersion: v1\nkind: Secret\ntype: Opaque\ndata:\n  DB_PASSWORD: {S(base64.b64encode(pw().encode()).decode())}",
 lambda: f"services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: {S(pw())}",
 lambda: f"# values.yaml\nauth:\n  rootPassword: \"{S(pw())}\"".lstrip("# "),
 lambda: f"Hallo, hier der API-Key für SendGrid: {S('SG.' + an(22) + '.' + an(43))}",
 lambda: f"aquí va el token de Hugging Face: {S('hf_' + an(34))}",
 lambda: f"segue o token do bot do Telegram {S(str(R.randint(10**9, 10**10)) + ':AA' + an(33))}",
 lambda: f"Ключи AWS: {S('AKIA' + upn(16))} / {S(an(40))}",
 lambda: f"OpenAI 的 key：{S('sk-proj-' + an(120))}",
]

def esc(s):
    s = s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
    return " " + s if s.startswith("#") else s

def pick(pool, n):
    out = []
    order = []
    while len(out) < n:
        if not order:
            order = list(pool); R.shuffle(order)
        out.append(order.pop()())
    return out

secrets = pick(EVM, 58) + pick(SEED, 34) + pick(PW, 24) + pick(OTHER, 116)
R.shuffle(secrets)

# ---------------------------------------------------------------- look-alikes
def uuid(): return f"{hx(8)}-{hx(4)}-4{hx(3)}-a{hx(3)}-{hx(12)}"
def txh(): return "0x" + hx(64)
def cid(): return "bafybei" + an(52, "abcdefghijklmnopqrstuvwxyz234567")
def badphrase(n):
    # n BIP-39 words whose checksum does not hold: a word list, not a recovery phrase.
    while True:
        ws = R.sample(WORDS, n)
        b = 0
        for w in ws:
            b = b << 11 | WORDS.index(w)
        cs = n * 11 // 33
        ent = (b >> cs).to_bytes(n * 11 * 32 // 33 // 8, "big")
        if hashlib.sha256(ent).digest()[0] >> (8 - cs) != b & ((1 << cs) - 1):
            return " ".join(ws)
def poem():
    ws = R.sample(WORDS, R.randint(5, 9))
    return " ".join(ws)
LOOK = [
 lambda: f"tx hash: {txh()} — confirmed in block 19{R.randint(100000, 999999)}",
 lambda: f"Paid! https://etherscan.io/tx/{txh()}",
 lambda: f"block hash {txh()}, parent {txh()}",
 lambda: f"send the USDC to {addr()} please (that's my address, not a key lol)",
 lambda: f"Transfer(address,address,uint256) topic0 = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
 lambda: f"bytes32 public constant MINTER_ROLE = 0x{hx(64)};",
 lambda: f"bytes32 constant DOMAIN_TYPEHASH = keccak256(\"EIP712Domain(string name,uint256 chainId)\");",
 lambda: f"merkle root for the allowlist: {txh()}",
 lambda: f"keccak256(abi.encodePacked(id)) == {txh()}",
 lambda: f"fixed in commit {hx(40)} (see also {hx(7)})",
 lambda: f"git log --oneline\n{hx(7)} fix escrow timeout\n{hx(7)} add tests",
 lambda: f"order id {uuid()}",
 lambda: f"request-id: {uuid()}  trace-id: {hx(32)}",
 lambda: f"traceparent: 00-{hx(32)}-{hx(16)}-01",
 lambda: f"ipfs://{cid()}",
 lambda: f"sha256 ({R.choice(['axp-linux-amd64.tar.gz', 'release.zip', 'app.apk'])}) = {hx(64)}",
 lambda: f"{hx(64)}  dist/app-{R.randint(1, 9)}.{R.randint(0, 20)}.0.tar.gz",
 lambda: f"SHA-256 checksum of the deliverable zip: {hx(64)}",
 lambda: f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{an(43, string.ascii_letters + string.digits + '+/')} dev@laptop",
 lambda: f"-----BEGIN PUBLIC KEY-----\n{b64(48)}\n{b64(24)}\n-----END PUBLIC KEY-----",
 lambda: f"compressed pubkey: 02{hx(64)}",
 lambda: f"uncompressed public key 04{hx(128)}",
 lambda: f"xpub6{an(106, '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz')}",
 lambda: f"age recipient: age1{an(58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}",
 lambda: "Hardhat account #0: 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (10000 ETH)",
 lambda: "anvil default sender 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 — public address only",
 lambda: "PRIVATE_KEY=<your-private-key-here>",
 lambda: "PRIVATE_KEY=0xYOUR_PRIVATE_KEY",
 lambda: "export PRIVATE_KEY=...",
 lambda: "private_key: \"${PRIVATE_KEY}\"",
 lambda: "const wallet = new ethers.Wallet(process.env.PRIVATE_KEY!, provider)",
 lambda: "acct = Account.from_key(os.environ[\"DEPLOYER_KEY\"])",
 lambda: "key, err := crypto.HexToECDSA(os.Getenv(\"SIGNER_KEY\"))",
 lambda: "forge script Deploy --private-key $PRIVATE_KEY --broadcast",
 lambda: "uint256 pk = vm.envUint(\"PRIVATE_KEY\");",
 lambda: "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
 lambda: "STRIPE_SECRET_KEY=sk_test_XXXXXXXXXXXXXXXXXXXXXXXX",
 lambda: "AWS_SECRET_ACCESS_KEY=${{ secrets.AWS_SECRET_ACCESS_KEY }}",
 lambda: "password: {{ .Values.db.password }}",
 lambda: "DB_PASSWORD=changeme",
 lambda: "password = \"<redacted>\"",
 lambda: "token: ********",
 lambda: "api_key: REPLACE_ME",
 lambda: "MNEMONIC=\"test test test test test test test test test test test junk\"".replace("test test test test test test test test test test test junk", "your twelve words here"),
 lambda: "password=os.getenv('DB_PASS')",
 lambda: "const token = await secrets.get('github/token')",
 lambda: "vault kv get -field=password secret/shop/db",
 lambda: "aws secretsmanager get-secret-value --secret-id prod/stripe",
 lambda: "valueFrom:\n  secretKeyRef:\n    name: db\n    key: password",
 lambda: "Never share your seed phrase or private key with anyone — not even the seller.",
 lambda: "Nunca compartas tu frase semilla ni tu clave privada.",
 lambda: "Nunca compartilhe sua frase de recuperação.",
 lambda: "Bitte gib niemals dein Passwort oder deine Seed-Phrase weiter.",
 lambda: "Ne partagez jamais votre phrase de récupération.",
 lambda: "Non condividere mai la tua chiave privata.",
 lambda: "Nigdy nie podawaj nikomu swojego hasła ani frazy odzyskiwania.",
 lambda: "Никогда не сообщайте никому свою сид-фразу.",
 lambda: "请勿向任何人透露你的助记词或私钥。",
 lambda: "秘密鍵やパスワードは絶対に共有しないでください。",
 lambda: "Password policy: at least 12 characters, one digit, one symbol, rotated every 90 days.",
 lambda: "I turned on 2FA with Google Authenticator; the seller only gets a read-only API key.",
 lambda: "can you reset my password? the reset link expired",
 lambda: "the private key stays in the hardware wallet, I'll sign the tx myself",
 lambda: "Q: do you need my seed phrase?\nA: no! never. Just send the public address.",
 lambda: "review: 5 stars, never asked for keys or passwords, delivered on time",
 lambda: f"Poem for the landing page:\n{poem()}\n{poem()}\n{poem()}",
 lambda: f"shopping list: {', '.join(R.sample(['apple', 'bread', 'milk', 'cheese', 'egg', 'lemon', 'rice', 'salt', 'sugar', 'coffee', 'butter', 'tomato'], 7))}",
 lambda: f"Tags: {' '.join(R.sample(WORDS, 6))}",
 lambda: f"The story begins when the {R.choice(WORDS)} meets a {R.choice(WORDS)} near the {R.choice(WORDS)} and they talk about the {R.choice(WORDS)}.",
 lambda: f"word list for the game (not a wallet): {badphrase(12)}",
 lambda: f"order #{R.randint(100000, 9999999)} shipped, tracking 1Z{upn(16)}",
 lambda: f"tracking number: {upn(2)}{R.randint(100000000, 999999999)}{R.choice(['US', 'DE', 'CN'])}",
 lambda: f"payment_intent pi_{an(24)} succeeded for customer cus_{an(14)}",
 lambda: f"refund re_{an(24)} for charge ch_{an(24)}",
 lambda: f"Stripe price id price_{an(24)}, product prod_{an(14)}",
 lambda: f"publishable key pk_test_{an(99)[:R.choice([24, 99])]} goes in the frontend",
 lambda: f"invoice in_{an(24)} / subscription sub_{an(24)}",
 lambda: f"GitHub run #{R.randint(1000, 99999)} job {R.randint(10**10, 10**11)} failed at step 'test'",
 lambda: f"<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{b64(90)}\">",
 lambda: f"!function(e,t){{var n=e.{lo(3)}||{{}};n.{an(3)}=function(r){{return r*{R.randint(2, 99)}}};t.exports=n}}(window,module);",
 lambda: "\n".join(f"{i*16:08x}  " + " ".join(hx(2) for _ in range(16)) for i in range(4)),
 lambda: f"INFO block={R.randint(10**7, 2*10**7)} hash={txh()} txs={R.randint(10, 300)}",
 lambda: f"SELECT * FROM orders WHERE tx_hash = '{txh()}';",
 lambda: f"ETH_RPC_URL=https://rpc.sepolia.org\nCHAIN_ID=11155111",
 lambda: f"const USDC = \"{addr()}\";\nconst ROUTER = \"{addr()}\";",
 lambda: f"receipt: {{ transactionHash: '{txh()}', blockNumber: {R.randint(10**6, 10**7)}, status: 1 }}",
 lambda: f"signature: 0x{hx(130)}",
 lambda: f"ETag: \"{hx(32)}\"",
 lambda: f"md5sum: {hx(32)}  backup.sql.gz",
 lambda: f"docker pull ghcr.io/acme/api@sha256:{hx(64)}",
 lambda: f"npm integrity sha512-{b64(64)}",
 lambda: f"AWS account id {R.randint(10**11, 10**12)}, role arn:aws:iam::{R.randint(10**11, 10**12)}:role/deploy",
 lambda: f"Slack channel C0{upn(9)}, user U0{upn(9)}",
 lambda: f"Discord server id {R.randint(10**17, 10**18)}",
 lambda: f"GCP project shop-{lo(6)}, service account deploy@shop-{lo(6)}.iam.gserviceaccount.com",
 lambda: f"Telegram chat id -100{R.randint(10**9, 10**10)}",
 lambda: f"color palette: #{hx(6)} #{hx(6)} #{hx(6)}",
 lambda: f"Bestellnummer {R.randint(10**8, 10**9)}, Rechnungsnummer RE-{R.randint(2020, 2026)}-{R.randint(1000, 9999)}",
 lambda: f"número de pedido {upn(10)}",
 lambda: f"nonce: {R.randint(0, 500)}, gas: {R.randint(21000, 300000)}, chainId: 8453",
 lambda: f"CSRF token in the form is generated per request, see middleware/csrf.go",
 lambda: f"HMAC-SHA256 of the body is sent as X-Signature; verify it with the webhook secret from env",
 lambda: f"ENS: vitalik.eth resolves to 0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045",
 lambda: f"solana address {an(44, '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz')}",
 lambda: f"bitcoin address bc1q{an(38, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}",
 lambda: f"salt = os.urandom(16)\nhash = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)",
 lambda: f"bcrypt hash in the db looks like $2b$12$... — that's not the password",
 lambda: f"test vector: keccak256(\"\") = 0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
 lambda: f"const ZERO = \"0x0000000000000000000000000000000000000000000000000000000000000000\"",
 lambda: f"storage slot 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc (EIP-1967 impl)",
 lambda: f"event id {uuid()} at {R.randint(1.7e9, 1.8e9)}",
 lambda: f"build {hx(12)} deployed to staging",
 lambda: f"kubectl create secret generic db --from-literal=password=\"$DB_PASSWORD\"",
 lambda: f"La contraseña debe tener 12 caracteres como mínimo.",
 lambda: f"A senha precisa ter letras maiúsculas e números.",
 lambda: f"Das Passwort muss mindestens 12 Zeichen lang sein.",
 lambda: f"Le mot de passe doit contenir au moins un chiffre.",
 lambda: f"Hasło musi mieć co najmniej 12 znaków.",
 lambda: f"Пароль должен содержать не менее 12 символов.",
 lambda: f"密码长度至少 12 位。",
 lambda: f"パスワードは12文字以上にしてください。",
 lambda: f"dispute: buyer says the escrow tx {txh()} never arrived; it did, block {R.randint(10**7, 2*10**7)}",
 lambda: f"In [2]: Web3.keccak(text='hello').hex()\nOut[2]: '0x{hx(64)}'",
 lambda: f"assertEq(keccak256(data), bytes32(0x{hx(64)}));",
 lambda: f"merkleProof: [\"{txh()}\", \"{txh()}\"]",
 lambda: f"version: {R.randint(1, 5)}.{R.randint(0, 30)}.{R.randint(0, 30)}+{hx(8)}",
]

looks = list(dict.fromkeys(pick(LOOK, 300)))
R.shuffle(looks)

def write(name, head, xs):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(head)
        for x in xs:
            assert "\n" not in esc(x)
            f.write(esc(x) + "\n")

write("heldout2_secret.txt", "# Second held-out credential corpus: texts holding credentials, one a line (\\n escapes).\n# «» marks each value that must be removed. Written by heldout2_gen.py apart from the rules.\n", secrets)
write("heldout2_lookalike.txt", "# Second held-out look-alikes: texts in which nothing may be found, one a line.\n# Written by heldout2_gen.py apart from the rules.\n", looks)
