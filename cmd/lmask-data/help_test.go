package main

import (
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/internal/cliapp"
)

// TestHelpOneLinePerFlag: every flag's help is one short line (the detail
// is in the docs).
func TestHelpOneLinePerFlag(t *testing.T) {
	if long := cliapp.LongHelp(&cli.App{Name: "lmask-data", Commands: commands}, 130); len(long) > 0 {
		t.Errorf("help texts over one line of 130 characters: %v", long)
	}
}

// TestOptionFlags: every option the libraries name in their errors is
// spelled as a flag the command has.
func TestOptionFlags(t *testing.T) {
	if missing := cliapp.MissingFlags(&cli.App{Name: "lmask-data", Commands: commands}, optionFlags); len(missing) > 0 {
		t.Errorf("options spelled as flags the command lacks: %v", missing)
	}
}
