package infer

import (
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		spec   string
		getenv func(string) string
		want   Shard
		err    string
	}{
		{"0/3", env(), Shard{0, 3}, ""},
		{"2/3", env(), Shard{2, 3}, ""},
		{"0/1", env(), Shard{0, 1}, ""},
		{"3/3", env(), Shard{}, `"3/3": 3 is out of range [0,3)`},
		{"-1/3", env(), Shard{}, "out of range"},
		{"x/3", env(), Shard{}, `"x/3": "x" is not a shard index`},
		{"1/0", env(), Shard{}, "want I/K or auto/K"},
		{"1", env(), Shard{}, "want I/K or auto/K"},
		{"auto/4", env("JOB_COMPLETION_INDEX", "2"), Shard{2, 4}, ""},
		{"auto/4", env("SLURM_ARRAY_TASK_ID", "3"), Shard{3, 4}, ""},
		{"auto/4", env("SLURM_ARRAY_TASK_ID", "3", "JOB_COMPLETION_INDEX", "1"), Shard{1, 4}, ""},
		{"auto/4", env(), Shard{}, "neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set"},
		{"auto/3", env("SLURM_ARRAY_TASK_ID", "3"), Shard{}, `"auto/3": SLURM_ARRAY_TASK_ID=3 is out of range [0,3)`},
		{"auto/3", env("JOB_COMPLETION_INDEX", "one"), Shard{}, `JOB_COMPLETION_INDEX="one" is not a shard index`},
	} {
		got, err := ParseShard(tc.spec, tc.getenv)
		if tc.err == "" && (err != nil || got != tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.spec, got, err, tc.want)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: err %v, want one with %q", tc.spec, err, tc.err)
		}
	}
}

// TestShardRange: the slices tile the rows in order; with at least as many
// row groups as shards every cut is a group boundary and no slice is
// empty; otherwise the rows are split evenly.
func TestShardRange(t *testing.T) {
	for _, tc := range []struct {
		total  int64
		groups []int64
		k      int
		want   []int64 // the cuts
	}{
		{40, []int64{7, 7, 7, 7, 7, 5}, 3, []int64{0, 14, 28, 40}},
		{30, []int64{7, 7, 7, 7, 7, 5}, 3, []int64{0, 7, 21, 30}}, // the first 30 rows (a limit)
		{40, []int64{20, 20}, 3, []int64{0, 13, 26, 40}},          // fewer groups than shards
		{10000, []int64{4096, 4096, 1808}, 3, []int64{0, 4096, 8192, 10000}},
		{12, []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 3}, 2, []int64{0, 6, 12}},
		{12, []int64{10, 1, 1}, 3, []int64{0, 10, 11, 12}}, // one group per shard, whatever the balance
		{2, []int64{2}, 3, []int64{0, 0, 1, 2}},
		{0, nil, 2, []int64{0, 0, 0}},
		{5, []int64{5}, 1, []int64{0, 5}},
	} {
		for i := 0; i < tc.k; i++ {
			lo, hi := Shard{i, tc.k}.Range(tc.total, tc.groups)
			if lo != tc.want[i] || hi != tc.want[i+1] {
				t.Errorf("total %d groups %v: shard %d/%d is [%d,%d), want [%d,%d)", tc.total, tc.groups, i, tc.k, lo, hi, tc.want[i], tc.want[i+1])
			}
		}
	}
	if lo, hi := (Shard{}).Range(9, []int64{4, 5}); lo != 0 || hi != 9 {
		t.Errorf("zero shard: [%d,%d)", lo, hi)
	}
	// Every split of a file of uneven groups tiles it, on boundaries.
	groups := []int64{3, 9, 1, 4, 4, 8, 2, 6}
	bound := map[int64]bool{0: true}
	var total int64
	for _, g := range groups {
		total += g
		bound[total] = true
	}
	for k := 1; k <= len(groups); k++ {
		var at int64
		for i := 0; i < k; i++ {
			lo, hi := Shard{i, k}.Range(total, groups)
			if lo != at || hi <= lo || !bound[lo] || !bound[hi] {
				t.Fatalf("k %d: shard %d is [%d,%d) after %d", k, i, lo, hi, at)
			}
			at = hi
		}
		if at != total {
			t.Fatalf("k %d: the shards end at %d of %d", k, at, total)
		}
	}
}
