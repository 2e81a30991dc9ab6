package datasets

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/lmask/lmask/lazymask"
)

func TestInstancesRoundTripStreaming(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hard.parquet")
	cfg := GenConfig{Problem: lazymask.TSPTW, N: 20, Hardness: Hard, Seed: 9}
	meta, err := GenerateFile(path, cfg, 250, WriterOptions{RowGroupRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	want, wantTours := mustGenerate(t, cfg, 250)
	ir, err := OpenInstances(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ir.Close()
	m := ir.Metadata()
	if m.Kind != KindInstances || m.Problem != "tsptw" || m.Size != 20 || m.Hardness != Hard || m.Seed != 9 ||
		!m.Seeded || m.Scale != 100 || m.Count != 250 || m.GeneratorVersion != GeneratorVersion || m.Width != 100 {
		t.Fatalf("metadata %+v", m)
	}
	if meta.Count != 250 || ir.NumRowGroups() != 3 {
		t.Fatalf("count %d, row groups %d", meta.Count, ir.NumRowGroups())
	}
	var sizes []int
	got := 0
	for {
		b, err := ir.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.Offset != int64(got) {
			t.Fatalf("offset %d, want %d", b.Offset, got)
		}
		sizes = append(sizes, len(b.Instances))
		for i, in := range b.Instances {
			w := want[got+i]
			for j := 0; j < in.N; j++ {
				if in.X[j] != w.X[j] || in.Y[j] != w.Y[j] || in.Early[j] != w.Early[j] || in.Late[j] != w.Late[j] {
					t.Fatalf("instance %d node %d differs after round trip", got+i, j)
				}
			}
			for j, v := range b.KnownTours[i] {
				if v != wantTours[got+i][j] {
					t.Fatalf("known tour %d differs", got+i)
				}
			}
		}
		got += len(b.Instances)
	}
	if got != 250 || len(sizes) != 3 || sizes[0] != 100 || sizes[2] != 50 {
		t.Fatalf("batches %v", sizes)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("directory holds %d entries, want only the output (no temp files)", len(ents))
	}
}

func TestSolutionsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.parquet")
	sols := []Solution{
		{Instance: 0, Tour: []int{0, 2, 1}, Cost: 3.5, CostOrig: 350, Feasible: true, Backtracks: 4, SolveTime: 0.25, Source: "lmask", Aug: 3, Sample: 1},
		{Instance: 1, Cost: math.Inf(1), CostOrig: math.Inf(1), Source: "lmask", Aug: 7},
	}
	if err := WriteSolutions(path, Metadata{Problem: "tsptw", Source: "lmask"}, sols, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	got, meta, err := ReadSolutions(path)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Kind != KindSolutions || meta.Count != 2 || len(got) != 2 {
		t.Fatalf("meta %+v, %d rows", meta, len(got))
	}
	g := got[0]
	if g.Cost != 3.5 || g.CostOrig != 350 || !g.Feasible || g.Backtracks != 4 || g.SolveTime != 0.25 || g.Aug != 3 || g.Sample != 1 || len(g.Tour) != 3 || g.Tour[1] != 2 {
		t.Fatalf("row 0 = %+v", g)
	}
	if got[1].Tour != nil || !math.IsInf(got[1].Cost, 1) || got[1].Aug != 7 {
		t.Fatalf("row 1 = %+v", got[1])
	}
	if _, err := OpenInstances(path); err == nil || !strings.Contains(err.Error(), "holds solutions, not instances") {
		t.Fatalf("opening solutions as instances: %v", err)
	}
}

func TestWriterRejectsBadInstanceAndLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.parquet")
	insts, _ := mustGenerate(t, GenConfig{Problem: lazymask.TSPTW, N: 10, Hardness: Easy, Seed: 1}, 3)
	insts[2].Late[4] = math.NaN()
	err := WriteInstances(path, Metadata{}, insts, nil, WriterOptions{})
	if err == nil || !strings.Contains(err.Error(), "row 2") || !strings.Contains(err.Error(), "late") {
		t.Fatalf("error %v should name row 2 and field late", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("%d files left after a failed write", len(ents))
	}
}

// writeRawRows writes instance rows bypassing validation, as another tool might.
func writeRawRows(t *testing.T, path string, rows []instanceRow) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[instanceRow](f, parquet.KeyValueMetadata(KeyKind, KindInstances),
		parquet.KeyValueMetadata(KeyCount, "2"))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestReaderValidatesEveryRow(t *testing.T) {
	insts, _ := mustGenerate(t, GenConfig{Problem: lazymask.TSPDL, N: 8, Hardness: Hard, Seed: 1}, 2)
	cases := []struct {
		field string
		edit  func(r *instanceRow)
	}{
		{"demand", func(r *instanceRow) { r.Demand[3] = -0.5 }},
		{"x", func(r *instanceRow) { r.X[2] = math.Inf(1) }},
		{"draft", func(r *instanceRow) { r.Draft = r.Draft[:5] }},
		{"index", func(r *instanceRow) { r.Index = 7 }},
		{"known_tour", func(r *instanceRow) { r.KnownTour = []int32{0, 1, 1, 2, 3, 4, 5, 6} }},
	}
	for _, tc := range cases {
		path := filepath.Join(t.TempDir(), "raw.parquet")
		rows := []instanceRow{toInstanceRow(0, insts[0].Clone(), nil), toInstanceRow(1, insts[1].Clone(), nil)}
		tc.edit(&rows[1])
		writeRawRows(t, path, rows)
		_, err := ReadInstances(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "row 1") ||
			!strings.Contains(err.Error(), "field "+tc.field) {
			t.Errorf("%s: error %v should name file, row 1 and field", tc.field, err)
		}
	}
	// e > l in a TSPTW row
	tw, _ := mustGenerate(t, GenConfig{Problem: lazymask.TSPTW, N: 8, Hardness: Easy, Seed: 1}, 2)
	rows := []instanceRow{toInstanceRow(0, tw[0], nil), toInstanceRow(1, tw[1].Clone(), nil)}
	rows[1].Early[5] = rows[1].Late[5] + 1
	path := filepath.Join(t.TempDir(), "ebad.parquet")
	writeRawRows(t, path, rows)
	if _, err := ReadInstances(path); err == nil || !strings.Contains(err.Error(), "row 1: field early") {
		t.Errorf("e > l: %v", err)
	}
}

func TestReaderRejectsTruncatedAndForeignFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ok.parquet")
	if _, err := GenerateFile(path, GenConfig{Problem: lazymask.TSPTW, N: 10, Hardness: Easy, Seed: 1}, 50, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	trunc := filepath.Join(dir, "trunc.parquet")
	os.WriteFile(trunc, data[:len(data)/2], 0o644)
	if _, err := ReadInstances(trunc); err == nil || !strings.Contains(err.Error(), trunc) {
		t.Errorf("truncated file: %v", err)
	}
	text := filepath.Join(dir, "text.parquet")
	os.WriteFile(text, []byte("not parquet at all"), 0o644)
	if _, err := ReadInstances(text); err == nil || !strings.Contains(err.Error(), "not a readable parquet file") {
		t.Errorf("text file: %v", err)
	}
	if _, err := ReadInstances(filepath.Join(dir, "missing.parquet")); err == nil || !strings.Contains(err.Error(), "missing.parquet") {
		t.Errorf("missing file: %v", err)
	}
}

func TestAbortLeavesPreviousFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keep.parquet")
	if err := WriteSolutions(path, Metadata{}, []Solution{{Instance: 0, Cost: 1}}, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := CreateSolutions(path, Metadata{}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&Solution{Instance: 5, Cost: 2})
	w.Abort()
	sols, _, err := ReadSolutions(path)
	if err != nil || len(sols) != 1 || sols[0].Cost != 1 {
		t.Fatalf("previous file damaged: %v %v", sols, err)
	}
}
