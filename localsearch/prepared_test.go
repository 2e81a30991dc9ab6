package localsearch

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// TestPreparedSameSearch: a search with Options.Prepared (derived from a
// copy of the instance, as solve's passes do) ends at the very tour, cost
// and move count of one that derives the data itself, on every kind of
// matrix and both problems; and the prepared data carry the triangle
// defect and symmetry that newState derives.
func TestPreparedSameSearch(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, kind := range []distKind{euclid, intMatrix, asymm, rounded} {
		for _, prob := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
			var in *lazymask.Instance
			var tour []int
			if prob == lazymask.TSPTW {
				in, tour = randTSPTW(rng, 40, kind, 4)
			} else {
				in, tour = randTSPDL(rng, 40, kind, 0.3)
			}
			prep := Prepare(in.Clone())
			opt := Options{Kicks: 30, Seed: 7}
			plain, err := Improve(in, tour, opt)
			if err != nil {
				t.Fatal(err)
			}
			opt.Prepared = prep
			reused, err := Improve(in, tour, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(plain.Tour, reused.Tour) || plain.Cost != reused.Cost || plain.Moves != reused.Moves {
				t.Errorf("%v kind %d: prepared search ended at cost %v after %d moves, the plain one at %v after %d",
					prob, kind, reused.Cost, reused.Moves, plain.Cost, plain.Moves)
			}
			a, b := newState(in, nil), newState(in, prep)
			if a.defect != b.defect || a.symm != b.symm || a.nearOK != b.nearOK {
				t.Errorf("%v kind %d: prepared defect %v symm %v lists %v, derived %v %v %v", prob, kind, b.defect, b.symm, b.nearOK, a.defect, a.symm, a.nearOK)
			}
		}
	}
}

// TestPreparedOtherInstance: data prepared for one instance are refused
// for another (one window moved, or one node), with ErrPrepared.
func TestPreparedOtherInstance(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	in, tour := randTSPTW(rng, 20, euclid, 4)
	prep := Prepare(in)
	other := in.Clone()
	other.Late[5] += 1
	if _, err := Improve(other, tour, Options{Prepared: prep}); !errors.Is(err, ErrPrepared) {
		t.Fatalf("error %v, want ErrPrepared", err)
	}
	moved := in.Clone()
	moved.X[3] += 1
	if _, err := Improve(moved, tour, Options{Prepared: prep}); !errors.Is(err, ErrPrepared) {
		t.Fatalf("a node moved: error %v, want ErrPrepared", err)
	}
	if _, err := Improve(in, tour, Options{Prepared: prep}); err != nil {
		t.Fatalf("its own instance: %v", err)
	}
}
