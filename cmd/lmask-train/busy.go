package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/lmask/lmask/trainer"
)

// nvidiaSMIBusy returns a trainer.BusyProbe that samples the first GPU's
// utilization.gpu with nvidia-smi (found on PATH as smi) every intervalMS
// milliseconds and averages the samples, or nil when smi is not on PATH.
func nvidiaSMIBusy(smi string, intervalMS int) trainer.BusyProbe {
	path, err := exec.LookPath(smi)
	if err != nil {
		return nil
	}
	return func() (func() (float64, error), error) {
		cmd := exec.Command(path, "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-i", "0", "-lms", strconv.Itoa(intervalMS))
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var (
			wg       sync.WaitGroup
			sum      float64
			n        int
			firstBad string
		)
		wg.Add(1)
		go func() {
			defer wg.Done()
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
			_ = cmd.Process.Kill()
			wg.Wait()
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
