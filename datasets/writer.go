package datasets

import (
	"fmt"
	"github.com/lmask/lmask/internal/atomicfile"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/lmask/lmask/lazymask"
)

// DefaultRowGroupRows is the number of rows per Parquet row group unless
// WriterOptions says otherwise. Readers stream one row group at a time.
const DefaultRowGroupRows = 4096

// WriterOptions tunes the Parquet writers.
type WriterOptions struct {
	// RowGroupRows is the number of rows per row group (DefaultRowGroupRows
	// when zero).
	RowGroupRows int
	// FastCompression uses zstd's fastest level instead of its default:
	// compression is most of an import's time, and the reader is the same.
	FastCompression bool
}

// rowWriter streams rows of type T into an atomically created Parquet file.
type rowWriter[T any] struct {
	path    string
	file    *atomicfile.File
	pw      *parquet.GenericWriter[T]
	buf     []T
	group   int
	rows    int64
	closed  bool
	failErr error
}

func newRowWriter[T any](path string, meta Metadata, opt WriterOptions) (*rowWriter[T], error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	group := opt.RowGroupRows
	if group <= 0 {
		group = DefaultRowGroupRows
	}
	codec := &parquet.Zstd
	if opt.FastCompression {
		codec = &zstd.Codec{Level: zstd.SpeedFastest}
	}
	opts := []parquet.WriterOption{
		parquet.Compression(codec),
		parquet.MaxRowsPerRowGroup(int64(group)),
		parquet.CreatedBy("lmask", FormatVersion, "datasets"),
	}
	for _, kv := range meta.pairs() {
		if kv[0] != KeyCount {
			opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
		}
	}
	w := &rowWriter[T]{path: path, file: f, group: group}
	w.pw = parquet.NewGenericWriter[T](f, opts...)
	return w, nil
}

func (w *rowWriter[T]) write(r T) error {
	if w.closed {
		return fmt.Errorf("%s: write after close", w.path)
	}
	if w.failErr != nil {
		return w.failErr
	}
	w.buf = append(w.buf, r)
	w.rows++
	if len(w.buf) >= w.group {
		return w.flush()
	}
	return nil
}

func (w *rowWriter[T]) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if _, err := w.pw.Write(w.buf); err != nil {
		w.failErr = fmt.Errorf("write %s: %w", w.path, err)
		return w.failErr
	}
	if err := w.pw.Flush(); err != nil {
		w.failErr = fmt.Errorf("write %s: %w", w.path, err)
		return w.failErr
	}
	clear(w.buf)
	w.buf = w.buf[:0]
	return nil
}

func (w *rowWriter[T]) close() error {
	if w.closed {
		return nil
	}
	if err := w.flush(); err != nil {
		w.abort()
		return err
	}
	w.closed = true
	w.pw.SetKeyValueMetadata(KeyCount, fmt.Sprint(w.rows))
	if err := w.pw.Close(); err != nil {
		w.file.Abort()
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	return w.file.Commit()
}

func (w *rowWriter[T]) abort() {
	w.closed = true
	w.file.Abort()
}

// InstanceWriter streams instances into a Parquet file, one row group per
// WriterOptions.RowGroupRows instances. The file appears at its path only
// when Close succeeds; Abort (or a failed Close) leaves no file.
type InstanceWriter struct {
	w *rowWriter[instanceRow]
}

// CreateInstances starts an instances file at path. meta.Kind is set to
// KindInstances; the row count is recorded on Close.
func CreateInstances(path string, meta Metadata, opt WriterOptions) (*InstanceWriter, error) {
	meta.Kind = KindInstances
	w, err := newRowWriter[instanceRow](path, meta, opt)
	if err != nil {
		return nil, err
	}
	return &InstanceWriter{w: w}, nil
}

// Write validates and appends one instance with an optional known tour (nil
// when none). Rows are numbered from 0 in write order; that number is the
// instance index solutions refer to.
func (iw *InstanceWriter) Write(inst *lazymask.Instance, knownTour []int) error {
	row := iw.w.rows
	if err := inst.Validate(); err != nil {
		return &RowError{File: iw.w.path, Row: row, Err: err}
	}
	if knownTour != nil {
		if _, err := lazymask.Check(inst, knownTour); err != nil {
			var te *lazymask.TourError
			if asTourError(err, &te) {
				return &RowError{File: iw.w.path, Row: row, Field: "known_tour", Err: err}
			}
		}
	}
	return iw.w.write(toInstanceRow(row, inst, knownTour))
}

// Rows is the number of instances written so far.
func (iw *InstanceWriter) Rows() int64 { return iw.w.rows }

// SetMetadata sets a file-level key before Close, for what a streaming
// writer learns only at the end (a common size or scale).
func (iw *InstanceWriter) SetMetadata(key, value string) { iw.w.pw.SetKeyValueMetadata(key, value) }

// Close writes the footer and atomically moves the file into place.
func (iw *InstanceWriter) Close() error { return iw.w.close() }

// Abort discards everything written; no file is created.
func (iw *InstanceWriter) Abort() { iw.w.abort() }

// SolutionWriter streams solutions into a Parquet file; see InstanceWriter
// for the atomicity rules.
type SolutionWriter struct {
	w *rowWriter[solutionRow]
}

// CreateSolutions starts a solutions file at path. meta.Kind is set to
// KindSolutions.
func CreateSolutions(path string, meta Metadata, opt WriterOptions) (*SolutionWriter, error) {
	meta.Kind = KindSolutions
	w, err := newRowWriter[solutionRow](path, meta, opt)
	if err != nil {
		return nil, err
	}
	return &SolutionWriter{w: w}, nil
}

// Write appends one solution.
func (sw *SolutionWriter) Write(s *Solution) error {
	r := toSolutionRow(s)
	if _, err := fromSolutionRow(sw.w.path, sw.w.rows, &r); err != nil {
		return err
	}
	return sw.w.write(r)
}

// Rows is the number of solutions written so far.
func (sw *SolutionWriter) Rows() int64 { return sw.w.rows }

// Close writes the footer and atomically moves the file into place.
func (sw *SolutionWriter) Close() error { return sw.w.close() }

// Abort discards everything written; no file is created.
func (sw *SolutionWriter) Abort() { sw.w.abort() }

// WriteInstances writes a whole dataset to path atomically. knownTours may
// be nil or parallel to insts (nil entries for none).
func WriteInstances(path string, meta Metadata, insts []*lazymask.Instance, knownTours [][]int, opt WriterOptions) error {
	w, err := CreateInstances(path, meta, opt)
	if err != nil {
		return err
	}
	for i, in := range insts {
		var kt []int
		if knownTours != nil {
			kt = knownTours[i]
		}
		if err := w.Write(in, kt); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

// WriteSolutions writes solutions to path atomically.
func WriteSolutions(path string, meta Metadata, sols []Solution, opt WriterOptions) error {
	w, err := CreateSolutions(path, meta, opt)
	if err != nil {
		return err
	}
	for i := range sols {
		if err := w.Write(&sols[i]); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}
