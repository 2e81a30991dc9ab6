package explain

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// Line is one instance of a JSON report, an object a line.
type Line struct {
	Index       int     `json:"index"`
	Instance    string  `json:"instance"`
	Status      string  `json:"status"`
	Conflict    []int   `json:"conflict"`
	Reason      string  `json:"reason"`
	Kind        string  `json:"kind,omitempty"`
	Irreducible bool    `json:"irreducible"`
	Seconds     float64 `json:"seconds"`
}

// InstanceName is the name a report gives instance i: its name, or its
// index where it has none.
func InstanceName(i int, name string) string {
	if name == "" {
		return strconv.Itoa(i)
	}
	return name
}

// NewLine is the JSON line of ex, the explanation of instance i named name
// (InstanceName); a missing conflict is an empty list.
func NewLine(i int, name string, ex Explanation) Line {
	conflict := ex.Conflict
	if conflict == nil {
		conflict = []int{}
	}
	return Line{Index: i, Instance: InstanceName(i, name), Status: string(ex.Status), Conflict: conflict, Reason: ex.Reason,
		Kind: ex.Kind, Irreducible: ex.Irreducible, Seconds: ex.Elapsed.Seconds()}
}

// WriteJSON writes one JSON object (Line) a line for each explanation,
// exs[i] that of insts[i].
func WriteJSON(w io.Writer, insts []*lazymask.Instance, exs []Explanation) error {
	for i, ex := range exs {
		b, err := json.Marshal(NewLine(i, insts[i].Name, ex))
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
	}
	return nil
}

// TextLine is the one-line text of ex, the explanation of instance i named
// name: "I NAME: STATUS", and for an infeasible instance its conflict and
// reason, followed by unproven where the conflict was not shown
// irreducible.
func TextLine(i int, name string, ex Explanation, unproven string) string {
	line := fmt.Sprintf("%d %s: %s", i, InstanceName(i, name), ex.Status)
	if ex.Status == Infeasible {
		ids := make([]string, len(ex.Conflict))
		for k, v := range ex.Conflict {
			ids[k] = strconv.Itoa(v)
		}
		line += fmt.Sprintf("; conflict %s: %s", strings.Join(ids, " "), ex.Reason)
		if !ex.Irreducible {
			line += unproven
		}
	}
	return line
}

// WriteText writes TextLine for each explanation (exs[i], that of
// insts[i]) and a last line counting the statuses, with elapsed, the time
// all took.
func WriteText(w io.Writer, insts []*lazymask.Instance, exs []Explanation, elapsed time.Duration, unproven string) {
	count := map[Status]int{}
	for i, ex := range exs {
		count[ex.Status]++
		fmt.Fprintln(w, TextLine(i, insts[i].Name, ex, unproven))
	}
	fmt.Fprintf(w, "%d instances: %d feasible, %d infeasible, %d unknown (%.2f s)\n", len(exs), count[Feasible],
		count[Infeasible], count[Unknown], elapsed.Seconds())
}
