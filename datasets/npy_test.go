package datasets

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// npyBytes builds a version-1 .npy stream.
func npyBytes(descr string, shape string, data []byte) []byte {
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	b.Write(data)
	return b.Bytes()
}

func TestReadNpyDtypes(t *testing.T) {
	var f4, f8, i8 bytes.Buffer
	binary.Write(&f4, binary.LittleEndian, []float32{1.5, -2, 0.25, 3, 4, 5})
	binary.Write(&f8, binary.LittleEndian, []float64{math.Inf(1), 7.25})
	binary.Write(&i8, binary.LittleEndian, []int64{0, 49, -3})
	a, err := ReadNpy(bytes.NewReader(npyBytes("<f4", "(2, 3)", f4.Bytes())))
	if err != nil || len(a.Shape) != 2 || a.Shape[1] != 3 || a.F64[0] != 1.5 || a.F64[2] != 0.25 || a.F64[5] != 5 {
		t.Fatalf("f4: %+v %v", a, err)
	}
	a, err = ReadNpy(bytes.NewReader(npyBytes("<f8", "(2,)", f8.Bytes())))
	if err != nil || !math.IsInf(a.F64[0], 1) || a.F64[1] != 7.25 {
		t.Fatalf("f8: %+v %v", a, err)
	}
	a, err = ReadNpy(bytes.NewReader(npyBytes("<i8", "(3,)", i8.Bytes())))
	if err != nil || a.I64[1] != 49 || a.I64[2] != -3 || a.F64 != nil {
		t.Fatalf("i8: %+v %v", a, err)
	}
}

func TestReadNpyRejects(t *testing.T) {
	good := make([]byte, 16)
	cases := map[string][]byte{
		"dtype":         npyBytes("<i4", "(4,)", good),
		"dtype \">f8\"": npyBytes(">f8", "(2,)", good),
		"fortran_order": []byte(strings.Replace(string(npyBytes("<f8", "(2,)", good)), "False", "True ", 1)),
		"truncated":     npyBytes("<f8", "(3,)", good),
		"bad magic":     []byte("PK\x03\x04 not npy at all"),
		"short header":  []byte("\x93NUMPY\x01"),
		"bad dimension": npyBytes("<f8", "(2, x)", good),
	}
	for want, data := range cases {
		if _, err := ReadNpy(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), strings.Split(want, " ")[0]) {
			t.Errorf("%s: error %v", want, err)
		}
	}
}

func FuzzReadNpy(f *testing.F) {
	var f4 bytes.Buffer
	binary.Write(&f4, binary.LittleEndian, []float32{1, 2, 3, 4})
	f.Add(npyBytes("<f4", "(2, 2)", f4.Bytes()))
	f.Add(npyBytes("<i8", "(1,)", make([]byte, 8)))
	f.Add(npyBytes("<f8", "()", make([]byte, 8)))
	f.Add([]byte("\x93NUMPY\x02\x00\x10\x00\x00\x00{'descr': '<f8'}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ReadNpy(bytes.NewReader(data))
		if err != nil {
			return
		}
		if n := a.Len(); (a.F64 != nil && len(a.F64) != n) || (a.I64 != nil && len(a.I64) != n) {
			t.Fatalf("length mismatch: shape %v", a.Shape)
		}
	})
}
