package localsearch

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"github.com/lmask/lmask/internal/testenv"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// npyArray is one array of an .npz file, widened to float64.
type npyArray struct {
	shape []int
	data  []float64
}

var (
	npyDescr = regexp.MustCompile(`'descr':\s*'([<>|]?[a-z]\d+)'`)
	npyOrder = regexp.MustCompile(`'fortran_order':\s*(True|False)`)
	npyShape = regexp.MustCompile(`'shape':\s*\(([^)]*)\)`)
)

// readNPZ reads the named arrays of a numpy .npz file (little-endian f4, f8,
// i4, i8, C order).
func readNPZ(path string, names ...string) (map[string]npyArray, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer zr.Close()
	out := map[string]npyArray{}
	for _, f := range zr.File {
		name := strings.TrimSuffix(f.Name, ".npy")
		want := false
		for _, n := range names {
			want = want || n == name
		}
		if !want {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: array %s: %w", path, name, err)
		}
		a, err := readNPY(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: array %s: %w", path, name, err)
		}
		out[name] = a
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("%s: no array %q", path, n)
		}
	}
	return out, nil
}

// readNPY parses one .npy stream.
func readNPY(r io.Reader) (npyArray, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return npyArray{}, err
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return npyArray{}, fmt.Errorf("bad magic %q", pre[:6])
	}
	var hlen int
	if pre[6] == 1 {
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return npyArray{}, err
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	} else {
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return npyArray{}, err
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return npyArray{}, err
	}
	h := string(hdr)
	d, o, s := npyDescr.FindStringSubmatch(h), npyOrder.FindStringSubmatch(h), npyShape.FindStringSubmatch(h)
	if d == nil || o == nil || s == nil || o[1] == "True" {
		return npyArray{}, fmt.Errorf("unsupported header %q", h)
	}
	var a npyArray
	count := 1
	for _, f := range strings.Split(s[1], ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil {
			return npyArray{}, fmt.Errorf("shape %q: %w", s[1], err)
		}
		a.shape = append(a.shape, v)
		count *= v
	}
	descr := strings.TrimLeft(d[1], "<|")
	size := map[string]int{"f4": 4, "f8": 8, "i4": 4, "i8": 8}[descr]
	if size == 0 || strings.HasPrefix(d[1], ">") {
		return npyArray{}, fmt.Errorf("unsupported dtype %q", d[1])
	}
	raw := make([]byte, count*size)
	if _, err := io.ReadFull(r, raw); err != nil {
		return npyArray{}, err
	}
	a.data = make([]float64, count)
	for i := range a.data {
		b := raw[i*size:]
		switch descr {
		case "f4":
			a.data[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		case "f8":
			a.data[i] = math.Float64frombits(binary.LittleEndian.Uint64(b))
		case "i4":
			a.data[i] = float64(int32(binary.LittleEndian.Uint32(b)))
		case "i8":
			a.data[i] = float64(int64(binary.LittleEndian.Uint64(b)))
		}
	}
	return a, nil
}

// sharedDir finds the shared data folder or skips tb.
func sharedDir(tb testing.TB) string {
	tb.Helper()
	return testenv.SharedFile(tb, "datasets", "lmask-paper") + "/../.."
}
