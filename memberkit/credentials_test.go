package memberkit_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/memberkit"
)

func TestCredentialsFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "member")
	path := memberkit.CredentialsPath(dir)
	if _, err := memberkit.LoadCredentials(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	c := &memberkit.Credentials{Exchange: "http://127.0.0.1:8420/", MemberID: memberID, MemberSecret: secret, PlatformKey: platformKey,
		Roles: []string{"seller"}, MCPURL: "http://127.0.0.1:9/mcp"}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Fatalf("file mode %04o, want 0600", st.Mode().Perm())
		}
		dst, _ := os.Stat(dir)
		if dst.Mode().Perm() != 0o700 {
			t.Fatalf("dir mode %04o, want 0700", dst.Mode().Perm())
		}
	}
	got, err := memberkit.LoadCredentials(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Exchange != "http://127.0.0.1:8420" || got.MemberSecret != secret || got.PlatformKey != platformKey || got.Roles[0] != "seller" {
		t.Fatalf("loaded %+v", got)
	}
	// Saving again replaces the file, still 0600, with no temporary files left behind.
	got.MCPURL = ""
	if err := got.Save(path); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("dir holds %d entries", len(entries))
	}
	if runtime.GOOS != "windows" {
		os.Chmod(path, 0o644)
		if _, err := memberkit.LoadCredentials(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Fatalf("a world-readable file was loaded: %v", err)
		}
		os.Chmod(path, 0o600)
	}
	os.WriteFile(path, []byte(`{"exchange":"x"}`), 0o600)
	if _, err := memberkit.LoadCredentials(path); err == nil || !strings.Contains(err.Error(), "member_id") {
		t.Fatalf("incomplete file: %v", err)
	}
	if err := (&memberkit.Credentials{}).Save(path); err == nil {
		t.Fatal("empty credentials saved")
	}
}
