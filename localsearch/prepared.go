package localsearch

import (
	"errors"
	"slices"

	"github.com/lmask/lmask/lazymask"
)

// Prepared is what a search derives from an instance's data alone: whether
// its travel times are symmetric, their triangle defect (an O(N³) pass)
// and the neighbour lists (O(N² log N)). Prepare it once where one instance
// is searched many times (solve's two passes, the feasibility search after
// them): at N = 250 the two took about a tenth of a first pass's time and
// up to all of a second pass's (docs/experiments.md, "Prepared searches").
type Prepared struct {
	problem lazymask.Problem
	// the data it was derived from, copied, for matches
	dist, early, late, service []float64
	symm                       bool
	defect                     float64
	near                       *nearLists // TSPTW on a symmetric matrix
}

// ErrPrepared marks an Options.Prepared derived from other instance data.
var ErrPrepared = errors.New("the prepared search data belong to another instance")

// Prepare derives inst's search data. The instance must be valid.
func Prepare(inst *lazymask.Instance) *Prepared {
	p := derive(inst)
	p.dist = slices.Clone(inst.Matrix())
	p.early, p.late, p.service = slices.Clone(inst.Early), slices.Clone(inst.Late), slices.Clone(inst.Service)
	return p
}

// derive computes the data without the copies that matches compares.
func derive(inst *lazymask.Instance) *Prepared {
	n := inst.N
	d := inst.Matrix()
	p := &Prepared{problem: inst.Problem, symm: symmetric(d, n)}
	if inst.Problem == lazymask.TSPTW {
		if inst.Dist != nil {
			p.defect = triangleDefect(d, n)
		}
		if p.symm {
			p.near = newNearLists(inst, d, n)
		}
	}
	return p
}

// matches reports whether p was derived from inst's data (an O(N²)
// comparison, against Prepare's O(N³)).
func (p *Prepared) matches(inst *lazymask.Instance) bool {
	return p.problem == inst.Problem && slices.Equal(p.dist, inst.Matrix()) &&
		slices.Equal(p.early, inst.Early) && slices.Equal(p.late, inst.Late) && slices.Equal(p.service, inst.Service)
}
