package infer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
)

// Sources written into solution rows: decoded tours, the local search's
// improvement of them, and the tours the escalation found by decoding the
// instance again alone or by the feasibility search ("+ls" when the local
// search then shortened them).
const (
	Source         = "lmask"
	SourceImproved = "lmask+ls"
	SourceRetry    = "lmask+retry"
	SourceSearch   = "lmask+search"
)

// DefaultBudget is the backtrack budget R where the paper fixes none for
// the data (a TSPTW file of no known hardness, such as a benchmark).
const DefaultBudget = 200

// Options configure Run.
type Options struct {
	// Model is the model directory; Data the instances file; Out the
	// solutions file, written atomically.
	Model, Data, Out string
	// Reference, when set, is a reference solutions file for the gap.
	Reference string
	// Engine are the onnxruntime settings (device, threads, workers).
	Engine engine.Options
	// Decode are the decoding settings (augmentations, samples, budget,
	// look-ahead, seed, batch); Run decodes with test semantics and keeps
	// every tour (the metrics count each, the search starts from them).
	Decode engine.SolveOptions
	// PaperBudget replaces Decode.Budget by the paper's R for the data
	// (DataBudget).
	PaperBudget bool
	// BudgetPerNode, with PaperBudget, applies where the paper fixes no R
	// for the data (a benchmark file): an N-node instance then decodes
	// with max(DefaultBudget, BudgetPerNode·N) (engine's BudgetPerNode).
	BudgetPerNode int
	// Limit solves only the first Limit rows (0 = all); the shards split
	// those.
	Limit int64
	// Shard is the slice of the rows to solve (zero value: all).
	Shard Shard
	// AllTours writes every decoded tour instead of the best per instance.
	AllTours bool
	// Improve runs the local search from each instance's decoded tours
	// (Search: time limit, kicks, starts, merging; its seed is Decode.Seed)
	// and writes an improvement as an extra row. ImproveShare > 0 bounds
	// each row group's search by that share of its decode time, the
	// backtracking left out (forwardTime; solve.Options.WithShare).
	Improve      bool
	Search       localsearch.Options
	ImproveShare float64
	// SetupShare > 0, with ImproveShare, adds that share of the run's
	// setup (opening the model and the data, up to the first decode) to
	// the search time, spread over the row groups by their instances
	// (setupPart): greedy ×8 pays the same setup, so a small file, whose
	// wall time is mostly setup, is searched about as long as that took.
	SetupShare float64
	// RescueTime caps the escalation of each instance left without a
	// feasible tour (engine.Solver.Rescue; 0: leave it); RescueBudget caps
	// its retried budgets (raised to 16 times an instance's own budget
	// where that is larger).
	RescueTime   time.Duration
	RescueBudget int
	// Log receives notes and warnings (nil: discarded).
	Log io.Writer
	// Progress, if set, is called serially with the instances finished of
	// the total this run solves.
	Progress func(done, total int64)
}

// Run solves opt.Data into opt.Out and returns the metrics of the rows it
// solved. Nothing is written on error or cancellation (ctx's error).
func Run(ctx context.Context, opt Options) (Summary, error) {
	start := time.Now()
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	var ioTime, lsTime, rescueTime time.Duration
	eng, err := engine.Open(opt.Model, opt.Engine)
	if err != nil {
		return Summary{}, err
	}
	defer eng.Close()
	mcfg := eng.Config()

	t0 := time.Now()
	rd, err := datasets.OpenInstances(opt.Data)
	if err != nil {
		return Summary{}, err
	}
	defer rd.Close()
	meta := rd.Metadata()
	if meta.Problem != "" && meta.Problem != mcfg.Problem {
		return Summary{}, fmt.Errorf("dataset %s holds %s instances, the model in %s was trained for %s", opt.Data, meta.Problem, opt.Model, mcfg.Problem)
	}
	if opt.PaperBudget {
		var known bool
		opt.Decode.Budget, known = dataBudget(meta, mcfg.Problem)
		if !known {
			opt.Decode.BudgetPerNode = opt.BudgetPerNode
		}
	}
	refs, note, err := datasets.ReadReference(opt.Reference, opt.Data, meta)
	if err != nil {
		return Summary{}, fmt.Errorf("--reference: %w", err)
	}
	if note != "" {
		fmt.Fprintln(opt.Log, note)
	}
	total := rd.NumRows()
	if opt.Limit > 0 && opt.Limit < total {
		total = opt.Limit
	}
	lo, hi := opt.Shard.Range(total, rd.RowGroupSizes())
	tl, err := datasets.NewTallyRange(rd.NumRows(), lo, hi, refs)
	if err != nil {
		return Summary{}, datasets.WithPath(err, "reference", opt.Reference)
	}
	out := datasets.Metadata{
		Kind: datasets.KindSolutions, Problem: mcfg.Problem, Size: meta.Size, Hardness: meta.Hardness, Scale: meta.Scale,
		Source: Source, Instances: opt.Data,
	}
	if !opt.Shard.Whole() {
		out.Extra = map[string]string{KeyShard: opt.Shard.String(), KeyShardRows: fmt.Sprintf("%d:%d", lo, hi), KeyShardTotal: fmt.Sprint(total)}
	}
	w, err := datasets.CreateSolutions(opt.Out, out, datasets.WriterOptions{})
	if err != nil {
		return Summary{}, err
	}
	committed := false
	defer func() {
		if !committed {
			w.Abort()
		}
	}()
	if err := rd.SeekRow(lo); err != nil {
		return Summary{}, err
	}
	ioTime += time.Since(t0)

	dec := opt.Decode
	dec.Semantics, dec.AllTours = lazymask.Test, true
	solver, err := eng.NewSolver(dec)
	if err != nil {
		return Summary{}, err
	}
	defer solver.Close()
	sum := Summary{Budget: dec.Budget, BudgetPerNode: dec.BudgetPerNode, HasReference: refs != nil, Shard: opt.Shard, Rows: [2]int64{lo, hi}}
	if opt.Improve {
		sum.Search = &solve.Stats{}
	}
	warned := false
	setup := time.Duration(-1) // the time before the first decode
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
			if in.Problem.String() != mcfg.Problem {
				return Summary{}, fmt.Errorf("%s row %d: %s instance, the model in %s was trained for %s", opt.Data, first+int64(i), in.Problem, opt.Model, mcfg.Problem)
			}
			if !warned && farFromTrainSize(in.N, mcfg.TrainSize) {
				fmt.Fprintf(opt.Log, "warning: %s row %d has N=%d nodes, far from the model's training size %d; expect weaker results\n",
					opt.Data, first+int64(i), in.N, mcfg.TrainSize)
				warned = true
			}
		}
		if opt.Progress != nil {
			base := pos - lo
			solver.SetProgress(func(done int) { opt.Progress(base+int64(done), hi-lo) })
		}
		bs, st0 := time.Now(), solver.Stats()
		if setup < 0 {
			setup = bs.Sub(start)
		}
		sols, err := solver.SolveFrom(ctx, first, insts)
		if err != nil {
			return Summary{}, err
		}
		decode := time.Since(bs)
		failed := make([]bool, len(sols))
		for i := range sols {
			failed[i] = !sols[i].Best.Feasible
		}
		forward := forwardTime(decode, st0, solver.Stats(), insts, failed)
		var improved []solve.Result
		if opt.Improve {
			ls := time.Now()
			var st solve.Stats
			so := opt.improveOptions(eng.Options().Workers).WithShare(opt.ImproveShare, forward)
			if opt.ImproveShare > 0 {
				so.Deadline = so.Deadline.Add(setupPart(opt.SetupShare, setup, len(insts), hi-lo))
			}
			jobs := engine.ImproveJobs(insts, sols, dec.Seed)
			if improved, st, err = solve.Improve(ctx, jobs, so); err != nil {
				return Summary{}, fmt.Errorf("improve: %w", err)
			}
			sum.Search.Add(st)
			lsTime += time.Since(ls)
		}
		rescues, took, err := opt.rescueAll(ctx, solver, insts, first, sols, improved, &sum.FoundBy)
		if err != nil {
			return Summary{}, err
		}
		rescueTime += took
		t0 = time.Now()
		perInst := decode.Seconds() / float64(len(insts))
		for i, in := range insts {
			idx := first + int64(i)
			var r *solve.Result
			if improved != nil && improved[i].Improved {
				r = &improved[i]
			}
			if err := writeInstance(w, in, idx, &sols[i], r, opt.AllTours, perInst); err != nil {
				return Summary{}, err
			}
			if err := tally(tl, idx, in, &sols[i], r); err != nil {
				return Summary{}, err
			}
			if err := writeRescued(w, tl, in, idx, rescues[i], perInst); err != nil {
				return Summary{}, err
			}
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
	sum.Timing = newTiming(solver.Stats(), ioTime.Seconds(), lsTime.Seconds())
	sum.Timing.Rescue = rescueTime.Seconds()
	return sum, nil
}

// tally adds one instance to the metrics: each decoded tour as a row, the
// search's improvement (r, or nil) as a further candidate for its best.
func tally(tl *datasets.Tally, idx int64, in *lazymask.Instance, s *engine.Solution, r *solve.Result) error {
	if err := tl.AddInstance(idx, in); err != nil {
		return err
	}
	for _, t := range s.Tours {
		if _, err := tl.AddRow(idx, in, t.Nodes); err != nil {
			return err
		}
	}
	if r != nil {
		if _, err := tl.AddCandidate(idx, in, r.Search.Tour); err != nil {
			return err
		}
	}
	return nil
}

// DataBudget is the paper's R for a data file's problem (the model's where
// the file does not say), size and hardness, or DefaultBudget where the
// paper fixes none.
func DataBudget(meta datasets.Metadata, modelProblem string) int {
	r, _ := dataBudget(meta, modelProblem)
	return r
}

// dataBudget is DataBudget and whether the paper fixes that R.
func dataBudget(meta datasets.Metadata, modelProblem string) (int, bool) {
	p, err := lazymask.ParseProblem(meta.Problem)
	if err != nil {
		if p, err = lazymask.ParseProblem(modelProblem); err != nil {
			return DefaultBudget, false
		}
	}
	if r, ok := lazymask.PaperBudget(p, meta.Size, meta.Hardness); ok {
		return r, true
	}
	return DefaultBudget, false
}

// farFromTrainSize reports whether n is outside [train/2, 2·train].
func farFromTrainSize(n, train int) bool {
	return train > 0 && (n > 2*train || 2*n < train)
}

// writeInstance writes the best tour (or all tours) of one instance, and
// the improved tour r when the local search found one.
func writeInstance(w *datasets.SolutionWriter, in *lazymask.Instance, idx int64, s *engine.Solution,
	r *solve.Result, all bool, seconds float64) error {
	tours := []engine.Tour{s.Best}
	if all {
		tours = s.Tours
	}
	for _, t := range tours {
		if all || r == nil {
			row := solutionRow(in, idx, t, Source, seconds)
			if err := w.Write(&row); err != nil {
				return err
			}
		}
	}
	if r != nil {
		row := solutionRow(in, idx, searchedTour(s.Best, r), SourceImproved, seconds+r.Elapsed().Seconds())
		if err := w.Write(&row); err != nil {
			return err
		}
	}
	return nil
}

// searchedTour is t with the search's tour and verdict in place of its own.
func searchedTour(t engine.Tour, r *solve.Result) engine.Tour {
	c := r.Search.Check
	t.Nodes, t.Cost, t.Feasible = r.Search.Tour, c.Cost, c.Feasible
	t.Violation, t.ViolatedNodes, t.Failed = c.TotalViolation, c.ViolatedNodes, false
	return t
}

func solutionRow(in *lazymask.Instance, idx int64, t engine.Tour, source string, seconds float64) datasets.Solution {
	return datasets.Solution{
		Instance: idx, Tour: t.Nodes, Cost: t.Cost, CostOrig: t.Cost * in.Scale,
		Feasible: t.Feasible, Violation: t.Violation, ViolatedNodes: t.ViolatedNodes,
		Backtracks: t.Backtracks, SolveTime: seconds, Source: source, Aug: t.Aug, Sample: t.Sample,
	}
}

// improveOptions are the local-search options; ImproveShare then bounds
// each row group's search by solve.Options.WithShare, under which TSPTW
// searches also try to prove their tours optimal (solve.Options.Prove).
func (opt Options) improveOptions(workers int) solve.Options {
	s := opt.Search
	s.Seed = opt.Decode.Seed
	return solve.Options{Search: s, Urgency: true, Workers: workers, Prove: true}
}

// DefaultOptions are lmask-infer's defaults: greedy over the eight
// augmentations with the paper's budget for the data, TSL, seed 2025, the
// local search (when enabled) from the best 8 decoded tours, and the
// escalation of instances left without a feasible tour.
func DefaultOptions() Options {
	return Options{
		Decode: engine.SolveOptions{Aug: lazymask.NumAugment, Budget: DefaultBudget, Lookahead: lazymask.LookTSL,
			Seed: 2025, Batch: engine.DefaultBatch},
		PaperBudget: true,
		Search:      localsearch.Options{MaxStarts: 8},
		RescueTime:  engine.DefaultRescueTime, RescueBudget: engine.DefaultRescueBudget,
	}
}

// setupPart is a row group's part of share × setup, the search time the
// setup buys: in proportion to its n of the run's total instances.
func setupPart(share float64, setup time.Duration, n int, total int64) time.Duration {
	if share <= 0 || setup <= 0 || n <= 0 || total <= 0 {
		return 0
	}
	return time.Duration(min(share, solve.MaxShare) * float64(setup) * float64(min(int64(n), total)) / float64(total))
}

// forwardTime is the part of a decode's wall time that the search's share
// multiplies: the decoder's share of the rows beyond one step per node and
// tour (backtracking, which a budget above the paper's buys for feasible
// starts) is taken out for the instances whose decode found a feasible
// tour. So a larger budget buys no search time where it worked and the
// recommended setting stays within twice greedy ×8 at the paper's budget;
// an instance left without a feasible decoded tour (failed) keeps its part
// of the whole time, since the search must find its tour. Parts go by N², as
// the decode's time grows.
func forwardTime(decode time.Duration, before, after engine.Stats, insts []*lazymask.Instance, failed []bool) time.Duration {
	rows, tours := after.Rows-before.Rows, after.Tours-before.Tours
	dec, cpu := after.Decoder-before.Decoder, after.Decode-before.Decode
	if rows <= 0 || tours <= 0 || len(insts) == 0 || cpu <= 0 {
		return decode
	}
	steps, weight, lost := 0.0, 0.0, 0.0
	for i, in := range insts {
		steps += float64(in.N - 1)
		w := float64(in.N) * float64(in.N)
		weight += w
		if i < len(failed) && failed[i] {
			lost += w
		}
	}
	steps *= float64(tours) / float64(len(insts))
	f := min(1, steps/float64(rows))
	cut := (1 - f) * float64(dec) / float64(cpu) * (1 - lost/weight)
	return time.Duration(float64(decode) * (1 - cut))
}
