package engine

import (
	"context"
	"reflect"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// Sampled tours depend on (seed, instance index, augmentation, sample)
// only: --batch 1, 7 and the default, one or two workers, and a solve in
// two parts (SolveFrom) all give the same tours; another seed does not.
func TestSampledToursIgnoreBatching(t *testing.T) {
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		t.Run(p.String(), func(t *testing.T) {
			insts := randomInstances(p, 11, 10, 21)
			tours := func(sols []Solution) [][]int {
				var out [][]int
				for _, s := range sols {
					for _, tr := range s.Tours {
						out = append(out, tr.Nodes)
					}
				}
				return out
			}
			solve := func(workers, batch int, seed uint64) [][]int {
				e := openToy(t, p, workers)
				sols, err := e.Solve(insts, SolveOptions{Budget: 5, Batch: batch, Samples: 3, Aug: 2, Seed: seed, AllTours: true})
				if err != nil {
					t.Fatal(err)
				}
				return tours(sols)
			}
			want := solve(1, 0, 7)
			for _, c := range []struct{ workers, batch int }{{1, 1}, {1, 7}, {2, 1}, {2, 7}, {2, 0}, {3, 2}} {
				if got := solve(c.workers, c.batch, 7); !reflect.DeepEqual(got, want) {
					t.Errorf("workers %d batch %d: sampled tours differ from the default batching", c.workers, c.batch)
				}
			}
			if reflect.DeepEqual(solve(1, 0, 8), want) {
				t.Error("another seed gives the same tours")
			}
			// Rows 0..4 and 5..10 solved apart, each part with its first
			// row index, equal the whole file; the second part counted
			// from 0 does not.
			e := openToy(t, p, 2)
			s, err := e.NewSolver(SolveOptions{Budget: 5, Batch: 3, Samples: 3, Aug: 2, Seed: 7, AllTours: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			a, err := s.SolveFrom(context.Background(), 0, insts[:5])
			if err != nil {
				t.Fatal(err)
			}
			b, err := s.SolveFrom(context.Background(), 5, insts[5:])
			if err != nil {
				t.Fatal(err)
			}
			if got := append(tours(a), tours(b)...); !reflect.DeepEqual(got, want) {
				t.Error("a solve in two parts differs from the whole")
			}
			c, _ := s.SolveContext(context.Background(), insts[5:])
			if reflect.DeepEqual(tours(c), tours(b)) {
				t.Error("the instance index does not reach the streams")
			}
		})
	}
}

func TestStreamSeed(t *testing.T) {
	seen := map[uint64][4]uint64{}
	for seed := uint64(0); seed < 3; seed++ {
		for inst := uint64(0); inst < 20; inst++ {
			for aug := uint64(0); aug < 8; aug++ {
				for s := uint64(0); s < 5; s++ {
					v := streamSeed(seed, inst, aug, s)
					if prev, ok := seen[v]; ok {
						t.Fatalf("streamSeed%v = streamSeed%v", [4]uint64{seed, inst, aug, s}, prev)
					}
					seen[v] = [4]uint64{seed, inst, aug, s}
				}
			}
		}
	}
}
