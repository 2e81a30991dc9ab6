package lazymask

import (
	"errors"
	"math"
	"os/exec"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	if err := triangle().Validate(); err != nil {
		t.Fatalf("valid TSPTW: %v", err)
	}
	if err := fourPorts().Validate(); err != nil {
		t.Fatalf("valid TSPDL: %v", err)
	}
	cases := []struct {
		name  string
		edit  func(*Instance)
		base  func() *Instance
		field string
		node  int
	}{
		{"nan x", func(in *Instance) { in.X[2] = math.NaN() }, triangle, "x", 2},
		{"inf late", func(in *Instance) { in.Late[1] = math.Inf(1) }, triangle, "late", 1},
		{"early after late", func(in *Instance) { in.Early[1] = 1.5 }, triangle, "early", 1},
		{"negative service", func(in *Instance) { in.Service[2] = -1 }, triangle, "service", 2},
		{"short y", func(in *Instance) { in.Y = in.Y[:2] }, triangle, "y", -1},
		{"negative demand", func(in *Instance) { in.Demand[3] = -0.1 }, fourPorts, "demand", 3},
		{"negative draft", func(in *Instance) { in.Draft[1] = -1 }, fourPorts, "draft", 1},
		{"dist nan", func(in *Instance) { in.Dist = make([]float64, 9); in.Dist[5] = math.NaN() }, triangle, "dist", 2},
		{"zero scale", func(in *Instance) { in.Scale = 0 }, triangle, "scale", -1},
		{"one node", func(in *Instance) { in.N = 1 }, triangle, "n", -1},
		{"bad problem", func(in *Instance) { in.Problem = 7 }, triangle, "problem", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.base()
			c.edit(in)
			err := in.Validate()
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("err %v, want *FieldError", err)
			}
			if fe.Field != c.field || fe.Node != c.node {
				t.Fatalf("got field %q node %d (%v), want %q %d", fe.Field, fe.Node, err, c.field, c.node)
			}
		})
	}
}

func TestParseProblem(t *testing.T) {
	for s, want := range map[string]Problem{"tsptw": TSPTW, "TSPDL": TSPDL} {
		if got, err := ParseProblem(s); err != nil || got != want || strings.ToLower(s) != got.String() {
			t.Fatalf("ParseProblem(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseProblem("cvrp"); err == nil {
		t.Fatal("ParseProblem(cvrp) accepted")
	}
}

func TestAugment(t *testing.T) {
	in := hardTSPTW(newRand(3), 12, 1)
	if Augment(in, 0) != in {
		t.Fatal("k=0 must return the instance itself")
	}
	base := in.Matrix()
	seen := map[[2]float64]int{}
	for k := 0; k < NumAugment; k++ {
		a := Augment(in, k)
		a.ResetCache() // recompute from the transformed coordinates
		m := a.Matrix()
		for i := range m {
			if math.Abs(m[i]-base[i]) > 1e-12 {
				t.Fatalf("k=%d: distance %d changed from %v to %v", k, i, base[i], m[i])
			}
		}
		key := [2]float64{a.X[1], a.Y[1]}
		if prev, ok := seen[key]; ok {
			t.Fatalf("transforms %d and %d give the same coordinates", prev, k)
		}
		seen[key] = k
		if k > 0 && &a.X[0] == &in.X[0] {
			t.Fatalf("k=%d shares the coordinate slice with the original", k)
		}
		if res1, _ := Check(in, []int{0, 5, 3, 1, 2, 4, 6, 7, 8, 9, 10, 11}); true {
			res2, _ := Check(a, []int{0, 5, 3, 1, 2, 4, 6, 7, 8, 9, 10, 11})
			if math.Abs(res1.Cost-res2.Cost) > 1e-12 || res1.ViolatedNodes != res2.ViolatedNodes {
				t.Fatalf("k=%d: check differs: %+v vs %+v", k, res1, res2)
			}
		}
	}
	// The reference order on one point (0.2, 0.7).
	p := &Instance{Problem: TSPTW, N: 1, X: []float64{0.2}, Y: []float64{0.7}}
	want := [][2]float64{{0.2, 0.7}, {0.8, 0.7}, {0.2, 0.3}, {0.8, 0.3}, {0.7, 0.2}, {0.3, 0.2}, {0.7, 0.8}, {0.3, 0.8}}
	for k, w := range want {
		a := Augment(p, k)
		if math.Abs(a.X[0]-w[0]) > 1e-12 || math.Abs(a.Y[0]-w[1]) > 1e-12 {
			t.Fatalf("k=%d: got (%v,%v), want %v", k, a.X[0], a.Y[0], w)
		}
	}
	// An explicit matrix is kept as is.
	d := triangle()
	d.Dist = []float64{0, 1, 5, 1, 0, 1, 7, 1, 0}
	if got := Augment(d, 3).Matrix(); got[2] != 5 || got[6] != 7 {
		t.Fatalf("explicit matrix not kept: %v", got)
	}
}

// TestDeps asserts that the package imports the standard library only.
func TestDeps(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not in PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Fields(string(out)) {
		if line != "github.com/lmask/lmask/lazymask" {
			t.Errorf("non-standard dependency %s", line)
		}
	}
}
