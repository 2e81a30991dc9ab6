package solve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lmask/lmask/exact"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// Job is one instance to improve: its starting tours (decoded by a model or
// a heuristic) and the seed of its search.
type Job struct {
	Inst *lazymask.Instance
	// Starts are the starting tours; nil entries (decodes that gave up)
	// are skipped. localsearch.ImproveFrom dedupes them and takes the best
	// Options.Search.MaxStarts in the order of lazymask.Compare.
	Starts [][]int
	// Seed is the search's seed (localsearch.Options.Seed).
	Seed uint64
	// Fixed > 1 keeps the first Fixed positions of every start in place
	// (localsearch.Options.Fixed): the search completes that prefix, and
	// no urgency-order start is added.
	Fixed int
}

// Options configure Improve.
type Options struct {
	// Search are the options of every instance's localsearch.ImproveFrom;
	// its Seed is replaced by Job.Seed and, under a Deadline, its
	// TimeLimit caps each instance's part of the time.
	Search localsearch.Options
	// Deadline, when not zero, bounds the whole call in two passes: each
	// instance, as a worker takes it, gets its part (by Weight) of the
	// first FirstPass of the time left for the instances not yet started
	// (ShareOf), then the instances the time cut (needsMore) share the
	// rest the same way, resumed from their best tours with the next
	// seed. WithShare sets it.
	Deadline time.Time
	// Urgency adds localsearch.OrderTour (customers by window end or
	// draft limit) as a start where no given start is feasible, on top of
	// the best Search.MaxStarts given ones.
	Urgency bool
	// Workers is the number of instances searched side by side
	// (0 = runtime.GOMAXPROCS).
	Workers int
	// Prove, under a Deadline, lets each TSPTW search of the first pass
	// try to prove its best tour optimal once its starts have descended
	// (localsearch.Options.Prove, by exact.Solve within
	// localsearch.ProveShare of its time; where the first tries mostly
	// fail, only some instances try: proofs). A proven instance's search
	// ends there, and the time it leaves goes to the instances after it.
	Prove bool
	// NewRedecoder, when set, gives the searches neural kicks
	// (localsearch.Options.Redecoder): it returns a new Redecoder, and each
	// search takes one no other search is using (a network's buffers serve
	// one goroutine), so at most one per worker is made. Search.NeuralEvery
	// says how often.
	NewRedecoder func() localsearch.Redecoder
}

// redecoders hands each running search a Redecoder of its own, made by
// Options.NewRedecoder as needed and reused by later searches.
type redecoders struct {
	mu   sync.Mutex
	free []localsearch.Redecoder
	make func() localsearch.Redecoder
}

// with runs f with o.Redecoder set to a Redecoder no other search is
// using (o unchanged where the pool is nil).
func (p *redecoders) with(o localsearch.Options, f func(localsearch.Options)) {
	if p == nil {
		f(o)
		return
	}
	p.mu.Lock()
	var r localsearch.Redecoder
	if k := len(p.free); k > 0 {
		r, p.free = p.free[k-1], p.free[:k-1]
	} else {
		r = p.make()
	}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.free = append(p.free, r)
		p.mu.Unlock()
	}()
	o.Redecoder = r
	f(o)
}

// proveLabels caps the labels of a proof (about 32 bytes each, per
// worker); the deadline binds first almost everywhere.
const proveLabels = 4_000_000

// proofs counts the proofs tried and found in one Improve call, shared by
// its workers: where the first proveProbe tries found less than one in
// proveRate, only every proveRate-th instance after them tries. Why: on
// wide windows every try fails and costs kicks (the paper's easy and
// medium sets); a file of mixed windows keeps trying.
type proofs struct{ tried, found, passed atomic.Int64 }

const (
	proveProbe = 8
	proveRate  = 8
)

// smallProveN and smallProveTime: an instance of at most smallProveN
// nodes always tries its proof, for at least smallProveTime, outside the
// gate's counts. Why: a proof at about 20 nodes takes a few milliseconds,
// more than a fifth of the share Weight gives such an instance in a file of
// larger ones, while the kicks may leave it above its optimum
// (docs/experiments.md, "Exact windows").
const (
	smallProveN    = 25
	smallProveTime = 10 * time.Millisecond
)

// prover returns the localsearch.Options.Prove of in: exact.Solve bounded
// by the best tour's cost, or nil where p says to pass this instance.
func (p *proofs) prover(in *lazymask.Instance) func(float64, time.Time, bool) ([]int, bool) {
	small := in.N <= smallProveN
	if t := p.tried.Load(); !small && t >= proveProbe && p.found.Load()*proveRate < t && p.passed.Add(1)%proveRate != 0 {
		return nil
	}
	return func(upper float64, deadline time.Time, metric bool) ([]int, bool) {
		if floor := time.Now().Add(smallProveTime); small && deadline.Before(floor) {
			deadline = floor
		}
		r, err := exact.Solve(in, exact.Options{Upper: upper, Deadline: deadline, Metric: metric, MaxLabels: proveLabels})
		if !small {
			p.tried.Add(1)
			if err == nil {
				p.found.Add(1)
			}
		}
		return r.Tour, err == nil
	}
}

// MaxShare bounds the share of WithShare: a thousand times the time spent
// decoding is more than any search here uses, and keeps the durations far
// from overflow.
const MaxShare = 1000

// UnboundedKicks stands for "as many kicks as the time allows" (the search
// also ends its kicks when no feasible perturbation is found).
const UnboundedKicks = math.MaxInt32

// WithShare bounds the search by share × spent from now (spent: the time
// the starts took to decode): Deadline is set, kicks are unbounded unless
// Search.Kicks caps them, and every instance's best start descends to a
// local optimum, an instance without a feasible start being always
// repaired (localsearch.Options.FinishDescent), as the share is a target
// for the improvement, not a reason to leave an instance infeasible or at
// its decoded tour. share ≤ 0 returns o unchanged.
func (o Options) WithShare(share float64, spent time.Duration) Options {
	if share <= 0 {
		return o
	}
	if o.Search.Kicks == 0 {
		o.Search.Kicks = UnboundedKicks
	}
	o.Search.FinishDescent = true
	o.Deadline = time.Now().Add(time.Duration(min(share, MaxShare) * float64(spent)))
	return o
}

// ShareOf returns the time limit of an instance of the given weight that
// starts now with instances of total weight pending (itself included) not
// yet started and workers searching side by side: its part of the time
// left before deadline in proportion to its weight, never past it, at least
// a microsecond (zero would mean no limit), and at most limit when that is
// set.
func ShareOf(deadline time.Time, weight, pending float64, workers int, limit time.Duration) time.Duration {
	left := time.Until(deadline)
	part := left
	if pending > weight {
		part = min(time.Duration(float64(left)*weight/pending*float64(max(workers, 1))), left)
	}
	part = max(part, time.Microsecond)
	if limit > 0 {
		part = min(part, limit)
	}
	return part
}

// Weight is a job's claim on a shared search time: N^1.5, rounded. A
// kick and its descent cost about N^1.4 (TSPTW scans go through neighbour
// lists), so the instances of a file of mixed sizes get about as many
// kicks each; by N² (the decode's growth) a file's smallest instances got
// the fewest, and where they were its hardest they ended as its worst
// (docs/experiments.md, "Search time by N^1.5").
func Weight(in *lazymask.Instance) float64 {
	n := float64(in.N)
	return max(math.Round(n*math.Sqrt(n)), 1)
}

// pendingWeight counts the weight of the jobs not yet started, in whole
// units (Weight is an integer), so that workers can take from it
// atomically.
type pendingWeight struct{ v atomic.Int64 }

// take removes w and returns the weight pending before, w included.
func (p *pendingWeight) take(w float64) float64 {
	return float64(p.v.Add(-int64(w)) + int64(w))
}

// Result is the outcome of one job.
type Result struct {
	// Search is the local search's result (Search.Tour, Search.Check);
	// zero when the job had no start (Searched false).
	Search   localsearch.Result
	Searched bool
	// Given is the verdict of the best given start (zero: none complete).
	Given lazymask.Verdict
	// Final is lazymask.Check's verdict on Search.Tour, replayed again
	// after the search.
	Final lazymask.Verdict
	// Start is the index in Job.Starts of the start the best search began
	// from, or −1 for the urgency order.
	Start int
	// Improved: Final is feasible and better than Given.
	Improved bool
	// Changed: the search's tour differs from its best start.
	Changed bool
	// Resumed is the time limit of the job's second search under a
	// Deadline (needsMore), zero when it had none.
	Resumed time.Duration
	// other is the search of the pass whose tour was not kept, counted in
	// Stats.
	other *localsearch.Result
}

// Elapsed is the wall time of the job's searches, both passes included.
func (r *Result) Elapsed() time.Duration {
	if r.other != nil {
		return r.Search.Elapsed + r.other.Elapsed
	}
	return r.Search.Elapsed
}

// Stats sum what the searches of one call did.
type Stats struct {
	// Searched counts the jobs with a start; Starts the starting tours
	// descended from; Kicks the perturbations tried; KicksAccepted and
	// Merged those kicks and merges of local optima that improved the best
	// tour; Restarts the restarts of stalled TSPTW kicks; Moves the applied
	// moves.
	Searched      int `json:"searched"`
	Starts        int `json:"starts"`
	Kicks         int `json:"kicks"`
	KicksAccepted int `json:"kicks_accepted"`
	Merged        int `json:"merged"`
	Restarts      int `json:"restarts"`
	Moves         int `json:"moves"`
	// NeuralKicks counts the neural kicks tried inside the searches
	// (Options.NewRedecoder) and NeuralFailed those that gave no feasible
	// new tour.
	NeuralKicks  int `json:"neural_kicks,omitempty"`
	NeuralFailed int `json:"neural_failed,omitempty"`
	// Proven counts the results proved optimal (Options.Prove); Windows
	// the windows re-optimised to a shorter order (localsearch's exact
	// windows).
	Proven  int `json:"proven"`
	Windows int `json:"windows"`
	// Repaired counts infeasible best starts that became feasible;
	// Changed the results that differ from their best start; Improved
	// the results better than every given start.
	Repaired int `json:"repaired"`
	Changed  int `json:"changed"`
	Improved int `json:"improved"`
	// Elapsed sums the searches' wall times.
	Elapsed time.Duration `json:"-"`
}

// Add accumulates o into s.
func (s *Stats) Add(o Stats) {
	s.Searched += o.Searched
	s.Starts += o.Starts
	s.Kicks += o.Kicks
	s.KicksAccepted += o.KicksAccepted
	s.Merged += o.Merged
	s.Restarts += o.Restarts
	s.Moves += o.Moves
	s.NeuralKicks += o.NeuralKicks
	s.NeuralFailed += o.NeuralFailed
	s.Proven += o.Proven
	s.Windows += o.Windows
	s.Repaired += o.Repaired
	s.Changed += o.Changed
	s.Improved += o.Improved
	s.Elapsed += o.Elapsed
}

func (s *Stats) count(r *Result) {
	if !r.Searched {
		return
	}
	s.Searched++
	for _, w := range []*localsearch.Result{&r.Search, r.other} {
		if w != nil {
			s.Starts += w.Starts
			s.Kicks += w.Kicks
			s.KicksAccepted += w.KicksAccepted
			s.Merged += w.Merged
			s.Restarts += w.Restarts
			s.Moves += w.Moves
			s.Windows += w.Windows
			s.NeuralKicks += w.NeuralKicks
			s.NeuralFailed += w.NeuralFailed
			s.Elapsed += w.Elapsed
		}
	}
	if r.Search.Optimal {
		s.Proven++
	}
	if r.Search.Repaired {
		s.Repaired++
	}
	if r.Changed {
		s.Changed++
	}
	if r.Improved {
		s.Improved++
	}
}

// JobError is the error of one job: Job is its index and Start the index
// in Job.Starts of the malformed start it concerns (−1 when none).
type JobError struct {
	Job, Start int
	Err        error
}

// Error names the start, if any, and the cause.
func (e *JobError) Error() string {
	if e.Start >= 0 {
		return fmt.Sprintf("start %d: %v", e.Start, e.Err)
	}
	return e.Err.Error()
}

// Unwrap returns the cause.
func (e *JobError) Unwrap() error { return e.Err }

// Improve runs localsearch.ImproveFrom from the starts of every job on a
// pool of Options.Workers goroutines, each job on its own copy of the
// instance, and replays every result with lazymask.Check. It returns one
// Result per job and their Stats; the first failing job (by index) gives a
// *JobError, after every job has run. Without a Deadline or Search.TimeLimit
// the results depend only on the jobs and options, not on the workers.
//
// When ctx is done the searches stop within moments (between kicks and
// moves; localsearch.ImproveFromContext): each job keeps the best tour its
// search found so far, a job not started yet its best start, and Improve
// returns every result with ctx's error.
func Improve(ctx context.Context, jobs []Job, opt Options) ([]Result, Stats, error) {
	out := make([]Result, len(jobs))
	errs := make([]error, len(jobs))
	workers := Workers(opt.Workers)
	var pool *redecoders
	if opt.NewRedecoder != nil {
		pool = &redecoders{make: opt.NewRedecoder}
	}
	if opt.Deadline.IsZero() {
		runPass(ctx, jobs, opt, opt.Deadline, workers, out, errs, nil, pool)
	} else {
		// Two passes within the deadline: every job gets its part (by
		// Weight) of the first FirstPass of the time, then the time left
		// goes to the jobs the time cut (needsMore), resumed from their
		// best tours with the next seed: a second, independent draw of
		// kicks, plus the time the searches that ended by themselves did
		// not use.
		// Each job's search data are derived once, for both passes.
		now := time.Now()
		mid := now.Add(time.Duration(FirstPass * float64(opt.Deadline.Sub(now))))
		prep := make([]*localsearch.Prepared, len(jobs))
		runPass(ctx, jobs, opt, mid, workers, out, errs, prep, pool)
		var more []int
		for i := range out {
			if errs[i] == nil && needsMore(&out[i]) {
				more = append(more, i)
			}
		}
		resume(ctx, jobs, more, opt, workers, out, errs, prep, pool)
	}
	var st Stats
	for i := range out {
		if errs[i] != nil {
			return out, st, errs[i]
		}
		st.count(&out[i])
	}
	return out, st, ctx.Err()
}

// FirstPass is the part of an Options.Deadline's time that Improve shares
// equally among all jobs before handing the rest to those that need it.
// Why 0.75: with half, searches that stall early and would improve later
// lose their time (docs/experiments.md, "Two passes of the search time").
const FirstPass = 0.75

// runPass searches every job, each with its part (by Weight) of the time
// left before deadline (none when deadline is zero), and keeps each job's
// search data in prep where that is not nil.
func runPass(ctx context.Context, jobs []Job, opt Options, deadline time.Time, workers int, out []Result, errs []error, prep []*localsearch.Prepared, pool *redecoders) {
	var pending pendingWeight
	for i := range jobs {
		pending.v.Add(int64(Weight(jobs[i].Inst)))
	}
	var tries proofs
	ForEach(len(jobs), workers, func(i int) {
		w := Weight(jobs[i].Inst)
		left := pending.take(w)
		o := opt.Search
		if !deadline.IsZero() {
			o.TimeLimit = ShareOf(deadline, w, left, workers, opt.Search.TimeLimit)
		}
		if prep != nil && o.Prepared == nil {
			// On a copy, as improveOne searches one (Matrix caches).
			began := time.Now() // the limit counts the derivation, as a search's own does
			if in := jobs[i].Inst.Clone(); in.Validate() == nil {
				prep[i] = localsearch.Prepare(in)
				o.Prepared = prep[i]
			}
			if o.TimeLimit > 0 {
				o.TimeLimit = max(o.TimeLimit-time.Since(began), time.Microsecond)
			}
		}
		var p *proofs
		if opt.Prove && !deadline.IsZero() {
			p = &tries
		}
		pool.with(o, func(o localsearch.Options) { out[i], errs[i] = improveOne(ctx, &jobs[i], o, opt.Urgency, p) })
		if errs[i] != nil {
			errs[i] = &JobError{Job: i, Start: startOf(errs[i]), Err: errs[i]}
		}
	})
}

// needsMore says whether a first pass's result gets a part of the second
// pass: whenever the time cut its search (it did not end by itself). Its
// kicks start from its best tour, so a resume with the next seed loses
// nothing and is a second, independent draw, and a stuck instance's kicks
// to its optimum are heavy-tailed while which instance is stuck does not
// show (Gendreau n40w160.003, 34 kicks from its optimum, did not qualify
// under a rule by the kicks' gains; TSPDL had such a rule until its
// searches restarted on their own: docs/experiments.md, "Two passes of
// the search time" and "TSPDL basins").
func needsMore(r *Result) bool {
	return r.Searched && r.Search.Stop == localsearch.TimeBudget
}

// resume searches the jobs of idx again from their best tours, sharing the
// time left before opt.Deadline by Weight, and keeps a new tour only where
// lazymask.Check finds it better; Stats count both passes' work.
func resume(ctx context.Context, jobs []Job, idx []int, opt Options, workers int, out []Result, errs []error, prep []*localsearch.Prepared, pool *redecoders) {
	var pending pendingWeight
	for _, i := range idx {
		pending.v.Add(int64(Weight(jobs[i].Inst)))
	}
	ForEach(len(idx), workers, func(k int) {
		i := idx[k]
		w := Weight(jobs[i].Inst)
		left := pending.take(w)
		o := opt.Search
		o.TimeLimit = ShareOf(opt.Deadline, w, left, workers, opt.Search.TimeLimit)
		if o.TimeLimit <= time.Millisecond || ctx.Err() != nil {
			return
		}
		if o.Prepared == nil {
			o.Prepared = prep[i]
		}
		first := &out[i]
		o.Resume = first.Search.Resume
		first.Resumed = o.TimeLimit
		job := Job{Inst: jobs[i].Inst, Starts: [][]int{first.Search.Tour}, Seed: jobs[i].Seed + 1, Fixed: jobs[i].Fixed}
		var r Result
		var err error
		pool.with(o, func(o localsearch.Options) { r, err = improveOne(ctx, &job, o, false, nil) })
		if err != nil {
			errs[i] = &JobError{Job: i, Start: -1, Err: err}
			return
		}
		if lazymask.Compare(r.Final, first.Final) >= 0 {
			first.other = &r.Search // no gain: the first pass's tour stays
			return
		}
		prev := first.Search
		first.other = &prev
		first.Search = r.Search
		first.Search.Starts, first.Search.StartIndex = prev.Starts, prev.StartIndex
		first.Search.StartCost, first.Search.StartViolation, first.Search.StartFeasible = prev.StartCost, prev.StartViolation, prev.StartFeasible
		first.Search.Repaired = prev.Repaired || r.Search.Repaired
		first.Final = r.Final
		first.Changed = true
		first.Improved = r.Final.Feasible && lazymask.Compare(r.Final, first.Given) < 0
	})
}

// growTime is the time GrowTour may take of a search's limit: half of it,
// or without one 0 (its kick budget: reproducible).
func growTime(limit time.Duration) time.Duration {
	return max(limit, 0) / 2
}

// insertionTries is how many insertion orders improveOne tries for an
// instance without a feasible start (localsearch.InsertionTour).
const insertionTries = 20

// badStart marks a malformed start (its index in Job.Starts).
type badStart struct {
	start int
	err   error
}

func (e *badStart) Error() string { return e.err.Error() }
func (e *badStart) Unwrap() error { return e.err }

func startOf(err error) int {
	var bs *badStart
	if errors.As(err, &bs) {
		return bs.start
	}
	return -1
}

// improveOne searches one job with options o (seed and time limit set),
// trying proofs of TSPTW tours where tries is not nil.
func improveOne(ctx context.Context, job *Job, o localsearch.Options, urgency bool, tries *proofs) (Result, error) {
	res := Result{Start: -1}
	in := job.Inst.Clone()
	if tries != nil && in.Problem == lazymask.TSPTW && o.Prove == nil {
		o.Prove = tries.prover(in)
	}
	var starts [][]int
	var from []int
	var verdicts []lazymask.Verdict
	for k, t := range job.Starts {
		if t == nil {
			continue
		}
		chk, err := lazymask.Check(in, t)
		var te *lazymask.TourError
		if errors.As(err, &te) {
			return res, &badStart{k, err}
		}
		v := chk.Verdict()
		if lazymask.Compare(v, res.Given) < 0 {
			res.Given = v
		}
		starts, from, verdicts = append(starts, t), append(from, k), append(verdicts, v)
	}
	if urgency && !res.Given.Feasible && job.Fixed <= 1 && ctx.Err() == nil {
		if o.MaxStarts > 0 {
			// The urgency order comes on top of the best MaxStarts given.
			starts, from = bestDistinct(starts, from, verdicts, o.MaxStarts)
			o.MaxStarts++
		}
		starts, from = append(starts, localsearch.OrderTour(in)), append(from, -1)
		// A tour built by insertion, where one fits, starts the search
		// feasible: the repair of the urgency order is O(N³) per scan.
		// ImproveFrom then drops the infeasible starts (keeping them to be
		// repaired after it did worse: docs/experiments.md). Where none
		// fits, the least late one is the start to repair first.
		t, ok := localsearch.InsertionTour(in, insertionTries, job.Seed)
		if !ok && t != nil {
			// Where no insertion fits every customer, growing a tour
			// (insertions into searched partial tours) often does, in
			// part of the search's time.
			began := time.Now()
			if g, ok := localsearch.GrowTourContext(ctx, in, growTime(o.TimeLimit), job.Seed); ok {
				t = g
			}
			if o.TimeLimit > 0 {
				o.TimeLimit = max(o.TimeLimit-time.Since(began), time.Millisecond)
			}
		}
		if t != nil {
			starts, from = append(starts, t), append(from, -1)
			if o.MaxStarts > 0 {
				o.MaxStarts++
			}
		}
	}
	if len(starts) == 0 {
		return res, nil
	}
	o.Seed = job.Seed
	if job.Fixed > 1 {
		o.Fixed = job.Fixed
	}
	r, err := localsearch.ImproveFromContext(ctx, in, starts, o)
	if err != nil {
		return res, err
	}
	res.Search, res.Searched = r, true
	res.Start = from[r.StartIndex]
	res.Changed = !slices.Equal(r.Tour, starts[r.StartIndex])
	chk, err := lazymask.Check(in, r.Tour)
	var te *lazymask.TourError
	if errors.As(err, &te) {
		return res, fmt.Errorf("%w: %w", localsearch.ErrVerify, err)
	}
	res.Final = chk.Verdict()
	res.Improved = res.Final.Feasible && lazymask.Compare(res.Final, res.Given) < 0
	return res, nil
}

// bestDistinct returns the best k distinct tours of starts (from: their
// indices; verdicts: their replays), in the order of lazymask.Compare, ties
// in the given order.
func bestDistinct(starts [][]int, from []int, verdicts []lazymask.Verdict, k int) ([][]int, []int) {
	var order []int
	for i, t := range starts {
		if !slices.ContainsFunc(order, func(j int) bool { return slices.Equal(starts[j], t) }) {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return lazymask.Compare(verdicts[a], verdicts[b]) })
	var outS [][]int
	var outF []int
	for _, i := range order[:min(k, len(order))] {
		outS, outF = append(outS, starts[i]), append(outF, from[i])
	}
	return outS, outF
}
