package datasets

import (
	"fmt"
	"os"
	"path/filepath"
)

// atomicFile is a temporary file in the destination's directory that
// becomes the destination only on commit (fsync, rename, fsync of the
// directory). Until then the destination is untouched.
type atomicFile struct {
	*os.File
	dest string
	done bool
}

func createAtomic(dest string) (*atomicFile, error) {
	dir, base := filepath.Split(dest)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return nil, fmt.Errorf("create %q: empty file name", dest)
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", dest, err)
	}
	return &atomicFile{File: f, dest: dest}, nil
}

// commit makes the temporary file the destination.
func (a *atomicFile) commit() error {
	if a.done {
		return fmt.Errorf("%s: already closed", a.dest)
	}
	a.done = true
	tmp := a.Name()
	if err := a.Sync(); err != nil {
		a.Close()
		os.Remove(tmp)
		return fmt.Errorf("sync %s: %w", a.dest, err)
	}
	if err := a.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("close %s: %w", a.dest, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("chmod %s: %w", a.dest, err)
	}
	if err := os.Rename(tmp, a.dest); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename to %s: %w", a.dest, err)
	}
	if d, err := os.Open(filepath.Dir(a.dest)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// abort removes the temporary file; the destination is left as it was.
func (a *atomicFile) abort() {
	if a.done {
		return
	}
	a.done = true
	a.Close()
	os.Remove(a.Name())
}
