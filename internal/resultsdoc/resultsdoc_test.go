package resultsdoc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPageIsCurrent: docs/results.md is what ./just results makes of
// docs/results/, byte for byte.
func TestPageIsCurrent(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "results.md")
	var b bytes.Buffer
	if err := Render("../../docs/results", &b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < max(len(g), len(w)); i++ {
			var gl, wl string
			if i < len(g) {
				gl = g[i]
			}
			if i < len(w) {
				wl = w[i]
			}
			if gl != wl {
				t.Fatalf("docs/results.md differs from docs/results/ at line %d (run ./just results):\n generated: %q\n committed: %q", i+1, gl, wl)
			}
		}
	}
}

func render(t *testing.T, files map[string]string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	err := Render(dir, &b)
	return b.String(), err
}

const meta = `"command": "./just x", "date": "2026-12-07", "machine": "2 cores"`

func TestKinds(t *testing.T) {
	t.Parallel()
	page, err := render(t, map[string]string{
		"b-frontier.json": `{"kind": "frontier", "title": "Frontier", ` + meta + `, "cells": [
			{"set": "TSPTW-50 medium", "budget": "1×", "network_gap": 0.00272, "no_network_gap": 0.0041, "cpu_seconds_per_instance": 0.0125}]}`,
		"a-runs.json": `{"kind": "runs", "title": "Runs", ` + meta + `, "label_title": "run", "intro": ["Before."],
			"columns": [{"key": "inst_infeasible", "title": "infeasible", "format": "pct", "digits": 2},
			            {"key": "gap", "title": "gap", "format": "pct", "digits": 3},
			            {"key": "seconds", "title": "time", "format": "s", "digits": 1},
			            {"key": "instances", "title": "n", "format": "int"}],
			"runs": [{"label": "greedy", "metrics": {"instances": 1000, "inst_infeasible": 0.001, "gap": 0.04556, "seconds": 7.46, "obj": 13.6, "worst_instances": []}}],
			"notes": ["After."]}`,
		"0-text.json": `{"kind": "text", "title": "Protocol", "intro": ["One.", "Two."]}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Title + "\n\n" + preamble + "\n" +
		"\n## Protocol\n\nOne.\n\nTwo.\n" +
		"\n## Runs\n\n**Command:** `./just x` · **Date:** 2026-12-07 · **Machine:** 2 cores\n\nBefore.\n\n" +
		"| run | infeasible | gap | time | n |\n|---|---|---|---|---|\n| greedy | 0.10% | 4.556% | 7.5 s | 1000 |\n\n* After.\n" +
		"\n## Frontier\n\n**Command:** `./just x` · **Date:** 2026-12-07 · **Machine:** 2 cores\n\n" +
		"| set | budget | network gap | no-network gap | CPU s/instance |\n|---|---|---|---|---|\n| TSPTW-50 medium | 1× | 0.27% | 0.41% | 0.013 |\n"
	if page != want {
		t.Errorf("page:\n%s\nwant:\n%s", page, want)
	}
}

// TestRunsFromMetricsFile: a "runs" row reads the file lmask-infer
// --metrics-json wrote (testdata/demo-metrics.json: ./just demo's), nested
// keys by a dotted path.
func TestRunsFromMetricsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/demo-metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "runs", "demo.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	section := `{"kind": "runs", "title": "Demo", ` + meta + `, "label_title": "run",
		"columns": [{"key": "instances", "title": "instances", "format": "int"},
		            {"key": "inst_infeasible", "title": "infeasible", "format": "pct", "digits": 1},
		            {"key": "obj", "title": "obj", "format": "num", "digits": 3},
		            {"key": "seconds", "title": "time", "format": "s", "digits": 1},
		            {"key": "timing.local_search", "title": "search", "format": "s", "digits": 2},
		            {"key": "local_search_stats.proven", "title": "proved", "format": "int"}],
		"runs": [{"label": "./just demo", "metrics_file": "runs/demo.json"}]}`
	if err := os.WriteFile(filepath.Join(dir, "demo.json"), []byte(section), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(dir, &b); err != nil {
		t.Fatal(err)
	}
	want := "| ./just demo | 200 | 0.0% | 25.396 | 2.2 s | 0.47 s | 197 |\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("page ends\n%s\nwant a last row\n%s", b.String(), want)
	}
	// The demo had no reference: its gap is null, which no column may show.
	bad := strings.Replace(section, `"key": "obj"`, `"key": "gap"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "demo.json"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Render(dir, &b); err == nil || !strings.Contains(err.Error(), "metrics_file runs/demo.json: gap = null is not a number") {
		t.Errorf("null gap: %v", err)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ body, want string }{
		"kind":        {`{"kind": "chart", "title": "T"}`, `field kind: "chart", want one of frontier, pairs, runs, table, text`},
		"unknown":     {`{"kind": "table", "title": "T", ` + meta + `, "colums": ["a"], "rows": [["1"]]}`, `unknown field "colums"`},
		"date":        {`{"kind": "table", "title": "T", "command": "c", "date": "07.12.2026", "machine": "m", "columns": ["a"], "rows": [["1"]]}`, `field date: "07.12.2026", want YYYY-MM-DD`},
		"machine":     {`{"kind": "table", "title": "T", "command": "c", "date": "2026-12-07", "columns": ["a"], "rows": [["1"]]}`, `field machine: empty`},
		"cells":       {`{"kind": "table", "title": "T", ` + meta + `, "columns": ["a", "b"], "rows": [["1"]]}`, `field rows[0]: 1 cells, want 2`},
		"pipe":        {`{"kind": "table", "title": "T", ` + meta + `, "columns": ["a"], "rows": [["1|2"]]}`, `field rows[0][0]: "1|2" holds a |`},
		"metric":      {`{"kind": "runs", "title": "T", ` + meta + `, "columns": [{"key": "gap", "title": "g", "format": "pct"}], "runs": [{"label": "r", "metrics": {"obj": 1}}]}`, `field runs[0].metrics: no key "gap"`},
		"both":        {`{"kind": "runs", "title": "T", ` + meta + `, "columns": [{"key": "gap", "title": "g", "format": "pct"}], "runs": [{"label": "r", "metrics": {"gap": 1}, "metrics_file": "x.json"}]}`, `field runs[0]: give metrics or metrics_file`},
		"file":        {`{"kind": "runs", "title": "T", ` + meta + `, "columns": [{"key": "gap", "title": "g", "format": "pct"}], "runs": [{"label": "r", "metrics_file": "none.json"}]}`, `field runs[0].metrics_file: open`},
		"format":      {`{"kind": "runs", "title": "T", ` + meta + `, "columns": [{"key": "gap", "title": "g", "format": "permille"}], "runs": [{"label": "r", "metrics": {"gap": 1}}]}`, `format "permille"`},
		"cpu":         {`{"kind": "frontier", "title": "T", ` + meta + `, "cells": [{"set": "s", "budget": "1×", "network_gap": 0, "no_network_gap": 0}]}`, `field cells[0].cpu_seconds_per_instance: 0, want > 0`},
		"empty title": {`{"kind": "text", "title": " "}`, `field title: empty`},
		"arms":        {`{"kind": "pairs", "title": "T", ` + meta + `, "label_title": "set", "arm_names": ["a", "b"], "rows": [{"label": "r", "instances": 1, "base_gap": 0.1, "arms": [{"gap": 0.1, "plain_gap": 0.1, "cpu_s": 1}]}]}`, `field rows[0].arms: 1, want 2 (the arm_names)`},
		"arm cpu":     {`{"kind": "pairs", "title": "T", ` + meta + `, "label_title": "set", "arm_names": ["a"], "rows": [{"label": "r", "instances": 1, "base_gap": 0.1, "arms": [{"gap": 0.1, "plain_gap": 0.1}]}]}`, `field rows[0].arms[0].cpu_s: 0, want > 0`},
		"no arm":      {`{"kind": "pairs", "title": "T", ` + meta + `, "label_title": "set", "arm_names": ["a"], "rows": [{"label": "r", "instances": 1, "base_gap": 0.1, "arms": [null]}]}`, `field rows[0].arms: none measured`},
		"instances":   {`{"kind": "pairs", "title": "T", ` + meta + `, "label_title": "set", "arm_names": ["a"], "rows": [{"label": "r", "base_gap": 0.1, "arms": [{"gap": 0.1, "plain_gap": 0.1, "cpu_s": 1}]}]}`, `instances 0: want a label and instances > 0`},
		"picture":     {`{"kind": "text", "title": "T", "intro": ["x"], "picture": {"file": "none.svg", "caption": "c"}}`, `field picture.file: stat`},
		"picture sp":  {`{"kind": "text", "title": "T", "intro": ["x"], "picture": {"file": "a b.svg", "caption": "c"}}`, `field picture.file: "a b.svg", want a path relative to the page`},
		"caption":     {`{"kind": "text", "title": "T", "intro": ["x"], "picture": {"file": "a.svg", "caption": ""}}`, `field picture.caption: ""`},
	} {
		_, err := render(t, map[string]string{"s.json": c.body})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "s.json") {
			t.Errorf("%s: got %v, want an error naming s.json and %q", name, err, c.want)
		}
	}
	if _, err := render(t, nil); err == nil || !strings.Contains(err.Error(), "no *.json") {
		t.Errorf("empty folder: %v", err)
	}
}

// TestPairs: a "pairs" section shows the base and, per arm, the arm's gap
// and the plain search's with the better in bold (an arm not measured an
// empty cell), the range of the arms' CPU seconds, and its picture, a file
// beside the page, after the table.
func TestPairs(t *testing.T) {
	t.Parallel()
	page := t.TempDir()
	dir := filepath.Join(page, "results")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(page, "kicks.svg"), []byte("<svg/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	section := `{"kind": "pairs", "title": "Kicks", ` + meta + `, "label_title": "set", "arm_names": ["random", "doubt"],
		"rows": [
			{"label": "A", "instances": 100, "base_gap": 0.00153, "arms": [{"gap": 0.00141, "plain_gap": 0.00143, "cpu_s": 0.94},
			                                                                 {"gap": 0.0015, "plain_gap": 0.00143, "cpu_s": 1.1}]},
			{"label": "B", "instances": 300, "base_gap": 0.0002, "arms": [null, {"gap": 0.00017, "plain_gap": 0.00017, "cpu_s": 3.6}]}],
		"picture": {"file": "kicks.svg", "caption": "Gap against CPU"},
		"notes": ["After."]}`
	if err := os.WriteFile(filepath.Join(dir, "s.json"), []byte(section), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(dir, &b); err != nil {
		t.Fatal(err)
	}
	want := "| set | base | random | doubt | CPU per arm |\n|---|---|---|---|---|\n" +
		"| A | 0.153% | **0.141** / 0.143% | 0.150 / **0.143%** | 0.9–1.1 s |\n" +
		"| B | 0.020% |  | 0.017 / 0.017% | 3.6 s |\n" +
		"\n![Gap against CPU](kicks.svg)\n\n* After.\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("page ends\n%s\nwant\n%s", b.String(), want)
	}
	s, err := ReadPairs(filepath.Join(dir, "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Rows) != 2 || s.Rows[1].Arms[0] != nil || s.Rows[0].Arms[1].CPU != 1.1 || s.Rows[1].Instances != 300 {
		t.Errorf("ReadPairs: %+v", s.Rows)
	}
	if _, err := ReadPairs("testdata/demo-metrics.json"); err == nil || !strings.Contains(err.Error(), `demo-metrics.json: field kind: "", want pairs`) {
		t.Errorf("ReadPairs of a metrics file: %v", err)
	}
	bad := strings.Replace(section, `"label_title"`, `"label_titel"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "s.json"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPairs(filepath.Join(dir, "s.json")); err == nil || !strings.Contains(err.Error(), `s.json: json: unknown field "label_titel"`) {
		t.Errorf("ReadPairs of a misspelt field: %v", err)
	}
}
