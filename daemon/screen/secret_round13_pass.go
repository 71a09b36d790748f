package screen

import (
	"regexp"
	"strings"
)

// settingWords are values of a setting, not of a password: password_login: disabled, "Password:
// whatever you like".
var settingWords = map[string]bool{"disabled": true, "enabled": true, "disable": true, "enable": true, "none": true,
	"required": true, "optional": true, "true": true, "false": true, "yes": true, "no": true, "on": true, "off": true,
	"allowed": true, "denied": true, "forbidden": true, "prompt": true, "never": true, "always": true, "manual": true,
	"whatever": true, "anything": true, "something": true, "whichever": true, "null": true, "nil": true, "empty": true}

// codeType is a type in code, a pointer or a reference to one: *testing.T, &http.Client.
var codeType = regexp.MustCompile(`^[*&]+[a-z_][A-Za-z0-9_]*\.[A-Z][A-Za-z0-9_]*$`)

// encryptedLabel is a label that calls the value after it encrypted: "ciphertext (AES-GCM): ",
// "encrypted_password = ", "Encrypted: "; not a call (fromEncryptedJson) nor SQL's WITH
// ENCRYPTED PASSWORD, which takes the password in clear.
var encryptedLabel = regexp.MustCompile(`(?i)(?:^|[^A-Za-z])(?:ciphertext|encrypted|encrypted[_-]?(?:data|value|password|secret|key|blob))(?:[ \t]*\([^)\n]*\))?[ \t]*["']?[ \t]*[:=][ \t]*["']?$`)

// notSecretHere reports a value found after a secret's name that holds none: data encrypted
// for a key the writer does not hand over (a SealedSecret's encryptedData, an Ansible Vault
// block, ciphertext called so), a value inside an Amazon resource name, a Razorpay key id (the
// public half), a type in code, a setting's word.
func notSecretHere(text string, s, e int) bool {
	v := text[s:e]
	if len(v) <= 9 && settingWords[strings.ToLower(strings.Trim(v, "\"'`"))] || (v[0] == '*' || v[0] == '&') && codeType.MatchString(v) {
		return true
	}
	if masked(v) || referenceName(text, s) || yamlTagValue(text, s, e) || proseValue(v) || ticketPass(text, s) || notSecretRound16(text, s, e) {
		return true
	}
	if strings.HasPrefix(v, "rzp_live_") || strings.HasPrefix(v, "rzp_test_") {
		if len(v) == 23 && (e == len(text) || !IsAlnum(text[e])) {
			return true // a key id: rzp_live_ and 14 characters
		}
	}
	w := s
	for w > 0 && strings.IndexByte(" \t\n\"'=,(", text[w-1]) < 0 {
		w--
	}
	if lw := strings.ToLower(text[w:s]); strings.HasPrefix(lw, "arn:aws") || strings.HasPrefix(lw, "arn:") && strings.Count(lw, ":") >= 5 {
		return true
	}
	return encryptedContext(text, s)
}

// encryptedContext reports whether text[s] stands in encrypted data: under a YAML
// encryptedData: (a SealedSecret), in an Ansible Vault block, or on a line that calls its value
// ciphertext or encrypted before it.
func encryptedContext(text string, s int) bool {
	ls := strings.LastIndexByte(text[:s], '\n') + 1
	if line := strings.ToLower(text[ls:s]); (strings.Contains(line, "encrypted") || strings.Contains(line, "ciphertext")) &&
		encryptedLabel.MatchString(line) {
		return true
	}
	if v := strings.LastIndex(text[:s], "$ANSIBLE_VAULT;"); v >= 0 && !strings.Contains(text[v:s], "\n\n") {
		return true
	}
	if d := strings.LastIndex(text[:s], "encryptedData:"); d >= 0 {
		// still under it: every line between is indented deeper than the key
		ks := strings.LastIndexByte(text[:d], '\n') + 1
		indent := d - ks
		for p := strings.IndexByte(text[d:s], '\n'); p >= 0; {
			at := d + p + 1
			if at >= s {
				break
			}
			n := 0
			for at+n < len(text) && text[at+n] == ' ' {
				n++
			}
			if n <= indent && at+n < len(text) && text[at+n] != '\n' {
				return false
			}
			q := strings.IndexByte(text[at:s], '\n')
			if q < 0 {
				break
			}
			p = at + q - d
		}
		return true
	}
	return false
}
