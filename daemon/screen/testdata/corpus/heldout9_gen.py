#!/usr/bin/env python3
"""Writes heldout9_secret.txt and heldout9_lookalike.txt (ninth held-out credential set).

Stdlib only and seeded (random.Random(20261129)): running it again rewrites identical files.
Every value is random and fake, in the format of its kind; hosts are reserved or made up.
«...» marks each value that must be removed; look-alikes hold nothing that may be removed
(by docs/decisions.md, "Credentials": AWS access key ids, Firebase web apiKeys, public and
publishable keys are not credentials). Each sample follows a comment "# kind | context".
"""
import base64
import hashlib
import json
import os
import random

R = random.Random(20261129)
HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = open(os.path.join(HERE, "..", "..", "bip39_english.txt"), encoding="utf-8").read().split()
assert len(WORDS) == 2048

LOW = "abcdefghijklmnopqrstuvwxyz"
UP = LOW.upper()
DIG = "0123456789"
HEX = "0123456789abcdef"
ALNUM = LOW + UP + DIG
SYM = "!#$%&*+-=?@^_~"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def M(s):
    return "«" + s + "»"


def rs(alpha, n):
    return "".join(R.choice(alpha) for _ in range(n))


def hx(n):
    return rs(HEX, n)


def pick(xs):
    return R.choice(xs)


NOUNS = ["harbor", "velvet", "copper", "lantern", "meadow", "quartz", "falcon", "orchid", "timber", "saffron",
         "glacier", "pepper", "walnut", "cobalt", "thistle", "ember", "juniper", "marble", "pigeon", "tundra"]
USERS = ["deploy", "admin", "ci-bot", "ops", "root", "svc_backup", "kemal", "lucia.r", "n.okafor", "tran.v",
         "ingrid", "hamid", "sasha_k", "mei.lin", "priya", "jonas", "ayumi", "pedro.s", "olga", "kwame"]
HOSTS = ["db.internal.example", "10.0.3.12", "pg-main.example.net", "mq.example.org", "cache.example.com",
         "registry.example.io", "ftp.example.net", "192.0.2.44", "198.51.100.7", "sql01.example.local"]


def password():
    kind = R.randrange(6)
    if kind == 0:
        return rs(LOW, 3) + rs(UP, 2) + rs(DIG, 3) + rs(SYM, 2) + rs(ALNUM, 4)
    if kind == 1:
        return pick(NOUNS).capitalize() + pick(SYM) + rs(DIG, 4)
    if kind == 2:
        return "-".join(R.sample(NOUNS, 3)) + "-" + rs(DIG, 2)
    if kind == 3:
        s = list(rs(ALNUM, 13) + pick(SYM) + pick(DIG))
        R.shuffle(s)
        return "".join(s).replace("'", "").replace('"', "")
    if kind == 4:
        return rs(LOW + DIG, 12)
    return pick(NOUNS) + pick(NOUNS).capitalize() + rs(DIG, 3) + pick("!?.#")


def evm_key():
    return hx(64)


def phrase(n=12):
    ent = bytes(R.getrandbits(8) for _ in range(n * 4 // 3))
    h = hashlib.sha256(ent).digest()
    bits = "".join(f"{b:08b}" for b in ent) + "".join(f"{b:08b}" for b in h)[: len(ent) * 8 // 32]
    return [WORDS[int(bits[i:i + 11], 2)] for i in range(0, len(bits), 11)]


def bad_phrase(n=12):
    while True:
        ws = [pick(WORDS) for _ in range(n)]
        idx = [WORDS.index(w) for w in ws]
        bits = "".join(f"{i:011b}" for i in idx)
        ent_bits = len(bits) * 32 // 33
        ent = int(bits[:ent_bits], 2).to_bytes(ent_bits // 8, "big")
        cs = "".join(f"{b:08b}" for b in hashlib.sha256(ent).digest())[: len(bits) - ent_bits]
        if cs != bits[ent_bits:]:
            return ws


def b64(s):
    return base64.b64encode(s.encode()).decode()


def github():
    return "ghp_" + rs(ALNUM, 36)


def npm():
    return "npm_" + rs(ALNUM, 36)


def pypi():
    return "pypi-AgEIcHlwaS5vcmc" + rs(ALNUM + "-_", 60)


def slack():
    return "xoxb-" + rs(DIG, 11) + "-" + rs(DIG, 13) + "-" + rs(ALNUM, 24)


def stripe():
    return "sk_live_" + rs(ALNUM, 40)


def openai():
    return "sk-proj-" + rs(ALNUM + "-_", 56) + "T3BlbkFJ" + rs(ALNUM + "-_", 20)


def anthropic():
    return "sk-ant-api03-" + rs(ALNUM + "-_", 93) + "AA"


def aws_secret():
    return rs(ALNUM + "/+", 40)


def aws_id():
    return "AKIA" + rs(UP + DIG, 16)


def gitlab():
    return "glpat-" + rs(ALNUM + "-_", 20)


def hf():
    return "hf_" + rs(ALNUM, 34)


def sendgrid():
    return "SG." + rs(ALNUM + "-_", 22) + "." + rs(ALNUM + "-_", 43)


def jwt():
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(json.dumps({"sub": rs(DIG, 8), "role": "admin", "exp": 1893456000}).encode()).decode().rstrip("=")
    return head + "." + body + "." + rs(ALNUM + "-_", 43)


def generic_token(n=32):
    return rs(ALNUM, n)


def dockerhub():
    return "dckr_pat_" + rs(ALNUM + "-_", 27)


def telegram():
    return rs(DIG, 10) + ":AA" + rs(ALNUM + "-_", 33)


def do_token():
    return "dop_v1_" + hx(64)


def uuid():
    h = hx(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def sha(n=64):
    return hx(n)


# ---------------------------------------------------------------- secrets

S = []  # (kind, context, text)


def sec(kind, ctx, text):
    S.append((kind, ctx, text))


def ci_logs():
    for _ in range(6):
        t = npm()
        sec("npm token", "GitHub Actions log", f"Run npm config set //registry.npmjs.org/:_authToken {M(t)}\n  npm config set //registry.npmjs.org/:_authToken {M(t)}\n  shell: /usr/bin/bash -e {{0}}")
    for _ in range(6):
        p = password()
        u = pick(USERS)
        sec("docker password", "GitLab CI job log", f"$ docker login -u {u} -p {M(p)} registry.example.io\nWARNING! Using --password via the CLI is insecure. Use --password-stdin.\nLogin Succeeded")
    for _ in range(5):
        t = generic_token(40)
        sec("api token", "Jenkins console", f"[Pipeline] sh\n+ curl -sf -H 'X-Deploy-Token: {M(t)}' https://deploy.example.net/hooks/release\n{{\"status\":\"queued\"}}")
    for _ in range(5):
        k = openai()
        sec("openai key", "CI debug print", f"::debug::OPENAI_API_KEY resolved to {M(k)} (length {len(k)})")
    for _ in range(5):
        s = aws_secret()
        i = aws_id()
        sec("aws secret", "CircleCI env dump", f"/bin/bash -eo pipefail\nenv | grep AWS\nAWS_ACCESS_KEY_ID={i}\nAWS_SECRET_ACCESS_KEY={M(s)}\nAWS_REGION=eu-west-1")
    for _ in range(4):
        t = github()
        sec("github token", "CI git step", f"+ git remote set-url origin https://x-access-token:{M(t)}@github.com/acme-shop/storefront.git\n+ git push origin HEAD:release")
    for _ in range(4):
        p = password()
        sec("db password", "CI migration log", f"2026-11-29T04:12:09Z INFO migrate: connecting with DATABASE_URL=postgres://app:{M(p)}@{pick(HOSTS)}:5432/shop?sslmode=require")
    for _ in range(4):
        k = evm_key()
        sec("evm private key", "Foundry deploy log", f"$ forge script script/Deploy.s.sol --rpc-url $RPC --private-key {M(k)} --broadcast\n[⠊] Compiling...\nScript ran successfully.")


def k8s():
    for _ in range(8):
        p = password()
        sec("k8s stringData password", "Kubernetes Secret YAML", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: shop-db\ntype: Opaque\nstringData:\n  POSTGRES_USER: shop\n  POSTGRES_PASSWORD: {M(p)}")
    for _ in range(8):
        p = password()
        sec("k8s data password", "Kubernetes Secret YAML, base64", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: mq-creds\ndata:\n  username: {b64(pick(USERS))}\n  password: {M(b64(p))}")
    for _ in range(5):
        t = stripe()
        sec("stripe key", "Kubernetes Secret YAML", f"kind: Secret\napiVersion: v1\nmetadata:\n  name: payments\nstringData:\n  stripe-secret-key: \"{M(t)}\"")
    for _ in range(4):
        t = slack()
        sec("slack token", "Helm values", f"alerting:\n  slack:\n    enabled: true\n    botToken: {M(t)}\n    channel: '#ops-alerts'")
    for _ in range(4):
        k = generic_token(48)
        sec("api key", "kubectl command", f"kubectl -n shop create secret generic search-admin --from-literal=ALGOLIA_ADMIN_KEY={M(k)}")
    for _ in range(3):
        p = password()
        sec("redis password", "k8s env block", f"        env:\n        - name: REDIS_HOST\n          value: cache.example.com\n        - name: REDIS_PASSWORD\n          value: \"{M(p)}\"")


def rc_files():
    for _ in range(7):
        t = npm()
        sec("npm token", ".npmrc", f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={M(t)}\nalways-auth=true")
    for _ in range(5):
        t = github()
        sec("github packages token", ".npmrc", f"@acme-shop:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken={M(t)}")
    for _ in range(4):
        up = f"{pick(USERS)}:{password()}"
        sec("npm basic auth", ".npmrc", f"registry=https://nexus.example.net/repository/npm/\n_auth={M(b64(up))}\nemail=ci@example.net")
    for _ in range(7):
        t = pypi()
        sec("pypi token", ".pypirc", f"[distutils]\nindex-servers =\n    pypi\n\n[pypi]\nusername = __token__\npassword = {M(t)}")
    for _ in range(5):
        p = password()
        sec("private index password", ".pypirc", f"[internal]\nrepository = https://pypi.example.net/simple/\nusername = {pick(USERS)}\npassword = {M(p)}")
    for _ in range(4):
        p = password()
        sec("pip password", "pip.conf", f"[global]\nindex-url = https://{pick(USERS)}:{M(p)}@pypi.example.net/simple/")
    for _ in range(5):
        up = f"{pick(USERS)}:{password()}"
        sec("docker auth", "~/.docker/config.json", json.dumps({"auths": {"registry.example.io": {"auth": M(b64(up))}}}, ensure_ascii=False))
    for _ in range(4):
        p = password()
        sec("docker password", "docker login in chat", f"you can pull the image yourself: docker login registry.example.io --username {pick(USERS)} --password '{M(p)}'")
    for _ in range(4):
        t = dockerhub()
        sec("docker hub token", "shell history", f"  512  echo {M(t)} | docker login -u acmeshop --password-stdin\n  513  docker push acmeshop/api:2.4.1")


def chat():
    lines = [
        ("what's the admin password for the staging panel?", "it's {v}"),
        ("can you send me the login?", "user {u}, pass {v}"),
        ("I need the DB password to run the report", "here: {v} — please don't share it"),
        ("which key do I put in the .env?", "OPENAI_API_KEY={v}"),
        ("the FTP doesn't accept my credentials", "try {u} / {v}"),
        ("what do I type at the password prompt?", "{v} (capital first letter)"),
    ]
    for _ in range(30):
        q, a = pick(lines)
        u = pick(USERS)
        if "OPENAI" in a:
            v = openai()
        else:
            v = password()
        a = a.format(u=u, v=M(v))
        sec("password in chat", "chat transcript", f"[09:{R.randrange(10, 59)}] buyer: {q}\n[09:{R.randrange(10, 59)}] seller: {a}")
    for _ in range(6):
        k = evm_key()
        sec("evm private key", "chat transcript", f"<buyer> the deployer wallet is empty, did you fund it?\n<seller> yes. its private key if you need to sign yourself: 0x{M(k)}")
    for _ in range(6):
        ws = phrase(R.choice([12, 24]))
        sec("seed phrase", "chat transcript", f"seller: restore the test wallet with this recovery phrase\nseller: {M(' '.join(ws))}")
    for _ in range(4):
        t = telegram()
        sec("telegram bot token", "chat transcript", f"— the bot is @acme_orders_bot, token {M(t)}, webhook already set")


PROSE = [
    ("es", "La contraseña del panel es {v}, cámbiala cuando entres."),
    ("pt", "A senha do servidor é {v} (sem espaços)."),
    ("fr", "Le mot de passe de la base : {v}"),
    ("de", "Zugang zum Backend: Benutzer {u}, Passwort {v}"),
    ("it", "La password dell'account amministratore è {v}"),
    ("nl", "Het wachtwoord voor de FTP is {v}"),
    ("pl", "Hasło do panelu: {v}"),
    ("tr", "Yönetici şifresi: {v}"),
    ("ru", "Пароль от админки: {v}"),
    ("uk", "Пароль до сервера — {v}"),
    ("ar", "كلمة المرور للوحة التحكم هي {v}"),
    ("fa", "رمز عبور سرور: {v}"),
    ("hi", "सर्वर का पासवर्ड {v} है"),
    ("zh", "后台密码是 {v}，登录后请修改。"),
    ("ja", "管理画面のパスワードは {v} です。"),
    ("ko", "관리자 비밀번호는 {v} 입니다."),
    ("vi", "Mật khẩu quản trị: {v}"),
    ("th", "รหัสผ่านของแผงควบคุมคือ {v}"),
    ("id", "Kata sandi untuk dasbor adalah {v}"),
    ("sw", "Nenosiri la seva ni {v}"),
    ("cs", "Heslo k databázi je {v}"),
    ("sv", "Lösenordet till servern är {v}"),
    ("ro", "Parola contului de administrator este {v}"),
    ("hu", "A jelszó a szerverhez: {v}"),
    ("el", "Ο κωδικός του διαχειριστή είναι {v}"),
    ("he", "הסיסמה לשרת היא {v}"),
]
KEY_PROSE = [
    ("en", "Here is the API key for the shipping service: {v}"),
    ("es", "La clave API de producción es {v}"),
    ("de", "Der API-Schlüssel für das Live-System lautet {v}"),
    ("fr", "Voici la clé d'API : {v}"),
    ("pt", "Segue a chave da API: {v}"),
    ("ru", "API-ключ для прода: {v}"),
    ("zh", "生产环境的 API 密钥：{v}"),
    ("ja", "本番のAPIキーは {v} です"),
    ("tr", "Canlı ortam API anahtarı: {v}"),
    ("id", "Kunci API produksi: {v}"),
]


def prose():
    for _ in range(40):
        lang, t = pick(PROSE)
        sec("password in prose", f"prose ({lang})", t.format(u=pick(USERS), v=M(password())))
    for _ in range(20):
        lang, t = pick(KEY_PROSE)
        v = R.choice([generic_token(32), "live_" + rs(ALNUM, 30), rs(LOW + DIG, 40)])
        sec("api key in prose", f"prose ({lang})", t.format(v=M(v)))
    for _ in range(6):
        k = evm_key()
        lang, t = pick([("es", "La clave privada de la billetera: {v}"), ("de", "Privater Schlüssel der Wallet: {v}"),
                        ("en", "wallet private key (keep it safe): {v}"), ("ru", "Приватный ключ кошелька: {v}"),
                        ("zh", "钱包私钥：{v}"), ("pt", "Chave privada da carteira: {v}")])
        sec("evm private key", f"prose ({lang})", t.format(v=M(k)))


def tokens_elsewhere():
    makers = [("github token", github), ("gitlab token", gitlab), ("slack token", slack), ("stripe key", stripe),
              ("anthropic key", anthropic), ("hugging face token", hf), ("sendgrid key", sendgrid),
              ("digitalocean token", do_token), ("jwt", jwt)]
    ctxs = [
        ("terraform.tfvars", "{n} = \"{v}\""),
        ("PowerShell", "$env:{N} = \"{v}\""),
        ("Windows cmd", "set {N}={v}"),
        ("JSON log", "{{\"ts\":\"2026-11-29T06:01:02Z\",\"level\":\"debug\",\"msg\":\"client init\",\"{n}\":\"{v}\"}}"),
        ("Markdown table", "| service | value |\n|---|---|\n| {n} | `{v}` |"),
        ("Python", "client = Client(api_key=\"{v}\")"),
        ("curl", "curl https://api.example.net/v1/orders -H \"Authorization: Bearer {v}\""),
        ("systemd", "[Service]\nEnvironment=\"{N}={v}\"\nExecStart=/usr/local/bin/shop-worker"),
        ("docker-compose", "services:\n  worker:\n    image: acme/worker:3.1\n    environment:\n      - {N}={v}"),
        ("Go", "var {c} = \"{v}\""),
    ]
    for _ in range(50):
        kind, mk = pick(makers)
        ctx, t = pick(ctxs)
        n = kind.replace(" ", "_") + "_value" if ctx == "Markdown table" else kind.split()[0] + "_token"
        sec(kind, ctx, t.format(n=n, N=n.upper(), c="".join(p.capitalize() for p in n.split("_")), v=M(mk())))
    for _ in range(6):
        s = aws_secret()
        sec("aws secret", "boto3 session", f"session = boto3.Session(aws_access_key_id=\"{aws_id()}\", aws_secret_access_key=\"{M(s)}\", region_name=\"eu-central-1\")")
    for _ in range(6):
        p = password()
        sec("mysql password", "shell", f"mysql -h {pick(HOSTS)} -u {pick(USERS)} -p'{M(p)}' shop < dump.sql")
    for _ in range(5):
        p = password()
        sec("mongodb password", "Node config", f"module.exports = {{ mongoUri: 'mongodb+srv://{pick(USERS)}:{M(p)}@cluster0.example.mongodb.net/shop' }};")
    for _ in range(5):
        p = password()
        sec("csv password", "CSV export", f"host,user,password,port\n{pick(HOSTS)},{pick(USERS)},{M(p)},5432")
    for _ in range(4):
        ws = phrase(12)
        sec("seed phrase", "numbered list", "recovery words:\n" + "\n".join(f"{i + 1}. {M(w)}" for i, w in enumerate(ws)))
    for _ in range(4):
        k = "[" + ",".join(str(R.randrange(256)) for _ in range(64)) + "]"
        sec("solana keypair", "id.json in chat", f"the keypair file ~/.config/solana/id.json is: {M(k)}")


ci_logs()
k8s()
rc_files()
chat()
prose()
tokens_elsewhere()

# ---------------------------------------------------------------- look-alikes

L = []


def look(kind, ctx, text):
    L.append((kind, ctx, text))


def lookalikes():
    for _ in range(12):
        look("commit sha", "CI log", f"HEAD is now at {hx(7)} Merge pull request #{R.randrange(100, 999)}\nChecking out {hx(40)}")
    for _ in range(10):
        look("sha256 sums", "release notes", f"{hx(64)}  shop-cli_{R.randrange(1, 9)}.{R.randrange(20)}.0_linux_amd64.tar.gz\n{hx(64)}  shop-cli_darwin_arm64.tar.gz")
    for _ in range(10):
        look("uuid", "k8s describe", f"Name:         worker-{hx(5)}\nUID:          {uuid()}\nResourceVersion: {R.randrange(10**6, 10**7)}")
    for _ in range(8):
        look("image digest", "CI log", f"=> #12 pushing manifest for registry.example.io/shop/api:2.4.{R.randrange(9)}@sha256:{hx(64)}")
    for _ in range(8):
        data = base64.b64encode(bytes(R.getrandbits(8) for _ in range(90))).decode()
        look("base64 image", "HTML", f"<img alt=\"logo\" src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{data}\">")
    for _ in range(8):
        look("lorem ipsum", "mockup text", "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Password: lorem ipsum.")
    for t in ["<your-token>", "xxxx-xxxx-xxxx", "changeme", "YOUR_API_KEY", "********", "<password>", "REPLACE_ME", "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx", "${NPM_TOKEN}", "example-password"]:
        look("placeholder", ".env.example", f"API_TOKEN={t}\nDB_PASSWORD={t}\n# copy to .env and fill in")
        look("placeholder", ".npmrc template", f"//registry.npmjs.org/:_authToken={t}")
    for _ in range(6):
        look("templated secret", "GitHub Actions workflow", "      - run: npm publish\n        env:\n          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}")
    for _ in range(6):
        look("secret ref", "k8s env", "        env:\n        - name: DB_PASSWORD\n          valueFrom:\n            secretKeyRef:\n              name: shop-db\n              key: password")
    for _ in range(6):
        look("masked log", "GitHub Actions log", f"Run docker login -u ci -p *** registry.example.io\nLogin Succeeded\n::add-mask::***")
    for _ in range(6):
        look("password stdin", "CI step", "echo \"$REGISTRY_PASSWORD\" | docker login registry.example.io -u ci --password-stdin")
    for _ in range(6):
        look("pypirc template", ".pypirc", "[pypi]\nusername = __token__\npassword = <paste the pypi- token from your account page>")
    chat_no = [
        "I'll send the password through 1Password, not here.",
        "The password reset link expires in 30 minutes.",
        "Please don't paste keys in this chat; the platform removes them anyway.",
        "Password must be at least 12 characters with a number and a symbol.",
        "Did you get the invite? You set your own password on first login.",
        "Use the token from the vault, not the one in the old README.",
        "I rotated the API key yesterday, the old one is revoked.",
        "Forgot my password again, can you reset it for user {u}?",
    ]
    for _ in range(30):
        look("chat without secret", "chat transcript", f"[10:{R.randrange(10, 59)}] buyer: how do I log in?\n[10:{R.randrange(10, 59)}] seller: {pick(chat_no).format(u=pick(USERS))}")
    talk = [
        "La contraseña debe tener al menos 12 caracteres.", "Bitte ändere das Passwort nach dem ersten Login.",
        "Le mot de passe n'est jamais envoyé par e-mail.", "A senha será enviada por SMS.",
        "Пароль не храните в репозитории.", "密码请不要发到群里。", "パスワードは後で別途お送りします。",
        "비밀번호는 전화로 알려드릴게요.", "Şifrenizi kimseyle paylaşmayın.", "Kata sandi dikirim terpisah.",
        "كلمة المرور ستصلك برسالة منفصلة.", "Mật khẩu sẽ được gửi riêng.", "Hasło wyślę osobnym kanałem.",
        "Het wachtwoord staat in de kluis.", "Nenosiri litatumwa kwa SMS.", "पासवर्ड अलग से भेजा जाएगा।",
    ]
    for _ in range(30):
        look("prose about passwords", "multilingual prose", pick(talk))
    for _ in range(10):
        look("tx hash", "support ticket", f"The payout tx is 0x{hx(64)}, confirmed in block {R.randrange(10**7, 2 * 10**7)}.")
    for _ in range(8):
        look("address", "invoice", f"Pay 120 USDC to 0x{hx(40)} on Base; memo INV-{R.randrange(1000, 9999)}.")
    for _ in range(8):
        look("bcrypt hash", "SQL dump", f"INSERT INTO users (email, password_hash) VALUES ('{pick(USERS)}@example.com', '$2b$12${rs(ALNUM + './', 53)}');")
    for _ in range(6):
        look("aws key id alone", "IAM note", f"The CI user's access key id is {aws_id()}; its secret stays in the vault.")
    for _ in range(5):
        look("firebase web config", "web app", f"const firebaseConfig = {{\n  apiKey: \"AIza{rs(ALNUM + '-_', 35)}\",\n  authDomain: \"shop-{R.randrange(100, 999)}.firebaseapp.com\",\n  projectId: \"shop-{R.randrange(100, 999)}\",\n  messagingSenderId: \"{rs(DIG, 12)}\"\n}};")
    for _ in range(5):
        look("publishable key", "checkout page", f"const stripe = Stripe('pk_live_{rs(ALNUM, 40)}');")
    for _ in range(6):
        look("ssh public key", "authorized_keys", f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rs(ALNUM + '+/', 43)} {pick(USERS)}@laptop")
    for _ in range(8):
        ws = bad_phrase(12)
        look("word list without checksum", "word game", "Spelling bee list for Friday: " + ", ".join(ws))
    for _ in range(6):
        look("npm integrity", "package-lock.json", f"\"integrity\": \"sha512-{base64.b64encode(bytes(R.getrandbits(8) for _ in range(64))).decode()}\"")
    for _ in range(6):
        look("request id", "API error", f"{{\"error\":\"rate_limited\",\"request_id\":\"req_{rs(ALNUM, 24)}\",\"retry_after\":30}}")
    for _ in range(6):
        look("webhook signature", "webhook log", f"POST /hooks/stripe 200 Stripe-Signature: t={R.randrange(10**9, 2 * 10**9)},v1={hx(64)}")
    for _ in range(6):
        look("etag", "HTTP response", f"HTTP/1.1 304 Not Modified\nETag: \"{hx(32)}\"\nCache-Control: max-age=600")
    for _ in range(6):
        look("token count", "LLM usage log", f"usage: prompt_tokens={R.randrange(100, 4000)} completion_tokens={R.randrange(10, 900)} total_tokens={R.randrange(1000, 5000)}")
    for _ in range(6):
        look("md5 of file", "upload log", f"uploaded report.pdf ({R.randrange(100, 999)} KB), md5 {hx(32)}")
    for _ in range(6):
        look("git lfs pointer", "repo file", f"version https://git-lfs.github.com/spec/v1\noid sha256:{hx(64)}\nsize {R.randrange(10**5, 10**7)}")
    for _ in range(6):
        look("kubectl secret from env", "shell", "kubectl create secret generic api --from-literal=token=\"$API_TOKEN\" --dry-run=client -o yaml")
    for _ in range(6):
        look("docs example", "README", "Set `DB_PASSWORD` in `.env` (for example `DB_PASSWORD=changeme` for local runs).")
    for _ in range(6):
        look("empty secret yaml", "k8s manifest", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: shop-db\nstringData:\n  POSTGRES_PASSWORD: \"\"")
    for _ in range(6):
        look("pipeline cache key", "CI config", f"cache:\n  key: deps-{hx(40)}\n  paths:\n    - node_modules/")
    for _ in range(6):
        look("nonce", "OAuth redirect log", f"GET /callback?state={rs(ALNUM, 22)}&nonce={uuid()} 302")
    for _ in range(8):
        look("dependabot log", "CI log", f"Bumping lodash from 4.17.20 to 4.17.21 (commit {hx(40)}, PR #{R.randrange(100, 999)})")
    for _ in range(6):
        look("version pins", "requirements.txt", f"requests=={R.randrange(2, 3)}.{R.randrange(20, 33)}.{R.randrange(9)}\npasslib=={R.randrange(1, 2)}.7.4\ncryptography=={R.randrange(40, 44)}.0.1")


lookalikes()


def esc(s):
    return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def write(name, title, items):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        f.write(f"# {title} Written by heldout9_gen.py; see README.md.\n")
        for kind, ctx, text in items:
            f.write(f"# {kind} | {ctx}\n{esc(text)}\n")


R.shuffle(S)
R.shuffle(L)
write("heldout9_secret.txt", "Ninth held-out credentials: texts holding credentials, each value marked.", S)
write("heldout9_lookalike.txt", "Ninth held-out look-alikes: nothing here may be removed.", L)
print(len(S), "secret texts,", len(L), "look-alikes")
