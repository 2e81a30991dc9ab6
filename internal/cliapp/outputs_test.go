package cliapp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/internal/atomicfile"
)

func TestDistinct(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.parquet")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.parquet")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.parquet")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	inputs := []atomicfile.Input{{Flag: "reference", Path: ""}, {Flag: "data", Path: in}}
	for _, tc := range []struct {
		out  string
		same bool
	}{
		{in, true},
		{"in.parquet", true},             // relative and absolute
		{"./sub/../in.parquet", true},    // not clean
		{link, true},                     // another name of the same file
		{hard, true},                     // a hard link
		{"other.parquet", false},         // does not exist yet
		{filepath.Join(dir, "x"), false}, // another name in the same folder
		{"", false},
	} {
		err := Distinct("out", tc.out, inputs...)
		if tc.same {
			if err == nil || !strings.Contains(err.Error(), "--out "+tc.out+" is the --data file") {
				t.Errorf("Distinct(%q) = %v, want the --data error", tc.out, err)
			}
		} else if err != nil {
			t.Errorf("Distinct(%q) = %v, want nil", tc.out, err)
		}
	}
}

// TestDistinctDir: every file of a model folder is an input, also when the
// output names it through a symbolic link to the folder.
func TestDistinctDir(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model")
	os.Mkdir(model, 0o755)
	for _, n := range []string{"encoder.onnx", "config.json"} {
		os.WriteFile(filepath.Join(model, n), []byte(n), 0o644)
	}
	alias := filepath.Join(dir, "alias")
	if err := os.Symlink("model", alias); err != nil {
		t.Fatal(err)
	}
	inputs := atomicfile.DirInputs("model", model, "encoder.onnx", "config.json", "MODEL_CARD.md")
	for _, tc := range []struct{ out, want string }{
		{filepath.Join(alias, "encoder.onnx"), "is --model's encoder.onnx"},
		{filepath.Join(model, "config.json"), "is --model's config.json"},
		{filepath.Join(model, "MODEL_CARD.md"), "is --model's MODEL_CARD.md"}, // missing, same path
		{filepath.Join(model, "solutions.parquet"), ""},
	} {
		err := Distinct("out", tc.out, inputs...)
		if tc.want == "" {
			if err != nil {
				t.Errorf("Distinct(%s) = %v, want nil", tc.out, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Distinct(%s) = %v, want %q", tc.out, err, tc.want)
		}
	}
	if atomicfile.DirInputs("model", "") != nil {
		t.Errorf("DirInputs of an empty flag is not empty")
	}
}

func TestCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	in, out, refs := filepath.Join(dir, "in"), filepath.Join(dir, "out"), filepath.Join(dir, "refs")
	ins := []atomicfile.Input{{Flag: "in", Path: in}, {Flag: "reference", Path: ""}}
	if err := CheckOutputs(ins, []atomicfile.Input{{Flag: "out", Path: out}, {Flag: "references", Path: ""}}); err != nil {
		t.Fatalf("distinct outputs: %v", err)
	}
	err := CheckOutputs(ins, []atomicfile.Input{{Flag: "out", Path: in}})
	if err == nil || !strings.HasPrefix(err.Error(), "--out "+in+" is the --in file") {
		t.Fatalf("output over an input: %v", err)
	}
	err = CheckOutputs(ins, []atomicfile.Input{{Flag: "out", Path: refs}, {Flag: "references", Path: refs}})
	if err == nil || !strings.HasPrefix(err.Error(), "--references "+refs+" is the --out file") {
		t.Fatalf("two outputs alike: %v", err)
	}
	err = CheckOutputs(nil, []atomicfile.Input{{Flag: "out", Path: dir}})
	if err == nil || !strings.HasPrefix(err.Error(), "flag --out: ") {
		t.Fatalf("a folder as output: %v", err)
	}
}
