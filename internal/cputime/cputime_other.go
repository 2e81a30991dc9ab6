//go:build !unix

package cputime

import "time"

// Supported says whether Process reports the CPU time on this platform.
const Supported = false

func process() time.Duration { return 0 }
