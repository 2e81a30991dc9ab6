package main

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// svgSummary parses an SVG file (failing on malformed XML) and returns its
// text and the number of paths filled with red (#D62728), the colour of
// violated nodes.
func svgSummary(t *testing.T, path string) (string, int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	var text strings.Builder
	red := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", path, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			for _, a := range e.Attr {
				if e.Name.Local == "path" && a.Name.Local == "style" && strings.Contains(a.Value, "fill:#D62728") {
					red++
				}
			}
		case xml.CharData:
			text.Write(e)
			text.WriteByte('\n')
		}
	}
	return text.String(), red
}

func TestPlot(t *testing.T) {
	dir := t.TempDir()
	ip := filepath.Join(dir, "i.parquet")
	if out, err := runCLI(t, "generate", "--problem", "tsptw", "--size", "15", "--hardness", "hard", "--count", "4", "--seed", "9", "--out", ip); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	d, err := datasets.ReadInstances(ip)
	if err != nil {
		t.Fatal(err)
	}
	// Row 0: instance 2's known tour; row 1: instance 2's known tour reversed
	// (infeasible); row 2: no tour for instance 3.
	known := d.KnownTours[2]
	rev := append([]int{0}, known[1:]...)
	for a, b := 1, len(rev)-1; a < b; a, b = a+1, b-1 {
		rev[a], rev[b] = rev[b], rev[a]
	}
	var sols []datasets.Solution
	for _, tour := range [][]int{known, rev} {
		s, err := datasets.Checked(d.Instances[2], 2, tour, "test")
		if err != nil {
			t.Fatal(err)
		}
		sols = append(sols, s)
	}
	sols = append(sols, datasets.Solution{Instance: 3, Cost: math.Inf(1), Source: "lmask"})
	sp := filepath.Join(dir, "s.parquet")
	if err := datasets.WriteSolutions(sp, datasets.Metadata{}, sols, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	inst := d.Instances[2]
	for _, tc := range []struct {
		args  []string
		tour  []int
		title string
	}{
		{[]string{"--solutions", sp, "--index", "1"}, rev, "s.parquet row 1"},
		{[]string{"--solutions", sp}, known, "s.parquet row 0"},
		{[]string{"--index", "2"}, known, "known tour"},
	} {
		out := filepath.Join(dir, "t.svg")
		msg, err := runCLI(t, append([]string{"plot", "--instances", ip, "--out", out}, tc.args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, msg)
		}
		res, _ := lazymask.Check(inst, tc.tour)
		cost := fmt.Sprintf("cost %.4f (×100 = %.2f)", res.Cost, res.Cost*100)
		text, red := svgSummary(t, out)
		if !strings.Contains(text, "TSPTW N=15 · "+cost) || !strings.Contains(text, tc.title) || !strings.Contains(msg, cost) {
			t.Errorf("%v: picture text lacks %q or %q:\n%s\nstdout %s", tc.args, cost, tc.title, text, msg)
		}
		if red != 2*res.ViolatedNodes || (tc.tour[1] == rev[1]) != (res.ViolatedNodes > 0) {
			t.Errorf("%v: %d red markers, want 2 × %d violated nodes", tc.args, red, res.ViolatedNodes)
		}
		os.Remove(out)
	}
	out := filepath.Join(dir, "none.svg")
	if msg, err := runCLI(t, "plot", "--instances", ip, "--solutions", sp, "--index", "2", "--out", out); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	if text, red := svgSummary(t, out); !strings.Contains(text, "no tour") || red != 0 {
		t.Errorf("tourless row: %d red, text:\n%s", red, text)
	}
	os.Remove(out)

	// Bad input: an error naming file, row and value; no picture.
	bad := filepath.Join(dir, "bad.svg")
	expectFailure(t, bad, []string{"nope.parquet"}, "plot", "--instances", filepath.Join(dir, "nope.parquet"), "--out", bad)
	expectFailure(t, bad, []string{sp + ": --index 7: row out of range [0,3)"}, "plot", "--instances", ip, "--solutions", sp, "--index", "7", "--out", bad)
	expectFailure(t, bad, []string{ip + ": --index 4: row out of range [0,4)"}, "plot", "--instances", ip, "--index", "4", "--out", bad)
	expectFailure(t, bad, []string{"--index", "-1"}, "plot", "--instances", ip, "--index", "-1", "--out", bad)
	sols = []datasets.Solution{{Instance: 9, Tour: known, Cost: 1}, {Instance: 1, Tour: known[:5], Cost: 1}}
	if err := datasets.WriteSolutions(sp, datasets.Metadata{}, sols, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	expectFailure(t, bad, []string{sp, "row 0", "instance", "9", "size mismatch"}, "plot", "--instances", ip, "--solutions", sp, "--out", bad)
	expectFailure(t, bad, []string{sp, "row 1", "field tour", "5 nodes"}, "plot", "--instances", ip, "--solutions", sp, "--index", "1", "--out", bad)
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("directory holds %d entries, want the 2 parquet files", len(ents))
	}
}
