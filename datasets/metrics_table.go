package datasets

import (
	"fmt"
	"io"
	"strings"

	"github.com/lmask/lmask/lazymask"
)

// WriteTable writes m as the "label  value" lines every command prints,
// labelled as the JSON keys are; rates and gaps in percent. gap says
// whether references were given (otherwise the gap lines are left out).
func (m Metrics) WriteTable(w io.Writer, gap bool) {
	line := func(label, format string, a ...any) { tableLine(w, label, format, a...) }
	line("instances", "%d", m.Instances)
	if m.Unsolved > 0 {
		line("unsolved", "%d instances have no solution row (counted as infeasible)", m.Unsolved)
	}
	line("solution rows", "%d (%d complete tours, %d without a tour; %d violate a constraint by more than %g, max total violation %.6g)",
		m.Rows, m.Tours, m.MissingTours, m.ViolatingTours, lazymask.Tol, m.MaxViolation)
	line("sol_infeasible", "%.4f%% (%d of %d rows are not feasible tours)", 100*m.SolInfeasible, m.Rows-m.FeasibleTours, m.Rows)
	line("inst_infeasible", "%.4f%% (%d instances without a feasible tour)", 100*m.InstInfeasible, m.Instances-m.ObjCount)
	if m.ObjCount > 0 {
		line("obj", "%.6g (original units %.6g; over %d instances)", m.Obj, m.ObjOrig, m.ObjCount)
	} else {
		line("obj", "n/a (no feasible tour)")
	}
	if gap {
		if m.GapCount == 0 {
			line("gap", "n/a (no instance has both a feasible tour and a reference cost)")
		} else {
			line("gap", "%.4f%% (over the %d of %d instances with a feasible tour that have a reference cost)", 100*m.Gap, m.GapCount, m.ObjCount)
			line("gap_p95, p99", "%.4f%%, %.4f%% (nearest rank: the ⌈p·k⌉-th smallest of the k gaps)", 100*m.GapP95, 100*m.GapP99)
			line("gap_max", "%.4f%%", 100*m.GapMax)
			worst := make([]string, len(m.Worst))
			for i, g := range m.Worst {
				worst[i] = fmt.Sprintf("%s %.4f%%", g.Label(), 100*g.Gap)
			}
			line("worst_instances", "%s", strings.Join(worst, ", "))
		}
		if m.RefInfeasible > 0 && m.GapFeasibleRefCount > 0 {
			line("gap_feasible_ref", "%.4f%% (over the %d of them whose reference tour passes the checker; %d reference tours break a constraint)",
				100*m.GapFeasibleRef, m.GapFeasibleRefCount, m.RefInfeasible)
		}
	}
	if m.Tours > 0 {
		line("mean_length", "%.6g", m.MeanLength)
	}
	if m.DropInstances > 0 {
		line("dropped", "%d stops left out of the served tours of %d instances without a feasible tour of every stop (not in the metrics above)", m.DroppedStops, m.DropInstances)
	}
	if m.LateInstances > 0 {
		line("lateness", "%.6g in all, over %d instances without a feasible tour served late (not in the metrics above)", m.Lateness, m.LateInstances)
	}
}

// WriteTable writes d's lines in the layout of Metrics.WriteTable (nothing
// when no instance has two feasible tours).
func (d Diversity) WriteTable(w io.Writer) {
	if d.Instances == 0 {
		return
	}
	tableLine(w, "distinct_tours", "%.3f (mean different feasible tours per instance, over the %d instances with two or more)", d.DistinctTours, d.Instances)
	tableLine(w, "edge_diversity", "%.4f (mean share of a feasible tour's edges another of the same instance lacks)", d.EdgeShare)
}

// tableLine writes one "label  value" line of the metrics tables.
func tableLine(w io.Writer, label, format string, a ...any) {
	fmt.Fprintf(w, "%-17s "+format+"\n", append([]any{label}, a...)...)
}
