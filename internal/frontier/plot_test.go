package frontier

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/internal/resultsdoc"
)

// runs makes runs of the given CPU seconds and gaps (fractions).
func runs(cpu []float64, gap []float64) []Run {
	out := make([]Run, len(cpu))
	for i := range cpu {
		out[i] = Run{CPU: cpu[i], Gap: gap[i]}
	}
	return out
}

// smallReport has two sets; set A's cells come best first, so the
// budget order must come from the report's budgets.
func smallReport() Report {
	return Report{
		Budgets: []Budget{{Name: "fast"}, {Name: "best"}},
		Cells: []Cell{
			{Set: "A", Budget: "best", Instances: 50,
				Network:   runs([]float64{2.0, 1.0, 1.5}, []float64{0.004, 0.002, 0.003}),
				NoNetwork: runs([]float64{1.6, 1.1, 1.2}, []float64{0.001, 0.005, 0.002})},
			{Set: "A", Budget: "fast", Instances: 50,
				Network:   runs([]float64{0.5, 0.7, 0.6}, []float64{0.010, 0.010, 0.010}),
				NoNetwork: runs([]float64{0.55, 0.75, 0.65}, []float64{0.008, 0.006, 0.007})},
			{Set: "B", Budget: "fast", Instances: 20,
				Network:   runs([]float64{0.2, 0.4}, []float64{0.02, 0.03}),
				NoNetwork: runs([]float64{0.3, 0.5}, []float64{-0.01, 0.01})},
		},
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The panels hold, per set, the medians of the runs as CPU ms per
// instance and gap in %, in budget order, each run's point behind.
func TestPanels(t *testing.T) {
	other := Report{Budgets: []Budget{{Name: "fast"}}, Cells: []Cell{{Set: "C", Budget: "fast", Instances: 10,
		Network: runs([]float64{0.1}, []float64{0.05}), NoNetwork: runs([]float64{0.12}, []float64{0.04})}}}
	panels, err := Panels([]Labeled{{Label: "float32", Report: smallReport()}, {Label: "int8", Report: other}})
	if err != nil {
		t.Fatal(err)
	}
	type pt struct {
		budget   string
		cpu, gap float64
	}
	want := []struct {
		set    string
		series [][]pt // per series, network then no network per report
		labels []string
	}{
		{"A", [][]pt{
			{{"fast", 12, 1.0}, {"best", 30, 0.3}},  // CPU medians 0.6 and 1.5 s over 50 instances
			{{"fast", 13, 0.7}, {"best", 24, 0.2}}}, // 0.65 and 1.2 s
			[]string{"float32", "float32"}},
		{"B", [][]pt{{{"fast", 15, 2.5}}, {{"fast", 20, 0}}}, []string{"float32", "float32"}}, // even counts: mean of the middle two
		{"C", [][]pt{{{"fast", 10, 5}}, {{"fast", 12, 4}}}, []string{"int8", "int8"}},
	}
	if len(panels) != len(want) {
		t.Fatalf("%d panels, want %d", len(panels), len(want))
	}
	for i, w := range want {
		p := panels[i]
		if p.Set != w.set || len(p.Series) != len(w.series) {
			t.Fatalf("panel %d: set %s with %d series, want %s with %d", i, p.Set, len(p.Series), w.set, len(w.series))
		}
		for j, ws := range w.series {
			s := p.Series[j]
			if s.Network != (j%2 == 0) || s.Label != w.labels[j] {
				t.Errorf("%s series %d: network %v label %q, want %v %q", w.set, j, s.Network, s.Label, j%2 == 0, w.labels[j])
			}
			if len(s.Points) != len(ws) {
				t.Fatalf("%s series %d: %d points, want %d", w.set, j, len(s.Points), len(ws))
			}
			for k, wp := range ws {
				got := s.Points[k]
				if got.Budget != wp.budget || !near(got.CPUms, wp.cpu) || !near(got.Gap, wp.gap) {
					t.Errorf("%s series %d point %d: %s at %.6g ms, %.6g%%; want %s at %g ms, %g%%",
						w.set, j, k, got.Budget, got.CPUms, got.Gap, wp.budget, wp.cpu, wp.gap)
				}
			}
		}
	}
	// Every run stands behind its median: set A, best, network.
	r := panels[0].Series[0].Points[1].Runs
	if len(r) != 3 || !near(r[0].X, 40) || !near(r[0].Y, 0.4) || !near(r[1].X, 20) || !near(r[1].Y, 0.2) {
		t.Errorf("runs of A, best, network: %v, want (40, 0.4), (20, 0.2), (30, 0.3)", r)
	}
	if panels[2].Series[0].Report != 1 || panels[0].Series[1].Report != 0 {
		t.Error("series do not name their report")
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Reports are read from PATH or LABEL=PATH; several need labels, and a
// report the picture cannot use is named with its field.
func TestReadLabeled(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	writeJSON(t, good, smallReport())
	one, err := ReadLabeled([]string{good})
	if err != nil || len(one) != 1 || one[0].Label != "" || len(one[0].Report.Cells) != 3 {
		t.Fatalf("one report: %+v, %v", one, err)
	}
	two, err := ReadLabeled([]string{"idle=" + good, "loaded=" + good})
	if err != nil || len(two) != 2 || two[0].Label != "idle" || two[1].Label != "loaded" {
		t.Fatalf("two reports: %v", err)
	}
	if _, err := ReadLabeled([]string{good, "b=" + good}); err == nil || !strings.Contains(err.Error(), "a label each") {
		t.Errorf("unlabelled second report: %v", err)
	}
	noRuns := smallReport()
	noRuns.Cells[1].NoNetwork = nil
	writeJSON(t, filepath.Join(dir, "noruns.json"), noRuns)
	zero := smallReport()
	zero.Cells[2].NoNetwork[1].CPU = 0
	writeJSON(t, filepath.Join(dir, "zero.json"), zero)
	for name, want := range map[string]string{
		"noruns.json": "noruns.json: field cells[1] (A, fast): 3 network and 0 no-network runs",
		"zero.json":   "zero.json: field cells[2].no_network[1].cpu_s (B, fast): 0, want > 0",
		"none.json":   "none.json: no such file",
	} {
		if _, err := ReadLabeled([]string{filepath.Join(dir, name)}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", name, err, want)
		}
	}
}

// The picture names every set, each series in the legend and the
// budgets in their order.
func TestPlot(t *testing.T) {
	svg, err := Plot([]Labeled{{Label: "idle", Report: smallReport()}, {Label: "loaded", Report: smallReport()}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{">A<", ">B<", ">idle: network<", ">idle: no network<", ">loaded: network<", ">loaded: no network<",
		"budgets 1 fast, 2 best<"} {
		if !bytes.Contains(svg, []byte(s)) {
			t.Errorf("picture lacks %q", s)
		}
	}
	if _, err := Plot(nil); err == nil {
		t.Error("a picture of no report")
	}
}

// A pairs panel starts at the base at 0 ms; each measured arm sits at its
// CPU ms per instance with its gap and the plain search's, in %.
func TestPairPanels(t *testing.T) {
	s := resultsdoc.Pairs{ArmNames: []string{"x", "y"}, Rows: []resultsdoc.PairsRow{
		{Label: "A", Instances: 100, BaseGap: 0.0072, Arms: []*resultsdoc.Pair{{Gap: 0.0066, PlainGap: 0.005, CPU: 0.5}, nil}},
		{Label: "B", Instances: 300, BaseGap: 0.002, Arms: []*resultsdoc.Pair{{Gap: 0.0017, PlainGap: 0.0015, CPU: 3.3}, {Gap: 0.001, PlainGap: 0.0012, CPU: 3.6}}},
	}}
	ps := PairPanels(s)
	if len(ps) != 2 || ps[0].Label != "A" || !near(ps[0].Base, 0.72) || len(ps[0].Arms) != 1 || len(ps[1].Arms) != 2 {
		t.Fatalf("panels %+v", ps)
	}
	a := ps[0].Arms[0]
	if a.Arm != 0 || a.ArmName != "x" || !near(a.CPUms, 5) || !near(a.Gap, 0.66) || !near(a.PlainGap, 0.5) {
		t.Errorf("A, x: %+v, want 5 ms, 0.66%% and 0.5%%", a)
	}
	b := ps[1].Arms[1]
	if b.Arm != 1 || b.ArmName != "y" || !near(b.CPUms, 12) || !near(b.Gap, 0.1) || !near(b.PlainGap, 0.12) {
		t.Errorf("B, y: %+v, want 12 ms, 0.1%% and 0.12%%", b)
	}
	svg, err := PlotPairs(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{">A<", ">B<", ">x<", ">y<", ">base tours<"} {
		if !bytes.Contains(svg, []byte(w)) {
			t.Errorf("picture lacks %q", w)
		}
	}
}

// TestPicturesAreCurrent: docs/frontier.svg, docs/frontier-pilots.svg
// and docs/neural-kicks.svg are what ./just frontier-plot,
// frontier-pilots-plot and neural-kicks-plot draw from the results, byte
// for byte.
func TestPicturesAreCurrent(t *testing.T) {
	const dir = "../../docs/results/frontier/"
	reports, err := ReadLabeled([]string{dir + "2026-12-07-quiet-2.json"})
	if err != nil {
		t.Fatal(err)
	}
	frontier, err := Plot(reports)
	if err != nil {
		t.Fatal(err)
	}
	reports, err = ReadLabeled([]string{"float32=" + dir + "2026-12-07-quiet-2.json", "int8=" + dir + "2026-12-07-int8.json",
		"neural-every-10=" + dir + "2026-12-07-neural-every.json"})
	if err != nil {
		t.Fatal(err)
	}
	pilots, err := Plot(reports)
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := resultsdoc.ReadPairs("../../docs/results/pilots/neural-kicks.json")
	if err != nil {
		t.Fatal(err)
	}
	kicks, err := PlotPairs(pairs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file, recipe string
		svg          []byte
	}{{"../../docs/frontier.svg", "frontier-plot", frontier}, {"../../docs/frontier-pilots.svg", "frontier-pilots-plot", pilots},
		{"../../docs/neural-kicks.svg", "neural-kicks-plot", kicks}} {
		have, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, c.svg) {
			t.Errorf("%s is not what the results draw (run ./just %s)", c.file, c.recipe)
		}
	}
}
