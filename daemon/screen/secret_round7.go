package screen

import (
	"strings"
)

// Classes of credential from the seventh round: every Authorization scheme, a user and a
// password set side by side, credentials in a table's column, in an SQL INSERT, handed to a
// connection's constructor, under a Kubernetes Secret's data.
var round7SecretRules = []secretRule{
	// Authorization with any scheme: Bearer, Basic, Token token="...", SSWS, Splunk, key=...,
	// in a header, curl -H, nginx's proxy_set_header, a dict, an f-string.
	srule(SecretToken, []string{"authorization"},
		`(?i)\bauthorization["']?(?:[ \t]*[:=,][ \t]*|[ \t]+)(?:f?["'])?[ \t]*(?:([A-Za-z][A-Za-z0-9_\-]{1,24})[ \t]+)?(?:[A-Za-z_]{1,16}=)?["'{]*([A-Za-z0-9\-._~+/:=]{12,})`, 2,
		authValue),
	// user : password after a word for credentials: "creds for the staging admin -> lin.wei : X"
	srule(SecretPassword, []string{"login", "creds", "credentials", "account", "access"},
		`(?i)\b(?:login|logins|creds|credentials|account|access)\b[^\n]{0,40}?[ \t][\w.\-]{2,32}[ \t]+:[ \t]+([^\s]{5,63}[^\s.,;:)'"])`, 1,
		func(v, _ string) bool { return passwordToken(v) }),
	// a conventional administrator's name, a slash and a password: "root / X", "admin/X"
	srule(SecretPassword, []string{"/"},
		`(?i)(?:^|[\s'"(`+"`"+`])(?:root|admin|administrator|ubuntu|deploy|deployer|postgres|sa|pi|ec2-user|debian|centos|oracle|ftpuser|guest|operator|support|webmaster)[ \t]*/[ \t]*([^\s'"`+"`"+`]{5,63}[^\s.,;:)'"`+"`"+`])`, 1,
		func(v, _ string) bool { return passwordToken(v) }),
}

func init() {
	addRules(round7SecretRules)
}

// authValue decides on the credential of an Authorization header: for Basic, user:password in
// base64 or a random value; for any other scheme a random-looking value with a digit.
func authValue(v, m string) bool {
	v = strings.TrimRight(v, ".,")
	if placeholder(v) || strings.Contains(m, "${") || strings.Contains(m, "{{") {
		return false
	}
	lo := strings.ToLower(m)
	if strings.Contains(lo, "basic ") {
		return basicValue(v, m) || len(v) >= 12 && upLowDigit(v) && entropy(v) >= 3.5 && !placeholderWord(v)
	}
	return len(v) >= 12 && entropy(v) >= 3.2 && strings.ContainsAny(v, "0123456789") && classes(v) >= 2 && !placeholderWord(v)
}
