package daemon_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/axp-exchange/axp/store"
	"github.com/axp-exchange/axp/store/pgtest"
	"github.com/jackc/pgx/v5"
	bolt "go.etcd.io/bbolt"
)

// databases maps a data dir to its exchange's PostgreSQL database, so that an exchange started again
// on a data dir finds its records.
var databases sync.Map

// storeFor is the store of the exchange on dataDir: "" (the bbolt file in the data dir), or when the
// test runs on PostgreSQL a new database of the package's throwaway server, the same for every
// start on dataDir.
func storeFor(t testing.TB, dataDir string) string {
	t.Helper()
	if !pgtest.OnPostgres(t) {
		return ""
	}
	if dsn, ok := databases.Load(dataDir); ok {
		return dsn.(string)
	}
	dsn := pgtest.DSN(t)
	databases.Store(dataDir, dsn)
	return dsn
}

// pgConn connects to the PostgreSQL database of the exchange on dataDir, if it has one.
func pgConn(t testing.TB, dataDir string) *pgx.Conn {
	t.Helper()
	dsn, ok := databases.Load(dataDir)
	if !ok {
		return nil
	}
	conn, err := pgx.Connect(context.Background(), dsn.(string))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// stored is what the exchange on dataDir keeps, for checks that a secret is not kept in clear: the
// bbolt file as it is on disk, or on PostgreSQL every key and value, the values also inflated.
func stored(t testing.TB, dataDir string) []byte {
	t.Helper()
	conn := pgConn(t, dataDir)
	if conn == nil {
		raw, err := os.ReadFile(filepath.Join(dataDir, store.FileName))
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	rows, err := conn.Query(context.Background(), `SELECT bucket, key, value FROM axp_kv`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []byte
	for rows.Next() {
		var bucket string
		var key, value []byte
		if err := rows.Scan(&bucket, &key, &value); err != nil {
			t.Fatal(err)
		}
		out = append(append(append(append(out, bucket...), key...), value...), '\n')
		if plain, err := store.Decompress(value); err == nil {
			out = append(append(out, plain...), '\n')
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// rewriteStored changes one stored record behind the back of the exchange on dataDir (which must be
// closed): change gets the record's inflated value and returns the new one.
func rewriteStored(t testing.TB, dataDir, bucket, key string, change func(plain []byte) []byte) {
	t.Helper()
	rewrite := func(v []byte) ([]byte, error) {
		plain, err := store.Decompress(v)
		if err != nil {
			return nil, err
		}
		return store.Compress(change(plain)), nil
	}
	if conn := pgConn(t, dataDir); conn != nil {
		ctx := context.Background()
		var v []byte
		if err := conn.QueryRow(ctx, `SELECT value FROM axp_kv WHERE bucket = $1 AND key = $2`, bucket, []byte(key)).Scan(&v); err != nil {
			t.Fatalf("rewrite %s/%s: %v", bucket, key, err)
		}
		nv, err := rewrite(v)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, `UPDATE axp_kv SET value = $3 WHERE bucket = $1 AND key = $2`, bucket, []byte(key), nv); err != nil {
			t.Fatal(err)
		}
		return
	}
	db, err := bolt.Open(filepath.Join(dataDir, store.FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucket))
		nv, err := rewrite(b.Get([]byte(key)))
		if err != nil {
			return err
		}
		return b.Put([]byte(key), nv)
	})
	if err != nil {
		t.Fatalf("rewrite %s/%s: %v", bucket, key, err)
	}
}
