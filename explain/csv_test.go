package explain

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// writeStops writes days as a stops CSV in the units a user would (TSPTW
// coordinates and times × 100; TSPDL demands and limits × 100).
func writeStops(t *testing.T, path string, days []*lazymask.Instance) {
	t.Helper()
	var b strings.Builder
	f := func(v float64) string { return strconv.FormatFloat(v*100, 'g', -1, 64) }
	if days[0].Problem == lazymask.TSPTW {
		b.WriteString("instance,node,x,y,ready,due,service\n")
	} else {
		b.WriteString("instance,node,x,y,demand,draft\n")
	}
	for _, in := range days {
		for k := 0; k < in.N; k++ {
			if in.Problem == lazymask.TSPTW {
				fmt.Fprintf(&b, "%s,%d,%s,%s,%s,%s,%s\n", in.Name, k, f(in.X[k]), f(in.Y[k]), f(in.Early[k]), f(in.Late[k]), f(in.Service[k]))
			} else {
				fmt.Fprintf(&b, "%s,%d,%s,%s,%s,%s\n", in.Name, k, f(in.X[k]), f(in.Y[k]), f(in.Demand[k]), f(in.Draft[k]))
			}
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCSVDays: days of 8 to 12 customers written as stops CSV files and
// imported (feasible ones and ones with each planted conflict, TSPTW and
// TSPDL): explain calls each as the oracle does on the imported instance,
// names an irreducible conflict, and drop leaves out the fewest stops.
func TestCSVDays(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		var days []*lazymask.Instance
		var kinds []string
		for _, kind := range append([]string{""}, datasets.PlantKinds...) {
			for s := range 5 {
				in := day(t, p, 9+s, datasets.Hard, kind, uint64(40+s)) // hard: feasible by construction
				in.Name = fmt.Sprintf("day%d", len(days))
				days, kinds = append(days, in), append(kinds, kind)
			}
		}
		csv := filepath.Join(dir, p.String()+".csv")
		writeStops(t, csv, days)
		out := filepath.Join(dir, p.String()+".parquet")
		if _, err := datasets.ImportCSV(csv, "", out, datasets.CSVOptions{}); err != nil {
			t.Fatal(err)
		}
		d, err := datasets.ReadInstances(out)
		if err != nil {
			t.Fatal(err)
		}
		exs, errs := All(d.Instances, Options{Seed: 1, TimeLimit: 5 * time.Second}, 2)
		for i, in := range d.Instances {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			ex := exs[i]
			truth := oracleFeasible(in, customers(in))
			if truth != (kinds[i] == "") {
				t.Fatalf("%s %s: planted %q, oracle says feasible %v", p, in.Name, kinds[i], truth)
			}
			if (ex.Status == Feasible) != truth || ex.Status == Unknown {
				t.Fatalf("%s %s (%q): status %s, oracle feasible %v", p, in.Name, kinds[i], ex.Status, truth)
			}
			if !truth {
				checkConflict(t, in, ex)
			}
			dr, err := Drop(in.Clone(), nil, Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if want := in.N - 1 - oracleMostServed(in); len(dr.Dropped) != want || !dr.Feasible {
				t.Fatalf("%s %s: dropped %v, the fewest is %d", p, in.Name, dr.Dropped, want)
			}
		}
	}
}
