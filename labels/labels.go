// Package labels builds label sets for imitation training: generated
// instances, each with a good feasible tour from local search started at
// tours a model (or a heuristic) decoded. A set grows chunk by chunk
// (datasets.LabelChunkPaths), so it can be built across several runs and
// continued after an interruption; Relabel re-solves a set with a newer
// model and keeps each instance's better tour (self-improvement rounds).
package labels

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
)

// Starter returns, for each instance, the tours the local search starts
// from (e.g. a model's greedy tours under several transforms).
type Starter interface {
	Starts(ctx context.Context, insts []*lazymask.Instance) ([][][]int, error)
	// Describe names the start tours for the manifest.
	Describe() string
}

// Search is the local search that turns start tours into labels.
type Search struct {
	// Kicks and MaxStarts are localsearch.Options' (no time limit, so the
	// labels depend on the seed only).
	Kicks, MaxStarts int
	// Workers searching in parallel (0: one per CPU).
	Workers int
}

// Describe names the search for the manifest.
func (s Search) Describe() string {
	return fmt.Sprintf("localsearch.ImproveFrom, %d best starts + %d kicks", s.MaxStarts, s.Kicks)
}

// Progress receives the number of instances labelled so far in a call.
type Progress func(done int)

// labelSeedMix separates each instance's search seed from the set's seed.
const labelSeedMix = 0xd1b54a32d192ed03

// progressEvery is how many instances solve hands to the search at once,
// between progress reports and interruption checks.
const progressEvery = 256

// solve improves every instance from its starts (solve.Improve, with the
// urgency order where no start is feasible) and returns the checked best
// tour of each (nil where no feasible tour was found). The tours depend
// on seed and the chunk only, not on the worker count.
func (s Search) solve(ctx context.Context, insts []*lazymask.Instance, starts [][][]int, seed uint64, progress Progress) ([][]int, error) {
	return s.solveFixed(ctx, insts, starts, nil, seed, progress)
}

// solveFixed is solve where instance i's starts share a prefix of fixed[i]
// positions that the search keeps (fixed nil: none).
func (s Search) solveFixed(ctx context.Context, insts []*lazymask.Instance, starts [][][]int, fixed []int, seed uint64, progress Progress) ([][]int, error) {
	tours := make([][]int, len(insts))
	opt := solve.Options{Search: localsearch.Options{Kicks: s.Kicks, MaxStarts: s.MaxStarts}, Urgency: true, Workers: s.Workers}
	for lo := 0; lo < len(insts); lo += progressEvery {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+progressEvery, len(insts))
		jobs := make([]solve.Job, hi-lo)
		for i := range jobs {
			jobs[i] = solve.Job{Inst: insts[lo+i], Starts: starts[lo+i], Seed: seed ^ uint64(lo+i+1)*labelSeedMix}
			if fixed != nil {
				jobs[i].Fixed = fixed[lo+i]
			}
		}
		res, _, err := solve.Improve(ctx, jobs, opt)
		if err != nil {
			return nil, err
		}
		for i, r := range res {
			if r.Searched && r.Final.Feasible {
				tours[lo+i] = r.Search.Tour
			}
		}
		if progress != nil {
			progress(hi)
		}
	}
	return tours, nil
}

// Builder grows a label set.
type Builder struct {
	Dir     string
	Spec    datasets.LabelSpec
	Starter Starter
	Search  Search
	// Progress, if set, is called with the instances labelled in this call.
	Progress Progress
	// Log receives a line per chunk written (nil: none).
	Log func(format string, args ...any)
	// Files, when set, are the given instances the set labels (its spec
	// records their stamps); nil: the generator draws them.
	Files *datasets.InstanceFiles
	// Shard, when it splits the chunks (Count > 1), limits Grow to the
	// chunks i with i mod Count = Index, so that several machines grow one
	// set (Merge joins or checks their chunks).
	Shard Shard
	// Decodes is the number of start tours the starter decodes per
	// instance; with Keep failed, an instance served fewer (a decode that
	// ended without a complete tour) counts as failed.
	Decodes int
}

// Open returns the set's spec: the manifest of an existing set in dir
// (which must agree with want on problem, size, hardness, seed, chunk
// size and, for a set of given instances, the files and their content),
// or want itself for a new one, whose manifest it writes.
func Open(dir string, want datasets.LabelSpec) (datasets.LabelSpec, error) {
	have, err := datasets.ReadLabelSpec(dir)
	if err == nil {
		if err := sameSet(have, want); err != nil {
			return have, fmt.Errorf("label set %s: %w (use another folder)", dir, err)
		}
		return have, nil
	}
	if _, statErr := os.Stat(dir); statErr == nil {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			// Hidden names are temporary files, e.g. another shard's manifest
			// being written into a shared folder.
			if !strings.HasPrefix(e.Name(), ".") {
				return want, fmt.Errorf("%s is not empty and holds no %s: not a label set", dir, datasets.LabelManifest)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return want, err
	}
	if err := datasets.WriteLabelSpec(dir, want); err != nil {
		return want, err
	}
	// Shards starting together in one folder each write the manifest; a
	// shard asked for another set finds out here.
	have, err = datasets.ReadLabelSpec(dir)
	if err != nil {
		return want, err
	}
	if err := sameSet(have, want); err != nil {
		return have, fmt.Errorf("label set %s: %w (another run made it at the same time)", dir, err)
	}
	return want, nil
}

// sameSet returns nil when a set made with spec want would be the set
// have describes (its chunks then fit together), else why not.
func sameSet(have, want datasets.LabelSpec) error {
	if len(have.Files) > 0 || len(want.Files) > 0 {
		if err := datasets.SameFiles(have.Files, want.Files); err != nil {
			return fmt.Errorf("its instance files differ: %w", err)
		}
	} else if have.GeneratorVersion != want.GeneratorVersion {
		return fmt.Errorf("it was drawn by generator version %s, this program has version %s",
			have.GeneratorVersion, want.GeneratorVersion)
	}
	if have.Problem != want.Problem || have.Size != want.Size || have.Hardness != want.Hardness ||
		have.Seed != want.Seed || have.ChunkSize != want.ChunkSize || have.Keep != want.Keep || have.Prefixes != want.Prefixes {
		return fmt.Errorf("it was made with problem %s, size %d, hardness %s, seed %d, chunk %d, keep %q, prefixes %v; "+
			"this call asks for %s, %d, %s, %d, %d, %q, %v", have.Problem, have.Size, have.Hardness,
			have.Seed, have.ChunkSize, have.Keep, have.Prefixes, want.Problem, want.Size, want.Hardness, want.Seed, want.ChunkSize, want.Keep, want.Prefixes)
	}
	return nil
}

// Grow writes the missing chunks until the set holds at least count
// instances (a set of given instances: count ≤ 0 or beyond its files
// means all of them). Existing chunks are kept as they are; with Shard,
// only the shard's chunks are written. It returns the number of chunks
// written.
func (b *Builder) Grow(ctx context.Context, count int) (int, error) {
	cs := b.Spec.ChunkSize
	have, err := datasets.LabelChunks(b.Dir)
	if err != nil {
		return 0, err
	}
	exists := map[int]bool{}
	for _, c := range have {
		exists[c] = true
	}
	p, err := lazymask.ParseProblem(b.Spec.Problem)
	if err != nil {
		return 0, err
	}
	if b.Files != nil && (count <= 0 || count > len(b.Files.Instances)) {
		count = len(b.Files.Instances)
	}
	written, base := 0, 0
	for c := 0; c*cs < count; c++ {
		if exists[c] || !b.Shard.Owns(c) {
			continue
		}
		if ctx.Err() != nil {
			return written, ctx.Err()
		}
		start := time.Now()
		insts, meta, err := b.chunkInstances(p, c)
		if err != nil {
			return written, err
		}
		drawn := len(insts)
		starts, err := b.starts(ctx, insts)
		if err != nil {
			return written, fmt.Errorf("label chunk %d: %w", c, err)
		}
		if b.Spec.Keep == datasets.KeepFailed {
			insts, starts = keepFailed(insts, starts, b.Decodes)
		}
		var fixed []int
		if b.Spec.Prefixes {
			starts, fixed = prefixes(insts, starts, datasets.ChunkSeed(b.Spec.Seed, c))
		}
		tours, err := b.Search.solveFixed(ctx, insts, starts, fixed, datasets.ChunkSeed(b.Spec.Seed, c), b.progress(base))
		if err != nil {
			return written, fmt.Errorf("label chunk %d: %w", c, err)
		}
		ip, sp := datasets.LabelChunkPaths(b.Dir, c)
		if err := datasets.WriteInstances(ip, meta, insts, nil, datasets.WriterOptions{}); err != nil {
			return written, err
		}
		found, cost, err := writeTours(sp, ip, meta, insts, tours, nil, fixed, b.Starter.Describe()+"; "+b.Search.Describe())
		if err != nil {
			return written, err
		}
		base += drawn
		written++
		if b.Log != nil {
			b.Log("chunk %d: %d of %d instances labelled (%d drawn), mean length %.4f, %.1f s", c, found, len(insts), drawn, cost, time.Since(start).Seconds())
		}
	}
	return written, nil
}

// solveChunk starts and improves one chunk's instances; base offsets the
// progress count.
func (b *Builder) solveChunk(ctx context.Context, insts []*lazymask.Instance, seed uint64, base int) ([][]int, error) {
	starts, err := b.starts(ctx, insts)
	if err != nil {
		return nil, err
	}
	return b.Search.solve(ctx, insts, starts, seed, b.progress(base))
}

func (b *Builder) starts(ctx context.Context, insts []*lazymask.Instance) ([][][]int, error) {
	starts, err := b.Starter.Starts(ctx, insts)
	if err == nil && len(starts) != len(insts) {
		err = fmt.Errorf("starter gave %d start sets for %d instances", len(starts), len(insts))
	}
	return starts, err
}

// progress offsets the count of a chunk's progress reports by base.
func (b *Builder) progress(base int) Progress {
	if b.Progress == nil {
		return nil
	}
	return func(d int) { b.Progress(base + d) }
}

// keepFailed returns the instances (and their starts) with fewer than
// decodes start tours or a start tour that lazymask.Check finds
// infeasible.
func keepFailed(insts []*lazymask.Instance, starts [][][]int, decodes int) ([]*lazymask.Instance, [][][]int) {
	var ki []*lazymask.Instance
	var ks [][][]int
	for i, in := range insts {
		failed := len(starts[i]) < max(decodes, 1)
		for _, t := range starts[i] {
			if failed {
				break
			}
			failed = tourCost(in, t) >= 1e300
		}
		if failed {
			ki, ks = append(ki, in), append(ks, starts[i])
		}
	}
	return ki, ks
}

// prefixSeedMix separates the draw of each instance's prefix length.
const prefixSeedMix = 0x9fb21c651e98df25

// prefixes turns each instance's first start tour (the model's greedy
// decode) into the start of a prefix completion: a prefix of 2 to n−2
// positions (uniform, seeded by seed and the instance), cut before the
// first node that breaks a constraint. It returns one start per instance
// and the prefix lengths; an instance without a start keeps none (no label).
func prefixes(insts []*lazymask.Instance, starts [][][]int, seed uint64) ([][][]int, []int) {
	out := make([][][]int, len(insts))
	fixed := make([]int, len(insts))
	for i, in := range insts {
		if len(starts[i]) == 0 || in.N < 4 {
			continue
		}
		t := starts[i][0]
		rng := rand.New(rand.NewPCG(seed, uint64(i+1)*prefixSeedMix))
		k := 2 + rng.IntN(in.N-3)
		if r, err := lazymask.Check(in, t); err != nil {
			continue
		} else if !r.Feasible {
			for p := 1; p < k; p++ {
				if r.Violation[t[p]] > lazymask.Tol {
					k = p
					break
				}
			}
		}
		if k < 2 {
			continue
		}
		out[i], fixed[i] = [][]int{t}, k
	}
	return out, fixed
}

// writeTours writes one solutions row per instance with a tour (checked
// again by datasets.Checked), its source sources[i] (or source where
// sources is nil or empty there) and its fixed prefix fixed[i] (none where
// fixed is nil), and returns how many and their mean length.
func writeTours(path, instances string, meta datasets.Metadata, insts []*lazymask.Instance, tours [][]int, sources []string, fixed []int, source string) (int, float64, error) {
	sm := meta
	sm.Kind, sm.Source, sm.Instances = datasets.KindSolutions, source, filepath.Base(instances)
	sols := make([]datasets.Solution, 0, len(insts))
	var sum float64
	for i, t := range tours {
		if t == nil {
			continue
		}
		src := source
		if sources != nil && sources[i] != "" {
			src = sources[i]
		}
		s, err := datasets.Checked(insts[i], int64(i), t, src)
		if err != nil {
			return 0, 0, err
		}
		if !s.Feasible {
			return 0, 0, fmt.Errorf("%s: instance %d: label tour is infeasible", path, i)
		}
		if fixed != nil {
			s.Fixed = fixed[i]
		}
		sols = append(sols, s)
		sum += s.Cost
	}
	if err := datasets.WriteSolutions(path, sm, sols, datasets.WriterOptions{}); err != nil {
		return 0, 0, err
	}
	if len(sols) == 0 {
		return 0, 0, nil
	}
	return len(sols), sum / float64(len(sols)), nil
}

// Relabel re-solves every chunk of the set (self-improvement: start tours
// from b.Starter, e.g. a newer model) and keeps, per instance, the shorter
// of the new tour and the stored one. The round is kept in the manifest as
// pending after every chunk, so an interrupted round with the same search
// continues where it stopped; at the end it joins the manifest's rounds
// and is returned.
func (b *Builder) Relabel(ctx context.Context) (datasets.LabelRound, error) {
	start := time.Now()
	search := b.Starter.Describe() + "; " + b.Search.Describe()
	spec, err := datasets.ReadLabelSpec(b.Dir)
	if err != nil {
		return datasets.LabelRound{}, err
	}
	if spec.Prefixes {
		return datasets.LabelRound{}, fmt.Errorf("label set %s holds prefix completions of one model's tours: relabelling would replace them by whole tours (draw a new set instead)", b.Dir)
	}
	round := datasets.LabelRound{Search: search}
	if p := spec.Pending; p != nil && p.Search == search {
		round = *p
		if b.Log != nil {
			b.Log("continuing the interrupted round: %d chunks done", len(round.Done))
		}
	}
	chunks, err := datasets.LabelChunks(b.Dir)
	if err != nil {
		return round, err
	}
	seed := uint64(len(spec.Rounds) + 1)
	base := 0
	for _, c := range chunks {
		if slices.Contains(round.Done, c) {
			continue
		}
		ip, sp := datasets.LabelChunkPaths(b.Dir, c)
		ch, err := datasets.ReadLabelSetChunk(b.Dir, spec, c)
		if err != nil {
			return round, err
		}
		insts, old, sources := ch.Insts, ch.Tours, ch.Sources
		tours, err := b.solveChunk(ctx, insts, datasets.ChunkSeed(b.Spec.Seed, c)^seed, base)
		if err != nil {
			return round, fmt.Errorf("relabel chunk %d: %w", c, err)
		}
		for i := range insts {
			round.Labels++
			oc, nc := tourCost(insts[i], old[i]), tourCost(insts[i], tours[i])
			if nc < oc {
				if oc < 1e300 {
					round.GainSum += (oc - nc) / oc
				}
				old[i], sources[i] = tours[i], search
				round.Improved++
			}
		}
		sm, err := solutionsMeta(sp)
		if err != nil {
			return round, err
		}
		if _, _, err := writeTours(sp, ip, sm, insts, old, sources, nil, search); err != nil {
			return round, err
		}
		base += len(insts)
		round.Chunks++
		round.Done = append(round.Done, c)
		round.Seconds += time.Since(start).Seconds()
		start = time.Now()
		spec.Pending = &round
		if err := datasets.WriteLabelSpec(b.Dir, spec); err != nil {
			return round, err
		}
		if b.Log != nil {
			b.Log("relabel chunk %d: %d of %d improved so far", c, round.Improved, round.Labels)
		}
	}
	if round.Labels > 0 {
		round.MeanGain = round.GainSum / float64(round.Labels)
	}
	round.GainSum, round.Done = 0, nil
	spec.Pending = nil
	spec.Rounds = append(spec.Rounds, round)
	b.Spec = spec
	return round, datasets.WriteLabelSpec(b.Dir, spec)
}

// tourCost is a tour's length when the checker finds it feasible, else a
// huge value (no tour, or one that breaks a constraint).
func tourCost(inst *lazymask.Instance, tour []int) float64 {
	if tour == nil {
		return 1e308
	}
	r, err := lazymask.Check(inst, tour)
	if err != nil || !r.Feasible {
		return 1e308
	}
	return r.Cost
}

// solutionsMeta reads a solutions file's metadata.
func solutionsMeta(path string) (datasets.Metadata, error) {
	_, m, err := datasets.ReadSolutions(path)
	return m, err
}

// StarterFunc adapts a function (e.g. a model's decoder) to Starter.
type StarterFunc struct {
	Fn   func(ctx context.Context, insts []*lazymask.Instance) ([][][]int, error)
	Desc string
}

// Starts calls Fn.
func (s StarterFunc) Starts(ctx context.Context, insts []*lazymask.Instance) ([][][]int, error) {
	return s.Fn(ctx, insts)
}

// Describe returns Desc.
func (s StarterFunc) Describe() string { return s.Desc }

// RandomL starts the search from Samples Random-L tours per instance
// (solve.Heuristic, instance i seeded with Seed+i), decoded under the
// LazyMask masks with budget Budget.
type RandomL struct {
	Samples, Budget int
	Seed            uint64
	Workers         int
}

// Describe names the start tours.
func (r RandomL) Describe() string { return fmt.Sprintf("Random-L ×%d, R = %d", r.Samples, r.Budget) }

// Starts decodes the Random-L tours.
func (r RandomL) Starts(ctx context.Context, insts []*lazymask.Instance) ([][][]int, error) {
	dec, err := solve.Heuristic(ctx, insts, func() lazymask.Policy { return &lazymask.RandomL{} }, r.Samples,
		lazymask.Config{Budget: r.Budget, Seed: r.Seed}, r.Workers)
	if err != nil {
		return nil, err
	}
	out := make([][][]int, len(insts))
	for i, d := range dec {
		for _, t := range d.Tours {
			if t.Nodes != nil {
				out[i] = append(out[i], t.Nodes)
			}
		}
	}
	return out, nil
}
