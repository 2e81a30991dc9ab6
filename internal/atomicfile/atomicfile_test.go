package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if err == nil || strings.Contains(err.Error(), ".tmp") || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Create in a missing folder: %v", err)
	}
}

func TestDistinct(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.parquet")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.parquet")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	inputs := []Input{{Flag: "reference", Path: ""}, {Flag: "data", Path: in}}
	for _, tc := range []struct {
		out  string
		same bool
	}{
		{in, true},
		{"in.parquet", true},             // relative and absolute
		{"./sub/../in.parquet", true},    // not clean
		{link, true},                     // another name of the same file
		{"other.parquet", false},         // does not exist yet
		{filepath.Join(dir, "x"), false}, // another name in the same folder
		{"", false},
	} {
		err := Distinct("out", tc.out, inputs...)
		if tc.same {
			if err == nil || !strings.Contains(err.Error(), "--out "+tc.out+" is the --data file") {
				t.Errorf("Distinct(%q) = %v, want the --data error", tc.out, err)
			}
		} else if err != nil {
			t.Errorf("Distinct(%q) = %v, want nil", tc.out, err)
		}
	}
}
