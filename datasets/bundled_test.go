package datasets

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// TestBundled_Reproducible checks that every dataset in datasets/bundled is
// exactly what the generator makes from the seed stored in its metadata, so
// the bundled data can always be regenerated and audited.
func TestBundled_Reproducible(t *testing.T) {
	files, err := filepath.Glob("bundled/*.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no bundled datasets found in datasets/bundled")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			ds, err := ReadInstances(f)
			if err != nil {
				t.Fatal(err)
			}
			m := ds.Meta
			p, err := lazymask.ParseProblem(m.Problem)
			if err != nil {
				t.Fatal(err)
			}
			cfg := GenConfig{Problem: p, N: m.Size, Hardness: m.Hardness, Seed: m.Seed, Width: m.Width}
			want, tours, err := Generate(cfg, len(ds.Instances))
			if err != nil {
				t.Fatal(err)
			}
			for i, got := range ds.Instances {
				w := want[i]
				if !reflect.DeepEqual(got.X, w.X) || !reflect.DeepEqual(got.Y, w.Y) ||
					!reflect.DeepEqual(got.Late, w.Late) || !reflect.DeepEqual(got.Draft, w.Draft) {
					t.Fatalf("instance %d differs from the generator's output for seed %d", i, m.Seed)
				}
				if tours[i] != nil && !reflect.DeepEqual(ds.KnownTours[i], tours[i]) {
					t.Fatalf("instance %d: stored known tour differs from the generator's", i)
				}
			}
		})
	}
}
