package trainer

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// augStream separates the per-step transform draws from the run's PCG.
const augStream = 0x6c6d61736b2d6175 // "lmask-au"

// labelPicker walks the label set in epochs from step base on: epoch e
// visits every label once in an order drawn from (seed, e), so the labels
// of a step follow from the step number alone and a resumed run over the
// same set draws what the run it continues would have.
type labelPicker struct {
	mu    sync.Mutex // pick runs on the prefetch goroutine too
	n     int
	seed  uint64
	base  int
	epoch int
	perm  []int
}

func (p *labelPicker) at(pos int64) int {
	e := int(pos / int64(p.n))
	if p.perm == nil || e != p.epoch {
		p.epoch = e
		p.perm = rand.New(rand.NewPCG(p.seed, uint64(e))).Perm(p.n)
	}
	return p.perm[pos%int64(p.n)]
}

// pick returns count label indices for the step that follows done steps
// of count labels each, and a dihedral transform for each.
func (p *labelPicker) pick(done, count int) (idx, aug []int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	idx, aug = make([]int, count), make([]int, count)
	r := rand.New(rand.NewPCG(p.seed^uint64(done), augStream))
	for i := range idx {
		idx[i] = p.at(int64(done-p.base)*int64(count) + int64(i))
		aug[i] = r.IntN(lazymask.NumAugment)
	}
	return idx, aug
}

// pickLabels sets up the label order for the labels l: labelPicker's for
// one size, bucketPicker's (batches of one size) for several. A run
// resumed over a label set that grew or shrank since
// (Config.ImitateLabels) starts fresh epochs over the new set at its
// current step (Config.ImitateBase).
func (t *Trainer) pickLabels(l *datasets.Labels) {
	n := len(l.Insts)
	if t.cfg.ImitateLabels != n {
		if t.done > 0 {
			fmt.Fprintf(t.opt.Log, "label set changed from %d to %d labels: epochs over the new set start at step %d\n",
				t.cfg.ImitateLabels, n, t.done)
		}
		t.cfg.ImitateLabels, t.cfg.ImitateBase = n, t.done
	}
	seed := t.cfg.Seed ^ uint64(t.cfg.ImitateBase)*0x9e3779b97f4a7c15
	for _, in := range l.Insts {
		if in.N != l.Insts[0].N {
			t.picker = newBucketPicker(l.Insts, t.cfg.ImitateBatch, seed, t.cfg.ImitateBase)
			return
		}
	}
	t.picker = &labelPicker{n: n, seed: seed, base: t.cfg.ImitateBase}
}

// labelSteps returns, for each picked label, its instance under the drawn
// transform and the steps a decode records for its tour after the label's
// fixed prefix (nil where the look-ahead rules the tour out, which a
// feasible tour never triggers).
// Replays run in parallel; the result does not depend on the scheduling.
func labelSteps(l *datasets.Labels, idx, aug []int, look lazymask.Lookahead, budget int) ([]*lazymask.Instance, [][]lazymask.StepRecord) {
	insts := make([]*lazymask.Instance, len(idx))
	steps := make([][]lazymask.StepRecord, len(idx))
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(idx))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(idx); i += workers {
				// A copy per pick: its matrix is built on the copy, so a label
				// picked twice is not written by two workers, and the label
				// set does not keep an N×N matrix per label for the run.
				c := *l.Insts[idx[i]]
				insts[i] = lazymask.Augment(&c, aug[i])
				s, err := lazymask.ReplayTour(insts[i], l.Tours[idx[i]], look, budget, lazymask.Test)
				if err == nil {
					// A prefix completion teaches only the steps after the
					// model's own prefix (step k places position k+1).
					steps[i] = s[max(l.Fixed[idx[i]]-1, 0):]
				}
			}
		}()
	}
	wg.Wait()
	return insts, steps
}

// labelBatch is one step's picked labels, replayed (labelSteps).
type labelBatch struct {
	done  int // the step count it was picked for
	idx   []int
	insts []*lazymask.Instance
	steps [][]lazymask.StepRecord
	ready chan struct{} // closed once the fields are set
}

// labelBatch returns the labels of the step after done completed steps:
// the prefetched batch when it is that step's, else replayed now. The
// picks depend on the step count alone, so both give the same batch.
func (t *Trainer) labelBatch(done int) *labelBatch {
	b := t.next
	t.next = nil
	if b != nil {
		<-b.ready // a stale one too: no replay outlives the step that took its place
	}
	if b == nil || b.done != done {
		b = t.startLabels(done)
		<-b.ready
	}
	return b
}

// startLabels picks and replays the labels of the step after done
// completed steps on other goroutines; the batch is ready when b.ready is
// closed. The goroutines read only what is captured here.
func (t *Trainer) startLabels(done int) *labelBatch {
	b := &labelBatch{done: done, ready: make(chan struct{})}
	picker, labels, count := t.picker, t.labels, t.cfg.ImitateBatch
	look, budget := t.cfg.LookaheadKind(), t.cfg.ValBudget
	go func() {
		var aug []int
		b.idx, aug = picker.pick(done, count)
		b.insts, b.steps = labelSteps(labels, b.idx, aug, look, budget)
		close(b.ready)
	}()
	return b
}

// imitateStep runs one imitation update: ImitateBatch label tours, each
// under a random dihedral transform, replayed teacher-forced under the
// LazyMask masks; the loss is their mean negative log-likelihood (the
// summed cross-entropy of each next node). No rollout, unless the run
// mixes in REINFORCE (RLWeight > 0): then a batch of generated instances is
// rolled out too and its weighted loss joins the same update.
func (t *Trainer) imitateStep() (Record, error) {
	cfg := &t.cfg
	start := time.Now()
	b := t.labelBatch(t.done)
	idx, insts, steps := b.idx, b.insts, b.steps
	n := insts[0].N
	t.rb = t.replay(n)
	trajs := make([]lazymask.Trajectory, len(insts))
	used := 0
	var cost float64
	for i := range trajs {
		trajs[i] = lazymask.Trajectory{Inst: i, Steps: steps[i]}
		t.rb.Advantage[i] = 0
		if steps[i] != nil {
			t.rb.Advantage[i] = 1
			used++
			cost += t.labels.Costs[idx[i]]
		}
	}
	if used == 0 {
		return Record{}, fmt.Errorf("step %d: no label tour of the batch replays under the %v masks", t.done+1, cfg.LookaheadKind())
	}
	// Padding rows carry zero advantage; rescale so the loss stays the mean
	// over the replayed tours.
	for i := range trajs {
		t.rb.Advantage[i] *= float32(len(trajs)) / float32(used)
	}
	if err := t.rb.Fill(insts, trajs); err != nil {
		return Record{}, fmt.Errorf("step %d: %w", t.done+1, err)
	}
	var ro rollouts
	var dg daggerStats
	switch {
	case cfg.Dagger > 0:
		var err error
		if cfg.DaggerFailed {
			dg, err = t.daggerFailed(insts, idx)
		} else {
			dg, err = t.daggerStates(insts[:cfg.Batch], idx[:cfg.Batch])
		}
		if err != nil {
			return Record{}, err
		}
	case cfg.RLWeight > 0:
		var err error
		if ro, err = t.rollout(true); err != nil {
			return Record{}, err
		}
		t.rl = ro.rb
		if err := t.rl.Fill(ro.insts, ro.trajs); err != nil {
			return Record{}, fmt.Errorf("step %d: %w", t.done+1, err)
		}
	}
	prep := time.Since(start)
	if next := t.done + 1; next < cfg.Steps && (t.opt.StopAt <= 0 || next < t.opt.StopAt) {
		t.next = t.startLabels(next) // replayed on the host while the device updates
	}
	lr := cfg.LRAt(t.done)
	res, err := t.update(lr)
	if err != nil {
		return Record{}, err
	}
	total := time.Since(start)
	t.done++
	t.seen += int64(used + len(ro.insts))
	t.wall += total.Seconds()
	rec := Record{
		Kind: KindTrain, Step: t.done, Size: n, Loss: res.Loss, LogLik: res.LogLik * float64(len(trajs)) / float64(used),
		StepNLL: -res.LogLik * float64(len(trajs)) / float64(used) / float64(n-1),
		Length:  cost / float64(used), GradNorm: res.GradNorm, LR: lr,
		RolloutSec: prep.Seconds(), ReplaySec: (total - prep).Seconds(),
		InstPerSec: float64(used) / total.Seconds(),
	}
	switch {
	case cfg.Dagger > 0:
		rec.Infeasible, rec.Backtracks, rec.Agree, rec.Entropy = dg.infeasible, dg.backtracks, dg.agree, res.Entropy
	case cfg.RLWeight > 0:
		// Length stays the labels'; the rollouts report reward, infeasibility
		// and entropy.
		st := ro.stats
		rec.Reward, rec.PenCost, rec.Infeasible, rec.Backtracks, rec.Entropy, rec.Rho = st.Reward, st.PenCost, st.Infeasible, st.Backtracks, res.Entropy, ro.rho
	}
	return rec, nil
}

// daggerStats describe one step's DAgger decodes.
type daggerStats struct {
	infeasible float64 // share of the decodes without a feasible tour
	backtracks float64 // mean backtracks per decode
	agree      float64 // kept steps whose choice was the expert's: a count, then (done) their share
	steps      int     // kept steps relabelled
}

// relabel replaces the choice of every kept step of tr with the expert's
// for the label tour, counting the steps and the agreements in st.
func (st *daggerStats) relabel(tr *lazymask.Trajectory, tour []int) {
	for k := range tr.Steps {
		e := labelExpert(tour, tr.Steps[k].Mask)
		if e == tr.Steps[k].Chosen {
			st.agree++
		}
		tr.Steps[k].Chosen = e
	}
	st.steps += len(tr.Steps)
}

// count adds one decode's verdict and backtracks.
func (st *daggerStats) count(tr *lazymask.Trajectory) {
	if !tr.Feasible {
		st.infeasible++
	}
	st.backtracks += float64(tr.Backtracks)
}

// done turns the counts over n decodes into shares and means.
func (st *daggerStats) done(n int) {
	st.infeasible /= float64(n)
	st.backtracks /= float64(n)
	if st.steps > 0 {
		st.agree /= float64(st.steps)
	}
}

// daggerDecode decodes insts with the current network for DAgger: test
// semantics and the paper's budget, as evaluation decodes them.
func (t *Trainer) daggerDecode(insts []*lazymask.Instance, samples int, greedy bool) ([]lazymask.Trajectory, error) {
	cfg := &t.cfg
	dc := lazymask.Config{Lookahead: cfg.LookaheadKind(), Budget: cfg.ValBudget, Semantics: lazymask.Test, Greedy: greedy, Record: true}
	if !greedy {
		dc.Seed = t.rng.Uint64()
	}
	trajs, err := t.decode(insts, samples, dc)
	if err != nil {
		return nil, fmt.Errorf("step %d: dagger decode: %w", t.done+1, err)
	}
	return trajs, nil
}

// daggerStates decodes Samples sampled trajectories of each given label
// instance (already under its step's transform) with the current network,
// relabels every kept step with the expert's choice (labelExpert) and fills
// the second replay batch with them at advantage 1, so its loss is their
// mean negative log-likelihood. Failed decodes count too: their kept steps
// are the states the network gets stuck in.
func (t *Trainer) daggerStates(insts []*lazymask.Instance, idx []int) (daggerStats, error) {
	trajs, err := t.daggerDecode(insts, t.cfg.Samples, false)
	if err != nil {
		return daggerStats{}, err
	}
	var st daggerStats
	t.rl = t.replaySecond(insts[0].N)
	for i := range trajs {
		st.count(&trajs[i])
		st.relabel(&trajs[i], t.labels.Tours[idx[trajs[i].Inst]])
		t.rl.Advantage[i] = 1
	}
	if err := t.rl.Fill(insts, trajs); err != nil {
		return daggerStats{}, fmt.Errorf("step %d: dagger: %w", t.done+1, err)
	}
	st.done(len(trajs))
	return st, nil
}

// daggerFailed decodes every label instance of the step greedily (already
// under its transform), and fills the second batch with the decodes that
// end without a feasible tour, up to Batch of them at advantage 1 (the rest
// padding), each kept step relabelled with the expert's choice. The term
// thus shrinks as the network fails less. Its stats cover all the decodes.
func (t *Trainer) daggerFailed(insts []*lazymask.Instance, idx []int) (daggerStats, error) {
	trajs, err := t.daggerDecode(insts, 1, true)
	if err != nil {
		return daggerStats{}, err
	}
	b := t.cfg.Batch
	var st daggerStats
	t.rl = t.replaySecond(insts[0].N)
	keep := make([]*lazymask.Instance, b)
	rows := make([]lazymask.Trajectory, b)
	used := 0
	for i := range trajs {
		tr := &trajs[i]
		st.count(tr)
		if tr.Feasible || used == b {
			continue
		}
		st.relabel(tr, t.labels.Tours[idx[tr.Inst]])
		keep[used], rows[used] = insts[tr.Inst], lazymask.Trajectory{Inst: used, Steps: tr.Steps}
		t.rl.Advantage[used] = 1
		used++
	}
	for i := used; i < b; i++ { // padding: any instance, no step, zero advantage
		keep[i], rows[i] = insts[0], lazymask.Trajectory{Inst: i}
		t.rl.Advantage[i] = 0
	}
	if err := t.rl.Fill(keep, rows); err != nil {
		return daggerStats{}, fmt.Errorf("step %d: dagger: %w", t.done+1, err)
	}
	st.done(len(trajs))
	return st, nil
}

// labelExpert is DAgger's expert for a state of the network's own decode:
// the first node of the label tour (depot first, which the mask never
// allows) that the state's candidate set allows. After a deviation it
// returns to the label's order with the nodes the network has not yet
// visited; where the label's next node is allowed it is that node.
func labelExpert(tour []int, mask []bool) int {
	for _, v := range tour[1:] {
		if mask[v] {
			return v
		}
	}
	return -1 // no candidate: Fill reports it (a recorded step always has one)
}

// labelsFit checks that a label set was made for the run's problem and
// sizes (Config.TrainSizes).
func labelsFit(l *datasets.Labels, cfg *Config) error {
	if len(l.Insts) == 0 {
		return fmt.Errorf("imitate %s: no label with a feasible tour", cfg.Imitate)
	}
	sizes := cfg.TrainSizes()
	for _, in := range l.Insts {
		if in.Problem != cfg.ProblemKind() {
			return fmt.Errorf("imitate %s: labels are %v instances, the run trains %v", cfg.Imitate, in.Problem, cfg.ProblemKind())
		}
		if !slices.Contains(sizes, in.N) {
			if len(sizes) == 1 {
				return fmt.Errorf("imitate %s: labels have %d nodes, the run trains size %d", cfg.Imitate, in.N, cfg.Size)
			}
			return fmt.Errorf("imitate %s: labels have %d nodes, the run trains sizes %v", cfg.Imitate, in.N, sizes)
		}
	}
	return nil
}
