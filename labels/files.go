package labels

import (
	"fmt"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// Shard is the Index-th (from 0) of Count shards of a set's chunks: chunk
// i belongs to shard i mod Count. Why round robin: the shards stay even
// while a set grows (a contiguous split would depend on the final count).
// The zero value, like Count 1, is the whole set.
type Shard struct{ Index, Count int }

// Owns reports whether chunk c is the shard's.
func (s Shard) Owns(c int) bool { return s.Count <= 1 || c%s.Count == s.Index }

// FileSpec returns the spec of a label set over the given instance files
// (problem and sizes from the files; no hardness or generator).
func FileSpec(files *datasets.InstanceFiles, seed uint64, chunk int) datasets.LabelSpec {
	sizes := files.Sizes()
	size := 0
	if len(sizes) == 1 {
		size = sizes[0]
	}
	return datasets.LabelSpec{Problem: files.Problem.String(), Size: size, Sizes: sizes, Seed: seed, ChunkSize: chunk, Files: files.Stamps}
}

// chunkInstances returns chunk c's instances and the metadata of its
// instances file: drawn by the generator from the chunk's seed, or rows
// ChunkSize·c on of the given files.
func (b *Builder) chunkInstances(p lazymask.Problem, c int) ([]*lazymask.Instance, datasets.Metadata, error) {
	cs := b.Spec.ChunkSize
	if b.Files != nil {
		lo := c * cs
		hi := min(lo+cs, len(b.Files.Instances))
		if lo >= hi {
			return nil, datasets.Metadata{}, fmt.Errorf("label chunk %d: the instance files hold %d instances", c, len(b.Files.Instances))
		}
		insts := make([]*lazymask.Instance, hi-lo)
		size := oneSize(b.Files.Instances[lo:hi])
		for i := range insts {
			// A copy: the search builds each instance's matrix on it.
			insts[i] = b.Files.Instances[lo+i].Clone()
		}
		path, row := b.Files.File(lo)
		return insts, datasets.Metadata{Problem: p.String(), Size: size,
			Source: fmt.Sprintf("%s row %d on (%s)", path, row, datasets.LabelManifest)}, nil
	}
	gen, err := datasets.NewGenerator(datasets.GenConfig{Problem: p, N: b.Spec.Size, Hardness: b.Spec.Hardness,
		Seed: datasets.ChunkSeed(b.Spec.Seed, c)})
	if err != nil {
		return nil, datasets.Metadata{}, err
	}
	insts := make([]*lazymask.Instance, cs)
	for i := range insts {
		insts[i], _ = gen.Next()
	}
	meta := gen.Metadata()
	meta.Source = "generator"
	return insts, meta, nil
}

// oneSize is the instances' one size, or 0 where they differ.
func oneSize(insts []*lazymask.Instance) int {
	for _, in := range insts[1:] {
		if in.N != insts[0].N {
			return 0
		}
	}
	return insts[0].N
}
