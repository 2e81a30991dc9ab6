package trainer

import (
	"fmt"
	"math"
	"time"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/lmask/lmask/models"
	"github.com/lmask/lmask/models/features"
)

// StepResult holds the scalar outputs of one train step.
type StepResult struct {
	Loss     float64 // −mean(A·loglik) − λ·mean(entropy)
	Entropy  float64 // mean per-trajectory entropy (summed over steps)
	LogLik   float64 // mean per-trajectory log-likelihood
	GradNorm float64 // global gradient norm before clipping
}

// stepGraph builds the REINFORCE update on the model's store: the
// teacher-forced replay, the loss, global-norm gradient clipping and an
// AdamW update. The learning rate lives in the optimiser's variable and
// is set from the host before each step.
type stepGraph struct {
	exec  *model.Exec
	store *model.Store
	lr    float64 // value last written to the learning-rate variable
	// graph accumulates the wall time inside the step executable.
	graph time.Duration
}

// newStepGraph creates the train-step executable for model m with the
// run's AdamW optimiser.
func newStepGraph(m *models.Model, cfg Config) (*stepGraph, error) {
	return newStepGraphWith(m, cfg, optimizer.Adam().LearningRate(cfg.LR).WeightDecay(cfg.WeightDecay).Done())
}

// newStepGraphWith creates the train-step executable for model m with the
// optimiser opt, which must apply precomputed gradients (Adam or SGD) and
// read its learning rate from optimizer.LearningRateVar.
func newStepGraphWith(m *models.Model, cfg Config, opt optimizer.Interface) (*stepGraph, error) {
	mc := m.Config()
	lambda, clip := cfg.Entropy, cfg.Clip
	if cfg.Imitate != "" {
		lambda = 0 // the label tours are the target; no entropy bonus on them
	}
	k := models.ReplayInputs(mc) + 1 // inputs per replay batch, advantages included
	fn := func(scope *model.Scope, in []*Node) []*Node {
		loss, ent, ll := replayLoss(scope, mc, in[:k])
		if lambda != 0 {
			loss = Sub(loss, MulScalar(ent, lambda))
		}
		if cfg.Imitate != "" && cfg.Dagger > 0 {
			// The label tours' mean NLL plus the weighted mean NLL of the
			// expert's choices in the network's own states; no entropy.
			dg, dgEnt, _ := replayLoss(scope, mc, in[k:2*k])
			loss, ent = Add(loss, MulScalar(dg, cfg.Dagger)), dgEnt
		}
		if cfg.Imitate != "" && cfg.RLWeight > 0 {
			// The label tours' mean NLL plus the weighted REINFORCE loss of
			// the rollouts, in one gradient; entropy is the rollouts'.
			rl, rlEnt, _ := replayLoss(scope, mc, in[k:2*k])
			if cfg.Entropy != 0 {
				rl = Sub(rl, MulScalar(rlEnt, cfg.Entropy))
			}
			loss, ent = Add(loss, MulScalar(rl, cfg.RLWeight)), rlEnt
		}
		norm := models.MinimizeGraph(scope, opt, loss, clip)
		return []*Node{loss, ent, ll, norm}
	}
	e, err := model.NewExec(m.Backend(), m.Store(), fn)
	if err != nil {
		return nil, fmt.Errorf("train step: %w", err)
	}
	// One graph per batch size N: a run of several sizes compiles one each.
	e.SetMaxCache(-1)
	return &stepGraph{exec: e, store: m.Store(), lr: math.NaN()}, nil
}

// replayLoss returns −mean(A·loglik), the mean entropy and the mean
// log-likelihood of one replay batch's inputs (ReplayBatch.Tensors: the
// replay's, the candidate features where the model reads them, then the
// advantages).
func replayLoss(scope *model.Scope, mc features.Config, in []*Node) (loss, meanEnt, meanLL *Node) {
	nodeFeat, current, stepFeat, mask, chosen, valid, adv := in[0], in[1], in[2], in[3], in[4], in[5], in[len(in)-1]
	var cand *Node
	if len(in) == 8 {
		cand = in[6]
	}
	ll, ent := models.ReplayLogLik(scope, mc, nodeFeat, current, stepFeat, mask, chosen, valid, cand)
	return Neg(ReduceAllMean(Mul(adv, ll))), ReduceAllMean(ent), ReduceAllMean(ll)
}

// setLR writes lr into the optimiser's learning-rate variable when it
// changed.
func (s *stepGraph) setLR(lr float64) error {
	if lr == s.lr {
		return nil
	}
	v := optimizer.LearningRateVar(s.store.RootScope(), dtypes.Float32, lr)
	if err := v.SetValue(tensors.FromScalar(float32(lr))); err != nil {
		return fmt.Errorf("set learning rate: %w", err)
	}
	s.lr = lr
	return nil
}

// run executes one update on the replay batches (the label tours, then
// the rollouts in a mixed run) with learning rate lr.
func (s *stepGraph) run(lr float64, rbs ...*ReplayBatch) (res StepResult, err error) {
	if err := s.setLR(lr); err != nil {
		return res, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("train step: %v", r)
		}
	}()
	var in []any
	for _, rb := range rbs {
		in = append(in, rb.Tensors()...)
	}
	start := time.Now()
	out, err := s.exec.Exec(in...)
	s.graph += time.Since(start)
	models.ReleaseInputs(in)
	if err != nil {
		return res, fmt.Errorf("train step: %w", err)
	}
	vals := make([]float64, len(out))
	for i, t := range out {
		vals[i] = float64(tensors.ToScalar[float32](t))
		t.FinalizeAll()
	}
	return StepResult{Loss: vals[0], Entropy: vals[1], LogLik: vals[2], GradNorm: vals[3]}, nil
}

// update runs the replay-and-update step on the filled replay batches
// with learning rate lr; a non-finite loss or gradient stops the run.
func (t *Trainer) update(lr float64) (StepResult, error) {
	rbs := []*ReplayBatch{t.rb}
	if t.rl != nil {
		rbs = append(rbs, t.rl)
	}
	res, err := t.step.run(lr, rbs...)
	if err != nil {
		return res, fmt.Errorf("step %d: %w", t.done+1, err)
	}
	if !finite(res.Loss, res.GradNorm) {
		return res, fmt.Errorf("step %d: %w (loss %v, gradient norm %v); stopping, the last good checkpoint in %s is kept",
			t.done+1, ErrNonFinite, res.Loss, res.GradNorm, t.opt.Dir)
	}
	return res, nil
}

// finite reports whether every value is a finite number.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// paramCount returns the number of model parameters of c.
func paramCount(c features.Config) int {
	n := 0
	for _, s := range c.Specs() {
		n += (features.Tensor{Shape: s.Shape}).Size()
	}
	return n
}
