package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/solve"
)

// Metrics is what --metrics-json holds: the keys of datasets.Metrics (the
// paper's metrics over the decoded tours, with the local search's tours
// competing for each instance's best; rates and gaps are fractions) and
// the run's own: seconds, budget, improved, local_search_stats, timing.
type Metrics struct {
	datasets.Metrics
	Seconds float64
	Budget  int // the backtrack budget R used
	// Search sums what the local search did (--improve only).
	Search *solve.Stats
	Timing Timing
	// FoundBy counts the instances by the step that found their feasible
	// tour (rescue.go).
	FoundBy FoundBy
}

// MarshalJSON writes one object with the keys of both parts.
func (m Metrics) MarshalJSON() ([]byte, error) {
	f := m.Metrics.JSONFields()
	f["seconds"], f["budget"], f["timing"], f["found_by"] = m.Seconds, m.Budget, m.Timing, m.FoundBy
	if m.Search != nil {
		f["local_search_stats"], f["improved"] = m.Search, m.Search.Improved
	}
	return json.Marshal(f)
}

// Timing splits Seconds. Encoder, Decoder and GoSide are summed over the
// decode workers (so they can exceed the wall time on several cores).
type Timing struct {
	Encoder     float64 `json:"encoder"`
	Decoder     float64 `json:"decoder"`
	GoSide      float64 `json:"go_side"`
	IO          float64 `json:"io"`
	LocalSearch float64 `json:"local_search,omitempty"`
	Rescue      float64 `json:"rescue,omitempty"` // escalation of instances left without a feasible tour
	Solve       float64 `json:"solve_wall"`
	Workers     int     `json:"workers"`
}

func newTiming(st engine.Stats, io, ls float64) Timing {
	return Timing{Encoder: st.Encoder.Seconds(), Decoder: st.Decoder.Seconds(), GoSide: st.GoSide().Seconds(),
		IO: io, LocalSearch: ls, Solve: st.Wall.Seconds(), Workers: st.Workers}
}

// printTable writes the metrics table, then the run's own lines.
func printTable(w io.Writer, m Metrics, hasRef bool) {
	m.WriteTable(w, hasRef)
	budget := fmt.Sprint(m.Budget)
	if m.Budget == lazymask.Unlimited {
		budget = "unlimited"
	}
	fmt.Fprintf(w, "%-17s %s\n", "budget R", budget)
	if s := m.Search; s != nil && s.Searched > 0 {
		per := func(v int) float64 { return float64(v) / float64(s.Searched) }
		fmt.Fprintf(w, "%-17s %d of %d instances improved; per instance %.1f starts, %.1f kicks (%.2f improving), %.2f improving merges\n",
			"local search", s.Improved, s.Searched, per(s.Starts), per(s.Kicks), per(s.KicksAccepted), per(s.Merged))
	}
	fmt.Fprintf(w, "%-17s %s\n", "feasible tour by", m.FoundBy)
	fmt.Fprintf(w, "%-17s %.2f s\n", "wall time", m.Seconds)
	t := m.Timing
	over := fmt.Sprintf("summed over %d workers", t.Workers)
	if t.Workers == 1 {
		over = "one worker"
	}
	fmt.Fprintf(w, "%-17s encoder %.2f s, decoder %.2f s, go-side lazymask %.2f s (%s); io %.2f s",
		"time split", t.Encoder, t.Decoder, t.GoSide, over, t.IO)
	if t.LocalSearch > 0 {
		fmt.Fprintf(w, ", local search %.2f s", t.LocalSearch)
	}
	if f := m.FoundBy; f.Retry+f.Search+f.None > 0 && t.Rescue > 0 {
		fmt.Fprintf(w, ", rescue %.2f s", t.Rescue)
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
