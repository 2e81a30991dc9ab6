package engine

import (
	"errors"
	"fmt"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
)

// DefaultEncodeChunk is how many instances one encoder run takes; small
// chunks (N=50) measured faster per instance than large ones, their
// activations staying in cache.
const DefaultEncodeChunk = 16

// Timing accumulates where a Policy spent its time.
type Timing struct {
	Encoder    time.Duration // encoder.onnx runs (Begin)
	Decoder    time.Duration // decoder.onnx runs (Scores), input building included
	Features   time.Duration // of Decoder: building the candidate features (format 2)
	Encoded    int           // instances encoded
	Rows       int64         // decoder rows scored
	DecodeRuns int           // decoder.onnx runs
}

// Add adds o to t.
func (t *Timing) Add(o Timing) {
	t.Encoder += o.Encoder
	t.Decoder += o.Decoder
	t.Features += o.Features
	t.Encoded += o.Encoded
	t.Rows += o.Rows
	t.DecodeRuns += o.DecodeRuns
}

// Policy is a lazymask.Policy backed by the engine's ONNX sessions. Begin
// encodes the (augmented) instances once and keeps their caches; Scores
// runs the decoder for the rows it is given. A Policy owns its buffers and
// is not safe for concurrent use; make one per goroutine.
type Policy struct {
	e *Engine
	// EncodeChunk is the number of instances per encoder run.
	EncodeChunk int
	// Timing accumulates the time spent in the sessions.
	Timing Timing

	n, b     int
	nodeFeat []float32
	cache    [4][]float32
	cacheT   [4]*ort.Tensor[float32]
	scales   []float64
	insts    []*lazymask.Instance
	sigmas   []float64 // features.CandScale of insts

	rowInst, current []int64
	stepFeat         []float32
	candFeat         []float32
	inputs           [9]ort.Value
	outputs          [1]ort.Value
	encIn            [1]ort.Value
	encOut           [4]ort.Value
}

var _ lazymask.Policy = (*Policy)(nil)

// NewPolicy returns a Policy over the engine's sessions.
func (e *Engine) NewPolicy() *Policy {
	return &Policy{e: e, EncodeChunk: DefaultEncodeChunk}
}

// Begin encodes insts (all with the same N and the model's problem) in
// chunks of EncodeChunk, writing the encoder outputs straight into the
// caches that every later decoder run reads.
func (p *Policy) Begin(insts []*lazymask.Instance) error {
	if p.e.encoder == nil {
		return errors.New("engine is closed")
	}
	if len(insts) == 0 {
		return errors.New("begin: no instances")
	}
	n := insts[0].N
	want := p.e.Problem()
	for i, in := range insts {
		if in.N != n {
			return fmt.Errorf("begin: instance %d (%q) has %d nodes, instance 0 has %d", i, in.Name, in.N, n)
		}
		if in.Problem != want {
			return fmt.Errorf("begin: instance %d (%q) is %s, the model solves %s", i, in.Name, in.Problem, want)
		}
	}
	start := time.Now()
	p.destroyCache()
	b, d := len(insts), p.e.cfg.DModel
	p.n, p.b = n, b
	p.nodeFeat = grow(p.nodeFeat, b*n*features.NodeFeatures)
	p.scales = growF64(p.scales, b)
	p.sigmas = growF64(p.sigmas, b)
	p.insts = append(p.insts[:0], insts...)
	for i, in := range insts {
		features.NodeFeaturesInto(p.nodeFeat[i*n*features.NodeFeatures:], in)
		p.scales[i] = features.StateScale(in)
		p.sigmas[i] = features.CandScale(in)
	}
	for k := range p.cache {
		p.cache[k] = grow(p.cache[k], b*n*d)
	}
	chunk := p.EncodeChunk
	if chunk <= 0 {
		chunk = DefaultEncodeChunk
	}
	for lo := 0; lo < b; lo += chunk {
		hi := min(lo+chunk, b)
		if err := p.encode(lo, hi); err != nil {
			return err
		}
	}
	shape := ort.NewShape(int64(b), int64(n), int64(d))
	for k := range p.cache {
		t, err := ort.NewTensor(shape, p.cache[k])
		if err != nil {
			p.destroyCache()
			return fmt.Errorf("begin: cache tensor %s: %w", features.EncoderOutputs[k], err)
		}
		p.cacheT[k] = t
	}
	p.Timing.Encoder += time.Since(start)
	p.Timing.Encoded += b
	return nil
}

// encode runs the encoder on instances [lo,hi) of the current Begin.
func (p *Policy) encode(lo, hi int) error {
	n, d := p.n, p.e.cfg.DModel
	c := int64(hi - lo)
	in, err := ort.NewTensor(ort.NewShape(c, int64(n), features.NodeFeatures),
		p.nodeFeat[lo*n*features.NodeFeatures:hi*n*features.NodeFeatures])
	if err != nil {
		return fmt.Errorf("encode: node features: %w", err)
	}
	p.encIn[0] = in
	defer in.Destroy()
	outShape := ort.NewShape(c, int64(n), int64(d))
	for k := range p.encOut {
		t, err := ort.NewTensor(outShape, p.cache[k][lo*n*d:hi*n*d])
		if err != nil {
			p.destroyValues(p.encOut[:k])
			return fmt.Errorf("encode: output %s: %w", features.EncoderOutputs[k], err)
		}
		p.encOut[k] = t
	}
	defer p.destroyValues(p.encOut[:])
	if err := p.e.encoder.Run(p.encIn[:], p.encOut[:]); err != nil {
		return fmt.Errorf("encode instances %d..%d: %w", lo, hi-1, err)
	}
	return nil
}

// Scores runs decoder.onnx for the rows of sb and writes their
// log-probabilities into out (R×N).
func (p *Policy) Scores(sb *lazymask.StepBatch, out []float32) error {
	if p.cacheT[0] == nil {
		return errors.New("scores: Begin was not called")
	}
	r, n := sb.Rows(), p.n
	if r == 0 {
		return nil
	}
	if sb.N != n {
		return fmt.Errorf("scores: batch has N=%d, encoded instances have N=%d", sb.N, n)
	}
	if len(out) < r*n || len(sb.Mask) < r*n {
		return fmt.Errorf("scores: %d rows need %d scores and mask entries, got %d and %d", r, r*n, len(out), len(sb.Mask))
	}
	start := time.Now()
	p.rowInst = growI64(p.rowInst, r)
	p.current = growI64(p.current, r)
	p.stepFeat = grow(p.stepFeat, r*features.StepFeatures)
	for i := 0; i < r; i++ {
		inst := sb.Inst[i]
		if inst < 0 || inst >= p.b {
			return fmt.Errorf("scores: row %d refers to instance %d, %d are encoded", i, inst, p.b)
		}
		p.rowInst[i] = int64(inst)
		p.current[i] = int64(sb.Current[i])
	}
	features.BatchStepFeatures(p.stepFeat, sb, p.scales)

	for k := range p.cacheT {
		p.inputs[k] = p.cacheT[k]
	}
	R, N := int64(r), int64(n)
	var err error
	if p.inputs[4], err = ort.NewTensor(ort.NewShape(R), p.rowInst[:r]); err != nil {
		return fmt.Errorf("scores: %s: %w", features.InRowInstance, err)
	}
	defer p.inputs[4].Destroy()
	if p.inputs[5], err = ort.NewTensor(ort.NewShape(R), p.current[:r]); err != nil {
		return fmt.Errorf("scores: %s: %w", features.InCurrent, err)
	}
	defer p.inputs[5].Destroy()
	if p.inputs[6], err = ort.NewTensor(ort.NewShape(R, features.StepFeatures), p.stepFeat[:r*features.StepFeatures]); err != nil {
		return fmt.Errorf("scores: %s: %w", features.InStepFeat, err)
	}
	defer p.inputs[6].Destroy()
	if p.inputs[7], err = ort.NewTensor(ort.NewShape(R, N), sb.Mask[:r*n]); err != nil {
		return fmt.Errorf("scores: %s: %w", features.InMask, err)
	}
	defer p.inputs[7].Destroy()
	inputs := p.inputs[:8]
	if k := p.e.cfg.CandWidth(); k > 0 {
		p.candFeat = grow(p.candFeat, r*n*k)
		fs := time.Now()
		features.BatchCandFeatures(p.candFeat, sb, p.insts, p.sigmas)
		p.Timing.Features += time.Since(fs)
		if p.inputs[8], err = ort.NewTensor(ort.NewShape(R, N, int64(k)), p.candFeat); err != nil {
			return fmt.Errorf("scores: %s: %w", features.InCandFeat, err)
		}
		defer p.inputs[8].Destroy()
		inputs = p.inputs[:9]
	}
	if p.outputs[0], err = ort.NewTensor(ort.NewShape(R, N), out[:r*n]); err != nil {
		return fmt.Errorf("scores: %s: %w", features.OutLogProbs, err)
	}
	defer p.outputs[0].Destroy()
	if err := p.e.decoder.Run(inputs, p.outputs[:]); err != nil {
		return fmt.Errorf("scores: decoder run (%d rows): %w", r, err)
	}
	p.Timing.Decoder += time.Since(start)
	p.Timing.Rows += int64(r)
	p.Timing.DecodeRuns++
	return nil
}

// Close releases the cached encoder outputs.
func (p *Policy) Close() error {
	p.destroyCache()
	return nil
}

func (p *Policy) destroyCache() {
	for k, t := range p.cacheT {
		if t != nil {
			t.Destroy()
			p.cacheT[k] = nil
		}
	}
}

func (p *Policy) destroyValues(vs []ort.Value) {
	for i, v := range vs {
		if v != nil {
			v.Destroy()
			vs[i] = nil
		}
	}
}

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

func growF64(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func growI64(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	return s[:n]
}
