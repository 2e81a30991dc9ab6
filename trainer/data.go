package trainer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/lazymask"
)

// splitStream separates the validation split's draw from the run's PCG.
const splitStream = 0x6c6d61736b2d7370 // "lmask-sp"

// TrainSet holds the instances a run draws its REINFORCE batches from
// (Config.TrainData) instead of the generator, bucketed by size: a batch
// takes a bucket with probability proportional to its count, then
// instances of it, so every batch holds one size (the replay graph needs
// one N) and each instance is as likely as any other.
type TrainSet struct {
	Sizes   []int                        // ascending
	Buckets map[int][]*lazymask.Instance // size → instances, in file order
	Total   int
}

// newTrainSet buckets insts by size.
func newTrainSet(insts []*lazymask.Instance) *TrainSet {
	ts := &TrainSet{Buckets: map[int][]*lazymask.Instance{}, Total: len(insts)}
	for _, in := range insts {
		if _, ok := ts.Buckets[in.N]; !ok {
			ts.Sizes = append(ts.Sizes, in.N)
		}
		ts.Buckets[in.N] = append(ts.Buckets[in.N], in)
	}
	slices.Sort(ts.Sizes)
	return ts
}

// draw returns count instances of one size, seeded by rng: the bucket of a
// uniformly drawn instance, then count distinct instances of it (with
// repeats only where the bucket holds fewer). Each is a shallow copy, so
// the decoder caches its matrix on the copy and never on a shared one.
func (ts *TrainSet) draw(rng *rand.Rand, count int) []*lazymask.Instance {
	k := rng.IntN(ts.Total)
	var b []*lazymask.Instance
	for _, n := range ts.Sizes {
		if b = ts.Buckets[n]; k < len(b) {
			break
		}
		k -= len(b)
	}
	out := make([]*lazymask.Instance, count)
	var idx []int
	if len(b) >= count {
		idx = make([]int, len(b))
		for i := range idx {
			idx[i] = i
		}
		for i := 0; i < count; i++ { // a partial Fisher–Yates shuffle
			j := i + rng.IntN(len(b)-i)
			idx[i], idx[j] = idx[j], idx[i]
		}
	}
	for i := range out {
		j := 0
		if idx != nil {
			j = idx[i]
		} else {
			j = rng.IntN(len(b))
		}
		c := *b[j]
		out[i] = &c
	}
	return out
}

// LabelSetSizes returns the problem and the sizes of the label sets in
// dirs, from their manifests (for a run that imitates them without naming
// a size).
func LabelSetSizes(dirs []string) (lazymask.Problem, []int, error) {
	var sizes []int
	var problem string
	for _, d := range dirs {
		s, err := datasets.ReadLabelSpec(d)
		if err != nil {
			return 0, nil, err
		}
		if problem != "" && s.Problem != problem {
			return 0, nil, fmt.Errorf("label set %s holds %s instances, %s holds %s: one run imitates one problem", d, s.Problem, dirs[0], problem)
		}
		problem = s.Problem
		have := s.Sizes
		if len(have) == 0 {
			have = []int{s.Size}
		}
		for _, n := range have {
			if !slices.Contains(sizes, n) {
				sizes = append(sizes, n)
			}
		}
	}
	slices.Sort(sizes)
	p, err := lazymask.ParseProblem(problem)
	if err != nil || len(sizes) == 0 || sizes[0] < 3 {
		return 0, nil, fmt.Errorf("label sets %s: problem %q, sizes %v in their %s", strings.Join(dirs, ","), problem, sizes, datasets.LabelManifest)
	}
	return p, sizes, nil
}

// loadTrainData reads the run's instance files (files, when the caller
// read them already, else again from Config.TrainData, whose stamps they
// must match) and splits them: a share ValSplit of the instances, drawn
// from the run's seed, becomes the validation set (nil without a split)
// and never enters the training set.
func loadTrainData(cfg *Config, files *datasets.InstanceFiles) (*TrainSet, *ValSet, error) {
	if files == nil {
		paths := make([]string, len(cfg.TrainData))
		for i, s := range cfg.TrainData {
			paths[i] = s.Path
		}
		var err error
		if files, err = datasets.ReadInstanceFiles(paths); err != nil {
			return nil, nil, fmt.Errorf("train data: %w", err)
		}
	}
	if err := datasets.SameFiles(cfg.TrainData, files.Stamps); err != nil {
		return nil, nil, fmt.Errorf("train data: %w (the run was made from other files)", err)
	}
	if files.Problem != cfg.ProblemKind() {
		return nil, nil, fmt.Errorf("train data: %v instances, the run trains %v", files.Problem, cfg.ProblemKind())
	}
	train, val := SplitIndices(len(files.Instances), cfg.ValSplit, cfg.Seed)
	pick := func(idx []int) []*lazymask.Instance {
		out := make([]*lazymask.Instance, len(idx))
		for i, j := range idx {
			out[i] = files.Instances[j]
		}
		return out
	}
	if len(train) == 0 {
		return nil, nil, fmt.Errorf("train data: %w", opterr.New("ValSplit", fmt.Sprint(cfg.ValSplit), "leaves no training instance of %d", len(files.Instances)))
	}
	ts := newTrainSet(pick(train))
	if len(val) == 0 {
		return ts, nil, nil
	}
	names := make([]string, len(files.Stamps))
	for i, s := range files.Stamps {
		names[i] = s.Path
	}
	vs := &ValSet{Path: fmt.Sprintf("split %v of %s", cfg.ValSplit, strings.Join(names, ",")), Instances: pick(val)}
	if cfg.ValLimit > 0 && len(vs.Instances) > cfg.ValLimit {
		vs.Instances = vs.Instances[:cfg.ValLimit]
	}
	return ts, vs, nil
}

// SplitIndices splits the indices 0…n−1 into a training and a
// validation part, both ascending: round(share·n) indices (at least one
// where share > 0) drawn from seed are validation.
func SplitIndices(n int, share float64, seed uint64) (train, val []int) {
	k := 0
	if share > 0 {
		k = max(1, int(math.Round(share*float64(n))))
	}
	k = min(k, n)
	perm := rand.New(rand.NewPCG(seed, splitStream)).Perm(n)
	val = slices.Clone(perm[:k])
	slices.Sort(val)
	in := make([]bool, n)
	for _, v := range val {
		in[v] = true
	}
	for i := 0; i < n; i++ {
		if !in[i] {
			train = append(train, i)
		}
	}
	return train, val
}

// bucketPicker walks a label set of several sizes in epochs from step
// base on. Epoch e shuffles each size's labels (seeded by the run's seed
// and e), cuts them into batches of one size (the last one of a size
// filled up from the start of its order), and shuffles the batches; step
// base + e·batches + j takes batch j. So every batch holds one size, each
// epoch visits every label, and the labels of a step follow from the step
// number alone, as labelPicker's do.
type bucketPicker struct {
	mu      sync.Mutex // pick runs on the prefetch goroutine too
	seed    uint64
	base    int
	count   int
	bySize  [][]int // label indices of each size, ascending size
	per     int     // batches per epoch
	epoch   int
	batches [][]int
}

// newBucketPicker buckets the labels insts by size for batches of count.
func newBucketPicker(insts []*lazymask.Instance, count int, seed uint64, base int) *bucketPicker {
	at := map[int]int{}
	var sizes []int
	for _, in := range insts {
		if _, ok := at[in.N]; !ok {
			at[in.N] = 0
			sizes = append(sizes, in.N)
		}
	}
	slices.Sort(sizes)
	p := &bucketPicker{seed: seed, base: base, count: count, bySize: make([][]int, len(sizes)), epoch: -1}
	for i, n := range sizes {
		at[n] = i
	}
	for i, in := range insts {
		p.bySize[at[in.N]] = append(p.bySize[at[in.N]], i)
	}
	for _, b := range p.bySize {
		p.per += (len(b) + count - 1) / count
	}
	return p
}

// epochBatches returns epoch e's batches.
func (p *bucketPicker) epochBatches(e int) [][]int {
	if e == p.epoch {
		return p.batches
	}
	r := rand.New(rand.NewPCG(p.seed, uint64(e)))
	var out [][]int
	for _, b := range p.bySize {
		perm := r.Perm(len(b))
		for lo := 0; lo < len(b); lo += p.count {
			batch := make([]int, p.count)
			for i := range batch {
				batch[i] = b[perm[(lo+i)%len(b)]]
			}
			out = append(out, batch)
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	p.epoch, p.batches = e, out
	return out
}

// pick returns the count label indices of the step after done completed
// steps, all of one size, and a dihedral transform for each.
func (p *bucketPicker) pick(done, count int) (idx, aug []int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pos := done - p.base
	idx = slices.Clone(p.epochBatches(pos / p.per)[pos%p.per])
	aug = make([]int, count)
	r := rand.New(rand.NewPCG(p.seed^uint64(done), augStream))
	for i := range aug {
		aug[i] = r.IntN(lazymask.NumAugment)
	}
	return idx, aug
}

// Sources are where a run's instances come from, as a command names
// them: Problem, Size and Hardness as given ("" or 0 where not), the
// instance files of TrainData (nil: the generator) and the label sets of
// Imitate.
type Sources struct {
	Problem   string
	Size      int
	Hardness  string
	TrainData *datasets.InstanceFiles
	Imitate   []string
}

// BaseConfig returns the default configuration for the sources. With
// instance files the problem and sizes are theirs (a Problem, Size or
// Hardness that says otherwise is an error); a run that imitates label
// sets without a Size takes their problem and sizes; else Problem is
// needed, and Size and Hardness default to 50 and medium. Label sets'
// sizes join the files' sizes.
func BaseConfig(s Sources) (Config, error) {
	var sizes []int
	problem := strings.ToLower(s.Problem)
	if s.TrainData != nil {
		fp := s.TrainData.Problem.String()
		if problem != "" && problem != fp {
			return Config{}, opterr.New("Problem", s.Problem, "the %v files hold %s instances", opterr.Name("TrainData"), fp)
		}
		sizes = s.TrainData.Sizes()
		if s.Size != 0 && (len(sizes) != 1 || sizes[0] != s.Size) {
			return Config{}, opterr.New("Size", fmt.Sprint(s.Size), "the %v files hold sizes %v (drop it: the files give the sizes)", opterr.Name("TrainData"), sizes)
		}
		if s.Hardness != "" {
			return Config{}, opterr.New("Hardness", s.Hardness, "the %v files are not drawn by the generator (drop it)", opterr.Name("TrainData"))
		}
		problem = fp
	}
	if len(s.Imitate) > 0 && s.Size == 0 {
		lp, ls, err := LabelSetSizes(s.Imitate)
		if err != nil {
			return Config{}, opterr.Wrap("Imitate", "", err)
		}
		if problem != "" && problem != lp.String() {
			return Config{}, opterr.New("Imitate", "", "the label sets hold %v instances, the run trains %s", lp, problem)
		}
		problem = lp.String()
		for _, n := range ls {
			if !slices.Contains(sizes, n) {
				sizes = append(sizes, n)
			}
		}
		slices.Sort(sizes)
	}
	if problem == "" {
		return Config{}, opterr.New("Problem", "", "required (tsptw or tspdl), or %v files, or %v label sets", opterr.Name("TrainData"), opterr.Name("Imitate"))
	}
	if len(sizes) == 0 {
		size, hard := s.Size, s.Hardness
		if size == 0 {
			size = 50
		}
		if hard == "" {
			hard = "medium"
		}
		return DefaultConfig(problem, size, hard), nil
	}
	hard := s.Hardness
	if s.TrainData == nil && hard == "" {
		hard = "medium" // imitation only: rollouts, if mixed in, come from the generator
	}
	c := DefaultConfig(problem, sizes[len(sizes)-1], hard)
	if len(sizes) > 1 || s.TrainData != nil {
		c.Sizes = sizes
	}
	if s.TrainData != nil {
		c.TrainData = s.TrainData.Stamps
	}
	return c, nil
}
