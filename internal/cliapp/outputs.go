package cliapp

import (
	"fmt"
	"slices"

	"github.com/lmask/lmask/internal/atomicfile"
)

// Commands check their output paths before a run with these: the messages
// name each path by its flag (Input.Flag), so they live with the commands,
// not in atomicfile.

// Distinct returns an error when the output path out names the same file
// as one of the inputs (empty paths are skipped), so a run never
// overwrites the file it reads. Files are compared by identity
// (os.SameFile: another name, a symbolic or hard link) and, for files
// that do not exist yet, by cleaned absolute path. outFlag names out's
// flag.
func Distinct(outFlag, out string, inputs ...atomicfile.Input) error {
	input, same := atomicfile.Same(out, inputs...)
	if !same {
		return nil
	}
	what := "the --" + input.Flag + " file"
	if input.What != "" {
		what = "--" + input.Flag + "'s " + input.What
	}
	return fmt.Errorf("--%s %s is %s: writing it would destroy the input; choose another output path", outFlag, out, what)
}

// CheckOutputs checks a command's outputs (Flag names each; empty paths are
// skipped) before it runs: each passes CheckDest, and names none of the
// inputs nor an output before it (Distinct).
func CheckOutputs(inputs, outputs []atomicfile.Input) error {
	taken := slices.Clone(inputs)
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		if err := atomicfile.CheckDest(o.Path); err != nil {
			return fmt.Errorf("flag --%s: %w", o.Flag, err)
		}
		if err := Distinct(o.Flag, o.Path, taken...); err != nil {
			return err
		}
		taken = append(taken, o)
	}
	return nil
}
