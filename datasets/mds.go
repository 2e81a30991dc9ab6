package datasets

import (
	"math"
)

// ClassicalMDS embeds the points of an n×n distance matrix (row-major; it
// is symmetrised as (d_ij + d_ji)/2) in the plane by classical
// (Torgerson) multidimensional scaling: B = −½·J·D²·J, coordinates from the
// two largest eigenpairs. The result is translated so that both minimum
// coordinates are 0 and is in the matrix's units. It is deterministic.
func ClassicalMDS(dist []float64, n int) (x, y []float64) {
	d2 := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				v := (dist[i*n+j] + dist[j*n+i]) / 2
				d2[i*n+j] = v * v
			}
		}
	}
	row := make([]float64, n)
	all := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			row[i] += d2[i*n+j]
		}
		all += row[i]
		row[i] /= float64(n)
	}
	all /= float64(n * n)
	b := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			b[i*n+j] = -0.5 * (d2[i*n+j] - row[i] - row[j] + all)
		}
	}
	vals, vecs := jacobiEigen(b, n)
	// pick the two largest eigenvalues
	first, second := -1, -1
	for k := 0; k < n; k++ {
		if first < 0 || vals[k] > vals[first] {
			second, first = first, k
		} else if second < 0 || vals[k] > vals[second] {
			second = k
		}
	}
	x, y = make([]float64, n), make([]float64, n)
	for _, c := range []struct {
		k   int
		dst []float64
	}{{first, x}, {second, y}} {
		if c.k < 0 {
			continue
		}
		s := math.Sqrt(math.Max(vals[c.k], 0))
		// deterministic sign: the entry of largest magnitude is positive
		big, sign := 0.0, 1.0
		for i := 0; i < n; i++ {
			if v := vecs[i*n+c.k]; math.Abs(v) > big+1e-12 {
				big = math.Abs(v)
				sign = math.Copysign(1, v)
			}
		}
		for i := 0; i < n; i++ {
			c.dst[i] = sign * s * vecs[i*n+c.k]
		}
	}
	shiftToZero(x)
	shiftToZero(y)
	return x, y
}

func shiftToZero(v []float64) {
	m := math.Inf(1)
	for _, a := range v {
		m = math.Min(m, a)
	}
	for i := range v {
		v[i] -= m
	}
}

// jacobiEigen diagonalises the symmetric n×n matrix a (destroyed) by cyclic
// Jacobi rotations; it returns the eigenvalues and the eigenvectors as the
// columns of a row-major matrix.
func jacobiEigen(a []float64, n int) ([]float64, []float64) {
	v := make([]float64, n*n)
	for i := 0; i < n; i++ {
		v[i*n+i] = 1
	}
	norm := 0.0
	for _, x := range a {
		norm += x * x
	}
	for sweep := 0; sweep < 60; sweep++ {
		off := 0.0
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				off += a[p*n+q] * a[p*n+q]
			}
		}
		if off <= 1e-22*norm || off == 0 {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if math.Abs(apq) < 1e-300 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < n; k++ {
					akp, akq := a[k*n+p], a[k*n+q]
					a[k*n+p] = c*akp - s*akq
					a[k*n+q] = s*akp + c*akq
				}
				for k := 0; k < n; k++ {
					apk, aqk := a[p*n+k], a[q*n+k]
					a[p*n+k] = c*apk - s*aqk
					a[q*n+k] = s*apk + c*aqk
				}
				for k := 0; k < n; k++ {
					vkp, vkq := v[k*n+p], v[k*n+q]
					v[k*n+p] = c*vkp - s*vkq
					v[k*n+q] = s*vkp + c*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := 0; i < n; i++ {
		vals[i] = a[i*n+i]
	}
	return vals, v
}
