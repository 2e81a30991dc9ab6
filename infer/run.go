package infer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/internal/cputime"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/models/features"
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
	// NeuralKicks, with Improve and Rounds > 0, continues each row
	// group's search with that many neural kicks per instance
	// (solve.NeuralKicks: the model re-decodes the rest of the best tour
	// from a kept prefix, the search descends); its budget, look-ahead
	// and seed are the decode's, its descent options Search's without the
	// kicks. Off by default: at equal CPU time it did not beat more kicks
	// of the search alone (docs/experiments.md, "Neural kicks").
	NeuralKicks solve.KickOptions
	// NeuralEvery > 0, with Improve and the network's starts, makes every
	// NeuralEvery-th kick of each instance's search a neural kick
	// (localsearch.Options.Redecoder: the model re-decodes the rest of the
	// tour the kicks start from after a kept prefix, sampled, with the
	// decode's budget and look-ahead; solve.Redecoder); 0 is off.
	NeuralEvery int
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
	// Infeasible is what an instance still without a feasible tour gets
	// (InfeasibleNone, InfeasibleDrop, InfeasibleLate; "" is none), each
	// in at most InfeasibleTime (0: explain.DefaultTime). With drop or
	// late, an instance the quick certificates prove infeasible skips the
	// escalation.
	Infeasible     string
	InfeasibleTime time.Duration
	// Starts is where the search's starting tours come from: StartsNetwork
	// ("" too) decodes them with Model; StartsRandomL and StartsUrgency
	// build them without a model (runWithoutNetwork; Decode.Samples
	// Random-L tours per instance, HeuristicSamples where 0).
	Starts string
	// CPUBudget, for starts without a network, is the run's CPU time
	// (user + sys, from the start of Run: opening the data, building the
	// starts, the search, writing): the search of each instance gets its
	// part of what the starts leave by solve.Weight, and replaces the time
	// share (ImproveShare) a decode would give. CPUPerInstance is the same
	// per instance solved (CPUBudget = CPUPerInstance × instances).
	CPUBudget, CPUPerInstance time.Duration
	// Overlap decodes the next instance group (GroupSize) while the last
	// one is searched and written, so both cores stay busy through the
	// decode's tail and the search's. Off by default: a search bound by
	// time then shares the cores with a decode, and on Gendreau's wide
	// windows the worst instance of some runs went from 1.3% to about 5%
	// (docs/experiments.md, "The overlapped pipeline").
	Overlap bool
	// Log receives notes and warnings (nil: discarded).
	Log io.Writer
	// Progress, if set, is called serially with the instances finished of
	// the total this run solves.
	Progress func(done, total int64)
}

// Run solves opt.Data into opt.Out and returns the metrics of the rows it
// solved, with the CPU time the run took (Summary.CPUSeconds). The starts
// of the search come from opt.Model (Starts network) or from a heuristic
// without a model (runWithoutNetwork). Nothing is written on error or
// cancellation (ctx's error).
func Run(ctx context.Context, opt Options) (Summary, error) {
	start, cpu0 := time.Now(), cputime.Process()
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	starts, err := ParseStarts(opt.Starts)
	if err != nil {
		return Summary{}, err
	}
	opt.Starts = starts
	var sum Summary
	switch {
	case opt.NeuralEvery < 0:
		return Summary{}, fmt.Errorf("neural every %d: want ≥ 0", opt.NeuralEvery)
	case starts != StartsNetwork && opt.NeuralEvery > 0:
		return Summary{}, fmt.Errorf("neural kicks re-decode with the network: they need starts from it, not %s", starts)
	case starts != StartsNetwork:
		sum, err = runWithoutNetwork(ctx, opt, start, cpu0)
	case opt.CPUBudget != 0 || opt.CPUPerInstance != 0:
		return Summary{}, fmt.Errorf("a CPU budget applies to starts without a network (%s or %s); the network's search takes its time from the decode", StartsRandomL, StartsUrgency)
	case opt.Model == "":
		return Summary{}, errors.New("no model: starts from the network need a model directory")
	default:
		sum, err = runNetwork(ctx, opt, start)
	}
	if err != nil {
		return Summary{}, err
	}
	sum.CPUSeconds = (cputime.Process() - cpu0).Seconds()
	return sum, nil
}

// runNetwork is Run with starts decoded by the model.
func runNetwork(ctx context.Context, opt Options, start time.Time) (Summary, error) {
	var ioTime, lsTime, rescueTime time.Duration
	// The runtime and the model's sessions open on one core while the data
	// opens and its first rows are read on the other: the two are the
	// run's start-up, and one after the other they would leave a core idle
	// for about half a second (docs/experiments.md, "The network's start-up
	// beside the data"). A bad model is reported before bad data.
	mcfg, err := features.ReadConfig(opt.Model)
	if err != nil {
		return Summary{}, fmt.Errorf("open model %s: %w", opt.Model, err)
	}
	var eng *engine.Engine
	engErr, opened := error(nil), make(chan struct{})
	go func() {
		defer close(opened)
		eng, engErr = engine.Open(opt.Model, opt.Engine)
	}()
	defer func() {
		<-opened
		if eng != nil {
			eng.Close()
		}
	}()
	modelFirst := func(err error) error {
		<-opened
		if engErr != nil {
			return engErr
		}
		return err
	}

	t0 := time.Now()
	rd, err := datasets.OpenInstances(opt.Data)
	if err != nil {
		return Summary{}, modelFirst(err)
	}
	defer rd.Close()
	meta := rd.Metadata()
	if meta.Problem != "" && meta.Problem != mcfg.Problem {
		return Summary{}, modelFirst(fmt.Errorf("dataset %s holds %s instances, the model in %s was trained for %s", opt.Data, meta.Problem, opt.Model, mcfg.Problem))
	}
	if opt.PaperBudget {
		var known bool
		opt.Decode.Budget, known = dataBudget(meta, mcfg.Problem)
		if !known {
			opt.Decode.BudgetPerNode = opt.BudgetPerNode
		}
	}
	rr, err := opt.rowRange(rd, meta)
	if err != nil {
		return Summary{}, modelFirst(err)
	}
	tl, lo, hi := rr.tl, rr.lo, rr.hi
	out := datasets.Metadata{
		Kind: datasets.KindSolutions, Problem: mcfg.Problem, Size: meta.Size, Hardness: meta.Hardness, Scale: meta.Scale,
		Source: Source, Instances: opt.Data,
	}
	w, err := rr.create(opt, rd, out)
	if err != nil {
		return Summary{}, modelFirst(err)
	}
	committed := false
	defer func() {
		if !committed {
			w.Abort()
		}
	}()
	ioTime += time.Since(t0)
	if err := ctx.Err(); err != nil {
		return Summary{}, modelFirst(err)
	}
	gd := &groupDecoder{opt: &opt, mcfg: mcfg, rd: rd, start: start, lo: lo, hi: hi, pos: lo}
	if err := gd.read(); err != nil { // counted in gd.io
		return Summary{}, modelFirst(err)
	}
	if err := modelFirst(nil); err != nil {
		return Summary{}, err
	}
	if got := eng.Config(); got.Problem != mcfg.Problem {
		return Summary{}, fmt.Errorf("model %s changed while it opened: %s was %s", opt.Model, features.ConfigFile, mcfg.Problem)
	}
	mcfg = eng.Config()
	gd.mcfg = mcfg

	dec := opt.Decode
	dec.Semantics, dec.AllTours = lazymask.Test, true
	solver, err := eng.NewSolver(dec)
	if err != nil {
		return Summary{}, err
	}
	defer solver.Close()
	sum := Summary{Budget: dec.Budget, BudgetPerNode: dec.BudgetPerNode, HasReference: rr.hasRef, Shard: opt.Shard, Rows: [2]int64{lo, hi}}
	if opt.Improve {
		sum.Search = &solve.Stats{}
	}
	// The rescue decodes with a solver of its own: the next group's decode
	// may be running on the first.
	rsolver, err := eng.NewSolver(dec)
	if err != nil {
		return Summary{}, err
	}
	defer rsolver.Close()
	nk := opt.neuralSearch(eng, dec)
	defer nk.close()
	gd.solver = solver
	nextGroup, stop := gd.groups(ctx, !opt.Overlap)
	defer stop()
	for {
		g, ok, err := nextGroup()
		if err != nil {
			return Summary{}, err
		}
		if !ok {
			break
		}
		first, insts, sols, decode, forward, setup := g.first, g.insts, g.sols, g.decode, g.forward, g.setup
		var improved []solve.Result
		if opt.Improve {
			ls := time.Now()
			var st solve.Stats
			so := opt.improveOptions(eng.Options().Workers).WithShare(opt.ImproveShare, forward)
			if opt.ImproveShare > 0 {
				so.Deadline = so.Deadline.Add(setupPart(opt.SetupShare, setup, len(insts), hi-lo))
			}
			nk.set(&so)
			jobs := engine.ImproveJobs(insts, sols, dec.Seed)
			if improved, st, err = solve.Improve(ctx, jobs, so); err != nil {
				return Summary{}, fmt.Errorf("improve: %w", err)
			}
			sum.Search.Add(st)
			if opt.NeuralKicks.Rounds > 0 {
				if err := opt.neuralKicks(eng, dec, first, insts, improved, &sum); err != nil {
					return Summary{}, err
				}
			}
			lsTime += time.Since(ls)
		}
		rescues, took, err := opt.rescueAll(ctx, rsolver, insts, first, sols, improved, &sum.FoundBy)
		if err != nil {
			return Summary{}, err
		}
		rescueTime += took
		settled, took, err := opt.settleAll(ctx, insts, sols, improved, rescues, eng.Options().Workers)
		if err != nil {
			return Summary{}, err
		}
		rescueTime += took
		t0 = time.Now()
		if err := opt.writeGroup(w, tl, insts, first, sols, improved, rescues, settled, decode, Source); err != nil {
			return Summary{}, err
		}
		ioTime += time.Since(t0)
		if opt.Progress != nil {
			opt.Progress(first+int64(len(insts))-lo, hi-lo)
		}
	}
	stop()
	ioTime += gd.io
	t0 = time.Now()
	if err := w.Close(); err != nil {
		return Summary{}, err
	}
	committed = true
	ioTime += time.Since(t0)
	sum.Metrics, sum.Seconds = tl.Metrics(), time.Since(start).Seconds()
	st := solver.Stats()
	st.Add(rsolver.Stats())
	sum.Timing = newTiming(st, ioTime.Seconds(), lsTime.Seconds())
	sum.Timing.Rescue = rescueTime.Seconds()
	sum.NeuralSearch = nk.stats()
	return sum, nil
}

// neuralSearch makes the Redecoders of the neural kicks inside the
// searches (Options.NeuralEvery), each over a policy of its own on the
// engine's sessions, and closes those policies at the end of the run.
type neuralSearch struct {
	every int
	eng   *engine.Engine
	ro    solve.RedecodeOptions
	mu    sync.Mutex
	made  []*solve.Redecoder
	pols  []*engine.Policy
}

// neuralSearch returns the run's neuralSearch, nil where NeuralEvery is 0.
func (opt Options) neuralSearch(eng *engine.Engine, dec engine.SolveOptions) *neuralSearch {
	if opt.NeuralEvery <= 0 || !opt.Improve {
		return nil
	}
	return &neuralSearch{every: opt.NeuralEvery, eng: eng,
		ro: solve.RedecodeOptions{Budget: dec.BudgetFor, Lookahead: dec.Lookahead}}
}

// set gives the searches of so (one solve.Improve call) neural kicks: the
// Redecoders of the earlier calls first, all idle between calls.
func (nk *neuralSearch) set(so *solve.Options) {
	if nk == nil {
		return
	}
	so.Search.NeuralEvery = nk.every
	handed := 0
	so.NewRedecoder = func() localsearch.Redecoder {
		nk.mu.Lock()
		defer nk.mu.Unlock()
		if handed < len(nk.made) {
			handed++
			return nk.made[handed-1]
		}
		handed++
		pol := nk.eng.NewPolicy()
		r := solve.NewRedecoder(pol, nk.ro)
		nk.pols, nk.made = append(nk.pols, pol), append(nk.made, r)
		return r
	}
}

// stats sums what the Redecoders did.
func (nk *neuralSearch) stats() solve.KickStats {
	var st solve.KickStats
	if nk == nil {
		return st
	}
	nk.mu.Lock()
	defer nk.mu.Unlock()
	for _, r := range nk.made {
		st.Add(r.Stats())
	}
	return st
}

func (nk *neuralSearch) close() {
	if nk == nil {
		return
	}
	for _, p := range nk.pols {
		p.Close()
	}
}

// neuralKicks runs opt.NeuralKicks from the searched tours of one row
// group (instances of one size together) and puts the improvements into
// improved.
func (opt Options) neuralKicks(eng *engine.Engine, dec engine.SolveOptions, first int64, insts []*lazymask.Instance, improved []solve.Result, sum *Summary) error {
	bySize := map[int][]int{}
	var sizes []int
	for i, in := range insts {
		if _, ok := bySize[in.N]; !ok {
			sizes = append(sizes, in.N)
		}
		bySize[in.N] = append(bySize[in.N], i)
	}
	pol := eng.NewPolicy()
	defer pol.Close()
	for _, n := range sizes {
		idx := bySize[n]
		group := make([]*lazymask.Instance, len(idx))
		tours := make([][]int, len(idx))
		for k, i := range idx {
			group[k] = insts[i]
			if improved[i].Searched {
				tours[k] = improved[i].Search.Tour
			}
		}
		ko := opt.NeuralKicks
		ko.Budget, ko.Lookahead = dec.BudgetFor(n), dec.Lookahead
		ko.Seed = dec.Seed ^ uint64(first+int64(idx[0]))*0x9e3779b97f4a7c15
		ko.Workers = eng.Options().Workers
		ko.Search = opt.Search
		ko.Search.Kicks, ko.Search.MinKicks, ko.Search.TimeLimit, ko.Search.Prove = 0, 0, 0, nil
		res, st, err := solve.NeuralKicks(group, tours, pol, ko)
		if err != nil {
			return fmt.Errorf("neural kicks: %w", err)
		}
		sum.NeuralKicks.Add(st)
		for k, i := range idx {
			r := &improved[i]
			if res[k].Accepted == 0 {
				continue
			}
			chk, err := lazymask.Check(insts[i], res[k].Tour)
			var ie *lazymask.InfeasibleError
			if err != nil && !errors.As(err, &ie) {
				return fmt.Errorf("neural kicks: %s: %w", insts[i].Name, err)
			}
			r.Search.Tour, r.Search.Check = res[k].Tour, chk
			r.Search.Cost, r.Search.Violation, r.Search.Feasible = chk.Cost, chk.TotalViolation, chk.Feasible
			r.Final = chk.Verdict()
			r.Improved = r.Final.Feasible && lazymask.Compare(r.Final, r.Given) < 0
			r.Changed = true
		}
	}
	return nil
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
// the improved tour r when the local search found one (source: the
// decoded tours' source, "+ls" appended for r's).
func writeInstance(w *datasets.SolutionWriter, in *lazymask.Instance, idx int64, s *engine.Solution,
	r *solve.Result, all bool, seconds float64, source string) error {
	tours := []engine.Tour{s.Best}
	if all {
		tours = s.Tours
	}
	for _, t := range tours {
		if all || r == nil {
			row := solutionRow(in, idx, t, source, seconds)
			if err := w.Write(&row); err != nil {
				return err
			}
		}
	}
	if r != nil {
		row := solutionRow(in, idx, searchedTour(s.Best, r), source+"+ls", seconds+r.Elapsed().Seconds())
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

// rows is the part of a data file that a run solves, with its tally.
type rows struct {
	tl            *datasets.Tally
	lo, hi, total int64 // [lo, hi) of the first total rows
	hasRef        bool  // a reference was given and read
}

// create writes out's solutions file for these rows (out.Extra gains the
// shard's keys where opt solves a shard) and seeks rd to their first row;
// the caller aborts the writer unless it commits.
func (r rows) create(opt Options, rd *datasets.InstanceReader, out datasets.Metadata) (*datasets.SolutionWriter, error) {
	if !opt.Shard.Whole() {
		if out.Extra == nil {
			out.Extra = map[string]string{}
		}
		out.Extra[KeyShard], out.Extra[KeyShardRows], out.Extra[KeyShardTotal] = opt.Shard.String(), fmt.Sprintf("%d:%d", r.lo, r.hi), fmt.Sprint(r.total)
	}
	w, err := datasets.CreateSolutions(opt.Out, out, datasets.WriterOptions{})
	if err != nil {
		return nil, err
	}
	if err := rd.SeekRow(r.lo); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

// rowRange reads the reference (its note goes to the log) and returns the
// rows this run solves: [lo, hi) of the first total rows (--limit, then the
// shard's slice, cut at row groups), with their tally.
func (opt Options) rowRange(rd *datasets.InstanceReader, meta datasets.Metadata) (rows, error) {
	refs, note, err := datasets.ReadReference(opt.Reference, opt.Data, meta)
	if err != nil {
		return rows{}, opterr.Wrap("Reference", "", err)
	}
	if note != "" {
		fmt.Fprintln(opt.Log, note)
	}
	r := rows{total: rd.NumRows(), hasRef: refs != nil}
	if opt.Limit > 0 && opt.Limit < r.total {
		r.total = opt.Limit
	}
	r.lo, r.hi = opt.Shard.Range(r.total, rd.RowGroupSizes())
	if r.tl, err = datasets.NewTallyRange(rd.NumRows(), r.lo, r.hi, refs); err != nil {
		return rows{}, datasets.WithPath(err, "reference", opt.Reference)
	}
	return r, nil
}

// writeGroup writes and tallies a group's rows: each instance's tours (the
// search's where it improved them, with source), then its rescued and its
// settled row where it has one. decode is the group's decode time, spread
// over its instances.
func (opt Options) writeGroup(w *datasets.SolutionWriter, tl *datasets.Tally, insts []*lazymask.Instance, first int64, sols []engine.Solution,
	improved []solve.Result, rescues []*rescued, settled []*settled, decode time.Duration, source string) error {
	perInst := decode.Seconds() / float64(len(insts))
	for i, in := range insts {
		idx := first + int64(i)
		var r *solve.Result
		if improved != nil && improved[i].Improved {
			r = &improved[i]
		}
		if err := writeInstance(w, in, idx, &sols[i], r, opt.AllTours, perInst, source); err != nil {
			return err
		}
		if err := tally(tl, idx, in, &sols[i], r); err != nil {
			return err
		}
		if err := writeRescued(w, tl, in, idx, rescues[i], perInst); err != nil {
			return err
		}
		if err := writeSettled(w, tl, in, idx, settled[i], perInst); err != nil {
			return err
		}
	}
	return nil
}
