package lazymask

import (
	"errors"
	"math"
	"testing"
)

// TestScheduleAgreesWithCheck replays random tours of random instances: a
// stop is late (or over its limit) by more than Tol exactly where Check
// reports a violation, the travel times add up to Check's cost, and the
// first violation Check names is the first such stop.
func TestScheduleAgreesWithCheck(t *testing.T) {
	r := newRand(11)
	for trial := 0; trial < 400; trial++ {
		in := smallInstance(r, 3+r.IntN(9), trial%2 == 1)
		tour := append([]int{0}, r.Perm(in.N-1)...)
		for k := 1; k < in.N; k++ {
			tour[k]++
		}
		stops, res, err := Schedule(in, tour)
		want, werr := Check(in, tour)
		if len(stops) != in.N+1 || stops[0].Node != 0 || stops[in.N].Node != 0 || res.Cost != want.Cost || res.Feasible != want.Feasible {
			t.Fatalf("trial %d: %d stops, result %+v, want %+v", trial, len(stops), res, want)
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("trial %d: error %v, Check's %v", trial, err, werr)
		}
		sum, first := 0.0, -1
		for k, s := range stops {
			sum += s.Travel
			if k == 0 || k == in.N {
				continue
			}
			if s.Node != tour[k] {
				t.Fatalf("trial %d: stop %d is node %d, tour has %d", trial, k, s.Node, tour[k])
			}
			v := s.Late
			if in.Problem == TSPDL {
				v = math.Max(0, -s.Slack)
			} else if s.Start < s.Arrival || s.Wait != s.Start-s.Arrival || s.Departure != s.Start+in.Service[s.Node] ||
				s.Arrival != stops[k-1].Departure+s.Travel {
				t.Fatalf("trial %d stop %d: %+v after %+v", trial, k, s, stops[k-1])
			}
			if v != want.Violation[s.Node] {
				t.Fatalf("trial %d stop %d: violation %v, Check's %v", trial, k, v, want.Violation[s.Node])
			}
			if v > Tol && first < 0 {
				first = k
			}
		}
		if math.Abs(sum-want.Cost) > 1e-12 {
			t.Fatalf("trial %d: travel sums to %v, cost %v", trial, sum, want.Cost)
		}
		var ie *InfeasibleError
		if errors.As(werr, &ie) != (first >= 0) || (first >= 0 && ie.Step != first) {
			t.Fatalf("trial %d: first late stop %d, Check's %v", trial, first, werr)
		}
	}
	if _, _, err := Schedule(smallTSPTW(r, 4), []int{0, 1, 1, 2}); err == nil {
		t.Fatal("a malformed tour has a schedule")
	}
}
