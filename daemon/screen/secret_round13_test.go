package screen

import "testing"

// A password handed by position to a call that connects or logs in, in any language: after a
// host and a user's name, as the one string of an auth call, as the second of an auth pair, or
// as a password-named field of a record. Look-alikes: empty strings, references, format
// strings, a file's mode and encoding, a DSN alone, test doubles.
func TestSecretConnectionArguments(t *testing.T) {
	checkMarked(t, []string{
		`mysql_real_connect(conn, "db.example.test", "root", "«@E_Da_-cOSA=8@uecCzgl@Y9M»", "shop", 3306, NULL, 0);`,
		`mysql_real_connect(conn, "db.example.test", "postgres", "«ltRGOz+PZRMd=TuzwKwdQTebG»", "shop", 0, NULL, 0);`,
		`$pdo = new PDO('mysql:host=10.0.0.5;dbname=crm', 'admin', '«-1RZdVhOuBht%^2+v%Kl1eNHg»');`,
		`my $dbh = DBI->connect("dbi:mysql:database=crm;host=db.example.test", "agent", "«0*D@Raujebn=!DG?-»", {});`,
		`conn = pymssql.connect("sql.example.test", "sa", "«Hq7=Vw!pL2xR»", "crm")`,
		`let client = Client::connect("ldap.example.test", "cn=admin", "«Tz9#kLm2=Wq»")`,
		`session := ftp.Login("ftp.example.test", "deploy", "«Gx4!mRt8=Yp»")`,
		`imap.authenticate("mail.example.test", "ops@example.test", "«Wn6$zQe9+Ks»")`,
		`sftp.open_session('files.example.test', 'backup', '«rU3%hVk7^Lm»')`,
		"local red = redis.connect(\"cache.example.test\", 6379)\nred:auth(\"«K*=PjrmMS%lUZ2y2ZX*fcPg4-»\")",
		`client.auth("«Pw7!xQz2#Lk9»")`,
		`r = requests.get(url, auth=("svc_etl", "«*DmFZiuizHZNL*9uX!@wuIwdN»"), timeout=30)`,
		`httpx.post(url, auth = ('reporter', '«Mv5+Tq8!Rz»'))`,
		`Net::SMTP.start('smtp.example.test', 587, 'example.test', 'noreply@example.test', '«N=p#D2rK0v7#e8!xIpF*bk2-au»', :login)`,
		`main = withConnection (defaultConnectInfo { connectUser = "app", connectPassword = "«*Wv5!w0A69s96uzrDD^Z!Nr_*GR»" }) run`,
		`cfg := Config{User: "app", Password: "«@Rk7!pLm2Qz»"}`,
		`$db = ['user' => 'app', 'db_password' => '«#Tn4=kWq9Lx»'];`,
		`{:user "app" :password "«*Xq7=vLm2!pZ»"}`,
		`$conn = oci_connect('scott', '«Xq7=vLm2!pZ»', 'db.example.test/XE');`,
	}, []string{
		`mysql_real_connect(conn, "db.example.test", "root", "", "shop", 3306, NULL, 0);`,
		`mysql_real_connect(conn, host, user, getenv("DB_PASSWORD"), "shop", 3306, NULL, 0);`,
		`$pdo = new PDO('mysql:host=10.0.0.5;dbname=crm', 'admin', '${DB_PASSWORD}');`,
		`$pdo = new PDO('mysql:host=10.0.0.5;dbname=crm', 'admin', $password);`,
		`my $dbh = DBI->connect("dbi:mysql:database=crm;host=db.example.test", "agent", "%s");`,
		`f = open("report.csv", "r", encoding="utf-8")`,
		`fh = open("/var/log/app.log", "a")`,
		`start("worker.example.test", "queue", "default")`,
		`red:auth(os.getenv("REDIS_PASSWORD"))`,
		`client.auth("changeme")`,
		`r = requests.get(url, auth=("svc_etl", os.environ["API_PW"]))`,
		`r = requests.get(url, auth=(user, password))`,
		`Login(ctx, "alice", "")`,
		`fakeConnect("db.example.test", "alice", "Xy7!abcDEF12")`,
		`connectPassword = ""`,
		`cfg := Config{User: "app", Password: "**********"}`,
		`{:user "app" :password ""}`,
		`{:user "app" :password "*"}`,
		`$conn = oci_connect('scott', $password, 'db.example.test/XE');`,
		`$conn = oci_connect('scott', 'tiger', 'db.example.test/XE');`,
	})
}

// A secret handed to a shell through export, whatever its length: an AWS session token runs to
// 400 characters and more and goes whole. Names holding a secret word as a part (sssd's
// ldap_default_authtok, OCI's pass_phrase, Ansible's ansible_ssh_pass and ansible_become_pass)
// name a secret too. Look-alikes: the key id, references, settings.
func TestSecretExportAndNameParts(t *testing.T) {
	long := "IQoJb3JpZ2luX2VjhUbBVR1pMefS+6xp4aX+14gcIETuhAmPEmSRTWiWX++IYWLwFYc6ppKNTUyEdbk6t6GRBXgUyZ47cMvxhZ4r8x2gbmRdLyen00n/nwh1N8091pK+Z4Dryh/2kwWG/CRli7uA5Jlzce2a5yun9ixHJvjojpzG1KtBqP3mKTtBK7rJc0QY9W6ahAByjUswsaH4uiEtrvKww4Uz8Bk0cNobsvl6f2s2aGZRlVH3zr2PXUGQyLkcnCaiq6h2PZVbHZVQ7WKtNEMRJ8FO4BfUfu4RGQlXZzZm35cN0Wa0U82yopf"
	checkMarked(t, []string{
		"export AWS_ACCESS_KEY_ID=ASIAVR4X35MHICG7NQBL\nexport AWS_SECRET_ACCESS_KEY=«r9dHxOkdvuaTJin86XliUFGK+Is+QYylZD/0/V1u»\nexport AWS_SESSION_TOKEN=«" + long + "»",
		"set AWS_SESSION_TOKEN=«" + long + "»",
		"$env:AWS_SESSION_TOKEN = \"«" + long + "»\"",
		"{\"Credentials\": {\"SessionToken\": \"«" + long + "»\"}}",
		"session_token: «" + long + "»",
		"ldap_default_authtok = «V-Wh86vAtKn4dVItFjL!JyT%44K»",
		"authtok=«Coo7g#ptc!StodH3j!HJ=Lf»",
		"pass_phrase=«cobalt2025!!»",
		"key_pass-phrase: «hirondelle.kp4v!»",
		"[web]\n10.0.0.4 ansible_user=app ansible_ssh_pass=«lighthouse.s4mf» ansible_become_pass=«a7P7JUdr9cntaJiq6»",
		"DB_PASS=«meadow.x7qz»",
	}, []string{
		"export AWS_ACCESS_KEY_ID=ASIAVR4X35MHICG7NQBL",
		"\"public_key\": \"" + long + "\"",
		"encrypted_token: '" + long + "'",
		"\"pubkey\": \"" + long + "\"",
		"export AWS_SESSION_TOKEN=$(aws sts get-session-token --query Credentials.SessionToken)",
		"export AWS_SESSION_TOKEN=${SESSION}",
		"ldap_default_authtok_type = password",
		"ldap_default_authtok = ${LDAP_PW}",
		"pass_phrase=",
		"ansible_ssh_pass={{ vault_ssh_pass }}",
		"password = config.s3client",
		"password = apps.v1beta1",
		"password = numpy.int8x",
	})
}

// A secret handed by position to a command that logs in: the few known ones (Backblaze's b2
// authorize-account, cloudflared service install) and any tool's login, auth or authorize
// subcommand followed by an id and a secret. Look-alikes: flags, placeholders, names, package
// installs, references.
func TestSecretCLIPositional(t *testing.T) {
	checkMarked(t, []string{
		"b2 authorize-account 005979c6f023ebd1bb0ab299 «K0059nSn82AgNnx0/yIBDh5YcCXTaL9»",
		"$ b2 account authorize 005b1ae9f4b571eb4ca2d12e «K005LiAD90GgvEziSEv4crNnlnYT90+»",
		"sudo cloudflared service install «eyJhIjoiRr6hCdQ1rAL/CjpfV+PrRPiFSxQGwvV3DIoTM1LC6klhgQIdhetlQPbZ1hxUNkwOSwwreMdY3sJg»",
		"acmecli login deploy-bot «Qm7vXz2LpR9sKd4TnW8yBc3F»",
		"vendorctl auth «tK8pW2mZ9qR4xL7vN3bY6cHd»",
		"fleet authorize ops@example.test «Zr5Lq8Wm2Xv9Tk4Pn7Bc3Yd6»",
	}, []string{
		"b2 authorize-account $B2_KEY_ID $B2_APP_KEY",
		"b2 authorize-account <keyId> <applicationKey>",
		"cloudflared service install <TOKEN>",
		"cloudflared service uninstall",
		"npm install left-pad-and-more-utilities",
		"acmecli login --token-file ~/.acme/token",
		"vendorctl auth status --verbose-output-enabled",
		"gh auth login --with-token < token.txt",
		"fleet authorize ops@example.test",
	})
}

// user:password lines under a line naming a secrets file, a user / password pair in notes whose
// password starts with #, columns of CSV and TSV exports under a header naming a password
// (whatever sign starts the cell), words closed by a sign right after a password word. Look-
// alikes: /etc/passwd's fields, crypt(3) hashes, hashtags, colours, issue numbers, empty cells,
// references.
func TestSecretFilesNotesAndColumns(t *testing.T) {
	checkMarked(t, []string{
		"rsyncd.secrets:\nroot:«uEpbEwgsUyY3LF2o»",
		"/etc/rsyncd.secrets\nbackup:«Lq7#vWm2Zp»\nmirror:«Tz4=kRn8Xc»",
		"chap-secrets:\nvpnuser:«Hb6!qPs3Wd»",
		"Handover notes\n- Router: http://192.168.1.1, admin / «#Sonnenblume_1995»",
		"NAS login: root / «#Kx7_pLm2Qz»",
		"site,url,username,password\nshop,https://shop.example.test,agent,«@Lighthouse_2012»",
		"service\tlogin\tpassword\tnotes\nZendesk\tops@example.test\t«velvet-uazw!»\ttemp",
		"name,user,password\nwiki,ops,«#Tn4=kWq9Lx»",
		"सर्वर लॉगिन: यूज़र wp_admin@example.test, पासवर्ड «pelikan_gqur!»",
		"Passwort «amsel_xqvt?»",
	}, []string{
		"/etc/passwd:\nroot:x:0:0:root:/root:/bin/bash",
		".htpasswd:\nadmin:$apr1$ab12cd34$QWErtyUIOPasdfGHJKLzx.",
		"rsyncd.secrets:\nroot:${RSYNC_PASSWORD}",
		"Tags: admin / #BlackFriday2024",
		"Colour: admin / #ff00aa",
		"Fixed in admin / #1234",
		"site,url,username,password\nshop,https://shop.example.test,agent,",
		"site,url,username,password\nshop,https://shop.example.test,agent,$SHOP_PW",
		"service\tlogin\tpassword\tnotes\nZendesk\tops@example.test\t********\ttemp",
		"Password reset!",
		"Forgot your password? sign_up_here!",
	})
}

// Tokens and signatures by their own shape: a Twitch chat token (oauth: and 30 characters), a
// signed URL's signature (whoever holds the link reads the object until it expires; who signed
// it and when stay), a passphrase of spaced words ending in a number after a passphrase word and
// its copula. Look-alikes: an OAuth scheme named in prose, a signed URL without its signature,
// prose about passphrases.
func TestSecretTokensSignaturesPassphrases(t *testing.T) {
	sig := "fd9811c965d3285fd89a1ca88e40dd4362b6b246b9901fa4540665d5d813da8669688d3915758075ebb19d3c5ae78975adeb90c6edd5d3aa186788c46c7e8cee"
	checkMarked(t, []string{
		"twitch: oauth:«7hehpzbtrpmmgrhtk2swii13zmelyf»",
		"PASS oauth:«k2j4h5g6f7d8s9a0q1w2e3r4t5y6u7»",
		"https://storage.googleapis.com/b/r.pdf?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=svc%40p.iam.gserviceaccount.com%2F20261104%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261104T101500Z&X-Goog-Expires=86400&X-Goog-SignedHeaders=host&X-Goog-Signature=«" + sig + "»",
		"https://b.s3.amazonaws.com/k.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261104%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261104T101500Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=«" + sig[:64] + "»",
		"the passphrase for the signing key is «orbit velvet velvet lantern 21» (all lower case, spaces included)",
		"Password: «tundra lantern ferry saffron 39»",
		"the vault password was «maple orbit quiver fern 7».",
	}, []string{
		"Use oauth:token from the Twitch dashboard",
		"twitch uses oauth: see the docs",
		"https://storage.googleapis.com/b/r.pdf?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=svc%40p.iam.gserviceaccount.com%2F20261104%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261104T101500Z",
		"X-Amz-Signature=<signature>",
		"the passphrase is four random words and a number, like the ones below",
		"the password policy is at least twelve characters long with 2",
	})
}
