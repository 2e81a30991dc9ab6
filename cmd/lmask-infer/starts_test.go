package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/lazymask"
)

// --starts network needs --model; the start sources without a network
// refuse a model, and a time share without a budget; the budgets belong to
// them alone.
func TestStartsUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--starts", "network", "--data", "d", "--out", "o"}, "--model is required with --starts network"},
		{[]string{"--data", "d", "--out", "o", "--preset", "best"}, "--model is required with --starts network"},
		{[]string{"--starts", "random-x", "--data", "d", "--out", "o"}, `--starts: unknown start source "random-x"`},
		{[]string{"--starts", "random-l", "--model", "m", "--data", "d", "--out", "o"}, "uses no model"},
		{[]string{"--starts", "random-l", "--preset", "best", "--data", "d", "--out", "o"}, "needs --cpu-budget or --time-per-instance"},
		{[]string{"--model", "m", "--cpu-budget", "2s", "--data", "d", "--out", "o"}, "apply to --starts random-l or urgency"},
		{[]string{"--starts", "urgency", "--cpu-budget", "2s", "--time-per-instance", "1ms", "--data", "d", "--out", "o"}, "want one of them"},
		{[]string{"--starts", "urgency", "--cpu-budget", "-2s", "--data", "d", "--out", "o"}, "want one of them"},
	} {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || cliapp.ExitCode(err) != cliapp.ExitUsage {
			t.Errorf("%v: err = %v (exit %d), want a usage error mentioning %q", tc.args, err, cliapp.ExitCode(err), tc.want)
		}
	}
}

// lmask-infer --starts random-l --preset best --time-per-instance runs the
// whole pipeline without a model: every instance gets a row whose verdict
// the checker confirms, and the metrics JSON names the starts, the budget
// and the CPU share; --preset fast's fixed kicks need no budget and give
// the same file twice.
func TestStartsEndToEnd(t *testing.T) {
	data, ref := fixture(t, datasets.Medium, 10)
	d, err := datasets.ReadInstances(data)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, metrics := filepath.Join(dir, "sol.parquet"), filepath.Join(dir, "m.json")
	stdout, _, err := runCLI(t, "--starts", "random-l", "--preset", "best", "--time-per-instance", "10ms", "--data", data, "--reference", ref,
		"--out", out, "--metrics-json", metrics)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "random-l, no network") || !strings.Contains(stdout, "% of the wall time") {
		t.Errorf("table lacks the starts or the CPU share:\n%s", stdout)
	}
	sols, _, err := datasets.ReadSolutions(out)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, s := range sols {
		seen[s.Instance] = true
		if !strings.HasPrefix(s.Source, "random-l") {
			t.Errorf("instance %d: source %q", s.Instance, s.Source)
		}
		if s.Tour == nil {
			continue
		}
		if _, cerr := lazymask.Check(d.Instances[s.Instance], s.Tour); (cerr == nil) != s.Feasible {
			t.Errorf("instance %d (%s): row feasible=%v, Check: %v", s.Instance, s.Source, s.Feasible, cerr)
		}
	}
	if len(seen) != len(d.Instances) {
		t.Errorf("%d instances with rows, want %d", len(seen), len(d.Instances))
	}
	raw, err := os.ReadFile(metrics)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m["starts"] != "random-l" || m["cpu_budget"] != 0.1 || m["cpu_share"] == nil || m["cpu_seconds"] == nil {
		t.Errorf("metrics starts %v cpu_budget %v cpu_share %v cpu_seconds %v", m["starts"], m["cpu_budget"], m["cpu_share"], m["cpu_seconds"])
	}

	var files [2][]datasets.Solution
	for k := range files {
		o := filepath.Join(dir, "fast"+string(rune('a'+k))+".parquet")
		if _, _, err := runCLI(t, "--starts", "urgency", "--preset", "fast", "--data", data, "--out", o); err != nil {
			t.Fatal(err)
		}
		if files[k], _, err = datasets.ReadSolutions(o); err != nil {
			t.Fatal(err)
		}
	}
	if len(files[0]) != len(files[1]) {
		t.Fatalf("fixed kicks: %d rows, then %d", len(files[0]), len(files[1]))
	}
	for i := range files[0] {
		a, b := files[0][i], files[1][i]
		if a.Source != b.Source || a.Cost != b.Cost || len(a.Tour) != len(b.Tour) {
			t.Fatalf("fixed kicks, row %d: %v %v (%s), then %v %v (%s)", i, a.Tour, a.Cost, a.Source, b.Tour, b.Cost, b.Source)
		}
		for j := range a.Tour {
			if a.Tour[j] != b.Tour[j] {
				t.Fatalf("fixed kicks, row %d: %v, then %v", i, a.Tour, b.Tour)
			}
		}
	}
}
