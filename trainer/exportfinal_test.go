package trainer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lmask/lmask/models/features"
)

func TestExportFinal(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, 4)
	cfg.ValFile, cfg.ValEvery, cfg.ValLimit, cfg.KeepBest = writeValSet(t, dir, 8), 1, 8, true
	tr := trainRun(t, cfg, Options{Dir: filepath.Join(dir, "run")})
	b, bestAt := tr.BestVal()
	if b == nil {
		t.Fatal("no best validation after a validated run")
	}
	want := -1
	if bestAt != tr.Step() {
		want = bestAt
	}
	t.Logf("best validation at step %d of %d", bestAt, tr.Step())
	out := filepath.Join(dir, "model")
	at, err := tr.ExportFinal(out)
	if err != nil || at != want {
		t.Fatalf("ExportFinal: step %d, %v; want %d (best at %d of %d)", at, err, want, bestAt, tr.Step())
	}
	for _, f := range features.ModelFiles {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("model file: %v", err)
		}
	}
	plain := trainRun(t, tinyConfig(t, 1), Options{Dir: filepath.Join(dir, "plain")})
	if at, err := plain.ExportFinal(filepath.Join(dir, "plain-model")); err != nil || at != -1 {
		t.Fatalf("without validation: step %d, %v; want -1 (the current model)", at, err)
	}
}
