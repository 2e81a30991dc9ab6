package trainer

import (
	"math"
	"testing"

	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models"
	"github.com/lmask/lmask/models/features"
)

// seenStep is what a policy was shown, and answered, for one row.
type seenStep struct {
	current int
	state   float64
	refine  int
	budget  bool
	mask    []bool
	logp    []float32
}

// recordingPolicy wraps a policy and keeps, per (trajectory, depth), the
// last row it scored: for a finished trajectory that is the decision that
// survived in its tour (a re-entered depth overwrites the abandoned one).
type recordingPolicy struct {
	inner lazymask.Policy
	seen  map[[2]int]seenStep
}

func newRecordingPolicy(p lazymask.Policy) *recordingPolicy {
	return &recordingPolicy{inner: p, seen: map[[2]int]seenStep{}}
}

func (p *recordingPolicy) Begin(insts []*lazymask.Instance) error {
	clear(p.seen)
	return p.inner.Begin(insts)
}

func (p *recordingPolicy) Scores(b *lazymask.StepBatch, out []float32) error {
	if err := p.inner.Scores(b, out); err != nil {
		return err
	}
	n := b.N
	for r := range b.Traj {
		p.seen[[2]int{b.Traj[r], b.NumSteps[r]}] = seenStep{
			current: b.Current[r], state: b.State[r], refine: b.Refine[r], budget: b.Budget[r],
			mask: append([]bool(nil), b.Mask[r*n:(r+1)*n]...), logp: append([]float32(nil), out[r*n:(r+1)*n]...),
		}
	}
	return nil
}

// generate draws count instances of one distribution.
func generate(t testing.TB, problem lazymask.Problem, n int, hardness string, count int, seed uint64) []*lazymask.Instance {
	t.Helper()
	gen, err := datasets.NewGenerator(datasets.GenConfig{Problem: problem, N: n, Hardness: hardness, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	insts := make([]*lazymask.Instance, count)
	for i := range insts {
		insts[i], _ = gen.Next()
	}
	return insts
}

// TestReplayMatchesRolloutFormat2 is TestReplayMatchesRolloutLogProbs for
// format-2 models whose every block is live (ReLD with candidate features
// through keys and bias): the replay rebuilds the candidate features from
// the recorded steps, and its log-likelihoods equal the sampling-time sums
// only if they are the features the rollout's policy saw.
func TestReplayMatchesRolloutFormat2(t *testing.T) {
	for _, problem := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		const b, p, n = 4, 6, 20
		cfg := smallModelConfig(t, n, "hard")
		cfg.Model.Problem = problem.String()
		cfg.Model = cfg.Model.WithDecoder(true, features.CandBoth)
		m, err := models.New(cfg.Model, cfg.Backend, 5)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.SetWeights(features.DenseRandomWeights(cfg.Model, 8)); err != nil {
			t.Fatal(err)
		}
		insts := generate(t, problem, n, "hard", b, 43)
		bt, _, rf := checkReplayAgainstRollout(t, m, insts, p, 15)
		t.Logf("%s: %d backtracks, %d refined steps", problem, bt, rf)
	}
}

// smallModelConfig is a TSPTW run config with a small RIE model.
func smallModelConfig(t testing.TB, n int, hardness string) Config {
	c := DefaultConfig("tsptw", n, hardness)
	c.Model.Layers, c.Model.DModel, c.Model.Heads, c.Model.FFN = 2, 32, 4, 64
	c.Model.RIE = true
	c.Backend = testBackend(t)
	c.Seed = 3
	return c
}

// TestReplayMatchesRolloutLogProbs decodes TSPTW-20 hard instances with a
// randomly initialised model under train semantics (budget 15, so
// backtracks and the post-budget relaxation happen) and checks that the
// recorded steps are exactly what the policy saw when it drew each node
// of the final tour, and that the teacher-forced replay's log-likelihood
// and entropy equal the sums over those sampling-time distributions.
func TestReplayMatchesRolloutLogProbs(t *testing.T) {
	const b, p, n = 6, 8, 20
	cfg := smallModelConfig(t, n, "hard")
	m, err := models.New(cfg.Model, cfg.Backend, 5)
	if err != nil {
		t.Fatal(err)
	}
	insts := generate(t, lazymask.TSPTW, n, "hard", b, 41)
	backtracks, relaxed, refined := 0, 0, 0
	// Budget 15 as in training; budget 2 makes the post-budget relaxation
	// (masks of all unvisited nodes) frequent too.
	for _, budget := range []int{15, 2} {
		bt, rl, rf := checkReplayAgainstRollout(t, m, insts, p, budget)
		backtracks, relaxed, refined = backtracks+bt, relaxed+rl, refined+rf
	}
	t.Logf("%d backtracks, %d kept steps with a refined mask, %d after the budget", backtracks, refined, relaxed)
	if backtracks == 0 || refined == 0 || relaxed == 0 {
		t.Fatalf("the rollouts did not exercise backtracking (%d), refinement (%d) and the relaxation (%d)", backtracks, refined, relaxed)
	}
}

// checkReplayAgainstRollout decodes insts with m (train semantics, the
// given budget), compares every recorded step with what the policy saw
// and the replay with the sampling-time log-probs, and returns the
// numbers of backtracks, kept steps taken after the budget ran out and
// kept steps with a refined mask.
func checkReplayAgainstRollout(t *testing.T, m *models.Model, insts []*lazymask.Instance, p, budget int) (backtracks, relaxed, refined int) {
	t.Helper()
	b, n := len(insts), insts[0].N
	rec := newRecordingPolicy(m.Policy())
	trajs, err := lazymask.Decode(rec, insts, p, lazymask.Config{Budget: budget, Semantics: lazymask.Train, Seed: 77, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	rb := NewReplayBatch(b, p, n).withCand(m.Config())
	if err := rb.Fill(insts, trajs); err != nil {
		t.Fatal(err)
	}
	ll, ent, err := m.Replay(rb.ReplayBatch)
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range trajs {
		if tr.Failed || len(tr.Steps) != n-1 {
			t.Fatalf("trajectory %d: failed %v with %d steps", i, tr.Failed, len(tr.Steps))
		}
		backtracks += tr.Backtracks
		var wantLL, wantEnt float64
		for k, s := range tr.Steps {
			seen, ok := rec.seen[[2]int{i, k}]
			if !ok {
				t.Fatalf("trajectory %d step %d was never scored", i, k)
			}
			if s.Chosen != tr.Tour[k+1] || s.Current != tr.Tour[k] {
				t.Fatalf("trajectory %d step %d: %d→%d, tour has %d→%d", i, k, s.Current, s.Chosen, tr.Tour[k], tr.Tour[k+1])
			}
			if seen.current != s.Current || seen.state != s.State || seen.refine != s.Refine || seen.budget != s.Budget {
				t.Fatalf("trajectory %d step %d: recorded (cur %d, state %v, refine %d, budget %v), sampled with (%d, %v, %d, %v)",
					i, k, s.Current, s.State, s.Refine, s.Budget, seen.current, seen.state, seen.refine, seen.budget)
			}
			for j := range s.Mask {
				if s.Mask[j] != seen.mask[j] {
					t.Fatalf("trajectory %d step %d: recorded mask differs from the sampling mask at node %d", i, k, j)
				}
			}
			if s.Budget {
				relaxed++
			}
			if s.Refine > 0 {
				refined++
			}
			wantLL += float64(seen.logp[s.Chosen])
			for j, ok := range seen.mask {
				if ok {
					lp := float64(seen.logp[j])
					wantEnt -= math.Exp(lp) * lp
				}
			}
		}
		if d := math.Abs(float64(ll[i]) - wantLL); d > 1e-3+1e-4*math.Abs(wantLL) {
			t.Errorf("budget %d, trajectory %d: replayed log-likelihood %.6f, sampling-time sum %.6f", budget, i, ll[i], wantLL)
		}
		if d := math.Abs(float64(ent[i]) - wantEnt); d > 1e-3+1e-4*math.Abs(wantEnt) {
			t.Errorf("budget %d, trajectory %d: replayed entropy %.6f, sampling-time sum %.6f", budget, i, ent[i], wantEnt)
		}
	}
	return backtracks, relaxed, refined
}

// rolloutBatch decodes insts with m's policy under train semantics and
// packs the result with its advantages.
func rolloutBatch(t testing.TB, m *models.Model, cfg Config, insts []*lazymask.Instance, seed uint64) *ReplayBatch {
	t.Helper()
	trajs, err := lazymask.Decode(m.Policy(), insts, cfg.Samples, lazymask.Config{
		Budget: cfg.Budget, Semantics: lazymask.Train, Seed: seed, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	rb := NewReplayBatch(len(insts), cfg.Samples, cfg.Size)
	if _, err := Advantages(trajs, cfg.Samples, cfg.Penalty, cfg.NodePenalty, rb.Advantage); err != nil {
		t.Fatal(err)
	}
	if err := rb.Fill(insts, trajs); err != nil {
		t.Fatal(err)
	}
	return rb
}

// TestStep_SGDMovesLogProbsWithAdvantage takes plain SGD steps of the
// REINFORCE loss on a real rollout batch and checks their direction. On
// the whole batch Σ A·loglik must grow. Per instance (the other instances'
// advantages zeroed, so large penalties elsewhere cannot mask the effect)
// the log-probability of the best-advantage sample must rise and that of
// the worst must fall. With zero advantages and an entropy bonus the step
// must raise the mean entropy.
func TestStep_SGDMovesLogProbsWithAdvantage(t *testing.T) {
	const lr = 1e-5
	cfg := smallModelConfig(t, 12, "medium")
	cfg.Batch, cfg.Samples, cfg.Clip, cfg.Entropy = 4, 8, 0, 0
	m, err := models.New(cfg.Model, cfg.Backend, 9)
	if err != nil {
		t.Fatal(err)
	}
	insts := generate(t, lazymask.TSPTW, cfg.Size, cfg.Hardness, cfg.Batch, 5)
	rb := rolloutBatch(t, m, cfg, insts, 6)
	w0, err := m.Weights()
	if err != nil {
		t.Fatal(err)
	}
	sgd := func(c Config) *stepGraph {
		sg, err := newStepGraphWith(m, c, optimizer.StochasticGradientDescent().WithDecay(false).WithLearningRate(lr).Done())
		if err != nil {
			t.Fatal(err)
		}
		return sg
	}
	step := sgd(cfg)
	// update restores the initial weights, takes one step and returns the
	// log-likelihoods before and after it.
	update := func(sg *stepGraph) (before, after, entBefore, entAfter []float32) {
		if err := m.SetWeights(w0); err != nil {
			t.Fatal(err)
		}
		if before, entBefore, err = m.Replay(rb.ReplayBatch); err != nil {
			t.Fatal(err)
		}
		if _, err := sg.run(lr, rb); err != nil {
			t.Fatal(err)
		}
		if after, entAfter, err = m.Replay(rb.ReplayBatch); err != nil {
			t.Fatal(err)
		}
		return before, after, entBefore, entAfter
	}
	adv := append([]float32(nil), rb.Advantage...)
	before, after, _, _ := update(step)
	var objBefore, objAfter float64
	for i, a := range adv {
		objBefore += float64(a) * float64(before[i])
		objAfter += float64(a) * float64(after[i])
	}
	if !(objAfter > objBefore) {
		t.Errorf("Σ A·loglik fell after an SGD step: %.6f → %.6f", objBefore, objAfter)
	}
	p := cfg.Samples
	for b := 0; b < cfg.Batch; b++ {
		clear(rb.Advantage)
		copy(rb.Advantage[b*p:(b+1)*p], adv[b*p:(b+1)*p])
		best, worst := b*p, b*p
		for i := b * p; i < (b+1)*p; i++ {
			if adv[i] > adv[best] {
				best = i
			}
			if adv[i] < adv[worst] {
				worst = i
			}
		}
		if adv[best] == adv[worst] {
			continue
		}
		before, after, _, _ := update(step)
		if !(after[best] > before[best]) {
			t.Errorf("instance %d: best sample (A=%.4f) log-prob %.6f → %.6f, want a rise", b, adv[best], before[best], after[best])
		}
		if !(after[worst] < before[worst]) {
			t.Errorf("instance %d: worst sample (A=%.4f) log-prob %.6f → %.6f, want a fall", b, adv[worst], before[worst], after[worst])
		}
	}

	// Entropy bonus alone: zero advantages, λ = 1.
	clear(rb.Advantage)
	ec := cfg
	ec.Entropy = 1
	_, _, entBefore, entAfter := update(sgd(ec))
	if !(mean32(entAfter) > mean32(entBefore)) {
		t.Errorf("entropy bonus step lowered the mean entropy: %.6f → %.6f", mean32(entBefore), mean32(entAfter))
	}
}

func mean32(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x)
	}
	return s / float64(len(v))
}

// TestTrainStep_RolloutPolicySeesNewWeights checks that a train step
// changes the weights and that the trainer's rollout policy scores with
// the updated weights (no stale executable or weight copy): its log-probs
// change and equal those of a separate model loaded with the new weights.
func TestTrainStep_RolloutPolicySeesNewWeights(t *testing.T) {
	cfg := tinyConfig(t, 3)
	tr, err := New(cfg, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	insts := generate(t, lazymask.TSPTW, cfg.Size, cfg.Hardness, 3, 12)
	greedy := func(p lazymask.Policy) map[[2]int]seenStep {
		rec := newRecordingPolicy(p)
		if _, err := lazymask.Decode(rec, insts, 1, lazymask.Config{Budget: 15, Greedy: true}); err != nil {
			t.Fatal(err)
		}
		return rec.seen
	}
	w0 := weightsOf(t, tr)
	s0 := greedy(tr.policy)
	for i := 0; i < 2; i++ {
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
	}
	w1 := weightsOf(t, tr)
	changed := 0
	for name, v := range w1 {
		for j := range v.Data {
			if v.Data[j] != w0[name].Data[j] {
				changed++
				break
			}
		}
	}
	if changed < len(w1)/2 {
		t.Fatalf("only %d of %d parameter tensors changed after two train steps", changed, len(w1))
	}
	s1 := greedy(tr.policy)
	fresh, err := models.New(cfg.Model, cfg.Backend, 999)
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.SetWeights(w1); err != nil {
		t.Fatal(err)
	}
	sf := greedy(fresh.Policy())
	key := [2]int{0, 0}
	maxMoved := 0.0
	for j, ok := range s0[key].mask {
		if !ok {
			continue
		}
		maxMoved = math.Max(maxMoved, math.Abs(float64(s1[key].logp[j]-s0[key].logp[j])))
		if d := math.Abs(float64(s1[key].logp[j] - sf[key].logp[j])); d > 1e-5 {
			t.Errorf("node %d: rollout policy log-prob %.6f, fresh model with the new weights %.6f", j, s1[key].logp[j], sf[key].logp[j])
		}
	}
	if maxMoved == 0 {
		t.Error("the rollout policy's first-step log-probs did not change after two train steps")
	}
}

// TestStep_WeightDecayAndClipping checks the optimiser wiring on a real
// rollout batch. With zero advantages and no entropy bonus the gradient
// is zero, so one AdamW step must shrink every weight by exactly
// lr·weight_decay (decoupled decay, nothing else). With SGD and a tiny
// clip the weights must move by exactly lr·clip in global L2 norm: the
// clipping scales the gradients, not the weights.
func TestStep_WeightDecayAndClipping(t *testing.T) {
	cfg := smallModelConfig(t, 10, "easy")
	cfg.Batch, cfg.Samples, cfg.Entropy = 2, 4, 0
	m, err := models.New(cfg.Model, cfg.Backend, 4)
	if err != nil {
		t.Fatal(err)
	}
	rb := rolloutBatch(t, m, cfg, generate(t, lazymask.TSPTW, cfg.Size, cfg.Hardness, cfg.Batch, 8), 9)
	adv := append([]float32(nil), rb.Advantage...)
	w0, err := m.Weights()
	if err != nil {
		t.Fatal(err)
	}

	const lr, wd = 1e-2, 0.5
	dc := cfg
	dc.WeightDecay = wd
	sg, err := newStepGraph(m, dc)
	if err != nil {
		t.Fatal(err)
	}
	clear(rb.Advantage)
	res, err := sg.run(lr, rb)
	if err != nil {
		t.Fatal(err)
	}
	if res.GradNorm != 0 {
		t.Fatalf("gradient norm %v with zero advantages and no entropy bonus, want 0", res.GradNorm)
	}
	w1, err := m.Weights()
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range w0 {
		for j, x := range v.Data {
			want := x - float32(lr*wd)*x
			if d := math.Abs(float64(w1[name].Data[j] - want)); d > 1e-6+1e-6*math.Abs(float64(x)) {
				t.Fatalf("%s[%d]: %v after a zero-gradient AdamW step, want %v (decay lr·wd = %g)", name, j, w1[name].Data[j], want, lr*wd)
			}
		}
	}

	if err := m.SetWeights(w0); err != nil {
		t.Fatal(err)
	}
	// lr 1 keeps the per-weight moves far above float32 resolution.
	const clip, sgdLR = 1e-3, 1.0
	cc := cfg
	cc.Clip = clip
	sgd, err := newStepGraphWith(m, cc, optimizer.StochasticGradientDescent().WithDecay(false).WithLearningRate(sgdLR).Done())
	if err != nil {
		t.Fatal(err)
	}
	copy(rb.Advantage, adv)
	res, err = sgd.run(sgdLR, rb)
	if err != nil {
		t.Fatal(err)
	}
	if !(res.GradNorm > 100*clip) {
		t.Fatalf("gradient norm %v is too small for the clip test", res.GradNorm)
	}
	w2, err := m.Weights()
	if err != nil {
		t.Fatal(err)
	}
	var moved float64
	for name, v := range w0 {
		for j, x := range v.Data {
			d := float64(w2[name].Data[j] - x)
			moved += d * d
		}
	}
	if got, want := math.Sqrt(moved), sgdLR*clip; math.Abs(got-want) > 0.02*want {
		t.Errorf("clipped SGD step moved the weights by %.4g in L2 norm, want lr·clip = %.4g (gradient norm %.4g)", got, want, res.GradNorm)
	}
}
