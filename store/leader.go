package store

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Leader tells whether this process is the one, among the daemons sharing the database, that runs
// the work which must run once: the sweeper, the payment watcher, the liveness checks, the
// recorders. On bbolt the file lock already makes the process the only daemon: it always leads. On
// PostgreSQL the leader holds a session advisory lock (pg_try_advisory_lock) on a connection of its
// own: when that connection dies (the process was killed, the network went), PostgreSQL releases
// the lock and another daemon, trying every interval, takes it. A leader checks its connection every
// interval and stops leading when the check fails, so two daemons lead together for at most about
// one interval; the background work is written as ordinary transactions that re-check the state
// they change, so a second run in that moment changes nothing twice.
type Leader struct {
	leading atomic.Bool
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

// Lead starts taking part in the election (PostgreSQL) and returns the process's Leader; interval
// is how often a follower tries the lock and a leader checks its connection (default 1 s).
func (db *DB) Lead(interval time.Duration) *Leader {
	l := &Leader{stop: make(chan struct{}), done: make(chan struct{})}
	if db.pg == nil {
		l.leading.Store(true)
		close(l.done)
		return l
	}
	if interval <= 0 {
		interval = time.Second
	}
	go l.run(db.pg.dsn, interval)
	return l
}

// Leading tells whether this process leads now.
func (l *Leader) Leading() bool { return l.leading.Load() }

// Close gives up leadership (closing the connection releases the lock at once) and stops. A nil
// Leader has nothing to give up.
func (l *Leader) Close() {
	if l == nil {
		return
	}
	l.once.Do(func() { close(l.stop) })
	<-l.done
}

func (l *Leader) run(dsn string, interval time.Duration) {
	defer close(l.done)
	var conn *pgx.Conn
	drop := func() {
		l.leading.Store(false)
		if conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), interval)
			conn.Close(ctx)
			cancel()
			conn = nil
		}
	}
	defer drop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), interval)
		var err error
		if conn == nil {
			conn, err = pgx.Connect(ctx, dsn)
			if err != nil {
				conn = nil
			}
		}
		if conn != nil {
			if l.leading.Load() {
				err = conn.Ping(ctx)
			} else {
				var got bool
				if err = conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, int64(pgLockLeader)).Scan(&got); err == nil && got {
					l.leading.Store(true)
				}
			}
			if err != nil {
				drop()
			}
		}
		cancel()
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
	}
}
