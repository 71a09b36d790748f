//go:build !unix

package daemon

// autoMaxConns is the default total cap where the system has no per-process descriptor limit to
// read (Windows): a fixed 8,192, which max_conns overrides.
func autoMaxConns() int { return 8192 }
