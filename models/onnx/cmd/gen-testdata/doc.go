// Command gen-testdata writes the tiny randomly initialised LMask models
// that tests of other packages load (engine/testdata/tiny-tsptw and
// tiny-tspdl): d=16, 2 heads, 2 layers, ffn 32, RIE on, train size 10,
// weights from features.RandomWeights with fixed seeds.
//
//	go run ./models/onnx/cmd/gen-testdata -out engine/testdata
package main
