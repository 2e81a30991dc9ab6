package trainer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/lmask/lmask/internal/atomicfile"
	"io/fs"
	"math"
	"os"
	"path/filepath"
)

// MetricsFile is the JSON-lines metrics log inside a run directory.
const MetricsFile = "metrics.jsonl"

// Record kinds of the metrics log.
const (
	KindTrain = "train"
	KindVal   = "val"
)

// Record is one line of the metrics log: a training iteration
// (Kind "train") or a validation pass (Kind "val"). Unused fields are
// omitted.
type Record struct {
	Kind string `json:"kind"`
	Step int    `json:"step"`
	// Size is the N of the step's batch (every batch holds one size).
	Size int `json:"size,omitempty"`
	// Training iteration.
	Loss       float64 `json:"loss,omitempty"`
	Reward     float64 `json:"reward,omitempty"`
	PenCost    float64 `json:"pen_cost,omitempty"`
	Length     float64 `json:"length,omitempty"`
	Infeasible float64 `json:"infeasible"`
	Entropy    float64 `json:"entropy,omitempty"`
	// Imitation: mean log-likelihood of a label tour, and the mean
	// cross-entropy per step of it.
	LogLik   float64 `json:"loglik,omitempty"`
	StepNLL  float64 `json:"step_nll,omitempty"`
	GradNorm float64 `json:"grad_norm,omitempty"`
	// DAgger: share of the network's own steps that chose the expert's node.
	Agree      float64 `json:"agree,omitempty"`
	Backtracks float64 `json:"backtracks,omitempty"`
	// Local-search guidance: mean guide-tour length, mean relative gain
	// over the best sample, share of instances with a guide tour.
	GuideCost  float64 `json:"guide_cost,omitempty"`
	GuideGain  float64 `json:"guide_gain,omitempty"`
	GuideShare float64 `json:"guide_share,omitempty"`
	LR         float64 `json:"lr,omitempty"`
	Rho        float64 `json:"rho,omitempty"`
	RolloutSec float64 `json:"rollout_s,omitempty"`
	ReplaySec  float64 `json:"replay_s,omitempty"`
	InstPerSec float64 `json:"inst_per_s,omitempty"`
	// Validation pass.
	Val *ValMetrics `json:"val,omitempty"`
}

// ValMetrics are the paper's evaluation metrics on a validation set
// (greedy decoding of the 8 dihedral transforms, test semantics).
type ValMetrics struct {
	Instances int `json:"instances"`
	// SolInfeasible is the share of all tours that are infeasible or
	// missing; InstInfeasible the share of instances without a feasible
	// tour.
	SolInfeasible  float64 `json:"sol_infeasible"`
	InstInfeasible float64 `json:"inst_infeasible"`
	// Obj is the mean best feasible length over instances that have one
	// (NaN-free: 0 when none has).
	Obj float64 `json:"obj"`
	// Gap is the mean of (best − ref)/ref over instances with both a
	// feasible tour and a reference; HasGap says whether any had.
	Gap    float64 `json:"gap"`
	HasGap bool    `json:"has_gap"`
	// Seconds is the wall time of the validation pass.
	Seconds float64 `json:"seconds"`
}

// Better reports whether v beats o as a model-selection criterion: fewer
// instances without a feasible tour first (the paper selects checkpoints by
// instance feasibility), then the lower gap when both have one, else the
// lower mean length. Ties keep o.
func (v ValMetrics) Better(o ValMetrics) bool {
	if v.InstInfeasible != o.InstInfeasible {
		return v.InstInfeasible < o.InstInfeasible
	}
	if v.HasGap && o.HasGap {
		return v.Gap < o.Gap
	}
	return v.Obj < o.Obj
}

// GapText is the gap as a percentage, or "n/a" when the set has no
// references.
func (v ValMetrics) GapText() string {
	if !v.HasGap {
		return "n/a"
	}
	return fmt.Sprintf("%.2f%%", 100*v.Gap)
}

// MetricsLog appends records to a JSON-lines file and keeps them in memory
// for the training-curve picture.
type MetricsLog struct {
	path    string
	records []Record
}

// OpenMetricsLog opens dir/MetricsFile. Records after keepUpTo (steps
// beyond a resumed checkpoint) are dropped and the file is rewritten
// atomically with the rest, so a resumed run continues one consistent log.
// A fresh run (keepUpTo < 0) starts an empty log.
func OpenMetricsLog(dir string, keepUpTo int) (*MetricsLog, error) {
	l := &MetricsLog{path: filepath.Join(dir, MetricsFile)}
	if keepUpTo >= 0 {
		recs, err := parseMetrics(l.path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, r := range recs {
			if r.Step <= keepUpTo {
				l.records = append(l.records, r)
			}
		}
	}
	if err := l.rewrite(); err != nil {
		return nil, err
	}
	return l, nil
}

// ReadMetrics returns the records of the run directory dir (or of a
// metrics file named directly), without changing it.
func ReadMetrics(dir string) ([]Record, error) {
	path := dir
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		path = filepath.Join(dir, MetricsFile)
	}
	return parseMetrics(path)
}

// parseMetrics reads a metrics log; errors name the file (and the line).
func parseMetrics(path string) ([]Record, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("metrics log: %w", err)
	}
	var recs []Record
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("metrics log %s line %d: %w", path, line, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("metrics log %s after line %d: %w", path, line, err)
	}
	return recs, nil
}

// JoinStages concatenates the records of training stages run one after
// the other (a warm start continues a run under a new step counter): the
// steps of each stage are shifted past the last step of the stages before.
// It also returns the step at which each stage after the first begins.
func JoinStages(stages ...[]Record) (recs []Record, starts []int) {
	off := 0
	for k, stage := range stages {
		if k > 0 {
			starts = append(starts, off)
		}
		last := 0
		for _, r := range stage {
			last = max(last, r.Step)
			r.Step += off
			recs = append(recs, r)
		}
		off += last
	}
	return recs, starts
}

// rewrite writes all kept records to the file atomically.
func (l *MetricsLog) rewrite() error {
	var b bytes.Buffer
	for _, r := range l.records {
		line, err := json.Marshal(sanitize(r))
		if err != nil {
			return fmt.Errorf("metrics log: %w", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
		return fmt.Errorf("metrics log: %w", err)
	}
	return atomicfile.WriteFile(l.path, b.Bytes())
}

// Append adds a record to memory and to the end of the file.
func (l *MetricsLog) Append(r Record) error {
	l.records = append(l.records, r)
	line, err := json.Marshal(sanitize(r))
	if err != nil {
		return fmt.Errorf("metrics log: %w", err)
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("metrics log: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("metrics log %s: %w", l.path, err)
	}
	return f.Close()
}

// Records returns the records in order.
func (l *MetricsLog) Records() []Record { return l.records }

// Path returns the log file's path.
func (l *MetricsLog) Path() string { return l.path }

// sanitize replaces non-finite numbers, which JSON cannot hold, by zero
// (a non-finite loss stops the run before it is logged; this guards the
// rest).
func sanitize(r Record) Record {
	fix := func(v *float64) {
		if math.IsNaN(*v) || math.IsInf(*v, 0) {
			*v = 0
		}
	}
	for _, p := range []*float64{&r.Loss, &r.Reward, &r.PenCost, &r.Length, &r.Infeasible, &r.Entropy,
		&r.GradNorm, &r.Backtracks, &r.LR, &r.Rho, &r.RolloutSec, &r.ReplaySec, &r.InstPerSec} {
		fix(p)
	}
	if r.Val != nil {
		v := *r.Val
		for _, p := range []*float64{&v.SolInfeasible, &v.InstInfeasible, &v.Obj, &v.Gap, &v.Seconds} {
			fix(p)
		}
		r.Val = &v
	}
	return r
}
