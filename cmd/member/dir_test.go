package member

import (
	"path/filepath"
	"testing"

	"github.com/axp-exchange/axp/memberkit"
)

// Without --dir the member commands find a `axp member serve` run in the working directory
// (./credentials.json or ./member/credentials.json) before the default directory.
func TestMemberDirFindsARunHere(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": home}[k] }
	t.Chdir(work)
	if got, want := memberDir("", getenv), filepath.Join(home, "axp", "member"); got != want {
		t.Errorf("nothing here: %s, want %s", got, want)
	}
	creds := &memberkit.Credentials{Exchange: "http://127.0.0.1:8420", MemberID: "mem_1", MemberSecret: "ss_mem_1_x", PlatformKey: "pk_x"}
	if err := creds.Save(memberkit.CredentialsPath(filepath.Join(work, "member"))); err != nil {
		t.Fatal(err)
	}
	if got := memberDir("", getenv); got != filepath.Join(work, "member") {
		t.Errorf("a run in ./member: %s", got)
	}
	if got := memberDir("/elsewhere", getenv); got != "/elsewhere" {
		t.Errorf("--dir: %s", got)
	}
}
