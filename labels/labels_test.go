package labels

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// randomL starts the search from four Random-L tours, as lmask-data label
// does without a model.
func randomL(seed uint64) RandomL { return RandomL{Samples: 4, Budget: 50, Seed: seed} }

// stopAfter cancels the context once n start batches were served.
type stopAfter struct {
	RandomL
	n      int
	cancel context.CancelFunc
}

func (s *stopAfter) Starts(ctx context.Context, insts []*lazymask.Instance) ([][][]int, error) {
	if s.n == 0 {
		s.cancel()
		return nil, context.Canceled
	}
	s.n--
	return s.RandomL.Starts(ctx, insts)
}

func spec(problem, hardness string) datasets.LabelSpec {
	return datasets.LabelSpec{Problem: problem, Size: 12, Hardness: hardness, Seed: 7, ChunkSize: 15,
		Search: "test", GeneratorVersion: datasets.GeneratorVersion}
}

func build(t *testing.T, dir string, sp datasets.LabelSpec, st Starter, count int) (int, error) {
	t.Helper()
	got, err := Open(dir, sp)
	if err != nil {
		t.Fatal(err)
	}
	b := &Builder{Dir: dir, Spec: got, Starter: st, Search: Search{Kicks: 3, MaxStarts: 2, Workers: 3}}
	return b.Grow(context.Background(), count)
}

func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// TestGrowResumeSameAsOneRun: a set built in two runs, the first
// interrupted after one chunk, holds exactly the files of a set built in
// one run; every label passes the checker.
func TestGrowResumeSameAsOneRun(t *testing.T) {
	for _, pr := range [][2]string{{"tsptw", "hard"}, {"tspdl", "hard"}} {
		t.Run(pr[0], func(t *testing.T) {
			sp := spec(pr[0], pr[1])
			one := t.TempDir()
			if n, err := build(t, one, sp, randomL(3), 40); err != nil || n != 3 {
				t.Fatalf("one run: %d chunks, %v; want 3, nil", n, err)
			}
			two := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			got, err := Open(two, sp)
			if err != nil {
				t.Fatal(err)
			}
			b := &Builder{Dir: two, Spec: got, Starter: &stopAfter{RandomL: randomL(3), n: 1, cancel: cancel},
				Search: Search{Kicks: 3, MaxStarts: 2, Workers: 1}}
			n, err := b.Grow(ctx, 40)
			if n != 1 || !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run: %d chunks, %v; want 1 and context.Canceled", n, err)
			}
			if ch, _ := datasets.LabelChunks(two); len(ch) != 1 {
				t.Fatalf("after the interruption: chunks %v, want [0]", ch)
			}
			if n, err := build(t, two, sp, randomL(3), 40); err != nil || n != 2 {
				t.Fatalf("resumed run: %d chunks, %v; want 2, nil", n, err)
			}
			a, bb := files(t, one), files(t, two)
			if len(a) != len(bb) {
				t.Fatalf("one run wrote %d files, two runs %d", len(a), len(bb))
			}
			for name, data := range a {
				if !bytes.Equal(data, bb[name]) {
					t.Errorf("%s differs between one run and an interrupted-and-resumed run", name)
				}
			}
			l, err := datasets.ReadLabels(one, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Insts) != 45 || l.Skipped != 0 {
				t.Fatalf("labels: %d read, %d skipped; want 45 and 0", len(l.Insts), l.Skipped)
			}
			for i, in := range l.Insts {
				if r, err := lazymask.Check(in, l.Tours[i]); err != nil || !r.Feasible {
					t.Fatalf("label %d: not feasible: %v", i, err)
				}
			}
			// Growing again to a count already covered writes nothing.
			if n, err := build(t, one, sp, randomL(3), 30); err != nil || n != 0 {
				t.Fatalf("regrow: %d chunks, %v; want 0", n, err)
			}
		})
	}
}

func TestOpenRefusesOtherSettings(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, spec("tsptw", "easy")); err != nil {
		t.Fatal(err)
	}
	other := spec("tsptw", "easy")
	other.Seed = 8
	if _, err := Open(dir, other); err == nil {
		t.Fatal("a set made with seed 7 was opened for seed 8")
	}
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(full, spec("tsptw", "easy")); err == nil {
		t.Fatal("a non-empty folder without a manifest was taken as a label set")
	}
}

// TestRelabelKeepsShorter: a round with a stronger search never makes a
// label longer, replaces some, and records itself in the manifest.
func TestRelabelKeepsShorter(t *testing.T) {
	dir := t.TempDir()
	sp := spec("tsptw", "easy")
	sp.Size = 20
	got, err := Open(dir, sp)
	if err != nil {
		t.Fatal(err)
	}
	weak := &Builder{Dir: dir, Spec: got, Starter: randomL(1), Search: Search{Kicks: 0, MaxStarts: 1}}
	if _, err := weak.Grow(context.Background(), 30); err != nil {
		t.Fatal(err)
	}
	before, err := datasets.ReadLabels(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	strong := &Builder{Dir: dir, Spec: got, Starter: randomL(2), Search: Search{Kicks: 30, MaxStarts: 4}}
	r, err := strong.Relabel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	after, err := datasets.ReadLabels(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Insts) != len(before.Insts) {
		t.Fatalf("relabel changed the label count: %d → %d", len(before.Insts), len(after.Insts))
	}
	replaced := 0
	for i := range after.Costs {
		if after.Costs[i] > before.Costs[i]+1e-12 {
			t.Fatalf("label %d got longer: %v → %v", i, before.Costs[i], after.Costs[i])
		}
		if after.Costs[i] < before.Costs[i]-1e-12 {
			replaced++
		}
	}
	if replaced == 0 || replaced != r.Improved || r.MeanGain <= 0 {
		t.Fatalf("replaced %d labels, round says %d (mean gain %v); want the same positive count", replaced, r.Improved, r.MeanGain)
	}
	spec, err := datasets.ReadLabelSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Rounds) != 1 || spec.Rounds[0].Improved != replaced {
		t.Fatalf("manifest rounds %+v, want one with %d improved", spec.Rounds, replaced)
	}
}

// TestRelabelInterruptedContinues: a round interrupted after one chunk
// continues where it stopped when run again with the same search, counts
// every label once, and kept labels keep the source that made them.
func TestRelabelInterruptedContinues(t *testing.T) {
	dir := t.TempDir()
	sp := spec("tsptw", "hard")
	got, err := Open(dir, sp)
	if err != nil {
		t.Fatal(err)
	}
	weak := &Builder{Dir: dir, Spec: got, Starter: randomL(1), Search: Search{Kicks: 0, MaxStarts: 1}}
	if _, err := weak.Grow(context.Background(), 45); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stop := &stopAfter{RandomL: randomL(2), n: 1, cancel: cancel}
	strong := &Builder{Dir: dir, Spec: got, Starter: stop, Search: Search{Kicks: 20, MaxStarts: 4}}
	if _, err := strong.Relabel(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted round: %v, want context.Canceled", err)
	}
	mid, err := datasets.ReadLabelSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	if mid.Pending == nil || len(mid.Pending.Done) != 1 || mid.Pending.Labels != 15 || len(mid.Rounds) != 0 {
		t.Fatalf("after the interruption: pending %+v, rounds %d; want one chunk of 15 done", mid.Pending, len(mid.Rounds))
	}
	stop.n = 10
	r, err := strong.Relabel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	end, err := datasets.ReadLabelSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Chunks != 3 || r.Labels != 45 || end.Pending != nil || len(end.Rounds) != 1 || end.Rounds[0].Labels != 45 {
		t.Fatalf("round %+v, manifest pending %v rounds %d; want 3 chunks and 45 labels in one round", r, end.Pending, len(end.Rounds))
	}
	replaced := 0
	for c := 0; c < 3; c++ {
		ip, solp := datasets.LabelChunkPaths(dir, c)
		ch, err := datasets.ReadLabelChunk(ip, solp)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ch.Sources {
			if strings.Contains(s, "20 kicks") {
				replaced++
			} else if !strings.Contains(s, "0 kicks") {
				t.Fatalf("label source %q names neither search", s)
			}
		}
	}
	if replaced != r.Improved {
		t.Fatalf("%d rows name the round's search, the round replaced %d", replaced, r.Improved)
	}
}

// failEveryThird serves Random-L starts and adds to every third instance
// of each batch the tour by latest deadline first, which misses windows.
type failEveryThird struct{ RandomL }

func (s failEveryThird) Starts(ctx context.Context, insts []*lazymask.Instance) ([][][]int, error) {
	starts, err := s.RandomL.Starts(ctx, insts)
	for i := 0; err == nil && i < len(starts); i += 3 {
		starts[i] = append(starts[i], latestFirst(insts[i]))
	}
	return starts, err
}

func latestFirst(in *lazymask.Instance) []int {
	tour := make([]int, in.N)
	for i := range tour {
		tour[i] = i
	}
	slices.SortFunc(tour[1:], func(a, b int) int { return cmp.Compare(in.Late[b], in.Late[a]) })
	return tour
}

// TestGrowKeepFailed: a set with Keep "failed" holds exactly the drawn
// instances with an infeasible start, each with a feasible label, and an
// existing set refuses another Keep.
func TestGrowKeepFailed(t *testing.T) {
	sp := spec("tsptw", "medium")
	sp.Keep = datasets.KeepFailed
	dir := t.TempDir()
	st := failEveryThird{randomL(3)}
	b := &Builder{Dir: dir, Spec: sp, Starter: st, Search: Search{Kicks: 3, MaxStarts: 2, Workers: 3}, Decodes: st.Samples}
	if _, err := Open(dir, sp); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Grow(context.Background(), 30); err != nil || n != 2 {
		t.Fatalf("%d chunks, %v; want 2, nil", n, err)
	}
	found := 0
	for c := range 2 {
		gen, err := datasets.NewGenerator(datasets.GenConfig{Problem: lazymask.TSPTW, N: sp.Size, Hardness: sp.Hardness,
			Seed: datasets.ChunkSeed(sp.Seed, c)})
		if err != nil {
			t.Fatal(err)
		}
		var drawn []*lazymask.Instance
		for i := range sp.ChunkSize {
			in, _ := gen.Next()
			drawn = append(drawn, in)
			if r, err := lazymask.Check(in, latestFirst(in)); i%3 == 0 && err == nil && r.Feasible {
				t.Fatalf("chunk %d instance %d: the latest-first tour is feasible (%v); the test needs it infeasible", c, i, err)
			}
		}
		// The instances with an infeasible start, by the checker.
		starts, err := st.Starts(context.Background(), drawn)
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		for i, in := range drawn {
			if len(starts[i]) < st.Samples {
				want = append(want, i) // a decode without a complete tour
				continue
			}
			for _, tour := range starts[i] {
				if r, err := lazymask.Check(in, tour); err != nil || !r.Feasible {
					want = append(want, i)
					break
				}
			}
		}
		ip, spath := datasets.LabelChunkPaths(dir, c)
		ch, err := datasets.ReadLabelChunk(ip, spath)
		if err != nil {
			t.Fatal(err)
		}
		insts, tours := ch.Insts, ch.Tours
		if len(insts) != len(want) || len(want) < 5 || len(want) == sp.ChunkSize {
			t.Fatalf("chunk %d keeps %d instances, want the %d of %d with an infeasible start (at least the 5 made so)", c, len(insts), len(want), sp.ChunkSize)
		}
		for k, in := range insts {
			if d := drawn[want[k]]; in.X[1] != d.X[1] || in.Late[2] != d.Late[2] {
				t.Errorf("chunk %d row %d: not drawn instance %d", c, k, want[k])
			}
			if tours[k] == nil {
				continue // no feasible tour found (Random-L failing often marks an infeasible instance)
			}
			found++
			if r, err := lazymask.Check(in, tours[k]); err != nil || !r.Feasible {
				t.Errorf("chunk %d row %d: label not feasible (%v)", c, k, err)
			}
		}
	}
	if found == 0 {
		t.Error("no label found for the kept instances")
	}
	if _, err := Open(dir, spec("tsptw", "medium")); err == nil || !strings.Contains(err.Error(), "keep") {
		t.Errorf("opening a failed-only set as a full one: error %v, want one naming keep", err)
	}
}

// TestGrowPrefixes: every label of a prefix set begins with its Fixed
// positions of the start model's first tour, is feasible, is never longer
// than that tour when it was feasible, and imitation reads the prefix
// lengths back; relabelling such a set is refused.
func TestGrowPrefixes(t *testing.T) {
	for _, problem := range []string{"tsptw", "tspdl"} {
		sp := spec(problem, "medium")
		sp.Prefixes = true
		dir := t.TempDir()
		st := randomL(5)
		if n, err := build(t, dir, sp, st, 30); err != nil || n != 2 {
			t.Fatalf("%s: %d chunks, %v; want 2, nil", problem, n, err)
		}
		labelled, kept, shorter := 0, 0, 0
		for c := range 2 {
			ip, spath := datasets.LabelChunkPaths(dir, c)
			ch, err := datasets.ReadLabelChunk(ip, spath)
			if err != nil {
				t.Fatal(err)
			}
			starts, err := st.Starts(context.Background(), ch.Insts)
			if err != nil {
				t.Fatal(err)
			}
			for i, in := range ch.Insts {
				tour, k := ch.Tours[i], ch.Fixed[i]
				if tour == nil {
					continue
				}
				labelled++
				first := starts[i][0]
				if k < 2 || k > in.N-2 || !slices.Equal(tour[:k], first[:k]) {
					t.Fatalf("%s chunk %d row %d: fixed %d, label %v does not begin with the start %v", problem, c, i, k, tour, first)
				}
				r, err := lazymask.Check(in, tour)
				if err != nil || !r.Feasible {
					t.Fatalf("%s chunk %d row %d: label infeasible (%v)", problem, c, i, err)
				}
				if r0, _ := lazymask.Check(in, first); r0.Feasible {
					kept++
					if r.Cost > r0.Cost+1e-9 {
						t.Fatalf("%s chunk %d row %d: completion %v longer than the start's %v", problem, c, i, r.Cost, r0.Cost)
					}
					if r.Cost < r0.Cost-1e-9 {
						shorter++
					}
				}
			}
		}
		if labelled < 10 || kept == 0 || shorter == 0 {
			t.Fatalf("%s: %d labels, %d from feasible starts, %d of them shorter", problem, labelled, kept, shorter)
		}
		l, err := datasets.ReadLabels(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range l.Fixed {
			if k < 2 || k > len(l.Tours[i])-2 {
				t.Fatalf("%s: label %d read back with fixed %d", problem, i, k)
			}
		}
		if len(l.Fixed) != labelled {
			t.Fatalf("%s: read %d prefix lengths for %d labels", problem, len(l.Fixed), labelled)
		}
		b := &Builder{Dir: dir, Spec: sp, Starter: st, Search: Search{Kicks: 3, MaxStarts: 2}}
		if _, err := b.Relabel(context.Background()); err == nil || !strings.Contains(err.Error(), "prefix") {
			t.Fatalf("%s: relabelling a prefix set: %v", problem, err)
		}
		if _, err := Open(dir, spec(problem, "medium")); err == nil || !strings.Contains(err.Error(), "prefixes") {
			t.Fatalf("%s: opening a prefix set as a full one: %v", problem, err)
		}
	}
}

// TestSolutionsOnlySet: a copy of a set without its instances files reads
// the same labels (the instances drawn again from labels.json), grows on
// with the files a whole set would get, and is refused where the stored
// costs do not fit the instances drawn again.
func TestSolutionsOnlySet(t *testing.T) {
	for _, pr := range [][2]string{{"tsptw", "hard"}, {"tspdl", "hard"}} {
		t.Run(pr[0], func(t *testing.T) {
			sp := spec(pr[0], pr[1])
			whole := t.TempDir()
			if _, err := build(t, whole, sp, randomL(5), 30); err != nil {
				t.Fatal(err)
			}
			lean := t.TempDir()
			for name, b := range files(t, whole) {
				if strings.HasSuffix(name, ".instances.parquet") {
					continue
				}
				if err := os.WriteFile(filepath.Join(lean, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if ch, err := datasets.LabelChunks(lean); err != nil || !slices.Equal(ch, []int{0, 1}) {
				t.Fatalf("chunks of the lean copy: %v, %v; want [0 1]", ch, err)
			}
			a, err := datasets.ReadLabels(whole, 0)
			if err != nil {
				t.Fatal(err)
			}
			b, err := datasets.ReadLabels(lean, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Insts) < 25 || len(b.Insts) != len(a.Insts) {
				t.Fatalf("labels: %d whole, %d lean; want the same, at least 25 of 30", len(a.Insts), len(b.Insts))
			}
			for i := range a.Insts {
				if !reflect.DeepEqual(a.Insts[i], b.Insts[i]) || !slices.Equal(a.Tours[i], b.Tours[i]) || a.Costs[i] != b.Costs[i] {
					t.Fatalf("label %d differs between the whole set and its lean copy", i)
				}
			}
			// Growing the lean copy writes chunk 2 as growing the whole set does.
			if n, err := build(t, whole, sp, randomL(5), 45); err != nil || n != 1 {
				t.Fatalf("whole set grown: %d chunks, %v; want 1", n, err)
			}
			if n, err := build(t, lean, sp, randomL(5), 45); err != nil || n != 1 {
				t.Fatalf("lean copy grown: %d chunks, %v; want 1", n, err)
			}
			fw, fl := files(t, whole), files(t, lean)
			for _, name := range []string{"chunk-00002.instances.parquet", "chunk-00002.solutions.parquet"} {
				if !bytes.Equal(fw[name], fl[name]) {
					t.Errorf("%s differs between the whole set and the lean copy", name)
				}
			}
			// Another seed in the manifest draws other instances: every chunk without its file is refused.
			wrong := sp
			wrong.Seed++
			if err := datasets.WriteLabelSpec(lean, wrong); err != nil {
				t.Fatal(err)
			}
			_, err = datasets.ReadLabels(lean, 0)
			if err == nil || !strings.Contains(err.Error(), "chunk-00000.instances.parquet is needed") {
				t.Fatalf("lean copy with another seed: %v; want chunk 0 refused", err)
			}
		})
	}
}
