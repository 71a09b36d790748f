package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PostgreSQL backend. Every bucket is a set of rows (bucket, key, value) of one table, axp_kv,
// ordered by its primary key (bucket, key): bytea compares bytewise, as bbolt orders keys, so
// cursors are ordered range queries fetched in pages. A View is one REPEATABLE READ, READ ONLY
// transaction; Updates run in SERIALIZABLE transactions, concurrent ones of this process sharing
// one (group commit, pggroup.go), run again from the start when PostgreSQL reports a serialization
// failure (40001) or a deadlock (40P01): other daemons' transactions are ordered by PostgreSQL. An
// Update function may therefore run more than once; it must keep what it hands out of the
// transaction in variables it sets (not appends to) on each run.

// pgDDL are the versions of the tables the backend keeps, applied in order at open (unless turned
// off) under an advisory lock; axp_pg_schema holds the last one applied. The buckets inside are
// versioned by the schema version in the meta bucket, as on bbolt.
var pgDDL = []string{
	1: `CREATE TABLE axp_kv (
		bucket text COLLATE "C" NOT NULL,
		key bytea NOT NULL,
		value bytea NOT NULL,
		PRIMARY KEY (bucket, key)
	);
	CREATE TABLE axp_buckets (name text COLLATE "C" PRIMARY KEY)`,
}

// pgLockMigrate and pgLockLeader are the advisory lock keys of schema changes and of leadership.
const (
	pgLockMigrate = 0x617870_01 // "axp" 1
	pgLockLeader  = 0x617870_02 // "axp" 2
	pgLockWriter  = 0x617870_03 // "axp" 3
)

// pgMaxAttempts bounds how often an Update runs when it keeps meeting serialization failures; every
// round PostgreSQL lets at least one of the conflicting transactions commit.
const pgMaxAttempts = 200

type pgStore struct {
	pool *pgxpool.Pool
	dsn  string
	txs  atomic.Int64
	// retries counts Update runs repeated after a serialization failure.
	retries atomic.Int64
	views   atomic.Int64
	trips   *tripCounter
	// contended is when (unix ns) this daemon stops taking the writer lock (pggroup.go).
	contended atomic.Int64
	// writerLocks counts the groups that took the writer lock, writerLockWait the nanoseconds they
	// waited for it.
	writerLocks, writerLockWait atomic.Int64
}

// IsPostgres tells whether a store location names a PostgreSQL database.
func IsPostgres(loc string) bool {
	return strings.HasPrefix(loc, "postgres://") || strings.HasPrefix(loc, "postgresql://")
}

// Redact hides the password of a store location for logs and messages.
func Redact(loc string) string {
	if !IsPostgres(loc) {
		return loc
	}
	u, err := url.Parse(loc)
	if err != nil {
		return "postgres://(unparsable)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

func openPostgres(dsn string, o Options) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", Redact(dsn), err)
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		cfg.MaxConns = 16
	}
	trips := &tripCounter{}
	cfg.ConnConfig.Tracer = trips
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		err = pool.Ping(ctx)
		if err != nil {
			pool.Close()
		}
	}
	if err != nil {
		return nil, unavailable(fmt.Errorf("connect to %s: %w", Redact(dsn), err))
	}
	db := &DB{pg: &pgStore{pool: pool, dsn: dsn, trips: trips}, path: Redact(dsn)}
	if o.ReadOnly || o.NoMigrate {
		v, err := db.Version()
		if err == nil && (v > SchemaVersion || (o.NoMigrate && v != SchemaVersion)) {
			err = fmt.Errorf("database %s has schema version %d; this axp writes %d: run axp admin migrate (or start with store_migrate on)", db.path, v, SchemaVersion)
			if v > SchemaVersion {
				err = fmt.Errorf("database %s has schema version %d; this axp understands up to %d: upgrade axp", db.path, v, SchemaVersion)
			}
		}
		if err != nil {
			pool.Close()
			return nil, err
		}
		return db, nil
	}
	if err := db.migrate(); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// pgMigrate applies the table versions and then the bucket migrations, in one transaction holding
// the migration lock, so that daemons starting together migrate once.
func (db *DB) pgMigrate() error {
	ctx := context.Background()
	tx, err := db.pg.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return fmt.Errorf("migrate %s: %w", db.path, err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(pgLockMigrate)); err != nil {
		return fmt.Errorf("migrate %s: %w", db.path, err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS axp_pg_schema (version int NOT NULL)`); err != nil {
		return fmt.Errorf("migrate %s: %w", db.path, err)
	}
	have := 0
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM axp_pg_schema`).Scan(&have); err != nil {
		return fmt.Errorf("migrate %s: %w", db.path, err)
	}
	if have > len(pgDDL)-1 {
		return fmt.Errorf("database %s has table version %d; this axp understands up to %d: upgrade axp", db.path, have, len(pgDDL)-1)
	}
	for v := have + 1; v < len(pgDDL); v++ {
		if _, err := tx.Exec(ctx, pgDDL[v]); err != nil {
			return fmt.Errorf("migrate %s: table version %d: %w", db.path, v, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO axp_pg_schema (version) VALUES ($1)`, v); err != nil {
			return fmt.Errorf("migrate %s: %w", db.path, err)
		}
	}
	t := newPgTx(ctx, tx, "", true)
	if err := db.migrateTx(&Tx{pg: t}); err != nil {
		return err
	}
	if err := t.flush(); err != nil {
		return fmt.Errorf("migrate %s: %w", db.path, err)
	}
	return tx.Commit(ctx)
}

// Round trips. A transaction holds one pooled connection and talks to it in batches (one round
// trip each): BEGIN goes with the first statement, and writes wait in the transaction until a read
// could see them. Get answers from what the transaction wrote or already read (its snapshot does not
// change), so a key is read from the server at most once; a cursor or a count of a bucket sends that
// bucket's waiting writes ahead of its query; the commit sends the rest with the COMMIT. A
// transaction that reads and writes nothing sends nothing.
const (
	pgBeginView   = "begin isolation level repeatable read read only"
	pgBeginUpdate = "begin isolation level serializable"
)

func (p *pgStore) view(fn func(*Tx) error) error {
	ctx := context.Background()
	p.views.Add(1)
	conn, err := p.acquire(ctx)
	if err != nil {
		return err
	}
	t := newPgTx(ctx, conn, pgBeginView, false)
	defer t.end(conn)
	err = fn(&Tx{pg: t})
	if t.err != nil {
		return unavailable(t.err)
	}
	if err != nil {
		return err
	}
	return unavailable(t.commit())
}

// acquire takes a pooled connection, waiting at most AcquireWait (then the store is unavailable).
func (p *pgStore) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	actx, cancel := context.WithTimeout(ctx, AcquireWait)
	defer cancel()
	conn, err := p.pool.Acquire(actx)
	if err != nil {
		return nil, unavailable(fmt.Errorf("begin: %w", err))
	}
	return conn, nil
}

// ping runs a trivial query within ctx: the database answers, or why not.
func (p *pgStore) ping(ctx context.Context) error {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return unavailable(err)
	}
	defer conn.Release()
	var one int
	return unavailable(conn.QueryRow(ctx, "SELECT 1").Scan(&one))
}

// retryable tells whether err is a serialization failure or a deadlock: the transaction did nothing
// and can run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// pgConn is what a transaction sends its batches on: a pooled connection, or the migration's
// transaction.
type pgConn interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// pgTx is one PostgreSQL transaction. The first failing statement is kept in err: the transaction
// is then aborted on the server, further reads answer nothing, and View/Update return err.
type pgTx struct {
	ctx      context.Context
	conn     pgConn
	begin    string // the BEGIN still to send ahead of the first statement, or ""
	writable bool
	err      error
	// known holds what the server holds in this transaction's snapshot, as far as the transaction
	// read it or flushed it: a value, or nil for an absent key.
	known map[pgKey][]byte
	// pending holds the writes not yet sent, by key: the last one of each key counts.
	pending map[pgKey]pgWrite
	call    pgCall // the group's function running now (pggroup.go)
	// locked: this session holds the writer lock (pggroup.go), to release after the COMMIT;
	// shared: in shared mode.
	locked, shared bool
	// tails: the last key of packed buckets' blocks (packed.go), read in the batch of the first
	// statement after a bucket asked (wantTail), so that reading past them costs no query; a bucket
	// whose blocks the transaction wrote is stale and asks its cursor instead.
	tails      map[string][]byte
	tailWant   map[string]bool
	tailsStale map[string]bool
}

// tailsSQL reads the last key of each of $1's buckets (one index probe each; NULL for none).
const tailsSQL = `SELECT b, (SELECT key FROM axp_kv WHERE bucket = b ORDER BY key DESC LIMIT 1) FROM unnest($1::text[]) AS b`

// wantTail asks for the end of a packed bucket's blocks to be read with the next statement.
func (t *pgTx) wantTail(blocks string) {
	if _, known := t.tails[blocks]; known || t.tailsStale[blocks] {
		return
	}
	if t.tailWant == nil {
		t.tailWant = map[string]bool{}
	}
	t.tailWant[blocks] = true
}

// blockTail is the last key of a packed bucket's blocks in this transaction's snapshot, when the
// transaction has not written them (ok false: ask the cursor). Unless a statement carried it
// already, it is read now.
func (t *pgTx) blockTail(blocks string) (key []byte, ok bool) {
	if t.tailsStale[blocks] || t.err != nil {
		return nil, false
	}
	if key, ok := t.tails[blocks]; ok {
		return key, true
	}
	t.wantTail(blocks)
	br, err := t.batch("", false).send()
	if err != nil {
		return nil, false
	}
	if err := br.Close(); err != nil {
		t.fail(fmt.Errorf("read the blocks' ends: %w", err))
		return nil, false
	}
	key, ok = t.tails[blocks]
	return key, ok
}

// staleTail marks a packed bucket's blocks written by this transaction.
func (t *pgTx) staleTail(blocks string) {
	if t.tailsStale == nil {
		t.tailsStale = map[string]bool{}
	}
	t.tailsStale[blocks] = true
}

type pgKey struct{ bucket, key string }

type pgWrite struct {
	value []byte // nil: delete
}

func newPgTx(ctx context.Context, conn pgConn, begin string, writable bool) *pgTx {
	return &pgTx{ctx: ctx, conn: conn, begin: begin, writable: writable, known: map[pgKey][]byte{}, pending: map[pgKey]pgWrite{}}
}

var errNotWritable = errors.New("store: write in a read-only transaction")

func (t *pgTx) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// pgSend is one batch being put together: the BEGIN if not sent yet, the writes a read must see,
// then the statement of the caller.
type pgSend struct {
	t         *pgTx
	b         pgx.Batch
	begin     bool
	tails     []string // the packed buckets whose blocks' ends are read after the BEGIN
	writes    int      // write statements (and the savepoint) queued after the BEGIN
	flushed   []pgKey  // the keys those statements write
	values    [][]byte // and what (nil: deleted)
	savepoint bool     // the function's savepoint is among them
	before    int      // flushed[:before] are the writes of the functions before it
}

// batch starts a batch carrying the waiting writes of bucket (of every bucket when all). In a group
// (pggroup.go), the first writes a function sends go after a savepoint, preceded by the writes of
// the functions before it, so that they survive if it fails.
func (t *pgTx) batch(bucket string, all bool) *pgSend {
	s := &pgSend{t: t}
	if t.begin != "" {
		s.b.Queue(t.begin)
		s.begin = true
	}
	if len(t.tailWant) > 0 {
		s.tails = slices.Sorted(maps.Keys(t.tailWant))
		s.b.Queue(tailsSQL, s.tails)
		t.tailWant = nil
	}
	need := false
	for k := range t.pending {
		if all || k.bucket == bucket {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	if t.call.saved != nil {
		before := slices.Collect(maps.Keys(t.call.saved))
		s.queueWrites(before, t.call.saved)
		s.before = len(s.flushed)
		s.b.Queue("savepoint axp_call")
		s.writes++
		s.savepoint = true
	}
	var keys []pgKey
	for k := range t.pending {
		if (all || k.bucket == bucket) && (!s.savepoint || t.call.touched[k]) {
			keys = append(keys, k)
		}
	}
	s.queueWrites(keys, t.pending)
	return s
}

// queueWrites queues the writes of keys (as held in ws), at most two statements.
func (s *pgSend) queueWrites(keys []pgKey, ws map[pgKey]pgWrite) {
	// In key order, so that transactions writing the same rows lock them in the same order.
	slices.SortFunc(keys, func(a, b pgKey) int {
		if c := strings.Compare(a.bucket, b.bucket); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	var upB, delB []string
	var upK, upV, delK [][]byte
	for _, k := range keys {
		w := ws[k]
		s.flushed = append(s.flushed, k)
		s.values = append(s.values, w.value)
		if w.value == nil {
			delB, delK = append(delB, k.bucket), append(delK, []byte(k.key))
		} else {
			upB, upK, upV = append(upB, k.bucket), append(upK, []byte(k.key)), append(upV, w.value)
		}
	}
	if len(upK) > 0 {
		s.b.Queue(`INSERT INTO axp_kv (bucket, key, value) SELECT * FROM unnest($1::text[], $2::bytea[], $3::bytea[])
			ON CONFLICT (bucket, key) DO UPDATE SET value = excluded.value`, upB, upK, upV)
		s.writes++
	}
	if len(delK) > 0 {
		s.b.Queue(`DELETE FROM axp_kv WHERE (bucket, key) IN (SELECT * FROM unnest($1::text[], $2::bytea[]))`, delB, delK)
		s.writes++
	}
}

// send sends the batch and reads the answers to the BEGIN and the writes; the caller reads the
// answers to its statements from the results, then closes them. On failure the error is the
// transaction's and the results are closed.
func (s *pgSend) send() (pgx.BatchResults, error) {
	t := s.t
	br := t.conn.SendBatch(t.ctx, &s.b)
	if s.begin {
		if _, err := br.Exec(); err != nil {
			br.Close()
			t.fail(fmt.Errorf("begin: %w", err))
			return nil, t.err
		}
		t.begin = ""
	}
	if s.tails != nil {
		if err := t.readTails(br); err != nil {
			br.Close()
			t.fail(fmt.Errorf("read the blocks' ends: %w", err))
			return nil, t.err
		}
	}
	for range s.writes {
		if _, err := br.Exec(); err != nil {
			br.Close()
			t.fail(fmt.Errorf("write: %w", err))
			return nil, t.err
		}
	}
	if s.savepoint {
		// The writes of the functions before this one are sent: what is left waiting is its own.
		for k := range t.call.saved {
			if !t.call.touched[k] {
				delete(t.pending, k)
			}
		}
		t.call.saved, t.call.savepoint = nil, true
	}
	for i, k := range s.flushed {
		t.known[k] = s.values[i]
	}
	for _, k := range s.flushed[s.before:] {
		delete(t.pending, k)
	}
	if len(s.flushed) > 0 {
		t.call.flushed = true
	}
	return br, nil
}

func (t *pgTx) readTails(br pgx.BatchResults) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	if t.tails == nil {
		t.tails = map[string][]byte{}
	}
	for rows.Next() {
		var name string
		var key []byte
		if err := rows.Scan(&name, &key); err != nil {
			rows.Close()
			return err
		}
		t.tails[name] = key
	}
	rows.Close()
	return rows.Err()
}

// exec sends one statement (with the BEGIN and every waiting write ahead of it).
func (t *pgTx) exec(what string, sql string, args ...any) error {
	if t.err != nil {
		return t.err
	}
	s := t.batch("", true)
	s.b.Queue(sql, args...)
	br, err := s.send()
	if err != nil {
		return err
	}
	_, err = br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.fail(fmt.Errorf("%s: %w", what, err))
	}
	return t.err
}

// flush sends every waiting write.
func (t *pgTx) flush() error {
	if t.err != nil || len(t.pending) == 0 {
		return t.err
	}
	s := t.batch("", true)
	br, err := s.send()
	if err != nil {
		return err
	}
	if err := br.Close(); err != nil {
		t.fail(fmt.Errorf("write: %w", err))
	}
	return t.err
}

// commit sends the waiting writes and the COMMIT in one batch; a transaction that never began has
// nothing to commit.
func (t *pgTx) commit() error {
	if t.err != nil {
		return t.err
	}
	if t.begin != "" && len(t.pending) == 0 {
		return nil
	}
	s := t.batch("", true)
	s.b.Queue("commit")
	if t.locked {
		s.b.Queue(t.unlockSQL(), int64(pgLockWriter))
	}
	br, err := s.send()
	if err != nil {
		return err
	}
	tag, err := br.Exec()
	if err == nil && t.locked {
		if _, err = br.Exec(); err == nil {
			t.locked = false
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil && tag.String() != "COMMIT" {
		// PostgreSQL answers ROLLBACK to the COMMIT of a transaction that failed.
		err = fmt.Errorf("commit: the transaction was rolled back (%s)", tag)
	}
	if err != nil {
		t.fail(err)
	}
	return t.err
}

// end rolls back what is left of the transaction and returns the connection to the pool (which
// closes it if it is not idle then).
func (t *pgTx) end(conn *pgxpool.Conn) {
	if pc := conn.Conn().PgConn(); !pc.IsClosed() && !pc.IsBusy() && pc.TxStatus() != 'I' {
		conn.Exec(t.ctx, "rollback")
	}
	if t.locked {
		if _, err := conn.Exec(t.ctx, t.unlockSQL(), int64(pgLockWriter)); err != nil {
			// The session may still hold the lock: end it rather than return it to the pool.
			conn.Conn().Close(t.ctx)
		}
	}
	conn.Release()
}

func (t *pgTx) bucket(name []byte) bucket { return pgBucket{t: t, name: string(name)} }

func (t *pgTx) createBucket(name []byte) error {
	return t.exec("create bucket", `INSERT INTO axp_buckets (name) VALUES ($1) ON CONFLICT DO NOTHING`, string(name))
}

type pgBucket struct {
	t    *pgTx
	name string
}

func (b pgBucket) Get(key []byte) []byte {
	t := b.t
	if t.err != nil {
		return nil
	}
	k := pgKey{b.name, string(key)}
	if w, ok := t.pending[k]; ok {
		return w.value
	}
	if v, ok := t.known[k]; ok {
		return v
	}
	s := t.batch("", false)
	s.b.Queue(`SELECT value FROM axp_kv WHERE bucket = $1 AND key = $2`, b.name, key)
	br, err := s.send()
	if err != nil {
		return nil
	}
	var v []byte
	err = br.QueryRow().Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		err = nil
	} else if err == nil && v == nil {
		v = []byte{}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.fail(fmt.Errorf("read %s: %w", b.name, err))
		return nil
	}
	t.known[k] = v
	return v
}

func (b pgBucket) write(key, value []byte) error {
	if b.t.err != nil {
		return b.t.err
	}
	if !b.t.writable {
		return errNotWritable
	}
	k := pgKey{b.name, string(key)}
	b.t.pending[k] = pgWrite{value: value}
	if b.t.call.touched != nil {
		b.t.call.touched[k] = true
	}
	return nil
}

func (b pgBucket) Put(key, value []byte) error {
	return b.write(key, append([]byte{}, value...)) // a copy, never nil
}

func (b pgBucket) Delete(key []byte) error { return b.write(key, nil) }

func (b pgBucket) Count() int {
	t := b.t
	if t.err != nil {
		return 0
	}
	s := t.batch(b.name, false)
	s.b.Queue(`SELECT count(*) FROM axp_kv WHERE bucket = $1`, b.name)
	br, err := s.send()
	if err != nil {
		return 0
	}
	var n int
	err = br.QueryRow().Scan(&n)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.fail(fmt.Errorf("count %s: %w", b.name, err))
	}
	return n
}

func (b pgBucket) SetFillPercent(float64) {}

func (b pgBucket) Cursor() cursor { return &pgCursor{t: b.t, bucket: b.name} }

// pgCursor reads a bucket in pages: a move past the page fetches the next page in that direction,
// starting after the current key. Pages grow from a few rows (most scans stop after a prefix) to
// pgPageMax. Each fetch first sends the bucket's waiting writes, so the cursor sees them.
type pgCursor struct {
	t      *pgTx
	bucket string
	page   []pgRow
	i      int
	desc   bool // the page runs backwards
	full   bool // the page was full: more rows may follow it
	size   int
}

type pgRow struct{ k, v []byte }

const (
	pgPageMin = 16
	pgPageMax = 512
)

// pgPageSQL are the page queries by comparison with the key moved from ("" for none) and order.
var pgPageSQL = func() map[string]string {
	m := map[string]string{}
	for _, cmp := range []string{"", ">=", ">", "<"} {
		for _, order := range []string{"ASC", "DESC"} {
			q := `SELECT key, value FROM axp_kv WHERE bucket = $1`
			if cmp != "" {
				q += ` AND key ` + cmp + ` $3`
			}
			m[cmp+order] = q + ` ORDER BY key ` + order + ` LIMIT $2`
		}
	}
	return m
}()

func (c *pgCursor) fetch(cmp string, from []byte, desc bool) ([]byte, []byte) {
	c.page, c.i, c.desc, c.full = c.page[:0], 0, desc, false
	t := c.t
	if t.err != nil {
		return nil, nil
	}
	if c.size == 0 {
		c.size = pgPageMin
	} else {
		c.size = min(2*c.size, pgPageMax)
	}
	order := "ASC"
	if desc {
		order = "DESC"
	}
	args := []any{c.bucket, c.size}
	if cmp != "" {
		args = append(args, from)
	}
	s := t.batch(c.bucket, false)
	s.b.Queue(pgPageSQL[cmp+order], args...)
	br, err := s.send()
	if err != nil {
		return nil, nil
	}
	defer br.Close()
	rows, err := br.Query()
	if err != nil {
		t.fail(fmt.Errorf("read %s: %w", c.bucket, err))
		return nil, nil
	}
	for rows.Next() {
		var r pgRow
		if err := rows.Scan(&r.k, &r.v); err != nil {
			rows.Close()
			t.fail(fmt.Errorf("read %s: %w", c.bucket, err))
			return nil, nil
		}
		if r.v == nil {
			r.v = []byte{}
		}
		c.page = append(c.page, r)
	}
	if err := rows.Err(); err != nil {
		t.fail(fmt.Errorf("read %s: %w", c.bucket, err))
		return nil, nil
	}
	c.full = len(c.page) == c.size
	if len(c.page) == 0 {
		return nil, nil
	}
	return c.page[0].k, c.page[0].v
}

func (c *pgCursor) First() ([]byte, []byte) { c.size = 0; return c.fetch("", nil, false) }
func (c *pgCursor) Last() ([]byte, []byte)  { c.size = 0; return c.fetch("", nil, true) }

func (c *pgCursor) Seek(k []byte) ([]byte, []byte) {
	c.size = 0
	return c.fetch(">=", k, false)
}

// cur is the row the cursor is on, or nil.
func (c *pgCursor) cur() *pgRow {
	if c.i < 0 || c.i >= len(c.page) {
		return nil
	}
	return &c.page[c.i]
}

func (c *pgCursor) Next() ([]byte, []byte) { return c.move(false) }
func (c *pgCursor) Prev() ([]byte, []byte) { return c.move(true) }

// move steps one row backwards (back) or forwards.
func (c *pgCursor) move(back bool) ([]byte, []byte) {
	r := c.cur()
	if r == nil {
		return nil, nil
	}
	if back != c.desc && c.i > 0 {
		// Back along the page.
		c.i--
		return c.page[c.i].k, c.page[c.i].v
	}
	if back == c.desc {
		// Along the page.
		if c.i+1 < len(c.page) {
			c.i++
			return c.page[c.i].k, c.page[c.i].v
		}
		if !c.full {
			c.i = len(c.page)
			return nil, nil
		}
	}
	from := r.k
	if back {
		return c.fetch("<", from, true)
	}
	return c.fetch(">", from, false)
}

// --- database-wide operations ---

func (p *pgStore) bucketNames(ctx context.Context) ([]string, error) {
	rows, err := p.pool.Query(ctx, `SELECT name FROM axp_buckets ORDER BY name`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (p *pgStore) bucketBytes(ctx context.Context) (map[string]int64, error) {
	return p.perBucket(ctx, `SELECT bucket, sum(length(key) + length(value))::bigint FROM axp_kv GROUP BY bucket`)
}

// perBucket answers query's (bucket, figure) rows by bucket, with 0 for empty buckets.
func (p *pgStore) perBucket(ctx context.Context, query string) (map[string]int64, error) {
	names, err := p.bucketNames(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, n := range names {
		out[n] = 0
	}
	rows, err := p.pool.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return nil, err
		}
		out[name] = n
	}
	return out, rows.Err()
}

func (p *pgStore) size(ctx context.Context) int64 {
	var n int64
	p.pool.QueryRow(ctx, `SELECT pg_total_relation_size('axp_kv')`).Scan(&n)
	return n
}

func (p *pgStore) counts(ctx context.Context) (map[string]int, error) {
	n, err := p.perBucket(ctx, `SELECT bucket, count(*) FROM axp_kv GROUP BY bucket`)
	out := make(map[string]int, len(n))
	for k, v := range n {
		out[k] = int(v)
	}
	return out, err
}

// Lock takes the lock called name among every process using the database, waiting for it, and
// returns its release. On bbolt, where one process holds the file, it takes nothing; on PostgreSQL
// it holds a session advisory lock on a pooled connection, released by unlock or, if the process
// dies, by PostgreSQL when the connection ends. Money that must be serialized across daemons (the
// hot wallet's nonces) takes it inside its in-process lock, so a process has at most one
// connection waiting here per name and the pool cannot be drained by waiters.
func (db *DB) Lock(ctx context.Context, name string) (unlock func(), err error) {
	if db.pg == nil {
		return func() {}, nil
	}
	conn, err := db.pg.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, "axp:"+name); err != nil {
		conn.Release()
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, "axp:"+name); err != nil {
			// The session may still hold the lock: end it rather than return it to the pool.
			conn.Conn().Close(ctx)
		}
		conn.Release()
	}, nil
}

// unlockSQL releases the writer lock as the transaction holds it.
func (t *pgTx) unlockSQL() string {
	if t.shared {
		return `SELECT pg_advisory_unlock_shared($1)`
	}
	return `SELECT pg_advisory_unlock($1)`
}
