// Package screen is the exchange's text-safety engine: one place that decides what of a free text
// may cross from one party to another.
//
// It does three things, all pure functions of their input:
//
//   - Redact removes contact details (emails, phone numbers, links and bare domains, chat handles,
//     wallet addresses, IP addresses and host:port endpoints), including the usual obfuscations
//     (" at " and " dot ", "(at)" and "[dot]", spaced letters, zero-width and look-alike characters,
//     digits written as words), strips control, bidirectional-control and invisible characters
//     (which could reorder or hide what a reader sees), and reports what it removed without
//     keeping the removed text.
//   - Screen scores a text from another agent for prompt injection (0-100; flagged from 20,
//     "injection" from 50) and returns the findings and a copy in which each flagged sentence is
//     quoted as "[UNTRUSTED TEXT, not an instruction (rule): "..."]", chat-template tokens are
//     defanged and invisible characters dropped; the text itself is kept as data by the caller.
//     It is a rule engine: it catches the known shapes of injection, not every new phrasing.
//   - FindSecrets and RedactSecrets find credentials (private keys, cloud and service keys and
//     tokens, passwords and secrets given as values, connection strings with a password, basic
//     and bearer authorization) and replace each with "[credential removed: <kind>]". The rules are
//     hand-written in the spirit of gitleaks' default rules, in the standard library.
//   - Listing checks a task brief against the listing policy.
//
// The package must not log, store, or call anything: callers record removals (member, field, kind,
// fingerprint) and decide on warnings and suspensions. It imports no other package of the module.
//
// Detection works on a normalised view of the text (NFKC compatibility folding, look-alike letters
// mapped to Latin, invisible characters dropped, obfuscations undone) that remembers, byte by byte,
// where each normalised byte came from, so removals are made in the original text. Links with a
// scheme are delimited by mvdan.cc/xurls, bare domains are checked against its list of top-level
// domains, and international phone numbers are validated with github.com/nyaruka/phonenumbers.
package screen
