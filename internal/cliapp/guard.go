package cliapp

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/internal/atomicfile"
)

// Interruptible runs action so that a cancelled context returns
// context.Canceled at once, leaving the action to end with the process
// (for commands whose outputs are written atomically: nothing is left
// half-written). A nil action stays nil.
func Interruptible(action cli.ActionFunc) cli.ActionFunc {
	if action == nil {
		return nil
	}
	return func(c *cli.Context) error {
		done := make(chan error, 1)
		go func() { done <- action(c) }()
		select {
		case err := <-done:
			return err
		case <-c.Context.Done():
			return c.Context.Err()
		}
	}
}

// GuardFiles returns a check to run before any command (cli.Command's
// Before) of what its flags alone tell: a --workers that is not negative,
// and outputs (the flags named in outputFlags that the command has) whose
// folders exist, that are regular files or new, and that name none of the
// command's inputs (inputFlags) nor each other (CheckOutputs).
func GuardFiles(inputFlags, outputFlags []string) cli.BeforeFunc {
	return func(c *cli.Context) error {
		has := map[string]bool{}
		for _, f := range c.Command.Flags {
			for _, n := range f.Names() {
				has[n] = true
			}
		}
		name := c.Command.Name
		if has["workers"] && c.Int("workers") < 0 {
			return Usagef("%s: flag --workers: %d, want ≥ 0 (0 = number of CPUs)", name, c.Int("workers"))
		}
		var inputs, outputs []atomicfile.Input
		for _, f := range inputFlags {
			if has[f] {
				inputs = append(inputs, atomicfile.Input{Flag: f, Path: c.String(f)})
			}
		}
		for _, f := range outputFlags {
			if has[f] {
				outputs = append(outputs, atomicfile.Input{Flag: f, Path: c.String(f)})
			}
		}
		if err := CheckOutputs(inputs, outputs); err != nil {
			return Usagef("%s: %w", name, err)
		}
		return nil
	}
}

// Required returns a usage error, in urfave/cli's words, naming the flags
// of names (in their order) that c does not set; nil when all are set. It
// serves flags required only in some uses of a command.
func Required(c *cli.Context, names ...string) error {
	var missing []string
	for _, f := range names {
		if !c.IsSet(f) {
			missing = append(missing, f)
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return Usagef("Required flag %q not set", missing[0])
	}
	return Usagef("Required flags %q not set", strings.Join(missing, ", "))
}
