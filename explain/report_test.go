package explain

import (
	"strings"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// TestReports writes a feasible, an infeasible (irreducible and not) and an
// unknown instance as text and as JSON lines.
func TestReports(t *testing.T) {
	insts := []*lazymask.Instance{{Name: "a"}, {}, {Name: "c"}, {Name: "d"}}
	exs := []Explanation{
		{Status: Feasible, Tour: []int{0, 1, 0}, Elapsed: 250 * time.Millisecond},
		{Status: Infeasible, Conflict: []int{2, 5}, Kind: "pair", Reason: "2 and 5 exclude each other", Irreducible: true, Elapsed: time.Second},
		{Status: Infeasible, Conflict: []int{1, 3, 4}, Reason: "no order fits", Elapsed: 2 * time.Second},
		{Status: Unknown},
	}
	var text strings.Builder
	WriteText(&text, insts, exs, 1500*time.Millisecond, " (unproven)")
	want := "0 a: feasible\n" +
		"1 1: infeasible; conflict 2 5: 2 and 5 exclude each other\n" +
		"2 c: infeasible; conflict 1 3 4: no order fits (unproven)\n" +
		"3 d: unknown\n" +
		"4 instances: 1 feasible, 2 infeasible, 1 unknown (1.50 s)\n"
	if text.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", text.String(), want)
	}
	var js strings.Builder
	if err := WriteJSON(&js, insts, exs); err != nil {
		t.Fatal(err)
	}
	want = `{"index":0,"instance":"a","status":"feasible","conflict":[],"reason":"","irreducible":false,"seconds":0.25}` + "\n" +
		`{"index":1,"instance":"1","status":"infeasible","conflict":[2,5],"reason":"2 and 5 exclude each other","kind":"pair","irreducible":true,"seconds":1}` + "\n" +
		`{"index":2,"instance":"c","status":"infeasible","conflict":[1,3,4],"reason":"no order fits","irreducible":false,"seconds":2}` + "\n" +
		`{"index":3,"instance":"d","status":"unknown","conflict":[],"reason":"","irreducible":false,"seconds":0}` + "\n"
	if js.String() != want {
		t.Errorf("json:\n%s\nwant:\n%s", js.String(), want)
	}
}
