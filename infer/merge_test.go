package infer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// TestShardsMergeLikeOneRun runs three shards as an Indexed Job would,
// merges their outputs, and compares with one run over the whole file:
// the same rows in the same order, and the same metrics, greedy and
// sampled, with shards cut at row groups (groups of 7) and inside them
// (two groups of 20 for three shards).
func TestShardsMergeLikeOneRun(t *testing.T) {
	needRuntime(t)
	for _, tc := range []struct {
		name  string
		group int
		edit  func(o *Options)
	}{
		{"greedy+improve", 7, func(o *Options) { o.Improve, o.Search.Kicks = true, 2 }},
		{"sampled", 7, func(o *Options) { o.Decode.Samples, o.Decode.Seed, o.AllTours = 3, 11, true }},
		{"sampled-inside-groups", 20, func(o *Options) { o.Decode.Samples, o.Decode.Seed = 2, 12 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, ref, insts := fixtureGroups(t, lazymask.TSPTW, datasets.Hard, 10, 40, tc.group)
			opts := func(edit func(o *Options)) Options {
				return options(t, tinyTSPTW, data, func(o *Options) {
					// No escalation: its retries stop at a deadline, so
					// its tours could depend on the machine's load.
					o.Reference, o.Decode.Aug, o.Decode.Budget, o.PaperBudget, o.RescueTime = ref, 2, 5, false, 0
					tc.edit(o)
					edit(o)
				})
			}
			whole, wsum := run(t, opts(func(*Options) {}))
			var parts []string
			var sums []Summary
			for i := range 3 {
				o := opts(func(o *Options) { o.Shard = Shard{i, 3} })
				rows, sum := run(t, o)
				if len(rows) > 0 && (rows[0].Instance != sum.Rows[0] || rows[len(rows)-1].Instance != sum.Rows[1]-1) {
					t.Fatalf("shard %d: rows of instances %d..%d, range %v", i, rows[0].Instance, rows[len(rows)-1].Instance, sum.Rows)
				}
				parts, sums = append(parts, o.Out), append(sums, sum)
			}
			out := filepath.Join(t.TempDir(), "joined.parquet")
			var log bytes.Buffer
			res, err := Merge(context.Background(), MergeOptions{Out: out, Parts: []string{parts[2], parts[0], parts[1]}, Instances: data, Reference: ref, Log: &log})
			if err != nil {
				t.Fatal(err)
			}
			joined, meta, err := datasets.ReadSolutions(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(joined) != len(whole) || res.Rows != int64(len(whole)) || res.Named != 40 || len(res.Missing) != 0 || meta.Extra[KeyShard] != "" || meta.Instances != data {
				t.Fatalf("joined %d rows (%+v, metadata %+v), one run %d", len(joined), res, meta, len(whole))
			}
			sampled := 0
			for r := range whole {
				a, b := whole[r], joined[r]
				a.SolveTime, b.SolveTime = 0, 0
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("row %d: one run %+v, joined %+v", r, a, b)
				}
				if a.Sample > 0 {
					sampled++
				}
			}
			if tc.name != "greedy+improve" && sampled == 0 {
				t.Fatal("no sampled row: the test exercises nothing")
			}
			// The joined metrics are check's on the one run's file; the
			// paper's figures equal the run's own, bit for bit.
			ev, err := datasets.Evaluate(insts, whole, mustRead(t, ref))
			if err != nil {
				t.Fatal(err)
			}
			m := res.Metrics
			ev.Best = nil
			if m == nil || !res.HasReference || fmt.Sprint(*m) != fmt.Sprint(ev) {
				t.Fatalf("joined metrics %+v, check on one run %+v", m, ev)
			}
			if m.Obj != wsum.Obj || m.Gap != wsum.Gap || m.InstInfeasible != wsum.InstInfeasible || m.GapCount != wsum.GapCount {
				t.Fatalf("joined obj %v gap %v inst_infeasible %v; one run %v %v %v", m.Obj, m.Gap, m.InstInfeasible, wsum.Obj, wsum.Gap, wsum.InstInfeasible)
			}
			// Each shard's metrics are its own: they add up to the run's.
			var inst, rows, feas, objN int
			var fb FoundBy
			for _, s := range sums {
				inst, rows, feas, objN = inst+s.Instances, rows+s.Metrics.Rows, feas+s.FeasibleTours, objN+s.ObjCount
				fb.Decode, fb.Repair, fb.None = fb.Decode+s.FoundBy.Decode, fb.Repair+s.FoundBy.Repair, fb.None+s.FoundBy.None
			}
			if inst != wsum.Instances || rows != wsum.Metrics.Rows || feas != wsum.FeasibleTours || objN != wsum.ObjCount || fb != wsum.FoundBy {
				t.Fatalf("shards sum to %d instances, %d rows, %d feasible, %d solved, found by %+v; one run %+v", inst, rows, feas, objN, fb, wsum)
			}
			if sums[0].Instances == 0 || sums[0].Instances == 40 {
				t.Fatalf("shard 0 holds %d instances", sums[0].Instances)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []datasets.Solution {
	t.Helper()
	s, _, err := datasets.ReadSolutions(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writePart writes a solutions file of one row per instance in idx, with
// the metadata of shard sh (none when sh.Count is 0) of total rows.
func writePart(t *testing.T, dir, name, instances string, sh Shard, total int64, idx ...int64) string {
	t.Helper()
	meta := datasets.Metadata{Kind: datasets.KindSolutions, Problem: "tsptw", Size: 10, Source: Source, Instances: instances}
	if sh.Count > 0 {
		meta.Extra = map[string]string{KeyShard: sh.String(), KeyShardTotal: fmt.Sprint(total)}
	}
	var sols []datasets.Solution
	for _, i := range idx {
		sols = append(sols, datasets.Solution{Instance: i, Cost: float64(i), Source: Source})
	}
	p := filepath.Join(dir, name)
	if err := datasets.WriteSolutions(p, meta, sols, datasets.WriterOptions{RowGroupRows: 2}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMergeChecks: parts that overlap, leave instances out, come from
// other instances files or other runs, or list instances out of order are
// refused with the reason and nothing is written; --allow-missing writes
// the rest and says what is missing; no part is overwritten.
func TestMergeChecks(t *testing.T) {
	dir := t.TempDir()
	a := writePart(t, dir, "a.parquet", "data.parquet", Shard{0, 3}, 9, 0, 1, 2)
	b := writePart(t, dir, "b.parquet", "data.parquet", Shard{1, 3}, 9, 3, 4, 5)
	c := writePart(t, dir, "c.parquet", "data.parquet", Shard{2, 3}, 9, 6, 7, 8)
	out := filepath.Join(dir, "joined.parquet")
	merge := func(allow bool, parts ...string) (Merged, error) {
		return Merge(context.Background(), MergeOptions{Out: out, Parts: parts, AllowMissing: allow})
	}
	res, err := merge(false, c, a, b)
	if err != nil || res.Rows != 9 || res.Named != 9 || res.Expected != 9 {
		t.Fatalf("three shards: %+v, %v", res, err)
	}
	joined := mustRead(t, out)
	for i, s := range joined {
		if s.Instance != int64(i) {
			t.Fatalf("joined row %d is instance %d", i, s.Instance)
		}
	}
	os.Remove(out)
	for _, tc := range []struct {
		name  string
		parts []string
		want  string
	}{
		{"overlap", []string{a, writePart(t, dir, "o.parquet", "data.parquet", Shard{}, 0, 2, 3), b, c}, "instance 2 is in both " + a + " and " + filepath.Join(dir, "o.parquet")},
		{"missing", []string{a, c}, "3 of 9 instances are in no part: 3-5; no part is shard 1/3 (nothing written"},
		{"same shard", []string{a, b, writePart(t, dir, "b2.parquet", "data.parquet", Shard{1, 3}, 9)}, "are both shard 1/3"},
		{"other file", []string{a, writePart(t, dir, "x.parquet", "other.parquet", Shard{1, 3}, 9, 3, 4, 5)}, "but " + filepath.Join(dir, "x.parquet") + " of those in other.parquet"},
		{"other run", []string{a, writePart(t, dir, "y.parquet", "data.parquet", Shard{1, 2}, 9, 5)}, "parts of different runs"},
		{"order", []string{a, writePart(t, dir, "z.parquet", "data.parquet", Shard{}, 0, 4, 3, 5)}, "row 1: instance 3 after instance 4"},
		{"range", []string{a, writePart(t, dir, "r.parquet", "data.parquet", Shard{1, 3}, 9, 3, 9)}, "field instance: 9 out of range [0,9)"},
	} {
		_, err := merge(false, tc.parts...)
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: output written", tc.name)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one with %q", tc.name, err, tc.want)
		}
	}
	before, _ := os.ReadFile(b)
	t.Chdir(dir)
	if _, err := Merge(context.Background(), MergeOptions{Out: "./" + filepath.Base(b), Parts: []string{a, b, c}}); err == nil ||
		!strings.Contains(err.Error(), " is the part "+b+": writing it would destroy the input") {
		t.Errorf("output is a part: %v", err)
	}
	if after, _ := os.ReadFile(b); !bytes.Equal(before, after) {
		t.Errorf("the part was written over")
	}
	res, err = merge(true, a, c)
	if err != nil || res.Rows != 6 || res.MissingText() != "3-5" || len(mustRead(t, out)) != 6 {
		t.Fatalf("--allow-missing: %+v, %v", res, err)
	}
}

// TestMergeMetricsCountMissing: with the instances file, instances in no
// part count as unsolved in the joined metrics, as check counts them.
func TestMergeMetricsCountMissing(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.parquet")
	cfg := datasets.GenConfig{Problem: lazymask.TSPTW, N: 10, Hardness: datasets.Hard, Seed: 5}
	if _, err := datasets.GenerateFile(data, cfg, 6, datasets.WriterOptions{RowGroupRows: 4}); err != nil {
		t.Fatal(err)
	}
	insts, known, _ := datasets.Generate(cfg, 6)
	part := func(name string, idx ...int64) string {
		var sols []datasets.Solution
		for _, i := range idx {
			s, err := datasets.Checked(insts[i], i, known[i], "known")
			if err != nil {
				t.Fatal(err)
			}
			sols = append(sols, s)
		}
		p := filepath.Join(dir, name)
		meta := datasets.Metadata{Kind: datasets.KindSolutions, Problem: "tsptw", Size: 10, Hardness: datasets.Hard, Instances: data}
		if err := datasets.WriteSolutions(p, meta, sols, datasets.WriterOptions{}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := filepath.Join(dir, "joined.parquet")
	res, err := Merge(context.Background(), MergeOptions{Out: out, Parts: []string{part("b", 4), part("a", 0, 1)}, Instances: data, AllowMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Metrics
	if res.Expected != 6 || res.MissingText() != "2-3, 5" || m == nil || m.Instances != 6 || m.Unsolved != 3 || m.ObjCount != 3 || m.InstInfeasible != 0.5 {
		t.Fatalf("merged %+v, metrics %+v", res, m)
	}
}
