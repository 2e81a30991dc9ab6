package trainer

import (
	"fmt"
	"math"

	"github.com/lmask/lmask/lazymask"
)

// PenalisedCost returns Ψ = length + ρ·Σviolation + ρ_n·#violated nodes,
// the cost the policy is trained to minimise (its negation is the reward).
func PenalisedCost(length, violation float64, violatedNodes int, rho, rhoNodes float64) float64 {
	return length + rho*violation + rhoNodes*float64(violatedNodes)
}

// RolloutStats summarises the training rollouts of one iteration.
type RolloutStats struct {
	// Reward is the mean of R_pen = −Ψ over all trajectories.
	Reward float64
	// PenCost is the mean penalised cost Ψ; Length the mean tour length.
	PenCost, Length float64
	// Infeasible is the share of trajectories that Check found infeasible.
	Infeasible float64
	// Backtracks is the mean number of backtracking pops per trajectory.
	Backtracks float64
}

// Advantages computes, for trajectories ordered instance-major
// (trajectory b·P+p is sample p of instance b), the advantage
// A = R_pen − mean_P(R_pen) with R_pen = −Ψ into adv (len B·P), and the
// iteration's rollout statistics. Every trajectory must be complete (train
// semantics); its cost and violations are those Check computed.
func Advantages(trajs []lazymask.Trajectory, samples int, rho, rhoNodes float64, adv []float32) (RolloutStats, error) {
	var st RolloutStats
	if samples < 1 || len(trajs)%samples != 0 {
		return st, fmt.Errorf("advantages: %d trajectories are not a multiple of %d samples", len(trajs), samples)
	}
	if len(adv) < len(trajs) {
		return st, fmt.Errorf("advantages: buffer holds %d values, need %d", len(adv), len(trajs))
	}
	reward := make([]float64, samples)
	infeasible := 0
	for b := 0; b < len(trajs)/samples; b++ {
		mean := 0.0
		for p := 0; p < samples; p++ {
			tr := &trajs[b*samples+p]
			if tr.Failed || tr.Tour == nil {
				return st, fmt.Errorf("advantages: trajectory %d (instance %d) did not complete", b*samples+p, tr.Inst)
			}
			psi := PenalisedCost(tr.Cost, tr.Violation, tr.ViolatedNodes, rho, rhoNodes)
			if math.IsNaN(psi) || math.IsInf(psi, 0) {
				return st, fmt.Errorf("advantages: trajectory %d has penalised cost %v", b*samples+p, psi)
			}
			reward[p] = -psi
			mean += -psi
			st.PenCost += psi
			st.Length += tr.Cost
			st.Backtracks += float64(tr.Backtracks)
			if !tr.Feasible {
				infeasible++
			}
		}
		mean /= float64(samples)
		for p := 0; p < samples; p++ {
			adv[b*samples+p] = float32(reward[p] - mean)
		}
	}
	n := float64(len(trajs))
	st.PenCost /= n
	st.Length /= n
	st.Backtracks /= n
	st.Reward = -st.PenCost
	st.Infeasible = float64(infeasible) / n
	return st, nil
}
