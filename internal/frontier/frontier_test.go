package frontier

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		v    []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{0.5}, 0.5}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := Median(tc.v); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is not NaN")
	}
}

// The table puts each set on a row and each budget in a column, the
// smaller median gap in bold, with both median CPU times.
func TestWriteTable(t *testing.T) {
	cells := []Cell{
		{Set: "A", Budget: "fast", Instances: 10, NetworkGap: 0.011, NoNetworkGap: 0.0065, NetworkCPU: 1.5, NoNetworkCPU: 1.52},
		{Set: "A", Budget: "best", Instances: 10, NetworkGap: 0.002, NoNetworkGap: 0.003, NetworkCPU: 4, NoNetworkCPU: 4.1, NoNetInstInf: 0.1},
	}
	var b bytes.Buffer
	WriteTable(&b, cells)
	want := "| set | instances | `fast`: network / no network (CPU s) | `best`: network / no network (CPU s) |\n" +
		"|---|---|---|---|\n" +
		"| A | 10 | 1.10% / **0.65%** (1.50 / 1.52) | **0.20%** / 0.30% (4.00 / 4.10), infeasible 0.00% / 10.00% |\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	if cells[0].Wins() || !cells[1].Wins() {
		t.Errorf("wins: %v %v, want false true", cells[0].Wins(), cells[1].Wins())
	}
}

var cli struct {
	once sync.Once
	bin  string
	err  error
}

// cliBin builds lmask-infer and lmask-data once for the package's end-to-end
// tests (skipped in -short mode or without onnxruntime) and returns their
// folder.
func cliBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the CLIs")
	}
	if err := engine.Available(); err != nil {
		t.Skipf("onnxruntime not available: %v", err)
	}
	cli.once.Do(func() {
		dir, err := os.MkdirTemp("", "frontier-cli-")
		if err != nil {
			cli.err = err
			return
		}
		cli.bin = filepath.Join(dir, "bin")
		build := exec.Command("go", "build", "-o", cli.bin+"/", "github.com/lmask/lmask/cmd/lmask-infer", "github.com/lmask/lmask/cmd/lmask-data")
		if out, err := build.CombinedOutput(); err != nil {
			cli.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if cli.err != nil {
		t.Fatal(cli.err)
	}
	return cli.bin
}

// TestMain removes the CLIs cliBin built.
func TestMain(m *testing.M) {
	code := m.Run()
	if cli.bin != "" {
		os.RemoveAll(filepath.Dir(cli.bin))
	}
	os.Exit(code)
}

// Measure end to end on the tiny 10-node TSPTW model: every run is judged
// as datasets.Evaluate judges its solutions file, each no-network run is
// given the CPU time of the network run before it, and the medians are
// the runs'.
func TestMeasureTiny(t *testing.T) {
	bin := cliBin(t)
	dir := t.TempDir()
	data, ref := filepath.Join(dir, "data.parquet"), filepath.Join(dir, "ref.parquet")
	cfg := datasets.GenConfig{Problem: lazymask.TSPTW, N: 10, Hardness: datasets.Hard, Seed: 3} // hard: every instance has its known feasible tour
	meta, err := datasets.GenerateFile(data, cfg, 12, datasets.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	insts, tours, err := datasets.Generate(cfg, 12)
	if err != nil {
		t.Fatal(err)
	}
	var refs []datasets.Solution
	for i, in := range insts {
		if tours[i] == nil {
			continue
		}
		s, err := datasets.Checked(in, int64(i), tours[i], "known")
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, s)
	}
	meta.Kind = datasets.KindSolutions
	if err := datasets.WriteSolutions(ref, meta, refs, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	model, err := filepath.Abs("../../engine/testdata/tiny-tsptw")
	if err != nil {
		t.Fatal(err)
	}
	mc := Config{Infer: filepath.Join(bin, "lmask-infer"), Check: filepath.Join(bin, "lmask-data"), Reps: 2, Dir: filepath.Join(dir, "runs"),
		Sets: []Set{{Name: "tiny", Model: model, Data: data, Reference: ref, Limit: 10}}, Budgets: Budgets[:2]}
	cells, err := Measure(context.Background(), mc)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 {
		t.Fatalf("%d cells, want 2", len(cells))
	}
	for bi, c := range cells {
		if c.Instances != 10 || len(c.Network) != 2 || len(c.NoNetwork) != 2 || c.Budget != Budgets[bi].Name {
			t.Fatalf("cell %+v", c)
		}
		for r := range 2 {
			net, non := c.Network[r], c.NoNetwork[r]
			if net.CPU <= 0 || non.Budget != net.CPU {
				t.Errorf("%s rep %d: network CPU %v, no-network budget %v", c.Budget, r, net.CPU, non.Budget)
			}
			for k, run := range []Run{net, non} {
				path := filepath.Join(mc.Dir, "s0-b"+string(rune('0'+bi))+"-r"+string(rune('0'+r))+[]string{"-net", "-nonet"}[k]+".parquet")
				sols, _, err := datasets.ReadSolutions(path)
				if err != nil {
					t.Fatal(err)
				}
				m, err := datasets.Evaluate(insts[:10], sols, datasets.FirstInstances(refs, 10))
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(m.Gap-run.Gap) > 1e-9 || m.InstInfeasible != run.InstInfeasible {
					t.Errorf("%s: run gap %v (%v infeasible), the file's %v (%v)", path, run.Gap, run.InstInfeasible, m.Gap, m.InstInfeasible)
				}
				wantSrc := []string{"lmask", "random-l"}[k]
				for _, s := range sols {
					if !strings.HasPrefix(s.Source, wantSrc) {
						t.Fatalf("%s: row source %q, want %s…", path, s.Source, wantSrc)
					}
				}
			}
		}
		if c.NetworkGap != Median([]float64{c.Network[0].Gap, c.Network[1].Gap}) || c.NoNetworkCPU != Median([]float64{c.NoNetwork[0].CPU, c.NoNetwork[1].CPU}) {
			t.Errorf("%s: medians %v %v do not match the runs", c.Budget, c.NetworkGap, c.NoNetworkCPU)
		}
	}
	rep := NewReport(mc, "test", "abc123", [2]float64{1, 2}, cells)
	out := filepath.Join(dir, "frontier.json")
	if err := rep.WriteJSON(out); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"command": "test"`, `"machine":`, `"date":`, `"no_network_gap":`, `"cpu_budget_s":`, `"commit": "abc123"`} {
		if !bytes.Contains(raw, []byte(key)) {
			t.Errorf("report lacks %s", key)
		}
	}
}
