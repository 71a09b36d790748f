// Package atomicfile writes a file whole: into a temporary file beside it, synced to the disk, then
// renamed (or linked) into place, so a reader or a crash sees the old file or the new one, never
// half of one. Keys and credentials are written this way, with mode 0600.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data, created with mode.
func Write(path string, data []byte, mode os.FileMode) error {
	tmp, err := temp(path, data, mode)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // after the rename this finds nothing
	return os.Rename(tmp, path)
}

// WriteNew writes data to path, created with mode, unless path exists: then it fails with an
// error matching fs.ErrExist and leaves the file as it is (one written meanwhile included).
func WriteNew(path string, data []byte, mode os.FileMode) error {
	tmp, err := temp(path, data, mode)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	return os.Link(tmp, path)
}

// temp writes data to a new temporary file in path's directory and answers its name.
func temp(path string, data []byte, mode os.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	err = f.Chmod(mode)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}
