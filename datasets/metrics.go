package datasets

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/lmask/lmask/lazymask"
)

// Metrics are the paper's evaluation numbers for a set of tours
// (lmask-reference §8). Feasibility and lengths come only from replaying
// each tour with lazymask.Check; the flags and costs a solutions file
// records are ignored, except the costs of the reference, which the paper
// takes as given (PyVRP and LKH costs), whether or not its tour passes the
// checker.
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
	// feasible length (normalised units); ObjOrig the same in the
	// instances' original units (× Scale); NaN when there is none.
	Obj, ObjOrig float64
	ObjCount     int
	// Gap is the paper's gap: the mean of (best − ref)/ref (a fraction,
	// not a percentage) over the instances that have a best feasible tour
	// and a finite reference cost, whether or not the reference tour
	// itself passes the checker; NaN when none.
	Gap      float64
	GapCount int
	// GapFeasibleRef is the same mean over only those of the GapCount
	// instances whose reference row has a tour that lazymask.Check
	// accepts (reference tours that break a constraint may be shorter
	// than any feasible tour); NaN when none.
	GapFeasibleRef      float64
	GapFeasibleRefCount int
	// GapP95, GapP99 and GapMax are the 95th and 99th percentiles and the
	// largest of the same GapCount per-instance gaps (fractions; NaN when
	// none). A percentile is the nearest rank: the ⌈p·k⌉-th smallest of the
	// k gaps, so it is always one instance's gap.
	GapP95, GapP99, GapMax float64
	// Worst are the (at most WorstCount) instances of largest gap, largest
	// first (ties by index).
	Worst []WorstGap
	// References counts the instances with a finite reference cost;
	// RefInfeasible those whose reference tour fails lazymask.Check and
	// RefWithoutTour those whose reference row has a cost but no tour.
	References, RefInfeasible, RefWithoutTour int
	// MeanLength is the mean replayed length of every complete tour
	// (feasible or not); NaN when there is none.
	MeanLength float64
	// Best is the best feasible length per instance (+Inf when none),
	// filled by Evaluate only.
	Best []float64 `json:"-"`
	// Apart from the paper's metrics, for instances without a feasible
	// tour: DropInstances have a served tour that leaves DroppedStops
	// customers out in all (--infeasible drop; the fewest-drop feasible
	// served tour of each); LateInstances have a tour of every stop
	// served late, Lateness their least total lateness summed (original
	// units: × Scale for TSPTW; TSPDL excess load as stored).
	DropInstances, DroppedStops int
	LateInstances               int
	Lateness                    float64
}

// WorstCount is how many of the worst instances Metrics names.
const WorstCount = 5

// WorstGap is one instance of Metrics.Worst: its index, its name (empty
// where the instance has none) and its gap (a fraction).
type WorstGap struct {
	Instance int64   `json:"instance"`
	Name     string  `json:"name,omitempty"`
	Gap      float64 `json:"gap"`
}

// Label is the instance's name, or "#index" where it has none.
func (w WorstGap) Label() string {
	if w.Name != "" {
		return w.Name
	}
	return fmt.Sprintf("#%d", w.Instance)
}

// NearestRank is the p-quantile (0 < p ≤ 1) of sorted values by the
// nearest-rank rule: the ⌈p·k⌉-th smallest of the k values (NaN when k = 0).
func NearestRank(sorted []float64, p float64) float64 {
	k := len(sorted)
	if k == 0 {
		return math.NaN()
	}
	// The small epsilon keeps p·k = 19.000000000000004 at rank 19.
	r := int(math.Ceil(p*float64(k) - 1e-9))
	return sorted[min(max(r, 1), k)-1]
}

// Tally computes Metrics from a stream: instances are added one at a time
// (AddInstance), then their solution rows (AddRow) and any further tours
// that compete for an instance's best length without counting as rows
// (AddCandidate, e.g. a local search's result). Only the per-instance best
// length, reference and name are kept, so it serves streamed files of any
// size (the percentiles need every gap).
type Tally struct {
	n        int       // instances tallied (hi − lo)
	off      int64     // index of the first tallied instance (NewTallyRange)
	ref      []float64 // per instance: best finite reference cost (+Inf: none); nil without references
	refRow   []int64   // the reference row that gave ref
	refTour  [][]int   // its tour (nil: none)
	added    []bool
	named    []bool
	name     []string // instance names, for Metrics.Worst
	best     []float64
	scale    []float64
	m        Metrics
	sumLen   float64
	resolved bool
	dropped  map[int64]int     // per instance: fewest customers a feasible served tour drops
	late     map[int64]float64 // per instance: least total lateness of a late row (original units)
}

// NewTally returns a Tally for a set of n instances (indices 0..n−1).
// refs (nil: no gap) are reference rows: per instance the row of least
// finite Cost is the reference. A reference row naming an instance out of
// range is a *RowError of file "reference".
func NewTally(n int, refs []Solution) (*Tally, error) {
	return NewTallyRange(int64(n), 0, int64(n), refs)
}

// NewTallyRange is NewTally for the instances lo..hi−1 of a set of n (a
// shard of a file): it keeps hi−lo entries, and reference rows of other
// instances are skipped (still checked to lie in [0,n)).
func NewTallyRange(n, lo, hi int64, refs []Solution) (*Tally, error) {
	if lo < 0 || hi < lo || hi > n {
		return nil, fmt.Errorf("metrics: range %d..%d of %d instances", lo, hi, n)
	}
	k := int(hi - lo)
	t := &Tally{n: k, off: lo, added: make([]bool, k), named: make([]bool, k), name: make([]string, k), best: make([]float64, k), scale: make([]float64, k)}
	for i := range t.best {
		t.best[i] = math.Inf(1)
	}
	if refs == nil {
		return t, nil
	}
	t.ref, t.refRow, t.refTour = make([]float64, k), make([]int64, k), make([][]int, k)
	for i := range t.ref {
		t.ref[i], t.refRow[i] = math.Inf(1), -1
	}
	for r := range refs {
		s := &refs[r]
		if s.Instance < 0 || s.Instance >= n {
			return nil, &RowError{File: "reference", Row: int64(r), Field: "instance",
				Err: fmt.Errorf("instance %d out of range [0,%d) (size mismatch with the instances)", s.Instance, n)}
		}
		i := s.Instance - lo
		if i < 0 || i >= int64(k) {
			continue
		}
		if !math.IsNaN(s.Cost) && !math.IsInf(s.Cost, 0) && s.Cost < t.ref[i] {
			t.ref[i], t.refRow[i], t.refTour[i] = s.Cost, int64(r), s.Tour
		}
	}
	return t, nil
}

// AddInstance counts instance index (inst is the instance itself) and
// replays its reference tour, if any, with lazymask.Check. It must come
// before the instance's rows; adding an instance twice is an error, and so
// is a malformed reference tour (a *RowError of file "reference").
func (t *Tally) AddInstance(index int64, inst *lazymask.Instance) error {
	if err := t.inRange(index); err != nil {
		return err
	}
	i := index - t.off
	if t.added[i] {
		return fmt.Errorf("metrics: instance %d added twice", index)
	}
	t.added[i], t.scale[i], t.name[i] = true, inst.Scale, inst.Name
	t.m.Instances++
	if t.ref == nil || math.IsInf(t.ref[i], 1) {
		return nil
	}
	t.m.References++
	tour := t.refTour[i]
	if tour == nil {
		t.m.RefWithoutTour++
		return nil
	}
	res, err := lazymask.Check(inst, tour)
	var te *lazymask.TourError
	if asTourError(err, &te) {
		return &RowError{File: "reference", Row: t.refRow[i], Field: "tour", Err: fmt.Errorf("instance %d: %w", index, err)}
	}
	if !res.Feasible {
		t.m.RefInfeasible++
		t.refTour[i] = nil // Metrics counts only checked-feasible reference tours
	}
	return nil
}

// AddRow counts one solution row of an added instance: tour nil is a row
// without a tour; a complete tour is replayed with lazymask.Check, whose
// Result it returns. A malformed tour returns the *lazymask.TourError
// (wrapped) and is not counted.
func (t *Tally) AddRow(index int64, inst *lazymask.Instance, tour []int) (lazymask.Result, error) {
	return t.add(index, inst, tour, true)
}

// AddCandidate replays a further tour of an added instance that competes
// for its best feasible length without counting as a solution row (the
// rate of infeasible solutions stays the decoder's).
func (t *Tally) AddCandidate(index int64, inst *lazymask.Instance, tour []int) (lazymask.Result, error) {
	return t.add(index, inst, tour, false)
}

func (t *Tally) add(index int64, inst *lazymask.Instance, tour []int, row bool) (lazymask.Result, error) {
	if err := t.inRange(index); err != nil {
		return lazymask.Result{}, err
	}
	i := index - t.off
	if !t.added[i] {
		return lazymask.Result{}, fmt.Errorf("metrics: row of instance %d before the instance", index)
	}
	if tour == nil {
		if row {
			t.named[i] = true
			t.m.Rows++
			t.m.MissingTours++
		}
		return lazymask.Result{}, nil
	}
	res, err := lazymask.Check(inst, tour)
	var te *lazymask.TourError
	if asTourError(err, &te) {
		return res, fmt.Errorf("instance %d: %w", index, err)
	}
	if res.Feasible {
		t.best[i] = math.Min(t.best[i], res.Cost)
	}
	if !row {
		return res, nil
	}
	t.named[i] = true
	t.m.Rows++
	t.m.Tours++
	t.sumLen += res.Cost
	t.m.MaxViolation = math.Max(t.m.MaxViolation, res.TotalViolation)
	if res.Feasible {
		t.m.FeasibleTours++
	} else {
		t.m.ViolatingTours++
	}
	return res, nil
}

// AddDropped replays a tour that serves only some nodes of an added
// instance (tour from the depot, dropped the customers left out) with
// lazymask.CheckServed. It is not a solution row and does not compete for
// the instance's best (the paper's metrics count only tours of every
// node); a feasible one counts in DropInstances and DroppedStops (the
// fewest drops of the instance's rows). A malformed pair (served and
// dropped not every node exactly once) returns the *lazymask.TourError
// (wrapped).
func (t *Tally) AddDropped(index int64, inst *lazymask.Instance, tour, dropped []int) (lazymask.Result, error) {
	if err := t.inRange(index); err != nil {
		return lazymask.Result{}, err
	}
	i := index - t.off
	if !t.added[i] {
		return lazymask.Result{}, fmt.Errorf("metrics: row of instance %d before the instance", index)
	}
	res, err := lazymask.CheckServed(inst, tour, dropped)
	var te *lazymask.TourError
	if asTourError(err, &te) {
		return res, fmt.Errorf("instance %d: %w", index, err)
	}
	t.named[i] = true
	if res.Feasible {
		if t.dropped == nil {
			t.dropped = map[int64]int{}
		}
		if k, ok := t.dropped[index]; !ok || len(dropped) < k {
			t.dropped[index] = len(dropped)
		}
	}
	return res, nil
}

// AddLate is AddRow (row true) or AddCandidate for a tour that serves
// every stop of an instance without a feasible tour as little late as it
// can (--infeasible late); where it is not feasible its total violation
// counts in LateInstances and Lateness (the least of the instance's).
func (t *Tally) AddLate(index int64, inst *lazymask.Instance, tour []int, row bool) (lazymask.Result, error) {
	res, err := t.add(index, inst, tour, row)
	if err != nil || tour == nil || res.Feasible {
		return res, err
	}
	v := res.TotalViolation
	if inst.Problem == lazymask.TSPTW {
		v *= inst.Scale
	}
	if t.late == nil {
		t.late = map[int64]float64{}
	}
	if old, ok := t.late[index]; !ok || v < old {
		t.late[index] = v
	}
	return res, nil
}

func (t *Tally) inRange(index int64) error {
	if index < t.off || index >= t.off+int64(t.n) {
		return fmt.Errorf("metrics: instance %d out of range [%d,%d)", index, t.off, t.off+int64(t.n))
	}
	return nil
}

// Best returns the best feasible length of instance index so far (+Inf
// when none).
func (t *Tally) Best(index int64) float64 { return t.best[index-t.off] }

// Metrics returns the metrics of everything added so far.
func (t *Tally) Metrics() Metrics {
	m := t.m
	m.Best = nil
	m.Obj, m.ObjOrig, m.Gap, m.GapFeasibleRef, m.MeanLength = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if m.Rows > 0 {
		m.SolInfeasible = float64(m.Rows-m.FeasibleTours) / float64(m.Rows)
	}
	if m.Tours > 0 {
		m.MeanLength = t.sumLen / float64(m.Tours)
	}
	m.GapP95, m.GapP99, m.GapMax = math.NaN(), math.NaN(), math.NaN()
	noFeas := 0
	var sumObj, sumOrig, sumGap, sumFeasRef float64
	var gaps []WorstGap
	for i, b := range t.best {
		if !t.added[i] {
			continue
		}
		if !t.named[i] {
			m.Unsolved++
		}
		if math.IsInf(b, 1) {
			noFeas++
			continue
		}
		m.ObjCount++
		sumObj += b
		sumOrig += b * t.scale[i]
		if t.ref == nil || math.IsInf(t.ref[i], 1) || t.ref[i] <= 0 {
			continue
		}
		g := (b - t.ref[i]) / t.ref[i]
		m.GapCount++
		sumGap += g
		gaps = append(gaps, WorstGap{Instance: t.off + int64(i), Name: t.name[i], Gap: g})
		if t.refTour[i] != nil { // replayed feasible by AddInstance
			m.GapFeasibleRefCount++
			sumFeasRef += g
		}
	}
	if m.Instances > 0 {
		m.InstInfeasible = float64(noFeas) / float64(m.Instances)
	}
	if m.ObjCount > 0 {
		m.Obj, m.ObjOrig = sumObj/float64(m.ObjCount), sumOrig/float64(m.ObjCount)
	}
	if m.GapCount > 0 {
		m.Gap = sumGap / float64(m.GapCount)
	}
	if m.GapFeasibleRefCount > 0 {
		m.GapFeasibleRef = sumFeasRef / float64(m.GapFeasibleRefCount)
	}
	m.setWorst(gaps)
	for idx, k := range t.dropped {
		if math.IsInf(t.best[idx-t.off], 1) {
			m.DropInstances++
			m.DroppedStops += k
		}
	}
	for _, idx := range slices.Sorted(maps.Keys(t.late)) { // a fixed order: the same sum every run
		if v := t.late[idx]; math.IsInf(t.best[idx-t.off], 1) {
			m.LateInstances++
			m.Lateness += v
		}
	}
	return m
}

// setWorst fills the percentiles, the largest gap and Worst from every
// instance's gap (reordered).
func (m *Metrics) setWorst(gaps []WorstGap) {
	if len(gaps) == 0 {
		return
	}
	// Largest gap first, ties by index; vals ascending for the ranks.
	slices.SortFunc(gaps, func(a, b WorstGap) int {
		return cmp.Or(cmp.Compare(b.Gap, a.Gap), cmp.Compare(a.Instance, b.Instance))
	})
	vals := make([]float64, len(gaps))
	for i, g := range gaps {
		vals[len(gaps)-1-i] = g.Gap
	}
	m.GapP95, m.GapP99, m.GapMax = NearestRank(vals, 0.95), NearestRank(vals, 0.99), vals[len(vals)-1]
	m.Worst = slices.Clone(gaps[:min(WorstCount, len(gaps))])
}

// Evaluate replays every tour of sols on its instance and computes Metrics
// with a Tally (every instance added, then its rows). refs (may be nil)
// are the reference rows (NewTally). A row naming an instance out of range
// or carrying a malformed tour is a *RowError naming the file ("solutions"
// or "reference"; callers put in the path), the row and the field.
func Evaluate(insts []*lazymask.Instance, sols []Solution, refs []Solution) (Metrics, error) {
	return evaluate(insts, sols, refs, nil)
}

// EvaluateDiversity is Evaluate that also measures, from the same replay,
// how alike each instance's feasible tours are (a file of every decoded
// tour, e.g. lmask-infer --all-tours).
func EvaluateDiversity(insts []*lazymask.Instance, sols []Solution, refs []Solution) (Metrics, Diversity, error) {
	var d Diversity
	m, err := evaluate(insts, sols, refs, &d)
	return m, d, err
}

// evaluate is Evaluate, adding each instance's feasible tours to div when
// it is not nil.
func evaluate(insts []*lazymask.Instance, sols []Solution, refs []Solution, div *Diversity) (Metrics, error) {
	t, err := NewTally(len(insts), refs)
	if err != nil {
		return Metrics{}, err
	}
	order, err := rowsByInstance(len(insts), sols)
	if err != nil {
		return Metrics{}, err
	}
	for i, rows := range order {
		// A fresh copy per instance, so the checker's cached matrices do
		// not pile up (100k instances × N² floats).
		inst := insts[i].Clone()
		if err := t.AddInstance(int64(i), inst); err != nil {
			return Metrics{}, err
		}
		var feasible [][]int
		for _, r := range rows {
			if sols[r].Dropped != nil {
				if _, err := t.AddDropped(int64(i), inst, sols[r].Tour, sols[r].Dropped); err != nil {
					return Metrics{}, &RowError{File: "solutions", Row: int64(r), Field: "dropped", Err: err}
				}
				continue
			}
			add := t.AddRow
			if IsLateSource(sols[r].Source) {
				add = func(i int64, in *lazymask.Instance, tour []int) (lazymask.Result, error) {
					return t.AddLate(i, in, tour, true)
				}
			}
			res, err := add(int64(i), inst, sols[r].Tour)
			if err != nil {
				return Metrics{}, &RowError{File: "solutions", Row: int64(r), Field: "tour", Err: err}
			}
			if div != nil && res.Feasible {
				feasible = append(feasible, sols[r].Tour)
			}
		}
		div.add(feasible)
	}
	m := t.Metrics()
	m.Best = t.best
	div.finish()
	return m, nil
}

// LateSuffix ends the source of a row that serves every stop of an
// instance without a feasible tour with the least lateness found
// (lmask-infer --infeasible late writes "lmask+late").
const LateSuffix = "+late"

// IsLateSource reports whether a row's source marks such a tour.
func IsLateSource(source string) bool { return strings.HasSuffix(source, LateSuffix) }

// rowsByInstance lists, for each of n instances, the rows of sols that name
// it, in file order; a row naming an instance out of range is a *RowError
// of file "solutions".
func rowsByInstance(n int, sols []Solution) ([][]int, error) {
	order := make([][]int, n)
	for r := range sols {
		s := &sols[r]
		if s.Instance < 0 || s.Instance >= int64(n) {
			return nil, &RowError{File: "solutions", Row: int64(r), Field: "instance",
				Err: fmt.Errorf("instance %d out of range [0,%d) (size mismatch with the instances)", s.Instance, n)}
		}
		order[s.Instance] = append(order[s.Instance], r)
	}
	return order, nil
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
// sol_infeasible, inst_infeasible, obj, obj_orig, gap, gap_feasible_ref,
// mean_length, feasible_tours, violating_tours, missing_tours,
// unsolved_instances, max_violation, obj_count, gap_count,
// gap_feasible_ref_count, references, ref_infeasible, ref_without_tour,
// gap_p95, gap_p99, gap_max, gap_percentiles (the rule: "nearest-rank"),
// worst_instances (a list of {instance, name, gap}, largest gap first),
// dropped_instances, dropped_stops, late_instances and lateness. Undefined values (NaN) are written as null.
func (m Metrics) MarshalJSON() ([]byte, error) {
	return json.Marshal(m.jsonFields())
}

// JSONFields returns the keys and values MarshalJSON writes, for documents
// that add keys of their own (lmask-infer --metrics-json).
func (m Metrics) JSONFields() map[string]any {
	return m.jsonFields()
}

func (m Metrics) jsonFields() map[string]any {
	worst := m.Worst
	if worst == nil {
		worst = []WorstGap{}
	}
	return map[string]any{
		"instances": m.Instances, "tours": m.Tours, "rows": m.Rows,
		"sol_infeasible": jsonNum(m.SolInfeasible), "inst_infeasible": jsonNum(m.InstInfeasible),
		"obj": jsonNum(m.Obj), "obj_orig": jsonNum(m.ObjOrig), "gap": jsonNum(m.Gap),
		"gap_feasible_ref": jsonNum(m.GapFeasibleRef), "mean_length": jsonNum(m.MeanLength),
		"feasible_tours": m.FeasibleTours, "violating_tours": m.ViolatingTours, "missing_tours": m.MissingTours,
		"unsolved_instances": m.Unsolved, "max_violation": jsonNum(m.MaxViolation),
		"obj_count": m.ObjCount, "gap_count": m.GapCount, "gap_feasible_ref_count": m.GapFeasibleRefCount,
		"references": m.References, "ref_infeasible": m.RefInfeasible, "ref_without_tour": m.RefWithoutTour,
		"gap_p95": jsonNum(m.GapP95), "gap_p99": jsonNum(m.GapP99), "gap_max": jsonNum(m.GapMax),
		"gap_percentiles": "nearest-rank", "worst_instances": worst,
		"dropped_instances": m.DropInstances, "dropped_stops": m.DroppedStops,
		"late_instances": m.LateInstances, "lateness": jsonNum(m.Lateness),
	}
}

// WithPath puts path in place of the role ("solutions", "reference") that
// a *RowError in err's chain names as its file, and returns err.
func WithPath(err error, role, path string) error {
	var re *RowError
	if path != "" && errors.As(err, &re) && re.File == role {
		re.File = path
	}
	return err
}
