package main

import (
	"strings"
	"testing"

	"github.com/lmask/lmask/internal/cliapp"
)

// settings runs lmask-infer --print-settings with args and returns the
// printed value of each setting.
func settings(t *testing.T, args ...string) map[string]string {
	t.Helper()
	out, _, err := runCLI(t, append([]string{"--print-settings"}, args...)...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		name, rest, _ := strings.Cut(line, "  ")
		value, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		got[name] = value
	}
	return got
}

// TestPrintSettings: the printed settings are the preset's, with the flags
// given explicitly applied, and no file is needed to print them.
func TestPrintSettings(t *testing.T) {
	for _, c := range []struct {
		args []string
		want map[string]string
	}{
		{nil, map[string]string{"--preset": "paper", "--aug": "8", "--budget": "paper", "--improve": "false", "--improve-share": "0", "min kicks": "0"}},
		{[]string{"--preset", "best"}, map[string]string{"--aug": "2", "--improve": "true", "--improve-share": "3.5",
			"setup share": "0.75", "min kicks": "20", "budget per node": "16", "--improve-kicks": "0"}},
		{[]string{"--preset", "fast"}, map[string]string{"--aug": "1", "--batch": "32", "--improve": "true", "--improve-kicks": "10", "--improve-share": "0"}},
		{[]string{"--preset", "fast", "--batch", "4"}, map[string]string{"--batch": "4", "--improve-kicks": "10"}},
		{[]string{"--preset", "best"}, map[string]string{"--batch": "4"}},
		{[]string{"--preset", "best", "--aug", "4", "--budget", "300", "--improve-share", "2"},
			map[string]string{"--aug": "4", "--budget": "300", "--improve-share": "2", "min kicks": "20"}},
		{[]string{"--preset", "best", "--improve=false"}, map[string]string{"--improve": "false", "--improve-share": "0"}},
		{[]string{"--preset", "best"}, map[string]string{"--neural-kicks": "0", "--neural-cut": "random"}},
		{[]string{"--preset", "best", "--neural-kicks", "5", "--neural-cut", "doubt"}, map[string]string{"--neural-kicks": "5", "--neural-cut": "doubt"}},
	} {
		got := settings(t, c.args...)
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%v: %s = %q, want %q", c.args, k, got[k], v)
			}
		}
	}
	if _, _, err := runCLI(t, "--preset", "best", "--aug", "9", "--print-settings"); cliapp.ExitCode(err) != cliapp.ExitUsage {
		t.Errorf("--aug 9 --print-settings: %v, want a usage error", err)
	}
	if _, _, err := runCLI(t, "--preset", "best", "--data", "x.parquet"); cliapp.ExitCode(err) != cliapp.ExitUsage ||
		!strings.Contains(err.Error(), `Required flags "model, out" not set`) {
		t.Errorf("missing --model and --out: %v", err)
	}
}
