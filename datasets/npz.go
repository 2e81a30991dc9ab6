package datasets

import (
	"archive/zip"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/lmask/lmask/lazymask"
)

// ReadNPZ reads every array of a numpy .npz archive (a zip of .npy files,
// stored or deflated), keyed by name without the ".npy" suffix.
func ReadNPZ(path string) (map[string]*NpyArray, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable npz (zip) file: %w", path, err)
	}
	defer zr.Close()
	out := map[string]*NpyArray{}
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".npy") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: member %s: %w", path, f.Name, err)
		}
		a, err := ReadNpy(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: member %s: %w", path, f.Name, err)
		}
		out[strings.TrimSuffix(f.Name, ".npy")] = a
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: npz archive holds no .npy arrays", path)
	}
	return out, nil
}

// NPZ kinds returned by NPZKind.
const (
	NPZInstances  = "instances"
	NPZReferences = "references"
)

// NPZKind tells whether arrays are an instance set (locs + time_windows or
// demand) or a reference set (solutions + costs).
func NPZKind(arrays map[string]*NpyArray) (string, error) {
	if arrays["solutions"] != nil && arrays["costs"] != nil {
		return NPZReferences, nil
	}
	if arrays["locs"] != nil {
		return NPZInstances, nil
	}
	var keys []string
	for k := range arrays {
		keys = append(keys, k)
	}
	return "", fmt.Errorf("npz holds neither instances (locs, ...) nor references (solutions, costs); arrays: %v", keys)
}

var (
	reHardness = regexp.MustCompile(`(easy|medium|hard)`)
	reSeed     = regexp.MustCompile(`seed(\d+)`)
	reWidth    = regexp.MustCompile(`_w(\d+)`)
)

func shapeIs(a *NpyArray, dims ...int) bool {
	if len(a.Shape) != len(dims) {
		return false
	}
	for i, d := range dims {
		if d >= 0 && a.Shape[i] != d {
			return false
		}
	}
	return true
}

// ImportNPZInstances converts the paper's instance .npz (already
// normalised): TSPTW from locs [B,N,2], time_windows [B,N,2] and
// service_time [B,N] (Scale 100); TSPDL from locs, demand [B,N] and
// draft_limit [B,N] (Scale 1). Every instance is validated; errors name
// the file, the instance (row) and the field.
func ImportNPZInstances(path string) (*Dataset, error) {
	arrays, err := ReadNPZ(path)
	if err != nil {
		return nil, err
	}
	locs := arrays["locs"]
	if locs == nil {
		return nil, fmt.Errorf("%s: npz has no locs array", path)
	}
	if !shapeIs(locs, -1, -1, 2) || locs.F64 == nil {
		return nil, fmt.Errorf("%s: field locs: shape %v %s, want [B,N,2] floats", path, locs.Shape, locs.Dtype)
	}
	b, n := locs.Shape[0], locs.Shape[1]
	need := func(name string, dims ...int) (*NpyArray, error) {
		a := arrays[name]
		if a == nil {
			return nil, fmt.Errorf("%s: npz has no %s array", path, name)
		}
		if !shapeIs(a, dims...) || a.F64 == nil {
			return nil, fmt.Errorf("%s: field %s: shape %v %s, want %v floats", path, name, a.Shape, a.Dtype, dims)
		}
		return a, nil
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".npz")
	meta := Metadata{Size: n, Source: path}
	if m := reHardness.FindString(stem); m != "" {
		meta.Hardness = m
	}
	if m := reSeed.FindStringSubmatch(stem); m != nil {
		if s, err := strconv.ParseUint(m[1], 10, 64); err == nil {
			meta.Seed, meta.Seeded = s, true
		}
	}
	d := &Dataset{Instances: make([]*lazymask.Instance, b), KnownTours: make([][]int, b)}
	var tw, svc, dem, dl *NpyArray
	problem := lazymask.TSPDL
	if arrays["time_windows"] != nil {
		problem = lazymask.TSPTW
		if tw, err = need("time_windows", b, n, 2); err != nil {
			return nil, err
		}
		if svc, err = need("service_time", b, n); err != nil {
			return nil, err
		}
		meta.Scale = TSPTWScale
		if m := reWidth.FindStringSubmatch(stem); m != nil {
			meta.Width, _ = strconv.ParseFloat(m[1], 64)
		}
	} else {
		if dem, err = need("demand", b, n); err != nil {
			return nil, err
		}
		if dl, err = need("draft_limit", b, n); err != nil {
			return nil, err
		}
		meta.Scale = 1
	}
	meta.Problem = problem.String()
	for i := 0; i < b; i++ {
		in := &lazymask.Instance{Problem: problem, N: n, Scale: meta.Scale, Name: fmt.Sprintf("%s-%d", stem, i),
			X: make([]float64, n), Y: make([]float64, n)}
		for j := 0; j < n; j++ {
			in.X[j], in.Y[j] = locs.F64[(i*n+j)*2], locs.F64[(i*n+j)*2+1]
		}
		if problem == lazymask.TSPTW {
			in.Early, in.Late, in.Service = make([]float64, n), make([]float64, n), make([]float64, n)
			for j := 0; j < n; j++ {
				in.Early[j], in.Late[j] = tw.F64[(i*n+j)*2], tw.F64[(i*n+j)*2+1]
				in.Service[j] = svc.F64[i*n+j]
			}
		} else {
			in.Demand = append([]float64(nil), dem.F64[i*n:(i+1)*n]...)
			in.Draft = append([]float64(nil), dl.F64[i*n:(i+1)*n]...)
		}
		if err := in.Validate(); err != nil {
			return nil, instanceError(path, int64(i), err)
		}
		d.Instances[i] = in
	}
	d.Meta = meta
	return d, nil
}

// instanceError wraps an Instance.Validate error with the file and row.
func instanceError(file string, row int64, err error) error {
	field := ""
	var fe *lazymask.FieldError
	if asFieldError(err, &fe) {
		field = fe.Field
	}
	return &RowError{File: file, Row: row, Field: field, Err: err}
}

// NormaliseTour turns a closed tour in any rotation and direction into the
// project's form (starting at the depot). Both directions are replayed with
// lazymask.Check; the forward one is kept if feasible, else the reverse if
// feasible, else the one with less total violation. Malformed cycles yield
// the checker's *lazymask.TourError.
func NormaliseTour(inst *lazymask.Instance, cycle []int) ([]int, lazymask.Result, error) {
	if len(cycle) != inst.N {
		return nil, lazymask.Result{}, &lazymask.TourError{Step: -1, Node: -1,
			Msg: fmt.Sprintf("tour has %d nodes, instance has %d", len(cycle), inst.N)}
	}
	fwd := lazymask.Rotate(cycle, false)
	if fwd == nil {
		return nil, lazymask.Result{}, &lazymask.TourError{Step: -1, Node: 0, Msg: "tour does not visit the depot"}
	}
	rf, err := lazymask.Check(inst, fwd)
	var te *lazymask.TourError
	if asTourError(err, &te) {
		return nil, rf, err
	}
	if rf.Feasible {
		return fwd, rf, nil
	}
	rev := lazymask.Rotate(cycle, true)
	rr, _ := lazymask.Check(inst, rev)
	if rr.Feasible || rr.TotalViolation < rf.TotalViolation {
		return rev, rr, nil
	}
	return fwd, rf, nil
}

// ImportNPZReferences converts a reference .npz (solutions [B,N] int64,
// costs [B] float64, inf = none) for the instances it refers to. Tours are
// normalised with NormaliseTour and replayed; the recorded cost is the
// file's (the paper computes gaps against it), the verdict is the
// checker's. Rows with an infinite cost get no tour and Cost = +Inf. The
// source name is the file name's prefix ("pyvrp", "lkh").
func ImportNPZReferences(path string, insts []*lazymask.Instance) ([]Solution, Metadata, error) {
	arrays, err := ReadNPZ(path)
	if err != nil {
		return nil, Metadata{}, err
	}
	sol, cost := arrays["solutions"], arrays["costs"]
	if sol == nil || cost == nil {
		return nil, Metadata{}, fmt.Errorf("%s: npz has no solutions/costs arrays", path)
	}
	if len(sol.Shape) != 2 || sol.I64 == nil {
		return nil, Metadata{}, fmt.Errorf("%s: field solutions: shape %v %s, want [B,N] int64", path, sol.Shape, sol.Dtype)
	}
	b, n := sol.Shape[0], sol.Shape[1]
	if !shapeIs(cost, b) || cost.F64 == nil {
		return nil, Metadata{}, fmt.Errorf("%s: field costs: shape %v %s, want [%d] floats", path, cost.Shape, cost.Dtype, b)
	}
	if b != len(insts) {
		return nil, Metadata{}, fmt.Errorf("%s: %d reference rows but the instance file holds %d instances (size mismatch)", path, b, len(insts))
	}
	var dur *NpyArray
	if d := arrays["durations"]; d != nil && shapeIs(d, b) && d.F64 != nil {
		dur = d
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".npz")
	source := stem
	if i := strings.Index(stem, "_"); i > 0 {
		source = stem[:i]
	}
	out := make([]Solution, b)
	for i := 0; i < b; i++ {
		inst := insts[i]
		c := cost.F64[i]
		s := Solution{Instance: int64(i), Source: source, Cost: c, CostOrig: c * inst.Scale}
		if dur != nil {
			s.SolveTime = dur.F64[i]
		}
		switch {
		case math.IsNaN(c) || math.IsInf(c, -1) || c < 0:
			return nil, Metadata{}, &RowError{File: path, Row: int64(i), Field: "costs", Err: fmt.Errorf("cost %v is not a length", c)}
		case math.IsInf(c, 1):
			s.Cost, s.CostOrig = math.Inf(1), math.Inf(1)
		default:
			if inst.N != n {
				return nil, Metadata{}, &RowError{File: path, Row: int64(i), Field: "solutions",
					Err: fmt.Errorf("tour has %d nodes, instance has %d (size mismatch)", n, inst.N)}
			}
			cycle := make([]int, n)
			for j := range cycle {
				cycle[j] = int(sol.I64[i*n+j])
			}
			tour, res, err := NormaliseTour(inst, cycle)
			if err != nil {
				return nil, Metadata{}, &RowError{File: path, Row: int64(i), Field: "solutions", Err: err}
			}
			s.Tour, s.Feasible, s.Violation, s.ViolatedNodes = tour, res.Feasible, res.TotalViolation, res.ViolatedNodes
		}
		out[i] = s
	}
	meta := Metadata{Size: n, Source: source}
	if len(insts) > 0 {
		meta.Problem = insts[0].Problem.String()
		meta.Scale = insts[0].Scale
	}
	if m := reHardness.FindString(stem); m != "" {
		meta.Hardness = m
	}
	return out, meta, nil
}
