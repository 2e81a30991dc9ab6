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

	// Format 2: the ReLD glimpse FFN and the candidate-feature layers.
	WReLDW1 = "dec/reld/w1" // [d,ffn]
	WReLDB1 = "dec/reld/b1" // [ffn]
	WReLDW2 = "dec/reld/w2" // [ffn,d]
	WReLDB2 = "dec/reld/b2" // [d]
	WCandW1 = "dec/cand/w1" // [K,CandHidden]
	WCandB1 = "dec/cand/b1" // [CandHidden]
	WCandGK = "dec/cand/gk" // [CandHidden,d]: into the glimpse keys (keys, both)
	WCandGV = "dec/cand/gv" // [CandHidden,d]: into the glimpse values
	WCandLK = "dec/cand/lk" // [CandHidden,d]: into the logit keys
	WCandBW = "dec/cand/bw" // [CandHidden,1]: the logit bias (bias, both)
	WCandBB = "dec/cand/bb" // [1]
)

// ZeroInit reports whether a fresh parameter starts at zero: the output
// layers of the format-2 additions, so a fresh block adds nothing and a
// warm start from format-1 weights decodes exactly as before.
func ZeroInit(name string) bool {
	switch name {
	case WReLDW2, WReLDB2, WCandGK, WCandGV, WCandLK, WCandBW, WCandBB:
		return true
	}
	return false
}

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
	if c.ReLD {
		s = append(s, Spec{WReLDW1, []int{d, f}}, Spec{WReLDB1, []int{f}}, Spec{WReLDW2, []int{f, d}}, Spec{WReLDB2, []int{d}})
	}
	if k := c.CandWidth(); k > 0 {
		h := CandHidden
		s = append(s, Spec{WCandW1, []int{k, h}}, Spec{WCandB1, []int{h}})
		if c.Cand == CandKeys || c.Cand == CandBoth {
			s = append(s, Spec{WCandGK, []int{h, d}}, Spec{WCandGV, []int{h, d}}, Spec{WCandLK, []int{h, d}})
		}
		if c.Cand == CandBias || c.Cand == CandBoth {
			s = append(s, Spec{WCandBW, []int{h, 1}}, Spec{WCandBB, []int{1}})
		}
	}
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
// weights uniform in ±1/√in (biases too), norm scales 1 and offsets 0,
// and zeros where ZeroInit says so.
func RandomWeights(c Config, seed uint64) Weights { return randomWeights(c, seed, false) }

// DenseRandomWeights is RandomWeights with the ZeroInit parameters drawn
// like the others, so that every path of a decoder contributes (parity
// tests).
func DenseRandomWeights(c Config, seed uint64) Weights { return randomWeights(c, seed, true) }

func randomWeights(c Config, seed uint64, dense bool) Weights {
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
		case hasSuffix(s.Name, "/offset"), !dense && ZeroInit(s.Name):
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
