package trainer

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAverageCheckpoints: the weights are mixed element by element, the
// rest is the first checkpoint's, and the result reads back checksummed.
func TestAverageCheckpoints(t *testing.T) {
	runA, runB := t.TempDir(), t.TempDir()
	cfg := tinyConfig(t, 2)
	trainRun(t, cfg, Options{Dir: runA})
	cfg.Seed = 8
	trainRun(t, cfg, Options{Dir: runB})
	a, err := ReadCheckpoint(runA)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadCheckpoint(runB)
	if err != nil {
		t.Fatal(err)
	}
	f32 := func(c *Checkpoint, r VarRecord, i int) float32 {
		return math.Float32frombits(binary.LittleEndian.Uint32(c.data[r.Offset+int64(4*i):]))
	}
	bRec := map[string]VarRecord{}
	for _, r := range b.Vars {
		bRec[r.Path] = r
	}
	out := filepath.Join(t.TempDir(), "soup.lmck")
	for _, w := range []float64{0, 0.25, 1} {
		if err := AverageCheckpoints(runA, runB, w, out); err != nil {
			t.Fatal(err)
		}
		m, err := ReadCheckpoint(out)
		if err != nil {
			t.Fatal(err)
		}
		if m.Step != a.Step || len(m.Vars) != len(a.Vars) {
			t.Fatalf("w=%v: step %d, %d variables; want a's %d, %d", w, m.Step, len(m.Vars), a.Step, len(a.Vars))
		}
		mixed, kept := 0, 0
		for k, r := range m.Vars {
			ar := a.Vars[k]
			for i := 0; i < int(r.Bytes/4) && r.DType == "Float32"; i++ {
				got, x := f32(m, r, i), f32(a, ar, i)
				want := x
				if r.Trainable {
					want = float32((1-w)*float64(x) + w*float64(f32(b, bRec[r.Path], i)))
				}
				if got != want {
					t.Fatalf("w=%v: %s[%d] = %v, want %v (trainable %v)", w, r.Path, i, got, want, r.Trainable)
				}
			}
			if r.Trainable {
				mixed++
			} else {
				kept++
			}
		}
		if mixed == 0 || kept == 0 {
			t.Fatalf("w=%v: %d weights mixed, %d other variables kept; want both", w, mixed, kept)
		}
	}
	// A different architecture has no counterpart for the weights.
	cfg.Model.DModel = 32
	runC := t.TempDir()
	trainRun(t, cfg, Options{Dir: runC})
	if err := AverageCheckpoints(runA, runC, 0.5, out); err == nil || !strings.Contains(err.Error(), "no counterpart") {
		t.Errorf("weights of different shapes: error %v, want one naming the missing counterpart", err)
	}
	if err := AverageCheckpoints(runA, runB, 1.5, out); err == nil {
		t.Error("weight 1.5 accepted")
	}
}

// TestSnapshotsAndTheirMean: SnapshotEvery keeps one checkpoint per period
// of the step it names, also after a resume that changes the period, and
// MixCheckpoints over three of them is their element mean.
func TestSnapshotsAndTheirMean(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, 2)
	cfg.SnapshotEvery = 1
	trainRun(t, cfg, Options{Dir: dir})
	two := 2
	tr, err := New(Config{}, Options{Dir: dir, Resume: true, Steps: 5, SnapshotEvery: &two})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ := filepath.Glob(filepath.Join(dir, SnapshotDir, "*.lmck"))
	want := []string{SnapshotName(1), SnapshotName(2), SnapshotName(4)}
	if len(got) != len(want) {
		t.Fatalf("snapshots %v, want %v", got, want)
	}
	for i := range want {
		if filepath.Base(got[i]) != want[i] {
			t.Fatalf("snapshots %v, want %v", got, want)
		}
	}
	cks := make([]*Checkpoint, 3)
	for i, p := range got {
		if cks[i], err = ReadCheckpoint(p); err != nil {
			t.Fatal(err)
		}
		if step := []int{1, 2, 4}[i]; cks[i].Step != step {
			t.Fatalf("%s holds step %d, want %d", p, cks[i].Step, step)
		}
	}
	f32 := func(c *Checkpoint, r VarRecord, i int) float64 {
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(c.data[r.Offset+int64(4*i):])))
	}
	out := filepath.Join(t.TempDir(), "swa.lmck")
	if err := MixCheckpoints(got, []float64{1. / 3, 1. / 3, 1. / 3}, out); err != nil {
		t.Fatal(err)
	}
	// MeanCheckpoints gives the same shares: the same file.
	mean := filepath.Join(t.TempDir(), "mean.lmck")
	if err := MeanCheckpoints(got, mean); err != nil {
		t.Fatal(err)
	}
	if a, b := readAll(t, out), readAll(t, mean); !bytes.Equal(a, b) {
		t.Fatal("MeanCheckpoints wrote another checkpoint than MixCheckpoints with equal shares")
	}
	m, err := ReadCheckpoint(out)
	if err != nil {
		t.Fatal(err)
	}
	moved := false
	for k, r := range m.Vars {
		if !r.Trainable || r.DType != "Float32" {
			continue
		}
		for i := 0; i < int(r.Bytes/4); i++ {
			a, b, c := f32(cks[0], cks[0].Vars[k], i), f32(cks[1], cks[1].Vars[k], i), f32(cks[2], cks[2].Vars[k], i)
			w := 1. / 3 // the share passed below, summed in the same order
			want := float32(w*a + w*b + w*c)
			if g := float32(f32(m, r, i)); g != want {
				t.Fatalf("%s[%d] = %v, want the mean %v of %v, %v, %v", r.Path, i, g, want, a, b, c)
			}
			moved = moved || a != c
		}
	}
	if !moved {
		t.Fatal("the snapshots hold equal weights: the run did not train between them")
	}
	if err := MixCheckpoints(got, []float64{0.5, 0.5, 0.5}, out); err == nil || !strings.Contains(err.Error(), "sum") {
		t.Errorf("shares summing to 1.5: error %v, want one about the sum", err)
	}
}

func readAll(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
