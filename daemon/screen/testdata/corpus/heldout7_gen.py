#!/usr/bin/env python3
"""Writes heldout7_secret.txt and heldout7_lookalike.txt: the seventh held-out credential set.

Stdlib only, seeded: rerunning rewrites both files identically. Every value is random and fake,
in the real format of its kind. Texts cross between a buyer and a seller on a stablecoin-paid
exchange. In the secret file «...» marks every value that must be removed; each sample follows a
comment "# kind | context".
"""
import base64
import hashlib
import json
import os
import random
import zlib

R = random.Random(20261130)
HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = open(os.path.join(HERE, "..", "..", "bip39_english.txt")).read().split()
assert len(WORDS) == 2048

HEX = "0123456789abcdef"
DIG = "0123456789"
LOW = "abcdefghijklmnopqrstuvwxyz"
UP = LOW.upper()
ALNUM = DIG + UP + LOW
B64 = UP + LOW + DIG + "+/"
B64U = UP + LOW + DIG + "-_"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
B32 = UP + "234567"


def rs(n, alpha=ALNUM):
    return "".join(R.choice(alpha) for _ in range(n))


def rhex(n):
    return rs(n, HEX)


def rbytes(n):
    return bytes(R.randrange(256) for _ in range(n))


def pick(xs):
    return R.choice(xs)


# --- encodings -------------------------------------------------------------------------------

def b58(b):
    n = int.from_bytes(b, "big")
    s = ""
    while n:
        n, r = divmod(n, 58)
        s = B58[r] + s
    pad = len(b) - len(b.lstrip(b"\0"))
    return "1" * pad + s


def dsha(b):
    return hashlib.sha256(hashlib.sha256(b).digest()).digest()


def b58check(b):
    return b58(b + dsha(b)[:4])


def b64(b):
    return base64.b64encode(b).decode()


def b64u(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def base62(n, width):
    s = ""
    while n:
        n, r = divmod(n, 62)
        s = ALNUM[r] + s
    return s.rjust(width, "0")


# --- keccak-256 (for EIP-55 addresses) ---------------------------------------------------------

_ROT = [[0, 36, 3, 41, 18], [1, 44, 10, 45, 2], [62, 6, 43, 15, 61], [28, 55, 25, 21, 56],
        [27, 20, 39, 8, 14]]
M64 = (1 << 64) - 1


def _rol(v, n):
    n %= 64
    return ((v << n) | (v >> (64 - n))) & M64 if n else v


def _keccak_f(A):
    r = 1
    for _ in range(24):
        C = [A[x][0] ^ A[x][1] ^ A[x][2] ^ A[x][3] ^ A[x][4] for x in range(5)]
        D = [C[(x - 1) % 5] ^ _rol(C[(x + 1) % 5], 1) for x in range(5)]
        A = [[A[x][y] ^ D[x] for y in range(5)] for x in range(5)]
        B = [[0] * 5 for _ in range(5)]
        for x in range(5):
            for y in range(5):
                B[y][(2 * x + 3 * y) % 5] = _rol(A[x][y], _ROT[x][y])
        A = [[B[x][y] ^ ((~B[(x + 1) % 5][y]) & B[(x + 2) % 5][y]) for y in range(5)]
             for x in range(5)]
        for j in range(7):
            r = ((r << 1) ^ ((r >> 7) * 0x71)) % 256
            if r & 2:
                A[0][0] ^= 1 << ((1 << j) - 1)
    return A


def keccak256(data):
    rate = 136
    msg = bytearray(data) + b"\x01"
    while len(msg) % rate:
        msg += b"\0"
    msg[-1] |= 0x80
    A = [[0] * 5 for _ in range(5)]
    for off in range(0, len(msg), rate):
        blk = msg[off:off + rate]
        for i in range(rate // 8):
            x, y = i % 5, i // 5
            A[x][y] ^= int.from_bytes(blk[8 * i:8 * i + 8], "little")
        A = _keccak_f(A)
    out = b""
    for i in range(4):
        out += A[i % 5][i // 5].to_bytes(8, "little")
    return out


assert keccak256(b"").hex() == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"


def eip55(h):
    h = h.lower()
    d = keccak256(h.encode()).hex()
    return "0x" + "".join(c.upper() if int(d[i], 16) >= 8 else c for i, c in enumerate(h))


# --- secp256k1 and ed25519 (public halves) -----------------------------------------------------

SP = 2 ** 256 - 2 ** 32 - 977
SN = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
SG = (0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798,
      0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8)


def _sadd(P, Q):
    if P is None:
        return Q
    if Q is None:
        return P
    if P[0] == Q[0] and (P[1] + Q[1]) % SP == 0:
        return None
    if P == Q:
        l = 3 * P[0] * P[0] * pow(2 * P[1], SP - 2, SP) % SP
    else:
        l = (Q[1] - P[1]) * pow(Q[0] - P[0], SP - 2, SP) % SP
    x = (l * l - P[0] - Q[0]) % SP
    return x, (l * (P[0] - x) - P[1]) % SP


def spub(k):
    Q, P = None, SG
    while k:
        if k & 1:
            Q = _sadd(Q, P)
        P = _sadd(P, P)
        k >>= 1
    return Q


def spub_comp(k):
    x, y = spub(k)
    return bytes([2 + (y & 1)]) + x.to_bytes(32, "big")


def evm_address_of(k):
    x, y = spub(k)
    return eip55(keccak256(x.to_bytes(32, "big") + y.to_bytes(32, "big"))[-20:].hex())


EP = 2 ** 255 - 19
ED = -121665 * pow(121666, EP - 2, EP) % EP
EI = pow(2, (EP - 1) // 4, EP)


def _xrec(y):
    xx = (y * y - 1) * pow(ED * y * y + 1, EP - 2, EP)
    x = pow(xx, (EP + 3) // 8, EP)
    if (x * x - xx) % EP:
        x = x * EI % EP
    if x % 2:
        x = EP - x
    return x


_EBy = 4 * pow(5, EP - 2, EP) % EP
_EB = (_xrec(_EBy), _EBy, 1, _xrec(_EBy) * _EBy % EP)


def _eadd(P, Q):
    x1, y1, z1, t1 = P
    x2, y2, z2, t2 = Q
    a = (y1 - x1) * (y2 - x2) % EP
    b = (y1 + x1) * (y2 + x2) % EP
    c = t1 * 2 * ED * t2 % EP
    d = z1 * 2 * z2 % EP
    e, f, g, h = b - a, d - c, d + c, b + a
    return e * f % EP, g * h % EP, f * g % EP, e * h % EP


def ed_pub(seed):
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    Q, P = (0, 1, 1, 0), _EB
    while a:
        if a & 1:
            Q = _eadd(Q, P)
        P = _eadd(P, P)
        a >>= 1
    x, y, z, _ = Q
    zi = pow(z, EP - 2, EP)
    x, y = x * zi % EP, y * zi % EP
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


# --- credential values -----------------------------------------------------------------------

def evm_key_int():
    while True:
        k = int.from_bytes(rbytes(32), "big")
        if 0 < k < SN and k >= 1 << 248:
            return k


def evm_key():
    return "%064x" % evm_key_int()


def evm_addr():
    return eip55(rhex(40))


def mnemonic(n):
    ent = n * 11 * 32 // 33
    e = rbytes(ent // 8)
    cs = ent // 32
    bits = int.from_bytes(e, "big") << cs | (hashlib.sha256(e).digest()[0] >> (8 - cs))
    return [WORDS[(bits >> (11 * (n - 1 - i))) & 2047] for i in range(n)]


def mnemonic_ok(ws):
    n = len(ws)
    if n % 3:
        return False
    bits = 0
    for w in ws:
        bits = bits << 11 | WORDS.index(w)
    cs = n * 11 // 33
    ent = bits >> cs
    e = ent.to_bytes(n * 11 * 32 // 33 // 8, "big")
    return bits & ((1 << cs) - 1) == hashlib.sha256(e).digest()[0] >> (8 - cs)


def bad_mnemonic(n):
    while True:
        ws = [pick(WORDS) for _ in range(n)]
        if not mnemonic_ok(ws):
            return ws


for _n in (12, 15, 18, 21, 24):
    assert mnemonic_ok(mnemonic(_n))


def wif(compressed=True, testnet=False):
    k = evm_key_int().to_bytes(32, "big")
    return b58check(bytes([0xEF if testnet else 0x80]) + k + (b"\x01" if compressed else b""))


XVER = {"xprv": "0488ade4", "tprv": "04358394", "yprv": "049d7878", "zprv": "04b2430c",
        "xpub": "0488b21e", "tpub": "043587cf", "zpub": "04b24746", "ypub": "049d7cb2"}


def xkey(kind="xprv", depth=3):
    ver = bytes.fromhex(XVER[kind])
    fp = rbytes(4) if depth else b"\0" * 4
    child = ((0x80000000 if depth else 0) + R.randrange(3)).to_bytes(4, "big") if depth else b"\0" * 4
    k = evm_key_int()
    body = (b"\0" + k.to_bytes(32, "big")) if kind.endswith("prv") else spub_comp(k)
    return b58check(ver + bytes([depth]) + fp + child + rbytes(32) + body)


def sol_keypair():
    seed = rbytes(32)
    pub = ed_pub(seed)
    return seed + pub, b58(pub)


def sol_secret_b58():
    return b58(sol_keypair()[0])


def sol_addr():
    return b58(ed_pub(rbytes(32)))


def tron_addr():
    return b58check(b"\x41" + rbytes(20))


def btc_addr():
    return b58check(b"\x00" + rbytes(20))


def bech32_polymod(values):
    gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
    chk = 1
    for v in values:
        b = chk >> 25
        chk = (chk & 0x1ffffff) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if ((b >> i) & 1) else 0
    return chk


def bech32_addr(hrp="bc", nbytes=20):
    data = rbytes(nbytes)
    acc, bits, five = 0, 0, [0]
    for b in data:
        acc = acc << 8 | b
        bits += 8
        while bits >= 5:
            bits -= 5
            five.append((acc >> bits) & 31)
    if bits:
        five.append((acc << (5 - bits)) & 31)
    cs = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
    hv = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    pm = bech32_polymod(hv + five + [0] * 6) ^ 1
    chk = [(pm >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(cs[d] for d in five + chk)


def gh_token(prefix="ghp_"):
    body = rs(30)
    return prefix + body + base62(zlib.crc32(body.encode()) & 0xffffffff, 6)


def aws_id(prefix="AKIA"):
    return prefix + rs(16, UP + "234567")


def aws_secret():
    return rs(40, UP + LOW + DIG + "/+")


def uuid4():
    h = rhex(32)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], pick("89ab"), h[17:20], h[20:32])


def jwt(claims, alg="HS256"):
    head = b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    body = b64u(json.dumps(claims, separators=(",", ":")).encode())
    sig = b64u(rbytes(32 if alg.startswith("HS") else 256))
    return head + "." + body + "." + sig


def password():
    w1 = pick(["Mango", "tiger", "Volcano", "blue", "Kestrel", "copper", "Sunrise", "otter",
               "Granite", "lemon", "Harbor", "pixel", "Marmalade", "falcon", "Cedar", "nova",
               "Quasar", "rocket", "Saffron", "walrus", "Juniper", "cobalt", "Lantern", "maple"])
    w2 = pick(["River", "moon", "Stack", "99", "Fox", "train", "Delta", "Lake", "Storm", "pie"])
    sym = pick("!@#$%&*-_.?")
    num = str(R.randrange(10, 9999))
    shape = R.randrange(6)
    if shape == 0:
        return w1 + sym + w2 + num
    if shape == 1:
        return w1.lower() + num + sym
    if shape == 2:
        return rs(R.randrange(12, 20), ALNUM + "!#%&*")
    if shape == 3:
        return w1.replace("o", "0").replace("a", "@") + num
    if shape == 4:
        return w1 + w2 + sym + num + pick(["", "x", "Z"])
    return rs(R.randrange(8, 12), ALNUM) + sym + num


def url_safe_pw():
    while True:
        p = password()
        if not any(c in p for c in "@#%?/:&"):
            return p


def pem_body(nbytes, width=64):
    s = b64(rbytes(nbytes))
    return [s[i:i + width] for i in range(0, len(s), width)]


def pem(label, nbytes, mark=True):
    lines = pem_body(nbytes)
    if mark:
        lines = ["«%s»" % l for l in lines]
    return "-----BEGIN %s-----\n%s\n-----END %s-----" % (label, "\n".join(lines), label)


# --- prose in many languages -----------------------------------------------------------------

LANGS = ["en", "es", "pt", "de", "fr", "it", "nl", "pl", "ru", "uk", "tr", "ar", "he", "hi", "bn",
         "zh", "ja", "ko", "vi", "th", "id", "sw"]

# {v} is the marked value.
PK_PROSE = {
    "en": ["ok here's the deployer private key, pls don't share it: {v}",
           "the key for the test wallet (the one holding the 40 USDC) is {v} - import it in metamask"],
    "es": ["te paso la clave privada de la billetera de pruebas: {v} (no la compartas)",
           "Clave privada del deployer -> {v} , con eso puedes firmar el contrato"],
    "pt": ["segue a chave privada da carteira de deploy: {v}, depois eu troco",
           "a chave privada (sem o 0x) é {v} , importa no Rabby"],
    "de": ["Hier der private Schlüssel der Testwallet: {v} – bitte nach dem Test löschen",
           "Privater Schlüssel für den Deployer (nur Sepolia!): {v}"],
    "fr": ["Voici la clé privée du wallet de déploiement : {v} (à supprimer après la livraison)",
           "clé privée du compte relayer = {v}, merci de la garder pour vous"],
    "it": ["ecco la chiave privata del wallet di test: {v}", "chiave privata (quella del deployer) - {v}"],
    "nl": ["hier is de private key van de testwallet: {v}, daarna maak ik een nieuwe",
           "Privésleutel van de deployer: {v}"],
    "pl": ["klucz prywatny do portfela testowego: {v} (usuń po wdrożeniu)",
           "tu masz klucz prywatny deployera -> {v}"],
    "ru": ["вот приватный ключ тестового кошелька: {v}, после деплоя удалю",
           "Приватник от кошелька деплоера: {v}"],
    "uk": ["ось приватний ключ гаманця для деплою: {v}", "приватний ключ (без 0x) — {v}"],
    "tr": ["test cüzdanının özel anahtarı: {v} , işin bitince sil lütfen",
           "deployer özel anahtarı -> {v}"],
    "ar": ["هذا هو المفتاح الخاص لمحفظة الاختبار: {v} من فضلك لا تشاركه",
           "المفتاح الخاص للنشر: {v}"],
    "he": ["זה המפתח הפרטי של ארנק הבדיקות: {v} תמחק אחרי הפריסה", "מפתח פרטי של ה-deployer: {v}"],
    "hi": ["टेस्ट वॉलेट की प्राइवेट की यह है: {v} , काम के बाद डिलीट कर देना",
           "डिप्लॉयर की निजी कुंजी: {v}"],
    "bn": ["টেস্ট ওয়ালেটের প্রাইভেট কী: {v} , কাজ শেষে মুছে দিও", "ডিপ্লয়ার ওয়ালেটের প্রাইভেট কী — {v}"],
    "zh": ["测试钱包的私钥是 {v} ，部署完我会换掉", "私钥（部署用）：{v}"],
    "ja": ["テスト用ウォレットの秘密鍵です：{v} 作業後に削除してください", "デプロイ用の秘密鍵 → {v}"],
    "ko": ["테스트 지갑 개인키입니다: {v} 배포 후 삭제해주세요", "배포용 개인 키 = {v}"],
    "vi": ["đây là khóa riêng của ví test: {v} , xong việc thì xóa giúp mình", "private key ví deploy: {v}"],
    "th": ["นี่คือคีย์ส่วนตัวของกระเป๋าทดสอบ: {v} ใช้เสร็จแล้วลบด้วยนะ", "ไพรเวทคีย์ของ deployer คือ {v}"],
    "id": ["ini private key dompet testnya: {v}, nanti saya ganti", "kunci privat deployer = {v}"],
    "sw": ["huu ndio ufunguo binafsi wa pochi ya majaribio: {v} , tafadhali usiushiriki",
           "ufunguo wa siri wa deployer ni {v}"],
}

SEED_PROSE = {
    "en": ["recovery phrase of the escrow test wallet: {v}", "seed words (write them down, I'm wiping this chat): {v}"],
    "es": ["la frase semilla de la billetera es: {v}", "frase de recuperación -> {v}"],
    "pt": ["frase de recuperação da carteira: {v}", "as 12 palavras são: {v}"],
    "de": ["Wiederherstellungsphrase der Wallet: {v}", "Seed (bitte sicher aufbewahren): {v}"],
    "fr": ["phrase de récupération du wallet : {v}", "les mots de la seed : {v}"],
    "it": ["frase di recupero del wallet: {v}", "le parole del seed sono {v}"],
    "nl": ["herstelzin van de wallet: {v}", "seedwoorden: {v}"],
    "pl": ["fraza odzyskiwania portfela: {v}", "słowa seed: {v}"],
    "ru": ["сид-фраза кошелька: {v}", "мнемоника от тестового кошелька — {v}"],
    "uk": ["сід-фраза гаманця: {v}", "фраза відновлення: {v}"],
    "tr": ["cüzdanın kurtarma ifadesi: {v}", "gizli kelimeler: {v}"],
    "ar": ["عبارة الاسترداد للمحفظة: {v}", "كلمات الاستعادة هي {v}"],
    "he": ["משפט השחזור של הארנק: {v}", "מילות הסיד: {v}"],
    "hi": ["वॉलेट का रिकवरी फ्रेज़: {v}", "सीड वर्ड्स ये हैं: {v}"],
    "bn": ["ওয়ালেটের রিকভারি ফ্রেজ: {v}", "সিড শব্দগুলো: {v}"],
    "zh": ["钱包助记词：{v}", "助记词如下 {v} 请妥善保管"],
    "ja": ["ウォレットのシードフレーズ：{v}", "復元フレーズはこちら → {v}"],
    "ko": ["지갑 시드 문구: {v}", "복구 구문은 {v} 입니다"],
    "vi": ["cụm từ khôi phục ví: {v}", "12 từ seed: {v}"],
    "th": ["วลีกู้คืนกระเป๋า: {v}", "ซีดเวิร์ดคือ {v}"],
    "id": ["frasa pemulihan dompet: {v}", "seed phrase-nya: {v}"],
    "sw": ["maneno ya kurejesha pochi: {v}", "maneno ya siri ya pochi ni {v}"],
}

PW_PROSE = {
    "en": ["the admin password is {v} (capital first letter)", "login for the staging panel: admin / {v}"],
    "es": ["la contraseña del panel es {v}", "usuario: soporte, contraseña: {v}"],
    "pt": ["a senha do painel é {v}", "login: admin senha {v}"],
    "de": ["Das Passwort für das Dashboard lautet {v}", "Benutzer admin, Kennwort: {v}"],
    "fr": ["le mot de passe du back-office est {v}", "identifiant : admin / mot de passe : {v}"],
    "it": ["la password del pannello è {v}", "utente admin, password {v}"],
    "nl": ["het wachtwoord van het dashboard is {v}", "gebruiker: beheer, wachtwoord: {v}"],
    "pl": ["hasło do panelu to {v}", "login: admin, hasło: {v}"],
    "ru": ["пароль от админки: {v}", "логин admin, пароль {v}"],
    "uk": ["пароль до панелі: {v}", "логін: admin, пароль: {v}"],
    "tr": ["panelin şifresi {v}", "kullanıcı adı admin, parola: {v}"],
    "ar": ["كلمة المرور للوحة التحكم هي {v}", "اسم المستخدم admin وكلمة السر {v}"],
    "he": ["הסיסמה לפאנל היא {v}", "משתמש admin סיסמה {v}"],
    "hi": ["डैशबोर्ड का पासवर्ड {v} है", "यूज़र admin, पासवर्ड: {v}"],
    "bn": ["ড্যাশবোর্ডের পাসওয়ার্ড হলো {v}", "ইউজার admin, পাসওয়ার্ড {v}"],
    "zh": ["后台密码是 {v}", "账号 admin 密码 {v}"],
    "ja": ["管理画面のパスワードは {v} です", "ユーザー admin／パスワード {v}"],
    "ko": ["관리자 비밀번호는 {v} 입니다", "아이디 admin 비번 {v}"],
    "vi": ["mật khẩu trang quản trị là {v}", "tài khoản admin, mật khẩu {v}"],
    "th": ["รหัสผ่านแผงควบคุมคือ {v}", "ผู้ใช้ admin รหัสผ่าน {v}"],
    "id": ["kata sandi panel admin: {v}", "user admin, password {v}"],
    "sw": ["nenosiri la dashibodi ni {v}", "mtumiaji admin, nenosiri {v}"],
}

TOKEN_PROSE = {
    "en": "here's the API key so you can test against prod: {v}",
    "es": "aquí tienes la API key para probar: {v}",
    "pt": "segue o token da API pra você testar: {v}",
    "de": "hier der API-Schlüssel zum Testen: {v}",
    "fr": "voici la clé d'API pour tester : {v}",
    "it": "ecco la chiave API per i test: {v}",
    "nl": "hier is de API-sleutel om te testen: {v}",
    "pl": "tu jest klucz API do testów: {v}",
    "ru": "вот ключ API для тестов: {v}",
    "uk": "ось ключ API для тестування: {v}",
    "tr": "test için API anahtarı: {v}",
    "ar": "هذا مفتاح API للتجربة: {v}",
    "he": "הנה מפתח ה-API לבדיקות: {v}",
    "hi": "टेस्टिंग के लिए API की: {v}",
    "bn": "টেস্টের জন্য API কী: {v}",
    "zh": "测试用的 API 密钥：{v}",
    "ja": "テスト用のAPIキーです：{v}",
    "ko": "테스트용 API 키: {v}",
    "vi": "API key để test: {v}",
    "th": "API key สำหรับทดสอบ: {v}",
    "id": "ini API key buat testing: {v}",
    "sw": "hii ndiyo API key ya majaribio: {v}",
}


def lang_cycle():
    i = 0
    while True:
        yield LANGS[i % len(LANGS)]
        i += 1


LC = lang_cycle()


# --- samples ---------------------------------------------------------------------------------

SECRETS = []
LOOKS = []


def S(kind, ctx, text):
    SECRETS.append((kind, ctx, text))


def L(kind, ctx, text):
    LOOKS.append((kind, ctx, text))


def m(v):
    return "«" + v + "»"


def host():
    return pick(["api.example.com", "staging.example.net", "db.internal.example", "rpc.example.org",
                 "shop.example", "vault.corp.example", "app.test", "node1.example.invalid",
                 "payments.example.com", "grafana.example.net"])


def ip():
    return pick(["192.0.2.", "198.51.100.", "203.0.113."]) + str(R.randrange(2, 250))


def user():
    return pick(["deploy", "admin", "svc_payments", "app", "ci-bot", "maria", "kenji", "root",
                 "backend", "ops", "reporting", "escrow_svc", "tomasz", "olu", "priya"])


# EVM private keys in code, configs and tools. {K} is the 64 hex digits.
EVM_TEMPLATES = [
    ("JavaScript ethers v6", "import {{ ethers }} from 'ethers';\nconst provider = new ethers.JsonRpcProvider(process.env.RPC_URL);\nconst wallet = new ethers.Wallet('0x{K}', provider);\nconst usdc = new ethers.Contract(USDC, abi, wallet);"),
    ("TypeScript viem", "import {{ privateKeyToAccount }} from 'viem/accounts'\n\n// TODO move to env before handover\nexport const account = privateKeyToAccount(`0x{K}`)"),
    ("Python web3.py", "from web3 import Web3\nfrom eth_account import Account\n\nw3 = Web3(Web3.HTTPProvider(RPC))\nacct = Account.from_key(\"{K}\")\nprint(acct.address)"),
    ("Go go-ethereum", "func signer() (*ecdsa.PrivateKey, error) {{\n\treturn crypto.HexToECDSA(\"{K}\")\n}}"),
    ("Rust alloy", "let signer: PrivateKeySigner = \"0x{K}\"\n    .parse()\n    .expect(\"bad key\");\nlet wallet = EthereumWallet::from(signer);"),
    ("Rust ethers-rs", "let wallet = LocalWallet::from_str(\"{K}\")?.with_chain_id(137u64);"),
    ("Java web3j", "Credentials credentials = Credentials.create(\"0x{K}\");\nTransactionReceipt r = Transfer.sendFunds(web3, credentials, to, BigDecimal.ONE, Convert.Unit.ETHER).send();"),
    ("Kotlin web3j", "val creds = Credentials.create(\"{K}\")\nval erc20 = ERC20.load(usdcAddress, web3j, creds, DefaultGasProvider())"),
    ("C# Nethereum", "var account = new Nethereum.Web3.Accounts.Account(\"0x{K}\", Chain.Polygon);\nvar web3 = new Web3(account, rpcUrl);"),
    ("PHP web3.php", "<?php\n$privateKey = '{K}';\n$tx = new Transaction($txParams);\n$signed = '0x' . $tx->sign($privateKey);"),
    ("Ruby eth gem", "require 'eth'\nkey = Eth::Key.new priv: \"{K}\"\nclient = Eth::Client.create ENV['RPC']\nclient.transfer_erc20(usdc, to, amount, sender_key: key)"),
    ("Swift web3swift", "let keystore = try! EthereumKeystoreV3(privateKey: Data(hex: \"{K}\"), password: \"\")!\nlet manager = KeystoreManager([keystore])"),
    ("Solidity Foundry script", "contract Deploy is Script {{\n    function run() external {{\n        uint256 pk = 0x{K};\n        vm.startBroadcast(pk);\n        new Escrow(USDC);\n        vm.stopBroadcast();\n    }}\n}}"),
    ("Bash cast", "$ cast send 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48 \"transfer(address,uint256)\" $TO 25000000 --rpc-url $RPC --private-key 0x{K}"),
    ("Bash forge", "forge script script/Deploy.s.sol:Deploy --rpc-url https://rpc.example.org --broadcast --private-key {K} -vvvv"),
    ("PowerShell", "PS C:\\dev\\escrow> $env:PRIVATE_KEY = \"0x{K}\"\nPS C:\\dev\\escrow> npx hardhat run scripts/deploy.ts --network amoy"),
    (".env", "RPC_URL=https://rpc.example.org/polygon\nCHAIN_ID=137\nDEPLOYER_PRIVATE_KEY={K}\nUSDC_ADDRESS=0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359"),
    ("hardhat.config.ts", "networks: {{\n    sepolia: {{\n      url: SEPOLIA_RPC,\n      accounts: [\"0x{K}\"],\n    }},\n  }},"),
    ("docker-compose", "services:\n  relayer:\n    image: example/relayer:1.4\n    environment:\n      - CHAIN=base\n      - SIGNER_KEY=0x{K}\n    restart: unless-stopped"),
    ("Helm values", "relayer:\n  replicas: 2\n  signer:\n    privateKey: \"{K}\"\n  resources:\n    limits:\n      memory: 256Mi"),
    ("GitHub Actions", "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      PRIVATE_KEY: \"0x{K}\"\n    steps:\n      - uses: actions/checkout@v4\n      - run: forge script script/Deploy.s.sol --broadcast"),
    ("systemd unit", "[Service]\nUser=bot\nEnvironment=\"BOT_PK={K}\"\nExecStart=/opt/arb-bot/bin/bot --chain arbitrum\nRestart=always"),
    ("crontab", "*/5 * * * * PRIVATE_KEY={K} /usr/bin/node /home/bot/sweep.js >> /var/log/sweep.log 2>&1"),
    ("log line", "2026-11-27T09:14:02.113Z INFO signer: loaded hot wallet key=0x{K} addr=0x{A}"),
    ("stack trace", "Error: invalid private key (argument=\"privateKey\", value=\"0x{K}\", code=INVALID_ARGUMENT, version=6.13.1)\n    at makeError (node_modules/ethers/lib.commonjs/utils/errors.js:129:21)\n    at new SigningKey (node_modules/ethers/lib.commonjs/crypto/signing-key.js:41:9)"),
    ("notebook cell", "{{\"cell_type\": \"code\", \"source\": [\"from eth_account import Account\\n\", \"PK = '{K}'\\n\", \"acct = Account.from_key(PK)\"], \"outputs\": []}}"),
    ("SQL", "INSERT INTO hot_wallets (chain, address, private_key, created_at)\nVALUES ('polygon', '0x{A}', '{K}', now());"),
    ("CSV", "label,address,private_key\nfaucet-1,0x{A},{K}"),
    ("Markdown table", "| wallet | address | private key |\n|---|---|---|\n| fees | `0x{A}` | `{K}` |"),
    ("TOML", "[signer]\nkind = \"local\"\nprivate_key = \"0x{K}\"\nchain_id = 8453"),
    ("JSON config", "{{\n  \"network\": \"arbitrum\",\n  \"relayer\": {{ \"address\": \"0x{A}\", \"pk\": \"{K}\" }},\n  \"gasMultiplier\": 1.2\n}}"),
    ("k8s Secret stringData", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: relayer-key\ntype: Opaque\nstringData:\n  PRIVATE_KEY: \"0x{K}\""),
    ("GitLab CI", "deploy:\n  stage: deploy\n  variables:\n    ETH_PRIVATE_KEY: {K}\n  script:\n    - npx hardhat run scripts/deploy.js --network base"),
    ("INI", "[wallet]\nnetwork = bsc\nkey = {K}\ngas_price_gwei = 3"),
    ("properties", "web3.rpc=https://rpc.example.org/bsc\nweb3.wallet.private-key=0x{K}\nweb3.wallet.chain-id=56"),
    ("TRON tronweb", "const tronWeb = new TronWeb({{\n  fullHost: 'https://api.trongrid.io',\n  privateKey: '{K}'\n}});"),
]


def gen_evm():
    for ctx, t in EVM_TEMPLATES:
        k = evm_key()
        text = t.format(K=m(k), A=rhex(40))
        kind = "tron private key" if "TRON" in ctx else "evm private key"
        S(kind, ctx, text)
    # prose in every language, half with 0x
    for lang in LANGS:
        k = evm_key()
        v = ("0x" + m(k)) if R.random() < 0.5 else m(k)
        S("evm private key", "chat (%s)" % lang, pick(PK_PROSE[lang]).format(v=v))
    # leaks people really write
    k = evm_key()
    S("evm private key", "chat, split over two messages",
      "key part 1: 0x%s\n(sending the rest separately for safety)\npart 2: %s" % (m(k[:32]), m(k[32:])))
    k = evm_key()
    S("evm private key", "dispute statement",
      "Dispute #D-4471: the seller asked me to paste my wallet key \"to verify ownership\" and I did (%s). 2,300 USDT left that wallet an hour later." % m(k))
    k = evm_key()
    S("evm private key", "chat, typo in label", "pirvate kye for the bot wallet -- %s -- funded with 15 USDC for gas" % m(k))
    k = evm_key()
    S("evm private key", "screenshot described",
      "Buyer's note on the screenshot: the MetaMask 'Show private key' screen reads 0x%s, and the account name is 'Escrow hot'" % m(k))
    k = evm_key()
    S("evm private key", "chat, key spaced in groups",
      "pk (copied from the paper backup, grouped by 8): %s" % " ".join(m(k[i:i + 8]) for i in range(0, 64, 8)))
    k = evm_key()
    S("evm private key", "offer note", "Offer note: wallet is pre-funded; I'll hand you its key after payment. For the demo use this one: %s" % m(k))
    k = evm_key()
    S("evm private key", "Q&A", "Q: how does the bot sign?\nA: it reads the key from config.yaml, currently `signer_key: 0x%s`; swap it for yours." % m(k))
    k = evm_key()
    S("evm private key", "review", "5 stars. Delivered fast. (Note to self: the test key he used was %s, rotate it.)" % m(k))
    k = evm_key()
    S("evm private key", "URL query", "http://203.0.113.40:8080/debug/sign?chain=137&pk=%s&amount=10" % m(k))
    k = evm_key()
    S("evm private key", "upper-case hex in prose", "KEY: 0X%s" % m(k.upper()))



def gen_mnemonics():
    sizes = [12, 24, 12, 15, 18, 21, 24, 12]
    si = [0]

    def ws(n=None):
        if n is None:
            n = sizes[si[0] % len(sizes)]
            si[0] += 1
        return mnemonic(n)

    w = ws(12)
    S("bip39 mnemonic", "one line, chat", "seed for the test wallet: %s" % m(" ".join(w)))
    w = ws(24)
    S("bip39 mnemonic", "numbered, one a line",
      "Backup words:\n" + "\n".join("%d. %s" % (i + 1, m(x)) for i, x in enumerate(w)))
    w = ws(12)
    S("bip39 mnemonic", "numbered with parentheses, inline",
      " ".join("%d) %s" % (i + 1, m(x)) for i, x in enumerate(w)))
    w = ws(15)
    S("bip39 mnemonic", "comma-separated", "words: " + ", ".join(m(x) for x in w))
    w = ws(18)
    S("bip39 mnemonic", "JSON array", "{\"mnemonic\": [" + ", ".join("\"%s\"" % m(x) for x in w) + "], \"path\": \"m/44'/60'/0'/0\"}")
    w = ws(12)
    S("bip39 mnemonic", "YAML list", "wallet:\n  derivation: \"m/44'/60'/0'/0/0\"\n  words:\n" + "\n".join("    - " + m(x) for x in w))
    w = ws(24)
    rows = [w[i:i + 4] for i in range(0, 24, 4)]
    S("bip39 mnemonic", "grid 6x4 from a paper card",
      "transcribed the card row by row:\n" + "\n".join("  ".join(m(x) for x in r) for r in rows))
    w = ws(12)
    S("bip39 mnemonic", "Markdown table",
      "| # | word | # | word |\n|---|---|---|---|\n" + "\n".join("| %d | %s | %d | %s |" % (i + 1, m(w[i]), i + 7, m(w[i + 6])) for i in range(6)))
    w = ws(12)
    S("bip39 mnemonic", "upper case", "SEED: " + m(" ".join(x.upper() for x in w)))
    w = ws(21)
    S("bip39 mnemonic", "joined by dashes", "phrase (dashes instead of spaces so the chat doesn't wrap): " + m("-".join(w)))
    w = ws(12)
    S("bip39 mnemonic", "CSV", "index,word\n" + "\n".join("%d,%s" % (i + 1, m(x)) for i, x in enumerate(w)))
    w = ws(12)
    S("bip39 mnemonic", "JavaScript ethers", "const wallet = ethers.Wallet.fromPhrase(\"%s\");\nconsole.log(wallet.address);" % m(" ".join(w)))
    w = ws(24)
    S("bip39 mnemonic", "Python eth_account", "Account.enable_unaudited_hdwallet_features()\nacct = Account.from_mnemonic(\n    \"%s\",\n    account_path=\"m/44'/60'/0'/0/0\",\n)" % m(" ".join(w)))
    w = ws(12)
    S("bip39 mnemonic", "Python bip_utils", "seed = Bip39SeedGenerator('%s').Generate()\nctx = Bip44.FromSeed(seed, Bip44Coins.ETHEREUM)" % m(" ".join(w)))
    w = ws(12)
    S("bip39 mnemonic", "Rust ethers-rs", "let wallet = MnemonicBuilder::<English>::default()\n    .phrase(\"%s\")\n    .index(0u32)?\n    .build()?;" % m(" ".join(w)))
    w = ws(12)
    S("bip39 mnemonic", "Bash cast", "$ cast wallet address --mnemonic \"%s\" --mnemonic-index 0" % m(" ".join(w)))
    w = ws(24)
    S("bip39 mnemonic", "solana-keygen session",
      "$ solana-keygen recover 'prompt://?key=0/0' -o buyer.json\n[recover] seed phrase: %s\n[recover] If this seed phrase has an associated passphrase, enter it now. Otherwise, press ENTER to continue:" % m(" ".join(w)))
    w = ws(12)
    S("bip39 mnemonic", "hardhat.config.js", "module.exports = {\n  networks: {\n    hardhat: { accounts: { mnemonic: \"%s\" } },\n  },\n};" % m(" ".join(w)))
    w = ws(15)
    S("bip39 mnemonic", ".env", "MNEMONIC=\"%s\"\nHD_PATH=m/44'/60'/0'/0" % m(" ".join(w)))
    w = ws(12)
    S("bip39 mnemonic", "Go go-ethereum-hdwallet", "wallet, err := hdwallet.NewFromMnemonic(\"%s\")\nif err != nil {\n\tlog.Fatal(err)\n}" % m(" ".join(w)))
    w = ws(24)
    S("bip39 mnemonic", "C# NBitcoin", "var mnemo = new Mnemonic(\"%s\", Wordlist.English);\nvar hd = mnemo.DeriveExtKey();" % m(" ".join(w)))
    w = ws(12)
    S("bip39 mnemonic", "Kotlin web3j", "val seed = MnemonicUtils.generateSeed(\"%s\", null)\nval master = Bip32ECKeyPair.generateKeyPair(seed)" % m(" ".join(w)))
    w = ws(12)
    S("bip39 mnemonic", "split over two messages",
      "first half: %s\n...\nand the rest: %s" % (m(" ".join(w[:6])), m(" ".join(w[6:]))))
    w = ws(18)
    S("bip39 mnemonic", "Electrum restore notes", "Restored in Electrum 4.5 (Standard wallet > I already have a seed > Options: BIP39 seed): %s — derivation m/84'/0'/0'" % m(" ".join(w)))
    w = ws(12)
    S("bip39 mnemonic", "screenshot described", "In the photo the buyer sent, the Trust Wallet backup screen shows: %s" % m(" ".join(w)))
    w = ws(12)
    S("bip39 mnemonic", "dispute statement", "Statement: I never gave anyone my seed. The seller's log shows he typed it himself — %s — at 14:02, before the USDT was moved." % m(" ".join(w)))
    w = ws(24)
    S("bip39 mnemonic", "k8s Secret base64 data",
      "apiVersion: v1\nkind: Secret\nmetadata:\n  name: hd-wallet\ndata:\n  MNEMONIC: %s" % m(b64(" ".join(w).encode())))
    w = ws(12)
    S("bip39 mnemonic", "words with index in brackets", " ".join("[%d]%s" % (i + 1, m(x)) for i, x in enumerate(w)))
    w = ws(12)
    S("bip39 mnemonic", "one word a line, no numbers", "\n".join(m(x) for x in w))
    # prose, one per language
    for lang in LANGS:
        w = mnemonic(pick([12, 12, 24, 15, 18]))
        S("bip39 mnemonic", "chat (%s)" % lang, pick(SEED_PROSE[lang]).format(v=m(" ".join(w))))


def gen_wallet_other():
    pw = password()
    S("keystore password", "Bash geth", "$ echo '%s' > /tmp/pw.txt\n$ geth --datadir ./node account unlock 0x%s --password /tmp/pw.txt" % (m(pw), rhex(40)))
    pw = password()
    S("keystore password", "JavaScript ethers", "const json = fs.readFileSync('keystore/UTC--2026-11-02.json', 'utf8');\nconst wallet = await ethers.Wallet.fromEncryptedJson(json, '%s');" % m(pw))
    pw = password()
    S("keystore password", "Python eth_account", "with open('keystore.json') as f:\n    key = Account.decrypt(json.load(f), \"%s\")" % m(pw))
    pw = password()
    S("keystore password", "Bash cast", "cast wallet import deployer --private-key $PK --unsafe-password '%s'" % m(pw))
    pw = password()
    S("keystore password", "Java web3j", "Credentials c = WalletUtils.loadCredentials(\"%s\", \"/srv/keys/UTC--2026-10-01T10-00-00.0Z--wallet.json\");" % m(pw))
    pw = password()
    S("keystore password", "JavaScript web3.js", "const acct = web3.eth.accounts.decrypt(keystoreJson, \"%s\");" % m(pw))
    pw = password()
    S("keystore password", "chat (en)", "the keystore file is attached, password is %s (no quotes)" % m(pw))
    pw = password()
    S("keystore password", "chat (es)", "el archivo keystore va adjunto; la contraseña del keystore: %s" % m(pw))
    pw = password()
    S("keystore password", "chat (ja)", "キーストアのパスワードは「%s」です" % m(pw))
    pw = password()
    S("keystore password", "chat (ru)", "пароль от keystore: %s" % m(pw))
    pw = password()
    S("wallet password", "chat (pt)", "a senha do MetaMask desse navegador é %s" % m(pw))
    pw = password()
    S("wallet password", "Bash bitcoin-cli", "bitcoin-cli -rpcwallet=escrow walletpassphrase \"%s\" 600" % m(pw))
    # WIF
    S("bitcoin wif", "Bash bitcoin-cli", "bitcoin-cli importprivkey %s \"escrow-refund\" false" % m(wif()))
    S("bitcoin wif", "Python bit", "from bit import PrivateKey\nkey = PrivateKey('%s')\nprint(key.address, key.get_balance('btc'))" % m(wif()))
    S("bitcoin wif", "JavaScript bitcoinjs", "const keyPair = ECPair.fromWIF('%s', bitcoin.networks.testnet);" % m(wif(testnet=True)))
    S("bitcoin wif", "chat (de)", "WIF-Schlüssel der Paper-Wallet: %s – bitte sofort sweepen" % m(wif(compressed=False)))
    S("bitcoin wif", "Electrum sweep notes", "Sweep in Electrum: Wallet > Private keys > Sweep, pasted p2wpkh:%s and sent to bc1 address" % m(wif()))
    S("bitcoin wif", "chat (tr)", "kağıt cüzdandaki özel anahtar (WIF): %s" % m(wif()))
    S("bitcoin wif", "CSV", "address,wif\n%s,%s" % (btc_addr(), m(wif())))
    # extended private keys
    S("bip32 xprv", "output descriptor", "wpkh(%s/84'/0'/0'/0/*)#%s" % (m(xkey("xprv", 0)), rs(8, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")))
    S("bip32 xprv", "Electrum wallet file", "{\"keystore\": {\"type\": \"bip32\", \"xprv\": \"%s\", \"xpub\": \"%s\"}, \"wallet_type\": \"standard\"}" % (m(xkey("zprv")), xkey("zpub")))
    S("bip32 xprv", "YAML", "signer:\n  network: testnet\n  tprv: %s" % m(xkey("tprv")))
    S("bip32 xprv", "JavaScript bip32", "const node = bip32.fromBase58('%s');\nconst child = node.derivePath(\"m/0/1\");" % m(xkey("xprv")))
    S("bip32 xprv", "chat (fr)", "la clé étendue privée du portefeuille (xprv) : %s" % m(xkey("xprv", 0)))
    S("bip32 xprv", "Python bip_utils", "ctx = Bip32Slip10Secp256k1.FromExtendedKey(\"%s\")" % m(xkey("yprv")))
    # Solana
    kp, pub = sol_keypair()
    S("solana secret key", "id.json (64-byte array)", "$ cat ~/.config/solana/id.json\n[%s]" % m(",".join(str(b) for b in kp)))
    kp, pub = sol_keypair()
    S("solana secret key", "Phantom export, chat", "exported from Phantom (Settings > Show private key): %s — pubkey %s" % (m(b58(kp)), pub))
    kp, pub = sol_keypair()
    S("solana secret key", "JavaScript web3.js", "const payer = Keypair.fromSecretKey(bs58.decode(\"%s\"));" % m(b58(kp)))
    kp, pub = sol_keypair()
    S("solana secret key", "Rust solana-sdk", "let payer = Keypair::from_base58_string(\"%s\");" % m(b58(kp)))
    kp, pub = sol_keypair()
    S("solana secret key", "Python solders", "kp = Keypair.from_bytes(bytes([%s]))" % m(", ".join(str(b) for b in kp)))
    kp, pub = sol_keypair()
    S("solana secret key", ".env", "SOLANA_RPC=https://rpc.example.org/solana\nSOLANA_PRIVATE_KEY=%s" % m(b58(kp)))
    kp, pub = sol_keypair()
    S("solana secret key", "chat (id)", "private key Solana buat bot-nya: %s" % m(b58(kp)))
    kp, pub = sol_keypair()
    S("solana secret key", "Python solders base58", "payer = Keypair.from_base58_string('%s')" % m(b58(kp)))


# --- other kinds: value generators -----------------------------------------------------------

def azure_client_secret():
    return rs(3) + "8Q~" + rs(34, ALNUM + "._~-")


def slack_bot():
    return "xoxb-%s-%s-%s" % (rs(12, DIG), rs(13, DIG), rs(24))


def discord_bot():
    return b64u(rs(19, DIG).encode()) + "." + rs(6, ALNUM + "-_") + "." + rs(38, ALNUM + "-_")


def telegram_bot():
    return "%s:AA%s" % (R.randrange(10 ** 9, 8 * 10 ** 9), rs(33, ALNUM + "-_"))


def openai_key():
    return pick(["sk-proj-" + rs(74, ALNUM + "-_") + "T3BlbkFJ" + rs(74, ALNUM + "-_"),
                 "sk-" + rs(20) + "T3BlbkFJ" + rs(20),
                 "sk-svcacct-" + rs(74, ALNUM + "-_") + "T3BlbkFJ" + rs(74, ALNUM + "-_")])


def anthropic_key():
    return "sk-ant-api03-" + rs(93, ALNUM + "-_") + "AA"


def sendgrid():
    return "SG." + rs(22, ALNUM + "-_") + "." + rs(43, ALNUM + "-_")


def pypi_token():
    return "pypi-AgEIcHlwaS5vcmc" + rs(150, ALNUM + "-_")


def atlassian():
    return "ATATT3xFfGF0" + rs(170, ALNUM + "-_") + "=" + rhex(8).upper()


def age_key():
    return "AGE-SECRET-KEY-1" + rs(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")


def postman():
    return "PMAK-" + rhex(24) + "-" + rhex(34)


def mapbox_secret():
    return "sk." + b64u(json.dumps({"u": pick(["escrowmaps", "shopgeo", "deliverytrack"]), "a": rs(25, LOW + DIG)}).encode()) + "." + rs(22, ALNUM + "-_")


def airtable():
    return "pat" + rs(14) + "." + rhex(64)


def tfc():
    return rs(14) + ".atlasv1." + rs(67)


def grafana_sa():
    return "glsa_" + rs(32) + "_" + rhex(8)


# (kind, variable name, value, optional (id name, id value) printed alongside, header scheme)
def generic_kinds():
    return [
        ("aws secret access key", "AWS_SECRET_ACCESS_KEY", aws_secret, ("AWS_ACCESS_KEY_ID", lambda: aws_id())),
        ("aws secret access key", "aws_secret_access_key", aws_secret, ("aws_access_key_id", lambda: aws_id())),
        ("aws session token", "AWS_SESSION_TOKEN", lambda: "IQoJb3JpZ2luX2Vj" + rs(300, B64), ("AWS_ACCESS_KEY_ID", lambda: aws_id("ASIA"))),
        ("gcp api key", "GOOGLE_MAPS_SERVER_KEY", lambda: "AIza" + rs(35, ALNUM + "-_"), None),
        ("gemini api key", "GEMINI_API_KEY", lambda: "AIza" + rs(35, ALNUM + "-_"), None),
        ("azure client secret", "AZURE_CLIENT_SECRET", azure_client_secret, ("AZURE_CLIENT_ID", uuid4)),
        ("digitalocean token", "DIGITALOCEAN_TOKEN", lambda: "dop_v1_" + rhex(64), None),
        ("cloudflare api token", "CLOUDFLARE_API_TOKEN", lambda: rs(40, ALNUM + "_-"), ("CLOUDFLARE_ZONE_ID", lambda: rhex(32))),
        ("cloudflare global key", "CF_API_KEY", lambda: rhex(37), ("CF_API_EMAIL", lambda: "ops@example.com")),
        ("github token", "GITHUB_TOKEN", lambda: gh_token("ghp_"), None),
        ("github fine-grained token", "GH_PAT", lambda: "github_pat_11" + rs(20, UP + DIG) + "_" + rs(59), None),
        ("github oauth token", "GITHUB_OAUTH", lambda: gh_token("gho_"), None),
        ("gitlab token", "GITLAB_TOKEN", lambda: "glpat-" + rs(20, ALNUM + "_-"), None),
        ("bitbucket app password", "BITBUCKET_APP_PASSWORD", lambda: "ATBB" + rs(28) + rhex(8).upper(), ("BITBUCKET_USERNAME", lambda: "deliverybot")),
        ("slack bot token", "SLACK_BOT_TOKEN", slack_bot, None),
        ("slack user token", "SLACK_USER_TOKEN", lambda: "xoxp-%s-%s-%s-%s" % (rs(12, DIG), rs(12, DIG), rs(13, DIG), rhex(32)), None),
        ("discord bot token", "DISCORD_TOKEN", discord_bot, ("DISCORD_CLIENT_ID", lambda: rs(19, DIG))),
        ("telegram bot token", "TELEGRAM_BOT_TOKEN", telegram_bot, ("TELEGRAM_CHAT_ID", lambda: "-100" + rs(10, DIG))),
        ("stripe secret key", "STRIPE_SECRET_KEY", lambda: "sk_live_51" + rs(97), ("STRIPE_PUBLISHABLE_KEY", lambda: "pk_live_51" + rs(97))),
        ("stripe restricted key", "STRIPE_RK", lambda: "rk_live_51" + rs(97), None),
        ("stripe webhook secret", "STRIPE_WEBHOOK_SECRET", lambda: "whsec_" + rs(32), None),
        ("paypal client secret", "PAYPAL_CLIENT_SECRET", lambda: "E" + rs(79, ALNUM + "-_"), ("PAYPAL_CLIENT_ID", lambda: "A" + rs(79, ALNUM + "-_"))),
        ("square access token", "SQUARE_ACCESS_TOKEN", lambda: "EAAA" + rs(60, ALNUM + "-_"), ("SQUARE_APPLICATION_ID", lambda: "sq0idp-" + rs(22, ALNUM + "-_"))),
        ("shopify admin token", "SHOPIFY_ACCESS_TOKEN", lambda: "shpat_" + rhex(32), None),
        ("twilio auth token", "TWILIO_AUTH_TOKEN", lambda: rhex(32), ("TWILIO_ACCOUNT_SID", lambda: "AC" + rhex(32))),
        ("openai api key", "OPENAI_API_KEY", openai_key, None),
        ("anthropic api key", "ANTHROPIC_API_KEY", anthropic_key, None),
        ("groq api key", "GROQ_API_KEY", lambda: "gsk_" + rs(52), None),
        ("replicate token", "REPLICATE_API_TOKEN", lambda: "r8_" + rs(37), None),
        ("hugging face token", "HF_TOKEN", lambda: "hf_" + rs(34, UP + LOW), None),
        ("mistral api key", "MISTRAL_API_KEY", lambda: rs(32), None),
        ("xai api key", "XAI_API_KEY", lambda: "xai-" + rs(80), None),
        ("perplexity key", "PPLX_API_KEY", lambda: "pplx-" + rs(48), None),
        ("sendgrid api key", "SENDGRID_API_KEY", sendgrid, None),
        ("mailgun api key", "MAILGUN_API_KEY", lambda: rhex(32) + "-" + rhex(8) + "-" + rhex(8), ("MAILGUN_DOMAIN", lambda: "mg.example.com")),
        ("postmark server token", "POSTMARK_SERVER_TOKEN", uuid4, None),
        ("resend api key", "RESEND_API_KEY", lambda: "re_" + rs(8) + "_" + rs(24), None),
        ("brevo api key", "BREVO_API_KEY", lambda: "xkeysib-" + rhex(64) + "-" + rs(16), None),
        ("npm token", "NPM_TOKEN", lambda: "npm_" + rs(36), None),
        ("pypi token", "PYPI_TOKEN", pypi_token, None),
        ("docker hub token", "DOCKERHUB_TOKEN", lambda: "dckr_pat_" + rs(27, ALNUM + "-_"), ("DOCKERHUB_USERNAME", lambda: "escrowdev")),
        ("rubygems key", "GEM_HOST_API_KEY", lambda: "rubygems_" + rhex(48), None),
        ("nuget key", "NUGET_API_KEY", lambda: "oy2" + rs(43, LOW + DIG), None),
        ("crates.io token", "CARGO_REGISTRY_TOKEN", lambda: "cio" + rs(32), None),
        ("datadog api key", "DD_API_KEY", lambda: rhex(32), ("DD_SITE", lambda: "datadoghq.eu")),
        ("datadog app key", "DD_APP_KEY", lambda: rhex(40), None),
        ("sentry auth token", "SENTRY_AUTH_TOKEN", lambda: "sntryu_" + rhex(64), ("SENTRY_ORG", lambda: "escrow-shop")),
        ("grafana token", "GRAFANA_TOKEN", grafana_sa, None),
        ("new relic key", "NEW_RELIC_API_KEY", lambda: "NRAK-" + rs(27, UP + DIG), None),
        ("vault token", "VAULT_TOKEN", lambda: "hvs." + rs(24), ("VAULT_ADDR", lambda: "https://vault.corp.example:8200")),
        ("doppler token", "DOPPLER_TOKEN", lambda: "dp.st.prd." + rs(40), None),
        ("pulumi token", "PULUMI_ACCESS_TOKEN", lambda: "pul-" + rhex(40), None),
        ("terraform cloud token", "TF_TOKEN_app_terraform_io", tfc, None),
        ("netlify token", "NETLIFY_AUTH_TOKEN", lambda: "nfp_" + rs(36), None),
        ("vercel token", "VERCEL_TOKEN", lambda: rs(24), ("VERCEL_ORG_ID", lambda: "team_" + rs(24))),
        ("fly.io token", "FLY_API_TOKEN", lambda: "fo1_" + rs(43, ALNUM + "-_"), None),
        ("linear api key", "LINEAR_API_KEY", lambda: "lin_api_" + rs(40), None),
        ("notion token", "NOTION_TOKEN", lambda: "ntn_" + rs(46), None),
        ("airtable token", "AIRTABLE_PAT", airtable, None),
        ("atlassian api token", "JIRA_API_TOKEN", atlassian, ("JIRA_EMAIL", lambda: "pm@example.com")),
        ("okta api token", "OKTA_API_TOKEN", lambda: "00" + rs(40, ALNUM + "-_"), ("OKTA_ORG_URL", lambda: "https://dev-000000.okta.example")),
        ("figma token", "FIGMA_TOKEN", lambda: "figd_" + rs(40, ALNUM + "-_"), None),
        ("postman api key", "POSTMAN_API_KEY", postman, None),
        ("mapbox secret token", "MAPBOX_SECRET_TOKEN", mapbox_secret, None),
        ("algolia admin key", "ALGOLIA_ADMIN_KEY", lambda: rhex(32), ("ALGOLIA_APP_ID", lambda: rs(10, UP + DIG))),
        ("age secret key", "SOPS_AGE_KEY", age_key, None),
        ("cloudinary secret", "CLOUDINARY_API_SECRET", lambda: rs(27, ALNUM + "-_"), ("CLOUDINARY_API_KEY", lambda: rs(15, DIG))),
        ("pusher secret", "PUSHER_APP_SECRET", lambda: rhex(20), ("PUSHER_APP_KEY", lambda: rhex(20))),
        ("firebase server key", "FCM_SERVER_KEY", lambda: "AAAA" + rs(7, ALNUM + "-_") + ":APA91b" + rs(134, ALNUM + "-_"), None),
        ("supabase service role key", "SUPABASE_SERVICE_ROLE_KEY", lambda: jwt({"iss": "supabase", "ref": rs(20, LOW), "role": "service_role", "iat": 1730000000, "exp": 2045576000}), ("SUPABASE_URL", lambda: "https://" + rs(20, LOW) + ".supabase.co")),
        ("etherscan api key", "ETHERSCAN_API_KEY", lambda: rs(34, UP + DIG), None),
        ("pinata secret", "PINATA_SECRET_API_KEY", lambda: rhex(64), ("PINATA_API_KEY", lambda: rhex(20))),
        ("nowpayments ipn secret", "NOWPAYMENTS_IPN_SECRET", lambda: rs(32, ALNUM + "+/"), None),
        ("coinbase commerce key", "COINBASE_COMMERCE_API_KEY", uuid4, None),
        ("jwt signing secret", "JWT_SECRET", lambda: rs(48, ALNUM + "!@#$%^&*"), None),
        ("django secret key", "DJANGO_SECRET_KEY", lambda: "django-insecure-" + rs(50, LOW + DIG + "!@#$%^&*(-_=+)"), None),
        ("rails secret_key_base", "SECRET_KEY_BASE", lambda: rhex(128), None),
        ("laravel app key", "APP_KEY", lambda: "base64:" + b64(rbytes(32)), None),
        ("nextauth secret", "NEXTAUTH_SECRET", lambda: b64(rbytes(32)), None),
        ("totp seed", "TOTP_SECRET", lambda: rs(32, B32), None),
        ("wireguard private key", "WG_PRIVATE_KEY", lambda: b64(rbytes(32)), None),
    ]


GENERIC_CTX = [
    (".env", lambda n, v, idl: (idl and "%s=%s\n" % idl or "") + "%s=%s" % (n, v)),
    ("Bash export", lambda n, v, idl: (idl and "export %s=%s\n" % idl or "") + "export %s=\"%s\"" % (n, v)),
    ("YAML config", lambda n, v, idl: "integrations:\n" + (idl and "  %s: %s\n" % (idl[0].lower(), idl[1]) or "") + "  %s: %s" % (n.lower(), v)),
    ("JSON config", lambda n, v, idl: "{" + (idl and "\"%s\": \"%s\", " % (idl[0].lower(), idl[1]) or "") + "\"%s\": \"%s\", \"timeout_ms\": 5000}" % (n.lower(), v)),
    ("Python", lambda n, v, idl: "import os\n\n" + (idl and "%s = \"%s\"\n" % idl or "") + "%s = os.getenv(\"%s\", \"%s\")  # fallback for local runs" % (n, n, v)),
    ("JavaScript", lambda n, v, idl: (idl and "const %s = '%s';\n" % idl or "") + "const %s = process.env.%s || '%s';" % (n, n, v)),
    ("Go", lambda n, v, idl: "var cfg = Config{\n" + (idl and "\tID:     \"%s\",\n" % idl[1] or "") + "\tSecret: \"%s\", // %s\n}" % (v, n)),
    ("Rust", lambda n, v, idl: "const %s: &str = \"%s\";" % (n, v)),
    ("Java", lambda n, v, idl: "public final class Keys {\n    static final String %s = \"%s\";\n}" % (n, v)),
    ("C#", lambda n, v, idl: "services.Configure<ApiOptions>(o => {\n" + (idl and "    o.Id = \"%s\";\n" % idl[1] or "") + "    o.Secret = \"%s\";\n});" % v),
    ("PHP", lambda n, v, idl: "<?php\n" + (idl and "define('%s', '%s');\n" % idl or "") + "define('%s', '%s');" % (n, v)),
    ("Ruby", lambda n, v, idl: "Rails.application.configure do\n  config.x.%s = \"%s\"\nend" % (n.lower(), v)),
    ("docker run", lambda n, v, idl: "docker run -d --name worker " + (idl and "-e %s=%s " % idl or "") + "-e %s=%s example/worker:2.3" % (n, v)),
    ("k8s Secret base64 data", None),
    ("GitHub Actions", lambda n, v, idl: "    - name: publish\n      run: ./scripts/publish.sh\n      env:\n        %s: %s" % (n, v)),
    ("chat", None),
    ("log line", lambda n, v, idl: "2026-11-26 22:41:07,552 DEBUG settings: loaded %s=%s from config.local" % (n, v)),
    ("PowerShell", lambda n, v, idl: (idl and "$env:%s = \"%s\"\n" % idl or "") + "$env:%s = \"%s\"\n.\\deploy.ps1 -Env prod" % (n, v)),
    ("TOML", lambda n, v, idl: "[service]\n" + (idl and "%s = \"%s\"\n" % (idl[0].lower(), idl[1]) or "") + "%s = \"%s\"" % (n.lower(), v)),
    ("Terraform tfvars", lambda n, v, idl: (idl and "%s = \"%s\"\n" % (idl[0].lower(), idl[1]) or "") + "%s = \"%s\"" % (n.lower(), v)),
    ("Swift", lambda n, v, idl: "enum Secrets {\n    static let %s = \"%s\"\n}" % (n.lower(), v)),
    ("Kotlin", lambda n, v, idl: "object Env {\n    const val %s = \"%s\"\n}" % (n, v)),
    ("INI", lambda n, v, idl: "[api]\n" + (idl and "%s = %s\n" % (idl[0].lower(), idl[1]) or "") + "%s = %s" % (n.lower(), v)),
    ("properties", lambda n, v, idl: "app.integration.%s=%s" % (n.lower().replace("_", "-"), v)),
    ("systemd unit", lambda n, v, idl: "[Service]\nEnvironment=%s=%s\nExecStart=/usr/local/bin/worker" % (n, v)),
    ("Markdown table", lambda n, v, idl: "| variable | value |\n|---|---|\n" + (idl and "| `%s` | `%s` |\n" % idl or "") + "| `%s` | `%s` |" % (n, v)),
    ("SQL", lambda n, v, idl: "UPDATE integrations SET secret = '%s', updated_at = now() WHERE name = '%s';" % (v, n.lower())),
    ("Helm values", lambda n, v, idl: "env:\n" + (idl and "  - name: %s\n    value: \"%s\"\n" % idl or "") + "  - name: %s\n    value: \"%s\"" % (n, v)),
    ("crontab", lambda n, v, idl: "0 3 * * * %s=%s /opt/jobs/nightly.sh" % (n, v)),
    ("docker-compose", lambda n, v, idl: "services:\n  api:\n    image: example/api:latest\n    environment:\n      %s: \"%s\"" % (n, v)),
]


def gen_generic():
    ci = 0
    for kind, name, gen, idpair in generic_kinds():
        reps = 3 if kind in ("aws secret access key", "openai api key", "stripe secret key", "github token", "slack bot token", "telegram bot token", "anthropic api key", "sendgrid api key") else 2
        for _ in range(reps):
            v = gen()
            idl = (idpair[0], idpair[1]()) if idpair else None
            ctx, f = GENERIC_CTX[ci % len(GENERIC_CTX)]
            ci += 1
            if ctx == "chat":
                lang = next(LC)
                text = TOKEN_PROSE[lang].format(v=m(v))
                if idl:
                    text = "%s = %s\n" % idl + text
                S(kind, "chat (%s)" % lang, text)
                continue
            if ctx == "k8s Secret base64 data":
                text = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\ntype: Opaque\ndata:\n" % name.lower().replace("_", "-")
                if idl:
                    text += "  %s: %s\n" % (idl[0], b64(idl[1].encode()))
                text += "  %s: %s" % (name, m(b64(v.encode())))
                S(kind, ctx, text)
                continue
            S(kind, ctx, f(name, m(v), idl))


def gen_exchange_rpc():
    k, s = rs(64), rs(64)
    S("binance api secret", "Python python-binance", "from binance.client import Client\nclient = Client(api_key=\"%s\", api_secret=\"%s\")\nprint(client.get_asset_balance(asset='USDT'))" % (k, m(s)))
    k, s = rs(64), rs(64)
    S("binance api secret", "chat (vi)", "API key Binance: %s\nSecret: %s (chỉ bật quyền đọc)" % (k, m(s)))
    k, s = rs(56, B64), b64(rbytes(64))
    S("kraken private key", "JavaScript", "const kraken = new KrakenClient('%s', '%s');" % (k, m(s)))
    k, s = rs(56, B64), b64(rbytes(64))
    S("kraken private key", "INI", "[kraken]\napi_key = %s\nprivate_key = %s" % (k, m(s)))
    k, s, p = uuid4(), rhex(32).upper(), password()
    S("okx api secret", "Python ccxt", "okx = ccxt.okx({\n    'apiKey': '%s',\n    'secret': '%s',\n    'password': '%s',\n})" % (k, m(s), m(p)))
    k, s, p = uuid4(), rhex(32).upper(), password()
    S("okx api secret", "chat (zh)", "OKX 的 API：\nAPIKey: %s\nSecretKey: %s\nPassphrase: %s" % (k, m(s), m(p)))
    k, s = rs(18), rs(36)
    S("bybit api secret", "Python pybit", "session = HTTP(testnet=False, api_key=\"%s\", api_secret=\"%s\")" % (k, m(s)))
    k, s = rs(18), rs(36)
    S("bybit api secret", ".env", "BYBIT_API_KEY=%s\nBYBIT_API_SECRET=%s" % (k, m(s)))
    k, s, p = rhex(24), uuid4(), password()
    S("kucoin api secret", "YAML", "kucoin:\n  key: %s\n  secret: %s\n  passphrase: %s" % (k, m(s), m(p)))
    k, s = rhex(32), rhex(64)
    S("gate.io api secret", "Go", "client := gateapi.NewAPIClient(gateapi.NewConfiguration())\nctx := context.WithValue(context.Background(), gateapi.ContextGateAPIV4, gateapi.GateAPIV4{\n\tKey:    \"%s\",\n\tSecret: \"%s\",\n})" % (k, m(s)))
    k, s, p = "bg_" + rhex(32), rhex(64), password()
    S("bitget api secret", "TOML", "[bitget]\naccess_key = \"%s\"\nsecret_key = \"%s\"\npassphrase = \"%s\"" % (k, m(s), m(p)))
    name = "organizations/%s/apiKeys/%s" % (uuid4(), uuid4())
    S("coinbase cdp key", "JSON key file", "{\n  \"name\": \"%s\",\n  \"privateKey\": \"%s\"\n}" % (name, pem("EC PRIVATE KEY", 121).replace("\n", "\\n")))
    k, s = uuid4(), "SAND_API_KEY:" + rhex(32) + ":" + rhex(32)
    S("circle api key", "curl", "curl -s https://api-sandbox.circle.example/v1/wallets -H \"Authorization: Bearer %s\"" % ("SAND_API_KEY:" + m(s[13:])))
    S("infura key in url", "JavaScript", "const provider = new ethers.JsonRpcProvider('https://mainnet.infura.io/v3/%s');" % m(rhex(32)))
    S("infura key in url", "wss in YAML", "rpc:\n  ws: wss://polygon-mainnet.infura.io/ws/v3/%s" % m(rhex(32)))
    S("alchemy key in url", ".env", "ALCHEMY_URL=https://eth-mainnet.g.alchemy.com/v2/%s" % m(rs(32, ALNUM + "_-")))
    S("alchemy key in url", "chat (pl)", "użyj mojego RPC: https://base-mainnet.g.alchemy.com/v2/%s dopóki nie założysz swojego" % m(rs(32, ALNUM + "_-")))
    S("quicknode url", "foundry.toml", "[rpc_endpoints]\narbitrum = \"https://%s.arbitrum-mainnet.quiknode.pro/%s/\"" % (pick(["little-silent-pond", "bold-winter-field", "damp-old-river"]), m(rhex(40))))
    S("helius key in url", "Rust", "let rpc = RpcClient::new(\"https://mainnet.helius-rpc.com/?api-key=%s\".to_string());" % m(uuid4()))
    S("ankr key in url", "Bash", "curl -s -X POST https://rpc.ankr.com/eth/%s -H 'content-type: application/json' -d '{\"jsonrpc\":\"2.0\",\"method\":\"eth_blockNumber\",\"params\":[],\"id\":1}'" % m(rhex(64)))
    S("etherscan api key", "URL", "https://api.etherscan.io/api?module=account&action=tokentx&address=%s&apikey=%s" % (evm_addr(), m(rs(34, UP + DIG))))
    S("nowpayments api key", "PHP", "$ch = curl_init('https://api.nowpayments.example/v1/invoice');\ncurl_setopt($ch, CURLOPT_HTTPHEADER, ['x-api-key: %s', 'Content-Type: application/json']);" % m("-".join(rs(7, UP + DIG) for _ in range(4))))


def gen_db_auth():
    S("database url", ".env", "DATABASE_URL=postgres://%s:%s@%s:5432/escrow?sslmode=require" % (user(), m(url_safe_pw()), host()))
    S("database url", "Python SQLAlchemy", "engine = create_engine(\"mysql+pymysql://%s:%s@%s/shop\")" % (user(), m(url_safe_pw()), ip()))
    S("database url", "mongodb+srv in JS", "await mongoose.connect('mongodb+srv://%s:%s@cluster0.ab12c.mongodb.example/orders?retryWrites=true');" % (user(), m(url_safe_pw())))
    S("redis url", "YAML", "cache:\n  url: redis://default:%s@%s:6379/0" % (m(rs(32)), ip()))
    S("amqp url", "Go", "conn, err := amqp.Dial(\"amqp://%s:%s@%s:5672/\")" % (user(), m(url_safe_pw()), host()))
    S("jdbc password", "Spring properties", "spring.datasource.url=jdbc:postgresql://%s:5432/ledger\nspring.datasource.username=%s\nspring.datasource.password=%s" % (host(), user(), m(password())))
    S("jdbc password", "JDBC URL", "jdbc:sqlserver://%s:1433;databaseName=payments;user=%s;password=%s;encrypt=true" % (ip(), user(), m(url_safe_pw())))
    S("ado.net password", "appsettings.json", "{\n  \"ConnectionStrings\": {\n    \"Default\": \"Server=%s;Database=Escrow;User Id=%s;Password=%s;TrustServerCertificate=True\"\n  }\n}" % (ip(), user(), m(url_safe_pw())))
    S("go mysql dsn", "Go", "db, err := sql.Open(\"mysql\", \"%s:%s@tcp(%s:3306)/orders?parseTime=true\")" % (user(), m(url_safe_pw()), ip()))
    S("database password", "psql session", "$ PGPASSWORD='%s' psql -h %s -U %s -d escrow -c 'select count(*) from orders'" % (m(password()), ip(), user()))
    S("database password", "mysql CLI", "mysql -h %s -u root -p%s shop < dump.sql" % (ip(), m(url_safe_pw())))
    S("database password", "mysqldump cron", "30 2 * * * mysqldump --user=backup --password=%s --all-databases | gzip > /backups/db.sql.gz" % m(url_safe_pw()))
    S("redis password", "redis-cli", "$ redis-cli -h %s -p 6379 -a %s --no-auth-warning KEYS 'session:*'" % (ip(), m(rs(24))))
    S("database password", ".pgpass", "%s:5432:escrow:%s:%s" % (host(), user(), m(url_safe_pw())))
    S("database password", "SQL CREATE USER", "CREATE USER reporting WITH PASSWORD '%s';\nGRANT SELECT ON ALL TABLES IN SCHEMA public TO reporting;" % m(password()))
    S("database password", "SQL ALTER USER", "ALTER USER 'app'@'%%' IDENTIFIED BY '%s';\nFLUSH PRIVILEGES;" % m(password()))
    S("database password", "docker-compose", "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: escrow\n      POSTGRES_PASSWORD: %s" % m(password()))
    S("database password", "wp-config.php", "define( 'DB_NAME', 'shop' );\ndefine( 'DB_USER', 'shop_user' );\ndefine( 'DB_PASSWORD', '%s' );\ndefine( 'DB_HOST', 'localhost' );" % m(password()))
    S("database password", "stack trace", "sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at \"%s\", port 5432 failed: FATAL:  password authentication failed for user \"app\"\n(Background on this error at: https://sqlalche.me/e/20/e3q8)\n[SQL: connect] [parameters: {'host': '%s', 'user': 'app', 'password': '%s'}]" % (ip(), ip(), m(password())))
    # basic auth and URLs
    S("basic auth url", "git remote", "$ git remote -v\norigin\thttps://%s:%s@git.example.com/shop/escrow-bot.git (fetch)" % (user(), m(url_safe_pw())))
    S("github token in url", "git clone", "git clone https://x-access-token:%s@github.com/example-org/private-repo.git" % m(gh_token("ghs_")))
    S("basic auth", "curl -u", "curl -u %s:%s https://%s/api/v1/payouts" % (user(), m(url_safe_pw()), host()))
    S("basic auth", "wget", "wget --user=%s --password='%s' https://%s/exports/orders.csv" % (user(), m(password()), host()))
    S("basic auth", "httpie", "http -a %s:%s POST https://%s/api/refunds order_id=ORD-88213" % (user(), m(url_safe_pw()), host()))
    S("basic auth header", "raw HTTP", "POST /api/v2/settle HTTP/1.1\nHost: %s\nAuthorization: Basic %s\nContent-Type: application/json" % (host(), m(b64(("%s:%s" % (user(), password())).encode()))))
    S("basic auth header", "Python requests", "r = requests.get(url, headers={\"Authorization\": \"Basic %s\"})" % m(b64(("api:%s" % rs(20)).encode())))
    S("basic auth url", "nginx proxy_pass", "location /metrics/ {\n    proxy_pass http://%s:9090/;\n    proxy_set_header Authorization \"Basic %s\";\n}" % (ip(), m(b64(("prom:%s" % password()).encode()))))
    S("basic auth url", "prose (nl)", "de staging staat op https://tester:%s@staging.example.net, log daar in" % m(url_safe_pw()))
    S(".netrc password", ".netrc", "machine api.example.com\n  login %s\n  password %s" % (user(), m(password())))
    # headers of many schemes
    S("bearer token", "curl", "curl -H \"Authorization: Bearer %s\" https://%s/v1/orders?status=disputed" % (m(rs(40, ALNUM + "-_.")), host()))
    S("jwt", "Authorization header in log", "2026-11-25T10:02:11Z access method=GET path=/api/me status=200 auth=\"Bearer %s\"" % m(jwt({"sub": rs(8, DIG), "role": "seller", "exp": 1764000000})))
    S("discord bot token", "Authorization Bot", "curl -H \"Authorization: Bot %s\" https://discord.com/api/v10/users/@me" % m(discord_bot()))
    S("api token", "Authorization Token", "Authorization: Token %s" % m(rhex(40)))
    S("okta api token", "Authorization SSWS", "GET /api/v1/users?limit=25\nAuthorization: SSWS %s" % m("00" + rs(40, ALNUM + "-_")))
    S("splunk hec token", "Authorization Splunk", "curl -k https://%s:8088/services/collector -H 'Authorization: Splunk %s' -d '{\"event\":\"payout\"}'" % (ip(), m(uuid4())))
    S("api key header", "X-API-Key", "http GET https://%s/v1/rates X-API-Key:%s" % (host(), m(rs(32))))
    S("api key header", "Api-Key scheme", "fetch(url, { headers: { Authorization: `Api-Key %s` } })" % m(rs(40)))
    S("google api key in url", "URL key=", "https://maps.googleapis.com/maps/api/geocode/json?address=Lagos&key=%s" % m("AIza" + rs(35, ALNUM + "-_")))
    S("api key", "PowerShell Invoke-RestMethod", "Invoke-RestMethod -Uri https://%s/v1/payouts -Headers @{ 'x-api-key' = '%s' } -Method Get" % (host(), m(rs(36))))
    # cookies
    S("session cookie", "curl -b", "curl -b 'sessionid=%s; csrftoken=%s' https://%s/admin/" % (m(rs(32, LOW + DIG)), rs(32), host()))
    S("session cookie", "Cookie header", "Cookie: connect.sid=s%%3A%s.%s; theme=dark" % (m(rs(32, ALNUM + "-_")), m(rs(43, ALNUM + "+/"))))
    S("session cookie", "browser devtools paste", "Cookie: __Secure-next-auth.session-token=%s; __Host-next-auth.csrf-token=%s" % (m(rs(220, ALNUM + "-_.")), rhex(64) + "%7C" + rhex(64)))
    S("session cookie", "laravel", "Set-Cookie: laravel_session=%s; expires=Sat, 29 Nov 2026 12:00:00 GMT; path=/; httponly" % m(b64(rbytes(180)).replace("=", "%3D")))
    S("session cookie", "chat (it)", "se il login non va, usa il mio cookie di sessione: PHPSESSID=%s" % m(rs(26, LOW + DIG)))
    S("jwt", "localStorage dump", "localStorage.setItem('access_token', '%s')" % m(jwt({"sub": uuid4(), "email": "buyer@example.com", "iat": 1764150000})))
    S("refresh token", "JSON response", "{\"access_token\":\"%s\",\"token_type\":\"bearer\",\"expires_in\":3600,\"refresh_token\":\"%s\"}" % (m(jwt({"sub": "u_" + rs(10), "scope": "payouts"})), m(rs(64, ALNUM + "-_"))))
    S("oauth client secret", "Google client_secret.json", "{\"web\":{\"client_id\":\"%s-%s.apps.googleusercontent.com\",\"project_id\":\"escrow-login\",\"client_secret\":\"%s\",\"redirect_uris\":[\"https://app.example.com/cb\"]}}" % (rs(12, DIG), rs(32, LOW + DIG), m("GOCSPX-" + rs(28, ALNUM + "-_"))))
    S("oauth client secret", "Kotlin Spring", "spring.security.oauth2.client.registration.github.client-id=Iv1.%s\nspring.security.oauth2.client.registration.github.client-secret=%s" % (rhex(16), m(rhex(40))))


def gen_keys_tools():
    S("rsa private key", "PEM in chat", "here's the deploy key for the repo:\n" + pem("RSA PRIVATE KEY", 1190))
    S("openssh private key", "PEM", pem("OPENSSH PRIVATE KEY", 400))
    S("ec private key", "PEM in YAML", "tls:\n  key: |\n" + "\n".join("    " + l for l in pem("EC PRIVATE KEY", 121).split("\n")))
    S("pkcs8 private key", "PEM in JSON string", "{\"signing_key\": \"%s\"}" % pem("PRIVATE KEY", 1218).replace("\n", "\\n"))
    S("pgp private key", "armored block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n%s\n=%s\n-----END PGP PRIVATE KEY BLOCK-----" % ("\n".join(m(l) for l in pem_body(600)), rs(4, B64)))
    S("encrypted private key", "PEM with passphrase in chat", pem("ENCRYPTED PRIVATE KEY", 1300) + "\npassphrase: %s" % m(password()))
    # GCP service account
    pk = pem("PRIVATE KEY", 1218).replace("\n", "\\n")
    S("gcp service account key", "JSON key file", "{\n  \"type\": \"service_account\",\n  \"project_id\": \"escrow-prod-%s\",\n  \"private_key_id\": \"%s\",\n  \"private_key\": \"%s\\n\",\n  \"client_email\": \"deployer@escrow-prod.iam.gserviceaccount.com\",\n  \"client_id\": \"%s\"\n}" % (rs(6, DIG), rhex(40), pk, rs(21, DIG)))
    # kubeconfig
    S("kubernetes token", "kubeconfig", "users:\n- name: ci\n  user:\n    token: %s" % m(jwt({"iss": "kubernetes/serviceaccount", "sub": "system:serviceaccount:ci:deployer"}, "RS256")))
    S("kubernetes client key", "kubeconfig client-key-data", "users:\n- name: admin\n  user:\n    client-certificate-data: %s\n    client-key-data: %s" % (b64(b"-----BEGIN CERTIFICATE-----\n" + rbytes(60)), m(b64(b"-----BEGIN RSA PRIVATE KEY-----\n" + rbytes(300)))))
    S("kubectl credentials", "kubectl", "kubectl config set-credentials ci-bot --token=%s" % m(rs(64, ALNUM)))
    S("kubectl secret", "kubectl create secret", "kubectl -n shop create secret generic db --from-literal=username=shop --from-literal=password='%s'" % m(password()))
    S("azure password", "az login", "az login --service-principal -u %s -p %s --tenant %s" % (uuid4(), m(azure_client_secret()), uuid4()))
    S("azure storage key", "connection string", "DefaultEndpointsProtocol=https;AccountName=escrowfiles;AccountKey=%s;EndpointSuffix=core.windows.net" % m(b64(rbytes(64))))
    S("azure sas token", "URL", "https://escrowfiles.blob.core.windows.net/exports/orders.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&spr=https&sig=%s" % m(b64(rbytes(32)).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")))
    S("aws secret access key", "aws configure session", "$ aws configure\nAWS Access Key ID [None]: %s\nAWS Secret Access Key [None]: %s\nDefault region name [None]: eu-central-1" % (aws_id(), m(aws_secret())))
    S("aws secret access key", "~/.aws/credentials", "[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n\n[prod]\naws_access_key_id = %s\naws_secret_access_key = %s" % (aws_id(), m(aws_secret()), aws_id(), m(aws_secret())))
    S("aws secret access key", "boto3", "s3 = boto3.client('s3', aws_access_key_id='%s', aws_secret_access_key='%s', region_name='us-east-1')" % (aws_id(), m(aws_secret())))
    S("docker registry password", "docker login", "echo '%s' | docker login registry.example.com -u %s --password-stdin" % (m(password()), user()))
    S("docker registry password", "docker login -p", "docker login -u escrowdev -p %s" % m("dckr_pat_" + rs(27, ALNUM + "-_")))
    S("docker config auth", "config.json", "{\n  \"auths\": {\n    \"registry.example.com\": { \"auth\": \"%s\" }\n  }\n}" % m(b64(("ci:%s" % rs(24)).encode())))
    S("npm token", ".npmrc", "@example:registry=https://npm.example.com/\n//registry.npmjs.org/:_authToken=%s" % m("npm_" + rs(36)))
    S("npm token", "npm config set", "npm config set //registry.npmjs.org/:_authToken %s" % m("npm_" + rs(36)))
    S("pypi token", ".pypirc", "[pypi]\nusername = __token__\npassword = %s" % m(pypi_token()))
    S("pip index url", "pip.conf", "[global]\nindex-url = https://%s:%s@pypi.example.com/simple/" % (user(), m(url_safe_pw())))
    S("github token", "gh auth login", "echo %s | gh auth login --with-token" % m(gh_token("ghp_")))
    S("gitlab runner token", "register", "gitlab-runner register --url https://gitlab.example.com --registration-token %s --executor docker" % m("glrt-" + rs(20, ALNUM + "_-")))
    S("gcloud password", "gcloud sql", "gcloud sql users set-password postgres --instance=escrow-db --password=%s" % m(password()))
    S("vault token", "vault login", "$ vault login %s\nSuccess! You are now authenticated." % m("hvs." + rs(24)))
    S("wireguard private key", "wg0.conf", "[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = %s\nDNS = 1.1.1.1\n\n[Peer]\nPublicKey = %s\nEndpoint = %s:51820" % (m(b64(rbytes(32))), b64(rbytes(32)), ip()))
    S("totp seed", "otpauth URI", "otpauth://totp/Escrow:seller@example.com?secret=%s&issuer=Escrow" % m(rs(32, B32)))
    S("totp seed", "chat (uk)", "секрет для 2FA (якщо треба додати в свій Authenticator): %s" % m(" ".join(rs(4, B32) for _ in range(8))))
    S("ansible become password", "inventory", "[web]\n%s ansible_user=deploy ansible_password=%s ansible_become_pass=%s" % (ip(), m(password()), m(password())))
    S("smtp password", "Spring YAML", "spring:\n  mail:\n    host: smtp.example.com\n    username: noreply@example.com\n    password: %s" % m(password()))
    S("gmail app password", "chat (en)", "use the gmail app password for the SMTP relay: %s" % m(" ".join(rs(4, LOW) for _ in range(4))))
    S("gmail app password", "PHPMailer", "$mail->Username = 'shop.notify@gmail.example';\n$mail->Password = '%s';\n$mail->SMTPSecure = PHPMailer::ENCRYPTION_STARTTLS;" % m(rs(16, LOW)))
    S("smtp password", "Django settings", "EMAIL_HOST = 'smtp.example.com'\nEMAIL_HOST_USER = 'apikey'\nEMAIL_HOST_PASSWORD = '%s'" % m(sendgrid()))
    S("slack webhook", "Bash", "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"payout sent\"}' https://hooks.slack.com/services/T%s/B%s/%s" % (rs(10, UP + DIG), rs(10, UP + DIG), m(rs(24))))
    S("discord webhook", "Python", "WEBHOOK = \"https://discord.com/api/webhooks/%s/%s\"" % (rs(19, DIG), m(rs(68, ALNUM + "-_"))))
    S("telegram bot token", "URL", "https://api.telegram.org/bot%s/sendMessage?chat_id=-100%s&text=paid" % (m(telegram_bot()), rs(10, DIG)))
    S("sentry dsn secret", "legacy DSN", "SENTRY_DSN=https://%s:%s@o%s.ingest.sentry.io/%s" % (rhex(32), m(rhex(32)), rs(6, DIG), rs(7, DIG)))
    S("openai api key", "Python SDK", "client = OpenAI(api_key=\"%s\")" % m(openai_key()))
    S("anthropic api key", "TypeScript SDK", "const anthropic = new Anthropic({ apiKey: '%s' });" % m(anthropic_key()))
    S("stripe secret key", "Ruby", "Stripe.api_key = '%s'" % m("sk_live_" + rs(24)))
    S("stripe secret key", "curl -u", "curl https://api.stripe.com/v1/charges -u %s: -d amount=2000 -d currency=usd" % m("sk_live_51" + rs(97)))
    S("jwt secret", "Node", "const token = jwt.sign({ uid }, '%s', { expiresIn: '7d' });" % m(rs(32, ALNUM + "!$%")))
    S("flask secret key", "Python", "app.config['SECRET_KEY'] = '%s'" % m(rhex(48)))
    S("api key", "notebook output", "{\"cell_type\": \"code\", \"source\": [\"%%env COHERE_API_KEY=%s\"], \"outputs\": [{\"name\": \"stdout\", \"text\": [\"env: COHERE_API_KEY=%s\\n\"]}]}" % ((lambda v: (m(v), m(v)))(rs(40))))
    S("apache basic auth", "Apache ProxyPass", "<Location /upstream>\n  RequestHeader set Authorization \"Basic %s\"\n  ProxyPass http://%s:8080/\n</Location>" % (m(b64(("svc:%s" % password()).encode())), ip()))
    S("bearer token", "HCL provider", "provider \"cloudflare\" {\n  api_token = \"%s\"\n}" % m(rs(40, ALNUM + "_-")))
    S("github token", "forwarded mail", "---------- Forwarded message ---------\nFrom: Dev Ops <ops@example.com>\nDate: Tue, 25 Nov 2026 09:12\nSubject: CI access\n\nHi, the token for the release workflow is %s - it expires in 30 days.\n\nThanks" % m(gh_token("ghp_")))
    S("bearer token", "ticket", "TICKET-4412 [P2] Payout webhook failing\nSteps: POST /hooks/payout with header Authorization: Bearer %s -> 401 since deploy 1.8.2\nExpected: 200" % m(rs(48, ALNUM)))
    S("api key", "CSV export", "service,key,owner\nrates,%s,finance\ngeo,%s,ops" % (m(rs(32)), m("AIza" + rs(35, ALNUM + "-_"))))
    S("api key", "spreadsheet paste", "Service\tUser\tKey\tNotes\nMailgun\tpostmaster\t%s\tprod\nPostmark\t-\t%s\tserver token" % (m(rhex(32) + "-" + rhex(8) + "-" + rhex(8)), m(uuid4())))


def gen_passwords():
    for lang in LANGS:
        S("password", "chat (%s)" % lang, pick(PW_PROSE[lang]).format(v=m(password())))
    S("password", "sticky note screenshot", "The photo shows a yellow sticky note on the monitor: \"wifi: Office-5G / %s\" and under it \"server: %s\"" % (m(password()), m(password())))
    S("password", "dispute statement", "I'm attaching proof that I delivered: I sent the panel login (user seller_77, password %s) on the 12th, and the buyer logged in from 203.0.113.9 the same day." % m(password()))
    S("password", "value after a dash", "root pw - %s - change it on first login" % m(password()))
    S("password", "value in parentheses", "SSH is open on 198.51.100.23 (user ubuntu, pass: %s)" % m(password()))
    S("password", "Q&A", "Q: do I need a password for the admin?\nA: yes — it's %s, and the 2FA is disabled for now" % m(password()))
    S("password", "review text", "Great seller. Small thing: he put the DB password (%s) in the README, I removed it." % m(password()))
    S("password", "offer note", "Offer includes access to my VPS (%s, login: deploy, pwd %s) for 7 days." % (ip(), m(password())))
    S("password", "shell history", "  512  sshpass -p '%s' ssh root@%s\n  513  htop" % (m(password()), ip()))
    S("password", "router config", "interface admin\n username admin privilege 15 secret 0 %s" % m(password()))
    S("password", "Jenkins groovy", "def creds = new UsernamePasswordCredentialsImpl(CredentialsScope.GLOBAL, 'nexus', 'Nexus', 'deploy', '%s')" % m(password()))
    S("password", "typo label", "passwrod for the ftp: %s" % m(password()))
    S("password", "ftp URL", "ftp://%s:%s@%s/uploads/" % (user(), m(url_safe_pw()), ip()))
    S("password", "phpMyAdmin config", "$cfg['Servers'][$i]['user'] = 'root';\n$cfg['Servers'][$i]['password'] = '%s';" % m(password()))
    S("password", "Swift", "let credential = URLCredential(user: \"ops\", password: \"%s\", persistence: .forSession)" % m(password()))
    S("password", "C# NetworkCredential", "var client = new SmtpClient(\"smtp.example.com\", 587) { Credentials = new NetworkCredential(\"bot@example.com\", \"%s\") };" % m(password()))
    S("password", "Rust", "let pool = PgPoolOptions::new().connect_with(PgConnectOptions::new().host(\"%s\").username(\"app\").password(\"%s\")).await?;" % (ip(), m(password())))
    S("password", "XML", "<connection>\n  <host>%s</host>\n  <user>svc</user>\n  <password>%s</password>\n</connection>" % (ip(), m(password())))
    S("password", "Java", "props.put(\"mail.smtp.password\", \"%s\");" % m(password()))
    S("password", "Bash sshpass in script", "#!/bin/bash\nsshpass -p \"%s\" rsync -az ./dist/ deploy@%s:/var/www/" % (m(password()), ip()))
    S("password", "PowerShell", "$sec = ConvertTo-SecureString '%s' -AsPlainText -Force\n$cred = New-Object System.Management.Automation.PSCredential('CORP\\svc-backup', $sec)" % m(password()))
    S("password", "nginx htpasswd generation", "$ htpasswd -b -c /etc/nginx/.htpasswd admin %s\nAdding password for user admin" % m(password()))
    S("password", "mail (de)", "Von: Support <support@example.de>\nBetreff: Zugang\n\nHallo, Ihr vorläufiges Passwort lautet: %s\nBitte nach der ersten Anmeldung ändern." % m(password()))
    S("password", "Markdown table", "| System | User | Passwort |\n|---|---|---|\n| Grafana | admin | %s |\n| MinIO | minio | %s |" % (m(password()), m(password())))


# --- look-alikes -----------------------------------------------------------------------------

TX_PROSE = {
    "en": "paid 250 USDC, tx hash {v} — should show up on Polygonscan in a minute",
    "es": "ya pagué 120 USDT, el hash de la transacción es {v}",
    "pt": "pagamento enviado, hash da transação: {v}",
    "de": "Zahlung ist raus, Transaktions-Hash: {v}",
    "fr": "paiement envoyé, hash de transaction : {v}",
    "it": "pagato, ecco l'hash della transazione: {v}",
    "nl": "betaald, transactiehash: {v}",
    "pl": "zapłacone, hash transakcji: {v}",
    "ru": "оплатил, хэш транзакции: {v}",
    "uk": "оплату надіслано, хеш транзакції: {v}",
    "tr": "ödemeyi yaptım, işlem hash'i: {v}",
    "ar": "تم الدفع، هاش المعاملة: {v}",
    "he": "שילמתי, האש של העסקה: {v}",
    "hi": "पेमेंट कर दिया, ट्रांजैक्शन हैश: {v}",
    "bn": "পেমেন্ট পাঠিয়েছি, ট্রানজ্যাকশন হ্যাশ: {v}",
    "zh": "已付款，交易哈希：{v}",
    "ja": "支払い済みです。トランザクションハッシュ：{v}",
    "ko": "결제 완료, 트랜잭션 해시: {v}",
    "vi": "đã thanh toán, mã giao dịch (tx hash): {v}",
    "th": "โอนแล้ว แฮชธุรกรรม: {v}",
    "id": "sudah bayar, hash transaksinya: {v}",
    "sw": "nimelipa, hashi ya muamala ni {v}",
}

ADDR_PROSE = {
    "en": "send the USDC to my address {v} (Base network please)",
    "es": "mi dirección para recibir USDT: {v}",
    "pt": "meu endereço da carteira: {v}",
    "de": "meine Wallet-Adresse: {v}",
    "fr": "mon adresse de réception : {v}",
    "it": "il mio indirizzo: {v}",
    "nl": "mijn walletadres: {v}",
    "pl": "mój adres portfela: {v}",
    "ru": "мой адрес для оплаты: {v}",
    "uk": "моя адреса гаманця: {v}",
    "tr": "cüzdan adresim: {v}",
    "ar": "عنوان محفظتي: {v}",
    "he": "כתובת הארנק שלי: {v}",
    "hi": "मेरा वॉलेट पता: {v}",
    "bn": "আমার ওয়ালেট ঠিকানা: {v}",
    "zh": "我的收款地址：{v}",
    "ja": "受取アドレス：{v}",
    "ko": "제 지갑 주소: {v}",
    "vi": "địa chỉ ví của mình: {v}",
    "th": "ที่อยู่กระเป๋าของฉัน: {v}",
    "id": "alamat dompet saya: {v}",
    "sw": "anwani ya pochi yangu ni {v}",
}

ABOUT_PROSE = {
    "en": ["Never share your seed phrase or private key with anyone, including support or the seller.",
           "I'll send the API key through the platform's secret vault once the escrow is funded, not in chat.",
           "The password must be at least 12 characters; the script rejects anything shorter."],
    "es": ["Nunca compartas tu frase semilla ni tu clave privada, ni siquiera con soporte.",
           "La contraseña se guarda como hash bcrypt, nunca en texto plano."],
    "pt": ["Nunca envie sua frase de recuperação para ninguém.", "A chave da API fica no cofre de segredos, não no código."],
    "de": ["Gib niemals deine Seed-Phrase oder deinen privaten Schlüssel weiter.", "Das Passwort wird nur als Argon2-Hash gespeichert."],
    "fr": ["Ne communiquez jamais votre phrase de récupération ni votre clé privée.", "Le mot de passe doit être changé tous les 90 jours."],
    "it": ["Non condividere mai la tua frase di recupero.", "La chiave privata resta sul dispositivo hardware, io non la vedo mai."],
    "nl": ["Deel nooit je herstelzin of privésleutel.", "Het wachtwoord staat in 1Password, ik deel de kluis met je."],
    "pl": ["Nigdy nie udostępniaj frazy odzyskiwania.", "Klucz API dodaj sam w panelu, ja go nie potrzebuję."],
    "ru": ["Никогда никому не отправляйте сид-фразу и приватный ключ.", "Пароль хранится только в виде хэша, восстановить его нельзя."],
    "uk": ["Ніколи не надсилайте нікому сід-фразу.", "Ключ API зберігається у Vault, у коді його немає."],
    "tr": ["Kurtarma ifadenizi asla kimseyle paylaşmayın.", "Şifre en az 12 karakter olmalı."],
    "ar": ["لا تشارك عبارة الاسترداد أو المفتاح الخاص مع أي شخص.", "كلمة المرور محفوظة كتجزئة فقط."],
    "he": ["לעולם אל תשתף את משפט השחזור או את המפתח הפרטי.", "הסיסמה נשמרת רק כגיבוב."],
    "hi": ["अपना सीड फ्रेज़ या प्राइवेट की कभी किसी से शेयर न करें।", "पासवर्ड कम से कम 12 अक्षर का होना चाहिए।"],
    "bn": ["আপনার সিড ফ্রেজ বা প্রাইভেট কী কখনো কাউকে দেবেন না।", "পাসওয়ার্ড শুধু হ্যাশ হিসেবে রাখা হয়।"],
    "zh": ["请勿向任何人透露助记词或私钥。", "密码只以哈希形式保存，客服也看不到。"],
    "ja": ["シードフレーズや秘密鍵は誰にも教えないでください。", "パスワードはハッシュ化して保存しています。"],
    "ko": ["시드 문구나 개인키는 절대 공유하지 마세요.", "API 키는 환경 변수로 넣어 주세요."],
    "vi": ["Đừng bao giờ chia sẻ cụm từ khôi phục hay khóa riêng.", "Mật khẩu được lưu dưới dạng băm."],
    "th": ["อย่าแชร์วลีกู้คืนหรือคีย์ส่วนตัวให้ใคร", "รหัสผ่านถูกเก็บเป็นแฮชเท่านั้น"],
    "id": ["Jangan pernah membagikan frasa pemulihan atau kunci privat.", "API key disimpan di secret manager, bukan di repo."],
    "sw": ["Usishiriki kamwe maneno yako ya kurejesha pochi.", "Nenosiri huhifadhiwa kama hashi tu."],
}


def bcrypt_hash():
    return "$2b$12$" + rs(53, UP + LOW + DIG + "./")


def argon2_hash():
    return "$argon2id$v=19$m=65536,t=3,p=4$%s$%s" % (b64(rbytes(16)).rstrip("="), b64(rbytes(32)).rstrip("="))


def gen_lookalikes():
    for lang in LANGS:
        L("transaction hash", "chat (%s)" % lang, TX_PROSE[lang].format(v="0x" + rhex(64)))
    for lang in LANGS:
        v = pick([evm_addr(), evm_addr(), sol_addr(), tron_addr(), bech32_addr()])
        L("address", "chat (%s)" % lang, ADDR_PROSE[lang].format(v=v))
    for lang in LANGS:
        for t in ABOUT_PROSE[lang]:
            L("prose about secrets", "chat (%s)" % lang, t)
    # hashes in context
    L("block hash", "receipt JSON", "{\"blockHash\":\"0x%s\",\"blockNumber\":\"0x%s\",\"transactionHash\":\"0x%s\",\"status\":\"0x1\",\"gasUsed\":\"0x%s\"}" % (rhex(64), rhex(7), rhex(64), rhex(5)))
    L("event topics", "log JSON", "{\"address\":\"%s\",\"topics\":[\"0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef\",\"0x000000000000000000000000%s\",\"0x000000000000000000000000%s\"],\"data\":\"0x%s\"}" % (evm_addr(), rhex(40), rhex(40), rhex(64)))
    L("storage slot", "Solidity", "// EIP-1967 implementation slot\nbytes32 internal constant _IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;")
    L("role constant", "Solidity", "bytes32 public constant MINTER_ROLE = keccak256(\"MINTER_ROLE\");\n// = 0x%s" % keccak256(b"MINTER_ROLE").hex())
    L("signature", "JSON", "{\"signer\":\"%s\",\"signature\":\"0x%s1b\",\"nonce\":%d}" % (evm_addr(), rhex(128), R.randrange(1000)))
    L("r s v", "Python output", ">>> signed.r, signed.s, signed.v\n(0x%s, 0x%s, 28)" % (rhex(64), rhex(64)))
    L("calldata", "Etherscan input data", "Input Data: 0xa9059cbb000000000000000000000000%s%s" % (rhex(40), "%064x" % (R.randrange(10 ** 6, 10 ** 9))))
    L("create2 salt", "TypeScript", "const salt = '0x%s'; // keccak of order id\nconst predicted = getCreate2Address(factory, salt, initCodeHash);" % rhex(64))
    L("vrf key hash", "Solidity", "bytes32 keyHash = 0x%s; // 500 gwei lane" % rhex(64))
    L("safe tx hash", "chat", "Safe tx hash 0x%s needs one more signature from the buyer's owner key (on your Ledger)." % rhex(64))
    L("bitcoin txid", "chat", "BTC sent, txid %s, 2 confirmations so far" % rhex(64))
    L("solana signature", "explorer link", "https://solscan.io/tx/%s" % b58(rbytes(64)))
    L("solana blockhash", "RPC output", "{\"context\":{\"slot\":%d},\"value\":{\"blockhash\":\"%s\",\"lastValidBlockHeight\":%d}}" % (R.randrange(10 ** 8, 3 * 10 ** 8), b58(rbytes(32)), R.randrange(10 ** 8, 3 * 10 ** 8)))
    L("solana pubkey", "Anchor.toml", "[programs.devnet]\nescrow = \"%s\"\n\n[provider]\ncluster = \"devnet\"\nwallet = \"~/.config/solana/id.json\"" % sol_addr())
    L("xpub", "watch-only wallet", "Watch-only: imported %s into Sparrow, derivation m/84'/0'/0'" % xkey("zpub"))
    L("xpub", "descriptor", "wpkh([%s/84h/0h/0h]%s/0/*)#%s" % (rhex(8), xkey("xpub"), rs(8, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")))
    L("tpub", "Bitcoin Core", "bitcoin-cli importdescriptors '[{\"desc\":\"wpkh(%s/1/*)\",\"timestamp\":\"now\",\"watchonly\":true}]'" % xkey("tpub"))
    L("public key", "compressed secp256k1", "Signer public key (compressed): 0x%s" % spub_comp(evm_key_int()).hex())
    L("public key", "uncompressed secp256k1", "pubkey: 04%s" % "".join("%064x" % c for c in spub(evm_key_int())))
    L("ssh public key", "authorized_keys", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI%s deploy@ci" % b64(rbytes(32))[:43])
    L("ssh public key", "authorized_keys rsa", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ%s buyer@laptop" % rs(540, B64))
    L("fingerprint", "ssh-keygen", "$ ssh-keygen -lf ~/.ssh/id_ed25519.pub\n256 SHA256:%s seller@mbp (ED25519)" % b64(rbytes(32)).rstrip("="))
    L("known_hosts", "file", "|1|%s|%s ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB%s" % (b64(rbytes(20)), b64(rbytes(20)), rs(86, B64) + "="))
    L("certificate", "PEM certificate", "-----BEGIN CERTIFICATE-----\n%s\n-----END CERTIFICATE-----" % "\n".join(pem_body(600)))
    L("public key", "PEM public key", "-----BEGIN PUBLIC KEY-----\n%s\n-----END PUBLIC KEY-----" % "\n".join(pem_body(91)))
    L("pgp public key", "armored", "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n%s\n=%s\n-----END PGP PUBLIC KEY BLOCK-----" % ("\n".join(pem_body(300)), rs(4, B64)))
    L("wireguard public key", "peer config", "[Peer]\nPublicKey = %s\nAllowedIPs = 10.8.0.0/24\nEndpoint = %s:51820" % (b64(rbytes(32)), ip()))
    L("jwks", "JSON", "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"%s\",\"use\":\"sig\",\"alg\":\"RS256\",\"n\":\"%s\",\"e\":\"AQAB\"}]}" % (rhex(16), b64u(rbytes(256))))
    L("sentry dsn without secret", "JS", "Sentry.init({ dsn: 'https://%s@o%s.ingest.sentry.io/%s', tracesSampleRate: 0.1 });" % (rhex(32), rs(6, DIG), rs(7, DIG)))
    # digests
    L("sha256sum", "release notes", "%s  axp-linux-amd64.tar.gz\n%s  axp-darwin-arm64.tar.gz" % (rhex(64), rhex(64)))
    L("git sha", "git log", "commit %s\nAuthor: Seller <seller@example.com>\nDate:   Wed Nov 26 18:02:11 2026 +0100\n\n    fix: retry payout on nonce too low" % rhex(40))
    L("git sha", "chat", "merged in %s, the fix for the decimals bug is in %s" % (rhex(40), rhex(7)))
    L("image digest", "k8s manifest", "containers:\n  - name: api\n    image: registry.example.com/shop/api@sha256:%s" % rhex(64))
    L("go.sum", "file", "github.com/ethereum/go-ethereum v1.14.11 h1:%s=\ngithub.com/ethereum/go-ethereum v1.14.11/go.mod h1:%s=" % (b64(rbytes(32))[:43], b64(rbytes(32))[:43]))
    L("npm integrity", "package-lock.json", "\"node_modules/ethers\": {\n  \"version\": \"6.13.4\",\n  \"resolved\": \"https://registry.npmjs.org/ethers/-/ethers-6.13.4.tgz\",\n  \"integrity\": \"sha512-%s\"\n}" % b64(rbytes(64)))
    L("SRI hash", "HTML", "<script src=\"https://cdn.example.com/lib.min.js\" integrity=\"sha384-%s\" crossorigin=\"anonymous\"></script>" % b64(rbytes(48)))
    L("cargo checksum", "Cargo.lock", "[[package]]\nname = \"alloy-primitives\"\nversion = \"0.8.12\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"%s\"" % rhex(64))
    L("ipfs cid", "chat", "deliverable uploaded: ipfs://bafybei%s" % rs(52, "abcdefghijklmnopqrstuvwxyz234567"))
    L("md5", "checksum table", "| file | md5 |\n|---|---|\n| report.pdf | %s |\n| data.csv | %s |" % (rhex(32), rhex(32)))
    # ids
    L("uuid", "order page", "Order %s — status: in escrow, 180.00 USDC, buyer id %s" % (uuid4(), uuid4()))
    L("ulid and trace", "log line", "2026-11-26T11:03:44Z INFO request_id=01J%s trace_id=%s span_id=%s status=200" % (rs(23, "0123456789ABCDEFGHJKMNPQRSTVWXYZ"), rhex(32), rhex(16)))
    L("stripe object ids", "webhook payload", "{\"id\":\"evt_%s\",\"type\":\"payment_intent.succeeded\",\"data\":{\"object\":{\"id\":\"pi_%s\",\"customer\":\"cus_%s\",\"latest_charge\":\"ch_%s\"}}}" % (rs(24), rs(24), rs(14), rs(24)))
    L("order ids", "CSV", "order_id,created,amount_usdc,status\nORD-%s,2026-11-20,120.00,released\nORD-%s,2026-11-21,75.50,disputed" % (rs(8, UP + DIG), rs(8, UP + DIG)))
    L("tracking number", "chat", "shipped the hardware wallet, tracking 1Z%s" % rs(16, UP + DIG))
    L("aws access key id alone", "IAM output", "{\"AccessKey\":{\"UserName\":\"ci\",\"AccessKeyId\":\"%s\",\"Status\":\"Active\",\"CreateDate\":\"2026-11-01T10:00:00Z\"}}" % aws_id())
    L("twilio sid alone", "log", "twilio: message queued sid=SM%s account=AC%s" % (rhex(32), rhex(32)))
    L("client id alone", "OAuth URL", "https://accounts.google.com/o/oauth2/v2/auth?client_id=%s-%s.apps.googleusercontent.com&redirect_uri=https%%3A%%2F%%2Fapp.example.com%%2Fcb&response_type=code&scope=openid%%20email" % (rs(12, DIG), rs(32, LOW + DIG)))
    # publishable and public keys
    L("stripe publishable key", "HTML", "<script>const stripe = Stripe('pk_live_51%s');</script>" % rs(97))
    L("stripe publishable key", ".env", "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_test_51%s" % rs(97))
    L("recaptcha site key", "HTML", "<div class=\"g-recaptcha\" data-sitekey=\"6L%s\"></div>" % rs(38, ALNUM + "-_"))
    L("algolia search-only key", "JS", "const client = algoliasearch('%s', '%s'); // search-only key, safe in the browser" % (rs(10, UP + DIG), rhex(32)))
    L("mapbox public token", "JS", "mapboxgl.accessToken = 'pk.%s.%s';" % (b64u(json.dumps({"u": "shopgeo", "a": rs(25, LOW + DIG)}).encode()), rs(22, ALNUM + "-_")))
    L("walletconnect project id", "TS", "const projectId = '%s' // WalletConnect Cloud project id (public)" % rhex(32))
    L("firebase web config", "JS", "const firebaseConfig = {\n  apiKey: \"AIza%s\",\n  authDomain: \"escrow-app.firebaseapp.com\",\n  projectId: \"escrow-app\",\n  appId: \"1:%s:web:%s\"\n};" % (rs(35, ALNUM + "-_"), rs(12, DIG), rhex(22)))
    L("supabase anon key", "JS", "const supabase = createClient('https://%s.supabase.co', '%s') // anon public key" % (rs(20, LOW), jwt({"iss": "supabase", "role": "anon"})))
    # documented public test keys
    L("hardhat account", "hardhat node output", "Account #0: 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (10000 ETH)\nPrivate Key: 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80\n\nWARNING: These accounts, and their private keys, are publicly known.")
    L("anvil account", "anvil output", "Available Accounts\n==================\n(1) 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 (10000.000000000000000000 ETH)\n\nPrivate Keys\n==================\n(1) 0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
    L("hardhat mnemonic", "anvil output", "Wallet\n==================\nMnemonic:          test test test test test test test test test test test junk\nDerivation path:   m/44'/60'/0'/0/")
    L("hardhat key in test", "Foundry test", "// anvil's default account #0, public test key\nuint256 constant ANVIL_PK = 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80;")
    L("aws documentation example", "README", "Example credentials (from the AWS docs, not real):\n```\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n```")
    # placeholders and redacted
    L("placeholder", ".env.example", "PRIVATE_KEY=\nRPC_URL=\nETHERSCAN_API_KEY=\nSTRIPE_SECRET_KEY=sk_live_...\nOPENAI_API_KEY=<your key here>")
    L("placeholder", "README", "Set `DEPLOYER_PRIVATE_KEY=0x<64 hex chars>` and `MNEMONIC=\"word1 word2 ... word12\"` in your .env before running.")
    L("placeholder", "YAML", "db:\n  password: ${DB_PASSWORD}\n  user: ${DB_USER:-app}\napi:\n  key: \"{{ .Values.apiKey }}\"")
    L("placeholder", "docs", "curl -H \"Authorization: Bearer $TOKEN\" -u \"$USER:$PASS\" https://api.example.com/v1/orders")
    L("redacted", "log", "2026-11-26 10:00:01 INFO config loaded: stripe_key=sk_live_****************************3f9a aws_secret=[REDACTED] db_password=******")
    L("redacted", "chat", "The key is sk-proj-…Xq7 (truncated on purpose), I'll add it in the vault.")
    L("masked", "dashboard copy", "API key: ghp_••••••••••••••••••••••••••••••••kQ2z  Created: Nov 2  Last used: never")
    L("placeholder", "TOML", "[signer]\nprivate_key = \"0xYOUR_PRIVATE_KEY\"\nmnemonic = \"your twelve words here\"")
    L("placeholder", "k8s", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\nstringData:\n  API_KEY: \"changeme\"\n  DB_PASSWORD: \"<set-in-vault>\"")
    L("sops encrypted", "YAML", "stripe_secret: ENC[AES256_GCM,data:%s,iv:%s,tag:%s,type:str]\nsops:\n  age:\n    - recipient: age1%s" % (b64(rbytes(40)), b64(rbytes(32)), b64(rbytes(16)), rs(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")))
    L("zeros", "test fixture", "const ZERO_KEY = '0x' + '0'.repeat(64);\nconst DUMMY = '0x0000000000000000000000000000000000000000000000000000000000000001';")
    # reading secrets from env / secret managers
    env_reads = [
        ("Python", "api_key = os.environ[\"STRIPE_SECRET_KEY\"]\npk = os.getenv(\"PRIVATE_KEY\")\nif not pk:\n    raise SystemExit(\"PRIVATE_KEY is required\")"),
        ("JavaScript", "const wallet = new ethers.Wallet(process.env.PRIVATE_KEY!, provider);\nconst openai = new OpenAI({ apiKey: process.env.OPENAI_API_KEY });"),
        ("Go", "key, err := crypto.HexToECDSA(strings.TrimPrefix(os.Getenv(\"SIGNER_KEY\"), \"0x\"))\nif err != nil {\n\treturn fmt.Errorf(\"SIGNER_KEY: %w\", err)\n}"),
        ("Rust", "let pk = std::env::var(\"PRIVATE_KEY\").expect(\"set PRIVATE_KEY\");\nlet signer: PrivateKeySigner = pk.parse()?;"),
        ("Java", "String secret = System.getenv(\"BINANCE_API_SECRET\");\nCredentials creds = Credentials.create(System.getenv(\"ETH_PRIVATE_KEY\"));"),
        ("C#", "var secret = builder.Configuration[\"Stripe:SecretKey\"];\nvar conn = builder.Configuration.GetConnectionString(\"Default\");"),
        ("PHP", "$password = getenv('DB_PASSWORD');\n$pdo = new PDO($dsn, getenv('DB_USER'), $password);"),
        ("Ruby", "Stripe.api_key = Rails.application.credentials.dig(:stripe, :secret_key)"),
        ("Kotlin", "val token = System.getenv(\"TELEGRAM_BOT_TOKEN\") ?: error(\"TELEGRAM_BOT_TOKEN missing\")"),
        ("Swift", "let key = ProcessInfo.processInfo.environment[\"API_KEY\"] ?? \"\""),
        ("Solidity Foundry", "uint256 deployerKey = vm.envUint(\"PRIVATE_KEY\");\nvm.startBroadcast(deployerKey);"),
        ("Bash", "#!/usr/bin/env bash\nset -euo pipefail\n: \"${PRIVATE_KEY:?set PRIVATE_KEY}\"\ncast send \"$USDC\" 'transfer(address,uint256)' \"$TO\" 1000000 --private-key \"$PRIVATE_KEY\""),
        ("PowerShell", "$secret = (Get-AzKeyVaultSecret -VaultName escrow-kv -Name StripeKey -AsPlainText)"),
        ("GitHub Actions", "env:\n  PRIVATE_KEY: ${{ secrets.DEPLOYER_KEY }}\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}"),
        ("GitLab CI", "deploy:\n  script:\n    - echo \"$CI_REGISTRY_PASSWORD\" | docker login -u \"$CI_REGISTRY_USER\" --password-stdin $CI_REGISTRY"),
        ("k8s", "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password"),
        ("Terraform", "data \"aws_secretsmanager_secret_version\" \"stripe\" {\n  secret_id = \"prod/stripe/secret_key\"\n}\npassword = random_password.db.result"),
        ("Python boto3", "secret = boto3.client('secretsmanager').get_secret_value(SecretId='prod/escrow/signer')['SecretString']"),
        ("Vault CLI", "$ vault kv get -field=private_key secret/escrow/signer > /dev/null && echo ok"),
        ("docker-compose", "services:\n  api:\n    env_file: .env\n    secrets:\n      - db_password\nsecrets:\n  db_password:\n    file: ./secrets/db_password.txt"),
        ("systemd", "[Service]\nEnvironmentFile=/etc/escrow/env\nLoadCredential=signer:/etc/escrow/signer.key"),
        ("SQL", "SELECT id, email, password_hash, created_at FROM users WHERE email = $1;"),
        ("hardhat config", "accounts: process.env.PRIVATE_KEY ? [process.env.PRIVATE_KEY] : [],"),
        ("nginx", "location /api/ {\n    auth_basic \"restricted\";\n    auth_basic_user_file /etc/nginx/.htpasswd;\n    proxy_pass http://127.0.0.1:8080;\n}"),
    ]
    for ctx, t in env_reads:
        L("secret read from env or manager", ctx, t)
    # password hashes: not the password
    L("bcrypt hash", "SQL dump", "INSERT INTO users (id, email, password_hash) VALUES (42, 'buyer@example.com', '%s');" % bcrypt_hash())
    L("bcrypt hash", "htpasswd", "admin:$2y$10$%s" % rs(53, UP + LOW + DIG + "./"))
    L("argon2 hash", "log", "user created id=%d hash=%s" % (R.randrange(1000, 9999), argon2_hash()))
    L("sha512crypt", "/etc/shadow line", "deploy:$6$%s$%s:19800:0:99999:7:::" % (rs(16, ALNUM + "./"), rs(86, ALNUM + "./")))
    L("pbkdf2 hash", "Django", "pbkdf2_sha256$870000$%s$%s" % (rs(22), b64(rbytes(32))))
    # BIP-39 words without a valid checksum
    for n in (12, 12, 24, 15, 18, 21, 24, 12):
        ws = bad_mnemonic(n)
        L("bip39 words, bad checksum", "word game / test vector", pick([
            "puzzle for the giveaway, unscramble these: %s",
            "random words from the BIP-39 list for the typing test: %s",
            "invalid mnemonic test case (checksum must fail): \"%s\"",
            "wordlist sample: %s"]) % " ".join(ws))
    L("bip39 first words", "docs", "The English list starts: " + ", ".join(WORDS[:12]) + " ... and ends with zone, zoo.")
    L("bip39 words in prose", "review", "Solid seller, fast delivery, honest about the scope. Would order again: clean code, good tests, patient with my questions.")
    L("bip39 six words", "chat", "the six words on the box were: %s — it's the product's batch code phrase" % " ".join(pick(WORDS) for _ in range(6)))
    # other technical noise
    L("psbt", "chat", "PSBT to sign: cHNidP8BA%s" % rs(180, B64))
    L("lightning invoice", "chat", "pay this: lnbc2500u1p%s" % rs(200, "qpzry9x8gf2tvdw0s3jn54khce6mua7l"))
    L("base64 image", "HTML", "<img alt=\"logo\" src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA%s\">" % rs(300, B64))
    L("minified code", "JS bundle", "!function(e,t){\"object\"==typeof exports?module.exports=t():e.lib=t()}(this,function(){var e=\"%s\",t=function(n){return n.split(\"\").reverse().join(\"\")};return{v:e,r:t}});" % ("2.4." + str(R.randrange(20)) + "+" + rhex(7)))
    L("hex dump", "xxd", "\n".join("%08x: %s  %s" % (i * 16, " ".join(rhex(4) for _ in range(8)), rs(16, LOW + DIG + ".")) for i in range(6)))
    L("versions", "changelog", "v2.14.0 (2026-11-20): bump ethers 6.13.4, viem 2.21.45, go-ethereum v1.14.11; Node 22.11.0; build 8f3a2c1")
    L("benchmarks", "output", "BenchmarkSign-8    \t   52341\t     22871 ns/op\t    1024 B/op\t      12 allocs/op\nBenchmarkVerify-8  \t   18211\t     65120 ns/op")
    L("uuid table", "Markdown", "| Order | Escrow id | Status |\n|---|---|---|\n| #1182 | %s | released |\n| #1183 | %s | open |" % (uuid4(), uuid4()))
    L("contract address table", "README", "| Network | USDC | Escrow |\n|---|---|---|\n| Polygon | 0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359 | %s |\n| Base | 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913 | %s |" % (evm_addr(), evm_addr()))
    L("ethers error without key", "stack trace", "Error: insufficient funds for intrinsic transaction cost (transaction=\"0x%s\", info={ \"error\": { \"code\": -32000 } }, code=INSUFFICIENT_FUNDS, version=6.13.4)" % rhex(220))
    L("random hex in test", "Go test", "func TestDecode(t *testing.T) {\n\tin := \"%s\"\n\twant := common.HexToHash(in)\n\tif got := decode(in); got != want {\n\t\tt.Fatal(got)\n\t}\n}" % ("0x" + rhex(64)))


HARD_LOOKS = [
    ("transaction hash", ".env", lambda: "USDC_ADDRESS=%s\nESCROW_ADDRESS=%s\nDEPLOY_TX=0x%s\nSTART_BLOCK=%d" % (evm_addr(), evm_addr(), rhex(64), R.randrange(10 ** 7, 6 * 10 ** 7))),
    ("transaction hash", "Python", lambda: "receipt = w3.eth.wait_for_transaction_receipt(\"0x%s\")\nassert receipt.status == 1" % rhex(64)),
    ("transaction hash", "TypeScript", lambda: "const tx = await publicClient.getTransaction({ hash: '0x%s' })" % rhex(64)),
    ("transaction hash", "Go", lambda: "txHash := common.HexToHash(\"0x%s\")\nreceipt, err := client.TransactionReceipt(ctx, txHash)" % rhex(64)),
    ("transaction hash", "cast", lambda: "$ cast receipt 0x%s --rpc-url $RPC | grep status\nstatus               1 (success)" % rhex(64)),
    ("transaction hash", "dispute statement", lambda: "Statement of the buyer: I paid 340 USDT on Tron, txid %s, at 09:41 UTC. The seller says nothing arrived. The funds went to %s, the address in his offer." % (rhex(64), tron_addr())),
    ("transaction hash", "SQL", lambda: "SELECT * FROM payments WHERE tx_hash = '0x%s' AND chain_id = 137;" % rhex(64)),
    ("transaction hash", "CSV", lambda: "date,tx_hash,amount,token\n2026-11-20,0x%s,120.00,USDC\n2026-11-22,0x%s,80.00,USDT" % (rhex(64), rhex(64))),
    ("block hash", "log line", lambda: "2026-11-26T08:00:12Z INFO indexer: new head number=%d hash=0x%s parent=0x%s txs=%d" % (R.randrange(10 ** 7, 6 * 10 ** 7), rhex(64), rhex(64), R.randrange(300))),
    ("address", "Solidity", lambda: "address constant TREASURY = %s;\nIERC20 constant USDC = IERC20(0xaf88d065e77c8cC2239327C5EDb3A432268e5831);" % evm_addr()),
    ("address", "JSON", lambda: "{\"seller\":\"%s\",\"buyer\":\"%s\",\"amount\":\"250000000\",\"token\":\"USDC\"}" % (evm_addr(), evm_addr())),
    ("address", "Rust", lambda: "let to: Address = address!(\"%s\");" % evm_addr()[2:]),
    ("solana address", "chat", lambda: "my Solana wallet for the USDC: %s (not the ATA, the owner)" % sol_addr()),
    ("solana address", "TS", lambda: "const mint = new PublicKey('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');\nconst owner = new PublicKey('%s');" % sol_addr()),
    ("bitcoin address", "invoice", lambda: "Invoice #INV-%d\nAmount: 0.0042 BTC\nPay to: %s\nMemo: logo design" % (R.randrange(1000, 9999), bech32_addr())),
    ("public key env", ".env", lambda: "SIGNER_PUBLIC_KEY=0x%s\nSIGNER_ADDRESS=%s" % (spub_comp(evm_key_int()).hex(), evm_addr())),
    ("key id", "JSON", lambda: "{\"kid\":\"%s\",\"key_id\":\"%s\",\"alg\":\"ES256\",\"status\":\"active\"}" % (rhex(16), uuid4())),
    ("kms key arn", "Terraform", lambda: "kms_key_id = \"arn:aws:kms:eu-central-1:%s:key/%s\"" % (rs(12, DIG), uuid4())),
    ("stripe ids", "log", lambda: "stripe: refund re_%s for charge ch_%s on customer cus_%s, payout po_%s" % (rs(24), rs(24), rs(14), rs(24))),
    ("payment ids", "chat", lambda: "payment reference PAY-%s-%s, escrow %s" % (rs(6, UP + DIG), rs(4, DIG), uuid4())),
    ("docker image id", "docker images", lambda: "REPOSITORY          TAG       IMAGE ID       CREATED        SIZE\nexample/api         2.3.1     %s   2 days ago     182MB\nexample/worker      2.3.1     %s   2 days ago     95.4MB" % (rhex(12), rhex(12))),
    ("git sha in url", "PR link", lambda: "see https://git.example.com/shop/escrow/commit/%s and the diff against %s" % (rhex(40), rhex(40))),
    ("sha256 in prose", "chat", lambda: "the archive's sha256 is %s, compare before you run it" % rhex(64)),
    ("sha1 fingerprint", "cert info", lambda: "SHA1 Fingerprint=%s" % ":".join(rhex(2).upper() for _ in range(20))),
    ("gpg fingerprint", "chat", lambda: "verify my signature, key fingerprint %s" % " ".join(rhex(4).upper() for _ in range(10))),
    ("uuid", "YAML", lambda: "tenant_id: %s\nsubscription_id: %s\nresource_group: escrow-prod" % (uuid4(), uuid4())),
    ("hmac of payload", "webhook log", lambda: "received webhook id=%s signature=sha256=%s verified=true" % (uuid4(), rhex(64))),
    ("nonce", "JSON", lambda: "{\"nonce\":\"%s\",\"timestamp\":%d,\"recvWindow\":5000}" % (rhex(32), R.randrange(1763000000000, 1765000000000))),
    ("random base64 id", "Kafka log", lambda: "consumer group escrow-events member consumer-1-%s assigned partitions [payments-0, payments-3]" % uuid4()),
    ("salt", "config", lambda: "hashids:\n  min_length: 8\n  alphabet: abcdefghijkmnpqrstuvwxyz23456789\n  # salt is public, used only to obfuscate ids\n  salt: order-ids-v2"),
    ("password policy", "YAML", lambda: "password_policy:\n  min_length: %d\n  require_digit: true\n  require_symbol: true\n  max_age_days: 90" % R.randrange(10, 16)),
    ("password field", "HTML", lambda: "<label for=\"pw\">Password</label>\n<input id=\"pw\" type=\"password\" name=\"password\" autocomplete=\"current-password\" minlength=\"12\" required>"),
    ("password prompt", "shell session", lambda: "$ ssh deploy@%s\ndeploy@%s's password:\nPermission denied, please try again." % (ip(), ip())),
    ("password reset", "mail", lambda: "Subject: Reset your password\n\nSomeone asked to reset the password for buyer@example.com. The link expires in 30 minutes: https://app.example.com/reset?t=(one-time link removed)\nIf it wasn't you, ignore this mail."),
    ("password variable names", "Python", lambda: "def login(username: str, password: str) -> Session:\n    if not check_password_hash(user.password_hash, password):\n        raise AuthError(\"wrong password\")"),
    ("token type names", "JSON schema", lambda: "{\"type\":\"object\",\"properties\":{\"access_token\":{\"type\":\"string\"},\"refresh_token\":{\"type\":\"string\"},\"expires_in\":{\"type\":\"integer\"}}}"),
    ("api key docs", "Markdown", lambda: "| Header | Required | Example |\n|---|---|---|\n| `X-API-Key` | yes | `your-api-key` |\n| `X-Signature` | yes | HMAC-SHA256 of the body, hex |"),
    ("seed in crypto sense", "Python", lambda: "random.seed(%d)\nnp.random.seed(%d)\ntorch.manual_seed(%d)" % (R.randrange(10 ** 4), R.randrange(10 ** 4), R.randrange(10 ** 4))),
    ("keccak of string", "chat", lambda: "the event selector is keccak256(\"Released(uint256,address)\") = 0x%s" % keccak256(b"Released(uint256,address)").hex()),
    ("amounts and gas", "receipt", lambda: "Gas used: %d (%.2f%%)\nEffective gas price: %d wei\nTotal fee: 0.000%s ETH" % (R.randrange(21000, 200000), R.random() * 100, R.randrange(10 ** 8, 10 ** 11), rs(9, DIG))),
    ("chain ids and versions", "config", lambda: "chains:\n  - id: 137\n    name: polygon\n    confirmations: 64\n  - id: 8453\n    name: base\n    confirmations: 12\nversion: 1.9.%d" % R.randrange(30)),
    ("openssl digest", "shell", lambda: "$ openssl dgst -sha256 invoice.pdf\nSHA2-256(invoice.pdf)= %s" % rhex(64)),
    ("TLS session id in log", "nginx log", lambda: "%s - - [26/Nov/2026:10:12:01 +0000] \"GET /api/orders/%s HTTP/2.0\" 200 512 \"-\" \"Mozilla/5.0\" rt=0.012 ssl_session=%s" % (ip(), uuid4(), rhex(64))),
    ("explorer link", "chat", lambda: "proof of payment: https://polygonscan.com/tx/0x%s" % rhex(64)),
    ("bitcoin block hash", "chat", lambda: "confirmed in block 00000000000000000001%s" % rhex(44)),
    ("git lfs pointer", "file", lambda: "version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d" % (rhex(64), R.randrange(10 ** 4, 10 ** 8))),
    ("key file path", ".env", lambda: "SIGNER_KEY_FILE=/run/secrets/signer.key\nSSH_KEY_PATH=~/.ssh/id_ed25519\nKEYSTORE_DIR=./keystore\nPASSWORD_FILE=/run/secrets/keystore_pw"),
    ("private in a name", "TypeScript", lambda: "export const PRIVATE_SALE_CONTRACT = '%s'\nexport const privateRoundCap = 250_000n * 10n ** 6n" % evm_addr()),
    ("secret manager reference", "chat", lambda: "the Binance read-only key is in 1Password, item \"Binance RO %s\", vault Shared-Escrow; I'll share the vault, not the key" % rs(4, UP + DIG)),
    ("constructor args", "Etherscan", lambda: "Constructor Arguments ABI-encoded: 000000000000000000000000%s000000000000000000000000%s%064x" % (rhex(40), rhex(40), R.randrange(10 ** 6, 10 ** 12))),
    ("eip-712 signature", "JSON", lambda: "{\"domain\":{\"name\":\"Escrow\",\"version\":\"1\",\"chainId\":8453,\"verifyingContract\":\"%s\"},\"message\":{\"orderId\":\"%s\",\"amount\":\"250000000\"},\"signature\":\"0x%s1c\"}" % (evm_addr(), uuid4(), rhex(128))),
    ("ens and addresses", "chat", lambda: "pay to seller.eth or directly %s, both are mine" % evm_addr()),
    ("password in past tense", "prose", lambda: pick(["I changed the password after you logged in, so the old one no longer works.", "La contraseña ya la cambié, la nueva te la paso por el gestor de contraseñas.", "Das alte Passwort ist seit gestern ungültig, bitte den Reset-Link nutzen.", "Пароль уже сменил, новый пришлю через менеджер паролей.", "パスワードは変更済みです。新しいものはパスワードマネージャーで共有します。", "Mật khẩu cũ đã bị đổi, mình sẽ chia sẻ qua trình quản lý mật khẩu."])),
    ("etag", "HTTP response", lambda: "HTTP/1.1 200 OK\nETag: \"%s\"\nCache-Control: max-age=60\nX-Request-Id: %s" % (rhex(32), uuid4())),
]


def gen_hard_lookalikes():
    for i in range(3):
        for kind, ctx, f in HARD_LOOKS:
            if i == 2 and R.random() < 0.5:
                continue
            L(kind, ctx, f())


# --- output ----------------------------------------------------------------------------------

def encode(text):
    s = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
    if s.startswith("#"):
        s = "\\u0023" + s[1:]
    return s


def write(name, header, samples, marked):
    seen = set()
    out = [header]
    n = 0
    for kind, ctx, text in samples:
        if text in seen:
            continue
        seen.add(text)
        opens, closes = text.count("«"), text.count("»")
        if marked:
            assert opens > 0 and opens == closes, (kind, ctx, text)
            depth = 0
            for c in text:
                depth += (c == "«") - (c == "»")
                assert 0 <= depth <= 1, text
        else:
            assert opens == 0 and closes == 0, (kind, ctx, text)
        out.append("# %s | %s" % (kind, ctx))
        out.append(encode(text))
        n += 1
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return n


def main():
    gen_evm()
    gen_mnemonics()
    gen_wallet_other()
    gen_generic()
    gen_exchange_rpc()
    gen_db_auth()
    gen_keys_tools()
    gen_passwords()
    gen_lookalikes()
    gen_hard_lookalikes()
    head = ("# Seventh held-out credential set, written by heldout7_gen.py (do not edit by hand).\n"
            "# Every value is random and fake. Each sample follows a comment: kind | context.\n")
    ns = write("heldout7_secret.txt", head + "# «...» marks every value that must be removed.", SECRETS, True)
    nl = write("heldout7_lookalike.txt", head + "# Nothing in these texts may be found.", LOOKS, False)
    print("secret samples:", ns, "look-alikes:", nl)


if __name__ == "__main__":
    main()
