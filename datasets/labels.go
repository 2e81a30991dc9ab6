package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/lazymask"
)

// A label set is a folder of generated instances, each with one good
// feasible tour, for imitation training. It grows in chunks: chunk i holds
// ChunkSize instances drawn by the generator from ChunkSeed(Seed, i), in
// CHUNK.instances.parquet, and their tours in CHUNK.solutions.parquet.
// A chunk exists once both files do (each is written atomically), so a
// run that stops loses at most the chunk it was writing.
const (
	// LabelManifest is the label set's description, written first.
	LabelManifest = "labels.json"
	// labelChunkFmt names chunk i's files (without the suffix).
	labelChunkFmt = "chunk-%05d"
)

var labelChunkRE = regexp.MustCompile(`^chunk-(\d{5,})\.solutions\.parquet$`)

// LabelSpec is everything that regenerates a label set: the generator
// settings, the chunk size and the search that made the tours.
type LabelSpec struct {
	Problem   string `json:"problem"`
	Size      int    `json:"size"`
	Hardness  string `json:"hardness"`
	Seed      uint64 `json:"seed"`
	ChunkSize int    `json:"chunk_size"`
	// Search names the start tours and the local search with its effort
	// of the run that made the set, e.g. "model tsptw50-easy greedy ×2,
	// ImproveFrom 4 starts + 20 kicks"; each solutions row names the
	// search that made its tour (Source).
	Search string `json:"search"`
	// GeneratorVersion is the generator that drew the instances.
	GeneratorVersion string `json:"generator_version"`
	// Keep names the instances a chunk keeps of the ChunkSize it draws:
	// "" every one, KeepFailed those where a start tour is infeasible.
	Keep string `json:"keep,omitempty"`
	// Prefixes marks a set of prefix completions: each tour begins with a
	// prefix of the start model's own greedy tour (its row's Fixed
	// positions) that the search completed; imitation learns the steps
	// after the prefix, the states the model reaches itself (DAgger).
	Prefixes bool `json:"prefixes,omitempty"`
	// Files, for a set of given instances (not generated), are the
	// instance files in order: chunk i holds the rows ChunkSize·i to
	// ChunkSize·(i+1) − 1 of their concatenation, so a chunk may hold
	// several sizes. Sizes lists the distinct sizes; Size is the one size,
	// or 0 where they differ. Hardness and GeneratorVersion are empty.
	Files []FileStamp `json:"files,omitempty"`
	Sizes []int       `json:"sizes,omitempty"`
	// Rounds records each relabelling round (self-improvement) in order.
	Rounds []LabelRound `json:"rounds,omitempty"`
	// Pending is a relabelling round that was interrupted; the next one
	// with the same search continues it.
	Pending *LabelRound `json:"pending,omitempty"`
}

// KeepFailed keeps only the instances where at least one start tour (a
// greedy decode of the starting network) breaks a constraint: labels for
// the instances that network finds hard.
const KeepFailed = "failed"

// LabelRound records one pass that re-solved the label set's chunks and
// kept the better of the new and the stored tour.
type LabelRound struct {
	Search   string  `json:"search"`
	Chunks   int     `json:"chunks"`
	Labels   int     `json:"labels"`    // labels compared
	Improved int     `json:"improved"`  // labels replaced by a shorter tour
	MeanGain float64 `json:"mean_gain"` // mean relative shortening over all labels
	Seconds  float64 `json:"seconds"`
	// GainSum and Done carry a round that has not finished (Pending):
	// the summed relative gains and the chunks already relabelled.
	GainSum float64 `json:"gain_sum,omitempty"`
	Done    []int   `json:"done,omitempty"`
}

// ChunkSeed is the generator seed of chunk i of a label set seeded with
// seed; chunks are independent streams, so a set grows without redrawing.
func ChunkSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// LabelChunkPaths returns chunk i's instances and solutions file paths.
func LabelChunkPaths(dir string, i int) (instances, solutions string) {
	base := filepath.Join(dir, fmt.Sprintf(labelChunkFmt, i))
	return base + ".instances.parquet", base + ".solutions.parquet"
}

// ReadLabelSpec reads dir's manifest.
func ReadLabelSpec(dir string) (LabelSpec, error) {
	var s LabelSpec
	b, err := os.ReadFile(filepath.Join(dir, LabelManifest))
	if err != nil {
		return s, fmt.Errorf("label set %s: %w", dir, err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("label set %s: %s: %w", dir, LabelManifest, err)
	}
	return s, nil
}

// WriteLabelSpec writes dir's manifest atomically.
func WriteLabelSpec(dir string, s LabelSpec) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, LabelManifest), append(b, '\n'))
}

// LabelChunks lists the complete chunks of dir in ascending order: those
// with both files, and those with only the solutions file where the set's
// instances can be drawn again (LabelSpec.Regenerable).
func LabelChunks(dir string) ([]int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("label set: %w", err)
	}
	spec, err := ReadLabelSpec(dir)
	regen := err == nil && spec.Regenerable() == nil // a chunk may then lack its instances file
	var out []int
	for _, e := range ents {
		m := labelChunkRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		i, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		inst, _ := LabelChunkPaths(dir, i)
		if _, err := os.Stat(inst); errors.Is(err, fs.ErrNotExist) && !regen {
			continue
		}
		out = append(out, i)
	}
	slices.Sort(out)
	return out, nil
}

// Regenerable reports why the set's instances cannot be drawn again from
// its manifest, or nil when they can: every chunk then needs only its
// solutions file, which is a tenth of the size (for moving a set).
func (s LabelSpec) Regenerable() error {
	if len(s.Files) > 0 {
		return fmt.Errorf("its instances come from %d instance files, not from the generator", len(s.Files))
	}
	if s.Keep != "" {
		return fmt.Errorf("its chunks keep only the instances a model failed on (keep %q), which the generator alone does not redraw", s.Keep)
	}
	if s.GeneratorVersion != GeneratorVersion {
		return fmt.Errorf("it was drawn by generator version %q, this build's is %q", s.GeneratorVersion, GeneratorVersion)
	}
	if s.ChunkSize < 1 {
		return fmt.Errorf("its chunk size is %d", s.ChunkSize)
	}
	return nil
}

// ReadLabelSetChunk reads chunk c of the label set in dir. Where the
// chunk's instances file is missing it draws the instances again from
// spec and checks every stored tour against them: each must be feasible
// and cost what its row says, or the chunk is refused.
func ReadLabelSetChunk(dir string, spec LabelSpec, c int) (*LabelChunk, error) {
	ip, sp := LabelChunkPaths(dir, c)
	if _, err := os.Stat(ip); !errors.Is(err, fs.ErrNotExist) {
		return ReadLabelChunk(ip, sp)
	}
	if err := spec.Regenerable(); err != nil {
		return nil, fmt.Errorf("label set %s: %s is missing and cannot be drawn again: %w", dir, filepath.Base(ip), err)
	}
	p, err := lazymask.ParseProblem(spec.Problem)
	if err != nil {
		return nil, fmt.Errorf("label set %s: %s: problem: %w", dir, LabelManifest, err)
	}
	gen, err := NewGenerator(GenConfig{Problem: p, N: spec.Size, Hardness: spec.Hardness, Seed: ChunkSeed(spec.Seed, c)})
	if err != nil {
		return nil, fmt.Errorf("label set %s: %s: %w", dir, LabelManifest, err)
	}
	insts := make([]*lazymask.Instance, spec.ChunkSize)
	for i := range insts {
		insts[i], _ = gen.Next()
	}
	ch, err := labelChunkOf(insts, ip, sp)
	if err != nil {
		return nil, err
	}
	for i, t := range ch.Tours {
		if t == nil {
			continue
		}
		res, err := lazymask.Check(insts[i], t)
		if err != nil || !res.Feasible || math.Abs(res.Cost-ch.costs[i]) > 1e-9*max(1, math.Abs(ch.costs[i])) {
			return nil, fmt.Errorf("label set %s: %s row for instance %d: stored cost %v, on the instance drawn again from %s the tour costs %v (feasible %v, %v): %s is needed",
				dir, filepath.Base(sp), i, ch.costs[i], LabelManifest, res.Cost, res.Feasible, err, filepath.Base(ip))
		}
	}
	return ch, nil
}

// Labels are the instances of a label set with their tours, every tour
// confirmed feasible by lazymask.Check when read.
type Labels struct {
	Spec  LabelSpec
	Insts []*lazymask.Instance
	Tours [][]int
	Costs []float64
	// Fixed holds, per tour, the positions imitation does not learn (the
	// start model's prefix in a set of prefix completions; 0 elsewhere).
	Fixed []int
	// Chunks lists the chunks read; Skipped counts instances without a
	// feasible tour (left out).
	Chunks  []int
	Skipped int
}

// ReadLabels reads every complete chunk of the label set in dir (at most
// limit instances when limit > 0) and checks each tour.
func ReadLabels(dir string, limit int) (*Labels, error) {
	spec, err := ReadLabelSpec(dir)
	if err != nil {
		return nil, err
	}
	chunks, err := LabelChunks(dir)
	if err != nil {
		return nil, err
	}
	if len(chunks) == 0 {
		return nil, fmt.Errorf("label set %s: no complete chunk (want chunk-NNNNN.instances.parquet with its .solutions.parquet)", dir)
	}
	l := &Labels{Spec: spec}
	for _, c := range chunks {
		if limit > 0 && len(l.Insts) >= limit {
			break
		}
		ip, sp := LabelChunkPaths(dir, c)
		ch, err := ReadLabelSetChunk(dir, spec, c)
		if err != nil {
			return nil, err
		}
		tours := ch.Tours
		for i, in := range ch.Insts {
			if limit > 0 && len(l.Insts) >= limit {
				break
			}
			if tours[i] == nil {
				l.Skipped++
				continue
			}
			if spec.Size > 0 && in.N != spec.Size {
				return nil, fmt.Errorf("label set %s: %s row %d: %d nodes, the set's size is %d", dir, ip, i, in.N, spec.Size)
			}
			res, err := lazymask.Check(in, tours[i])
			var te *lazymask.TourError
			if errors.As(err, &te) {
				return nil, fmt.Errorf("label set %s: %s row %d: %w", dir, sp, i, err)
			}
			if !res.Feasible {
				l.Skipped++
				continue
			}
			l.Insts = append(l.Insts, in)
			l.Tours = append(l.Tours, tours[i])
			l.Costs = append(l.Costs, res.Cost)
			l.Fixed = append(l.Fixed, ch.Fixed[i])
		}
		l.Chunks = append(l.Chunks, c)
	}
	return l, nil
}

// ReadLabelSets reads several label sets of one problem as one (at most
// limit instances in all when limit > 0), in the order given; their sizes
// may differ (the trainer batches each size apart).
func ReadLabelSets(dirs []string, limit int) (*Labels, error) {
	var all *Labels
	for _, dir := range dirs {
		left := limit // 0: all
		if all != nil && limit > 0 {
			if left -= len(all.Insts); left <= 0 {
				break
			}
		}
		l, err := ReadLabels(dir, left)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = l
			continue
		}
		if l.Spec.Problem != all.Spec.Problem {
			return nil, fmt.Errorf("label set %s holds %s instances, %s holds %s: one run imitates one problem",
				dir, l.Spec.Problem, dirs[0], all.Spec.Problem)
		}
		if l.Spec.Size != all.Spec.Size {
			all.Spec.Size = 0 // sizes differ
		}
		all.Insts, all.Tours, all.Costs = append(all.Insts, l.Insts...), append(all.Tours, l.Tours...), append(all.Costs, l.Costs...)
		all.Fixed = append(all.Fixed, l.Fixed...)
		all.Chunks, all.Skipped = append(all.Chunks, l.Chunks...), all.Skipped+l.Skipped
	}
	if all == nil {
		return nil, errors.New("no label set named")
	}
	return all, nil
}

// LabelChunk is one chunk of a label set: its instances and, per instance,
// the tour of its solutions row, the search that made it and the row's
// fixed prefix (nil, "" and 0 where there is none).
type LabelChunk struct {
	Insts   []*lazymask.Instance
	Tours   [][]int
	Sources []string
	Fixed   []int
	costs   []float64 // as the solutions rows record them
}

// ReadLabelChunk reads one chunk. A solutions file with two rows for one
// instance or a row for no instance is an error.
func ReadLabelChunk(instances, solutions string) (*LabelChunk, error) {
	d, err := ReadInstances(instances)
	if err != nil {
		return nil, err
	}
	return labelChunkOf(d.Instances, instances, solutions)
}

// labelChunkOf reads the solutions file of a chunk whose instances are
// insts (read from, or drawn again for, the file instances).
func labelChunkOf(insts []*lazymask.Instance, instances, solutions string) (*LabelChunk, error) {
	sols, _, err := ReadSolutions(solutions)
	if err != nil {
		return nil, err
	}
	n := len(insts)
	ch := &LabelChunk{Insts: insts, Tours: make([][]int, n), Sources: make([]string, n), Fixed: make([]int, n), costs: make([]float64, n)}
	for _, s := range sols {
		if s.Instance < 0 || s.Instance >= int64(n) {
			return nil, fmt.Errorf("%s: instance %d: no such row in %s (%d rows)", solutions, s.Instance, instances, n)
		}
		if ch.Tours[s.Instance] != nil {
			return nil, fmt.Errorf("%s: instance %d has two rows", solutions, s.Instance)
		}
		ch.Tours[s.Instance], ch.Sources[s.Instance], ch.Fixed[s.Instance] = s.Tour, s.Source, s.Fixed
		ch.costs[s.Instance] = s.Cost
	}
	return ch, nil
}
