package datasets

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

func TestDumasOptimalInstancesImport(t *testing.T) {
	dir := sharedFile(t, "benchmarks", "tsptw-dumas")
	bm, err := ImportBenchmark(dir, "", BenchmarkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, in := range bm.Dataset.Instances {
		byName[in.Name] = i
	}
	f, _ := os.Open(filepath.Join(dir, "optimal.csv"))
	recs, _ := csv.NewReader(f).ReadAll()
	f.Close()
	if len(recs) != 136 || len(bm.References) != 135 {
		t.Fatalf("%d csv rows, %d references", len(recs)-1, len(bm.References))
	}
	files := 0
	for _, rec := range recs[1:] {
		i, ok := byName[rec[0]]
		if !ok {
			t.Fatalf("%s not imported", rec[0])
		}
		in := bm.Dataset.Instances[i]
		var n, w int
		if _, err := fmtSscanf(rec[0], &n, &w); err != nil || w <= 0 {
			t.Fatal(err)
		}
		if in.N != n+1 || in.Scale != 50 || len(in.Dist) != in.N*in.N {
			t.Fatalf("%s: N %d scale %v", rec[0], in.N, in.Scale)
		}
		raw, _ := os.Open(filepath.Join(dir, rec[0]+".txt"))
		l, err := ParseLIB(raw, rec[0])
		raw.Close()
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < in.N; j++ {
			if in.Early[j]*50 != l.Early[j] && math.Abs(in.Early[j]*50-l.Early[j]) > 1e-9 ||
				math.Abs(in.Late[j]*50-l.Late[j]) > 1e-9 {
				t.Fatalf("%s node %d window differs", rec[0], j)
			}
		}
		opt, _ := strconv.ParseFloat(rec[1], 64)
		r := bm.References[i]
		if r.Instance != int64(i) || r.CostOrig != opt || math.Abs(r.Cost-opt/50) > 1e-12 || r.Tour != nil || r.Source != "optimal" {
			t.Fatalf("%s reference %+v, optimum %v", rec[0], r, opt)
		}
		if bm.CoordSource[i] == "file" {
			files++
		}
	}
	if files != 95 {
		t.Errorf("%d instances with coordinates from files, want 95 (n20-n80 except the missing n80w100)", files)
	}
	// the documented optimal tour of n20w20.001
	tour := []int{1, 17, 10, 20, 18, 19, 11, 6, 16, 2, 12, 13, 7, 14, 8, 3, 5, 9, 21, 4, 15}
	for i := range tour {
		tour[i]--
	}
	res, err := lazymask.Check(bm.Dataset.Instances[byName["n20w20.001"]], tour)
	if err != nil || math.Abs(res.Cost*50-378) > 1e-9 {
		t.Fatalf("n20w20.001 optimal tour: cost %v, %v", res.Cost*50, err)
	}
}

func fmtSscanf(name string, n, w *int) (int, error) {
	s := strings.TrimPrefix(name, "n")
	parts := strings.SplitN(s, "w", 2)
	a, err := strconv.Atoi(parts[0])
	if err != nil {
		return 0, err
	}
	b, err := strconv.Atoi(strings.SplitN(parts[1], ".", 2)[0])
	*n, *w = a, b
	return 2, err
}

// heldKarp returns the optimal closed-tour cost of a TSPDL instance under
// the checker's convention (load accumulates from 0), by DP over subsets.
func heldKarp(in *lazymask.Instance) float64 {
	n := in.N - 1
	full := 1<<n - 1
	inf := math.Inf(1)
	dp := make([]float64, (full+1)*n)
	for i := range dp {
		dp[i] = inf
	}
	for j := 0; j < n; j++ {
		if in.Demand[j+1] <= in.Draft[j+1]+lazymask.Tol {
			dp[(1<<j)*n+j] = in.D(0, j+1)
		}
	}
	for s := 1; s <= full; s++ {
		load := 0.0
		for j := 0; j < n; j++ {
			if s&(1<<j) != 0 {
				load += in.Demand[j+1]
			}
		}
		for j := 0; j < n; j++ {
			v := dp[s*n+j]
			if v == inf {
				continue
			}
			for k := 0; k < n; k++ {
				if s&(1<<k) != 0 || load+in.Demand[k+1] > in.Draft[k+1]+lazymask.Tol {
					continue
				}
				t := s | 1<<k
				if c := v + in.D(j+1, k+1); c < dp[t*n+k] {
					dp[t*n+k] = c
				}
			}
		}
	}
	best := inf
	for j := 0; j < n; j++ {
		best = math.Min(best, dp[full*n+j]+in.D(j+1, 0))
	}
	return best
}

func TestRakkeImportAndOptimaUnderOurConvention(t *testing.T) {
	dir := sharedFile(t, "benchmarks", "tspdl-rakke")
	bm, err := ImportBenchmark(dir, "", BenchmarkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if bm.Format != FormatRakke || len(bm.Dataset.Instances) != 240 || len(bm.References) != 240 {
		t.Fatalf("format %s, %d instances, %d references", bm.Format, len(bm.Dataset.Instances), len(bm.References))
	}
	checked := 0
	for i, in := range bm.Dataset.Instances {
		if math.Abs(in.TotalDemand()-1) > 1e-12 || in.Draft[0] != 1 {
			t.Fatalf("%s: Σd %v, L0 %v", in.Name, in.TotalDemand(), in.Draft[0])
		}
		for j := 0; j < in.N; j++ {
			if in.X[j] < 0 || in.X[j] > 1+1e-12 || in.Y[j] < 0 || in.Y[j] > 1+1e-12 {
				t.Fatalf("%s: MDS coordinate outside [0,1]", in.Name)
			}
		}
		ref := bm.References[i]
		if ref.Instance != int64(i) || ref.Source != "optimal" || math.Abs(ref.Cost*in.Scale-ref.CostOrig) > 1e-9 {
			t.Fatalf("%s reference %+v", in.Name, ref)
		}
		// exact optimum under the accumulate-from-0 convention equals the listed one
		if in.N <= 16 && (testing.Short() && checked < 3 || !testing.Short() && checked < 20) {
			got := heldKarp(in) * in.Scale
			if math.Abs(got-ref.CostOrig) > 1e-6 {
				t.Errorf("%s: DP optimum %v, reference %v", in.Name, got, ref.CostOrig)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no instance checked by DP")
	}
}

func TestBenchmarkFallbackError(t *testing.T) {
	p := sharedFile(t, "benchmarks", "tsptw-gendreau", "n20w120.001.txt")
	_, err := ImportBenchmark(p, "", BenchmarkOptions{Fallback: FallbackError})
	if err == nil || !strings.Contains(err.Error(), "no coordinates") {
		t.Fatalf("error %v", err)
	}
	bm, err := ImportBenchmark(p, "", BenchmarkOptions{})
	if err != nil || bm.CoordSource[0] != "mds" || bm.References[0].CostOrig != 267 {
		t.Fatalf("mds fallback: %v %+v", err, bm)
	}
}

func TestClassicalMDSRecoversEuclideanDistances(t *testing.T) {
	xs := []float64{0, 3, 1, 5, 2}
	ys := []float64{0, 0, 4, 2, 2}
	n := len(xs)
	d := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d[i*n+j] = math.Hypot(xs[i]-xs[j], ys[i]-ys[j])
		}
	}
	x, y := ClassicalMDS(d, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if got := math.Hypot(x[i]-x[j], y[i]-y[j]); math.Abs(got-d[i*n+j]) > 1e-9 {
				t.Fatalf("distance %d-%d: %v, want %v", i, j, got, d[i*n+j])
			}
		}
	}
}

func TestParseTextRejects(t *testing.T) {
	lib := "3\n0 1 2\n1 0 1\n2 1 0\n0 10\n5 4\n0 10\n"
	if _, err := ParseLIB(strings.NewReader(lib), "x.txt"); err == nil || !strings.Contains(err.Error(), "x.txt: line 6: field early[1]") {
		t.Errorf("e > l: %v", err)
	}
	if _, err := ParseLIB(strings.NewReader("3\n0 1 NaN\n1 0 1\n2 1 0\n0 10\n0 10\n0 10\n"), "x.txt"); err == nil || !strings.Contains(err.Error(), "matrix[0][2]") {
		t.Errorf("NaN: %v", err)
	}
	if _, err := ParseLIB(strings.NewReader("3\n0 1 2\n"), "x.txt"); err == nil || !strings.Contains(err.Error(), "needs 16 fields") {
		t.Errorf("short: %v", err)
	}
	rk := "3\n0 1 2\n1 0 1\n2 1 0\n0 1 -1\n2 2 2\n4\n"
	if _, err := ParseRakke(strings.NewReader(rk), "r.txt"); err == nil || !strings.Contains(err.Error(), "field demand[2]: negative") {
		t.Errorf("negative demand: %v", err)
	}
}

func FuzzParseDumas(f *testing.F) {
	f.Add("3\n0 1 2\n1 0 1\n2 1 0\n0 10\n1 4\n0 10\n")
	f.Add("2 # comment\n0 1\n1 0\n0 1\n0 1\n")
	f.Add("1e9\n")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLIB(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		if len(l.Matrix) != l.N*l.N || len(l.Early) != l.N {
			t.Fatal("inconsistent sizes")
		}
		for i := range l.Early {
			if l.Early[i] > l.Late[i] {
				t.Fatal("e > l accepted")
			}
		}
	})
}

func FuzzParseRakke(f *testing.F) {
	f.Add("3\n0 1 2\n1 0 1\n2 1 0\n0 1 1\n2 2 1\n4\n")
	f.Add("2\n1 5\n5 1\n0 1\n1 1\n10\n")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseRakke(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		if len(k.Matrix) != k.N*k.N || len(k.Draft) != k.N {
			t.Fatal("inconsistent sizes")
		}
		for i := 0; i < k.N; i++ {
			if k.Matrix[i*k.N+i] != 0 || k.Demand[i] < 0 {
				t.Fatal("diagonal or demand not normalised")
			}
		}
	})
}

func FuzzParseSolomon(f *testing.F) {
	f.Add("!! x 1 2\n\nCUST NO. X Y\n    1 16 23 0 0 408 0\n    2 22 4 0 62 68 0\n  999 0 0 0 0 0 0\n")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseSolomon(strings.NewReader(s), "fuzz")
		if err == nil && (len(c.X) < 2 || len(c.Due) != len(c.X)) {
			t.Fatal("inconsistent rows")
		}
	})
}

// tsplibTW is a three-node file in the TSPLIB keyword layout of the LKH-3
// TSPTW package, with both colon styles.
const tsplibTW = `NAME : tiny
TYPE: TSPTW
COMMENT : three nodes
DIMENSION : 3
EDGE_WEIGHT_TYPE : EXPLICIT
EDGE_WEIGHT_FORMAT : FULL_MATRIX
EDGE_WEIGHT_SECTION
0 4 6
4 0 3
6 3 0
TIME_WINDOW_SECTION
1 0 100
2 2 9
3 5 20
DEPOT_SECTION
1
-1
EOF
`

func TestParseTSPLIBTW(t *testing.T) {
	l, err := ParseTSPLIBTW(strings.NewReader(tsplibTW), "tiny.tsptw")
	if err != nil {
		t.Fatal(err)
	}
	if l.N != 3 || !slices.Equal(l.Matrix, []float64{0, 4, 6, 4, 0, 3, 6, 3, 0}) ||
		!slices.Equal(l.Early, []float64{0, 2, 5}) || !slices.Equal(l.Late, []float64{100, 9, 20}) {
		t.Fatalf("parsed %+v", l)
	}
	if viaLIB, err := ParseLIB(strings.NewReader(tsplibTW), "tiny.tsptw"); err != nil || !reflect.DeepEqual(viaLIB, l) {
		t.Fatalf("ParseLIB on the keyword layout: %+v, %v", viaLIB, err)
	}
	for _, tc := range []struct{ edit, want string }{
		{strings.Replace(tsplibTW, "FULL_MATRIX", "LOWER_ROW", 1), `field EDGE_WEIGHT_FORMAT: "LOWER_ROW" is not supported`},
		{strings.Replace(tsplibTW, "2 2 9", "4 2 9", 1), "line 13: field TIME_WINDOW_SECTION row 2: node number 4, want 2"},
		{strings.Replace(tsplibTW, "3 5 20", "3 25 20", 1), "field early[2]: window start 25 is after its end 20"},
		{strings.Replace(tsplibTW, "DEPOT_SECTION\n1", "DEPOT_SECTION\n2", 1), "field DEPOT_SECTION: depot 2"},
		{strings.Replace(tsplibTW, "COMMENT", "CAPACITY", 1), `field keyword: unknown keyword "CAPACITY"`},
		{strings.Replace(tsplibTW, "DIMENSION : 3", "DIMENSION : x", 1), `field DIMENSION: "x" is not a node count`},
		{tsplibTW[:strings.Index(tsplibTW, "TIME_WINDOW_SECTION")], "field TIME_WINDOW_SECTION: missing"},
	} {
		if _, err := ParseTSPLIBTW(strings.NewReader(tc.edit), "tiny.tsptw"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error with %q, got %v", tc.want, err)
		}
	}
}

// TestImportTSPLIBTWGzip: a directory of gzipped keyword-layout files
// imports as LIB instances (values ÷ 50, names without the suffix) with
// their best-known values.
func TestImportTSPLIBTWGzip(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write([]byte(tsplibTW))
	z.Close()
	if err := os.WriteFile(filepath.Join(dir, "tiny.tsptw.gz"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "best_known.csv"), []byte("instance,best_known,included_here,note\ntiny,13,yes,\nother,99,no,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bm, err := ImportBenchmark(dir, "", BenchmarkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := bm.Dataset.Instances[0]
	if bm.Format != FormatLIB || len(bm.Dataset.Instances) != 1 || in.Name != "tiny" || in.Scale != 50 ||
		in.Dist[1] != 4.0/50 || in.Late[1] != 9.0/50 || bm.CoordSource[0] != "mds" {
		t.Fatalf("imported %+v (format %s)", in, bm.Format)
	}
	if len(bm.References) != 1 || bm.References[0].CostOrig != 13 || bm.References[0].Cost != 13.0/50 {
		t.Fatalf("references %+v", bm.References)
	}
	// 0 → 1 → 2 → 0 arrives at 4 (window 2–9) and 7 (window 5–20) and has length 13.
	res, err := lazymask.Check(in, []int{0, 1, 2})
	if err != nil || math.Abs(res.Cost*in.Scale-13) > 1e-9 {
		t.Fatalf("check: %v, cost %v", err, res.Cost*in.Scale)
	}
}

// TestImportDaSilvaUrrutia: the gzipped n200/n250 instances of ../shared
// import with a best-known value each.
func TestImportDaSilvaUrrutia(t *testing.T) {
	dir := sharedFile(t, "benchmarks", "tsptw-dasilva-urrutia")
	bm, err := ImportBenchmark(dir, "", BenchmarkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(bm.Dataset.Instances) != 50 || len(bm.References) != 50 {
		t.Fatalf("%d instances, %d references", len(bm.Dataset.Instances), len(bm.References))
	}
	for i, in := range bm.Dataset.Instances {
		want := 201
		if strings.HasPrefix(in.Name, "n250") {
			want = 251
		}
		if in.N != want {
			t.Fatalf("%s: N = %d, want %d", in.Name, in.N, want)
		}
		if r := bm.References[i]; r.Instance != int64(i) || r.Source != "best_known" || !(r.CostOrig > 0) {
			t.Fatalf("%s: reference %+v", in.Name, r)
		}
	}
	if bm.Dataset.Instances[0].Name != "n200w100.001" || bm.References[0].CostOrig != 9836 {
		t.Fatalf("first instance %s, reference %v", bm.Dataset.Instances[0].Name, bm.References[0].CostOrig)
	}
}

func FuzzParseTSPLIBTW(f *testing.F) {
	f.Add(tsplibTW)
	f.Add("DIMENSION: 2\nEDGE_WEIGHT_SECTION\n0 1\n1 0\nTIME_WINDOW_SECTION\n1 0 5\n2 0 5\nEOF\n")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseTSPLIBTW(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		if len(l.Matrix) != l.N*l.N || len(l.Early) != l.N || len(l.Late) != l.N {
			t.Fatal("inconsistent sizes")
		}
		for i := range l.Early {
			if l.Early[i] > l.Late[i] {
				t.Fatal("e > l accepted")
			}
		}
	})
}
