package datasets

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"

	"github.com/lmask/lmask/lazymask"
)

// rowReader streams rows of type T from a Parquet file, one row group at a
// time.
type rowReader[T any] struct {
	path  string
	f     *os.File
	pf    *parquet.File
	meta  Metadata
	group int
	row   int64
}

func openRowReader[T any](path, kind string) (*rowReader[T], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *fs.PathError: "open PATH: reason"
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: not a readable parquet file (truncated or wrong format): %w", path, err)
	}
	var keys []string
	for _, kv := range pf.Metadata().KeyValueMetadata {
		keys = append(keys, kv.Key)
	}
	meta, err := parseMetadata(keys, pf.Lookup)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if meta.Kind == "" {
		f.Close()
		return nil, fmt.Errorf("%s: not an lmask %s file (metadata %s missing)", path, kind, KeyKind)
	}
	if meta.Kind != kind {
		f.Close()
		return nil, fmt.Errorf("%s: holds %s, not %s", path, meta.Kind, kind)
	}
	if meta.Count != pf.NumRows() {
		f.Close()
		return nil, fmt.Errorf("%s: metadata %s = %d but the file holds %d rows", path, KeyCount, meta.Count, pf.NumRows())
	}
	return &rowReader[T]{path: path, f: f, pf: pf, meta: meta}, nil
}

// next reads the next row group; it returns io.EOF after the last one.
func (r *rowReader[T]) next() ([]T, int64, error) {
	groups := r.pf.RowGroups()
	for r.group < len(groups) && groups[r.group].NumRows() == 0 {
		r.group++
	}
	if r.group >= len(groups) {
		return nil, r.row, io.EOF
	}
	rg := groups[r.group]
	rows := make([]T, rg.NumRows())
	rr := parquet.NewGenericRowGroupReader[T](rg)
	defer rr.Close()
	n := 0
	for n < len(rows) {
		k, err := rr.Read(rows[n:])
		n += k
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, r.row, fmt.Errorf("%s: row group %d (rows from %d): %w", r.path, r.group, r.row, err)
		}
		if k == 0 {
			break
		}
	}
	if n != len(rows) {
		return nil, r.row, fmt.Errorf("%s: row group %d: read %d of %d rows", r.path, r.group, n, len(rows))
	}
	off := r.row
	r.group++
	r.row += int64(n)
	return rows, off, nil
}

func (r *rowReader[T]) close() error { return r.f.Close() }

// InstanceBatch is one row group of an instances file.
type InstanceBatch struct {
	// Offset is the index of the first instance of the batch.
	Offset int64
	// Instances are validated instances, Offset+i being the index of the
	// i-th.
	Instances []*lazymask.Instance
	// KnownTours is parallel to Instances: a tour known by construction, or
	// nil.
	KnownTours [][]int
}

// InstanceReader streams an instances file one row group at a time, so
// datasets larger than memory can be processed. Every instance is
// validated; errors name the file, the row and the field.
type InstanceReader struct {
	r *rowReader[instanceRow]
}

// OpenInstances opens an instances file written by InstanceWriter.
func OpenInstances(path string) (*InstanceReader, error) {
	r, err := openRowReader[instanceRow](path, KindInstances)
	if err != nil {
		return nil, err
	}
	return &InstanceReader{r: r}, nil
}

// Metadata returns the file-level metadata.
func (ir *InstanceReader) Metadata() Metadata { return ir.r.meta }

// NumRows returns the number of instances in the file.
func (ir *InstanceReader) NumRows() int64 { return ir.r.pf.NumRows() }

// NumRowGroups returns the number of batches Next will return.
func (ir *InstanceReader) NumRowGroups() int { return len(ir.r.pf.RowGroups()) }

// Next returns the next batch, or io.EOF after the last one.
func (ir *InstanceReader) Next() (*InstanceBatch, error) {
	rows, off, err := ir.r.next()
	if err != nil {
		return nil, err
	}
	b := &InstanceBatch{Offset: off, Instances: make([]*lazymask.Instance, len(rows)), KnownTours: make([][]int, len(rows))}
	for i := range rows {
		in, kt, err := fromInstanceRow(ir.r.path, off+int64(i), &rows[i])
		if err != nil {
			return nil, err
		}
		b.Instances[i], b.KnownTours[i] = in, kt
	}
	return b, nil
}

// Close closes the file.
func (ir *InstanceReader) Close() error { return ir.r.close() }

// Dataset is an instances file read into memory.
type Dataset struct {
	Meta       Metadata
	Instances  []*lazymask.Instance
	KnownTours [][]int // parallel to Instances; nil entries for none
}

// ReadInstances reads and validates a whole instances file.
func ReadInstances(path string) (*Dataset, error) {
	ir, err := OpenInstances(path)
	if err != nil {
		return nil, err
	}
	defer ir.Close()
	d := &Dataset{Meta: ir.Metadata()}
	for {
		b, err := ir.Next()
		if errors.Is(err, io.EOF) {
			return d, nil
		}
		if err != nil {
			return nil, err
		}
		d.Instances = append(d.Instances, b.Instances...)
		d.KnownTours = append(d.KnownTours, b.KnownTours...)
	}
}

// SolutionReader streams a solutions file one row group at a time.
type SolutionReader struct {
	r *rowReader[solutionRow]
}

// OpenSolutions opens a solutions file written by SolutionWriter.
func OpenSolutions(path string) (*SolutionReader, error) {
	r, err := openRowReader[solutionRow](path, KindSolutions)
	if err != nil {
		return nil, err
	}
	return &SolutionReader{r: r}, nil
}

// Metadata returns the file-level metadata.
func (sr *SolutionReader) Metadata() Metadata { return sr.r.meta }

// NumRows returns the number of solutions in the file.
func (sr *SolutionReader) NumRows() int64 { return sr.r.pf.NumRows() }

// Next returns the next row group's solutions and the row index of the
// first, or io.EOF after the last group.
func (sr *SolutionReader) Next() ([]Solution, int64, error) {
	rows, off, err := sr.r.next()
	if err != nil {
		return nil, off, err
	}
	out := make([]Solution, len(rows))
	for i := range rows {
		if out[i], err = fromSolutionRow(sr.r.path, off+int64(i), &rows[i]); err != nil {
			return nil, off, err
		}
	}
	return out, off, nil
}

// Close closes the file.
func (sr *SolutionReader) Close() error { return sr.r.close() }

// ReadSolutions reads a whole solutions file.
func ReadSolutions(path string) ([]Solution, Metadata, error) {
	sr, err := OpenSolutions(path)
	if err != nil {
		return nil, Metadata{}, err
	}
	defer sr.Close()
	var out []Solution
	for {
		s, _, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return out, sr.Metadata(), nil
		}
		if err != nil {
			return nil, Metadata{}, err
		}
		out = append(out, s...)
	}
}
