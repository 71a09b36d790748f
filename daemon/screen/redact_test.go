package screen

import (
	"strings"
	"testing"
)

func TestRedactKinds(t *testing.T) {
	tests := []struct {
		name, in, want string
		kinds          []string
	}{
		{"email", "write to maria.gonzalez@gmail.com today", "write to [email removed] today", []string{KindEmail}},
		{"email plus tag", "billing+axp@northwind.org", "[email removed]", []string{KindEmail}},
		{"email webmail without tld", "bob@gmail", "[email removed]", []string{KindEmail}},
		{"mailto", "mailto:ops@example.com?subject=hi", "[email removed]", []string{KindEmail}},
		// Reserved top-level domains (RFC 2606, RFC 6761, ICANN's .internal) still carry addresses.
		{"email on .example", "write to a@b.example today", "write to [email removed] today", []string{KindEmail}},
		{"email on .internal", "a@mail.internal", "[email removed]", []string{KindEmail}},
		{"email on .test", "x@y.test", "[email removed]", []string{KindEmail}},
		{"email on .invalid", "reply to x@y.invalid.", "reply to [email removed].", []string{KindEmail}},
		{"email on .localhost", "x@host.localhost", "[email removed]", []string{KindEmail}},
		{"email on a reserved subdomain", "Ops.Team+axp@Mail.Corp.EXAMPLE", "[email removed]", []string{KindEmail}},
		{"phone international", "call +44 20 7946 0958 after 6", "call [phone removed] after 6", []string{KindPhone}},
		{"phone 00 prefix", "dial 0044 20 7946 0112 now", "dial [phone removed] now", []string{KindPhone}},
		{"phone national US", "call (415) 555-0132.", "call [phone removed].", []string{KindPhone}},
		{"phone national UK", "07700 900123 text first", "[phone removed] text first", []string{KindPhone}},
		{"phone with context", "whatsapp 5551234567", "whatsapp [phone removed]", []string{KindPhone}},
		{"tel link", "tel:+442079460958", "[phone removed]", []string{KindPhone}},
		{"url", "see https://example.org/pricing#plans.", "see [url removed].", []string{KindURL}},
		{"url www", "www.example.com is mine", "[url removed] is mine", []string{KindURL}},
		{"url path", "example.com/order?id=3 works", "[url removed] works", []string{KindURL}},
		{"domain", "visit acmewidgets.com", "visit [domain removed]", []string{KindDomain}},
		{"domain co.uk", "fastlogo.co.uk", "[domain removed]", []string{KindDomain}},
		{"domain weak tld with context", "my site: sunnydesigns.art", "my site: [domain removed]", []string{KindDomain}},
		{"telegram", "tg: @cryptoking", "tg: [handle removed]", []string{KindHandle}},
		{"telegram link", "t.me/quickwriter", "[handle removed]", []string{KindHandle}},
		{"whatsapp link", "wa.me/447700900123", "[handle removed]", []string{KindHandle}},
		{"discord tag", "discord: shadowfox#1234", "discord: [handle removed]", []string{KindHandle}},
		{"discord name", "add me on discord: nightowl_88", "add me on discord: [handle removed]", []string{KindHandle}},
		{"skype live", "skype: live:.cid.12ab34cd", "skype: [handle removed]", []string{KindHandle}},
		{"wechat id", "WeChat: wxid_abc123def456", "WeChat: [handle removed]", []string{KindHandle}},
		{"signal username", "Signal username: alex.42", "Signal username: [handle removed]", []string{KindHandle}},
		{"dm me mention", "dm me @quickfix_bob", "dm me [handle removed]", []string{KindHandle}},
		{"matrix", "Matrix @jk:matrix.org", "Matrix [handle removed]", []string{KindHandle}},
		{"evm", "0x4b21aea977cf7a357bb74836c272611bda6b1b88", "[wallet removed]", []string{KindWallet}},
		{"bitcoin legacy", "BTC: 1Ds25EZ9pxxELLm367f8WvFSaQmSPByQ6J", "BTC: [wallet removed]", []string{KindWallet}},
		{"bitcoin p2sh", "33bBRvXjU87tpuKpSmf8XpuY1dTkf2txXQ", "[wallet removed]", []string{KindWallet}},
		{"bitcoin bech32", "bc1qen0vlzvxm8y93vkgu47dtm0tqq87vevge4ejr9", "[wallet removed]", []string{KindWallet}},
		{"bitcoin taproot", "bc1p3jlr806kxqr5lm98m6zs8qrcc5xfus302fyyanqq2n53n6cuwy5qwkx96t", "[wallet removed]", []string{KindWallet}},
		{"tron", "TRC20 TNyhpr42jEPPdtf7J5FH6zVCKt2vTpahCS", "TRC20 [wallet removed]", []string{KindWallet}},
		{"solana in context", "my solana address 6M622AwYfLvD7ojxCk7eS6y6hCqy3W3oytiWpt1eUrEf", "my solana address [wallet removed]", []string{KindWallet}},
		{"xrp", "rJY2pDf9izFJQDRh7PhizMyMaTThQiACMH", "[wallet removed]", []string{KindWallet}},
		{"litecoin", "LS6aKgZ5wF4byhKBVB7pzKPUJnsoBdCcZL", "[wallet removed]", []string{KindWallet}},
		{"ton", "EQB0apnUsynsmC7Ckh02IAMa9viGJxvJAhmquZmbfuopVTci", "[wallet removed]", []string{KindWallet}},
		{"ens", "send it to janedoe.eth", "send it to [wallet removed]", []string{KindWallet}},
		{"iban", "IBAN DE89 3704 0044 0532 0130 00 please", "IBAN [wallet removed] please", []string{KindWallet}},
		{"payment handle", "venmo @coolguy-99", "venmo [handle removed]", []string{KindHandle}},
		{"cashtag", "cashapp $coolguy99", "cashapp [handle removed]", []string{KindHandle}},
		{"handle label", "my handle everywhere: coolguy99", "my handle everywhere: [handle removed]", []string{KindHandle}},
		{"handle before platform", "I'm marta_makes on Telegram too.", "I'm [handle removed] on Telegram too.", []string{KindHandle}},
		{"ipv4", "server 203.0.113.45 is up", "server [ip removed] is up", []string{KindIP}},
		{"ipv6", "IPv6: 2001:db8:85a3::8a2e:370:7334", "IPv6: [ip removed]", []string{KindIP}},
		{"ip and port", "198.51.100.23:8080 live", "[endpoint removed] live", []string{KindEndpoint}},
		{"ipv6 and port", "[2001:db8::42]:8443", "[endpoint removed]", []string{KindEndpoint}},
		{"domain and port", "api.mycompany.io:8443", "[endpoint removed]", []string{KindEndpoint}},
		{"ssh target", "ssh -p 2222 deploy@box17", "ssh -p 2222 [endpoint removed]", []string{KindEndpoint}},
		{"host and port with context", "connect to box gpu-node-7:2222", "connect to box [endpoint removed]", []string{KindEndpoint}},
		{"connection string", "redis://203.0.113.9:6379/0", "[endpoint removed]", []string{KindEndpoint}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rs := Redact(tt.in)
			if got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
			var kinds []string
			for _, r := range rs {
				kinds = append(kinds, r.Kind)
			}
			if strings.Join(kinds, ",") != strings.Join(tt.kinds, ",") {
				t.Errorf("kinds %v, want %v", kinds, tt.kinds)
			}
		})
	}
}

func TestRedactObfuscations(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"at dot words", "email me at john dot smith at gmail dot com", "email me at [email removed]"},
		{"bracket at dot", "maria (at) outlook (dot) com", "[email removed]"},
		{"square brackets", "anna[at]protonmail[dot]me", "[email removed]"},
		{"braces", "peter{at}yahoo{dot}com", "[email removed]"},
		{"upper case words", "s.jones AT hotmail DOT co DOT uk", "[email removed]"},
		{"spaced letters", "j o h n @ g m a i l . c o m", "[email removed]"},
		{"spaces around at and dot", "dave @ gmail . com", "[email removed]"},
		{"zero-width characters", "jo\u200bhn@gm\u200bail.com", "[email removed]"},
		{"full-width characters", "ｍａｒｉａ＠ｏｕｔｌｏｏｋ．ｃｏｍ", "[email removed]"},
		{"cyrillic look-alikes", "jоhn.smіth@gmаil.com", "[email removed]"},
		{"mathematical letters", "𝐣𝐨𝐡𝐧@𝐠𝐦𝐚𝐢𝐥.𝐜𝐨𝐦", "[email removed]"},
		{"ideographic full stop", "john@gmail。com", "[email removed]"},
		{"digits as words", "call five five five, one two three, four five six seven", "call [phone removed]"},
		{"plus in words", "plus four four seven seven zero zero nine zero zero one two three", "[phone removed]"},
		{"mixed words and digits", "whatsapp +44 seven seven zero zero 900 123", "whatsapp [phone removed]"},
		{"spaced digits", "5 5 5 - 0 1 3 2 - 4 4 7 8 call me", "[phone removed] call me"},
		{"arabic-indic digits", "+٤٤ ٢٠ ٧٩٤٦ ٠٩٥٨", "[phone removed]"},
		{"full-width digits", "＋４４ ２０ ７９４６ ０９５８", "[phone removed]"},
		{"zero-width inside digits", "phone: 4\u200b1\u200b5\u200b5\u200b5\u200b5\u200b0\u200b1\u200b3\u200b2", "phone: [phone removed]"},
		{"dot word domain", "mysite dot com", "[domain removed]"},
		{"bracket dot url", "hxxps://evil-example[.]com/login", "[url removed]"},
		{"spaced url", "h t t p s : / / b i t . l y / a b c 1 2 3", "[url removed]"},
		{"spaced telegram link", "t . me / cryptoking", "[handle removed]"},
		{"spaced handle", "tg: @ c r y p t o k i n g", "tg: [handle removed]"},
		{"grouped evm address", "0x71C7 656E C7ab 88b0 98de fB75 1B74 01B5 f6d8 976F", "[wallet removed]"},
		{"grouped bech32", "bc1q xgyc fyxh jdk7 3lay sygt uasq dhdx th49 ax66 pm", "[wallet removed]"},
		{"spaced ip", "ip 203 . 0 . 113 . 45", "ip [ip removed]"},
		{"dot word ip", "198 dot 51 dot 100 dot 23", "[ip removed]"},
		{"webmail named first", "gmail: jkowalczyk.pl", "gmail: [email removed]"},
		{"hyphenated words", "john-at-gmail-dot-com", "[email removed]"},
		{"underscored words", "john_at_gmail_dot_com", "[email removed]"},
		{"spaced with bracket dot", "e x a m p l e (dot) c o m", "[domain removed]"},
		{"at dot words on .example", "write to ana at mail dot example", "write to [email removed]"},
		{"bracket at dot on .internal", "john [at] corp [dot] internal", "[email removed]"},
		{"paren at dot on .test", "maria (at) shop (dot) test", "[email removed]"},
		{"spaces around at and dot on .invalid", "dave @ mail . invalid", "[email removed]"},
		{"spaced letters on .test", "j o h n @ m a i l . t e s t", "[email removed]"},
		{"hyphenated words on .localhost", "john-at-box-dot-localhost", "[email removed]"},
		{"full-width on .example", "ｍａｒｉａ＠ｍａｉｌ．ｅｘａｍｐｌｅ", "[email removed]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactLeavesCleanTextsAlone(t *testing.T) {
	for _, in := range []string{
		"Prices are US$4.50 and €12,50 per 1,000 words.",
		"Version v1.2.3 replaces 1.2.2; Chrome 120.0.6099.109 is fine.",
		"Meet at 10:30 on 2026-10-07, or 07.10.2026, or 10/07/2026.",
		"Write the results to output.txt and the notes to README.md.",
		"The constant is 3.14159265 and the mask 255.255.255.0.",
		"user.name, logger.info(msg), window.top and os.path.join are code.",
		"Node.js, ASP.NET, socket.io and .NET 8 are frameworks.",
		"Look at the logs and meet at noon.",
		"ISBN 978-3-16-148410-0, order #123456789, task_01HZX3K9QW8Y7V6T5S4R3P2N1M.",
		"Bind to 127.0.0.1 or localhost:3000 while developing.",
		"Use pay.example, api.test and db.internal as placeholder hosts; never ship *.invalid names.",
		"Add the @Override annotation; npm i -D @types/node; lodash@4.17.21; icon@2x.png.",
		"The ratio is 16:9, the sum 2^32, the tolerance 1e-9.",
		"Build a Telegram bot and a Discord bot; signal processing on line 42.",
		"We had 1 000 000 visits; population 8,336,817; range 2019-2023.",
		"x + y = 10 and x - y = 4, so x = 7.",
		"",
		"ok",
	} {
		if got, rs := Redact(in); got != in || rs != nil {
			t.Errorf("Redact(%q) = %q, %v; want it unchanged", in, got, rs)
		}
	}
}

func TestRedactKeepLinks(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://data.example.org/2026/prices.csv", "https://data.example.org/2026/prices.csv"},
		{"example.com/feed.xml", "example.com/feed.xml"},
		{"ftp://files.dataprovider.net/pub/exports/", "ftp://files.dataprovider.net/pub/exports/"},
		{"https://example.com/report/2026-10-07/5551234567.csv", "https://example.com/report/2026-10-07/5551234567.csv"},
		{"https://example.com/data.csv or mail ops@example.com", "https://example.com/data.csv or mail [email removed]"},
		{"mailto:ops@example.com", "[email removed]"},
		{"https://data.example/prices.csv or mail ops@data.example", "https://data.example/prices.csv or mail [email removed]"},
		{"https://t.me/channel", "[handle removed]"},
		{"tel:+442079460958", "[phone removed]"},
		{"+44 20 7946 0958", "[phone removed]"},
	}
	for _, tt := range tests {
		if got, _ := RedactKeepLinks(tt.in); got != tt.want {
			t.Errorf("RedactKeepLinks(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRemovalOffsetsAndFingerprints(t *testing.T) {
	in := "Mail jоhn@gmаil.com or call +44 20 7946 0958."
	out, rs := Redact(in)
	if len(rs) != 2 {
		t.Fatalf("removals %v", rs)
	}
	if got := in[rs[0].Start:rs[0].End]; got != "jоhn@gmаil.com" {
		t.Errorf("first removal covers %q", got)
	}
	if got := in[rs[1].Start:rs[1].End]; got != "+44 20 7946 0958" {
		t.Errorf("second removal covers %q", got)
	}
	if len(rs[0].Fingerprint) != 8 || rs[0].Fingerprint == rs[1].Fingerprint {
		t.Errorf("fingerprints %q %q", rs[0].Fingerprint, rs[1].Fingerprint)
	}
	_, again := Redact("call +44 20 7946 0958 now")
	if again[0].Fingerprint != rs[1].Fingerprint {
		t.Errorf("same number, different fingerprint: %q %q", again[0].Fingerprint, rs[1].Fingerprint)
	}
	if strings.Contains(out, "gm") || strings.Contains(out, "7946") {
		t.Errorf("output %q still holds the details", out)
	}
}

func FuzzRedact(f *testing.F) {
	for _, s := range []string{"john at gmail dot com", "+44 20 7946 0958", "j o h n @ x . c o", "0x71C7 656E", "((at)[dot]", "@@@", "１２３４５６７８"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, rs := Redact(in)
		prev := 0
		for _, r := range rs {
			if r.Start < prev || r.End <= r.Start || r.End > len(in) {
				t.Fatalf("bad removal %+v in %q", r, in)
			}
			prev = r.End
		}
		if len(rs) == 0 && out != in {
			t.Fatalf("changed without removals: %q -> %q", in, out)
		}
	})
}

func TestRedactOwnKeepsTheExchangesLinks(t *testing.T) {
	own := []string{"127.0.0.1", "axp.example.com"}
	for _, tc := range []struct{ in, want string }{
		{`{"deliver_url":"http://127.0.0.1:8420/api/tasks/tsk_1/deliver"}`, `{"deliver_url":"http://127.0.0.1:8420/api/tasks/tsk_1/deliver"}`},
		{"see https://axp.example.com/openapi.json or axp.example.com/join", "see https://axp.example.com/openapi.json or axp.example.com/join"},
		{"mine: https://other.example.org/x and 10.1.2.3:22", "mine: [url removed] and [endpoint removed]"},
		{"write to bob@axp.example.com", "write to [email removed]"},
	} {
		got, _ := RedactOwn(tc.in, false, own)
		if got != tc.want {
			t.Errorf("RedactOwn(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, _ := RedactOwn("https://axp.example.com/x", false, nil); got != "[url removed]" {
		t.Errorf("without own hosts: %q", got)
	}
	if got, _ := Redact("http://127.0.0.1:8420/api/tasks/tsk_1/deliver"); got == "http://127.0.0.1:8420/api/tasks/tsk_1/deliver" {
		t.Errorf("a loopback link is no contact detail even without own hosts: the test above proves nothing")
	}
}
