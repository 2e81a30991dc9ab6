package labels

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/lazymask"
)

// MergeReport describes a merged (or checked) label set.
type MergeReport struct {
	Chunks  int // chunks in the set
	Labels  int // instances with a feasible tour
	Skipped int // instances without one
	Copied  int // chunks copied into the output folder
	Sizes   []int
}

// Merge checks the label sets in parts, grown by the shards of one set
// (lmask-data label --shard) in their own folders or in one, and joins
// their chunks in out. The parts must have one manifest (the same spec,
// search and relabelling rounds, no round pending); every chunk of the set
// must be in exactly one part: chunks 0 to ⌈count/chunk⌉ − 1 where count >
// 0, else every row of a set of given files, else every chunk up to the
// highest present. Every chunk is read and every tour replayed by
// lazymask.Check; a chunk drawn in full must hold all its instances. out
// may be one of parts (the others' chunks are copied into it) or a new or
// empty folder; where every part is out, nothing is copied (a check).
func Merge(out string, parts []string, count int) (MergeReport, error) {
	var rep MergeReport
	if len(parts) == 0 {
		return rep, fmt.Errorf("merge: no label set named")
	}
	specs := make([]datasets.LabelSpec, len(parts))
	for i, p := range parts {
		s, err := datasets.ReadLabelSpec(p)
		if err != nil {
			return rep, err
		}
		if s.Pending != nil {
			return rep, fmt.Errorf("label set %s: a relabelling round is pending (finish it first)", p)
		}
		if i > 0 {
			if err := sameSet(specs[0], s); err != nil {
				return rep, fmt.Errorf("label sets %s and %s are not shards of one set: %s has %w", parts[0], p, p, err)
			}
			if s.Search != specs[0].Search || !slices.EqualFunc(s.Rounds, specs[0].Rounds, func(a, b datasets.LabelRound) bool { return a.Search == b.Search }) {
				return rep, fmt.Errorf("label sets %s and %s are not shards of one set: searches %q and %q, %d and %d relabelling rounds",
					parts[0], p, specs[0].Search, s.Search, len(specs[0].Rounds), len(s.Rounds))
			}
		}
		specs[i] = s
	}
	spec := specs[0]
	owner := map[int]int{}
	top := -1
	for i, p := range parts {
		chunks, err := datasets.LabelChunks(p)
		if err != nil {
			return rep, err
		}
		for _, c := range chunks {
			if j, ok := owner[c]; ok && filepath.Clean(parts[j]) != filepath.Clean(p) {
				return rep, fmt.Errorf("chunk %d is in both %s and %s", c, parts[j], p)
			}
			owner[c] = i
			top = max(top, c)
		}
	}
	cs := spec.ChunkSize
	var rows int64
	for _, f := range spec.Files {
		rows += f.Rows
	}
	want := top + 1
	switch {
	case count > 0:
		want = (count + cs - 1) / cs
	case rows > 0:
		want = int((rows + int64(cs) - 1) / int64(cs))
	}
	var missing []string
	for c := 0; c < want; c++ {
		if _, ok := owner[c]; !ok {
			missing = append(missing, fmt.Sprint(c))
		}
	}
	if len(missing) > 0 {
		if len(missing) > 10 {
			missing = append(missing[:10], fmt.Sprintf("… (%d in all)", len(missing)))
		}
		return rep, fmt.Errorf("label set of %d chunks: chunk %s missing (a shard has not finished?)", want, strings.Join(missing, ", "))
	}
	chunks := make([]int, 0, len(owner))
	for c := range owner {
		chunks = append(chunks, c)
	}
	slices.Sort(chunks)
	for _, c := range chunks {
		dir := parts[owner[c]]
		ch, err := datasets.ReadLabelSetChunk(dir, spec, c)
		if err != nil {
			return rep, err
		}
		_, sp := datasets.LabelChunkPaths(dir, c)
		if n := len(ch.Insts); spec.Keep == "" && n != chunkRows(cs, rows, c) {
			return rep, fmt.Errorf("label set %s: chunk %d holds %d instances, want %d", dir, c, n, chunkRows(cs, rows, c))
		}
		for i, in := range ch.Insts {
			if !slices.Contains(rep.Sizes, in.N) {
				rep.Sizes = append(rep.Sizes, in.N)
			}
			if ch.Tours[i] == nil {
				rep.Skipped++
				continue
			}
			r, err := lazymask.Check(in, ch.Tours[i])
			if err != nil || !r.Feasible {
				return rep, fmt.Errorf("%s: instance %d: the label tour does not pass the checker (feasible %v, %v)", sp, i, r.Feasible, err)
			}
			rep.Labels++
		}
	}
	slices.Sort(rep.Sizes)
	rep.Chunks = len(chunks)
	return rep, copyChunks(out, parts, spec, chunks, owner, &rep)
}

// chunkRows is the number of instances chunk c draws: cs, or fewer in the
// last chunk of a set of given files holding rows instances (rows > 0).
func chunkRows(cs int, rows int64, c int) int {
	if rows <= 0 {
		return cs
	}
	return int(min(int64(cs), rows-int64(c*cs)))
}

// copyChunks copies the chunks that are not in out into it, instances
// file first (a chunk exists once its solutions file does), after the
// manifest.
func copyChunks(out string, parts []string, spec datasets.LabelSpec, chunks []int, owner map[int]int, rep *MergeReport) error {
	inParts := slices.ContainsFunc(parts, func(p string) bool { return filepath.Clean(p) == filepath.Clean(out) })
	if !inParts {
		if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
			return fmt.Errorf("merge: %s is not empty and is none of the parts (merge into a new folder or into one of the parts)", out)
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if err := datasets.WriteLabelSpec(out, spec); err != nil {
			return err
		}
	}
	for _, c := range chunks {
		src := parts[owner[c]]
		if filepath.Clean(src) == filepath.Clean(out) {
			continue
		}
		si, ss := datasets.LabelChunkPaths(src, c)
		di, ds := datasets.LabelChunkPaths(out, c)
		if _, err := os.Stat(si); err == nil {
			if err := copyFile(si, di); err != nil {
				return err
			}
		}
		if err := copyFile(ss, ds); err != nil {
			return err
		}
		rep.Copied++
	}
	return nil
}

// copyFile copies src to dst atomically.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := atomicfile.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, in); err != nil {
		f.Abort()
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return f.Commit()
}
