// Package atomicfile writes files so that readers never see half of one: the
// data goes to a temporary file in the destination's folder, which is synced,
// made world-readable (0644) and renamed over the destination only when
// complete. On any error the destination is left as it was.
//
// It also holds the output checks every command makes before any work: a
// destination must be a regular file or not exist yet (a rename would
// replace a device, FIFO or socket with a regular file, and cannot replace
// a folder), and it must not be one of the command's inputs (Distinct).
//
// Temporary files are named ".NAME.lmask-tmp.PID.N". Create removes those in
// the destination's folder whose process is gone (a run killed with
// SIGKILL leaves its temporary file behind).
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// tmpTag marks the temporary files of this package: ".NAME" + tmpTag +
// "PID.N".
const tmpTag = ".lmask-tmp."

// tmpSeq numbers the temporary files of this process.
var tmpSeq atomic.Uint64

// File is a temporary file that becomes its destination on Commit.
type File struct {
	*os.File
	dest   string // the path given to Create
	target string // where the rename goes: dest, or the file a symlink at dest names
	done   bool
}

// Create opens a temporary file beside dest. A dest that is a symbolic link
// to a regular file is written through: the link stays and its target is
// replaced.
func Create(dest string) (*File, error) {
	if err := CheckDest(dest); err != nil {
		return nil, err
	}
	target, err := resolve(dest)
	if err != nil {
		return nil, err
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	RemoveStale(dir)
	for {
		name := filepath.Join(dir, fmt.Sprintf(".%s%s%d.%d", base, tmpTag, os.Getpid(), tmpSeq.Add(1)))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", dest, err)
		}
		return &File{File: f, dest: dest, target: target}, nil
	}
}

// resolve returns the path a write to dest replaces: dest itself, or, when
// dest is a symbolic link, the file it names (which CheckDest found to be
// a regular file).
func resolve(dest string) (string, error) {
	st, err := os.Lstat(dest)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return dest, nil
	}
	t, err := filepath.EvalSymlinks(dest)
	if err != nil {
		return "", fmt.Errorf("create %s: %w", dest, err)
	}
	return t, nil
}

// Dest is the path the file becomes on Commit.
func (a *File) Dest() string { return a.dest }

// Commit syncs the temporary file and renames it over the destination. It
// checks the destination once more first, so that a device or folder put
// there while the data was written is not replaced either.
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
	if err := checkKind(a.target); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", a.dest, err)
	}
	if err := os.Rename(tmp, a.target); err != nil {
		return fail("rename to", err)
	}
	if d, err := os.Open(filepath.Dir(a.target)); err == nil {
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
// written: an empty name, a folder that does not exist or is not a folder,
// or a dest that exists and is not a regular file (a folder, device, FIFO
// or socket, or a symbolic link to one or to nothing). It does not test
// permissions (Create reports those).
func CheckDest(dest string) error {
	dir, base := filepath.Split(dest)
	if base == "" {
		return fmt.Errorf("create %q: empty file name", dest)
	}
	if dir != "" {
		dir = filepath.Clean(dir)
		st, err := os.Stat(dir)
		switch {
		case err != nil:
			return fmt.Errorf("create %s: folder %s does not exist", dest, dir)
		case !st.IsDir():
			return fmt.Errorf("create %s: %s is not a folder", dest, dir)
		}
	}
	if err := checkKind(dest); err != nil {
		return fmt.Errorf("create %s: %w", dest, err)
	}
	return nil
}

// checkKind returns an error when path exists and is not a regular file
// (following symbolic links; a link to nothing is refused too).
func checkKind(path string) error {
	lst, err := os.Lstat(path)
	if err != nil {
		return nil // nothing there yet
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s is a symbolic link to a missing file; remove it or choose another output path", path)
	}
	if st.Mode().IsRegular() {
		return nil
	}
	kind := kindOf(st.Mode())
	if lst.Mode()&fs.ModeSymlink != 0 {
		kind = "a symbolic link to " + kind
	}
	return fmt.Errorf("%s is %s, not a regular file; refusing to replace it (choose another output path)", path, kind)
}

// kindOf names the kind of a file that is not regular.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file (" + m.Type().String() + ")"
}

// Input is an input file and the flag that named it. What, when set,
// names the file within the flag's argument (a model directory's
// "encoder.onnx").
type Input struct{ Flag, Path, What string }

// DirInputs returns the files names inside the folder dir that flag named,
// as inputs.
func DirInputs(flag, dir string, names ...string) []Input {
	if dir == "" {
		return nil
	}
	out := make([]Input, len(names))
	for i, n := range names {
		out[i] = Input{Flag: flag, Path: filepath.Join(dir, n), What: n}
	}
	return out
}

// Same returns the first of inputs whose file is out's, compared as
// Distinct compares them, and whether there is one.
func Same(out string, inputs ...Input) (Input, bool) {
	if out == "" {
		return Input{}, false
	}
	ao, err := filepath.Abs(out)
	if err != nil {
		return Input{}, false
	}
	so, serr := os.Stat(out)
	for _, input := range inputs {
		in := input.Path
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
			return input, true
		}
	}
	return Input{}, false
}

// RemoveStale removes the temporary files of this package in dir whose
// process is gone, or whose process ID now belongs to a process started
// after the file was last written. Errors are ignored: a file that cannot
// be removed is left for a later run.
func RemoveStale(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, ok := tempPID(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if stale(pid, info.ModTime()) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// tempPID parses the process ID out of a temporary file's name
// ".NAME.lmask-tmp.PID.N".
func tempPID(name string) (int, bool) {
	if !strings.HasPrefix(name, ".") {
		return 0, false
	}
	i := strings.LastIndex(name, tmpTag)
	if i < 2 {
		return 0, false
	}
	p, n, ok := strings.Cut(name[i+len(tmpTag):], ".")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return 0, false
	}
	if _, err := strconv.ParseUint(n, 10, 64); err != nil {
		return 0, false
	}
	return pid, true
}

// stale reports whether a temporary file written last at mtime by process
// pid can no longer be in use: the process is gone, or the process that
// has the ID now started clearly after the write (the ID was reused).
func stale(pid int, mtime time.Time) bool {
	if !alive(pid) {
		return true
	}
	start, ok := startTime(pid)
	return ok && start.After(mtime.Add(2*time.Second))
}
