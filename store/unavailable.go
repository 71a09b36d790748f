package store

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrUnavailable means the database cannot be reached now: PostgreSQL is down or restarting, the
// connection broke, or no pooled connection came free within AcquireWait. A transaction cut off
// before its commit is rolled back by the server; one cut off during its commit may or may not
// have committed, which an idempotency key settles on the retry. Test with errors.Is; the error
// also wraps its cause. bbolt never answers it.
var ErrUnavailable = errors.New("the store cannot be reached")

// AcquireWait bounds how long a transaction waits for a pooled PostgreSQL connection: past it, the
// pool is exhausted or the server does not accept connections, and the call fails with
// ErrUnavailable instead of queueing without end.
const AcquireWait = 5 * time.Second

// unavailableError is an outage with its cause.
type unavailableError struct{ cause error }

func (e *unavailableError) Error() string        { return ErrUnavailable.Error() + ": " + e.cause.Error() }
func (e *unavailableError) Unwrap() error        { return e.cause }
func (e *unavailableError) Is(target error) bool { return target == ErrUnavailable }

// unavailable classifies an error of the PostgreSQL driver: one that says the server cannot be
// reached (refused or broken connections, a server shutting down or starting, too many connections,
// no pooled connection within AcquireWait) is returned as an ErrUnavailable wrapping it; any other,
// among them a wrong password or a refused schema, is returned as it is.
func unavailable(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) {
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			pe.Code == "57P01", // admin_shutdown
			pe.Code == "57P02", // crash_shutdown
			pe.Code == "57P03", // cannot_connect_now (starting up, shutting down, in recovery)
			pe.Code == "53300": // too_many_connections
			return &unavailableError{err}
		}
		return err
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	switch {
	case errors.As(err, &ce), errors.As(err, &ne),
		errors.Is(err, pgconn.ErrConnClosed),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE),
		pgconn.Timeout(err):
		return &unavailableError{err}
	}
	return err
}
