package screen

import "testing"

// Values after a secret's name that hold none: data encrypted for a key the writer does not hand
// over (a SealedSecret's encryptedData, an Ansible Vault block, ciphertext called so), a secret
// manager's ARN, a Razorpay key id (the public half, 14 characters after rzp_live_), a type in
// code, a setting's word, "whatever". Their near look-alikes still go: a password beside
// encryptedData but outside it, SQL's WITH ENCRYPTED PASSWORD (given in clear), a Razorpay key
// secret, a password starting with &.
func TestSecretNotSecretValues(t *testing.T) {
	checkMarked(t, []string{
		"kind: SealedSecret\nspec:\n  encryptedData:\n    password: AgBlgvMFHJpm0NMax+XpFCKYtAnaCWVcFY5GGV4+PACU4so4NX1zBJJY\nstringData:\n  password: «Tq8!vLm2Zx9»",
		"ALTER USER svc WITH ENCRYPTED PASSWORD '«CometQuartz634?»';",
		"const w = await ethers.Wallet.fromEncryptedJson(json, \"«Cobalt#8881QAP»\");",
		"RAZORPAY_KEY_ID=rzp_live_12X5ZTW1TqoE43\nRAZORPAY_KEY_SECRET=«Jb7sKq2LmX9vTz4RwN8pYc3D»",
		"javax.net.ssl.trustStorePassword=«&Bu9LHJ8G6rx»",
		"unencrypted password: «Wq7#zPm3Lk»",
	}, []string{
		"apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nspec:\n  encryptedData:\n    password: AgBlgvMFHJpm0NMax+XpFCKYtAnaCWVcFY5GGV4+PACU4so4NX1zBJJYtMeAQpP2UmwGJkUiDz/D3/rRhacsI4QvQMgcbCK+62r+sk4vMOo1Q4dqpEs6N3eyzZYIcMga0itOPJYC95ZIN2XfLEyEfuUUs6nqAO7D5ubcz1t99JUrXVLmoVRRCAW6YKX4tLczowkOEgFgKWilA3dnLNMbMPvuuDyqtshtZl2EhrF2mD/YGd8\n    api_key: AgB2lBykzlCQVe3Ugrf19rmqXMt3ms6oaV20ueTsmnuEty8+ln2Fb7M6jH8G1Ix13AgbyNByjXBcKx842auAdTdONXgB4YGbmyWQEhKn",
		"api_key: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  f7cf547a54f4100436ac6cf6203b8121e9dcd452dbae855c28c0151948444172\n  4052fb5a6a5f41824679f115cfb9a944656a380e7910f0ca199bd6d8597b6b5d",
		"ciphertext (AES-GCM, key held by the buyer): 0/ScrJrC/gX7BA0UuWSmODsPHYqcuMwZwNxTBUZMLGyzDtYaoSkgDM7nW2QjX0/nIguMDj+SZC70TQdZEMRaz",
		"encrypted_password = \"gAAAAABlZ3x9Q2tVb1N4Wk1qT0pLd1pQ5mV6Yk1hR2Zr\"",
		"secret: arn:aws:secretsmanager:eu-west-1:406473784183:secret:prod/stripe-AbC123",
		"token_ref: arn:aws:ssm:eu-west-1:406473784183:parameter/prod/Api-Token9",
		"Razorpay key id for checkout.js: rzp_live_12X5ZTW1TqoE43",
		"key: rzp_test_eLXyOKC26IBJQT",
		"func TestLoginEmptyPassword(t *testing.T) {\n\tif _, err := Login(ctx, \"alice\", \"\"); err == nil {\n\t\tt.Fatal(\"want error\")\n\t}\n}",
		"func resetPassword(w http.ResponseWriter, r *http.Request) {}",
		"auth:\n  method: oidc\n  password_login: disabled",
		"password_auth: required",
		"secret_rotation: enabled",
		"Password: whatever you like, you will be asked to set it on first login.",
		"Passwort: anything, it is reset on first login",
	})
}
