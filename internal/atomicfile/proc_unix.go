//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// alive reports whether a process with the ID exists (one owned by another
// user counts).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// clockTicks is Linux's USER_HZ, the unit of /proc/PID/stat's start time;
// it is 100 on every architecture Go supports.
const clockTicks = 100

// startTime returns when process pid started, read from /proc (Linux);
// ok is false where that cannot be read.
func startTime(pid int) (time.Time, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, starttime field 22.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return time.Time{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	boot, ok := bootTime()
	if !ok {
		return time.Time{}, false
	}
	return boot.Add(time.Duration(ticks) * time.Second / clockTicks), true
}

// bootTime reads the boot time (btime) from /proc/stat.
func bootTime() (time.Time, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(s, 0), true
		}
	}
	return time.Time{}, false
}
