//go:build unix

package daemon

import "syscall"

// autoMaxConns is the default total cap: three quarters of the process's file descriptors (the
// rest are the database, outbound calls and logs), at least 64.
func autoMaxConns() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur == 0 {
		return 1024
	}
	n := int(min(uint64(lim.Cur), 1<<20) * 3 / 4)
	return max(n, 64)
}
