package frontier

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// square is the unit square: depot (0,0), nodes (0,1), (1,1), (1,0). With
// late 100 everywhere any order is feasible: 0 1 2 3 and 0 3 2 1 are 4
// long, 0 2 1 3 is 2 + 2√2. With late {10, 1, 2, 3} only 0 1 2 3 of those
// three is feasible.
func square(tight bool) *lazymask.Instance {
	late := []float64{100, 100, 100, 100}
	if tight {
		late = []float64{10, 1, 2, 3}
	}
	return &lazymask.Instance{Problem: lazymask.TSPTW, N: 4, Scale: 1,
		X: []float64{0, 0, 1, 1}, Y: []float64{0, 1, 1, 0},
		Early: []float64{0, 0, 0, 0}, Late: late, Service: make([]float64, 4)}
}

var crossed = 2 + 2*math.Sqrt2 // the length of 0 2 1 3

func TestCompare(t *testing.T) {
	inf := math.Inf(1)
	p := Compare([]float64{4, 5, 3, inf, 2, 7 * (1 + 1e-12)}, []float64{5, 4, inf, 3, 2, 7})
	want := (-0.2 + 0.25 + 0 + 1e-12) / 4 * 100
	if p.NetworkFeasible != 5 || p.NoNetworkFeasible != 5 || p.Both != 4 || p.Wins != 1 || p.Ties != 2 || p.Losses != 1 {
		t.Errorf("counts %+v, want 5 / 5 feasible, 4 both, wins 1, ties 2, losses 1", p)
	}
	if p.DiffPct == nil || math.Abs(*p.DiffPct-want) > 1e-12 {
		t.Errorf("diff %v, want %v", p.DiffPct, want)
	}
	if p := Compare([]float64{inf, 3}, []float64{4, inf}); p.DiffPct != nil || p.Both != 0 || p.NetworkFeasible != 1 || p.NoNetworkFeasible != 1 {
		t.Errorf("no instance in common: %+v", p)
	}
}

func TestMedianPairs(t *testing.T) {
	d := func(v float64) *float64 { return &v }
	m := MedianPairs([]Pair{
		{NetworkFeasible: 10, NoNetworkFeasible: 9, Both: 9, DiffPct: d(0.5), Wins: 2, Ties: 4, Losses: 3},
		{NetworkFeasible: 10, NoNetworkFeasible: 10, Both: 10, DiffPct: d(-0.1), Wins: 5, Ties: 4, Losses: 1},
		{NetworkFeasible: 8, NoNetworkFeasible: 10, Both: 8, DiffPct: d(0.2), Wins: 3, Ties: 3, Losses: 2},
	})
	want := Paired{NetworkFeasible: 10, NoNetworkFeasible: 10, Both: 9, Wins: 3, Ties: 4, Losses: 2}
	if m == nil || m.DiffPct == nil || *m.DiffPct != 0.2 {
		t.Fatalf("medians %+v, want diff 0.2", m)
	}
	got := *m
	got.DiffPct = nil
	if got != want {
		t.Errorf("medians %+v, want %+v", got, want)
	}
	// A repetition without an instance both solved has no difference to
	// take the median of.
	m = MedianPairs([]Pair{{NetworkFeasible: 1, Losses: 0}, {Both: 2, DiffPct: d(1.5), Wins: 1, Ties: 1}})
	if m.DiffPct == nil || *m.DiffPct != 1.5 || m.Wins != 0.5 || m.Both != 1 {
		t.Errorf("medians %+v, want diff 1.5, wins 0.5, both 1", m)
	}
	if MedianPairs(nil) != nil {
		t.Error("MedianPairs(nil) is not nil")
	}
}

// writeSquares writes the instances file of TestPairFiles and two
// solutions files whose recorded costs and feasibility flags are wrong on
// purpose: only the replayed tours may count.
func writeSquares(t *testing.T, dir string) (data, net, non string) {
	t.Helper()
	insts := []*lazymask.Instance{square(false), square(false), square(false), square(true), square(true)}
	meta := datasets.Metadata{Problem: "tsptw", Size: 4}
	data, net, non = filepath.Join(dir, "data.parquet"), filepath.Join(dir, "net.parquet"), filepath.Join(dir, "nonet.parquet")
	if err := datasets.WriteInstances(data, meta, insts, nil, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	netSols := []datasets.Solution{
		{Instance: 0, Tour: []int{0, 2, 1, 3}, Cost: 1, Feasible: true},  // crossed
		{Instance: 0, Tour: []int{0, 1, 2, 3}, Cost: 9, Feasible: false}, // 4: the best, a win
		{Instance: 1, Tour: []int{0, 2, 1, 3}, Cost: 1, Feasible: false}, // crossed, a loss
		{Instance: 2, Tour: []int{0, 1, 2, 3}, Cost: 4, Feasible: true},  // 4, a tie
		{Instance: 3, Tour: []int{0, 1, 2, 3}, Cost: 99, Feasible: false},
		// instance 4: no row
	}
	nonSols := []datasets.Solution{
		{Instance: 0, Tour: []int{0, 2, 1, 3}, Cost: 1, Feasible: true},
		{Instance: 1, Tour: []int{0, 3, 2, 1}, Cost: 9, Feasible: false},
		{Instance: 2, Tour: []int{0, 3, 2, 1}, Cost: 4, Feasible: true},
		{Instance: 3, Tour: []int{0, 2, 1, 3}, Cost: 1, Feasible: true}, // late at node 1
		{Instance: 4, Tour: []int{0, 3, 2, 1}, Cost: 1, Feasible: true}, // late at node 3
		{Instance: 4, Tour: []int{0, 1, 2, 3}, Cost: 50, Feasible: false},
	}
	for _, f := range []struct {
		path string
		sols []datasets.Solution
	}{{net, netSols}, {non, nonSols}} {
		if err := datasets.WriteSolutions(f.path, meta, f.sols, datasets.WriterOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return data, net, non
}

// PairFiles replays the tours of both files: the flags and costs the files
// record do not count, each instance's best feasible tour does, and with
// a limit the rows past it are left out.
func TestPairFiles(t *testing.T) {
	dir := t.TempDir()
	data, net, non := writeSquares(t, dir)
	in, err := ReadInstances(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := in.PairFiles(net, non)
	if err != nil {
		t.Fatal(err)
	}
	want := 100 * ((4-crossed)/crossed + (crossed-4)/4 + 0) / 3 // +1.18%
	if p.NetworkFeasible != 4 || p.NoNetworkFeasible != 4 || p.Both != 3 || p.Wins != 1 || p.Ties != 1 || p.Losses != 1 {
		t.Errorf("all five: %+v, want 4 / 4 feasible, 3 both, wins 1, ties 1, losses 1", p)
	}
	if p.DiffPct == nil || math.Abs(*p.DiffPct-want) > 1e-9 || math.Abs(*p.DiffPct-1.1845) > 1e-4 {
		t.Errorf("all five: diff %v, want %v", p.DiffPct, want)
	}
	// Swapped, the network's losses become wins and the no-network run's
	// feasible count is the network's.
	q, err := in.PairFiles(non, net)
	if err != nil {
		t.Fatal(err)
	}
	if q.Wins != 1 || q.Losses != 1 || q.NetworkFeasible != 4 || q.DiffPct == nil || math.Abs(*q.DiffPct-100*((crossed-4)/4+(4-crossed)/crossed)/3) > 1e-9 {
		t.Errorf("swapped: %+v", q)
	}
	in, err = ReadInstances(data, 4)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = in.PairFiles(net, non); err != nil {
		t.Fatal(err)
	}
	if len(in.Insts) != 4 || p.NetworkFeasible != 4 || p.NoNetworkFeasible != 3 || p.Both != 3 {
		t.Errorf("first four: %d instances, %+v, want 4 / 3 feasible, 3 both", len(in.Insts), p)
	}
}

// A solutions file of other instances, or a malformed tour, is an error
// that names the file.
func TestPairFilesErrors(t *testing.T) {
	dir := t.TempDir()
	data, net, _ := writeSquares(t, dir)
	in, err := ReadInstances(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.parquet")
	if err := datasets.WriteSolutions(other, datasets.Metadata{Problem: "tsptw", Size: 5}, nil, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.PairFiles(net, other); err == nil || !strings.Contains(err.Error(), other) {
		t.Errorf("solutions of 5-node instances: %v, want an error naming %s", err, other)
	}
	bad := filepath.Join(dir, "bad.parquet")
	sols := []datasets.Solution{{Instance: 1, Tour: []int{0, 1, 1, 3}, Cost: 4}}
	if err := datasets.WriteSolutions(bad, datasets.Metadata{Problem: "tsptw", Size: 4}, sols, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.PairFiles(bad, net); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a tour visiting node 1 twice: %v, want an error naming %s", err, bad)
	}
	if _, err := ReadInstances(filepath.Join(dir, "none.parquet"), 0); err == nil {
		t.Error("a missing instances file gave no error")
	}
}

// A set without a reference shows the paired medians where the gaps
// would be, the feasible counts when a run left an instance without a
// feasible tour, and the note on how to read them below the table.
func TestWriteTablePaired(t *testing.T) {
	d := func(v float64) *float64 { return &v }
	nan := math.NaN()
	cells := []Cell{
		{Set: "A", Budget: "fast", Instances: 10, NetworkGap: 0.011, NoNetworkGap: 0.0065, NetworkCPU: 1.5, NoNetworkCPU: 1.52},
		{Set: "mine", Budget: "fast", Instances: 100, NetworkGap: nan, NoNetworkGap: nan, NetworkCPU: 3, NoNetworkCPU: 3.05,
			Paired: &Paired{NetworkFeasible: 100, NoNetworkFeasible: 100, Both: 100, DiffPct: d(0.1234), Wins: 30, Ties: 50, Losses: 20}},
		{Set: "mine", Budget: "best", Instances: 100, NetworkGap: nan, NoNetworkGap: nan, NetworkCPU: 9, NoNetworkCPU: 9.1,
			Paired: &Paired{NetworkFeasible: 99, NoNetworkFeasible: 97.5, Both: 97, DiffPct: d(-0.5), Wins: 60.5, Ties: 20, Losses: 16.5}},
	}
	var b bytes.Buffer
	WriteTable(&b, cells)
	want := "| set | instances | `fast`: network / no network (CPU s) | `best`: network / no network (CPU s) |\n" +
		"|---|---|---|---|\n" +
		"| A | 10 | 1.10% / **0.65%** (1.50 / 1.52) | |\n" +
		"| mine | 100 | +0.12% (wins 30 / ties 50 / losses 20) (3.00 / 3.05) | -0.50% (wins 60.5 / ties 20 / losses 16.5) (9.00 / 9.10), feasible 99 / 97.5 |\n" +
		"\n" + PairedNote + "\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	if cells[1].Wins() || !cells[2].Wins() {
		t.Errorf("wins: %v %v, want false true", cells[1].Wins(), cells[2].Wins())
	}
}

// Without a reference the report has no gaps (NaN is no JSON number) but
// the pairs and their medians; with one it has the gaps and no pairs.
func TestCellJSON(t *testing.T) {
	d := 0.25
	nan := math.NaN()
	paired := Cell{Set: "mine", Budget: "fast", Instances: 3, NetworkGap: nan, NoNetworkGap: nan,
		Network: []Run{{CPU: 1, Gap: nan}}, NoNetwork: []Run{{CPU: 1, Gap: nan, Budget: 1}},
		Pairs: []Pair{{NetworkFeasible: 3, NoNetworkFeasible: 2, Both: 2, DiffPct: &d, Wins: 1, Ties: 1}}}
	paired.Paired = MedianPairs(paired.Pairs)
	raw, err := json.Marshal(paired)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	for _, k := range []string{`"pairs":[{"network_feasible":3,"no_network_feasible":2,"both_feasible":2,"network_diff_pct":0.25,"wins":1,"ties":1,"losses":0}]`,
		`"paired":{"network_feasible":3,"no_network_feasible":2,"both_feasible":2,"network_diff_pct":0.25,"wins":1,"ties":1,"losses":0}`,
		`"network":[{"cpu_s":1,"wall_s":0,"inst_infeasible":0,"sol_infeasible":0}]`} {
		if !strings.Contains(s, k) {
			t.Errorf("paired cell %s lacks %s", s, k)
		}
	}
	if strings.Contains(s, "gap") {
		t.Errorf("paired cell %s has a gap", s)
	}
	ref := Cell{Set: "A", Budget: "fast", Instances: 3, NetworkGap: 0, NoNetworkGap: 0.01, Network: []Run{{CPU: 1}}}
	raw, err = json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	s = string(raw)
	for _, k := range []string{`"network_gap":0,`, `"no_network_gap":0.01,`, `"network":[{"cpu_s":1,"wall_s":0,"gap":0,`} {
		if !strings.Contains(s, k) {
			t.Errorf("cell %s lacks %s", s, k)
		}
	}
	if strings.Contains(s, "pair") {
		t.Errorf("cell with a reference %s has pairs", s)
	}
}

// bestByReplay is each instance's shortest tour in the solutions file at
// path that lazymask.Check accepts (+Inf for none), for the first n.
func bestByReplay(t *testing.T, insts []*lazymask.Instance, path string) []float64 {
	t.Helper()
	sols, _, err := datasets.ReadSolutions(path)
	if err != nil {
		t.Fatal(err)
	}
	best := make([]float64, len(insts))
	for i := range best {
		best[i] = math.Inf(1)
	}
	for _, s := range sols {
		if int(s.Instance) >= len(insts) || s.Tour == nil || s.Dropped != nil {
			continue
		}
		res, err := lazymask.Check(insts[s.Instance].Clone(), s.Tour)
		if err == nil && res.Feasible && res.Cost < best[s.Instance] {
			best[s.Instance] = res.Cost
		}
	}
	return best
}

// Measure end to end without a reference on the tiny 10-node TSPTW model:
// no gap, and per repetition the pair of the two runs' files as replaying
// their tours one by one gives it.
func TestMeasureTinyPaired(t *testing.T) {
	bin := cliBin(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data.parquet")
	cfg := datasets.GenConfig{Problem: lazymask.TSPTW, N: 10, Hardness: datasets.Medium, Seed: 9201}
	if _, err := datasets.GenerateFile(data, cfg, 12, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	insts, _, err := datasets.Generate(cfg, 12)
	if err != nil {
		t.Fatal(err)
	}
	model, err := filepath.Abs("../../engine/testdata/tiny-tsptw")
	if err != nil {
		t.Fatal(err)
	}
	mc := Config{Infer: filepath.Join(bin, "lmask-infer"), Check: filepath.Join(bin, "lmask-data"), Reps: 2, Dir: filepath.Join(dir, "runs"),
		Sets: []Set{{Name: "held-out", Model: model, Data: data, Limit: 10}}, Budgets: Budgets[:1]}
	var log bytes.Buffer
	mc.Log = &log
	cells, err := Measure(context.Background(), mc)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 1 {
		t.Fatalf("%d cells, want 1", len(cells))
	}
	c := cells[0]
	if c.Instances != 10 || len(c.Pairs) != 2 || c.Paired == nil || !math.IsNaN(c.NetworkGap) || !math.IsNaN(c.NoNetworkGap) {
		t.Fatalf("cell %+v", c)
	}
	for r := range 2 {
		tag := "s0-b0-r" + string(rune('0'+r))
		net := bestByReplay(t, insts[:10], filepath.Join(mc.Dir, tag+"-net.parquet"))
		non := bestByReplay(t, insts[:10], filepath.Join(mc.Dir, tag+"-nonet.parquet"))
		var want Pair
		sum := 0.0
		for i := range net {
			a, b := net[i], non[i]
			if !math.IsInf(a, 1) {
				want.NetworkFeasible++
			}
			if !math.IsInf(b, 1) {
				want.NoNetworkFeasible++
			}
			if math.IsInf(a, 1) || math.IsInf(b, 1) {
				continue
			}
			want.Both++
			sum += (a - b) / b
			switch {
			case math.Abs(a-b) <= 1e-9*b:
				want.Ties++
			case a < b:
				want.Wins++
			default:
				want.Losses++
			}
		}
		got := c.Pairs[r]
		if got.NetworkFeasible != want.NetworkFeasible || got.NoNetworkFeasible != want.NoNetworkFeasible || got.Both != want.Both ||
			got.Wins != want.Wins || got.Ties != want.Ties || got.Losses != want.Losses {
			t.Errorf("rep %d: %+v, replayed %+v", r, got, want)
		}
		if want.Both == 0 || got.DiffPct == nil || math.Abs(*got.DiffPct-100*sum/float64(want.Both)) > 1e-9 {
			t.Errorf("rep %d: diff %v, replayed %v over %d", r, got.DiffPct, 100*sum/float64(max(want.Both, 1)), want.Both)
		}
		// The checker's share of instances without a feasible tour agrees.
		if f := int(math.Round(10 * (1 - c.Network[r].InstInfeasible))); f != got.NetworkFeasible {
			t.Errorf("rep %d: the checker finds %d instances feasible, the pair %d", r, f, got.NetworkFeasible)
		}
		if !math.IsNaN(c.Network[r].Gap) || c.NoNetwork[r].Budget != c.Network[r].CPU {
			t.Errorf("rep %d: runs %+v %+v", r, c.Network[r], c.NoNetwork[r])
		}
	}
	if m := MedianPairs(c.Pairs); *m.DiffPct != *c.Paired.DiffPct || m.Wins != c.Paired.Wins || m.Both != c.Paired.Both {
		t.Errorf("medians %+v, the pairs' %+v", c.Paired, m)
	}
	if !strings.Contains(log.String(), "network against no network") {
		t.Errorf("log %q", log.String())
	}
	out := filepath.Join(dir, "frontier.json")
	if err := NewReport(mc, "test", "", [2]float64{}, cells).WriteJSON(out); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"pairs": [`, `"paired": {`, `"network_diff_pct":`, `"wins":`, `"no_network_feasible":`, "instance by instance"} {
		if !bytes.Contains(raw, []byte(key)) {
			t.Errorf("report lacks %s", key)
		}
	}
	for _, key := range []string{`"gap"`, `"network_gap"`, `"reference"`} {
		if bytes.Contains(raw, []byte(key)) {
			t.Errorf("report has %s", key)
		}
	}
	var tb bytes.Buffer
	WriteTable(&tb, cells)
	if !strings.Contains(tb.String(), "| held-out | 10 |") || !strings.Contains(tb.String(), pairText(c.Paired.DiffPct, c.Paired.Wins, c.Paired.Ties, c.Paired.Losses)) {
		t.Errorf("table:\n%s", tb.String())
	}
}
