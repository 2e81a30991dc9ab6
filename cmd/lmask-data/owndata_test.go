package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportExportCSV drives import --format csv and export through the
// command line: the example imports and exports, bad flags and bad rows
// are refused with the file, line and column named, and no output
// appears where a run fails.
func TestImportExportCSV(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join("..", "..", "datasets", "examples")
	ip, sp, out := filepath.Join(dir, "i.parquet"), filepath.Join(dir, "s.parquet"), filepath.Join(dir, "sched.csv")
	o, err := runCLI(t, "import", "--in", filepath.Join(ex, "stops.csv"), "--out", ip)
	if err != nil || !strings.Contains(o, "wrote 3 tsptw instances (5-7 nodes, Euclidean distances)") {
		t.Fatalf("import: %v\n%s", err, o)
	}
	pp := filepath.Join(dir, "ports.parquet")
	if o, err := runCLI(t, "import", "--in", filepath.Join(ex, "ports.csv"), "--problem", "tspdl", "--out", pp); err != nil ||
		!strings.Contains(o, "wrote 2 tspdl instances (4-5 nodes, Euclidean distances)") {
		t.Fatalf("import ports: %v\n%s", err, o)
	}
	if _, err := runCLI(t, "import", "--in", filepath.Join(ex, "ports.csv"), "--problem", "tsptw", "--out", filepath.Join(dir, "x.parquet")); err == nil ||
		!strings.Contains(err.Error(), "ports.csv: line 1: the header's columns are those of tspdl, not of the requested tsptw") {
		t.Fatalf("--problem tsptw on ports: %v", err)
	}
	if o, err := runCLI(t, "baseline", "--instances", ip, "--out", sp, "--workers", "1"); err != nil {
		t.Fatalf("baseline: %v\n%s", err, o)
	}
	o, err = runCLI(t, "export", "--instances", ip, "--solutions", sp, "--out", out)
	if err != nil || !strings.Contains(o, "wrote 3 schedules of 3 instances (3 feasible, 0 infeasible, 0 without a tour; 21 stops)") {
		t.Fatalf("export: %v\n%s", err, o)
	}
	b, _ := os.ReadFile(out)
	if lines := strings.Count(string(b), "\n"); lines != 22 {
		t.Fatalf("%d lines in the schedule, want a header and 21 stops", lines)
	}
	o, err = runCLI(t, "export", "--format", "json", "--all", "--instances", ip, "--solutions", sp, "--out", sp)
	if err == nil || !strings.Contains(o+err.Error(), "destroy the input") {
		t.Fatalf("export over its input: %v\n%s", err, o)
	}
	if _, err := runCLI(t, "export", "--format", "xml", "--instances", ip, "--solutions", sp, "--out", filepath.Join(dir, "x")); err == nil ||
		!strings.Contains(err.Error(), `--format: "xml", want csv or json`) {
		t.Fatalf("--format xml: %v", err)
	}
	tp := filepath.Join(dir, "times.csv")
	os.WriteFile(tp, []byte("instance,from,to,time\n"), 0o644)
	if _, err := runCLI(t, "import", "--in", filepath.Join(ex, "stops.csv"), "--times", tp, "--out", tp); err == nil || !strings.Contains(err.Error(), "the --times file") {
		t.Fatalf("--out over --times: %v", err)
	}
	if _, err := runCLI(t, "import", "--format", "dumas", "--in", ex, "--times", tp, "--out", filepath.Join(dir, "d.parquet")); err == nil ||
		!strings.Contains(err.Error(), "--times applies to --format csv only") {
		t.Fatalf("--times with dumas: %v", err)
	}
	// The example with a times file that lacks an instance's pairs.
	bad := filepath.Join(dir, "bad.parquet")
	_, err = runCLI(t, "import", "--in", filepath.Join(ex, "stops.csv"), "--times", tp, "--out", bad)
	if err == nil || !strings.Contains(err.Error(), tp+": line 2: column instance: the file ends before the travel times of instance \"mon\" (stops file line 2)") {
		t.Fatalf("times without rows: %v", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Fatalf("a failed import left %s: %v", bad, err)
	}
}
