package lazymask

// RIEDim is the width of the refinement-intensity feature: a one-hot of the
// refinement count of the current depth (0, 1, 2, 3, ≥4) followed by a
// one-hot of "backtrack budget reached" (no, yes).
const RIEDim = 7

// RIE writes the refinement-intensity one-hots into dst[:RIEDim].
func RIE(dst []float32, refineCount int, budgetReached bool) {
	for i := range dst[:RIEDim] {
		dst[i] = 0
	}
	c := refineCount
	if c > 4 {
		c = 4
	}
	if c < 0 {
		c = 0
	}
	dst[c] = 1
	if budgetReached {
		dst[6] = 1
	} else {
		dst[5] = 1
	}
}

// StepBatch describes the rows (trajectories) that need a decision in one
// decoding iteration. Rows that backtrack or are finished are never sent.
// All instances of one decode share the node count N.
type StepBatch struct {
	N int // nodes per instance

	// Per row (len R each):
	Traj     []int     // trajectory index in the decode
	Inst     []int     // index into the decode's instance list (after augmentation)
	Current  []int     // current node
	State    []float64 // current time (TSPTW) or load (TSPDL), normalised units
	Refine   []int     // refinement count of the current depth
	Budget   []bool    // backtrack budget reached
	Mask     []bool    // R×N row-major; true = node may be chosen
	NumSteps []int     // depth (number of customers already placed)
}

// Rows returns the number of rows in the batch.
func (b *StepBatch) Rows() int { return len(b.Traj) }

// Policy scores the candidate nodes of a StepBatch. It is model-agnostic:
// decisions may come from a neural network (GoMLX or onnxruntime) or from a
// heuristic.
type Policy interface {
	// Begin is called once per decode with the (augmented) instances the
	// rows will refer to by index, so a neural policy can encode them once.
	Begin(insts []*Instance) error
	// Scores fills out[r*N+j] with an unnormalised log-probability (or any
	// score whose softmax over the masked nodes is the policy's
	// distribution) for every row r of b and node j. Entries of masked
	// nodes are ignored.
	Scores(b *StepBatch, out []float32) error
}
