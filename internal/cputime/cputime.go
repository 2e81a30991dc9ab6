// Package cputime reads the CPU time (user + system) that this process has
// used, summed over its threads: what /usr/bin/time reports as user + sys.
// The equal-CPU comparisons and the CPU share of a run (CPU time over wall
// time) are measured with it.
package cputime

import "time"

// Process returns the CPU time, user plus system, this process has used so
// far, or 0 where the platform does not report it (Supported false).
func Process() time.Duration { return process() }

// Share is cpu over wall as a percentage: 100 is one core busy through the
// wall time, 200 two. It is 0 where wall is not positive.
func Share(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return 100 * cpu.Seconds() / wall.Seconds()
}
