package trainer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeSMI writes an executable script that records its arguments, prints
// out and exits, leaving a marker once done.
func fakeSMI(t *testing.T, out string) (smi, args, done string) {
	t.Helper()
	dir := t.TempDir()
	smi, args, done = filepath.Join(dir, "nvidia-smi"), filepath.Join(dir, "args"), filepath.Join(dir, "done")
	script := "#!/bin/sh\necho \"$@\" >" + args + "\nprintf '" + out + "'\ntouch " + done + "\n"
	if err := os.WriteFile(smi, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return smi, args, done
}

func waitFor(t *testing.T, path string) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			time.Sleep(50 * time.Millisecond) // let the pipe drain after the marker
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}

// TestNvidiaSMIBusy: the probe asks for the first GPU's utilisation at the
// given interval, averages the numeric samples and skips the others; a
// probe with no numeric sample is an error naming what was printed; no
// nvidia-smi, no probe.
func TestNvidiaSMIBusy(t *testing.T) {
	smi, args, done := fakeSMI(t, `10\n[N/A]\n35\n45\n`)
	probe := NvidiaSMIBusy(smi, 200)
	if probe == nil {
		t.Fatal("no probe for an executable nvidia-smi")
	}
	stop, err := probe()
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, done)
	share, err := stop()
	if err != nil {
		t.Fatal(err)
	}
	if share != 0.3 {
		t.Errorf("share %v, want 0.3 (mean of 10, 35, 45 %%)", share)
	}
	a, _ := os.ReadFile(args)
	if got := strings.TrimSpace(string(a)); got != "--query-gpu=utilization.gpu --format=csv,noheader,nounits -i 0 -lms 200" {
		t.Errorf("arguments %q", got)
	}

	smi, _, done = fakeSMI(t, `[N/A]\n`)
	stop, err = NvidiaSMIBusy(smi, 200)()
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, done)
	if _, err := stop(); err == nil || !strings.Contains(err.Error(), `"[N/A]"`) {
		t.Errorf("no numeric sample: err %v", err)
	}
	// A wrapper that samples in a child process (no exec): stop ends the
	// child too instead of waiting for it forever.
	dir := t.TempDir()
	wrapper, marker := filepath.Join(dir, "nvidia-smi"), filepath.Join(dir, "sampling")
	script := "#!/bin/sh\n( while true; do echo 50; touch " + marker + "; sleep 0.05; done )\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	stop, err = NvidiaSMIBusy(wrapper, 200)()
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, marker)
	if share, err := stop(); err != nil || share != 0.5 {
		t.Errorf("wrapper: share %v, err %v; want 0.5", share, err)
	}
	if NvidiaSMIBusy(filepath.Join(t.TempDir(), "nvidia-smi"), 200) != nil {
		t.Error("a probe for a missing nvidia-smi")
	}
}
