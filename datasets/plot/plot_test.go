package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// svgCounts is what a test reads back from a picture: the number of filled
// paths per fill colour and the text of every <text> element.
type svgCounts struct {
	fills map[string]int
	texts []string
}

// parseSVG parses b as XML (failing the test if it is not well formed) and
// counts filled paths by colour.
func parseSVG(t *testing.T, b []byte) svgCounts {
	t.Helper()
	c := svgCounts{fills: map[string]int{}}
	dec := xml.NewDecoder(bytes.NewReader(b))
	inText := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("picture is not well-formed XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
			if e.Name.Local != "path" {
				continue
			}
			for _, a := range e.Attr {
				if a.Name.Local != "style" {
					continue
				}
				for _, kv := range strings.Split(a.Value, ";") {
					if v, ok := strings.CutPrefix(kv, "fill:"); ok && v != "none" {
						c.fills[v]++
					}
				}
			}
		case xml.CharData:
			if inText {
				c.texts = append(c.texts, string(e))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return c
}

func (c svgCounts) hasText(s string) bool {
	for _, t := range c.texts {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// Fill colours as vgsvg writes them.
const (
	fillNode  = "#1F77B4"
	fillDepot = "#111111"
	fillRed   = "#D62728"
	fillOK    = "#2CA02C"
	fillArrow = "#6E6E6E"
)

func generate(t *testing.T, p lazymask.Problem, n int) (*lazymask.Instance, []int) {
	t.Helper()
	insts, tours, err := datasets.Generate(datasets.GenConfig{Problem: p, N: n, Hardness: datasets.Hard, Seed: 7}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return insts[0], tours[0]
}

// reversed keeps the depot first and reverses the customers; on hard
// instances this breaks constraints.
func reversed(tour []int) []int {
	r := append([]int(nil), tour...)
	for a, b := 1, len(r)-1; a < b; a, b = a+1, b-1 {
		r[a], r[b] = r[b], r[a]
	}
	return r
}

func TestTourSVG(t *testing.T) {
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		inst, known := generate(t, p, 20)
		for _, tc := range []struct {
			name string
			tour []int
		}{{"known", known}, {"reversed", reversed(known)}} {
			t.Run(p.String()+"/"+tc.name, func(t *testing.T) {
				res, _ := lazymask.Check(inst, tc.tour)
				if tc.name == "known" && !res.Feasible || tc.name == "reversed" && res.ViolatedNodes == 0 {
					t.Fatalf("test tour: feasible %v, %d violated nodes", res.Feasible, res.ViolatedNodes)
				}
				var b bytes.Buffer
				if err := TourSVG(&b, inst, tc.tour, "my title"); err != nil {
					t.Fatal(err)
				}
				c := parseSVG(t, b.Bytes())
				v := res.ViolatedNodes
				// Map: one marker per node (depot square, red for violated);
				// schedule: one dot per visit, red when violated.
				if c.fills[fillDepot] != 1 || c.fills[fillNode] != inst.N-1-v || c.fills[fillOK] != inst.N-1-v {
					t.Errorf("markers: %v, want depot 1, nodes %d, on-time %d", c.fills, inst.N-1-v, inst.N-1-v)
				}
				if c.fills[fillRed] != 2*v {
					t.Errorf("red markers %d, want %d (2 × %d violated nodes)", c.fills[fillRed], 2*v, v)
				}
				if c.fills[fillArrow] != inst.N {
					t.Errorf("arrowheads %d, want one per edge (%d)", c.fills[fillArrow], inst.N)
				}
				cost := fmt.Sprintf("cost %.4f (×%g = %.2f)", res.Cost, inst.Scale, res.Cost*inst.Scale)
				if inst.Scale == 1 { // TSPDL: normalised by the demand sum, lengths as they are
					cost = fmt.Sprintf("cost %.4f", res.Cost)
				}
				verdict := "feasible"
				if v > 0 {
					verdict = fmt.Sprintf("infeasible: %d violated nodes", v)
				}
				want := fmt.Sprintf("%s N=20 · %s · %s", strings.ToUpper(p.String()), cost, verdict)
				if !c.hasText("my title") || !c.hasText(want) {
					t.Errorf("header lacks %q or the title; texts %q", want, c.texts[:2])
				}
				// Visit-order labels 0..N-1 on the map.
				if !c.hasText("19") {
					t.Errorf("no visit position label 19")
				}
				got, err := Verdict(inst, tc.tour)
				if err != nil || !strings.Contains(got, want) {
					t.Errorf("Verdict = %q, %v; want %q", got, err, want)
				}
			})
		}
	}
}

func TestTourSVGWithoutTour(t *testing.T) {
	inst, _ := generate(t, lazymask.TSPTW, 12)
	var b bytes.Buffer
	if err := TourSVG(&b, inst, nil, ""); err != nil {
		t.Fatal(err)
	}
	c := parseSVG(t, b.Bytes())
	if c.fills[fillDepot] != 1 || c.fills[fillNode] != 11 || c.fills[fillRed] != 0 || c.fills[fillArrow] != 0 || c.fills[fillOK] != 0 {
		t.Errorf("markers %v: want the 12 nodes only", c.fills)
	}
	if !c.hasText("TSPTW N=12 · no tour") || !c.hasText(inst.Name) {
		t.Errorf("header %q", c.texts[:2])
	}
}

func TestTourSVGErrors(t *testing.T) {
	inst, known := generate(t, lazymask.TSPTW, 8)
	dir := t.TempDir()
	out := filepath.Join(dir, "tour.svg")
	bad := append([]int(nil), known...)
	bad[3] = bad[2]
	var b bytes.Buffer
	if err := TourSVG(&b, inst, bad, ""); err == nil || !strings.Contains(err.Error(), "visited twice") || b.Len() != 0 {
		t.Errorf("duplicate node: err %v, %d bytes written", err, b.Len())
	}
	if err := WriteTourSVG(out, inst, known[:5], ""); err == nil || !strings.Contains(err.Error(), "5 nodes") {
		t.Errorf("short tour: %v", err)
	}
	broken := inst.Clone()
	broken.Early[2] = broken.Late[2] + 1
	if err := WriteTourSVG(out, broken, known, ""); err == nil || !strings.Contains(err.Error(), "node 2") {
		t.Errorf("invalid instance: %v", err)
	}
	if err := WriteTourSVG(filepath.Join(dir, "missing", "t.svg"), inst, known, ""); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left behind: %v", ents)
	}
	if err := WriteTourSVG(out, inst, known, "ok"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if c := parseSVG(t, data); c.fills[fillArrow] != 8 {
		t.Errorf("written picture has %d arrowheads, want 8", c.fills[fillArrow])
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries after one write, want 1", len(ents))
	}
}

// TestTourSVGTiny draws a two-node instance twice: the pictures are equal
// byte for byte and the late arrival is red on both panels.
func TestTourSVGTiny(t *testing.T) {
	inst := &lazymask.Instance{Problem: lazymask.TSPTW, N: 2, Scale: 10, X: []float64{0, 3}, Y: []float64{0, 4},
		Early: []float64{0, 0}, Late: []float64{20, 4}, Service: []float64{0, 0}}
	var a, b bytes.Buffer
	if err := TourSVG(&a, inst, []int{0, 1}, "tiny"); err != nil {
		t.Fatal(err)
	}
	if err := TourSVG(&b, inst, []int{0, 1}, "tiny"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renderings differ")
	}
	c := parseSVG(t, a.Bytes())
	want := "TSPTW N=2 · cost 10.0000 (×10 = 100.00) · infeasible: 1 violated nodes, total violation 1"
	if c.fills[fillRed] != 2 || c.fills[fillDepot] != 1 || !c.hasText(want) || !c.hasText("arrival 5 > limit 4") {
		t.Errorf("fills %v, texts %q; want 2 red and %q", c.fills, c.texts[:3], want)
	}
}
