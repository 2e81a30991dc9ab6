package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/lazymask"
)

// Metrics are the paper's evaluation numbers. Rates and the gap are
// fractions (0.01 = 1%), as in `lmask-data check --json`; the printed table
// shows them in percent. Obj is the mean best feasible cost in normalised units (the
// units the models see and the paper reports) over instances that have a
// feasible tour, ObjOrig the same in the instances' original units; Gap is the mean over
// instances of (cost − ref)/ref where both are finite. Obj and Gap are
// null in JSON when no instance qualifies.
type Metrics struct {
	SolInfeasible  float64  `json:"sol_infeasible"`
	InstInfeasible float64  `json:"inst_infeasible"`
	Obj            *float64 `json:"obj"`
	Gap            *float64 `json:"gap"`
	Seconds        float64  `json:"seconds"`
	ObjOrig        *float64 `json:"obj_orig"`

	Instances      int `json:"instances"`
	Budget         int `json:"budget"` // the backtrack budget R used
	Tours          int `json:"tours"`
	InfeasibleSols int `json:"infeasible_tours"`
	NoFeasible     int `json:"infeasible_instances"`
	GapInstances   int `json:"gap_instances"`
	Improved       int `json:"improved,omitempty"`

	// Search sums what the local search did (--improve only).
	Search *SearchStats `json:"local_search_stats,omitempty"`

	Timing Timing `json:"timing"`
}

// SearchStats sums the local searches of a run: instances searched,
// starting tours descended from, kicks tried, kicks and merges of local
// optima that improved the best tour, and moves applied.
type SearchStats struct {
	Searched      int `json:"searched"`
	Starts        int `json:"starts"`
	Kicks         int `json:"kicks"`
	KicksAccepted int `json:"kicks_accepted"`
	Merged        int `json:"merged"`
	Moves         int `json:"moves"`
}

func (s *SearchStats) add(o SearchStats) {
	s.Searched += o.Searched
	s.Starts += o.Starts
	s.Kicks += o.Kicks
	s.KicksAccepted += o.KicksAccepted
	s.Merged += o.Merged
	s.Moves += o.Moves
}

// Timing splits Seconds. Encoder, Decoder and GoSide are summed over the
// decode workers (so they can exceed the wall time on several cores).
type Timing struct {
	Encoder     float64 `json:"encoder"`
	Decoder     float64 `json:"decoder"`
	GoSide      float64 `json:"go_side"`
	IO          float64 `json:"io"`
	LocalSearch float64 `json:"local_search,omitempty"`
	Solve       float64 `json:"solve_wall"`
	Workers     int     `json:"workers"`
}

// tally accumulates metrics over streamed batches.
type tally struct {
	tours, infeasibleTours int
	instances, noFeasible  int
	objSum, objOrigSum     float64
	objCount               int
	gapSum                 float64
	gapCount               int
	improved               int
	search                 SearchStats
	io, ls                 time.Duration
}

// add records one instance: its decoded tour counts, the final best cost
// (normalised and original units; +Inf when none is feasible) and the
// reference cost (+Inf or NaN when unknown).
func (t *tally) add(decoded, feasible int, cost, costOrig, ref float64) {
	t.instances++
	t.tours += decoded
	t.infeasibleTours += decoded - feasible
	if math.IsInf(cost, 1) || math.IsNaN(cost) {
		t.noFeasible++
		return
	}
	t.objSum += cost
	t.objOrigSum += costOrig
	t.objCount++
	if ref > 0 && !math.IsInf(ref, 0) && !math.IsNaN(ref) {
		t.gapSum += (cost - ref) / ref
		t.gapCount++
	}
}

func (t *tally) metrics(wall time.Duration, st engine.Stats) Metrics {
	m := Metrics{
		Seconds: wall.Seconds(), Instances: t.instances, Tours: t.tours,
		InfeasibleSols: t.infeasibleTours, NoFeasible: t.noFeasible, GapInstances: t.gapCount, Improved: t.improved,
		Timing: Timing{
			Encoder: st.Encoder.Seconds(), Decoder: st.Decoder.Seconds(), GoSide: st.GoSide().Seconds(),
			IO: t.io.Seconds(), LocalSearch: t.ls.Seconds(), Solve: st.Wall.Seconds(), Workers: st.Workers,
		},
	}
	if t.search.Searched > 0 {
		st := t.search
		m.Search = &st
	}
	if t.tours > 0 {
		m.SolInfeasible = float64(t.infeasibleTours) / float64(t.tours)
	}
	if t.instances > 0 {
		m.InstInfeasible = float64(t.noFeasible) / float64(t.instances)
	}
	if t.objCount > 0 {
		v, o := t.objSum/float64(t.objCount), t.objOrigSum/float64(t.objCount)
		m.Obj, m.ObjOrig = &v, &o
	}
	if t.gapCount > 0 {
		v := t.gapSum / float64(t.gapCount)
		m.Gap = &v
	}
	return m
}

// printTable writes the paper-style metrics table.
func printTable(w io.Writer, m Metrics, hasRef bool) {
	num := func(p *float64, unit string) string {
		if p == nil {
			return "n/a"
		}
		return fmt.Sprintf("%.4f%s", *p, unit)
	}
	gap := "n/a (no --reference)"
	if hasRef {
		gap = "n/a (no instance has both a feasible tour and a reference cost)"
		if m.Gap != nil {
			gap = fmt.Sprintf("%.4f%%", 100**m.Gap)
			if feasible := m.Instances - m.NoFeasible; m.GapInstances < feasible {
				gap += fmt.Sprintf(" (over the %d of %d solved instances that have a reference cost)", m.GapInstances, feasible)
			}
		}
	}
	fmt.Fprintf(w, "%-24s %s\n", "instances", fmt.Sprint(m.Instances))
	budget := fmt.Sprint(m.Budget)
	if m.Budget == lazymask.Unlimited {
		budget = "unlimited"
	}
	fmt.Fprintf(w, "%-24s %s\n", "backtrack budget R", budget)
	fmt.Fprintf(w, "%-24s %.2f%% (%d of %d tours)\n", "solution infeasibility", 100*m.SolInfeasible, m.InfeasibleSols, m.Tours)
	fmt.Fprintf(w, "%-24s %.2f%% (%d instances)\n", "instance infeasibility", 100*m.InstInfeasible, m.NoFeasible)
	fmt.Fprintf(w, "%-24s %s (original units: %s)\n", "objective", num(m.Obj, ""), num(m.ObjOrig, ""))
	fmt.Fprintf(w, "%-24s %s\n", "gap", gap)
	if s := m.Search; s != nil {
		per := func(v int) float64 { return float64(v) / float64(s.Searched) }
		fmt.Fprintf(w, "%-24s %d of %d instances improved; per instance %.1f starts, %.1f kicks (%.2f improving), %.2f improving merges\n",
			"local search", m.Improved, s.Searched, per(s.Starts), per(s.Kicks), per(s.KicksAccepted), per(s.Merged))
	}
	fmt.Fprintf(w, "%-24s %.2f s\n", "wall time", m.Seconds)
	t := m.Timing
	over := fmt.Sprintf("summed over %d workers", t.Workers)
	if t.Workers == 1 {
		over = "one worker"
	}
	fmt.Fprintf(w, "%-24s encoder %.2f s, decoder %.2f s, go-side lazymask %.2f s (%s); io %.2f s",
		"time split", t.Encoder, t.Decoder, t.GoSide, over, t.IO)
	if t.LocalSearch > 0 {
		fmt.Fprintf(w, ", local search %.2f s", t.LocalSearch)
	}
	fmt.Fprintln(w)
}

// writeJSON writes m to path atomically.
func writeJSON(path string, m Metrics) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode metrics: %w", err)
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}

// readReference returns the best finite reference cost (normalised units)
// per instance index from a solutions file; rows with an infeasible tour
// are ignored.
func readReference(path string) (map[int64]float64, datasets.Metadata, error) {
	sols, meta, err := datasets.ReadSolutions(path)
	if err != nil {
		return nil, meta, fmt.Errorf("read reference: %w", err)
	}
	ref := make(map[int64]float64, len(sols))
	for _, s := range sols {
		if s.Tour != nil && !s.Feasible {
			continue
		}
		if math.IsInf(s.Cost, 0) || math.IsNaN(s.Cost) {
			continue
		}
		if old, ok := ref[s.Instance]; !ok || s.Cost < old {
			ref[s.Instance] = s.Cost
		}
	}
	return ref, meta, nil
}
