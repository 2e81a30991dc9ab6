package infer

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is the Index-th (from 0) of Count contiguous slices of a file's
// instance rows. The zero value, like Count 1, stands for the whole file.
type Shard struct {
	Index, Count int
}

// IndexEnv lists the variables that --shard auto/K reads the index from,
// in order: a Kubernetes Indexed Job's and a Slurm job array's.
var IndexEnv = []string{"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"}

// Whole reports whether s covers the whole file.
func (s Shard) Whole() bool { return s.Count <= 1 }

// String is "I/K".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard parses "I/K" (0 ≤ I < K) or "auto/K", which takes I from the
// first variable of IndexEnv that getenv finds set. The errors name the
// value and, for auto, the variable.
func ParseShard(spec string, getenv func(string) string) (Shard, error) {
	is, ks, ok := strings.Cut(spec, "/")
	k, err := strconv.Atoi(ks)
	if !ok || err != nil || k < 1 {
		return Shard{}, fmt.Errorf("%q: want I/K or auto/K with K ≥ 1 shards", spec)
	}
	src := ""
	if is == "auto" {
		for _, name := range IndexEnv {
			if v := getenv(name); v != "" {
				is, src = v, name+"="
				break
			}
		}
		if src == "" {
			return Shard{}, fmt.Errorf("%q: neither %s is set", spec, strings.Join(IndexEnv, " nor "))
		}
	}
	i, err := strconv.Atoi(is)
	if err != nil {
		return Shard{}, fmt.Errorf("%q: %s%q is not a shard index", spec, src, is)
	}
	if i < 0 || i >= k {
		return Shard{}, fmt.Errorf("%q: %s%d is out of range [0,%d) (shards count from 0)", spec, src, i, k)
	}
	return Shard{Index: i, Count: k}, nil
}

// Range returns the rows [lo,hi) of shard s among the first total rows of
// a file whose row groups hold groups rows each. Where there are at least
// as many row groups as shards the cuts fall on row-group boundaries (the
// one nearest to an even split, every shard at least one group), so each
// shard reads only its own groups; otherwise the rows are split evenly.
// Every shard computes all cuts the same way, so the slices tile the rows.
func (s Shard) Range(total int64, groups []int64) (lo, hi int64) {
	if s.Whole() {
		return 0, total
	}
	k := int64(s.Count)
	bounds := []int64{0}
	var at int64
	for _, g := range groups {
		if at += g; at >= total {
			break
		}
		if g > 0 {
			bounds = append(bounds, at)
		}
	}
	bounds = append(bounds, total)
	nb := len(bounds) - 1 // groups within the rows
	if total <= 0 || nb < s.Count {
		return total * int64(s.Index) / k, total * int64(s.Index+1) / k
	}
	cuts := make([]int, s.Count+1)
	cuts[s.Count] = nb
	for j := 1; j < s.Count; j++ {
		ideal := total * int64(j) / k
		b := 0
		for b+1 <= nb && bounds[b+1] <= ideal {
			b++
		}
		if b < nb && bounds[b+1]-ideal < ideal-bounds[b] {
			b++
		}
		cuts[j] = min(max(b, cuts[j-1]+1), nb-(s.Count-j))
	}
	return bounds[cuts[s.Index]], bounds[cuts[s.Index+1]]
}

// Metadata keys of a shard's solutions file.
const (
	// KeyShard is "I/K".
	KeyShard = "lmask.shard"
	// KeyShardRows is "lo:hi", the instance rows [lo,hi) of the shard.
	KeyShardRows = "lmask.shard_rows"
	// KeyShardTotal is the number of rows the shards split (the file's,
	// or the first --limit).
	KeyShardTotal = "lmask.shard_total"
)
