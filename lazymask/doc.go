// Package lazymask holds the problem semantics of TSPTW and TSPDL and the
// LazyMask decoding method: instances, the independent tour checker,
// look-ahead masks (SSL, TSL), budgeted backtracking, refinement-intensity
// features, and a batched, policy-driven decoder.
//
// It imports the standard library only. Decisions come from a Policy, which
// may be a neural network run by GoMLX or onnxruntime, or a heuristic.
//
//	inst := &lazymask.Instance{Problem: lazymask.TSPTW, N: 3, Scale: 1,
//		X: []float64{0, 0, 1}, Y: []float64{0, 1, 1},
//		Early: []float64{0, 0, 0}, Late: []float64{10, 1, 3}, Service: make([]float64, 3)}
//	res, err := lazymask.Check(inst, []int{0, 1, 2}) // err == nil, res.Cost = 2 + √2
package lazymask
