// Package trainer trains the LazyMask policy with REINFORCE.
//
// Every iteration draws a seeded batch of instances, rolls out P samples per
// instance with lazymask.Decode (train semantics, budget R) using the
// current weights without gradients, and then replays the kept steps of all
// trajectories in one teacher-forced GoMLX graph that computes their
// log-likelihoods and entropies with gradients. The loss is
//
//	loss = −mean(A·loglik) − λ·mean(entropy),  A = R_pen − mean_P(R_pen),  R_pen = −Ψ,
//	Ψ = length + ρ·Σviolation + ρ_n·#violated nodes,
//
// minimised by AdamW with learning-rate milestones and global gradient-norm
// clipping. Validation decodes a Parquet set greedily on its 8 dihedral
// transforms with test semantics. Checkpoints (weights, optimiser state,
// step, RNG state and the full Config) are written atomically; a resumed run
// continues exactly. Metrics go to a JSON-lines log and an SVG curve.
//
//	cfg := trainer.DefaultConfig("tsptw", 20, "medium")
//	cfg.Steps = 200
//	tr, err := trainer.New(cfg, trainer.Options{Dir: "runs/tw20"})
//	if err != nil { ... }
//	defer tr.Close()
//	sum, err := tr.Run(ctx) // then tr.Export("models/tw20")
package trainer
