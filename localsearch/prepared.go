package localsearch

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math"

	"github.com/lmask/lmask/lazymask"
)

// Prepared is what a search derives from an instance's data alone and
// keeps in a few words: whether its travel times are symmetric and their
// triangle defect (an O(N³) pass). Prepare it once where one instance is
// searched more than once (solve's two passes): the pass took much of a
// second pass's time at N = 250 (docs/experiments.md, "Prepared searches
// and the search seed"). The neighbour lists, O(N²) words, are built by
// each search, so that a file's searches hold no more memory between passes.
type Prepared struct {
	problem lazymask.Problem
	n       int
	sum     uint64 // of the data it was derived from (matches)
	symm    bool
	// potential: the travel times are a symmetric matrix plus a node
	// potential, d(u, v) − d(v, u) = π(u) − π(v) (a service time folded
	// into each node's outgoing arcs), under which every closed tour costs
	// what it costs under the symmetric part (d + dᵀ)/2.
	potential bool
	defect    float64
}

// ErrPrepared marks an Options.Prepared derived from other instance data.
var ErrPrepared = errors.New("the prepared search data belong to another instance")

// Prepare derives inst's search data. The instance must be valid.
func Prepare(inst *lazymask.Instance) *Prepared {
	p := derive(inst)
	p.sum = dataSum(inst)
	return p
}

// derive computes the data without the checksum that matches compares.
func derive(inst *lazymask.Instance) *Prepared {
	n := inst.N
	d := inst.Matrix()
	p := &Prepared{problem: inst.Problem, n: n, symm: symmetric(d, n)}
	p.potential = !p.symm && inst.Problem == lazymask.TSPTW && potentialAsymmetric(d, n)
	if inst.Problem == lazymask.TSPTW && inst.Dist != nil {
		p.defect = triangleDefect(d, n)
	}
	return p
}

// matches reports whether p was derived from inst's data (an O(N²)
// checksum, against Prepare's O(N³)).
func (p *Prepared) matches(inst *lazymask.Instance) bool {
	return p.problem == inst.Problem && p.n == inst.N && p.sum == dataSum(inst)
}

// dataSum is a checksum (FNV-1a) of the data a Prepared derives from: the
// travel times, windows and service times.
func dataSum(inst *lazymask.Instance) uint64 {
	h := fnv.New64a()
	var buf [8 * 512]byte
	for _, xs := range [][]float64{inst.Matrix(), inst.Early, inst.Late, inst.Service} {
		b := buf[:0]
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
			if len(b) == len(buf) {
				h.Write(b)
				b = buf[:0]
			}
		}
		h.Write(b)
		h.Write([]byte{0xff}) // a separator, so that lengths count
	}
	return h.Sum64()
}

// potentialAsymmetric reports whether d(u, v) − d(v, u) = π(u) − π(v) for
// a node potential π (π(u) = d(u, 0) − d(0, u)), within a rounding of
// 1e-9 of the largest travel time.
func potentialAsymmetric(d []float64, n int) bool {
	big := 0.0
	for _, x := range d {
		big = max(big, math.Abs(x))
	}
	tol := 1e-9 * max(big, 1)
	pi := make([]float64, n)
	for u := 1; u < n; u++ {
		pi[u] = d[u*n] - d[u]
	}
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if math.Abs(d[u*n+v]-d[v*n+u]-(pi[u]-pi[v])) > tol {
				return false
			}
		}
	}
	return true
}
