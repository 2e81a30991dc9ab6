package datasets

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/lmask/lmask/lazymask"
)

// FormatCSV is the stops CSV of ImportCSV: one row per node.
const FormatCSV = "csv"

// maxCSVNodes bounds the rows of one CSV instance (a times file needs n²
// values in memory).
const maxCSVNodes = maxTextNodes

// csvGroupValues bounds the float values of one row group of an imported
// file (32 MiB), so that memory stays flat with large instances or matrices.
const csvGroupValues = 1 << 22

// CSVOptions tunes ReadCSV and ImportCSV.
type CSVOptions struct {
	// Problem is "tsptw", "tspdl" or "" (inferred from the header).
	Problem string
	// Scale divides every coordinate, time and travel time. 0 (auto): per
	// instance the smallest power of two at least the larger extent of its
	// coordinates, after shifting them to a minimum of 0 (so the
	// coordinates the network sees lie in [0,1] and times × Scale give
	// back the file's values exactly).
	Scale float64
	// RowGroupRows is the instances per Parquet row group (0: as many as
	// keep a group near csvGroupValues values).
	RowGroupRows int
}

// CSVError is a bad value of a CSV file: the file, the line (the header is
// line 1), the column and the value as written.
type CSVError struct {
	File   string
	Line   int
	Column string // "" when the row as a whole is at fault
	Value  string
	HasVal bool // Value was read (it may be empty)
	Msg    string
}

// Error reads `FILE: line L: column C: value "V": message`.
func (e *CSVError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: line %d: ", e.File, e.Line)
	if e.Column != "" {
		fmt.Fprintf(&b, "column %s: ", e.Column)
	}
	if e.HasVal {
		fmt.Fprintf(&b, "value %q: ", e.Value)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// The stops file's columns.
const (
	colInstance = "instance"
	colNode     = "node"
	colX        = "x"
	colY        = "y"
	colReady    = "ready"
	colDue      = "due"
	colService  = "service"
	colDemand   = "demand"
	colDraft    = "draft"
)

var csvColumnsHelp = "instance, node, x, y, then ready, due[, service] (tsptw) or demand, draft (tspdl)"

// CSVReader reads instances from a stops CSV (and optionally its travel-time
// CSV) one at a time, holding one instance in memory.
type CSVReader struct {
	csvRows        // next: the first row of the next instance
	idx     [6]int // positions of node, x, y and the problem's three columns (-1: absent)
	problem lazymask.Problem
	opt     CSVOptions
	times   *timesReader

	done bool
	seen map[string]int // instance id → its first line
	buf  stopRows
}

// csvRows reads a CSV file one row ahead: next is the row to come (nil at
// the end), nextLine its line.
type csvRows struct {
	file     string
	r        *csv.Reader
	col      map[string]int
	width    int
	next     []string
	nextLine int
}

// stopRows are one instance's parsed rows in file order.
type stopRows struct {
	line       []int
	node       []int
	x, y, a, b []float64 // a, b, c: ready, due, service or demand, draft
	c          []float64
}

func (s *stopRows) reset() {
	s.line, s.node = s.line[:0], s.node[:0]
	s.x, s.y, s.a, s.b, s.c = s.x[:0], s.y[:0], s.a[:0], s.b[:0], s.c[:0]
}

// ReadCSV starts reading the stops CSV r (named file in errors) and, when
// times is not nil, its travel-time CSV (named timesFile). Both files list
// each instance's rows contiguously and the instances in the same order.
func ReadCSV(r io.Reader, file string, times io.Reader, timesFile string, opt CSVOptions) (*CSVReader, error) {
	if opt.Scale < 0 || math.IsNaN(opt.Scale) || math.IsInf(opt.Scale, 0) {
		return nil, fmt.Errorf("%s: scale %v: want a positive finite number (0 = auto)", file, opt.Scale)
	}
	cr := &CSVReader{csvRows: csvRows{file: file, r: newCSV(r)}, opt: opt, seen: map[string]int{}}
	head, err := cr.r.Read()
	if errors.Is(err, io.EOF) {
		return nil, &CSVError{File: file, Line: 1, Msg: "empty file: want a header " + csvColumnsHelp}
	}
	if err != nil {
		return nil, csvReadError(file, err)
	}
	if cr.col, err = header(file, head, []string{colInstance, colNode, colX, colY, colReady, colDue, colService, colDemand, colDraft}); err != nil {
		return nil, err
	}
	cr.width = len(head)
	has := func(c string) bool { _, ok := cr.col[c]; return ok }
	for _, c := range []string{colInstance, colNode, colX, colY} {
		if !has(c) {
			return nil, &CSVError{File: file, Line: 1, Column: c, Msg: "missing column (want " + csvColumnsHelp + ")"}
		}
	}
	tw, dl := has(colReady) || has(colDue) || has(colService), has(colDemand) || has(colDraft)
	switch {
	case tw && dl:
		return nil, &CSVError{File: file, Line: 1, Msg: "header mixes tsptw columns (ready, due, service) with tspdl ones (demand, draft)"}
	case !tw && !dl:
		return nil, &CSVError{File: file, Line: 1, Msg: "header has neither ready, due (tsptw) nor demand, draft (tspdl)"}
	case tw:
		cr.problem = lazymask.TSPTW
		for _, c := range []string{colReady, colDue} {
			if !has(c) {
				return nil, &CSVError{File: file, Line: 1, Column: c, Msg: "missing column (a tsptw file needs ready and due)"}
			}
		}
	default:
		cr.problem = lazymask.TSPDL
		for _, c := range []string{colDemand, colDraft} {
			if !has(c) {
				return nil, &CSVError{File: file, Line: 1, Column: c, Msg: "missing column (a tspdl file needs demand and draft)"}
			}
		}
	}
	cr.idx = [6]int{cr.col[colNode], cr.col[colX], cr.col[colY], -1, -1, -1}
	vc := cr.valueColumns()
	for k, c := range vc[2:] {
		if i, ok := cr.col[c]; ok && c != "" {
			cr.idx[3+k] = i
		}
	}
	if opt.Problem != "" {
		p, err := lazymask.ParseProblem(opt.Problem)
		if err != nil {
			return nil, err
		}
		if p != cr.problem {
			return nil, &CSVError{File: file, Line: 1, Msg: fmt.Sprintf("the header's columns are those of %s, not of the requested %s", cr.problem, p)}
		}
	}
	if times != nil {
		if cr.times, err = newTimesReader(times, timesFile); err != nil {
			return nil, err
		}
	}
	return cr, cr.advance()
}

// Problem is the problem the header names.
func (cr *CSVReader) Problem() lazymask.Problem { return cr.problem }

func newCSV(r io.Reader) *csv.Reader {
	c := csv.NewReader(r)
	c.FieldsPerRecord = -1 // ragged rows get our own error, naming the column
	c.ReuseRecord = true
	c.TrimLeadingSpace = true
	return c
}

// header maps column names (trimmed, lower case) to positions; an unknown
// or repeated name is an error.
func header(file string, head []string, known []string) (map[string]int, error) {
	col := map[string]int{}
	for i, h := range head {
		name := strings.ToLower(strings.TrimSpace(h))
		if i == 0 {
			name = strings.TrimPrefix(name, "\ufeff") // a byte-order mark
		}
		ok := false
		for _, k := range known {
			ok = ok || k == name
		}
		if !ok {
			return nil, &CSVError{File: file, Line: 1, Column: fmt.Sprint(i + 1), Value: h, HasVal: true,
				Msg: "unknown column (want " + strings.Join(known, ", ") + ")"}
		}
		if _, dup := col[name]; dup {
			return nil, &CSVError{File: file, Line: 1, Column: name, Msg: "column named twice"}
		}
		col[name] = i
	}
	return col, nil
}

// csvReadError turns encoding/csv's parse errors into CSVErrors.
func csvReadError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &CSVError{File: file, Line: pe.Line, Msg: fmt.Sprintf("byte %d of the row: %v", pe.Column, pe.Err)}
	}
	return fmt.Errorf("%s: %w", file, err)
}

// advance reads the next row into next (nil at the end), skipping blank
// lines; a row of another width than the header's is an error.
func (c *csvRows) advance() error {
	for {
		rec, err := c.r.Read()
		if errors.Is(err, io.EOF) {
			c.next = nil
			return nil
		}
		if err != nil {
			return csvReadError(c.file, err)
		}
		line, _ := c.r.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != c.width {
			return raggedError(c.file, line, rec, c.width, c.col)
		}
		c.next = append(c.next[:0], rec...)
		c.nextLine = line
		return nil
	}
}

// raggedError names the first missing or extra column of a row with the
// wrong number of fields.
func raggedError(file string, line int, rec []string, width int, col map[string]int) error {
	if len(rec) > width {
		return &CSVError{File: file, Line: line, Column: fmt.Sprint(width + 1), Value: rec[width], HasVal: true,
			Msg: fmt.Sprintf("the row has %d fields, the header %d", len(rec), width)}
	}
	name := fmt.Sprint(len(rec) + 1)
	for c, i := range col {
		if i == len(rec) {
			name = c
		}
	}
	return &CSVError{File: file, Line: line, Column: name,
		Msg: fmt.Sprintf("missing: the row has %d fields, the header %d", len(rec), width)}
}

// Next returns the next instance, or io.EOF after the last one.
func (cr *CSVReader) Next() (*lazymask.Instance, error) {
	if cr.done {
		return nil, io.EOF
	}
	if cr.next == nil {
		cr.done = true
		if cr.times != nil {
			if err := cr.times.finish(); err != nil {
				return nil, err
			}
		}
		if len(cr.seen) == 0 {
			return nil, &CSVError{File: cr.file, Line: 2, Msg: "no rows after the header"}
		}
		return nil, io.EOF
	}
	ic := cr.col[colInstance]
	id, first := strings.TrimSpace(cr.next[ic]), cr.nextLine
	if id == "" {
		return nil, &CSVError{File: cr.file, Line: first, Column: colInstance, Value: cr.next[ic], HasVal: true, Msg: "empty instance id"}
	}
	if at, ok := cr.seen[id]; ok {
		return nil, &CSVError{File: cr.file, Line: first, Column: colInstance, Value: id, HasVal: true,
			Msg: fmt.Sprintf("instance appears again (its rows began at line %d): each instance's rows must be contiguous", at)}
	}
	cr.seen[id] = first
	cr.buf.reset()
	last := first
	for cr.next != nil && strings.TrimSpace(cr.next[ic]) == id {
		if len(cr.buf.node) == maxCSVNodes {
			return nil, &CSVError{File: cr.file, Line: cr.nextLine, Column: colInstance, Value: id, HasVal: true,
				Msg: fmt.Sprintf("instance has more than %d rows", maxCSVNodes)}
		}
		if err := cr.parseRow(cr.next, cr.nextLine); err != nil {
			return nil, err
		}
		last = cr.nextLine
		if err := cr.advance(); err != nil {
			return nil, err
		}
	}
	return cr.build(id, first, last)
}

// valueColumns names the five value columns in the order parseRow
// stores them ("" for none).
func (cr *CSVReader) valueColumns() [5]string {
	if cr.problem == lazymask.TSPDL {
		return [5]string{colX, colY, colDemand, colDraft, ""}
	}
	return [5]string{colX, colY, colReady, colDue, colService}
}

// parseRow appends one row's values to cr.buf.
func (cr *CSVReader) parseRow(rec []string, line int) error {
	b := &cr.buf
	ns := rec[cr.idx[0]]
	node, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil {
		return &CSVError{File: cr.file, Line: line, Column: colNode, Value: ns, HasVal: true, Msg: "not an integer node number"}
	}
	var v [5]float64
	cols := cr.valueColumns()
	for k, i := range cr.idx[1:] {
		if i < 0 {
			continue // an absent service column: no service time
		}
		if v[k], err = parseCSVFloat(cr.file, line, cols[k], rec[i], k >= 2); err != nil {
			return err
		}
	}
	if cr.problem == lazymask.TSPTW && v[3] < v[2] {
		return &CSVError{File: cr.file, Line: line, Column: colDue, Value: rec[cr.idx[4]], HasVal: true,
			Msg: fmt.Sprintf("window end %v is before its start (ready %v)", v[3], v[2])}
	}
	if node == 0 {
		if err := cr.checkDepot(rec, line, v); err != nil {
			return err
		}
	}
	b.line, b.node = append(b.line, line), append(b.node, node)
	b.x, b.y, b.a, b.b, b.c = append(b.x, v[0]), append(b.y, v[1]), append(b.a, v[2]), append(b.b, v[3]), append(b.c, v[4])
	return nil
}

// checkDepot refuses depot values the checker would ignore: a route starts
// at the depot at time 0 with load 0.
func (cr *CSVReader) checkDepot(rec []string, line int, v [5]float64) error {
	bad := func(c, msg string) error {
		return &CSVError{File: cr.file, Line: line, Column: c, Value: rec[cr.col[c]], HasVal: true, Msg: msg}
	}
	switch {
	case cr.problem == lazymask.TSPTW && v[2] != 0:
		return bad(colReady, "the depot (node 0) must open at 0: routes start there at time 0; subtract the depot's ready time from every time of the instance")
	case cr.problem == lazymask.TSPTW && v[4] != 0:
		return bad(colService, "the depot (node 0) has no service time: routes start there at time 0")
	case cr.problem == lazymask.TSPDL && v[2] != 0:
		return bad(colDemand, "the depot (node 0) has no demand: the load is counted from 0 at the depot")
	}
	return nil
}

// parseCSVFloat parses a finite number (non-negative when nonNeg).
func parseCSVFloat(file string, line int, col, s string, nonNeg bool) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, &CSVError{File: file, Line: line, Column: col, Value: s, HasVal: true, Msg: "not a number"}
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, &CSVError{File: file, Line: line, Column: col, Value: s, HasVal: true, Msg: "not a finite number"}
	case nonNeg && v < 0:
		return 0, &CSVError{File: file, Line: line, Column: col, Value: s, HasVal: true, Msg: "negative"}
	}
	return v, nil
}

// build places one instance's rows by node number and normalises them.
func (cr *CSVReader) build(id string, first, last int) (*lazymask.Instance, error) {
	b := &cr.buf
	n := len(b.node)
	fail := func(line int, val, msg string) error {
		return &CSVError{File: cr.file, Line: line, Column: colNode, Value: val, HasVal: val != "", Msg: msg}
	}
	depot := -1
	for k, v := range b.node {
		if v == 0 {
			depot = k
			break
		}
	}
	if depot < 0 {
		return nil, fail(first, "", fmt.Sprintf("instance %q (lines %d-%d) has no depot (node 0)", id, first, last))
	}
	if n < 2 {
		return nil, fail(first, "", fmt.Sprintf("instance %q has only the depot: it needs at least one other node", id))
	}
	at := make([]int, n) // row of each node + 1
	for k, v := range b.node {
		if v < 0 || v >= n {
			return nil, fail(b.line[k], strconv.Itoa(v), fmt.Sprintf("node %d outside 0..%d: instance %q has %d rows, so its nodes are 0..%d", v, n-1, id, n, n-1))
		}
		if at[v] != 0 {
			return nil, fail(b.line[k], strconv.Itoa(v), fmt.Sprintf("node %d of instance %q appears twice (lines %d and %d)", v, id, b.line[at[v]-1], b.line[k]))
		}
		at[v] = k + 1
	}
	in := &lazymask.Instance{Problem: cr.problem, N: n, Name: id, X: make([]float64, n), Y: make([]float64, n)}
	a, bb := make([]float64, n), make([]float64, n)
	var c []float64
	if cr.problem == lazymask.TSPTW {
		c = make([]float64, n)
	}
	for k, v := range b.node {
		in.X[v], in.Y[v], a[v], bb[v] = b.x[k], b.y[k], b.a[k], b.b[k]
		if c != nil {
			c[v] = b.c[k]
		}
	}
	s, dx, dy := cr.opt.Scale, 0.0, 0.0
	if s == 0 {
		var ext float64
		if s, dx, dy, ext = autoScale(in.X, in.Y); s == 0 {
			return nil, &CSVError{File: cr.file, Line: first, Column: colX, Msg: fmt.Sprintf("all nodes of instance %q are at one point (extent %v): no scale to infer; give one", id, ext)}
		}
	}
	in.Scale = s
	for i := range in.X {
		in.X[i], in.Y[i] = (in.X[i]-dx)/s, (in.Y[i]-dy)/s
	}
	if cr.problem == lazymask.TSPTW {
		for i := range a {
			a[i], bb[i], c[i] = a[i]/s, bb[i]/s, c[i]/s
		}
		in.Early, in.Late, in.Service = a, bb, c
	} else {
		in.Demand, in.Draft = a, bb // load units are kept: the features divide by Σd
	}
	if cr.times != nil {
		m, err := cr.times.matrix(id, first, n)
		if err != nil {
			return nil, err
		}
		for i := range m {
			m[i] /= s
		}
		in.Dist = m
	}
	if err := in.Validate(); err != nil {
		return nil, &CSVError{File: cr.file, Line: first, Column: colInstance, Value: id, HasVal: true, Msg: err.Error()}
	}
	return in, nil
}

// autoScale returns the smallest power of two at least the larger extent of
// the coordinates, their minima (the shift) and the extent; s = 0 when the
// extent is 0. A power of two divides and multiplies back exactly.
func autoScale(x, y []float64) (s, minX, minY, ext float64) {
	minX, maxX, minY, maxY := x[0], x[0], y[0], y[0]
	for i := range x {
		minX, maxX = math.Min(minX, x[i]), math.Max(maxX, x[i])
		minY, maxY = math.Min(minY, y[i]), math.Max(maxY, y[i])
	}
	ext = math.Max(maxX-minX, maxY-minY)
	if !(ext > 0) || math.IsInf(ext, 0) {
		return 0, 0, 0, ext
	}
	frac, exp := math.Frexp(ext)
	if frac == 0.5 {
		return ext, minX, minY, ext
	}
	return math.Ldexp(1, exp), minX, minY, ext
}

// timesReader reads a travel-time CSV (instance, from, to, time) in step
// with the stops file.
type timesReader struct {
	csvRows
	lastLine int
}

func newTimesReader(r io.Reader, file string) (*timesReader, error) {
	t := &timesReader{csvRows: csvRows{file: file, r: newCSV(r)}}
	head, err := t.r.Read()
	if errors.Is(err, io.EOF) {
		return nil, &CSVError{File: file, Line: 1, Msg: "empty file: want a header instance, from, to, time"}
	}
	if err != nil {
		return nil, csvReadError(file, err)
	}
	if t.col, err = header(file, head, []string{colInstance, "from", "to", "time"}); err != nil {
		return nil, err
	}
	for _, c := range []string{colInstance, "from", "to", "time"} {
		if _, ok := t.col[c]; !ok {
			return nil, &CSVError{File: file, Line: 1, Column: c, Msg: "missing column (want instance, from, to, time)"}
		}
	}
	t.width = len(head)
	t.lastLine = 1
	return t, t.advance()
}

// matrix reads the rows of instance id (of n nodes, whose stops begin at
// line stopsLine) into an n×n matrix: every ordered pair of distinct
// nodes once; a row from a node to itself must say 0.
func (t *timesReader) matrix(id string, stopsLine, n int) ([]float64, error) {
	ic := t.col[colInstance]
	if t.next == nil {
		return nil, &CSVError{File: t.file, Line: t.lastLine + 1, Column: colInstance,
			Msg: fmt.Sprintf("the file ends before the travel times of instance %q (stops file line %d)", id, stopsLine)}
	}
	if got := strings.TrimSpace(t.next[ic]); got != id {
		return nil, &CSVError{File: t.file, Line: t.nextLine, Column: colInstance, Value: got, HasVal: true,
			Msg: fmt.Sprintf("the travel times of instance %q (stops file line %d) come next: both files must list the instances in the same order", id, stopsLine)}
	}
	m := make([]float64, n*n)
	for i := range m {
		m[i] = -1 // not given yet
	}
	for i := 0; i < n; i++ {
		m[i*n+i] = 0
	}
	given := make([]bool, n*n)
	for t.next != nil && strings.TrimSpace(t.next[ic]) == id {
		rec, line := t.next, t.nextLine
		var ends [2]int
		for k, c := range []string{"from", "to"} {
			s := rec[t.col[c]]
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return nil, &CSVError{File: t.file, Line: line, Column: c, Value: s, HasVal: true, Msg: "not an integer node number"}
			}
			if v < 0 || v >= n {
				return nil, &CSVError{File: t.file, Line: line, Column: c, Value: s, HasVal: true,
					Msg: fmt.Sprintf("unknown node: instance %q has nodes 0..%d", id, n-1)}
			}
			ends[k] = v
		}
		ts := rec[t.col["time"]]
		v, err := parseCSVFloat(t.file, line, "time", ts, true)
		if err != nil {
			return nil, err
		}
		i, j := ends[0], ends[1]
		switch {
		case given[i*n+j]:
			return nil, &CSVError{File: t.file, Line: line, Column: "to", Value: rec[t.col["to"]], HasVal: true,
				Msg: fmt.Sprintf("a second travel time from node %d to node %d of instance %q", i, j, id)}
		case i == j && v != 0:
			return nil, &CSVError{File: t.file, Line: line, Column: "time", Value: ts, HasVal: true,
				Msg: fmt.Sprintf("the time from node %d to itself must be 0", i)}
		}
		given[i*n+j] = true
		m[i*n+j] = v
		t.lastLine = line
		if err := t.advance(); err != nil {
			return nil, err
		}
	}
	for k, v := range m {
		if v < 0 {
			return nil, &CSVError{File: t.file, Line: t.lastLine, Column: "time",
				Msg: fmt.Sprintf("no travel time from node %d to node %d of instance %q (its rows end here): every ordered pair of distinct nodes needs one", k/n, k%n, id)}
		}
	}
	return m, nil
}

// finish fails when rows are left after the stops file's last instance.
func (t *timesReader) finish() error {
	if t.next == nil {
		return nil
	}
	id := strings.TrimSpace(t.next[t.col[colInstance]])
	return &CSVError{File: t.file, Line: t.nextLine, Column: colInstance, Value: id, HasVal: true,
		Msg: "travel times of an instance that the stops file does not have (after its last instance)"}
}

// CSVSummary describes an ImportCSV run.
type CSVSummary struct {
	Problem      lazymask.Problem
	Instances    int64
	MinN, MaxN   int
	Scale        float64 // common scale, 0 when it varies
	HasTimes     bool
	RowGroupRows int
}

// ImportCSV converts the stops CSV at path (with the travel-time CSV
// timesPath, or Euclidean distances when empty) into an instances file at
// out, streaming: it holds one instance and one row group in memory, and
// writes nothing unless every row is good.
func ImportCSV(path, timesPath, out string, opt CSVOptions) (CSVSummary, error) {
	var sum CSVSummary
	f, err := os.Open(path)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	var times io.Reader
	if timesPath != "" {
		tf, err := os.Open(timesPath)
		if err != nil {
			return sum, err
		}
		defer tf.Close()
		times = tf
	}
	cr, err := ReadCSV(f, path, times, timesPath, opt)
	if err != nil {
		return sum, err
	}
	sum.Problem, sum.HasTimes = cr.Problem(), times != nil
	var w *InstanceWriter
	defer func() {
		if w != nil && err != nil {
			w.Abort()
		}
	}()
	scale := -1.0
	for {
		var in *lazymask.Instance
		in, err = cr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sum, err
		}
		if w == nil {
			sum.RowGroupRows = opt.RowGroupRows
			if sum.RowGroupRows <= 0 {
				per := 3 * in.N // x, y and the problem's columns
				if in.Dist != nil {
					per += in.N * in.N
				}
				sum.RowGroupRows = max(1, min(DefaultRowGroupRows, csvGroupValues/per))
			}
			meta := Metadata{Problem: cr.Problem().String(), Source: path}
			if w, err = CreateInstances(out, meta, WriterOptions{RowGroupRows: sum.RowGroupRows, FastCompression: true}); err != nil {
				return sum, err
			}
			sum.MinN, sum.MaxN, scale = in.N, in.N, in.Scale
		}
		sum.MinN, sum.MaxN = min(sum.MinN, in.N), max(sum.MaxN, in.N)
		if in.Scale != scale {
			scale = 0
		}
		if err = w.Write(in, nil); err != nil {
			return sum, err
		}
		sum.Instances++
	}
	err = nil
	if sum.MinN == sum.MaxN {
		w.SetMetadata(KeySize, strconv.Itoa(sum.MinN))
	}
	if scale > 0 {
		sum.Scale = scale
		w.SetMetadata(KeyScale, strconv.FormatFloat(scale, 'g', -1, 64))
	}
	if err = w.Close(); err != nil {
		return sum, err
	}
	return sum, nil
}
