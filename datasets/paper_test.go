package datasets

import (
	"math"
	"path/filepath"
	"testing"
)

// TestPaperReferenceMeans imports the paper's five n=50 test sets and their
// reference files and checks the replayed mean lengths against the
// documented means, plus the number of reference tours the checker flags.
func TestPaperReferenceMeans(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 50k paper instances; skipped with -short")
	}
	dir := filepath.Join(sharedDir(t), "datasets", "lmask-paper")
	cases := []struct {
		inst, ref       string
		mean            float64
		tours, missing  int
		violating       int
		maxViolationTop float64
	}{
		{"tsptw50_test_easy_seed2025", "pyvrp_50_easy", 7.3069, 10000, 0, 30, 0.003},
		{"tsptw50_test_medium_seed2025", "pyvrp_50_medium", 13.0273, 10000, 0, 94, 0.003},
		{"tsptw50_test_hard_seed2025", "pyvrp_50_hard", 25.677, 9948, 52, 83, 0.003},
		// LKH-3 tours break one draft limit by exactly one unit (1/49) on these.
		{"tspdl50_test_medium_seed2025", "lkh_50_medium", 10.845, 10000, 0, 582, 1.0/49 + 1e-6},
		{"tspdl50_test_hard_seed2025", "lkh_50_hard", 13.246, 10000, 0, 1968, 1.0/49 + 1e-6},
	}
	for _, tc := range cases {
		t.Run(tc.ref, func(t *testing.T) {
			ip := filepath.Join(dir, tc.inst+".npz")
			rp := filepath.Join(dir, tc.ref+".npz")
			if !fileExists(ip) || !fileExists(rp) {
				t.Skipf("%s or %s missing", ip, rp)
			}
			d, err := ImportNPZInstances(ip)
			if err != nil {
				t.Fatal(err)
			}
			refs, _, err := ImportNPZReferences(rp, d.Instances)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Evaluate(d.Instances, refs, refs)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(m.MeanLength-tc.mean) > 1e-3 {
				t.Errorf("mean_length %.5f, documented %.4f", m.MeanLength, tc.mean)
			}
			if m.Instances != 10000 || m.Tours != tc.tours || m.MissingTours != tc.missing {
				t.Errorf("instances %d tours %d missing %d", m.Instances, m.Tours, m.MissingTours)
			}
			if m.ViolatingTours != tc.violating || m.MaxViolation > tc.maxViolationTop || m.MaxViolation <= 1e-5 {
				t.Errorf("violating %d (max %.6g), want %d (max ≤ %g)", m.ViolatingTours, m.MaxViolation, tc.violating, tc.maxViolationTop)
			}
			// gaps use the file's costs; replayed costs differ from them by rounding only
			if m.GapCount != m.FeasibleTours || math.Abs(m.Gap) > 1e-4 {
				t.Errorf("gap %.3g over %d instances", m.Gap, m.GapCount)
			}
		})
	}
}
