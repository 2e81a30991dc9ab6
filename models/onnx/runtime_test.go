package onnx_test

import (
	"encoding/json"
	"fmt"
	"github.com/lmask/lmask/internal/testenv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
)

const ortLibEnv = "ONNXRUNTIME_SHARED_LIBRARY_PATH"

var (
	ortOnce sync.Once
	ortErr  error
)

// requireORT initialises onnxruntime once, or skips the test when the
// shared library is not configured.
func requireORT(t testing.TB) {
	t.Helper()
	lib := os.Getenv(ortLibEnv)
	if lib == "" {
		t.Skipf("%s is not set; point it at libonnxruntime.so (e.g. third_party/onnxruntime/libonnxruntime.so)", ortLibEnv)
	}
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("%s=%s: %v", ortLibEnv, lib, err)
	}
	ortOnce.Do(func() {
		ort.SetSharedLibraryPath(lib)
		ortErr = ort.InitializeEnvironment()
	})
	if ortErr != nil {
		t.Fatalf("initialise onnxruntime: %v", ortErr)
	}
}

// ortModel holds onnxruntime sessions for an exported encoder and decoder.
type ortModel struct {
	enc, dec *ort.DynamicAdvancedSession
	d        int
}

// newORTModel exports cfg's encoder and decoder with weights w and loads
// both in onnxruntime.
func newORTModel(t testing.TB, cfg features.Config, w features.Weights) *ortModel {
	t.Helper()
	encData, err := onnx.ExportEncoder(cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	decData, err := onnx.ExportDecoder(cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("encoder.onnx %d bytes, decoder.onnx %d bytes", len(encData), len(decData))
	enc, err := ort.NewDynamicAdvancedSessionWithONNXData(encData, []string{features.InNodeFeat}, features.EncoderOutputs, nil)
	if err != nil {
		t.Fatalf("load encoder: %v", err)
	}
	dec, err := ort.NewDynamicAdvancedSessionWithONNXData(decData, cfg.DecoderInputs(), []string{features.OutLogProbs}, nil)
	if err != nil {
		t.Fatalf("load decoder: %v", err)
	}
	m := &ortModel{enc: enc, dec: dec, d: cfg.DModel}
	t.Cleanup(func() { enc.Destroy(); dec.Destroy() })
	return m
}

func tensor[T ort.TensorData](t testing.TB, data []T, dims ...int64) *ort.Tensor[T] {
	t.Helper()
	x, err := ort.NewTensor(ort.NewShape(dims...), data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Destroy() })
	return x
}

// run feeds a case through the encoder, then its outputs through the
// decoder, and returns the encoder outputs and the log-probs.
func (m *ortModel) run(t testing.TB, c stepCase) (enc [4][]float32, logProbs []float32) {
	t.Helper()
	b, n, r := int64(c.B), int64(c.N), int64(c.R)
	var encOut [4]*ort.Tensor[float32]
	outs := make([]ort.Value, 4)
	for i := range encOut {
		encOut[i] = tensor(t, make([]float32, c.B*c.N*m.d), b, n, int64(m.d))
		outs[i] = encOut[i]
	}
	if err := m.enc.Run([]ort.Value{tensor(t, c.NodeFeat, b, n, features.NodeFeatures)}, outs); err != nil {
		t.Fatalf("run encoder (B=%d N=%d): %v", b, n, err)
	}
	lp := tensor(t, make([]float32, c.R*c.N), r, n)
	in := []ort.Value{encOut[0], encOut[1], encOut[2], encOut[3],
		tensor(t, c.RowInst, r), tensor(t, c.Current, r), tensor(t, c.StepFeat, r, features.StepFeatures),
		tensor(t, c.Mask, r, n)}
	if c.K > 0 {
		in = append(in, tensor(t, c.Cand, r, n, int64(c.K)))
	}
	if err := m.dec.Run(in, []ort.Value{lp}); err != nil {
		t.Fatalf("run decoder (B=%d N=%d R=%d): %v", b, n, r, err)
	}
	for i := range enc {
		enc[i] = append([]float32(nil), encOut[i].GetData()...)
	}
	return enc, append([]float32(nil), lp.GetData()...)
}

// compare fails the test when a runtime's outputs differ from the reference
// by more than tolerance, and returns the largest difference.
func compare(t *testing.T, what string, enc [4][]float32, lp []float32, wantEnc [4][]float32, wantLP []float32) float64 {
	t.Helper()
	worst := 0.0
	for i, name := range features.EncoderOutputs {
		d := maxDiff(enc[i], wantEnc[i])
		if d > tolerance {
			t.Fatalf("%s: %s differs from the reference by %g", what, name, d)
		}
		worst = math.Max(worst, d)
	}
	d := maxDiff(lp, wantLP)
	if d > tolerance {
		t.Fatalf("%s: log_probs differ from the reference by %g\n got %v\nwant %v", what, d, lp, wantLP)
	}
	return math.Max(worst, d)
}

func TestORTMatchesReference(t *testing.T) {
	requireORT(t)
	for vi, v := range variants {
		cfg := variantConfig(v.problem, v.rie, v.reld, v.cand)
		w := testWeights(cfg, uint64(100+vi))
		m := newORTModel(t, cfg, w)
		worst := 0.0
		for si, s := range sizes {
			c := newStepCase(uint64(10*vi+si), s[0], s[1], s[2]).withCand(uint64(vi), cfg.CandWidth())
			enc, lp := m.run(t, c)
			wantEnc, wantLP := reference(t, cfg, w, c)
			what := fmt.Sprintf("%s rie=%v reld=%v cand=%q B=%d N=%d R=%d", v.problem, v.rie, v.reld, v.cand, s[0], s[1], s[2])
			worst = math.Max(worst, compare(t, what, enc, lp, wantEnc, wantLP))
		}
		t.Logf("%s rie=%v reld=%v cand=%q: max |ORT − reference| = %.2g", v.problem, v.rie, v.reld, v.cand, worst)
	}
}

// TestORTReferenceSizedDecoder checks the reassociated decoder step at the
// reference size (d 128, 8 heads), where its float32 rounding differs most
// from the direct form, with several rows per instance.
func TestORTReferenceSizedDecoder(t *testing.T) {
	requireORT(t)
	for _, cfg := range []features.Config{features.DefaultConfig(lazymask.TSPTW),
		features.DefaultConfig(lazymask.TSPTW).WithDecoder(true, features.CandBoth)} {
		w := features.DenseRandomWeights(cfg, 3)
		m := newORTModel(t, cfg, w)
		c := newStepCase(77, 3, 21, 9).withCand(5, cfg.CandWidth())
		enc, lp := m.run(t, c)
		wantEnc, wantLP := reference(t, cfg, w, c)
		t.Logf("d=%d heads=%d format %d: max |ORT − reference| = %.2g", cfg.DModel, cfg.Heads, cfg.Format, compare(t, "reference size", enc, lp, wantEnc, wantLP))
	}
}

// TestDecoderReadsOnlyNodeEmb pins the documented evaluation: log_probs
// depend on node_emb alone, so zeroed glimpse_k, glimpse_v and logit_k give
// the same result bit for bit.
func TestDecoderReadsOnlyNodeEmb(t *testing.T) {
	requireORT(t)
	cfg := testConfig("tsptw", true)
	w := testWeights(cfg, 5)
	m := newORTModel(t, cfg, w)
	c := newStepCase(8, 2, 9, 5)
	enc, lp := m.run(t, c)
	b, n, r, d := int64(c.B), int64(c.N), int64(c.R), int64(cfg.DModel)
	zeros := make([]float32, len(enc[0]))
	in := []ort.Value{tensor(t, enc[0], b, n, d), tensor(t, zeros, b, n, d), tensor(t, zeros, b, n, d), tensor(t, zeros, b, n, d),
		tensor(t, c.RowInst, r), tensor(t, c.Current, r), tensor(t, c.StepFeat, r, features.StepFeatures), tensor(t, c.Mask, r, n)}
	got := tensor(t, make([]float32, c.R*c.N), r, n)
	if err := m.dec.Run(in, []ort.Value{got}); err != nil {
		t.Fatal(err)
	}
	for i, v := range got.GetData() {
		if v != lp[i] && !(math.IsInf(float64(v), -1) && math.IsInf(float64(lp[i]), -1)) {
			t.Fatalf("log_probs[%d] = %v with zeroed glimpse/logit keys, %v with the encoder's", i, v, lp[i])
		}
	}
}

// pythonONNX is Debian's interpreter, which carries python3-onnx.
const pythonONNX = "/usr/bin/python3"

func TestONNXCheckerAccepts(t *testing.T) {
	if err := exec.Command(pythonONNX, "-c", "import onnx").Run(); err != nil {
		t.Skipf("%s cannot import onnx (apt-get install python3-onnx): %v", pythonONNX, err)
	}
	dir, dir2 := t.TempDir(), t.TempDir()
	cfg := testConfig("tspdl", true)
	if err := onnx.ExportDir(dir, cfg, testWeights(cfg, 5)); err != nil {
		t.Fatal(err)
	}
	cfg2 := variantConfig("tsptw", true, true, features.CandBoth)
	if err := onnx.ExportDir(dir2, cfg2, testWeights(cfg2, 6)); err != nil {
		t.Fatal(err)
	}
	script := `import onnx, sys
for p in sys.argv[1:]:
    m = onnx.load(p)
    onnx.checker.check_model(m, full_check=True)
    print(p, m.ir_version, m.opset_import[0].version, len(m.graph.node))`
	out, err := exec.Command(pythonONNX, "-c", script, filepath.Join(dir, features.EncoderFile),
		filepath.Join(dir, features.DecoderFile), filepath.Join(dir2, features.DecoderFile)).CombinedOutput()
	if err != nil {
		t.Fatalf("onnx checker rejects the model: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func TestNodeRuntimeMatchesReference(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	root := repoRoot(t)
	pkg := filepath.Join(root, "third_party", "node", "node_modules", "onnxruntime-node")
	if dir := os.Getenv("LMASK_ORT_NODE_MODULES"); dir != "" {
		pkg = filepath.Join(dir, "onnxruntime-node")
	}
	if _, err := os.Stat(pkg); err != nil {
		t.Skipf("onnxruntime-node is not installed at %s (npm install --ignore-scripts --prefix third_party/node onnxruntime-node@1.30.0)", pkg)
	}
	script := filepath.Join(root, "scripts", "interop", "ort_node_check.mjs")
	for vi, v := range append(variants[:3:3], variants[4:6]...) {
		cfg := variantConfig(v.problem, v.rie, v.reld, v.cand)
		w := testWeights(cfg, uint64(200+vi))
		dir := t.TempDir()
		if err := onnx.ExportDir(dir, cfg, w); err != nil {
			t.Fatal(err)
		}
		c := newStepCase(uint64(300+vi), 3, 11, 8).withCand(uint64(vi), cfg.CandWidth())
		in, err := json.Marshal(map[string]any{"B": c.B, "N": c.N, "R": c.R, "node_feat": c.NodeFeat,
			"row_instance": c.RowInst, "current": c.Current, "step_feat": c.StepFeat, "mask": c.Mask,
			"K": c.K, "cand_feat": c.Cand})
		if err != nil {
			t.Fatal(err)
		}
		inPath := filepath.Join(dir, "inputs.json")
		if err := os.WriteFile(inPath, in, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(node, script, dir, inPath)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		var res struct {
			NodeEmb, GlimpseK, GlimpseV, LogitK, LogProbs []*float32
			LogProbsDims                                  []int `json:"log_probs_dims"`
		}
		if err := json.Unmarshal(out, &struct {
			NodeEmb  *[]*float32 `json:"node_emb"`
			GlimpseK *[]*float32 `json:"glimpse_k"`
			GlimpseV *[]*float32 `json:"glimpse_v"`
			LogitK   *[]*float32 `json:"logit_k"`
			LogProbs *[]*float32 `json:"log_probs"`
			Dims     *[]int      `json:"log_probs_dims"`
		}{&res.NodeEmb, &res.GlimpseK, &res.GlimpseV, &res.LogitK, &res.LogProbs, &res.LogProbsDims}); err != nil {
			t.Fatalf("parse %s output: %v", script, err)
		}
		if fmt.Sprint(res.LogProbsDims) != fmt.Sprint([]int{c.R, c.N}) {
			t.Fatalf("log_probs dims %v, want [%d %d]", res.LogProbsDims, c.R, c.N)
		}
		wantEnc, wantLP := reference(t, cfg, w, c)
		enc := [4][]float32{unnull(res.NodeEmb), unnull(res.GlimpseK), unnull(res.GlimpseV), unnull(res.LogitK)}
		d := compare(t, fmt.Sprintf("onnxruntime-node %s reld=%v cand=%q", v.problem, v.reld, v.cand), enc, unnull(res.LogProbs), wantEnc, wantLP)
		t.Logf("%s rie=%v reld=%v cand=%q: max |onnxruntime-node − reference| = %.2g", v.problem, v.rie, v.reld, v.cand, d)
	}
}

// unnull maps the script's nulls (non-finite values) to −inf.
func unnull(v []*float32) []float32 {
	out := make([]float32, len(v))
	for i, p := range v {
		if p == nil {
			out[i] = float32(math.Inf(-1))
		} else {
			out[i] = *p
		}
	}
	return out
}

// repoRoot returns the module root.
func repoRoot(t *testing.T) string { t.Helper(); return testenv.RepoRoot(t) }
