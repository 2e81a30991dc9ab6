//go:build ignore

// gpu-cmpsol compares the tours of two solutions files of the same instances
// file, instance by instance (by instance, augmentation and sample where a file
// holds several rows per instance, as with --all-tours), for scripts/gpu-check.sh:
// the CUDA and CPU runs of lmask-infer should give the same tours, but their
// files differ in the recorded solve times, so cmp cannot tell. It is built
// apart from the module's packages (the ignore tag) by scripts/gpu-prepare.sh:
//
//	go build -o DIR/gpu-cmpsol scripts/gpu-cmpsol.go
//	gpu-cmpsol A.parquet B.parquet
//
// It prints one summary line, "same" or "differ", with counts and the largest
// cost difference, and exits 0 when both files were read, whatever they hold.
package main

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"

	"github.com/lmask/lmask/datasets"
)

type key struct {
	inst      int64
	aug, samp int
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gpu-cmpsol A.parquet B.parquet")
		os.Exit(2)
	}
	sa, err := read(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpu-cmpsol:", err)
		os.Exit(1)
	}
	sb, err := read(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpu-cmpsol:", err)
		os.Exit(1)
	}
	// One row per instance (the default output) is keyed by instance alone, so that
	// an equal-cost best tour from another augmentation still pairs up.
	full := !onePerInstance(sa) || !onePerInstance(sb)
	a, b := index(sa, full), index(sb, full)
	var matched, sameTour, sameCost, aBetter, bBetter, feasFlip, onlyA, onlyB int
	maxDiff, sumDiff := 0.0, 0.0
	var firstDiff []string
	keys := slices.SortedFunc(maps.Keys(a), func(x, y key) int {
		return cmp.Or(cmp.Compare(x.inst, y.inst), cmp.Compare(x.aug, y.aug), cmp.Compare(x.samp, y.samp))
	})
	for _, k := range keys {
		sa := a[k]
		sb, ok := b[k]
		if !ok {
			onlyA++
			continue
		}
		matched++
		if slices.Equal(sa.Tour, sb.Tour) {
			sameTour++
		} else if len(firstDiff) < 5 {
			firstDiff = append(firstDiff, fmt.Sprintf("instance %d aug %d sample %d: cost %.6f vs %.6f", k.inst, k.aug, k.samp, sa.Cost, sb.Cost))
		}
		if sa.Feasible != sb.Feasible {
			feasFlip++
		}
		switch d := sb.Cost - sa.Cost; {
		case sa.Cost == sb.Cost || math.Abs(d) <= 1e-9:
			sameCost++
		case math.IsInf(sa.Cost, 0) || math.IsInf(sb.Cost, 0) || math.IsNaN(d):
			if math.IsInf(sa.Cost, 1) {
				bBetter++
			} else {
				aBetter++
			}
		default:
			if d < 0 {
				bBetter++
			} else {
				aBetter++
			}
			maxDiff = max(maxDiff, math.Abs(d))
			sumDiff += d
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			onlyB++
		}
	}
	verdict := "same"
	if sameTour != matched || onlyA+onlyB > 0 {
		verdict = "differ"
	}
	fmt.Printf("%s: %d rows matched, %d identical tours, %d equal costs, %d cheaper in A, %d cheaper in B, "+
		"%d feasibility flips, %d only in A, %d only in B, max |cost diff| %.3g, sum(B-A) %.6g\n",
		verdict, matched, sameTour, sameCost, aBetter, bBetter, feasFlip, onlyA, onlyB, maxDiff, sumDiff)
	for _, s := range firstDiff {
		fmt.Println("  first differing:", s)
	}
}

func read(path string) ([]datasets.Solution, error) {
	sols, _, err := datasets.ReadSolutions(path)
	return sols, err
}

func onePerInstance(sols []datasets.Solution) bool {
	seen := make(map[int64]bool, len(sols))
	for _, s := range sols {
		if seen[s.Instance] {
			return false
		}
		seen[s.Instance] = true
	}
	return true
}

// index keys rows by instance, or by (instance, augmentation, sample) when full.
func index(sols []datasets.Solution, full bool) map[key]datasets.Solution {
	m := make(map[key]datasets.Solution, len(sols))
	for _, s := range sols {
		k := key{inst: s.Instance}
		if full {
			k.aug, k.samp = s.Aug, s.Sample
		}
		m[k] = s
	}
	return m
}
