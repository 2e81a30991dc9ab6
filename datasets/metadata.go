package datasets

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// FormatVersion is the version of the Parquet layout written by this package
// (metadata key "lmask.format").
const FormatVersion = "1"

// GeneratorVersion identifies the random generators of this package; it is
// stored in generated files under "lmask.generator_version". It changes
// whenever the same seed would produce different instances.
const GeneratorVersion = "1"

// File kinds stored under "lmask.kind".
const (
	KindInstances = "instances"
	KindSolutions = "solutions"
)

// Metadata keys of the Parquet file-level key-value metadata.
const (
	KeyFormat           = "lmask.format"
	KeyKind             = "lmask.kind"
	KeyProblem          = "lmask.problem"
	KeySize             = "lmask.size"
	KeyHardness         = "lmask.hardness"
	KeySeed             = "lmask.seed"
	KeyScale            = "lmask.scale"
	KeyWidth            = "lmask.width"
	KeyGeneratorVersion = "lmask.generator_version"
	KeyCount            = "lmask.count"
	KeySource           = "lmask.source"
	KeyInstances        = "lmask.instances"
)

// Metadata is the file-level description of a dataset or solutions file.
// Zero values are not written (except Count, which the writers always set).
type Metadata struct {
	Kind     string // KindInstances or KindSolutions
	Problem  string // "tsptw" or "tspdl"
	Size     int    // nodes per instance, depot included (0 when sizes vary)
	Hardness string // "easy", "medium", "hard" or empty
	Seed     uint64
	Seeded   bool    // Seed is meaningful
	Scale    float64 // normalisation scale (0 when it varies)
	Width    float64 // TSPTW hard maximum window width, raw units
	// GeneratorVersion is set for generated files.
	GeneratorVersion string
	// Count is the number of rows, set by the writers on Close.
	Count int64
	// Source names the origin: "generator", a file or directory path, a
	// solver name ("pyvrp", "lkh", "optimal", "best_known", ...).
	Source string
	// Instances is, for a solutions file, the instance file it refers to.
	Instances string
	// Extra holds any other key-value pairs.
	Extra map[string]string
}

// pairs returns the metadata as key-value pairs, sorted by key.
func (m Metadata) pairs() [][2]string {
	var p [][2]string
	add := func(k, v string) {
		if v != "" {
			p = append(p, [2]string{k, v})
		}
	}
	add(KeyFormat, FormatVersion)
	add(KeyKind, m.Kind)
	add(KeyProblem, m.Problem)
	if m.Size > 0 {
		add(KeySize, strconv.Itoa(m.Size))
	}
	add(KeyHardness, m.Hardness)
	if m.Seeded {
		add(KeySeed, strconv.FormatUint(m.Seed, 10))
	}
	if m.Scale > 0 {
		add(KeyScale, strconv.FormatFloat(m.Scale, 'g', -1, 64))
	}
	if m.Width > 0 {
		add(KeyWidth, strconv.FormatFloat(m.Width, 'g', -1, 64))
	}
	add(KeyGeneratorVersion, m.GeneratorVersion)
	add(KeyCount, strconv.FormatInt(m.Count, 10))
	add(KeySource, m.Source)
	add(KeyInstances, m.Instances)
	for k, v := range m.Extra {
		if !strings.HasPrefix(k, "lmask.") || !knownKey(k) {
			add(k, v)
		}
	}
	sort.Slice(p, func(i, j int) bool { return p[i][0] < p[j][0] })
	return p
}

func knownKey(k string) bool {
	switch k {
	case KeyFormat, KeyKind, KeyProblem, KeySize, KeyHardness, KeySeed, KeyScale, KeyWidth,
		KeyGeneratorVersion, KeyCount, KeySource, KeyInstances:
		return true
	}
	return false
}

// parseMetadata builds Metadata from key-value pairs; lookup returns the
// value of a key and whether it is present.
func parseMetadata(keys []string, lookup func(string) (string, bool)) (Metadata, error) {
	var m Metadata
	get := func(k string) string { v, _ := lookup(k); return v }
	m.Kind = get(KeyKind)
	m.Problem = get(KeyProblem)
	m.Hardness = get(KeyHardness)
	m.GeneratorVersion = get(KeyGeneratorVersion)
	m.Source = get(KeySource)
	m.Instances = get(KeyInstances)
	var err error
	if v := get(KeySize); v != "" {
		if m.Size, err = strconv.Atoi(v); err != nil {
			return m, fmt.Errorf("metadata %s: %q is not an integer", KeySize, v)
		}
	}
	if v := get(KeySeed); v != "" {
		if m.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			return m, fmt.Errorf("metadata %s: %q is not an unsigned integer", KeySeed, v)
		}
		m.Seeded = true
	}
	if v := get(KeyScale); v != "" {
		if m.Scale, err = strconv.ParseFloat(v, 64); err != nil {
			return m, fmt.Errorf("metadata %s: %q is not a number", KeyScale, v)
		}
	}
	if v := get(KeyWidth); v != "" {
		if m.Width, err = strconv.ParseFloat(v, 64); err != nil {
			return m, fmt.Errorf("metadata %s: %q is not a number", KeyWidth, v)
		}
	}
	if v := get(KeyCount); v != "" {
		if m.Count, err = strconv.ParseInt(v, 10, 64); err != nil {
			return m, fmt.Errorf("metadata %s: %q is not an integer", KeyCount, v)
		}
	}
	for _, k := range keys {
		if !knownKey(k) {
			if m.Extra == nil {
				m.Extra = map[string]string{}
			}
			m.Extra[k] = get(k)
		}
	}
	return m, nil
}

// MatchSolutions checks that the solutions file solPath (metadata sol)
// can belong to the instances file instPath (metadata inst): an error
// when both record a problem, a size or a hardness and they differ. When
// the solutions file names the instances file it was made for and that
// name differs from instPath's, the returned note says so (not an error:
// files get copied and renamed).
func MatchSolutions(instPath string, inst Metadata, solPath string, sol Metadata) (note string, err error) {
	switch {
	case inst.Problem != "" && sol.Problem != "" && inst.Problem != sol.Problem:
		return "", fmt.Errorf("%s holds %s solutions, but %s holds %s instances", solPath, sol.Problem, instPath, inst.Problem)
	case inst.Size > 0 && sol.Size > 0 && inst.Size != sol.Size:
		return "", fmt.Errorf("%s holds solutions of %d-node instances, but %s holds %d-node instances", solPath, sol.Size, instPath, inst.Size)
	case inst.Hardness != "" && sol.Hardness != "" && inst.Hardness != sol.Hardness:
		return "", fmt.Errorf("%s holds solutions of %s instances, but %s holds %s instances", solPath, sol.Hardness, instPath, inst.Hardness)
	}
	if sol.Instances != "" && filepath.Base(sol.Instances) != filepath.Base(instPath) {
		note = fmt.Sprintf("note: %s was written for the instances in %s, here read with %s", solPath, sol.Instances, instPath)
	}
	return note, nil
}
