// Package modelpath resolves a --model argument: a model folder, or the
// name of a shipped model (e.g. tsptw50-hard) looked up in
// models/pretrained, as model hubs let users name their models.
package modelpath

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// EnvDir names a folder of models searched before the built-in places.
const EnvDir = "LMASK_MODELS"

// Resolve returns arg itself when it names an existing file or folder, or
// when it contains a path separator; otherwise the folder of the shipped
// model of that name in the first of SearchDirs that holds one.
func Resolve(arg string) (string, error) {
	if arg == "" {
		return "", nil
	}
	if _, err := os.Stat(arg); err == nil || strings.ContainsAny(arg, "/"+string(os.PathSeparator)) {
		return arg, nil
	}
	dirs := SearchDirs()
	for _, d := range dirs {
		p := filepath.Join(d, arg)
		if st, err := os.Stat(filepath.Join(p, "config.json")); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	if len(dirs) == 0 {
		return "", fmt.Errorf("model %q: no such folder, and no models/pretrained folder to look it up in (set %s)", arg, EnvDir)
	}
	return "", fmt.Errorf("model %q: no such folder, and no shipped model of that name in %s (shipped: %s)",
		arg, strings.Join(dirs, ", "), strings.Join(Shipped(dirs), ", "))
}

// SearchDirs lists the existing folders a model name is looked up in, in
// order: $LMASK_MODELS, models/pretrained beside or above the running
// executable (bin/ of a checkout), and models/pretrained in the working
// folder.
func SearchDirs() []string {
	var cand []string
	if d := os.Getenv(EnvDir); d != "" {
		cand = append(cand, d)
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			dir := filepath.Dir(exe)
			cand = append(cand, filepath.Join(dir, "models", "pretrained"), filepath.Join(dir, "..", "models", "pretrained"))
		}
	}
	cand = append(cand, filepath.Join("models", "pretrained"))
	var out []string
	seen := map[string]bool{}
	for _, d := range cand {
		abs, err := filepath.Abs(d)
		if err != nil || seen[abs] {
			continue
		}
		if st, err := os.Stat(abs); err == nil && st.IsDir() {
			seen[abs] = true
			out = append(out, abs)
		}
	}
	return out
}

// Shipped lists the model names (folders with a config.json) in dirs,
// sorted and without repeats.
func Shipped(dirs []string) []string {
	set := map[string]bool{}
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if _, err := os.Stat(filepath.Join(d, e.Name(), "config.json")); err == nil {
				set[e.Name()] = true
			}
		}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
