package datasets

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// TestStressClasses: every class draws valid instances whose reference
// tour the checker accepts; the same seed draws the same instances; the
// classes have the windows, service and matrices they describe.
func TestStressClasses(t *testing.T) {
	for _, c := range StressClasses {
		for _, n := range []int{10, 41, 120} {
			g, err := NewStressGenerator(StressConfig{Class: c.Name, N: n, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			g2, _ := NewStressGenerator(StressConfig{Class: c.Name, N: n, Seed: 5})
			tight, open := 0, 0
			for k := 0; k < 6; k++ {
				in, tour := g.Next()
				in2, tour2 := g2.Next()
				if !slices.Equal(in.Late, in2.Late) || !slices.Equal(in.Dist, in2.Dist) || !slices.Equal(tour, tour2) {
					t.Fatalf("%s n=%d: the same seed drew different instances", c.Name, n)
				}
				if err := in.Validate(); err != nil {
					t.Fatalf("%s n=%d: %v", c.Name, n, err)
				}
				if r, err := lazymask.Check(in, tour); err != nil || !r.Feasible {
					t.Fatalf("%s n=%d instance %d: reference tour rejected: %v", c.Name, n, k, err)
				}
				// open windows are [0, horizon], the latest of them all
				horizon := slices.Max(in.Late[1:]) * in.Scale
				for v := 1; v < n; v++ {
					w := (in.Late[v] - in.Early[v]) * in.Scale
					if w <= c.TightMax+1e-9 {
						tight++
					}
					if in.Early[v] == 0 && in.Late[v]*in.Scale == horizon {
						open++
					}
				}
				symm := true
				for i := 0; i < n && symm; i++ {
					for j := 0; j < n; j++ {
						if in.D(i, j) != in.D(j, i) {
							symm = false
							break
						}
					}
				}
				if c.Folded == symm {
					t.Fatalf("%s: folded service %v but symmetric matrix %v", c.Name, c.Folded, symm)
				}
				if c.Folded && in.Dist != nil {
					// one decimal, plus the service of the origin
					for i := 1; i < n; i++ {
						e := (in.Dist[i*n+(i+1)%n] * in.Scale) - c.Service
						if math.Abs(e*10-math.Round(e*10)) > 1e-6 {
							t.Fatalf("%s: travel time %v has more than one decimal", c.Name, e)
						}
					}
				}
				if c.Horizon > 0 && horizon < c.Horizon {
					t.Fatalf("%s: horizon %v under %v", c.Name, horizon, c.Horizon)
				}
			}
			share := float64(tight) / float64(6*(n-1))
			if math.Abs(share-c.Tight) > 0.15 {
				t.Errorf("%s n=%d: %.2f of the windows are tight, want about %.2f", c.Name, n, share, c.Tight)
			}
			if c.Tight+c.Wide < 1 && open == 0 {
				t.Errorf("%s n=%d: no open windows", c.Name, n)
			}
		}
	}
}

// TestStressFile writes a class to Parquet, reads it back with its
// metadata, and rejects unknown classes and sizes with their names.
func TestStressFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.parquet")
	meta, err := GenerateStressFile(path, StressConfig{Class: "stuck", N: 41, Seed: 1}, 4, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ReadInstances(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Instances) != 4 || meta.Count != 4 || ds.Meta.Extra[KeyStressClass] != "stuck" || ds.Meta.Size != 41 {
		t.Fatalf("read %d instances, metadata %+v", len(ds.Instances), ds.Meta)
	}
	g, _ := NewStressGenerator(StressConfig{Class: "stuck", N: 41, Seed: 1})
	in, tour := g.Next()
	if !slices.Equal(ds.Instances[0].Dist, in.Dist) || !slices.Equal(ds.KnownTours[0], tour) {
		t.Fatal("the file's first instance differs from the generator's")
	}
	for _, bad := range []StressConfig{{Class: "R3", N: 20}, {Class: "R1", N: 2}} {
		_, err := GenerateStressFile(filepath.Join(t.TempDir(), "x.parquet"), bad, 1, WriterOptions{})
		if err == nil || !(strings.Contains(err.Error(), "R3") || strings.Contains(err.Error(), "size 2")) {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
}
