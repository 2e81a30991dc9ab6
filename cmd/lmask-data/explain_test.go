package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/explain"
	"github.com/lmask/lmask/internal/cliapp"
)

// TestExplainExamples: the example infeasible days (TSPTW and TSPDL) get
// the explanations stored beside them, through import and explain --json.
func TestExplainExamples(t *testing.T) {
	dir := t.TempDir()
	ex := filepath.Join("..", "..", "datasets", "examples")
	for _, name := range []string{"infeasible", "ports-infeasible"} {
		ip := filepath.Join(dir, name+".parquet")
		if o, err := runCLI(t, "import", "--in", filepath.Join(ex, name+".csv"), "--out", ip); err != nil {
			t.Fatalf("import %s: %v\n%s", name, err, o)
		}
		o, err := runCLI(t, "explain", "--instances", ip, "--json")
		if err != nil {
			t.Fatalf("explain %s: %v\n%s", name, err, o)
		}
		want, err := os.ReadFile(filepath.Join(ex, name+".explain.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		wl := strings.Split(strings.TrimSpace(string(want)), "\n")
		gl := strings.Split(strings.TrimSpace(o), "\n")
		if len(gl) != len(wl) {
			t.Fatalf("%s: %d lines, want %d:\n%s", name, len(gl), len(wl), o)
		}
		for i := range wl {
			var g, w map[string]any
			if err := json.Unmarshal([]byte(gl[i]), &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(wl[i]), &w); err != nil {
				t.Fatal(err)
			}
			if s, ok := g["seconds"].(float64); !ok || s < 0 {
				t.Fatalf("%s line %d: seconds %v", name, i, g["seconds"])
			}
			delete(g, "seconds")
			gb, _ := json.Marshal(g)
			wb, _ := json.Marshal(w)
			if string(gb) != string(wb) {
				t.Fatalf("%s line %d:\n got %s\nwant %s", name, i, gb, wb)
			}
		}
	}
	o, err := runCLI(t, "explain", "--instances", filepath.Join(dir, "infeasible.parquet"))
	if err != nil || !strings.Contains(o, "4 instances: 1 feasible, 3 infeasible, 0 unknown") ||
		!strings.Contains(o, "0 mon: infeasible; conflict 3: stop 3 closes at 5.0 but the earliest arrival from the depot is 19.21") {
		t.Fatalf("explain table: %v\n%s", err, o)
	}
	if _, err := runCLI(t, "explain", "--instances", filepath.Join(dir, "infeasible.parquet"), "--time", "0s"); err == nil || !strings.Contains(err.Error(), "--time") {
		t.Fatalf("--time 0: %v", err)
	}
	if _, err := runCLI(t, "explain", "--instances", filepath.Join(dir, "missing.parquet")); err == nil || !strings.Contains(err.Error(), "missing.parquet") {
		t.Fatalf("missing file: %v", err)
	}
	// A bad row of an infeasible day is still refused naming file, line
	// and column.
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("instance,node,x,y,ready,due,service\nmon,0,20,20,0,480,0\nmon,1,35,32,10,5,10\n"), 0o644)
	if _, err := runCLI(t, "import", "--in", bad, "--out", filepath.Join(dir, "bad.parquet")); err == nil ||
		!strings.Contains(err.Error(), bad+": line 3: column due: value \"5\"") {
		t.Fatalf("bad row: %v", err)
	}
}

// TestDroppedExportAndCheck: a solutions file with served tours (drop) of
// the example days exports them with the dropped stops after the tour and
// checks them; a served tour whose nodes and dropped stops do not make up
// the instance is refused naming the file, row and field.
func TestDroppedExportAndCheck(t *testing.T) {
	dir := t.TempDir()
	ip, sp := filepath.Join(dir, "i.parquet"), filepath.Join(dir, "s.parquet")
	if o, err := runCLI(t, "import", "--in", filepath.Join("..", "..", "datasets", "examples", "infeasible.csv"), "--out", ip); err != nil {
		t.Fatalf("import: %v\n%s", err, o)
	}
	d, err := datasets.ReadInstances(ip)
	if err != nil {
		t.Fatal(err)
	}
	var sols []datasets.Solution
	for i, in := range d.Instances {
		dr, err := explain.Drop(in.Clone(), nil, explain.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		sols = append(sols, datasets.Solution{Instance: int64(i), Tour: dr.Tour, Dropped: dr.Dropped, Cost: dr.Check.Cost, Feasible: dr.Feasible, Source: "drop"})
	}
	meta := d.Meta
	meta.Kind, meta.Instances = datasets.KindSolutions, ip
	if err := datasets.WriteSolutions(sp, meta, sols, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	o, err := runCLI(t, "check", "--instances", ip, "--solutions", sp, "--json")
	if err != nil {
		t.Fatalf("check: %v\n%s", err, o)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(o[strings.Index(o, "{"):]), &m); err != nil {
		t.Fatal(err)
	}
	// thu is feasible: its tour serves every stop and counts as such.
	if m["dropped_instances"] != 3.0 || m["dropped_stops"] != 3.0 || m["inst_infeasible"] != 0.75 {
		t.Fatalf("check: %s", o)
	}
	out := filepath.Join(dir, "sched.csv")
	if o, err := runCLI(t, "export", "--instances", ip, "--solutions", sp, "--out", out); err != nil ||
		!strings.Contains(o, "(4 feasible, 0 infeasible, 0 without a tour; 3 served in part, 3 stops dropped; 37 stops)") {
		t.Fatalf("export: %v\n%s", err, o)
	}
	f, _ := os.Open(out)
	recs, err := csv.NewReader(bufio.NewReader(f)).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	head := recs[0]
	col := func(name string) int { return slices.Index(head, name) }
	var monNodes []string
	monDropped := ""
	for _, r := range recs[1:] {
		if r[col("instance")] != "mon" {
			continue
		}
		if r[col("verdict")] == "dropped" {
			monDropped = r[col("node")]
			if r[col("stop")] != "" || r[col("arrival")] != "" {
				t.Fatalf("dropped row has a schedule: %v", r)
			}
			continue
		}
		if monDropped != "" {
			t.Fatalf("a stop after the dropped ones: %v", r)
		}
		if r[col("verdict")] != "feasible" || r[col("late")] != "0" && r[col("late")] != "" {
			t.Fatalf("served stop: %v", r)
		}
		monNodes = append(monNodes, r[col("node")])
	}
	if monDropped != "3" || len(monNodes) != 9 || monNodes[0] != "0" || monNodes[8] != "0" || slices.Contains(monNodes, "3") {
		t.Fatalf("mon: served %v, dropped %q", monNodes, monDropped)
	}
	// Served plus dropped must be every node exactly once.
	for _, bad := range [][2][]int{{{0, 1, 2, 4, 5, 6, 7, 8}, {3, 2}}, {{0, 1, 2, 4, 5, 6, 7}, {3}}} {
		broken := slices.Clone(sols)
		broken[0].Tour, broken[0].Dropped = bad[0], bad[1]
		bp := filepath.Join(dir, "broken.parquet")
		if err := datasets.WriteSolutions(bp, meta, broken, datasets.WriterOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := runCLI(t, "check", "--instances", ip, "--solutions", bp); err == nil || !strings.Contains(err.Error(), bp+": row 0: field dropped") {
			t.Fatalf("broken drop row: %v", err)
		}
		if _, err := runCLI(t, "export", "--instances", ip, "--solutions", bp, "--out", filepath.Join(dir, "x.csv")); err == nil || !strings.Contains(err.Error(), bp+": row 0: field dropped") {
			t.Fatalf("broken drop row, export: %v", err)
		}
	}
}

// TestGenerateInfeasible: generate --infeasible makes the share it is
// given infeasible, evenly spread, and explain finds exactly those.
func TestGenerateInfeasible(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"tsptw", "tspdl"} {
		ip := filepath.Join(dir, p+".parquet")
		o, err := runCLI(t, "generate", "--problem", p, "--size", "12", "--hardness", "hard", "--count", "8", "--seed", "5", "--infeasible", "0.25", "--out", ip)
		if err != nil || !strings.Contains(o, "made 2 instances infeasible") {
			t.Fatalf("generate %s: %v\n%s", p, err, o)
		}
		o, err = runCLI(t, "explain", "--instances", ip)
		if err != nil || !strings.Contains(o, "8 instances: 6 feasible, 2 infeasible, 0 unknown") ||
			!strings.Contains(o, "\n3 "+p+"12-hard-s5-3: infeasible; conflict ") || !strings.Contains(o, "\n7 "+p+"12-hard-s5-7: infeasible; conflict ") {
			t.Fatalf("explain %s: %v\n%s", p, err, o)
		}
	}
	if _, err := runCLI(t, "generate", "--problem", "tsptw", "--size", "12", "--hardness", "hard", "--count", "8", "--seed", "5", "--infeasible", "2", "--out", filepath.Join(dir, "x.parquet")); err == nil || !strings.Contains(err.Error(), "--infeasible 2") {
		t.Fatalf("--infeasible 2: %v", err)
	}
}

// TestExplainInterrupted: explain under a cancelled context stops its
// searches, prints no explanation and exits as interrupted.
func TestExplainInterrupted(t *testing.T) {
	dir := t.TempDir()
	ip := filepath.Join(dir, "days.parquet")
	if o, err := runCLI(t, "import", "--in", filepath.Join("..", "..", "datasets", "examples", "infeasible.csv"), "--out", ip); err != nil {
		t.Fatalf("import: %v\n%s", err, o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	err := runContext(ctx, []string{"explain", "--instances", ip, "--json"}, &out, &out)
	if cliapp.ExitCode(err) != cliapp.ExitInterrupted || strings.Contains(out.String(), "\"status\"") {
		t.Fatalf("interrupted explain: err %v, exit %d, output:\n%s", err, cliapp.ExitCode(err), out.String())
	}
}
