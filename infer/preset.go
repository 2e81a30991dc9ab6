package infer

import (
	"fmt"
	"strings"
)

// The names of the presets (lmask-infer --preset).
const (
	PresetPaper = "paper"
	PresetBest  = "best"
	PresetFast  = "fast"
)

// AutoBudgetPerNode is the best and fast presets' Options.BudgetPerNode:
// where the paper fixes no R for the data, an N-node instance gets
// max(DefaultBudget, 16·N), 3,200 at N = 200.
const AutoBudgetPerNode = 16

// SetupShare is the best preset's Options.SetupShare. Why 0.75: a file
// whose wall time is mostly setup (a few small instances) then takes at
// most about 1.75 times greedy ×8's, and the search time its decode alone
// buys there is a few milliseconds, too little for instances whose last
// gain needs a hundred kicks (docs/experiments.md, "Search time from the
// setup").
const SetupShare = 0.75

// MinKicks is the best preset's localsearch.Options.MinKicks: every
// instance gets at least this many kicks whatever its time share. Why 20:
// under the share a 21-node Gendreau instance got 17–45 kicks in one run
// and none or a few in another, and its last gain needs up to 4; on the
// paper's n = 50 sets the share gives about 50, so the floor seldom binds
// (docs/experiments.md, "A floor of kicks").
const MinKicks = 20

// FastKicks is the fast preset's kick count per instance.
const FastKicks = 10

// FastBatch is the fast preset's decode batch (SolveOptions.Batch). Why 32
// and not engine.DefaultBatch: with one transform, 4 instances make calls
// of 4 rows, and 32 instances decode the same tours at 0.80–0.85 times the
// run's CPU time (600 instances of TSPTW-50 medium, 4 alternated pairs).
// best keeps DefaultBatch: its search time is a multiple of the decode's,
// and a cheaper decode there buys less search (docs/experiments.md, "The
// network's start-up beside the data, and fast's decode batch").
const FastBatch = 32

// Presets lists the preset names, the default first.
var Presets = []string{PresetPaper, PresetBest, PresetFast}

// Preset returns DefaultOptions with the named preset's settings:
//   - paper: the paper's protocol, greedy on the 8 transforms with the
//     paper's budget for the data (DataBudget), no search (DefaultOptions
//     as they are).
//   - best: the recommended pipeline. Greedy on 2 transforms, then the
//     local search for 3.5 times the decode's time without its
//     backtracking (forwardTime) plus SetupShare of the time the run took
//     to open its model and data; every instance gets at least MinKicks
//     kicks. An instance whose decode gives no feasible tour is repaired
//     by the search (from the urgency order and insertion tours); only
//     one the search leaves infeasible is decoded again with larger
//     budgets (the escalation of RescueTime). Why not decode again first:
//     the search's repairs end as well as the retries' tours did, on every
//     benchmark and stress class, and the retries took most of the time
//     of the files where decodes fail (docs/experiments.md, "Search time by
//     N^1.5, and no retries before the search").
//   - fast: greedy on the identity transform alone in batches of
//     FastBatch, the same budgets and escalation, and a short search of
//     FastKicks kicks (no time share: a share of one transform's decode
//     time cuts descents short, and a kick count is reproducible).
//
// Time: the decode grows about as n² per instance (n steps, each scoring n
// nodes), and best's search is a multiple of it, so both grow alike with
// n; fast's search is a fixed number of descents, each a few scans of
// O(n²) moves; the escalation adds at most RescueTime for an instance that
// the search leaves without a feasible tour.
func Preset(name string) (Options, error) {
	o := DefaultOptions()
	switch name {
	case PresetPaper:
	case PresetBest:
		o.Decode.Aug, o.Improve, o.ImproveShare, o.BudgetPerNode = 2, true, 3.5, AutoBudgetPerNode
		o.SetupShare, o.Search.MinKicks = SetupShare, MinKicks
	case PresetFast:
		o.Decode.Aug, o.Decode.Batch, o.Improve, o.Search.Kicks, o.BudgetPerNode = 1, FastBatch, true, FastKicks, AutoBudgetPerNode
	default:
		return o, fmt.Errorf("unknown preset %q (want %s)", name, strings.Join(Presets, ", "))
	}
	return o, nil
}
