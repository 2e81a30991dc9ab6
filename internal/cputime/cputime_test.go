package cputime

import (
	"testing"
	"time"
)

// Busy work shows in the process's CPU time: a loop runs until the CPU
// time has grown by 30 ms, which it must do within a minute however loaded
// the machine, and the CPU time never goes back.
func TestProcessCountsBusyWork(t *testing.T) {
	if !Supported {
		t.Skip("CPU time not reported on this platform")
	}
	before := Process()
	if before <= 0 {
		t.Fatalf("CPU time %v at the start of a test process", before)
	}
	began, last, x := time.Now(), before, 0
	for {
		for range 100000 {
			x++
		}
		now := Process()
		if now < last {
			t.Fatalf("CPU time went back from %v to %v", last, now)
		}
		last = now
		if now-before >= 30*time.Millisecond {
			break
		}
		if time.Since(began) > time.Minute {
			t.Fatalf("a minute of busy work added %v of CPU time (x=%d)", now-before, x)
		}
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
