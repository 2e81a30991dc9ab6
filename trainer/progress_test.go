package trainer

import (
	"strings"
	"testing"
)

func TestProgressLines(t *testing.T) {
	var w strings.Builder
	p := NewProgress(&w, 0, 20)
	for s := 1; s <= 20; s++ {
		p.Update(Record{Step: s, Reward: -1.5, PenCost: 1.5, Infeasible: 0.25, Loss: 0.5, InstPerSec: 8})
	}
	p.Finish()
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines, want one every 2 steps:\n%s", len(lines), w.String())
	}
	if want := "step 2/20: reward -1.5000, pen. cost 1.5000, infeasible 25.0%, loss 0.5, 8.00 inst/s"; lines[0] != want {
		t.Fatalf("first line %q, want %q", lines[0], want)
	}
	w.Reset()
	p = NewProgress(&w, 0, 3)
	p.Update(Record{Step: 3, StepNLL: 0.25, Length: 4, Loss: 1, InstPerSec: 100})
	if want := "step 3/3: imitation NLL per step 0.2500, label length 4.0000, loss 1, 100.00 tours/s\n"; w.String() != want {
		t.Fatalf("imitation line %q, want %q", w.String(), want)
	}
}
