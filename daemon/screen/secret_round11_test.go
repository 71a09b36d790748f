package screen

import (
	"strings"
	"testing"
)

// checkRemoved asserts that FindSecrets removes every value of want from text.
func checkRemoved(t *testing.T, text string, want ...string) {
	t.Helper()
	rs := FindSecrets(text)
	for _, w := range want {
		at := strings.Index(text, w)
		ok := false
		for _, r := range rs {
			ok = ok || r.Start <= at && r.End >= at+len(w)
		}
		if !ok {
			t.Errorf("%q not removed from %q (found %v)", w, text, rs)
		}
	}
}

// Round 11 (classes of miss and false alarm of the eleventh held-out set): names and values kept
// apart by a file's layout (property lists, Android resources, JSON lists of name and value
// objects, a password resource's generated result), two-factor recovery codes, a key continued
// by string concatenation, a value a console prints under the line that read it, a wallet key in
// a first and a second half, pairs of a connection string or of an object without spaces, the
// answer on the line after a question ending on the credential word, make's ?=, requirepass,
// Indonesian -nya, a value after a login word that no user's name looks like. Not secrets: a PowerShell command after $pw =, the user's name after
// -UserName, the key of a mobile Firebase configuration, a documented example key; and their
// near look-alikes.
func TestSecretRound11(t *testing.T) {
	checkFound(t, []string{
		"<key>PaymentsSecretKey</key>\n<string>Hq4vT9zLm2Rw8XcB1nPe6YsK3dF0</string>",
		`<string name="backend_api_token">u7TqZ2mWx9LcR4vN8bKe1HsJ5pY0</string>`,
		`{"cookies":[{"name":"laravel_session","value":"k3m9q2x7v1z8w4r6t0y5u2i8o3p7a1s4"}]}`,
		`{"variable":[{"key":"admin_password","value":"Tulip$8842vx"}]}`,
		`{"type": "random_password", "name": "api", "instances": [{"attributes": {"length": 20, "result": "p]Q7v#Lm2x!Rk9w@Zt4e"}}]}`,
		"Backup codes (keep them offline):\n- 4kd8-2mq9\n- 7xw1-p0zt\n- q8rn-5vbc\n- 2hjy-9e6f",
		"deploy key, first half: 8f3a2c9d1e7b4a6f0c5d8e2b9a1f7c3e\nsecond half: 4d6a8b0c2e1f3a5c7e9b1d3f5a7c9e2b",
		"Connection: Server=db01;Database=ops;User Id=ops;Password=Glimmer$4421;",
		`{"ctx":"{\"login\":\"ops\",\"password\":\"Vk7=qP2mXw9r\"}"}`,
		"ADMIN_PASS ?= Quartz#8817pine",
		"requirepass Mq8vX2kLz7Rt4wNb",
		"kata sandinya qv7m2xk9rt4w",
		"use this to log in: Harbor7731!",
	}, []string{
		"log in: Maria.Lopez_1984",
		"login: ops-Team2026@corp.example",
		"<key>CFBundleShortVersionString</key>\n<string>4.12.0</string>",
		`<string name="app_name">Harbor Shop</string>`,
		`{"cookies":[{"name":"theme","value":"k3m9q2x7v1z8w4r6t0y5u2i8o3p7a1s4"}]}`,
		`{"variable":[{"key":"admin_password","value":"{{adminPassword}}"}]}`,
		`{"type": "random_pet", "name": "api", "instances": [{"attributes": {"length": 2, "id": "brave-otter"}}]}`,
		"Backup codes were regenerated on 2026-11-02; keep them offline.",
		"Recovery codes:\n- abcd-efgh\n- ijkl-mnop\n- qrst-uvwx",
		"trace, first half: 8f3a2c9d1e7b4a6f0c5d8e2b9a1f7c3e\nspan, second half: 4d6a8b0c2e1f3a5c7e9b1d3f5a7c9e2b",
		"Server=db01;Database=ops;Integrated Security=true;Password=;",
		"$pw = Read-Host -AsSecureString 'Password for the share'",
		"$cred = Get-Credential -UserName 'CORP\\backup-svc' -Message 'enter password'",
		`{"project_info":{"project_number":"418826330217"},"client":[{"client_info":{"mobilesdk_app_id":"1:418826330217:android:5f1e2d3c4b5a6978"},"api_key":[{"current_key":"AIzaSyD4v8Qm2Xk7Lr9Tw1Ne6Hc3Bz5Py0Uf8Ja"}]}]}`,
		"Example from the docs (not a real key): sk_test_4eC39HqLyjWDarjtT1zdp7dc",
		"ADMIN_PASS ?= $(shell cat .admin-pass)",
		"what's the password?\nI'll send it over Signal tonight.",
	})
	checkRemoved(t, "const secret = \"sk_live_7Rq2mXv9Lk\" +\n    \"Tz4wNb8cYe1HsJ5pQ3dF\";", "sk_live_7Rq2mXv9Lk", "Tz4wNb8cYe1HsJ5pQ3dF")
	checkRemoved(t, "> localStorage.getItem('access_token')\n'Zq8vR2mXk7Lt4wNb9cYe1HsJ5pQ3dFa6GhUi0o'", "Zq8vR2mXk7Lt4wNb9cYe1HsJ5pQ3dFa6GhUi0o")
	checkRemoved(t, "[14:01] ana: can you paste the db creds?\n[14:02] tom: ops:Lantern#5521q", "Lantern#5521q")
	checkRemoved(t, "GitHub recovery codes:\nq7m2x-9kv4t\nw1z8r-c5n3p\nb6y0e-h2j7s", "q7m2x-9kv4t", "w1z8r-c5n3p", "b6y0e-h2j7s")
}
