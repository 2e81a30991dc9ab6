package infer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// Hard instances of 30 and 60 nodes (feasible by construction), decoded by
// the tiny model trained at 10 nodes without backtracking: with the
// escalation every instance ends with a row that replays as feasible, the
// summary and the table say which step found each tour, and the rows say
// which found theirs. Without it (RescueTime 0) instances are left.
func TestRunRescueLeavesNone(t *testing.T) {
	needRuntime(t)
	for _, n := range []int{30, 60} {
		data, _, insts := fixture(t, lazymask.TSPTW, datasets.Hard, n, 12)
		solveWith := func(rescue bool) ([]datasets.Solution, Summary) {
			return run(t, options(t, tinyTSPTW, data, func(o *Options) {
				o.Decode.Aug, o.Decode.Budget, o.PaperBudget = 1, 0, false
				if !rescue {
					o.RescueTime = 0
				}
			}))
		}
		sols, sum := solveWith(true)
		feasible := map[int64]bool{}
		sources := map[string]int{}
		for _, s := range sols {
			chk, err := lazymask.Check(insts[s.Instance], s.Tour)
			if s.Feasible != (err == nil && chk.Feasible) {
				t.Fatalf("n %d row %+v: stored verdict %v, check %v", n, s, s.Feasible, err)
			}
			if s.Feasible {
				feasible[s.Instance] = true
			}
			sources[s.Source]++
		}
		fb := sum.FoundBy
		if len(feasible) != len(insts) || fb.None != 0 || fb.Decode+fb.Repair+fb.Retry+fb.Search != len(insts) || sum.InstInfeasible != 0 {
			t.Errorf("n %d: %d of %d instances with a feasible row; found by %+v; inst_infeasible %v", n, len(feasible), len(insts), fb, sum.InstInfeasible)
		}
		if fb.Retry+fb.Search == 0 || sources[SourceRetry] != fb.Retry || sources[SourceSearch] != fb.Search {
			t.Errorf("n %d: found by %+v, row sources %v", n, fb, sources)
		}
		var table bytes.Buffer
		sum.WriteTable(&table)
		if !strings.Contains(table.String(), "feasible tour by  "+fb.String()) {
			t.Errorf("n %d: table lacks the found-by line:\n%s", n, table.String())
		}
		_, sum0 := solveWith(false)
		if sum0.FoundBy.None != fb.Retry+fb.Search || sum0.InstInfeasible == 0 {
			t.Errorf("n %d: without the escalation found by %+v, inst_infeasible %v", n, sum0.FoundBy, sum0.InstInfeasible)
		}
	}
}
