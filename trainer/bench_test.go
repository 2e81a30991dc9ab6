package trainer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
)

// TestBench_BusyProbe: the probe runs once around the timed REINFORCE
// iterations and once around the imitation ones, its shares land in the row
// and the table; a failing probe leaves the share unmeasured ("-") and is
// logged, and the bench still runs.
func TestBench_BusyProbe(t *testing.T) {
	cfg := tinyConfig(t, 1)
	started, stopped := 0, 0
	shares := []float64{0.25, 0.5}
	probe := func() (func() (float64, error), error) {
		started++
		return func() (float64, error) {
			stopped++
			return shares[stopped-1], nil
		}, nil
	}
	backend := cfg.Backend
	rows := Bench(context.Background(), BenchConfig{Config: cfg, Backends: []string{backend}, Steps: 1, ImitateBatch: 8, Busy: probe, Dir: t.TempDir()}, nil)
	if len(rows) != 1 || rows[0].Err != nil {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	if started != 2 || stopped != 2 || r.Busy != 0.25 || r.ImitateBusy != 0.5 {
		t.Fatalf("probe started %d, stopped %d times; busy %v / %v, want 0.25 / 0.5", started, stopped, r.Busy, r.ImitateBusy)
	}
	if r.ImitateGFLOPS <= 0 || r.PeakGFLOPS <= 0 || r.ImitatePeakShare != r.ImitateGFLOPS/r.PeakGFLOPS {
		t.Errorf("imitation update %v GFLOP/s, peak %v, share %v: want positive rates and their ratio", r.ImitateGFLOPS, r.PeakGFLOPS, r.ImitatePeakShare)
	}
	var table bytes.Buffer
	WriteBenchTable(&table, cfg, rows)
	if !strings.Contains(table.String(), "25%/50%") {
		t.Errorf("table lacks the busy shares:\n%s", table.String())
	}
	if want := fmt.Sprintf(" %.1f %8s ", r.ImitateGFLOPS, pct(r.ImitatePeakShare)); !strings.Contains(table.String(), want) {
		t.Errorf("table lacks the imitation update's rate and share of the peak %q:\n%s", want, table.String())
	}

	failing := func() (func() (float64, error), error) { return nil, errors.New("no GPU") }
	var log bytes.Buffer
	rows = Bench(context.Background(), BenchConfig{Config: cfg, Backends: []string{backend}, Steps: 1, Busy: failing, Dir: t.TempDir()}, &log)
	if rows[0].Err != nil || rows[0].Busy != -1 || rows[0].ImitateBusy != -1 {
		t.Fatalf("failing probe: row %+v", rows[0])
	}
	if !strings.Contains(log.String(), "busy share not measured: no GPU") {
		t.Errorf("log lacks the probe's failure:\n%s", log.String())
	}
	table.Reset()
	WriteBenchTable(&table, cfg, rows)
	if !strings.Contains(table.String(), " -/-") {
		t.Errorf("table shows a share that was not measured:\n%s", table.String())
	}
}

// TestScratchLabels: the bench's stand-in labels for imitation are drawn
// with the paper's budget (unlimited backtracking searched TSPDL-50 medium
// for hours) and every one reads back as a feasible label.
func TestScratchLabels(t *testing.T) {
	for _, c := range [][2]string{{"tspdl", "medium"}, {"tspdl", "hard"}, {"tsptw", "hard"}} {
		cfg := DefaultConfig(c[0], 50, c[1])
		dir := t.TempDir()
		if err := scratchLabels(dir, &cfg, 64); err != nil {
			t.Fatal(err)
		}
		l, err := datasets.ReadLabels(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Costs) != 64 {
			t.Errorf("%s-50 %s: %d of 64 labels read back", c[0], c[1], len(l.Costs))
		}
	}
}

// TestBench_Cancelled: a cancelled context ends the bench before its first
// iteration; every row says so.
func TestBench_Cancelled(t *testing.T) {
	cfg := tinyConfig(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rows := Bench(ctx, BenchConfig{Config: cfg, Backends: []string{cfg.Backend, cfg.Backend}, Steps: 1, Dir: t.TempDir()}, nil)
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if !errors.Is(r.Err, context.Canceled) {
			t.Errorf("row %s: err %v, want context.Canceled", r.Backend, r.Err)
		}
	}

	// Cancelled when the timed iterations start (the probe's start): the
	// row stops after the warm-up, and the probe is stopped.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	stopped := 0
	probe := func() (func() (float64, error), error) {
		cancel()
		return func() (float64, error) { stopped++; return 0.5, nil }, nil
	}
	rows = Bench(ctx, BenchConfig{Config: cfg, Backends: []string{cfg.Backend}, Steps: 3, Busy: probe, Dir: t.TempDir()}, nil)
	if err := rows[0].Err; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted after 2 iterations") {
		t.Errorf("interrupted in the timed loop: err %v", err)
	}
	if stopped != 1 {
		t.Errorf("probe stopped %d times, want 1", stopped)
	}
}
