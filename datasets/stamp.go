package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/lmask/lmask/lazymask"
)

// FileStamp identifies an input file's content: a label set or a training
// run made from instance files records one per file, so that a resumed run
// refuses a file that changed in the meantime.
type FileStamp struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	// Rows is the number of instances the file holds.
	Rows int64 `json:"rows"`
}

// StampFile returns path's stamp (absolute path, size, SHA-256) with rows
// instances.
func StampFile(path string, rows int64) (FileStamp, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return FileStamp{}, err
	}
	f, err := os.Open(abs)
	if err != nil {
		return FileStamp{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return FileStamp{}, fmt.Errorf("%s: %w", abs, err)
	}
	return FileStamp{Path: abs, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil)), Rows: rows}, nil
}

// SameFiles returns nil when have and want name files of the same names
// and content in the same order, else an error naming the first
// difference. The folders may differ: shards on several machines see one
// file at different paths.
func SameFiles(have, want []FileStamp) error {
	if len(have) != len(want) {
		return fmt.Errorf("%d instance files recorded, %d given", len(have), len(want))
	}
	for i := range have {
		h, w := have[i], want[i]
		switch {
		case filepath.Base(h.Path) != filepath.Base(w.Path):
			return fmt.Errorf("file %d is %s, was %s", i+1, w.Path, h.Path)
		case h.Bytes != w.Bytes || h.SHA256 != w.SHA256 || h.Rows != w.Rows:
			return fmt.Errorf("%s changed: now %d bytes, %d rows, sha256 %.12s…; recorded %d bytes, %d rows, sha256 %.12s…",
				w.Path, w.Bytes, w.Rows, w.SHA256, h.Bytes, h.Rows, h.SHA256)
		}
	}
	return nil
}

// InstanceFiles are instance files read into memory, in the order given,
// as one sequence: the rows of the first file, then of the second, and so
// on. They hold one problem; their sizes may differ.
type InstanceFiles struct {
	Problem   lazymask.Problem
	Stamps    []FileStamp
	Offsets   []int // per file, the sequence index of its first row
	Instances []*lazymask.Instance
}

// Sizes returns the distinct instance sizes N in ascending order.
func (f *InstanceFiles) Sizes() []int {
	var out []int
	for _, in := range f.Instances {
		if !slices.Contains(out, in.N) {
			out = append(out, in.N)
		}
	}
	slices.Sort(out)
	return out
}

// File returns the path and row of sequence index i.
func (f *InstanceFiles) File(i int) (string, int) {
	k := 0
	for k+1 < len(f.Offsets) && f.Offsets[k+1] <= i {
		k++
	}
	return f.Stamps[k].Path, i - f.Offsets[k]
}

// ReadInstanceFiles reads and stamps the instance files. Files of two
// problems, or without an instance, are refused with an error naming them.
func ReadInstanceFiles(paths []string) (*InstanceFiles, error) {
	if len(paths) == 0 {
		return nil, errors.New("no instances file named")
	}
	out := &InstanceFiles{}
	for i, p := range paths {
		d, err := ReadInstances(p)
		if err != nil {
			return nil, err
		}
		if len(d.Instances) == 0 {
			return nil, fmt.Errorf("%s: no instances", p)
		}
		if pr := d.Instances[0].Problem; i == 0 {
			out.Problem = pr
		} else if pr != out.Problem {
			return nil, fmt.Errorf("%s holds %v instances, %s holds %v: one set holds one problem", p, pr, paths[0], out.Problem)
		}
		for r, in := range d.Instances {
			if in.Problem != out.Problem {
				return nil, fmt.Errorf("%s: row %d: problem %v, the file's first row is %v: one set holds one problem", p, r, in.Problem, out.Problem)
			}
		}
		st, err := StampFile(p, int64(len(d.Instances)))
		if err != nil {
			return nil, err
		}
		out.Stamps = append(out.Stamps, st)
		out.Offsets = append(out.Offsets, len(out.Instances))
		out.Instances = append(out.Instances, d.Instances...)
	}
	return out, nil
}
