package localsearch

import (
	"bufio"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/testenv"
	"github.com/lmask/lmask/lazymask"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden-tours.txt from this build's searches")

// goldenCase is one fixed-kick search whose tour and counters the golden
// file records.
type goldenCase struct {
	name   string
	in     *lazymask.Instance
	starts [][]int
	opt    Options
	resume int // kicks of a second search resumed from the first's result (0: none)
}

// goldenCases draws searches that reach every part of the search: repairs,
// merges, bridge, ruin and warp kicks, window sweeps, restarts, local
// descents (N ≥ 150), TSPDL acceptance and shuffles, fixed prefixes and
// resumed searches.
func goldenCases(t *testing.T) []goldenCase {
	var cs []goldenCase
	rng := rand.New(rand.NewPCG(76, 1))
	for i := range 24 {
		kind := distKind(i % 5)
		n := []int{12, 20, 35, 50, 80, 160}[i%6]
		var in *lazymask.Instance
		var hidden []int
		prob := "tw"
		if i%3 == 2 {
			in, hidden = randTSPDL(rng, n, kind, []float64{0.05, 0.2, 0.5}[i%3])
			prob = "dl"
		} else {
			in, hidden = randTSPTW(rng, n, kind, []float64{0.3, 1, 4}[i%3])
		}
		_ = hidden
		starts := [][]int{perm(rng, n), perm(rng, n), OrderTour(in)}
		opt := Options{Kicks: []int{40, 150, 320}[i%3], Seed: uint64(i)}
		if i%7 == 3 {
			opt.Fixed = 3
			starts = [][]int{starts[0]}
		}
		if i%5 == 4 {
			opt.Shuffle = true
		}
		cs = append(cs, goldenCase{name: fmt.Sprintf("rand-%s-%d-n%d", prob, i, n), in: in, starts: starts, opt: opt, resume: 30 * (i % 2)})
	}
	for i := range 6 {
		in, _ := pinnedTSPTW(rng, 60)
		cs = append(cs, goldenCase{name: fmt.Sprintf("pinned-%d", i), in: in, starts: [][]int{perm(rng, 60)}, opt: Options{Kicks: 200, Seed: uint64(i)}})
	}
	shared := os.Getenv(testenv.SharedEnv)
	if shared == "" {
		shared = filepath.Join(testenv.RepoRoot(t), "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(shared, "benchmarks")); err != nil {
		return cs
	}
	for _, b := range []struct {
		bench string
		names []string
		kicks int
	}{
		{"tsptw-gendreau", []string{"n40w180.002", "n40w200.005", "n60w160.001", "n100w120.003"}, 400},
		{"tsptw-ohlmann-thomas", []string{"n150w160.003", "n150w120.003"}, 250},
		{"tsptw-dumas", []string{"n150w40.003", "n60w20.002"}, 250},
		{"tspdl-rakke", []string{"ulysses22_25_7", "bayg29_10_1", "gr48_50_4"}, 300},
	} {
		dir := testenv.SharedFile(t, "benchmarks", b.bench)
		bm, err := datasets.ImportBenchmark(dir, "", datasets.BenchmarkOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range bm.Dataset.Instances {
			for k, name := range b.names {
				if x.Name != name {
					continue
				}
				starts := [][]int{OrderTour(x)}
				if ins, ok := InsertionTour(x, 4, uint64(k)); ok {
					starts = append(starts, ins)
				}
				cs = append(cs, goldenCase{name: b.bench + "/" + name, in: x, starts: starts,
					opt: Options{Kicks: b.kicks, Seed: uint64(k + 1), FinishDescent: true}, resume: 40})
			}
		}
	}
	return cs
}

// goldenLine runs one case and describes its result: a hash of the tour
// and the counters that tell which parts of the search ran.
func goldenLine(c goldenCase) (string, error) {
	r, err := ImproveFrom(c.in, c.starts, c.opt)
	if err != nil {
		return "", err
	}
	line := describeGolden(r)
	if c.resume > 0 && r.Feasible {
		o := c.opt
		o.Kicks, o.Seed = c.resume, c.opt.Seed+100
		o = resumeOptions(o, r)
		r2, err := ImproveFrom(c.in, [][]int{r.Tour}, o)
		if err != nil {
			return "", err
		}
		line += " | " + describeGolden(r2)
	}
	return line, nil
}

// resumeOptions sets o up to resume the search that returned r.
func resumeOptions(o Options, r Result) Options {
	o.Resume = r.Resume
	return o
}

func describeGolden(r Result) string {
	h := fnv.New64a()
	for _, v := range r.Tour {
		fmt.Fprintf(h, "%d,", v)
	}
	return fmt.Sprintf("%016x cost=%.9f feas=%v kicks=%d/%d last=%d restarts=%d windows=%d merged=%d revpairs=%d known=%d warp=%d/%v moves=%d evals=%d",
		h.Sum64(), r.Cost, r.Feasible, r.KicksAccepted, r.Kicks, r.LastAccepted, r.Restarts, r.Windows, r.Merged, r.RevPairs,
		r.KnownOptima, r.Resume.warpStall, r.Resume.warpOff, r.Moves, r.Evaluations)
}

// TestFixedKickToursGolden: searches with fixed kicks and no time limit are
// deterministic, and a change to the search's code that is meant to keep
// its behaviour keeps every tour and every counter of testdata/golden-tours.txt
// (recorded on amd64; run with -update-golden to record a change of
// behaviour on purpose). Cases of ../shared's benchmarks are compared where
// ../shared is present.
func TestFixedKickToursGolden(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("long: fixed-kick searches of benchmark instances")
	}
	if runtime.GOARCH != "amd64" && !*updateGolden {
		t.Skip("the golden tours were recorded on amd64 (other architectures may fuse floating-point operations)")
	}
	path := filepath.Join("testdata", "golden-tours.txt")
	want := map[string]string{}
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			name, line, _ := strings.Cut(sc.Text(), ": ")
			want[name] = line
		}
		f.Close()
	} else if !*updateGolden {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, c := range goldenCases(t) {
		got, err := goldenLine(c)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fmt.Fprintf(&out, "%s: %s\n", c.name, got)
		if *updateGolden {
			continue
		}
		if w, ok := want[c.name]; !ok {
			t.Errorf("%s: not in %s", c.name, path)
		} else if got != w {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, w)
		}
	}
	if *updateGolden {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
