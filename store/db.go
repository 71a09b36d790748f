package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	bolt "go.etcd.io/bbolt"
)

// FileName is the database file inside the data dir.
const FileName = "axp.db"

// ErrLocked means another process holds the database.
var ErrLocked = errors.New("the database is in use by another process")

// DB is the exchange's database: a bbolt file, or a PostgreSQL database (pg.go). The methods on
// *Tx are the same on both.
type DB struct {
	bolt  *bolt.DB
	pg    *pgStore // instead of bolt
	path  string   // the file, or the PostgreSQL location without its password
	group groupCommit
}

// Options tune Open.
type Options struct {
	// LockTimeout bounds the wait for the file lock (default 2 s).
	LockTimeout time.Duration
	// NoSync skips fsync on commit: for benchmarks only, never for a real exchange.
	NoSync bool
	// ReadOnly opens without taking the write lock.
	ReadOnly bool
	// NoMigrate refuses a database whose schema is not this build's instead of migrating it
	// (PostgreSQL: store_migrate off, so that only axp admin migrate changes the schema).
	NoMigrate bool
}

// OpenLocation opens the store at loc: a postgres:// or postgresql:// URL, or a bbolt file given as
// bolt:PATH or a plain path.
func OpenLocation(loc string, o Options) (*DB, error) {
	if IsPostgres(loc) {
		return openPostgres(loc, o)
	}
	return Open(strings.TrimPrefix(loc, "bolt:"), o)
}

// IsPostgres tells whether the database is PostgreSQL (several daemons may share it).
func (db *DB) IsPostgres() bool { return db.pg != nil }

// Open opens (creating if needed) the database at path and migrates it to SchemaVersion.
func Open(path string, o Options) (*DB, error) {
	if o.LockTimeout == 0 {
		o.LockTimeout = 2 * time.Second
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: o.LockTimeout, NoSync: o.NoSync, ReadOnly: o.ReadOnly,
		FreelistType: bolt.FreelistMapType, NoFreelistSync: true})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s is locked (is another axp serve running with this data dir?); stop it or use another --data-dir", ErrLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db := &DB{bolt: b, path: path}
	if o.NoMigrate && !o.ReadOnly {
		if v, err := db.Version(); err != nil || v != SchemaVersion {
			b.Close()
			return nil, errors.Join(err, fmt.Errorf("database %s has schema version %d; this axp writes %d: run axp admin migrate (or start with store_migrate on)", path, v, SchemaVersion))
		}
		return db, nil
	}
	if !o.ReadOnly {
		if err := db.migrate(); err != nil {
			b.Close()
			return nil, err
		}
	} else if v, err := db.Version(); err != nil {
		b.Close()
		return nil, err
	} else if v > SchemaVersion {
		b.Close()
		return nil, fmt.Errorf("database %s has schema version %d; this axp understands up to %d: upgrade axp", path, v, SchemaVersion)
	}
	return db, nil
}

// Path is the database file (PostgreSQL: its location without the password).
func (db *DB) Path() string { return db.path }

// Close closes the database; pending transactions finish first.
func (db *DB) Close() error {
	if db.pg != nil {
		db.pg.pool.Close()
		return nil
	}
	var err error
	if !db.bolt.IsReadOnly() {
		// One last commit writes the freelist whatever its size (see freelistSyncMax), so that
		// the next open reads it instead of walking the whole file.
		err = db.bolt.Update(func(*bolt.Tx) error {
			db.bolt.NoFreelistSync = false // read by Commit, under the writer lock this holds
			return nil
		})
		if errors.Is(err, bolt.ErrDatabaseNotOpen) { // closed before: Close again is a no-op
			err = nil
		}
	}
	return errors.Join(err, db.bolt.Close())
}

// freelistSyncMax is the largest freelist (free and pending pages) that bbolt commits write: 2
// pages of page ids. An open whose last commit did not write it rebuilds it by walking every page
// of the file (~500 ms and the whole 1.2 GB file resident at 1M tasks), while writing a small one
// costs a synced commit ~30 µs (one more page). A large one (after a big prune, or beside a long
// read such as a backup) would add its pages to every commit: commits skip it until it is small
// again, and Close writes it whatever its size.
const freelistSyncMax = 1024

// update runs fn in a bbolt write transaction whose commit writes the freelist when it is small.
func (db *DB) update(fn func(*bolt.Tx) error) error {
	return db.bolt.Update(func(tx *bolt.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		s := db.bolt.Stats() // as the previous write transaction left it
		db.bolt.NoFreelistSync = s.FreePageN+s.PendingPageN > freelistSyncMax
		return nil
	})
}

// Migrate brings the database to SchemaVersion (Open does it unless told not to).
func (db *DB) Migrate() error { return db.migrate() }

func (db *DB) migrate() error {
	if db.pg != nil {
		return db.pgMigrate()
	}
	if v, err := db.Version(); err == nil && v == SchemaVersion {
		return nil // nothing to write: no commit (and no fsync) at every start
	}
	return db.update(func(tx *bolt.Tx) error { return db.migrateTx(&Tx{tx: tx}) })
}

// migrateTx applies the migrations the database lacks, recording the version, in tx.
func (db *DB) migrateTx(tx *Tx) error {
	if err := tx.createBucket(bMeta); err != nil {
		return err
	}
	meta := tx.bucket(bMeta)
	v := 0
	if raw := meta.Get(kSchemaVersion); raw != nil {
		v, _ = strconv.Atoi(string(raw))
	}
	if v > SchemaVersion {
		return fmt.Errorf("database %s has schema version %d; this axp understands up to %d: upgrade axp", db.path, v, SchemaVersion)
	}
	if meta.Get(kCreatedAt) == nil {
		if err := meta.Put(kCreatedAt, []byte(time.Now().UTC().Format(time.RFC3339))); err != nil {
			return err
		}
	}
	for _, m := range migrations {
		if m.version <= v {
			continue
		}
		if err := m.apply(tx); err != nil {
			return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
		}
		v = m.version
	}
	return meta.Put(kSchemaVersion, []byte(strconv.Itoa(v)))
}

// Version is the schema version recorded in the database.
func (db *DB) Version() (int, error) {
	v := 0
	if db.pg != nil {
		var raw []byte
		err := db.pg.pool.QueryRow(context.Background(), `SELECT value FROM axp_kv WHERE bucket = $1 AND key = $2`,
			string(bMeta), kSchemaVersion).Scan(&raw)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "42P01" { // no table yet: a fresh database
				return 0, nil
			}
			return 0, err
		}
		v, _ = strconv.Atoi(string(raw))
		return v, nil
	}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bMeta); b != nil {
			v, _ = strconv.Atoi(string(b.Get(kSchemaVersion)))
		}
		return nil
	})
	return v, err
}

// Tx is a transaction. Read methods work on any Tx; write methods need one from Update.
type Tx struct {
	tx *bolt.Tx
	pg *pgTx // instead of tx
	// track: the transaction holds several calls, so writes record what they replace (undo).
	track bool
	undo  []undoRec
	tails map[string]*blockTail // packed buckets' last blocks, as read (packed.go)
}

// Ping tells whether the database answers a trivial query within ctx (readiness): nil, or why
// not (ErrUnavailable when it cannot be reached). bbolt, a file the process holds open, answers.
func (db *DB) Ping(ctx context.Context) error {
	if db.pg != nil {
		return db.pg.ping(ctx)
	}
	return nil
}

// View runs fn in a read-only transaction.
func (db *DB) View(fn func(*Tx) error) error {
	work.views.Add(1)
	if db.pg != nil {
		return db.pg.view(fn)
	}
	return db.bolt.View(func(tx *bolt.Tx) error { return fn(&Tx{tx: tx}) })
}

// ErrNoFileBackup means the database is PostgreSQL: back it up with its own tools.
var ErrNoFileBackup = errors.New("this exchange runs on PostgreSQL: back it up with pg_dump (or the database's own backups), not axp")

// Backup writes a consistent copy of the database to w while it stays in use.
func (db *DB) Backup(w io.Writer) (int64, error) {
	if db.pg != nil {
		return 0, ErrNoFileBackup
	}
	var n int64
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	return n, err
}

// BackupFile writes a hot backup to path atomically (temporary file, fsync, rename).
func (db *DB) BackupFile(path string) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".axp-backup-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	n, err := db.Backup(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return n, err
}

// Stats are figures of the database file.
func (db *DB) Stats() (size int64, txs int) {
	if db.pg != nil {
		return db.pg.size(context.Background()), int(db.pg.txs.Load())
	}
	s := db.bolt.Stats()
	if fi, err := os.Stat(db.path); err == nil {
		size = fi.Size()
	}
	return size, s.TxN
}

// --- value helpers ---

// A packed bucket (packed.go) reads as one with its blocks; before schema 14 made the blocks'
// bucket (migrations of older files), it is the live bucket alone.
func (t *Tx) bucket(name []byte) bucket {
	live := t.rawBucket(name)
	if pk, ok := packedOf[string(name)]; ok && (t.pg != nil || t.tx.Bucket(pk.blocks) != nil) {
		tail := t.tails[string(name)]
		if tail == nil {
			if t.tails == nil {
				t.tails = map[string]*blockTail{}
			}
			tail = &blockTail{}
			t.tails[string(name)] = tail
		}
		return packedBucket{live: live, blocks: t.rawBucket(pk.blocks), records: pk.records, bytes: pk.bytes, tail: tail,
			name: string(pk.blocks), pg: t.pg}
	}
	return live
}

// rawBucket is a bucket as the backend stores it (Copy moves packed buckets and their blocks as
// they are).
func (t *Tx) rawBucket(name []byte) bucket {
	if t.pg != nil {
		return t.pg.bucket(name)
	}
	b := t.tx.Bucket(name)
	if b == nil {
		panic(fmt.Sprintf("store: bucket %s missing (schema not migrated?)", name))
	}
	return boltBucket{b: b, t: t}
}

// createBucket makes a bucket if it does not exist (migrations).
func (t *Tx) createBucket(names ...[]byte) error {
	for _, name := range names {
		var err error
		if t.pg != nil {
			err = t.pg.createBucket(name)
		} else {
			_, err = t.tx.CreateBucketIfNotExists(name)
		}
		if err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}

func getJSON(b bucket, key []byte, v any) (bool, error) {
	raw := b.Get(key)
	if raw == nil {
		return false, nil
	}
	if err := decode(raw, v); err != nil {
		return false, fmt.Errorf("decode %s/%s: %w", "value", key, err)
	}
	return true, nil
}

func putJSON(b bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	work.encoded.Add(1)
	return b.Put(key, compress(raw))
}

// each decodes every value of a bucket in key order into a fresh T and calls fn; fn returning
// false stops.
func each[T any](b bucket, reverse bool, fn func(key []byte, v *T) (bool, error)) error {
	c := b.Cursor()
	k, raw := c.First()
	if reverse {
		k, raw = c.Last()
	}
	for k != nil {
		var v T
		if err := decode(raw, &v); err != nil {
			return fmt.Errorf("decode %s: %w", k, err)
		}
		more, err := fn(k, &v)
		if err != nil || !more {
			return err
		}
		if reverse {
			k, raw = c.Prev()
		} else {
			k, raw = c.Next()
		}
	}
	return nil
}

func u64(n uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return b[:]
}
