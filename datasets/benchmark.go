package datasets

import (
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/lmask/lmask/lazymask"
)

// Text benchmark formats.
const (
	// FormatLIB: TSPTW files of the Dumas, Gendreau and Ohlmann-Thomas sets
	// (numbers only), or of the TSPLIB keyword layout (da Silva and
	// Urrutia's set in the LKH-3 package, ParseTSPLIBTW), either one
	// optionally gzipped.
	FormatLIB   = "dumas"
	FormatRakke = "rakke" // Rakke et al. (TSPDL)
)

// BenchmarkScaleTSPTW is the divisor applied to every LIB value (matrix,
// windows, coordinates), as the paper does for Dumas.
const BenchmarkScaleTSPTW = 50.0

// Coordinate fallbacks when a benchmark has no coordinates.
const (
	FallbackMDS   = "mds"   // classical MDS of the matrix (default)
	FallbackError = "error" // refuse the instance
)

// BenchmarkOptions tunes ImportBenchmark.
type BenchmarkOptions struct {
	// CoordsDir holds Solomon-style coordinate files <name>.txt for LIB
	// instances. Empty: a sibling directory "tsptw-dumas-coords" is used
	// when it exists.
	CoordsDir string
	// Fallback is FallbackMDS (default) or FallbackError.
	Fallback string
	// ReferenceCSV overrides the reference table (default: optimal.csv or
	// best_known.csv next to the instance files).
	ReferenceCSV string
}

// Benchmark is an imported benchmark: instances plus reference values.
type Benchmark struct {
	Format  string
	Dataset *Dataset
	// References holds one cost-only Solution per instance that has a
	// reference value (Tour nil, Source "optimal" or "best_known").
	References []Solution
	RefMeta    Metadata
	// CoordSource says per instance where its coordinates came from: "file"
	// or "mds".
	CoordSource []string
}

// DetectTextFormat tells a LIB file from a Rakke file by its field count
// (LIB: 1+n²+2n; Rakke: one more, the listed optimum); a file in the
// TSPLIB keyword layout is LIB.
func DetectTextFormat(path string) (string, error) {
	f, err := openText(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	toks, err := tokenize(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if len(toks) > 0 && keywordLayout(toks[0].text) {
		return FormatLIB, nil
	}
	s := &tokenStream{file: path, toks: toks}
	n, err := s.nodeCount()
	if err != nil {
		return "", err
	}
	switch len(toks) {
	case 1 + n*n + 2*n:
		return FormatLIB, nil
	case 2 + n*n + 2*n:
		return FormatRakke, nil
	}
	return "", fmt.Errorf("%s: %d fields fit neither the LIB (%d) nor the Rakke (%d) format for n=%d",
		path, len(toks), 1+n*n+2*n, 2+n*n+2*n, n)
}

// keywordLayout reports whether a file's first field starts the TSPLIB
// keyword layout (a letter, where the other layouts start with n).
func keywordLayout(first string) bool {
	return first != "" && (first[0] >= 'A' && first[0] <= 'Z' || first[0] >= 'a' && first[0] <= 'z')
}

// instanceSuffixes are the file name endings of instance files.
var instanceSuffixes = []string{".txt", ".tsptw", ".tsptw.gz"}

// openText opens a benchmark file, decompressing a .gz one.
func openText(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return f, err
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return gzFile{z, f}, nil
}

// gzFile closes the gzip stream and its file.
type gzFile struct {
	*gzip.Reader
	f *os.File
}

func (g gzFile) Close() error { return errors.Join(g.Reader.Close(), g.f.Close()) }

// benchmarkFiles lists the instance files of a directory (*.txt, *.tsptw,
// *.tsptw.gz), in natural order (n20w20.002 before n100w20.001).
func benchmarkFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !slices.ContainsFunc(instanceSuffixes, func(x string) bool { return strings.HasSuffix(name, x) }) {
			continue
		}
		out = append(out, filepath.Join(dir, name))
	}
	sort.Slice(out, func(i, j int) bool { return naturalLess(filepath.Base(out[i]), filepath.Base(out[j])) })
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no instance files (*.txt, *.tsptw, *.tsptw.gz)", dir)
	}
	return out, nil
}

// naturalLess compares strings with digit runs compared as numbers.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, _ := strconv.Atoi(a[:da])
			nb, _ := strconv.Atoi(b[:db])
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// ImportBenchmark imports one text instance file or every *.txt file of a
// directory. format is FormatLIB, FormatRakke or "" (detected from the
// first file). LIB instances get Scale 50 (all values divided by 50), the
// matrix as Dist, and coordinates from CoordsDir (checked against the
// windows) or the fallback. Rakke instances keep their demands and limits
// (normalised by Σd) and get Dist = matrix/S with coordinates from
// classical MDS scaled to [0,1] by S = their larger extent (Scale = S).
// The reference table next to the files becomes cost-only references.
func ImportBenchmark(path, format string, opt BenchmarkOptions) (*Benchmark, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	dir := filepath.Dir(path)
	if st.IsDir() {
		dir = path
		if files, err = benchmarkFiles(path); err != nil {
			return nil, err
		}
	}
	if format == "" {
		if format, err = DetectTextFormat(files[0]); err != nil {
			return nil, err
		}
	}
	if opt.Fallback == "" {
		opt.Fallback = FallbackMDS
	}
	if opt.Fallback != FallbackMDS && opt.Fallback != FallbackError {
		return nil, fmt.Errorf("unknown coordinate fallback %q (want mds or error)", opt.Fallback)
	}
	if format == FormatLIB && opt.CoordsDir == "" {
		if c := filepath.Join(filepath.Dir(filepath.Clean(dir)), "tsptw-dumas-coords"); isDir(c) {
			opt.CoordsDir = c
		}
	}
	bm := &Benchmark{Format: format, Dataset: &Dataset{}}
	problem := lazymask.TSPTW
	if format == FormatRakke {
		problem = lazymask.TSPDL
	} else if format != FormatLIB {
		return nil, fmt.Errorf("unknown benchmark format %q (want dumas or rakke)", format)
	}
	for _, f := range files {
		var in *lazymask.Instance
		var src string
		if format == FormatLIB {
			in, src, err = importLIB(f, opt)
		} else {
			in, src, err = importRakke(f)
		}
		if err != nil {
			return nil, err
		}
		if err := in.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		bm.Dataset.Instances = append(bm.Dataset.Instances, in)
		bm.Dataset.KnownTours = append(bm.Dataset.KnownTours, nil)
		bm.CoordSource = append(bm.CoordSource, src)
	}
	bm.Dataset.Meta = Metadata{Problem: problem.String(), Source: path}
	if n := bm.Dataset.Instances[0].N; sameSize(bm.Dataset.Instances, n) {
		bm.Dataset.Meta.Size = n
	}
	if format == FormatLIB {
		bm.Dataset.Meta.Scale = BenchmarkScaleTSPTW
	}
	csvPath := opt.ReferenceCSV
	if csvPath == "" {
		for _, c := range []string{"optimal.csv", "best_known.csv"} {
			if p := filepath.Join(dir, c); fileExists(p) {
				csvPath = p
				break
			}
		}
	}
	if csvPath != "" {
		if bm.References, bm.RefMeta, err = referenceTable(csvPath, bm.Dataset.Instances); err != nil {
			return nil, err
		}
	}
	return bm, nil
}

func sameSize(insts []*lazymask.Instance, n int) bool {
	for _, in := range insts {
		if in.N != n {
			return false
		}
	}
	return true
}

func isDir(p string) bool { st, err := os.Stat(p); return err == nil && st.IsDir() }

func fileExists(p string) bool { st, err := os.Stat(p); return err == nil && !st.IsDir() }

// instanceName is a file's base name without its instance suffix.
func instanceName(path string) string {
	base := filepath.Base(path)
	for _, x := range instanceSuffixes {
		if strings.HasSuffix(base, x) {
			return strings.TrimSuffix(base, x)
		}
	}
	return base
}

func importLIB(path string, opt BenchmarkOptions) (*lazymask.Instance, string, error) {
	f, err := openText(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	l, err := ParseLIB(f, path)
	if err != nil {
		return nil, "", err
	}
	const s = BenchmarkScaleTSPTW
	n := l.N
	in := &lazymask.Instance{Problem: lazymask.TSPTW, N: n, Name: instanceName(path), Scale: s,
		Early: make([]float64, n), Late: make([]float64, n), Service: make([]float64, n), Dist: make([]float64, n*n)}
	for i := range l.Matrix {
		in.Dist[i] = l.Matrix[i] / s
	}
	for i := 0; i < n; i++ {
		in.Early[i], in.Late[i] = l.Early[i]/s, l.Late[i]/s
	}
	src := ""
	if opt.CoordsDir != "" {
		cp := filepath.Join(opt.CoordsDir, filepath.Base(path))
		if fileExists(cp) {
			cf, err := os.Open(cp)
			if err != nil {
				return nil, "", err
			}
			c, err := ParseSolomon(cf, cp)
			cf.Close()
			if err != nil {
				return nil, "", err
			}
			if len(c.X) != n {
				return nil, "", fmt.Errorf("%s: %d coordinate rows but %s has %d nodes", cp, len(c.X), path, n)
			}
			for i := 0; i < n; i++ {
				if c.Ready[i] != l.Early[i] || c.Due[i] != l.Late[i] {
					return nil, "", fmt.Errorf("%s: node %d: window [%v,%v] differs from %s [%v,%v]",
						cp, i, c.Ready[i], c.Due[i], path, l.Early[i], l.Late[i])
				}
			}
			in.X, in.Y = make([]float64, n), make([]float64, n)
			for i := 0; i < n; i++ {
				in.X[i], in.Y[i] = c.X[i]/s, c.Y[i]/s
			}
			src = "file"
		}
	}
	if src == "" {
		if opt.Fallback == FallbackError {
			return nil, "", fmt.Errorf("%s: no coordinates for %s (coordinate directory %q) and the fallback is %q",
				path, instanceName(path), opt.CoordsDir, FallbackError)
		}
		x, y := ClassicalMDS(l.Matrix, n)
		for i := range x {
			x[i] /= s
			y[i] /= s
		}
		in.X, in.Y, src = x, y, "mds"
	}
	return in, src, nil
}

func importRakke(path string) (*lazymask.Instance, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	k, err := ParseRakke(f, path)
	if err != nil {
		return nil, "", err
	}
	n := k.N
	x, y := ClassicalMDS(k.Matrix, n)
	ext := 0.0
	for i := 0; i < n; i++ {
		ext = math.Max(ext, math.Max(x[i], y[i]))
	}
	if !(ext > 0) {
		return nil, "", fmt.Errorf("%s: field matrix: all distances are zero", path)
	}
	total := 0.0
	for _, d := range k.Demand {
		total += d
	}
	in := &lazymask.Instance{Problem: lazymask.TSPDL, N: n, Name: instanceName(path), Scale: ext,
		X: x, Y: y, Demand: make([]float64, n), Draft: make([]float64, n), Dist: make([]float64, n*n)}
	for i := range x {
		x[i] /= ext
		y[i] /= ext
		in.Demand[i] = k.Demand[i] / total
		in.Draft[i] = k.Draft[i] / total
	}
	for i := range k.Matrix {
		in.Dist[i] = k.Matrix[i] / ext
	}
	return in, "mds", nil
}

// referenceTable reads instance,<value>,... CSV files (optimal.csv with
// column "optimal", or best_known.csv with column "best_known") into
// cost-only reference solutions for the instances that have a row.
func referenceTable(path string, insts []*lazymask.Instance) ([]Solution, Metadata, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Metadata{}, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, Metadata{}, fmt.Errorf("%s: header: %w", path, err)
	}
	col, source := -1, ""
	for i, h := range head {
		if h == "optimal" || h == "best_known" {
			col, source = i, h
			break
		}
	}
	if len(head) == 0 || head[0] != "instance" || col < 0 {
		return nil, Metadata{}, fmt.Errorf("%s: header %v lacks instance and optimal/best_known columns", path, head)
	}
	byName := map[string]int{}
	for i, in := range insts {
		byName[in.Name] = i
	}
	vals := map[int]float64{}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, Metadata{}, fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) <= col {
			return nil, Metadata{}, fmt.Errorf("%s: line %d: field %s: missing", path, line, source)
		}
		idx, ok := byName[rec[0]]
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(rec[col], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, Metadata{}, fmt.Errorf("%s: line %d: field %s: %q is not a length", path, line, source, rec[col])
		}
		vals[idx] = v
	}
	var out []Solution
	for i, in := range insts {
		if v, ok := vals[i]; ok {
			out = append(out, Solution{Instance: int64(i), Cost: v / in.Scale, CostOrig: v, Source: source})
		}
	}
	meta := Metadata{Source: source, Instances: path}
	if len(insts) > 0 {
		meta.Problem = insts[0].Problem.String()
	}
	return out, meta, nil
}
