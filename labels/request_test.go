package labels

import (
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/lazymask"
)

// request is a generated set's request of 20 nodes, medium, with a budget
// of 7 where set names "budget".
func request(set ...string) Request {
	size, hard := 20, "Medium"
	r := Request{Problem: "tsptw", Hardness: &hard, Keep: "all", Size: &size, Chunk: 10, Count: 30,
		ParseShard: func(v string) (Shard, error) {
			if v != "1/3" {
				return Shard{}, errors.New("bad shard")
			}
			return Shard{Index: 1, Count: 3}, nil
		}}
	if slices.Contains(set, "budget") {
		budget := 7
		r.Budget = &budget
	}
	return r
}

// fileRequest is request with only the generator settings that set names
// given (problem, size, hardness), as for instance files.
func fileRequest(set ...string) Request {
	r := request()
	if !slices.Contains(set, "problem") {
		r.Problem = ""
	}
	if !slices.Contains(set, "size") {
		r.Size = nil
	}
	if !slices.Contains(set, "hardness") {
		r.Hardness = nil
	}
	return r
}

func TestResolve(t *testing.T) {
	if r, err := (Request{Problem: "tsptw", Keep: "all", Chunk: 10, Count: 30}).Resolve(nil); err != nil || r.Size != DefaultSize || r.Hardness != DefaultHardness {
		t.Fatalf("no size or hardness given: %+v, %v", r, err)
	}
	r, err := request().Resolve(nil)
	want, _ := lazymask.PaperBudget(lazymask.TSPTW, 20, "medium")
	if err != nil || r.Problem != lazymask.TSPTW || r.Size != 20 || r.Hardness != "medium" || r.Keep != "" || r.Budget != want {
		t.Fatalf("defaults: %+v, %v (paper budget %d)", r, err, want)
	}
	if r, err := request("budget").Resolve(nil); err != nil || r.Budget != 7 {
		t.Fatalf("budget 7: %+v, %v", r, err)
	}
	q := request()
	q.Shard, q.Model, q.Keep = "1/3", "m", "failed"
	if r, err := q.Resolve(nil); err != nil || r.Shard != (Shard{1, 3}) || r.Keep != datasets.KeepFailed {
		t.Fatalf("shard and keep: %+v, %v", r, err)
	}
	for _, c := range []struct {
		option, value, want string // want: the message's start
		edit                func(*Request)
	}{
		{"Problem", "", "label: Problem: ", func(r *Request) { r.Problem = "cvrp" }},
		{"Size", "2", "label: Size 2: want ≥ 3", func(r *Request) { *r.Size = 2 }},
		{"Hardness", "", "label: Hardness: ", func(r *Request) { *r.Hardness = "brutal" }},
		{"Shard", "", "label: Shard: bad shard", func(r *Request) { r.Shard = "9" }},
		{"Shard", "", "label: Shard: grows a set; Relabel re-solves", func(r *Request) { r.Shard, r.Relabel, r.Model = "1/3", true, "m" }},
		{"Chunk", "0", "label: Chunk 0: want ≥ 1", func(r *Request) { r.Chunk = 0 }},
		{"Count", "0", "label: Count 0: want ≥ 1", func(r *Request) { r.Count = 0 }},
		{"Relabel", "", "label: Relabel: needs Model", func(r *Request) { r.Relabel = true }},
		{"Keep", "failed", "label: Keep failed: needs Model", func(r *Request) { r.Keep = "failed" }},
		{"Keep", `"some"`, `label: Keep "some": want all or failed`, func(r *Request) { r.Keep = "some" }},
		{"Prefixes", "", "label: Prefixes: needs Model and goes with neither Relabel nor Keep failed", func(r *Request) { r.Prefixes, r.Model, r.Relabel = true, "m", true }},
	} {
		q := request()
		c.edit(&q)
		_, err := q.Resolve(nil)
		if oe := opterr.As(err); oe == nil || oe.Option != c.option || oe.Value != c.value || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v (%+v), want %s", c.want, err, oe, c.want)
		}
	}
	files := &datasets.InstanceFiles{Problem: lazymask.TSPDL, Instances: []*lazymask.Instance{{N: 10}, {N: 30}}}
	if r, err := fileRequest().Resolve(files); err != nil || r.Problem != lazymask.TSPDL || r.Size != 30 || r.Hardness != "" {
		t.Fatalf("files: %+v, %v", r, err)
	}
	for _, c := range []struct{ field, option, value, want string }{
		{"problem", "Problem", "tsptw", "label: Problem tsptw: the Instances files hold tspdl"},
		{"size", "Size", "20", "label: Size 20: the Instances files hold sizes [10 30]"},
		{"hardness", "Hardness", "", "label: Hardness: the Instances files are not generated (drop it)"},
	} {
		_, err := fileRequest(c.field).Resolve(files)
		if oe := opterr.As(err); oe == nil || oe.Option != c.option || oe.Value != c.value || err.Error() != c.want {
			t.Errorf("%s with files: got %v, want %s", c.field, err, c.want)
		}
	}
}

// TestResolvedSpec: a generated set records the resolved problem, size and
// hardness with the generator's version; a set of files records FileSpec's
// sizes and no hardness; both keep the search, keep rule and prefixes.
func TestResolvedSpec(t *testing.T) {
	r := Resolved{Problem: lazymask.TSPTW, Size: 20, Hardness: "hard", Keep: datasets.KeepFailed, Budget: 100}
	got := r.Spec(nil, 7, 500, "Random-L ×8; 4 starts + 20 kicks", true)
	want := datasets.LabelSpec{Problem: "tsptw", Size: 20, Hardness: "hard", Seed: 7, ChunkSize: 500, GeneratorVersion: datasets.GeneratorVersion,
		Search: "Random-L ×8; 4 starts + 20 kicks", Keep: datasets.KeepFailed, Prefixes: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("generated spec %+v, want %+v", got, want)
	}
	files := &datasets.InstanceFiles{Problem: lazymask.TSPDL, Instances: []*lazymask.Instance{{N: 10}, {N: 30}}}
	r = Resolved{Problem: lazymask.TSPDL, Size: 30}
	got = r.Spec(files, 3, 100, "s", false)
	want = FileSpec(files, 3, 100)
	want.Search = "s"
	if !reflect.DeepEqual(got, want) || got.Hardness != "" || got.GeneratorVersion != "" || !slices.Equal(got.Sizes, []int{10, 30}) {
		t.Errorf("files spec %+v, want %+v", got, want)
	}
}

func TestPending(t *testing.T) {
	dir := t.TempDir()
	for _, i := range []int{0, 3} { // chunks 0 and 3 written
		inst, sol := datasets.LabelChunkPaths(dir, i)
		for _, p := range []string{inst, sol} {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		count   int
		shard   Shard
		relabel bool
		want    int
	}{
		{45, Shard{}, false, 30},                   // chunks 1, 2, 4 of 0..4
		{45, Shard{Index: 1, Count: 2}, false, 10}, // chunk 1 (3 is written)
		{45, Shard{}, true, 20},                    // the two written chunks
		{10, Shard{}, false, 0},
	} {
		got, err := Pending(dir, 10, c.count, nil, c.shard, c.relabel)
		if err != nil || got != c.want {
			t.Errorf("count %d shard %v relabel %v: %d, %v; want %d", c.count, c.shard, c.relabel, got, err, c.want)
		}
	}
	files := &datasets.InstanceFiles{Instances: make([]*lazymask.Instance, 25)}
	// 25 instances: chunks 0..2, of which 1 and 2 are missing.
	if got, err := Pending(dir, 10, 0, files, Shard{}, false); err != nil || got != 20 {
		t.Errorf("files: %d, %v; want 20", got, err)
	}
	if _, err := Pending(dir+"/missing", 10, 5, nil, Shard{}, false); err == nil {
		t.Error("missing folder accepted")
	}
}
