package trainer

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/models/features"
)

// TestGrowCheckpoint: the grown encoder computes what the stored one does,
// the inserted layers train, and a count that is no multiple is refused.
func TestGrowCheckpoint(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t, 3)
	trainRun(t, cfg, Options{Dir: run})
	out := filepath.Join(t.TempDir(), "grown.lmck")
	if err := GrowCheckpoint(run, 3, out); err != nil {
		t.Fatal(err)
	}
	a, err := ReadCheckpoint(run)
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadCheckpoint(out)
	if err != nil {
		t.Fatal(err)
	}
	if g.Config.Model.Layers != 3 {
		t.Fatalf("grown checkpoint has %d layers, want 3", g.Config.Model.Layers)
	}
	wa, err := a.Weights(a.Config.Model.Specs())
	if err != nil {
		t.Fatal(err)
	}
	wg, err := g.Weights(g.Config.Model.Specs())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	n := 10
	feat := make([]float32, features.NodeFeatures*n)
	for i := range feat {
		feat[i] = r.Float32()
	}
	ea, err := features.Encode(a.Config.Model, wa, feat, n)
	if err != nil {
		t.Fatal(err)
	}
	eg, err := features.Encode(g.Config.Model, wg, feat, n)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range ea.Emb {
		for _, p := range [][2][]float32{{ea.Emb, eg.Emb}, {ea.GlimpseK, eg.GlimpseK}, {ea.LogitK, eg.LogitK}} {
			worst = math.Max(worst, math.Abs(float64(p[0][i]-p[1][i])))
		}
	}
	if worst > 1e-3 {
		t.Errorf("grown encoder differs from the stored one by %g", worst)
	}
	// The inserted layers' output projections start at zero and move once
	// the grown model trains.
	cfg.Model.Layers = 3
	cfg.Steps = 2
	tr := trainRun(t, cfg, Options{Dir: t.TempDir(), InitFrom: out})
	c, err := ReadCheckpoint(tr.opt.Dir)
	if err != nil {
		t.Fatal(err)
	}
	wc, err := c.Weights(c.Config.Model.Specs())
	if err != nil {
		t.Fatal(err)
	}
	moved := 0.0
	for _, v := range wc[features.LayerName(1, "mha/o/w")].Data {
		moved = math.Max(moved, math.Abs(float64(v)))
	}
	if moved == 0 {
		t.Error("inserted layer's attention output stayed zero after training")
	}
	if err := GrowCheckpoint(run, 1, out); !isOptErr(err, "Layers", "1") || !strings.Contains(err.Error(), "multiple") {
		t.Errorf("grow to 1 layer: error %v, want one naming the multiple", err)
	}
}
