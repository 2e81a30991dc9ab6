package models

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
)

// benchBackends lists the backends to benchmark: go always, onnx when the
// ORT library is configured.
func benchBackends() []string {
	out := []string{BackendGo}
	if lib := os.Getenv(ORTLibraryEnv); lib != "" {
		if _, err := os.Stat(lib); err == nil {
			out = append(out, BackendONNX)
		}
	}
	return out
}

func benchModel(b *testing.B, backend string) *Model {
	m, err := New(features.DefaultConfig(lazymask.TSPTW), backend, 1)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkEncoder runs the reference-size encoder (6×128, 8 heads, FFN
// 512) on B=64 instances of N=51 nodes.
func BenchmarkEncoder(b *testing.B) {
	for _, backend := range benchBackends() {
		b.Run(backend, func(b *testing.B) {
			m := benchModel(b, backend)
			const bs, n = 64, 51
			x := tensors.FromFlatDataAndDimensions(randomNodeFeat(rand.New(rand.NewPCG(1, 1)), bs, n), bs, n, 4)
			enc, err := m.encodeTensor(x, false) // compile outside the timer
			if err != nil {
				b.Fatal(err)
			}
			enc.Release()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				enc, err := m.encodeTensor(x, false)
				if err != nil {
					b.Fatal(err)
				}
				enc.Release()
			}
		})
	}
}

// BenchmarkPolicyScores scores 3,200 rows (16 instances × 200 rows each,
// N=51) with the reference-size model, through Policy.Scores.
func BenchmarkPolicyScores(b *testing.B) {
	for _, backend := range benchBackends() {
		b.Run(backend, func(b *testing.B) {
			m := benchModel(b, backend)
			rng := rand.New(rand.NewPCG(2, 2))
			insts := benchInstances(rng)
			pol := m.Policy()
			defer pol.Close()
			benchScores(b, pol, insts, randomStepBatch(rng, 3200, 16, 51))
		})
	}
}

// benchInstances draws the benchmarks' 16 TSPTW instances of 51 nodes.
func benchInstances(rng *rand.Rand) []*lazymask.Instance {
	insts := make([]*lazymask.Instance, 16)
	for i := range insts {
		insts[i] = randomInstance(rng, lazymask.TSPTW, 51)
	}
	return insts
}

// benchScores encodes insts once, scores sb once untimed (compilation),
// then times b.N calls of Policy.Scores.
func benchScores(b *testing.B, pol *Policy, insts []*lazymask.Instance, sb *lazymask.StepBatch) {
	if err := pol.Begin(insts); err != nil {
		b.Fatal(err)
	}
	out := make([]float32, sb.Rows()*sb.N)
	if err := pol.Scores(sb, out); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := pol.Scores(sb, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplayTrainStep runs one training step: teacher-forced replay of
// B=16 instances × P=50 rollouts × T=50 steps (N=51), backward through
// decoder and encoder, global-norm clipping and Adam.
func BenchmarkReplayTrainStep(b *testing.B) {
	for _, backend := range benchBackends() {
		b.Run(backend, func(b *testing.B) {
			m := benchModel(b, backend)
			r := randomReplay(rand.New(rand.NewPCG(3, 3)), 16, 50, 50, 51)
			in := r.Tensors()
			step := trainStepExec(b, m)
			if _, err := step.Call(in...); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out, err := step.Call(in...)
				if err != nil {
					b.Fatal(err)
				}
				for _, t := range out {
					t.FinalizeAll()
				}
			}
		})
	}
}

// BenchmarkPolicyScoresTrain scores 256 rows (16 instances × 16 rows,
// N=51), the size of one rollout step of a batch-16 × 16-sample training
// iteration, through Policy.Scores with the folded step and with the
// direct grouped step.
func BenchmarkPolicyScoresTrain(b *testing.B) {
	for _, backend := range benchBackends() {
		m := benchModel(b, backend)
		for _, direct := range []bool{false, true} {
			name := backend + "/folded"
			if direct {
				name = backend + "/direct"
			}
			b.Run(name, func(b *testing.B) {
				rng := rand.New(rand.NewPCG(4, 4))
				insts := benchInstances(rng)
				pol := m.Policy()
				pol.direct = direct
				defer pol.Close()
				sb := randomStepBatch(rng, 256, 16, 51)
				for i := range sb.Inst {
					sb.Inst[i] = i / 16
				}
				benchScores(b, pol, insts, sb)
			})
		}
	}
}

// BenchmarkPolicyRollout runs one sampled LazyMask rollout as in training:
// 16 TSPTW instances of N=51 × 16 trajectories each, TSL, budget 15.
func BenchmarkPolicyRollout(b *testing.B) {
	for _, backend := range benchBackends() {
		b.Run(backend, func(b *testing.B) {
			m := benchModel(b, backend)
			rng := rand.New(rand.NewPCG(5, 5))
			insts := benchInstances(rng)
			pol := m.Policy()
			defer pol.Close()
			dec := lazymask.NewDecoder()
			cfg := lazymask.Config{Lookahead: lazymask.LookTSL, Budget: 15, Semantics: lazymask.Train, Seed: 1, Record: true}
			if _, err := dec.Decode(pol, insts, 16, cfg); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := dec.Decode(pol, insts, 16, cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
