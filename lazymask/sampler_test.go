package lazymask

import (
	"math"
	"testing"
)

func TestPickGreedy(t *testing.T) {
	nan := float32(math.NaN())
	cases := []struct {
		scores []float32
		mask   []bool
		want   int
	}{
		{[]float32{9, 1, 3, 3}, []bool{false, true, true, true}, 2},      // tie → lowest index
		{[]float32{0, nan, -5, nan}, []bool{false, true, true, true}, 2}, // NaN counts as −∞
		{[]float32{0, nan, nan}, []bool{false, true, true}, 1},
		{[]float32{0, 1}, []bool{false, false}, -1},
	}
	for _, c := range cases {
		if got := pickGreedy(c.scores, c.mask); got != c.want {
			t.Errorf("pickGreedy(%v, %v) = %d, want %d", c.scores, c.mask, got, c.want)
		}
	}
}

func TestPickSample_Distribution(t *testing.T) {
	// Scores log 1, log 3 and a masked huge score: P(node 1) = 1/4.
	scores := []float32{100, 0, float32(math.Log(3)), 50}
	mask := []bool{false, true, true, false}
	w := make([]float64, 4)
	state := streamSeed(1, 2)
	const draws = 40000
	count := map[int]int{}
	for i := 0; i < draws; i++ {
		count[pickSample(scores, mask, &state, w)]++
	}
	if count[0] != 0 || count[3] != 0 || count[1]+count[2] != draws {
		t.Fatalf("masked nodes drawn: %v", count)
	}
	if p := float64(count[1]) / draws; math.Abs(p-0.25) > 0.01 {
		t.Fatalf("P(node 1) = %v, want 0.25 ± 0.01", p)
	}
	// All −∞: uniform over the allowed nodes.
	inf := float32(math.Inf(-1))
	count = map[int]int{}
	for i := 0; i < draws; i++ {
		count[pickSample([]float32{0, inf, inf, inf}, []bool{false, true, true, true}, &state, w)]++
	}
	for j := 1; j < 4; j++ {
		if p := float64(count[j]) / draws; math.Abs(p-1.0/3) > 0.015 {
			t.Fatalf("P(node %d) = %v under all −∞ scores, want 1/3", j, p)
		}
	}
	if got := pickSample(scores, []bool{false, false, false, false}, &state, w); got != -1 {
		t.Fatalf("empty mask drew %d", got)
	}
}

func TestUniform_Range(t *testing.T) {
	s := streamSeed(0, 0)
	sum := 0.0
	for i := 0; i < 10000; i++ {
		u := uniform(&s)
		if u < 0 || u >= 1 {
			t.Fatalf("uniform %v outside [0,1)", u)
		}
		sum += u
	}
	if m := sum / 10000; math.Abs(m-0.5) > 0.01 {
		t.Fatalf("mean %v, want 0.5", m)
	}
	if streamSeed(1, 0) == streamSeed(0, 1) || streamSeed(1, 0) == streamSeed(1, 1) {
		t.Fatal("streams collide")
	}
}

// TestState_NoAllocs: after Reset, Next and Step do not allocate, and a
// reused Decoder allocates only its results.
func TestState_NoAllocs(t *testing.T) {
	in := hardTSPTW(newRand(4), 50, 1)
	s := NewState(50)
	allocs := testing.AllocsPerRun(20, func() {
		if err := s.Reset(in, LookTSL, 20, Test); err != nil {
			t.Fatal(err)
		}
		for s.Next() != Finished {
			if s.Status() == Running && s.MaskCount() > 0 {
				m := s.Mask()
				for j, ok := range m {
					if ok {
						_ = s.Step(j)
						break
					}
				}
			}
		}
	})
	t.Logf("state: %v allocs per trajectory", allocs)
	if allocs > 0 {
		t.Fatalf("%v allocations per trajectory", allocs)
	}
	dc := NewDecoder()
	insts := []*Instance{in, hardTSPTW(newRand(5), 50, 1)}
	cfg := Config{Budget: 20, Greedy: true}
	if _, err := dc.Decode(Uniform{}, insts, 4, cfg); err != nil {
		t.Fatal(err)
	}
	allocs = testing.AllocsPerRun(5, func() { _, _ = dc.Decode(Uniform{}, insts, 4, cfg) })
	t.Logf("decoder: %v allocs per decode", allocs)
	if allocs > 8*5+4 { // per trajectory: tour, Check's slices and edge function, slack
		t.Fatalf("%v allocations per reused decode of 8 trajectories", allocs)
	}
}

func TestHeuristicScores(t *testing.T) {
	insts := []*Instance{triangle(), fourPorts()}
	b := &StepBatch{N: 3, Traj: []int{0}, Inst: []int{0}, Current: []int{0}, State: []float64{0},
		Refine: []int{0}, Budget: []bool{false}, Mask: []bool{false, true, true}, NumSteps: []int{0}}
	out := make([]float32, 3)
	rl := &RandomL{}
	if err := rl.Begin(insts[:1]); err != nil {
		t.Fatal(err)
	}
	if err := rl.Scores(b, out); err != nil {
		t.Fatal(err)
	}
	// Distances 1 and √2 from the depot: scores log(1/d).
	if math.Abs(float64(out[1])) > 1e-6 || math.Abs(float64(out[2])+math.Log(math.Sqrt2)) > 1e-6 {
		t.Fatalf("random-l scores %v, want [_ 0 −log √2]", out)
	}
	rc := &RandomC{}
	if err := rc.Begin(insts); err != nil {
		t.Fatal(err)
	}
	if err := rc.Scores(b, out); err != nil {
		t.Fatal(err)
	}
	// Due times 1 and 3: scores log(1/l).
	if math.Abs(float64(out[1])) > 1e-6 || math.Abs(float64(out[2])+math.Log(3)) > 1e-6 {
		t.Fatalf("random-c TSPTW scores %v, want [_ 0 −log 3]", out)
	}
	b4 := &StepBatch{N: 4, Traj: []int{0}, Inst: []int{1}, Current: []int{0}, State: []float64{0},
		Refine: []int{0}, Budget: []bool{false}, Mask: []bool{false, true, true, true}, NumSteps: []int{0}}
	out4 := make([]float32, 4)
	if err := rc.Scores(b4, out4); err != nil {
		t.Fatal(err)
	}
	// Draft limits 1/3, 1, 2/3.
	if math.Abs(float64(out4[1])-math.Log(3)) > 1e-6 || math.Abs(float64(out4[2])) > 1e-6 ||
		math.Abs(float64(out4[3])-math.Log(1.5)) > 1e-6 {
		t.Fatalf("random-c TSPDL scores %v, want [_ log 3, 0, log 1.5]", out4)
	}
	out4[1] = 7
	if err := (Uniform{}).Scores(b4, out4); err != nil || out4[1] != 0 {
		t.Fatalf("uniform scores %v, %v", out4, err)
	}
	b.Inst[0] = 5
	if err := rl.Scores(b, out); err == nil {
		t.Fatal("random-l accepted an out-of-range instance index")
	}
	if err := rc.Scores(b, out); err == nil {
		t.Fatal("random-c accepted an out-of-range instance index")
	}
}
