// Package atomicfile writes files so that readers never see half of one: the
// data goes to a temporary file in the destination's folder, which is synced,
// made world-readable (0644) and renamed over the destination only when
// complete. On any error the destination is left as it was.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// File is a temporary file that becomes its destination on Commit.
type File struct {
	*os.File
	dest string
	done bool
}

// Create opens a temporary file beside dest.
func Create(dest string) (*File, error) {
	if err := CheckDest(dest); err != nil {
		return nil, err
	}
	dir, base := filepath.Split(dest)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", dest, err)
	}
	return &File{File: f, dest: dest}, nil
}

// Dest is the path the file becomes on Commit.
func (a *File) Dest() string { return a.dest }

// Commit syncs the temporary file and renames it over the destination.
func (a *File) Commit() error {
	if a.done {
		return fmt.Errorf("%s: already closed", a.dest)
	}
	a.done = true
	tmp := a.Name()
	fail := func(what string, err error) error {
		os.Remove(tmp)
		return fmt.Errorf("%s %s: %w", what, a.dest, err)
	}
	if err := a.Sync(); err != nil {
		a.Close()
		return fail("sync", err)
	}
	if err := a.Close(); err != nil {
		return fail("close", err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return fail("chmod", err)
	}
	if err := os.Rename(tmp, a.dest); err != nil {
		return fail("rename to", err)
	}
	if d, err := os.Open(filepath.Dir(a.dest)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Abort removes the temporary file; the destination is left as it was.
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.Close()
	os.Remove(a.Name())
}

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// CheckDest reports, before any work is done, why dest could not be
// created: an empty name, or a folder that does not exist or is not a
// folder. It does not test permissions (Create reports those).
func CheckDest(dest string) error {
	dir, base := filepath.Split(dest)
	if base == "" {
		return fmt.Errorf("create %q: empty file name", dest)
	}
	if dir == "" {
		return nil
	}
	dir = filepath.Clean(dir)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("create %s: folder %s does not exist", dest, dir)
	case !st.IsDir():
		return fmt.Errorf("create %s: %s is not a folder", dest, dir)
	}
	return nil
}

// Input is an input file and the flag that named it.
type Input struct{ Flag, Path string }

// Distinct returns an error when the output path out names the same file
// as one of the inputs (empty paths are skipped), so a run never
// overwrites the file it reads. outFlag names out's flag.
func Distinct(outFlag, out string, inputs ...Input) error {
	if out == "" {
		return nil
	}
	ao, err := filepath.Abs(out)
	if err != nil {
		return nil
	}
	so, serr := os.Stat(out)
	for _, input := range inputs {
		flag, in := input.Flag, input.Path
		if in == "" {
			continue
		}
		ai, err := filepath.Abs(in)
		same := err == nil && ai == ao
		if !same && serr == nil {
			if si, err := os.Stat(in); err == nil {
				same = os.SameFile(so, si)
			}
		}
		if same {
			return fmt.Errorf("--%s %s is the --%s file: writing it would destroy the input; choose another output path", outFlag, out, flag)
		}
	}
	return nil
}
