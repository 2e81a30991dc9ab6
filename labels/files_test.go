package labels

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// writeGenerated writes count generated instances of n nodes to dir/name.
func writeGenerated(t *testing.T, dir, name string, p lazymask.Problem, n, count int, seed uint64) string {
	t.Helper()
	gen, err := datasets.NewGenerator(datasets.GenConfig{Problem: p, N: n, Hardness: "hard", Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	insts := make([]*lazymask.Instance, count)
	for i := range insts {
		insts[i], _ = gen.Next()
	}
	path := filepath.Join(dir, name)
	if err := datasets.WriteInstances(path, gen.Metadata(), insts, nil, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	return path
}

// fileSet opens (or continues) a label set over paths and grows it.
func fileSet(t *testing.T, dir string, paths []string, shard Shard) (int, error) {
	t.Helper()
	f, err := datasets.ReadInstanceFiles(paths)
	if err != nil {
		t.Fatal(err)
	}
	sp := FileSpec(f, 5, 7)
	sp.Search = "test"
	got, err := Open(dir, sp)
	if err != nil {
		return 0, err
	}
	b := &Builder{Dir: dir, Spec: got, Starter: randomL(5), Search: Search{Kicks: 2, MaxStarts: 2, Workers: 2}, Files: f, Shard: shard}
	return b.Grow(context.Background(), 0)
}

// TestFileSetMixedSizes: two files of sizes 10 and 15 (13 + 8 rows) make
// 3 chunks of 7 (the second holds both sizes); every label is feasible and
// its instance is the file's row; the set is the same in a second folder
// (determinism) and after a lost chunk is written again (resume); a
// changed input file and a file of another problem are refused.
func TestFileSetMixedSizes(t *testing.T) {
	in := t.TempDir()
	a := writeGenerated(t, in, "a.parquet", lazymask.TSPTW, 10, 13, 1)
	b := writeGenerated(t, in, "b.parquet", lazymask.TSPTW, 15, 8, 2)
	one, two := t.TempDir(), t.TempDir()
	if n, err := fileSet(t, one, []string{a, b}, Shard{}); err != nil || n != 3 {
		t.Fatalf("%d chunks, %v; want 3", n, err)
	}
	l, err := datasets.ReadLabels(one, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Insts)+l.Skipped != 21 || len(l.Chunks) != 3 || l.Spec.Size != 0 || !reflect.DeepEqual(l.Spec.Sizes, []int{10, 15}) {
		t.Fatalf("%d labels + %d skipped in chunks %v, spec size %d sizes %v; want 21 in 3, size 0, sizes [10 15]",
			len(l.Insts), l.Skipped, l.Chunks, l.Spec.Size, l.Spec.Sizes)
	}
	if l.Skipped != 0 {
		t.Fatalf("%d of 21 hard instances (built around a feasible tour) without a label", l.Skipped)
	}
	src, _ := datasets.ReadInstanceFiles([]string{a, b})
	ch, err := datasets.ReadLabelSetChunk(one, l.Spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, inst := range ch.Insts {
		want := src.Instances[7+i]
		if inst.N != want.N || !reflect.DeepEqual(inst.Early, want.Early) || !reflect.DeepEqual(inst.X, want.X) {
			t.Fatalf("chunk 1 row %d is not row %d of the files", i, 7+i)
		}
		if ch.Tours[i] != nil {
			if r, err := lazymask.Check(inst, ch.Tours[i]); err != nil || !r.Feasible {
				t.Fatalf("chunk 1 row %d: label infeasible (%v)", i, err)
			}
		}
	}
	if ch.Insts[0].N != 10 || ch.Insts[6].N != 15 {
		t.Fatalf("chunk 1 holds sizes %d … %d, want 10 … 15", ch.Insts[0].N, ch.Insts[6].N)
	}
	if _, err := fileSet(t, two, []string{a, b}, Shard{}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(files(t, one), files(t, two)) {
		t.Fatal("two runs over the same files and seed wrote different sets")
	}
	_, sp := datasets.LabelChunkPaths(two, 2)
	if err := os.Remove(sp); err != nil {
		t.Fatal(err)
	}
	if n, err := fileSet(t, two, []string{a, b}, Shard{}); err != nil || n != 1 {
		t.Fatalf("resume: %d chunks, %v; want 1", n, err)
	}
	if !reflect.DeepEqual(files(t, one), files(t, two)) {
		t.Fatal("the chunk written again differs")
	}
	writeGenerated(t, in, "b.parquet", lazymask.TSPTW, 15, 8, 3) // same name and size, other content
	if _, err := fileSet(t, two, []string{a, b}, Shard{}); err == nil || !strings.Contains(err.Error(), "b.parquet changed") {
		t.Fatalf("a changed input file: %v, want refused", err)
	}
	d := writeGenerated(t, in, "d.parquet", lazymask.TSPDL, 10, 3, 1)
	if _, err := datasets.ReadInstanceFiles([]string{a, d}); err == nil || !strings.Contains(err.Error(), "one problem") {
		t.Fatalf("mixed problems: %v, want refused", err)
	}
}

// TestShardsMerge: shards 0/2 and 1/2 grown in two folders hold the even
// and the odd chunks; merged into a new folder they are the set one run
// writes; a missing shard, a chunk in two parts and another set's part
// are refused.
func TestShardsMerge(t *testing.T) {
	in := t.TempDir()
	a := writeGenerated(t, in, "a.parquet", lazymask.TSPDL, 10, 20, 1)
	b := writeGenerated(t, in, "b.parquet", lazymask.TSPDL, 14, 10, 2)
	whole, s0, s1 := t.TempDir(), t.TempDir(), t.TempDir()
	if _, err := fileSet(t, whole, []string{a, b}, Shard{}); err != nil {
		t.Fatal(err)
	}
	if n, err := fileSet(t, s0, []string{a, b}, Shard{0, 2}); err != nil || n != 3 {
		t.Fatalf("shard 0/2: %d chunks, %v; want 3 (0, 2, 4)", n, err)
	}
	if c, _ := datasets.LabelChunks(s0); !reflect.DeepEqual(c, []int{0, 2, 4}) {
		t.Fatalf("shard 0/2 wrote chunks %v", c)
	}
	if _, err := Merge(filepath.Join(t.TempDir(), "m"), []string{s0}, 0); err == nil || !strings.Contains(err.Error(), "chunk 1, 3 missing") {
		t.Fatalf("one shard only: %v, want chunks 1, 3 missing", err)
	}
	if n, err := fileSet(t, s1, []string{a, b}, Shard{1, 2}); err != nil || n != 2 {
		t.Fatalf("shard 1/2: %d chunks, %v; want 2", n, err)
	}
	out := filepath.Join(t.TempDir(), "merged")
	r, err := Merge(out, []string{s0, s1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Chunks != 5 || r.Copied != 5 || r.Labels+r.Skipped != 30 || !reflect.DeepEqual(r.Sizes, []int{10, 14}) {
		t.Fatalf("merge report %+v, want 5 chunks copied, 30 instances, sizes [10 14]", r)
	}
	if !reflect.DeepEqual(files(t, out), files(t, whole)) {
		t.Fatal("the merged shards differ from the set one run writes")
	}
	if r, err := Merge(out, nil, 0); err == nil || r.Chunks != 0 {
		// no parts: an error, the command passes --out itself
		t.Fatalf("no parts: %+v, %v", r, err)
	}
	if r, err := Merge(out, []string{out}, 0); err != nil || r.Copied != 0 || r.Chunks != 5 {
		t.Fatalf("check in place: %+v, %v", r, err)
	}
	if _, err := Merge(filepath.Join(t.TempDir(), "m"), []string{s0, whole}, 0); err == nil || !strings.Contains(err.Error(), "is in both") {
		t.Fatalf("a chunk in two parts: %v", err)
	}
	other := t.TempDir()
	f, _ := datasets.ReadInstanceFiles([]string{a})
	osp := FileSpec(f, 5, 7)
	osp.Search = "test"
	if _, err := Open(other, osp); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(filepath.Join(t.TempDir(), "m"), []string{s0, other}, 0); err == nil || !strings.Contains(err.Error(), "not shards of one set") {
		t.Fatalf("another set's part: %v", err)
	}
}

// TestShardsShareFolder: shards started together in one folder (a shared
// volume) each write the manifest and their chunks; the checked set is the
// set one run writes.
func TestShardsShareFolder(t *testing.T) {
	in := t.TempDir()
	a := writeGenerated(t, in, "a.parquet", lazymask.TSPTW, 10, 30, 4)
	whole, shared := t.TempDir(), filepath.Join(t.TempDir(), "set")
	if _, err := fileSet(t, whole, []string{a}, Shard{}); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 3)
	for i := 0; i < 3; i++ {
		go func() {
			_, err := fileSet(t, shared, []string{a}, Shard{i, 3})
			errs <- err
		}()
	}
	for i := 0; i < 3; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if r, err := Merge(shared, []string{shared}, 0); err != nil || r.Chunks != 5 || r.Copied != 0 {
		t.Fatalf("check in place: %+v, %v", r, err)
	}
	if !reflect.DeepEqual(files(t, shared), files(t, whole)) {
		t.Fatal("the shards' shared folder differs from one run's set")
	}
}
