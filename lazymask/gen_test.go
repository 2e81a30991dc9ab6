package lazymask

import (
	"math"
	"math/rand/v2"
)

// Test instance generators and brute-force helpers shared by the tests,
// fuzz targets and benchmarks of this package.

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6c6d61736b)) }

// hardTSPTW draws a "hard" TSPTW instance as the reference does (§3.1),
// directly in normalised units: coordinates U[0,1]², windows around the
// arrival times a_k of a random permutation with width parameter w (1.0 in
// the reference), e = max(0, a − U(0,w/2)), l = a + U(0,w/2), and the depot
// due time l_0 = max(l_i + d_i0). Every such instance is feasible.
func hardTSPTW(r *rand.Rand, n int, w float64) *Instance {
	in := &Instance{Problem: TSPTW, N: n, Scale: 100,
		X: make([]float64, n), Y: make([]float64, n),
		Early: make([]float64, n), Late: make([]float64, n), Service: make([]float64, n)}
	for i := 0; i < n; i++ {
		in.X[i], in.Y[i] = r.Float64(), r.Float64()
	}
	perm := r.Perm(n - 1)
	a, prev := 0.0, 0
	for _, p := range perm {
		k := p + 1
		a += math.Hypot(in.X[k]-in.X[prev], in.Y[k]-in.Y[prev])
		in.Early[k] = math.Max(0, a-r.Float64()*w/2)
		in.Late[k] = a + r.Float64()*w/2
		prev = k
	}
	for i := 1; i < n; i++ {
		in.Late[0] = math.Max(in.Late[0], in.Late[i]+math.Hypot(in.X[i]-in.X[0], in.Y[i]-in.Y[0]))
	}
	return in
}

// smallTSPTW draws a hard-style instance and then replaces some windows by
// random tight ones and sometimes adds service times, so that a fair share
// of instances is infeasible.
func smallTSPTW(r *rand.Rand, n int) *Instance {
	in := hardTSPTW(r, n, 0.1+0.9*r.Float64())
	tight := r.Float64() * 0.5
	for i := 1; i < n; i++ {
		if r.Float64() < tight {
			start := r.Float64() * 2.5
			in.Early[i], in.Late[i] = start, start+r.Float64()*0.2
		}
	}
	if r.IntN(3) == 0 {
		for i := 1; i < n; i++ {
			in.Service[i] = r.Float64() * 0.1
		}
	}
	in.Late[0] = 0
	for i := 1; i < n; i++ {
		in.Late[0] = math.Max(in.Late[0], in.Late[i]+math.Hypot(in.X[i]-in.X[0], in.Y[i]-in.Y[0]))
	}
	return in
}

// smallTSPDL draws a TSPDL instance with demand 1/(n−1) per port and random
// integer draft limits k/(n−1) on a random share of the ports (no rejection
// step, so some instances are infeasible).
func smallTSPDL(r *rand.Rand, n int) *Instance {
	m := float64(n - 1)
	in := &Instance{Problem: TSPDL, N: n, Scale: 1,
		X: make([]float64, n), Y: make([]float64, n),
		Demand: make([]float64, n), Draft: make([]float64, n)}
	p := 0.3 + 0.7*r.Float64()
	for i := 0; i < n; i++ {
		in.X[i], in.Y[i] = r.Float64(), r.Float64()
		in.Draft[i] = 1
		if i > 0 {
			in.Demand[i] = 1 / m
			if r.Float64() < p {
				in.Draft[i] = float64(1+r.IntN(n-1)) / m
			}
		}
	}
	return in
}

// smallInstance draws a TSPTW or TSPDL instance.
func smallInstance(r *rand.Rand, n int, dl bool) *Instance {
	if dl {
		return smallTSPDL(r, n)
	}
	return smallTSPTW(r, n)
}

// bruteForce enumerates every tour of a small instance with Check and
// returns the feasible ones and the optimal feasible cost (+Inf if none).
func bruteForce(in *Instance) (feasible [][]int, best float64) {
	best = math.Inf(1)
	tour := make([]int, in.N)
	used := make([]bool, in.N)
	var rec func(k int)
	rec = func(k int) {
		if k == in.N {
			res, err := Check(in, tour)
			if err == nil && res.Feasible {
				feasible = append(feasible, append([]int(nil), tour...))
				best = math.Min(best, res.Cost)
			}
			return
		}
		for v := 1; v < in.N; v++ {
			if !used[v] {
				used[v] = true
				tour[k] = v
				rec(k + 1)
				used[v] = false
			}
		}
	}
	used[0] = true
	rec(1)
	return feasible, best
}

// prefixKey packs a prefix of nodes < 16 (at most 15 of them) into a key.
func prefixKey(prefix []int) uint64 {
	k := uint64(len(prefix))
	for _, v := range prefix {
		k = k<<4 | uint64(v)
	}
	return k
}

// feasibleNext maps every prefix of a feasible tour to the bit set of nodes
// that continue it into some feasible tour.
func feasibleNext(feasible [][]int) map[uint64]uint32 {
	m := make(map[uint64]uint32)
	for _, t := range feasible {
		for k := 1; k < len(t); k++ {
			m[prefixKey(t[:k])] |= 1 << uint(t[k])
		}
	}
	return m
}

// tourKey packs a complete tour.
func tourKey(t []int) uint64 { return prefixKey(t) }

// recorder wraps a Policy and keeps a copy of every batch it was asked
// about, for tests that inspect what the decoder sent.
type recorder struct {
	inner  Policy
	calls  int
	rows   int
	onStep func(b *StepBatch)
}

func (p *recorder) Begin(insts []*Instance) error { return p.inner.Begin(insts) }

func (p *recorder) Scores(b *StepBatch, out []float32) error {
	p.calls++
	p.rows += b.Rows()
	if p.onStep != nil {
		p.onStep(b)
	}
	return p.inner.Scores(b, out)
}
