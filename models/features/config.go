package features

import (
	"encoding/json"
	"fmt"
	"github.com/lmask/lmask/internal/atomicfile"
	"os"
	"path/filepath"

	"github.com/lmask/lmask/lazymask"
)

// Versions of the model-directory / ONNX I/O contract. Format 1 is the
// paper's POMO decoder; format 2 adds the ReLD glimpse block and the
// per-candidate features (cand_feat) as options. Readers refuse a model
// whose format they do not know.
const (
	FormatPOMO    = 1
	FormatVersion = 2 // the newest format this build reads
)

// Ways the per-candidate features enter a format-2 decoder (Config.Cand).
const (
	CandNone = ""     // no candidate features
	CandBias = "bias" // an MLP of the features added to the pointer logit
	CandKeys = "keys" // an MLP of the features added to the glimpse keys, values and logit keys
	CandBoth = "both" // keys and bias from one shared hidden layer
)

// Model-size defaults of the reference architecture.
const (
	DefaultDModel = 128
	DefaultHeads  = 8
	DefaultLayers = 6
	DefaultFFN    = 512
	// TanhClip is the C in C·tanh(logit).
	TanhClip = 10.0
	// NormEps is the instance-normalisation epsilon.
	NormEps = 1e-5
)

// Config describes a policy model: problem and sizes. It is stored as
// config.json in a model directory and as metadata in the ONNX files.
type Config struct {
	Format    int    `json:"format"`
	Problem   string `json:"problem"` // "tsptw" or "tspdl"
	DModel    int    `json:"d_model"`
	Heads     int    `json:"heads"`
	Layers    int    `json:"layers"`
	FFN       int    `json:"ffn"`
	RIE       bool   `json:"rie"`
	TrainSize int    `json:"train_size"` // N (nodes incl. depot) used in training; 0 if unknown
	Hardness  string `json:"hardness,omitempty"`
	// Format 2 only: ReLD adds g = g + q; g = g + FFN(g) to the glimpse,
	// and Cand says how the per-candidate features enter (CandNone: not).
	ReLD bool   `json:"reld,omitempty"`
	Cand string `json:"cand,omitempty"`
}

// DefaultConfig returns the reference sizes for a problem.
func DefaultConfig(p lazymask.Problem) Config {
	return Config{Format: FormatPOMO, Problem: p.String(), DModel: DefaultDModel, Heads: DefaultHeads,
		Layers: DefaultLayers, FFN: DefaultFFN, RIE: true}
}

// WithDecoder returns c with the decoder options set and the format that
// holds them: 2 when ReLD or candidate features are on, else 1.
func (c Config) WithDecoder(reld bool, cand string) Config {
	c.ReLD, c.Cand = reld, cand
	c.Format = FormatPOMO
	if reld || cand != CandNone {
		c.Format = FormatVersion
	}
	return c
}

// CandWidth is the width K of the cand_feat rows the decoder reads: 0 for
// a decoder without candidate features.
func (c Config) CandWidth() int {
	if c.Cand == CandNone {
		return 0
	}
	return CandFeatureCount(c.ProblemKind())
}

// Validate checks that the sizes are usable.
func (c Config) Validate() error {
	switch c.Format {
	case FormatPOMO:
		if c.ReLD || c.Cand != CandNone {
			return fmt.Errorf("config: format 1 has no decoder options (reld %v, cand %q); they need format 2", c.ReLD, c.Cand)
		}
	case FormatVersion:
		switch c.Cand {
		case CandNone, CandBias, CandKeys, CandBoth:
		default:
			return fmt.Errorf("config: cand %q is not one of %q (none), bias, keys, both", c.Cand, CandNone)
		}
	default:
		return fmt.Errorf("model format %d is not supported (this build reads formats %d and %d)", c.Format, FormatPOMO, FormatVersion)
	}
	if _, err := lazymask.ParseProblem(c.Problem); err != nil {
		return fmt.Errorf("config problem: %w", err)
	}
	if c.DModel <= 0 || c.Heads <= 0 || c.DModel%c.Heads != 0 {
		return fmt.Errorf("config: d_model %d must be a positive multiple of heads %d", c.DModel, c.Heads)
	}
	if c.Layers < 0 || c.FFN <= 0 {
		return fmt.Errorf("config: layers %d / ffn %d invalid", c.Layers, c.FFN)
	}
	return nil
}

// ProblemKind returns the config's problem as a lazymask.Problem.
func (c Config) ProblemKind() lazymask.Problem {
	p, _ := lazymask.ParseProblem(c.Problem)
	return p
}

// QueryInputs is the width of the decoder query projection's input:
// d (current node embedding) + 1 (time or load) (+ 7 RIE).
func (c Config) QueryInputs() int {
	if c.RIE {
		return c.DModel + StepFeatures
	}
	return c.DModel + 1
}

// ConfigFile is the name of the configuration file in a model directory.
const ConfigFile = "config.json"

// ModelCardFile is the model card written beside the ONNX files.
const ModelCardFile = "MODEL_CARD.md"

// ModelFiles lists the files of a model directory.
var ModelFiles = []string{EncoderFile, DecoderFile, ConfigFile, ModelCardFile}

// ReadConfig reads dir/config.json and validates it.
func ReadConfig(dir string) (Config, error) {
	path := filepath.Join(dir, ConfigFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read model config: %w", err)
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("parse %s: %w", path, err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// WriteConfig writes dir/config.json atomically.
func WriteConfig(dir string, c Config) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ConfigFile), append(b, '\n'))
}
