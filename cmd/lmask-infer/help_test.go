package main

import (
	"io"
	"testing"

	"github.com/lmask/lmask/internal/cliapp"
)

// TestHelpOneLinePerFlag: every flag's help is one short line (the detail
// is in docs/inference.md).
func TestHelpOneLinePerFlag(t *testing.T) {
	if long := cliapp.LongHelp(newApp(io.Discard, io.Discard), 130); len(long) > 0 {
		t.Errorf("help texts over one line of 130 characters: %v", long)
	}
}

// TestOptionFlagsExist: every option infer names in an error is spelled as
// a flag this command has.
func TestOptionFlagsExist(t *testing.T) {
	if missing := cliapp.MissingFlags(newApp(io.Discard, io.Discard), optionFlags); len(missing) > 0 {
		t.Errorf("options spelled as flags the command lacks: %v", missing)
	}
}
