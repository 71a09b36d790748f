package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// The driver's errors that mean the database is out of reach are ErrUnavailable; the others
// (a wrong password, a missing database, a refused schema, a constraint) are not.
func TestUnavailableClassifies(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "unix", Err: syscall.ECONNREFUSED}
	cases := []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "57P01"}, true},
		{&pgconn.PgError{Code: "57P03"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{&pgconn.PgError{Code: "53300"}, true},
		{fmt.Errorf("begin: %w", refused), true},
		{fmt.Errorf("write: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("begin: %w", context.DeadlineExceeded), true},
		{fmt.Errorf("begin: %w", pgconn.ErrConnClosed), true},
		{&pgconn.PgError{Code: "28P01"}, false},
		{fmt.Errorf("connect: %w", &pgconn.PgError{Code: "28P01"}), false},
		{&pgconn.PgError{Code: "3D000"}, false},
		{&pgconn.PgError{Code: "23505"}, false},
		{errors.New("database has schema version 99"), false},
		{nil, false},
	}
	for _, c := range cases {
		got := unavailable(c.err)
		if errors.Is(got, ErrUnavailable) != c.want {
			t.Errorf("%v: unavailable = %v, want %v", c.err, errors.Is(got, ErrUnavailable), c.want)
		}
		if c.err != nil && !errors.Is(got, c.err) {
			t.Errorf("%v: the cause is lost", c.err)
		}
	}
}
