package trainer

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lmask/lmask/models/features"
)

func TestParseInts(t *testing.T) {
	got, err := ParseInts(" 900, ,950")
	if err != nil || !reflect.DeepEqual(got, []int{900, 950}) {
		t.Fatalf("ParseInts: %v, %v", got, err)
	}
	if _, err := ParseInts("900,x"); err == nil || err.Error() != `"x" is not an integer` {
		t.Fatalf("ParseInts(900,x): %v", err)
	}
}

func TestDecoderOptions(t *testing.T) {
	m := DefaultConfig("tsptw", 50, "medium").Model
	got, err := DecoderOptions(m, "reld", "none")
	if err != nil || !got.ReLD || got.Cand != features.CandNone {
		t.Fatalf("reld/none: %+v, %v", got, err)
	}
	if _, err := DecoderOptions(m, "lstm", "none"); !isOptErr(err, "Decoder", `"lstm"`) || err.Error() != `Decoder "lstm": want pomo or reld` {
		t.Fatalf("lstm: %v", err)
	}
	if _, err := DecoderOptions(m, "pomo", "everything"); !isOptErr(err, "Cand", "") {
		t.Fatalf("cand everything: %v", err)
	}
}

func TestCheckConfigHardness(t *testing.T) {
	cfg := DefaultConfig("tsptw", 20, "medium")
	if err := CheckConfig(cfg); err != nil {
		t.Fatalf("default config: %v", err)
	}
	cfg.Hardness = "brutal"
	if err := CheckConfig(cfg); !isOptErr(err, "Hardness", `"brutal"`) {
		t.Fatalf("hardness brutal: %v", err)
	}
}

func TestParseBackends(t *testing.T) {
	got, err := ParseBackends(" go, ,onnx ")
	if err != nil || !reflect.DeepEqual(got, []string{"go", "onnx"}) {
		t.Fatalf("ParseBackends: %v, %v", got, err)
	}
	got, err = ParseBackends("onnx:cpu,intra_op_num_threads=2, mem_pattern=false,go")
	if err != nil || !reflect.DeepEqual(got, []string{"onnx:cpu,intra_op_num_threads=2,mem_pattern=false", "go"}) {
		t.Fatalf("ParseBackends with options: %v, %v", got, err)
	}
	if _, err := ParseBackends(" , "); !isOptErr(err, "Backends", "") || err.Error() != "Backends: empty" {
		t.Fatalf("empty list: %v", err)
	}
}

func TestSplitBenchRows(t *testing.T) {
	var log strings.Builder
	rows := []BenchRow{{Backend: "go"}, {Backend: "xla", Err: errors.New("no plugin")}, {Backend: "onnx", ImitateErr: errors.New("oom")}}
	ok, err := SplitBenchRows(rows, &log)
	if len(ok) != 2 || ok[0].Backend != "go" || ok[1].Backend != "onnx" {
		t.Fatalf("rows kept: %+v", ok)
	}
	want := "Backends xla: no plugin\nBackends onnx: imitation: oom"
	if !isOptErr(err, "Backends", "xla") || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
	if log.String() != "bench: backend xla: no plugin\nbench: backend onnx: imitation: oom\n" {
		t.Fatalf("log %q", log.String())
	}
	if _, err := SplitBenchRows(rows[:1], &log); err != nil {
		t.Fatalf("all ran: %v", err)
	}
}

func TestAbsLabelSets(t *testing.T) {
	wd, _ := filepath.Abs(".")
	got, err := AbsLabelSets("a,/x/b")
	if err != nil || got != filepath.Join(wd, "a")+",/x/b" {
		t.Fatalf("AbsLabelSets: %q, %v", got, err)
	}
	if _, err := AbsLabelSets("a,,b"); !isOptErr(err, "Imitate", `"a,,b"`) || err.Error() != `Imitate "a,,b": an empty label set name` {
		t.Fatalf("empty name: %v", err)
	}
}
