package screen

func Set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// Stopwords are words that stand next to a plain " at " or " dot " in ordinary prose ("look at the
// logs", "meet at noon"), so that such a pair is never read as an obfuscated address.
var Stopwords = Set(
	"a", "an", "the", "i", "me", "we", "us", "you", "he", "she", "it", "they", "them", "him", "her",
	"my", "our", "your", "their", "its", "this", "that", "these", "those", "is", "are", "am", "was",
	"were", "be", "been", "being", "do", "does", "did", "done", "have", "has", "had", "will", "would",
	"can", "could", "should", "shall", "may", "might", "must", "and", "or", "but", "if", "then", "so",
	"as", "at", "by", "for", "from", "in", "into", "on", "onto", "of", "off", "out", "over", "to", "up",
	"with", "without", "about", "after", "before", "between", "during", "under", "not", "no", "yes",
	"all", "any", "some", "each", "every", "both", "either", "neither", "one", "two", "three", "look",
	"looks", "meet", "meeting", "work", "works", "stay", "live", "lives", "based", "located", "arrive",
	"available", "start", "starts", "end", "ends", "begin", "begins", "here", "there", "where", "when",
	"what", "who", "how", "why", "which", "home", "office", "least", "most", "best", "first", "last",
	"once", "noon", "night", "midnight", "morning", "evening", "afternoon", "time", "times", "point",
	"moment", "rate", "price", "cost", "costs", "speed", "scale", "level", "hand", "glance", "length",
	"heart", "risk", "sea", "school", "university", "college", "company", "stop", "stops", "run", "runs",
	"peak", "full", "half", "top", "bottom", "front", "back", "side", "present", "large", "once",
	"now", "later", "today", "tomorrow", "tonight", "weekend", "weekends", "midday", "dawn", "dusk",
	"launch", "checkout", "runtime", "scale", "most", "less", "more", "par", "odds", "ease", "bay",
	"product", "products", "matrix", "polka", "connect", "connected", "dots",
	"pm", "am", "utc", "gmt", "o'clock", "oclock", "minimum", "maximum", "random", "line", "row",
	"index", "position", "offset", "address", "step", "stage", "phase", "least", "cursor", "bar",
	"table", "desk", "door", "gate", "station", "airport", "hotel", "venue", "booth", "event",
	"conference", "store", "shop", "market", "restaurant", "cafe", "lunch", "dinner", "breakfast",
	"hour", "hours", "minute", "minutes", "second", "seconds", "day", "days", "week", "weeks",
	"month", "months", "year", "years", "monday", "tuesday", "wednesday", "thursday", "friday",
	"saturday", "sunday", "once", "twice", "work", "job", "task", "tasks", "good", "bad", "great",
	"better", "worse", "fine", "way", "angle", "temperature", "volume", "default", "room",
)

// mailProviders are webmail domains written without their top-level domain ("name at gmail").
var mailProviders = Set(
	"gmail", "googlemail", "yahoo", "ymail", "hotmail", "outlook", "aol", "icloud", "protonmail",
	"proton", "tutanota", "gmx", "yandex", "qq", "zoho", "fastmail", "rambler", "mailru", "pmme",
)

// reservedTLDs are the top-level domains kept out of the public DNS for examples, tests and
// private networks (RFC 2606, RFC 6761, ICANN's .internal). An address on one ("ana@mail.example")
// is still an address handed over, and may be a real one on a private network, so emails on them
// are removed like any other. Bare names on them ("pay.example") stay: specs and examples use them
// as placeholders, and they lead nowhere by themselves.
var reservedTLDs = Set("example", "test", "invalid", "localhost", "internal")

// strongTLDs are top-level domains that, written after a name and a dot, are a domain in practice.
// Any other top-level domain (".py", ".md", ".zip", ".data", ".art", ".style") also names file
// extensions or object members, so a bare "x.art" is taken as a domain only with more evidence: a
// path or port, "www.", a known second-level label ("co.uk"), an obfuscation, or a word such as
// "visit" or "site" before it. Strong domains that are also member names (".name", ".info",
// ".app") are checked against typical variable names (codeMemberTLDs, codeReceivers).
var strongTLDs = Set(
	"com", "net", "org", "edu", "gov", "io", "co", "ai", "app", "dev", "me", "biz", "xyz", "online",
	"site", "website", "shop", "tech", "club", "space", "blog", "icu", "vip", "tv", "fm", "gg",
	"ly", "ws", "su", "uk", "de", "fr", "ru", "cn", "jp", "br", "au", "ca", "es", "nl", "se", "ch", "dk",
	"fi", "cz", "gr", "tr", "ua", "kz", "ir", "il", "za", "mx", "ar", "ve", "pe", "nz", "sg",
	"hk", "tw", "kr", "vn", "th", "my", "ph", "pk", "bd", "ng", "ke", "eg", "sa", "ae", "eu", "asia",
	"us", "ro", "hu", "bg", "sk", "lt", "lv", "ee", "hr", "si", "ie", "lk", "np", "uz", "az", "ge",
	"onion", "tk", "cf", "ga", "gq", "top", "cloud", "store", "email", "mobi", "pro",
	"info", "ltd", "agency", "studio", "digital", "media", "solutions", "services", "network",
	"global", "world", "today", "live", "life", "news", "link", "click", "one", "company", "team",
	"chat", "social", "money", "finance", "capital", "trade", "market", "exchange", "bet", "casino",
	"games", "fun", "lol", "wtf", "page", "host", "website", "consulting", "software", "systems",
	"marketing", "design", "photography", "academy", "education", "health", "care", "fitness",
	"shopping", "sale", "deals", "biz", "name",
)

// codeMemberTLDs are strong top-level domains that are also common member names in code
// ("user.name", "logger.info", "window.top", "res.page", "self.app"): for them the first label must
// not be a typical variable name.
var codeMemberTLDs = Set("name", "info", "top", "page", "host", "link", "one", "app", "dev", "io",
	"ai", "me", "live", "email", "store", "news", "team", "market", "media", "design", "network",
	"exchange", "trade", "money", "chat", "company", "services", "systems", "software", "click",
	"global", "world", "today", "life", "games", "fun", "pro", "cloud", "site", "space", "social",
	"capital", "finance", "health", "care", "sale", "deals", "shopping", "digital", "solutions")

// codeReceivers are typical variable and package names seen before a member access.
var codeReceivers = Set(
	"self", "this", "cls", "app", "ctx", "req", "res", "request", "response", "os", "sys", "std",
	"java", "javax", "scala", "kotlin", "android", "user", "users", "item", "items", "obj", "object",
	"data", "args", "opts", "options", "params", "props", "state", "model", "event", "evt", "e", "err",
	"el", "node", "parent", "child", "file", "files", "path", "json", "config", "cfg", "conf", "env",
	"logger", "log", "console", "window", "document", "location", "client", "server", "db", "conn",
	"session", "account", "profile", "customer", "order", "product", "task", "job", "row", "record",
	"entry", "result", "results", "msg", "message", "post", "page", "form", "field", "input",
	"output", "settings", "meta", "info", "s", "x", "p", "u", "m", "t", "r", "c", "a", "b", "o", "v",
	"i", "n", "k", "d", "f", "g", "h", "l", "q", "w", "y", "z", "np", "pd", "tf", "torch", "plt",
	"fmt", "http", "net", "io", "math", "time", "strings", "bytes", "url", "uri", "host", "api",
	"repo", "project", "team", "org", "group", "member", "seller", "buyer", "offer", "quote",
	"deliverable", "review", "window", "frame", "view", "layout", "style", "theme", "ui", "cmd",
	"command", "process", "proc", "thread", "worker", "queue", "cache", "store", "redis", "sql",
	"query", "table", "column", "schema", "type", "types", "util", "utils", "lib", "pkg", "module",
	"mod", "package", "main", "base", "core", "common", "shared", "local", "global", "default",
)

// codeFamous are names written like domains that are libraries or products in running text.
var codeFamous = Set(
	"socket.io", "asp.net", "vb.net", "ado.net", "dot.net", "java.io", "java.net", "scala.io",
	"std.io", "discord.py", "web3.py", "discord.js", "web3.js", "ethers.js", "py.test",
	"fly.io", "deno.land", "render.com",
)

// fileStems are file names that take an extension which is also a top-level domain
// ("Dockerfile.dev", "requirements.in", "Makefile.am").
var fileStems = Set("dockerfile", "makefile", "vagrantfile", "procfile", "gemfile", "rakefile",
	"jenkinsfile", "containerfile", "brewfile", "podfile", "caddyfile", "justfile", "taskfile",
	"earthfile", "requirements", "docker-compose", "compose", "package", "tsconfig", "config",
	"settings", "readme", "license", "changelog", "index", "main", "app", "setup", "manage", "test",
	"tests", "build", "configure", "install", "env", "local", "values", "secrets", "schema", "model",
	"models", "utils", "helpers", "script", "scripts", "notes", "todo", "draft", "report", "data",
	"output", "input", "result", "results", "final", "backup", "archive", "logo", "image", "photo")

// secondLevel are second-level labels under country domains ("example.co.uk", "site.com.br").
var secondLevel = Set("co", "com", "org", "net", "ac", "edu", "gov", "or", "ne", "go", "gob", "nic", "ltd", "plc", "info", "biz", "gen", "ind", "firm", "nom", "mil")

// chatDomains are hosts whose links are chat handles or invitations rather than web pages.
var chatDomains = Set(
	"t.me", "telegram.me", "telegram.dog", "wa.me", "whatsapp.com", "chat.whatsapp.com",
	"api.whatsapp.com", "discord.gg", "discord.com", "discordapp.com", "skype.com", "join.skype.com",
	"m.me", "messenger.com", "signal.me", "signal.group", "line.me", "u.wechat.com", "weixin.qq.com",
	"instagram.com", "ig.me", "twitter.com", "x.com", "facebook.com", "fb.com", "fb.me",
	"snapchat.com", "tiktok.com", "linkedin.com", "lnkd.in", "vk.com", "invite.viber.com", "viber.com",
	"open.kakao.com", "threema.id", "keybase.io", "icq.im", "matrix.to", "zalo.me", "kik.me",
	"bsky.app", "mastodon.social", "session.id", "qm.qq.com", "wechat.com",
)

// digitWords spell digits, for phone numbers written out.
var digitWords = map[string]byte{
	"zero": '0', "oh": '0', "o": '0', "nil": '0', "nought": '0', "one": '1', "two": '2', "three": '3',
	"four": '4', "five": '5', "six": '6', "seven": '7', "eight": '8', "nine": '9', "niner": '9',
	"cero": '0', "uno": '1', "dos": '2', "tres": '3', "cuatro": '4', "cinco": '5', "seis": '6',
	"siete": '7', "ocho": '8', "nueve": '9',
}

// phoneContext are words that announce a phone number nearby.
var phoneContext = folded(Set(
	"call", "calls", "phone", "phones", "tel", "telephone", "mobile", "mob", "cell", "cellphone",
	"whatsapp", "whats", "wa", "viber", "signal", "telegram", "tg", "sms", "text", "txt", "texting",
	"number", "num", "nr", "contact", "reach", "ring", "dial", "ph", "hotline", "landline", "fax",
	"imessage", "facetime", "wechat", "line", "ph.", "cel", "celular", "telefono", "teléfono", "handy",
	"тел", "телефон", "звони", "позвони", "номер", "mobil", "tlf", "tfn", "phn", "fone", "fon",
	"msg", "message", "dm", "ping", "wapp", "позвоните", "звоните", "телефону", "电话", "手机", "微信",
	"telefone", "celular", "whats", "zap", "llama", "llámame", "appelle", "appelez", "téléphone", "portable",
	"anrufen", "ruf", "telefon", "tel.", "電話", "携帯", "연락처", "전화",
))

// endpointContext are words that announce a machine address.
var endpointContext = Set(
	"ssh", "host", "hostname", "server", "connect", "endpoint", "port", "rpc", "node", "proxy", "vps",
	"machine", "box", "ip", "address", "dns", "socks", "socks5", "tunnel", "vpn", "rdp", "vnc",
	"telnet", "sftp", "ftp", "mqtt", "redis", "postgres", "mysql", "mongodb", "db", "database",
	"listening", "listen", "bind", "login", "gateway", "router", "nameserver", "ping", "curl",
)

// walletContext are words that announce a wallet address.
var walletContext = Set(
	"wallet", "address", "addr", "send", "pay", "payment", "deposit", "sol", "solana", "phantom",
	"usdc", "usdt", "spl", "mint", "pubkey", "btc", "bitcoin", "eth", "ethereum", "trc20", "erc20",
	"bep20", "tron", "trx", "crypto", "coin", "coins", "tip", "tips", "donate", "receive", "transfer",
	"polkadot", "dot", "ksm", "ton", "xrp", "ltc", "doge", "ada", "cardano", "monero", "xmr", "polygon",
	"matic", "arbitrum", "base", "bsc", "bnb", "avax", "near", "algo", "atom", "cosmos", "sui", "aptos",
)

// domainContext are words that announce a web address.
var domainContext = Set(
	"visit", "site", "website", "web", "domain", "url", "link", "homepage", "page", "portfolio",
	"blog", "hosted", "online", "check", "go", "browse", "find", "shop", "store", "landing",
	"www", "http", "https", "at", "on", "via", "see", "open", "reach", "contact", "dm", "email",
	"mail", "message", "profile", "channel", "server", "join", "my", "our",
)

// handleVerbs are words that, shortly before "@name", make it an invitation to talk elsewhere.
var handleVerbs = Set(
	"dm", "pm", "hmu", "handle", "username", "nick", "nickname", "telegram", "tg", "discord", "insta",
	"instagram", "ig", "twitter", "snap", "snapchat", "signal", "whatsapp", "skype", "wechat", "kik",
	"threema", "tiktok", "bluesky", "mastodon", "keybase", "viber", "directly", "privately",
)

// platforms name chat and social services; strong ones are rarely anything else in prose.
var platforms = map[string]bool{ // name -> strong
	"telegram": true, "tg": true, "telega": true, "tlgrm": true, "whatsapp": true, "whatsap": true,
	"watsapp": true, "watsap": true, "wapp": true, "skype": true, "discord": true, "wechat": true,
	"weixin": true, "viber": true, "kakaotalk": true, "kakao": true, "snapchat": true, "instagram": true,
	"insta": true, "threema": true, "keybase": true, "icq": true, "wickr": true, "kik": true,
	"zalo": true, "imo": true, "twitter": true, "facebook": true, "tiktok": true, "linkedin": true,
	"reddit": true, "mastodon": true, "bluesky": true, "bsky": true, "jabber": true, "xmpp": true,
	"teams": false, "line": false, "signal": false, "session": false, "element": false, "matrix": false,
	"zoom": false, "snap": false, "ig": false, "wa": false, "x": false, "dc": false, "wx": false,
	"fb": false, "slack": false, "messenger": false, "github": false, "gitlab": false, "qq": false,
	"tox": false, "nostr": false, "threads": false, "vk": false, "wire": false, "tele": false,
	// payment handles are contact details too, and a way around the exchange
	"venmo": true, "cashapp": true, "revolut": true, "paypal": true, "zelle": true, "payoneer": true,
	"skrill": true, "wise": false,
	// labels that name a handle whatever the platform
	"handle": false, "username": false, "nickname": false, "screenname": false,
}

// handleFillers may stand between a platform name and the handle.
var handleFillers = Set(
	"everywhere", "across", "same", "socials", "platforms", "for", "everything", "all", "the",
	"id", "handle", "username", "user", "name", "nick", "nickname", "account", "acc", "acct", "is",
	"me", "at", "on", "via", "here", "contact", "tag", "my", "profile", "address", "addr", "number",
)

// handleLabels are fillers that say a handle follows, like a separator does.
var handleLabels = Set("id", "handle", "username", "user", "name", "nick", "nickname", "account", "acc", "acct", "is", "tag", "profile")

// handleNotNames are words that follow "discord:" or "telegram -" in ordinary prose.
var handleNotNames = Set(
	"bot", "bots", "server", "servers", "channel", "channels", "group", "groups", "api", "app", "apps",
	"integration", "webhook", "webhooks", "message", "messages", "community", "link", "links", "and",
	"or", "the", "a", "an", "for", "to", "with", "support", "notifications", "alerts", "login",
	"account", "accounts", "users", "client", "sdk", "library", "mini", "web", "desktop", "mobile",
	"export", "import", "data", "chat", "chats", "clone", "style", "theme", "version", "only", "not",
	"none", "n/a", "na", "yes", "no", "true", "false", "optional", "required", "later", "soon",
	"preferred", "ok", "fine", "please", "thanks", "thank", "too", "also", "is", "are", "was",
	"works", "work", "ads", "marketing", "posts", "feed", "stories", "reels", "video", "videos",
	"call", "calls", "voice", "premium", "nitro", "emoji", "emojis", "sticker", "stickers", "roles",
	"role", "permissions", "invite", "invites", "thread", "threads", "dms", "dm", "inbox",
)
