package cliapp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/internal/opterr"
)

func testApp(out *bytes.Buffer) *cli.App {
	return Prepare(&cli.App{
		Name: "t", Writer: out, ErrWriter: out,
		Flags:  []cli.Flag{&cli.StringFlag{Name: "in", Required: true, Usage: "input file"}, &cli.IntFlag{Name: "n"}},
		Action: func(*cli.Context) error { return nil },
		Commands: []*cli.Command{{Name: "sub", Flags: []cli.Flag{&cli.IntFlag{Name: "k", Required: true, Usage: "count"}},
			Action: func(*cli.Context) error { return nil }}},
	})
}

// TestExitCode: the status of each kind of error, including the command
// line library's own errors for unknown flags, bad values and missing
// required flags, at the top level and in a command.
func TestExitCode(t *testing.T) {
	var out bytes.Buffer
	run := func(args ...string) error { return testApp(&out).Run(append([]string{"t"}, args...)) }
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"plain failure", errors.New("read x.parquet: no such file"), ExitFailure},
		{"interrupt", fmt.Errorf("step 3: %w", context.Canceled), ExitInterrupted},
		{"marked usage", fmt.Errorf("check: %w", Usagef("--limit %d: want ≥ 0", -1)), ExitUsage},
		{"unknown flag", run("--in", "x", "--bogus"), ExitUsage},
		{"bad value", run("--in", "x", "--n", "many"), ExitUsage},
		{"missing required flag", run("--n", "3"), ExitUsage},
		{"missing required flag of a command", run("--in", "x", "sub"), ExitUsage},
		{"unknown flag of a command", run("--in", "x", "sub", "--k", "1", "--bogus"), ExitUsage},
		{"a good command line", run("--in", "x", "sub", "--k", "1"), 0},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestPrepareMarksRequired: help shows "(required)" once per required flag.
func TestPrepareMarksRequired(t *testing.T) {
	var out bytes.Buffer
	app := testApp(&out)
	Prepare(app) // twice: no second mark
	if err := app.Run([]string{"t", "--help"}); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	if !strings.Contains(help, "input file (required)") || strings.Contains(help, "(required) (required)") || strings.Contains(help, "--n value  (required)") {
		t.Errorf("help:\n%s", help)
	}
	out.Reset()
	if err := app.Run([]string{"t", "--in", "x", "sub", "--help"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "count (required)") {
		t.Errorf("command help:\n%s", out.String())
	}
}

// TestFlagNames: a library's option errors read with the command's flags,
// and keep their exit status and causes.
func TestFlagNames(t *testing.T) {
	flags := map[string]string{"Out": "out", "Force": "force", "InitFrom": "init-from"}
	lib := opterr.New("Out", "runs/m", "already holds a model; pass %v to replace it", opterr.Name("Force"))
	err := FlagNames(Usage(fmt.Errorf("export: %w", lib)), flags)
	if err.Error() != "export: --out runs/m: already holds a model; pass --force to replace it" {
		t.Errorf("message %q", err)
	}
	if ExitCode(err) != ExitUsage || opterr.As(err) != lib {
		t.Errorf("exit %d, option error %v", ExitCode(err), opterr.As(err))
	}
	err = FlagNames(fmt.Errorf("start: %w", opterr.Wrap("InitFrom", "", context.Canceled)), flags)
	if err.Error() != "start: --init-from: context canceled" || ExitCode(err) != ExitInterrupted {
		t.Errorf("wrapped cause: %q, exit %d", err, ExitCode(err))
	}
	plain := errors.New("read x.parquet: no such file")
	if FlagNames(plain, flags) != plain || FlagNames(nil, flags) != nil {
		t.Error("an error without options changed")
	}
}

// TestMissingFlags: an option spelled as a flag that no command has.
func TestMissingFlags(t *testing.T) {
	var out bytes.Buffer
	got := MissingFlags(testApp(&out), map[string]string{"In": "in", "K": "k", "Out": "out", "N": "count"})
	if strings.Join(got, ",") != "N: --count,Out: --out" {
		t.Errorf("missing %v", got)
	}
}
