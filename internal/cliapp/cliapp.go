// Package cliapp holds what the three commands share about their command
// lines: one meaning for each exit status, and required flags marked in
// the help.
package cliapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/internal/opterr"
)

// Exit statuses of every command.
const (
	ExitFailure     = 1   // the command failed (bad input files, a failed run)
	ExitUsage       = 2   // the command line itself is wrong
	ExitInterrupted = 130 // interrupted (Ctrl-C), after any checkpoint was written
)

// UsageError marks an error in the command line itself: an unknown or
// missing flag, a value out of range, flags that do not go together.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *UsageError) Unwrap() error { return e.Err }

// Usage marks err as a usage error (nil stays nil).
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err}
}

// Usagef is Usage(fmt.Errorf(format, a...)).
func Usagef(format string, a ...any) error { return Usage(fmt.Errorf(format, a...)) }

// IsUsage reports whether err is a usage error: one marked by Usage, or
// the command-line library's own for missing required flags.
func IsUsage(err error) bool {
	var ue *UsageError
	if errors.As(err, &ue) {
		return true
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		// urfave/cli reports missing required flags with an unexported
		// type; TestExitCode pins its name.
		if fmt.Sprintf("%T", e) == "*cli.errRequiredFlags" {
			return true
		}
	}
	return false
}

// ExitCode is the exit status for err: 0 for nil, ExitInterrupted when it
// wraps context.Canceled, ExitUsage for usage errors, else ExitFailure.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case IsUsage(err):
		return ExitUsage
	}
	return ExitFailure
}

// FlagNames returns err with each option a library names in it (an
// *opterr.Error) spelled as the command's flag: "--" + flags[option]. An
// option flags lacks keeps the library's name. nil stays nil, and the
// result wraps err (errors.Is, errors.As and ExitCode see through it).
func FlagNames(err error, flags map[string]string) error {
	if err == nil || !opterr.Has(err) {
		return err
	}
	msg := opterr.Message(err, func(option string) string {
		if f, ok := flags[option]; ok {
			return "--" + f
		}
		return ""
	})
	return &flagError{msg: msg, err: err}
}

// flagError is an error whose options are spelled as flags.
type flagError struct {
	msg string
	err error
}

func (e *flagError) Error() string { return e.msg }

func (e *flagError) Unwrap() error { return e.err }

// MissingFlags returns the flags of the option map flags (see FlagNames)
// that neither app nor any of its commands has, as "option: --flag".
func MissingFlags(app *cli.App, flags map[string]string) []string {
	has := map[string]bool{}
	add := func(fs []cli.Flag) {
		for _, f := range fs {
			for _, n := range f.Names() {
				has[n] = true
			}
		}
	}
	add(app.Flags)
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			add(c.Flags)
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
	var missing []string
	for option, f := range flags {
		if !has[f] {
			missing = append(missing, option+": --"+f)
		}
	}
	slices.Sort(missing)
	return missing
}

// Exit prints err, if any, after the program's name to stderr ("interrupted"
// for an interrupt) and exits with code (0 when err is nil).
func Exit(stderr io.Writer, name string, err error, code int) {
	switch {
	case errors.Is(err, context.Canceled):
		// A command may say what it left ("context canceled: nothing
		// written to …").
		fmt.Fprintf(stderr, "%s: %s\n", name, strings.Replace(err.Error(), context.Canceled.Error(), "interrupted", 1))
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
	}
	os.Exit(code)
}

// Main runs a command's run with os.Args (the program name first) under a
// context that SIGINT or SIGTERM cancels (InterruptContext), then exits as
// Exit does.
func Main(name string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	ctx, stop := InterruptContext(name, os.Stderr)
	err := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	Exit(os.Stderr, name, err, ExitCode(err))
}

// InterruptContext returns a context that the first SIGINT or SIGTERM
// cancels, saying so on stderr; from then on the signals have their
// default effect, so a second Ctrl-C ends the process at once. stop
// releases the signals and cancels the context.
func InterruptContext(name string, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			fmt.Fprintf(stderr, "%s: interrupted: stopping (Ctrl-C again aborts at once)\n", name)
			cancel()
		case <-quit:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(quit)
		cancel()
	}
}

// Prepare makes app's flag-parsing errors usage errors, keeps the library
// from exiting on its own, and appends " (required)" to the help text of
// every flag marked Required, in app and in all its commands.
func Prepare(app *cli.App) *cli.App {
	onUsage := func(_ *cli.Context, err error, _ bool) error { return Usage(err) }
	app.OnUsageError = onUsage
	app.ExitErrHandler = func(*cli.Context, error) {}
	markRequired(app.Flags)
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.OnUsageError = onUsage
			markRequired(c.Flags)
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
	return app
}

// markRequired appends " (required)" to the Usage of required flags (the
// flag types of urfave/cli all carry Required and Usage fields).
func markRequired(flags []cli.Flag) {
	for _, f := range flags {
		v := reflect.ValueOf(f)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			continue
		}
		req, usage := v.Elem().FieldByName("Required"), v.Elem().FieldByName("Usage")
		if !req.IsValid() || req.Kind() != reflect.Bool || !req.Bool() || !usage.IsValid() || usage.Kind() != reflect.String {
			continue
		}
		if !strings.HasSuffix(usage.String(), "(required)") {
			usage.SetString(strings.TrimSpace(usage.String() + " (required)"))
		}
	}
}

// LongHelp lists the flags of app and its commands whose help text runs
// over max characters or over one line, as "command --flag (n chars)":
// a flag's help is one line, its detail in the docs.
func LongHelp(app *cli.App, max int) []string {
	var long []string
	check := func(where string, flags []cli.Flag) {
		for _, f := range flags {
			v := reflect.ValueOf(f)
			if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
				continue
			}
			usage := v.Elem().FieldByName("Usage")
			if !usage.IsValid() || usage.Kind() != reflect.String {
				continue
			}
			if n := utf8.RuneCountInString(usage.String()); n > max || strings.Contains(usage.String(), "\n") {
				long = append(long, fmt.Sprintf("%s --%s (%d chars)", where, f.Names()[0], n))
			}
		}
	}
	check(app.Name, app.Flags)
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			check(prefix+" "+c.Name, c.Flags)
			walk(prefix+" "+c.Name, c.Subcommands)
		}
	}
	walk(app.Name, app.Commands)
	return long
}
