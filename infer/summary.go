package infer

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

// Summary is what a run reports (lmask-infer --metrics-json): the keys of
// datasets.Metrics (the paper's metrics over the decoded tours, with the
// local search's and the escalation's tours competing for each instance's
// best; rates and gaps are fractions; over the shard's rows only) and the
// run's own: seconds, budget (budget_per_node where set), local_search_stats, improved, timing,
// found_by, and with a shard, shard and shard_rows.
type Summary struct {
	datasets.Metrics
	Seconds float64
	Budget  int // the backtrack budget R used
	// BudgetPerNode > 0 raised an N-node instance's R to BudgetPerNode·N
	// where that is more.
	BudgetPerNode int
	// Search sums what the local search did (Options.Improve only).
	Search *solve.Stats
	Timing Timing
	// FoundBy counts the instances by the step that found their feasible
	// tour.
	FoundBy FoundBy
	// NeuralKicks sums what the neural kicks did (Options.NeuralKicks).
	NeuralKicks solve.KickStats
	// NeuralSearch sums what the re-decodes of the neural kicks inside the
	// searches did (Options.NeuralEvery); their counts in the searches are
	// Search's.
	NeuralSearch solve.KickStats
	// HasReference says whether the gap was computed.
	HasReference bool
	// Shard is the run's shard and Rows its instance rows [lo,hi).
	Shard Shard
	Rows  [2]int64
	// Starts is the source of the search's starts (Options.Starts).
	Starts string
	// CPUSeconds is the CPU time (user + sys) of the run, all threads;
	// CPUBudget the budget it was given (Options.CPUBudget), 0 if none.
	CPUSeconds, CPUBudget float64
}

// CPUShare is the run's CPU time over its wall time in percent: 100 is
// one core busy through the run, 200 two.
func (s Summary) CPUShare() float64 {
	if s.Seconds <= 0 {
		return 0
	}
	return 100 * s.CPUSeconds / s.Seconds
}

// MarshalJSON writes one object with the keys of both parts.
func (s Summary) MarshalJSON() ([]byte, error) {
	f := s.Metrics.JSONFields()
	f["seconds"], f["budget"], f["timing"], f["found_by"] = s.Seconds, s.Budget, s.Timing, s.FoundBy
	if s.BudgetPerNode > 0 {
		f["budget_per_node"] = s.BudgetPerNode
	}
	f["starts"], f["cpu_seconds"], f["cpu_share"] = s.startsName(), s.CPUSeconds, s.CPUShare()
	if s.CPUBudget > 0 {
		f["cpu_budget"] = s.CPUBudget
	}
	if s.Search != nil {
		f["local_search_stats"], f["improved"] = s.Search, s.Search.Improved
	}
	if k := s.NeuralKicks; k.Rounds > 0 {
		f["neural_kicks"] = map[string]any{"kicks": k.Kicks, "accepted": k.Accepted, "failed": k.Failed,
			"policy_calls": k.PolicyCalls, "decode_s": k.Decode.Seconds(), "doubt_s": k.Doubt.Seconds(), "search_s": k.Search.Seconds()}
	}
	if k := s.NeuralSearch; k.Kicks > 0 {
		f["neural_search"] = map[string]any{"redecodes": k.Kicks, "failed": k.Failed, "policy_calls": k.PolicyCalls, "decode_s": k.Decode.Seconds()}
	}
	if !s.Shard.Whole() {
		f["shard"], f["shard_rows"] = s.Shard.String(), s.Rows
	}
	return json.Marshal(f)
}

// WriteJSON writes s to path atomically.
func (s Summary) WriteJSON(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode metrics: %w", err)
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}

// Timing splits Seconds. Encoder, Decoder and GoSide are summed over the
// decode workers (so they can exceed the wall time on several cores).
type Timing struct {
	// Starts is the wall time of building the starts without a network.
	Starts      float64 `json:"starts,omitempty"`
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

// WriteTable writes the metrics table, then the run's own lines.
func (s Summary) WriteTable(w io.Writer) {
	if !s.Shard.Whole() {
		fmt.Fprintf(w, "%-17s %s: rows %d to %d\n", "shard", s.Shard, s.Rows[0], s.Rows[1]-1)
	}
	s.Metrics.WriteTable(w, s.HasReference)
	budget := fmt.Sprint(s.Budget)
	if s.Budget == lazymask.Unlimited {
		budget = "unlimited"
	}
	if s.BudgetPerNode > 0 && s.Budget != lazymask.Unlimited {
		budget += fmt.Sprintf(", raised to %d·N for N > %d nodes", s.BudgetPerNode, s.Budget/s.BudgetPerNode)
	}
	fmt.Fprintf(w, "%-17s %s\n", "budget R", budget)
	if st := s.Search; st != nil && st.Searched > 0 {
		per := func(v int) float64 { return float64(v) / float64(st.Searched) }
		fmt.Fprintf(w, "%-17s %d of %d instances improved, %d proved optimal; per instance %.1f starts, %.1f kicks (%.2f improving), %.2f improving merges\n",
			"local search", st.Improved, st.Searched, st.Proven, per(st.Starts), per(st.Kicks), per(st.KicksAccepted), per(st.Merged))
	}
	fmt.Fprintf(w, "%-17s %s\n", "feasible tour by", s.FoundBy)
	fmt.Fprintf(w, "%-17s %.2f s\n", "wall time", s.Seconds)
	fmt.Fprintf(w, "%-17s %.2f s, %.0f%% of the wall time (200%%: two cores busy throughout)", "CPU time", s.CPUSeconds, s.CPUShare())
	if s.CPUBudget > 0 {
		fmt.Fprintf(w, "; budget %.2f s", s.CPUBudget)
	}
	fmt.Fprintln(w)
	if s.startsName() != StartsNetwork {
		fmt.Fprintf(w, "%-17s %s, no network\n", "starts", s.Starts)
	}
	t := s.Timing
	over := fmt.Sprintf("summed over %d workers", t.Workers)
	if t.Workers == 1 {
		over = "one worker"
	}
	if s.startsName() == StartsNetwork {
		fmt.Fprintf(w, "%-17s encoder %.2f s, decoder %.2f s, go-side lazymask %.2f s (%s); io %.2f s",
			"time split", t.Encoder, t.Decoder, t.GoSide, over, t.IO)
	} else {
		fmt.Fprintf(w, "%-17s starts %.2f s (%d workers); io %.2f s", "time split", t.Starts, t.Workers, t.IO)
	}
	if t.LocalSearch > 0 {
		fmt.Fprintf(w, ", local search %.2f s", t.LocalSearch)
	}
	if f := s.FoundBy; f.Retry+f.Search+f.None > 0 && t.Rescue > 0 {
		fmt.Fprintf(w, ", rescue %.2f s", t.Rescue)
	}
	fmt.Fprintln(w)
}

// startsName is Starts, StartsNetwork where empty.
func (s Summary) startsName() string {
	if s.Starts == "" {
		return StartsNetwork
	}
	return s.Starts
}
