package trainer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/models"
	"github.com/lmask/lmask/models/features"
)

// EncoderFLOPs estimates the floating-point operations of one encoder pass
// over an instance of n nodes (multiply-add = 2 FLOPs): per layer the four
// projections, the attention scores and weighted sums, and the FFN; then
// the glimpse/logit key projection.
func EncoderFLOPs(c features.Config, n int) float64 {
	d, f := float64(c.DModel), float64(c.FFN)
	nn := float64(n)
	layer := 8*nn*d*d + 4*nn*nn*d + 4*nn*d*f
	return float64(c.Layers)*layer + 6*nn*d*d + 2*nn*features.NodeFeatures*d
}

// DecoderFLOPs estimates the FLOPs of one decoder step for one row over n
// nodes: the query projection, the glimpse attention, project_out and the
// pointer logits.
func DecoderFLOPs(c features.Config, n int) float64 {
	d := float64(c.DModel)
	return 2*float64(c.QueryInputs())*d + 6*float64(n)*d + 2*d*d
}

// ImitateUpdateFLOPs estimates the FLOPs of one imitation update on tours
// label tours of instances of n nodes: forward and backward (3× forward)
// of the encoder and of the n−1 teacher-forced decoder steps per tour.
func ImitateUpdateFLOPs(c features.Config, n int, tours float64) float64 {
	return 3 * tours * (EncoderFLOPs(c, n) + float64(n-1)*DecoderFLOPs(c, n))
}

// BenchRow is the measured training throughput of one backend.
type BenchRow struct {
	Backend string
	// InstPerSec is training instances per second over the timed steps.
	InstPerSec float64
	// RolloutSec and ReplaySec are the mean seconds per iteration spent in
	// the rollouts (no gradients) and in the replay-and-update step.
	RolloutSec, ReplaySec float64
	// RolloutGFLOPS, ReplayGFLOPS and GFLOPS are the achieved rates from the
	// analytic FLOP counts (replay counts forward + backward as 3×
	// forward).
	RolloutGFLOPS, ReplayGFLOPS, GFLOPS float64
	// GraphSec is the mean seconds per iteration spent inside graph
	// executions; GraphInstPerSec the training rate if only the graphs ran
	// (the backend's own throughput on the training graphs), and
	// GraphShare = InstPerSec / GraphInstPerSec.
	GraphSec, GraphInstPerSec, GraphShare float64
	// PeakGFLOPS is the measured MatMul rate of the backend.
	PeakGFLOPS float64
	// CompileSec is the wall time of the first (compiling) iteration.
	CompileSec float64
	// ImitateToursPerSec is the imitation rate (label tours per second,
	// BenchConfig.ImitateBatch per step, no rollout); 0 when not measured.
	ImitateToursPerSec float64
	// ImitateGFLOPS is the achieved rate of the imitation update (forward
	// and backward of the encoder and the teacher-forced decoder, counted as
	// 3× forward, over the update's mean time); ImitatePeakShare is it over
	// PeakGFLOPS.
	ImitateGFLOPS, ImitatePeakShare float64
	// Busy and ImitateBusy are the accelerator's busy share (0–1) over the
	// timed REINFORCE and imitation iterations from BenchConfig.Busy; −1
	// when not measured.
	Busy, ImitateBusy float64
	// Err is set when the backend could not run; ImitateErr when only the
	// imitation part failed (or was interrupted), the REINFORCE figures
	// standing.
	Err, ImitateErr error
}

// BusyProbe starts measuring the accelerator's busy share; the returned
// stop ends the measurement and returns the share (0–1).
type BusyProbe func() (stop func() (float64, error), err error)

// BenchConfig selects what Bench measures.
type BenchConfig struct {
	// Config is the run configuration (problem, size, batch, samples,
	// model sizes); its Backend is replaced by each of Backends.
	Config   Config
	Backends []string
	// Steps is the number of timed iterations after the warm-up iterations.
	Steps int
	// Dir is a scratch directory for the runs.
	Dir string
	// HostWorkers is Options.HostWorkers of the REINFORCE runs.
	HostWorkers int
	// Pipelines is Options.Pipelines of the REINFORCE runs.
	Pipelines int
	// Busy, when set, measures the accelerator's busy share over the timed
	// iterations (lmask-train bench samples nvidia-smi); a probe that fails
	// leaves the share unmeasured and is logged.
	Busy BusyProbe
	// ImitateBatch > 0 also times imitation steps of that many label tours
	// (Random-L tours of generated instances stand in for labels: the rate
	// does not depend on their quality).
	ImitateBatch int
}

// benchWarmup is the number of untimed iterations before the timed ones:
// the first compiles the graphs, the second still pays for onnxruntime
// growing its memory pools.
const benchWarmup = 2

// Bench measures training iterations per backend: benchWarmup untimed
// iterations (graph compilation, memory pools), then Steps timed ones, plus
// a MatMul peak. A cancelled ctx ends it between iterations: the running
// backend's row (or its ImitateErr) and those not reached carry ctx's
// error.
func Bench(ctx context.Context, bc BenchConfig, log io.Writer) []BenchRow {
	if log == nil {
		log = io.Discard
	}
	var rows []BenchRow
	for _, be := range bc.Backends {
		row := BenchRow{Backend: be, Busy: -1, ImitateBusy: -1}
		if row.Err = ctx.Err(); row.Err == nil {
			row.PeakGFLOPS, row.Err = MatMulPeak(be)
		}
		if row.Err == nil {
			row.Err = benchBackend(ctx, bc, be, &row, log)
		}
		if row.Err == nil && bc.ImitateBatch > 0 {
			row.ImitateErr = benchImitation(ctx, bc, be, &row, log)
		}
		rows = append(rows, row)
	}
	return rows
}

// benchStep runs one iteration unless ctx is done.
func benchStep(ctx context.Context, tr *Trainer) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, fmt.Errorf("interrupted after %d iterations (warm-up included): %w", tr.Step(), err)
	}
	return tr.TrainStep()
}

func benchBackend(ctx context.Context, bc BenchConfig, backend string, row *BenchRow, log io.Writer) error {
	cfg := bc.Config
	cfg.Backend = backend
	cfg.ValFile, cfg.CheckpointEvery, cfg.ValEvery = "", 0, 0
	cfg.Steps = bc.Steps + benchWarmup
	dir, err := os.MkdirTemp(bc.Dir, "bench-"+sanitizeName(backend)+"-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	tr, err := New(cfg, Options{Dir: dir, HostWorkers: bc.HostWorkers, Pipelines: bc.Pipelines})
	if err != nil {
		return err
	}
	start := time.Now()
	for i := 0; i < benchWarmup; i++ {
		if _, err := benchStep(ctx, tr); err != nil {
			return err
		}
	}
	row.CompileSec = time.Since(start).Seconds()
	fmt.Fprintf(log, "%s: %d warm-up iterations %.1fs\n", backend, benchWarmup, row.CompileSec)
	var roll, rep, backtracks float64
	tr.ResetGraphTime()
	stop := startBusy(bc.Busy, backend, log)
	start = time.Now()
	for i := 0; i < bc.Steps; i++ {
		r, err := benchStep(ctx, tr)
		if err != nil {
			stop()
			return err
		}
		roll += r.RolloutSec
		rep += r.ReplaySec
		backtracks += r.Backtracks
		fmt.Fprintf(log, "%s: iteration %d: rollout %.2fs, replay %.2fs\n", backend, i+1, r.RolloutSec, r.ReplaySec)
	}
	total := time.Since(start).Seconds()
	row.Busy = stop()
	k := float64(bc.Steps)
	row.GraphSec = tr.GraphTime().Seconds() / k
	row.GraphInstPerSec = float64(cfg.Batch) / row.GraphSec
	row.GraphShare = row.GraphSec * k / total
	row.InstPerSec = float64(cfg.Batch) * k / total
	row.RolloutSec, row.ReplaySec = roll/k, rep/k
	mc := cfg.Model
	b, p, t := float64(cfg.Batch), float64(cfg.Samples), float64(cfg.Size-1)
	enc, dec := EncoderFLOPs(mc, cfg.Size), DecoderFLOPs(mc, cfg.Size)
	rollF := b*enc + b*p*(t+backtracks/k)*dec
	repF := 3 * (b*enc + b*p*t*dec)
	row.RolloutGFLOPS = rollF / row.RolloutSec / 1e9
	row.ReplayGFLOPS = repF / row.ReplaySec / 1e9
	row.GFLOPS = (rollF + repF) / (row.RolloutSec + row.ReplaySec) / 1e9
	return nil
}

// benchImitation times imitation steps on a scratch label set.
func benchImitation(ctx context.Context, bc BenchConfig, backend string, row *BenchRow, log io.Writer) error {
	cfg := bc.Config
	cfg.Backend = backend
	cfg.ValFile, cfg.CheckpointEvery, cfg.ValEvery = "", 0, 0
	cfg.Steps = bc.Steps + benchWarmup
	dir, err := os.MkdirTemp(bc.Dir, "bench-imitate-"+sanitizeName(backend)+"-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg.Imitate, cfg.ImitateBatch, cfg.RLWeight, cfg.Dagger = filepath.Join(dir, "labels"), bc.ImitateBatch, 0, 0
	if err := scratchLabels(cfg.Imitate, &cfg, bc.ImitateBatch); err != nil {
		return err
	}
	tr, err := New(cfg, Options{Dir: filepath.Join(dir, "run")})
	if err != nil {
		return err
	}
	for i := 0; i < benchWarmup; i++ {
		if _, err := benchStep(ctx, tr); err != nil {
			return err
		}
	}
	tours, update := 0.0, 0.0
	stop := startBusy(bc.Busy, backend+" imitation", log)
	start := time.Now()
	for i := 0; i < bc.Steps; i++ {
		r, err := benchStep(ctx, tr)
		if err != nil {
			stop()
			return err
		}
		tours += r.InstPerSec * (r.RolloutSec + r.ReplaySec)
		update += r.ReplaySec
		fmt.Fprintf(log, "%s: imitation step %d: replay prep %.2fs, update %.2fs\n", backend, i+1, r.RolloutSec, r.ReplaySec)
	}
	row.ImitateToursPerSec = tours / time.Since(start).Seconds()
	row.ImitateBusy = stop()
	row.ImitateGFLOPS = ImitateUpdateFLOPs(cfg.Model, cfg.Size, tours/float64(bc.Steps)) / (update / float64(bc.Steps)) / 1e9
	if row.PeakGFLOPS > 0 {
		row.ImitatePeakShare = row.ImitateGFLOPS / row.PeakGFLOPS
	}
	return nil
}

// startBusy starts probe (if any) and returns what ends it: the busy share,
// or −1 when there is no probe or it failed (logged).
func startBusy(probe BusyProbe, what string, log io.Writer) func() float64 {
	if probe == nil {
		return func() float64 { return -1 }
	}
	stop, err := probe()
	if err != nil {
		fmt.Fprintf(log, "%s: busy share not measured: %v\n", what, err)
		return func() float64 { return -1 }
	}
	return func() float64 {
		share, err := stop()
		if err != nil {
			fmt.Fprintf(log, "%s: busy share not measured: %v\n", what, err)
			return -1
		}
		return share
	}
}

// scratchLabels writes a one-chunk label set of count generated instances
// with their feasible Random-L tours.
func scratchLabels(dir string, cfg *Config, count int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	gc := datasets.GenConfig{Problem: cfg.ProblemKind(), N: cfg.Size, Hardness: cfg.Hardness, Seed: cfg.Seed}
	insts, _, err := datasets.Generate(gc, count)
	if err != nil {
		return err
	}
	// The paper's budget: unlimited backtracking can search for hours on a
	// TSPDL instance, and the rate does not depend on the tours' quality.
	trajs, err := lazymask.Decode(&lazymask.RandomL{}, insts, 8, lazymask.Config{Budget: cfg.ValBudget, Seed: cfg.Seed})
	if err != nil {
		return err
	}
	tours := make([][]int, len(insts))
	for _, t := range trajs {
		if t.Tour != nil && t.Feasible && tours[t.Inst] == nil {
			tours[t.Inst] = t.Tour
		}
	}
	var sols []datasets.Solution
	for i, t := range tours {
		if t == nil {
			t = localsearch.OrderTour(insts[i]) // a stand-in; infeasible ones are left out when read
		}
		s, err := datasets.Checked(insts[i], int64(i), t, "bench")
		if err != nil {
			return err
		}
		sols = append(sols, s)
	}
	ip, sp := datasets.LabelChunkPaths(dir, 0)
	meta := datasets.Metadata{Kind: datasets.KindInstances, Problem: cfg.Problem, Size: cfg.Size, Hardness: cfg.Hardness}
	if err := datasets.WriteInstances(ip, meta, insts, nil, datasets.WriterOptions{}); err != nil {
		return err
	}
	meta.Kind = datasets.KindSolutions
	if err := datasets.WriteSolutions(sp, meta, sols, datasets.WriterOptions{}); err != nil {
		return err
	}
	return datasets.WriteLabelSpec(dir, datasets.LabelSpec{Problem: cfg.Problem, Size: cfg.Size, Hardness: cfg.Hardness,
		Seed: cfg.Seed, ChunkSize: count, Search: "Random-L (bench stand-in)"})
}

func sanitizeName(s string) string {
	out := []byte(s)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			out[i] = '_'
		}
	}
	return string(out)
}

// MatMulPeak measures the float32 MatMul rate of a backend in GFLOP/s: a
// graph of 8 chained [2048,512]×[512,512] products, run after a warm-up.
func MatMulPeak(backend string) (float64, error) {
	be, err := models.NewBackend(backend)
	if err != nil {
		return 0, err
	}
	const m, k, chain, reps = 2048, 512, 8, 5
	e, err := NewExec(be, func(x, w *Node) *Node {
		for i := 0; i < chain; i++ {
			x = MulScalar(Dot(x, w).Product(), 1.0/16)
		}
		return ReduceAllSum(x)
	})
	if err != nil {
		return 0, fmt.Errorf("matmul peak: %w", err)
	}
	defer e.Finalize()
	x := tensors.FromShape(shapes.Make(dtypes.Float32, m, k))
	w := tensors.FromShape(shapes.Make(dtypes.Float32, k, k))
	tensors.MustMutableFlatData(w, func(f []float32) {
		for i := range f {
			f[i] = float32(i%7) / 7
		}
	})
	run := func() error {
		out, err := e.Call(x, w)
		for _, t := range out {
			t.FinalizeAll()
		}
		return err
	}
	if err := run(); err != nil {
		return 0, fmt.Errorf("matmul peak: %w", err)
	}
	start := time.Now()
	for i := 0; i < reps; i++ {
		if err := run(); err != nil {
			return 0, fmt.Errorf("matmul peak: %w", err)
		}
	}
	sec := time.Since(start).Seconds()
	return 2 * m * k * k * chain * reps / sec / 1e9, nil
}

// WriteBenchTable prints rows as an aligned text table.
func WriteBenchTable(w io.Writer, cfg Config, rows []BenchRow) {
	dec := "pomo"
	if cfg.Model.ReLD {
		dec = "reld"
	}
	cand := cfg.Model.Cand
	if cand == "" {
		cand = "none"
	}
	fmt.Fprintf(w, "%s-%d, batch %d × %d samples, model L=%d d=%d h=%d ffn=%d decoder %s cand %s, budget %d\n",
		cfg.Problem, cfg.Size, cfg.Batch, cfg.Samples, cfg.Model.Layers, cfg.Model.DModel, cfg.Model.Heads, cfg.Model.FFN, dec, cand, cfg.Budget)
	fmt.Fprintf(w, "%-8s %9s %9s %9s %9s %10s %10s %10s %10s %10s %9s %12s %10s %8s %11s\n",
		"backend", "inst/s", "graph/s", "share", "rollout", "replay", "roll GF/s", "repl GF/s", "all GF/s", "peak GF/s", "warm-up", "imit tours/s", "imit GF/s", "of peak", "busy rl/im")
	for _, r := range rows {
		if r.Err != nil {
			fmt.Fprintf(w, "%-8s error: %v\n", r.Backend, r.Err)
			continue
		}
		imit, imitGF, ofPeak := "-", "-", "-"
		if r.ImitateToursPerSec > 0 {
			imit = fmt.Sprintf("%.1f", r.ImitateToursPerSec)
			imitGF = fmt.Sprintf("%.1f", r.ImitateGFLOPS)
			if r.ImitatePeakShare > 0 {
				ofPeak = pct(r.ImitatePeakShare)
			}
		}
		fmt.Fprintf(w, "%-8s %9.2f %9.2f %8.0f%% %8.2fs %8.2fs %10.1f %10.1f %10.1f %10.1f %8.1fs %12s %10s %8s %11s\n",
			r.Backend, r.InstPerSec, r.GraphInstPerSec, 100*r.GraphShare, r.RolloutSec, r.ReplaySec, r.RolloutGFLOPS, r.ReplayGFLOPS, r.GFLOPS, r.PeakGFLOPS, r.CompileSec, imit,
			imitGF, ofPeak, pct(r.Busy)+"/"+pct(r.ImitateBusy))
	}
}

// pct formats a share as a percentage, "-" when negative (not measured).
func pct(share float64) string {
	if share < 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*share)
}

// ParseBackends splits the bench command's comma-separated backends list,
// dropping blanks; an empty list is an error. An element holding "=" is an
// option of the backend before it, as in
// "onnx:cpu,intra_op_num_threads=2,go" (ONNX Runtime on two threads, then
// the Go backend).
func ParseBackends(s string) ([]string, error) {
	var backends []string
	for _, b := range strings.Split(s, ",") {
		b = strings.TrimSpace(b)
		switch {
		case b == "":
		case strings.Contains(b, "=") && len(backends) > 0:
			backends[len(backends)-1] += "," + b
		default:
			backends = append(backends, b)
		}
	}
	if len(backends) == 0 {
		return nil, opterr.New("Backends", "", "empty")
	}
	return backends, nil
}

// SplitBenchRows returns the rows of the backends that ran, for the table,
// and the failures joined as one error, each also written to log, where an
// interrupt would otherwise show as "interrupted" alone.
func SplitBenchRows(rows []BenchRow, log io.Writer) ([]BenchRow, error) {
	var ok []BenchRow
	var errs []error
	fail := func(backend string, err error) {
		errs = append(errs, opterr.Wrap("Backends", backend, err))
		fmt.Fprintf(log, "bench: backend %s: %v\n", backend, err)
	}
	for _, r := range rows {
		if r.Err != nil {
			fail(r.Backend, r.Err)
			continue
		}
		if r.ImitateErr != nil {
			fail(r.Backend, fmt.Errorf("imitation: %w", r.ImitateErr))
		}
		ok = append(ok, r)
	}
	return ok, errors.Join(errs...)
}
