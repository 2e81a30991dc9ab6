package trainer

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/labels"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models"
	"github.com/lmask/lmask/models/features"
)

// policyStarts starts the label search from a model's greedy tours under
// the eight transforms (the network of a self-improvement round).
type policyStarts struct{ m *models.Model }

func (p policyStarts) Describe() string { return "model greedy ×8" }

func (p policyStarts) Starts(_ context.Context, insts []*lazymask.Instance) ([][][]int, error) {
	out := make([][][]int, len(insts))
	for k := 0; k < lazymask.NumAugment; k++ {
		aug := make([]*lazymask.Instance, len(insts))
		for i, in := range insts {
			aug[i] = lazymask.Augment(in, k)
		}
		trajs, err := lazymask.Decode(p.m.Policy(), aug, 1, lazymask.Config{Budget: 50, Greedy: true})
		if err != nil {
			return nil, err
		}
		for i, ts := range toursOf(trajs, len(insts)) {
			out[i] = append(out[i], ts...)
		}
	}
	return out, nil
}

func toursOf(trajs []lazymask.Trajectory, n int) [][][]int {
	out := make([][][]int, n)
	for _, t := range trajs {
		if t.Tour != nil {
			out[t.Inst] = append(out[t.Inst], t.Tour)
		}
	}
	return out
}

// tinyLabels writes a label set of count TSPTW-10 easy instances into dir.
func tinyLabels(t *testing.T, dir string, count, kicks int) {
	t.Helper()
	spec := datasets.LabelSpec{Problem: "tsptw", Size: 10, Hardness: "easy", Seed: 5, ChunkSize: 12, Search: "test"}
	got, err := labels.Open(dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	b := &labels.Builder{Dir: dir, Spec: got, Starter: labels.RandomL{Samples: 4, Budget: 50, Seed: 1}, Search: labels.Search{Kicks: kicks, MaxStarts: 2}}
	if _, err := b.Grow(context.Background(), count); err != nil {
		t.Fatal(err)
	}
}

func imitateConfig(t *testing.T, dir string, steps int) Config {
	cfg := tinyConfig(t, steps)
	cfg.Imitate, cfg.ImitateBatch = dir, 16
	return cfg
}

// firstStep runs the first step of an imitation run over the labels in dir
// with the config changed by set, and returns the trainer and its record.
func firstStep(t *testing.T, dir string, set func(*Config)) (*Trainer, Record) {
	t.Helper()
	cfg := imitateConfig(t, dir, 2)
	set(&cfg)
	tr, err := New(cfg, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := tr.TrainStep()
	if err != nil {
		t.Fatal(err)
	}
	return tr, rec
}

// TestImitate_MasksEqualDecoding: the steps the imitation replays for a
// tour under a transform are the steps a decode of that transformed
// instance records when it places the same nodes: current node, time,
// RIE inputs and masks.
func TestImitate_MasksEqualDecoding(t *testing.T) {
	gen, err := datasets.NewGenerator(datasets.GenConfig{Problem: lazymask.TSPTW, N: 12, Hardness: "medium", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	l := &datasets.Labels{}
	var recorded [][]lazymask.StepRecord
	var augs []int
	for len(l.Insts) < 6 {
		in, _ := gen.Next()
		k := len(l.Insts) % lazymask.NumAugment
		trajs, err := lazymask.Decode(&lazymask.RandomL{}, []*lazymask.Instance{lazymask.Augment(in, k)}, 1,
			lazymask.Config{Budget: 50, Seed: 9, Record: true, Semantics: lazymask.Test})
		if err != nil {
			t.Fatal(err)
		}
		tr := trajs[0]
		if !tr.Feasible || tr.Backtracks > 0 {
			continue // a straight decode is what a label replays
		}
		// Labels 2 and 4 are prefix completions: only their steps after
		// the fixed positions are learnt.
		fixed := map[int]int{2: 4, 4: 1}[len(l.Insts)]
		l.Insts, l.Tours, l.Fixed = append(l.Insts, in), append(l.Tours, tr.Tour), append(l.Fixed, fixed)
		recorded, augs = append(recorded, tr.Steps[max(fixed-1, 0):]), append(augs, k)
	}
	if len(recorded[2]) != 12-4 {
		t.Fatalf("a prefix of 4 positions leaves %d steps to learn of 11, want 8", len(recorded[2]))
	}
	idx := []int{0, 1, 2, 3, 4, 5}
	insts, steps := labelSteps(l, idx, augs, lazymask.LookTSL, 50)
	for i := range idx {
		want := lazymask.Augment(l.Insts[i], augs[i])
		if !slices.Equal(insts[i].X, want.X) || !slices.Equal(insts[i].Y, want.Y) {
			t.Fatalf("label %d: replayed instance is not transform %d of the label's instance", i, augs[i])
		}
		if len(steps[i]) != len(recorded[i]) {
			t.Fatalf("label %d: %d replayed steps, the decode recorded %d", i, len(steps[i]), len(recorded[i]))
		}
		for k, s := range steps[i] {
			r := recorded[i][k]
			if s.Current != r.Current || s.Chosen != r.Chosen || s.State != r.State || s.Refine != r.Refine ||
				s.Budget != r.Budget || !slices.Equal(s.Mask, r.Mask) {
				t.Fatalf("label %d step %d: replay %+v, decode %+v", i, k, s, r)
			}
		}
	}
}

// TestImitate_LossIsLabelNLLAndFalls: the imitation loss equals the mean
// negative log-likelihood of the label tours computed by the plain replay,
// and repeated updates on one fixed batch lower it.
func TestImitate_LossIsLabelNLLAndFalls(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "labels")
	tinyLabels(t, dir, 32, 2)
	cfg := imitateConfig(t, dir, 40)
	tr, err := New(cfg, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	idx, aug := tr.picker.pick(0, cfg.ImitateBatch)
	insts, steps := labelSteps(tr.labels, idx, aug, cfg.LookaheadKind(), cfg.ValBudget)
	trajs := make([]lazymask.Trajectory, len(insts))
	for i := range trajs {
		if steps[i] == nil {
			t.Fatalf("label %d does not replay", idx[i])
		}
		trajs[i] = lazymask.Trajectory{Inst: i, Steps: steps[i]}
		tr.rb.Advantage[i] = 1
	}
	if err := tr.rb.Fill(insts, trajs); err != nil {
		t.Fatal(err)
	}
	ll, _, err := tr.model.Replay(tr.rb.ReplayBatch)
	if err != nil {
		t.Fatal(err)
	}
	var nll float64
	for _, v := range ll {
		nll -= float64(v)
	}
	nll /= float64(len(ll))
	first, err := tr.step.run(1e-2, tr.rb)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(first.Loss-nll) > 1e-4*nll {
		t.Fatalf("imitation loss %v, replayed label NLL %v", first.Loss, nll)
	}
	last := first
	for i := 0; i < 30; i++ {
		if last, err = tr.step.run(1e-2, tr.rb); err != nil {
			t.Fatal(err)
		}
	}
	if !(last.Loss < 0.5*first.Loss) {
		t.Fatalf("loss on a fixed batch went %v → %v after 30 updates; want below half", first.Loss, last.Loss)
	}
}

// TestImitate_ResumeEqualsStraightRun: the labels and transforms of a step
// follow from the step number, so a resumed imitation run ends with the
// weights of a straight one.
func TestImitate_ResumeEqualsStraightRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "labels")
	tinyLabels(t, dir, 24, 0)
	cfg := imitateConfig(t, dir, 6)
	a := trainRun(t, cfg, Options{Dir: t.TempDir()})
	c := halfThenResumed(t, cfg, t.TempDir())
	wa, wc := weightsOf(t, a), weightsOf(t, c)
	w0 := features.RandomWeights(cfg.Model, cfg.Seed)
	moved := false
	for name, ta := range wa {
		if !slices.Equal(ta.Data, wc[name].Data) {
			t.Fatalf("%s differs between a straight and a resumed imitation run", name)
		}
		moved = moved || !slices.Equal(ta.Data, w0[name].Data)
	}
	if !moved {
		t.Fatal("imitation did not change any weight")
	}
}

// TestImitate_StepRecord: one imitation step through TrainStep reports the
// label tours' mean length and log-likelihood, and the per-step
// cross-entropy that follows from it.
func TestImitate_StepRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "labels")
	tinyLabels(t, dir, 24, 0)
	cfg := imitateConfig(t, dir, 1)
	tr, err := New(cfg, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := tr.picker.pick(0, cfg.ImitateBatch)
	var cost float64
	for _, i := range idx {
		cost += tr.labels.Costs[i]
	}
	rec, err := tr.TrainStep()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(rec.Length-cost/float64(len(idx))) > 1e-12 {
		t.Errorf("record length %v, mean label cost %v", rec.Length, cost/float64(len(idx)))
	}
	if !(rec.LogLik < 0) || math.Abs(rec.StepNLL+rec.LogLik/float64(cfg.Size-1)) > 1e-9 || math.Abs(rec.Loss+rec.LogLik) > 1e-4*rec.Loss {
		t.Errorf("record loss %v, loglik %v, step NLL %v: want loss = −loglik = (N−1)·NLL", rec.Loss, rec.LogLik, rec.StepNLL)
	}
	if rec.InstPerSec <= 0 || tr.Step() != 1 {
		t.Errorf("rate %v, step %d", rec.InstPerSec, tr.Step())
	}
	card := string(ModelCard(State{Config: tr.Config(), Step: 1, InstancesSeen: int64(cfg.ImitateBatch)}))
	for _, want := range []string{"trained with imitation of local-search tours", "| imitation | label set labels", "24 labels", "| tours seen | 16 |"} {
		if !strings.Contains(card, want) {
			t.Errorf("model card lacks %q:\n%s", want, card)
		}
	}
	if strings.Contains(card, "entropy λ") || strings.Contains(card, "| rollouts |") {
		t.Errorf("the card of a pure imitation run names rollouts or an entropy term:\n%s", card)
	}
}

// TestImitate_PrefetchedLabels: each imitation step leaves the next step's
// labels replaying beside its update, and the next step takes them; they
// are the batch the step would replay itself.
func TestImitate_PrefetchedLabels(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "labels")
	tinyLabels(t, dir, 24, 0)
	cfg := imitateConfig(t, dir, 3)
	tr, err := New(cfg, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for step := 1; step <= 2; step++ {
		if _, err := tr.TrainStep(); err != nil {
			t.Fatal(err)
		}
		next := tr.next
		if next == nil || next.done != step {
			t.Fatalf("after step %d: prefetched batch %+v, want the one for %d completed steps", step, next, step)
		}
		<-next.ready
		fresh := tr.startLabels(step)
		<-fresh.ready
		if !slices.Equal(next.idx, fresh.idx) || !reflect.DeepEqual(next.steps, fresh.steps) {
			t.Fatalf("step %d: the prefetched labels differ from a fresh replay", step+1)
		}
		for i, in := range next.insts {
			if !slices.Equal(in.X, fresh.insts[i].X) || !slices.Equal(in.Y, fresh.insts[i].Y) {
				t.Fatalf("step %d, label %d: the prefetched transform differs from a fresh replay's", step+1, i)
			}
		}
		if got := tr.labelBatch(step); got != next || tr.next != nil {
			t.Fatalf("step %d did not take the prefetched batch", step+1)
		}
		tr.next = next // hand it back for the step itself
	}
	if _, err := tr.TrainStep(); err != nil {
		t.Fatal(err)
	}
	if tr.next != nil {
		t.Fatal("the last step prefetched labels for a step that never runs")
	}
	for _, in := range tr.labels.Insts {
		// The cache is unexported; reflection reads its length.
		if in.Dist == nil && reflect.ValueOf(in).Elem().FieldByName("dist").Len() > 0 {
			t.Fatal("a label keeps the travel-time matrix its replays built")
		}
	}
}

// TestImitate_ResumeOverGrownSet: a run resumed after its label set grew
// reads the new labels and starts new epochs at its step.
func TestImitate_ResumeOverGrownSet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "labels")
	tinyLabels(t, dir, 24, 0)
	cfg := imitateConfig(t, dir, 6)
	run := t.TempDir()
	trainRun(t, cfg, Options{Dir: run, StopAt: 3})
	tinyLabels(t, dir, 36, 0) // one chunk more
	var log strings.Builder
	c, err := New(Config{}, Options{Dir: run, Resume: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Config(); got.ImitateLabels != 36 || got.ImitateBase != 3 || len(c.labels.Insts) != 36 {
		t.Fatalf("resumed over %d labels with base %d (read %d); want 36 from step 3", got.ImitateLabels, got.ImitateBase, len(c.labels.Insts))
	}
	if !strings.Contains(log.String(), "label set changed from 24 to 36") {
		t.Errorf("no note of the changed label set in the log:\n%s", log.String())
	}
	if _, err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestImitate_MixedWithReinforce: with RLWeight w > 0 one update replays
// the label tours and a REINFORCE batch of generated instances, and its
// loss is the labels' NLL plus w times the REINFORCE loss: from the same
// weights, 2·L(w=0.5) = L(w=1) + L(w=0).
func TestImitate_MixedWithReinforce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "labels")
	tinyLabels(t, dir, 24, 0)
	first := func(w float64) (*Trainer, Record) {
		return firstStep(t, dir, func(c *Config) { c.RLWeight, c.Batch, c.Samples = w, 4, 3 })
	}
	tr, half := first(0.5)
	if tr.rb.B != 16 || tr.rb.P != 1 || tr.rl == nil || tr.rl.B != 4 || tr.rl.P != 3 {
		t.Fatalf("replay batches %d×%d and %v; want 16 label tours × 1 and 4 instances × 3 samples", tr.rb.B, tr.rb.P, tr.rl)
	}
	for b := 0; b < 4; b++ {
		var sum float32
		for p := 0; p < 3; p++ {
			sum += tr.rl.Advantage[b*3+p]
		}
		if math.Abs(float64(sum)) > 1e-4 {
			t.Errorf("instance %d: advantages %v do not sum to 0 (shared baseline)", b, tr.rl.Advantage[b*3:b*3+3])
		}
	}
	if !(half.Reward < 0) || half.Entropy <= 0 || half.StepNLL <= 0 {
		t.Errorf("mixed record: reward %v, entropy %v, step NLL %v; want the rollouts' reward < 0, their entropy > 0 and the labels' NLL > 0", half.Reward, half.Entropy, half.StepNLL)
	}
	_, full := first(1)
	_, none := first(0)
	if got, want := 2*half.Loss, full.Loss+none.Loss; math.Abs(got-want) > 1e-4*math.Max(1, math.Abs(want)) {
		t.Errorf("2·L(0.5) = %v, L(1) + L(0) = %v (L(1) %v, L(0) %v): the loss is not the labels' NLL plus w × REINFORCE", got, want, full.Loss, none.Loss)
	}
	if none.Loss == full.Loss {
		t.Errorf("the REINFORCE term adds nothing to the loss (%v)", none.Loss)
	}
}

// TestSelfImprovementRound: labels from Random-L starts, imitation, a
// relabel round from the trained network's tours (never a longer label),
// then imitation again on the improved labels, resumed from the run.
func TestSelfImprovementRound(t *testing.T) {
	if testing.Short() {
		t.Skip("self-improvement round: skipped in -short")
	}
	dir := filepath.Join(t.TempDir(), "labels")
	tinyLabels(t, dir, 40, 0)
	before, err := datasets.ReadLabels(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	cfg := imitateConfig(t, dir, 30)
	tr := trainRun(t, cfg, Options{Dir: run})

	spec, err := datasets.ReadLabelSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	b := &labels.Builder{Dir: dir, Spec: spec, Starter: policyStarts{m: tr.Model()}, Search: labels.Search{Kicks: 5, MaxStarts: 4}}
	round, err := b.Relabel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	after, err := datasets.ReadLabels(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Costs) != len(before.Costs) {
		t.Fatalf("relabel changed the label count %d → %d", len(before.Costs), len(after.Costs))
	}
	var sb, sa float64
	for i := range after.Costs {
		if after.Costs[i] > before.Costs[i]+1e-9 {
			t.Fatalf("label %d got longer: %v → %v", i, before.Costs[i], after.Costs[i])
		}
		sb, sa = sb+before.Costs[i], sa+after.Costs[i]
	}
	if round.Improved == 0 || !(sa < sb) {
		t.Fatalf("the round improved %d labels (mean length %v → %v); descents with kicks from the network's tours must beat plain descents from Random-L", round.Improved, sb, sa)
	}
	// Train on: the resumed run reads the relabelled set.
	c, err := New(Config{}, Options{Dir: run, Resume: true, Steps: 40})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c.Step() != 40 {
		t.Fatalf("second stage ended at step %d, want 40", c.Step())
	}
}

func TestLabelExpert(t *testing.T) {
	tour := []int{0, 3, 1, 2, 4}
	allow := func(nodes ...int) []bool {
		m := make([]bool, 5)
		for _, v := range nodes {
			m[v] = true
		}
		return m
	}
	for _, c := range []struct {
		mask []bool
		want int
	}{
		{allow(1, 2, 3, 4), 3}, // on the label's path: its next node
		{allow(1, 4), 1},       // 3 visited: back to the label's order
		{allow(2, 4), 2},
		{allow(4), 4},
		{allow(0), -1}, // the depot is never the expert's choice
		{allow(), -1},
	} {
		if got := labelExpert(tour, c.mask); got != c.want {
			t.Errorf("mask %v: expert %d, want %d", c.mask, got, c.want)
		}
	}
}

// TestImitate_Dagger: the second batch holds the network's own decodes of
// the step's first labels, every kept step relabelled with the label's
// first allowed node, and the loss is the labels' NLL plus w × theirs.
func TestImitate_Dagger(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "labels")
	tinyLabels(t, dir, 24, 0)
	first := func(w float64) (*Trainer, Record) {
		return firstStep(t, dir, func(c *Config) { c.Dagger, c.Batch, c.Samples = w, 4, 3 })
	}
	tr, half := first(0.5)
	if tr.rl == nil || tr.rl.B != 4 || tr.rl.P != 3 {
		t.Fatalf("second batch %v; want 4 label instances × 3 decodes", tr.rl)
	}
	idx, _ := tr.picker.pick(0, tr.cfg.ImitateBatch)
	n, steps := tr.rl.N, tr.rl.T
	rows, deviated := 0, false
	for i := 0; i < tr.rl.B*tr.rl.P; i++ {
		tour := tr.labels.Tours[idx[i/tr.rl.P]]
		for k := 0; k < steps; k++ {
			row := i*steps + k
			if tr.rl.Valid[row] == 0 {
				continue
			}
			rows++
			mask := tr.rl.Mask[row*n : (row+1)*n]
			if got, want := int(tr.rl.Chosen[row]), labelExpert(tour, mask); got != want {
				t.Fatalf("decode %d step %d: target %d, want the expert's %d", i, k, got, want)
			}
			if int(tr.rl.Current[row]) != tour[k] {
				deviated = true // the state is the network's own, off the label's path
			}
		}
	}
	if rows == 0 || !deviated {
		t.Fatalf("%d DAgger steps, off the label's path: %v; want the network's own states", rows, deviated)
	}
	if !(half.Agree > 0 && half.Agree < 1) || half.Infeasible < 0 || half.Infeasible > 1 || half.StepNLL <= 0 {
		t.Errorf("record: agree %v, infeasible %v, step NLL %v", half.Agree, half.Infeasible, half.StepNLL)
	}
	_, full := first(1)
	_, none := first(0)
	if got, want := 2*half.Loss, full.Loss+none.Loss; math.Abs(got-want) > 1e-4*math.Max(1, math.Abs(want)) {
		t.Errorf("2·L(0.5) = %v, L(1) + L(0) = %v: the loss is not the labels' NLL plus w × the DAgger NLL", got, want)
	}
	if !(full.Loss > none.Loss) {
		t.Errorf("the DAgger term (a negative log-likelihood) does not raise the loss: L(1) %v, L(0) %v", full.Loss, none.Loss)
	}

	cfg := imitateConfig(t, dir, 2)
	cfg.Dagger, cfg.RLWeight = 1, 0.3
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "dagger") {
		t.Errorf("dagger with rl_weight: error %v, want one naming dagger", err)
	}
	cfg.RLWeight, cfg.Batch = 0, cfg.ImitateBatch+1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "batch") {
		t.Errorf("dagger with batch > imitate_batch: error %v, want one naming batch", err)
	}
}

// TestImitate_DaggerFailed: only greedy decodes without a feasible tour
// fill the second batch, one row each, relabelled by the expert.
func TestImitate_DaggerFailed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "labels")
	tinyLabels(t, dir, 24, 0)
	cfg := imitateConfig(t, dir, 2)
	cfg.Dagger, cfg.DaggerFailed, cfg.Batch, cfg.Budget, cfg.ValBudget = 1, true, 16, 0, 0 // no backtracking: greedy decodes fail often
	tr, err := New(cfg, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// The step's greedy decodes, done here first with the same weights.
	idx, aug := tr.picker.pick(0, cfg.ImitateBatch)
	insts := make([]*lazymask.Instance, len(idx))
	for i := range idx {
		insts[i] = lazymask.Augment(tr.labels.Insts[idx[i]], aug[i])
	}
	trajs, err := tr.dec.Decode(tr.policy, insts, 1, lazymask.Config{Lookahead: cfg.LookaheadKind(), Budget: 0, Greedy: true, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	var failed []lazymask.Trajectory
	for _, tj := range trajs {
		if !tj.Feasible {
			failed = append(failed, tj)
		}
	}
	if len(failed) == 0 {
		t.Fatal("no greedy decode failed: the test needs some")
	}
	rec, err := tr.TrainStep()
	if err != nil {
		t.Fatal(err)
	}
	if tr.rl.B != 16 || tr.rl.P != 1 {
		t.Fatalf("second batch %d×%d, want 16×1", tr.rl.B, tr.rl.P)
	}
	if got, want := rec.Infeasible, float64(len(failed))/float64(len(idx)); math.Abs(got-want) > 1e-12 {
		t.Errorf("record infeasible %v, want %v", got, want)
	}
	steps := tr.rl.T
	for i := 0; i < tr.rl.B; i++ {
		if i >= len(failed) {
			if tr.rl.Advantage[i] != 0 || tr.rl.Valid[i*steps] != 0 {
				t.Fatalf("padding row %d: advantage %v, valid %v", i, tr.rl.Advantage[i], tr.rl.Valid[i*steps])
			}
			continue
		}
		f := failed[i]
		tour := tr.labels.Tours[idx[f.Inst]]
		if tr.rl.Advantage[i] != 1 {
			t.Fatalf("row %d: advantage %v, want 1", i, tr.rl.Advantage[i])
		}
		for k := 0; k < steps; k++ {
			row := i*steps + k
			if k >= len(f.Steps) {
				if tr.rl.Valid[row] != 0 {
					t.Fatalf("row %d step %d: valid past the decode's %d steps", i, k, len(f.Steps))
				}
				continue
			}
			if int(tr.rl.Current[row]) != f.Steps[k].Current {
				t.Fatalf("row %d step %d: current %d, the failed decode's %d", i, k, tr.rl.Current[row], f.Steps[k].Current)
			}
			if got, want := int(tr.rl.Chosen[row]), labelExpert(tour, f.Steps[k].Mask); got != want {
				t.Fatalf("row %d step %d: target %d, want the expert's %d", i, k, got, want)
			}
		}
	}
	cfg.Dagger = 0
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "dagger_failed") {
		t.Errorf("dagger_failed without dagger: error %v, want one naming dagger_failed", err)
	}
}

// TestImitate_SeveralLabelSets: comma-separated label sets are read as
// one, in order; the card names each; sets of other sizes are refused.
func TestImitate_SeveralLabelSets(t *testing.T) {
	root := t.TempDir()
	a, b, c := filepath.Join(root, "common"), filepath.Join(root, "hard"), filepath.Join(root, "n12")
	tinyLabels(t, a, 24, 0)
	for _, s := range []struct {
		dir  string
		size int
	}{{b, 10}, {c, 12}} {
		got, err := labels.Open(s.dir, datasets.LabelSpec{Problem: "tsptw", Size: s.size, Hardness: "medium", Seed: 6, ChunkSize: 12, Search: "test"})
		if err != nil {
			t.Fatal(err)
		}
		bl := &labels.Builder{Dir: s.dir, Spec: got, Starter: labels.RandomL{Samples: 4, Budget: 50, Seed: 1}, Search: labels.Search{Kicks: 0, MaxStarts: 2}}
		if _, err := bl.Grow(context.Background(), 12); err != nil {
			t.Fatal(err)
		}
	}
	one, err := datasets.ReadLabels(a, 0)
	if err != nil {
		t.Fatal(err)
	}
	two, err := datasets.ReadLabels(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := imitateConfig(t, a+","+b, 1)
	tr, err := New(cfg, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	got := tr.labels
	if len(got.Insts) != len(one.Insts)+len(two.Insts) || got.Costs[0] != one.Costs[0] || got.Costs[len(one.Insts)] != two.Costs[0] {
		t.Fatalf("read %d labels, want %d + %d in order", len(got.Insts), len(one.Insts), len(two.Insts))
	}
	card := string(ModelCard(State{Config: tr.Config()}))
	if !strings.Contains(card, "label set common + hard") {
		t.Errorf("model card does not name both label sets:\n%s", card)
	}
	if _, err := New(imitateConfig(t, a+","+c, 1), Options{Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "12 nodes, the run trains size 10") {
		t.Errorf("label sets of sizes 10 and 12 in a run of size 10: error %v, want one naming the sizes", err)
	}
}
