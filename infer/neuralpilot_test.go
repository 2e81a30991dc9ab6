package infer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
)

// cpuNow is the process's CPU time so far (user + system).
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestNeuralKickPilot measures neural kicks (solve.NeuralKicks) and
// guided bridges (solve.BridgeKicks), each cut at random and by the
// network's doubt, against more kicks of the search alone at equal CPU
// time (user + sys of the process), on the paper's sets: each pair
// continues from the same `--preset best` tours, the guided arm first and
// the plain arm given its CPU time right after, three seeds. It runs only when LMASK_NEURAL_PILOT
// names the sets (e.g. "tsptw50-medium,tspdl50-hard"), with the paper's
// files imported under out/paper (scripts/eval-paper.sh does that);
// LMASK_NEURAL_PILOT_N is the instances per set (default 100),
// LMASK_NEURAL_PILOT_ROUNDS the neural kicks per instance (default 10),
// LMASK_NEURAL_PILOT_BASEKICKS the search kicks of the base (default 50);
// LMASK_NEURAL_PILOT_MINKEEP, _MAXKEEP, _TEMP, _SAMPLES and _LSKICKS set the
// kicks' KickOptions, and LMASK_NEURAL_PILOT_ARMS picks arms by name
// ("neural random,bridge doubt"; default all four).
//
//	LMASK_NEURAL_PILOT=tsptw50-medium go test -run NeuralKickPilot -v -timeout 2h ./infer
func TestNeuralKickPilot(t *testing.T) {
	sets := os.Getenv("LMASK_NEURAL_PILOT")
	if sets == "" {
		t.Skip("set LMASK_NEURAL_PILOT to the sets to measure (e.g. tsptw50-medium,tspdl50-hard)")
	}
	needRuntime(t)
	limit, rounds := envInt(t, "LMASK_NEURAL_PILOT_N", 100), envInt(t, "LMASK_NEURAL_PILOT_ROUNDS", 10)
	refOf := map[string]string{"tsptw50-easy": "pyvrp_50_easy", "tsptw50-medium": "pyvrp_50_medium", "tsptw50-hard": "pyvrp_50_hard",
		"tspdl50-medium": "lkh_50_medium", "tspdl50-hard": "lkh_50_hard"}
	for _, set := range strings.Split(sets, ",") {
		ref, ok := refOf[set]
		if !ok {
			t.Fatalf("unknown set %q", set)
		}
		pilotSet(t, set, "../out/paper/"+set+".parquet", "../out/paper/"+ref+".parquet", "../models/pretrained/"+set, limit, rounds)
	}
}

func envFloat(t *testing.T, name string) float64 {
	s := os.Getenv(name)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return v
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		t.Fatalf("%s=%q: want a count ≥ 1", name, s)
	}
	return v
}

// pilotBase is one set's first limit instances, its reference rows, the
// gap of a list of tours by the paper's protocol (datasets.Tally), and the
// tours of --preset best with a fixed kick count.
type pilotBase struct {
	meta  datasets.Metadata
	insts []*lazymask.Instance
	refs  []datasets.Solution
	base  [][]int
	gap   func(tours [][]int) float64
}

func newPilotBase(t *testing.T, set, data, refPath, model string, limit int) *pilotBase {
	for _, p := range []string{data, refPath, model} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s: %v (import the paper's sets with scripts/eval-paper.sh first)", set, err)
		}
	}
	ds, err := datasets.ReadInstances(data)
	if err != nil {
		t.Fatal(err)
	}
	insts := ds.Instances[:limit]
	refs, _, err := datasets.ReadReference(refPath, data, ds.Meta)
	if err != nil {
		t.Fatal(err)
	}
	gap := func(tours [][]int) float64 {
		tl, err := datasets.NewTallyRange(int64(len(ds.Instances)), 0, int64(limit), refs)
		if err != nil {
			t.Fatal(err)
		}
		for i, in := range insts {
			if err := tl.AddInstance(int64(i), in); err != nil {
				t.Fatal(err)
			}
			if _, err := tl.AddCandidate(int64(i), in, tours[i]); err != nil {
				t.Fatal(err)
			}
		}
		return tl.Metrics().Gap
	}

	// The start: --preset best's tours.
	o, err := Preset(PresetBest)
	if err != nil {
		t.Fatal(err)
	}
	o.Model, o.Data, o.Out, o.Limit = model, data, filepath.Join(t.TempDir(), "best.parquet"), int64(limit)
	// A fixed kick count in place of the time share: the base is then the
	// same in every run and as deep as the share makes it on an idle
	// machine (about 50 kicks per instance on these sets), where a loaded
	// machine's wall-time share cuts it short.
	o.ImproveShare, o.Search.Kicks, o.Search.MinKicks = 0, envInt(t, "LMASK_NEURAL_PILOT_BASEKICKS", 50), 0
	c0 := cpuNow()
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	bestCPU := cpuNow() - c0
	rows, _, err := datasets.ReadSolutions(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	base := make([][]int, limit)
	baseRes := bestByInstance(t, insts, rows)
	for _, r := range rows {
		if res, _ := lazymask.Check(insts[r.Instance], r.Tour); res.Feasible && res.Cost == baseRes[r.Instance].Cost {
			base[r.Instance] = r.Tour
		}
	}
	t.Logf("%s, %d instances: --preset best (%d kicks) %.3f%% in %.2f s CPU", set, limit, o.Search.Kicks, 100*gap(base), bestCPU.Seconds())
	return &pilotBase{meta: ds.Meta, insts: insts, refs: refs, base: base, gap: gap}
}

// pilotSet runs the measurement on the first limit instances of one set.
func pilotSet(t *testing.T, set, data, refPath, model string, limit, rounds int) {
	pb := newPilotBase(t, set, data, refPath, model, limit)
	insts, base, gap := pb.insts, pb.base, pb.gap
	eng, err := engine.Open(model, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	r, _ := lazymask.PaperBudget(insts[0].Problem, insts[0].N, pb.meta.Hardness)
	decodeCost(t, eng, insts, base, r)
	type cell struct{ gap, cpu []float64 }
	type kind struct {
		name   string
		cut    solve.CutRule
		bridge bool
	}
	kinds := []kind{{"neural random", solve.CutRandom, false}, {"neural doubt", solve.CutDoubt, false},
		{"bridge random", solve.CutRandom, true}, {"bridge doubt", solve.CutDoubt, true}}
	if only := os.Getenv("LMASK_NEURAL_PILOT_ARMS"); only != "" {
		kinds = slices.DeleteFunc(kinds, func(k kind) bool { return !strings.Contains(","+only+",", ","+k.name+",") })
	}
	var arms []string
	for _, k := range kinds {
		arms = append(arms, k.name, "plain vs "+k.name)
	}
	cells := map[string]*cell{}
	for _, a := range arms {
		cells[a] = &cell{}
	}
	for rep := 0; rep < 3; rep++ {
		seed := uint64(1000 + rep)
		for _, kd := range kinds {
			guided := func() {
				pol := eng.NewPolicy()
				defer pol.Close()
				opt := solve.KickOptions{Rounds: rounds, Budget: r, Cut: kd.cut, Seed: seed, Workers: 2,
					MinKeep: envFloat(t, "LMASK_NEURAL_PILOT_MINKEEP"), MaxKeep: envFloat(t, "LMASK_NEURAL_PILOT_MAXKEEP"),
					Temperature: envFloat(t, "LMASK_NEURAL_PILOT_TEMP"), Samples: envInt(t, "LMASK_NEURAL_PILOT_SAMPLES", 1), Search: localsearch.Options{Kicks: envInt(t, "LMASK_NEURAL_PILOT_LSKICKS", 0)}}
				kick := solve.NeuralKicks
				if kd.bridge {
					kick = solve.BridgeKicks
				}
				c0 := cpuNow()
				res, st, err := kick(insts, base, pol, opt)
				if err != nil {
					t.Fatal(err)
				}
				cpu := cpuNow() - c0
				tours := make([][]int, limit)
				for i := range res {
					tours[i] = res[i].Tour
				}
				c := cells[kd.name]
				c.gap, c.cpu = append(c.gap, gap(tours)), append(c.cpu, cpu.Seconds())
				t.Logf("  rep %d %s: gap %.3f%%, %.2f s CPU, %d kicks (%.0f/s CPU), %d accepted, %d failed; per round: decode %.0f ms wall (%d policy calls), doubt %.0f ms, descents %.0f ms",
					rep, kd.name, 100*c.gap[len(c.gap)-1], cpu.Seconds(), st.Kicks, float64(st.Kicks)/cpu.Seconds(), st.Accepted, st.Failed,
					ms(st.Decode)/float64(st.Rounds), st.PolicyCalls/st.Rounds, ms(st.Doubt)/float64(st.Rounds), ms(st.Search)/float64(st.Rounds))
			}
			plain := func() {
				// The same CPU time as the guided arm just measured, spent on
				// more kicks of the search alone.
				want := cells[kd.name].cpu
				budget := time.Duration(want[len(want)-1] * float64(time.Second))
				tours := make([][]int, limit)
				copy(tours, base)
				c0 := cpuNow()
				kicks := 0
				for round := 0; cpuNow()-c0 < budget; round++ {
					solve.ForEach(limit, 2, func(i int) {
						res, err := localsearch.ImproveFrom(insts[i], [][]int{tours[i]}, localsearch.Options{Kicks: 2, Seed: seed<<20 + uint64(round)<<10 + uint64(i)})
						if err != nil {
							t.Error(err)
							return
						}
						if res.Feasible && res.Cost < baseCost(insts[i], tours[i]) {
							tours[i] = res.Tour
						}
					})
					kicks += 2 * limit
				}
				cpu := cpuNow() - c0
				c := cells["plain vs "+kd.name]
				c.gap, c.cpu = append(c.gap, gap(tours)), append(c.cpu, cpu.Seconds())
				t.Logf("  rep %d plain vs %s: gap %.3f%%, %.2f s CPU, %d kicks", rep, kd.name, 100*c.gap[len(c.gap)-1], cpu.Seconds(), kicks)
			}
			// The guided arm first (it sets the CPU time), its plain pair
			// right after it.
			guided()
			plain()
		}
	}
	for _, a := range arms {
		c := cells[a]
		t.Logf("%s %s: gap median %.3f%% (%s), CPU median %.2f s", set, a, 100*median(c.gap), pct(c.gap), median(c.cpu))
	}
}

// began is a policy whose instances are encoded already.
type began struct{ *engine.Policy }

func (began) Begin([]*lazymask.Instance) error { return nil }

// decodeCost logs the CPU time of encoding the instances once and of one
// batched re-decode of all of them from prefixes of 20–80% of their tours
// (the mean of 10), without any search.
func decodeCost(t *testing.T, eng *engine.Engine, insts []*lazymask.Instance, tours [][]int, budget int) {
	pol := eng.NewPolicy()
	defer pol.Close()
	c0 := cpuNow()
	if err := pol.Begin(insts); err != nil {
		t.Fatal(err)
	}
	enc := cpuNow() - c0
	dec := lazymask.NewDecoder()
	prefixes := make([][]int, len(insts))
	c0 = cpuNow()
	calls := 0
	for k := 0; k < 10; k++ {
		for i, tour := range tours {
			if tour != nil {
				prefixes[i] = tour[:1+int(float64(len(tour)-1)*(0.2+0.06*float64((i+k)%11)))]
			}
		}
		cp := &countCalls{Policy: began{pol}}
		if _, err := dec.Decode(cp, insts, 1, lazymask.Config{Budget: budget, Seed: uint64(k), Prefixes: prefixes}); err != nil {
			t.Fatal(err)
		}
		calls += cp.calls
	}
	per := (cpuNow() - c0) / 10
	t.Logf("  encoding %d instances: %.0f ms CPU; one batched re-decode of all: %.0f ms CPU (%.2f ms per instance, %d policy calls)",
		len(insts), ms(enc), ms(per), ms(per)/float64(len(insts)), calls/10)
}

type countCalls struct {
	lazymask.Policy
	calls int
}

func (p *countCalls) Scores(b *lazymask.StepBatch, out []float32) error {
	p.calls++
	return p.Policy.Scores(b, out)
}

func baseCost(in *lazymask.Instance, tour []int) float64 {
	res, _ := lazymask.Check(in, tour)
	return res.Cost
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func pct(v []float64) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%.3f", 100*x)
	}
	return b.String()
}

// TestNeuralDoubtSignal asks whether the network's doubt points at the
// edges that are wrong: on the --preset best tours of the pilot's sets, the
// share of the doubtful steps (each tour's 4 of least log-probability,
// solve.StepLogProbs) whose edge is not in the reference tour, against
// the 4 longest edges and the base rate of all edges. It runs with
// TestNeuralKickPilot's settings.
func TestNeuralDoubtSignal(t *testing.T) {
	sets := os.Getenv("LMASK_NEURAL_PILOT")
	if sets == "" {
		t.Skip("set LMASK_NEURAL_PILOT to the sets to measure (e.g. tsptw50-medium,tspdl50-hard)")
	}
	needRuntime(t)
	limit := envInt(t, "LMASK_NEURAL_PILOT_N", 100)
	for _, set := range strings.Split(sets, ",") {
		ref := map[string]string{"tsptw50-medium": "pyvrp_50_medium", "tspdl50-hard": "lkh_50_hard", "tsptw50-easy": "pyvrp_50_easy",
			"tspdl50-medium": "lkh_50_medium", "tsptw50-hard": "pyvrp_50_hard"}[set]
		model := "../models/pretrained/" + set
		pb := newPilotBase(t, set, "../out/paper/"+set+".parquet", "../out/paper/"+ref+".parquet", model, limit)
		refTour := make([][]int, limit)
		refCost := make([]float64, limit)
		for _, r := range pb.refs {
			if i := int(r.Instance); i < limit && (refTour[i] == nil || r.Cost < refCost[i]) {
				refTour[i], refCost[i] = r.Tour, r.Cost
			}
		}
		eng, err := engine.Open(model, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pol := eng.NewPolicy()
		if err := pol.Begin(pb.insts); err != nil {
			t.Fatal(err)
		}
		lp, err := solve.StepLogProbs(pol, pb.insts, pb.base, lazymask.LookTSL)
		pol.Close()
		eng.Close()
		if err != nil {
			t.Fatal(err)
		}
		var all, allWrong, doubt, doubtWrong, long, longWrong, differ int
		for i, tour := range pb.base {
			if tour == nil || refTour[i] == nil {
				continue
			}
			next := make([]int, len(tour))
			rt := refTour[i]
			for k := range rt {
				next[rt[k]] = rt[(k+1)%len(rt)]
			}
			wrong := func(k int) bool { return next[tour[k]] != tour[k+1] }
			steps := make([]int, len(tour)-1)
			nw := 0
			for k := range steps {
				steps[k] = k
				if wrong(k) {
					nw++
				}
			}
			if nw == 0 {
				continue
			}
			differ++
			all += len(steps)
			allWrong += nw
			byDoubt := slices.Clone(steps)
			sort.SliceStable(byDoubt, func(a, b int) bool { return lp[i][byDoubt[a]] < lp[i][byDoubt[b]] })
			m := pb.insts[i].Matrix()
			n := pb.insts[i].N
			byLen := slices.Clone(steps)
			sort.SliceStable(byLen, func(a, b int) bool {
				return m[tour[byLen[a]]*n+tour[byLen[a]+1]] > m[tour[byLen[b]]*n+tour[byLen[b]+1]]
			})
			for _, k := range byDoubt[:4] {
				doubt++
				if wrong(k) {
					doubtWrong++
				}
			}
			for _, k := range byLen[:4] {
				long++
				if wrong(k) {
					longWrong++
				}
			}
		}
		t.Logf("%s: %d of %d tours differ from the reference; edges not in it: all %.1f%%, the 4 most doubted %.1f%%, the 4 longest %.1f%%",
			set, differ, limit, 100*float64(allWrong)/float64(all), 100*float64(doubtWrong)/float64(doubt), 100*float64(longWrong)/float64(long))
	}
}
