package atomicfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/axp-exchange/axp/internal/atomicfile"
)

func TestWriteAndWriteNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key")
	if err := atomicfile.WriteNew(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteNew(path, []byte("two"), 0o600); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("WriteNew over an existing file: %v; want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Fatalf("the existing file became %q", b)
	}
	if err := atomicfile.Write(path, []byte("three"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "three" || err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("after Write: %q, mode %v, %v", b, st.Mode().Perm(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".key-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	if err := atomicfile.Write(filepath.Join(dir, "missing", "key"), []byte("x"), 0o600); err == nil {
		t.Fatal("Write into a missing directory succeeded")
	}
}
