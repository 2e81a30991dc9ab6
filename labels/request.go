package labels

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lmask/lmask/datasets"
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

// Resolve checks the flags against each other and against the instance
// files (nil when the set is generated); every error it returns is a usage
// error naming the flag.
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
		return res, fmt.Errorf("label: flag --problem: %v (or label given files with --instances)", err)
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
		return res, fmt.Errorf("label: flag --size: %d, want ≥ 3", size)
	} else if _, err := datasets.NewGenerator(datasets.GenConfig{Problem: p, N: size, Hardness: hard}); err != nil {
		return res, fmt.Errorf("label: flag --hardness: %v", err)
	}
	var shard Shard
	if r.Shard != "" {
		sh, err := r.ParseShard(r.Shard)
		if err != nil {
			return res, fmt.Errorf("label: flag --shard: %v", err)
		}
		if r.Relabel {
			return res, fmt.Errorf("label: --shard grows a set; --relabel re-solves a whole one")
		}
		shard = sh
	}
	if r.Chunk < 1 {
		return res, fmt.Errorf("label: flag --chunk: %d, want ≥ 1", r.Chunk)
	}
	if !r.Relabel && files == nil && r.Count < 1 {
		return res, fmt.Errorf("label: flag --count: %d, want ≥ 1 (instances the set should hold)", r.Count)
	}
	if r.Relabel && r.Model == "" {
		return res, fmt.Errorf("label: --relabel needs --model (the network whose tours may beat the stored labels)")
	}
	keep := ""
	switch r.Keep {
	case "all":
	case datasets.KeepFailed:
		if r.Model == "" {
			return res, fmt.Errorf("label: --keep failed needs --model (the network whose failures pick the instances)")
		}
		keep = datasets.KeepFailed
	default:
		return res, fmt.Errorf("label: flag --keep: %q, want all or failed", r.Keep)
	}
	if r.Prefixes && (r.Model == "" || r.Relabel || keep != "") {
		return res, fmt.Errorf("label: --prefixes needs --model and goes with neither --relabel nor --keep failed")
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

// filesAgree refuses generator flags that contradict the instance
// files: another problem, another size than the files' one size, a
// hardness.
func (r Request) filesAgree(files *datasets.InstanceFiles) error {
	if r.Problem != "" && !strings.EqualFold(r.Problem, files.Problem.String()) {
		return fmt.Errorf("label: flag --problem %s: the --instances files hold %v", r.Problem, files.Problem)
	}
	if sz := files.Sizes(); r.Size != nil && (len(sz) != 1 || sz[0] != *r.Size) {
		return fmt.Errorf("label: flag --size %d: the --instances files hold sizes %v", *r.Size, sz)
	}
	if r.Hardness != nil {
		return fmt.Errorf("label: flag --hardness: the --instances files are not generated (drop the flag)")
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
