package trainer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models"
	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
)

// rngStream is the fixed second word of the run's master PCG source.
const rngStream = 0x6c6d61736b2d7472 // "lmask-tr"

// ErrNonFinite is returned (wrapped) when a training step produces a NaN or
// infinite loss or gradient norm; the run stops without writing a
// checkpoint, so the last good one stays on disk.
var ErrNonFinite = errors.New("non-finite loss")

// Options control a training session (not part of the run's Config).
type Options struct {
	// Dir is the run directory: checkpoint, metrics log, curve, model.
	Dir string
	// Resume continues from Dir's checkpoint with its stored Config;
	// Steps (> 0) then overrides the total number of steps and Backend (not
	// empty) the backend.
	Resume  bool
	Steps   int
	Backend string
	// SnapshotEvery (resumed runs only), when not nil, replaces the stored
	// Config.SnapshotEvery.
	SnapshotEvery *int
	// InitFrom (fresh runs only) names a checkpoint whose model weights
	// start the run; its optimiser state, step, schedule and RNG are not
	// taken over. The model sizes must match. The run's instance and wall
	// counters start from the checkpoint's, so cards report the total.
	InitFrom string
	// ValRef is an optional Parquet solutions file with reference costs of
	// the validation set (for the gap).
	ValRef string
	// TrainFiles (fresh runs only), when set, are Config.TrainData's files
	// already read (datasets.ReadInstanceFiles): New does not read them
	// again.
	TrainFiles *datasets.InstanceFiles
	// Val (fresh runs only), when set, is the validation set already read
	// (LoadValSet, from Config.ValFile): New then reads neither ValFile nor
	// ValRef again.
	Val *ValSet
	// StopAt (> 0) ends the session after that many completed steps, with a
	// checkpoint, as an interrupt would.
	StopAt int
	// HostWorkers is how many goroutines advance the rollout trajectories
	// between decoder steps (lazymask.Decoder.Workers; ≤ 1: one). The
	// trajectories do not depend on it. Meant for a many-core host feeding
	// a GPU; where the same cores run the network it costs time.
	HostWorkers int
	// Pipelines (> 1) splits every rollout and DAgger decode into that many
	// instance groups, each decoded on its own goroutine with its own
	// policy; the model runs one graph at a time, so while one group's
	// decoder step runs the others advance their rows (2: double
	// buffering). The trajectories do not depend on it up to float
	// rounding of differently shaped batches.
	Pipelines int
	// OnStep is called after every step with the step's record (e.g. to
	// drive a progress bar).
	OnStep func(rec Record)
	// Log receives human-readable messages (nil: discarded).
	Log io.Writer
}

// Summary describes how a session ended.
type Summary struct {
	// Step is the number of completed steps; Interrupted says the session
	// stopped early (context cancelled or StopAt) after a checkpoint.
	Step        int
	Interrupted bool
	// InstancesSeen and WallSeconds are run totals over all sessions.
	InstancesSeen int64
	WallSeconds   float64
	// LastVal holds the latest validation metrics, if any.
	LastVal *ValMetrics
}

// Trainer runs REINFORCE training of one model.
type Trainer struct {
	cfg    Config
	opt    Options
	model  *models.Model
	policy lazymask.Policy
	// pipes holds max(1, Options.Pipelines) policies, policy first.
	pipes []lazymask.Policy
	step  *stepGraph
	dec   *lazymask.Decoder
	// rb and rl are the step's replay batches (rl: the rollouts or DAgger
	// states of a run that mixes them into imitation), taken from rbs and
	// rls, which hold one per size.
	rb, rl   *ReplayBatch
	rbs, rls map[int]*ReplayBatch
	train    *TrainSet // the run's instance files, nil: the generator
	val      *ValSet
	log      *MetricsLog
	labels   *datasets.Labels
	picker   interface {
		pick(done, count int) (idx, aug []int)
	}
	next *labelBatch // the next imitation step's labels, being replayed

	pcg     *rand.PCG
	rng     *rand.Rand
	done    int
	seen    int64
	wall    float64
	lastVal *ValMetrics
	best    *ValMetrics
	bestAt  int
}

// New creates a trainer: a fresh run from cfg, or, with opt.Resume, the run
// stored in opt.Dir's checkpoint (cfg is then ignored except through
// opt.Steps and opt.Backend).
func New(cfg Config, opt Options) (*Trainer, error) {
	if opt.Dir == "" {
		return nil, errors.New("trainer: no run directory")
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	var ck *Checkpoint
	if opt.Resume {
		var err error
		if ck, err = ReadCheckpoint(opt.Dir); err != nil {
			return nil, fmt.Errorf("resume: %w", err)
		}
		cfg = ck.Config
		if opt.Steps > 0 {
			cfg.Steps = opt.Steps
		}
		if opt.Backend != "" {
			cfg.Backend = opt.Backend
		}
		if opt.SnapshotEvery != nil {
			cfg.SnapshotEvery = *opt.SnapshotEvery
		}
	}
	var warm *Checkpoint
	var warmModel features.Weights
	if opt.InitFrom != "" && isModelDir(opt.InitFrom) {
		if opt.Resume {
			return nil, errors.New("trainer: InitFrom applies to fresh runs, not to a resumed one")
		}
		mc, w, err := onnx.ReadWeights(opt.InitFrom)
		if err != nil {
			return nil, fmt.Errorf("init-from: %w", err)
		}
		if err := warmFits(mc, cfg.Model); err != nil {
			return nil, fmt.Errorf("init-from %s: %w", opt.InitFrom, err)
		}
		warmModel = w
		cfg.Warm = &WarmStart{Checkpoint: opt.InitFrom, Model: true, Problem: mc.Problem, Size: mc.TrainSize, Hardness: mc.Hardness}
	} else if opt.InitFrom != "" {
		if opt.Resume {
			return nil, errors.New("trainer: InitFrom applies to fresh runs, not to a resumed one")
		}
		var err error
		if warm, err = ReadCheckpoint(opt.InitFrom); err != nil {
			return nil, fmt.Errorf("init-from: %w", err)
		}
		if err := warmFits(warm.Config.Model, cfg.Model); err != nil {
			return nil, fmt.Errorf("init-from %s: %w", warm.Path, err)
		}
		cfg.Warm = &WarmStart{Checkpoint: warm.Path, Problem: warm.Config.Problem, Size: warm.Config.Size,
			Hardness: warm.Config.Hardness, Step: warm.Step, InstancesSeen: warm.InstancesSeen, WallSeconds: warm.WallSeconds}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// Everything that can fail on the configuration (the validation files,
	// the backend) is tried before the run directory is made.
	val := opt.Val
	if val == nil && cfg.ValFile != "" {
		var err error
		if val, err = LoadValSet(cfg.ValFile, opt.ValRef, cfg.ValLimit, cfg.ProblemKind(), cfg.ValSizes()...); err != nil {
			return nil, err
		}
	}
	var train *TrainSet
	if len(cfg.TrainData) > 0 {
		var split *ValSet
		var err error
		if train, split, err = loadTrainData(&cfg, opt.TrainFiles); err != nil {
			return nil, err
		}
		if split != nil {
			val = split
		}
		fmt.Fprintf(opt.Log, "training on %d instances of sizes %v from %d files", train.Total, train.Sizes, len(cfg.TrainData))
		if split != nil {
			fmt.Fprintf(opt.Log, ", %d kept out for validation", len(split.Instances))
		}
		fmt.Fprintln(opt.Log)
	}
	var labels *datasets.Labels
	if cfg.Imitate != "" {
		var err error
		if labels, err = datasets.ReadLabelSets(strings.Split(cfg.Imitate, ","), cfg.ImitateLimit); err != nil {
			return nil, fmt.Errorf("imitate: %w", err)
		}
		if err := labelsFit(labels, &cfg); err != nil {
			return nil, err
		}
		fmt.Fprintf(opt.Log, "imitating %d label tours from %s (%d chunks, %d without a feasible tour left out)\n",
			len(labels.Insts), cfg.Imitate, len(labels.Chunks), labels.Skipped)
	}
	m, err := models.New(cfg.Model, cfg.Backend, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("trainer: model: %w", err)
	}
	sg, err := newStepGraph(m, cfg)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	t := &Trainer{cfg: cfg, opt: opt, model: m, policy: m.Policy(), step: sg, dec: &lazymask.Decoder{Workers: opt.HostWorkers},
		rbs: map[int]*ReplayBatch{}, rls: map[int]*ReplayBatch{}, train: train, val: val, labels: labels}
	t.rb = t.replay(cfg.Size) // the batches of the run's (largest) size, made now as before
	if cfg.secondBatch() {
		t.rl = t.replaySecond(cfg.Size)
	}
	t.pipes = []lazymask.Policy{t.policy}
	for len(t.pipes) < opt.Pipelines {
		t.pipes = append(t.pipes, m.Policy())
	}

	t.pcg = rand.NewPCG(cfg.Seed, rngStream)
	keep := -1
	if ck != nil {
		if err := ck.Restore(m.Store()); err != nil {
			return nil, fmt.Errorf("resume: %w", err)
		}
		if err := t.pcg.UnmarshalBinary(ck.RNG); err != nil {
			return nil, fmt.Errorf("resume %s: rng state: %w", ck.Path, err)
		}
		t.done, t.seen, t.wall, t.lastVal = ck.Step, ck.InstancesSeen, ck.WallSeconds, ck.LastVal
		t.best, t.bestAt = ck.BestVal, ck.BestStep
		if b, err := ReadCheckpoint(filepath.Join(opt.Dir, BestFile)); err == nil && b.BestVal != nil {
			// best.lmck may be newer than the checkpoint it was resumed from.
			t.best, t.bestAt = b.BestVal, b.BestStep
		}
		keep = ck.Step
		fmt.Fprintf(opt.Log, "resumed %s at step %d of %d\n", ck.Path, ck.Step, cfg.Steps)
	}
	if warm != nil {
		w, err := warm.Weights(warm.Config.Model.Specs())
		if err == nil {
			w, err = carryWeights(m, w)
		}
		if err != nil {
			return nil, fmt.Errorf("init-from: %w", err)
		}
		if err := m.SetWeights(w); err != nil {
			return nil, fmt.Errorf("init-from %s: %w", warm.Path, err)
		}
		t.seen, t.wall = warm.InstancesSeen, warm.WallSeconds
		fmt.Fprintf(opt.Log, "weights from %s (step %d, %d instances)\n", warm.Path, warm.Step, warm.InstancesSeen)
	}
	if labels != nil {
		t.pickLabels(labels)
	}
	if warmModel != nil {
		w, err := carryWeights(m, warmModel)
		if err != nil {
			return nil, fmt.Errorf("init-from %s: %w", opt.InitFrom, err)
		}
		if err := m.SetWeights(w); err != nil {
			return nil, fmt.Errorf("init-from %s: %w", opt.InitFrom, err)
		}
		fmt.Fprintf(opt.Log, "weights from the model directory %s\n", opt.InitFrom)
	}
	t.rng = rand.New(t.pcg)
	if t.log, err = OpenMetricsLog(opt.Dir, keep); err != nil {
		return nil, err
	}
	return t, nil
}

// Config returns the run's configuration.
func (t *Trainer) Config() Config { return t.cfg }

// Model returns the model being trained.
func (t *Trainer) Model() *models.Model { return t.model }

// Step returns the number of completed steps.
func (t *Trainer) Step() int { return t.done }

// SetOnStep replaces the per-step callback of the options.
func (t *Trainer) SetOnStep(fn func(rec Record)) { t.opt.OnStep = fn }

// GraphTime is the wall time spent inside graph executions (rollout
// policy, replay and update) since the trainer was created or since the
// last ResetGraphTime.
func (t *Trainer) GraphTime() time.Duration { return t.model.GraphTime() + t.step.graph }

// ResetGraphTime sets GraphTime back to zero.
func (t *Trainer) ResetGraphTime() {
	t.model.ResetGraphTime()
	t.step.graph = 0
}

// Metrics returns the metrics log.
func (t *Trainer) Metrics() *MetricsLog { return t.log }

// Run trains until cfg.Steps, the context is cancelled or opt.StopAt is
// reached. It validates every ValEvery steps and at the end, checkpoints
// every CheckpointEvery steps, at the end and on interruption, and keeps
// the metrics log and the curve picture up to date. A non-finite loss
// returns an error wrapping ErrNonFinite without a checkpoint.
func (t *Trainer) Run(ctx context.Context) (Summary, error) {
	lastCkpt, lastValStep := -1, -1
	if t.lastVal != nil {
		lastValStep = t.done
	}
	if t.val != nil && t.done == 0 && t.lastVal == nil {
		// A baseline for the curve: the untrained policy.
		if err := t.validate(); err != nil {
			return t.summary(false), err
		}
		lastValStep = 0
	}
	for t.done < t.cfg.Steps {
		if ctx.Err() != nil || (t.opt.StopAt > 0 && t.done >= t.opt.StopAt) {
			if err := t.Checkpoint(); err != nil {
				return t.summary(true), err
			}
			fmt.Fprintf(t.opt.Log, "stopped at step %d; checkpoint written to %s\n", t.done, t.opt.Dir)
			return t.summary(true), t.writeCurve()
		}
		rec, err := t.TrainStep()
		if err != nil {
			return t.summary(false), err
		}
		if err := t.log.Append(rec); err != nil {
			return t.summary(false), err
		}
		if t.opt.OnStep != nil {
			t.opt.OnStep(rec)
		}
		if t.val != nil && t.cfg.ValEvery > 0 && t.done%t.cfg.ValEvery == 0 {
			if err := t.validate(); err != nil {
				return t.summary(false), err
			}
			lastValStep = t.done
		}
		if t.cfg.SnapshotEvery > 0 && t.done%t.cfg.SnapshotEvery == 0 {
			if err := t.snapshot(); err != nil {
				return t.summary(false), err
			}
		}
		if t.cfg.CheckpointEvery > 0 && t.done%t.cfg.CheckpointEvery == 0 {
			if err := t.Checkpoint(); err != nil {
				return t.summary(false), err
			}
			lastCkpt = t.done
			if err := t.writeCurve(); err != nil {
				return t.summary(false), err
			}
		}
	}
	if t.val != nil && lastValStep != t.done {
		if err := t.validate(); err != nil {
			return t.summary(false), err
		}
	}
	if lastCkpt != t.done {
		if err := t.Checkpoint(); err != nil {
			return t.summary(false), err
		}
	}
	return t.summary(false), t.writeCurve()
}

func (t *Trainer) summary(interrupted bool) Summary {
	return Summary{Step: t.done, Interrupted: interrupted, InstancesSeen: t.seen, WallSeconds: t.wall, LastVal: t.lastVal}
}

// validate runs a validation pass and logs it.
func (t *Trainer) validate() error {
	vm, err := t.Validate()
	if err != nil {
		return err
	}
	fmt.Fprintf(t.opt.Log, "step %d validation: sol. infeasible %.2f%%, inst. infeasible %.2f%%, obj %.4f, gap %s (%.1fs)\n",
		t.done, 100*vm.SolInfeasible, 100*vm.InstInfeasible, vm.Obj, vm.GapText(), vm.Seconds)
	if err := t.log.Append(Record{Kind: KindVal, Step: t.done, Infeasible: vm.SolInfeasible, Val: &vm}); err != nil {
		return err
	}
	if !t.cfg.KeepBest || (t.best != nil && !vm.Better(*t.best)) {
		return nil
	}
	t.best, t.bestAt = &vm, t.done
	if err := t.save(BestFile); err != nil {
		return err
	}
	fmt.Fprintf(t.opt.Log, "step %d: best validation so far, weights written to %s\n", t.done, BestFile)
	return nil
}

// BestVal returns the best validation so far and its step (nil when the
// run has not validated or does not keep the best).
func (t *Trainer) BestVal() (*ValMetrics, int) { return t.best, t.bestAt }

// Validate evaluates the current weights on the validation set (greedy ×8,
// test semantics, budget ValBudget) and remembers the result.
func (t *Trainer) Validate() (ValMetrics, error) {
	if t.val == nil {
		return ValMetrics{}, errors.New("validate: no validation set configured")
	}
	vm, err := Validate(t.policy, t.val, t.cfg.LookaheadKind(), t.cfg.ValBudget, t.cfg.ValBatch)
	if err != nil {
		return vm, err
	}
	t.wall += vm.Seconds
	t.lastVal = &vm
	return vm, nil
}

// TrainStep runs one iteration: seeded instances, rollouts without
// gradients, advantages, and one replay-and-update step. It returns the
// iteration's record.
func (t *Trainer) TrainStep() (Record, error) {
	cfg := &t.cfg
	if cfg.Imitate != "" {
		return t.imitateStep()
	}
	start := time.Now()
	ro, err := t.rollout(false)
	if err != nil {
		return Record{}, err
	}
	t.rb = ro.rb
	insts, trajs := ro.insts, ro.trajs
	var gs GuideStats
	if cfg.Guide > 0 {
		adv := slices.Clone(t.rb.Advantage[:len(trajs)])
		var guides [][]lazymask.StepRecord
		if guides, gs, err = guideTours(insts, trajs, cfg.Samples, cfg, ro.seed); err != nil {
			return Record{}, fmt.Errorf("step %d: %w", t.done+1, err)
		}
		trajs = withGuides(trajs, guides, cfg.Samples, cfg.Guide, adv, t.rb.Advantage)
	}
	if err := t.rb.Fill(insts, trajs); err != nil {
		return Record{}, fmt.Errorf("step %d: %w", t.done+1, err)
	}
	lr := cfg.LRAt(t.done)
	res, err := t.update(lr)
	if err != nil {
		return Record{}, err
	}
	total := time.Since(start)
	t.done++
	t.seen += int64(cfg.Batch)
	t.wall += total.Seconds()
	st := ro.stats
	return Record{
		Kind: KindTrain, Step: t.done, Size: insts[0].N, Loss: res.Loss, Reward: st.Reward, PenCost: st.PenCost, Length: st.Length,
		Infeasible: st.Infeasible, Entropy: res.Entropy, GradNorm: res.GradNorm, Backtracks: st.Backtracks,
		GuideCost: gs.Cost, GuideGain: gs.Gain, GuideShare: guideShare(gs, cfg),
		LR: lr, Rho: ro.rho, RolloutSec: ro.sec, ReplaySec: total.Seconds() - ro.sec,
		InstPerSec: float64(cfg.Batch) / total.Seconds(),
	}, nil
}

// rollouts is one REINFORCE batch: the instances, their sampled
// trajectories and statistics, with the advantages written to the replay
// batch rb of their size.
type rollouts struct {
	rb    *ReplayBatch
	insts []*lazymask.Instance
	trajs []lazymask.Trajectory
	stats RolloutStats
	seed  uint64  // the rollout seed
	rho   float64 // the violation penalty of the step
	sec   float64 // wall time of generation, decoding and advantages
}

// rollout draws cfg.Batch seeded instances (generated, or of one size
// from the run's instance files), decodes cfg.Samples trajectories of each
// without gradients, and writes their shared-baseline advantages into the
// replay batch of their size: the first (replay) or, with second, the
// second one (replaySecond).
func (t *Trainer) rollout(second bool) (rollouts, error) {
	cfg := &t.cfg
	start := time.Now()
	instSeed, rollSeed := t.rng.Uint64(), t.rng.Uint64()
	var insts []*lazymask.Instance
	if t.train != nil {
		// Seeded by instSeed, so the run's PCG advances as a generated run's.
		insts = t.train.draw(rand.New(rand.NewPCG(instSeed, rngStream)), cfg.Batch)
	} else {
		gen, err := datasets.NewGenerator(datasets.GenConfig{Problem: cfg.ProblemKind(), N: cfg.Size, Hardness: cfg.Hardness, Seed: instSeed})
		if err != nil {
			return rollouts{}, fmt.Errorf("step %d: %w", t.done+1, err)
		}
		insts = make([]*lazymask.Instance, cfg.Batch)
		for i := range insts {
			insts[i], _ = gen.Next()
		}
	}
	rb := t.replay(insts[0].N)
	if second {
		rb = t.replaySecond(insts[0].N)
	}
	trajs, err := t.decode(insts, cfg.Samples, lazymask.Config{
		Lookahead: cfg.LookaheadKind(), Budget: cfg.Budget, Semantics: lazymask.Train, Seed: rollSeed, Record: true})
	if err != nil {
		return rollouts{}, fmt.Errorf("step %d: rollout: %w", t.done+1, err)
	}
	rho := cfg.PenaltyAt(t.done)
	st, err := Advantages(trajs, cfg.Samples, rho, cfg.NodePenalty, rb.Advantage)
	if err != nil {
		return rollouts{}, fmt.Errorf("step %d: %w", t.done+1, err)
	}
	return rollouts{rb: rb, insts: insts, trajs: trajs, stats: st, seed: rollSeed, rho: rho, sec: time.Since(start).Seconds()}, nil
}

// replay returns the first replay batch for instances of n nodes (made
// on first use: a run of several sizes keeps one per size).
func (t *Trainer) replay(n int) *ReplayBatch {
	rb := t.rbs[n]
	if rb == nil {
		rb = NewReplayBatch(t.cfg.replayBatch(), t.cfg.replaySamples(), n).withCand(t.model.Config())
		t.rbs[n] = rb
	}
	return rb
}

// replaySecond returns the second replay batch (rollouts, or DAgger
// states: one row per label with DaggerFailed) for n nodes.
func (t *Trainer) replaySecond(n int) *ReplayBatch {
	rb := t.rls[n]
	if rb == nil {
		p := t.cfg.Samples
		if t.cfg.DaggerFailed {
			p = 1
		}
		rb = NewReplayBatch(t.cfg.Batch, p, n).withCand(t.model.Config())
		t.rls[n] = rb
	}
	return rb
}

// decode decodes insts with the current network, split into
// Options.Pipelines groups when that is > 1 (DecodeSplit runs one policy
// as a plain Decode).
func (t *Trainer) decode(insts []*lazymask.Instance, perInst int, cfg lazymask.Config) ([]lazymask.Trajectory, error) {
	return t.dec.DecodeSplit(t.pipes, insts, perInst, cfg)
}

// guideShare is the share of instances with a guide tour (0 without
// guidance).
func guideShare(gs GuideStats, cfg *Config) float64 {
	if cfg.Guide == 0 {
		return 0
	}
	return float64(gs.Found) / float64(cfg.Batch)
}

// Checkpoint writes the run's state to opt.Dir atomically.
func (t *Trainer) Checkpoint() error { return t.save(CheckpointFile) }

// snapshot keeps this step's state as SnapshotDir/SnapshotName(step).
func (t *Trainer) snapshot() error {
	if err := os.MkdirAll(filepath.Join(t.opt.Dir, SnapshotDir), 0o755); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	return t.save(filepath.Join(SnapshotDir, SnapshotName(t.done)))
}

// save writes the run's state to opt.Dir/name atomically.
func (t *Trainer) save(name string) error {
	rng, err := t.pcg.MarshalBinary()
	if err != nil {
		return fmt.Errorf("checkpoint: rng state: %w", err)
	}
	st := State{Config: t.cfg, Step: t.done, InstancesSeen: t.seen, WallSeconds: t.wall, RNG: rng,
		LastVal: t.lastVal, BestVal: t.best, BestStep: t.bestAt, Hardware: Hardware(t.cfg.Backend)}
	return SaveCheckpointAs(t.opt.Dir, name, st, t.model.Store())
}

func (t *Trainer) writeCurve() error { return WriteCurve(t.opt.Dir, t.log.Records()) }

// InitSizes returns the model sizes of an --init-from source (a checkpoint,
// a run directory or an exported model directory), so that a warm start can
// take them instead of repeating them as flags.
func InitSizes(path string) (features.Config, error) {
	if isModelDir(path) {
		return features.ReadConfig(path)
	}
	ck, err := ReadCheckpoint(path)
	if err != nil {
		return features.Config{}, err
	}
	return ck.Config.Model, nil
}

// warmFits reports whether a run of model config to can start from the
// weights of a model of config from: the same encoder and sizes, and a
// decoder that keeps every block of from's (a format-1 model can start a
// format-2 run, whose new blocks start where they add nothing).
func warmFits(from, to features.Config) error {
	a, b := from, to
	a.TrainSize, a.Hardness = b.TrainSize, b.Hardness // architecture only
	a.Format, a.ReLD, a.Cand = b.Format, b.ReLD, b.Cand
	if a != b {
		return fmt.Errorf("model sizes %+v differ from this run's %+v", from, to)
	}
	if from.ReLD && !to.ReLD || from.Cand != features.CandNone && from.Cand != to.Cand {
		return fmt.Errorf("the model's decoder (reld %v, cand %q) has blocks this run's (reld %v, cand %q) would drop",
			from.ReLD, from.Cand, to.ReLD, to.Cand)
	}
	return nil
}

// carryWeights returns w completed with m's fresh weights for the
// parameters w lacks (the blocks a format-2 decoder adds).
func carryWeights(m *models.Model, w features.Weights) (features.Weights, error) {
	fresh, err := m.Weights()
	if err != nil {
		return nil, err
	}
	for name, t := range fresh {
		if _, ok := w[name]; !ok {
			w[name] = t
		}
	}
	return w, nil
}

// isModelDir reports whether path is an exported model directory (its
// config.json and ONNX files) rather than a run directory or checkpoint.
func isModelDir(path string) bool {
	for _, f := range []string{features.ConfigFile, features.EncoderFile, features.DecoderFile} {
		if st, err := os.Stat(filepath.Join(path, f)); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}
