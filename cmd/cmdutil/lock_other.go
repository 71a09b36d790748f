//go:build !unix

package cmdutil

// lockFile does nothing where flock is missing: saves are still atomic renames.
func lockFile(string) (func(), error) { return func() {}, nil }
