package trainer

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
)

// Config is the full configuration of a training run. It is stored in every
// checkpoint, so a resumed run continues with exactly the same settings.
type Config struct {
	// Problem is "tsptw" or "tspdl"; Size is N (nodes, depot included);
	// Hardness is the generator's hardness ("easy", "medium", "hard").
	Problem  string `json:"problem"`
	Size     int    `json:"size"`
	Hardness string `json:"hardness"`
	// Sizes, in a run of several sizes (instance files, label sets), are
	// the sizes it trains on, ascending; Size is then the largest (the
	// model card's). Nil: Size alone.
	Sizes []int `json:"sizes,omitempty"`
	// TrainData, when set, are the instance files (with their stamps, which
	// a resumed run checks) that the REINFORCE batches are drawn from
	// instead of the generator (TrainSet); Hardness is then empty.
	// ValSplit > 0 keeps that share of their instances, drawn from Seed,
	// out of training as the validation set.
	TrainData []datasets.FileStamp `json:"train_data,omitempty"`
	ValSplit  float64              `json:"val_split,omitempty"`

	// Steps is the number of training iterations; Batch the instances per
	// iteration; Samples the trajectories P per instance (shared baseline).
	Steps   int `json:"steps"`
	Batch   int `json:"batch"`
	Samples int `json:"samples"`

	// Budget is the backtrack budget R of the training rollouts (train
	// semantics); Lookahead is "tsl", "ssl" or "none".
	Budget    int    `json:"budget"`
	Lookahead string `json:"lookahead"`

	// Model holds the policy sizes (d_model, heads, layers, ffn, rie).
	Model features.Config `json:"model"`

	// LR is the AdamW learning rate, multiplied by 0.1 at each milestone
	// step; WeightDecay the decoupled weight decay; Clip the global
	// gradient-norm limit (0 disables clipping).
	LR          float64 `json:"lr"`
	WeightDecay float64 `json:"weight_decay"`
	Milestones  []int   `json:"milestones"`
	Clip        float64 `json:"clip"`

	// Entropy is λ, the entropy bonus coefficient.
	Entropy float64 `json:"entropy"`

	// Penalty is ρ₀, the weight of the summed violation in the penalised
	// cost; with PenaltyGrowth γ ≠ 1 it follows ρ_t = min(γ^t·ρ₀, PenaltyMax)
	// where t counts steps in units of PenaltyEvery. NodePenalty is ρ_n, the
	// weight of the number of violated nodes.
	Penalty       float64 `json:"penalty"`
	PenaltyGrowth float64 `json:"penalty_growth"`
	PenaltyMax    float64 `json:"penalty_max"`
	PenaltyEvery  int     `json:"penalty_every"`
	NodePenalty   float64 `json:"node_penalty"`

	// Guide is β, the weight of a local-search imitation term (0: plain
	// REINFORCE): each iteration, every instance's best sample is improved
	// by local search with GuideKicks perturbations, and β times the
	// improved tour's log-likelihood under the policy joins the objective.
	// GuideStarts > 1 descends from that many of the instance's best
	// distinct samples instead (localsearch.ImproveFrom) and keeps the best.
	Guide       float64 `json:"guide,omitempty"`
	GuideKicks  int     `json:"guide_kicks,omitempty"`
	GuideStarts int     `json:"guide_starts,omitempty"`

	// Imitate names a label set folder, or several separated by commas
	// (datasets.ReadLabelSets; made by lmask-data label). Each step
	// replays ImitateBatch label tours teacher-forced under the LazyMask
	// masks and minimises their mean negative log-likelihood, with no
	// rollout. With RLWeight > 0 the same update adds RLWeight times the
	// REINFORCE loss of Batch generated instances × Samples rollouts, so
	// the penalty for dead ends and the states only backtracking reaches
	// shape the network alongside the labels. ImitateLimit caps the labels read (0: all).
	Imitate      string  `json:"imitate,omitempty"`
	ImitateBatch int     `json:"imitate_batch,omitempty"`
	ImitateLimit int     `json:"imitate_limit,omitempty"`
	RLWeight     float64 `json:"rl_mix,omitempty"`
	// Dagger > 0 adds, to each imitation update, Dagger times the mean
	// negative log-likelihood of expert choices in states the network
	// reaches itself: the first Batch labels of the step are decoded with
	// Samples sampled trajectories each (test semantics, the paper's
	// budget), and every kept step, including those after a backtrack, is
	// scored against the expert, the first node of the label tour that the
	// step's mask allows. It excludes RLWeight (both use the second batch).
	// DaggerFailed instead decodes all ImitateBatch labels of the step
	// greedily (the states evaluation visits) and keeps only the decodes
	// that end without a feasible tour, up to Batch of them, one row each:
	// the states where the network gets stuck.
	Dagger       float64 `json:"dagger,omitempty"`
	DaggerFailed bool    `json:"dagger_failed,omitempty"`
	// ImitateLabels is the number of labels the run's epochs go over, and
	// ImitateBase the step from which they do (set by the trainer; a
	// resumed run over a changed label set starts new epochs there).
	ImitateLabels int `json:"imitate_labels,omitempty"`
	ImitateBase   int `json:"imitate_base,omitempty"`

	// ValFile is a Parquet instances file for validation (empty: none);
	// ValEvery the validation period in steps; ValBudget the test-semantics
	// budget of the validation decode; ValLimit caps the instances used
	// (0: all); ValBatch the instances decoded per call.
	ValFile   string `json:"val_file,omitempty"`
	ValEvery  int    `json:"val_every"`
	ValBudget int    `json:"val_budget"`
	ValLimit  int    `json:"val_limit"`
	ValBatch  int    `json:"val_batch"`

	// CheckpointEvery is the checkpoint period in steps (0: only at the end
	// and on interrupt).
	CheckpointEvery int `json:"checkpoint_every"`
	// SnapshotEvery keeps a copy of the checkpoint every N steps under
	// SnapshotDir in the run directory (0: none), for averaging a run's
	// iterates afterwards (lmask-train average).
	SnapshotEvery int `json:"snapshot_every,omitempty"`
	// KeepBest writes the weights of the best validation so far
	// (ValMetrics.Better) to BestFile in the run directory.
	KeepBest bool `json:"keep_best"`

	// Warm is set when the run started from another run's trained weights
	// (Options.InitFrom); it records where they came from.
	Warm *WarmStart `json:"warm_start,omitempty"`

	// Backend names the GoMLX backend: "onnx", "go" or "xla:PATH".
	Backend string `json:"backend"`
	// Seed seeds the initial weights, the instance generator and the
	// rollouts.
	Seed uint64 `json:"seed"`
}

// WarmStart describes the checkpoint whose weights started a run: its
// path, problem, step and the instances and wall time it had used.
type WarmStart struct {
	Checkpoint string `json:"checkpoint"`
	// Model says Checkpoint is an exported model directory (its ONNX
	// weights); its training is on its own card, not counted here.
	Model         bool    `json:"model,omitempty"`
	Problem       string  `json:"problem"`
	Size          int     `json:"size"`
	Hardness      string  `json:"hardness"`
	Step          int     `json:"step"`
	InstancesSeen int64   `json:"instances_seen"`
	WallSeconds   float64 `json:"wall_seconds"`
}

// DefaultConfig returns the reference settings (lmask-reference §7) for a
// problem, size and hardness, with a batch small enough for a CPU.
func DefaultConfig(problem string, size int, hardness string) Config {
	p, err := lazymask.ParseProblem(problem)
	mc := features.DefaultConfig(lazymask.TSPTW)
	if err == nil {
		mc = features.DefaultConfig(p)
	}
	mc.TrainSize = size
	mc.Hardness = hardness
	c := Config{
		Problem: strings.ToLower(problem), Size: size, Hardness: hardness,
		Steps: 1000, Batch: 16, Samples: size,
		Budget: 15, Lookahead: "tsl", Model: mc,
		LR: 3e-4, WeightDecay: 1e-6, Clip: 1.0,
		Entropy: DefaultEntropy(problem, hardness),
		Penalty: 1, PenaltyGrowth: 1, PenaltyMax: 2, PenaltyEvery: 1, NodePenalty: 1,
		ValEvery: 100, ValBudget: DefaultValBudget(problem, size, hardness), ValBatch: 64,
		CheckpointEvery: 100, KeepBest: true,
		Backend: "onnx", Seed: 1234,
	}
	if size > 50 {
		c.LR = 1e-4
	}
	c.Milestones = DefaultMilestones(c.Steps)
	return c
}

// replaySamples is the number of trajectories per instance in the replay:
// one label tour when imitating; else the samples, plus the guide tour
// when guidance is on.
func (c *Config) replaySamples() int {
	if c.Imitate != "" {
		return 1
	}
	if c.Guide > 0 {
		return c.Samples + 1
	}
	return c.Samples
}

// PureImitation reports whether steps replay label tours only (no rollout).
func (c *Config) PureImitation() bool { return c.Imitate != "" && c.RLWeight == 0 && c.Dagger == 0 }

// secondBatch reports whether an imitation update also replays a second
// batch (REINFORCE rollouts or DAgger states).
func (c *Config) secondBatch() bool { return c.Imitate != "" && (c.RLWeight > 0 || c.Dagger > 0) }

// replayBatch is the number of instances per replay batch.
func (c *Config) replayBatch() int {
	if c.Imitate != "" {
		return c.ImitateBatch
	}
	return c.Batch
}

// DefaultMilestones returns the reference schedule's milestones (epochs
// 900 and 950 of 1000) scaled to a run of the given number of steps.
func DefaultMilestones(steps int) []int {
	return []int{steps * 9 / 10, steps * 95 / 100}
}

// DefaultEntropy returns the reference entropy coefficient λ: TSPTW easy
// 0.01, medium 0.05, hard 0; TSPDL 0.
func DefaultEntropy(problem, hardness string) float64 {
	if strings.EqualFold(problem, "tsptw") {
		switch hardness {
		case "easy":
			return 0.01
		case "medium":
			return 0.05
		}
	}
	return 0
}

// DefaultValBudget returns the paper's evaluation budget R
// (lazymask.PaperBudget): TSPTW-50 100/100/200, TSPTW-100 150/200/300
// (easy/medium/hard), TSPDL 150; the medium value where the hardness is
// unknown.
func DefaultValBudget(problem string, size int, hardness string) int {
	p := lazymask.TSPTW
	if strings.EqualFold(problem, "tspdl") {
		p = lazymask.TSPDL
	}
	if r, ok := lazymask.PaperBudget(p, size, hardness); ok {
		return r
	}
	r, _ := lazymask.PaperBudget(p, size, "medium")
	return r
}

// Validate checks every field and returns an error naming the first bad one.
func (c *Config) Validate() error {
	bad := func(field string, v any, why string) error {
		return fmt.Errorf("config %s = %v: %s", field, v, why)
	}
	p, err := lazymask.ParseProblem(c.Problem)
	if err != nil {
		return fmt.Errorf("config problem: %w", err)
	}
	if _, err := lazymask.ParseLookahead(c.Lookahead); err != nil {
		return fmt.Errorf("config lookahead: %w", err)
	}
	switch {
	case c.Size < 3:
		return bad("size", c.Size, "need at least 3 nodes (depot included)")
	case c.Steps < 0:
		return bad("steps", c.Steps, "must be ≥ 0")
	case c.Batch < 1:
		return bad("batch", c.Batch, "must be ≥ 1")
	case c.Samples < 2:
		return bad("samples", c.Samples, "the shared baseline needs ≥ 2 samples per instance")
	case c.Budget < 0:
		return bad("budget", c.Budget, "must be ≥ 0")
	case !(c.LR > 0) || math.IsInf(c.LR, 0):
		return bad("lr", c.LR, "must be positive and finite")
	case c.WeightDecay < 0 || math.IsNaN(c.WeightDecay):
		return bad("weight_decay", c.WeightDecay, "must be ≥ 0")
	case c.Clip < 0 || math.IsNaN(c.Clip):
		return bad("clip", c.Clip, "must be ≥ 0 (0 disables clipping)")
	case c.Entropy < 0 || math.IsNaN(c.Entropy):
		return bad("entropy", c.Entropy, "must be ≥ 0")
	case c.Penalty < 0 || math.IsNaN(c.Penalty):
		return bad("penalty", c.Penalty, "must be ≥ 0")
	case !(c.PenaltyGrowth > 0):
		return bad("penalty_growth", c.PenaltyGrowth, "must be > 0 (1 keeps ρ fixed)")
	case c.PenaltyMax < 0 || math.IsNaN(c.PenaltyMax):
		return bad("penalty_max", c.PenaltyMax, "must be ≥ 0")
	case c.PenaltyEvery < 1:
		return bad("penalty_every", c.PenaltyEvery, "must be ≥ 1")
	case c.NodePenalty < 0 || math.IsNaN(c.NodePenalty):
		return bad("node_penalty", c.NodePenalty, "must be ≥ 0")
	case c.Guide < 0 || math.IsNaN(c.Guide) || math.IsInf(c.Guide, 0):
		return bad("guide", c.Guide, "must be ≥ 0 and finite (0: no local-search guidance)")
	case c.GuideKicks < 0:
		return bad("guide_kicks", c.GuideKicks, "must be ≥ 0")
	case c.GuideStarts < 0 || c.GuideStarts > c.Samples:
		return bad("guide_starts", c.GuideStarts, fmt.Sprintf("must be between 0 and the samples per instance (%d); 0 or 1: the best sample only", c.Samples))
	case c.Imitate != "" && c.Guide > 0:
		return bad("guide", c.Guide, "local-search guidance and imitation of a label set exclude each other")
	case c.Imitate != "" && c.ImitateBatch < 1:
		return bad("imitate_batch", c.ImitateBatch, "must be ≥ 1 (label tours per step)")
	case c.ImitateLimit < 0:
		return bad("imitate_limit", c.ImitateLimit, "must be ≥ 0 (0: every label)")
	case c.RLWeight < 0 || math.IsNaN(c.RLWeight) || math.IsInf(c.RLWeight, 0):
		return bad("rl_weight", c.RLWeight, "must be ≥ 0 and finite")
	case c.RLWeight > 0 && c.Imitate == "":
		return bad("rl_weight", c.RLWeight, "mixes REINFORCE with imitation: needs a label set (imitate)")
	case c.Dagger < 0 || math.IsNaN(c.Dagger) || math.IsInf(c.Dagger, 0):
		return bad("dagger", c.Dagger, "must be ≥ 0 and finite")
	case c.Dagger > 0 && c.Imitate == "":
		return bad("dagger", c.Dagger, "scores the network's own states against label tours: needs a label set (imitate)")
	case c.Dagger > 0 && c.RLWeight > 0:
		return bad("dagger", c.Dagger, "excludes rl_weight: choose one of the two mixes")
	case c.DaggerFailed && c.Dagger == 0:
		return bad("dagger_failed", c.DaggerFailed, "selects the DAgger states: needs dagger > 0")
	case c.Dagger > 0 && c.Batch > c.ImitateBatch:
		return bad("batch", c.Batch, fmt.Sprintf("with dagger the first batch labels of a step are decoded: must be ≤ imitate_batch (%d)", c.ImitateBatch))
	case c.ValEvery < 0:
		return bad("val_every", c.ValEvery, "must be ≥ 0")
	case c.ValBudget < lazymask.Unlimited:
		return bad("val_budget", c.ValBudget, "must be ≥ 0, or -1 for unlimited")
	case c.ValLimit < 0:
		return bad("val_limit", c.ValLimit, "must be ≥ 0")
	case c.ValBatch < 1:
		return bad("val_batch", c.ValBatch, "must be ≥ 1")
	case !(c.ValSplit >= 0 && c.ValSplit < 1):
		return bad("val_split", c.ValSplit, "must be in [0, 1) (the share of the train data kept for validation)")
	case c.ValSplit > 0 && len(c.TrainData) == 0:
		return bad("val_split", c.ValSplit, "splits the train data: needs train_data")
	case c.ValSplit > 0 && c.ValFile != "":
		return bad("val_split", c.ValSplit, "and val_file are two validation sets: choose one")
	case len(c.TrainData) > 0 && len(c.Sizes) == 0:
		return bad("sizes", c.Sizes, "a run on train_data lists the sizes of its files")
	case c.CheckpointEvery < 0:
		return bad("checkpoint_every", c.CheckpointEvery, "must be ≥ 0")
	case c.SnapshotEvery < 0:
		return bad("snapshot_every", c.SnapshotEvery, "must be ≥ 0")
	case c.Backend == "":
		return errors.New("config backend: empty (want onnx, go or xla:PATH)")
	}
	for i, n := range c.Sizes {
		if n < 3 || (i > 0 && n <= c.Sizes[i-1]) || (i == len(c.Sizes)-1 && n != c.Size) {
			return bad("sizes", c.Sizes, fmt.Sprintf("must be ascending sizes ≥ 3, the last one size (%d)", c.Size))
		}
	}
	for i, m := range c.Milestones {
		if m < 0 || (i > 0 && m < c.Milestones[i-1]) {
			return bad("milestones", c.Milestones, "must be non-negative and ascending")
		}
	}
	if c.Model.Problem != p.String() {
		return bad("model.problem", c.Model.Problem, fmt.Sprintf("differs from problem %q", p))
	}
	if c.Model.TrainSize != c.Size {
		return bad("model.train_size", c.Model.TrainSize, fmt.Sprintf("differs from size %d", c.Size))
	}
	if err := c.Model.Validate(); err != nil {
		return fmt.Errorf("config model: %w", err)
	}
	return nil
}

// TrainSizes returns the sizes the run trains on: Sizes, or Size alone.
func (c *Config) TrainSizes() []int {
	if len(c.Sizes) > 0 {
		return c.Sizes
	}
	return []int{c.Size}
}

// ValSizes returns the sizes a validation set may hold: any (nil) in a
// run of several sizes or on instance files, else Size.
func (c *Config) ValSizes() []int {
	if len(c.Sizes) > 0 || len(c.TrainData) > 0 {
		return nil
	}
	return []int{c.Size}
}

// ProblemKind returns the problem as a lazymask.Problem (Validate first).
func (c *Config) ProblemKind() lazymask.Problem {
	p, _ := lazymask.ParseProblem(c.Problem)
	return p
}

// LookaheadKind returns the look-ahead rule (Validate first).
func (c *Config) LookaheadKind() lazymask.Lookahead {
	l, _ := lazymask.ParseLookahead(c.Lookahead)
	return l
}

// PenaltyAt returns ρ at a training step: ρ₀ when the schedule is fixed
// (γ = 1), else min(γ^t·ρ₀, ρ_max) with t = step / PenaltyEvery.
func (c *Config) PenaltyAt(step int) float64 {
	if c.PenaltyGrowth == 1 {
		return c.Penalty
	}
	every := max(c.PenaltyEvery, 1)
	rho := math.Pow(c.PenaltyGrowth, float64(step/every)) * c.Penalty
	return math.Min(rho, c.PenaltyMax)
}

// LRAt returns the learning rate at a step: LR × 0.1 per milestone reached
// (step ≥ milestone).
func (c *Config) LRAt(step int) float64 {
	lr := c.LR
	for _, m := range c.Milestones {
		if step >= m {
			lr *= 0.1
		}
	}
	return lr
}
