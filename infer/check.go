package infer

import (
	"fmt"

	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/solve"
)

// Check refuses option values a command should not pass to Run, naming the
// option (opterr: the options as this type's fields name them, Decode's,
// Engine's and Search's by their own field names) and, where two clash,
// both; every field must be set (InfeasibleTime included). A missing Model
// is Run's to report: a command may check its options before it has one to
// give.
func (o Options) Check() error {
	starts, err := ParseStarts(o.Starts)
	if err != nil {
		return opterr.Wrap("Starts", "", err)
	}
	network := starts == StartsNetwork
	n := func(v any) string { return fmt.Sprint(v) }
	switch {
	case o.Decode.Aug < 1 || o.Decode.Aug > lazymask.NumAugment:
		return opterr.New("Aug", n(o.Decode.Aug), "want 1 to %d", lazymask.NumAugment)
	case o.Decode.Samples < 0:
		return opterr.New("Samples", n(o.Decode.Samples), "want ≥ 0")
	case o.Decode.Budget < lazymask.Unlimited:
		return opterr.New("Budget", n(o.Decode.Budget), "want ≥ 0 or -1 (unlimited)")
	case o.Decode.Batch < 1:
		return opterr.New("Batch", n(o.Decode.Batch), "want ≥ 1")
	case o.Limit < 0:
		return opterr.New("Limit", n(o.Limit), "want ≥ 0")
	case o.Engine.Threads < 0 || o.Engine.Workers < 0:
		return opterr.Clause("Threads", "and %v must be ≥ 0", opterr.Name("Workers"))
	case o.Engine.Device != "" && o.Engine.Device != engine.DeviceCPU && o.Engine.Device != engine.DeviceCUDA: // "": the CPU
		return opterr.New("Device", fmt.Sprintf("%q", o.Engine.Device), "want %s or %s", engine.DeviceCPU, engine.DeviceCUDA)
	case o.Search.Kicks < 0 || o.Search.TimeLimit < 0 || o.Search.MaxStarts < 0:
		return opterr.Clause("TimeLimit", "must be ≥ 0, as must %v and %v", opterr.Name("Kicks"), opterr.Name("MaxStarts"))
	case !(o.ImproveShare >= 0 && o.ImproveShare <= solve.MaxShare):
		return opterr.New("ImproveShare", n(o.ImproveShare), "want a share in [0, %d]", solve.MaxShare)
	case o.InfeasibleTime <= 0:
		return opterr.New("InfeasibleTime", n(o.InfeasibleTime), "want a time > 0")
	case o.RescueTime < 0 || o.RescueBudget < 1:
		return opterr.New("RescueTime", n(o.RescueTime), "with %v %d: want a time ≥ 0 and a budget ≥ 1", opterr.Name("RescueBudget"), o.RescueBudget)
	case o.ImproveShare > 0 && !o.Improve:
		return opterr.Clause("ImproveShare", "needs %v", opterr.Name("Improve"))
	case o.NeuralKicks.Rounds < 0:
		return opterr.New("NeuralKicks", n(o.NeuralKicks.Rounds), "want ≥ 0")
	case o.NeuralKicks.Rounds > 0 && !o.Improve:
		return opterr.Clause("NeuralKicks", "needs %v", opterr.Name("Improve"))
	case o.NeuralEvery < 0:
		return opterr.New("NeuralEvery", n(o.NeuralEvery), "want ≥ 0")
	case o.NeuralEvery > 0 && !o.Improve:
		return opterr.Clause("NeuralEvery", "needs %v", opterr.Name("Improve"))
	case o.NeuralEvery > 0 && !network:
		return opterr.Clause("NeuralEvery", "re-decodes with the model: it needs %v %s, not %s", opterr.Name("Starts"), StartsNetwork, starts)
	case !network && o.Model != "":
		return opterr.New("Model", o.Model, "%v %s uses no model", opterr.Name("Starts"), starts)
	case network && (o.CPUBudget != 0 || o.CPUPerInstance != 0):
		return opterr.Clause("CPUBudget", "and %v apply to %v %s or %s; with %v %s the search's time is %v of the decode's",
			opterr.Name("CPUPerInstance"), opterr.Name("Starts"), StartsRandomL, StartsUrgency, opterr.Name("Starts"), StartsNetwork, opterr.Name("ImproveShare"))
	case o.CPUBudget < 0 || o.CPUPerInstance < 0 || (o.CPUBudget > 0 && o.CPUPerInstance > 0):
		return opterr.New("CPUBudget", n(o.CPUBudget), "with %v %v: want one of them, ≥ 0", opterr.Name("CPUPerInstance"), o.CPUPerInstance)
	case !network && o.Improve && o.ImproveShare > 0 && o.CPUBudget == 0 && o.CPUPerInstance == 0:
		return opterr.New("Starts", starts, "with %v (as the best preset sets it) needs %v or %v: there is no decode to take a share of",
			opterr.Name("ImproveShare"), opterr.Name("CPUBudget"), opterr.Name("CPUPerInstance"))
	}
	return nil
}
