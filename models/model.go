package models

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
)

// maxCachedShapes bounds the number of compiled shapes per executable.
const maxCachedShapes = 64

// Model is the GoMLX policy model: a config, a compute backend, a
// model.Store holding one variable per canonical parameter name (full path
// "/" + name), and executables compiled once per input shape (up to 64
// shapes each). Its graph executions run one at a time, so policies of one
// Model may decode on several goroutines (lazymask.Decoder.DecodeSplit);
// changing the weights meanwhile is not safe.
type Model struct {
	cfg     features.Config
	backend compute.Backend
	store   *model.Store

	encExec, decExec, groupedExec, replayExec *model.Exec
	// foldEncExec and foldStepExec run the encoder with the folded decoder
	// caches and the folded decoder step (folded.go) for Policy.
	foldEncExec, foldStepExec *model.Exec

	// exec serialises graph executions: the onnx backend's CPU executables
	// may not run twice at once, and one at a time is what lets a decode
	// split into groups double-buffer the host and the device.
	exec sync.Mutex

	// graphNanos accumulates the wall time spent inside graph executions
	// (GraphTime).
	graphNanos atomic.Int64
}

// GraphTime returns the wall time spent inside the model's graph
// executions (encoder, decoder steps, replay) since the model was created
// or since the last ResetGraphTime: the backend's own share of the work.
func (m *Model) GraphTime() time.Duration { return time.Duration(m.graphNanos.Load()) }

// ResetGraphTime sets GraphTime back to zero.
func (m *Model) ResetGraphTime() { m.graphNanos.Store(0) }

// optional returns in[i], or nil where the graph has no input i (the
// candidate features of a decoder that does not read them).
func optional(in []*Node, i int) *Node {
	if i < len(in) {
		return in[i]
	}
	return nil
}

// New creates a model of config cfg on the backend named by backendSpec
// (see NewBackend) with weights features.RandomWeights(cfg, seed).
func New(cfg features.Config, backendSpec string, seed uint64) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	backend, err := NewBackend(backendSpec)
	if err != nil {
		return nil, err
	}
	m := &Model{cfg: cfg, backend: backend, store: model.NewStore()}
	if err := m.SetWeights(features.RandomWeights(cfg, seed)); err != nil {
		return nil, err
	}
	m.encExec, err = model.NewExec(backend, m.store, func(scope *model.Scope, in []*Node) []*Node {
		emb, gk, gv, lk := Encoder(scope, m.cfg, in[0])
		return []*Node{emb, gk, gv, lk}
	})
	if err != nil {
		return nil, fmt.Errorf("build encoder: %w", err)
	}
	m.decExec, err = model.NewExec(backend, m.store, func(scope *model.Scope, in []*Node) []*Node {
		return []*Node{DecoderStep(scope, m.cfg, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], optional(in, 8))}
	})
	if err != nil {
		return nil, fmt.Errorf("build decoder: %w", err)
	}
	m.groupedExec, err = model.NewExec(backend, m.store, func(scope *model.Scope, in []*Node) []*Node {
		return []*Node{DecoderStepGrouped(scope, m.cfg, in[0], in[1], in[2], in[3], in[4], in[5], in[6], optional(in, 7))}
	})
	if err != nil {
		return nil, fmt.Errorf("build grouped decoder: %w", err)
	}
	m.replayExec, err = model.NewExec(backend, m.store, func(scope *model.Scope, in []*Node) []*Node {
		ll, ent := ReplayLogLik(scope, m.cfg, in[0], in[1], in[2], in[3], in[4], in[5], optional(in, 6))
		return []*Node{ll, ent}
	})
	if err != nil {
		return nil, fmt.Errorf("build replay: %w", err)
	}
	m.foldEncExec, err = model.NewExec(backend, m.store, func(scope *model.Scope, in []*Node) []*Node {
		sc, cs, a := foldedCaches(scope, m.cfg, in[0])
		return []*Node{sc, cs, a}
	})
	if err != nil {
		return nil, fmt.Errorf("build folded encoder: %w", err)
	}
	m.foldStepExec, err = model.NewExec(backend, m.store, func(_ *model.Scope, in []*Node) []*Node {
		return []*Node{foldedStep(m.cfg, in[0], in[1], in[2], in[3], in[4], in[5])}
	})
	if err != nil {
		return nil, fmt.Errorf("build folded decoder: %w", err)
	}
	for _, e := range []*model.Exec{m.encExec, m.decExec, m.groupedExec, m.replayExec, m.foldEncExec, m.foldStepExec} {
		e.SetMaxCache(maxCachedShapes)
	}
	return m, nil
}

// Config returns the model's configuration.
func (m *Model) Config() features.Config { return m.cfg }

// Backend returns the compute backend the model runs on.
func (m *Model) Backend() compute.Backend { return m.backend }

// Store returns the variable store. A trainer builds its train-step
// executable on it (model.NewExec(m.Backend(), m.Store(), ...)); optimizer
// state and the global step live in the same store.
func (m *Model) Store() *model.Store { return m.store }

// VariablePath returns the store path of a canonical parameter name.
func VariablePath(name string) string { return "/" + name }

// Weights reads the current parameters out as features.Weights.
func (m *Model) Weights() (features.Weights, error) {
	w := features.Weights{}
	for _, s := range m.cfg.Specs() {
		v := m.store.GetVariable(VariablePath(s.Name))
		if v == nil {
			return nil, fmt.Errorf("weights: variable %s missing from the store", s.Name)
		}
		t, err := v.Value()
		if err != nil {
			return nil, fmt.Errorf("weights: read %s: %w", s.Name, err)
		}
		data, err := tensors.CopyFlatData[float32](t)
		if err != nil {
			return nil, fmt.Errorf("weights: read %s: %w", s.Name, err)
		}
		w[s.Name] = features.Tensor{Shape: append([]int(nil), s.Shape...), Data: data}
	}
	return w, nil
}

// SetWeights replaces every parameter by the values of w, which must hold
// exactly the parameters of the model's config (w.Check).
func (m *Model) SetWeights(w features.Weights) error {
	if err := w.Check(m.cfg); err != nil {
		return err
	}
	for _, s := range m.cfg.Specs() {
		t := tensors.FromFlatDataAndDimensions(append([]float32(nil), w[s.Name].Data...), s.Shape...)
		path := VariablePath(s.Name)
		if v := m.store.GetVariable(path); v != nil {
			if err := v.SetValue(t); err != nil {
				return fmt.Errorf("set weights: %s: %w", s.Name, err)
			}
			continue
		}
		m.store.VariableWithValue(path, t)
	}
	return nil
}

// callExec runs e and converts a panic raised while building the graph into
// an error.
func (m *Model) callExec(e *model.Exec, what string, args ...any) (out []*tensors.Tensor, err error) {
	m.exec.Lock()
	defer m.exec.Unlock()
	start := time.Now()
	defer func() {
		m.graphNanos.Add(int64(time.Since(start)))
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %v", what, r)
		}
	}()
	out, err = e.Call(args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// Encoded holds the encoder outputs of a batch of B instances of N nodes,
// kept on the backend: node_emb, glimpse_k, glimpse_v, logit_k [B,N,d]
// (or, inside Policy, the folded caches of foldedCaches).
type Encoded struct {
	B, N int
	out  []*tensors.Tensor
}

// Host copies the four encoder outputs to Go slices (each B·N·d values).
func (e *Encoded) Host() (emb, glimpseK, glimpseV, logitK []float32, err error) {
	var r [4][]float32
	for i, t := range e.out {
		if r[i], err = tensors.CopyFlatData[float32](t); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("read encoder output %s: %w", features.EncoderOutputs[i], err)
		}
	}
	return r[0], r[1], r[2], r[3], nil
}

// Release frees the backend memory of the outputs.
func (e *Encoded) Release() {
	for _, t := range e.out {
		_ = t.FinalizeAll()
	}
	e.out = nil
}

// encodeTensor runs the encoder on nodeFeat [B,N,4] given as a tensor
// (reused between calls by Policy); folded selects the folded caches.
func (m *Model) encodeTensor(nodeFeat *tensors.Tensor, folded bool) (*Encoded, error) {
	dims := nodeFeat.Shape().Dimensions
	exec := m.encExec
	if folded {
		exec = m.foldEncExec
	}
	out, err := m.callExec(exec, "encoder", nodeFeat)
	if err != nil {
		return nil, err
	}
	return &Encoded{B: dims[0], N: dims[1], out: out}, nil
}

// Encode runs the encoder on node features nodeFeat (B·N·4 values,
// row-major [B,N,4]).
func (m *Model) Encode(nodeFeat []float32, b, n int) (*Encoded, error) {
	if b <= 0 || n < 2 || len(nodeFeat) != b*n*features.NodeFeatures {
		return nil, fmt.Errorf("encode: node_feat has %d values, want B·N·4 with B=%d ≥ 1, N=%d ≥ 2", len(nodeFeat), b, n)
	}
	return m.encodeTensor(tensors.FromFlatDataAndDimensions(append([]float32(nil), nodeFeat...), b, n, features.NodeFeatures), false)
}

// DecodeStep runs one decoder step for R = len(current) rows over enc:
// rowInstance and current [R], stepFeat [R,8], mask [R,N] (true =
// allowed), cand [R,N,K] (nil for a decoder without candidate features).
// It returns log_probs [R,N] row-major.
func (m *Model) DecodeStep(enc *Encoded, rowInstance, current []int64, stepFeat []float32, mask []bool, cand []float32) ([]float32, error) {
	r := len(current)
	k := m.cfg.CandWidth()
	if len(cand) != r*enc.N*k {
		return nil, fmt.Errorf("decode step: cand_feat has %d values, want R·N·K = %d·%d·%d", len(cand), r, enc.N, k)
	}
	if r == 0 || len(rowInstance) != r || len(stepFeat) != r*features.StepFeatures || len(mask) != r*enc.N {
		return nil, fmt.Errorf("decode step: R=%d rows need row_instance %d, step_feat %d and mask %d values; got %d, %d, %d",
			r, r, r*features.StepFeatures, r*enc.N, len(rowInstance), len(stepFeat), len(mask))
	}
	for i := range current {
		if rowInstance[i] < 0 || int(rowInstance[i]) >= enc.B || current[i] < 0 || int(current[i]) >= enc.N {
			return nil, fmt.Errorf("decode step: row %d: instance %d / current %d out of range B=%d N=%d", i, rowInstance[i], current[i], enc.B, enc.N)
		}
	}
	in := decodeInputs{
		rowInst:  tensors.FromFlatDataAndDimensions(append([]int64(nil), rowInstance...), r),
		current:  tensors.FromFlatDataAndDimensions(append([]int64(nil), current...), r),
		stepFeat: tensors.FromFlatDataAndDimensions(append([]float32(nil), stepFeat...), r, features.StepFeatures),
		mask:     tensors.FromFlatDataAndDimensions(append([]bool(nil), mask...), r, enc.N),
	}
	if k > 0 {
		in.cand = tensors.FromFlatDataAndDimensions(append([]float32(nil), cand...), r, enc.N, k)
	}
	t, err := m.decodeTensors(enc, in)
	if err != nil {
		return nil, err
	}
	defer t.FinalizeAll()
	return tensors.CopyFlatData[float32](t)
}

// decodeInputs are the per-row decoder inputs as tensors.
type decodeInputs struct {
	rowInst, current, stepFeat, mask, cand *tensors.Tensor
}

func (m *Model) decodeTensors(enc *Encoded, in decodeInputs) (*tensors.Tensor, error) {
	if enc.out == nil {
		return nil, fmt.Errorf("decode step: encoder outputs were released")
	}
	args := []any{enc.out[0], enc.out[1], enc.out[2], enc.out[3], in.rowInst, in.current, in.stepFeat, in.mask}
	if in.cand != nil {
		args = append(args, in.cand)
	}
	out, err := m.callExec(m.decExec, "decoder", args...)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Export writes the model's current weights as a model directory
// (encoder.onnx, decoder.onnx, config.json) into dir with
// models/onnx.ExportDir.
func (m *Model) Export(dir string) error {
	w, err := m.Weights()
	if err != nil {
		return fmt.Errorf("export %s: %w", dir, err)
	}
	if err := onnx.ExportDir(dir, m.cfg, w); err != nil {
		return fmt.Errorf("export %s: %w", dir, err)
	}
	return nil
}
