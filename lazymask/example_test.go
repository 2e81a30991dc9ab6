package lazymask_test

import (
	"fmt"

	"github.com/lmask/lmask/lazymask"
)

func ExampleDecode() {
	inst := &lazymask.Instance{Problem: lazymask.TSPTW, N: 3, Scale: 1,
		X: []float64{0, 0, 1}, Y: []float64{0, 1, 1},
		Early: []float64{0, 0, 0}, Late: []float64{10, 1, 3}, Service: make([]float64, 3)}
	trajs, err := lazymask.Decode(&lazymask.RandomL{}, []*lazymask.Instance{inst}, 1,
		lazymask.Config{Lookahead: lazymask.LookTSL, Budget: 200, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(trajs[0].Tour, trajs[0].Feasible, trajs[0].Backtracks)
	fmt.Printf("%.4f\n", trajs[0].Cost)
	// Output:
	// [0 1 2] true 0
	// 3.4142
}

func ExampleState() {
	third := 1.0 / 3
	inst := &lazymask.Instance{Problem: lazymask.TSPDL, N: 4, Scale: 1,
		X: []float64{0, 1, 1, 0}, Y: []float64{0, 0, 1, 1},
		Demand: []float64{0, third, third, third}, Draft: []float64{1, 1, 1, third}}
	s := lazymask.NewState(inst.N)
	if err := s.Reset(inst, lazymask.LookSSL, lazymask.Unlimited, lazymask.Test); err != nil {
		panic(err)
	}
	for {
		mv := s.Next()
		if mv == lazymask.Finished {
			break
		}
		if mv == lazymask.Forward {
			for j, ok := range s.Mask() { // lowest-index candidate
				if ok {
					_ = s.Step(j)
					break
				}
			}
		}
	}
	fmt.Println(s.Status(), s.Prefix(), s.Backtracks())
	// Output: complete [0 3 1 2] 2
}
