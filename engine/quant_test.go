package engine

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
)

// logitShift is how far the int8 copy moves a model's decoder output.
type logitShift struct {
	MaxLogP  float64 // max |Δ log p| over allowed entries
	MaxLogPL float64 // the same over entries with p ≥ 0.01 under float32
	MaxProb  float64 // max |Δ p|
	Argmax   float64 // share of rows whose most likely node is the same
}

// quantParity opens the float32 model in dir and its int8 copy and
// measures the shift of the log-probabilities of synthetic decoder batches
// (rows 1, 9, 40) after encoding insts with both.
func quantParity(t *testing.T, dir, qdir string, insts []*lazymask.Instance) logitShift {
	t.Helper()
	f32, err := Open(dir, Options{Threads: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f32.Close()
	i8, err := Open(qdir, Options{Threads: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer i8.Close()
	pf, pq := f32.NewPolicy(), i8.NewPolicy()
	defer pf.Close()
	defer pq.Close()
	if err := pf.Begin(insts); err != nil {
		t.Fatal(err)
	}
	if err := pq.Begin(insts); err != nil {
		t.Fatal(err)
	}
	var s logitShift
	rowsAll, same := 0, 0
	for _, rows := range []int{1, 9, 40} {
		b := syntheticBatch(insts, rows, uint64(500+rows))
		got, want := scoresOf(t, pq, b), scoresOf(t, pf, b)
		for r := 0; r < rows; r++ {
			bg, bw := -1, -1
			for j := 0; j < b.N; j++ {
				i := r*b.N + j
				if !b.Mask[i] {
					if !math.IsInf(float64(got[i]), -1) {
						t.Fatalf("rows=%d entry %d is masked but the int8 model scored it %v", rows, i, got[i])
					}
					continue
				}
				d := math.Abs(float64(got[i] - want[i]))
				s.MaxLogP = math.Max(s.MaxLogP, d)
				if want[i] >= float32(math.Log(0.01)) {
					s.MaxLogPL = math.Max(s.MaxLogPL, d)
				}
				s.MaxProb = math.Max(s.MaxProb, math.Abs(math.Exp(float64(got[i]))-math.Exp(float64(want[i]))))
				if bg < 0 || got[i] > got[r*b.N+bg] {
					bg = j
				}
				if bw < 0 || want[i] > want[r*b.N+bw] {
					bw = j
				}
			}
			rowsAll++
			if bg == bw {
				same++
			}
		}
	}
	s.Argmax = float64(same) / float64(rowsAll)
	return s
}

// greedyAgreement decodes insts greedily (×8 transforms) with both models,
// replays every best tour with lazymask.Check, and returns how many
// instances got the same best tour and how many got a feasible one from
// each model.
func greedyAgreement(t *testing.T, dir, qdir string, insts []*lazymask.Instance, budget int) (same, feasF32, feasI8 int) {
	t.Helper()
	sols := [2][]Solution{}
	for k, d := range []string{dir, qdir} {
		e, err := Open(d, Options{Threads: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.Solve(insts, SolveOptions{Aug: 8, Budget: budget})
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i, sol := range s {
			if sol.Best.Failed {
				continue
			}
			res, err := lazymask.Check(insts[i], sol.Best.Nodes)
			var ie *lazymask.InfeasibleError
			if err != nil && !errors.As(err, &ie) {
				t.Fatalf("%s: instance %d: malformed tour %v: %v", d, i, sol.Best.Nodes, err)
			}
			if res.Feasible != sol.Best.Feasible || math.Abs(res.Cost-sol.Best.Cost) > 1e-9 {
				t.Fatalf("%s: instance %d: engine says feasible %v cost %v, the checker %v cost %v",
					d, i, sol.Best.Feasible, sol.Best.Cost, res.Feasible, res.Cost)
			}
		}
		sols[k] = s
	}
	for i := range insts {
		if reflect.DeepEqual(sols[0][i].Best.Nodes, sols[1][i].Best.Nodes) {
			same++
		}
		if sols[0][i].Best.Feasible {
			feasF32++
		}
		if sols[1][i].Best.Feasible {
			feasI8++
		}
	}
	return same, feasF32, feasI8
}

// TestInt8CopyOfTinyModels quantises the committed 10-node test models and
// bounds how far the log-probabilities move; the greedy tours of both are
// replayed by the checker and mostly coincide.
func TestInt8CopyOfTinyModels(t *testing.T) {
	needRuntime(t)
	for _, tc := range []struct {
		p     lazymask.Problem
		bound logitShift
	}{
		// Measured (AVX-512 VNNI), encoder only / encoder and decoder:
		// TSPTW max |Δ log p| 0.040 / 0.092, max |Δ p| 0.004 / 0.020, same
		// argmax 100 / 98%; TSPDL 0.021 / 0.093, 0.007 / 0.019, 100 / 98%.
		{lazymask.TSPTW, logitShift{MaxLogP: 0.2, MaxLogPL: 0.2, MaxProb: 0.05, Argmax: 0.9}},
		{lazymask.TSPDL, logitShift{MaxLogP: 0.2, MaxLogPL: 0.2, MaxProb: 0.05, Argmax: 0.9}},
	} {
		t.Run(tc.p.String(), func(t *testing.T) {
			dir := filepath.Join("testdata", "tiny-"+tc.p.String())
			qdir := t.TempDir()
			reps, err := onnx.QuantizeDir(dir, qdir, onnx.QuantOptions{}, false)
			if err != nil {
				t.Fatal(err)
			}
			// q|k|v, output and the two FFN weights of 2 layers and
			// project_nodes; the decoder's query, project_out and logit keys.
			if n := len(reps[features.EncoderFile].Quantized); n != 9 {
				t.Errorf("encoder: %d weights quantised, want 9 (4 per layer and project_nodes)", n)
			}
			if n := len(reps[features.DecoderFile].Quantized); n != 0 {
				t.Errorf("decoder: %d weights quantised, want none by default", n)
			}
			qboth := t.TempDir()
			reps, err = onnx.QuantizeDir(dir, qboth, onnx.QuantOptions{Decoder: true}, false)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(reps[features.DecoderFile].Quantized); n != 3 {
				t.Errorf("decoder: %d weights quantised, want 3 (query, project_out, logit keys)", n)
			}
			insts := randomInstances(tc.p, 8, 10, 31)
			checkShift(t, quantParity(t, dir, qdir, insts), tc.bound)
			checkShift(t, quantParity(t, dir, qboth, insts), tc.bound)
			insts = randomInstances(tc.p, 24, 10, 32)
			same, ff, fi := greedyAgreement(t, dir, qdir, insts, 20)
			t.Logf("same greedy best tour %d of %d; feasible float32 %d, int8 %d", same, len(insts), ff, fi)
			if same < len(insts)*3/4 {
				t.Errorf("only %d of %d greedy best tours agree", same, len(insts))
			}
			if fi < ff-1 {
				t.Errorf("int8 found a feasible tour for %d instances, float32 for %d", fi, ff)
			}
		})
	}
}

// TestInt8CopyOfShippedNetwork does the same for the shipped TSPTW-50
// medium network on 50-node instances, where the log-probabilities of a
// trained model are sharp.
func TestInt8CopyOfShippedNetwork(t *testing.T) {
	needRuntime(t)
	dir := filepath.Join("..", "models", "pretrained", "tsptw50-medium")
	if _, err := os.Stat(filepath.Join(dir, features.EncoderFile)); err != nil {
		t.Skipf("shipped model not present: %v", err)
	}
	qdir := t.TempDir()
	if _, err := onnx.QuantizeDir(dir, qdir, onnx.QuantOptions{}, false); err != nil {
		t.Fatal(err)
	}
	insts := randomInstances(lazymask.TSPTW, 8, 50, 41)
	// Measured (AVX-512 VNNI): max |Δ log p| 0.46, max |Δ p| 0.107, same
	// argmax in 94% of 50 synthetic rows.
	checkShift(t, quantParity(t, dir, qdir, insts), logitShift{MaxLogP: 1, MaxLogPL: 1, MaxProb: 0.2, Argmax: 0.85})
}

// TestQuantizeDirRefusals: the input is never the output, a model already
// quantised is refused, and an unreadable graph names its file.
func TestQuantizeDirRefusals(t *testing.T) {
	dir := filepath.Join("testdata", "tiny-tsptw")
	if _, err := onnx.QuantizeDir(dir, dir, onnx.QuantOptions{}, true); err == nil {
		t.Fatal("quantising a model into its own directory succeeded")
	}
	q := t.TempDir()
	if _, err := onnx.QuantizeDir(dir, q, onnx.QuantOptions{}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := onnx.QuantizeDir(dir, q, onnx.QuantOptions{}, false); err == nil {
		t.Fatal("overwrote a model without force")
	}
	if _, err := onnx.QuantizeDir(q, t.TempDir(), onnx.QuantOptions{}, false); err == nil {
		t.Fatal("quantised an int8 copy again")
	}
	bad := t.TempDir()
	for _, f := range []string{features.ConfigFile, features.DecoderFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bad, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bad, features.EncoderFile), []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "q")
	_, err := onnx.QuantizeDir(bad, out, onnx.QuantOptions{}, false)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(bad, features.EncoderFile)) {
		t.Fatalf("error %v does not name %s", err, filepath.Join(bad, features.EncoderFile))
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a failed conversion left %s behind (%v)", out, err)
	}
}

// checkShift logs s and compares it with the bounds in max (Argmax: the
// least share of agreeing rows); a shift of exactly zero means the rewrite
// did not take effect.
func checkShift(t *testing.T, s, max logitShift) {
	t.Helper()
	t.Logf("max |Δ log p| %.4f (entries with p ≥ 0.01: %.4f), max |Δ p| %.4f, same argmax in %.1f%% of rows",
		s.MaxLogP, s.MaxLogPL, s.MaxProb, 100*s.Argmax)
	if s.MaxLogP == 0 {
		t.Fatal("the int8 copy scores exactly as the float32 model: the rewrite did not take effect")
	}
	if s.MaxLogP > max.MaxLogP || s.MaxLogPL > max.MaxLogPL || s.MaxProb > max.MaxProb || s.Argmax < max.Argmax {
		t.Fatalf("shift beyond the bounds %+v", max)
	}
}
