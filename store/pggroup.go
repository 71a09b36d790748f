package store

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Group commit on PostgreSQL, as on bbolt (group.go): concurrent Update calls of one process share
// one SERIALIZABLE transaction, running one after the other in it, so they never conflict with each
// other (only with other daemons' transactions) and share one commit. Each function stays atomic on
// its own: its writes wait in the transaction (pg.go) and are dropped if it fails or panics; if it
// had to send some (a cursor or count over a bucket it wrote), they went after a savepoint, which
// is rolled back. A serialization failure or deadlock runs the whole group again in a new
// transaction: on PostgreSQL an update function may run more than once.
//
// Between daemons, transactions are optimistic until they conflict: a group run again, and every
// group a daemon starts within pgContended of a conflict, first takes the writer lock (a session
// advisory lock, taken before BEGIN so that the snapshot follows the previous holder's commit, and
// released in the batch of the COMMIT). Groups holding it run one after the other, so a hot row
// shared by the daemons' requests costs waits, not failures and reruns of whole groups. The other
// groups take the lock shared: they run side by side, but not beside a holder, so a daemon that
// has met no conflict yet does not race one that has into the next. SERIALIZABLE stays what keeps
// the invariants; the lock only orders. (The lock costs a round trip of its own: in one batch with
// the BEGIN it would run inside the transaction, after its snapshot.)

// pgContended is how long a daemon takes the writer lock after a conflict.
const pgContended = 2 * time.Second

// pgCall is the state of the function of a group running now.
type pgCall struct {
	// touched are the keys it wrote.
	touched map[pgKey]bool
	// saved, while it has sent nothing, is what earlier functions of the group left waiting (nil
	// when there is nothing of theirs to keep); its first write sent puts them and a savepoint first.
	saved     map[pgKey]pgWrite
	savepoint bool // its writes went after a savepoint
	flushed   bool // it sent writes
}

// keep: an earlier function of the transaction succeeded with writes, which a later failure must
// not take with it.
func (t *pgTx) startCall(keep bool) {
	t.call = pgCall{touched: map[pgKey]bool{}}
	if keep {
		t.call.saved = maps.Clone(t.pending)
	}
}

// undoCall drops what the function that just failed wrote.
func (t *pgTx) undoCall(keep bool) error {
	c := t.call
	t.call = pgCall{}
	switch {
	case c.savepoint:
		// What the earlier functions wrote went before the savepoint; what this one left is its own.
		clear(t.pending)
		clear(t.known)
		return t.exec("roll back a failed change", "rollback to savepoint axp_call")
	case c.flushed && !keep:
		// Nothing of the earlier functions to keep: start the transaction again.
		clear(t.pending)
		clear(t.known)
		if err := t.exec("roll back a failed change", "rollback"); err != nil {
			return err
		}
		t.begin = pgBeginUpdate
		t.tails, t.tailWant, t.tailsStale = nil, nil, nil
		return nil
	case keep:
		t.pending = c.saved
	default:
		clear(t.pending)
	}
	return nil
}

// pgHeld is a pooled connection holding the writer lock, taken for a group before its calls were
// chosen.
type pgHeld struct {
	conn *pgxpool.Conn
	err  error // taking it failed: the group fails with this
}

// holdWriter takes a connection and the writer lock on it when this daemon met a conflict within
// pgContended (nil otherwise), waiting for the lock.
func (p *pgStore) holdWriter() *pgHeld {
	if time.Now().UnixNano() >= p.contended.Load() {
		return nil
	}
	ctx := context.Background()
	conn, err := p.acquire(ctx)
	if err != nil {
		return &pgHeld{err: err}
	}
	if err := p.lockWriter(ctx, conn); err != nil {
		conn.Release()
		return &pgHeld{err: err}
	}
	return &pgHeld{conn: conn}
}

// lockWriter takes the writer lock on conn, waiting for it.
func (p *pgStore) lockWriter(ctx context.Context, conn *pgxpool.Conn) error {
	start := time.Now()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(pgLockWriter)); err != nil {
		return fmt.Errorf("writer lock: %w", err)
	}
	p.writerLocks.Add(1)
	p.writerLockWait.Add(int64(time.Since(start)))
	return nil
}

// commitGroup runs the calls of batch in one transaction, again while PostgreSQL reports a
// serialization failure or deadlock, and commits what succeeded. The first run uses held, when
// given.
func (p *pgStore) commitGroup(batch []*groupCall, held *pgHeld) {
	backoff := time.Millisecond
	for attempt := 1; ; attempt++ {
		err := p.groupOnce(batch, held, attempt > 1 || time.Now().UnixNano() < p.contended.Load())
		held = nil
		if err == nil {
			return
		}
		if !retryable(err) || attempt == pgMaxAttempts {
			err = unavailable(err)
			for _, c := range batch {
				if c.err == nil && !c.paniced {
					c.err = err
				}
			}
			return
		}
		p.retries.Add(1)
		p.contended.Store(time.Now().Add(pgContended).UnixNano())
		time.Sleep(backoff/2 + rand.N(backoff))
		backoff = min(2*backoff, 50*time.Millisecond)
	}
}

// groupOnce runs the calls once, on held's connection if given (else taking the writer lock when
// lock); it answers the error that lost the whole transaction, if one did.
func (p *pgStore) groupOnce(batch []*groupCall, held *pgHeld, lock bool) error {
	for _, c := range batch {
		c.err, c.panic, c.paniced = nil, nil, false
	}
	if held != nil && held.err != nil {
		return held.err
	}
	ctx := context.Background()
	var conn *pgxpool.Conn
	if held != nil {
		conn = held.conn
	} else {
		var err error
		if conn, err = p.acquire(ctx); err != nil {
			return err
		}
	}
	p.txs.Add(1)
	t := newPgTx(ctx, conn, pgBeginUpdate, true)
	defer t.end(conn)
	if held != nil {
		t.locked = true
	} else if lock {
		if err := p.lockWriter(ctx, conn); err != nil {
			return err
		}
		t.locked = true
	} else {
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock_shared($1)`, int64(pgLockWriter)); err != nil {
			return fmt.Errorf("writer lock: %w", err)
		}
		t.locked, t.shared = true, true
	}
	keep, succeeded := false, false
	for _, c := range batch {
		t.startCall(keep)
		err := c.run(&Tx{pg: t})
		if t.err != nil {
			// A failed statement is the cause, whatever the function made of the answer it did
			// not get; and the transaction is lost.
			c.err, c.panic, c.paniced = nil, nil, false
			return t.err
		}
		if err != nil {
			if err := t.undoCall(keep); err != nil {
				return err
			}
			continue
		}
		keep = keep || len(t.call.touched) > 0
		succeeded = true
		t.call = pgCall{}
	}
	if !succeeded {
		return nil
	}
	return t.commit()
}
