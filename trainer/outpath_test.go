package trainer

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/models/features"
)

func TestCheckExportDir(t *testing.T) {
	dir := t.TempDir()
	if err := CheckExportDir("ck", filepath.Join(dir, "new"), false); err != nil {
		t.Fatalf("new folder: %v", err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckExportDir("ck", file, false); !isOptErr(err, "Out", file) || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("file as out: %v", err)
	}
	model := filepath.Join(dir, "model")
	if err := os.MkdirAll(model, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckExportDir("ck", model, false); err != nil {
		t.Fatalf("empty folder: %v", err)
	}
	if err := os.WriteFile(filepath.Join(model, features.ConfigFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := CheckExportDir("ck", model, false)
	if !isOptErr(err, "Out", model) || err.Error() != "export: Out "+model+": already holds a model ("+features.ConfigFile+"); pass Force to replace it" {
		t.Fatalf("held model without force: %v", err)
	}
	if err := CheckExportDir("ck", model, true); err != nil {
		t.Fatalf("held model with force: %v", err)
	}
	if err := os.Mkdir(filepath.Join(model, features.EncoderFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckExportDir("ck", model, true); err == nil {
		t.Fatal("a folder in place of encoder.onnx was accepted")
	}
}

func TestCheckFileOut(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	ck := filepath.Join(run, CheckpointFile)
	if err := os.WriteFile(ck, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckFileOut("grow", filepath.Join(dir, "new.lmck"), []string{run}); err != nil {
		t.Fatalf("new file: %v", err)
	}
	if err := CheckFileOut("grow", ck, []string{run}); !isOptErr(err, "Out", ck) || err.Error() != "grow: Out "+ck+": is one of the inputs" {
		t.Fatalf("out = the run's checkpoint: %v", err)
	}
	if err := CheckFileOut("average", run, []string{ck}); !isOptErr(err, "Out", run) || err.Error() != "average: Out "+run+": is not a regular file" {
		t.Fatalf("out = a folder: %v", err)
	}
}

func TestCheckRunDir(t *testing.T) {
	dir := t.TempDir()
	if err := CheckRunDir(filepath.Join(dir, "a", "b", "run")); err != nil {
		t.Fatalf("missing folders: %v", err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckRunDir(file); !isOptErr(err, "Out", file) || err.Error() != "Out "+file+": not a directory" {
		t.Fatalf("file as run dir: %v", err)
	}
	if err := CheckRunDir(filepath.Join(file, "run")); !isOptErr(err, "Out", filepath.Join(file, "run")) || !strings.Contains(err.Error(), file) {
		t.Fatalf("file above run dir: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, MetricsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckRunDir(dir); !isOptErr(err, "Out", dir) {
		t.Fatalf("a folder in place of metrics.jsonl: %v", err)
	}
}

func TestReadCompareGroups(t *testing.T) {
	dir := t.TempDir()
	for _, r := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, r+".jsonl"), []byte(`{"step":1}`+"\n"+`{"step":2}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	groups, dirs, err := ReadCompareGroups([]string{"T1:x=" + a + ";y=" + b, "T2:z=" + a}, 128)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 || groups[0].Title != "T1" || groups[0].ToursPerStep != 128 || len(groups[0].Runs) != 2 ||
		groups[0].Runs[1].Name != "y" || len(groups[0].Runs[1].Recs) != 2 || groups[1].Runs[0].Name != "z" {
		t.Fatalf("groups %+v", groups)
	}
	if strings.Join(dirs, ",") != a+","+b+","+a {
		t.Fatalf("dirs %v", dirs)
	}
	for spec, want := range map[string]string{
		"notitle": `want TITLE:LABEL=RUNDIR;LABEL=RUNDIR;...`,
		"T:":      `want TITLE:LABEL=RUNDIR;LABEL=RUNDIR;...`,
		"T:" + a:  `run "` + a + `" is not LABEL=RUNDIR`,
	} {
		if _, _, err := ReadCompareGroups([]string{spec}, 1); !isOptErr(err, "Groups", strconv.Quote(spec)) || opterr.As(err).Err.Error() != want {
			t.Errorf("%q: got %v, want %s", spec, err, want)
		}
	}
	if _, _, err := ReadCompareGroups([]string{"T:x=" + filepath.Join(dir, "missing")}, 1); err == nil || opterr.Has(err) {
		t.Errorf("missing run: %v, want a read error", err)
	}
	stages, err := ReadStages([]string{a, b})
	if err != nil || len(stages) != 2 || stages[1][1].Step != 2 {
		t.Fatalf("stages %v, %v", stages, err)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadStages([]string{a, empty}); err == nil || err.Error() != "curve: "+empty+" holds no metrics records" {
		t.Fatalf("empty stage: %v", err)
	}
}

// isOptErr reports whether err names option with value (opterr).
func isOptErr(err error, option, value string) bool {
	oe := opterr.As(err)
	return oe != nil && oe.Option == option && oe.Value == value
}
