package opterr

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

func flag(option string) string {
	return map[string]string{"Out": "--out", "Force": "--force", "Model": "--model"}[option]
}

func TestErrorNamesTheOption(t *testing.T) {
	e := New("Out", "runs/x", "already holds a model (%s); pass %v to replace it", "config.json", Name("Force"))
	if got := e.Error(); got != "Out runs/x: already holds a model (config.json); pass Force to replace it" {
		t.Errorf("library message %q", got)
	}
	wrapped := fmt.Errorf("export: %w", e)
	if got := Message(wrapped, flag); got != "export: --out runs/x: already holds a model (config.json); pass --force to replace it" {
		t.Errorf("flag message %q", got)
	}
	if oe := As(wrapped); oe != e || oe.Option != "Out" || oe.Value != "runs/x" {
		t.Errorf("As: %+v", oe)
	}
	// Without a value, and an option the map lacks keeps its name.
	e = New("Relabel", "", "needs %v", Name("Model"))
	if got := Message(e, flag); got != "Relabel: needs --model" {
		t.Errorf("unmapped option %q", got)
	}
	// A clause reads on from the option's name.
	if got := Message(fmt.Errorf("usage: %w", Clause("Force", "needs %v", Name("Out"))), flag); got != "usage: --force needs --out" {
		t.Errorf("clause %q", got)
	}
}

func TestWrapKeepsTheCause(t *testing.T) {
	if Wrap("Out", "x", nil) != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
	err := fmt.Errorf("train: %w", Wrap("Val", "", fmt.Errorf("v.parquet: %w", fs.ErrNotExist)))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("cause lost: %v", err)
	}
	if got := Message(err, func(string) string { return "--val" }); got != "train: --val: v.parquet: file does not exist" {
		t.Errorf("message %q", got)
	}
	// Errorf's %w wraps too, and its names are spelled.
	err = New("Keep", "failed", "needs %v: %w", Name("Model"), fs.ErrNotExist)
	if !errors.Is(err, fs.ErrNotExist) || Message(err, flag) != "Keep failed: needs --model: file does not exist" {
		t.Errorf("Errorf %%w: %q", Message(err, flag))
	}
}

func TestMessageFindsEveryError(t *testing.T) {
	inner := New("Out", "o.parquet", "is the %v file", Name("Model"))
	outer := Wrap("Force", "", fmt.Errorf("because %w", inner))
	joined := errors.Join(errors.New("first"), fmt.Errorf("second: %w", outer))
	want := "first\nsecond: --force: because --out o.parquet: is the --model file"
	if got := Message(joined, flag); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if Has(errors.New("plain")) || Message(nil, flag) != "" {
		t.Error("plain errors hold no option")
	}
	if got := Message(errors.New("no --options here"), flag); !strings.HasPrefix(got, "no --options") {
		t.Errorf("plain message changed: %q", got)
	}
}
