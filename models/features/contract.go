package features

import (
	"fmt"
	"strconv"
)

// Widths of the model inputs.
const (
	// NodeFeatures is the width of a node-feature row.
	NodeFeatures = 4
	// StepFeatures is the width of a step-feature row: time or load, then
	// the 7-dim RIE one-hot.
	StepFeatures = 8
)

// ONNX input and output names of encoder.onnx.
const (
	EncoderFile   = "encoder.onnx"
	InNodeFeat    = "node_feat" // f32 [B,N,4]
	OutNodeEmb    = "node_emb"  // f32 [B,N,d]
	OutGlimpseK   = "glimpse_k" // f32 [B,N,d]
	OutGlimpseV   = "glimpse_v" // f32 [B,N,d]
	OutLogitK     = "logit_k"   // f32 [B,N,d]
	DecoderFile   = "decoder.onnx"
	InRowInstance = "row_instance" // i64 [R]
	InCurrent     = "current"      // i64 [R]
	InStepFeat    = "step_feat"    // f32 [R,8]
	InMask        = "mask"         // bool [R,N], true = allowed
	InCandFeat    = "cand_feat"    // f32 [R,N,K], format 2 with candidate features
	OutLogProbs   = "log_probs"    // f32 [R,N]
)

// EncoderOutputs lists encoder.onnx outputs in order; they are also the
// first four decoder.onnx inputs.
var EncoderOutputs = []string{OutNodeEmb, OutGlimpseK, OutGlimpseV, OutLogitK}

// DecoderInputs lists the decoder.onnx inputs of format 1 in order.
var DecoderInputs = []string{OutNodeEmb, OutGlimpseK, OutGlimpseV, OutLogitK, InRowInstance, InCurrent, InStepFeat, InMask}

// DecoderInputs lists the decoder.onnx inputs of a model of config c in
// order: format 1's, then cand_feat where the decoder reads it.
func (c Config) DecoderInputs() []string {
	in := append([]string(nil), DecoderInputs...)
	if c.CandWidth() > 0 {
		in = append(in, InCandFeat)
	}
	return in
}

// Metadata keys stored in the ONNX files' metadata_props.
const (
	MetaFormat       = "lmask.format"
	MetaProblem      = "lmask.problem"
	MetaDModel       = "lmask.d_model"
	MetaHeads        = "lmask.heads"
	MetaLayers       = "lmask.layers"
	MetaFFN          = "lmask.ffn"
	MetaRIE          = "lmask.rie"
	MetaNodeFeatures = "lmask.node_features"
	MetaStepFeatures = "lmask.step_features"
	MetaTrainSize    = "lmask.train_size"
	MetaReLD         = "lmask.reld"          // format 2
	MetaCand         = "lmask.cand"          // format 2: none, bias, keys or both
	MetaCandFeatures = "lmask.cand_features" // format 2: K of cand_feat (0 without)
)

// Metadata returns the config as ONNX metadata_props entries.
func (c Config) Metadata() map[string]string {
	m := map[string]string{
		MetaFormat:       strconv.Itoa(c.Format),
		MetaProblem:      c.Problem,
		MetaDModel:       strconv.Itoa(c.DModel),
		MetaHeads:        strconv.Itoa(c.Heads),
		MetaLayers:       strconv.Itoa(c.Layers),
		MetaFFN:          strconv.Itoa(c.FFN),
		MetaRIE:          strconv.FormatBool(c.RIE),
		MetaNodeFeatures: strconv.Itoa(NodeFeatures),
		MetaStepFeatures: strconv.Itoa(StepFeatures),
		MetaTrainSize:    strconv.Itoa(c.TrainSize),
	}
	if c.Format >= FormatVersion {
		m[MetaReLD] = strconv.FormatBool(c.ReLD)
		cand := c.Cand
		if cand == CandNone {
			cand = "none"
		}
		m[MetaCand] = cand
		m[MetaCandFeatures] = strconv.Itoa(c.CandWidth())
	}
	return m
}

// ConfigFromMetadata parses ONNX metadata_props written by Metadata. It
// fails, naming the key, the expected and the found value, when the file
// follows a contract this build does not know.
func ConfigFromMetadata(m map[string]string) (Config, error) {
	var c Config
	atoi := func(key string, dst *int) error {
		v, ok := m[key]
		if !ok {
			return fmt.Errorf("model metadata lacks %q (expected an lmask format-%d model)", key, FormatVersion)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("model metadata %q = %q: expected an integer", key, v)
		}
		*dst = n
		return nil
	}
	for _, kv := range []struct {
		k string
		p *int
	}{{MetaFormat, &c.Format}, {MetaDModel, &c.DModel}, {MetaHeads, &c.Heads}, {MetaLayers, &c.Layers}, {MetaFFN, &c.FFN}, {MetaTrainSize, &c.TrainSize}} {
		if err := atoi(kv.k, kv.p); err != nil {
			return c, err
		}
	}
	if c.Format != FormatPOMO && c.Format != FormatVersion {
		return c, fmt.Errorf("model metadata %q: expected %d or %d, found %d (a newer lmask wrote this model)", MetaFormat, FormatPOMO, FormatVersion, c.Format)
	}
	var nf, sf int
	if err := atoi(MetaNodeFeatures, &nf); err != nil {
		return c, err
	}
	if err := atoi(MetaStepFeatures, &sf); err != nil {
		return c, err
	}
	if nf != NodeFeatures || sf != StepFeatures {
		return c, fmt.Errorf("model feature layout: expected node/step features %d/%d, found %d/%d", NodeFeatures, StepFeatures, nf, sf)
	}
	c.Problem = m[MetaProblem]
	rie, err := strconv.ParseBool(m[MetaRIE])
	if err != nil {
		return c, fmt.Errorf("model metadata %q = %q: expected true or false", MetaRIE, m[MetaRIE])
	}
	c.RIE = rie
	if c.Format >= FormatVersion {
		if c.ReLD, err = strconv.ParseBool(m[MetaReLD]); err != nil {
			return c, fmt.Errorf("model metadata %q = %q: expected true or false", MetaReLD, m[MetaReLD])
		}
		cand, ok := m[MetaCand]
		if !ok {
			return c, fmt.Errorf("model metadata lacks %q (a format-%d model names its candidate-feature entry)", MetaCand, c.Format)
		}
		c.Cand = cand
		if c.Cand == "none" {
			c.Cand = CandNone
		}
		var k int
		if err := atoi(MetaCandFeatures, &k); err != nil {
			return c, err
		}
		if err := c.Validate(); err != nil {
			return c, err
		}
		if k != c.CandWidth() {
			return c, fmt.Errorf("model metadata %q: expected %d candidate features for %s, found %d", MetaCandFeatures, c.CandWidth(), c.Problem, k)
		}
	}
	return c, c.Validate()
}
