// Package models holds the GoMLX policy model of lmask: the encoder, one
// decoder step, and the teacher-forced replay of whole rollouts that the
// trainer differentiates. Its parameters carry the canonical names of
// features.Specs, so they can be read out as features.Weights, written to
// ONNX (package models/onnx) and compared with the pure-Go reference.
//
// Graph functions (Encoder, DecoderStep, DecoderStepGrouped, ReplayLogLik)
// take a model.Scope
// and create or reuse one variable per canonical name: the scope path of
// "enc/0/mha/q/w" is "/enc/0/mha/q" and the variable is "w". Model wraps a
// compute backend, a model.Store and cached executables; Policy adapts it
// to lazymask.Policy. MinimizeGraph and ClipByGlobalNorm build a clipped
// optimizer step inside a training graph on the same store.
//
// Masked entries: attention and pointer logits of masked nodes are replaced
// by MaskedLogit (−1e9) before the softmax, so a masked node gets exactly
// zero probability and a row whose mask is entirely false yields a uniform
// distribution instead of NaN. The log-probabilities of masked nodes are
// therefore very negative (about −1e9), never −inf.
package models
