package trainer

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSummaryWriteReport(t *testing.T) {
	dir := filepath.Join("runs", "tw50")
	s := Summary{Step: 40, InstancesSeen: 640, WallSeconds: 125.4, LastVal: &ValMetrics{SolInfeasible: 0.125, InstInfeasible: 0.0625, Obj: 7.31234}}
	var b strings.Builder
	s.WriteReport(&b, 100, 61700*time.Millisecond, dir)
	want := "steps 40/100, instances seen 640, wall 2m5s (this session 1m2s)\n" +
		"validation: sol. infeasible 12.50%, inst. infeasible 6.25%, obj 7.3123\n" +
		"checkpoint: " + filepath.Join(dir, "checkpoint.lmck") + "\n" +
		"metrics: " + filepath.Join(dir, "metrics.jsonl") + "\n" +
		"curve: " + filepath.Join(dir, "curve.svg") + "\n"
	if b.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	s.LastVal = nil
	s.WriteReport(&b, 100, 0, dir)
	if strings.Contains(b.String(), "validation") || !strings.HasPrefix(b.String(), "steps 40/100, instances seen 640, wall 2m5s (this session 0s)\n") {
		t.Errorf("without a validation:\n%s", b.String())
	}
}
