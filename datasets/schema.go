package datasets

import (
	"fmt"
	"math"
	"strings"

	"github.com/lmask/lmask/lazymask"
)

// instanceRow is one row of an instances file. List columns are empty
// where they do not apply (TSPTW rows have empty demand/draft, TSPDL rows
// empty early/late/service); dist is empty unless the instance carries an
// explicit travel-time matrix; known_tour is empty unless a feasible tour is
// known by construction.
type instanceRow struct {
	Index     int64     `parquet:"index"`
	Problem   string    `parquet:"problem,dict"`
	Name      string    `parquet:"name"`
	N         int32     `parquet:"n"`
	Scale     float64   `parquet:"scale"`
	X         []float64 `parquet:"x,list"`
	Y         []float64 `parquet:"y,list"`
	Early     []float64 `parquet:"early,list"`
	Late      []float64 `parquet:"late,list"`
	Service   []float64 `parquet:"service,list"`
	Demand    []float64 `parquet:"demand,list"`
	Draft     []float64 `parquet:"draft,list"`
	Dist      []float64 `parquet:"dist,list"`
	KnownTour []int32   `parquet:"known_tour,list"`
}

// solutionRow is one row of a solutions file: one tour (or one reference
// value) for one instance.
type solutionRow struct {
	Instance      int64   `parquet:"instance"`
	Tour          []int32 `parquet:"tour,list"`
	Cost          float64 `parquet:"cost"`
	CostOrig      float64 `parquet:"cost_orig"`
	Feasible      bool    `parquet:"feasible"`
	Violation     float64 `parquet:"violation"`
	ViolatedNodes int32   `parquet:"violated_nodes"`
	Backtracks    int32   `parquet:"backtracks"`
	SolveTime     float64 `parquet:"solve_time"`
	Source        string  `parquet:"source,dict"`
	Aug           int32   `parquet:"aug"`
	Sample        int32   `parquet:"sample"`
	Fixed         int32   `parquet:"fixed,optional"`
	Dropped       []int32 `parquet:"dropped,list,optional"`
}

// Solution is one tour for one instance, or a reference value without a
// tour. Tour is nil when no complete tour exists (a decode that gave up, a
// reference solver that found nothing, or a cost-only reference).
type Solution struct {
	// Instance is the row index of the instance in its instances file.
	Instance int64
	// Tour lists all N nodes starting at the depot, or is nil.
	Tour []int
	// Cost is the tour length in normalised units (+Inf when none is known).
	Cost float64
	// CostOrig is Cost in the instance's original units (Cost × Scale).
	CostOrig float64
	// Feasible, Violation and ViolatedNodes are the checker's verdict as
	// recorded by the producer; Evaluate recomputes them by replay.
	Feasible      bool
	Violation     float64
	ViolatedNodes int
	// Backtracks is the number of backtracking pops the decoder used.
	Backtracks int
	// SolveTime is the wall-clock time spent on this tour, in seconds.
	SolveTime float64
	// Source names the producer ("lmask", "pyvrp", "lkh", "optimal", ...).
	Source string
	// Aug is the dihedral augmentation index, Sample the sample index.
	Aug, Sample int
	// Fixed, in a label set of prefix completions, is how many positions of
	// Tour (the depot included) a model decoded before the search completed
	// the rest; imitation learns only the steps after them. 0 elsewhere.
	Fixed int
	// Dropped lists the customers a tour that serves only some of them
	// leaves out (lmask-infer --infeasible drop); Tour then lists the
	// served nodes alone, from the depot, and lazymask.CheckServed
	// replays it. Nil for a tour of every node.
	Dropped []int
}

// Checked returns a Solution for tour filled with the checker's verdict on
// inst. Malformed tours return the checker's *lazymask.TourError.
func Checked(inst *lazymask.Instance, index int64, tour []int, source string) (Solution, error) {
	res, err := lazymask.Check(inst, tour)
	var te *lazymask.TourError
	if asTourError(err, &te) {
		return Solution{}, err
	}
	return Solution{
		Instance: index, Tour: append([]int(nil), tour...),
		Cost: res.Cost, CostOrig: res.Cost * inst.Scale,
		Feasible: res.Feasible, Violation: res.TotalViolation, ViolatedNodes: res.ViolatedNodes,
		Source: source,
	}, nil
}

func toInstanceRow(index int64, in *lazymask.Instance, known []int) instanceRow {
	r := instanceRow{
		Index: index, Problem: in.Problem.String(), Name: in.Name, N: int32(in.N), Scale: in.Scale,
		X: in.X, Y: in.Y, Early: in.Early, Late: in.Late, Service: in.Service,
		Demand: in.Demand, Draft: in.Draft, Dist: in.Dist,
	}
	if known != nil {
		r.KnownTour = make([]int32, len(known))
		for i, v := range known {
			r.KnownTour[i] = int32(v)
		}
	}
	return r
}

// RowError is an error about one row of a file: File names the file (the
// path, or a role such as "solutions" or "reference" where the function
// reading rows does not know it; callers may set the path), Row is the
// row index and Field the column ("" when the row as a whole is at fault).
type RowError struct {
	File  string
	Row   int64
	Field string
	Err   error
}

// Error reads "FILE: row R: field F: cause".
func (e *RowError) Error() string {
	if e.Field != "" {
		msg := e.Err.Error()
		if strings.HasPrefix(msg, "field "+e.Field+",") || strings.HasPrefix(msg, "field "+e.Field+":") { // a *lazymask.FieldError names the field itself
			return fmt.Sprintf("%s: row %d: %s", e.File, e.Row, msg)
		}
		return fmt.Sprintf("%s: row %d: field %s: %s", e.File, e.Row, e.Field, msg)
	}
	return fmt.Sprintf("%s: row %d: %v", e.File, e.Row, e.Err)
}

// Unwrap returns the cause.
func (e *RowError) Unwrap() error { return e.Err }

// fromInstanceRow converts and validates one row read from file.
func fromInstanceRow(file string, row int64, r *instanceRow) (*lazymask.Instance, []int, error) {
	fail := func(field, format string, a ...any) error {
		return &RowError{File: file, Row: row, Field: field, Err: fmt.Errorf(format, a...)}
	}
	if r.Index != row {
		return nil, nil, fail("index", "index %d does not match row position %d", r.Index, row)
	}
	p, err := lazymask.ParseProblem(r.Problem)
	if err != nil {
		return nil, nil, fail("problem", "%v", err)
	}
	n := int(r.N)
	in := &lazymask.Instance{Problem: p, N: n, Name: r.Name, Scale: r.Scale, X: r.X, Y: r.Y}
	if p == lazymask.TSPTW {
		in.Early, in.Late, in.Service = r.Early, r.Late, r.Service
		if len(r.Demand) != 0 || len(r.Draft) != 0 {
			return nil, nil, fail("demand", "tsptw row has demand/draft values")
		}
	} else {
		in.Demand, in.Draft = r.Demand, r.Draft
		if len(r.Early) != 0 || len(r.Late) != 0 || len(r.Service) != 0 {
			return nil, nil, fail("early", "tspdl row has time-window values")
		}
	}
	if len(r.Dist) != 0 {
		in.Dist = r.Dist
	}
	if err := in.Validate(); err != nil {
		field := ""
		var fe *lazymask.FieldError
		if asFieldError(err, &fe) {
			field = fe.Field
		}
		return nil, nil, &RowError{File: file, Row: row, Field: field, Err: err}
	}
	var known []int
	if len(r.KnownTour) != 0 {
		known = make([]int, len(r.KnownTour))
		for i, v := range r.KnownTour {
			known[i] = int(v)
		}
		if _, err := lazymask.Check(in, known); err != nil {
			var te *lazymask.TourError
			if asTourError(err, &te) {
				return nil, nil, fail("known_tour", "%v", err)
			}
		}
	}
	return in, known, nil
}

func toSolutionRow(s *Solution) solutionRow {
	r := solutionRow{
		Instance: s.Instance, Cost: s.Cost, CostOrig: s.CostOrig, Feasible: s.Feasible,
		Violation: s.Violation, ViolatedNodes: int32(s.ViolatedNodes), Backtracks: int32(s.Backtracks),
		SolveTime: s.SolveTime, Source: s.Source, Aug: int32(s.Aug), Sample: int32(s.Sample), Fixed: int32(s.Fixed),
	}
	if s.Tour != nil {
		r.Tour = make([]int32, len(s.Tour))
		for i, v := range s.Tour {
			r.Tour[i] = int32(v)
		}
	}
	for _, v := range s.Dropped {
		r.Dropped = append(r.Dropped, int32(v))
	}
	return r
}

// fromSolutionRow converts one row read from file. Tours are checked against
// their instance later (Evaluate), where the instance is known.
func fromSolutionRow(file string, row int64, r *solutionRow) (Solution, error) {
	fail := func(field, format string, a ...any) error {
		return &RowError{File: file, Row: row, Field: field, Err: fmt.Errorf(format, a...)}
	}
	if r.Instance < 0 {
		return Solution{}, fail("instance", "negative instance index %d", r.Instance)
	}
	if math.IsNaN(r.Cost) || math.IsInf(r.Cost, -1) {
		return Solution{}, fail("cost", "cost %v is not a length", r.Cost)
	}
	if math.IsNaN(r.Violation) || math.IsInf(r.Violation, 0) || r.Violation < 0 {
		return Solution{}, fail("violation", "violation %v is not a finite non-negative number", r.Violation)
	}
	if len(r.Tour) != 0 && math.IsInf(r.Cost, 1) {
		return Solution{}, fail("cost", "a row with a tour has infinite cost")
	}
	if r.Fixed < 0 || (len(r.Tour) > 0 && int(r.Fixed) > len(r.Tour)) {
		return Solution{}, fail("fixed", "fixed prefix %d outside the tour of %d positions", r.Fixed, len(r.Tour))
	}
	s := Solution{
		Instance: r.Instance, Cost: r.Cost, CostOrig: r.CostOrig, Feasible: r.Feasible,
		Violation: r.Violation, ViolatedNodes: int(r.ViolatedNodes), Backtracks: int(r.Backtracks),
		SolveTime: r.SolveTime, Source: r.Source, Aug: int(r.Aug), Sample: int(r.Sample), Fixed: int(r.Fixed),
	}
	if len(r.Tour) != 0 {
		s.Tour = make([]int, len(r.Tour))
		for i, v := range r.Tour {
			s.Tour[i] = int(v)
		}
	}
	if len(r.Dropped) != 0 {
		if len(r.Tour) == 0 {
			return Solution{}, fail("dropped", "dropped nodes %v without a served tour", r.Dropped)
		}
		s.Dropped = make([]int, len(r.Dropped))
		for i, v := range r.Dropped {
			if v < 1 {
				return Solution{}, fail("dropped", "dropped node %d: only customers (1 …) can be dropped", v)
			}
			s.Dropped[i] = int(v)
		}
	}
	return s, nil
}
