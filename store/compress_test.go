package store

import (
	"bytes"
	"compress/flate"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
)

// TestCompressedValues: large values are stored deflated and read back; small ones and values written
// plain (before schema 11) read as they are.
func TestCompressedValues(t *testing.T) {
	for _, raw := range [][]byte{[]byte(`{"v":1}`), []byte(`{"v":1,"id":"tsk_1","status":"open","description":"` + strings.Repeat("autumn ", 40) + `"}`)} {
		stored := compress(raw)
		if len(raw) >= compressMin && (stored[0] != zstdMarker || len(stored) >= len(raw)/2) {
			t.Errorf("a %d-byte value stored in %d bytes, marker %#x", len(raw), len(stored), stored[0])
		}
		back, err := decompress(stored)
		if err != nil || !bytes.Equal(back, raw) {
			t.Errorf("round trip: %q, %v", back, err)
		}
	}
	db, err := Open(filepath.Join(t.TempDir(), FileName), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	plain := `{"v":1,"id":"tsk_plain","type":"text-file","status":"released","params":{"prompt":"written by schema 8, before values were compressed"}}`
	if err := db.Update(func(tx *Tx) error {
		if err := tx.bucket(bTasks).Put([]byte("tsk_plain"), []byte(plain)); err != nil {
			return err
		}
		return tx.PutTask(&axp.TaskRecord{ID: "tsk_new", Type: "text-file", Status: axp.TaskReleased,
			Params: map[string]any{"prompt": "written compressed"}}, "")
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.View(func(tx *Tx) error {
		if raw := tx.bucket(bTasks).Get([]byte("tsk_new")); raw[0] != zstdMarker {
			t.Errorf("new task stored plain: %q", raw)
		}
		for id, prompt := range map[string]string{"tsk_plain": "written by schema 8, before values were compressed", "tsk_new": "written compressed"} {
			r, err := tx.Task(id)
			if err != nil || r == nil || r.Params["prompt"] != prompt {
				t.Errorf("%s: %+v, %v", id, r, err)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// deflated is a value as schemas 11 and 12 stored it: deflated with the dictionary, behind zMarker.
func deflated(t testing.TB, raw []byte) []byte {
	var buf bytes.Buffer
	buf.WriteByte(zMarker)
	w, err := flate.NewWriterDict(&buf, flate.DefaultCompression, zDictBytes)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(raw)
	w.Close()
	return buf.Bytes()
}

// TestDeflatedValues: values deflated by schemas 11 and 12 still read, beside zstd ones.
func TestDeflatedValues(t *testing.T) {
	raw := []byte(`{"v":1,"id":"tsk_1","status":"open","description":"` + strings.Repeat("autumn ", 40) + `"}`)
	for _, stored := range [][]byte{deflated(t, raw), compress(raw)} {
		back, err := decompress(stored)
		if err != nil || !bytes.Equal(back, raw) {
			t.Errorf("marker %#x: %q, %v", stored[0], back, err)
		}
	}
	if _, err := decompress([]byte{zstdMarker, 1, 2, 3}); err == nil {
		t.Error("a damaged value decoded")
	}
}

// TestDecodeKeepsBuffers: reading a compressed value allocates no more than reading it plain (the
// frame and the decompressed bytes go into buffers kept for the next value), and what it decodes
// stays intact when the buffers are used again.
func TestDecodeKeepsBuffers(t *testing.T) {
	raw := []byte(`{"v":1,"id":"tsk_1","status":"open","description":"` + strings.Repeat("autumn ", 40) + `"}`)
	stored := compress(raw)
	if stored[0] != zstdMarker {
		t.Fatalf("value not compressed")
	}
	var into struct {
		V int `json:"v"`
	}
	plain := testing.AllocsPerRun(50, func() { decode(raw, &into) })
	compressed := testing.AllocsPerRun(50, func() { decode(stored, &into) })
	if compressed > plain {
		t.Errorf("decoding a compressed value: %.0f allocations, plain %.0f", compressed, plain)
	}
	var first, second axp.TaskRecord
	if err := decode(stored, &first); err != nil {
		t.Fatal(err)
	}
	other := compress([]byte(`{"v":1,"id":"tsk_2","status":"paid","description":"` + strings.Repeat("winter ", 40) + `"}`))
	if err := decode(other, &second); err != nil {
		t.Fatal(err)
	}
	if first.ID != "tsk_1" || first.Status != "open" || !strings.HasPrefix(first.Description, "autumn ") || second.ID != "tsk_2" {
		t.Errorf("decoded values changed: %q %q %q, %q", first.ID, first.Status, first.Description[:10], second.ID)
	}
}
