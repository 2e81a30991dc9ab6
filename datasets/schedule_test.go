package datasets

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// scheduleTW is a hand-computed TSPTW instance, scale 4 (every value exact):
// in original units depot (0,0), node 1 at (3,0) with window [5,10] and
// service 2, node 2 at (3,4) with window [0,9] and service 1.
//
//	tour 0 1 2: travel 3, arrive 3, wait 2, start 5, leave 7; travel 4,
//	  arrive 11 > 9 (late 2), leave 12; back after 5 at 17; cost 12.
//	tour 0 2 1: travel 5, arrive 5, leave 6; travel 4, arrive 10 (on
//	  time), leave 12; back after 3 at 15; cost 12, feasible.
func scheduleTW() *lazymask.Instance {
	return &lazymask.Instance{Problem: lazymask.TSPTW, N: 3, Name: "route-7", Scale: 4,
		X: []float64{0, 0.75, 0.75}, Y: []float64{0, 0, 1},
		Early: []float64{0, 1.25, 0}, Late: []float64{25, 2.5, 2.25}, Service: []float64{0, 0.5, 0.25}}
}

// scheduleDL: ports at the same places; demands 2 and 3, limits 5 and 4.
//
//	tour 0 1 2: loads 2 (slack 3), 5 > 4 (slack −1): infeasible.
//	tour 0 2 1: loads 3 (slack 1), 5 (slack 0): feasible; cost 12.
func scheduleDL() *lazymask.Instance {
	return &lazymask.Instance{Problem: lazymask.TSPDL, N: 3, Scale: 4,
		X: []float64{0, 0.75, 0.75}, Y: []float64{0, 0, 1},
		Demand: []float64{0, 2, 3}, Draft: []float64{5, 5, 4}}
}

func exportCSV(t *testing.T, insts []*lazymask.Instance, sols []Solution, all bool) ([][]string, ExportSummary) {
	t.Helper()
	var b bytes.Buffer
	var sum ExportSummary
	if err := WriteSchedules(&b, insts, sols, ExportOptions{Format: ExportCSV, All: all}, &sum); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs, sum
}

// rowsOf returns the records as maps from the header's names.
func rowsOf(recs [][]string) []map[string]string {
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func TestExportTSPTW(t *testing.T) {
	insts := []*lazymask.Instance{scheduleTW(), scheduleTW()}
	insts[1].Name = ""
	sols := []Solution{
		{Instance: 0, Tour: []int{0, 1, 2}, Source: "a"},
		{Instance: 0, Tour: []int{0, 2, 1}, Source: "b"},
		{Instance: 1, Tour: []int{0, 1, 2}, Source: "a"},
	}
	recs, sum := exportCSV(t, insts, sols, false)
	if got := strings.Join(recs[0], ","); got != "instance,node,index,row,source,best,stop,travel,arrival,waiting,start,departure,late,cost,feasible,verdict" {
		t.Fatalf("header %s", got)
	}
	rows := rowsOf(recs)
	if len(rows) != 8 || sum.Instances != 2 || sum.Tours != 2 || sum.Feasible != 1 || sum.Infeasible != 1 || sum.Stops != 8 || sum.Cost != 24 {
		t.Fatalf("%d rows, summary %+v", len(rows), sum)
	}
	want := []string{ // node, stop, travel, arrival, waiting, start, departure, late
		"0 0 0 0 0 0 0 0", "2 1 5 5 0 5 6 0", "1 2 4 10 0 10 12 0", "0 3 3 15    ",
		"0 0 0 0 0 0 0 0", "1 1 3 3 2 5 7 0", "2 2 4 11 0 11 12 2", "0 3 5 17    ",
	}
	for k, r := range rows {
		got := strings.Join([]string{r["node"], r["stop"], r["travel"], r["arrival"], r["waiting"], r["start"], r["departure"], r["late"]}, " ")
		if got != want[k] {
			t.Errorf("row %d: %q, want %q", k, got, want[k])
		}
		if r["cost"] != "12" {
			t.Errorf("row %d: cost %s, want 12", k, r["cost"])
		}
	}
	// Instance 0: the feasible row 1 wins; instance 1 (no name: its index) has only the late tour.
	if r := rows[0]; r["instance"] != "route-7" || r["row"] != "1" || r["source"] != "b" || r["feasible"] != "true" || r["verdict"] != "feasible" {
		t.Errorf("instance 0: %v", r)
	}
	if r := rows[4]; r["instance"] != "1" || r["index"] != "1" || r["row"] != "2" || r["feasible"] != "false" ||
		r["verdict"] != "infeasible: step 2, node 2: arrival 11 after its due time 9" {
		t.Errorf("instance 1: %v", r)
	}
	// --all: both rows of instance 0, flagged.
	recs, sum = exportCSV(t, insts[:1], sols[:2], true)
	rows = rowsOf(recs)
	if len(rows) != 8 || sum.Tours != 2 || sum.Instances != 1 || rows[0]["best"] != "false" || rows[0]["row"] != "0" || rows[4]["best"] != "true" || rows[4]["row"] != "1" {
		t.Fatalf("--all: %v %+v", rows, sum)
	}
}

func TestExportTSPDLAndJSON(t *testing.T) {
	insts := []*lazymask.Instance{scheduleDL(), scheduleDL()}
	sols := []Solution{{Instance: 0, Tour: []int{0, 1, 2}}, {Instance: 0, Tour: []int{0, 2, 1}}}
	recs, sum := exportCSV(t, insts, sols, false)
	rows := rowsOf(recs)
	// Instance 1 has no row: one line saying so.
	if len(rows) != 5 || sum.Feasible != 1 || sum.NoTour != 1 || sum.Tours != 1 {
		t.Fatalf("%d rows, summary %+v", len(rows), sum)
	}
	want := []string{"0 0 0  ", "2 5 3 4 1", "1 4 5 5 0", "0 3 5  "}
	for k, r := range rows[:4] {
		if got := strings.Join([]string{r["node"], r["travel"], r["load"], r["limit"], r["slack"]}, " "); got != want[k] {
			t.Errorf("row %d: %q, want %q", k, got, want[k])
		}
	}
	if r := rows[4]; r["instance"] != "1" || r["node"] != "" || r["row"] != "" || r["verdict"] != "no tour" || r["cost"] != "" {
		t.Errorf("no-tour row %v", r)
	}
	var b bytes.Buffer
	if err := WriteSchedules(&b, insts, sols, ExportOptions{Format: ExportJSON, All: true}, &ExportSummary{}); err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Instance string
		Row      *int64
		Best     bool
		Tour     []int
		Cost     *float64
		Feasible bool
		Verdict  string
		Stops    []map[string]float64
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if len(got) != 3 || got[0].Best || got[0].Feasible || got[0].Verdict != "infeasible: step 2, node 2: load 5 above its draft limit 4" ||
		*got[0].Cost != 12 || got[0].Stops[2]["slack"] != -1 || got[0].Stops[1]["slack"] != 3 {
		t.Fatalf("json %s", b.String())
	}
	if !got[1].Best || !got[1].Feasible || got[1].Tour[1] != 2 || len(got[1].Stops) != 4 || got[2].Row != nil || got[2].Cost != nil || got[2].Verdict != "no tour" {
		t.Fatalf("json %s", b.String())
	}
	if _, ok := got[1].Stops[0]["slack"]; ok {
		t.Errorf("the depot has a slack: %v", got[1].Stops[0])
	}
}

func TestExportFiles(t *testing.T) {
	dir := t.TempDir()
	ip, sp, out := filepath.Join(dir, "i.parquet"), filepath.Join(dir, "s.parquet"), filepath.Join(dir, "s.csv")
	if err := WriteInstances(ip, Metadata{Problem: "tsptw"}, []*lazymask.Instance{scheduleTW()}, nil, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteSolutions(sp, Metadata{}, []Solution{{Instance: 0, Tour: []int{0, 2, 1}}}, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ExportSchedules(ip, sp, sp, ExportOptions{Format: ExportCSV}); err == nil || !strings.Contains(err.Error(), "destroy the input") {
		t.Fatalf("export over its input: %v", err)
	}
	sum, _, err := ExportSchedules(ip, sp, out, ExportOptions{Format: ExportCSV})
	if err != nil || sum.Feasible != 1 || sum.Cost != 12 {
		t.Fatalf("%+v %v", sum, err)
	}
	// A malformed tour: an error naming the file and row, and no output.
	bad := filepath.Join(dir, "bad.parquet")
	WriteSolutions(bad, Metadata{}, []Solution{{Instance: 0, Tour: []int{0, 2, 1}}, {Instance: 0, Tour: []int{0, 1, 1}}}, WriterOptions{})
	out2 := filepath.Join(dir, "bad.csv")
	if _, _, err := ExportSchedules(ip, bad, out2, ExportOptions{Format: ExportCSV}); err == nil || !strings.Contains(err.Error(), bad+": row 1: field tour") {
		t.Fatalf("malformed tour: %v", err)
	}
	if _, err := os.Stat(out2); !os.IsNotExist(err) {
		t.Fatalf("output written: %v", err)
	}
}
