package solve

import (
	"errors"
	"slices"
	"strings"
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
