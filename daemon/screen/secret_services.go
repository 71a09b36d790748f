package screen

import (
	"regexp"
	"strings"
)

// Service tokens with a prefix of their own, keys in the address of an RPC provider, webhooks,
// session cookies and keys passed to a service's client.
var serviceSecretRules = []secretRule{
	// Doppler (dp.st.prd.…, dp.pt.…), Docker Hub (dckr_pat_…), 1Password service accounts
	// (ops_…), Notion integrations (secret_… of 43, ntn_…).
	srule(SecretToken, []string{"dp."}, `\bdp\.(?:st|pt|ct|sa|scim|audit)\.(?:[a-z0-9_\-]{1,40}\.)?[A-Za-z0-9]{40,44}\b`, 0, randomish(40, 3.5)),
	srule(SecretToken, []string{"dckr_"}, `\bdckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}`, 0, randomish(28, 3.5)),
	srule(SecretToken, []string{"ops_"}, `\bops_[A-Za-z0-9_\-]{40,}`, 0, mixedKey),
	srule(SecretToken, []string{"secret_", "ntn_"}, `\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,50})\b`, 0, mixedKey),
	// More services by prefix: Grafana, Linear, Figma, Sentry, Pulumi, Tailscale, Replicate, Groq,
	// Perplexity, xAI, Supabase, Shippo, Render, Netlify, Square, Postman, New Relic, Google OAuth
	// client secrets, Mapbox secret tokens, Databricks, Atlassian, Mailchimp, Google refresh tokens,
	// Facebook access tokens, Azure AD client secrets. A Mailchimp key (32 hex, then its data
	// centre) only where a key is spoken of.
	srule(SecretToken, []string{"glsa_", "glc_", "lin_api_", "figd_", "sntrys_", "sntryu_", "pul-", "tskey-", "r8_", "gsk_",
		"pplx-", "xai-", "sbp_", "shippo_", "rnd_", "nfp_", "sq0", "pmak-", "nrak-", "gocspx-", "sk.eyj", "dapi", "atatt3"},
		`\b(?:(?:glsa|glc|lin_api|figd|sntrys|sntryu|pul|tskey-auth|tskey-api|tskey-client|r8|gsk|pplx|xai|sbp|shippo_live|shippo_test|rnd|nfp|sq0atp|sq0csp|PMAK|NRAK|GOCSPX)[_\-][A-Za-z0-9_\-]{20,}|dapi[0-9a-f]{32}|sk\.eyJ[A-Za-z0-9_\-.]{40,}|ATATT3[A-Za-z0-9_\-=]{60,})`, 0,
		prefixedToken),
	srule(SecretAPIKey, []string{"mailchimp", "mandrill", "api"}, `\b[0-9a-f]{32}-us\d{1,2}\b`, 0, randomish(36, 3)).withPre(hex32),
	srule(SecretToken, []string{"1//0"}, `\b1//0[A-Za-z0-9_\-]{40,}`, 0, randomish(40, 4)),
	srule(SecretToken, []string{"facebook", "fb_", "access_token", "graph"}, `\bEAA[A-Za-z0-9]{80,}`, 0, mixedKey),
	srule(SecretGeneric, []string{"q~"}, `\b[A-Za-z0-9_\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}`, 0, randomish(38, 4)),
	// A Discord webhook: the channel's id, then its token.
	srule(SecretToken, []string{"/api/webhooks/"},
		`https?://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/\d{17,20}/([A-Za-z0-9_\-]{60,})`, 0,
		func(v, _ string) bool { return randomish(60, 4)(v[strings.LastIndexByte(v, '/')+1:], v) }),
	// A Microsoft Teams (Office 365) incoming webhook: its tenant and group ids, then its secret
	// and the connector's id.
	srule(SecretToken, []string{"incomingwebhook/"},
		`(?i)https://[a-z0-9.\-]*(?:office|office365)\.com/webhookb?2?/[0-9a-f\-]{36}@[0-9a-f\-]{36}/IncomingWebhook/([0-9a-f]{32}/[0-9a-f\-]{36})`, 1,
		func(v, _ string) bool { return entropy(v) >= 3 }),
	// An RPC provider's address with the key in its path: /v2/<key>, /v3/<key>, /<key>/.
	srule(SecretAPIKey, []string{"alchemy", "infura", "quiknode", "ankr", "chainstack", "getblock", "blastapi", "drpc",
		"nodereal", "rpc", "node"},
		`(?i)\b(?:https?|wss?)://[a-z0-9.\-]*(?:alchemy(?:api)?\.(?:com|io)|infura\.io|quiknode\.pro|ankr\.com|chainstack\.com|getblock\.io|blastapi\.io|drpc\.org|nodereal\.io|[a-z0-9\-]*(?:rpc|node)[a-z0-9\-]*\.[a-z.]+)(?::\d+)?/(?:[a-z0-9_\-]{1,20}/){0,3}?([A-Za-z0-9_\-]{24,})`, 1,
		rpcAddress).withPre(func(text string) bool { return strings.Contains(text, "://") }),
	// Session cookies: a session cookie's own name anywhere, any session or token cookie on a
	// cookie line (Cookie:, Set-Cookie:, document.cookie, curl -b / --cookie).
	srule(SecretToken, []string{"sid=", "sessid=", "session=", "sessionid="},
		`(?i)\b(?:connect\.sid|express\.sid|phpsessid|jsessionid|asp\.net_sessionid|laravel_session|sessionid|_[a-z0-9]+_session)=([^\s;,"'&]{20,})`, 1,
		randomish(20, 3.5)),
	{kind: SecretToken, keywords: []string{"cookie"}, group: 2, check: randomish(20, 3.5), around: onCookieLine,
		re: regexp.MustCompile(`(?i)\b([a-z0-9_.\-]*(?:sess|sid|token|auth)[a-z0-9_.\-]*)=([^\s;,"'&]{20,})`)},
	// A Discord bot token of any shape (a middle part of six or seven characters) where the code
	// logs a bot in or the words name it: client.login('...'), bot.run("..."), DISCORD_TOKEN=.
	{kind: SecretDiscordToken, keywords: []string{"login(", "run(", "discord", "bot"}, pre: discordShape, check: mixedKey, around: discordContext,
		re: regexp.MustCompile(`\b[A-Za-z0-9_\-]{23,28}\.[A-Za-z0-9_\-]{6,7}\.[A-Za-z0-9_\-]{27,40}\b`)},
	// A Square access token (EAAA and 60 characters), set apart from base64 around it.
	{kind: SecretToken, keywords: []string{"eaaa"}, group: 1, check: mixedKey, around: tokenWordBefore,
		re: regexp.MustCompile(`(?:^|[^A-Za-z0-9+/=_\-])(EAAA[A-Za-z0-9_\-]{56,76})(?:[^A-Za-z0-9+/=_\-]|$)`)},
	// A key handed to a service's client: cohere.Client("…"), new Client({ auth: '…' }).
	srule(SecretAPIKey, []string{"client("},
		`(?i)\b(?:client|clientv2|asyncclient)\(\s*\{?\s*(?:(?:api_?key|token|auth)\s*[=:]\s*)?["']([A-Za-z0-9_\-]{30,})["']`, 1,
		mixedKey),
}

func init() {
	addRules(serviceSecretRules)
}

// mixedKey decides on a generated key: upper- and lower-case letters and digits, random-looking.
func mixedKey(v, _ string) bool {
	return upLowDigit(v) && len(v) >= 30 && entropy(v) >= 4 && !placeholderWord(v)
}

// rpcKey decides on the key in an RPC address: random-looking (a 32-hex Infura key too), not a
// word or a name with dashes.
func rpcKey(v, _ string) bool {
	return entropy(v) >= 3.3 && classes(v) >= 2 && strings.ContainsAny(v, "0123456789") && !placeholderWord(v) &&
		(strings.Count(v, "-")+strings.Count(v, "_") <= 2 || len(v) >= 28 && mixedCase(v) && strings.Count(v, "-")+strings.Count(v, "_") <= 5)
}

// rpcAddress decides on an RPC address with a key: not an explorer's or an API's link to a
// transaction, a block, an address or a commit.
func rpcAddress(v, m string) bool {
	lo := strings.ToLower(m)
	for _, w := range []string{"/tx/", "/txs/", "/block", "/address", "/hash", "/commit", "/receipt"} {
		if strings.Contains(lo, w) {
			return false
		}
	}
	return rpcKey(v, m)
}

// onCookieLine reports whether the line before text[s:e] names cookies, and the cookie is not a
// CSRF token (which opens nothing by itself).
func onCookieLine(text string, s, _ int) bool {
	from := strings.LastIndexByte(text[:s], '\n') + 1
	line := strings.ToLower(text[from:s])
	name := line[strings.LastIndexAny(line, " ;:\"'")+1:]
	if strings.Contains(name, "csrf") || strings.Contains(name, "xsrf") {
		return false
	}
	return strings.Contains(line, "cookie") || strings.Contains(line, "curl") && strings.Contains(line, " -b")
}

// tokenWordBefore reports whether the 80 bytes before a value name a token: "square access token:",
// "SQUARE_TOKEN=", "Authorization: Bearer"; a run of base64 has none of them.
func tokenWordBefore(text string, s, _ int) bool {
	before := strings.ToLower(text[max(0, s-80):s])
	for _, w := range []string{"square", "token", "access", "bearer", "authorization"} {
		if strings.Contains(before, w) {
			return true
		}
	}
	return false
}

// discordContext reports whether the 60 bytes before a token log a bot in or name Discord or a bot.
func discordContext(text string, s, _ int) bool {
	before := strings.ToLower(text[max(0, s-60):s])
	for _, w := range []string{"login(", "run(", "discord", "bot"} {
		if strings.Contains(before, w) {
			return true
		}
	}
	return false
}

// prefixedToken decides on a token with a service's prefix: long, random-looking, with digits,
// its body mixed case, hexadecimal or capitals and digits ("rnd_seed_for_the_run_2024" is a name).
func prefixedToken(v, _ string) bool {
	if len(v) < 24 || entropy(v) < 3.5 || !strings.ContainsAny(v, "0123456789") || placeholderWord(v) {
		return false
	}
	body := v[strings.IndexAny(v, "_-.")+1:]
	var up, low bool
	for i := 0; i < len(body); i++ {
		up = up || body[i] >= 'A' && body[i] <= 'Z'
		low = low || body[i] >= 'a' && body[i] <= 'z'
	}
	return up && low || hexOnly(body) || !low
}
