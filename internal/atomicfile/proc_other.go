//go:build !unix

package atomicfile

import "time"

// alive reports every process as running where signals cannot probe it,
// so no temporary file is taken for stale.
func alive(int) bool { return true }

// startTime is unknown here.
func startTime(int) (time.Time, bool) { return time.Time{}, false }
