package screen

import "testing"

// Identifiers that open nothing by themselves pass, alone and beside their secret; the secret
// goes, and a Google key outside a Firebase web configuration goes.
func TestSecretPublicIdentifiers(t *testing.T) {
	checkFound(t, []string{
		"AWS_ACCESS_KEY_ID=AKIA4Q7ZKX2MNB8VR3TD\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Kd93Hw2",
		"GOOGLE_MAPS_KEY=AIzaSyD4kX9mQ2rT7vW1yZ3bC5nF8gH0jL6pS2u",
		"Firebase server key: AIza42Lhxlklf3ifp2Xt2mCZ1Z9mFeE2UWDoK49",
	}, []string{
		"AWS_ACCESS_KEY_ID=AKIA4Q7ZKX2MNB8VR3TD",
		"Use access key ASIASIFI14UNQAHIMLIU with the secret I sent.",
		`provider "aws" { access_key = "AKIAOTCENTNXAZBL62ZZ" }`,
		"the IAM user's access key id is AKIAT5QQK3DELNHKWKW5 (the secret is in the vault)",
		"const firebaseConfig = {\n  apiKey: \"AIzaEWwb3TqFincZkOBEOrzICeFtWis5tARms9Q\",\n  authDomain: \"shop-693.firebaseapp.com\",\n  projectId: \"shop-958\"\n};",
		"const STRIPE_PK = 'pk_live_51HqLmX2eZvKYlo2C8n3bQ9vTxw7Yq1';",
	})
	for _, r := range FindSecrets("AWS_ACCESS_KEY_ID=AKIA4Q7ZKX2MNB8VR3TD\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Kd93Hw2") {
		if r.Start < 38 {
			t.Errorf("the key id went: %+v", r)
		}
	}
}
