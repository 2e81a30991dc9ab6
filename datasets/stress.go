package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/lmask/lmask/lazymask"
)

// StressVersion identifies the stress generator; it changes whenever the
// same configuration would produce different instances.
const StressVersion = "1"

// KeyStressClass records a stress file's class in its metadata.
const KeyStressClass = "lmask.stress_class"

// StressClass describes one class of the stress suite, in the style of
// Solomon's R, C and RC classes (raw units: coordinates in [0, 100]).
type StressClass struct {
	Name string
	// Coords: "random" (uniform), "clustered" (Gaussian clusters) or
	// "mixed" (half of each).
	Coords string
	// Tight and Wide are the shares of customers with a tight window
	// (TightMin–TightMax wide) and with a wide one (WideMin–WideMax of
	// the horizon); the rest are open, [0, horizon].
	Tight, Wide        float64
	TightMin, TightMax float64
	WideMin, WideMax   float64
	// Service is every customer's service time. Folded adds it to the
	// customer's outgoing travel times (an asymmetric matrix, Service 0)
	// and rounds the travel times to one decimal, as Solomon's instances
	// are usually read; otherwise travel times are the Euclidean
	// distances of the coordinates (symmetric).
	Service float64
	Folded  bool
	// Horizon, when positive, is the depot's closing time unless the
	// reference tour needs longer; otherwise the horizon is the reference
	// tour's completion time times 1.1.
	Horizon float64
	// Spread draws the reference tour as the tight-window customers in a
	// random order, the others inserted where they cost least: the tight
	// windows then lie over the horizon in an order the geometry does not
	// suggest, and the open customers must be fitted around them.
	Spread bool
}

// StressClasses are the classes of the stress suite. 1 = tight windows,
// 2 = wide windows (Solomon's naming), M = mixed; "stuck" is an RC2-like
// class with open windows but a quarter of 120 units, where the search
// used to stay far above the optimum; R1E is R1 with Euclidean travel times
// and no service (the symmetric matrices the neighbour lists need); CM is
// a dispatcher's day: clustered stops, mixed narrow and wide windows and
// service times kept apart from the (Euclidean) travel times.
var StressClasses = []StressClass{
	{Name: "R1", Coords: "random", Tight: 1, TightMin: 10, TightMax: 60, Service: 10, Folded: true},
	{Name: "C1", Coords: "clustered", Tight: 1, TightMin: 10, TightMax: 60, Service: 90, Folded: true},
	{Name: "RC1", Coords: "mixed", Tight: 1, TightMin: 10, TightMax: 60, Service: 10, Folded: true},
	{Name: "R2", Coords: "random", Wide: 0.5, WideMin: 0.1, WideMax: 0.4, Service: 10, Folded: true},
	{Name: "C2", Coords: "clustered", Wide: 0.5, WideMin: 0.1, WideMax: 0.4, Service: 90, Folded: true},
	{Name: "RC2", Coords: "mixed", Wide: 0.5, WideMin: 0.1, WideMax: 0.4, Service: 10, Folded: true},
	{Name: "RM", Coords: "random", Tight: 0.4, TightMin: 10, TightMax: 60, Wide: 0.3, WideMin: 0.1, WideMax: 0.4, Service: 10, Folded: true},
	{Name: "stuck", Coords: "mixed", Tight: 0.25, TightMin: 120, TightMax: 120, Service: 10, Folded: true, Horizon: 960, Spread: true},
	{Name: "R1E", Coords: "random", Tight: 1, TightMin: 10, TightMax: 60},
	{Name: "CM", Coords: "clustered", Tight: 0.4, TightMin: 10, TightMax: 60, Wide: 0.3, WideMin: 0.1, WideMax: 0.4, Service: 10},
}

// FindStressClass returns the class of that name (case-insensitive).
func FindStressClass(name string) (StressClass, error) {
	var names []string
	for _, c := range StressClasses {
		if strings.EqualFold(c.Name, name) {
			return c, nil
		}
		names = append(names, c.Name)
	}
	return StressClass{}, fmt.Errorf("unknown stress class %q (want one of %s)", name, strings.Join(names, ", "))
}

// StressConfig selects a class, a size and a seed.
type StressConfig struct {
	Class string
	N     int // nodes, depot included
	Seed  uint64
}

// StressGenerator draws TSPTW instances of one stress class. Every
// instance is feasible by construction: a reference tour is drawn first
// (randomised nearest neighbour: each next customer among the three
// nearest unvisited), and every window contains the arrival time of that
// tour at its customer, which never waits (each window opens no later
// than that arrival). Next returns that tour as the known tour.
type StressGenerator struct {
	cfg   StressConfig
	class StressClass
	rng   *rand.Rand
	count int
}

// NewStressGenerator checks cfg and returns a generator.
func NewStressGenerator(cfg StressConfig) (*StressGenerator, error) {
	c, err := FindStressClass(cfg.Class)
	if err != nil {
		return nil, fmt.Errorf("stress generator: %w", err)
	}
	if cfg.N < 3 || cfg.N > 10000 {
		return nil, fmt.Errorf("stress generator: size %d out of range [3, 10000] (nodes, depot included)", cfg.N)
	}
	return &StressGenerator{cfg: cfg, class: c, rng: rand.New(rand.NewPCG(cfg.Seed, pcgStream^0x5354))}, nil
}

// Metadata describes the files this generator fills.
func (g *StressGenerator) Metadata() Metadata {
	return Metadata{
		Problem: lazymask.TSPTW.String(), Size: g.cfg.N, Seed: g.cfg.Seed, Seeded: true, Scale: TSPTWScale,
		GeneratorVersion: StressVersion, Source: "stress",
		Extra: map[string]string{KeyStressClass: g.class.Name},
	}
}

// Next draws one instance and its reference tour.
func (g *StressGenerator) Next() (*lazymask.Instance, []int) {
	c, n, r := g.class, g.cfg.N, g.rng
	x, y := g.coords()
	// raw travel times (service folded in when the class says so)
	d := make([]float64, n*n)
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			e := dist(x[i], y[i], x[j], y[j])
			if c.Folded {
				e = math.Round(e*10) / 10
				if i > 0 {
					e += c.Service
				}
			}
			d[i*n+j] = e
		}
	}
	service := c.Service
	if c.Folded {
		service = 0
	}
	// each customer's kind of window: 0 open, 1 tight, 2 wide
	kind := make([]int, n)
	for v := 1; v < n; v++ {
		switch u := r.Float64(); {
		case u < c.Tight:
			kind[v] = 1
		case u < c.Tight+c.Wide:
			kind[v] = 2
		}
	}
	var tour []int
	if c.Spread {
		tour = spreadTour(r, kind, d, n)
	} else {
		tour = g.referenceTour(d)
	}
	arr := make([]float64, n)
	t, prev := 0.0, 0
	for _, v := range tour[1:] {
		arr[v] = t + d[prev*n+v]
		t = arr[v] + service
		prev = v
	}
	end := t + d[prev*n]
	horizon := math.Ceil(end * 1.1)
	if c.Horizon > 0 {
		horizon = max(c.Horizon, math.Ceil(end))
	}
	early, late := make([]float64, n), make([]float64, n)
	for _, v := range tour[1:] {
		var w float64
		switch kind[v] {
		case 1:
			w = c.TightMin + r.Float64()*(c.TightMax-c.TightMin)
		case 2:
			w = horizon * (c.WideMin + r.Float64()*(c.WideMax-c.WideMin))
		default:
			early[v], late[v] = 0, horizon
			continue
		}
		// the arrival lies at a uniform place in the window, the window
		// cut at 0 and at the horizon (its width then shrinks), which
		// the arrival never passes
		off := r.Float64() * w
		early[v], late[v] = math.Max(0, arr[v]-off), math.Min(horizon, arr[v]+(w-off))
	}
	late[0] = horizon
	for i := 1; i < n; i++ {
		late[0] = max(late[0], late[i]+service+d[i*n])
	}
	s := TSPTWScale
	in := &lazymask.Instance{Problem: lazymask.TSPTW, N: n, Scale: s,
		Name: fmt.Sprintf("stress-%s-n%d-s%d-%d", c.Name, n, g.cfg.Seed, g.count),
		X:    make([]float64, n), Y: make([]float64, n),
		Early: make([]float64, n), Late: make([]float64, n), Service: make([]float64, n)}
	for i := range n {
		in.X[i], in.Y[i] = x[i]/s, y[i]/s
		in.Early[i], in.Late[i] = early[i]/s, late[i]/s
		if i > 0 {
			in.Service[i] = service / s
		}
	}
	if c.Folded {
		in.Dist = make([]float64, n*n)
		for i := range d {
			in.Dist[i] = d[i] / s
		}
	}
	g.count++
	return in, tour
}

// coords draws raw coordinates: the depot at the centre, customers
// uniform, in Gaussian clusters (σ = 6 around n/10 centres, at least 3),
// or half of each.
func (g *StressGenerator) coords() (x, y []float64) {
	n, r := g.cfg.N, g.rng
	x, y = make([]float64, n), make([]float64, n)
	x[0], y[0] = 50, 50
	k := max(3, n/10)
	cx, cy := make([]float64, k), make([]float64, k)
	for i := range k {
		cx[i], cy[i] = 10+80*r.Float64(), 10+80*r.Float64()
	}
	clamp := func(v float64) float64 { return math.Min(100, math.Max(0, v)) }
	for i := 1; i < n; i++ {
		clustered := g.class.Coords == "clustered" || (g.class.Coords == "mixed" && i%2 == 0)
		if !clustered {
			x[i], y[i] = 100*r.Float64(), 100*r.Float64()
			continue
		}
		c := r.IntN(k)
		x[i], y[i] = clamp(cx[c]+6*r.NormFloat64()), clamp(cy[c]+6*r.NormFloat64())
	}
	return x, y
}

// referenceTour is a randomised nearest-neighbour tour over matrix d:
// each next customer is drawn among the three nearest unvisited ones.
func (g *StressGenerator) referenceTour(d []float64) []int {
	n, r := g.cfg.N, g.rng
	tour := make([]int, 1, n)
	left := make([]int, 0, n-1)
	for i := 1; i < n; i++ {
		left = append(left, i)
	}
	for len(left) > 0 {
		prev := tour[len(tour)-1]
		slices.SortStableFunc(left, func(a, b int) int {
			da, db := d[prev*n+a], d[prev*n+b]
			switch {
			case da < db:
				return -1
			case da > db:
				return 1
			}
			return 0
		})
		k := r.IntN(min(3, len(left)))
		tour = append(tour, left[k])
		left = slices.Delete(left, k, k+1)
	}
	return tour
}

// spreadTour orders the customers of kind 1 (tight) randomly and inserts
// every other customer, in a random order, where it lengthens the tour
// least.
func spreadTour(r *rand.Rand, kind []int, d []float64, n int) []int {
	tour := []int{0}
	var rest []int
	for _, v := range r.Perm(n - 1) {
		if kind[v+1] == 1 {
			tour = append(tour, v+1)
		} else {
			rest = append(rest, v+1)
		}
	}
	for _, v := range rest {
		best, at := math.Inf(1), 1
		for p := 1; p <= len(tour); p++ {
			a, b := tour[p-1], tour[p%len(tour)]
			if c := d[a*n+v] + d[v*n+b] - d[a*n+b]; c < best {
				best, at = c, p
			}
		}
		tour = slices.Insert(tour, at, v)
	}
	return tour
}

// GenerateStressFile writes count instances of a stress class, each with
// its reference tour as the known tour (checked by lazymask.Check).
func GenerateStressFile(path string, cfg StressConfig, count int, opt WriterOptions) (Metadata, error) {
	g, err := NewStressGenerator(cfg)
	if err != nil {
		return Metadata{}, err
	}
	return writeGenerated(path, g.Metadata(), count, g.Next, "stress generator", opt)
}
