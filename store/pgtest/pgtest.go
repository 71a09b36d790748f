// Package pgtest runs a throwaway PostgreSQL for tests: initdb in a temporary directory, listening
// only on a unix socket there, started on the first use in a test binary and stopped (and deleted)
// by Main when the package's tests end. It uses the Debian packages' binaries
// (/usr/lib/postgresql/*/bin) or initdb and pg_ctl on PATH; without them tests that need PostgreSQL
// skip, unless AXP_REQUIRE_POSTGRES=1 makes them fail. Only tests import it.
//
// AXP_TEST_STORE=postgres runs a package's tests on PostgreSQL throughout (`make test` runs the
// daemon package so a second time): OnPostgres is then true in every test, so a helper that opens
// the store under test opens a new database; Both runs only its "postgres" subtest (the default run
// covers "bolt"); tests that need a bbolt file skip through BoltOnly.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a running throwaway PostgreSQL.
type Server struct {
	dir  string // socket directory; data in dir/data
	bin  string
	cred *syscall.Credential // run the server as this user (initdb refuses root)
	seq  atomic.Int64
	opts []string // the server's options, to start it again (Resume)
}

// Options tune Start.
type Options struct {
	// Durable keeps fsync and synchronous commit on (benchmarks that compare with a synced bbolt).
	Durable bool
}

var (
	once     sync.Once
	shared   *Server
	startErr error
)

// Main runs the tests of a package, stops the server if a test started it, then runs after (the
// package's own clean-up).
func Main(m *testing.M, after ...func()) {
	switch os.Getenv("AXP_TEST_STORE") {
	case "", "bolt", "postgres":
	default:
		fmt.Fprintf(os.Stderr, "AXP_TEST_STORE=%s: want bolt (the default) or postgres\n", os.Getenv("AXP_TEST_STORE"))
		os.Exit(2)
	}
	if _, err := binDir(); err != nil && Selected() && !Required() {
		fmt.Fprintf(os.Stderr, "AXP_TEST_STORE=postgres: no run on PostgreSQL: %v\n", err)
		os.Exit(0)
	}
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	for _, f := range after {
		f()
	}
	os.Exit(code)
}

// Selected tells whether the tests run on PostgreSQL throughout (AXP_TEST_STORE=postgres).
func Selected() bool { return os.Getenv("AXP_TEST_STORE") == "postgres" }

// BoltOnly skips t when the tests run on PostgreSQL throughout: why says what in it needs a bbolt
// file (the default run covers it).
func BoltOnly(t testing.TB, why string) {
	t.Helper()
	if Selected() {
		t.Skip("needs a bbolt file: " + why)
	}
}

// Required tells whether PostgreSQL tests must run (AXP_REQUIRE_POSTGRES=1), failing instead of
// skipping when PostgreSQL is not installed.
func Required() bool { return os.Getenv("AXP_REQUIRE_POSTGRES") == "1" }

// DSN returns the location of a new, empty database on the package's server, starting the server
// on first use; the database is dropped when the test ends. Without PostgreSQL the test skips (or
// fails when Required), and so it does under go test -short unless Selected.
func DSN(t testing.TB) string {
	t.Helper()
	SkipShort(t)
	once.Do(func() { shared, startErr = Start(Options{}) })
	if startErr != nil {
		if errors.Is(startErr, ErrNotInstalled) && !Required() {
			t.Skip(startErr)
		}
		t.Fatal(startErr)
	}
	name, err := shared.newDatabase()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := shared.exec("DROP DATABASE " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return shared.URL(name)
}

// Both runs test twice, as the subtests "bolt" and "postgres"; a helper that opens the store under
// test asks OnPostgres which one it is in. When Selected, "bolt" skips.
func Both(t *testing.T, test func(t *testing.T)) {
	t.Run("bolt", func(t *testing.T) {
		if Selected() {
			t.Skip("AXP_TEST_STORE=postgres: the default run covers bbolt")
		}
		test(t)
	})
	t.Run("postgres", func(t *testing.T) {
		SkipShort(t)
		test(t)
	})
}

// SkipShort skips t under go test -short (the edit-test loop runs on bbolt only) unless the tests
// run on PostgreSQL throughout (AXP_TEST_STORE=postgres); make test runs it.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() && !Selected() {
		t.Skip("PostgreSQL is left out of go test -short: make test runs it")
	}
}

// OnPostgres tells whether t runs on PostgreSQL: under Both's "postgres" subtest, or in any test
// when Selected.
func OnPostgres(t testing.TB) bool {
	if Selected() {
		return true
	}
	parts := strings.Split(t.Name(), "/")
	return len(parts) > 1 && parts[1] == "postgres"
}

// ErrNotInstalled means no PostgreSQL binaries were found.
var ErrNotInstalled = errors.New("PostgreSQL is not installed (initdb, pg_ctl: apt-get install postgresql); set AXP_REQUIRE_POSTGRES=1 to fail instead of skipping")

// binDir finds the directory of initdb and pg_ctl, the newest Debian version first.
func binDir() (string, error) {
	if d := os.Getenv("AXP_POSTGRES_BIN"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err != nil {
			return "", fmt.Errorf("%w (AXP_POSTGRES_BIN=%s: %v)", ErrNotInstalled, d, err)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return filepath.Dir(p), nil
	}
	return "", ErrNotInstalled
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Start initialises and starts a server in a new temporary directory.
func Start(o Options) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "axp-pg-") // short: a socket path must fit in 107 bytes
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root: run it as the postgres user of the Debian package.
		name := os.Getenv("AXP_POSTGRES_USER")
		if name == "" {
			name = "postgres"
		}
		u, err := user.Lookup(name)
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root, PostgreSQL needs an unprivileged user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if out, err := s.run("initdb", "-D", s.data(), "-U", "axp", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	opts := []string{"-k", dir, "-c", "listen_addresses=", "-c", "max_connections=300", "-c", "shared_buffers=64MB"}
	if !o.Durable {
		opts = append(opts, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	s.opts = opts
	if err := s.Resume(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// Halt stops the server as an operator would (pg_ctl stop -m fast: sessions are ended with
// admin_shutdown), keeping its data for Resume.
func (s *Server) Halt() error {
	if out, err := s.run("pg_ctl", "-D", s.data(), "-m", "fast", "-w", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

// Resume starts the server (again, after Halt) and waits until it accepts connections.
func (s *Server) Resume() error {
	if out, err := s.run("pg_ctl", "-D", s.data(), "-l", filepath.Join(s.dir, "log"), "-w", "-t", "60", "-o", strings.Join(s.opts, " "), "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return nil
}

// RequirePassword creates the login role user with password, owner of database name, and makes the
// server check that password for it (the other roles stay trusted). It returns the location of name
// as that user with the password given (which may be wrong, for tests of refused logins).
func (s *Server) RequirePassword(name, user, password, given string) (string, error) {
	if err := s.exec(fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", user, password)); err != nil {
		return "", err
	}
	if err := s.exec(fmt.Sprintf("ALTER DATABASE %s OWNER TO %s", name, user)); err != nil {
		return "", err
	}
	hba := filepath.Join(s.data(), "pg_hba.conf")
	old, err := os.ReadFile(hba)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(hba, append([]byte("local all "+user+" scram-sha-256\n"), old...), 0o600); err != nil {
		return "", err
	}
	if out, err := s.run("pg_ctl", "-D", s.data(), "reload"); err != nil {
		return "", fmt.Errorf("pg_ctl reload: %v\n%s", err, out)
	}
	// The server reads the file again when it gets round to the signal: wait until it checks.
	probe := "postgres:///" + name + "?host=" + url.QueryEscape(s.dir) + "&user=" + user + "&password=not-" + password
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err := pgx.Connect(ctx, probe)
		cancel()
		if err != nil {
			break
		}
		conn.Close(context.Background())
		if time.Now().After(deadline) {
			return "", errors.New("pgtest: the server does not check passwords after reload")
		}
	}
	return "postgres:///" + name + "?host=" + url.QueryEscape(s.dir) + "&user=" + user + "&password=" + url.QueryEscape(given), nil
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

func (s *Server) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd.CombinedOutput()
}

// URL is the location of database name on the server.
func (s *Server) URL(name string) string {
	return "postgres:///" + name + "?host=" + url.QueryEscape(s.dir) + "&user=axp"
}

// NewDatabase creates an empty database and returns its location.
func (s *Server) NewDatabase() (string, error) {
	name, err := s.newDatabase()
	if err != nil {
		return "", err
	}
	return s.URL(name), nil
}

// newDatabase creates an empty database and returns its name.
func (s *Server) newDatabase() (string, error) {
	name := fmt.Sprintf("axp_test_%d", s.seq.Add(1))
	return name, s.exec("CREATE DATABASE " + name + " TEMPLATE template0 STRATEGY file_copy")
}

// exec runs one statement on the server's maintenance database.
func (s *Server) exec(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// Stop stops the server at once and deletes its directory.
func (s *Server) Stop() {
	s.run("pg_ctl", "-D", s.data(), "-m", "immediate", "-w", "stop")
	os.RemoveAll(s.dir)
}

// CPU is the processor time the server has used so far, its exited backends included: the
// postmaster's own and reaped children's time, and that of the processes it runs now. It answers
// 0 where /proc is missing.
func (s *Server) CPU() time.Duration {
	raw, err := os.ReadFile(filepath.Join(s.data(), "postmaster.pid"))
	if err != nil {
		return 0
	}
	pid, _, _ := strings.Cut(string(raw), "\n")
	f := procStat(pid)
	if f == nil {
		return 0
	}
	total := ticks(f, 11) + ticks(f, 12) + ticks(f, 13) + ticks(f, 14) // utime, stime, cutime, cstime
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if c := procStat(d.Name()); c != nil && c[1] == pid {
			total += ticks(c, 11) + ticks(c, 12)
		}
	}
	return total
}

// procStat answers the fields of /proc/pid/stat after the command name (state is the first, the
// parent's pid the second), or nil.
func procStat(pid string) []string {
	if _, err := strconv.Atoi(pid); err != nil {
		return nil
	}
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	if f := strings.Fields(s[i+1:]); len(f) >= 15 {
		return f
	}
	return nil
}

// ticks reads field i of procStat's answer as clock ticks (100 a second on Linux).
func ticks(f []string, i int) time.Duration {
	n, _ := strconv.ParseInt(f[i], 10, 64)
	return time.Duration(n) * 10 * time.Millisecond
}
