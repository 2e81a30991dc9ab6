package trainer

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/labels"
	"github.com/lmask/lmask/lazymask"
)

// writeSized writes count generated TSPTW hard instances of n nodes.
func writeSized(t testing.TB, dir, name string, n, count int, seed uint64) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if _, err := datasets.GenerateFile(path, datasets.GenConfig{Problem: lazymask.TSPTW, N: n, Hardness: "hard", Seed: seed}, count, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	return path
}

// tinySized is tinyConfig's model and schedule on base.
func tinySized(t testing.TB, base Config, steps int) Config {
	tc := tinyConfig(t, steps)
	base.Steps, base.Batch, base.Samples = steps, 4, 6
	base.Model.Layers, base.Model.DModel, base.Model.Heads, base.Model.FFN = 1, 16, 2, 32
	base.LR, base.Milestones, base.CheckpointEvery, base.ValEvery = 1e-3, nil, 0, 0
	base.Backend, base.Seed = tc.Backend, tc.Seed
	return base
}

// TestBucketPicker: over labels of sizes 10 (20) and 12 (7) in batches
// of 4, an epoch is 5 + 2 batches, each of one size, that visit every
// label; a second picker gives the same batches, and the next epoch
// another order.
func TestBucketPicker(t *testing.T) {
	var insts []*lazymask.Instance
	for i := 0; i < 27; i++ {
		n := 10
		if i%4 == 1 {
			n = 12
		}
		insts = append(insts, &lazymask.Instance{N: n})
	}
	a, b := newBucketPicker(insts, 4, 3, 0), newBucketPicker(insts, 4, 3, 0)
	if a.per != 7 {
		t.Fatalf("%d batches per epoch, want 7", a.per)
	}
	seen := map[int]bool{}
	var first [][]int
	for s := 0; s < 7; s++ {
		idx, aug := a.pick(s, 4)
		if len(idx) != 4 || len(aug) != 4 {
			t.Fatalf("step %d: %d labels, %d transforms", s, len(idx), len(aug))
		}
		for _, i := range idx {
			if insts[i].N != insts[idx[0]].N {
				t.Fatalf("step %d mixes sizes: %v", s, idx)
			}
			seen[i] = true
		}
		if got, _ := b.pick(s, 4); !reflect.DeepEqual(got, idx) {
			t.Fatalf("step %d: %v and %v from two pickers", s, idx, got)
		}
		first = append(first, idx)
	}
	if len(seen) != 27 {
		t.Fatalf("one epoch visited %d of 27 labels", len(seen))
	}
	var second [][]int
	for s := 7; s < 14; s++ {
		idx, _ := a.pick(s, 4)
		second = append(second, idx)
	}
	if reflect.DeepEqual(first, second) {
		t.Fatal("the second epoch repeats the first one's order")
	}
}

// TestSplitIndices: the split is seeded, disjoint, covers every index and
// keeps round(share·n) for validation.
func TestSplitIndices(t *testing.T) {
	tr, va := SplitIndices(40, 0.25, 9)
	if len(va) != 10 || len(tr) != 30 {
		t.Fatalf("split %d + %d, want 30 + 10", len(tr), len(va))
	}
	all := append(slices.Clone(tr), va...)
	slices.Sort(all)
	for i, v := range all {
		if v != i {
			t.Fatalf("the parts do not tile 0…39: %v", all)
		}
	}
	if tr2, va2 := SplitIndices(40, 0.25, 9); !reflect.DeepEqual(tr2, tr) || !reflect.DeepEqual(va2, va) {
		t.Fatal("the same seed split otherwise")
	}
	if _, va3 := SplitIndices(40, 0.25, 10); reflect.DeepEqual(va3, va) {
		t.Fatal("another seed split alike")
	}
	if _, va4 := SplitIndices(40, 0, 9); len(va4) != 0 {
		t.Fatalf("share 0 kept %v", va4)
	}
}

// TestTrainData: a run on two instance files of sizes 10 and 12 draws
// batches of one size from the files (both sizes within a few steps),
// keeps its validation split out of training, validates the mixed sizes,
// and a resumed run refuses a changed file; BaseConfig refuses flags
// against the files.
func TestTrainData(t *testing.T) {
	in := t.TempDir()
	a, b := writeSized(t, in, "a.parquet", 10, 24, 1), writeSized(t, in, "b.parquet", 12, 16, 2)
	files, err := datasets.ReadInstanceFiles([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	base, err := BaseConfig(Sources{TrainData: files})
	if err != nil {
		t.Fatal(err)
	}
	if base.Problem != "tsptw" || base.Size != 12 || !reflect.DeepEqual(base.Sizes, []int{10, 12}) || base.Hardness != "" || len(base.TrainData) != 2 {
		t.Fatalf("base config %s %d %v %q, %d files", base.Problem, base.Size, base.Sizes, base.Hardness, len(base.TrainData))
	}
	cfg := tinySized(t, base, 6)
	cfg.ValSplit = 0.25
	dir := t.TempDir()
	tr, err := New(cfg, Options{Dir: dir, TrainFiles: files, StopAt: 6})
	if err != nil {
		t.Fatal(err)
	}
	if tr.val == nil || len(tr.val.Instances) != 10 || tr.train.Total != 30 {
		t.Fatalf("split: %v validation, %d training instances; want 10 and 30", tr.val, tr.train.Total)
	}
	inVal := map[*lazymask.Instance]bool{}
	valSizes := map[int]bool{}
	for _, v := range tr.val.Instances {
		inVal[v] = true
		valSizes[v.N] = true
	}
	for _, bk := range tr.train.Buckets {
		for _, x := range bk {
			if inVal[x] {
				t.Fatal("an instance is in both the training and the validation part")
			}
		}
	}
	sizes := map[int]int{}
	for s := 0; s < 6; s++ {
		rec, err := tr.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Size != 10 && rec.Size != 12 || math.IsNaN(rec.Loss) || math.IsInf(rec.Loss, 0) {
			t.Fatalf("step %d: size %d, loss %v", s+1, rec.Size, rec.Loss)
		}
		sizes[rec.Size]++
		if n := tr.rb.N; n != rec.Size {
			t.Fatalf("step %d: replay batch of %d nodes for a batch of size %d", s+1, n, rec.Size)
		}
	}
	if len(sizes) != 2 {
		t.Fatalf("6 steps drew sizes %v, want both", sizes)
	}
	if len(valSizes) != 2 {
		t.Fatalf("the validation split holds sizes %v, want both (the test needs a mixed set)", valSizes)
	}
	vm, err := tr.Validate()
	if err != nil || vm.Instances != 10 || vm.InstInfeasible < 0 || vm.InstInfeasible > 1 {
		t.Fatalf("mixed-size validation: %+v, %v", vm, err)
	}
	if card := string(ModelCard(State{Config: tr.Config()})); !strings.Contains(card, "| train data | instance files a.parquet (24 rows, sha256 ") ||
		!strings.Contains(card, "N = [10 12] nodes") {
		t.Errorf("model card does not name the train data:\n%s", card)
	}
	if err := tr.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{}, Options{Dir: dir, Resume: true}); err != nil {
		t.Fatalf("resume over the same files: %v", err)
	}
	writeSized(t, in, "b.parquet", 12, 16, 3)
	if _, err := New(Config{}, Options{Dir: dir, Resume: true}); err == nil || !strings.Contains(err.Error(), "b.parquet changed") {
		t.Fatalf("resume over a changed file: %v", err)
	}
	for _, c := range []struct {
		option, value string
		src           Sources
	}{
		{"Size", "10", Sources{TrainData: files, Size: 10}}, {"Problem", "tspdl", Sources{TrainData: files, Problem: "tspdl"}},
		{"Hardness", "hard", Sources{TrainData: files, Hardness: "hard"}},
	} {
		if _, err := BaseConfig(c.src); !isOptErr(err, c.option, c.value) || !strings.Contains(err.Error(), "TrainData files") {
			t.Errorf("BaseConfig(%+v): %v, want an error of %s against TrainData", c.src, err, c.option)
		}
	}
	if _, err := BaseConfig(Sources{}); !isOptErr(err, "Problem", "") {
		t.Errorf("BaseConfig without a problem: %v", err)
	}
}

// TestImitate_MixedSizes: a run imitating label sets of sizes 10 and 12
// takes the sizes from their manifests, and each step's batch holds one
// of them, both within an epoch, with a finite loss.
func TestImitate_MixedSizes(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for _, n := range []int{10, 12} {
		d := filepath.Join(root, fmt.Sprintf("n%d", n))
		got, err := labels.Open(d, datasets.LabelSpec{Problem: "tsptw", Size: n, Hardness: "hard", Seed: 6, ChunkSize: 12, Search: "test"})
		if err != nil {
			t.Fatal(err)
		}
		bl := &labels.Builder{Dir: d, Spec: got, Starter: labels.RandomL{Samples: 4, Budget: 50, Seed: 1}, Search: labels.Search{Kicks: 0, MaxStarts: 2}}
		if _, err := bl.Grow(context.Background(), 12); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	base, err := BaseConfig(Sources{Imitate: dirs})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(base.Sizes, []int{10, 12}) || base.Size != 12 {
		t.Fatalf("sizes %v, size %d from the label sets", base.Sizes, base.Size)
	}
	cfg := tinySized(t, base, 4)
	cfg.Imitate, cfg.ImitateBatch = strings.Join(dirs, ","), 8
	tr, err := New(cfg, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[int]bool{}
	for s := 0; s < 4; s++ { // an epoch: 2 batches of each size
		rec, err := tr.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(rec.Loss) || math.IsInf(rec.Loss, 0) || !(rec.StepNLL > 0) {
			t.Fatalf("step %d: loss %v, NLL per step %v", s+1, rec.Loss, rec.StepNLL)
		}
		if tr.rb.N != rec.Size {
			t.Fatalf("step %d: replay batch of %d nodes for labels of size %d", s+1, tr.rb.N, rec.Size)
		}
		sizes[rec.Size] = true
	}
	if len(sizes) != 2 {
		t.Fatalf("an epoch's batches had sizes %v, want 10 and 12", sizes)
	}
}
