package features

import (
	"math"

	"github.com/lmask/lmask/lazymask"
)

// CandHidden is the width of the hidden layer that the per-candidate
// features pass through before they enter a format-2 decoder.
const CandHidden = 32

// CandFeatureCount is K, the number of per-candidate features of a
// problem: TSPTW travel time, waiting, slack to the window end, window end
// − now, departure − now; TSPDL distance, draft slack, demand.
func CandFeatureCount(p lazymask.Problem) int {
	if p == lazymask.TSPDL {
		return 3
	}
	return 5
}

// CandScale is the unit σ of an instance's candidate features: the depot
// due time (TSPTW) or the total demand (TSPDL) per customer, so a slack
// reads as "about this many average steps" at every size.
func CandScale(inst *lazymask.Instance) float64 {
	if inst.N < 2 {
		return 1
	}
	return StateScale(inst) / float64(inst.N-1)
}

// slog compresses x smoothly: sign(x)·ln(1+|x|). Slacks range over the
// whole horizon (tens of σ) while the decision turns on the small ones.
func slog(x float64) float32 {
	if x < 0 {
		return float32(-math.Log1p(-x))
	}
	return float32(math.Log1p(x))
}

// CandFeaturesInto writes the [N,K] candidate features of one decoder row
// into dst (len ≥ N·K): the row stands at node current with state the
// time after its service (TSPTW) or the load after it (TSPDL), sigma is
// CandScale(inst), and mask (true = candidate) selects the nodes that get
// features; the others get zeros. It allocates nothing. Decoding, training
// rollouts and the teacher-forced replay all build the input with it.
func CandFeaturesInto(dst []float32, inst *lazymask.Instance, sigma float64, current int, state float64, mask []bool) {
	n := inst.N
	k := CandFeatureCount(inst.Problem)
	dst = dst[:n*k]
	clear(dst)
	row := inst.Matrix()[current*n : (current+1)*n]
	if inst.Problem == lazymask.TSPDL {
		for j, ok := range mask[:n] {
			if !ok {
				continue
			}
			f := dst[j*k : j*k+k]
			f[0] = float32(row[j])
			f[1] = slog((inst.Draft[j] - state - inst.Demand[j]) / sigma)
			f[2] = float32(inst.Demand[j] / sigma)
		}
		return
	}
	for j, ok := range mask[:n] {
		if !ok {
			continue
		}
		arr := state + row[j]
		start := math.Max(arr, inst.Early[j])
		var service float64
		if inst.Service != nil {
			service = inst.Service[j]
		}
		f := dst[j*k : j*k+k]
		f[0] = slog(row[j] / sigma)
		f[1] = slog((start - arr) / sigma)
		f[2] = slog((inst.Late[j] - arr) / sigma)
		f[3] = slog((inst.Late[j] - state) / sigma)
		f[4] = slog((start + service - state) / sigma)
	}
}

// BatchCandFeatures writes the [R,N,K] candidate features of every row of
// b into dst (len ≥ R·N·K); insts are the decode's instances and sigmas
// their CandScale.
func BatchCandFeatures(dst []float32, b *lazymask.StepBatch, insts []*lazymask.Instance, sigmas []float64) {
	n := b.N
	for r := range b.Traj {
		in := insts[b.Inst[r]]
		k := CandFeatureCount(in.Problem)
		CandFeaturesInto(dst[r*n*k:(r+1)*n*k], in, sigmas[b.Inst[r]], b.Current[r], b.State[r], b.Mask[r*n:(r+1)*n])
	}
}
