package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/lmask/lmask/lazymask"
)

// Hardness levels of the paper's synthetic distributions.
const (
	Easy   = "easy"
	Medium = "medium"
	Hard   = "hard"
)

// TSPTWScale is the factor divided out of raw TSPTW coordinates ([0,100])
// and time windows; TSPDL coordinates are drawn in [0,1] (scale 1).
const TSPTWScale = 100.0

// DefaultWidth is the maximum window width W of hard TSPTW instances in raw
// units (1.0 after normalisation).
const DefaultWidth = 100.0

// pcgStream is the fixed second word of the PCG state; the seed is the
// first.
const pcgStream = 0x6c6d61736b2d6461 // "lmask-da"

// GenConfig selects a distribution.
type GenConfig struct {
	Problem  lazymask.Problem
	N        int    // nodes including the depot ("50" = 49 customers + depot)
	Hardness string // Easy, Medium or Hard
	Seed     uint64
	// Width is the maximum window width W of hard TSPTW instances in raw
	// units (DefaultWidth when zero); windows are a ± U(0, W/2).
	Width float64
}

// Generator draws instances from one of the paper's distributions with a
// math/rand/v2 PCG source seeded by GenConfig.Seed; the same configuration
// yields the same instances on every run and machine.
type Generator struct {
	cfg   GenConfig
	rng   *rand.Rand
	count int
}

// NewGenerator checks cfg and returns a generator.
func NewGenerator(cfg GenConfig) (*Generator, error) {
	if cfg.Problem != lazymask.TSPTW && cfg.Problem != lazymask.TSPDL {
		return nil, fmt.Errorf("generator: unknown problem %v", cfg.Problem)
	}
	if cfg.N < 3 {
		return nil, fmt.Errorf("generator: size %d too small (need at least 3 nodes, depot included)", cfg.N)
	}
	switch cfg.Hardness {
	case Easy, Medium, Hard:
	default:
		return nil, fmt.Errorf("generator: unknown hardness %q (want easy, medium or hard)", cfg.Hardness)
	}
	if cfg.Width == 0 {
		cfg.Width = DefaultWidth
	}
	if !(cfg.Width > 0) || math.IsInf(cfg.Width, 0) {
		return nil, fmt.Errorf("generator: width %v must be positive and finite", cfg.Width)
	}
	return &Generator{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, pcgStream))}, nil
}

// Metadata describes the files this generator fills.
func (g *Generator) Metadata() Metadata {
	m := Metadata{
		Problem: g.cfg.Problem.String(), Size: g.cfg.N, Hardness: g.cfg.Hardness,
		Seed: g.cfg.Seed, Seeded: true, GeneratorVersion: GeneratorVersion, Source: "generator",
	}
	if g.cfg.Problem == lazymask.TSPTW {
		m.Scale = TSPTWScale
		if g.cfg.Hardness == Hard {
			m.Width = g.cfg.Width
		}
	} else {
		m.Scale = 1
	}
	return m
}

// Next draws one instance. The second result is a tour feasible by
// construction (the generating permutation of hard TSPTW instances; the
// ascending-limit order of TSPDL instances), or nil for easy/medium TSPTW,
// which are not guaranteed feasible.
func (g *Generator) Next() (*lazymask.Instance, []int) {
	var in *lazymask.Instance
	var tour []int
	if g.cfg.Problem == lazymask.TSPTW {
		in, tour = g.tsptw()
	} else {
		in, tour = g.tspdl()
	}
	in.Name = fmt.Sprintf("%s%d-%s-s%d-%d", g.cfg.Problem, g.cfg.N, g.cfg.Hardness, g.cfg.Seed, g.count)
	g.count++
	return in, tour
}

// dist is the Euclidean distance, with the products kept unfused so the
// result is the same on every architecture.
func dist(x1, y1, x2, y2 float64) float64 {
	dx, dy := x1-x2, y1-y2
	return math.Sqrt(float64(dx*dx) + float64(dy*dy))
}

func (g *Generator) tsptw() (*lazymask.Instance, []int) {
	n := g.cfg.N
	r := g.rng
	in := &lazymask.Instance{
		Problem: lazymask.TSPTW, N: n, Scale: TSPTWScale,
		X: make([]float64, n), Y: make([]float64, n),
		Early: make([]float64, n), Late: make([]float64, n), Service: make([]float64, n),
	}
	for i := 0; i < n; i++ {
		in.X[i] = r.Float64() * 100 / TSPTWScale
		in.Y[i] = r.Float64() * 100 / TSPTWScale
	}
	var tour []int
	switch g.cfg.Hardness {
	case Easy, Medium:
		lo, hi := 0.5, 0.75
		if g.cfg.Hardness == Medium {
			lo, hi = 0.1, 0.2
		}
		horizon := 55 * n // T = 55·(customers+1), raw units
		for i := 1; i < n; i++ {
			e := float64(r.IntN(horizon))
			w := math.RoundToEven((lo + (hi-lo)*r.Float64()) * float64(horizon))
			in.Early[i] = e / TSPTWScale
			in.Late[i] = (e + w) / TSPTWScale
		}
	case Hard:
		half := g.cfg.Width / 2 / TSPTWScale
		perm := r.Perm(n - 1)
		tour = make([]int, n)
		a, prev := 0.0, 0
		for k, p := range perm {
			cur := p + 1
			tour[k+1] = cur
			a += dist(in.X[prev], in.Y[prev], in.X[cur], in.Y[cur])
			in.Early[cur] = math.Max(0, a-r.Float64()*half)
			in.Late[cur] = a + r.Float64()*half
			prev = cur
		}
	}
	l0 := 0.0
	for i := 1; i < n; i++ {
		l0 = math.Max(l0, in.Late[i]+dist(in.X[i], in.Y[i], in.X[0], in.Y[0]))
	}
	in.Late[0] = l0
	return in, tour
}

// constrainedCount is int(p·N) with p = 0.5, 0.75, 0.9 for easy, medium,
// hard, computed in float64 as the reference does.
func constrainedCount(hardness string, n int) int {
	p := map[string]float64{Easy: 0.5, Medium: 0.75, Hard: 0.9}[hardness]
	c := int(p * float64(n))
	if c > n-2 { // limits lie in [1, ports−1], so at most ports−1 = N−2 fit
		c = n - 2
	}
	return c
}

func (g *Generator) tspdl() (*lazymask.Instance, []int) {
	n := g.cfg.N
	ports := n - 1
	r := g.rng
	in := &lazymask.Instance{
		Problem: lazymask.TSPDL, N: n, Scale: 1,
		X: make([]float64, n), Y: make([]float64, n),
		Demand: make([]float64, n), Draft: make([]float64, n),
	}
	for i := 0; i < n; i++ {
		in.X[i] = r.Float64()
		in.Y[i] = r.Float64()
	}
	c := constrainedCount(g.cfg.Hardness, n)
	chosen := r.Perm(ports)[:c]
	limits := make([]int, c)
	counts := make([]int, ports+1)
	for {
		clear(counts)
		for j := range limits {
			limits[j] = 1 + r.IntN(ports-1) // uniform on [1, ports−1]
			counts[limits[j]]++
		}
		ok, cum := true, 0
		for k := 0; k <= ports && ok; k++ {
			cum += counts[k]
			ok = cum <= k
		}
		if ok {
			break
		}
	}
	raw := make([]int, n)
	for i := range raw {
		raw[i] = ports
	}
	for j, p := range chosen {
		raw[p+1] = limits[j]
	}
	total := float64(ports)
	for i := 1; i < n; i++ {
		in.Demand[i] = 1 / total
	}
	for i := 0; i < n; i++ {
		in.Draft[i] = float64(raw[i]) / total
	}
	tour := make([]int, n)
	for i := range tour {
		tour[i] = i
	}
	sort.SliceStable(tour[1:], func(a, b int) bool { return raw[tour[1+a]] < raw[tour[1+b]] })
	return in, tour
}

// Generate draws count instances into memory.
func Generate(cfg GenConfig, count int) ([]*lazymask.Instance, [][]int, error) {
	g, err := NewGenerator(cfg)
	if err != nil {
		return nil, nil, err
	}
	insts := make([]*lazymask.Instance, count)
	tours := make([][]int, count)
	for i := range insts {
		insts[i], tours[i] = g.Next()
	}
	return insts, tours, nil
}

// GenerateFile draws count instances and writes them to path (atomically),
// with their known tours. It checks every known tour with lazymask.Check and
// fails if one is not feasible.
func GenerateFile(path string, cfg GenConfig, count int, opt WriterOptions) (Metadata, error) {
	g, err := NewGenerator(cfg)
	if err != nil {
		return Metadata{}, err
	}
	return writeGenerated(path, g.Metadata(), count, g.Next, "generator", opt)
}

// writeGenerated writes count instances drawn by next to path
// (atomically), each with its known tour, which lazymask.Check must accept;
// what names the generator in errors.
func writeGenerated(path string, meta Metadata, count int, next func() (*lazymask.Instance, []int), what string, opt WriterOptions) (Metadata, error) {
	w, err := CreateInstances(path, meta, opt)
	if err != nil {
		return Metadata{}, err
	}
	for i := 0; i < count; i++ {
		in, tour := next()
		if tour != nil {
			if _, err := lazymask.Check(in, tour); err != nil {
				w.Abort()
				return Metadata{}, fmt.Errorf("%s: instance %d: known tour rejected by the checker: %w", what, i, err)
			}
		}
		if err := w.Write(in, tour); err != nil {
			w.Abort()
			return Metadata{}, err
		}
	}
	if err := w.Close(); err != nil {
		return Metadata{}, err
	}
	meta.Kind, meta.Count = KindInstances, int64(count)
	return meta, nil
}
