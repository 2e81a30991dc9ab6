package trainer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// NvidiaSMIBusy returns a BusyProbe that samples the first GPU's
// utilization.gpu with nvidia-smi (found on PATH as smi) every intervalMS
// milliseconds and averages the samples, or nil when smi is not on PATH.
func NvidiaSMIBusy(smi string, intervalMS int) BusyProbe {
	path, err := exec.LookPath(smi)
	if err != nil {
		return nil
	}
	return func() (func() (float64, error), error) {
		cmd := exec.Command(path, "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-i", "0", "-lms", strconv.Itoa(intervalMS))
		// Its own process group, so stop also ends what a wrapper script
		// started and nothing keeps the pipe open.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var (
			sum      float64
			n        int
			firstBad string
		)
		read := make(chan struct{})
		go func() {
			defer close(read)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				line := strings.TrimSpace(sc.Text())
				v, err := strconv.ParseFloat(line, 64)
				if err != nil || v < 0 || v > 100 {
					if firstBad == "" {
						firstBad = line
					}
					continue
				}
				sum += v
				n++
			}
			_, _ = io.Copy(io.Discard, out)
		}()
		return func() (float64, error) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			select {
			case <-read:
			case <-time.After(5 * time.Second):
				return 0, fmt.Errorf("%s: output still open 5 s after the kill", path)
			}
			_ = cmd.Wait()
			if n == 0 {
				if firstBad != "" {
					return 0, fmt.Errorf("%s printed %q, not a utilisation in %%", path, firstBad)
				}
				return 0, errors.New(path + " printed no sample")
			}
			return sum / float64(n) / 100, nil
		}, nil
	}
}
