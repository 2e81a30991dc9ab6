package infer

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/solve"
)

// neuralRun runs the best preset with reproducible settings (no time
// share, a fixed kick count) and the given neural kicks on the tiny model
// of data's problem.
func neuralRun(t *testing.T, p lazymask.Problem, data string, rounds int, cut solve.CutRule) ([]datasets.Solution, Summary) {
	t.Helper()
	o, err := Preset(PresetBest)
	if err != nil {
		t.Fatal(err)
	}
	o.Model, o.Data, o.Out = tinyModel(p), data, filepath.Join(t.TempDir(), "sol.parquet")
	o.ImproveShare, o.Search.Kicks, o.Search.MinKicks = 0, 1, 0
	o.NeuralKicks.Rounds, o.NeuralKicks.Cut = rounds, cut
	return run(t, o)
}

// Neural kicks on the tiny test models, end to end through Run: every row
// is what the checker's replay says, the instances feasible without the
// kicks stay so, the kicks run (rounds × instances, by both cut rules) and
// improve some instances, the best per instance is never worse than
// without them, and two runs write the same rows.
func TestRunNeuralKicks(t *testing.T) {
	needRuntime(t)
	for _, c := range []struct {
		p        lazymask.Problem
		hardness string
	}{{lazymask.TSPTW, datasets.Medium}, {lazymask.TSPDL, datasets.Medium}} {
		data, _, insts := fixture(t, c.p, c.hardness, 20, 14)
		plain, _ := neuralRun(t, c.p, data, 0, solve.CutRandom)
		for _, cut := range []solve.CutRule{solve.CutRandom, solve.CutDoubt} {
			name := c.p.String() + " " + cut.String()
			a, sa := neuralRun(t, c.p, data, 4, cut)
			b, _ := neuralRun(t, c.p, data, 4, cut)
			if len(a) != len(b) {
				t.Fatalf("%s: %d then %d rows", name, len(a), len(b))
			}
			for i := range a {
				if a[i].Instance != b[i].Instance || a[i].Cost != b[i].Cost || !slices.Equal(a[i].Tour, b[i].Tour) {
					t.Fatalf("%s: row %d differs between runs: %+v and %+v", name, i, a[i], b[i])
				}
			}
			k := sa.NeuralKicks
			if k.Kicks != 4*len(insts) || k.Accepted == 0 || k.PolicyCalls == 0 {
				t.Fatalf("%s: neural kicks %+v, want %d kicks, some accepted", name, k, 4*len(insts))
			}
			if cut == solve.CutDoubt && k.Doubt == 0 {
				t.Fatalf("%s: no time in the doubt scoring: %+v", name, k)
			}
			best, plainBest := bestByInstance(t, insts, a), bestByInstance(t, insts, plain)
			better := 0
			for i := range insts {
				if best[i].Feasible != plainBest[i].Feasible {
					t.Fatalf("%s: instance %d feasible %v, without neural kicks %v", name, i, best[i].Feasible, plainBest[i].Feasible)
				}
				if !best[i].Feasible {
					continue
				}
				if best[i].Cost > plainBest[i].Cost+1e-9 {
					t.Fatalf("%s: instance %d: %v with neural kicks, %v without", name, i, best[i].Cost, plainBest[i].Cost)
				}
				if best[i].Cost < plainBest[i].Cost-1e-9 {
					better++
				}
			}
			if better == 0 {
				t.Fatalf("%s: no instance better than without neural kicks", name)
			}
		}
	}
}

// bestByInstance replays every row with lazymask.Check (the verdict must
// match the row's) and returns each instance's best feasible result.
func bestByInstance(t *testing.T, insts []*lazymask.Instance, rows []datasets.Solution) []lazymask.Result {
	t.Helper()
	best := make([]lazymask.Result, len(insts))
	for _, r := range rows {
		res, _ := lazymask.Check(insts[r.Instance], r.Tour)
		if res.Feasible != r.Feasible || (res.Feasible && res.Cost != r.Cost) {
			t.Fatalf("row of instance %d: written feasible %v cost %v, replay %v %v", r.Instance, r.Feasible, r.Cost, res.Feasible, res.Cost)
		}
		if b := &best[r.Instance]; res.Feasible && (!b.Feasible || res.Cost < b.Cost) {
			*b = res
		}
	}
	return best
}
