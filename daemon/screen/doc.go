// Package screen is the exchange's text-safety engine: one place that decides what of a free text
// may cross from one party to another.
//
// It does these things, all pure functions of their input (prompt-injection scoring is package
// screen/injection, the listing policy package screen/listing; both build on its normalised view):
//
//   - Redact removes contact details (emails, phone numbers, links and bare domains, chat handles,
//     wallet addresses, IP addresses and host:port endpoints), including the usual obfuscations
//     (" at " and " dot ", "(at)" and "[dot]", spaced letters, zero-width and look-alike characters,
//     digits written as words), strips control, bidirectional-control and invisible characters
//     (which could reorder or hide what a reader sees), and reports what it removed without
//     keeping the removed text.
//   - FindSecrets and RedactSecrets find credentials (private keys, cloud and service keys and
//     tokens, passwords and secrets given as values, connection strings with a password, basic
//     and bearer authorization) and replace each with "[credential removed: <kind>]". The rules are
//     hand-written in the spirit of gitleaks' default rules, in the standard library.
//
// The package must not log, store, or call anything: callers record removals (member, field, kind,
// fingerprint) and decide on warnings and suspensions. It imports no other package of the module.
// ScreenView, Segments, Leet, Excerpt and the byte classes are exported for those two packages.
//
// Detection works on a normalised view of the text (NFKC compatibility folding, look-alike letters
// mapped to Latin, invisible characters dropped, obfuscations undone) that remembers, byte by byte,
// where each normalised byte came from, so removals are made in the original text. Links with a
// scheme are delimited by mvdan.cc/xurls, bare domains are checked against its list of top-level
// domains, and international phone numbers are validated with github.com/nyaruka/phonenumbers.
package screen
