package main

import (
	"io"
	"testing"

	"github.com/lmask/lmask/internal/cliapp"
)

// TestHelpOneLinePerFlag: every flag's help is one short line (the detail
// is in docs/training.md).
func TestHelpOneLinePerFlag(t *testing.T) {
	if long := cliapp.LongHelp(newApp(io.Discard, io.Discard), 130); len(long) > 0 {
		t.Errorf("help texts over one line of 130 characters: %v", long)
	}
}

// TestOptionFlags: every option the libraries name in their errors is
// spelled as a flag the command has.
func TestOptionFlags(t *testing.T) {
	if missing := cliapp.MissingFlags(newApp(io.Discard, io.Discard), optionFlags); len(missing) > 0 {
		t.Errorf("options spelled as flags the command lacks: %v", missing)
	}
}
