package cliapp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgressOffTerminal: a bar on a buffer or a file writes nothing.
func TestProgressOffTerminal(t *testing.T) {
	var b strings.Builder
	p := NewProgress(&b, "solving", "inst")
	p.Set(3, 10)
	p.Set(10, 10)
	p.Finish()
	if b.Len() != 0 || IsTerminal(&b) {
		t.Fatalf("a bar on a buffer wrote %q", b.String())
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Fatal("a regular file counted as a terminal")
	}
	p = NewProgress(f, "solving", "inst")
	p.Set(1, 2)
	p.Finish()
	if st, err := f.Stat(); err != nil || st.Size() != 0 {
		t.Fatalf("a bar on a file wrote %d bytes (%v)", st.Size(), err)
	}
}

// TestBarLogOffTerminal: off a terminal, each call is one plain line.
func TestBarLogOffTerminal(t *testing.T) {
	var b strings.Builder
	log := BarLog(&b)
	log("chunk %d of %s", 3, "set")
	log("done")
	if b.String() != "chunk 3 of set\ndone\n" {
		t.Fatalf("log %q", b.String())
	}
}
