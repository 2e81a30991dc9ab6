package lazymask

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// trap is a TSPDL instance where port 3 (draft 1/3) must come first; SSL
// only notices after a wrong first move, so greedy lowest-index decoding
// backtracks twice before it finds 0-3-1-2.
func trap() *Instance {
	third := 1.0 / 3
	return &Instance{Problem: TSPDL, N: 4, Scale: 1,
		X: []float64{0, 1, 1, 0}, Y: []float64{0, 0, 1, 1},
		Demand: []float64{0, third, third, third}, Draft: []float64{1, 1, 1, third}}
}

func TestDecode_BacktrackSemantics(t *testing.T) {
	cases := []struct {
		name       string
		look       Lookahead
		sem        Semantics
		budget     int
		tour       []int // nil when failed
		partial    []int
		feasible   bool
		backtracks int
		violation  float64
	}{
		{"test unlimited", LookSSL, Test, Unlimited, []int{0, 3, 1, 2}, nil, true, 2, 0},
		{"test R=3", LookSSL, Test, 3, []int{0, 3, 1, 2}, nil, true, 2, 0},
		{"test R=2", LookSSL, Test, 2, nil, []int{0}, false, 2, 0},
		{"test R=1", LookSSL, Test, 1, nil, []int{0}, false, 1, 0},
		{"test R=0", LookSSL, Test, 0, nil, []int{0, 1}, false, 0, 0},
		{"train R=0", LookSSL, Train, 0, []int{0, 1, 2, 3}, nil, false, 0, 2.0 / 3},
		{"train R=1", LookSSL, Train, 1, []int{0, 2, 1, 3}, nil, false, 1, 2.0 / 3},
		{"train R=2", LookSSL, Train, 2, []int{0, 3, 1, 2}, nil, true, 2, 0},
		{"train unlimited", LookSSL, Train, Unlimited, []int{0, 3, 1, 2}, nil, true, 2, 0},
		{"tsl no backtrack", LookTSL, Test, 0, []int{0, 3, 1, 2}, nil, true, 0, 0},
		{"none", LookNone, Test, Unlimited, []int{0, 1, 2, 3}, nil, false, 0, 2.0 / 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Decode(Uniform{}, []*Instance{trap()}, 1,
				Config{Lookahead: c.look, Budget: c.budget, Semantics: c.sem, Greedy: true})
			if err != nil {
				t.Fatal(err)
			}
			g := tr[0]
			if !reflect.DeepEqual(g.Tour, c.tour) || !reflect.DeepEqual(g.Partial, c.partial) ||
				g.Failed != (c.tour == nil) || g.Feasible != c.feasible || g.Backtracks != c.backtracks ||
				math.Abs(g.Violation-c.violation) > 1e-12 {
				t.Fatalf("got tour %v partial %v failed %v feasible %v backtracks %d violation %v",
					g.Tour, g.Partial, g.Failed, g.Feasible, g.Backtracks, g.Violation)
			}
			if g.Failed && !math.IsInf(g.Cost, 1) {
				t.Fatalf("failed trajectory has cost %v, want +Inf", g.Cost)
			}
			// The unit square: 0-1-2-3 is its perimeter 4; 0-3-1-2 and
			// 0-2-1-3 use both diagonals, 2+2√2.
			wantCost := 2 + 2*math.Sqrt2
			if reflect.DeepEqual(c.tour, []int{0, 1, 2, 3}) {
				wantCost = 4
			}
			if !g.Failed && math.Abs(g.Cost-wantCost) > 1e-12 {
				t.Fatalf("cost %v, want %v", g.Cost, wantCost)
			}
		})
	}
}

func TestDecode_RecordKeepsSurvivingSteps(t *testing.T) {
	tr, err := Decode(Uniform{}, []*Instance{trap()}, 1,
		Config{Lookahead: LookSSL, Budget: 1, Semantics: Train, Greedy: true, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	third := 1.0 / 3
	want := []StepRecord{
		// The depot's set lost node 1 (refined once); the budget was spent.
		{Current: 0, State: 0, Refine: 1, Budget: true, Mask: []bool{false, false, true, true}, Chosen: 2},
		// The new SSL set at port 2 was empty and relaxed to the unvisited.
		{Current: 2, State: third, Refine: 0, Budget: true, Mask: []bool{false, true, false, true}, Chosen: 1},
		{Current: 1, State: 2 * third, Refine: 0, Budget: true, Mask: []bool{false, false, false, true}, Chosen: 3},
	}
	if got := tr[0].Steps; !reflect.DeepEqual(got, want) {
		t.Fatalf("steps\n got %+v\nwant %+v", got, want)
	}
	// Unlimited: the kept steps skip the abandoned branches 0→1 and 0→2.
	tr, _ = Decode(Uniform{}, []*Instance{trap()}, 1,
		Config{Lookahead: LookSSL, Budget: Unlimited, Greedy: true, Record: true})
	s := tr[0].Steps
	if len(s) != 3 || s[0].Refine != 2 || s[0].Budget || s[0].Chosen != 3 ||
		!reflect.DeepEqual(s[0].Mask, []bool{false, false, false, true}) || s[1].Chosen != 1 || s[2].Chosen != 2 {
		t.Fatalf("unlimited steps %+v", s)
	}
}

func TestDecode_DepotExhausted(t *testing.T) {
	in := &Instance{Problem: TSPDL, N: 3, Scale: 1, X: []float64{0, 1, 0}, Y: []float64{0, 0, 1},
		Demand: []float64{0, 0.5, 0.5}, Draft: []float64{1, 0.4, 0.4}}
	tr, err := Decode(Uniform{}, []*Instance{in}, 1, Config{Budget: Unlimited, Greedy: true})
	if err != nil {
		t.Fatal(err)
	}
	if !tr[0].Failed || tr[0].Backtracks != 0 || !reflect.DeepEqual(tr[0].Partial, []int{0}) {
		t.Fatalf("test semantics: %+v, want failed at the depot", tr[0])
	}
	tr, _ = Decode(Uniform{}, []*Instance{in}, 1, Config{Budget: Unlimited, Semantics: Train, Greedy: true, Record: true})
	if tr[0].Failed || !reflect.DeepEqual(tr[0].Tour, []int{0, 1, 2}) || tr[0].Feasible || !tr[0].Steps[0].Budget {
		t.Fatalf("train semantics: %+v, want the relaxed complete tour 0-1-2", tr[0])
	}
	if math.Abs(tr[0].Violation-(0.1+0.6)) > 1e-12 || tr[0].ViolatedNodes != 2 {
		t.Fatalf("violation %v nodes %d, want 0.7 and 2", tr[0].Violation, tr[0].ViolatedNodes)
	}
}

// TestDecode_BruteForce: with an unlimited budget under Test semantics, TSL
// and SSL decoding finds a feasible tour iff one exists, for several
// policies; Train semantics always completes.
func TestDecode_BruteForce(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 20
	}
	policies := []struct {
		name   string
		p      Policy
		greedy bool
	}{{"uniform", Uniform{}, false}, {"random-l greedy", &RandomL{}, true}, {"random-c", &RandomC{}, false}}
	for seed := 0; seed < seeds; seed++ {
		for _, dl := range []bool{false, true} {
			in := smallInstance(newRand(uint64(seed)), 4+seed%5, dl)
			feas, best := bruteForce(in)
			for _, look := range []Lookahead{LookTSL, LookSSL} {
				for _, pc := range policies {
					name := fmt.Sprintf("seed %d %v n=%d %v %s", seed, in.Problem, in.N, look, pc.name)
					tr, err := Decode(pc.p, []*Instance{in}, 3, Config{Lookahead: look, Budget: Unlimited,
						Greedy: pc.greedy, Seed: uint64(seed)})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for _, g := range tr {
						if g.Feasible != (len(feas) > 0) || g.Failed != (len(feas) == 0) {
							t.Fatalf("%s: feasible %v failed %v, brute force has %d feasible tours",
								name, g.Feasible, g.Failed, len(feas))
						}
						if g.Feasible {
							if res, err := Check(in, g.Tour); err != nil || !res.Feasible || res.Cost < best-1e-9 {
								t.Fatalf("%s: tour %v: %v (cost %v, best %v)", name, g.Tour, err, res.Cost, best)
							}
						}
					}
				}
				tr, err := Decode(Uniform{}, []*Instance{in}, 2, Config{Lookahead: look, Budget: 3, Semantics: Train, Seed: 9})
				if err != nil {
					t.Fatal(err)
				}
				for _, g := range tr {
					if g.Failed || len(g.Tour) != in.N {
						t.Fatalf("seed %d %v: train semantics did not complete: %+v", seed, look, g)
					}
				}
			}
		}
	}
}

// TestDecode_ReachesEveryFeasibleTour: uniform sampling with TSL and an
// unlimited budget reaches every feasible tour of tiny instances, and
// nothing else.
func TestDecode_ReachesEveryFeasibleTour(t *testing.T) {
	checked := 0
	for seed := 0; checked < 6 && seed < 200; seed++ {
		for _, dl := range []bool{false, true} {
			in := smallInstance(newRand(uint64(1000+seed)), 5, dl)
			feas, _ := bruteForce(in)
			if len(feas) < 2 {
				continue
			}
			checked++
			tr, err := Decode(Uniform{}, []*Instance{in}, 1500, Config{Budget: Unlimited, Seed: uint64(seed)})
			if err != nil {
				t.Fatal(err)
			}
			want := map[uint64]bool{}
			for _, f := range feas {
				want[tourKey(f)] = true
			}
			got := map[uint64]bool{}
			for _, g := range tr {
				if !g.Feasible || !want[tourKey(g.Tour)] {
					t.Fatalf("seed %d: tour %v not feasible", seed, g.Tour)
				}
				got[tourKey(g.Tour)] = true
			}
			if len(got) != len(want) {
				t.Fatalf("seed %d %v: reached %d of %d feasible tours", seed, in.Problem, len(got), len(want))
			}
		}
	}
	if checked < 6 {
		t.Fatalf("only %d instances with ≥2 feasible tours", checked)
	}
}

func TestDecode_Reproducible(t *testing.T) {
	r := newRand(77)
	a, b, c, b2 := hardTSPTW(r, 20, 1), hardTSPTW(r, 20, 1), hardTSPTW(r, 20, 1), hardTSPTW(r, 20, 1)
	cfg := Config{Budget: 50, Seed: 5, Record: true}
	run := func(p Policy, insts []*Instance, cfg Config) []Trajectory {
		t.Helper()
		tr, err := NewDecoder().Decode(p, insts, 4, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	all := run(&RandomL{}, []*Instance{a, b, c}, cfg)
	if again := run(&RandomL{}, []*Instance{a, b, c}, cfg); !reflect.DeepEqual(all, again) {
		t.Fatal("sampling with the same seed differs")
	}
	if alone := run(&RandomL{}, []*Instance{a}, cfg); !reflect.DeepEqual(alone, all[:4]) {
		t.Fatal("trajectories of instance 0 depend on the other instances")
	}
	mixed := run(&RandomL{}, []*Instance{a, b2, c}, cfg)
	if !reflect.DeepEqual(mixed[:4], all[:4]) || !reflect.DeepEqual(mixed[8:], all[8:]) {
		t.Fatal("trajectories depend on which other trajectories run in the batch")
	}
	cfg.Seed = 6
	other := run(&RandomL{}, []*Instance{a, b, c}, cfg)
	if reflect.DeepEqual(other, all) {
		t.Fatal("a different seed gave identical samples")
	}
	cfg.Greedy = true
	g1, g2 := run(&RandomL{}, []*Instance{a, b, c}, cfg), run(&RandomL{}, []*Instance{a, b, c}, Config{Budget: 50, Seed: 99, Greedy: true, Record: true})
	if !reflect.DeepEqual(g1, g2) {
		t.Fatal("greedy decoding depends on the seed")
	}
	for i := 1; i < 4; i++ {
		if !reflect.DeepEqual(g1[i], Trajectory{Inst: 0, Tour: g1[0].Tour, Partial: g1[0].Partial, Failed: g1[0].Failed,
			Feasible: g1[0].Feasible, Cost: g1[0].Cost, Violation: g1[0].Violation, ViolatedNodes: g1[0].ViolatedNodes,
			Backtracks: g1[0].Backtracks, Steps: g1[0].Steps}) {
			t.Fatal("greedy copies of one instance differ")
		}
	}
}

// TestDecode_Batches checks what the policy is sent: forward rows only, one
// call per iteration, consistent row fields, candidate sets without
// visited nodes.
func TestDecode_Batches(t *testing.T) {
	insts := []*Instance{hardTSPTW(newRand(1), 15, 0.5), hardTSPTW(newRand(2), 15, 0.5)}
	rec := &recorder{inner: &RandomL{}}
	var rie [RIEDim]float32
	rec.onStep = func(b *StepBatch) {
		for r := 0; r < b.Rows(); r++ {
			m := b.MaskRow(r)
			any := false
			for _, ok := range m {
				any = any || ok
			}
			if !any || m[0] || m[b.Current[r]] || b.Inst[r] != b.Traj[r]/3 {
				t.Fatalf("row %d: bad row (mask %v current %d inst %d traj %d)", r, maskNodes(m), b.Current[r], b.Inst[r], b.Traj[r])
			}
			if (b.NumSteps[r] == 0) != (b.Current[r] == 0) {
				t.Fatalf("row %d: depth %d at node %d", r, b.NumSteps[r], b.Current[r])
			}
			b.RIERow(r, rie[:])
			c := min(b.Refine[r], 4)
			if rie[c] != 1 || (rie[6] == 1) != b.Budget[r] || (rie[5] == 1) == b.Budget[r] {
				t.Fatalf("row %d: RIE %v for refine %d budget %v", r, rie, b.Refine[r], b.Budget[r])
			}
		}
	}
	tr, err := Decode(rec, insts, 3, Config{Budget: 30, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for _, g := range tr {
		if !g.Failed {
			steps += 14
		}
	}
	if rec.calls < 14 || rec.rows < steps {
		t.Fatalf("%d calls, %d rows for %d kept steps", rec.calls, rec.rows, steps)
	}
}

type failingPolicy struct{ Uniform }

func (failingPolicy) Scores(*StepBatch, []float32) error { return errors.New("device lost") }

func TestDecode_Errors(t *testing.T) {
	good := []*Instance{triangle()}
	bad := triangle()
	bad.Late[2] = math.NaN()
	cases := []struct {
		name    string
		p       Policy
		insts   []*Instance
		perInst int
		cfg     Config
		want    string
	}{
		{"no instances", Uniform{}, nil, 1, Config{}, "decode: no instances"},
		{"per instance", Uniform{}, good, 0, Config{}, "decode: 0 trajectories per instance, want ≥ 1"},
		{"sizes", Uniform{}, []*Instance{triangle(), fourPorts()}, 1, Config{}, `decode: instance 1 ("") has 4 nodes, instance 0 has 3`},
		{"invalid", Uniform{}, []*Instance{triangle(), bad}, 1, Config{}, `decode: instance 1 (""): field late, node 2: not a finite number (value NaN)`},
		{"budget", Uniform{}, good, 1, Config{Budget: -2}, "decode: backtrack budget -2: want -1 (unlimited) or a count ≥ 0"},
		{"lookahead", Uniform{}, good, 1, Config{Lookahead: 9}, "decode: unknown lookahead 9"},
		{"policy", failingPolicy{}, good, 1, Config{}, "decode: policy scores (1 rows): device lost"},
	}
	for _, c := range cases {
		_, err := Decode(c.p, c.insts, c.perInst, c.cfg)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
	var fe *FieldError
	if _, err := Decode(Uniform{}, []*Instance{bad}, 1, Config{}); !errors.As(err, &fe) {
		t.Errorf("invalid instance error %v does not wrap *FieldError", err)
	}
}

// With Config.Streams, a trajectory's sampled tour depends on its stream
// seed only: instance b decoded second in a batch and alone gives the same
// tours when it keeps its streams, and other tours with other streams.
func TestDecode_Streams(t *testing.T) {
	a, b := hardTSPTW(newRand(3), 12, 5), hardTSPTW(newRand(4), 12, 5)
	streams := []uint64{11, 12, 13, 21, 22, 23}
	both, err := Decode(&RandomL{}, []*Instance{a, b}, 3, Config{Budget: 20, Streams: streams})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Decode(&RandomL{}, []*Instance{b}, 3, Config{Budget: 20, Streams: streams[3:]})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 3; k++ {
		if !reflect.DeepEqual(both[3+k].Tour, alone[k].Tour) || both[3+k].Backtracks != alone[k].Backtracks {
			t.Errorf("sample %d: %v in the batch, %v alone", k, both[3+k].Tour, alone[k].Tour)
		}
	}
	// The plain Seed keys streams to the batch position instead.
	bySeed, _ := Decode(&RandomL{}, []*Instance{b}, 3, Config{Budget: 20, Seed: 1})
	other, _ := Decode(&RandomL{}, []*Instance{b}, 3, Config{Budget: 20, Streams: []uint64{91, 92, 93}})
	same := 0
	for k := 0; k < 3; k++ {
		if reflect.DeepEqual(bySeed[k].Tour, alone[k].Tour) {
			same++
		}
		if reflect.DeepEqual(other[k].Tour, alone[k].Tour) {
			same++
		}
	}
	if same == 6 {
		t.Error("the stream seeds change no tour")
	}
	if _, err := Decode(&RandomL{}, []*Instance{a, b}, 3, Config{Streams: streams[:5]}); err == nil || !strings.Contains(err.Error(), "5 stream seeds for 6 trajectories") {
		t.Errorf("short Streams: %v", err)
	}
}

// sameTrajectories decodes every instance list under every config once
// with one Decode and then with each variant (a fresh one per list and
// config, called twice so the second call reuses its buffers), and fails
// on any difference, or if no trajectory backtracked.
func sameTrajectories(t *testing.T, lists [][]*Instance, perInst int, cfgs []Config, variants map[string]func() func([]*Instance, Config) ([]Trajectory, error)) {
	t.Helper()
	backtracked := 0
	for _, insts := range lists {
		for _, cfg := range cfgs {
			one, err := NewDecoder().Decode(&RandomL{}, insts, perInst, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range one {
				backtracked += tr.Backtracks
			}
			for name, variant := range variants {
				decode := variant()
				for rep := 0; rep < 2; rep++ {
					got, err := decode(insts, cfg)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, one) {
						t.Fatalf("%v, %+v, %s (call %d): trajectories differ from one decode's", insts[0].Problem, cfg, name, rep+1)
					}
				}
			}
		}
	}
	if backtracked == 0 {
		t.Fatal("no trajectory backtracked: the test does not cover backtracking")
	}
}

// bothProblems returns count hard TSPTW and count TSPDL instances of 20
// nodes drawn from seed.
func bothProblems(seed uint64, count int) (tw, dl []*Instance) {
	r := newRand(seed)
	for i := 0; i < count; i++ {
		tw = append(tw, hardTSPTW(r, 20, 0.5))
		dl = append(dl, smallTSPDL(r, 20))
	}
	return tw, dl
}

// TestDecode_WorkersSameTrajectories: advancing the rows on several
// goroutines gives the trajectories of one goroutine, sampled and greedy,
// with backtracking, on both problems.
func TestDecode_WorkersSameTrajectories(t *testing.T) {
	tw, dl := bothProblems(31, 24)
	variants := map[string]func() func([]*Instance, Config) ([]Trajectory, error){}
	for _, workers := range []int{2, 3, 8} {
		variants[fmt.Sprintf("%d workers", workers)] = func() func([]*Instance, Config) ([]Trajectory, error) {
			dc := &Decoder{Workers: workers}
			return func(insts []*Instance, cfg Config) ([]Trajectory, error) { return dc.Decode(&RandomL{}, insts, 8, cfg) }
		}
	}
	sameTrajectories(t, [][]*Instance{tw, dl}, 8, []Config{{Budget: 30, Seed: 3, Record: true}, {Budget: 5, Greedy: true, Record: true},
		{Budget: 10, Semantics: Train, Seed: 4, Record: true}}, variants)
}
