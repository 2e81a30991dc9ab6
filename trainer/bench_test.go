package trainer

import (
	"bytes"
	"errors"
	"strings"
	"testing"
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
	rows := Bench(BenchConfig{Config: cfg, Backends: []string{backend}, Steps: 1, ImitateBatch: 8, Busy: probe, Dir: t.TempDir()}, nil)
	if len(rows) != 1 || rows[0].Err != nil {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	if started != 2 || stopped != 2 || r.Busy != 0.25 || r.ImitateBusy != 0.5 {
		t.Fatalf("probe started %d, stopped %d times; busy %v / %v, want 0.25 / 0.5", started, stopped, r.Busy, r.ImitateBusy)
	}
	var table bytes.Buffer
	WriteBenchTable(&table, cfg, rows)
	if !strings.Contains(table.String(), "25%/50%") {
		t.Errorf("table lacks the busy shares:\n%s", table.String())
	}

	failing := func() (func() (float64, error), error) { return nil, errors.New("no GPU") }
	var log bytes.Buffer
	rows = Bench(BenchConfig{Config: cfg, Backends: []string{backend}, Steps: 1, Busy: failing, Dir: t.TempDir()}, &log)
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
