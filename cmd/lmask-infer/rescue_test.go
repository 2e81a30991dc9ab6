package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// Hard instances of 30 and 60 nodes (feasible by construction), decoded by
// the tiny model trained at 10 nodes without backtracking: with the
// escalation every instance ends with a row that replays as feasible, the
// metrics and the table say which step found each tour, and the rows say
// which found theirs. Without it (--rescue-time 0) instances are left.
func TestInferRescueLeavesNone(t *testing.T) {
	needRuntime(t)
	for _, n := range []int{30, 60} {
		data, _, insts := fixture(t, lazymask.TSPTW, datasets.Hard, n, 12)
		dir := t.TempDir()
		run := func(extra ...string) ([]datasets.Solution, rescueMetrics, string) {
			out, mj := filepath.Join(dir, "sol.parquet"), filepath.Join(dir, "m.json")
			args := append([]string{"--model", tinyTSPTW, "--data", data, "--out", out, "--metrics-json", mj, "--aug", "1", "--budget", "0"}, extra...)
			stdout, stderr, err := runCLI(t, args...)
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, stderr)
			}
			sols, _, err := datasets.ReadSolutions(out)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(mj)
			if err != nil {
				t.Fatal(err)
			}
			var m rescueMetrics
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			return sols, m, stdout
		}
		sols, m, table := run()
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
		fb := m.FoundBy
		if len(feasible) != len(insts) || fb.None != 0 || fb.Decode+fb.Repair+fb.Retry+fb.Search != len(insts) || m.InstInfeasible != 0 {
			t.Errorf("n %d: %d of %d instances with a feasible row; found by %+v; inst_infeasible %v", n, len(feasible), len(insts), fb, m.InstInfeasible)
		}
		if fb.Retry+fb.Search == 0 || sources[SourceRetry] != fb.Retry || sources[SourceSearch] != fb.Search {
			t.Errorf("n %d: found by %+v, row sources %v", n, fb, sources)
		}
		if !strings.Contains(table, "feasible tour by  "+fb.String()) {
			t.Errorf("n %d: table lacks the found-by line:\n%s", n, table)
		}
		_, m0, _ := run("--rescue-time", "0")
		if m0.FoundBy.None != fb.Retry+fb.Search || m0.InstInfeasible == 0 {
			t.Errorf("n %d: without the escalation found by %+v, inst_infeasible %v", n, m0.FoundBy, m0.InstInfeasible)
		}
	}
}

// rescueMetrics are the keys of --metrics-json this test reads.
type rescueMetrics struct {
	InstInfeasible float64 `json:"inst_infeasible"`
	FoundBy        FoundBy `json:"found_by"`
}
