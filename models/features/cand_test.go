package features

import (
	"math"
	"strings"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// TestCandFeaturesByHand checks every candidate feature on small instances
// worked out by hand: an asymmetric matrix and service times (TSPTW), and
// draft slack (TSPDL); masked nodes get zeros.
func TestCandFeaturesByHand(t *testing.T) {
	tw := &lazymask.Instance{Problem: lazymask.TSPTW, N: 3, Scale: 1,
		X: []float64{0, 0, 0}, Y: []float64{0, 0, 0},
		Early: []float64{0, 1, 5}, Late: []float64{10, 4, 8}, Service: []float64{0, 0.5, 2},
		Dist: []float64{0, 1, 2, 1.5, 0, 1, 2, 3, 0}}
	// σ = l₀/(N−1) = 5. Row at node 1 after its service, t = 2.
	got := make([]float32, 3*5)
	CandFeaturesInto(got, tw, CandScale(tw), 1, 2, []bool{false, false, true})
	// Node 2: d = 1, arrival 3, start 5, wait 2, slack 8−3 = 5, l−t = 6, departure − t = 5.
	want := []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		math.Log1p(1.0 / 5), math.Log1p(2.0 / 5), math.Log1p(5.0 / 5), math.Log1p(6.0 / 5), math.Log1p(5.0 / 5)}
	for i := range want {
		if math.Abs(float64(got[i])-want[i]) > 1e-6 {
			t.Fatalf("TSPTW feature %d (node %d, column %d) = %v, want %v", i, i/5, i%5, got[i], want[i])
		}
	}
	// A late arrival gives a negative slack: sign·log1p(|x|).
	CandFeaturesInto(got, tw, 5, 2, 7.5, []bool{false, true, false})
	if w := -math.Log1p((7.5 + 3 - 4) / 5.0); math.Abs(float64(got[5+2])-w) > 1e-6 {
		t.Fatalf("negative slack %v, want %v", got[5+2], w)
	}

	dl := &lazymask.Instance{Problem: lazymask.TSPDL, N: 4, Scale: 1,
		X: []float64{0, 3, 0, 1}, Y: []float64{0, 4, 1, 0},
		Demand: []float64{0, 0.25, 0.5, 0.25}, Draft: []float64{1, 1, 0.75, 0.5}}
	// σ = Σd/(N−1) = 1/3; at node 3 with load 0.25.
	got = make([]float32, 4*3)
	CandFeaturesInto(got, dl, CandScale(dl), 3, 0.25, []bool{false, true, true, false})
	want = []float64{0, 0, 0,
		math.Sqrt(2*2 + 4*4), math.Log1p((1 - 0.25 - 0.25) * 3), 0.75, // (1,0) → (3,4)
		math.Sqrt(2), math.Log1p((0.75 - 0.25 - 0.5) * 3), 1.5,
		0, 0, 0}
	for i := range want {
		if math.Abs(float64(got[i])-want[i]) > 1e-6 {
			t.Fatalf("TSPDL feature %d (node %d, column %d) = %v, want %v", i, i/3, i%3, got[i], want[i])
		}
	}
}

// TestCandFeaturesNoAllocs pins that building a row's features allocates
// nothing once the matrix is cached, as the masks do.
func TestCandFeaturesNoAllocs(t *testing.T) {
	in := &lazymask.Instance{Problem: lazymask.TSPTW, N: 3, Scale: 1, X: []float64{0, 1, 2}, Y: []float64{0, 0, 0},
		Early: []float64{0, 0, 0}, Late: []float64{9, 9, 9}}
	in.Matrix()
	dst := make([]float32, 15)
	mask := []bool{false, true, true}
	if a := testing.AllocsPerRun(100, func() { CandFeaturesInto(dst, in, 3, 0, 0, mask) }); a != 0 {
		t.Fatalf("%v allocations per row", a)
	}
}

// TestFormat2Metadata: a format-2 config survives its metadata; a missing
// decoder key, an unknown entry or a wrong feature count is refused.
func TestFormat2Metadata(t *testing.T) {
	c := Config{Format: FormatPOMO, Problem: "tspdl", DModel: 16, Heads: 2, Layers: 1, FFN: 8, RIE: true}.WithDecoder(true, CandKeys)
	got, err := ConfigFromMetadata(c.Metadata())
	if err != nil || got != c {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, c)
	}
	for key, val := range map[string]string{MetaCand: "", MetaReLD: "", MetaCandFeatures: "5"} {
		m := c.Metadata()
		if val == "" {
			delete(m, key)
		} else {
			m[key] = val
		}
		if _, err := ConfigFromMetadata(m); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s = %q: err %v, want one naming the key", key, val, err)
		}
	}
	m := c.Metadata()
	m[MetaCand] = "query"
	if _, err := ConfigFromMetadata(m); err == nil || !strings.Contains(err.Error(), `"query"`) {
		t.Errorf("unknown entry: err %v", err)
	}
}
