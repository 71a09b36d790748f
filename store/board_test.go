package store_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
	bolt "go.etcd.io/bbolt"
)

func boardIDs(ps []axp.BoardPost) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

// TestBoardIndexes: visible threads are listed newest first, per tag (tags that share a prefix
// stay apart), page by page from a cursor; a status change moves a post in and out of the
// listings and the operator's queue; replies read oldest first from a cursor.
func TestBoardIndexes(t *testing.T) { eachBackend(t, testBoardIndexes) }

func testBoardIndexes(t *testing.T) {
	db := open(t)
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	tagsOf := [][]string{{"go"}, {"go-lang"}, {"gob", "go"}, nil, {"go"}, {"go"}}
	var ids []string
	update(t, db, func(tx *store.Tx) error {
		for i, tags := range tagsOf {
			p := &axp.BoardPost{ID: axp.NewID("bp", now.Add(time.Duration(i)*time.Second)), Kind: axp.BoardThread,
				Title: fmt.Sprint(i), Tags: tags, Status: axp.BoardVisible}
			if i == 4 {
				p.Status = axp.BoardPending
			}
			p.ThreadID = p.ID
			ids = append(ids, p.ID)
			if err := tx.PutBoardPost(p); err != nil {
				return err
			}
		}
		return nil
	})
	page := func(tag string, limit int) (all []string) {
		t.Helper()
		cursor := ""
		view(t, db, func(tx *store.Tx) error {
			for {
				ps, more, err := tx.BoardThreads(tag, cursor, limit)
				if err != nil {
					return err
				}
				all = append(all, boardIDs(ps)...)
				if !more {
					return nil
				}
				cursor = ps[len(ps)-1].ID
			}
		})
		return all
	}
	if got, want := page("", 2), []string{ids[5], ids[3], ids[2], ids[1], ids[0]}; !slices.Equal(got, want) {
		t.Fatalf("all threads %v, want %v", got, want)
	}
	for tag, want := range map[string][]string{"go": {ids[5], ids[2], ids[0]}, "go-lang": {ids[1]}, "gob": {ids[2]}, "g": nil, "gp": nil} {
		for _, limit := range []int{1, 2, 10} {
			if got := page(tag, limit); !slices.Equal(got, want) {
				t.Fatalf("tag %q by %d: %v, want %v", tag, limit, got, want)
			}
		}
	}
	var queue []axp.BoardPost
	view(t, db, func(tx *store.Tx) (err error) { queue, err = tx.PendingBoardPosts(10); return })
	if !slices.Equal(boardIDs(queue), []string{ids[4]}) {
		t.Fatalf("queue %v", boardIDs(queue))
	}

	// Approve the pending one, hide another: the listings and the queue follow.
	update(t, db, func(tx *store.Tx) error {
		for id, status := range map[string]string{ids[4]: axp.BoardVisible, ids[0]: axp.BoardHidden} {
			p, err := tx.BoardPost(id)
			if err != nil {
				return err
			}
			p.Status = status
			if err := tx.PutBoardPost(p); err != nil {
				return err
			}
		}
		return nil
	})
	if got, want := page("go", 10), []string{ids[5], ids[4], ids[2]}; !slices.Equal(got, want) {
		t.Fatalf("tag go after moderation %v, want %v", got, want)
	}
	view(t, db, func(tx *store.Tx) (err error) { queue, err = tx.PendingBoardPosts(10); return })
	if len(queue) != 0 {
		t.Fatalf("queue after approval %v", boardIDs(queue))
	}

	// Replies of a thread, oldest first, paged; another thread's replies stay apart.
	var replies []string
	update(t, db, func(tx *store.Tx) error {
		for i := range 5 {
			for _, thread := range []string{ids[2], ids[3]} {
				r := &axp.BoardPost{ID: axp.NewID("bp", now.Add(time.Minute+time.Duration(i)*time.Second)), Kind: axp.BoardReply,
					ThreadID: thread, Status: axp.BoardVisible}
				if err := tx.PutBoardPost(r); err != nil {
					return err
				}
				if thread == ids[2] {
					replies = append(replies, r.ID)
				}
			}
		}
		return nil
	})
	var got []string
	view(t, db, func(tx *store.Tx) error {
		after := ""
		for {
			ps, more, err := tx.BoardReplies(ids[2], after, 2, func(*axp.BoardPost) bool { return true })
			if err != nil {
				return err
			}
			got = append(got, boardIDs(ps)...)
			if !more {
				return nil
			}
			after = ps[len(ps)-1].ID
		}
	})
	if !slices.Equal(got, replies) {
		t.Fatalf("replies %v, want %v", got, replies)
	}
	if got := page("", 100); len(got) != 5 {
		t.Fatalf("replies are listed as threads: %v", got)
	}
}

// TestMigrateToBoard opens a database as version 7 left it (no board buckets) and checks that
// migration 8 adds them and keeps the data.
func TestMigrateToBoard(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	update(t, db, func(tx *store.Tx) error { return tx.PutMember(&axp.Member{ID: "mem_six", Name: "six"}) })
	db.Close()
	downgrade(t, path, 7, "board_posts", "board_threads", "board_tags", "board_replies", "board_pending")
	db, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.Version(); err != nil || v != store.SchemaVersion || v < 8 {
		t.Fatalf("version after migration %d %v", v, err)
	}
	update(t, db, func(tx *store.Tx) error {
		return tx.PutBoardPost(&axp.BoardPost{ID: "bp_1", ThreadID: "bp_1", Kind: axp.BoardThread, Status: axp.BoardVisible})
	})
	view(t, db, func(tx *store.Tx) error {
		if m, _ := tx.Member("mem_six"); m == nil || m.Name != "six" {
			t.Errorf("member lost in the migration: %+v", m)
		}
		if ps, _, _ := tx.BoardThreads("", "", 10); len(ps) != 1 {
			t.Errorf("threads after migration %+v", ps)
		}
		return nil
	})
}

// downgrade makes the closed database at path look as version wrote it: the buckets later versions
// added are dropped and the recorded schema version is set back.
func downgrade(t *testing.T, path string, version int, later ...string) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		for _, name := range later {
			if err := tx.DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
		return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), []byte(strconv.Itoa(version)))
	})
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}
