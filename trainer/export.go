package trainer

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/lmask/lmask/internal/atomicfile"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/models"
	"github.com/lmask/lmask/models/features"
)

// ModelCardFile is the model card written beside the ONNX files.
const ModelCardFile = features.ModelCardFile

// Hardware describes this machine and the backend in one line, e.g.
// "linux/amd64, 2 CPUs (Intel Xeon ...), backend onnx".
func Hardware(backend string) string {
	cpu := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	s := fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if cpu != "" {
		s += " (" + cpu + ")"
	}
	return s + ", backend " + backend
}

// Export writes the current model to dir: the ONNX pair and config.json
// (models.(*Model).Export) and a MODEL_CARD.md with the run's facts.
func (t *Trainer) Export(dir string) error {
	rng, _ := t.pcg.MarshalBinary()
	st := State{Config: t.cfg, Step: t.done, InstancesSeen: t.seen, WallSeconds: t.wall, RNG: rng,
		LastVal: t.lastVal, Hardware: Hardware(t.cfg.Backend)}
	return exportModel(t.model, st, dir)
}

// ExportFinal writes the model of a finished run to dir: the weights of the
// best validation when they are not those of the last step (it returns that
// step), else the current model (it returns -1).
func (t *Trainer) ExportFinal(dir string) (int, error) {
	if b, at := t.BestVal(); b != nil && at != t.done {
		if _, err := ExportCheckpoint(filepath.Join(t.opt.Dir, BestFile), dir, "go"); err != nil {
			return -1, err
		}
		return at, nil
	}
	return -1, t.Export(dir)
}

// ExportCheckpoint loads the checkpoint in ckptDir into a model on the
// given backend ("" uses "go", which needs no native library) and exports
// it to dir like Trainer.Export. It returns the exported model config.
func ExportCheckpoint(ckptDir, dir, backend string) (features.Config, error) {
	ck, err := ReadCheckpoint(ckptDir)
	if err != nil {
		return features.Config{}, err
	}
	if backend == "" {
		backend = models.BackendGo
	}
	mc := ck.Config.Model
	m, err := models.New(mc, backend, ck.Config.Seed)
	if err != nil {
		return mc, fmt.Errorf("export: %w", err)
	}
	w, err := ck.Weights(mc.Specs())
	if err != nil {
		return mc, fmt.Errorf("export: %w", err)
	}
	if err := m.SetWeights(w); err != nil {
		return mc, fmt.Errorf("export %s: %w", ck.Path, err)
	}
	return mc, exportModel(m, ck.State, dir)
}

// exportModel writes m and its model card to dir.
func exportModel(m *models.Model, st State, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := m.Export(dir); err != nil {
		return fmt.Errorf("export %s: %w", dir, err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ModelCardFile), ModelCard(st)); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// ModelCard renders the model card of a run state as Markdown.
func ModelCard(st State) []byte {
	c := st.Config
	mc := c.Model
	var b bytes.Buffer
	fmt.Fprintf(&b, "# lmask policy: %s-%d %s\n\n", strings.ToUpper(c.Problem), c.Size, c.Hardness)
	method := "REINFORCE"
	switch {
	case c.PureImitation():
		method = "imitation of local-search tours"
	case c.Imitate != "":
		method = "REINFORCE mixed with imitation of local-search tours"
	}
	fmt.Fprintf(&b, "A LazyMask attention policy (encoder %d×(%d heads, d=%d, FFN %d), RIE %v) trained with %s.\n\n",
		mc.Layers, mc.Heads, mc.DModel, mc.FFN, mc.RIE, method)
	b.WriteString("## Training\n\n| fact | value |\n|---|---|\n")
	row := func(k string, v any) { fmt.Fprintf(&b, "| %s | %v |\n", k, v) }
	row("problem", c.Problem)
	sizes := fmt.Sprint(c.Size)
	if len(c.Sizes) > 1 {
		sizes = fmt.Sprint(c.Sizes)
	}
	if len(c.TrainData) > 0 {
		var names []string
		for _, f := range c.TrainData {
			names = append(names, fmt.Sprintf("%s (%d rows, sha256 %.12s…)", filepath.Base(f.Path), f.Rows, f.SHA256))
		}
		split := ""
		if c.ValSplit > 0 {
			split = fmt.Sprintf("; a share %g kept out for validation", c.ValSplit)
		}
		row("train data", fmt.Sprintf("instance files %s, N = %s nodes (depot included), one size per batch, run seed %d%s",
			strings.Join(names, ", "), sizes, c.Seed, split))
	} else {
		row("generator", fmt.Sprintf("lmask datasets generator v%s, %s, N = %s nodes (depot included), run seed %d",
			datasets.GeneratorVersion, c.Hardness, sizes, c.Seed))
	}
	row("model sizes", fmt.Sprintf("layers %d, d_model %d, heads %d, ffn %d, rie %v, %d parameters",
		mc.Layers, mc.DModel, mc.Heads, mc.FFN, mc.RIE, paramCount(mc)))
	row("decoder", decoderText(mc))
	row("steps", fmt.Sprintf("%d of %d", st.Step, c.Steps))
	if c.Imitate != "" {
		lab := fmt.Sprintf("label set %s (lmask-data label; its labels.json names the generator seed and the search), %d labels",
			labelSetNames(c.Imitate), c.ImitateLabels)
		switch {
		case c.PureImitation():
			row("imitation", fmt.Sprintf("%s; %d label tours per step, each under a random dihedral transform, replayed under the LazyMask masks; loss: their mean negative log-likelihood, no rollout", lab, c.ImitateBatch))
		case c.DaggerFailed:
			row("imitation", fmt.Sprintf("%s; %d label tours per step, as above, plus %g × the mean negative log-likelihood of the label's next allowed node in the states of the step's greedy decodes that end without a feasible tour (DAgger on failures, up to %d a step) in the same update", lab, c.ImitateBatch, c.Dagger, c.Batch))
		case c.Dagger > 0:
			row("imitation", fmt.Sprintf("%s; %d label tours per step, as above, plus %g × the mean negative log-likelihood of the label's next allowed node in the states of %d of them × %d sampled decodes (DAgger) in the same update", lab, c.ImitateBatch, c.Dagger, c.Batch, c.Samples))
		default:
			row("imitation", fmt.Sprintf("%s; %d label tours per step, as above, plus %g × the REINFORCE loss (entropy %g) of %d generated instances × %d samples in the same update", lab, c.ImitateBatch, c.RLWeight, c.Entropy, c.Batch, c.Samples))
		}
		row("tours seen", st.InstancesSeen)
	} else {
		row("batch × samples", fmt.Sprintf("%d instances × %d samples", c.Batch, c.Samples))
		row("instances seen", st.InstancesSeen)
	}
	if w := c.Warm; w != nil && w.Model {
		row("warm start", fmt.Sprintf("weights of the model %s (%s-%d %s); its own training is on its card and not counted here",
			filepath.Base(filepath.Clean(w.Checkpoint)), strings.ToUpper(w.Problem), w.Size, w.Hardness))
	} else if w != nil {
		row("warm start", fmt.Sprintf("weights of %s (%s-%d %s, step %d, %d instances, %s); instances seen and wall time include it",
			filepath.Base(filepath.Dir(w.Checkpoint)), strings.ToUpper(w.Problem), w.Size, w.Hardness, w.Step, w.InstancesSeen,
			time.Duration(w.WallSeconds*float64(time.Second)).Round(time.Second)))
	}
	if !c.PureImitation() {
		row("rollouts", fmt.Sprintf("look-ahead %s, budget R = %d, train semantics", c.Lookahead, c.Budget))
	}
	row("optimiser", fmt.Sprintf("AdamW lr %g (×0.1 at steps %v), weight decay %g, gradient-norm clip %g",
		c.LR, c.Milestones, c.WeightDecay, c.Clip))
	if !c.PureImitation() {
		row("penalty", penaltyText(c))
		row("entropy λ", c.Entropy)
	}
	if c.Guide > 0 {
		how := fmt.Sprintf("each instance's best sample improved by local search (%d kicks)", c.GuideKicks)
		if c.GuideStarts > 1 {
			how = fmt.Sprintf("local search from each instance's %d best distinct samples (at most), the best local optimum then kicked %d times", c.GuideStarts, c.GuideKicks)
		}
		row("local-search guidance", fmt.Sprintf("β = %g: %s; β × the resulting tour's log-likelihood joins the objective", c.Guide, how))
	}
	row("wall time", (time.Duration(st.WallSeconds * float64(time.Second))).Round(time.Second).String())
	row("hardware", st.Hardware)
	b.WriteString("\n## Validation\n\n")
	if st.LastVal == nil {
		b.WriteString("No validation set was used.\n")
	} else {
		v := st.LastVal
		fmt.Fprintf(&b, "Greedy decoding of the 8 dihedral transforms, test semantics, budget R = %d, on %d instances of %s: "+
			"lmask-train's last validation of the run, with its weights at that step and its training backend (hardware "+
			"above), so `lmask-infer` with the exported files need not reproduce it exactly.\n\n",
			c.ValBudget, v.Instances, filepath.Base(c.ValFile))
		b.WriteString("| metric | value |\n|---|---|\n")
		row("solution infeasibility", fmt.Sprintf("%.2f%%", 100*v.SolInfeasible))
		row("instance infeasibility", fmt.Sprintf("%.2f%%", 100*v.InstInfeasible))
		row("objective (mean best length)", fmt.Sprintf("%.4f", v.Obj))
		row("gap", v.GapText())
	}
	b.WriteString("\n## Intended use\n\nInference with `lmask-infer` (encoder.onnx + decoder.onnx, contract format " +
		fmt.Sprint(mc.Format) + ") on instances of the same problem and a similar size and distribution.\n")
	return b.Bytes()
}

func penaltyText(c Config) string {
	if c.PenaltyGrowth == 1 {
		return fmt.Sprintf("ρ = %g (fixed), ρ_n = %g", c.Penalty, c.NodePenalty)
	}
	return fmt.Sprintf("ρ_t = min(%g^t·%g, %g), t = step/%d; ρ_n = %g", c.PenaltyGrowth, c.Penalty, c.PenaltyMax, c.PenaltyEvery, c.NodePenalty)
}

// labelSetNames lists the base names of the comma-separated label sets.
func labelSetNames(imitate string) string {
	var names []string
	for _, d := range strings.Split(imitate, ",") {
		names = append(names, filepath.Base(filepath.Clean(d)))
	}
	return strings.Join(names, " + ")
}

// decoderText names a model's decoder for its card.
func decoderText(mc features.Config) string {
	s := "the paper's (POMO) decoder"
	if mc.ReLD {
		s = "ReLD (glimpse residual and FFN)"
	}
	if mc.Cand != features.CandNone {
		s += fmt.Sprintf(", %d per-candidate features entering as %s", mc.CandWidth(), mc.Cand)
	}
	return s + fmt.Sprintf(", model format %d", mc.Format)
}
