// Package solve is the part of the solve pipeline that needs no model:
// given instances and starting tours (decoded by a model, see
// engine.ImproveJobs, or by a heuristic, see Heuristic), it runs the local
// search from each instance's starts on a pool of workers, within a time
// share or a kick count, adds the urgency order where no start is feasible,
// replays every result with lazymask.Check and sums what the searches did.
// It imports only lazymask and localsearch, so training code can call it
// without onnxruntime.
//
//	jobs := []solve.Job{{Inst: inst, Starts: decodedTours, Seed: 1}}
//	opt := solve.Options{Search: localsearch.Options{MaxStarts: 8}, Urgency: true}
//	res, stats, err := solve.Improve(ctx, jobs, opt.WithShare(3.5, decodeTime))
//	// res[0].Improved: res[0].Search.Tour is feasible and beats every start.
package solve
