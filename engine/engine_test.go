package engine

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
)

func TestOpenToyModel(t *testing.T) {
	needRuntime(t)
	dir, m := toyDir(t, lazymask.TSPTW, nil)
	e, err := Open(dir, Options{Threads: 1, Workers: 1})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer e.Close()
	if e.Config() != m.cfg {
		t.Errorf("Config() = %+v, want %+v", e.Config(), m.cfg)
	}
	if e.Problem() != lazymask.TSPTW {
		t.Errorf("Problem() = %v", e.Problem())
	}
}

func TestOpenRefusesUnknownContract(t *testing.T) {
	needRuntime(t)
	tests := []struct {
		name string
		meta map[string]string
		want []string // substrings of the error
	}{
		{"future format", map[string]string{features.MetaFormat: "3"}, []string{features.MetaFormat, "expected 1 or 2, found 3"}},
		{"format 2 without its decoder keys", map[string]string{features.MetaFormat: "2"}, []string{features.MetaReLD, "expected true or false"}},
		{"missing format", map[string]string{features.MetaFormat: ""}, []string{features.MetaFormat, "lacks"}},
		{"other step features", map[string]string{features.MetaStepFeatures: "9"}, []string{"expected node/step features 4/8, found 4/9"}},
		{"metadata disagrees with config.json", map[string]string{features.MetaProblem: "tspdl"}, []string{features.MetaProblem, "config.json has tsptw", "has tspdl"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := toyDir(t, lazymask.TSPTW, tc.meta)
			e, err := Open(dir, Options{})
			if err == nil {
				e.Close()
				t.Fatal("Open accepted the model")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestOpenRefusesBadConfigAndFiles(t *testing.T) {
	needRuntime(t)
	t.Run("config format", func(t *testing.T) {
		dir, m := toyDir(t, lazymask.TSPTW, nil)
		c := m.cfg
		c.Format = 3
		b, _ := json.Marshal(c)
		if err := os.WriteFile(filepath.Join(dir, features.ConfigFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir, Options{})
		if err == nil || !strings.Contains(err.Error(), "format 3") {
			t.Fatalf("err = %v, want a format error", err)
		}
	})
	t.Run("missing decoder", func(t *testing.T) {
		dir, _ := toyDir(t, lazymask.TSPTW, nil)
		os.Remove(filepath.Join(dir, features.DecoderFile))
		_, err := Open(dir, Options{})
		if err == nil || !strings.Contains(err.Error(), features.DecoderFile) {
			t.Fatalf("err = %v, want one naming %s", err, features.DecoderFile)
		}
	})
	t.Run("decoder with the encoder's inputs", func(t *testing.T) {
		dir, _ := toyDir(t, lazymask.TSPTW, nil)
		b, err := os.ReadFile(filepath.Join(dir, features.EncoderFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, features.DecoderFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = Open(dir, Options{})
		if err == nil || !strings.Contains(err.Error(), "expected node_emb, glimpse_k, glimpse_v, logit_k, row_instance, current, step_feat, mask, found node_feat") {
			t.Fatalf("err = %v, want expected/found input names", err)
		}
	})
	t.Run("unknown device", func(t *testing.T) {
		dir, _ := toyDir(t, lazymask.TSPTW, nil)
		_, err := Open(dir, Options{Device: "tpu"})
		if err == nil || !strings.Contains(err.Error(), `unknown device "tpu"`) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestOpenCUDAWithoutProviderFails(t *testing.T) {
	needRuntime(t)
	if os.Getenv("LMASK_TEST_CUDA") != "" {
		t.Skip("LMASK_TEST_CUDA is set: CUDA is expected to work here")
	}
	dir, _ := toyDir(t, lazymask.TSPTW, nil)
	e, err := Open(dir, Options{Device: DeviceCUDA})
	if err == nil {
		e.Close()
		t.Skip("the loaded onnxruntime has a working CUDA provider")
	}
	if !strings.Contains(err.Error(), "device cuda") || !strings.Contains(err.Error(), "libonnxruntime_providers") {
		t.Fatalf("err = %v, want one naming the missing provider library", err)
	}
}

// TestPolicyScoresToyModel checks the tensors the engine feeds and reads:
// scores for a batch whose rows refer to instances out of order, with
// partial masks, must equal the direct computation.
func TestPolicyScoresToyModel(t *testing.T) {
	needRuntime(t)
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		t.Run(p.String(), func(t *testing.T) {
			dir, m := toyDir(t, p, nil)
			e, err := Open(dir, Options{Threads: 1, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			insts := randomInstances(p, 5, 9, 42)
			pol := e.NewPolicy()
			pol.EncodeChunk = 2 // several encoder runs into one cache
			defer pol.Close()
			if err := pol.Begin(insts); err != nil {
				t.Fatal(err)
			}
			for _, rows := range []int{7, 1, 12} {
				b := syntheticBatch(insts, rows, uint64(rows))
				got := make([]float32, rows*b.N)
				if err := pol.Scores(b, got); err != nil {
					t.Fatal(err)
				}
				want := m.scores(insts, b)
				for i := range got {
					if !b.Mask[i] {
						continue
					}
					if d := math.Abs(float64(got[i]) - want[i]); d > 1e-4*math.Max(1, math.Abs(want[i])) {
						t.Fatalf("rows=%d entry %d (row %d node %d): engine %v, reference %v", rows, i, i/b.N, i%b.N, got[i], want[i])
					}
				}
			}
			if pol.Timing.DecodeRuns != 3 || pol.Timing.Rows != 20 || pol.Timing.Encoded != 5 {
				t.Errorf("timing counters %+v, want 3 runs, 20 rows, 5 encoded", pol.Timing)
			}
		})
	}
}

func TestPolicyRejectsWrongProblem(t *testing.T) {
	needRuntime(t)
	dir, _ := toyDir(t, lazymask.TSPTW, nil)
	e, err := Open(dir, Options{Threads: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	err = e.NewPolicy().Begin(randomInstances(lazymask.TSPDL, 1, 6, 1))
	if err == nil || !strings.Contains(err.Error(), "the model solves tsptw") {
		t.Fatalf("err = %v", err)
	}
	_, err = e.Solve(randomInstances(lazymask.TSPDL, 1, 6, 1), SolveOptions{})
	if err == nil || !strings.Contains(err.Error(), "trained for tsptw") {
		t.Fatalf("Solve err = %v", err)
	}
}

// syntheticBatch makes a StepBatch with rows over random instances, random
// current nodes, states, RIE values and masks (at least one node allowed).
// scoresOf is p's log-probabilities of every row of b.
func scoresOf(t *testing.T, p lazymask.Policy, b *lazymask.StepBatch) []float32 {
	t.Helper()
	out := make([]float32, len(b.Mask))
	if err := p.Scores(b, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func syntheticBatch(insts []*lazymask.Instance, rows int, seed uint64) *lazymask.StepBatch {
	n := insts[0].N
	r := newRand(seed)
	b := &lazymask.StepBatch{N: n}
	for i := 0; i < rows; i++ {
		b.Traj = append(b.Traj, i)
		inst := r.IntN(len(insts))
		b.Inst = append(b.Inst, inst)
		b.Current = append(b.Current, r.IntN(n))
		b.State = append(b.State, r.Float64()*features.StateScale(insts[inst]))
		b.Refine = append(b.Refine, r.IntN(6))
		b.Budget = append(b.Budget, r.IntN(2) == 1)
		b.NumSteps = append(b.NumSteps, 1)
		allowed := 1 + r.IntN(n-1)
		for j := 0; j < n; j++ {
			b.Mask = append(b.Mask, j == allowed || r.IntN(3) == 0)
		}
	}
	return b
}

// TestPolicyMatchesReferenceForward compares the engine's scores on the
// committed tiny models with the pure-Go forward pass of the same weights.
func TestPolicyMatchesReferenceForward(t *testing.T) {
	needRuntime(t)
	// Seeds as recorded in each model's MODEL_CARD.md.
	for _, tc := range []struct {
		p    lazymask.Problem
		seed uint64
	}{{lazymask.TSPTW, 1}, {lazymask.TSPDL, 2}} {
		p := tc.p
		t.Run(p.String(), func(t *testing.T) {
			dir := filepath.Join("testdata", "tiny-"+p.String())
			e, err := Open(dir, Options{Threads: 1, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			cfg := e.Config()
			ref, err := features.NewReferencePolicy(cfg, features.RandomWeights(cfg, tc.seed))
			if err != nil {
				t.Fatal(err)
			}
			insts := randomInstances(p, 6, 10, 77)
			pol := e.NewPolicy()
			pol.EncodeChunk = 4
			defer pol.Close()
			if err := pol.Begin(insts); err != nil {
				t.Fatal(err)
			}
			if err := ref.Begin(insts); err != nil {
				t.Fatal(err)
			}
			for _, rows := range []int{1, 9, 30} {
				b := syntheticBatch(insts, rows, uint64(100+rows))
				got, want := scoresOf(t, pol, b), scoresOf(t, ref, b)
				worst := 0.0
				for i := range got {
					if !b.Mask[i] {
						continue
					}
					d := math.Abs(float64(got[i] - want[i]))
					worst = math.Max(worst, d)
					if d > 1e-4 {
						t.Fatalf("rows=%d row %d node %d: engine %v, reference %v", rows, i/b.N, i%b.N, got[i], want[i])
					}
				}
				t.Logf("rows=%d: max |engine − reference| = %.2g", rows, worst)
			}
		})
	}
}

// TestDecodeMatchesReferencePolicy runs whole greedy LazyMask decodes with
// the engine and with the pure-Go reference policy: the tours must agree.
func TestDecodeMatchesReferencePolicy(t *testing.T) {
	needRuntime(t)
	e, err := Open(filepath.Join("testdata", "tiny-tsptw"), Options{Threads: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cfg := e.Config()
	ref, err := features.NewReferencePolicy(cfg, features.RandomWeights(cfg, 1))
	if err != nil {
		t.Fatal(err)
	}
	var augs []*lazymask.Instance
	for _, in := range randomInstances(lazymask.TSPTW, 4, 10, 123) {
		for k := 0; k < lazymask.NumAugment; k++ {
			augs = append(augs, lazymask.Augment(in, k))
		}
	}
	dc := lazymask.Config{Budget: 20, Greedy: true}
	pol := e.NewPolicy()
	defer pol.Close()
	got, err := lazymask.Decode(pol, augs, 1, dc)
	if err != nil {
		t.Fatal(err)
	}
	want, err := lazymask.Decode(ref, augs, 1, dc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if !reflect.DeepEqual(got[i].Tour, want[i].Tour) || got[i].Failed != want[i].Failed {
			t.Errorf("trajectory %d: engine %v (failed %v), reference %v (failed %v)", i, got[i].Tour, got[i].Failed, want[i].Tour, want[i].Failed)
		}
	}
}

// TestDecodeFormat2MatchesReferencePolicy exports format-2 models (ReLD
// with candidate features through keys and bias; keys alone) with random
// weights, and decodes greedily with the engine and with the pure-Go
// reference on instances with service times and an asymmetric matrix:
// the tours must agree, so the engine feeds cand_feat as the reference
// builds it.
func TestDecodeFormat2MatchesReferencePolicy(t *testing.T) {
	needRuntime(t)
	for _, tc := range []struct {
		problem lazymask.Problem
		reld    bool
		cand    string
	}{{lazymask.TSPTW, true, features.CandBoth}, {lazymask.TSPDL, false, features.CandKeys}} {
		cfg := features.Config{Format: features.FormatPOMO, Problem: tc.problem.String(), DModel: 16, Heads: 2,
			Layers: 1, FFN: 24, RIE: true, TrainSize: 10}.WithDecoder(tc.reld, tc.cand)
		w := features.DenseRandomWeights(cfg, 9)
		dir := t.TempDir()
		if err := onnx.ExportDir(dir, cfg, w); err != nil {
			t.Fatal(err)
		}
		e, err := Open(dir, Options{Threads: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if got := e.Config(); got.Format != 2 || got.Cand != tc.cand || got.ReLD != tc.reld {
			t.Fatalf("opened config %+v, want format 2 reld %v cand %q", got, tc.reld, tc.cand)
		}
		ref, err := features.NewReferencePolicy(cfg, w)
		if err != nil {
			t.Fatal(err)
		}
		insts := randomInstances(tc.problem, 6, 10, 77)
		for i, in := range insts {
			if tc.problem == lazymask.TSPTW {
				// Service times and an asymmetric matrix: the features must carry both.
				in.Service = make([]float64, in.N)
				in.Dist = make([]float64, in.N*in.N)
				for a := 0; a < in.N; a++ {
					if a > 0 {
						in.Service[a] = 0.02 * float64((a+i)%3)
						in.Late[a] += 1 // wide windows leave the network choices to make
					}
					for b := 0; b < in.N; b++ {
						dx, dy := in.X[a]-in.X[b], in.Y[a]-in.Y[b]
						in.Dist[a*in.N+b] = math.Sqrt(dx*dx+dy*dy) * (1 + 0.1*float64((a+2*b)%3))
					}
				}
				in.Late[0] += 3
				in.ResetCache()
			}
		}
		dc := lazymask.Config{Budget: 20, Greedy: true}
		pol := e.NewPolicy()
		got, err := lazymask.Decode(pol, insts, 1, dc)
		pol.Close()
		if err != nil {
			t.Fatal(err)
		}
		want, err := lazymask.Decode(ref, insts, 1, dc)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if !reflect.DeepEqual(got[i].Tour, want[i].Tour) || got[i].Failed != want[i].Failed {
				t.Errorf("%s trajectory %d: engine %v (failed %v), reference %v (failed %v)", tc.problem, i, got[i].Tour, got[i].Failed, want[i].Tour, want[i].Failed)
			}
		}
		// The agreement is not vacuous: without the candidate-feature terms
		// the same weights decode other tours.
		w0 := features.Weights{}
		for name, v := range w {
			w0[name] = v
			if features.ZeroInit(name) && name != features.WReLDW2 && name != features.WReLDB2 {
				w0[name] = features.Tensor{Shape: v.Shape, Data: make([]float32, len(v.Data))}
			}
		}
		ref0, err := features.NewReferencePolicy(cfg, w0)
		if err != nil {
			t.Fatal(err)
		}
		blind, err := lazymask.Decode(ref0, insts, 1, dc)
		if err != nil {
			t.Fatal(err)
		}
		same := 0
		for i := range blind {
			if reflect.DeepEqual(blind[i].Tour, want[i].Tour) {
				same++
			}
		}
		if same == len(blind) {
			t.Fatalf("%s: the candidate features change no tour", tc.problem)
		}
	}
}

// TestOpenRefusesEditedTinyModel edits the metadata of a copy of the
// committed tiny model.
func TestOpenRefusesEditedTinyModel(t *testing.T) {
	needRuntime(t)
	src := filepath.Join("testdata", "tiny-tsptw")
	dir := t.TempDir()
	for _, f := range []string{features.EncoderFile, features.DecoderFile, features.ConfigFile} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == features.DecoderFile {
			var m onnx.ModelProto
			if err := proto.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			for _, kv := range m.MetadataProps {
				if kv.Key == features.MetaFormat {
					kv.Value = "7"
				}
			}
			if b, err = onnx.Marshal(&m); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Open(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), features.DecoderFile) || !strings.Contains(err.Error(), "expected 1 or 2, found 7") {
		t.Fatalf("err = %v, want one naming %s and the format found", err, features.DecoderFile)
	}
}
