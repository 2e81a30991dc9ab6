// Package lazymask holds the problem semantics of TSPTW and TSPDL and the
// LazyMask decoding method: instances, the independent tour checker,
// look-ahead masks (SSL, TSL), budgeted backtracking, refinement-intensity
// features, and a batched, policy-driven decoder.
//
// It imports the standard library only. Decisions come from a Policy, which
// may be a neural network run by GoMLX or onnxruntime, or a heuristic
// (Uniform, RandomL, RandomC).
//
//	inst := &lazymask.Instance{Problem: lazymask.TSPTW, N: 3, Scale: 1,
//		X: []float64{0, 0, 1}, Y: []float64{0, 1, 1},
//		Early: []float64{0, 0, 0}, Late: []float64{10, 1, 3}, Service: make([]float64, 3)}
//	res, err := lazymask.Check(inst, []int{0, 1, 2}) // err == nil, res.Cost = 2 + √2
//
// Decoding with the two-step look-ahead and a budget of 200 backtracks, one
// sampled trajectory per instance:
//
//	trajs, err := lazymask.Decode(&lazymask.RandomL{}, []*lazymask.Instance{inst}, 1,
//		lazymask.Config{Lookahead: lazymask.LookTSL, Budget: 200, Seed: 1})
//	// trajs[0].Tour == [0 1 2], trajs[0].Feasible == true (decided by Check)
//
// State exposes the per-trajectory machine (Reset, Next, Step) for callers
// that drive decoding themselves; Decoder batches many of them and asks the
// policy once per iteration for the rows that advance.
package lazymask
