package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// queued reports how many calls wait behind the current leader.
func (db *DB) queued() int {
	db.group.mu.Lock()
	defer db.group.mu.Unlock()
	return len(db.group.queue)
}

// TestGroupCommit holds a leader's transaction open until seven more calls queue behind it, so that
// those seven share the next transaction: a call that fails and one that panics are undone there
// (their writes, over existing keys and new ones, and their deletes), every other call commits, and
// every function ran exactly once.
func TestGroupCommit(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), FileName), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	put := func(tx *Tx, k, v string) error { return tx.bucket(bSellerStats).Put([]byte(k), []byte(v)) }
	get := func(tx *Tx, k string) string { return string(tx.bucket(bSellerStats).Get([]byte(k))) }
	if err := db.Update(func(tx *Tx) error {
		for _, k := range []string{"shared", "gone"} {
			if err := put(tx, k, "before"); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	const followers = 7
	release := make(chan struct{})
	var runs [followers + 1]int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := db.Update(func(tx *Tx) error {
			runs[0]++
			<-release
			return put(tx, "leader", "1")
		}); err != nil {
			t.Error(err)
		}
	}()
	for db.queued() != 0 || !db.leading() {
		runtime.Gosched()
	}
	errBoom := errors.New("boom")
	results := make([]any, followers+1)
	for i := 1; i <= followers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					results[i] = fmt.Sprint("panic: ", p)
				}
			}()
			results[i] = db.Update(func(tx *Tx) error {
				runs[i]++
				if err := put(tx, fmt.Sprint("k", i), "v"); err != nil {
					return err
				}
				switch i {
				case 3: // overwrites, deletes and adds, then fails: all of it is undone
					if err := put(tx, "shared", "from 3"); err != nil {
						return err
					}
					if err := tx.bucket(bSellerStats).Delete([]byte("gone")); err != nil {
						return err
					}
					return errBoom
				case 5:
					if err := put(tx, "shared", "from 5"); err != nil {
						return err
					}
					panic("five")
				case 6: // sees what the calls before it in the transaction wrote, and not what 3 undid
					if got := get(tx, "shared"); got != "before" {
						return fmt.Errorf("call 6 reads shared = %q", got)
					}
					return put(tx, "shared", "from 6")
				}
				return nil
			})
		}()
	}
	for db.queued() != followers {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()

	for i := 1; i <= followers; i++ {
		switch i {
		case 3:
			if results[i] != errBoom {
				t.Errorf("call 3: %v, want boom", results[i])
			}
		case 5:
			if results[i] != "panic: five" {
				t.Errorf("call 5: %v, want its panic", results[i])
			}
		default:
			if results[i] != nil && results[i] != error(nil) {
				t.Errorf("call %d: %v", i, results[i])
			}
		}
	}
	for i, n := range runs {
		if n != 1 {
			t.Errorf("call %d ran %d times", i, n)
		}
	}
	if err := db.View(func(tx *Tx) error {
		want := map[string]string{"leader": "1", "k1": "v", "k2": "v", "k3": "", "k4": "v", "k5": "", "k6": "v", "k7": "v",
			"shared": "from 6", "gone": "before"}
		for k, v := range want {
			if got := get(tx, k); got != v {
				t.Errorf("%s = %q, want %q", k, got, v)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if commits, calls := db.GroupStats(); commits != 3 || calls != 9 {
		t.Errorf("%d commits for %d calls, want 3 for 9 (the seven followers share one)", commits, calls)
	}
	if db.group.busy || len(db.group.queue) != 0 {
		t.Errorf("group left busy=%v with %d queued", db.group.busy, len(db.group.queue))
	}
}

// leading reports whether a leader is committing.
func (db *DB) leading() bool {
	db.group.mu.Lock()
	defer db.group.mu.Unlock()
	return db.group.busy
}
