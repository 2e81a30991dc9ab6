package trainer

import (
	"math"
	"strings"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

func TestConfig_Defaults(t *testing.T) {
	c := DefaultConfig("tsptw", 50, "medium")
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Samples != 50 || c.Budget != 15 || c.LR != 3e-4 || c.Entropy != 0.05 || c.ValBudget != 100 {
		t.Errorf("defaults: samples %d budget %d lr %g entropy %g val budget %d", c.Samples, c.Budget, c.LR, c.Entropy, c.ValBudget)
	}
	if got := DefaultConfig("tsptw", 100, "hard"); got.LR != 1e-4 || got.ValBudget != 300 || got.Entropy != 0 {
		t.Errorf("TSPTW-100 hard: lr %g val budget %d entropy %g", got.LR, got.ValBudget, got.Entropy)
	}
	if got := DefaultConfig("tspdl", 50, "hard"); got.ValBudget != 150 || got.Entropy != 0 || got.Model.Problem != "tspdl" {
		t.Errorf("TSPDL-50 hard: val budget %d entropy %g model problem %q", got.ValBudget, got.Entropy, got.Model.Problem)
	}
	if ms := DefaultMilestones(1000); ms[0] != 900 || ms[1] != 950 {
		t.Errorf("milestones %v, want [900 950]", ms)
	}
}

func TestConfig_ValidateNamesField(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"problem", func(c *Config) { c.Problem = "vrp" }, "problem"},
		{"samples", func(c *Config) { c.Samples = 1 }, "samples"},
		{"lr", func(c *Config) { c.LR = math.NaN() }, "lr"},
		{"milestones", func(c *Config) { c.Milestones = []int{5, 3} }, "milestones"},
		{"model size", func(c *Config) { c.Model.TrainSize = 7 }, "train_size"},
		{"heads", func(c *Config) { c.Model.Heads = 3 }, "heads"},
		{"growth", func(c *Config) { c.PenaltyGrowth = 0 }, "penalty_growth"},
		{"lookahead", func(c *Config) { c.Lookahead = "l3" }, "lookahead"},
		{"guide starts", func(c *Config) { c.Guide, c.GuideStarts = 1, c.Samples+1 }, "guide_starts"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig("tsptw", 20, "easy")
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}

func TestConfig_Schedules(t *testing.T) {
	c := DefaultConfig("tspdl", 50, "hard")
	if got := c.PenaltyAt(500); got != 1 {
		t.Errorf("fixed ρ at step 500 = %g, want 1", got)
	}
	c.Penalty, c.PenaltyGrowth, c.PenaltyMax, c.PenaltyEvery = 0.5, 1.01, 2, 10
	for _, tc := range []struct {
		step int
		want float64
	}{{0, 0.5}, {9, 0.5}, {10, 0.505}, {100, 0.5 * math.Pow(1.01, 10)}, {10000, 2}} {
		if got := c.PenaltyAt(tc.step); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("ρ at step %d = %g, want %g", tc.step, got, tc.want)
		}
	}
	c.LR, c.Milestones = 1e-3, []int{90, 95}
	for _, tc := range []struct {
		step int
		want float64
	}{{0, 1e-3}, {89, 1e-3}, {90, 1e-4}, {94, 1e-4}, {95, 1e-5}, {200, 1e-5}} {
		if got := c.LRAt(tc.step); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("lr at step %d = %g, want %g", tc.step, got, tc.want)
		}
	}
}

func TestAdvantages(t *testing.T) {
	// Two instances × two samples; instance 0: lengths 3 and 5, the second
	// with violation 0.5 on 2 nodes → Ψ = 5 + 1·0.5 + 1·2 = 7.5.
	trajs := []lazymask.Trajectory{
		{Inst: 0, Tour: []int{0, 1, 2}, Cost: 3, Feasible: true},
		{Inst: 0, Tour: []int{0, 2, 1}, Cost: 5, Violation: 0.5, ViolatedNodes: 2},
		{Inst: 1, Tour: []int{0, 1, 2}, Cost: 2, Feasible: true},
		{Inst: 1, Tour: []int{0, 2, 1}, Cost: 2, Feasible: true},
	}
	adv := make([]float32, 4)
	st, err := Advantages(trajs, 2, 1, 1, adv)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{2.25, -2.25, 0, 0}
	for i := range want {
		if math.Abs(float64(adv[i]-want[i])) > 1e-6 {
			t.Errorf("adv[%d] = %g, want %g", i, adv[i], want[i])
		}
	}
	if math.Abs(st.PenCost-(3+7.5+2+2)/4) > 1e-12 || st.Reward != -st.PenCost || st.Infeasible != 0.25 || st.Length != 3 {
		t.Errorf("stats %+v", st)
	}
	if got := PenalisedCost(5, 0.5, 2, 2, 3); got != 5+1+6 {
		t.Errorf("PenalisedCost = %g, want 12", got)
	}
	trajs[3].Failed, trajs[3].Tour = true, nil
	if _, err := Advantages(trajs, 2, 1, 1, adv); err == nil || !strings.Contains(err.Error(), "trajectory 3") {
		t.Errorf("failed trajectory: error %v", err)
	}
	if _, err := Advantages(trajs[:3], 2, 1, 1, adv); err == nil {
		t.Error("3 trajectories with 2 samples: no error")
	}
}
