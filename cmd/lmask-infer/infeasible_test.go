package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/infer"
	"github.com/lmask/lmask/lazymask"
)

// TestInfeasibleModesCSV runs the example infeasible days (TSPTW and
// TSPDL stops CSV files) through import, lmask-infer --infeasible none,
// drop and late, export and check: none writes no row of its own; drop
// serves all but one stop of each infeasible day (the fewest possible
// there: one conflict each) in a tour the checker accepts and leaves the
// feasible day alone; late serves every stop of each infeasible day, late,
// and also leaves the feasible day alone.
func TestInfeasibleModesCSV(t *testing.T) {
	needRuntime(t)
	ex := filepath.Join("..", "..", "datasets", "examples")
	for _, tc := range []struct {
		csv, model string
		feasible   string // the one feasible day
	}{
		{"infeasible.csv", tinyTSPTW, "thu"},
		{"ports-infeasible.csv", "../../engine/testdata/tiny-tspdl", "east"},
	} {
		dir := t.TempDir()
		ip := filepath.Join(dir, "i.parquet")
		if _, err := datasets.ImportCSV(filepath.Join(ex, tc.csv), "", ip, datasets.CSVOptions{}); err != nil {
			t.Fatal(err)
		}
		d, err := datasets.ReadInstances(ip)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{infer.InfeasibleNone, infer.InfeasibleDrop, infer.InfeasibleLate} {
			sp := filepath.Join(dir, mode+".parquet")
			stdout, stderr, err := runCLI(t, "--model", tc.model, "--data", ip, "--out", sp, "--aug", "2", "--improve", "--improve-kicks", "5",
				"--rescue-time", "200ms", "--infeasible", mode)
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", tc.csv, mode, err, stderr)
			}
			sols, _, err := datasets.ReadSolutions(sp)
			if err != nil {
				t.Fatal(err)
			}
			byInst := map[int64][]datasets.Solution{}
			for _, s := range sols {
				byInst[s.Instance] = append(byInst[s.Instance], s)
			}
			for i, in := range d.Instances {
				var drops, lates []datasets.Solution
				feasible := false
				for _, s := range byInst[int64(i)] {
					switch {
					case s.Dropped != nil:
						drops = append(drops, s)
					case s.Source == infer.SourceLate:
						lates = append(lates, s)
					}
					if s.Dropped == nil && s.Tour != nil {
						if r, err := lazymask.Check(in, s.Tour); err == nil && r.Feasible {
							feasible = true
						}
					}
				}
				if (in.Name == tc.feasible) != feasible {
					t.Fatalf("%s %s %s: a feasible tour of every stop: %v", tc.csv, mode, in.Name, feasible)
				}
				want := 0
				if !feasible && mode == infer.InfeasibleDrop {
					want = 1
				}
				if len(drops) != want {
					t.Fatalf("%s %s %s: %d rows with dropped stops, want %d", tc.csv, mode, in.Name, len(drops), want)
				}
				for _, s := range drops {
					r, err := lazymask.CheckServed(in, s.Tour, s.Dropped)
					if err != nil || !r.Feasible || !s.Feasible || len(s.Dropped) != 1 || s.Source != infer.SourceDrop {
						t.Fatalf("%s %s: served %v dropped %v: %v", tc.csv, in.Name, s.Tour, s.Dropped, err)
					}
				}
				want = 0
				if !feasible && mode == infer.InfeasibleLate {
					want = 1
				}
				if len(lates) != want {
					t.Fatalf("%s %s %s: %d late rows, want %d", tc.csv, mode, in.Name, len(lates), want)
				}
				for _, s := range lates {
					r, err := lazymask.Check(in, s.Tour)
					if err == nil || r.Feasible || r.TotalViolation <= 0 || len(s.Tour) != in.N {
						t.Fatalf("%s %s: late tour %v: %v", tc.csv, in.Name, s.Tour, err)
					}
				}
			}
			// The tables count them apart; the paper's rate keeps its
			// meaning (one feasible day of three or four).
			infeasibleDays := len(d.Instances) - 1
			switch mode {
			case infer.InfeasibleDrop:
				if !strings.Contains(stdout, "dropped") || !strings.Contains(stdout, "stops left out of the served tours of") {
					t.Fatalf("%s drop table:\n%s", tc.csv, stdout)
				}
			case infer.InfeasibleLate:
				if !strings.Contains(stdout, "over "+strconv.Itoa(infeasibleDays)+" instances without a feasible tour served late") {
					t.Fatalf("%s late table:\n%s", tc.csv, stdout)
				}
			}
			if !strings.Contains(stdout, strconv.Itoa(infeasibleDays)+" instances without a feasible tour)") {
				t.Fatalf("%s %s: inst_infeasible changed meaning:\n%s", tc.csv, mode, stdout)
			}
			out := filepath.Join(dir, mode+".csv")
			sum, _, err := datasets.ExportSchedules(ip, sp, out, datasets.ExportOptions{Format: datasets.ExportCSV})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(out)
			dropped := strings.Count(string(b), ",dropped\n")
			if mode == infer.InfeasibleDrop && (dropped != infeasibleDays || sum.Partial != infeasibleDays || sum.Feasible != len(d.Instances)) ||
				mode != infer.InfeasibleDrop && dropped != 0 {
				t.Fatalf("%s %s: %d dropped rows, summary %+v", tc.csv, mode, dropped, sum)
			}
			if mode == infer.InfeasibleLate && sum.Infeasible != infeasibleDays {
				t.Fatalf("%s late: summary %+v", tc.csv, sum)
			}
		}
	}
}

// TestDropWithoutNetwork: --infeasible drop works with starts built
// without a network too: each infeasible example day gets one row that
// leaves out one stop (the fewest: one conflict each), the feasible day
// none.
func TestDropWithoutNetwork(t *testing.T) {
	needRuntime(t)
	dir := t.TempDir()
	ip, sp := filepath.Join(dir, "i.parquet"), filepath.Join(dir, "s.parquet")
	if _, err := datasets.ImportCSV(filepath.Join("..", "..", "datasets", "examples", "infeasible.csv"), "", ip, datasets.CSVOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := runCLI(t, "--starts", "urgency", "--data", ip, "--out", sp, "--improve", "--improve-kicks", "5",
		"--rescue-time", "200ms", "--infeasible", infer.InfeasibleDrop); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	d, err := datasets.ReadInstances(ip)
	if err != nil {
		t.Fatal(err)
	}
	sols, _, err := datasets.ReadSolutions(sp)
	if err != nil {
		t.Fatal(err)
	}
	drops := map[string][]int{}
	for _, s := range sols {
		if s.Dropped != nil {
			in := d.Instances[s.Instance]
			if _, err := lazymask.CheckServed(in, s.Tour, s.Dropped); err != nil {
				t.Fatalf("%s: served tour: %v", in.Name, err)
			}
			drops[in.Name] = append(drops[in.Name], len(s.Dropped))
		}
	}
	want := map[string][]int{"mon": {1}, "tue": {1}, "wed": {1}}
	if !reflect.DeepEqual(drops, want) {
		t.Fatalf("dropped stops per day: %v, want %v", drops, want)
	}
}
