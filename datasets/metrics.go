package datasets

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/lmask/lmask/lazymask"
)

// Metrics are the paper's evaluation numbers for a set of tours. Feasibility
// and lengths come only from replaying each tour with lazymask.Check; the
// flags and costs a solutions file records are ignored, except the costs of
// the reference (used for gaps, as the paper does).
type Metrics struct {
	// Instances is the number of instances; Rows the number of solution
	// rows; Tours the rows that carry a complete tour.
	Instances, Rows, Tours int
	// FeasibleTours passed the checker; ViolatingTours are complete tours
	// that break a constraint by more than lazymask.Tol; MissingTours are
	// rows without a tour (the decoder gave up).
	FeasibleTours, ViolatingTours, MissingTours int
	// Unsolved is the number of instances no solution row names at all
	// (for example past the --limit of the run that wrote the file); they
	// count as instances without a feasible tour.
	Unsolved int
	// MaxViolation is the largest total violation of a complete tour.
	MaxViolation float64
	// SolInfeasible is the share of rows that are not feasible tours.
	SolInfeasible float64
	// InstInfeasible is the share of instances without any feasible tour.
	InstInfeasible float64
	// Obj is the mean, over instances with a feasible tour, of the best
	// feasible length (normalised units); NaN when there is none.
	Obj      float64
	ObjCount int
	// Gap is the mean over instances of (best − ref)/ref (a fraction, not a
	// percentage), over instances where both are finite; NaN when none.
	Gap      float64
	GapCount int
	// MeanLength is the mean replayed length of every complete tour
	// (feasible or not); NaN when there is none.
	MeanLength float64
	// Best is the best feasible length per instance (+Inf when none).
	Best []float64 `json:"-"`
}

// Evaluate replays every tour of sols on its instance and computes Metrics.
// refs (may be nil) supplies reference costs: per instance the smallest
// finite Cost among its rows. A solution naming an instance out of range
// or carrying a malformed tour is an error naming the row and field.
func Evaluate(insts []*lazymask.Instance, sols []Solution, refs []Solution) (Metrics, error) {
	m := Metrics{Instances: len(insts), Rows: len(sols), Best: make([]float64, len(insts))}
	for i := range m.Best {
		m.Best[i] = math.Inf(1)
	}
	// Rows are replayed instance by instance on a fresh copy, so the
	// checker's cached matrices do not pile up (100k instances × N² floats).
	order := make([][]int, len(insts))
	named := make([]bool, len(insts))
	for r := range sols {
		s := &sols[r]
		if s.Instance < 0 || s.Instance >= int64(len(insts)) {
			return m, &rowError{File: "solutions", Row: int64(r), Field: "instance",
				Err: fmt.Errorf("instance %d out of range [0,%d) (size mismatch with the instances)", s.Instance, len(insts))}
		}
		named[s.Instance] = true
		if s.Tour == nil {
			m.MissingTours++
			continue
		}
		order[s.Instance] = append(order[s.Instance], r)
	}
	for _, ok := range named {
		if !ok {
			m.Unsolved++
		}
	}
	sumLen := 0.0
	for i, rows := range order {
		if len(rows) == 0 {
			continue
		}
		inst := insts[i].Clone()
		for _, r := range rows {
			s := &sols[r]
			res, err := lazymask.Check(inst, s.Tour)
			var te *lazymask.TourError
			if asTourError(err, &te) {
				return m, &rowError{File: "solutions", Row: int64(r), Field: "tour", Err: fmt.Errorf("instance %d: %w", s.Instance, err)}
			}
			m.Tours++
			sumLen += res.Cost
			m.MaxViolation = math.Max(m.MaxViolation, res.TotalViolation)
			if res.Feasible {
				m.FeasibleTours++
				m.Best[i] = math.Min(m.Best[i], res.Cost)
			} else {
				m.ViolatingTours++
			}
		}
	}
	ref, err := referenceCosts(len(insts), refs)
	if err != nil {
		return m, err
	}
	m.Obj, m.Gap, m.MeanLength = math.NaN(), math.NaN(), math.NaN()
	if m.Rows > 0 {
		m.SolInfeasible = float64(m.Rows-m.FeasibleTours) / float64(m.Rows)
	}
	if m.Tours > 0 {
		m.MeanLength = sumLen / float64(m.Tours)
	}
	noFeas, sumObj, sumGap := 0, 0.0, 0.0
	for i, b := range m.Best {
		if math.IsInf(b, 1) {
			noFeas++
			continue
		}
		m.ObjCount++
		sumObj += b
		if ref != nil && !math.IsInf(ref[i], 1) && ref[i] > 0 {
			m.GapCount++
			sumGap += (b - ref[i]) / ref[i]
		}
	}
	if m.Instances > 0 {
		m.InstInfeasible = float64(noFeas) / float64(m.Instances)
	}
	if m.ObjCount > 0 {
		m.Obj = sumObj / float64(m.ObjCount)
	}
	if m.GapCount > 0 {
		m.Gap = sumGap / float64(m.GapCount)
	}
	return m, nil
}

// referenceCosts returns per instance the smallest finite reference cost
// (+Inf when none), or nil when refs is nil.
func referenceCosts(n int, refs []Solution) ([]float64, error) {
	if refs == nil {
		return nil, nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Inf(1)
	}
	for r := range refs {
		s := &refs[r]
		if s.Instance < 0 || s.Instance >= int64(n) {
			return nil, &rowError{File: "reference", Row: int64(r), Field: "instance",
				Err: fmt.Errorf("instance %d out of range [0,%d) (size mismatch with the instances)", s.Instance, n)}
		}
		if !math.IsNaN(s.Cost) && s.Cost < out[s.Instance] {
			out[s.Instance] = s.Cost
		}
	}
	return out, nil
}

// jsonNum is a float that encodes NaN and ±Inf as JSON null.
type jsonNum float64

func (f jsonNum) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// MarshalJSON writes the stable keys instances, tours, rows,
// sol_infeasible, inst_infeasible, obj, gap, mean_length, feasible_tours,
// violating_tours, missing_tours, unsolved_instances, max_violation,
// obj_count and gap_count.
// Undefined values (NaN) are written as null.
func (m Metrics) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Instances      int     `json:"instances"`
		Tours          int     `json:"tours"`
		Rows           int     `json:"rows"`
		SolInfeasible  jsonNum `json:"sol_infeasible"`
		InstInfeasible jsonNum `json:"inst_infeasible"`
		Obj            jsonNum `json:"obj"`
		Gap            jsonNum `json:"gap"`
		MeanLength     jsonNum `json:"mean_length"`
		FeasibleTours  int     `json:"feasible_tours"`
		ViolatingTours int     `json:"violating_tours"`
		MissingTours   int     `json:"missing_tours"`
		Unsolved       int     `json:"unsolved_instances"`
		MaxViolation   jsonNum `json:"max_violation"`
		ObjCount       int     `json:"obj_count"`
		GapCount       int     `json:"gap_count"`
	}{m.Instances, m.Tours, m.Rows, jsonNum(m.SolInfeasible), jsonNum(m.InstInfeasible), jsonNum(m.Obj),
		jsonNum(m.Gap), jsonNum(m.MeanLength), m.FeasibleTours, m.ViolatingTours, m.MissingTours, m.Unsolved,
		jsonNum(m.MaxViolation), m.ObjCount, m.GapCount})
}
