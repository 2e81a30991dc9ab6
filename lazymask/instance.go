package lazymask

import (
	"fmt"
	"math"
)

// Tol is the floating-point tolerance used in every feasibility comparison
// (time windows and draft limits), as in the reference implementation.
const Tol = 1e-5

// Problem names a routing problem.
type Problem int

const (
	// TSPTW is the travelling salesman problem with time windows.
	TSPTW Problem = iota + 1
	// TSPDL is the travelling salesman problem with draft limits.
	TSPDL
)

// String returns "tsptw" or "tspdl".
func (p Problem) String() string {
	switch p {
	case TSPTW:
		return "tsptw"
	case TSPDL:
		return "tspdl"
	}
	return fmt.Sprintf("problem(%d)", int(p))
}

// ParseProblem parses "tsptw" or "tspdl".
func ParseProblem(s string) (Problem, error) {
	switch s {
	case "tsptw", "TSPTW":
		return TSPTW, nil
	case "tspdl", "TSPDL":
		return TSPDL, nil
	}
	return 0, fmt.Errorf("unknown problem %q (want tsptw or tspdl)", s)
}

// Instance is one routing instance. Node 0 is the depot; N counts all nodes,
// the depot included ("TSPTW-50" has N = 50).
//
// All values are in normalised units (the units the models see). Scale is
// the factor that was divided out: multiplying a cost by Scale gives it in
// the original units.
//
// TSPTW uses Early, Late and Service; TSPDL uses Demand and Draft. When Dist
// is non-nil it is an N×N row-major travel-time matrix used for both travel
// time and cost (benchmarks such as Dumas give integer matrices that are not
// the Euclidean distances of their coordinates); otherwise travel time and
// cost are Euclidean distances between coordinates.
type Instance struct {
	Problem Problem
	N       int
	Name    string
	Scale   float64

	X, Y []float64

	Early, Late, Service []float64 // TSPTW
	Demand, Draft        []float64 // TSPDL

	Dist []float64 // optional explicit N×N matrix

	dist []float64 // cached matrix (Dist, or Euclidean from X, Y)
}

// D returns the travel time (and cost) from node i to node j.
func (in *Instance) D(i, j int) float64 {
	if in.dist == nil {
		in.Matrix()
	}
	return in.dist[i*in.N+j]
}

// edge returns a travel-time function that uses the cached or explicit
// matrix when there is one, and otherwise computes Euclidean distances
// directly (a single replay then needs no N×N matrix).
func (in *Instance) edge() func(i, j int) float64 {
	if in.dist != nil || in.Dist != nil {
		m := in.Matrix()
		n := in.N
		return func(i, j int) float64 { return m[i*n+j] }
	}
	return func(i, j int) float64 {
		dx, dy := in.X[i]-in.X[j], in.Y[i]-in.Y[j]
		return math.Sqrt(dx*dx + dy*dy)
	}
}

// Matrix returns the N×N row-major travel-time matrix, computing and caching
// it on first use. The returned slice must not be modified.
func (in *Instance) Matrix() []float64 {
	if in.dist != nil && len(in.dist) == in.N*in.N {
		return in.dist
	}
	if in.Dist != nil {
		in.dist = in.Dist
		return in.dist
	}
	n := in.N
	m := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			dx, dy := in.X[i]-in.X[j], in.Y[i]-in.Y[j]
			d := math.Sqrt(dx*dx + dy*dy)
			m[i*n+j], m[j*n+i] = d, d
		}
	}
	in.dist = m
	return m
}

// ResetCache drops the cached travel-time matrix; call it after changing
// coordinates or Dist in place.
func (in *Instance) ResetCache() { in.dist = nil }

// Clone returns a deep copy of the instance (without the cached matrix).
func (in *Instance) Clone() *Instance {
	c := *in
	c.dist = nil
	cp := func(s []float64) []float64 {
		if s == nil {
			return nil
		}
		return append([]float64(nil), s...)
	}
	c.X, c.Y = cp(in.X), cp(in.Y)
	c.Early, c.Late, c.Service = cp(in.Early), cp(in.Late), cp(in.Service)
	c.Demand, c.Draft = cp(in.Demand), cp(in.Draft)
	c.Dist = cp(in.Dist)
	return &c
}

// FieldError reports an invalid instance field.
type FieldError struct {
	Field string
	Node  int // -1 when the error is not about one node
	Value float64
	Msg   string
}

// Error names the field, the node when known, the problem and the value.
func (e *FieldError) Error() string {
	if e.Node >= 0 {
		return fmt.Sprintf("field %s, node %d: %s (value %v)", e.Field, e.Node, e.Msg, e.Value)
	}
	return fmt.Sprintf("field %s: %s", e.Field, e.Msg)
}

// Validate checks sizes, finiteness and the problem's own rules (e ≤ l,
// non-negative service times, demands and draft limits). It returns a
// *FieldError naming the first offending field and node.
func (in *Instance) Validate() error {
	if in.Problem != TSPTW && in.Problem != TSPDL {
		return &FieldError{Field: "problem", Node: -1, Msg: fmt.Sprintf("unknown problem %d", int(in.Problem))}
	}
	if in.N < 2 {
		return &FieldError{Field: "n", Node: -1, Value: float64(in.N), Msg: fmt.Sprintf("need at least 2 nodes, got %d", in.N)}
	}
	if !(in.Scale > 0) || math.IsInf(in.Scale, 0) {
		return &FieldError{Field: "scale", Node: -1, Value: in.Scale, Msg: fmt.Sprintf("scale must be positive and finite, got %v", in.Scale)}
	}
	check := func(name string, s []float64, want int, nonNeg bool) error {
		if len(s) != want {
			return &FieldError{Field: name, Node: -1, Msg: fmt.Sprintf("length %d, want %d", len(s), want)}
		}
		for i, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &FieldError{Field: name, Node: i % max(in.N, 1), Value: v, Msg: "not a finite number"}
			}
			if nonNeg && v < 0 {
				return &FieldError{Field: name, Node: i % max(in.N, 1), Value: v, Msg: "negative"}
			}
		}
		return nil
	}
	if err := check("x", in.X, in.N, false); err != nil {
		return err
	}
	if err := check("y", in.Y, in.N, false); err != nil {
		return err
	}
	if in.Dist != nil {
		if err := check("dist", in.Dist, in.N*in.N, true); err != nil {
			return err
		}
	}
	switch in.Problem {
	case TSPTW:
		for _, f := range []struct {
			name string
			s    []float64
		}{{"early", in.Early}, {"late", in.Late}, {"service", in.Service}} {
			if err := check(f.name, f.s, in.N, f.name == "service"); err != nil {
				return err
			}
		}
		for i := 0; i < in.N; i++ {
			if in.Early[i] > in.Late[i] {
				return &FieldError{Field: "early", Node: i, Value: in.Early[i],
					Msg: fmt.Sprintf("window start %v is after its end %v", in.Early[i], in.Late[i])}
			}
		}
	case TSPDL:
		if err := check("demand", in.Demand, in.N, true); err != nil {
			return err
		}
		if err := check("draft", in.Draft, in.N, true); err != nil {
			return err
		}
	}
	return nil
}

// TotalDemand is Σ demand (1 after the generators' normalisation).
func (in *Instance) TotalDemand() float64 {
	s := 0.0
	for _, d := range in.Demand {
		s += d
	}
	return s
}
