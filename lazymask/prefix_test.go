package lazymask

import (
	"slices"
	"strings"
	"testing"
)

// TestDecode_Prefixes: a trajectory given the first k nodes of a feasible
// tour keeps them (the prefix fits TSL; the decode's Steps record them as
// chosen) and completes the tour feasibly; a prefix the look-ahead refuses
// is followed only up to that node; a malformed prefix is an error.
func TestDecode_Prefixes(t *testing.T) {
	tw, dl := bothProblems(77, 12)
	for _, insts := range [][]*Instance{tw, dl} {
		base, err := Decode(&RandomL{}, insts, 1, Config{Budget: Unlimited, Greedy: true})
		if err != nil {
			t.Fatal(err)
		}
		prefixes := make([][]int, len(insts))
		cut := 0
		for i, b := range base {
			if b.Feasible {
				prefixes[i] = b.Tour[:1+i%(insts[i].N-1)]
				cut++
			}
		}
		if cut < len(insts)/2 {
			t.Fatalf("%v: %d of %d greedy tours feasible, too few to cut", insts[0].Problem, cut, len(insts))
		}
		got, err := Decode(Uniform{}, insts, 1, Config{Budget: Unlimited, Seed: 5, Prefixes: prefixes, Record: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			if prefixes[i] == nil {
				continue
			}
			if !g.Feasible {
				t.Fatalf("%v instance %d: re-decode from a feasible prefix gave no feasible tour", insts[i].Problem, i)
			}
			if res, err := Check(insts[i], g.Tour); err != nil || !res.Feasible || res.Cost != g.Cost {
				t.Fatalf("%v instance %d: replay %+v, %v; decode said cost %v", insts[i].Problem, i, res, err, g.Cost)
			}
			if !slices.Equal(g.Tour[:len(prefixes[i])], prefixes[i]) && g.Backtracks == 0 {
				t.Fatalf("%v instance %d: prefix %v not kept without backtracking: %v", insts[i].Problem, i, prefixes[i], g.Tour)
			}
			for k, st := range g.Steps {
				if st.Chosen != g.Tour[k+1] {
					t.Fatalf("%v instance %d: step %d chose %d, tour has %d", insts[i].Problem, i, k, st.Chosen, g.Tour[k+1])
				}
			}
		}
		// Same seed, same prefixes: same tours; the trajectories differ
		// from a decode from the depot.
		again, err := Decode(Uniform{}, insts, 1, Config{Budget: Unlimited, Seed: 5, Prefixes: prefixes})
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if !slices.Equal(got[i].Tour, again[i].Tour) {
				t.Fatalf("instance %d: %v then %v with the same seed", i, got[i].Tour, again[i].Tour)
			}
		}
	}

	// A node the look-ahead refuses at the depot: the prefix is followed
	// up to it, not past.
	in := tw[0]
	s := NewState(in.N)
	if err := s.Reset(in, LookTSL, Unlimited, Test); err != nil {
		t.Fatal(err)
	}
	pick := -1
	for j, ok := range s.Mask() {
		if !ok && j != 0 {
			pick = j
			break
		}
	}
	if pick < 0 {
		t.Skip("every node is a first candidate of this instance")
	}
	if err := s.Follow([]int{0, pick, 1}); err != nil || s.Depth() != 0 {
		t.Fatalf("prefix through a refused node: depth %d, %v; want 0, nil", s.Depth(), err)
	}
	for _, c := range []struct {
		prefix []int
		want   string
	}{{[]int{3}, "want the depot"}, {[]int{0, in.N}, "names node"}} {
		s.Reset(in, LookTSL, Unlimited, Test)
		if err := s.Follow(c.prefix); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("prefix %v: %v, want an error with %q", c.prefix, err, c.want)
		}
	}
	if _, err := Decode(Uniform{}, tw[:2], 1, Config{Prefixes: [][]int{{0}}}); err == nil || !strings.Contains(err.Error(), "1 prefixes for 2") {
		t.Fatalf("prefix count mismatch: %v", err)
	}
}
