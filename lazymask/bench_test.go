package lazymask

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"
)

// midState decodes inst with first-candidate choices up to depth and
// returns the state there.
func midState(b *testing.B, in *Instance, depth int) *State {
	s := NewState(in.N)
	if err := s.Reset(in, LookTSL, Unlimited, Train); err != nil {
		b.Fatal(err)
	}
	for s.Depth() < depth && s.Next() != Finished {
		if s.MaskCount() == 0 {
			continue
		}
		for j, ok := range s.Mask() {
			if ok {
				if err := s.Step(j); err != nil {
					b.Fatal(err)
				}
				break
			}
		}
	}
	return s
}

// BenchmarkTSLMask measures one row-step of the TSL initialisation (one
// op = one candidate set computed for one trajectory).
func BenchmarkTSLMask(b *testing.B) {
	for _, n := range []int{50, 100} {
		for _, dl := range []bool{false, true} {
			var in *Instance
			if dl {
				in = smallTSPDL(newRand(uint64(n)), n)
			} else {
				in = hardTSPTW(newRand(uint64(n)), n, 1)
			}
			for _, depth := range []int{0, n / 2} {
				b.Run(fmt.Sprintf("%v/n=%d/depth=%d", in.Problem, n, depth), func(b *testing.B) {
					s := midState(b, in, depth)
					d := s.Depth()
					for b.Loop() {
						s.initMask(d)
					}
				})
			}
		}
	}
}

// BenchmarkDecodeStep measures a batched decode of 256 or 2,048
// trajectories on hard TSPTW-50 and TSPTW-100 with Random-L scores, per
// row-step (one row sent to the policy and advanced, backtracks included),
// with the rows advanced on 1 goroutine and on GOMAXPROCS.
func BenchmarkDecodeStep(b *testing.B) {
	for _, n := range []int{50, 100} {
		for _, batch := range []int{32, 256} {
			for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
				b.Run(fmt.Sprintf("n=%d/trajectories=%d/workers=%d", n, 8*batch, workers), func(b *testing.B) { benchDecode(b, n, batch, workers) })
			}
		}
	}
}

func benchDecode(b *testing.B, n, batch, workers int) {
	r := newRand(11)
	insts := make([]*Instance, batch)
	for i := range insts {
		insts[i] = hardTSPTW(r, n, 1)
	}
	dc := &Decoder{Workers: workers}
	rec := &recorder{inner: &RandomL{}}
	cfg := Config{Budget: 200, Seed: 1}
	for b.Loop() {
		if _, err := dc.Decode(rec, insts, 8, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rec.rows), "ns/row-step")
	b.ReportMetric(float64(rec.rows)/float64(rec.calls), "rows/call")
}

// BenchmarkRandomLHard50 is the Random-L baseline on 10,000 hard TSPTW-50
// instances (reference §3.1 generator, W = 1): TSL, Test semantics, one
// trajectory per instance, greedy (nearest feasible neighbour) or sampled,
// with budgets R = 200 (the paper's setting for hard TSPTW-50) and R = 0.
// Run with -benchtime=1x.
func BenchmarkRandomLHard50(b *testing.B) {
	r := newRand(2025)
	insts := make([]*Instance, 10000)
	for i := range insts {
		insts[i] = hardTSPTW(r, 50, 1)
	}
	for _, mode := range []struct {
		name   string
		greedy bool
		budget int
	}{{"greedy/R=200", true, 200}, {"sampled/R=200", false, 200}, {"sampled/R=0", false, 0}} {
		b.Run(mode.name, func(b *testing.B) {
			cfg := Config{Budget: mode.budget, Seed: 2025, Greedy: mode.greedy}
			var tr []Trajectory
			start := time.Now()
			runs := 0
			for b.Loop() {
				var err error
				if tr, err = NewDecoder().Decode(&RandomL{}, insts, 1, cfg); err != nil {
					b.Fatal(err)
				}
				runs++
			}
			perRun := time.Since(start).Seconds() / float64(runs)
			failed, bt, cost, feas := 0, 0, 0.0, 0
			for _, g := range tr {
				bt += g.Backtracks
				if g.Feasible {
					feas++
					cost += g.Cost
				} else {
					failed++
				}
			}
			b.ReportMetric(perRun, "s/10k-inst")
			b.ReportMetric(100*float64(failed)/float64(len(tr)), "%infeasible")
			b.ReportMetric(float64(bt)/float64(len(tr)), "backtracks/inst")
			b.ReportMetric(cost/math.Max(1, float64(feas)), "obj")
		})
	}
}

// BenchmarkRolloutHost is the host's share of one REINFORCE rollout at the
// paper's training size (64 hard TSPTW-50 instances × 50 samples, TSL,
// budget 15, train semantics, steps recorded) with a policy that costs
// nothing: what one core must do per instance however fast the device is.
// With Uniform scores the trajectories are random walks, so the budget is
// spent more often than under a trained network. Reported per instance and
// as instances/s for 1 core.
func BenchmarkRolloutHost(b *testing.B) {
	r := newRand(7)
	insts := make([]*Instance, 64)
	for i := range insts {
		insts[i] = hardTSPTW(r, 50, 1)
	}
	for _, policy := range []struct {
		name string
		p    Policy
	}{{"uniform", Uniform{}}, {"random-l", &RandomL{}}} {
		b.Run(policy.name, func(b *testing.B) {
			dc := NewDecoder()
			cfg := Config{Budget: 15, Semantics: Train, Seed: 1, Record: true}
			for b.Loop() {
				if _, err := dc.Decode(policy.p, insts, 50, cfg); err != nil {
					b.Fatal(err)
				}
			}
			perInst := b.Elapsed().Seconds() / float64(b.N*len(insts))
			b.ReportMetric(1e3*perInst, "ms/inst")
			b.ReportMetric(1/perInst, "inst/s/core")
		})
	}
}
