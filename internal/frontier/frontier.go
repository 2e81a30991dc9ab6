// Package frontier measures what the network buys at equal CPU time: for
// each set and time budget it runs lmask-infer with the network, reads the
// CPU time (user + sys) the process used, then runs the same pipeline
// without a network (--starts random-l) with exactly that CPU time as its
// budget (--cpu-budget), alternating the two, and judges both by the
// independent checker (lmask-data check). A cell reports the median of its
// repetitions (./just bench-frontier).
//
// A set without a reference (held-out data, or a user's own) gets no gap:
// each repetition instead compares the two runs' solutions instance by
// instance (Pair), and the cell reports the medians (Paired).
package frontier

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/lmask/lmask/internal/atomicfile"
)

// Set is one data set of the comparison.
type Set struct {
	// Name labels the set in the table, e.g. "TSPTW-50 medium".
	Name string `json:"name"`
	// Model is the network's directory (or a shipped model's name, as
	// lmask-infer takes it); Data the instances file; Reference the
	// reference solutions for the gap, or empty for none: the runs are
	// then compared with each other (Pair).
	Model     string `json:"model"`
	Data      string `json:"data"`
	Reference string `json:"reference,omitempty"`
	// Limit solves the first Limit instances (0 = all).
	Limit int `json:"limit"`
}

// Budget is one time budget of the network pipeline: its lmask-infer flags.
type Budget struct {
	Name  string   `json:"name"`
	Flags []string `json:"flags"`
}

// Budgets are the three budgets of the comparison.
var Budgets = []Budget{
	{Name: "fast", Flags: []string{"--preset", "fast"}},
	{Name: "best", Flags: []string{"--preset", "best"}},
	{Name: "best --improve-share 10", Flags: []string{"--preset", "best", "--improve-share", "10"}},
}

// NoNetworkFlags are the flags of the pipeline without a network, to which
// the run adds --cpu-budget: the best preset's search from Random-L ×8
// starts, kicks bounded by the budget alone.
var NoNetworkFlags = []string{"--starts", "random-l", "--preset", "best"}

// Run is one lmask-infer process.
type Run struct {
	// CPU is the process's user + sys time and Wall its wall time, in
	// seconds; Budget the --cpu-budget it was given (0 with the network).
	CPU    float64 `json:"cpu_s"`
	Wall   float64 `json:"wall_s"`
	Budget float64 `json:"cpu_budget_s,omitempty"`
	// Gap, InstInfeasible and SolInfeasible are the checker's (fractions);
	// Gap is NaN, and left out of the JSON, for a set without a reference.
	Gap            float64 `json:"gap"`
	InstInfeasible float64 `json:"inst_infeasible"`
	SolInfeasible  float64 `json:"sol_infeasible"`
}

// Cell is one set at one budget: the runs, alternated, and their medians.
type Cell struct {
	Set       string `json:"set"`
	Budget    string `json:"budget"`
	Instances int    `json:"instances"`
	Network   []Run  `json:"network"`
	NoNetwork []Run  `json:"no_network"`
	// The medians over the repetitions (the gaps NaN, and left out of the
	// JSON, for a set without a reference).
	NetworkGap     float64 `json:"network_gap"`
	NoNetworkGap   float64 `json:"no_network_gap"`
	NetworkCPU     float64 `json:"network_cpu_s"`
	NoNetworkCPU   float64 `json:"no_network_cpu_s"`
	NetworkInstInf float64 `json:"network_inst_infeasible"`
	NoNetInstInf   float64 `json:"no_network_inst_infeasible"`
	// Pairs, for a set without a reference, compare each repetition's two
	// runs instance by instance, and Paired is their median; absent for a
	// set with a reference.
	Pairs  []Pair  `json:"pairs,omitempty"`
	Paired *Paired `json:"paired,omitempty"`
}

// Wins reports whether the network's median gap is at most the no-network
// one and its infeasible share no larger; for a set without a reference,
// whether its median length difference is at most zero (or there is none)
// and its infeasible share no larger.
func (c Cell) Wins() bool {
	if c.Paired != nil {
		return c.NetworkInstInf <= c.NoNetInstInf && (c.Paired.DiffPct == nil || *c.Paired.DiffPct <= 0)
	}
	return c.NetworkInstInf <= c.NoNetInstInf && c.NetworkGap <= c.NoNetworkGap
}

// MarshalJSON leaves out a gap that is NaN (a set without a reference).
func (r Run) MarshalJSON() ([]byte, error) {
	type plain Run
	if !math.IsNaN(r.Gap) {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		Gap *float64 `json:"gap,omitempty"`
	}{plain: plain(r)})
}

// MarshalJSON leaves out median gaps that are NaN (a set without a
// reference).
func (c Cell) MarshalJSON() ([]byte, error) {
	type plain Cell
	if !math.IsNaN(c.NetworkGap) && !math.IsNaN(c.NoNetworkGap) {
		return json.Marshal(plain(c))
	}
	return json.Marshal(struct {
		plain
		NetworkGap   *float64 `json:"network_gap,omitempty"`
		NoNetworkGap *float64 `json:"no_network_gap,omitempty"`
	}{plain: plain(c)})
}

// Config configures Measure.
type Config struct {
	// Infer and Check are the lmask-infer and lmask-data binaries.
	Infer, Check string
	Sets         []Set
	Budgets      []Budget
	// Reps is the number of alternated pairs per cell (median of Reps).
	Reps int
	// Dir holds the runs' solutions and metrics files.
	Dir string
	// Log receives a line per run (nil: discarded).
	Log io.Writer
}

// Measure runs every cell of cfg: Reps times the network run then the
// no-network run with the network run's CPU time as budget, each judged by
// the checker; for a set without a reference, each such pair is compared
// instance by instance (Pair).
func Measure(ctx context.Context, cfg Config) ([]Cell, error) {
	if cfg.Reps < 1 {
		return nil, fmt.Errorf("frontier: %d repetitions, want ≥ 1", cfg.Reps)
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	var cells []Cell
	for si, s := range cfg.Sets {
		var insts *Instances
		if s.Reference == "" {
			var err error
			if insts, err = ReadInstances(s.Data, s.Limit); err != nil {
				return nil, fmt.Errorf("frontier: %s: %w", s.Name, err)
			}
		}
		for bi, b := range cfg.Budgets {
			c := Cell{Set: s.Name, Budget: b.Name}
			for r := range cfg.Reps {
				tag := fmt.Sprintf("s%d-b%d-r%d", si, bi, r)
				net, n, err := cfg.run(ctx, s, append(slices.Clone(b.Flags), "--model", s.Model), filepath.Join(cfg.Dir, tag+"-net"))
				if err != nil {
					return nil, fmt.Errorf("frontier: %s, %s, network: %w", s.Name, b.Name, err)
				}
				budget := fmt.Sprintf("%.3fs", net.CPU)
				nn, _, err := cfg.run(ctx, s, append(slices.Clone(NoNetworkFlags), "--cpu-budget", budget), filepath.Join(cfg.Dir, tag+"-nonet"))
				if err != nil {
					return nil, fmt.Errorf("frontier: %s, %s, no network: %w", s.Name, b.Name, err)
				}
				nn.Budget = net.CPU
				c.Instances = n
				c.Network, c.NoNetwork = append(c.Network, net), append(c.NoNetwork, nn)
				if insts != nil {
					if len(insts.Insts) != n {
						return nil, fmt.Errorf("frontier: %s: the checker judged %d instances, %d were read from %s", s.Name, n, len(insts.Insts), s.Data)
					}
					p, err := insts.PairFiles(filepath.Join(cfg.Dir, tag+"-net.parquet"), filepath.Join(cfg.Dir, tag+"-nonet.parquet"))
					if err != nil {
						return nil, fmt.Errorf("frontier: %s, %s: %w", s.Name, b.Name, err)
					}
					c.Pairs = append(c.Pairs, p)
					fmt.Fprintf(cfg.Log, "%-16s %-24s rep %d: network against no network %s (%.2f s CPU, %.2f s wall / %.2f s CPU, %.2f s wall)\n",
						s.Name, b.Name, r+1, pairText(p.DiffPct, float64(p.Wins), float64(p.Ties), float64(p.Losses)), net.CPU, net.Wall, nn.CPU, nn.Wall)
					continue
				}
				fmt.Fprintf(cfg.Log, "%-16s %-24s rep %d: network %.3f%% (%.2f s CPU, %.2f s wall), no network %.3f%% (%.2f s CPU, %.2f s wall)\n",
					s.Name, b.Name, r+1, 100*net.Gap, net.CPU, net.Wall, 100*nn.Gap, nn.CPU, nn.Wall)
			}
			c.summarise()
			cells = append(cells, c)
		}
	}
	return cells, nil
}

func (c *Cell) summarise() {
	pick := func(runs []Run, f func(Run) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		return Median(v)
	}
	gap := func(r Run) float64 { return r.Gap }
	cpu := func(r Run) float64 { return r.CPU }
	inf := func(r Run) float64 { return r.InstInfeasible }
	c.NetworkGap, c.NoNetworkGap = pick(c.Network, gap), pick(c.NoNetwork, gap)
	c.NetworkCPU, c.NoNetworkCPU = pick(c.Network, cpu), pick(c.NoNetwork, cpu)
	c.NetworkInstInf, c.NoNetInstInf = pick(c.Network, inf), pick(c.NoNetwork, inf)
	c.Paired = MedianPairs(c.Pairs)
}

// Median is the middle value of v (the mean of the two middle ones for an
// even count; NaN for none).
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// run runs lmask-infer on set s with flags (prefix: the output files'
// path without extension), then the checker on its solutions, and returns
// the run and the number of instances judged.
func (cfg Config) run(ctx context.Context, s Set, flags []string, prefix string) (Run, int, error) {
	sol := prefix + ".parquet"
	args := append(flags, "--data", s.Data, "--out", sol)
	if s.Limit > 0 {
		args = append(args, "--limit", fmt.Sprint(s.Limit))
	}
	cmd := exec.CommandContext(ctx, cfg.Infer, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	began := time.Now()
	if err := cmd.Run(); err != nil {
		return Run{}, 0, fmt.Errorf("%s %s: %w: %s", cfg.Infer, strings.Join(args, " "), err, lastLines(stderr.String(), 5))
	}
	r := Run{Wall: time.Since(began).Seconds(), CPU: (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()}
	m, err := cfg.check(ctx, s, sol)
	if err != nil {
		return Run{}, 0, err
	}
	r.Gap, r.InstInfeasible, r.SolInfeasible = m.Gap, m.InstInfeasible, m.SolInfeasible
	if s.Reference == "" {
		r.Gap = math.NaN()
	}
	return r, m.Instances, nil
}

// checked holds the keys of lmask-data check --json that a cell reads.
type checked struct {
	Gap            float64 `json:"gap"`
	InstInfeasible float64 `json:"inst_infeasible"`
	SolInfeasible  float64 `json:"sol_infeasible"`
	Instances      int     `json:"instances"`
}

// check judges a solutions file with lmask-data check against the set's
// reference (without one for a set that has none), over the instances
// solved.
func (cfg Config) check(ctx context.Context, s Set, sol string) (checked, error) {
	args := []string{"check", "--instances", s.Data, "--solutions", sol, "--json"}
	if s.Reference != "" {
		args = append(args, "--reference", s.Reference)
	}
	if s.Limit > 0 {
		args = append(args, "--limit", fmt.Sprint(s.Limit))
	}
	cmd := exec.CommandContext(ctx, cfg.Check, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return checked{}, fmt.Errorf("%s %s: %w: %s", cfg.Check, strings.Join(args, " "), err, lastLines(stderr.String(), 5))
	}
	var raw map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil {
		return checked{}, fmt.Errorf("%s check --json: %w", cfg.Check, err)
	}
	var m checked
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
		return checked{}, fmt.Errorf("%s check --json: %w", cfg.Check, err)
	}
	if g, ok := raw["gap"].(float64); s.Reference != "" && (!ok || math.IsNaN(g)) {
		return checked{}, fmt.Errorf("%s: the checker gives no gap for %s (no reference tour matched?)", s.Reference, sol)
	}
	return m, nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// WriteTable prints the cells as a markdown table, one row per set and a
// column per budget: "network / no network" median gaps, the better in
// bold, and the median CPU seconds of both. A set without a reference
// shows instead the median of the network's mean length difference
// against the no-network run and of its wins, ties and losses (PairedNote,
// printed below the table, says how to read it).
func WriteTable(w io.Writer, cells []Cell) {
	var sets, budgets []string
	paired := false
	at := map[[2]string]Cell{}
	for _, c := range cells {
		if !slices.Contains(sets, c.Set) {
			sets = append(sets, c.Set)
		}
		if !slices.Contains(budgets, c.Budget) {
			budgets = append(budgets, c.Budget)
		}
		at[[2]string{c.Set, c.Budget}] = c
		paired = paired || c.Paired != nil
	}
	fmt.Fprint(w, "| set | instances |")
	for _, b := range budgets {
		fmt.Fprintf(w, " `%s`: network / no network (CPU s) |", b)
	}
	fmt.Fprint(w, "\n|---|---|")
	for range budgets {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, s := range sets {
		n := 0
		row := ""
		for _, b := range budgets {
			c, ok := at[[2]string{s, b}]
			if !ok {
				row += " |"
				continue
			}
			n = c.Instances
			if p := c.Paired; p != nil {
				row += fmt.Sprintf(" %s (%.2f / %.2f)", pairText(p.DiffPct, p.Wins, p.Ties, p.Losses), c.NetworkCPU, c.NoNetworkCPU)
				if p.NetworkFeasible < float64(n) || p.NoNetworkFeasible < float64(n) {
					row += fmt.Sprintf(", feasible %s / %s", count(p.NetworkFeasible), count(p.NoNetworkFeasible))
				}
				row += " |"
				continue
			}
			net, non := pct(c.NetworkGap), pct(c.NoNetworkGap)
			switch {
			case c.NetworkGap < c.NoNetworkGap:
				net = "**" + net + "**"
			case c.NoNetworkGap < c.NetworkGap:
				non = "**" + non + "**"
			}
			row += fmt.Sprintf(" %s / %s (%.2f / %.2f)", net, non, c.NetworkCPU, c.NoNetworkCPU)
			if c.NetworkInstInf > 0 || c.NoNetInstInf > 0 {
				row += fmt.Sprintf(", infeasible %s / %s", pct(c.NetworkInstInf), pct(c.NoNetInstInf))
			}
			row += " |"
		}
		fmt.Fprintf(w, "| %s | %d |%s\n", s, n, row)
	}
	if paired {
		fmt.Fprintln(w, "\n"+PairedNote)
	}
}

// PairedNote explains the cells of sets without a reference.
const PairedNote = "Sets without a reference: the network's tours against those of the run without a network, instance by instance: " +
	"the mean of (network − no network) / no network over the instances both solved feasibly (below zero: the network's tours are shorter), " +
	"then the instances where the network's tour is shorter (wins), as long (ties) and longer (losses); " +
	"\"feasible\" counts the instances each run solved feasibly where one of them left some without a feasible tour. Medians over the repetitions."

func pct(v float64) string { return fmt.Sprintf("%.2f%%", 100*v) }

// pairText is "+0.12% (wins 30 / ties 50 / losses 20)", or "no instance
// solved by both" where diff is nil.
func pairText(diff *float64, wins, ties, losses float64) string {
	if diff == nil {
		return "no instance solved by both"
	}
	return fmt.Sprintf("%+.2f%% (wins %s / ties %s / losses %s)", *diff, count(wins), count(ties), count(losses))
}

// count formats a count, or a median of counts that falls between two.
func count(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}

// Report is the JSON record of a measurement (kept under docs/results/frontier/ and rendered by docs/results/15-frontier.json):
// what was run, when, on what, and the cells.
type Report struct {
	Title   string `json:"title"`
	Command string `json:"command"`
	Date    string `json:"date"`
	Machine string `json:"machine"`
	// Commit is the code measured; Load the machine's 1-minute load
	// averages at the start and the end (the machine may be shared).
	Commit  string     `json:"commit,omitempty"`
	Load    [2]float64 `json:"load_average_start_end"`
	Reps    int        `json:"repetitions"`
	Method  string     `json:"method"`
	Sets    []Set      `json:"sets"`
	Budgets []Budget   `json:"budgets"`
	Cells   []Cell     `json:"cells"`
}

// Method describes the protocol in the report.
const Method = "Per cell, repetitions alternate a network run (lmask-infer with the budget's flags and the set's shipped model) " +
	"and a run without a network (lmask-infer " + "--starts random-l --preset best --cpu-budget C, C the CPU time, user + sys, of the network run just before it). " +
	"Gaps are lmask-data check's (the paper's protocol: each instance's best feasible tour against the reference); medians over the repetitions."

// PairedMethod is added to Method in a report with a set without a
// reference.
const PairedMethod = " A set without a reference has no gap: each repetition's two solutions files are compared instance by instance, " +
	"each instance's best feasible length replayed by the checker (lazymask.Check): the network's mean relative difference " +
	"(network − no network) / no network in percent over the instances both runs solved feasibly, its wins, ties and losses " +
	"there, and the instances each run solved feasibly (pairs; paired: their medians)."

// NewReport is the report of cells measured with cfg by command, with the
// load averages at the start and end (LoadAverage).
func NewReport(cfg Config, command, commit string, load [2]float64, cells []Cell) Report {
	method := Method
	for _, s := range cfg.Sets {
		if s.Reference == "" {
			method += PairedMethod
			break
		}
	}
	return Report{
		Title: "The network against the same search without it, at equal CPU time", Command: command,
		Date: time.Now().UTC().Format(time.RFC3339), Machine: Machine(), Commit: commit, Load: load, Reps: cfg.Reps, Method: method,
		Sets: cfg.Sets, Budgets: cfg.Budgets, Cells: cells,
	}
}

// LoadAverage is the machine's 1-minute load average (/proc/loadavg; 0
// where unknown).
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var v float64
	fmt.Sscan(string(b), &v)
	return v
}

// WriteJSON writes r to path atomically.
func (r Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}

// Machine describes this machine: CPU model, cores, OS and architecture.
func Machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores, %s/%s", model, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
}
