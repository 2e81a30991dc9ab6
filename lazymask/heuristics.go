package lazymask

import (
	"errors"
	"fmt"
	"math"
)

// heuristicEps keeps logarithms finite for zero distances and limits.
const heuristicEps = 1e-9

// Uniform is a Policy that gives every candidate the same score, so sampling
// is uniform over the candidate set and greedy picks the lowest index.
type Uniform struct{}

// Begin implements Policy.
func (Uniform) Begin([]*Instance) error { return nil }

// Scores implements Policy: all zeros.
func (Uniform) Scores(b *StepBatch, out []float32) error {
	clear(out[:b.Rows()*b.N])
	return nil
}

// RandomL is the "Random-L" heuristic Policy: the next node is drawn with
// probability proportional to 1/distance from the current node (score
// log(1/(d+1e-9))). Use it with sampling.
type RandomL struct {
	mats [][]float64 // per instance travel-time matrix
}

// Begin implements Policy.
func (p *RandomL) Begin(insts []*Instance) error {
	if len(insts) == 0 {
		return errors.New("random-l: no instances")
	}
	p.mats = p.mats[:0]
	for _, in := range insts {
		p.mats = append(p.mats, in.Matrix())
	}
	return nil
}

// Scores implements Policy.
func (p *RandomL) Scores(b *StepBatch, out []float32) error {
	n := b.N
	for r := 0; r < b.Rows(); r++ {
		ii := b.Inst[r]
		if ii < 0 || ii >= len(p.mats) {
			return fmt.Errorf("random-l: row %d refers to instance %d of %d", r, ii, len(p.mats))
		}
		c := b.Current[r]
		drow := p.mats[ii][c*n : (c+1)*n]
		mask := b.Mask[r*n : (r+1)*n]
		o := out[r*n : (r+1)*n]
		for j, ok := range mask {
			if ok {
				o[j] = float32(-math.Log(drow[j] + heuristicEps))
			} else {
				o[j] = 0
			}
		}
	}
	return nil
}

// RandomC is the "Random-C" heuristic Policy: the next node is drawn with
// probability proportional to 1/l_j (TSPTW due time) or 1/L_j (TSPDL draft
// limit), favouring the most constrained nodes. Use it with sampling.
type RandomC struct {
	scores [][]float32 // per instance, per node
}

// Begin implements Policy; it precomputes the per-node scores.
func (p *RandomC) Begin(insts []*Instance) error {
	if len(insts) == 0 {
		return errors.New("random-c: no instances")
	}
	p.scores = p.scores[:0]
	for i, in := range insts {
		lim := in.Late
		if in.Problem == TSPDL {
			lim = in.Draft
		}
		if len(lim) != in.N {
			return fmt.Errorf("random-c: instance %d (%q) has %d limits, want %d", i, in.Name, len(lim), in.N)
		}
		s := make([]float32, in.N)
		for j, l := range lim {
			s[j] = float32(-math.Log(math.Max(l, 0) + heuristicEps))
		}
		p.scores = append(p.scores, s)
	}
	return nil
}

// Scores implements Policy.
func (p *RandomC) Scores(b *StepBatch, out []float32) error {
	n := b.N
	for r := 0; r < b.Rows(); r++ {
		ii := b.Inst[r]
		if ii < 0 || ii >= len(p.scores) {
			return fmt.Errorf("random-c: row %d refers to instance %d of %d", r, ii, len(p.scores))
		}
		copy(out[r*n:(r+1)*n], p.scores[ii])
	}
	return nil
}
