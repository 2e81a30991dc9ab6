package datasets

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/lazymask"
)

// Export formats of ExportSchedules.
const (
	ExportCSV  = "csv"
	ExportJSON = "json"
)

// ExportOptions tunes ExportSchedules.
type ExportOptions struct {
	// Format is ExportCSV or ExportJSON.
	Format string
	// All writes every solution row (flagged best or not) instead of each
	// instance's best.
	All bool
}

// ExportSummary counts what ExportSchedules wrote. Feasible, Infeasible and
// NoTour count the instances by their best row's verdict.
type ExportSummary struct {
	Instances, Tours, Stops      int
	Feasible, Infeasible, NoTour int
	// Cost is the sum over the instances' best tours of the cost in
	// original units (the checker's length × Scale).
	Cost float64
}

// TourSchedule is one tour of one instance replayed by the checker, in
// original units: times and lengths × Instance.Scale; TSPDL loads as
// stored.
type TourSchedule struct {
	Instance *lazymask.Instance
	Index    int64 // the instance's row in its file
	Row      int64 // the solution's row, -1 when the instance has none
	Source   string
	Best     bool
	Tour     []int // nil when the row has no tour
	Stops    []lazymask.Stop
	Result   lazymask.Result
	// First is the checker's first violation (nil when feasible or no tour).
	First *lazymask.InfeasibleError
}

// Name is the instance's name, or its index when it has none.
func (s *TourSchedule) Name() string {
	if s.Instance.Name != "" {
		return s.Instance.Name
	}
	return strconv.FormatInt(s.Index, 10)
}

// Cost is the checker's length in original units.
func (s *TourSchedule) Cost() float64 { return s.Result.Cost * s.Instance.Scale }

// Verdict is "feasible", "no tour", or "infeasible: " and the first
// violation in original units.
func (s *TourSchedule) Verdict() string {
	switch {
	case s.Tour == nil:
		return "no tour"
	case s.First == nil:
		return "feasible"
	}
	f := s.First
	if f.Rule == lazymask.RuleDraftLimit {
		return fmt.Sprintf("infeasible: step %d, node %d: load %s above its draft limit %s", f.Step, f.Node, num(f.Value), num(f.Limit))
	}
	sc := s.Instance.Scale
	return fmt.Sprintf("infeasible: step %d, node %d: arrival %s after its due time %s", f.Step, f.Node, num(f.Value*sc), num(f.Limit*sc))
}

// Schedules replays every solution row of each instance (or, without all,
// only its best row by lazymask.Compare, ties to the earlier row, as the
// metrics choose) and calls emit in instance order. An instance without any
// row gets one schedule without a tour. A row naming an unknown instance
// or carrying a malformed tour is a *RowError of file "solutions".
func Schedules(insts []*lazymask.Instance, sols []Solution, all bool, emit func(*TourSchedule) error) error {
	order, err := rowsByInstance(len(insts), sols)
	if err != nil {
		return err
	}
	for i, rows := range order {
		inst := insts[i].Clone() // the replay caches a matrix: one per instance at a time
		var out []*TourSchedule
		best := -1
		var bestV lazymask.Verdict
		for _, r := range rows {
			ts := &TourSchedule{Instance: inst, Index: int64(i), Row: int64(r), Source: sols[r].Source, Tour: sols[r].Tour}
			var v lazymask.Verdict
			if ts.Tour != nil {
				stops, res, err := lazymask.Schedule(inst, ts.Tour)
				var te *lazymask.TourError
				if errors.As(err, &te) {
					return &RowError{File: "solutions", Row: int64(r), Field: "tour", Err: err}
				}
				errors.As(err, &ts.First)
				ts.Stops, ts.Result, v = stops, res, res.Verdict()
			}
			if best < 0 || lazymask.Compare(v, bestV) < 0 {
				best, bestV = len(out), v
			}
			out = append(out, ts)
		}
		if len(out) == 0 {
			out, best = []*TourSchedule{{Instance: inst, Index: int64(i), Row: -1}}, 0
		}
		out[best].Best = true
		if !all {
			out = out[best : best+1]
		}
		for _, ts := range out {
			if err := emit(ts); err != nil {
				return err
			}
		}
	}
	return nil
}

// ExportSchedules writes the schedules of the solutions file solPath on the
// instances file instPath to out (atomically; out must not be an input).
func ExportSchedules(instPath, solPath, out string, opt ExportOptions) (ExportSummary, string, error) {
	var sum ExportSummary
	if opt.Format != ExportCSV && opt.Format != ExportJSON {
		return sum, "", fmt.Errorf("unknown export format %q (want csv or json)", opt.Format)
	}
	if err := distinctOut("Out", out, "Instances", instPath, "Solutions", solPath); err != nil {
		return sum, "", err
	}
	d, err := ReadInstances(instPath)
	if err != nil {
		return sum, "", err
	}
	sols, smeta, err := ReadSolutions(solPath)
	if err != nil {
		return sum, "", err
	}
	note, err := MatchSolutions(instPath, d.Meta, solPath, smeta)
	if err != nil {
		return sum, note, err
	}
	f, err := atomicfile.Create(out)
	if err != nil {
		return sum, note, err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = WriteSchedules(bw, d.Instances, sols, opt, &sum)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		f.Abort()
		return sum, note, WithPath(err, "solutions", solPath)
	}
	return sum, note, f.Commit()
}

// WriteSchedules writes Schedules as CSV (one row per stop, the return to
// the depot included) or JSON (an array of one object per schedule, one a
// line) and counts them into sum.
func WriteSchedules(w io.Writer, insts []*lazymask.Instance, sols []Solution, opt ExportOptions, sum *ExportSummary) error {
	if len(insts) == 0 {
		return fmt.Errorf("no instances to export")
	}
	tw := insts[0].Problem == lazymask.TSPTW
	count := func(ts *TourSchedule) {
		sum.Stops += len(ts.Stops)
		if ts.Tour != nil {
			sum.Tours++
		}
		if !ts.Best {
			return
		}
		sum.Instances++
		switch {
		case ts.Tour == nil:
			sum.NoTour++
		case ts.Result.Feasible:
			sum.Feasible++
		default:
			sum.Infeasible++
		}
		if ts.Tour != nil {
			sum.Cost += ts.Cost()
		}
	}
	if opt.Format == ExportJSON {
		if _, err := io.WriteString(w, "[\n"); err != nil {
			return err
		}
		sep := ""
		err := Schedules(insts, sols, opt.All, func(ts *TourSchedule) error {
			if _, err := io.WriteString(w, sep); err != nil {
				return err
			}
			sep = ",\n"
			count(ts)
			b, err := json.Marshal(jsonSchedule(ts))
			if err != nil {
				return err
			}
			_, err = w.Write(b)
			return err
		})
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, "\n]\n")
		return err
	}
	cw := csv.NewWriter(w)
	head := []string{"instance", "node", "index", "row", "source", "best", "stop", "travel"}
	if tw {
		head = append(head, "arrival", "waiting", "start", "departure", "late")
	} else {
		head = append(head, "load", "limit", "slack")
	}
	head = append(head, "cost", "feasible", "verdict")
	if err := cw.Write(head); err != nil {
		return err
	}
	rec := make([]string, len(head))
	err := Schedules(insts, sols, opt.All, func(ts *TourSchedule) error {
		count(ts)
		sc := ts.Instance.Scale
		rec = rec[:0]
		row := ""
		if ts.Row >= 0 {
			row = strconv.FormatInt(ts.Row, 10)
		}
		base := []string{ts.Name(), "", strconv.FormatInt(ts.Index, 10), row, ts.Source, strconv.FormatBool(ts.Best)}
		tail := []string{"", strconv.FormatBool(ts.Result.Feasible), ts.Verdict()}
		if ts.Tour != nil {
			tail[0] = num(ts.Cost())
		}
		if ts.Tour == nil {
			rec = append(append(append(rec, base...), make([]string, len(head)-len(base)-len(tail))...), tail...)
			return cw.Write(rec)
		}
		last := len(ts.Stops) - 1
		for k, st := range ts.Stops {
			rec = append(rec[:0], base...)
			rec[1] = strconv.Itoa(st.Node)
			rec = append(rec, strconv.Itoa(k), num(st.Travel*sc))
			if tw {
				if k == last {
					rec = append(rec, num(st.Arrival*sc), "", "", "", "")
				} else {
					rec = append(rec, num(st.Arrival*sc), num(st.Wait*sc), num(st.Start*sc), num(st.Departure*sc), num(st.Late*sc))
				}
			} else if k == 0 || k == last {
				rec = append(rec, num(st.Load), "", "")
			} else {
				rec = append(rec, num(st.Load), num(st.Limit), num(st.Slack))
			}
			rec = append(rec, tail...)
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// jsonStop is one stop of a JSON schedule; fields of the other problem
// are left out.
type jsonStop struct {
	Node      int      `json:"node"`
	Travel    float64  `json:"travel"`
	Arrival   *float64 `json:"arrival,omitempty"`
	Waiting   *float64 `json:"waiting,omitempty"`
	Start     *float64 `json:"start,omitempty"`
	Departure *float64 `json:"departure,omitempty"`
	Late      *float64 `json:"late,omitempty"`
	Load      *float64 `json:"load,omitempty"`
	Limit     *float64 `json:"limit,omitempty"`
	Slack     *float64 `json:"slack,omitempty"`
}

type jsonTour struct {
	Instance string     `json:"instance"`
	Index    int64      `json:"index"`
	Row      *int64     `json:"row"`
	Source   string     `json:"source"`
	Best     bool       `json:"best"`
	Tour     []int      `json:"tour"`
	Cost     *float64   `json:"cost"`
	Feasible bool       `json:"feasible"`
	Verdict  string     `json:"verdict"`
	Stops    []jsonStop `json:"stops"`
}

func jsonSchedule(ts *TourSchedule) jsonTour {
	j := jsonTour{Instance: ts.Name(), Index: ts.Index, Source: ts.Source, Best: ts.Best, Tour: ts.Tour,
		Feasible: ts.Result.Feasible, Verdict: ts.Verdict(), Stops: []jsonStop{}}
	if ts.Row >= 0 {
		j.Row = &ts.Row
	}
	if ts.Tour == nil {
		j.Tour = []int{}
		return j
	}
	c := ts.Cost()
	j.Cost = &c
	sc := ts.Instance.Scale
	p := func(v float64) *float64 { return &v }
	last := len(ts.Stops) - 1
	for k, st := range ts.Stops {
		s := jsonStop{Node: st.Node, Travel: st.Travel * sc}
		if ts.Instance.Problem == lazymask.TSPTW {
			s.Arrival = p(st.Arrival * sc)
			if k != last {
				s.Waiting, s.Start, s.Departure, s.Late = p(st.Wait*sc), p(st.Start*sc), p(st.Departure*sc), p(st.Late*sc)
			}
		} else {
			s.Load = p(st.Load)
			if k != 0 && k != last {
				s.Limit, s.Slack = p(st.Limit), p(st.Slack)
			}
		}
		j.Stops = append(j.Stops, s)
	}
	return j
}

// num writes a value as the shortest decimal that reads back the same.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
