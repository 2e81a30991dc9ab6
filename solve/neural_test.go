package solve

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// kickFixture returns count generated instances of n nodes with a start
// each: a sampled Random-L decode without search (feasible where the
// decode found a tour; nil where it failed).
func kickFixture(t *testing.T, p lazymask.Problem, hardness string, n, count int) ([]*lazymask.Instance, [][]int) {
	t.Helper()
	insts, _, err := datasets.Generate(datasets.GenConfig{Problem: p, N: n, Hardness: hardness, Seed: 21}, count)
	if err != nil {
		t.Fatal(err)
	}
	trs, err := lazymask.Decode(&lazymask.RandomL{}, insts, 1, lazymask.Config{Budget: 200, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	tours := make([][]int, count)
	for i, tr := range trs {
		tours[i] = tr.Tour
	}
	return insts, tours
}

// TestNeuralKicks: kicks from a decoder policy keep every feasible tour
// feasible and never raise its cost, every verdict is the replay's, some
// kicks are accepted, and a fixed seed and round count give the same tours
// whatever the workers (both cut rules, both problems).
func TestNeuralKicks(t *testing.T) {
	for _, c := range []struct {
		p        lazymask.Problem
		hardness string
	}{{lazymask.TSPTW, datasets.Medium}, {lazymask.TSPDL, datasets.Hard}} {
		insts, tours := kickFixture(t, c.p, c.hardness, 20, 12)
		for _, cut := range []CutRule{CutRandom, CutDoubt} {
			name := c.p.String() + " " + cut.String()
			opt := KickOptions{Rounds: 6, Budget: 50, Cut: cut, Seed: 7, Workers: 1,
				Search: localsearch.Options{Moves: []localsearch.MoveKind{localsearch.TwoOpt}, NoMerge: true}}
			got, st, err := NeuralKicks(insts, tours, &lazymask.RandomL{}, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			accepted := 0
			for i, r := range got {
				if tours[i] == nil {
					if r.Tour != nil || r.Kicks != 0 {
						t.Fatalf("%s: instance %d had no start, got %v after %d kicks", name, i, r.Tour, r.Kicks)
					}
					continue
				}
				start, _ := lazymask.Check(insts[i], tours[i])
				res, err := lazymask.Check(insts[i], r.Tour)
				var ie *lazymask.InfeasibleError
				if err != nil && !errors.As(err, &ie) {
					t.Fatalf("%s: instance %d: %v", name, i, err)
				}
				if res.Verdict() != r.Verdict {
					t.Fatalf("%s: instance %d: verdict %+v, replay %+v", name, i, r.Verdict, res.Verdict())
				}
				if start.Feasible && (!res.Feasible || res.Cost > start.Cost+1e-9) {
					t.Fatalf("%s: instance %d: start feasible at %v, result feasible %v at %v", name, i, start.Cost, res.Feasible, res.Cost)
				}
				if r.Kicks != opt.Rounds {
					t.Fatalf("%s: instance %d: %d kicks, want %d", name, i, r.Kicks, opt.Rounds)
				}
				accepted += r.Accepted
			}
			if accepted == 0 || st.Accepted != accepted || st.Rounds != opt.Rounds {
				t.Fatalf("%s: %d kicks accepted (stats %+v): the kicks do nothing", name, accepted, st)
			}
			if cut == CutDoubt && st.PolicyCalls <= st.Rounds {
				t.Fatalf("%s: %d policy calls in %d rounds: no doubt scoring", name, st.PolicyCalls, st.Rounds)
			}
			opt.Workers = 3
			again, _, err := NeuralKicks(insts, tours, &lazymask.RandomL{}, opt)
			if err != nil {
				t.Fatal(err)
			}
			opt.Seed = 8
			other, _, err := NeuralKicks(insts, tours, &lazymask.RandomL{}, opt)
			if err != nil {
				t.Fatal(err)
			}
			differ := false
			for i := range got {
				if !slices.Equal(got[i].Tour, again[i].Tour) || got[i].Accepted != again[i].Accepted {
					t.Fatalf("%s: instance %d: %v then %v with the same seed", name, i, got[i].Tour, again[i].Tour)
				}
				differ = differ || !slices.Equal(got[i].Tour, other[i].Tour)
			}
			if !differ {
				t.Fatalf("%s: another seed gave the same tours everywhere", name)
			}
		}
	}
}

// TestNeuralKicksSamples: several re-decodes per kick, the best one
// descending: results replay as reported, are never worse than the start,
// and repeat under the seed.
func TestNeuralKicksSamples(t *testing.T) {
	insts, tours := kickFixture(t, lazymask.TSPDL, datasets.Hard, 20, 10)
	opt := KickOptions{Rounds: 4, Budget: 50, Samples: 4, Seed: 9, Workers: 2}
	a, st, err := NeuralKicks(insts, tours, &lazymask.RandomL{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := NeuralKicks(insts, tours, &lazymask.RandomL{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if !slices.Equal(a[i].Tour, b[i].Tour) {
			t.Fatalf("instance %d differs between runs", i)
		}
		if tours[i] == nil {
			continue
		}
		start, _ := lazymask.Check(insts[i], tours[i])
		res, _ := lazymask.Check(insts[i], a[i].Tour)
		if res.Verdict() != a[i].Verdict || start.Feasible && (!res.Feasible || res.Cost > start.Cost+1e-9) {
			t.Fatalf("instance %d: start %v %v, result %v %v", i, start.Feasible, start.Cost, res.Feasible, res.Cost)
		}
	}
	if st.Accepted == 0 {
		t.Fatalf("no kick accepted: %+v", st)
	}
}

// TestNeuralKicksErrors: bad arguments are refused with what is wrong.
func TestNeuralKicksErrors(t *testing.T) {
	insts, tours := kickFixture(t, lazymask.TSPTW, datasets.Medium, 12, 2)
	for _, c := range []struct {
		insts []*lazymask.Instance
		tours [][]int
		opt   KickOptions
		want  string
	}{
		{nil, nil, KickOptions{}, "no instances"},
		{insts, tours[:1], KickOptions{}, "1 tours for 2 instances"},
		{insts, tours, KickOptions{Rounds: -1}, "rounds is negative"},
		{insts, tours, KickOptions{MinKeep: 0.9, MaxKeep: 0.5}, "kept share"},
		{insts, tours, KickOptions{Samples: -1}, "samples is negative"},
		{insts, [][]int{{0, 1}, tours[1]}, KickOptions{Rounds: 1}, "instance 0"},
	} {
		if _, _, err := NeuralKicks(c.insts, c.tours, &lazymask.RandomL{}, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v", c.want, err)
		}
	}
	if _, err := ParseCutRule("worst"); err == nil || !strings.Contains(err.Error(), `"worst"`) {
		t.Errorf("ParseCutRule(worst): %v", err)
	}
}

// TestStepLogProbs: under the uniform policy each step's log-probability
// is −log of its candidate count (replayed independently); a tour the
// look-ahead refuses gets −Inf from the refused step on; nil tours are
// skipped.
func TestStepLogProbs(t *testing.T) {
	insts, tours, err := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPTW, N: 15, Hardness: datasets.Hard, Seed: 5}, 3)
	if err != nil {
		t.Fatal(err)
	}
	bad := slices.Clone(tours[1])
	bad[1], bad[len(bad)-1] = bad[len(bad)-1], bad[1]
	lp, err := StepLogProbs(lazymask.Uniform{}, insts, [][]int{tours[0], bad, nil}, lazymask.LookTSL)
	if err != nil {
		t.Fatal(err)
	}
	if lp[2] != nil || len(lp[0]) != insts[0].N-1 {
		t.Fatalf("got %d and %v entries, want %d and nil", len(lp[0]), lp[2], insts[0].N-1)
	}
	for i, tour := range [][]int{tours[0], bad} {
		s := lazymask.NewState(insts[i].N)
		s.Reset(insts[i], lazymask.LookTSL, lazymask.Unlimited, lazymask.Test)
		refused := false
		for k := 0; k+1 < len(tour); k++ {
			if refused || !s.Mask()[tour[k+1]] {
				refused = true
				if !math.IsInf(lp[i][k], -1) {
					t.Fatalf("tour %d step %d: %v after a refused step, want −Inf", i, k, lp[i][k])
				}
				continue
			}
			if want := -math.Log(float64(s.MaskCount())); math.Abs(lp[i][k]-want) > 1e-6 {
				t.Fatalf("tour %d step %d: %v, want %v", i, k, lp[i][k], want)
			}
			s.Step(tour[k+1])
		}
		if i == 1 && !refused {
			t.Log("the swapped tour stayed within the look-ahead")
		}
	}
}

// TestBridgeKicks: the guided double bridges keep feasible tours feasible
// and never raise their cost, improve some, and repeat under a seed
// whatever the workers; CutRandom needs no policy.
func TestBridgeKicks(t *testing.T) {
	insts, tours := kickFixture(t, lazymask.TSPTW, datasets.Medium, 20, 12)
	for _, c := range []struct {
		cut CutRule
		pol lazymask.Policy
	}{{CutRandom, nil}, {CutDoubt, &lazymask.RandomL{}}} {
		opt := KickOptions{Rounds: 8, Cut: c.cut, Seed: 3, Workers: 1,
			Search: localsearch.Options{Moves: []localsearch.MoveKind{localsearch.TwoOpt}, NoMerge: true}}
		got, st, err := BridgeKicks(insts, tours, c.pol, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range got {
			if tours[i] == nil {
				continue
			}
			start, _ := lazymask.Check(insts[i], tours[i])
			res, _ := lazymask.Check(insts[i], r.Tour)
			if res.Verdict() != r.Verdict || start.Feasible && (!res.Feasible || res.Cost > start.Cost+1e-9) {
				t.Fatalf("%v: instance %d: start %v %v, result %v %v (verdict %+v)", c.cut, i, start.Feasible, start.Cost, res.Feasible, res.Cost, r.Verdict)
			}
		}
		if st.Accepted == 0 || (c.cut == CutDoubt) != (st.PolicyCalls > 0) {
			t.Fatalf("%v: %+v", c.cut, st)
		}
		opt.Workers = 3
		again, _, err := BridgeKicks(insts, tours, c.pol, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if !slices.Equal(got[i].Tour, again[i].Tour) {
				t.Fatalf("%v: instance %d differs between runs", c.cut, i)
			}
		}
	}
	if _, _, err := BridgeKicks(insts, tours, nil, KickOptions{Rounds: 1, Cut: CutDoubt}); err == nil {
		t.Fatal("the doubt cut without a policy: no error")
	}
}

// guardedRedecoder fails the test where two searches use it at once.
type guardedRedecoder struct {
	t     *testing.T
	r     *Redecoder
	inUse atomic.Bool
}

func (g *guardedRedecoder) Redecode(in *lazymask.Instance, prefix []int, seed uint64) ([]int, error) {
	if !g.inUse.CompareAndSwap(false, true) {
		g.t.Error("a Redecoder serves two searches at once")
	}
	defer g.inUse.Store(false)
	return g.r.Redecode(in, prefix, seed)
}

// TestRedecoderInSearch: the Redecoder's tour is the LazyMask decode
// from the prefix with the call's seed as the sampling stream (one sample)
// and the best of its samples (several); Improve gives each search a
// Redecoder of its own, at most one per worker, and its fixed-kick
// searches with neural kicks repeat whatever the workers, every verdict
// the replay's, never worse than the start, and differ from the searches
// without neural kicks.
func TestRedecoderInSearch(t *testing.T) {
	t.Parallel()
	insts, tours := kickFixture(t, lazymask.TSPTW, datasets.Medium, 20, 12)
	budget := func(int) int { return 50 }
	for i, in := range insts {
		if tours[i] == nil {
			continue
		}
		prefix := tours[i][:8]
		r := NewRedecoder(&lazymask.RandomL{}, RedecodeOptions{Budget: budget})
		got, err := r.Redecode(in, prefix, uint64(40+i))
		if err != nil {
			t.Fatal(err)
		}
		want, err := lazymask.Decode(&lazymask.RandomL{}, []*lazymask.Instance{in}, 1,
			lazymask.Config{Budget: 50, Streams: []uint64{uint64(40 + i)}, Prefixes: [][]int{prefix}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want[0].Tour) {
			t.Fatalf("instance %d: Redecoder %v, decode %v", i, got, want[0].Tour)
		}
		r4 := NewRedecoder(&lazymask.RandomL{}, RedecodeOptions{Budget: budget, Samples: 4})
		best, err := r4.Redecode(in, prefix, uint64(40+i))
		if err != nil {
			t.Fatal(err)
		}
		var streams []uint64
		for j := range 4 {
			streams = append(streams, sampleSeed(uint64(40+i), j))
		}
		all, err := lazymask.Decode(&lazymask.RandomL{}, []*lazymask.Instance{in}, 4,
			lazymask.Config{Budget: 50, Streams: streams, Prefixes: [][]int{prefix, prefix, prefix, prefix}})
		if err != nil {
			t.Fatal(err)
		}
		if bc, _ := lazymask.Check(in, best); best != nil {
			for j, tr := range all {
				if tr.Feasible && (!bc.Feasible || tr.Cost < bc.Cost-1e-12) {
					t.Fatalf("instance %d: sample %d (cost %v) beats the Redecoder's best (feasible %v, %v)", i, j, tr.Cost, bc.Feasible, bc.Cost)
				}
			}
		}
		if st := r4.Stats(); st.Kicks != 1 || st.PolicyCalls == 0 {
			t.Fatalf("instance %d: stats %+v", i, st)
		}
	}

	var jobs []Job
	for i, in := range insts {
		jobs = append(jobs, Job{Inst: in, Starts: [][]int{tours[i]}, Seed: uint64(i)})
	}
	search := localsearch.Options{Kicks: 30, NeuralEvery: 3}
	run := func(workers int, neural bool) ([]Result, Stats, int) {
		var mu sync.Mutex
		made := 0
		opt := Options{Search: search, Workers: workers}
		if neural {
			opt.NewRedecoder = func() localsearch.Redecoder {
				mu.Lock()
				made++
				mu.Unlock()
				return &guardedRedecoder{t: t, r: NewRedecoder(&lazymask.RandomL{}, RedecodeOptions{Budget: budget})}
			}
		}
		out, st, err := Improve(context.Background(), jobs, opt)
		if err != nil {
			t.Fatal(err)
		}
		return out, st, made
	}
	one, st1, made1 := run(1, true)
	three, st3, made3 := run(3, true)
	off, stOff, _ := run(3, false)
	st1.Elapsed, st3.Elapsed = 0, 0 // wall time
	if made1 != 1 || made3 < 1 || made3 > 3 {
		t.Fatalf("%d Redecoders for 1 worker, %d for 3", made1, made3)
	}
	if st1.NeuralKicks == 0 || st1 != st3 || stOff.NeuralKicks != 0 {
		t.Fatalf("stats: 1 worker %+v, 3 workers %+v, without %+v", st1, st3, stOff)
	}
	differ := 0
	for i, r := range one {
		if !slices.Equal(r.Search.Tour, three[i].Search.Tour) {
			t.Fatalf("job %d: 1 worker %v, 3 workers %v", i, r.Search.Tour, three[i].Search.Tour)
		}
		if !r.Searched {
			continue
		}
		chk, _ := lazymask.Check(insts[i], r.Search.Tour)
		if r.Final != chk.Verdict() || lazymask.Compare(r.Final, r.Given) > 0 {
			t.Fatalf("job %d: final %+v, replay %+v, given %+v", i, r.Final, chk.Verdict(), r.Given)
		}
		if !slices.Equal(r.Search.Tour, off[i].Search.Tour) || r.Search.Evaluations != off[i].Search.Evaluations {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("the neural kicks changed no search")
	}
}
