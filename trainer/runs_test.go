package trainer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRun writes a run directory whose metrics log holds train records of
// steps 1..steps and a validation at the last step.
func writeRun(t *testing.T, dir string, steps int, obj float64) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for s := 1; s <= steps; s++ {
		recs := []Record{{Kind: KindTrain, Step: s, Reward: -obj, Length: obj}}
		if s == steps {
			recs = append(recs, Record{Kind: KindVal, Step: s, Val: &ValMetrics{Instances: 4, Obj: obj}})
		}
		for _, r := range recs {
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(append(line, '\n'))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, MetricsFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDrawStages draws two stages joined (4 steps, then 3 more: step 7
// last), refuses to draw over a run's metrics log, and names a missing run.
func TestDrawStages(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeRun(t, a, 4, 6)
	writeRun(t, b, 3, 5.5)
	out := filepath.Join(dir, "curve.svg")
	stages, last, err := DrawStages(out, []string{a, b})
	if err != nil || stages != 2 || last != 7 {
		t.Fatalf("DrawStages = %d stages, last step %d, %v; want 2, 7", stages, last, err)
	}
	if svg, err := os.ReadFile(out); err != nil || !strings.Contains(string(svg), "<svg") {
		t.Fatalf("picture: %v", err)
	}
	if stages, last, err := DrawStages(out, []string{b}); err != nil || stages != 1 || last != 3 {
		t.Fatalf("one stage: %d, %d, %v; want 1, 3", stages, last, err)
	}
	log := filepath.Join(a, MetricsFile)
	before, _ := os.ReadFile(log)
	if _, _, err := DrawStages(log, []string{a}); err == nil || !strings.HasPrefix(err.Error(), "curve: ") || !strings.Contains(err.Error(), "would destroy the input") {
		t.Fatalf("drawing over the metrics log: %v", err)
	}
	if after, _ := os.ReadFile(log); string(after) != string(before) {
		t.Fatal("the metrics log changed")
	}
	missing := filepath.Join(dir, "none")
	if _, _, err := DrawStages(filepath.Join(dir, "x.svg"), []string{a, missing}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.svg")); !os.IsNotExist(err) {
		t.Fatalf("a picture was written for a missing run: %v", err)
	}
}

// TestDrawComparison writes the panels of runs read by ReadCompareGroups
// and refuses an output that is one of their metrics logs.
func TestDrawComparison(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeRun(t, a, 4, 6)
	writeRun(t, b, 4, 5.5)
	groups, runs, err := ReadCompareGroups([]string{"TSPTW-50:pomo=" + a + ";keys=" + b}, 128)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cmp.svg")
	if err := DrawComparison(out, groups, runs); err != nil {
		t.Fatal(err)
	}
	if svg, err := os.ReadFile(out); err != nil || !strings.Contains(string(svg), "TSPTW-50") || !strings.Contains(string(svg), "keys") {
		t.Fatalf("picture: %v", err)
	}
	if err := DrawComparison(filepath.Join(b, MetricsFile), groups, runs); err == nil || !strings.HasPrefix(err.Error(), "compare: ") {
		t.Fatalf("drawing over a metrics log: %v", err)
	}
}
