package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGPUSlim runs gpu-slim.sh in a scratch repository: on, only the kept
// model folders stay tracked (the others stay on disk, ignored), a commit
// is refused; off, the index equals HEAD again and commits work.
func TestGPUSlim(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil && args[0] != "commit" {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	script, err := os.ReadFile("gpu-slim.sh")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"scripts/gpu-slim.sh": string(script), "README.md": "x\n"}
	for _, m := range []string{"a", "b", "c"} {
		files["models/pretrained/"+m+"/encoder.onnx"] = strings.Repeat(m, 1000)
		files["models/pretrained/"+m+"/config.json"] = "{}\n"
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git("add", ".")
	git("commit", "-q", "-m", "init")
	slim := func(args ...string) (string, error) {
		cmd := exec.Command("bash", append([]string{"scripts/gpu-slim.sh"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// An untracked folder beside the models stays as it is; a kept name that is not a model is refused.
	if err := os.MkdirAll(filepath.Join(dir, "models/pretrained/local"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "models/pretrained/local/x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := slim("on", "nosuch"); err == nil || !strings.Contains(out, "no tracked model folder") {
		t.Fatalf("on with an unknown model: %v\n%s", err, out)
	}
	// Someone else's pre-commit hook: refused, and the hook left alone.
	hook := filepath.Join(dir, ".git/hooks/pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := slim("on", "b"); err == nil || !strings.Contains(out, "exists") {
		t.Fatalf("on with a foreign hook: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(hook); string(b) != "#!/bin/sh\nexit 0\n" {
		t.Fatalf("the foreign hook was changed: %q", b)
	}
	if err := os.Remove(hook); err != nil {
		t.Fatal(err)
	}
	if out, err := slim("on", "b"); err != nil {
		t.Fatalf("on: %v\n%s", err, out)
	}
	tracked := git("ls-files", "models")
	if strings.TrimSpace(tracked) != "models/pretrained/b/config.json\nmodels/pretrained/b/encoder.onnx" {
		t.Fatalf("tracked while on:\n%s", tracked)
	}
	if st := git("status", "--porcelain", "--untracked-files=all"); strings.Count(st, "??") != 1 || !strings.Contains(st, "?? models/pretrained/local/x") {
		t.Fatalf("untracked (would travel) while on, want only the local folder:\n%s", st)
	}
	if _, err := os.Stat(filepath.Join(dir, "models/pretrained/a/encoder.onnx")); err != nil {
		t.Fatalf("an untracked model's file is gone: %v", err)
	}
	if out := git("commit", "-q", "--allow-empty", "-m", "during"); !strings.Contains(out, "gpu-slim.sh is on") {
		t.Fatalf("commit while on was not refused: %s", out)
	}
	if out, err := slim("on"); err == nil {
		t.Fatalf("a second on succeeded:\n%s", out)
	}
	if out, err := slim("off"); err != nil {
		t.Fatalf("off: %v\n%s", err, out)
	}
	if st := git("status", "--porcelain", "--untracked-files=all"); st != "?? models/pretrained/local/x\n" {
		t.Fatalf("status after off:\n%s", st)
	}
	if _, err := os.Stat(hook); err == nil {
		t.Fatal("the hook is still there after off")
	}
	if n := len(strings.Fields(git("ls-files", "models"))); n != 6 {
		t.Fatalf("%d model files tracked after off, want 6", n)
	}
	if out := git("commit", "-q", "--allow-empty", "-m", "after"); out != "" {
		t.Fatalf("commit after off: %s", out)
	}
}
