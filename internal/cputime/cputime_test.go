package cputime

import (
	"testing"
	"time"
)

// A busy loop of a known wall time shows in the process's CPU time: at
// least most of it (the loop runs on one thread the whole time, give or
// take the scheduler of a shared machine, hence the loose floor).
func TestProcessCountsBusyLoop(t *testing.T) {
	if !Supported {
		t.Skip("CPU time not reported on this platform")
	}
	before := Process()
	began := time.Now()
	x := 0
	for time.Since(began) < 200*time.Millisecond {
		x++
	}
	got := Process() - before
	if got < 20*time.Millisecond || got > 10*time.Second {
		t.Fatalf("a 200 ms busy loop used %v of CPU (x=%d)", got, x)
	}
}

func TestShare(t *testing.T) {
	for _, tc := range []struct {
		cpu, wall time.Duration
		want      float64
	}{{2 * time.Second, time.Second, 200}, {500 * time.Millisecond, time.Second, 50}, {time.Second, 0, 0}} {
		if got := Share(tc.cpu, tc.wall); got != tc.want {
			t.Errorf("Share(%v, %v) = %v, want %v", tc.cpu, tc.wall, got, tc.want)
		}
	}
}
