package store

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Group commit. Concurrent Update calls share one bbolt write transaction and so one synced commit
// (on PostgreSQL, one SERIALIZABLE transaction: the queue is the same, pggroup.go runs the group):
// the first caller leads and commits alone; callers arriving meanwhile queue, and when the commit
// is done the first of them leads the next transaction with every call queued by then. Nobody waits
// for a timer, and a lone writer pays exactly what a plain bbolt Update costs.
//
// Each function still runs once and is atomic on its own. bbolt has no savepoints, so while a
// transaction holds more than one function, every Put and Delete first records what it replaces
// (the undo log of the Tx); a function that fails or panics has its writes undone in reverse order
// and the others commit without it. Its caller gets its error (or its panic, re-raised in the
// caller's goroutine). bbolt's own Batch would instead roll the whole transaction back and run the
// remaining functions again, which functions that collect notices, idempotency records and
// follow-up work on the side must not see. A failed commit fails every call in it; no caller
// returns before its transaction is durable.

// maxGroup bounds the calls one transaction carries, so that its undo log and dirty pages stay small
// and a leader's own call is never delayed by a long queue.
const maxGroup = 128

type groupCommit struct {
	mu    sync.Mutex
	queue []*groupCall
	busy  bool // a leader is committing

	commits, calls atomic.Int64
	// observe, when set, is told how long each group's transaction took (retries included) and
	// how many Update calls it carried.
	observe atomic.Pointer[func(elapsed time.Duration, calls int)]
}

// ObserveCommits sets fn to be told of every write transaction: how long it took, from the start
// of the first call to the durable commit (retries after serialization failures included), and
// how many Update calls it carried. fn runs on the committing goroutine and must be quick.
func (db *DB) ObserveCommits(fn func(elapsed time.Duration, calls int)) {
	db.group.observe.Store(&fn)
}

// GroupStats reports how many write transactions committed (or failed) and how many Update calls
// they carried since the database was opened.
func (db *DB) GroupStats() (commits, calls int64) {
	return db.group.commits.Load(), db.group.calls.Load()
}

type groupCall struct {
	fn      func(*Tx) error
	err     error
	panic   any
	paniced bool
	wake    chan bool // true: lead the next transaction; false: the call is done
}

// Update runs fn in a read-write transaction: all of it commits, or none of it. Concurrent calls
// share one synced commit (see groupCommit); Update returns only once fn's writes are durable.
func (db *DB) Update(fn func(*Tx) error) error {
	g := &db.group
	me := &groupCall{fn: fn, wake: make(chan bool, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, me)
	if g.busy {
		g.mu.Unlock()
		if lead := <-me.wake; !lead {
			return me.result()
		}
	} else {
		g.busy = true
		g.mu.Unlock()
	}
	var start time.Time
	obs := g.observe.Load()
	if obs != nil {
		start = time.Now()
	}
	// On PostgreSQL a leader that must take the writer lock waits for it before it chooses its
	// calls, so that those arriving meanwhile share its transaction (pggroup.go).
	var held *pgHeld
	if db.pg != nil {
		held = db.pg.holdWriter()
	}
	g.mu.Lock()
	n := min(len(g.queue), maxGroup)
	batch := g.queue[:n:n]
	g.queue = append([]*groupCall(nil), g.queue[n:]...)
	g.mu.Unlock()

	db.commitGroup(batch, held)
	if obs != nil {
		(*obs)(time.Since(start), len(batch))
	}
	g.commits.Add(1)
	g.calls.Add(int64(len(batch)))

	g.mu.Lock()
	if len(g.queue) > 0 {
		g.queue[0].wake <- true
	} else {
		g.busy = false
	}
	g.mu.Unlock()
	for _, c := range batch {
		if c != me {
			c.wake <- false
		}
	}
	return me.result()
}

func (c *groupCall) result() error {
	if c.paniced {
		panic(c.panic)
	}
	return c.err
}

// commitGroup runs the calls of batch in one transaction and commits what succeeded; on
// PostgreSQL, held (if not nil) is the connection holding the writer lock for it.
func (db *DB) commitGroup(batch []*groupCall, held *pgHeld) {
	if db.pg != nil {
		db.pg.commitGroup(batch, held)
		return
	}
	if len(batch) == 1 {
		c := batch[0]
		c.err = db.update(func(tx *bolt.Tx) error { return c.run(&Tx{tx: tx}) })
		return
	}
	err := db.update(func(tx *bolt.Tx) error {
		t := &Tx{tx: tx, track: true}
		for _, c := range batch {
			t.undo = t.undo[:0]
			if c.run(t) != nil || c.paniced {
				if err := t.rollbackCall(); err != nil {
					return fmt.Errorf("undo a failed change: %w", err)
				}
			}
		}
		return nil
	})
	if err != nil {
		for _, c := range batch {
			if c.err == nil && !c.paniced {
				c.err = err
			}
		}
	}
}

// run calls the function, turning a panic into a record the caller re-raises.
func (c *groupCall) run(t *Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			c.panic, c.paniced = p, true
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	c.err = c.fn(t)
	return c.err
}

// undoRec is what one write replaced.
type undoRec struct {
	b       *bolt.Bucket
	key     []byte
	old     []byte
	existed bool
}

// remember records what a write to key in b replaces, when the transaction holds several calls.
func (t *Tx) remember(b *bolt.Bucket, key []byte) {
	if !t.track {
		return
	}
	r := undoRec{b: b, key: append([]byte(nil), key...)}
	if k, v := b.Cursor().Seek(key); k != nil && bytes.Equal(k, key) {
		r.existed, r.old = true, append([]byte(nil), v...)
	}
	t.undo = append(t.undo, r)
}

// rollbackCall undoes the writes of the call that just failed.
func (t *Tx) rollbackCall() error {
	t.tails = nil // what the call read of the blocks may be undone below
	for i := len(t.undo) - 1; i >= 0; i-- {
		r := t.undo[i]
		var err error
		if r.existed {
			err = r.b.Put(r.key, r.old)
		} else {
			err = r.b.Delete(r.key)
		}
		if err != nil {
			return err
		}
	}
	t.undo = t.undo[:0]
	return nil
}
