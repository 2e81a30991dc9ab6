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
