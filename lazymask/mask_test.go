package lazymask

import (
	"fmt"
	"testing"
)

func maskNodes(m []bool) []int {
	var out []int
	for j, ok := range m {
		if ok {
			out = append(out, j)
		}
	}
	return out
}

func TestLookaheadMask_Hand(t *testing.T) {
	cases := []struct {
		name    string
		inst    *Instance
		look    Lookahead
		visited []bool
		cur     int
		value   float64
		want    string
	}{
		// Node 2 first arrives at √2 and then node 1 at √2+1 > 1: TSL drops 2.
		{"tsptw tsl depot", triangle(), LookTSL, []bool{true, false, false}, 0, 0, "[1]"},
		{"tsptw ssl depot", triangle(), LookSSL, []bool{true, false, false}, 0, 0, "[1 2]"},
		{"tsptw none depot", triangle(), LookNone, []bool{true, false, false}, 0, 0, "[1 2]"},
		// At node 2 at time √2, node 1 (l=1) is already lost.
		{"tsptw ssl lost", triangle(), LookSSL, []bool{true, false, true}, 2, 1.5, "[]"},
		{"tsptw tsl lost", triangle(), LookTSL, []bool{true, false, true}, 2, 1.5, "[]"},
		{"tsptw tsl last", triangle(), LookTSL, []bool{true, true, false}, 1, 1, "[2]"},
		// Draft 1/3 at port 1 forces it first.
		{"tspdl tsl depot", fourPorts(), LookTSL, []bool{true, false, false, false}, 0, 0, "[1]"},
		{"tspdl ssl depot", fourPorts(), LookSSL, []bool{true, false, false, false}, 0, 0, "[1 2 3]"},
		{"tspdl tsl after 1", fourPorts(), LookTSL, []bool{true, true, false, false}, 1, 1.0 / 3, "[3]"},
		{"tspdl ssl lost", fourPorts(), LookSSL, []bool{true, false, true, false}, 2, 1.0 / 3, "[]"},
		{"tspdl tsl lost", fourPorts(), LookTSL, []bool{true, false, true, false}, 2, 1.0 / 3, "[]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := make([]bool, c.inst.N)
			for i := range dst {
				dst[i] = true // must be overwritten
			}
			n := LookaheadMask(c.inst, c.look, c.visited, c.cur, c.value, dst)
			got := fmt.Sprint(maskNodes(dst))
			if got != c.want || n != len(maskNodes(dst)) {
				t.Fatalf("mask %s (count %d), want %s", got, n, c.want)
			}
		})
	}
}

func TestParseLookahead(t *testing.T) {
	for _, l := range []Lookahead{LookTSL, LookSSL, LookNone} {
		got, err := ParseLookahead(l.String())
		if err != nil || got != l {
			t.Fatalf("ParseLookahead(%q) = %v, %v", l.String(), got, err)
		}
	}
	if _, err := ParseLookahead("l3"); err == nil {
		t.Fatal("ParseLookahead(l3) accepted")
	}
	var c Config
	if c.Lookahead != LookTSL {
		t.Fatal("the zero Config must use TSL")
	}
}

// TestLookahead_BruteForce walks the whole look-ahead tree of many small
// instances and checks, against all permutations scored by Check: (1) the
// mask at every reached prefix contains every node that begins a feasible
// completion of that prefix, (2) every complete leaf of the tree is a
// feasible tour, (3) every feasible tour is a leaf.
func TestLookahead_BruteForce(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 20
	}
	var withFeasible, without int
	for seed := 0; seed < seeds; seed++ {
		for _, dl := range []bool{false, true} {
			r := newRand(uint64(seed))
			n := 4 + seed%5
			in := smallInstance(r, n, dl)
			feas, _ := bruteForce(in)
			if len(feas) > 0 {
				withFeasible++
			} else {
				without++
			}
			next := feasibleNext(feas)
			want := map[uint64]bool{}
			for _, f := range feas {
				want[tourKey(f)] = true
			}
			for _, look := range []Lookahead{LookTSL, LookSSL} {
				name := fmt.Sprintf("seed %d %v n=%d %v", seed, in.Problem, n, look)
				leaves := walkTree(t, name, in, look, next)
				if len(leaves) != len(want) {
					t.Fatalf("%s: %d complete leaves, %d feasible tours", name, len(leaves), len(want))
				}
				for k := range leaves {
					if !want[k] {
						t.Fatalf("%s: leaf %x is not a feasible tour", name, k)
					}
				}
			}
		}
	}
	t.Logf("%d instances with a feasible tour, %d without", withFeasible, without)
	if withFeasible < seeds/4 || without < seeds/8 {
		t.Fatalf("generator mix off: %d feasible, %d infeasible instances", withFeasible, without)
	}
}

// walkTree enumerates every prefix reachable through look-ahead masks and
// returns the keys of the complete tours it reaches.
func walkTree(t *testing.T, name string, in *Instance, look Lookahead, next map[uint64]uint32) map[uint64]bool {
	n := in.N
	leaves := map[uint64]bool{}
	visited := make([]bool, n)
	visited[0] = true
	prefix := []int{0}
	var rec func(value float64)
	rec = func(value float64) {
		if len(prefix) == n {
			res, err := Check(in, prefix)
			if err != nil || !res.Feasible {
				t.Fatalf("%s: leaf %v fails Check: %v", name, prefix, err)
			}
			leaves[tourKey(prefix)] = true
			return
		}
		cur := prefix[len(prefix)-1]
		mask := make([]bool, n)
		LookaheadMask(in, look, visited, cur, value, mask)
		need := next[prefixKey(prefix)]
		for j := 0; j < n; j++ {
			if need&(1<<uint(j)) != 0 && !mask[j] {
				t.Fatalf("%s: prefix %v: node %d begins a feasible completion but is masked (mask %v)",
					name, prefix, j, maskNodes(mask))
			}
			if mask[j] && visited[j] {
				t.Fatalf("%s: prefix %v: visited node %d offered", name, prefix, j)
			}
		}
		for j := 0; j < n; j++ {
			if !mask[j] {
				continue
			}
			var v float64
			if in.Problem == TSPTW {
				v = max(value+in.D(cur, j), in.Early[j]) + in.Service[j]
			} else {
				v = value + in.Demand[j]
			}
			visited[j] = true
			prefix = append(prefix, j)
			rec(v)
			prefix = prefix[:len(prefix)-1]
			visited[j] = false
		}
	}
	rec(0)
	return leaves
}
