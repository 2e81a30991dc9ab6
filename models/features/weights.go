package features

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Tensor is a dense float32 array in row-major order.
type Tensor struct {
	Shape []int
	Data  []float32
}

// Size returns the number of elements the shape holds.
func (t Tensor) Size() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Weights maps canonical parameter names (see Specs) to values. Linear maps
// follow y = x·W + b with W of shape [in, out].
type Weights map[string]Tensor

// Spec names one parameter and its shape.
type Spec struct {
	Name  string
	Shape []int
}

// Canonical parameter names. Per-layer names take the layer index.
const (
	WDepotW       = "init/depot/w"        // [2,d]
	WDepotB       = "init/depot/b"        // [d]
	WNodeW        = "init/node/w"         // [4,d]
	WNodeB        = "init/node/b"         // [d]
	WProjectNodes = "dec/project_nodes/w" // [d,3d]: glimpse K | glimpse V | logit K
	WQueryW       = "dec/query/w"         // [QueryInputs,d]
	WQueryB       = "dec/query/b"         // [d]
	WProjectOut   = "dec/project_out/w"   // [d,d]
)

// LayerName returns the name of a parameter of encoder layer l, e.g.
// LayerName(0, "mha/q/w") = "enc/0/mha/q/w". Layer parameters are
// mha/{q,k,v,o}/{w [d,d], b [d]}, norm1/{scale,offset} [d],
// ffn/{w1 [d,ffn], b1 [ffn], w2 [ffn,d], b2 [d]}, norm2/{scale,offset} [d].
func LayerName(l int, suffix string) string { return fmt.Sprintf("enc/%d/%s", l, suffix) }

// Specs lists every parameter of a model of config c, in a stable order.
func (c Config) Specs() []Spec {
	d, f := c.DModel, c.FFN
	s := []Spec{
		{WDepotW, []int{2, d}}, {WDepotB, []int{d}},
		{WNodeW, []int{NodeFeatures, d}}, {WNodeB, []int{d}},
	}
	for l := 0; l < c.Layers; l++ {
		for _, p := range []string{"q", "k", "v", "o"} {
			s = append(s, Spec{LayerName(l, "mha/"+p+"/w"), []int{d, d}}, Spec{LayerName(l, "mha/"+p+"/b"), []int{d}})
		}
		s = append(s,
			Spec{LayerName(l, "norm1/scale"), []int{d}}, Spec{LayerName(l, "norm1/offset"), []int{d}},
			Spec{LayerName(l, "ffn/w1"), []int{d, f}}, Spec{LayerName(l, "ffn/b1"), []int{f}},
			Spec{LayerName(l, "ffn/w2"), []int{f, d}}, Spec{LayerName(l, "ffn/b2"), []int{d}},
			Spec{LayerName(l, "norm2/scale"), []int{d}}, Spec{LayerName(l, "norm2/offset"), []int{d}},
		)
	}
	s = append(s,
		Spec{WProjectNodes, []int{d, 3 * d}},
		Spec{WQueryW, []int{c.QueryInputs(), d}}, Spec{WQueryB, []int{d}},
		Spec{WProjectOut, []int{d, d}},
	)
	return s
}

// Check verifies that w holds exactly the parameters of config c with the
// right shapes and finite values.
func (w Weights) Check(c Config) error {
	specs := c.Specs()
	if len(w) != len(specs) {
		var names []string
		for k := range w {
			names = append(names, k)
		}
		sort.Strings(names)
		return fmt.Errorf("weights: have %d tensors, config needs %d (have %v)", len(w), len(specs), names)
	}
	for _, s := range specs {
		t, ok := w[s.Name]
		if !ok {
			return fmt.Errorf("weights: missing %s", s.Name)
		}
		if fmt.Sprint(t.Shape) != fmt.Sprint(s.Shape) || len(t.Data) != (Tensor{Shape: s.Shape}).Size() {
			return fmt.Errorf("weights: %s has shape %v (%d values), want %v", s.Name, t.Shape, len(t.Data), s.Shape)
		}
		for i, v := range t.Data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("weights: %s[%d] = %v is not finite", s.Name, i, v)
			}
		}
	}
	return nil
}

// RandomWeights draws weights for config c from a seeded source: linear
// weights uniform in ±1/√in (biases too), norm scales 1 and offsets 0.
func RandomWeights(c Config, seed uint64) Weights {
	rng := rand.New(rand.NewPCG(seed, 0x6c6d61736b))
	w := Weights{}
	for _, s := range c.Specs() {
		t := Tensor{Shape: s.Shape}
		t.Data = make([]float32, t.Size())
		switch {
		case hasSuffix(s.Name, "/scale"):
			for i := range t.Data {
				t.Data[i] = 1
			}
		case hasSuffix(s.Name, "/offset"):
		default:
			fanIn := s.Shape[0]
			if len(s.Shape) == 1 {
				fanIn = s.Shape[0]
			}
			bound := 1 / math.Sqrt(float64(fanIn))
			for i := range t.Data {
				t.Data[i] = float32((rng.Float64()*2 - 1) * bound)
			}
		}
		w[s.Name] = t
	}
	return w
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }
