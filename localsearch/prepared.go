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
	defect  float64
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
