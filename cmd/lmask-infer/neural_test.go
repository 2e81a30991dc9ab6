package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/lazymask"
)

// --neural-every needs the search and the network's starts, and is ≥ 0.
func TestNeuralEveryUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--neural-every", "3"}, "--neural-every needs --improve"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--improve", "--neural-every", "-1"}, "--neural-every -1"},
		{[]string{"--starts", "urgency", "--data", "d", "--out", "o", "--improve", "--neural-every", "3"}, "it needs --starts network"},
	} {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || cliapp.ExitCode(err) != cliapp.ExitUsage {
			t.Errorf("%v: err = %v (exit %d), want a usage error mentioning %q", tc.args, err, cliapp.ExitCode(err), tc.want)
		}
	}
}

// lmask-infer --improve --neural-every 2 on the 10-node test models of both
// problems: the searches make neural kicks (the metrics count the
// re-decodes and the kicks), every instance gets its rows, every row's
// verdict is the checker's, and fixed kicks give the same file twice;
// --print-settings shows the flag.
func TestNeuralEveryEndToEnd(t *testing.T) {
	needRuntime(t)
	t.Parallel()
	for _, c := range []struct {
		model string
		p     lazymask.Problem
	}{{tinyTSPTW, lazymask.TSPTW}, {"../../engine/testdata/tiny-tspdl", lazymask.TSPDL}} {
		dir := t.TempDir()
		data := filepath.Join(dir, "data.parquet")
		if _, err := datasets.GenerateFile(data, datasets.GenConfig{Problem: c.p, N: 10, Hardness: datasets.Hard, Seed: 5}, 12, datasets.WriterOptions{RowGroupRows: 5}); err != nil {
			t.Fatal(err)
		}
		d, err := datasets.ReadInstances(data)
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"--model", c.model, "--data", data, "--aug", "2", "--improve", "--improve-kicks", "30", "--neural-every", "2", "--rescue-time", "0"}
		var files [2][]datasets.Solution
		for k := range files {
			out, mj := filepath.Join(dir, "sol"+string(rune('a'+k))+".parquet"), filepath.Join(dir, "m.json")
			if _, stderr, err := runCLI(t, append(args, "--out", out, "--metrics-json", mj)...); err != nil {
				t.Fatalf("%s: %v\n%s", c.p, err, stderr)
			}
			if files[k], _, err = datasets.ReadSolutions(out); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(mj)
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Search struct {
					Kicks  int `json:"kicks"`
					Neural int `json:"neural_kicks"`
				} `json:"local_search_stats"`
				Redecodes struct {
					N int `json:"redecodes"`
				} `json:"neural_search"`
			}
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			// Every second kick is a neural one, each a re-decode.
			if m.Search.Neural == 0 || m.Search.Neural < m.Search.Kicks/2 || m.Redecodes.N != m.Search.Neural {
				t.Fatalf("%s: %d kicks, %d neural kicks, %d re-decodes", c.p, m.Search.Kicks, m.Search.Neural, m.Redecodes.N)
			}
		}
		seen := map[int64]bool{}
		for _, s := range files[0] {
			seen[s.Instance] = true
			if s.Tour == nil {
				continue
			}
			if _, cerr := lazymask.Check(d.Instances[s.Instance], s.Tour); (cerr == nil) != s.Feasible {
				t.Errorf("%s instance %d (%s): row feasible=%v, Check: %v", c.p, s.Instance, s.Source, s.Feasible, cerr)
			}
		}
		if len(seen) != len(d.Instances) {
			t.Errorf("%s: %d instances with rows, want %d", c.p, len(seen), len(d.Instances))
		}
		if len(files[0]) != len(files[1]) {
			t.Fatalf("%s: %d rows, then %d", c.p, len(files[0]), len(files[1]))
		}
		for i := range files[0] {
			a, b := files[0][i], files[1][i]
			if a.Source != b.Source || a.Cost != b.Cost || !slices.Equal(a.Tour, b.Tour) {
				t.Fatalf("%s row %d: %v %v (%s), then %v %v (%s)", c.p, i, a.Tour, a.Cost, a.Source, b.Tour, b.Cost, b.Source)
			}
		}
	}
	stdout, _, err := runCLI(t, "--preset", "best", "--neural-every", "4", "--print-settings")
	shown := false
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "--neural-every" {
			shown = f[1] == "4"
		}
	}
	if err != nil || !shown {
		t.Errorf("--print-settings (%v) does not show --neural-every 4:\n%s", err, stdout)
	}
}
