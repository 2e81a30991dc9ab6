// Package features is the one place that turns LazyMask decoding state into
// model inputs, for training (GoMLX) and inference (onnxruntime) alike, and
// that fixes the model's I/O contract: ONNX input/output names, feature
// widths, metadata keys, the model Config and the canonical parameter names.
//
// It imports the standard library and lazymask only.
//
//	feat := features.NodeFeaturesOf(inst)              // [N,4]
//	row := make([]float32, features.StepFeatures)
//	features.StepFeaturesInto(row, t, features.StateScale(inst), refine, budgetReached)
package features
