package datasets

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lmask/lmask/internal/opterr"
)

func TestBenchmarkReferencePath(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "bench"), filepath.Join(dir, "b.parquet")
	none := &Benchmark{}
	if p, err := none.ReferencePath("", in, out); err != nil || p != "" {
		t.Fatalf("no references: %q, %v", p, err)
	}
	bm := &Benchmark{References: make([]Solution, 2), CoordSource: []string{"file", "mds", "mds"}}
	if p, err := bm.ReferencePath("", in, out); err != nil || p != filepath.Join(dir, "b.refs.parquet") {
		t.Fatalf("default: %q, %v", p, err)
	}
	if _, err := bm.ReferencePath(out, in, out); opterr.As(err) == nil || opterr.As(err).Option != "References" || opterr.As(err).Value != out ||
		err.Error() != "References "+out+": is the Out file: writing it would destroy the input; choose another output path" {
		t.Fatalf("references = out: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := bm.ReferencePath(filepath.Join(dir, "sub"), in, out); opterr.As(err) == nil || opterr.As(err).Option != "References" {
		t.Fatalf("references a folder: %v", err)
	}
	if n := bm.MDSCount(); n != 2 {
		t.Fatalf("MDSCount %d, want 2", n)
	}
}
