package lazymask

import (
	"math"
	"testing"
)

// fuzzCase turns fuzz inputs into an instance and a decoding setup.
func fuzzCase(seed uint64, size uint8, flags uint8, budget int16) (*Instance, Policy, Config) {
	r := newRand(seed)
	budgetR := max(int(budget)%64, Unlimited)
	n := 3 + int(size)%12
	if budgetR == Unlimited {
		n = 3 + int(size)%7 // an exhaustive search stays small
	}
	var in *Instance
	switch flags % 3 {
	case 0:
		in = smallTSPTW(r, n)
	case 1:
		in = smallTSPDL(r, n)
	default:
		in = hardTSPTW(r, n, 0.2+r.Float64())
	}
	var p Policy
	switch (flags / 3) % 3 {
	case 0:
		p = Uniform{}
	case 1:
		p = &RandomL{}
	default:
		p = &RandomC{}
	}
	cfg := Config{
		Lookahead: Lookahead((flags / 9) % 3),
		Budget:    budgetR,
		Greedy:    flags&0x40 != 0,
		Seed:      seed,
		Record:    true,
	}
	if flags&0x80 != 0 {
		cfg.Semantics = Train
	}
	return in, p, cfg
}

func addSeeds(f *testing.F) {
	for i := 0; i < 24; i++ {
		f.Add(uint64(i*7919+1), uint8(i*5), uint8(i*37), int16(i%7*4-1))
	}
}

// FuzzDecode checks the decoder's invariants on random instances and
// policies: no revisits, the budget is honoured, time or load never
// decreases along the kept prefix, the records match the tour, Train
// semantics always completes, and with a look-ahead and Test semantics every
// complete tour is feasible.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, seed uint64, size uint8, flags uint8, budget int16) {
		in, p, cfg := fuzzCase(seed, size, flags, budget)
		tr, err := Decode(p, []*Instance{in}, 3, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range tr {
			nodes := g.Tour
			if g.Failed {
				nodes = g.Partial
				if cfg.Semantics == Train {
					t.Fatalf("train semantics failed: %+v", g)
				}
				if g.Tour != nil || g.Feasible || !math.IsInf(g.Cost, 1) {
					t.Fatalf("failed trajectory reports a tour: %+v", g)
				}
			} else {
				res, err := Check(in, g.Tour)
				if _, malformed := err.(*TourError); malformed {
					t.Fatalf("malformed tour %v: %v", g.Tour, err)
				}
				if res.Feasible != g.Feasible || res.Cost != g.Cost {
					t.Fatalf("trajectory disagrees with Check: %+v vs %+v", g, res)
				}
				if cfg.Lookahead != LookNone && cfg.Semantics == Test && !g.Feasible {
					t.Fatalf("look-ahead %v produced an infeasible complete tour %v", cfg.Lookahead, g.Tour)
				}
			}
			seen := make([]bool, in.N)
			for _, v := range nodes {
				if seen[v] {
					t.Fatalf("node %d revisited in %v", v, nodes)
				}
				seen[v] = true
			}
			limit := cfg.Budget
			if cfg.Semantics == Train {
				limit += in.N // pops of stored empty sets may follow the last budgeted one
			}
			if cfg.Budget != Unlimited && g.Backtracks > limit {
				t.Fatalf("%d backtracks with budget %d (%v)", g.Backtracks, cfg.Budget, cfg.Semantics)
			}
			if len(g.Steps) != len(nodes)-1 {
				t.Fatalf("%d records for %d kept nodes", len(g.Steps), len(nodes))
			}
			prev := -1.0
			for k, s := range g.Steps {
				if s.Current != nodes[k] || s.Chosen != nodes[k+1] || !s.Mask[s.Chosen] {
					t.Fatalf("record %d %+v does not match kept nodes %v", k, s, nodes)
				}
				if s.State < prev {
					t.Fatalf("state decreased from %v to %v at step %d", prev, s.State, k)
				}
				prev = s.State
			}
		}
	})
}

// FuzzState drives a State step by step with a seeded chooser and checks
// each transition: an empty set never yields Forward (except the Train
// relaxation at the depot), a backtrack pops exactly one node and counts
// one, offered nodes are unvisited, and a set refined by backtracking stays
// inside a freshly computed look-ahead set.
func FuzzState(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, seed uint64, size uint8, flags uint8, budget int16) {
		in, _, cfg := fuzzCase(seed, size, flags, budget)
		s := NewState(2)
		if err := s.Reset(in, cfg.Lookahead, cfg.Budget, cfg.Semantics); err != nil {
			t.Fatal(err)
		}
		rng := seed
		fresh := make([]bool, in.N)
		for iter := 0; iter < 100000; iter++ {
			empty, depth, bt := s.MaskCount() == 0, s.Depth(), s.Backtracks()
			mv := s.Next()
			switch mv {
			case Finished:
				if s.Status() == Running {
					t.Fatal("finished while running")
				}
				if s.Status() == Complete && (len(s.Prefix()) != in.N || !empty) {
					t.Fatalf("complete with prefix %v", s.Prefix())
				}
				return
			case Backtracked:
				if !empty || s.Depth() != depth-1 || s.Backtracks() != bt+1 {
					t.Fatalf("bad backtrack: empty %v depth %d→%d backtracks %d→%d", empty, depth, s.Depth(), bt, s.Backtracks())
				}
				if cfg.Budget != Unlimited && cfg.Semantics == Test && s.Backtracks() >= cfg.Budget {
					t.Fatal("running after the budget-spending pop under Test semantics")
				}
				continue
			case Forward:
				if empty && !(cfg.Semantics == Train && depth == 0 && s.BudgetReached()) {
					t.Fatalf("forward from an empty set at depth %d", depth)
				}
			}
			m := s.Mask()
			var cands []int
			for j, ok := range m {
				if ok {
					if s.Visited()[j] {
						t.Fatalf("visited node %d offered", j)
					}
					cands = append(cands, j)
				}
			}
			if len(cands) != s.MaskCount() || len(cands) == 0 {
				t.Fatalf("count %d for candidates %v", s.MaskCount(), cands)
			}
			if !s.BudgetReached() {
				LookaheadMask(in, cfg.Lookahead, s.Visited(), s.Current(), s.Value(), fresh)
				for _, j := range cands {
					if !fresh[j] {
						t.Fatalf("candidate %d outside the fresh look-ahead set %v", j, maskNodes(fresh))
					}
				}
			}
			before := s.Value()
			pick := cands[int(uniform(&rng)*float64(len(cands)))]
			if err := s.Step(pick); err != nil {
				t.Fatal(err)
			}
			if s.Value() < before || s.Current() != pick || !s.Visited()[pick] {
				t.Fatalf("step to %d: value %v→%v", pick, before, s.Value())
			}
			if err := s.Step(0); err == nil && s.Status() == Running {
				t.Fatal("stepping to the depot was accepted")
			}
		}
		t.Fatal("no end after 100000 transitions")
	})
}
