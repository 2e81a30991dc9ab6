package features

import "github.com/lmask/lmask/lazymask"

// NodeFeaturesInto writes the [N,4] node features of inst into dst
// (len ≥ 4·N). TSPTW: depot (x, y, 0, 0), customers (x, y, e/l₀, l/l₀)
// with l₀ the depot's due time. TSPDL: depot (x, y, 0, 0), ports
// (x, y, d/Σd, L/Σd).
func NodeFeaturesInto(dst []float32, inst *lazymask.Instance) {
	n := inst.N
	dst = dst[:NodeFeatures*n]
	dst[0], dst[1], dst[2], dst[3] = float32(inst.X[0]), float32(inst.Y[0]), 0, 0
	var a, b []float64
	var div float64
	switch inst.Problem {
	case lazymask.TSPTW:
		a, b, div = inst.Early, inst.Late, inst.Late[0]
	case lazymask.TSPDL:
		a, b, div = inst.Demand, inst.Draft, inst.TotalDemand()
	}
	if div == 0 {
		div = 1
	}
	for i := 1; i < n; i++ {
		r := dst[NodeFeatures*i : NodeFeatures*i+NodeFeatures]
		r[0], r[1] = float32(inst.X[i]), float32(inst.Y[i])
		r[2], r[3] = float32(a[i]/div), float32(b[i]/div)
	}
}

// NodeFeatures returns the [N,4] node features of inst.
func NodeFeaturesOf(inst *lazymask.Instance) []float32 {
	dst := make([]float32, NodeFeatures*inst.N)
	NodeFeaturesInto(dst, inst)
	return dst
}

// StateScale is what the time (TSPTW) or load (TSPDL) is divided by in the
// step features: the depot due time l₀, or the total demand Σd.
func StateScale(inst *lazymask.Instance) float64 {
	var s float64
	if inst.Problem == lazymask.TSPTW {
		s = inst.Late[0]
	} else {
		s = inst.TotalDemand()
	}
	if s == 0 {
		return 1
	}
	return s
}

// StepFeaturesInto writes one [8] step-feature row: state/scale followed by
// the RIE one-hot of the refinement count and the budget flag.
func StepFeaturesInto(dst []float32, state, scale float64, refine int, budgetReached bool) {
	dst[0] = float32(state / scale)
	lazymask.RIE(dst[1:StepFeatures], refine, budgetReached)
}

// BatchStepFeatures writes the [R,8] step features of every row of b into
// dst (len ≥ 8·R). scales[i] is StateScale of instance i of the decode.
func BatchStepFeatures(dst []float32, b *lazymask.StepBatch, scales []float64) {
	for r := range b.Traj {
		StepFeaturesInto(dst[r*StepFeatures:(r+1)*StepFeatures], b.State[r], scales[b.Inst[r]], b.Refine[r], b.Budget[r])
	}
}
