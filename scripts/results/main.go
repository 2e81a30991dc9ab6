// Command results writes docs/results.md from the section files in
// docs/results/ (internal/resultsdoc): go run ./scripts/results, or
// ./just results.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/internal/resultsdoc"
)

func main() {
	dir := flag.String("dir", "docs/results", "folder of the section files (*.json)")
	out := flag.String("out", "docs/results.md", "page to write (atomically)")
	flag.Parse()
	var b bytes.Buffer
	if err := resultsdoc.Render(*dir, &b); err != nil {
		fmt.Fprintln(os.Stderr, "results:", err)
		os.Exit(1)
	}
	if err := atomicfile.WriteFile(*out, b.Bytes()); err != nil {
		fmt.Fprintln(os.Stderr, "results:", err)
		os.Exit(1)
	}
}
