package cliapp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// guarded runs a command "copy" (flags --in, --out, --workers) under
// GuardFiles and reports the error and whether the action ran.
func guarded(t *testing.T, args ...string) (bool, error) {
	t.Helper()
	ran := false
	app := &cli.App{Name: "x", Commands: []*cli.Command{{
		Name:   "copy",
		Flags:  []cli.Flag{&cli.StringFlag{Name: "in"}, &cli.StringFlag{Name: "out"}, &cli.IntFlag{Name: "workers"}},
		Before: GuardFiles([]string{"in", "instances"}, []string{"out", "references"}),
		Action: func(*cli.Context) error { ran = true; return nil },
	}}}
	err := app.Run(append([]string{"x", "copy"}, args...))
	return ran, err
}

func TestGuardFiles(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.parquet")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ran, err := guarded(t, "--in", in, "--out", filepath.Join(dir, "out.parquet")); err != nil || !ran {
		t.Fatalf("distinct files: %v, ran %v", err, ran)
	}
	ran, err := guarded(t, "--in", in, "--out", in)
	if ran || !IsUsage(err) || err.Error() != "copy: --out "+in+" is the --in file: writing it would destroy the input; choose another output path" {
		t.Fatalf("output over the input: %v, ran %v", err, ran)
	}
	ran, err = guarded(t, "--in", in, "--out", filepath.Join(dir, "out"), "--workers", "-2")
	if ran || !IsUsage(err) || err.Error() != "copy: flag --workers: -2, want ≥ 0 (0 = number of CPUs)" {
		t.Fatalf("negative workers: %v, ran %v", err, ran)
	}
	ran, err = guarded(t, "--out", filepath.Join(dir, "no-such-folder", "out"))
	if ran || !IsUsage(err) || !strings.HasPrefix(err.Error(), "copy: flag --out: ") {
		t.Fatalf("output in a missing folder: %v, ran %v", err, ran)
	}
}

func TestInterruptible(t *testing.T) {
	if Interruptible(nil) != nil {
		t.Fatal("a nil action became one")
	}
	boom := errors.New("boom")
	c := cli.NewContext(&cli.App{}, nil, nil)
	c.Context = context.Background()
	if err := Interruptible(func(*cli.Context) error { return boom })(c); err != boom {
		t.Fatalf("action's error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.Context = ctx
	release := make(chan struct{})
	defer close(release)
	done := make(chan error, 1)
	go func() { done <- Interruptible(func(*cli.Context) error { <-release; return nil })(c) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("interrupted action: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the interrupted action did not return")
	}
}

func TestRequired(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--a", "1", "--b", "2", "--c", "3"}, ""},
		{[]string{"--a", "1", "--c", "3"}, `Required flag "b" not set`},
		{[]string{"--b", "2"}, `Required flags "a, c" not set`},
		{nil, `Required flags "a, b, c" not set`},
	} {
		var err error
		app := &cli.App{Name: "x", Flags: []cli.Flag{&cli.StringFlag{Name: "a"}, &cli.StringFlag{Name: "b"}, &cli.StringFlag{Name: "c"}},
			Action: func(c *cli.Context) error { err = Required(c, "a", "b", "c"); return nil }}
		if runErr := app.Run(append([]string{"x"}, tc.args...)); runErr != nil {
			t.Fatal(runErr)
		}
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want || !IsUsage(err)) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
