// Package engine runs exported LMask models (encoder.onnx, decoder.onnx and
// config.json in one directory) with onnxruntime and solves instances with
// the LazyMask decoder of package lazymask.
//
// The onnxruntime shared library is loaded once per process: from
// ONNXRUNTIME_SHARED_LIBRARY_PATH when set, else from the first existing
// path of LibraryCandidates (the checkout's third_party/onnxruntime, where
// scripts/setup.sh installs it, the executable's folder, then system
// folders). Open refuses a model whose contract it does not know: the
// metadata format, the feature widths and the input/output names and types
// are compared with package models/features, and every mismatch is
// reported with what was expected and what was found.
//
// A Policy implements lazymask.Policy: Begin encodes the (augmented)
// instances once, writing the encoder outputs straight into the caches the
// decoder reads; Scores runs the decoder only for the rows it is given,
// with inputs built by models/features and its output written in place
// into the caller's score buffer. All data buffers are allocated once and
// reused; the onnxruntime tensor headers over them are created per run
// (under 1 µs each, against hundreds of µs per decoder run).
//
// Solve adds the evaluation protocol: 8 dihedral augmentations (or 1),
// greedy or seeded sampling, a backtrack budget, and the best tour per
// instance by lazymask.Check on the original instance. Batches of
// instances are decoded by Options.Workers goroutines, each with its own
// Policy and buffers, over the shared sessions.
//
//	e, err := engine.Open("runs/tsptw50/model", engine.Options{})
//	if err != nil { ... }
//	defer e.Close()
//	sols, err := e.Solve(insts, engine.SolveOptions{Aug: 8, Budget: 200})
//	// sols[i].Best.Nodes is the tour, sols[i].Best.Feasible the verdict of lazymask.Check.
package engine
