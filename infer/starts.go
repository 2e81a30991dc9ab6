package infer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/internal/cputime"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
)

// The sources of the search's starting tours (Options.Starts).
const (
	// StartsNetwork decodes the starts with the model (the default).
	StartsNetwork = "network"
	// StartsRandomL samples them with the Random-L heuristic under the
	// LazyMask method (look-ahead masks, budgeted backtracking): no model.
	StartsRandomL = "random-l"
	// StartsUrgency starts from the customers sorted by window end or
	// draft limit alone (localsearch.OrderTour): no model, no decode.
	StartsUrgency = "urgency"
)

// KeyStarts is the solutions metadata key of the settings of starts built
// without a network.
const KeyStarts = "lmask.starts"

// StartSources lists the values of Options.Starts, the default first.
var StartSources = []string{StartsNetwork, StartsRandomL, StartsUrgency}

// HeuristicSamples is the number of Random-L tours per instance where
// Options.Decode.Samples is 0: as many as greedy ×8 decodes.
const HeuristicSamples = lazymask.NumAugment

// ParseStarts checks a start source name ("" is StartsNetwork).
func ParseStarts(s string) (string, error) {
	if s == "" {
		return StartsNetwork, nil
	}
	for _, v := range StartSources {
		if s == v {
			return s, nil
		}
	}
	return "", fmt.Errorf("unknown start source %q (want %s)", s, strings.Join(StartSources, ", "))
}

// searchChunk is how many instances per worker a search under a CPU budget
// takes between two readings of the process's CPU time.
const searchChunk = 16

// cpuBudget spreads a run's CPU time (user + sys, from the start of Run)
// over its instances' searches by their weight (solve.Weight). The search
// is bounded by wall-clock deadlines, so each chunk of instances gets its
// part of the CPU time left converted to wall time at the CPU share the
// searches of the run have had so far (all workers busy at first): where
// the machine is shared, a chunk that got less CPU than its wall time
// allowed leaves more to the next ones, and the run ends close to its
// budget whatever the load.
type cpuBudget struct {
	total, began time.Duration
	workers      int
	// searchCPU and searchWall sum the chunks' CPU and wall times.
	searchCPU, searchWall time.Duration
}

func (b *cpuBudget) used() time.Duration { return cputime.Process() - b.began }

// share is the CPU time per wall second the searches have had so far
// (workers until measured), at least a quarter of a core.
func (b *cpuBudget) share() float64 {
	if b.searchWall < 50*time.Millisecond || b.searchCPU <= 0 {
		return float64(b.workers)
	}
	return min(float64(b.workers), max(0.25, b.searchCPU.Seconds()/b.searchWall.Seconds()))
}

// part is the CPU time of the search of a chunk of weight w, with pending
// the weight of the instances not yet searched (the chunk's included) and
// reserve the CPU time kept back for the starts not yet built.
func (b *cpuBudget) part(w, pending float64, reserve time.Duration) time.Duration {
	left := b.total - b.used() - reserve
	if left <= 0 || pending <= 0 {
		return 0
	}
	return time.Duration(float64(left) * min(1, w/pending))
}

// wall converts a CPU time into the wall time the searches take to use it
// at their CPU share so far.
func (b *cpuBudget) wall(cpu time.Duration) time.Duration {
	return max(time.Duration(float64(cpu)/b.share()), time.Microsecond)
}

// runWithoutNetwork is Run for Starts random-l or urgency: the same
// search (opt.Search, the urgency start where none is feasible, the
// escalation's feasibility search) from heuristic starts, with no model.
// Its time: a CPU budget (CPUBudget, or CPUPerInstance per instance) spread
// by cpuBudget, or the search's own bounds (kicks, time limit) without one;
// a time share (ImproveShare) has no decode to take its share of.
func runWithoutNetwork(ctx context.Context, opt Options, start time.Time, cpu0 time.Duration) (Summary, error) {
	var ioTime, lsTime, startTime, rescueTime time.Duration
	newPolicy, err := Heuristic(opt.Starts)
	if err != nil {
		return Summary{}, err
	}
	if opt.CPUBudget < 0 || opt.CPUPerInstance < 0 {
		return Summary{}, fmt.Errorf("CPU budget %v, per instance %v: want ≥ 0", opt.CPUBudget, opt.CPUPerInstance)
	}
	budgeted := opt.CPUBudget > 0 || opt.CPUPerInstance > 0
	if opt.Improve && opt.ImproveShare > 0 && !budgeted {
		return Summary{}, fmt.Errorf("starts %s: a search time share (%v) needs a decode to take its share of; give a CPU budget (total or per instance) instead", opt.Starts, opt.ImproveShare)
	}
	t0 := time.Now()
	rd, err := datasets.OpenInstances(opt.Data)
	if err != nil {
		return Summary{}, err
	}
	defer rd.Close()
	meta := rd.Metadata()
	dec := opt.Decode
	dec.Semantics = lazymask.Test
	if opt.PaperBudget {
		var known bool
		dec.Budget, known = dataBudget(meta, meta.Problem)
		if !known {
			dec.BudgetPerNode = opt.BudgetPerNode
		}
	}
	samples := dec.Samples
	if samples <= 0 {
		samples = HeuristicSamples
	}
	if newPolicy == nil {
		samples = 1
	}
	rr, err := opt.rowRange(rd, meta)
	if err != nil {
		return Summary{}, err
	}
	tl, lo, hi := rr.tl, rr.lo, rr.hi
	out := datasets.Metadata{
		Kind: datasets.KindSolutions, Problem: meta.Problem, Size: meta.Size, Hardness: meta.Hardness, Scale: meta.Scale,
		Source: opt.Starts, Instances: opt.Data,
		Extra: map[string]string{KeyStarts: fmt.Sprintf("starts=%s samples=%d budget=%d budget_per_node=%d lookahead=%s seed=%d cpu_budget=%v cpu_per_instance=%v",
			opt.Starts, samples, dec.Budget, dec.BudgetPerNode, dec.Lookahead, dec.Seed, opt.CPUBudget, opt.CPUPerInstance)},
	}
	w, err := rr.create(opt, rd, out)
	if err != nil {
		return Summary{}, err
	}
	committed := false
	defer func() {
		if !committed {
			w.Abort()
		}
	}()
	ioTime += time.Since(t0)

	workers := solve.Workers(opt.Engine.Workers)
	var bud *cpuBudget
	if budgeted {
		b := opt.CPUBudget
		if b <= 0 {
			b = time.Duration(float64(opt.CPUPerInstance) * float64(hi-lo))
		}
		bud = &cpuBudget{total: b, began: cpu0, workers: workers}
	}
	sum := Summary{Budget: dec.Budget, BudgetPerNode: dec.BudgetPerNode, HasReference: rr.hasRef, Shard: opt.Shard,
		Rows: [2]int64{lo, hi}, Starts: opt.Starts}
	if opt.Improve {
		sum.Search = &solve.Stats{}
	}
	var startCPU time.Duration // CPU time of the starts built so far
	for pos := lo; pos < hi; {
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		t0 := time.Now()
		b, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Summary{}, err
		}
		ioTime += time.Since(t0)
		first := max(pos, b.Offset)
		insts := b.Instances[first-b.Offset : min(hi, b.Offset+int64(len(b.Instances)))-b.Offset]
		if len(insts) == 0 {
			continue
		}
		for i, in := range insts {
			if in.Problem != insts[0].Problem {
				return Summary{}, fmt.Errorf("%s row %d: %s instance among %s ones", opt.Data, first+int64(i), in.Problem, insts[0].Problem)
			}
		}
		bs, c0 := time.Now(), cputime.Process()
		sols, err := heuristicStarts(ctx, insts, first, newPolicy, samples, dec, workers)
		if err != nil {
			return Summary{}, fmt.Errorf("%s: %w", opt.Data, err)
		}
		decode := time.Since(bs)
		startTime += decode
		startCPU += cputime.Process() - c0
		var improved []solve.Result
		if opt.Improve {
			ls := time.Now()
			so := opt.improveOptions(workers)
			jobs := engine.ImproveJobs(insts, sols, dec.Seed)
			var st solve.Stats
			if bud == nil {
				improved, st, err = solve.Improve(ctx, jobs, so)
			} else {
				next := first + int64(len(insts))
				reserve := time.Duration(float64(startCPU) / float64(next-lo) * float64(hi-next))
				improved, st, err = bud.search(ctx, jobs, so, reserve, float64(hi-next))
			}
			if err != nil {
				return Summary{}, fmt.Errorf("improve: %w", err)
			}
			sum.Search.Add(st)
			lsTime += time.Since(ls)
		}
		rs := time.Now()
		rescues, err := opt.rescueWithoutNetwork(ctx, insts, sols, improved, &sum.FoundBy, dec.Seed, first)
		if err != nil {
			return Summary{}, err
		}
		rescueTime += time.Since(rs)
		settled, took, err := opt.settleAll(ctx, insts, sols, improved, rescues, workers)
		if err != nil {
			return Summary{}, err
		}
		rescueTime += took
		t0 = time.Now()
		if err := opt.writeGroup(w, tl, insts, first, sols, improved, rescues, settled, decode, opt.Starts); err != nil {
			return Summary{}, err
		}
		ioTime += time.Since(t0)
		pos = first + int64(len(insts))
		if opt.Progress != nil {
			opt.Progress(pos-lo, hi-lo)
		}
	}
	t0 = time.Now()
	if err := w.Close(); err != nil {
		return Summary{}, err
	}
	committed = true
	ioTime += time.Since(t0)
	sum.Metrics, sum.Seconds = tl.Metrics(), time.Since(start).Seconds()
	sum.Timing = Timing{Starts: startTime.Seconds(), IO: ioTime.Seconds(), LocalSearch: lsTime.Seconds(),
		Rescue: rescueTime.Seconds(), Solve: startTime.Seconds(), Workers: workers}
	if bud != nil {
		sum.CPUBudget = bud.total.Seconds()
	}
	return sum, nil
}

// search runs the search of one row group's jobs under the budget, in
// chunks of searchChunk instances per worker, each bounded by its part of
// the CPU time left (solve.Options.WithShare of that part as wall time at
// the CPU share measured so far); more is the weight, in instances of the
// group's mean weight, of the rows after the group, and reserve the CPU
// time kept for their starts. Where a chunk's search got less CPU than its
// wall time promised (a loaded machine), it goes on from its best tours
// with the next seed for what its part has left, up to maxRounds times.
// The budget is the bound: MinKicks' floor does not apply.
func (b *cpuBudget) search(ctx context.Context, jobs []solve.Job, so solve.Options, reserve time.Duration, more float64) ([]solve.Result, solve.Stats, error) {
	so.Search.MinKicks = 0
	weights := make([]float64, len(jobs))
	pending := 0.0
	for i, j := range jobs {
		weights[i] = solve.Weight(j.Inst)
		pending += weights[i]
	}
	pending += more * pending / float64(len(jobs))
	out := make([]solve.Result, 0, len(jobs))
	var st solve.Stats
	step := searchChunk * b.workers
	for lo := 0; lo < len(jobs); lo += step {
		hi := min(lo+step, len(jobs))
		w := 0.0
		for _, x := range weights[lo:hi] {
			w += x
		}
		part := b.part(w, pending, reserve)
		pending -= w
		var res []solve.Result
		var spent time.Duration
		for round := 0; round < maxRounds; round++ {
			chunk := jobs[lo:hi]
			if round > 0 {
				if left := part - spent; left < part/50 || left < time.Duration(hi-lo)*time.Millisecond {
					break
				}
				chunk = make([]solve.Job, hi-lo)
				for i, j := range jobs[lo:hi] {
					chunk[i] = solve.Job{Inst: j.Inst, Seed: j.Seed + uint64(round)}
					if res[i].Searched {
						chunk[i].Starts = [][]int{res[i].Search.Tour}
					} else {
						chunk[i].Starts = j.Starts
					}
				}
			}
			began, c0 := time.Now(), cputime.Process()
			r, s, err := solve.Improve(ctx, chunk, so.WithShare(1, b.wall(part-spent)))
			if err != nil {
				var je *solve.JobError
				if errors.As(err, &je) {
					je.Job += lo
				}
				return nil, st, err
			}
			used := cputime.Process() - c0
			spent += used
			b.searchCPU += used
			b.searchWall += time.Since(began)
			if round == 0 {
				res = r
				// The chunk's results count once, as they end.
				s.Changed, s.Improved = 0, 0
				st.Add(s)
				continue
			}
			// A further round adds its work, not its jobs.
			s.Searched, s.Starts, s.Repaired, s.Changed, s.Improved = 0, 0, 0, 0, 0
			st.Add(s)
			for i := range res {
				res[i] = goneOn(res[i], r[i])
			}
		}
		for _, r := range res {
			if r.Changed {
				st.Changed++
			}
			if r.Improved {
				st.Improved++
			}
		}
		out = append(out, res...)
	}
	return out, st, nil
}

// maxRounds bounds the searches of one chunk under a CPU budget.
const maxRounds = 4

// goneOn is a job's result after the search went on from its best tour
// (next): next's tour where it is better, judged against the first
// search's given starts.
func goneOn(first, next solve.Result) solve.Result {
	if !next.Searched || lazymask.Compare(next.Final, first.Final) >= 0 {
		first.Search.Elapsed += next.Elapsed()
		return first
	}
	elapsed := first.Elapsed()
	first.Search, first.Final = next.Search, next.Final
	first.Search.Elapsed += elapsed
	first.Changed = true
	first.Improved = first.Final.Feasible && lazymask.Compare(first.Final, first.Given) < 0
	return first
}

// heuristicStarts builds every instance's starts with the heuristic
// (newPolicy; nil: the urgency order), instance index first+i with seed
// dec.Seed + its row index, so the tours depend on neither the workers nor
// the shard, each with its own budget (dec.BudgetFor).
func heuristicStarts(ctx context.Context, insts []*lazymask.Instance, first int64, newPolicy func() lazymask.Policy, samples int, dec engine.SolveOptions, workers int) ([]engine.Solution, error) {
	sols := make([]engine.Solution, len(insts))
	errs := make([]error, len(insts))
	solve.ForEach(len(insts), workers, func(i int) {
		cfg := lazymask.Config{Lookahead: dec.Lookahead, Budget: dec.BudgetFor(insts[i].N), Semantics: lazymask.Test,
			Seed: dec.Seed + uint64(first) + uint64(i)}
		d, err := solve.Heuristic(ctx, insts[i:i+1], newPolicy, samples, cfg, 1)
		if err != nil {
			errs[i] = fmt.Errorf("row %d: %w", first+int64(i), err)
			return
		}
		sols[i] = heuristicSolution(d[0])
	})
	return sols, errors.Join(errs...)
}

// heuristicSolution is a heuristic decode as the network's Solution: its
// tours in the order of lazymask.Compare, the first the best.
func heuristicSolution(d solve.Decoded) engine.Solution {
	s := engine.Solution{Tours: make([]engine.Tour, len(d.Tours)), Decoded: len(d.Tours)}
	for k, t := range d.Tours {
		et := engine.Tour{Sample: t.Sample, Backtracks: t.Backtracks, Failed: t.Nodes == nil, Cost: math.Inf(1)}
		if t.Nodes != nil {
			c := t.Check
			v := c.Verdict()
			et.Nodes, et.Cost, et.Feasible, et.Violation, et.ViolatedNodes, et.Excess = t.Nodes, c.Cost, c.Feasible, c.TotalViolation, c.ViolatedNodes, v.Excess
			if c.Feasible {
				s.Feasible++
			}
		}
		s.Tours[k] = et
	}
	if len(s.Tours) > 0 {
		s.Best = s.Tours[0]
	} else {
		s.Best = engine.Tour{Failed: true, Cost: math.Inf(1)}
	}
	return s
}

// rescueWithoutNetwork is rescueAll with no model to decode again: an
// instance that neither its starts nor the search left with a feasible
// tour gets the feasibility search (localsearch.FindFeasible) from its
// tours within RescueTime, and then the search from its tour (without a
// time share) with Improve.
func (opt Options) rescueWithoutNetwork(ctx context.Context, insts []*lazymask.Instance, sols []engine.Solution, improved []solve.Result, fb *FoundBy, seed uint64, first int64) ([]*rescued, error) {
	out := make([]*rescued, len(insts))
	for i, in := range insts {
		if !opt.needsRescue(in, &sols[i], improved, i, fb) {
			continue
		}
		began := time.Now()
		var starts [][]int
		for _, t := range sols[i].Tours {
			if t.Nodes != nil {
				starts = append(starts, t.Nodes)
			}
		}
		if improved != nil && improved[i].Searched {
			starts = append(starts, improved[i].Search.Tour)
		}
		fr, err := localsearch.FindFeasibleContext(ctx, in, starts, localsearch.FeasibleOptions{TimeLimit: opt.RescueTime, Seed: seed + uint64(first) + uint64(i)})
		if errors.Is(err, localsearch.ErrNoFeasibleTour) {
			fb.add(engine.StepNone)
			fb.NoTour++
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s row %d: %w", opt.Data, first+int64(i), err)
		}
		if !fr.Feasible {
			fb.add(engine.StepNone)
			continue
		}
		fb.add(engine.StepSearch)
		c := fr.Check
		rs := &rescued{source: opt.Starts + "+search"}
		rs.Step, rs.Tour = engine.StepSearch, engine.Tour{Nodes: fr.Tour, Cost: c.Cost, Feasible: true, Violation: c.TotalViolation, ViolatedNodes: c.ViolatedNodes}
		rs.Elapsed = time.Since(began)
		if opt.Improve {
			res, _, err := solve.Improve(ctx, []solve.Job{{Inst: in, Starts: [][]int{fr.Tour}, Seed: seed}}, opt.improveOptions(1))
			if err != nil {
				return nil, fmt.Errorf("%s row %d: improve: %w", opt.Data, first+int64(i), err)
			}
			if res[0].Improved {
				rs.Tour = searchedTour(rs.Tour, &res[0])
				rs.source += "+ls"
				rs.search = res[0].Elapsed()
			}
		}
		out[i] = rs
	}
	return out, nil
}
