package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// DefaultBatch is how many original instances one decode takes (each
// expanded into Aug×Samples trajectories). Small batches measured fastest
// on CPU: the decoder's per-run cost grows with the number of encoded
// instances it is handed, and small encoder chunks stay in cache.
const DefaultBatch = 4

// SolveOptions configure Solve.
type SolveOptions struct {
	// Aug is the number of dihedral augmentations, 1 to 8 (0 means 8):
	// the first Aug transforms of lazymask.Augment, the identity first.
	Aug int
	// Samples is the number of sampled trajectories per augmentation; 0
	// decodes one greedy trajectory per augmentation.
	Samples int
	// Budget is the backtrack budget R (lazymask.Unlimited for none).
	Budget int
	// BudgetPerNode, when > 0 (and Budget is not Unlimited), raises the
	// budget of an N-node instance to BudgetPerNode·N where that is more
	// (BudgetFor). Why: the backtracks a decode needs grow with its steps,
	// and a file of mixed sizes (a benchmark) needs no single R.
	BudgetPerNode int
	// Lookahead is the candidate-set rule (zero value: TSL).
	Lookahead lazymask.Lookahead
	// Semantics is what a spent budget does (zero value: Test).
	Semantics lazymask.Semantics
	// Seed seeds sampling. Each trajectory samples from its own stream,
	// derived from (Seed, instance index, augmentation, sample), so sampled
	// tours depend neither on Batch nor on the number of workers. The
	// instance index is the position in the Solve call, plus first for
	// SolveFrom (a file's row index when a file is solved in parts).
	Seed uint64
	// Batch is the number of original instances per decode (0 means
	// DefaultBatch).
	Batch int
	// AllTours keeps every decoded tour in Solution.Tours.
	AllTours bool
	// Progress, if set, is called (serially) with the number of instances
	// finished so far in this Solve call.
	Progress func(done int)

	// deadline, when set, ends a decode with errDeadline (Rescue's retries).
	deadline time.Time
}

func (o SolveOptions) withDefaults() (SolveOptions, error) {
	if o.Aug == 0 {
		o.Aug = lazymask.NumAugment
	}
	if o.Aug < 1 || o.Aug > lazymask.NumAugment {
		return o, fmt.Errorf("solve: aug %d, want 1 to %d", o.Aug, lazymask.NumAugment)
	}
	if o.Samples < 0 {
		return o, fmt.Errorf("solve: samples %d, want ≥ 0 (0 = greedy)", o.Samples)
	}
	if o.Budget < lazymask.Unlimited {
		return o, fmt.Errorf("solve: budget %d, want ≥ 0 or unlimited", o.Budget)
	}
	if o.BudgetPerNode < 0 {
		return o, fmt.Errorf("solve: budget per node %d, want ≥ 0", o.BudgetPerNode)
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	return o, nil
}

// BudgetFor is the backtrack budget of an n-node instance: Budget, raised
// to BudgetPerNode·n where that is more.
func (o SolveOptions) BudgetFor(n int) int {
	if o.Budget == lazymask.Unlimited || o.BudgetPerNode <= 0 {
		return o.Budget
	}
	return max(o.Budget, o.BudgetPerNode*n)
}

// Tour is one decoded tour, verified by lazymask.Check on the original
// instance.
type Tour struct {
	Aug, Sample int
	// Nodes lists all N nodes from the depot; nil when the decode failed.
	Nodes []int
	// Cost is the tour length in normalised units (+Inf when Failed).
	Cost          float64
	Feasible      bool
	Failed        bool
	Violation     float64
	ViolatedNodes int
	// Excess is Σ max(0, v − Tol) over the nodes (lazymask.Verdict).
	Excess     float64
	Backtracks int
}

// Verdict returns the tour's ranking facts (lazymask.Compare).
func (t Tour) Verdict() lazymask.Verdict {
	if t.Failed {
		return lazymask.Verdict{}
	}
	return lazymask.Verdict{Complete: true, Feasible: t.Feasible, Cost: t.Cost, Excess: t.Excess, ViolatedNodes: t.ViolatedNodes}
}

// Solution is the outcome for one instance.
type Solution struct {
	// Best is the first best tour in the order of lazymask.Compare: the
	// cheapest feasible tour; if none is feasible, the complete tour of
	// least excess violation; if no tour completed, a Failed tour without
	// nodes.
	Best Tour
	// Tours holds every decoded tour when SolveOptions.AllTours is set.
	Tours []Tour
	// Decoded counts the tours decoded for the instance, Feasible those
	// that Check accepted.
	Decoded, Feasible int
}

// Stats split the time of Solve calls. Encoder, Decoder, Decode and Check
// are summed over workers; Wall is elapsed time.
type Stats struct {
	Wall      time.Duration
	Encoder   time.Duration // encoder.onnx
	Decoder   time.Duration // decoder.onnx, input building included
	Decode    time.Duration // inside lazymask.Decode (encoder and decoder included)
	Check     time.Duration // re-checking tours on the original instances
	Instances int
	Tours     int
	Rows      int64 // decoder rows scored
	Runs      int   // decoder.onnx runs
	Workers   int
}

// GoSide is the time spent in Go-side LazyMask work: masks, backtracking,
// selection and checking.
func (s Stats) GoSide() time.Duration { return s.Decode - s.Encoder - s.Decoder + s.Check }

// Add accumulates o into s.
func (s *Stats) Add(o Stats) {
	s.Wall += o.Wall
	s.Encoder += o.Encoder
	s.Decoder += o.Decoder
	s.Decode += o.Decode
	s.Check += o.Check
	s.Instances += o.Instances
	s.Tours += o.Tours
	s.Rows += o.Rows
	s.Runs += o.Runs
	s.Workers = max(s.Workers, o.Workers)
}

// Solver runs Solve calls with reusable per-worker buffers. It is not safe
// for concurrent use.
type Solver struct {
	e       *Engine
	opts    SolveOptions
	workers []*worker
	stats   Stats
}

type worker struct {
	policy  *Policy
	decoder *lazymask.Decoder
	augs    []*lazymask.Instance
	streams []uint64
}

// NewSolver returns a Solver with Options.Workers workers.
func (e *Engine) NewSolver(opts SolveOptions) (*Solver, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Solver{e: e, opts: o}
	for i := 0; i < e.opts.Workers; i++ {
		s.workers = append(s.workers, &worker{policy: e.NewPolicy(), decoder: lazymask.NewDecoder()})
	}
	return s, nil
}

// Stats returns the accumulated timing of the solver's Solve calls.
func (s *Solver) Stats() Stats { return s.stats }

// Close releases the workers' buffers.
func (s *Solver) Close() error {
	for _, w := range s.workers {
		w.policy.Close()
	}
	return nil
}

// Solve decodes insts with a fresh Solver and returns one Solution each.
func (e *Engine) Solve(insts []*lazymask.Instance, opts SolveOptions) ([]Solution, error) {
	s, err := e.NewSolver(opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Solve(insts)
}

// Solve decodes every instance Aug×max(1,Samples) times and returns, per
// instance, the best tour by lazymask.Check on the original instance.
// Instances are split into batches of up to SolveOptions.Batch consecutive
// instances of one size, which the workers decode concurrently.
func (s *Solver) Solve(insts []*lazymask.Instance) ([]Solution, error) {
	return s.SolveContext(context.Background(), insts)
}

// SolveContext is Solve that stops between batches once ctx is done,
// returning ctx's error.
func (s *Solver) SolveContext(ctx context.Context, insts []*lazymask.Instance) ([]Solution, error) {
	return s.SolveFrom(ctx, 0, insts)
}

// SolveFrom is SolveContext for instances whose indices, for the sampling
// streams (SolveOptions.Seed), start at first: solving a file's rows
// first.. in any parts gives the same tours as solving it whole.
func (s *Solver) SolveFrom(ctx context.Context, first int64, insts []*lazymask.Instance) ([]Solution, error) {
	start := time.Now()
	want := s.e.Problem()
	for i, in := range insts {
		if in == nil {
			return nil, fmt.Errorf("solve: instance %d is nil", i)
		}
		if in.Problem != want {
			return nil, fmt.Errorf("solve: instance %d (%q) is %s, the model was trained for %s", i, in.Name, in.Problem, want)
		}
	}
	out := make([]Solution, len(insts))
	// A batch is one worker's job: a few instances in large batches would
	// leave workers idle, so a batch takes at most an equal part of them
	// per worker (the tours do not depend on the batch).
	size := min(s.opts.Batch, max(1, (len(insts)+len(s.workers)-1)/len(s.workers)))
	batches := batchRanges(insts, size)
	nb := len(batches)
	jobs := make(chan [2]int, nb)
	for _, b := range batches {
		jobs <- b
	}
	close(jobs)
	var (
		mu    sync.Mutex
		done  int
		errs  []error
		wg    sync.WaitGroup
		stats = make([]Stats, len(s.workers))
	)
	nw := min(len(s.workers), nb)
	for wi := 0; wi < nw; wi++ {
		wg.Add(1)
		go func(w *worker, st *Stats) {
			defer wg.Done()
			for b := range jobs {
				if err := ctx.Err(); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				lo, hi := b[0], b[1]
				if err := w.solveBatch(s.opts, first, insts, lo, hi, out, st); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				mu.Lock()
				done += hi - lo
				if s.opts.Progress != nil {
					s.opts.Progress(done)
				}
				mu.Unlock()
			}
		}(s.workers[wi], &stats[wi])
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var st Stats
	for _, w := range stats {
		st.Add(w)
	}
	st.Wall = time.Since(start)
	st.Workers = nw
	s.stats.Add(st)
	return out, nil
}

// batchRanges splits insts into runs [lo,hi) of at most size consecutive
// instances, cut where the node count changes (a decode batch holds one
// size), so a file of mixed sizes (a benchmark) is solved in one call;
// where all sizes agree the runs are size apart.
func batchRanges(insts []*lazymask.Instance, size int) [][2]int {
	var out [][2]int
	for lo := 0; lo < len(insts); {
		hi := lo + 1
		for hi < len(insts) && hi-lo < size && insts[hi].N == insts[lo].N {
			hi++
		}
		out = append(out, [2]int{lo, hi})
		lo = hi
	}
	return out
}

// solveBatch decodes instances [lo,hi) and fills out[lo:hi]; instance i
// has index first+i for the sampling streams.
func (w *worker) solveBatch(o SolveOptions, first int64, insts []*lazymask.Instance, lo, hi int, out []Solution, st *Stats) error {
	w.augs = w.augs[:0]
	per := max(o.Samples, 1)
	w.streams = w.streams[:0]
	for i := lo; i < hi; i++ {
		for k := 0; k < o.Aug; k++ {
			w.augs = append(w.augs, lazymask.Augment(insts[i], k))
			for j := 0; j < per; j++ {
				w.streams = append(w.streams, streamSeed(o.Seed, uint64(first+int64(i)), uint64(k), uint64(j)))
			}
		}
	}
	// A batch holds one size (batchRanges), so one budget serves it.
	cfg := lazymask.Config{Lookahead: o.Lookahead, Budget: o.BudgetFor(insts[lo].N), Semantics: o.Semantics,
		Greedy: o.Samples == 0}
	if !cfg.Greedy {
		cfg.Streams = w.streams
	}
	before := w.policy.Timing
	t0 := time.Now()
	var p lazymask.Policy = w.policy
	if !o.deadline.IsZero() {
		p = deadlinePolicy{w.policy, o.deadline}
	}
	trajs, err := w.decoder.Decode(p, w.augs, per, cfg)
	if err != nil {
		return fmt.Errorf("solve instances %d..%d: %w", lo, hi-1, err)
	}
	st.Decode += time.Since(t0)
	after := w.policy.Timing
	st.Encoder += after.Encoder - before.Encoder
	st.Decoder += after.Decoder - before.Decoder
	st.Rows += after.Rows - before.Rows
	st.Runs += after.DecodeRuns - before.DecodeRuns

	t1 := time.Now()
	perInst := o.Aug * per
	for i := lo; i < hi; i++ {
		sol := &out[i]
		*sol = Solution{Best: Tour{Failed: true, Cost: inf}}
		if o.AllTours {
			sol.Tours = make([]Tour, 0, perInst)
		}
		base := (i - lo) * perInst
		for j := 0; j < perInst; j++ {
			tr := &trajs[base+j]
			t, err := verify(insts[i], tr, j/per, j%per)
			if err != nil {
				return fmt.Errorf("solve instance %d (%q): %w", i, insts[i].Name, err)
			}
			sol.Decoded++
			if t.Feasible {
				sol.Feasible++
			}
			if lazymask.Compare(t.Verdict(), sol.Best.Verdict()) < 0 {
				sol.Best = t
			}
			if o.AllTours {
				sol.Tours = append(sol.Tours, t)
			}
		}
	}
	st.Check += time.Since(t1)
	st.Instances += hi - lo
	st.Tours += len(trajs)
	return nil
}

// verify turns a trajectory into a Tour checked on the original instance.
func verify(orig *lazymask.Instance, tr *lazymask.Trajectory, aug, sample int) (Tour, error) {
	t := Tour{Aug: aug, Sample: sample, Backtracks: tr.Backtracks}
	if tr.Failed || tr.Tour == nil {
		t.Failed, t.Cost = true, inf
		return t, nil
	}
	res, err := lazymask.Check(orig, tr.Tour)
	var ie *lazymask.InfeasibleError
	if err != nil && !errors.As(err, &ie) {
		return t, fmt.Errorf("decoded tour (aug %d, sample %d) is malformed: %w", aug, sample, err)
	}
	t.Nodes = tr.Tour
	t.Cost, t.Feasible = res.Cost, res.Feasible
	t.Violation, t.ViolatedNodes, t.Excess = res.TotalViolation, res.ViolatedNodes, res.Verdict().Excess
	return t, nil
}

var inf = math.Inf(1)

// streamSeed derives the sampling stream of one trajectory from the seed,
// the instance index, the augmentation and the sample: each word is mixed
// in turn through the SplitMix64 finaliser.
func streamSeed(seed, inst, aug, sample uint64) uint64 {
	z := mix64(seed + 0x9e3779b97f4a7c15)
	z = mix64(z ^ (inst+1)*0xd1b54a32d192ed03)
	z = mix64(z ^ (aug+1)*0xabc98388fb8fac03)
	return mix64(z ^ (sample+1)*0x8cb92ba72f3d8dd7)
}

// mix64 is the SplitMix64 output function, a bijective bit mixer.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// SetProgress replaces the progress callback of later Solve calls.
func (s *Solver) SetProgress(f func(done int)) { s.opts.Progress = f }

// StartTours decodes insts (the solver must keep AllTours) and returns,
// per instance, every complete tour in decode order: the starts of a
// local search (labels.Starter).
func (s *Solver) StartTours(ctx context.Context, insts []*lazymask.Instance) ([][][]int, error) {
	if !s.opts.AllTours {
		return nil, errors.New("start tours: the solver does not keep every tour (SolveOptions.AllTours)")
	}
	sols, err := s.SolveContext(ctx, insts)
	if err != nil {
		return nil, err
	}
	out := make([][][]int, len(sols))
	for i, sol := range sols {
		for _, t := range sol.Tours {
			if t.Nodes != nil {
				out[i] = append(out[i], t.Nodes)
			}
		}
	}
	return out, nil
}
