package labels

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/lazymask"
)

// The generator's size and hardness where a Request names none.
const (
	DefaultSize     = 50
	DefaultHardness = "medium"
)

// Request holds a label run's settings as given; Resolve checks them. The
// optional ones are nil (or "" for Problem) where not given: Size and
// Hardness then take DefaultSize and DefaultHardness for a generated set
// and the files' for instance files, Budget the paper's R. ParseShard
// parses Shard (it may read the environment).
type Request struct {
	Problem, Shard, Model, Keep string
	Hardness                    *string
	Size, Budget                *int
	Chunk, Count                int
	Relabel, Prefixes           bool
	ParseShard                  func(string) (Shard, error)
}

// Resolved is a checked Request: the problem, the size and hardness of the
// spec (the files' largest size and no hardness with instance files), the
// shard, the keep rule and the decode budget.
type Resolved struct {
	Problem  lazymask.Problem
	Size     int
	Hardness string
	Shard    Shard
	Keep     string
	Budget   int
}

// Spec is the label set a run of r asks for: drawn by the generator from
// seed (or labelling files, FileSpec) in chunks of chunk instances, its
// tours made by search (the start tours' and the local search's
// descriptions), prefix completions where prefixes is set.
func (r Resolved) Spec(files *datasets.InstanceFiles, seed uint64, chunk int, search string, prefixes bool) datasets.LabelSpec {
	spec := datasets.LabelSpec{Problem: r.Problem.String(), Size: r.Size, Hardness: r.Hardness, Seed: seed,
		ChunkSize: chunk, GeneratorVersion: datasets.GeneratorVersion}
	if files != nil {
		spec = FileSpec(files, seed, chunk)
	}
	spec.Search, spec.Keep, spec.Prefixes = search, r.Keep, prefixes
	return spec
}

// Resolve checks the settings against each other and against the instance
// files (nil when the set is generated); every error it returns is a usage
// error, an *opterr.Error naming the Request field (Instances: the files).
func (r Request) Resolve(files *datasets.InstanceFiles) (Resolved, error) {
	var res Resolved
	if files != nil {
		if err := r.filesAgree(files); err != nil {
			return res, err
		}
	}
	p, err := lazymask.ParseProblem(r.Problem)
	if files != nil {
		p = files.Problem
	} else if err != nil {
		return res, fmt.Errorf("label: %w", opterr.New("Problem", "", "%v (or label given files with %v)", err, opterr.Name("Instances")))
	}
	size, hard := DefaultSize, DefaultHardness
	if r.Size != nil {
		size = *r.Size
	}
	if r.Hardness != nil {
		hard = strings.ToLower(*r.Hardness)
	}
	if files != nil {
		size, hard = slices.Max(files.Sizes()), ""
	} else if size < 3 {
		return res, fmt.Errorf("label: %w", opterr.New("Size", fmt.Sprint(size), "want ≥ 3"))
	} else if _, err := datasets.NewGenerator(datasets.GenConfig{Problem: p, N: size, Hardness: hard}); err != nil {
		return res, fmt.Errorf("label: %w", opterr.New("Hardness", "", "%v", err))
	}
	var shard Shard
	if r.Shard != "" {
		sh, err := r.ParseShard(r.Shard)
		if err != nil {
			return res, fmt.Errorf("label: %w", opterr.New("Shard", "", "%v", err))
		}
		if r.Relabel {
			return res, fmt.Errorf("label: %w", opterr.New("Shard", "", "grows a set; %v re-solves a whole one", opterr.Name("Relabel")))
		}
		shard = sh
	}
	if r.Chunk < 1 {
		return res, fmt.Errorf("label: %w", opterr.New("Chunk", fmt.Sprint(r.Chunk), "want ≥ 1"))
	}
	if !r.Relabel && files == nil && r.Count < 1 {
		return res, fmt.Errorf("label: %w", opterr.New("Count", fmt.Sprint(r.Count), "want ≥ 1 (instances the set should hold)"))
	}
	if r.Relabel && r.Model == "" {
		return res, fmt.Errorf("label: %w", opterr.New("Relabel", "", "needs %v (the network whose tours may beat the stored labels)", opterr.Name("Model")))
	}
	keep := ""
	switch r.Keep {
	case "all":
	case datasets.KeepFailed:
		if r.Model == "" {
			return res, fmt.Errorf("label: %w", opterr.New("Keep", r.Keep, "needs %v (the network whose failures pick the instances)", opterr.Name("Model")))
		}
		keep = datasets.KeepFailed
	default:
		return res, fmt.Errorf("label: %w", opterr.New("Keep", strconv.Quote(r.Keep), "want all or failed"))
	}
	if r.Prefixes && (r.Model == "" || r.Relabel || keep != "") {
		return res, fmt.Errorf("label: %w", opterr.New("Prefixes", "", "needs %v and goes with neither %v nor %v failed", opterr.Name("Model"), opterr.Name("Relabel"), opterr.Name("Keep")))
	}
	var budget int
	if r.Budget != nil {
		budget = *r.Budget
	} else {
		// Given files: the largest size's budget (medium where unknown).
		if budget, _ = lazymask.PaperBudget(p, size, hard); budget == 0 {
			budget, _ = lazymask.PaperBudget(p, size, "medium")
		}
	}
	return Resolved{Problem: p, Size: size, Hardness: hard, Shard: shard, Keep: keep, Budget: budget}, nil
}

// filesAgree refuses generator settings that contradict the instance
// files: another problem, another size than the files' one size, a
// hardness.
func (r Request) filesAgree(files *datasets.InstanceFiles) error {
	if r.Problem != "" && !strings.EqualFold(r.Problem, files.Problem.String()) {
		return fmt.Errorf("label: %w", opterr.New("Problem", r.Problem, "the %v files hold %v", opterr.Name("Instances"), files.Problem))
	}
	if sz := files.Sizes(); r.Size != nil && (len(sz) != 1 || sz[0] != *r.Size) {
		return fmt.Errorf("label: %w", opterr.New("Size", fmt.Sprint(*r.Size), "the %v files hold sizes %v", opterr.Name("Instances"), sz))
	}
	if r.Hardness != nil {
		return fmt.Errorf("label: %w", opterr.New("Hardness", "", "the %v files are not generated (drop it)", opterr.Name("Instances")))
	}
	return nil
}

// Pending returns the instances a run will label in dir, for its progress
// bar: with relabel every stored chunk's, else those of the shard's chunks
// below count (all of the files' instances when count is 0 or larger) that
// are not written yet.
func Pending(dir string, chunkSize, count int, files *datasets.InstanceFiles, shard Shard, relabel bool) (int, error) {
	have, err := datasets.LabelChunks(dir)
	if err != nil {
		return 0, err
	}
	if relabel {
		return len(have) * chunkSize, nil
	}
	total := count
	if files != nil && (total <= 0 || total > len(files.Instances)) {
		total = len(files.Instances)
	}
	missing := 0
	for ch := 0; ch*chunkSize < total; ch++ {
		if shard.Owns(ch) && !slices.Contains(have, ch) {
			missing++
		}
	}
	return missing * chunkSize, nil
}
