package trainer

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/models/features"
)

// CheckConfig validates a configuration before anything is written:
// Config.Validate, then problem, size and hardness through the
// instance generator every training step uses (Validate does not know the
// hardness levels).
func CheckConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if len(cfg.TrainData) > 0 {
		return nil // no generator
	}
	gc := datasets.GenConfig{Problem: cfg.ProblemKind(), N: cfg.Size, Hardness: cfg.Hardness, Seed: cfg.Seed}
	if _, err := datasets.NewGenerator(gc); err != nil {
		return opterr.Wrap("Hardness", strconv.Quote(cfg.Hardness), err)
	}
	return nil
}

// ParseInts parses a comma-separated list of integers (Config.Milestones).
func ParseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// DecoderOptions sets the decoder ("pomo" or "reld") and cand choices on
// m; its errors name the option (opterr): Decoder or Cand.
func DecoderOptions(m features.Config, decoder, cand string) (features.Config, error) {
	if decoder != "pomo" && decoder != "reld" {
		return m, opterr.New("Decoder", strconv.Quote(decoder), "want pomo or reld")
	}
	if cand == "none" {
		cand = features.CandNone
	}
	m = m.WithDecoder(decoder == "reld", cand)
	if err := m.Validate(); err != nil {
		return m, opterr.Wrap("Cand", "", err)
	}
	return m, nil
}

// LoadValidation reads the validation set (and its references) once, for
// Options.Val, so that a missing, unreadable or mismatched file
// (problem, size) stops the run with the option named (Val, ValRef) before its directory
// is made; nil when the run has no validation set.
func LoadValidation(cfg Config, valRef string) (*ValSet, error) {
	if cfg.ValFile == "" {
		return nil, nil
	}
	vs, err := LoadValSet(cfg.ValFile, "", cfg.ValLimit, cfg.ProblemKind(), cfg.ValSizes()...)
	if err != nil {
		return nil, opterr.Wrap("Val", "", err) // the error names the file
	}
	if valRef != "" {
		if err := vs.LoadRefs(valRef); err != nil {
			return nil, opterr.Wrap("ValRef", "", err)
		}
	}
	return vs, nil
}

// GivenSizes says which of a run's model sizes were chosen explicitly; the
// others come from the warm start's model (AdoptInitSizes).
type GivenSizes struct {
	Layers, DModel, Heads, FFN, RIE, Decoder, Cand bool
}

// AdoptInitSizes gives the run the initFrom model's sizes where given does
// not mark one as chosen, so a warm start need not repeat them (an explicit
// size that disagrees still fails, in New).
func AdoptInitSizes(m *features.Config, initFrom string, given GivenSizes) error {
	sz, err := InitSizes(initFrom)
	if err != nil {
		return opterr.Wrap("InitFrom", "", err)
	}
	if !given.Layers {
		m.Layers = sz.Layers
	}
	if !given.DModel {
		m.DModel = sz.DModel
	}
	if !given.Heads {
		m.Heads = sz.Heads
	}
	if !given.FFN {
		m.FFN = sz.FFN
	}
	if !given.RIE {
		m.RIE = sz.RIE
	}
	reld, cand := m.ReLD, m.Cand
	if !given.Decoder {
		reld = sz.ReLD
	}
	if !given.Cand {
		cand = sz.Cand
	}
	*m = m.WithDecoder(reld, cand)
	return nil
}

// AbsLabelSets makes each of the comma-separated label set folders v of
// Imitate absolute, so a resumed run finds them from any folder.
func AbsLabelSets(v string) (string, error) {
	var dirs []string
	for _, d := range strings.Split(v, ",") {
		if d == "" {
			return "", opterr.New("Imitate", strconv.Quote(v), "an empty label set name")
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", opterr.Wrap("Imitate", "", fmt.Errorf("label set %q: %w", d, err))
		}
		dirs = append(dirs, abs)
	}
	return strings.Join(dirs, ","), nil
}
