package infer

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lmask/lmask/datasets"
)

// TestDropShardsMerge: the example infeasible days solved with drop in two
// shards and merged count the same dropped stops as one run, and the
// paper's rate of instances without a feasible tour stays 3 of 4.
func TestDropShardsMerge(t *testing.T) {
	needRuntime(t)
	data := filepath.Join(t.TempDir(), "days.parquet")
	if _, err := datasets.ImportCSV(filepath.Join("..", "datasets", "examples", "infeasible.csv"), "", data, datasets.CSVOptions{RowGroupRows: 2}); err != nil {
		t.Fatal(err)
	}
	opts := func(edit func(o *Options)) Options {
		return options(t, tinyTSPTW, data, func(o *Options) {
			o.Decode.Aug, o.Infeasible, o.RescueTime = 2, InfeasibleDrop, 0
			edit(o)
		})
	}
	rows, whole := run(t, opts(func(*Options) {}))
	if whole.DropInstances != 3 || whole.DroppedStops != 3 || whole.InstInfeasible != 0.75 {
		t.Fatalf("one run: %d instances drop %d stops, inst_infeasible %v", whole.DropInstances, whole.DroppedStops, whole.InstInfeasible)
	}
	drops := 0
	for _, r := range rows {
		if r.Dropped != nil {
			drops++
			if r.Source != SourceDrop || !r.Feasible || len(r.Dropped) != 1 {
				t.Fatalf("row %+v", r)
			}
		}
	}
	if drops != 3 {
		t.Fatalf("%d rows with dropped stops, want 3", drops)
	}
	var parts []string
	for i := range 2 {
		o := opts(func(o *Options) { o.Shard = Shard{i, 2} })
		run(t, o)
		parts = append(parts, o.Out)
	}
	res, err := Merge(context.Background(), MergeOptions{Out: filepath.Join(t.TempDir(), "joined.parquet"), Parts: parts, Instances: data})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Metrics; m == nil || m.DropInstances != 3 || m.DroppedStops != 3 || m.InstInfeasible != 0.75 {
		t.Fatalf("merged: %+v", res.Metrics)
	}
}
