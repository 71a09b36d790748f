package store

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresStats are counters of the PostgreSQL backend since the database was opened: what a
// workload costs in transactions and round trips to the server.
type PostgresStats struct {
	Views      int64 // read-only transactions
	Updates    int64 // read-write transaction runs, retries included
	Retries    int64 // Update runs repeated after a serialization failure or deadlock
	RoundTrips int64 // statements and batches sent, each waiting for the server's answer
	// PoolWaits counts the times a connection was taken from the pool (for a transaction or a
	// lock) when none was idle, and PoolWait is how long those waited for one.
	PoolWaits int64
	PoolWait  time.Duration
	// WriterLocks counts update groups that took the writer lock (pggroup.go), and WriterLockWait
	// is how long they waited for it.
	WriterLocks    int64
	WriterLockWait time.Duration
}

// PostgresStats answers the backend's counters (zero on bbolt).
func (db *DB) PostgresStats() PostgresStats {
	if db.pg == nil {
		return PostgresStats{}
	}
	p := db.pg
	pool := p.pool.Stat()
	return PostgresStats{Views: p.views.Load(), Updates: p.txs.Load(), Retries: p.retries.Load(), RoundTrips: p.trips.n.Load(),
		PoolWaits: pool.EmptyAcquireCount(), PoolWait: pool.EmptyAcquireWaitTime(),
		WriterLocks: p.writerLocks.Load(), WriterLockWait: time.Duration(p.writerLockWait.Load())}
}

// tripCounter is a pgx tracer counting what the pool's connections send and wait for: each query,
// exec (BEGIN and COMMIT included) and batch is one round trip.
type tripCounter struct{ n atomic.Int64 }

func (c *tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *tripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
