package opterr

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// flagText is a command-line flag in a string: "--out", "--val-ref",
// "--%s", or a trailing "--" that a flag name is appended to.
var flagText = regexp.MustCompile(`(^|[^-\w])--([a-z%]|$)`)

// flagFree lists what the check leaves out: the commands and the package
// that spells options as their flags; the programs under scripts/, commands
// too; internal/frontier, which runs lmask-infer and lmask-data with
// their flags; and literals that are another program's flags.
var (
	flagDirs = []string{"cmd", "scripts", "internal/cliapp", "internal/frontier", "third_party"}
	otherCLI = map[string][]string{
		"trainer/busy.go": {"--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"}, // nvidia-smi's
	}
)

// TestLibrariesNameNoFlags: no library below cmd/ writes a flag name in a
// string (comments and tests aside). A library names its options as its
// types do, in an *Error, and the command spells them as flags.
func TestLibrariesNameNoFlags(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, skip := range flagDirs {
				if rel == skip {
					return filepath.SkipDir
				}
			}
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		checked++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !flagText.MatchString(s) {
				return true
			}
			for _, ok := range otherCLI[rel] {
				if s == ok {
					return true
				}
			}
			t.Errorf("%s: %s names a flag; name the option in an opterr.Error and let the command spell it", fset.Position(lit.Pos()), lit.Value)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked %d Go files under %s, want the module's libraries", checked, root)
	}
}
