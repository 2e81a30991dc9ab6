package datasets

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// token is one whitespace-separated field of a text benchmark file.
type token struct {
	text string
	line int
}

// maxTextNodes bounds the node count a text benchmark may declare.
const maxTextNodes = 5000

// tokenize splits r into fields, dropping everything after '#' on a line.
func tokenize(r io.Reader) ([]token, error) {
	var out []token
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		for _, f := range strings.Fields(s) {
			out = append(out, token{f, line})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// tokenStream reads numbers from tokens with positions for errors.
type tokenStream struct {
	file string
	toks []token
	pos  int
}

func (s *tokenStream) errorf(field, format string, a ...any) error {
	line := 0
	if s.pos < len(s.toks) {
		line = s.toks[s.pos].line
	} else if len(s.toks) > 0 {
		line = s.toks[len(s.toks)-1].line
	}
	return fmt.Errorf("%s: line %d: field %s: %s", s.file, line, field, fmt.Sprintf(format, a...))
}

func (s *tokenStream) float(field string) (float64, error) {
	if s.pos >= len(s.toks) {
		return 0, s.errorf(field, "unexpected end of file")
	}
	t := s.toks[s.pos]
	v, err := strconv.ParseFloat(t.text, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, s.errorf(field, "%q is not a finite number", t.text)
	}
	s.pos++
	return v, nil
}

func (s *tokenStream) nodeCount() (int, error) {
	if s.pos >= len(s.toks) {
		return 0, s.errorf("n", "empty file")
	}
	t := s.toks[s.pos]
	n, err := strconv.Atoi(t.text)
	if err != nil || n < 2 || n > maxTextNodes {
		return 0, s.errorf("n", "%q is not a node count in [2,%d]", t.text, maxTextNodes)
	}
	s.pos++
	return n, nil
}

// matrix reads n×n non-negative numbers; the diagonal is forced to 0.
func (s *tokenStream) matrix(n int) ([]float64, error) {
	if len(s.toks)-s.pos < n*n {
		return nil, s.errorf("matrix", "need %d×%d values, only %d fields left", n, n, len(s.toks)-s.pos)
	}
	m := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v, err := s.float(fmt.Sprintf("matrix[%d][%d]", i, j))
			if err != nil {
				return nil, err
			}
			if v < 0 {
				s.pos--
				return nil, s.errorf(fmt.Sprintf("matrix[%d][%d]", i, j), "negative distance %v", v)
			}
			if i != j {
				m[i*n+j] = v
			}
		}
	}
	return m, nil
}

// window reads node i's time window (early, late) and rejects one that
// starts after it ends.
func (s *tokenStream) window(i int) (early, late float64, err error) {
	if early, err = s.float(fmt.Sprintf("early[%d]", i)); err != nil {
		return 0, 0, err
	}
	if late, err = s.float(fmt.Sprintf("late[%d]", i)); err != nil {
		return 0, 0, err
	}
	if early > late {
		s.pos--
		return 0, 0, s.errorf(fmt.Sprintf("early[%d]", i), "window start %v is after its end %v", early, late)
	}
	return early, late, nil
}

// LIBInstance is a TSPTW instance in the LIB text format of the Dumas,
// Gendreau and Ohlmann-Thomas sets: n, an n×n travel-time matrix, n windows.
// Values are in the file's units.
type LIBInstance struct {
	Name        string
	N           int
	Matrix      []float64 // row-major, diagonal 0
	Early, Late []float64
}

// ParseLIB reads one LIB file; name is used in errors. Anything after '#' on
// a line is ignored. A file in the TSPLIB keyword layout (its first field
// a word, not n) is read as ParseTSPLIBTW reads it.
func ParseLIB(r io.Reader, name string) (*LIBInstance, error) {
	toks, err := tokenize(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &tokenStream{file: name, toks: toks}
	if len(toks) > 0 && keywordLayout(toks[0].text) {
		return parseTSPLIBTW(s)
	}
	n, err := s.nodeCount()
	if err != nil {
		return nil, err
	}
	want := 1 + n*n + 2*n
	if len(toks) != want {
		return nil, s.errorf("windows", "LIB file with n=%d needs %d fields, found %d", n, want, len(toks))
	}
	l := &LIBInstance{Name: name, N: n, Early: make([]float64, n), Late: make([]float64, n)}
	if l.Matrix, err = s.matrix(n); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		if l.Early[i], l.Late[i], err = s.window(i); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// SolomonCoords are the rows of a Solomon-style node file (the Dumas
// coordinates): coordinates and windows per node, node 0 first.
type SolomonCoords struct {
	X, Y, Ready, Due, Service []float64
}

// ParseSolomon reads a Solomon-style file: header lines, then rows of 7
// numbers (customer number from 1, x, y, demand, ready, due, service),
// ending at a row that starts with 999 or at the end of the file.
func ParseSolomon(r io.Reader, name string) (*SolomonCoords, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	c := &SolomonCoords{}
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		id, err := strconv.Atoi(f[0])
		if err != nil {
			if len(c.X) > 0 {
				return nil, fmt.Errorf("%s: line %d: field cust_no: %q is not a node number", name, line, f[0])
			}
			continue // header
		}
		if id == 999 {
			break
		}
		if len(f) != 7 {
			return nil, fmt.Errorf("%s: line %d: want 7 columns, found %d", name, line, len(f))
		}
		if id != len(c.X)+1 {
			return nil, fmt.Errorf("%s: line %d: field cust_no: node %d out of order (want %d)", name, line, id, len(c.X)+1)
		}
		var v [6]float64
		for k := 0; k < 6; k++ {
			x, err := strconv.ParseFloat(f[k+1], 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%s: line %d: column %d: %q is not a finite number", name, line, k+2, f[k+1])
			}
			v[k] = x
		}
		if len(c.X) >= maxTextNodes {
			return nil, fmt.Errorf("%s: line %d: more than %d nodes", name, line, maxTextNodes)
		}
		c.X, c.Y = append(c.X, v[0]), append(c.Y, v[1])
		c.Ready, c.Due, c.Service = append(c.Ready, v[3]), append(c.Due, v[4]), append(c.Service, v[5])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(c.X) < 2 {
		return nil, fmt.Errorf("%s: found %d node rows, need at least 2", name, len(c.X))
	}
	return c, nil
}

// RakkeInstance is a TSPDL instance in Rakke et al.'s text format: n, an
// n×n distance matrix, n demands, n draft limits and the listed optimum.
// The ship leaves the depot loaded with Σd and delivers d_j at port j,
// arriving there with a load that must not exceed the port's limit.
type RakkeInstance struct {
	Name   string
	N      int
	Matrix []float64 // diagonal forced to 0 (some files carry 1 there)
	Demand []float64
	Draft  []float64
	Listed float64 // optimum as listed in the file
}

// ParseRakke reads one Rakke TSPDL file; name is used in errors.
func ParseRakke(r io.Reader, name string) (*RakkeInstance, error) {
	toks, err := tokenize(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &tokenStream{file: name, toks: toks}
	n, err := s.nodeCount()
	if err != nil {
		return nil, err
	}
	want := 1 + n*n + 2*n + 1
	if len(toks) != want {
		return nil, s.errorf("optimum", "Rakke file with n=%d needs %d fields, found %d", n, want, len(toks))
	}
	k := &RakkeInstance{Name: name, N: n, Demand: make([]float64, n), Draft: make([]float64, n)}
	if k.Matrix, err = s.matrix(n); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		dst  []float64
	}{{"demand", k.Demand}, {"draft", k.Draft}} {
		for i := 0; i < n; i++ {
			v, err := s.float(fmt.Sprintf("%s[%d]", f.name, i))
			if err != nil {
				return nil, err
			}
			if v < 0 {
				s.pos--
				return nil, s.errorf(fmt.Sprintf("%s[%d]", f.name, i), "negative value %v", v)
			}
			f.dst[i] = v
		}
	}
	if k.Listed, err = s.float("optimum"); err != nil {
		return nil, err
	}
	total := 0.0
	for _, d := range k.Demand {
		total += d
	}
	if !(total > 0) {
		return nil, fmt.Errorf("%s: field demand: total demand %v must be positive", name, total)
	}
	return k, nil
}

// ParseTSPLIBTW reads a TSPTW file in the TSPLIB keyword layout of the
// LKH-3 benchmark package (da Silva and Urrutia's instances): "KEY : value"
// lines (NAME, TYPE, COMMENT, DIMENSION, EDGE_WEIGHT_TYPE,
// EDGE_WEIGHT_FORMAT), then EDGE_WEIGHT_SECTION (a FULL_MATRIX),
// TIME_WINDOW_SECTION (one "node early late" row per node, numbered from
// 1), an optional DEPOT_SECTION that must name node 1, and EOF. name is
// used in errors.
func ParseTSPLIBTW(r io.Reader, name string) (*LIBInstance, error) {
	toks, err := tokenize(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return parseTSPLIBTW(&tokenStream{file: name, toks: toks})
}

// parseTSPLIBTW is ParseTSPLIBTW on a file's fields.
func parseTSPLIBTW(s *tokenStream) (*LIBInstance, error) {
	var err error
	l := &LIBInstance{Name: s.file}
	// value returns the rest of the keyword's line after an optional ':'.
	value := func(line int) []string {
		var out []string
		for s.pos < len(s.toks) && s.toks[s.pos].line == line {
			if t := s.toks[s.pos].text; !(len(out) == 0 && t == ":") {
				out = append(out, strings.TrimPrefix(t, ":"))
			}
			s.pos++
		}
		return out
	}
	for s.pos < len(s.toks) {
		t := s.toks[s.pos]
		key := strings.TrimSuffix(t.text, ":")
		s.pos++
		switch key {
		case "NAME", "COMMENT":
			value(t.line)
		case "TYPE", "EDGE_WEIGHT_TYPE", "EDGE_WEIGHT_FORMAT":
			want := map[string]string{"TYPE": "TSPTW", "EDGE_WEIGHT_TYPE": "EXPLICIT", "EDGE_WEIGHT_FORMAT": "FULL_MATRIX"}[key]
			if v := strings.Join(value(t.line), " "); v != want {
				s.pos--
				return nil, s.errorf(key, "%q is not supported (want %s)", v, want)
			}
		case "DIMENSION":
			v := value(t.line)
			n, err := strconv.Atoi(strings.Join(v, ""))
			if err != nil || n < 2 || n > maxTextNodes {
				s.pos--
				return nil, s.errorf("DIMENSION", "%q is not a node count in [2,%d]", strings.Join(v, " "), maxTextNodes)
			}
			l.N = n
		case "EDGE_WEIGHT_SECTION":
			if l.N == 0 {
				return nil, s.errorf(key, "the matrix comes before DIMENSION")
			}
			if l.Matrix, err = s.matrix(l.N); err != nil {
				return nil, err
			}
		case "TIME_WINDOW_SECTION":
			if l.N == 0 {
				return nil, s.errorf(key, "the windows come before DIMENSION")
			}
			l.Early, l.Late = make([]float64, l.N), make([]float64, l.N)
			for i := 0; i < l.N; i++ {
				field := fmt.Sprintf("TIME_WINDOW_SECTION row %d", i+1)
				id, err := s.float(field)
				if err != nil {
					return nil, err
				}
				if id != float64(i+1) {
					s.pos--
					return nil, s.errorf(field, "node number %v, want %d", id, i+1)
				}
				if l.Early[i], l.Late[i], err = s.window(i); err != nil {
					return nil, err
				}
			}
		case "DEPOT_SECTION":
			for k := 0; ; k++ {
				v, err := s.float("DEPOT_SECTION")
				if err != nil {
					return nil, err
				}
				if v == -1 {
					break
				}
				if k > 0 || v != 1 {
					s.pos--
					return nil, s.errorf("DEPOT_SECTION", "depot %v: only node 1 as the one depot is supported", v)
				}
			}
		case "EOF":
			s.pos = len(s.toks)
		default:
			s.pos--
			return nil, s.errorf("keyword", "unknown keyword %q", t.text)
		}
	}
	switch {
	case l.Matrix == nil:
		return nil, s.errorf("EDGE_WEIGHT_SECTION", "missing")
	case l.Early == nil:
		return nil, s.errorf("TIME_WINDOW_SECTION", "missing")
	}
	return l, nil
}
