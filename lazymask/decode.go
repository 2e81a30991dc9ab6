package lazymask

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// Config controls a batched decode.
type Config struct {
	// Lookahead initialises each depth's candidate set (zero value: TSL).
	Lookahead Lookahead
	// Budget is the backtrack budget R: Unlimited, or a count ≥ 0 (0 means
	// no backtracking).
	Budget int
	// Semantics decides what a spent budget does (zero value: Test).
	Semantics Semantics
	// Greedy picks the highest-scoring candidate (ties go to the lowest
	// node index); otherwise the node is sampled from the softmax of the
	// scores over the candidates.
	Greedy bool
	// Seed seeds sampling. Trajectory i draws from its own stream derived
	// from (Seed, i), so results do not depend on batching.
	Seed uint64
	// Streams, when set, holds one stream seed per trajectory (trajectory
	// index = inst·perInst + k) and replaces Seed: a caller that decodes
	// the same instance in different batches keys its streams to the
	// instance, not to the position in the batch.
	Streams []uint64
	// Record keeps, for every step of the final tour, what a
	// teacher-forced replay needs (Trajectory.Steps).
	Record bool
	// Prefixes, when set, holds one prefix per trajectory (depot first;
	// nil keeps the depot alone): the trajectory first steps through it
	// without consulting the policy, as far as each node is in the
	// look-ahead's candidate set, and decoding goes on from there.
	// Backtracking may pop into the prefix like into any decoded part. A
	// prefix of a feasible tour always fits the look-ahead where travel
	// times keep the triangle inequality; the forced steps appear in
	// Trajectory.Steps like the others.
	Prefixes [][]int
}

// StepRecord is one kept decision of a trajectory: the state the policy saw
// when it chose the node that survived in the final tour. Steps of abandoned
// branches are dropped.
type StepRecord struct {
	Current int     // node the step started from
	State   float64 // time (TSPTW) or load (TSPDL) at Current
	Refine  int     // refinement count of that depth
	Budget  bool    // backtrack budget reached at that moment
	Mask    []bool  // candidate set (length N) the choice was made from
	Chosen  int     // node chosen
}

// Trajectory is the result of one decoded trajectory.
type Trajectory struct {
	// Inst is the index of the instance in the decode's instance list.
	Inst int
	// Tour is the complete tour (N nodes, depot first), or nil if Failed.
	Tour []int
	// Partial holds the kept prefix (depot first) of a Failed trajectory.
	Partial []int
	// Failed is true when no complete tour was produced.
	Failed bool
	// Feasible, Cost, Violation and ViolatedNodes come from Check on Tour.
	// Cost is +Inf for a failed trajectory.
	Feasible      bool
	Cost          float64
	Violation     float64
	ViolatedNodes int
	// Backtracks is the number of pops the trajectory used.
	Backtracks int
	// Steps is set when Config.Record is on: Steps[k] chose Tour[k+1]
	// (or Partial[k+1]).
	Steps []StepRecord
}

// Decoder runs batched LazyMask decodes and keeps its buffers between calls.
// A Decoder is not safe for concurrent use.
type Decoder struct {
	// Workers is how many goroutines advance the trajectories after each
	// policy call (the choice and the next candidate set of every row);
	// ≤ 1 uses the calling goroutine only. The trajectories do not depend
	// on it: each row touches its own state and random stream.
	Workers int
	states  []*State
	rng     []uint64
	batch   StepBatch
	scores  []float32
	wbufs   [][]float64
	errs    []error
	split   []*Decoder // DecodeSplit's per-group decoders
}

// minRowsPerWorker keeps small batches on one goroutine, where starting
// more would cost more than the work they share.
const minRowsPerWorker = 16

// NewDecoder returns an empty Decoder; buffers grow on first use.
func NewDecoder() *Decoder { return &Decoder{} }

// Decode is NewDecoder().Decode(p, insts, perInst, cfg).
func Decode(p Policy, insts []*Instance, perInst int, cfg Config) ([]Trajectory, error) {
	return NewDecoder().Decode(p, insts, perInst, cfg)
}

// Decode builds perInst trajectories for each instance (trajectory index =
// inst·perInst + k) with the LazyMask method. It calls p.Begin(insts) once,
// then, every iteration, lets each running trajectory backtrack as far as
// its empty candidate sets demand, gathers the trajectories that advance
// into one StepBatch, calls p.Scores once for them, and picks a node per
// row (greedy or sampled). The StepBatch and score slices handed to the
// policy are reused across iterations: a policy must not keep them.
//
// All instances must share N and pass Validate. Decode computes and caches
// each instance's travel-time matrix (Instance.Matrix); call Matrix first
// when instances are shared by decodes running in parallel goroutines.
// Feasibility, cost and violations of each complete tour come from Check.
func (dc *Decoder) Decode(p Policy, insts []*Instance, perInst int, cfg Config) ([]Trajectory, error) {
	if len(insts) == 0 {
		return nil, errors.New("decode: no instances")
	}
	if perInst < 1 {
		return nil, fmt.Errorf("decode: %d trajectories per instance, want ≥ 1", perInst)
	}
	if err := checkInstances(insts); err != nil {
		return nil, err
	}
	n := insts[0].N
	total := len(insts) * perInst
	if cfg.Streams != nil && len(cfg.Streams) != total {
		return nil, fmt.Errorf("decode: %d stream seeds for %d trajectories", len(cfg.Streams), total)
	}
	if cfg.Prefixes != nil && len(cfg.Prefixes) != total {
		return nil, fmt.Errorf("decode: %d prefixes for %d trajectories", len(cfg.Prefixes), total)
	}
	dc.grow(total, n)
	for t := 0; t < total; t++ {
		if err := dc.states[t].Reset(insts[t/perInst], cfg.Lookahead, cfg.Budget, cfg.Semantics); err != nil {
			return nil, fmt.Errorf("decode: %w", err)
		}
		if cfg.Prefixes != nil {
			if err := dc.states[t].Follow(cfg.Prefixes[t]); err != nil {
				return nil, fmt.Errorf("decode: trajectory %d: %w", t, err)
			}
		}
		if cfg.Streams != nil {
			dc.rng[t] = cfg.Streams[t]
		} else {
			dc.rng[t] = streamSeed(cfg.Seed, uint64(t))
		}
	}
	if err := p.Begin(insts); err != nil {
		return nil, fmt.Errorf("decode: policy begin: %w", err)
	}
	b := &dc.batch
	b.N = n
	for {
		dc.gather(total, perInst)
		rows := b.Rows()
		if rows == 0 {
			break
		}
		sc := dc.scores[:rows*n]
		if err := p.Scores(b, sc); err != nil {
			return nil, fmt.Errorf("decode: policy scores (%d rows): %w", rows, err)
		}
		if err := dc.advance(rows, n, sc, cfg.Greedy); err != nil {
			return nil, err
		}
	}
	out := make([]Trajectory, total)
	for t := range out {
		if err := dc.result(&out[t], t, perInst, cfg.Record); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkInstances returns an error naming the first instance that is nil,
// invalid or of another N than the first.
func checkInstances(insts []*Instance) error {
	for i, in := range insts {
		if in == nil {
			return fmt.Errorf("decode: instance %d is nil", i)
		}
		if n := insts[0].N; in.N != n {
			return fmt.Errorf("decode: instance %d (%q) has %d nodes, instance 0 has %d", i, in.Name, in.N, n)
		}
		if err := in.Validate(); err != nil {
			return fmt.Errorf("decode: instance %d (%q): %w", i, in.Name, err)
		}
	}
	return nil
}

// advance picks a node for each of the batch's rows from its scores and
// steps its trajectory there, on up to dc.Workers goroutines, each taking
// a contiguous range of rows. The first error by row order is returned.
func (dc *Decoder) advance(rows, n int, sc []float32, greedy bool) error {
	workers := min(dc.Workers, rows/minRowsPerWorker, len(dc.wbufs))
	if workers <= 1 {
		return dc.advanceRows(0, 0, rows, n, sc, greedy) // no closure: a reused decode does not allocate here
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dc.errs[w] = dc.advanceRows(w, rows*w/workers, rows*(w+1)/workers, n, sc, greedy)
		}()
	}
	dc.errs[0] = dc.advanceRows(0, 0, rows/workers, n, sc, greedy) // the calling goroutine takes the first range
	wg.Wait()
	for _, err := range dc.errs[:workers] {
		if err != nil {
			return err
		}
	}
	return nil
}

// advanceRows advances rows [lo, hi) with worker w's sampling buffer.
func (dc *Decoder) advanceRows(w, lo, hi, n int, sc []float32, greedy bool) error {
	b := &dc.batch
	for r := lo; r < hi; r++ {
		t := b.Traj[r]
		mask := b.Mask[r*n : (r+1)*n]
		row := sc[r*n : (r+1)*n]
		var node int
		if greedy {
			node = pickGreedy(row, mask)
		} else {
			node = pickSample(row, mask, &dc.rng[t], dc.wbufs[w])
		}
		if err := dc.states[t].Step(node); err != nil {
			return fmt.Errorf("decode: trajectory %d: %w", t, err)
		}
	}
	return nil
}

// grow sizes the per-trajectory states and the batch buffers.
func (dc *Decoder) grow(total, n int) {
	for len(dc.states) < total {
		dc.states = append(dc.states, NewState(n))
	}
	if cap(dc.rng) < total {
		dc.rng = make([]uint64, total)
	}
	dc.rng = dc.rng[:total]
	b := &dc.batch
	if cap(b.Traj) < total {
		b.Traj = make([]int, 0, total)
		b.Inst = make([]int, 0, total)
		b.Current = make([]int, 0, total)
		b.State = make([]float64, 0, total)
		b.Refine = make([]int, 0, total)
		b.Budget = make([]bool, 0, total)
		b.NumSteps = make([]int, 0, total)
	}
	if cap(b.Mask) < total*n {
		b.Mask = make([]bool, 0, total*n)
	}
	if cap(dc.scores) < total*n {
		dc.scores = make([]float32, total*n)
	}
	for len(dc.wbufs) < max(1, dc.Workers) {
		dc.wbufs = append(dc.wbufs, nil)
		dc.errs = append(dc.errs, nil)
	}
	for i, w := range dc.wbufs {
		if cap(w) < n {
			w = make([]float64, n)
		}
		dc.wbufs[i] = w[:n]
	}
}

// gather advances every running trajectory past its backtracks and fills
// the batch with the ones that need a decision.
func (dc *Decoder) gather(total, perInst int) {
	b := &dc.batch
	b.Traj, b.Inst, b.Current, b.State = b.Traj[:0], b.Inst[:0], b.Current[:0], b.State[:0]
	b.Refine, b.Budget, b.NumSteps, b.Mask = b.Refine[:0], b.Budget[:0], b.NumSteps[:0], b.Mask[:0]
	for t, s := range dc.states[:total] {
		mv := s.Next()
		for mv == Backtracked {
			mv = s.Next()
		}
		if mv != Forward {
			continue
		}
		b.Traj = append(b.Traj, t)
		b.Inst = append(b.Inst, t/perInst)
		b.Current = append(b.Current, s.Current())
		b.State = append(b.State, s.Value())
		b.Refine = append(b.Refine, s.Refine())
		b.Budget = append(b.Budget, s.reached)
		b.NumSteps = append(b.NumSteps, s.depth)
		b.Mask = append(b.Mask, s.Mask()...)
	}
}

// result fills out from trajectory t's final state.
func (dc *Decoder) result(out *Trajectory, t, perInst int, record bool) error {
	s := dc.states[t]
	n := s.n
	out.Inst = t / perInst
	out.Backtracks = s.backtracks
	prefix := append([]int(nil), s.Prefix()...)
	if s.status == Complete {
		out.Tour = prefix
		res, err := Check(s.inst, prefix)
		var ie *InfeasibleError
		if err != nil && !errors.As(err, &ie) {
			return fmt.Errorf("decode: trajectory %d produced a malformed tour: %w", t, err)
		}
		out.Feasible, out.Cost = res.Feasible, res.Cost
		out.Violation, out.ViolatedNodes = res.TotalViolation, res.ViolatedNodes
	} else {
		out.Failed = true
		out.Partial = prefix
		out.Cost = math.Inf(1)
	}
	if record {
		k := len(prefix) - 1
		masks := make([]bool, k*n)
		copy(masks, s.masks[:k*n])
		out.Steps = make([]StepRecord, k)
		for d := 0; d < k; d++ {
			out.Steps[d] = StepRecord{
				Current: s.nodes[d], State: s.values[d], Refine: s.refine[d],
				Budget: s.budgetAt[d], Mask: masks[d*n : (d+1)*n : (d+1)*n], Chosen: s.nodes[d+1],
			}
		}
	}
	return nil
}

// MaskRow returns row r's candidate mask (length N; a view into b.Mask).
func (b *StepBatch) MaskRow(r int) []bool { return b.Mask[r*b.N : (r+1)*b.N] }

// RIERow writes row r's refinement-intensity one-hots (RIEDim values: the
// refinement count class 0,1,2,3,≥4, then budget reached no/yes) into dst.
func (b *StepBatch) RIERow(r int, dst []float32) { RIE(dst, b.Refine[r], b.Budget[r]) }
