package models

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	onnxbackend "github.com/gomlx/compute-onnx"
	onnxproto "github.com/gomlx/compute-onnx/support/protos"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
	"google.golang.org/protobuf/proto"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
)

// dumpUpdateEnv names a folder into which TestUpdateGraphIsMatMulOnly
// writes the ONNX files of the update graphs it builds (for profiling with
// onnxruntime's profiler).
const dumpUpdateEnv = "LMASK_DUMP_UPDATE"

// updateGraphOps builds the train step (teacher-forced replay, loss,
// gradients, global-norm clipping, Adam) of a model of config cfg on the
// onnx backend, runs it once on a random batch, and returns the op types
// of the ONNX graph the backend ran, with their counts.
func updateGraphOps(t *testing.T, cfg features.Config, name string) map[string]int {
	t.Helper()
	return updateGraphOpsAt(t, cfg, name, 2, 3, 5, 9)
}

// updateGraphOpsAt is updateGraphOps on a batch of b instances of n nodes,
// p rollouts of t steps each.
func updateGraphOpsAt(t *testing.T, cfg features.Config, name string, b, p, tt, n int) map[string]int {
	t.Helper()
	if testBackend(t) != BackendONNX {
		t.Skipf("%s not set: the graph's op types are those of the onnx backend", ORTLibraryEnv)
	}
	m := newTestModel(t, cfg, 3)
	be, ok := m.Backend().(*onnxbackend.Backend)
	if !ok {
		t.Fatalf("backend %T is not the onnx backend", m.Backend())
	}
	be.SetKeepModelProto(true)
	if cfg.Format != features.FormatPOMO {
		if err := m.SetWeights(features.DenseRandomWeights(cfg, 5)); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(4, 5))
	r := randomReplay(rng, b, p, tt, n)
	if k := cfg.CandWidth(); k > 0 {
		r.WithCand(k)
		copy(r.CandFeat, randomCand(rng, r.Mask, k))
	}
	opt := optimizer.Adam().LearningRate(1e-3).Done()
	e, err := model.NewExec(m.Backend(), m.Store(), func(scope *model.Scope, in []*Node) []*Node {
		ll, ent := ReplayLogLik(scope, cfg, in[0], in[1], in[2], in[3], in[4], in[5], optional(in, 6))
		loss := Sub(Neg(ReduceAllMean(ll)), MulScalar(ReduceAllMean(ent), 0.01))
		return []*Node{loss, MinimizeGraph(scope, opt, loss, 1.0)}
	})
	if err != nil {
		t.Fatal(err)
	}
	out, g, err := e.ExecWithGraph(r.Tensors()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		o.FinalizeAll()
	}
	var buf bytes.Buffer
	if err := onnxbackend.SaveModel(be, g.Executable(), &buf, nil, nil); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv(dumpUpdateEnv); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".onnx"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var mp onnxproto.ModelProto
	if err := proto.Unmarshal(buf.Bytes(), &mp); err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, n := range mp.GetGraph().GetNode() {
		ops[n.GetOpType()]++
	}
	return ops
}

// TestUpdateGraphIsMatMulOnly checks that every product of the train step,
// forward and backward, reaches ONNX Runtime as MatMul, for every decoder:
// the dense layers as rank-2 products, the attention heads-first with the
// batch axes leading, the weight gradients as rank-2 products. An Einsum
// there runs at a fraction of the MatMul rate on the CPU.
func TestUpdateGraphIsMatMulOnly(t *testing.T) {
	for _, v := range decoderVariants {
		t.Run(v.name, func(t *testing.T) {
			cfg := smallConfig("tsptw", true).WithDecoder(v.reld, v.cand)
			ops := updateGraphOps(t, cfg, "update-"+v.name)
			var list []string
			for op, c := range ops {
				list = append(list, op+"="+strconv.Itoa(c))
			}
			sort.Strings(list)
			t.Logf("op types: %s", strings.Join(list, " "))
			if ops["Einsum"] != 0 {
				t.Errorf("%d Einsum ops in the update graph, want none", ops["Einsum"])
			}
			// Per encoder layer at least the q, k, v, o and two FFN
			// products, the scores and the weighted sum, each forward and
			// twice backward.
			if want := 3 * 8 * cfg.Layers; ops["MatMul"] < want {
				t.Errorf("%d MatMul ops in the update graph, want at least %d", ops["MatMul"], want)
			}
		})
	}
}

// TestDumpImitationUpdate writes the ONNX graph of the imitation update of
// the default 6-layer network (256 label tours of TSPTW-50, the bench's
// imitation step) into $LMASK_DUMP_UPDATE, for onnxruntime's profiler; it
// skips without the variable.
func TestDumpImitationUpdate(t *testing.T) {
	if os.Getenv(dumpUpdateEnv) == "" {
		t.Skipf("%s not set", dumpUpdateEnv)
	}
	cfg := features.DefaultConfig(lazymask.TSPTW)
	updateGraphOpsAt(t, cfg, "imitation-update-L6", 256, 1, 49, 50)
}
