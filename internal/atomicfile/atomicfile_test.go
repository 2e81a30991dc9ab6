package atomicfile

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCheckDest(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dest, want string
	}{
		{filepath.Join(dir, "out.parquet"), ""},
		{"out.parquet", ""},
		{file, ""}, // an existing regular file is replaced
		{filepath.Join(dir, "missing", "out.parquet"), "folder " + filepath.Join(dir, "missing") + " does not exist"},
		{filepath.Join(file, "out.parquet"), file + " is not a folder"},
		{dir + "/", "empty file name"},
	} {
		err := CheckDest(tc.dest)
		if tc.want == "" {
			if err != nil {
				t.Errorf("CheckDest(%q) = %v, want nil", tc.dest, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckDest(%q) = %v, want an error with %q", tc.dest, err, tc.want)
		}
	}
	// Create reports a missing folder by its name, not by a temporary file's.
	_, err := Create(filepath.Join(dir, "missing", "out.parquet"))
	if err == nil || strings.Contains(err.Error(), tmpTag) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Create in a missing folder: %v", err)
	}
}

// special makes the files a write must not replace; the device node needs
// root (mknod) and is left out otherwise.
func special(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	sub := filepath.Join(dir, "folder")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	out[sub] = "is a folder"
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	out[fifo] = "is a named pipe (FIFO)"
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	out[sock] = "is a socket"
	null := filepath.Join(dir, "null")
	// Major 1, minor 3: the same device as /dev/null.
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		out[null] = "is a character device"
	} else {
		t.Logf("no device node (mknod: %v; needs root): that case is skipped", err)
	}
	link := filepath.Join(dir, "link-to-fifo")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	out[link] = "is a symbolic link to a named pipe (FIFO)"
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nothing"), dangling); err != nil {
		t.Fatal(err)
	}
	out[dangling] = "symbolic link to a missing file"
	return out
}

func TestRefuseNonRegular(t *testing.T) {
	dir := t.TempDir()
	for path, want := range special(t, dir) {
		before, _ := os.Lstat(path)
		if err := CheckDest(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckDest(%s) = %v, want an error with %q", path, err, want)
		}
		if err := WriteFile(path, []byte("data")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("WriteFile(%s) = %v, want an error with %q", path, err, want)
		}
		after, err := os.Lstat(path)
		if err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
			t.Errorf("%s changed: %v → %v (%v)", path, before.Mode(), after, err)
		}
	}
	if ents, _ := filepath.Glob(filepath.Join(dir, "*"+tmpTag+"*")); len(ents) > 0 {
		t.Errorf("temporary files left behind: %v", ents)
	}
	if fi, err := os.Stat("/dev/null"); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		if err := CheckDest("/dev/null"); err == nil {
			t.Errorf("CheckDest(/dev/null) = nil, want a refusal")
		}
	}
}

// TestCommitRechecks puts a FIFO where the destination was after Create:
// Commit must leave it and remove the temporary file.
func TestCommitRechecks(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "out")
	f, err := Create(dest)
	if err != nil {
		t.Fatal(err)
	}
	tmp := f.Name()
	if !strings.HasPrefix(filepath.Base(tmp), ".out"+tmpTag+strconv.Itoa(os.Getpid())+".") {
		t.Errorf("temporary name %s, want .out%sPID.N", tmp, tmpTag)
	}
	f.WriteString("data")
	if err := syscall.Mkfifo(dest, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("Commit over a FIFO = %v", err)
	}
	if st, err := os.Lstat(dest); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("destination no longer a FIFO: %v %v", st, err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temporary file %s left: %v", tmp, err)
	}
}

// TestWriteThroughSymlink: a link to a regular file keeps being a link; the
// file it names gets the data.
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("real.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link replaced: %v %v", st, err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("target holds %q, want new", b)
	}
}

// TestRemoveStale: temporary files of a process that is gone, or whose ID
// belongs to a process started after the file was written, are removed by
// the next Create in the folder; live ones and foreign names stay.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run a child process: %v", err)
	}
	dead := cmd.Process.Pid
	if alive(dead) {
		t.Skipf("process ID %d already reused", dead)
	}
	me := os.Getpid()
	mk := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, 1000), 0o600); err != nil {
			t.Fatal(err)
		}
		if !mtime.IsZero() {
			os.Chtimes(p, mtime, mtime)
		}
		return p
	}
	old := time.Now().Add(-24 * 365 * time.Hour)
	gone := mk(".checkpoint.lmck"+tmpTag+strconv.Itoa(dead)+".3", time.Time{})
	reused := mk(".x.parquet"+tmpTag+strconv.Itoa(me)+".7", old) // older than this process
	live := mk(".y.parquet"+tmpTag+strconv.Itoa(me)+".8", time.Time{})
	foreign := mk(".z.parquet.123.tmp", time.Time{})
	badPID := mk(".z.parquet"+tmpTag+"abc.1", time.Time{})

	if err := WriteFile(filepath.Join(dir, "curve.svg"), []byte("<svg/>")); err != nil {
		t.Fatal(err)
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	if exists(gone) {
		t.Errorf("%s of a finished process not removed", gone)
	}
	if _, ok := startTime(me); ok && exists(reused) {
		t.Errorf("%s written before this process started not removed", reused)
	}
	for _, p := range []string{live, foreign, badPID} {
		if !exists(p) {
			t.Errorf("%s removed", p)
		}
	}
}

func TestTempPID(t *testing.T) {
	for _, tc := range []struct {
		name string
		pid  int
		ok   bool
	}{
		{".out.parquet" + tmpTag + "42.1", 42, true},
		{".a.lmask-tmp.b" + tmpTag + "7.12", 7, true},
		{"out.parquet" + tmpTag + "42.1", 0, false}, // not hidden
		{"." + tmpTag + "42.1", 0, false},           // no name
		{".out" + tmpTag + "42", 0, false},
		{".out" + tmpTag + "0.1", 0, false},
		{".out" + tmpTag + "42.x", 0, false},
	} {
		pid, ok := tempPID(tc.name)
		if pid != tc.pid || ok != tc.ok {
			t.Errorf("tempPID(%q) = %d, %v; want %d, %v", tc.name, pid, ok, tc.pid, tc.ok)
		}
	}
}
