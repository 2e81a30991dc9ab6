package trainer

import (
	"fmt"
	"math/rand/v2"
	"runtime"
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
	idx, aug = make([]int, count), make([]int, count)
	r := rand.New(rand.NewPCG(p.seed^uint64(done), augStream))
	for i := range idx {
		idx[i] = p.at(int64(done-p.base)*int64(count) + int64(i))
		aug[i] = r.IntN(lazymask.NumAugment)
	}
	return idx, aug
}

// pickLabels sets up the label order for n labels. A run resumed over a
// label set that grew or shrank since (Config.ImitateLabels) starts fresh
// epochs over the new set at its current step (Config.ImitateBase).
func (t *Trainer) pickLabels(n int) {
	if t.cfg.ImitateLabels != n {
		if t.done > 0 {
			fmt.Fprintf(t.opt.Log, "label set changed from %d to %d labels: epochs over the new set start at step %d\n",
				t.cfg.ImitateLabels, n, t.done)
		}
		t.cfg.ImitateLabels, t.cfg.ImitateBase = n, t.done
	}
	t.picker = &labelPicker{n: n, seed: t.cfg.Seed ^ uint64(t.cfg.ImitateBase)*0x9e3779b97f4a7c15, base: t.cfg.ImitateBase}
}

// labelSteps returns, for each picked label, its instance under the drawn
// transform and the steps a decode records for its tour (nil where the
// look-ahead rules the tour out, which a feasible tour never triggers).
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
				insts[i] = lazymask.Augment(l.Insts[idx[i]], aug[i])
				s, err := lazymask.ReplayTour(insts[i], l.Tours[idx[i]], look, budget, lazymask.Test)
				if err == nil {
					steps[i] = s
				}
			}
		}()
	}
	wg.Wait()
	return insts, steps
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
	idx, aug := t.picker.pick(t.done, cfg.ImitateBatch)
	insts, steps := labelSteps(t.labels, idx, aug, cfg.LookaheadKind(), cfg.ValBudget)
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
	if t.rl != nil {
		var err error
		if ro, err = t.rollout(t.rl); err != nil {
			return Record{}, err
		}
		if err := t.rl.Fill(ro.insts, ro.trajs); err != nil {
			return Record{}, fmt.Errorf("step %d: %w", t.done+1, err)
		}
	}
	prep := time.Since(start)
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
		Kind: KindTrain, Step: t.done, Loss: res.Loss, LogLik: res.LogLik * float64(len(trajs)) / float64(used),
		StepNLL: -res.LogLik * float64(len(trajs)) / float64(used) / float64(cfg.Size-1),
		Length:  cost / float64(used), GradNorm: res.GradNorm, LR: lr,
		RolloutSec: prep.Seconds(), ReplaySec: (total - prep).Seconds(),
		InstPerSec: float64(used) / total.Seconds(),
	}
	if t.rl != nil {
		// Length stays the labels'; the rollouts report reward, infeasibility
		// and entropy.
		st := ro.stats
		rec.Reward, rec.PenCost, rec.Infeasible, rec.Backtracks, rec.Entropy, rec.Rho = st.Reward, st.PenCost, st.Infeasible, st.Backtracks, res.Entropy, ro.rho
	}
	return rec, nil
}

// labelsFit checks that a label set was made for the run's problem and
// size.
func labelsFit(l *datasets.Labels, cfg *Config) error {
	if len(l.Insts) == 0 {
		return fmt.Errorf("imitate %s: no label with a feasible tour", cfg.Imitate)
	}
	if p := l.Insts[0].Problem; p != cfg.ProblemKind() {
		return fmt.Errorf("imitate %s: labels are %v instances, the run trains %v", cfg.Imitate, p, cfg.ProblemKind())
	}
	if n := l.Insts[0].N; n != cfg.Size {
		return fmt.Errorf("imitate %s: labels have %d nodes, the run trains size %d", cfg.Imitate, n, cfg.Size)
	}
	return nil
}
