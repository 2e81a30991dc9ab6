package datasets

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/lazymask"
)

// RowGroupSizes returns the number of instances of each row group, in
// file order (shards are cut at their boundaries).
func (ir *InstanceReader) RowGroupSizes() []int64 {
	groups := ir.r.pf.RowGroups()
	out := make([]int64, len(groups))
	for g, rg := range groups {
		out[g] = rg.NumRows()
	}
	return out
}

// SeekRow moves the reader so that Next returns the row group that holds
// row (its Offset may come before row), or io.EOF when row is past the
// last; the groups before it are not read.
func (ir *InstanceReader) SeekRow(row int64) error {
	if row < 0 {
		return fmt.Errorf("%s: seek to row %d", ir.r.path, row)
	}
	r := ir.r
	r.group, r.row = 0, 0
	for _, rg := range r.pf.RowGroups() {
		if n := rg.NumRows(); r.row+n <= row {
			r.group++
			r.row += n
			continue
		}
		break
	}
	return nil
}

// InstanceAt streams an instances file to row k and returns it with its
// known tour; a nil instance and the row count mean k is out of range.
func InstanceAt(path string, k int64) (*lazymask.Instance, []int, int64, error) {
	ir, err := OpenInstances(path)
	if err != nil {
		return nil, nil, 0, err
	}
	defer ir.Close()
	n := ir.NumRows()
	if k < 0 || k >= n {
		return nil, nil, n, nil
	}
	if err := ir.SeekRow(k); err != nil {
		return nil, nil, n, err
	}
	b, err := ir.Next()
	if errors.Is(err, io.EOF) {
		return nil, nil, n, nil
	}
	if err != nil {
		return nil, nil, n, err
	}
	i := k - b.Offset
	return b.Instances[i], b.KnownTours[i], n, nil
}

// SolutionAt streams a solutions file to row k; a nil solution and the
// row count mean k is out of range.
func SolutionAt(path string, k int64) (*Solution, int64, error) {
	sr, err := OpenSolutions(path)
	if err != nil {
		return nil, 0, err
	}
	defer sr.Close()
	n := sr.NumRows()
	if k < 0 || k >= n {
		return nil, n, nil
	}
	for {
		rows, off, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return nil, n, nil
		}
		if err != nil {
			return nil, n, err
		}
		if i := k - off; i < int64(len(rows)) {
			return &rows[i], n, nil
		}
	}
}

// ReadReference reads the reference solutions file path and checks that
// it can belong to the instances file instPath (metadata inst,
// MatchSolutions); note is MatchSolutions' note. An empty path returns
// nil.
func ReadReference(path, instPath string, inst Metadata) (refs []Solution, note string, err error) {
	if path == "" {
		return nil, "", nil
	}
	refs, _, note, err = ReadMatchedSolutions(path, instPath, inst)
	return refs, note, err
}

// ReadMatchedSolutions reads the solutions file path and checks that it
// can belong to the instances file instPath (metadata inst,
// MatchSolutions); note is MatchSolutions' note.
func ReadMatchedSolutions(path, instPath string, inst Metadata) (sols []Solution, meta Metadata, note string, err error) {
	sols, meta, err = ReadSolutions(path)
	if err != nil {
		return nil, Metadata{}, "", err
	}
	if note, err = MatchSolutions(instPath, inst, path, meta); err != nil {
		return nil, Metadata{}, "", err
	}
	return sols, meta, note, nil
}

// MatchFiles is MatchSolutions for two files, opened only for their
// metadata.
func MatchFiles(instPath, solPath string) (note string, err error) {
	ir, err := OpenInstances(instPath)
	if err != nil {
		return "", err
	}
	imeta := ir.Metadata()
	ir.Close()
	sr, err := OpenSolutions(solPath)
	if err != nil {
		return "", err
	}
	smeta := sr.Metadata()
	sr.Close()
	return MatchSolutions(instPath, imeta, solPath, smeta)
}

// FirstInstances returns the solutions that name one of the first n
// instances (nil stays nil).
func FirstInstances(sols []Solution, n int) []Solution {
	if sols == nil {
		return nil
	}
	out := make([]Solution, 0, len(sols))
	for _, s := range sols {
		if s.Instance < int64(n) {
			out = append(out, s)
		}
	}
	return out
}

// IsNPZReference reports whether the .npz file at path holds reference
// tours (a "solutions" member) rather than instances.
func IsNPZReference(path string) (bool, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return false, fmt.Errorf("%s: not a readable npz (zip) file: %w", path, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if strings.TrimSuffix(f.Name, ".npy") == "solutions" {
			return true, nil
		}
	}
	return false, nil
}

// CountViolating returns the rows of sols with a tour and those of them
// whose recorded verdict is infeasible; it is an error when most tours
// break a constraint: reference tours are good solutions of their own
// instances, so the pairing of refPath with instPath is wrong (another
// hardness or test set) and the gaps it would give mean nothing.
func CountViolating(sols []Solution, refPath, instPath string) (tours, violating int, err error) {
	for _, s := range sols {
		if s.Tour != nil {
			tours++
			if !s.Feasible {
				violating++
			}
		}
	}
	if tours > 0 && 2*violating > tours {
		return tours, violating, fmt.Errorf("%d of the %d tours in %s break a constraint of the instances in %s: "+
			"they were not made for these instances (nothing written)", violating, tours, refPath, instPath)
	}
	return tours, violating, nil
}

// DrawTarget is the tour lmask-data plot draws: the instance, its tour (nil
// when none is stored), the instance row and the picture's title.
type DrawTarget struct {
	Inst  *lazymask.Instance
	Tour  []int
	Row   int64
	Title string
}

// TourToDraw finds row k of the solutions file solPath and its instance, or,
// with solPath empty, row k of instPath and its known tour; note is
// MatchFiles's. Errors name the file, the row and the option (an
// *opterr.Error of Index where k is out of range).
func TourToDraw(instPath, solPath string, k int64) (t DrawTarget, note string, err error) {
	t.Row = k
	if solPath != "" {
		if note, err = MatchFiles(instPath, solPath); err != nil {
			return t, note, err
		}
		s, n, err := SolutionAt(solPath, k)
		if err != nil {
			return t, note, err
		}
		if s == nil {
			return t, note, fmt.Errorf("%s: %w", solPath, opterr.New("Index", fmt.Sprint(k), "row out of range [0,%d)", n))
		}
		t.Tour, t.Row = s.Tour, s.Instance
		t.Title = fmt.Sprintf("%s row %d (%s) · instance %d of %s", filepath.Base(solPath), k, s.Source, t.Row, filepath.Base(instPath))
	}
	inst, known, n, err := InstanceAt(instPath, t.Row)
	if err != nil {
		return t, note, err
	}
	if inst == nil {
		if solPath != "" {
			return t, note, fmt.Errorf("%s: row %d: field instance: %d out of range [0,%d) (size mismatch with %s)",
				solPath, k, t.Row, n, instPath)
		}
		return t, note, fmt.Errorf("%s: %w", instPath, opterr.New("Index", fmt.Sprint(k), "row out of range [0,%d)", n))
	}
	if solPath == "" {
		t.Tour = known
		t.Title = fmt.Sprintf("%s row %d · known tour", filepath.Base(instPath), t.Row)
		if known == nil {
			t.Title = fmt.Sprintf("%s row %d · no known tour stored", filepath.Base(instPath), t.Row)
		}
	}
	if inst.Name != "" {
		t.Title += fmt.Sprintf(" · %s", inst.Name)
	}
	t.Inst = inst
	return t, note, nil
}
