package ortlib

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCandidates(t *testing.T) {
	tests := []struct {
		name string
		sys  System
		want []string
	}{
		{
			name: "linux amd64 in checkout",
			sys:  System{ExeDir: "/home/u/bin", RepoRoot: "/src/lmask", GOOS: "linux", GOARCH: "amd64"},
			want: []string{
				"/src/lmask/third_party/onnxruntime/libonnxruntime.so",
				"/home/u/bin/libonnxruntime.so",
				"/home/u/lib/libonnxruntime.so",
				"/usr/local/lib/libonnxruntime.so",
				"/usr/lib/x86_64-linux-gnu/libonnxruntime.so",
				"/usr/lib/libonnxruntime.so",
			},
		},
		{
			name: "linux arm64 outside checkout",
			sys:  System{ExeDir: "/opt/lmask/bin", GOOS: "linux", GOARCH: "arm64"},
			want: []string{
				"/opt/lmask/bin/libonnxruntime.so",
				"/opt/lmask/lib/libonnxruntime.so",
				"/usr/local/lib/libonnxruntime.so",
				"/usr/lib/aarch64-linux-gnu/libonnxruntime.so",
				"/usr/lib/libonnxruntime.so",
			},
		},
		{
			name: "linux riscv64 no multiarch folder",
			sys:  System{GOOS: "linux", GOARCH: "riscv64"},
			want: []string{"/usr/local/lib/libonnxruntime.so", "/usr/lib/libonnxruntime.so"},
		},
		{
			name: "darwin",
			sys:  System{ExeDir: "/Users/u/bin", RepoRoot: "/Users/u/lmask", GOOS: "darwin", GOARCH: "arm64"},
			want: []string{
				"/Users/u/lmask/third_party/onnxruntime/libonnxruntime.dylib",
				"/Users/u/bin/libonnxruntime.dylib",
				"/Users/u/lib/libonnxruntime.dylib",
				"/usr/local/lib/libonnxruntime.dylib",
				"/opt/homebrew/lib/libonnxruntime.dylib",
			},
		},
		{
			name: "windows",
			sys:  System{ExeDir: "/c/lmask", GOOS: "windows", GOARCH: "amd64"},
			want: []string{filepath.Join("/c/lmask", "onnxruntime.dll"), filepath.Join("/c/lib", "onnxruntime.dll")},
		},
		{
			name: "executable inside the checkout's third_party is listed once",
			sys:  System{ExeDir: "/r/third_party/onnxruntime", RepoRoot: "/r", GOOS: "freebsd", GOARCH: "amd64"},
			want: []string{
				"/r/third_party/onnxruntime/libonnxruntime.so",
				"/r/third_party/lib/libonnxruntime.so",
				"/usr/local/lib/libonnxruntime.so",
				"/usr/lib/libonnxruntime.so",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Candidates(tc.sys)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Candidates(%+v)\n got %q\nwant %q", tc.sys, got, tc.want)
			}
		})
	}
}

func TestFindLibrary(t *testing.T) {
	cands := []string{"/a/libonnxruntime.so", "/b/libonnxruntime.so", "/c/libonnxruntime.so"}
	existing := func(paths ...string) func(string) bool {
		return func(p string) bool {
			for _, q := range paths {
				if p == q {
					return true
				}
			}
			return false
		}
	}
	tests := []struct {
		name    string
		env     string
		exists  func(string) bool
		want    string
		wantErr string
	}{
		{"env wins over candidates", "/env/lib.so", existing("/env/lib.so", "/a/libonnxruntime.so"), "/env/lib.so", ""},
		{"env set but missing is an error", "/env/lib.so", existing("/a/libonnxruntime.so"), "", Env},
		{"first existing candidate", "", existing("/b/libonnxruntime.so", "/c/libonnxruntime.so"), "/b/libonnxruntime.so", ""},
		{"nothing found lists every path", "", existing(), "", "/a/libonnxruntime.so, /b/libonnxruntime.so, /c/libonnxruntime.so"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := findLibrary(tc.env, cands, tc.exists)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "scripts/setup.sh") {
					t.Fatalf("err = %v, want one naming %q and scripts/setup.sh", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("findLibrary = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	_, err := findLibrary("", cands, existing())
	var nf *NotFoundError
	if !errors.As(err, &nf) || !reflect.DeepEqual(nf.Tried, cands) {
		t.Fatalf("err = %#v, want *NotFoundError listing %q", err, cands)
	}
}

func TestFindRepoRoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module github.com/lmask/lmask\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(dir, "cmd", "x")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := findRepoRoot(deep); got != dir {
		t.Errorf("findRepoRoot(%s) = %q, want %q", deep, got, dir)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := findRepoRoot(other); got == other {
		t.Errorf("findRepoRoot accepted a go.mod of another module")
	}
}
