package solve

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// CutRule chooses where a neural kick cuts the best tour.
type CutRule int

const (
	// CutRandom keeps a prefix of a length drawn uniformly from the kept
	// range (KickOptions.MinKeep, MaxKeep).
	CutRandom CutRule = iota
	// CutDoubt scores the best tour's steps with the policy (teacher
	// forced, one policy call for all the instances) and cuts just before
	// one of the doubtCandidates steps in the kept range the policy finds
	// least likely: the edges the network doubts are the ones re-decoded.
	CutDoubt
)

// String returns "random" or "doubt".
func (c CutRule) String() string {
	switch c {
	case CutRandom:
		return "random"
	case CutDoubt:
		return "doubt"
	}
	return fmt.Sprintf("cut(%d)", int(c))
}

// ParseCutRule parses "random" or "doubt".
func ParseCutRule(s string) (CutRule, error) {
	switch s {
	case "random":
		return CutRandom, nil
	case "doubt":
		return CutDoubt, nil
	}
	return 0, fmt.Errorf("unknown cut rule %q (want random or doubt)", s)
}

// doubtCandidates is how many of the least likely steps CutDoubt draws
// its cut from.
const doubtCandidates = 4

// KickOptions configure NeuralKicks.
type KickOptions struct {
	// Rounds is the number of neural kicks per instance (at most: a
	// Deadline may end them earlier).
	Rounds int
	// Budget and Lookahead are the re-decode's backtrack budget (Test
	// semantics) and look-ahead.
	Budget    int
	Lookahead lazymask.Lookahead
	// MinKeep and MaxKeep bound the share of the customers a kick keeps
	// (both 0: 0.2 and 0.8).
	MinKeep, MaxKeep float64
	// Cut chooses the cut position in that range.
	Cut CutRule
	// Temperature divides the policy's scores before sampling (0 means
	// 1; below 1 the re-decode keeps closer to the policy's first choice).
	Temperature float64
	// Samples is the number of re-decodes per instance and round from the
	// same prefix (0 means 1); only the best of them (lazymask's order:
	// feasible, then shorter) descends.
	Samples int
	// Search are the options of the descent after each re-decode
	// (localsearch.ImproveFrom from the best tour and the re-decoded one,
	// whose local optima are merged); its Seed is derived from Seed, the
	// instance and the round.
	Search localsearch.Options
	// Seed drives the cuts, the sampling and the descents.
	Seed uint64
	// Workers is the number of instances descending side by side
	// (0 = runtime.GOMAXPROCS).
	Workers int
	// Deadline, when not zero, starts no round after it.
	Deadline time.Time
}

// KickResult is one instance's outcome of NeuralKicks.
type KickResult struct {
	// Tour is the best tour, Verdict its lazymask.Check verdict (replayed
	// after the last round).
	Tour    []int
	Verdict lazymask.Verdict
	// Kicks counts the re-decodes, Accepted those after which the best
	// tour improved, Failed the re-decodes that gave no complete tour.
	Kicks, Accepted, Failed int
}

// KickStats sum what one NeuralKicks call did.
type KickStats struct {
	Rounds, Kicks, Accepted, Failed int
	// Doubt, Decode and Search are the wall times of the cut scoring, the
	// re-decodes and the descents.
	Doubt, Decode, Search time.Duration
	// PolicyCalls counts the policy's Scores calls.
	PolicyCalls int
}

// Add adds o to s.
func (s *KickStats) Add(o KickStats) {
	s.Rounds += o.Rounds
	s.Kicks += o.Kicks
	s.Accepted += o.Accepted
	s.Failed += o.Failed
	s.Doubt += o.Doubt
	s.Decode += o.Decode
	s.Search += o.Search
	s.PolicyCalls += o.PolicyCalls
}

// NeuralKicks improves tours[i] of insts[i] by neural kicks: each round
// cuts every instance's best tour (Cut), lets policy re-decode the rest of
// every tour from its kept prefix in one batched lazymask decode (sampled,
// with the backtrack budget), and descends from the re-decoded tour and
// the best one (localsearch.ImproveFrom, which merges their local
// optima); a result better in the order of lazymask.Compare replaces the
// best tour. The policy encodes the instances once (Begin) for all the
// rounds. A re-decode that fails leaves its instance's tour as it was.
//
// All instances share N. tours[i] may be infeasible or nil (then the
// instance gets no kicks). Results never get worse than the given tours,
// and every verdict comes from lazymask.Check. With a fixed Rounds, no
// Deadline and no Search.TimeLimit the results depend only on the inputs
// and Seed, not on Workers.
func NeuralKicks(insts []*lazymask.Instance, tours [][]int, policy lazymask.Policy, opt KickOptions) ([]KickResult, KickStats, error) {
	var st KickStats
	if len(insts) == 0 {
		return nil, st, errors.New("neural kicks: no instances")
	}
	if len(tours) != len(insts) {
		return nil, st, fmt.Errorf("neural kicks: %d tours for %d instances", len(tours), len(insts))
	}
	if opt.Rounds < 0 {
		return nil, st, fmt.Errorf("neural kicks: rounds is negative (%d)", opt.Rounds)
	}
	if opt.Samples < 0 {
		return nil, st, fmt.Errorf("neural kicks: samples is negative (%d)", opt.Samples)
	}
	if opt.Temperature < 0 || math.IsNaN(opt.Temperature) {
		return nil, st, fmt.Errorf("neural kicks: temperature %v, want > 0 (0 means 1)", opt.Temperature)
	}
	lo, hi := opt.MinKeep, opt.MaxKeep
	if lo == 0 && hi == 0 {
		lo, hi = 0.2, 0.8
	}
	if lo < 0 || hi > 1 || lo > hi {
		return nil, st, fmt.Errorf("neural kicks: kept share %v..%v, want 0 ≤ min ≤ max ≤ 1", lo, hi)
	}
	n := insts[0].N
	out := make([]KickResult, len(insts))
	for i, in := range insts {
		if in.N != n {
			return nil, st, fmt.Errorf("neural kicks: instance %d (%q) has %d nodes, instance 0 has %d", i, in.Name, in.N, n)
		}
		in.Matrix()
		if tours[i] == nil {
			continue
		}
		res, err := lazymask.Check(in, tours[i])
		var ie *lazymask.InfeasibleError
		if err != nil && !errors.As(err, &ie) {
			return nil, st, fmt.Errorf("neural kicks: instance %d (%q): %w", i, in.Name, err)
		}
		out[i].Tour, out[i].Verdict = slices.Clone(tours[i]), res.Verdict()
	}
	if n < 4 || opt.Rounds == 0 {
		return out, st, nil
	}
	// The customers kept: from kmin to kmax (at least one, and at least
	// two re-decoded).
	kmin := max(1, int(math.Round(lo*float64(n-1))))
	kmax := max(kmin, min(n-3, int(math.Round(hi*float64(n-1)))))
	kmin = min(kmin, kmax)

	pol := &encodeOnce{Policy: policy}
	if err := pol.Begin(insts); err != nil {
		return nil, st, fmt.Errorf("neural kicks: policy begin: %w", err)
	}
	dec := lazymask.NewDecoder()
	doubt := make([][]float64, len(insts)) // per instance: log-probability of each step of its best tour
	samples := max(1, opt.Samples)
	prefixes := make([][]int, len(insts)*samples)
	streams := make([]uint64, len(insts)*samples)
	for round := 0; round < opt.Rounds; round++ {
		if !opt.Deadline.IsZero() && time.Now().After(opt.Deadline) {
			break
		}
		if opt.Cut == CutDoubt {
			t0 := time.Now()
			calls, err := stepDoubts(pol, insts, out, doubt, opt.Lookahead)
			if err != nil {
				return nil, st, fmt.Errorf("neural kicks: %w", err)
			}
			st.PolicyCalls += calls
			st.Doubt += time.Since(t0)
		}
		for i := range insts {
			var prefix []int
			if out[i].Tour != nil {
				r := kickSeed(opt.Seed, uint64(i), uint64(round), 1)
				k := kmin + int(uniform01(r)*float64(kmax-kmin+1))
				if opt.Cut == CutDoubt {
					k = doubtCut(doubt[i], kmin, kmax, r)
				}
				prefix = out[i].Tour[:k+1]
			}
			for j := 0; j < samples; j++ {
				streams[i*samples+j] = kickSeed(opt.Seed, uint64(i), uint64(round), uint64(10*j))
				prefixes[i*samples+j] = prefix
			}
		}
		t0 := time.Now()
		trs, calls, err := redecode(dec, pol, insts, samples, prefixes, streams, opt.Budget, opt.Lookahead, opt.Temperature)
		if err != nil {
			return nil, st, fmt.Errorf("neural kicks: round %d: %w", round, err)
		}
		st.PolicyCalls += calls
		st.Decode += time.Since(t0)
		t0 = time.Now()
		errs := make([]error, len(insts))
		ForEach(len(insts), opt.Workers, func(i int) {
			if out[i].Tour == nil {
				return
			}
			out[i].Kicks++
			tr := trs[i]
			if tr == nil {
				out[i].Failed++
				return
			}
			so := opt.Search
			so.Seed = kickSeed(opt.Seed, uint64(i), uint64(round), 2)
			res, err := localsearch.ImproveFrom(insts[i], [][]int{out[i].Tour, tr.Tour}, so)
			if err != nil {
				errs[i] = fmt.Errorf("neural kicks: instance %d (%q), round %d: %w", i, insts[i].Name, round, err)
				return
			}
			v := res.Check.Verdict()
			if lazymask.Compare(v, out[i].Verdict) < 0 {
				out[i].Tour, out[i].Verdict = res.Tour, v
				out[i].Accepted++
				doubt[i] = nil
			}
		})
		st.Search += time.Since(t0)
		if err := errors.Join(errs...); err != nil {
			return nil, st, err
		}
		st.Rounds++
	}
	return finishKicks("neural", insts, out, st)
}

// redecode decodes samples trajectories of each instance with policy,
// trajectory i·samples+j from prefixes[i·samples+j] (depot first) with
// stream seed streams[i·samples+j], sampled (Test semantics, the backtrack
// budget and look-ahead given; temperature > 0 divides the scores), and
// returns each instance's best trajectory, nil where all of its
// trajectories failed, with the policy calls made. Best: the first that
// did not fail, replaced by a later one that is feasible and, where the
// one it replaces is feasible, shorter. The neural kicks after the search
// (NeuralKicks) and the one inside it (Redecoder) decode through here.
func redecode(dec *lazymask.Decoder, policy lazymask.Policy, insts []*lazymask.Instance, samples int, prefixes [][]int, streams []uint64,
	budget int, look lazymask.Lookahead, temperature float64) ([]*lazymask.Trajectory, int, error) {
	counting := &countingPolicy{Policy: policy, scale: 1}
	if temperature > 0 {
		counting.scale = float32(1 / temperature)
	}
	trs, err := dec.Decode(counting, insts, samples, lazymask.Config{
		Lookahead: look, Budget: budget, Semantics: lazymask.Test,
		Streams: streams, Prefixes: prefixes,
	})
	if err != nil {
		return nil, counting.calls, err
	}
	best := make([]*lazymask.Trajectory, len(insts))
	for i := range insts {
		tr := &trs[i*samples]
		for j := 1; j < samples; j++ {
			if c := &trs[i*samples+j]; !c.Failed && (tr.Failed || c.Feasible && (!tr.Feasible || c.Cost < tr.Cost)) {
				tr = c
			}
		}
		if !tr.Failed && tr.Tour != nil {
			best[i] = tr
		}
	}
	return best, counting.calls, nil
}

// sampleSeed is the stream seed of sample j of a re-decode whose first
// sample has seed s.
func sampleSeed(s uint64, j int) uint64 {
	if j == 0 {
		return s
	}
	return mixKick(s + uint64(j)*0x9e3779b97f4a7c15)
}

// RedecodeOptions configure a Redecoder.
type RedecodeOptions struct {
	// Budget is the backtrack budget (Test semantics) of a re-decode of
	// an n-node instance (nil: 0, no backtracking); Lookahead its
	// look-ahead.
	Budget    func(n int) int
	Lookahead lazymask.Lookahead
	// Temperature divides the policy's scores before sampling (0 means 1).
	Temperature float64
	// Samples is the number of re-decodes per call (0 means 1); the best
	// of them (redecode's order) is the kick's tour.
	Samples int
}

// Redecoder is the localsearch.Redecoder of a lazymask.Policy: the
// neural kick inside the search (localsearch.Options.Redecoder). Each call
// decodes the rest of the tour from the kept prefix, sampled from the
// call's seed, through the code of the neural kicks after the search
// (redecode); the policy encodes each instance once, at its first call.
// Not safe for concurrent use: one per goroutine (Options.NewRedecoder).
type Redecoder struct {
	policy *encodeOnce
	dec    *lazymask.Decoder
	opt    RedecodeOptions
	stats  KickStats
}

var _ localsearch.Redecoder = (*Redecoder)(nil)

// NewRedecoder returns a Redecoder over policy.
func NewRedecoder(policy lazymask.Policy, opt RedecodeOptions) *Redecoder {
	return &Redecoder{policy: &encodeOnce{Policy: policy}, dec: lazymask.NewDecoder(), opt: opt}
}

// Redecode decodes inst from prefix and returns the best complete tour of
// the samples, or nil where every sample failed.
func (r *Redecoder) Redecode(inst *lazymask.Instance, prefix []int, seed uint64) ([]int, error) {
	t0 := time.Now()
	defer func() { r.stats.Decode += time.Since(t0) }()
	insts := []*lazymask.Instance{inst}
	if err := r.policy.Begin(insts); err != nil {
		return nil, fmt.Errorf("policy begin: %w", err)
	}
	samples := max(1, r.opt.Samples)
	prefixes, streams := make([][]int, samples), make([]uint64, samples)
	for j := range samples {
		prefixes[j], streams[j] = prefix, sampleSeed(seed, j)
	}
	budget := 0
	if r.opt.Budget != nil {
		budget = r.opt.Budget(inst.N)
	}
	trs, calls, err := redecode(r.dec, r.policy, insts, samples, prefixes, streams, budget, r.opt.Lookahead, r.opt.Temperature)
	r.stats.PolicyCalls += calls
	if err != nil {
		return nil, err
	}
	r.stats.Kicks++
	if trs[0] == nil {
		r.stats.Failed++
		return nil, nil
	}
	return trs[0].Tour, nil
}

// Stats returns what the Redecoder did: Kicks counts its re-decodes,
// Failed those without a complete tour, Decode their wall time and
// PolicyCalls the policy's Scores calls.
func (r *Redecoder) Stats() KickStats { return r.stats }

// stepDoubts fills doubt[i] (where nil and the instance has a tour) with
// StepLogProbs of out[i].Tour and returns the policy calls made (0 or 1).
func stepDoubts(p lazymask.Policy, insts []*lazymask.Instance, out []KickResult, doubt [][]float64, look lazymask.Lookahead) (int, error) {
	tours := make([][]int, len(insts))
	some := false
	for i := range insts {
		if doubt[i] == nil && out[i].Tour != nil {
			tours[i], some = out[i].Tour, true
		}
	}
	if !some {
		return 0, nil
	}
	lp, err := StepLogProbs(p, insts, tours, look)
	if err != nil {
		return 1, err
	}
	for i, d := range lp {
		if d != nil {
			doubt[i] = d
		}
	}
	return 1, nil
}

// StepLogProbs replays each tours[i] (nil: skipped) through the LazyMask
// state of insts[i] (unlimited budget, Test semantics, look-ahead look) and
// returns the policy's log-probability of each step (entry k: the choice of
// tours[i][k+1] from its candidate set), all instances' steps scored in
// one Scores call; the policy must have begun on insts. A step the
// look-ahead refuses (an infeasible tour) and the steps after it get −Inf.
func StepLogProbs(p lazymask.Policy, insts []*lazymask.Instance, tours [][]int, look lazymask.Lookahead) ([][]float64, error) {
	n := insts[0].N
	var b lazymask.StepBatch
	b.N = n
	type span struct{ inst, lo, steps int }
	var spans []span
	s := lazymask.NewState(n)
	for i, in := range insts {
		tour := tours[i]
		if tour == nil {
			continue
		}
		if len(tour) != n || in.N != n {
			return nil, fmt.Errorf("step log-probabilities: instance %d: tour of %d nodes, instance of %d, want %d", i, len(tour), in.N, n)
		}
		if err := s.Reset(in, look, lazymask.Unlimited, lazymask.Test); err != nil {
			return nil, err
		}
		sp := span{inst: i, lo: b.Rows()}
		for k := 0; k+1 < n; k++ {
			next := tour[k+1]
			if next < 0 || next >= n || s.MaskCount() == 0 || !s.Mask()[next] {
				break
			}
			b.Traj = append(b.Traj, b.Rows())
			b.Inst = append(b.Inst, i)
			b.Current = append(b.Current, s.Current())
			b.State = append(b.State, s.Value())
			b.Refine = append(b.Refine, 0)
			b.Budget = append(b.Budget, false)
			b.NumSteps = append(b.NumSteps, s.Depth())
			b.Mask = append(b.Mask, s.Mask()...)
			if err := s.Step(next); err != nil {
				return nil, err
			}
			sp.steps++
		}
		spans = append(spans, sp)
	}
	out := make([][]float64, len(insts))
	if b.Rows() == 0 {
		for _, sp := range spans {
			out[sp.inst] = negInf(n - 1)
		}
		return out, nil
	}
	sc := make([]float32, b.Rows()*n)
	if err := p.Scores(&b, sc); err != nil {
		return nil, fmt.Errorf("step log-probabilities (%d rows): %w", b.Rows(), err)
	}
	for _, sp := range spans {
		d := negInf(n - 1)
		tour := tours[sp.inst]
		for k := 0; k < sp.steps; k++ {
			r := sp.lo + k
			row, mask := sc[r*n:(r+1)*n], b.MaskRow(r)
			mx := math.Inf(-1)
			for j, ok := range mask {
				if ok {
					mx = math.Max(mx, float64(row[j]))
				}
			}
			sum := 0.0
			for j, ok := range mask {
				if ok {
					sum += math.Exp(float64(row[j]) - mx)
				}
			}
			d[k] = float64(row[tour[k+1]]) - mx - math.Log(sum)
		}
		out[sp.inst] = d
	}
	return out, nil
}

func negInf(k int) []float64 {
	d := make([]float64, k)
	for i := range d {
		d[i] = math.Inf(-1)
	}
	return d
}

// doubtCut returns the number of customers to keep: a cut just before one
// of the doubtCandidates least likely steps k (k customers kept) in
// [kmin, kmax], drawn with r.
func doubtCut(d []float64, kmin, kmax int, r uint64) int {
	ks := make([]int, 0, kmax-kmin+1)
	for k := kmin; k <= kmax; k++ {
		ks = append(ks, k)
	}
	if d != nil {
		slices.SortStableFunc(ks, func(a, b int) int { return cmpFloat(d[a], d[b]) })
	}
	c := min(doubtCandidates, len(ks))
	return ks[int(uniform01(r)*float64(c))]
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// encodeOnce passes Begin on to the policy for the first instance list
// only: the encoder's output depends on the instances alone, so every
// later decode of the same list reuses it.
type encodeOnce struct {
	lazymask.Policy
	began []*lazymask.Instance
}

func (p *encodeOnce) Begin(insts []*lazymask.Instance) error {
	if p.began != nil && slices.Equal(p.began, insts) {
		return nil
	}
	if err := p.Policy.Begin(insts); err != nil {
		return err
	}
	p.began = slices.Clone(insts)
	return nil
}

// countingPolicy counts the Scores calls and multiplies the scores by
// scale.
type countingPolicy struct {
	lazymask.Policy
	calls int
	scale float32
}

func (p *countingPolicy) Scores(b *lazymask.StepBatch, out []float32) error {
	p.calls++
	if err := p.Policy.Scores(b, out); err != nil {
		return err
	}
	if p.scale != 1 {
		for i := range out[:b.Rows()*b.N] {
			out[i] *= p.scale
		}
	}
	return nil
}

// kickSeed derives a seed from the run's seed, an instance, a round and a
// purpose (SplitMix64 mixing).
func kickSeed(seed, inst, round, purpose uint64) uint64 {
	z := seed ^ mixKick(inst+0x9e3779b97f4a7c15) ^ mixKick(round*0xd1b54a32d192ed03+purpose*0x632be59bd9b4e019+1)
	return mixKick(z)
}

func mixKick(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// uniform01 maps a seed to [0, 1).
func uniform01(r uint64) float64 { return float64(mixKick(r)>>11) * (1.0 / (1 << 53)) }

// bridgeTries bounds the segment exchanges BridgeKicks draws per kick
// looking for a feasible one.
const bridgeTries = 20

// BridgeKicks is the network-guided variant of the search's own kick: each
// round, every instance's best tour gets up to bridgeMoves exchanges of two
// adjacent segments of 1–8 nodes (double bridges), each after a node drawn
// by opt.Cut (CutDoubt: one whose step is among the least likely to the
// policy, by StepLogProbs, rescored only when the best tour changes;
// CutRandom: any), each the first of up to bridgeTries draws that keeps
// the tour feasible (any where the best tour is infeasible); the search
// descends from the result and the best tour, as in NeuralKicks.
// opt.Budget, MinKeep, MaxKeep and Temperature are not used; policy may be
// nil for CutRandom.
func BridgeKicks(insts []*lazymask.Instance, tours [][]int, policy lazymask.Policy, opt KickOptions) ([]KickResult, KickStats, error) {
	var st KickStats
	if len(insts) == 0 || len(tours) != len(insts) || opt.Rounds < 0 {
		return nil, st, fmt.Errorf("bridge kicks: %d instances, %d tours, %d rounds", len(insts), len(tours), opt.Rounds)
	}
	if opt.Cut == CutDoubt && policy == nil {
		return nil, st, errors.New("bridge kicks: the doubt cut needs a policy")
	}
	n := insts[0].N
	out := make([]KickResult, len(insts))
	for i, in := range insts {
		if in.N != n {
			return nil, st, fmt.Errorf("bridge kicks: instance %d (%q) has %d nodes, instance 0 has %d", i, in.Name, in.N, n)
		}
		in.Matrix()
		if tours[i] == nil {
			continue
		}
		res, err := lazymask.Check(in, tours[i])
		var ie *lazymask.InfeasibleError
		if err != nil && !errors.As(err, &ie) {
			return nil, st, fmt.Errorf("bridge kicks: instance %d (%q): %w", i, in.Name, err)
		}
		out[i].Tour, out[i].Verdict = slices.Clone(tours[i]), res.Verdict()
	}
	if n < 5 || opt.Rounds == 0 {
		return out, st, nil
	}
	var pol *encodeOnce
	if opt.Cut == CutDoubt {
		pol = &encodeOnce{Policy: policy}
		if err := pol.Begin(insts); err != nil {
			return nil, st, fmt.Errorf("bridge kicks: policy begin: %w", err)
		}
	}
	doubt := make([][]float64, len(insts))
	for round := 0; round < opt.Rounds; round++ {
		if !opt.Deadline.IsZero() && time.Now().After(opt.Deadline) {
			break
		}
		if opt.Cut == CutDoubt {
			t0 := time.Now()
			calls, err := stepDoubts(pol, insts, out, doubt, opt.Lookahead)
			if err != nil {
				return nil, st, fmt.Errorf("bridge kicks: %w", err)
			}
			st.PolicyCalls += calls
			st.Doubt += time.Since(t0)
		}
		t0 := time.Now()
		errs := make([]error, len(insts))
		ForEach(len(insts), opt.Workers, func(i int) {
			if out[i].Tour == nil {
				return
			}
			out[i].Kicks++
			r := kickSeed(opt.Seed, uint64(i), uint64(round), 3)
			kicked := bridge(insts[i], out[i].Tour, doubt[i], opt.Cut, out[i].Verdict.Feasible, &r)
			if kicked == nil {
				out[i].Failed++
				return
			}
			so := opt.Search
			so.Seed = kickSeed(opt.Seed, uint64(i), uint64(round), 2)
			res, err := localsearch.ImproveFrom(insts[i], [][]int{out[i].Tour, kicked}, so)
			if err != nil {
				errs[i] = fmt.Errorf("bridge kicks: instance %d (%q), round %d: %w", i, insts[i].Name, round, err)
				return
			}
			if v := res.Check.Verdict(); lazymask.Compare(v, out[i].Verdict) < 0 {
				out[i].Tour, out[i].Verdict = res.Tour, v
				out[i].Accepted++
				doubt[i] = nil
			}
		})
		st.Search += time.Since(t0)
		if err := errors.Join(errs...); err != nil {
			return nil, st, err
		}
		st.Rounds++
	}
	return finishKicks("bridge", insts, out, st)
}

// bridgeMoves is the number of double bridges one BridgeKicks kick
// applies, as many as the search's own TSPTW kick.
const bridgeMoves = 20

// bridge returns tour after up to bridgeMoves double bridges, each
// exchanging the segments that follow a node u (t[k+1..k+a] and
// t[k+a+1..k+a+b], a, b in 1..8, k the position of u) and kept where Check
// finds the tour feasible (always where feasible is false); u is drawn by
// cut: CutDoubt from the nodes whose step out of them is one of the
// 2·doubtCandidates least likely in the best tour, CutRandom from all.
// It returns nil when no bridge was kept.
func bridge(in *lazymask.Instance, tour []int, doubt []float64, cut CutRule, feasible bool, r *uint64) []int {
	n := len(tour)
	next := func(m int) int { *r = mixKick(*r + 0x9e3779b97f4a7c15); return int(uniform01(*r) * float64(m)) }
	var from []int // anchor nodes
	if cut == CutDoubt && doubt != nil {
		ks := make([]int, n-3)
		for k := range ks {
			ks[k] = k
		}
		slices.SortStableFunc(ks, func(a, b int) int { return cmpFloat(doubt[a], doubt[b]) })
		for _, k := range ks[:min(2*doubtCandidates, len(ks))] {
			from = append(from, tour[k])
		}
	}
	cur := slices.Clone(tour)
	out := make([]int, n)
	kept := 0
	for m := 0; m < bridgeMoves; m++ {
		for try := 0; try < bridgeTries; try++ {
			var k int
			if from != nil {
				k = slices.Index(cur, from[next(len(from))])
				if k > n-4 {
					continue
				}
			} else {
				k = next(n - 3)
			}
			room := n - 1 - k // nodes after position k
			a := 1 + next(min(8, room-1))
			b := 1 + next(min(8, room-a))
			copy(out, cur[:k+1])
			copy(out[k+1:], cur[k+a+1:k+a+b+1])
			copy(out[k+b+1:], cur[k+1:k+a+1])
			copy(out[k+a+b+1:], cur[k+a+b+1:])
			if !feasible {
				cur, out = out, cur
				kept++
				break
			}
			if res, err := lazymask.Check(in, out); err == nil && res.Feasible {
				cur, out = out, cur
				kept++
				break
			}
		}
	}
	if kept == 0 {
		return nil
	}
	return cur
}

// finishKicks replays each instance's final tour with the checker, which
// must give the verdict the kicks reported, and adds the per-instance
// counts to st.
func finishKicks(what string, insts []*lazymask.Instance, out []KickResult, st KickStats) ([]KickResult, KickStats, error) {
	for i := range out {
		if out[i].Tour == nil {
			continue
		}
		res, err := lazymask.Check(insts[i], out[i].Tour)
		var ie *lazymask.InfeasibleError
		if err != nil && !errors.As(err, &ie) {
			return nil, st, fmt.Errorf("%s kicks: instance %d (%q): final tour: %w", what, i, insts[i].Name, err)
		}
		if v := res.Verdict(); v != out[i].Verdict {
			return nil, st, fmt.Errorf("%s kicks: instance %d (%q): the replay's verdict %+v differs from the search's %+v", what, i, insts[i].Name, v, out[i].Verdict)
		}
		st.Kicks += out[i].Kicks
		st.Accepted += out[i].Accepted
		st.Failed += out[i].Failed
	}
	return out, st, nil
}
