//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Supported says whether Process reports the CPU time on this platform.
const Supported = true

func process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
