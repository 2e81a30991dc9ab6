package scripts

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
)

// TestOwnData runs the README's own-data walkthrough (own-data.sh) on the
// example stops, with Euclidean distances and with the example travel-time
// file, and checks its schedules against the CSVs it started from: every
// stop in its window in the files' own units, travel times as the files
// give them, arrivals that add up, costs that the checker computes, one row
// per stop. With onnxruntime it solves with the shipped network, without it
// with the Random-L baseline.
func TestOwnData(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found")
	}
	root, _ := filepath.Abs("..")
	bin := t.TempDir()
	cmds := []string{"./cmd/lmask-data"}
	solver := "baseline"
	if engine.Available() == nil {
		cmds, solver = append(cmds, "./cmd/lmask-infer"), "infer"
	} else {
		t.Logf("onnxruntime not available (set %s): solving with the Random-L baseline", engine.LibraryEnv)
	}
	build := func(pkgs ...string) {
		t.Helper()
		cmd := exec.Command("go", append([]string{"build", "-o", bin + "/"}, pkgs...)...)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, b)
		}
	}
	build(cmds...)
	// Labels and imitation run once lmask-data labels instance files.
	trained := false
	if help, _ := exec.Command(filepath.Join(bin, "lmask-data"), "label", "--help").CombinedOutput(); solver == "infer" && !testing.Short() &&
		strings.Contains(string(help), "--instances") {
		build("./cmd/lmask-train")
		trained = true
	}
	ex := filepath.Join(root, "datasets", "examples")
	t.Run("euclidean", func(t *testing.T) { ownData(t, root, bin, solver, trained, filepath.Join(ex, "stops.csv"), "") })
	t.Run("times", func(t *testing.T) {
		ownData(t, root, bin, solver, false, filepath.Join(ex, "stops.csv"), filepath.Join(ex, "times.csv"))
	})
}

// ownData runs own-data.sh on stops (and times, when not "") and checks its
// outputs; trained says that the labels and imitation ran.
func ownData(t *testing.T, root, bin, solver string, trained bool, stops, times string) {
	out := t.TempDir()
	args := []string{"scripts/own-data.sh", stops, out}
	if times != "" {
		args = append(args, times)
	}
	cmd := exec.Command("bash", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "BIN="+bin, "SOLVER="+solver)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("own-data.sh: %v\n%s", err, b)
	}
	t.Logf("%s", b)
	if trained {
		for _, f := range []string{"labels/labels.json", "model/encoder.onnx", "model/decoder.onnx"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Fatalf("labels and imitation: %v", err)
			}
		}
		if !strings.Contains(string(b), "imitating 3 label tours") {
			t.Fatal("the imitation did not read the 3 labels")
		}
	}

	var m map[string]any
	if raw, err := os.ReadFile(filepath.Join(out, "check.json")); err != nil || json.Unmarshal(raw, &m) != nil {
		t.Fatalf("check.json: %v %s", err, raw)
	}
	if m["instances"] != 3.0 || m["inst_infeasible"] != 0.0 || m["violating_tours"] != 0.0 {
		t.Fatalf("check: %v", m)
	}

	// The windows, coordinates and travel times in the files' units.
	type window struct{ x, y, ready, due, service float64 }
	win := map[string]window{}
	size := map[string]int{}
	for _, r := range readCSV(t, stops)[1:] {
		f := func(i int) float64 { v, _ := strconv.ParseFloat(r[i], 64); return v }
		win[r[0]+"/"+r[1]] = window{f(2), f(3), f(4), f(5), f(6)}
		size[r[0]]++
	}
	travel := func(inst, from, to string) float64 {
		a, b := win[inst+"/"+from], win[inst+"/"+to]
		return math.Hypot(a.x-b.x, a.y-b.y)
	}
	if times != "" {
		tt := map[string]float64{}
		for _, r := range readCSV(t, times)[1:] {
			tt[r[0]+"/"+r[1]+"/"+r[2]], _ = strconv.ParseFloat(r[3], 64)
		}
		travel = func(inst, from, to string) float64 { return tt[inst+"/"+from+"/"+to] }
	}
	recs := readCSV(t, filepath.Join(out, "schedule.csv"))
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	if len(recs)-1 != 7+1+6+1+5+1 {
		t.Fatalf("%d schedule rows, want one per stop and return (21)", len(recs)-1)
	}
	d, err := datasets.ReadInstances(filepath.Join(out, "stops.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	tours := map[string][]int{}
	costs := map[string]float64{}
	sum := 0.0
	prevDep, prevNode := 0.0, "0"
	for k, r := range recs[1:] {
		v := func(c string) float64 {
			x, err := strconv.ParseFloat(r[col[c]], 64)
			if err != nil {
				t.Fatalf("row %d column %s: %q", k+2, c, r[col[c]])
			}
			return x
		}
		name, node := r[col["instance"]], r[col["node"]]
		if r[col["feasible"]] != "true" || r[col["verdict"]] != "feasible" || r[col["best"]] != "true" {
			t.Fatalf("row %d: %v", k+2, r)
		}
		n, _ := strconv.Atoi(node)
		stop := int(v("stop"))
		if stop == 0 {
			prevDep = 0
			if _, seen := tours[name]; !seen {
				costs[name] = v("cost")
				sum += v("cost")
			}
		}
		arr := v("arrival")
		if math.Abs(arr-(prevDep+v("travel"))) > 1e-9 {
			t.Fatalf("row %d: arrival %v ≠ departure %v + travel %v", k+2, arr, prevDep, v("travel"))
		}
		if want := travel(name, prevNode, node); stop > 0 && math.Abs(v("travel")-want) > 1e-9 {
			t.Fatalf("row %d: travel %v from node %s, the files say %v", k+2, v("travel"), prevNode, want)
		}
		prevNode = node
		if stop == size[name] { // the return to the depot
			tours[name] = append(tours[name], -1)
			continue
		}
		tours[name] = append(tours[name], n)
		w := win[name+"/"+node]
		start, dep := v("start"), v("departure")
		if start != math.Max(arr, w.ready) || arr > w.due+1e-9 || v("late") != 0 || math.Abs(dep-(start+w.service)) > 1e-9 ||
			v("waiting") != start-arr {
			t.Fatalf("row %d: %v against window %+v", k+2, r, w)
		}
		prevDep = dep
	}
	for i, in := range d.Instances {
		tour := tours[in.Name]
		if len(tour) != in.N+1 || tour[in.N] != -1 {
			t.Fatalf("instance %s: schedule %v", in.Name, tour)
		}
		res, err := lazymask.Check(in, tour[:in.N])
		if err != nil || math.Abs(res.Cost*in.Scale-costs[in.Name]) > 1e-9 {
			t.Fatalf("instance %d %s: checker cost %v × %v, exported %v (%v)", i, in.Name, res.Cost, in.Scale, costs[in.Name], err)
		}
	}
	if math.Abs(sum/3-m["obj_orig"].(float64)) > 1e-9 {
		t.Fatalf("exported costs average %v, check's obj_orig %v", sum/3, m["obj_orig"])
	}
	var js []struct {
		Instance string
		Tour     []int
		Cost     float64
		Feasible bool
		Stops    []map[string]float64
	}
	if raw, err := os.ReadFile(filepath.Join(out, "schedule.json")); err != nil || json.Unmarshal(raw, &js) != nil {
		t.Fatalf("schedule.json: %v %s", err, raw)
	}
	if len(js) != 3 {
		t.Fatalf("%d JSON schedules", len(js))
	}
	for _, s := range js {
		want := tours[s.Instance]
		if !s.Feasible || s.Cost != costs[s.Instance] || len(s.Stops) != len(want) || len(s.Tour) != len(want)-1 {
			t.Fatalf("JSON %s: %+v, CSV tour %v", s.Instance, s, want)
		}
		for k := range s.Tour {
			if s.Tour[k] != want[k] {
				t.Fatalf("JSON %s tour %v, CSV %v", s.Instance, s.Tour, want)
			}
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
