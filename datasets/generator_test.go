package datasets

import (
	"math"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

func mustGenerate(t *testing.T, cfg GenConfig, count int) ([]*lazymask.Instance, [][]int) {
	t.Helper()
	insts, tours, err := Generate(cfg, count)
	if err != nil {
		t.Fatal(err)
	}
	return insts, tours
}

func TestGenerateTSPTWEasyMediumStatistics(t *testing.T) {
	for _, tc := range []struct {
		hardness string
		lo, hi   float64 // ε range
	}{{Easy, 0.5, 0.75}, {Medium, 0.1, 0.2}} {
		insts, tours := mustGenerate(t, GenConfig{Problem: lazymask.TSPTW, N: 50, Hardness: tc.hardness, Seed: 11}, 400)
		T := 55.0 * 50 // 2750 raw
		sumW, cnt := 0.0, 0
		for k, in := range insts {
			if tours[k] != nil {
				t.Fatalf("%s instance %d has a known tour", tc.hardness, k)
			}
			if err := in.Validate(); err != nil {
				t.Fatal(err)
			}
			if in.Scale != 100 || in.Early[0] != 0 {
				t.Fatalf("scale %v, e0 %v", in.Scale, in.Early[0])
			}
			l0 := 0.0
			for i := 1; i < in.N; i++ {
				e, w := in.Early[i]*100, (in.Late[i]-in.Early[i])*100
				if math.Abs(e-math.Round(e)) > 1e-9 || e < 0 || e > T-1 {
					t.Fatalf("early %v not an integer in [0,T-1]", e)
				}
				if w < math.Round(tc.lo*T)-1e-9 || w > math.Round(tc.hi*T)+1e-9 || math.Abs(w-math.Round(w)) > 1e-9 {
					t.Fatalf("%s width %v outside [%v,%v]·T", tc.hardness, w, tc.lo, tc.hi)
				}
				if in.X[i] < 0 || in.X[i] > 1 || in.Y[i] < 0 || in.Y[i] > 1 {
					t.Fatalf("coordinate outside [0,1]")
				}
				sumW += in.Late[i] - in.Early[i]
				cnt++
				l0 = math.Max(l0, in.Late[i]+math.Hypot(in.X[i]-in.X[0], in.Y[i]-in.Y[0]))
			}
			if math.Abs(in.Late[0]-l0) > 1e-12 {
				t.Fatalf("depot l0 %v, want %v", in.Late[0], l0)
			}
		}
		want := (tc.lo + tc.hi) / 2 * T / 100 // 17.1875 easy, 4.125 medium
		if got := sumW / float64(cnt); math.Abs(got-want) > 0.01*want {
			t.Errorf("%s mean window width %.4f, want %.4f ± 1%%", tc.hardness, got, want)
		}
	}
}

func TestGenerateTSPTWHardFeasibleByConstruction(t *testing.T) {
	for _, w := range []float64{100, 20, 200} {
		insts, tours := mustGenerate(t, GenConfig{Problem: lazymask.TSPTW, N: 50, Hardness: Hard, Seed: 5, Width: w}, 300)
		maxW := 0.0
		for k, in := range insts {
			res, err := lazymask.Check(in, tours[k])
			if err != nil || !res.Feasible {
				t.Fatalf("width %v instance %d: generating tour rejected: %v", w, k, err)
			}
			for i := 1; i < in.N; i++ {
				maxW = math.Max(maxW, in.Late[i]-in.Early[i])
			}
		}
		if maxW > w/100+1e-12 || maxW < 0.9*w/100 {
			t.Errorf("width %v: largest window %.4f, want just below %.4f", w, maxW, w/100)
		}
	}
}

func TestGenerateTSPDLStatistics(t *testing.T) {
	for _, tc := range []struct {
		hardness string
		want     int
	}{{Easy, 25}, {Medium, 37}, {Hard, 45}} {
		insts, tours := mustGenerate(t, GenConfig{Problem: lazymask.TSPDL, N: 50, Hardness: tc.hardness, Seed: 3}, 300)
		for k, in := range insts {
			if math.Abs(in.TotalDemand()-1) > 1e-12 || in.Demand[0] != 0 || in.Draft[0] != 1 {
				t.Fatalf("demand sum %v, d0 %v, L0 %v", in.TotalDemand(), in.Demand[0], in.Draft[0])
			}
			c := 0
			for i := 1; i < in.N; i++ {
				if in.Draft[i] < 1 {
					c++
					if in.Draft[i] < 1.0/49-1e-12 || in.Draft[i] > 48.0/49+1e-12 {
						t.Fatalf("limit %v outside [1/49, 48/49]", in.Draft[i])
					}
				}
			}
			if c != tc.want {
				t.Fatalf("%s: %d constrained ports, want %d", tc.hardness, c, tc.want)
			}
			res, err := lazymask.Check(in, tours[k])
			if err != nil || !res.Feasible {
				t.Fatalf("%s instance %d: ascending-limit tour rejected: %v", tc.hardness, k, err)
			}
		}
	}
}

func TestGenerateReproducible(t *testing.T) {
	a, _ := mustGenerate(t, GenConfig{Problem: lazymask.TSPTW, N: 20, Hardness: Hard, Seed: 42}, 3)
	b, _ := mustGenerate(t, GenConfig{Problem: lazymask.TSPTW, N: 20, Hardness: Hard, Seed: 42}, 3)
	c, _ := mustGenerate(t, GenConfig{Problem: lazymask.TSPTW, N: 20, Hardness: Hard, Seed: 43}, 3)
	for i := range a {
		for j := range a[i].X {
			if a[i].X[j] != b[i].X[j] || a[i].Late[j] != b[i].Late[j] {
				t.Fatal("same seed gave different instances")
			}
		}
	}
	if a[0].X[0] == c[0].X[0] {
		t.Fatal("different seeds gave the same first coordinate")
	}
	// Pinned values: the PCG stream is specified, so these hold on every machine.
	if got := a[0].X[0]; got != 0.06325321046626164 {
		t.Errorf("seed 42 first x = %v, want 0.06325321046626164", got)
	}
}

func TestGeneratorRejectsBadConfig(t *testing.T) {
	for _, cfg := range []GenConfig{
		{Problem: 0, N: 50, Hardness: Easy},
		{Problem: lazymask.TSPTW, N: 2, Hardness: Easy},
		{Problem: lazymask.TSPTW, N: 50, Hardness: "extreme"},
		{Problem: lazymask.TSPTW, N: 50, Hardness: Hard, Width: -1},
	} {
		if _, err := NewGenerator(cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	// tiny TSPDL still terminates and is feasible
	insts, tours := mustGenerate(t, GenConfig{Problem: lazymask.TSPDL, N: 3, Hardness: Hard, Seed: 1}, 20)
	for k := range insts {
		if res, _ := lazymask.Check(insts[k], tours[k]); !res.Feasible {
			t.Fatal("N=3 TSPDL tour infeasible")
		}
	}
}
