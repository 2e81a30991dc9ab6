package trainer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/models/features"
)

// CheckExportDir checks, before the checkpoint is loaded, that the model
// files export writes into out are regular files or new, that none of them
// is the checkpoint, and that out holds no model yet unless force is set:
// a shipped model and its card are never replaced by accident.
func CheckExportDir(checkpoint, out string, force bool) error {
	st, err := os.Stat(out)
	if err != nil {
		return nil // a new folder: export makes it
	}
	if !st.IsDir() {
		return fmt.Errorf("export: %w", opterr.New("Out", out, "is not a folder"))
	}
	ck := checkpoint
	if st, err := os.Stat(ck); err == nil && st.IsDir() {
		ck = filepath.Join(ck, CheckpointFile)
	}
	var held []string
	for _, f := range features.ModelFiles {
		p := filepath.Join(out, f)
		if err := atomicfile.CheckDest(p); err != nil {
			return fmt.Errorf("export: %w", opterr.Wrap("Out", "", err))
		}
		if _, same := atomicfile.Same(p, atomicfile.Input{Path: ck}); same {
			return fmt.Errorf("export: %w", opterr.New("Out", out, "%s is the %v file: writing it would destroy the input; choose another output path", f, opterr.Name("Checkpoint")))
		}
		if _, err := os.Lstat(p); err == nil {
			held = append(held, f)
		}
	}
	if len(held) > 0 && !force {
		return fmt.Errorf("export: %w", opterr.New("Out", out, "already holds a model (%s); pass %v to replace it", strings.Join(held, ", "), opterr.Name("Force")))
	}
	return nil
}

// CheckFileOut refuses an output path that is not a regular file or that names
// one of the command's inputs.
func CheckFileOut(cmd, out string, inputs []string) error {
	if fi, err := os.Stat(out); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", cmd, opterr.New("Out", out, "is not a regular file"))
	}
	for _, in := range inputs {
		if same, _ := samePath(in, out); same {
			return fmt.Errorf("%s: %w", cmd, opterr.New("Out", out, "is one of the inputs"))
		}
	}
	return nil
}

// samePath reports whether a (a checkpoint file, or a run directory holding
// one) and b name the same file.
func samePath(a, b string) (bool, error) {
	if fi, err := os.Stat(a); err == nil && fi.IsDir() {
		a = filepath.Join(a, CheckpointFile)
	}
	return sameFile(a, b)
}

// sameFile reports whether a and b name the same existing file or
// directory.
func sameFile(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(fa, fb), nil
}

// CheckCurveOut checks the picture's path before the runs are read: a
// regular file or a new one, and none of the metrics logs it is drawn from.
func CheckCurveOut(out string, runs []string) error {
	if err := atomicfile.CheckDest(out); err != nil {
		return opterr.Wrap("Out", "", err)
	}
	for _, r := range runs {
		in := r
		if st, err := os.Stat(r); err == nil && st.IsDir() {
			in = filepath.Join(r, MetricsFile)
		}
		if _, same := atomicfile.Same(out, atomicfile.Input{Path: in}); same {
			return opterr.New("Out", out, "the metrics of run %s: writing it would destroy the input; choose another output path", r)
		}
	}
	return nil
}

// CheckRunDir checks the run directory out before anything is written: the
// nearest existing folder above it must be a folder (missing ones are made
// with the run directory), and out itself, if present, must be a
// directory.
func CheckRunDir(out string) error {
	if st, err := os.Stat(out); err == nil {
		if !st.IsDir() {
			return opterr.New("Out", out, "not a directory")
		}
		// The run's own files must be files it may replace: never a
		// folder, device or FIFO in their place.
		for _, f := range []string{CheckpointFile, BestFile, MetricsFile, CurveFile} {
			if err := atomicfile.CheckDest(filepath.Join(out, f)); err != nil {
				return opterr.Wrap("Out", out, err)
			}
		}
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return opterr.Wrap("Out", out, err)
	}
	// Missing folders above the run directory are made with it (runs/NAME
	// in a fresh checkout), but the nearest existing one must be a folder.
	for parent := filepath.Dir(filepath.Clean(out)); ; parent = filepath.Dir(parent) {
		st, err := os.Stat(parent)
		switch {
		case err == nil && !st.IsDir():
			return opterr.New("Out", out, "%s is not a directory", parent)
		case err == nil:
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			return opterr.Wrap("Out", out, err)
		}
		if parent == filepath.Dir(parent) {
			return nil
		}
	}
}
