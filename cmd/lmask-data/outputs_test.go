package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Every writing command refuses, before any work, an --out that is a
// folder, a FIFO, a device or a symbolic link to one, and leaves it as it
// was; import also checks --references.
func TestRefusesSpecialOutputs(t *testing.T) {
	dir := t.TempDir()
	tw := filepath.Join(dir, "tw.parquet")
	if _, err := runCLI(t, "generate", "--problem", "tsptw", "--size", "6", "--hardness", "hard", "--count", "3", "--seed", "1", "--out", tw); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder")
	os.Mkdir(folder, 0o755)
	link := filepath.Join(dir, "link")
	os.Symlink("fifo", link)
	bad := map[string]string{fifo: "is a named pipe (FIFO), not a regular file", folder: "is a folder, not a regular file",
		link: "is a symbolic link to a named pipe (FIFO)"}
	if st, err := os.Stat("/dev/null"); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		bad["/dev/null"] = "/dev/null is a character device"
	}
	for out, want := range bad {
		for _, args := range [][]string{
			{"generate", "--problem", "tsptw", "--size", "6", "--hardness", "hard", "--count", "3", "--seed", "1", "--out", out},
			{"baseline", "--instances", tw, "--out", out},
			{"import", "--in", tw, "--out", out},
			{"import", "--in", tw, "--out", filepath.Join(dir, "x.parquet"), "--references", out},
			{"plot", "--instances", tw, "--out", out},
		} {
			expectFailure(t, "", []string{want}, args...)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO changed: %v %v", st, err)
	}
	if st, err := os.Stat(folder); err != nil || !st.IsDir() {
		t.Errorf("the folder changed: %v %v", st, err)
	}
	// Two outputs of one command may not be the same file.
	expectFailure(t, "", []string{"--references " + tw + " is the --in file"}, "import", "--in", tw, "--out", filepath.Join(dir, "y.parquet"), "--references", tw)
	o := filepath.Join(dir, "z.parquet")
	expectFailure(t, o, []string{"--references " + o + " is the --out file"}, "import", "--in", tw, "--out", o, "--references", o)
}
