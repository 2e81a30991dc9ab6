package datasets

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// NpyArray is a numeric array read from a .npy file: little-endian, C
// order, dtype float32 ('<f4'), float64 ('<f8') or int64 ('<i8'). Floats
// are widened to float64 in F64; integers are in I64.
type NpyArray struct {
	Dtype string // "<f4", "<f8" or "<i8"
	Shape []int
	F64   []float64 // float dtypes
	I64   []int64   // integer dtype
}

// Len is the number of elements.
func (a *NpyArray) Len() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// maxNpyElements bounds what ReadNpy accepts (2^31 elements).
const maxNpyElements = 1 << 31

// ReadNpy parses one .npy stream. Anything other than the three supported
// dtypes, big-endian data, Fortran order, or a short data section is an
// error.
func ReadNpy(r io.Reader) (*NpyArray, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("npy: short header: %w", err)
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("npy: bad magic %q", pre[:6])
	}
	var hlen int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("npy: short header: %w", err)
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("npy: short header: %w", err)
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
		if hlen > 1<<20 {
			return nil, fmt.Errorf("npy: header length %d too large", hlen)
		}
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d", pre[6], pre[7])
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("npy: short header: %w", err)
	}
	a, err := parseNpyHeader(string(hdr))
	if err != nil {
		return nil, err
	}
	size := 8
	if a.Dtype == "<f4" {
		size = 4
	}
	n := a.Len()
	buf := make([]byte, 0, min(n*size, 1<<24))
	chunk := make([]byte, 1<<16)
	for len(buf) < n*size {
		k, err := r.Read(chunk[:min(len(chunk), n*size-len(buf))])
		buf = append(buf, chunk[:k]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("npy: reading data: %w", err)
		}
	}
	if len(buf) != n*size {
		return nil, fmt.Errorf("npy: data truncated: %d of %d bytes for shape %v %s", len(buf), n*size, a.Shape, a.Dtype)
	}
	switch a.Dtype {
	case "<f4":
		a.F64 = make([]float64, n)
		for i := range a.F64 {
			a.F64[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:])))
		}
	case "<f8":
		a.F64 = make([]float64, n)
		for i := range a.F64 {
			a.F64[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
		}
	case "<i8":
		a.I64 = make([]int64, n)
		for i := range a.I64 {
			a.I64[i] = int64(binary.LittleEndian.Uint64(buf[8*i:]))
		}
	}
	return a, nil
}

// parseNpyHeader reads the Python dict literal of a .npy header, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (10000, 50, 2), }.
func parseNpyHeader(h string) (*NpyArray, error) {
	h = strings.TrimSpace(h)
	if !strings.HasPrefix(h, "{") || !strings.HasSuffix(h, "}") {
		return nil, fmt.Errorf("npy: header %q is not a dict", h)
	}
	body := h[1 : len(h)-1]
	val := func(key string) (string, error) {
		i := strings.Index(body, "'"+key+"'")
		if i < 0 {
			return "", fmt.Errorf("npy: header has no %q", key)
		}
		rest := strings.TrimSpace(body[i+len(key)+2:])
		if !strings.HasPrefix(rest, ":") {
			return "", fmt.Errorf("npy: header key %q has no value", key)
		}
		rest = strings.TrimSpace(rest[1:])
		if strings.HasPrefix(rest, "(") {
			j := strings.Index(rest, ")")
			if j < 0 {
				return "", fmt.Errorf("npy: unterminated shape in header")
			}
			return rest[:j+1], nil
		}
		j := strings.IndexAny(rest, ",}")
		if j < 0 {
			j = len(rest)
		}
		return strings.TrimSpace(rest[:j]), nil
	}
	descr, err := val("descr")
	if err != nil {
		return nil, err
	}
	descr = strings.Trim(descr, "'\"")
	switch descr {
	case "<f4", "<f8", "<i8":
	default:
		return nil, fmt.Errorf("npy: unsupported dtype %q (want <f4, <f8 or <i8)", descr)
	}
	fo, err := val("fortran_order")
	if err != nil {
		return nil, err
	}
	if fo != "False" {
		return nil, fmt.Errorf("npy: fortran_order %s is not supported (want C order)", fo)
	}
	sh, err := val("shape")
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(sh, "(") {
		return nil, fmt.Errorf("npy: shape %q is not a tuple", sh)
	}
	a := &NpyArray{Dtype: descr, Shape: []int{}}
	total := 1
	for _, f := range strings.Split(strings.Trim(sh, "()"), ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		d, err := strconv.Atoi(f)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("npy: bad dimension %q in shape %s", f, sh)
		}
		if d > 0 && total > maxNpyElements/d {
			return nil, fmt.Errorf("npy: shape %s too large", sh)
		}
		total *= d
		a.Shape = append(a.Shape, d)
	}
	return a, nil
}
