#!/usr/bin/env python3
"""Writes credential_secret.txt and credential_lookalike.txt (see README.md).

Every secret is random (seeded, so the files are reproducible) in the shape of a real kind: none is
or was ever a working credential. Run from this directory: python3 credentials_gen.py
"""
import base64
import hashlib
import random
import string

R = random.Random(20261207)
AN = string.ascii_letters + string.digits
UP = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = AN + "+/"


def rnd(n, alphabet=AN):
    return "".join(R.choice(alphabet) for _ in range(n))


def uuid():
    return "-".join(rnd(k, HEX) for k in (8, 4, 4, 4, 12))


def pem(label, lines=6):
    body = "\\n".join(rnd(64, B64) for _ in range(lines)) + "\\n" + rnd(20, B64) + "=="
    return f"-----BEGIN {label}-----\\n{body}\\n-----END {label}-----"


def pw():
    return R.choice(["hunter2", "Tr0ub4dor&3", "s3cr3t-" + rnd(4), rnd(12), "Winter2026!", "P@ssw0rd" + rnd(3, string.digits),
                     "correct-horse-" + rnd(5, string.digits), rnd(8) + "#" + rnd(4)])


gens = {
    "private_key": lambda: pem(R.choice(["OPENSSH PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY",
                                         "ENCRYPTED PRIVATE KEY", "DSA PRIVATE KEY", "PGP PRIVATE KEY BLOCK"])),
    "aws_access_key_id": lambda: R.choice(["AKIA", "ASIA"]) + rnd(16, UP),
    "aws_secret_key": lambda: rnd(40, B64),
    "github_token": lambda: R.choice(["ghp_", "gho_", "ghs_", "ghu_"]) + rnd(36) if R.random() < 0.75 else "github_pat_" + rnd(22) + "_" + rnd(59),
    "gitlab_token": lambda: R.choice(["glpat-", "glptt-", "gldt-"]) + rnd(20, AN + "_-"),
    "slack_token": lambda: R.choice(["xoxb", "xoxp", "xoxa"]) + "-" + rnd(12, string.digits) + "-" + rnd(13, string.digits) + "-" + rnd(24),
    "slack_webhook": lambda: "https://hooks.slack.com/services/T" + rnd(8, UP) + "/B" + rnd(8, UP) + "/" + rnd(24),
    "stripe_key": lambda: R.choice(["sk_live_", "rk_live_", "sk_test_"]) + rnd(24 + R.randrange(0, 76)),
    "google_api_key": lambda: "AIza" + rnd(35, AN + "_-"),
    "openai_key": lambda: "sk-" + R.choice(["", "proj-"]) + rnd(48),
    "anthropic_key": lambda: "sk-ant-api03-" + rnd(93, AN + "_-") + "AA",
    "jwt": lambda: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + base64.urlsafe_b64encode(
        ('{"sub":"%s","iat":%d}' % (rnd(8), R.randrange(1600000000, 1800000000))).encode()).decode().rstrip("=") + "." + rnd(43, AN + "_-"),
    "password": pw,
    "secret": lambda: rnd(32),
    "token": lambda: rnd(40, AN),
    "api_key": lambda: rnd(32, HEX) if R.random() < 0.5 else rnd(28),
    "connection_string": lambda: R.choice(["postgres", "postgresql", "mysql", "mongodb+srv", "redis", "amqp"]) + "://" +
    R.choice(["app", "admin", "svc_report", "", "root"]) + ":" + rnd(14) + "@" + R.choice(["db.internal", "10.0.3.7", "cluster0.ab1cd.mongodb.net", "mq.corp.lan"]) + R.choice([":5432/prod", ":3306/shop", "/", ":6379/0", ""]),
    "basic_auth": lambda: base64.b64encode((R.choice(["admin", "deploy", "api"]) + ":" + pw()).encode()).decode(),
    "bearer_token": lambda: rnd(40, AN + "-._"),
    "npm_token": lambda: "npm_" + rnd(36),
    "twilio_key": lambda: "SK" + rnd(32, HEX),
    "sendgrid_key": lambda: "SG." + rnd(22, AN + "_-") + "." + rnd(43, AN + "_-"),
    "azure_storage_key": lambda: rnd(86, B64) + "==",
    "heroku_key": lambda: uuid() if R.random() < 0.6 else "HRKU-AA" + rnd(58, AN + "_-"),
    "digitalocean_token": lambda: R.choice(["dop_v1_", "doo_v1_"]) + rnd(64, HEX),
    "telegram_bot_token": lambda: rnd(10, string.digits) + ":AA" + rnd(33, AN + "_-"),
    "pypi_token": lambda: "pypi-AgEIcHlwaS5vcmc" + rnd(60, AN + "_-"),
}

# Templates: {s} is the secret, marked «...» in the output.
templates = {
    "private_key": ["Here is the deploy key for the box:\\n{s}\\nAdd it to ~/.ssh and connect.",
                    "Done. The signing key is below, keep it safe.\\n\\n{s}\\n", "key.pem:\\n{s}"],
    "aws_access_key_id": ["AWS_ACCESS_KEY_ID={s}", "Use access key {s} with the secret I sent.", "[default]\\naws_access_key_id = {s}\\nregion = eu-west-1"],
    "aws_secret_key": ["AWS_SECRET_ACCESS_KEY={s}", "[default]\\naws_access_key_id = AKIA" + "{k}" + "\\naws_secret_access_key = {s}", "export AWS_SECRET_ACCESS_KEY=\"{s}\"\\nthen run the sync script."],
    "github_token": ["I pushed it; you can clone with this token: {s}", "GITHUB_TOKEN={s}", "git clone https://{s}@github.com/acme/site.git"],
    "gitlab_token": ["CI uses the token {s} (scope api).", "GITLAB_TOKEN={s}", "curl --header \"PRIVATE-TOKEN: {s}\" https://gitlab.example.com/api/v4/projects"],
    "slack_token": ["The bot token is {s}, install scope chat:write.", "SLACK_BOT_TOKEN={s}", "slack:\\n  token: {s}"],
    "slack_webhook": ["Alerts go to {s}", "SLACK_WEBHOOK_URL={s}", "curl -X POST -d '{{\"text\":\"hi\"}}' {s}"],
    "stripe_key": ["api_key={s}", "Stripe.api_key = \"{s}\"", "Your Stripe secret key: {s}\\nWebhooks are set up."],
    "google_api_key": ["GOOGLE_MAPS_KEY={s}", "<script src=\"https://maps.googleapis.com/maps/api/js?key={s}\"></script>", "Geocoding works with key {s}."],
    "openai_key": ["OPENAI_API_KEY={s}", "client = OpenAI(api_key=\"{s}\")", "I used my key {s} for the embeddings, it still has credit."],
    "anthropic_key": ["ANTHROPIC_API_KEY={s}", "anthropic.Anthropic(api_key=\"{s}\")", "Key for Claude: {s}"],
    "jwt": ["Token for the staging API: {s}", "curl -H 'Authorization: Bearer {s}' https://api.internal/v1/me", "session cookie: {s}"],
    "password": ["ssh root@203.0.113.5 password: {s}", "DB_PASSWORD={s}", "{{\"username\": \"admin\", \"password\": \"{s}\"}}",
                 "The admin password is {s} until you change it.", "mysql -u root --password {s} shop", "wifi: Office-5G / passwd: {s}",
                 "smtp:\\n  user: reports\\n  pwd: {s}"],
    "secret": ["client_secret={s}", "JWT_SECRET: {s}", "\"client_secret\": \"{s}\"", "SESSION_SECRET = '{s}'"],
    "token": ["access_token={s}", "auth_token: {s}", "\"refresh_token\": \"{s}\""],
    "api_key": ["api_key={s}", "X-API-Key: {s}", "\"apiKey\": \"{s}\"", "MAILGUN_API_KEY={s}"],
    "connection_string": ["DATABASE_URL={s}", "Connect with {s} and run the migrations.", "spring.datasource.url: {s}"],
    "basic_auth": ["Authorization: Basic {s}", "curl -H \"Authorization: Basic {s}\" https://api.internal/report"],
    "bearer_token": ["Authorization: Bearer {s}", "curl -H 'Authorization: Bearer {s}' https://api.internal/v1/orders"],
    "npm_token": ["//registry.npmjs.org/:_authToken={s}", "NPM_TOKEN={s}", "publish with token {s}"],
    "twilio_key": ["TWILIO_API_KEY={s}", "Twilio key {s} with its secret in the vault.", "twilio api key sid: {s}"],
    "sendgrid_key": ["SENDGRID_API_KEY={s}", "sg = SendGridAPIClient('{s}')", "Mail key: {s}"],
    "azure_storage_key": ["DefaultEndpointsProtocol=https;AccountName=acmefiles;AccountKey={s};EndpointSuffix=core.windows.net",
                          "AZURE_STORAGE_KEY={s}"],
    "heroku_key": ["HEROKU_API_KEY={s}", "heroku_token: {s}"],
    "digitalocean_token": ["DIGITALOCEAN_TOKEN={s}", "doctl auth init -t {s}", "Use {s} for the droplet API."],
    "telegram_bot_token": ["BOT_TOKEN={s}", "The bot answers with token {s} via the Bot API.", "bot = telebot.TeleBot(\"{s}\")"],
    "pypi_token": ["[pypi]\\nusername = __token__\\npassword = {s}", "TWINE_PASSWORD={s}", "upload with {s}"],
}

intros = ["", "Delivered as agreed. ", "Here is everything you need.\\n", "Setup notes:\\n", "Final config below.\\n",
          "All tests pass (42/42). ", "README excerpt:\\n"]
outros = ["", "\\nLet me know if anything fails.", "\\nThe report is in summary.md.", " Thanks!", "\\nv1.4.2, built 2026-11-30."]

pos = ["# Credential corpus: deliverables holding credentials (generated by credentials_gen.py; every value",
       "# is random and fake). «...» marks what must be removed."]
for kind, ts in templates.items():
    n = 0
    while n < 7:
        for t in ts:
            if n >= 7:
                break
            s = gens[kind]()
            if kind == "connection_string" and s.split("://")[1].startswith(":") is False and s.split("://")[1].split(":")[0] == "":
                pass
            line = R.choice(intros) + t.replace("{k}", rnd(16, UP)).replace("{s}", "«" + s + "»") + R.choice(outros)
            pos.append(line)
            n += 1

look = ["# Credential look-alikes: deliverables that talk about credentials or hold random-looking values",
        "# that are not secrets (placeholders, prose, hashes, ids, public keys). Nothing may be removed."]
sha = lambda: rnd(64, HEX)
git = lambda: rnd(40, HEX)
lookalikes = [
    "Set password: <password> in config.yml before you start.",
    "API_KEY=your-api-key",
    "export OPENAI_API_KEY=sk-...",
    "password: ********",
    "token: xxx",
    "DB_PASSWORD=changeme",
    "Use the password reset link on the login page if you forget it.",
    "The password is stored hashed with argon2id; we never see it.",
    "Password: choose one you can remember and that is at least 12 characters long.",
    "Passwords must be rotated every 90 days; see the policy.",
    "A password manager (1Password, Bitwarden) keeps one strong password per site.",
    "secret: ${{ secrets.DEPLOY_KEY }}",
    "api_key = os.environ[\"API_KEY\"]",
    "token = os.getenv(\"GITHUB_TOKEN\")",
    "password = config.db.password",
    "AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY",
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "-----BEGIN OPENSSH PRIVATE KEY-----\\n...\\n-----END OPENSSH PRIVATE KEY-----",
    "Paste your key between -----BEGIN RSA PRIVATE KEY----- and -----END RSA PRIVATE KEY-----.",
    "-----BEGIN PUBLIC KEY-----\\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0\\n-----END PUBLIC KEY-----",
    "Add this public key to authorized_keys: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl deploy@ci",
    "Authorization: Bearer <token>",
    "Send the header Authorization: Bearer YOUR_TOKEN with each call.",
    "The bearer token expires after one hour; refresh it with the refresh endpoint.",
    "postgres://user:password@localhost:5432/mydb",
    "mongodb://username:password@host:27017/db",
    "redis://:${REDIS_PASSWORD}@cache:6379/0",
    "Connect to postgres://localhost:5432/app (no password on the dev box).",
    "Authorization: Basic <base64 of user:pass>",
    "curl -u USER:PASS https://api.example.com/v1/report",
    "Stripe publishable key for the checkout page: pk_live_51H8aTZKq0Wn3x7YbR9sVf2Lm4Nc6Pd8Qe1Jh5Gk3Tu7Iw0Xy",
    "Use sk_test_... keys in development and sk_live_... in production.",
    "The key starts with sk- and is 51 characters long.",
    "Slack token format: xoxb-your-token-here",
    "Webhook: https://hooks.slack.com/services/XXXXX/XXXXX/XXXXX",
    "GitHub tokens start with ghp_ (classic) or github_pat_ (fine-grained).",
    "max_tokens: 4096, temperature 0.2",
    "The model used 1,842 tokens; token_count = 1842.",
    "next_page_token: CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA0",
    "Secret Santa list for the office party is in the sheet.",
    "The secret to a good sourdough is time.",
    "Keep your API key secret: never commit it.",
    "Use the api key from your dashboard; the key field is required.",
    "JWTs look like eyJ...header.eyJ...payload.signature; decode them at your own risk.",
    "pwd: /home/deploy/app",
    "Run pwd to see the working directory.",
    "Token economy: each user gets 100 tokens a month.",
    "Passphrase: at least five random words.",
    "The 'password' field is optional when SSO is on.",
    "credentials: see the vault",
    "private_key: null",
    "client_secret: <from the console>",
    "api-key: REPLACE_ME",
    "Use Idempotency-Key: 6f1e2d3c-4b5a-4988-8776-655443322110 on retries.",
    "Telegram bot tokens look like 123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11.",
    "heroku config:set HEROKU_API_KEY=$(heroku auth:token)",
    "AccountKey=<your storage key>",
]
templ_look = [
    "commit {git} fixed the parser; tag v2.3.1",
    "sha256: {sha}  deliverable.zip",
    "{sha}  report.pdf",
    "request_id: {uuid}",
    "Task {uuid} finished in 3.2 s.",
    "git checkout {git}",
    "Build {git7} passed on main.",
    "X-Content-SHA256: {sha}",
    "Order #{num} shipped; tracking id {up12}.",
    "image: registry.internal/app@sha256:{sha}",
    "The checksum is {sha} (SHA-256 of the tarball).",
    "session_id={uuid}",
    "trace {hex32} took 120 ms",
    "etag: \"{hex32}\"",
    "data:image/png;base64,{b64}",
    "Nonce: {hex32}",
    "color: #{hex6}; font-size: 14px",
    "Encoded sample (not a secret): {b64}",
    "The seed for the simulation is {num}.",
    "ISBN 978-3-16-148410-0, DOI 10.1000/{num}",
]
for l in lookalikes:
    look.append(R.choice(intros) + l + R.choice(outros))
for i in range(110):
    t = templ_look[i % len(templ_look)]
    l = t.format(git=git(), sha=sha(), uuid=uuid(), git7=git()[:7], num=R.randrange(10000, 99999999), up12=rnd(12, UP),
                 hex32=rnd(32, HEX), b64=rnd(R.randrange(24, 80), AN) + "==", hex6=rnd(6, HEX))
    look.append(R.choice(intros) + l + R.choice(outros))

# Kinds added in a second batch, from their own seed so the lines above stay as they were.
R = random.Random(20261128)
WORDS = open("../../bip39_english.txt").read().split()
B32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def mnemonic(n, valid=True):
    """n words of the BIP-39 English list; valid: with the checksum the standard prescribes."""
    while True:
        ent = bytes(R.randrange(256) for _ in range(n * 11 * 32 // 33 // 8))
        bits = "".join(f"{b:08b}" for b in ent)
        cs = "".join(f"{b:08b}" for b in hashlib.sha256(ent).digest())[:len(bits) // 32]
        if not valid:
            cs = "".join(R.choice("01") for _ in cs)
            if cs == "".join(f"{b:08b}" for b in hashlib.sha256(ent).digest())[:len(bits) // 32]:
                continue
        bits += cs
        return " ".join(WORDS[int(bits[i:i + 11], 2)] for i in range(0, len(bits), 11))


def numbered(words):
    return " ".join(f"{i + 1}. {w}" for i, w in enumerate(words.split()))


def discord():
    uid = str(R.randrange(10**17, 10**19))
    return base64.urlsafe_b64encode(uid.encode()).decode().rstrip("=") + "." + rnd(6, AN + "_-") + "." + rnd(38, AN + "_-")


gens2 = {
    "wallet_private_key": lambda: R.choice(["0x", "0x", ""]) + rnd(64, HEX),
    "seed_phrase": lambda: mnemonic(R.choice([12, 12, 24])),
    "jwt": gens["jwt"],
    "azure_storage_key": gens["azure_storage_key"],
    "azure_sas_token": lambda: rnd(43, AN + "+/") + "%3D",
    "age_secret_key": lambda: "AGE-SECRET-KEY-1" + rnd(58, B32),
    "discord_bot_token": discord,
    "huggingface_token": lambda: "hf_" + rnd(34, string.ascii_letters),
    "vault_token": lambda: "hvs." + rnd(24 + R.randrange(0, 70), AN + "_-"),
    "shopify_token": lambda: R.choice(["shpat_", "shpca_", "shppa_"]) + rnd(32, HEX),
    "basic_auth": lambda: base64.b64encode((R.choice(["ci", "deploy", "robot$acme"]) + ":" + pw()).encode()).decode(),
    "password": lambda: rnd(8) + R.choice(["", "!", "#1", "-x"]),
}
templates2 = {
    "wallet_private_key": ["PRIVATE_KEY={s}", "Deployer private key: {s}", "{\"privateKey\": \"{s}\"}",
                           "forge create src/Token.sol:Token --rpc-url $RPC_URL --private-key {s}",
                           "export DEPLOYER_PRIVATE_KEY={s}", "Clave privada de la wallet: {s}", "Приватный ключ кошелька: {s}"],
    "wallet_private_key_0x": ["networks: { sepolia: { url: process.env.RPC_URL, accounts: [\"{s}\"] } }",
                              "{s}\\nImport this key into MetaMask to see the test tokens."],
    "seed_phrase": ["Seed phrase: {s}", "Recovery phrase for the test wallet:\\n{n}", "mnemonic: \"{s}\"",
                    "Backup words (keep offline):\\n{nl}", "{s}", "MNEMONIC=\"{s}\"", "Your 12 words: {c}"],
    "jwt": ["Cookie: session={s}; Path=/; HttpOnly", "{\"id_token\": \"{s}\"}",
            "https://app.acme.io/sso/callback#access_token={s}&expires_in=3600", "localStorage: {\"auth\":\"{s}\"}",
            "token={s}"],
    "azure_storage_key": ["{\"AccountKey\": \"{s}\"}", "AZURE_STORAGE_CONNECTION_STRING=\"DefaultEndpointsProtocol=https;AccountName=acmedata;AccountKey={s}\""],
    "azure_sas_token": ["https://acmefiles.blob.core.windows.net/out/report.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&sig={s}",
                        "BlobEndpoint=https://acme.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sp=rl&sig={s}"],
    "age_secret_key": ["# created: 2026-11-20\\n# public key: age1" + "{p}" + "\\n{s}", "SOPS_AGE_KEY={s}"],
    "discord_bot_token": ["DISCORD_TOKEN={s}", "client.run(\"{s}\")", "The bot logs in with {s}."],
    "huggingface_token": ["HF_TOKEN={s}", "huggingface-cli login --token {s}", "from_pretrained(\"acme/model\", token=\"{s}\")"],
    "vault_token": ["VAULT_TOKEN={s}", "vault login {s}", "X-Vault-Token: {s}"],
    "shopify_token": ["SHOPIFY_ACCESS_TOKEN={s}", "X-Shopify-Access-Token: {s}", "Admin API token: {s}"],
    "basic_auth": ["~/.docker/config.json:\\n{\"auths\": {\"registry.acme.io\": {\"auth\": \"{s}\"}}}"],
    "password": ["~/.netrc:\\nmachine api.acme.io login deploy password {s}", "machine git.acme.io\\n  login ci\\n  password {s}",
                 "sshpass -p '{s}' ssh deploy@203.0.113.9", "sshpass -p {s} scp dump.sql backup@203.0.113.9:/srv"],
}
for kind, ts in templates2.items():
    for t in ts:
        for _ in range(2 if len(ts) < 4 else 1):
            if kind == "wallet_private_key_0x":
                s = "0x" + rnd(64, HEX)
            else:
                s = gens2[kind]()
            line = t.replace("{p}", rnd(58, B32.lower()))
            if "{n}" in line:
                line = line.replace("{n}", "«" + numbered(s) + "»")
            elif "{nl}" in line:
                line = line.replace("{nl}", "«" + s.replace(" ", "\\n") + "»")
            elif "{c}" in line:
                s = mnemonic(12)
                line = line.replace("{c}", "«" + s.replace(" ", ", ") + "»")
            else:
                line = line.replace("{s}", "«" + s + "»")
            pos.append(R.choice(intros) + line + R.choice(outros))

h = lambda: rnd(64, HEX)
lookalikes2 = [
    "Payout confirmed: tx 0x{h}", "https://etherscan.io/tx/0x{h}", "Block hash: 0x{h}", "txHash: \"0x{h}\"",
    "bytes32 public constant MINTER_ROLE = 0x{h};", "Storage slot 0x{h} holds the implementation address.",
    "keccak256 of the event signature: 0x{h}", "receipt: {{\"transactionHash\": \"0x{h}\", \"status\": 1}}",
    "Deployed at block 18234567 (0x{h}).", "Merkle root: 0x{h}", "0x{h}",
    "The private key never leaves the device; the signed transaction is 0x{h}.",
    "Contract verified; deployment tx 0x{h}, gas used 1,204,331.", "salt = 0x{h}", "topics[0] = 0x{h}",
    "PRIVATE_KEY=0x<your key>", "PRIVATE_KEY=${{PRIVATE_KEY}}", "accounts: [process.env.PRIVATE_KEY]",
    "PRIVATE_KEY=0x" + "0" * 64, "Never share your seed phrase or private key with anyone, including us.",
    "Seed phrase: <12 words from your wallet backup>", "Write the 24 recovery words on paper and keep them offline.",
    "Tags: {w}", "{w}", "Word list for the game: {wc}",
    "We will review the draft, then add a summary and a simple chart for every month of the year.",
    "password = os.environ[\"DB_PASSWORD\"]", "password = config['db']['password']", "DB_PASSWORD = ENV[\"DB_PASSWORD\"]",
    "password: process.env.DB_PASSWORD", "password = ENV.fetch(\"DB_PASSWORD\")", "password = settings.DB_PASSWORD",
    "sshpass -p \"$SSH_PASS\" ssh deploy@host", "machine api.example.com login USER password PASS",
    "Cookie: session=eyJhbGciOi...; Path=/", "AGE-SECRET-KEY-1... (keep this file private)",
    "Public key: age1{a}", "HF_TOKEN=hf_xxx", "VAULT_TOKEN=hvs.<token>", "SHOPIFY_ACCESS_TOKEN=shpat_...",
    "Append ?sv=...&sig=<signature> to the blob URL.", "{{\"auths\": {{\"registry.acme.io\": {{}}}}}}",
    "Discord bot tokens have three dot-separated parts; paste yours into .env as DISCORD_TOKEN.",
]
for l in lookalikes2:
    w = mnemonic(12, valid=False)
    l = l.format(h=h(), w=w, wc=w.replace(" ", ", "), a=rnd(58, B32.lower()))
    look.append(R.choice(intros) + l + R.choice(outros))

open("credential_secret.txt", "w").write("\n".join(pos) + "\n")
open("credential_lookalike.txt", "w").write("\n".join(look) + "\n")
print(len(pos) - 2, "positives,", len(look) - 2, "look-alikes")
