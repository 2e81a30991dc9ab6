package datasets

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

const twHead = "instance,node,x,y,ready,due,service\n"

// goodTW is two TSPTW instances; b's rows are out of node order.
const goodTW = twHead +
	"a,0,10,10,0,100,0\n" +
	"a,1,14,13,5,20,2\n" +
	"a,2,10,18,0,40,1.5\n" +
	"b,2,0,0,3,9,0\n" +
	"b,0,1,1,0,50,0\n" +
	"b,1,4,3,0,30,4\n"

// goodTimes is an asymmetric travel-time file for goodTW.
const goodTimes = "instance,from,to,time\n" +
	"a,0,1,5\na,1,0,6\na,0,2,8\na,2,0,8\na,1,2,5\na,2,1,7\na,1,1,0\n" +
	"b,0,1,5\nb,1,0,5\nb,0,2,1.5\nb,2,0,2\nb,1,2,6\nb,2,1,6\n"

func readAllCSV(t *testing.T, stops, times string, opt CSVOptions) ([]*lazymask.Instance, error) {
	t.Helper()
	var tr io.Reader
	if times != "" {
		tr = strings.NewReader(times)
	}
	cr, err := ReadCSV(strings.NewReader(stops), "stops.csv", tr, "times.csv", opt)
	if err != nil {
		return nil, err
	}
	var out []*lazymask.Instance
	for {
		in, err := cr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, in)
	}
}

func TestCSVBadInputs(t *testing.T) {
	dlHead := "instance,node,x,y,demand,draft\n"
	cases := []struct {
		name, stops, times string
		opt                CSVOptions
		want               []string // substrings of the error
	}{
		{"window end before start", twHead + "a,0,0,0,0,10,0\na,1,1,1,7,3,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 3: column due: value \"3\"", "before its start (ready 7)"}},
		{"missing depot", twHead + "a,1,0,0,0,10,0\na,2,1,1,0,9,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 2: column node:", "lines 2-3", "no depot (node 0)"}},
		{"duplicate node", twHead + "a,0,0,0,0,10,0\na,1,1,1,0,9,0\na,1,2,2,0,9,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 4: column node: value \"1\"", "appears twice (lines 3 and 4)"}},
		{"nodes not 0..n-1", twHead + "a,0,0,0,0,10,0\na,1,1,1,0,9,0\na,5,2,2,0,9,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 4: column node: value \"5\"", "outside 0..2"}},
		{"NaN", twHead + "a,0,0,0,0,10,0\na,1,NaN,1,0,9,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 3: column x: value \"NaN\"", "not a finite number"}},
		{"Inf", twHead + "a,0,0,0,0,10,0\na,1,1,1,0,+Inf,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 3: column due: value \"+Inf\"", "not a finite number"}},
		{"overflow", twHead + "a,0,0,0,0,10,0\na,1,1,1,0,1e999,0\n", "", CSVOptions{},
			[]string{"line 3: column due: value \"1e999\"", "not a finite number"}},
		{"negative ready", twHead + "a,0,0,0,0,10,0\na,1,1,1,-2,9,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 3: column ready: value \"-2\": negative"}},
		{"negative service", twHead + "a,0,0,0,0,10,0\na,1,1,1,0,9,-1\n", "", CSVOptions{},
			[]string{"stops.csv: line 3: column service: value \"-1\": negative"}},
		{"negative demand", dlHead + "a,0,0,0,0,5\na,1,1,1,-1,5\n", "", CSVOptions{},
			[]string{"stops.csv: line 3: column demand: value \"-1\": negative"}},
		{"short row", twHead + "a,0,0,0,0,10,0\na,1,1,1,0,9\n", "", CSVOptions{},
			[]string{"stops.csv: line 3: column service: missing: the row has 6 fields, the header 7"}},
		{"long row", twHead + "a,0,0,0,0,10,0,7\n", "", CSVOptions{},
			[]string{"stops.csv: line 2: column 8: value \"7\": the row has 8 fields, the header 7"}},
		{"non-numeric", twHead + "a,0,0,0,0,10,0\na,1,1,east,0,9,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 3: column y: value \"east\": not a number"}},
		{"non-integer node", twHead + "a,0,0,0,0,10,0\na,1.5,1,1,0,9,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 3: column node: value \"1.5\": not an integer node number"}},
		{"unknown column", "instance,node,x,y,ready,due,colour\n", "", CSVOptions{},
			[]string{"stops.csv: line 1: column 7: value \"colour\": unknown column"}},
		{"column twice", "instance,node,x,y,ready,due,due\n", "", CSVOptions{},
			[]string{"stops.csv: line 1: column due: column named twice"}},
		{"missing column", "instance,node,x,ready,due\n", "", CSVOptions{},
			[]string{"stops.csv: line 1: column y: missing column"}},
		{"mixed problems", "instance,node,x,y,ready,due,draft\n", "", CSVOptions{},
			[]string{"stops.csv: line 1: header mixes tsptw columns"}},
		{"wrong problem", twHead + "a,0,0,0,0,10,0\na,1,1,1,0,9,0\n", "", CSVOptions{Problem: "tspdl"},
			[]string{"stops.csv: line 1:", "those of tsptw, not of the requested tspdl"}},
		{"empty file", "", "", CSVOptions{}, []string{"stops.csv: line 1: empty file"}},
		{"header only", twHead, "", CSVOptions{}, []string{"stops.csv: line 2: no rows after the header"}},
		{"instance reappears", twHead + "a,0,0,0,0,10,0\na,1,1,1,0,9,0\nb,0,0,0,0,10,0\nb,1,1,1,0,9,0\na,2,3,3,0,9,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 6: column instance: value \"a\"", "appears again (its rows began at line 2)", "contiguous"}},
		{"depot ready", twHead + "a,0,0,0,480,900,0\na,1,1,1,500,900,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 2: column ready: value \"480\"", "must open at 0"}},
		{"depot demand", dlHead + "a,0,0,0,2,5\na,1,1,1,1,5\n", "", CSVOptions{},
			[]string{"stops.csv: line 2: column demand: value \"2\"", "no demand"}},
		{"one point", twHead + "a,0,3,3,0,10,0\na,1,3,3,0,9,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 2: column x:", "at one point"}},
		{"bad quote", twHead + "a,0,0,0,0,10,0\na,1,\"1,1,0,9,0\n", "", CSVOptions{},
			[]string{"stops.csv: line 3:", "quote"}},

		{"times: missing pair", goodTW, strings.Replace(goodTimes, "a,2,1,7\n", "", 1), CSVOptions{},
			[]string{"times.csv: line 7: column time:", "no travel time from node 2 to node 1 of instance \"a\""}},
		{"times: unknown node", goodTW, strings.Replace(goodTimes, "a,2,1,7\n", "a,2,3,7\n", 1), CSVOptions{},
			[]string{"times.csv: line 7: column to: value \"3\": unknown node", "nodes 0..2"}},
		{"times: negative", goodTW, strings.Replace(goodTimes, "a,2,1,7\n", "a,2,1,-7\n", 1), CSVOptions{},
			[]string{"times.csv: line 7: column time: value \"-7\": negative"}},
		{"times: NaN", goodTW, strings.Replace(goodTimes, "a,2,1,7\n", "a,2,1,nan\n", 1), CSVOptions{},
			[]string{"times.csv: line 7: column time: value \"nan\": not a finite number"}},
		{"times: twice", goodTW, strings.Replace(goodTimes, "a,2,1,7\n", "a,2,1,7\na,2,1,7\n", 1), CSVOptions{},
			[]string{"times.csv: line 8: column to: value \"1\": a second travel time from node 2 to node 1"}},
		{"times: self", goodTW, strings.Replace(goodTimes, "a,1,1,0\n", "a,1,1,3\n", 1), CSVOptions{},
			[]string{"times.csv: line 8: column time: value \"3\"", "to itself must be 0"}},
		{"times: order", goodTW, "instance,from,to,time\nb,0,1,5\n", CSVOptions{},
			[]string{"times.csv: line 2: column instance: value \"b\"", "instance \"a\" (stops file line 2) come next"}},
		{"times: ends early", goodTW, goodTimes[:strings.Index(goodTimes, "b,")], CSVOptions{},
			[]string{"times.csv: line 9: column instance:", "ends before the travel times of instance \"b\" (stops file line 5)"}},
		{"times: extra instance", goodTW, goodTimes + "c,0,1,1\n", CSVOptions{},
			[]string{"times.csv: line 15: column instance: value \"c\"", "the stops file does not have"}},
		{"times: ragged", goodTW, strings.Replace(goodTimes, "a,2,1,7\n", "a,2,1\n", 1), CSVOptions{},
			[]string{"times.csv: line 7: column time: missing"}},
		{"times: unknown column", goodTW, "instance,from,to,minutes\n", CSVOptions{},
			[]string{"times.csv: line 1: column 4: value \"minutes\": unknown column"}},
		{"times: non-numeric node", goodTW, strings.Replace(goodTimes, "a,2,1,7\n", "a,two,1,7\n", 1), CSVOptions{},
			[]string{"times.csv: line 7: column from: value \"two\": not an integer node number"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAllCSV(t, c.stops, c.times, c.opt)
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestCSVRoundTrip(t *testing.T) {
	dir := t.TempDir()
	stops, times, out := filepath.Join(dir, "stops.csv"), filepath.Join(dir, "times.csv"), filepath.Join(dir, "i.parquet")
	os.WriteFile(stops, []byte(goodTW), 0o644)
	os.WriteFile(times, []byte(goodTimes), 0o644)
	for _, withTimes := range []bool{false, true} {
		tp := ""
		if withTimes {
			tp = times
		}
		os.Remove(out)
		sum, err := ImportCSV(stops, tp, out, CSVOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Instances != 2 || sum.MinN != 3 || sum.MaxN != 3 || sum.Problem != lazymask.TSPTW || sum.Scale != 0 {
			t.Fatalf("summary %+v", sum)
		}
		d, err := ReadInstances(out)
		if err != nil {
			t.Fatal(err)
		}
		if d.Meta.Size != 3 || d.Meta.Scale != 0 || d.Meta.Problem != "tsptw" || d.Meta.Source != stops || len(d.Instances) != 2 {
			t.Fatalf("meta %+v, %d instances", d.Meta, len(d.Instances))
		}
		// a: extent max(14−10, 18−10) = 8, scale 8; b: extent 4 → 4.
		a, b := d.Instances[0], d.Instances[1]
		if a.Name != "a" || b.Name != "b" || a.Scale != 8 || b.Scale != 4 {
			t.Fatalf("names %q %q scales %v %v", a.Name, b.Name, a.Scale, b.Scale)
		}
		eq := func(what string, got []float64, scale float64, want ...float64) {
			t.Helper()
			for i := range want {
				if got[i]*scale != want[i] {
					t.Errorf("%s[%d] = %v × %v, want %v", what, i, got[i], scale, want[i])
				}
			}
		}
		eq("a.x", a.X, 8, 0, 4, 0) // shifted to a minimum of 0
		eq("a.y", a.Y, 8, 0, 3, 8)
		eq("a.early", a.Early, 8, 0, 5, 0)
		eq("a.late", a.Late, 8, 100, 20, 40)
		eq("a.service", a.Service, 8, 0, 2, 1.5)
		eq("b.x", b.X, 4, 1-0, 4-0, 0) // node 2 was the first row
		eq("b.early", b.Early, 4, 0, 0, 3)
		eq("b.service", b.Service, 4, 0, 4, 0)
		if !withTimes {
			if a.Dist != nil || b.Dist != nil {
				t.Fatal("a file without times has a matrix")
			}
			if got := a.D(0, 1) * 8; got != 5 {
				t.Errorf("Euclidean a 0→1 = %v, want 5", got)
			}
			continue
		}
		eq("a.dist", a.Dist, 8, 0, 5, 8, 6, 0, 5, 8, 7, 0)
		eq("b.dist", b.Dist, 4, 0, 5, 1.5, 5, 0, 6, 2, 6, 0)
		if res, err := lazymask.Check(a, []int{0, 1, 2}); err != nil || res.Cost*8 != 5+5+8 {
			t.Errorf("a tour 0 1 2: cost %v × 8, err %v", res.Cost, err)
		}
	}
	// A fixed scale divides without shifting, and is recorded once.
	os.Remove(out)
	sum, err := ImportCSV(stops, times, out, CSVOptions{Scale: 10, RowGroupRows: 1})
	if err != nil || sum.Scale != 10 {
		t.Fatalf("%+v %v", sum, err)
	}
	ir, err := OpenInstances(out)
	if err != nil {
		t.Fatal(err)
	}
	defer ir.Close()
	if ir.NumRowGroups() != 2 || ir.Metadata().Scale != 10 {
		t.Fatalf("%d row groups, meta %+v", ir.NumRowGroups(), ir.Metadata())
	}
	bt, err := ir.Next()
	if err != nil || bt.Instances[0].X[1] != 1.4 || bt.Instances[0].Dist[1] != 0.5 {
		t.Fatalf("%v %v", bt.Instances[0], err)
	}
}

func TestCSVTSPDL(t *testing.T) {
	ins, err := readAllCSV(t, "instance,node,x,y,demand,draft\np,0,0,0,0,10\np,1,3,0,4,4\np,2,3,4,6,10\n", "", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := ins[0]
	// Loads stay in the file's units; coordinates are divided by 4.
	if in.Problem != lazymask.TSPDL || in.Scale != 4 || in.Demand[2] != 6 || in.Draft[1] != 4 || in.X[1] != 0.75 || in.TotalDemand() != 10 {
		t.Fatalf("%+v", in)
	}
	if res, err := lazymask.Check(in, []int{0, 2, 1}); err == nil || res.Feasible {
		t.Fatalf("tour 0 2 1 puts load 10 on port 1 (limit 4): %+v %v", res, err)
	}
	if res, err := lazymask.Check(in, []int{0, 1, 2}); err != nil || res.Cost*in.Scale != 12 {
		t.Fatalf("tour 0 1 2: %+v %v", res, err)
	}
}

// TestCSVNothingHalfWritten imports a file whose last instance is bad: no
// output appears.
func TestCSVNothingHalfWritten(t *testing.T) {
	dir := t.TempDir()
	stops, out := filepath.Join(dir, "stops.csv"), filepath.Join(dir, "i.parquet")
	os.WriteFile(stops, []byte(goodTW+"c,0,0,0,0,10,0\nc,1,1,1,0,9,x\n"), 0o644)
	_, err := ImportCSV(stops, "", out, CSVOptions{RowGroupRows: 1})
	if err == nil || !strings.Contains(err.Error(), stops+": line 9: column service: value \"x\"") {
		t.Fatalf("err %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("files left: %v", ents)
	}
}

// FuzzReadCSV: any stops and times files either fail with an error that
// names the file and a line, or give instances that pass Validate, with
// the depot open from time 0.
func FuzzReadCSV(f *testing.F) {
	f.Add(goodTW, goodTimes)
	f.Add(goodTW, "")
	f.Add("instance,node,x,y,demand,draft\np,0,0,0,0,10\np,1,3,0,4,4\np,2,3,4,6,10\n", "")
	f.Add(twHead+"a,0,0,0,0,10,0\na,1,\"1\",1,0,9,0\n\n", "instance,from,to,time\na,0,1,1\na,1,0,2\n")
	f.Fuzz(func(t *testing.T, stops, times string) {
		var tr io.Reader
		if times != "" {
			tr = strings.NewReader(times)
		}
		cr, err := ReadCSV(strings.NewReader(stops), "stops.csv", tr, "times.csv", CSVOptions{})
		for k := 0; err == nil && k < 50; k++ {
			var in *lazymask.Instance
			if in, err = cr.Next(); err != nil {
				break
			}
			if verr := in.Validate(); verr != nil {
				t.Fatalf("instance %d: %v", k, verr)
			}
			if in.Problem == lazymask.TSPTW && (in.Early[0] != 0 || in.Service[0] != 0) {
				t.Fatalf("instance %d: depot opens at %v with service %v", k, in.Early[0], in.Service[0])
			}
		}
		if err == nil || errors.Is(err, io.EOF) {
			return
		}
		var ce *CSVError
		if !errors.As(err, &ce) && !strings.HasPrefix(err.Error(), "stops.csv") && !strings.HasPrefix(err.Error(), "times.csv") {
			t.Fatalf("error without a file: %v", err)
		}
		if ce != nil && ce.Line < 1 {
			t.Fatalf("error without a line: %v", err)
		}
	})
}
