package lazymask

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// follow is a policy that scores the next node of a fixed tour per
// instance far above every other node.
type follow struct{ tours [][]int }

func (f follow) Begin([]*Instance) error { return nil }

func (f follow) Scores(b *StepBatch, out []float32) error {
	for r := 0; r < b.Rows(); r++ {
		next := f.tours[b.Inst[r]][b.NumSteps[r]+1]
		for j := 0; j < b.N; j++ {
			out[r*b.N+j] = 0
		}
		out[r*b.N+next] = 100
	}
	return nil
}

// TestReplayTour_MatchesRecordedDecode: for every feasible tour of small
// instances, ReplayTour gives exactly the steps a greedy decode that
// follows the tour records, under both semantics and look-aheads.
func TestReplayTour_MatchesRecordedDecode(t *testing.T) {
	checked := 0
	for seed := 0; seed < 24; seed++ {
		for _, dl := range []bool{false, true} {
			in := smallInstance(newRand(uint64(seed)), 4+seed%4, dl)
			feas, _ := bruteForce(in)
			for _, tour := range feas {
				for _, look := range []Lookahead{LookTSL, LookSSL, LookNone} {
					for _, sem := range []Semantics{Test, Train} {
						name := fmt.Sprintf("seed %d %v tour %v %v %v", seed, in.Problem, tour, look, sem)
						got, err := ReplayTour(in, tour, look, 5, sem)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						tr, err := Decode(follow{[][]int{tour}}, []*Instance{in}, 1,
							Config{Lookahead: look, Budget: 5, Semantics: sem, Greedy: true, Record: true})
						if err != nil {
							t.Fatal(err)
						}
						if !reflect.DeepEqual(tr[0].Tour, tour) || tr[0].Backtracks != 0 {
							t.Fatalf("%s: decode followed %v with %d backtracks", name, tr[0].Tour, tr[0].Backtracks)
						}
						if !reflect.DeepEqual(got, tr[0].Steps) {
							t.Fatalf("%s:\nreplay %+v\ndecode %+v", name, got, tr[0].Steps)
						}
						checked++
					}
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d tours checked", checked)
	}
}

func TestReplayTour_Errors(t *testing.T) {
	in := trap() // TSPDL: port 3 must come first
	if _, err := ReplayTour(in, []int{0, 1, 2}, LookTSL, 0, Test); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("short tour: %v", err)
	}
	if _, err := ReplayTour(in, []int{0, 1, 1, 2}, LookTSL, 0, Test); err == nil {
		t.Error("repeated node accepted")
	}
	// 0-1-3-2 breaks port 3's draft limit; TSL rules 1 out at the first step.
	_, err := ReplayTour(in, []int{0, 1, 3, 2}, LookTSL, 0, Test)
	if err == nil || !strings.Contains(err.Error(), "step 0: node 1 is ruled out") {
		t.Errorf("infeasible tour: %v", err)
	}
	steps, err := ReplayTour(in, []int{0, 3, 1, 2}, LookTSL, 0, Test)
	if err != nil || len(steps) != 3 || steps[0].Chosen != 3 || steps[2].Current != 1 {
		t.Errorf("feasible tour: %+v %v", steps, err)
	}
}
