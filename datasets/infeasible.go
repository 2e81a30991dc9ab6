package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lmask/lmask/lazymask"
)

// Kinds of conflict MakeInfeasible plants.
const (
	// PlantUnreachable: one customer closes (TSPTW) or takes a draft
	// limit (TSPDL) before the vehicle can serve it at best.
	PlantUnreachable = "unreachable"
	// PlantPair: two customers that exclude each other.
	PlantPair = "pair"
	// PlantTriple: three customers any two of which fit, but not all.
	PlantTriple = "triple"
)

// PlantKinds lists the kinds MakeInfeasible plants, in the order
// GenerateInfeasibleFile cycles through them.
var PlantKinds = []string{PlantUnreachable, PlantPair, PlantTriple}

// MakeInfeasible changes inst in place so that no tour is feasible, by
// planting a conflict of the given kind among customers drawn with rng,
// and returns them (increasing). TSPTW: an unreachable customer's window
// ends at half its travel time from the depot; a pair or triple gets one
// common window [t, t+δ] with t the latest of their travel times from the
// depot, δ shorter than any two of them (pair) or three of them (triple)
// take in any order, service included, and long enough for any two
// (triple). TSPDL: an unreachable port's limit is half its demand; a
// pair's or triple's limits are set below their demands' total and at
// least the sum of any one (pair) or two (triple) of them. It fails on
// instances too small or too degenerate (equal points, zero demands) for
// the kind. Call inst.ResetCache only if its coordinates change: the
// planted values are windows and limits.
func MakeInfeasible(inst *lazymask.Instance, kind string, rng *rand.Rand) ([]int, error) {
	m := inst.N - 1
	need := map[string]int{PlantUnreachable: 1, PlantPair: 2, PlantTriple: 3}[kind]
	if need == 0 {
		return nil, fmt.Errorf("infeasible: unknown kind %q (want unreachable, pair or triple)", kind)
	}
	if m < need {
		return nil, fmt.Errorf("infeasible: %s needs %d customers, instance has %d", kind, need, m)
	}
	d := inst.Matrix()
	n := inst.N
	for try := 0; try < 200; try++ {
		pick := rng.Perm(m)[:need]
		for i := range pick {
			pick[i]++
		}
		sortInts(pick)
		if inst.Problem == lazymask.TSPDL {
			dem := func(k int) float64 { return inst.Demand[k] }
			switch kind {
			case PlantUnreachable:
				if dem(pick[0]) <= 4*lazymask.Tol {
					continue
				}
				inst.Draft[pick[0]] = dem(pick[0]) / 2
			case PlantPair:
				a, b := dem(pick[0]), dem(pick[1])
				if min(a, b) <= 4*lazymask.Tol {
					continue
				}
				lim := max(a, b) + min(a, b)/2
				inst.Draft[pick[0]], inst.Draft[pick[1]] = lim, lim
			case PlantTriple:
				a, b, c := dem(pick[0]), dem(pick[1]), dem(pick[2])
				if min(a, b, c) <= 4*lazymask.Tol {
					continue
				}
				lim := max(a+b, a+c, b+c) + min(a, b, c)/2
				for _, k := range pick {
					inst.Draft[k] = lim
				}
			}
			return pick, nil
		}
		serve := func(k int) float64 { return inst.Service[k] }
		switch kind {
		case PlantUnreachable:
			k := pick[0]
			if d[k] <= 4*lazymask.Tol {
				continue
			}
			inst.Early[k], inst.Late[k] = 0, d[k]/2
			return pick, nil
		case PlantPair:
			i, j := pick[0], pick[1]
			gap := min(serve(i)+d[i*n+j], serve(j)+d[j*n+i])
			if gap <= 4*lazymask.Tol {
				continue
			}
			t := max(d[i], d[j])
			for _, k := range pick {
				inst.Early[k], inst.Late[k] = t, t+gap/2
			}
			return pick, nil
		case PlantTriple:
			two, three := 0.0, math.Inf(1)
			for _, o := range [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
				a, b, c := pick[o[0]], pick[o[1]], pick[o[2]]
				three = min(three, serve(a)+d[a*n+b]+serve(b)+d[b*n+c])
			}
			for x := 0; x < 3; x++ {
				for y := x + 1; y < 3; y++ {
					a, b := pick[x], pick[y]
					two = max(two, min(serve(a)+d[a*n+b], serve(b)+d[b*n+a]))
				}
			}
			if three-two <= 0.05*three || three <= 4*lazymask.Tol {
				continue
			}
			t := max(d[pick[0]], d[pick[1]], d[pick[2]])
			for _, k := range pick {
				inst.Early[k], inst.Late[k] = t, t+(two+three)/2
			}
			return pick, nil
		}
	}
	return nil, fmt.Errorf("infeasible: found no customers to plant a %s conflict among", kind)
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// GenerateInfeasibleFile is GenerateFile with a share of the instances
// made infeasible by MakeInfeasible (evenly spread: instance i when
// ⌊(i+1)·share⌋ > ⌊i·share⌋, the kinds in PlantKinds' order, drawn from a
// stream of the seed), written without a known tour; the others keep
// theirs. The instances are held in memory and nothing is written when
// one cannot be made infeasible. It returns the metadata and the rows
// made infeasible.
func GenerateInfeasibleFile(path string, cfg GenConfig, count int, share float64, opt WriterOptions) (Metadata, []int64, error) {
	if !(share >= 0 && share <= 1) {
		return Metadata{}, nil, fmt.Errorf("infeasible share %v: want a share in [0, 1]", share)
	}
	g, err := NewGenerator(cfg)
	if err != nil {
		return Metadata{}, nil, err
	}
	insts, tours, err := Generate(cfg, count)
	if err != nil {
		return Metadata{}, nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x696e66))
	var planted []int64
	for i, in := range insts {
		if math.Floor(float64(i+1)*share) <= math.Floor(float64(i)*share) {
			continue
		}
		if _, err := MakeInfeasible(in, PlantKinds[len(planted)%len(PlantKinds)], rng); err != nil {
			return Metadata{}, nil, fmt.Errorf("instance %d: %w", i, err)
		}
		in.ResetCache()
		planted, tours[i] = append(planted, int64(i)), nil
	}
	k := 0
	meta, err := writeGenerated(path, g.Metadata(), count, func() (*lazymask.Instance, []int) { k++; return insts[k-1], tours[k-1] }, "generator", opt)
	return meta, planted, err
}
