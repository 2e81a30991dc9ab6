package infer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/lazymask"
)

// MergeOptions configure Merge.
type MergeOptions struct {
	// Out is the joined solutions file, written atomically.
	Out string
	// Parts are the solutions files to join: each lists its instances in
	// order (as Run writes them), and they cover disjoint instances.
	Parts []string
	// Instances, when set, is the instances file: the parts are checked
	// against it and the joined metrics computed. Reference (needs
	// Instances) adds the gap.
	Instances, Reference string
	// AllowMissing writes the joined file even where no part holds some
	// instances of the rows the parts split.
	AllowMissing bool
	// Log receives notes (nil: discarded).
	Log io.Writer
}

// Span is the instances [Lo,Hi).
type Span struct{ Lo, Hi int64 }

// Merged is what Merge reports.
type Merged struct {
	Rows int64
	// Named counts the instances some part holds; Expected is the number
	// of rows the parts split (the shards' total, else the instances
	// file's, else one past the largest instance named).
	Named, Expected int64
	// Missing are the spans of [0,Expected) that no part holds.
	Missing []Span
	// Metrics are those of lmask-data check on the joined file over
	// [0,Expected), with Instances only.
	Metrics *datasets.Metrics
	// HasReference says whether Metrics has a gap.
	HasReference bool
}

// MissingText lists the missing spans ("7-13, 20"), the first ten.
func (m Merged) MissingText() string {
	var parts []string
	for i, s := range m.Missing {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("… (%d spans)", len(m.Missing)))
			break
		}
		if s.Hi-s.Lo == 1 {
			parts = append(parts, fmt.Sprint(s.Lo))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", s.Lo, s.Hi-1))
		}
	}
	return strings.Join(parts, ", ")
}

func (m Merged) missingCount() int64 {
	var n int64
	for _, s := range m.Missing {
		n += s.Hi - s.Lo
	}
	return n
}

// Merge joins the solutions files of one instances file into opt.Out, in
// instance order, and checks that they refer to the same instances file
// (metadata), that no instance is in two parts, and which are in none
// (an error unless AllowMissing). It holds one row group per part at a
// time. Nothing is written on error.
func Merge(ctx context.Context, opt MergeOptions) (Merged, error) {
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if len(opt.Parts) == 0 {
		return Merged{}, errors.New("merge: no parts to join")
	}
	if opt.Reference != "" && opt.Instances == "" {
		return Merged{}, fmt.Errorf("merge: %w", opterr.New("Reference", opt.Reference, "needs %v", opterr.Name("Instances")))
	}
	if err := atomicfile.CheckDest(opt.Out); err != nil {
		return Merged{}, fmt.Errorf("merge: %w", opterr.Wrap("Out", "", err))
	}
	// Inputs are named by their options (Input.Flag holds the option).
	if in, same := atomicfile.Same(opt.Out, atomicfile.Input{Flag: "Instances", Path: opt.Instances}, atomicfile.Input{Flag: "Reference", Path: opt.Reference}); same {
		return Merged{}, fmt.Errorf("merge: %w", opterr.New("Out", opt.Out, "is the %v file: writing it would destroy the input; choose another output path", opterr.Name(in.Flag)))
	}
	for _, p := range opt.Parts {
		if _, same := atomicfile.Same(opt.Out, atomicfile.Input{Path: p}); same {
			return Merged{}, fmt.Errorf("merge: %w", opterr.New("Out", opt.Out, "is the part %s: writing it would destroy the input; choose another output path", p))
		}
	}
	cur := make([]*cursor, len(opt.Parts))
	for i, p := range opt.Parts {
		r, err := datasets.OpenSolutions(p)
		if err != nil {
			return Merged{}, fmt.Errorf("merge: %w", err)
		}
		defer r.Close()
		cur[i] = &cursor{path: p, r: r, last: -1}
	}
	meta, expected, err := partsMeta(cur)
	if err != nil {
		return Merged{}, fmt.Errorf("merge: %w", err)
	}
	var ins *instanceStream
	var tl *datasets.Tally
	res := Merged{Expected: expected}
	if opt.Instances != "" {
		if ins, tl, err = openMetrics(opt, cur, &res); err != nil {
			return Merged{}, fmt.Errorf("merge: %w", err)
		}
		defer ins.r.Close()
	}
	w, err := datasets.CreateSolutions(opt.Out, meta, datasets.WriterOptions{})
	if err != nil {
		return Merged{}, fmt.Errorf("merge: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			w.Abort()
		}
	}()
	prev, prevPart := int64(-1), -1
	addUpTo := func(idx int64) error { // the instances prev+1..idx join the metrics
		for k := prev + 1; tl != nil && k <= idx; k++ {
			in, err := ins.at(k)
			if err == nil {
				err = tl.AddInstance(k, in)
			}
			if err != nil {
				return datasets.WithPath(err, "reference", opt.Reference)
			}
		}
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return Merged{}, err
		}
		p := -1
		for i, c := range cur {
			if err := c.load(); err != nil {
				return Merged{}, fmt.Errorf("merge: %w", err)
			}
			if !c.done && (p < 0 || c.head().Instance < cur[p].head().Instance) {
				p = i
			}
		}
		if p < 0 {
			break
		}
		c := cur[p]
		idx := c.head().Instance
		switch {
		case idx == prev:
			return Merged{}, fmt.Errorf("merge: instance %d is in both %s and %s", idx, opt.Parts[prevPart], c.path)
		case idx < 0 || (res.Expected > 0 && idx >= res.Expected):
			return Merged{}, &datasets.RowError{File: c.path, Row: c.row(), Field: "instance",
				Err: fmt.Errorf("%d out of range [0,%d) (the rows the parts split)", idx, res.Expected)}
		case idx > prev+1:
			res.Missing = append(res.Missing, Span{prev + 1, idx})
		}
		if err := addUpTo(idx); err != nil {
			return Merged{}, fmt.Errorf("merge: %w", err)
		}
		for !c.done && c.head().Instance == idx {
			s := c.head()
			if err := w.Write(s); err != nil {
				return Merged{}, fmt.Errorf("merge: %w", err)
			}
			if tl != nil {
				in, _ := ins.at(idx)
				if err := tallyRow(tl, idx, in, s); err != nil {
					return Merged{}, fmt.Errorf("merge: %w", &datasets.RowError{File: c.path, Row: c.row(), Field: "tour", Err: err})
				}
			}
			res.Rows++
			if err := c.advance(); err != nil {
				return Merged{}, fmt.Errorf("merge: %w", err)
			}
		}
		res.Named++
		prev, prevPart = idx, p
	}
	if res.Expected == 0 {
		res.Expected = prev + 1
	}
	if prev+1 < res.Expected {
		res.Missing = append(res.Missing, Span{prev + 1, res.Expected})
	}
	if err := addUpTo(res.Expected - 1); err != nil {
		return Merged{}, fmt.Errorf("merge: %w", err)
	}
	if len(res.Missing) > 0 && !opt.AllowMissing {
		return res, fmt.Errorf("merge: %d of %d instances are in no part: %s%s (nothing written; %w)",
			res.missingCount(), res.Expected, res.MissingText(), absentShards(cur), opterr.New("AllowMissing", "", "writes the rest"))
	}
	if err := w.Close(); err != nil {
		return Merged{}, fmt.Errorf("merge: %w", err)
	}
	committed = true
	if tl != nil {
		m := tl.Metrics()
		res.Metrics = &m
	}
	return res, nil
}

// partsMeta checks that the parts refer to the same instances file and
// data, and that their shards (if any) split the same rows, each once. It
// returns the joined file's metadata and the rows the shards split (0
// when no part is a shard).
func partsMeta(cur []*cursor) (datasets.Metadata, int64, error) {
	first := cur[0].r.Metadata()
	var total int64
	count := 0
	seen := map[int]string{}
	for _, c := range cur {
		m := c.r.Metadata()
		switch {
		case m.Instances == "":
			return first, 0, fmt.Errorf("%s records no instances file (metadata %s)", c.path, datasets.KeyInstances)
		case filepath.Clean(m.Instances) != filepath.Clean(first.Instances):
			return first, 0, fmt.Errorf("%s holds solutions of the instances in %s, but %s of those in %s", cur[0].path, first.Instances, c.path, m.Instances)
		case m.Problem != first.Problem || m.Size != first.Size || m.Hardness != first.Hardness:
			return first, 0, fmt.Errorf("%s holds %s-%d %s solutions, but %s %s-%d %s ones", cur[0].path, first.Problem, first.Size, first.Hardness,
				c.path, m.Problem, m.Size, m.Hardness)
		}
		spec := m.Extra[KeyShard]
		if spec == "" {
			continue
		}
		sh, err := ParseShard(spec, func(string) string { return "" })
		t, terr := strconv.ParseInt(m.Extra[KeyShardTotal], 10, 64)
		if err != nil || terr != nil || t < 0 {
			return first, 0, fmt.Errorf("%s: metadata %s %q, %s %q: not a shard's", c.path, KeyShard, spec, KeyShardTotal, m.Extra[KeyShardTotal])
		}
		if count == 0 {
			count, total = sh.Count, t
		}
		if sh.Count != count || t != total {
			return first, 0, fmt.Errorf("%s is shard %s of %d rows, but %s one of %d shards of %d rows: parts of different runs", c.path, sh, t, cur[0].path, count, total)
		}
		if other, ok := seen[sh.Index]; ok {
			return first, 0, fmt.Errorf("%s and %s are both shard %s", other, c.path, sh)
		}
		seen[sh.Index] = c.path
		c.shard = sh
	}
	meta := first
	meta.Count, meta.Extra = 0, nil
	for k, v := range first.Extra {
		if k != KeyShard && k != KeyShardRows && k != KeyShardTotal {
			if meta.Extra == nil {
				meta.Extra = map[string]string{}
			}
			meta.Extra[k] = v
		}
	}
	return meta, total, nil
}

// openMetrics opens the instances file (and reference) for the metrics,
// checks the parts against it and sets res.Expected when the parts did not.
func openMetrics(opt MergeOptions, cur []*cursor, res *Merged) (*instanceStream, *datasets.Tally, error) {
	ir, err := datasets.OpenInstances(opt.Instances)
	if err != nil {
		return nil, nil, err
	}
	imeta := ir.Metadata()
	noted := false
	for _, c := range cur {
		note, err := datasets.MatchSolutions(opt.Instances, imeta, c.path, c.r.Metadata())
		if err != nil {
			ir.Close()
			return nil, nil, err
		}
		if note != "" && !noted {
			fmt.Fprintln(opt.Log, note)
			noted = true
		}
	}
	n := ir.NumRows()
	if res.Expected == 0 {
		res.Expected = n
	}
	if res.Expected > n {
		ir.Close()
		return nil, nil, fmt.Errorf("the shards split %d rows, but %s holds %d instances", res.Expected, opt.Instances, n)
	}
	refs, note, err := datasets.ReadReference(opt.Reference, opt.Instances, imeta)
	if err != nil {
		ir.Close()
		return nil, nil, opterr.Wrap("Reference", "", err)
	}
	if note != "" {
		fmt.Fprintln(opt.Log, note)
	}
	res.HasReference = refs != nil
	tl, err := datasets.NewTallyRange(n, 0, res.Expected, refs)
	if err != nil {
		ir.Close()
		return nil, nil, datasets.WithPath(err, "reference", opt.Reference)
	}
	return &instanceStream{r: ir}, tl, nil
}

// absentShards names the shards no part is, when the parts are shards.
func absentShards(cur []*cursor) string {
	k := cur[0].shard.Count
	if k == 0 {
		return ""
	}
	have := map[int]bool{}
	for _, c := range cur {
		have[c.shard.Index] = true
	}
	var absent []string
	for i := range k {
		if !have[i] {
			absent = append(absent, Shard{i, k}.String())
		}
	}
	if len(absent) == 0 {
		return ""
	}
	return "; no part is shard " + strings.Join(absent, ", ")
}

// cursor walks one part's rows, a row group at a time.
type cursor struct {
	path  string
	r     *datasets.SolutionReader
	rows  []datasets.Solution
	off   int64 // file row of rows[0]
	i     int
	last  int64 // instance of the row before
	done  bool
	shard Shard
}

// load reads the next row group when the current one is used up.
func (c *cursor) load() error {
	for !c.done && c.i >= len(c.rows) {
		rows, off, err := c.r.Next()
		if errors.Is(err, io.EOF) {
			c.done = true
			return nil
		}
		if err != nil {
			return err
		}
		c.rows, c.off, c.i = rows, off, 0
	}
	if c.done {
		return nil
	}
	if s := c.head(); s.Instance < c.last {
		return fmt.Errorf("%s: row %d: instance %d after instance %d: a part lists its instances in order (as lmask-infer writes them)",
			c.path, c.row(), s.Instance, c.last)
	}
	return nil
}

func (c *cursor) head() *datasets.Solution { return &c.rows[c.i] }

func (c *cursor) row() int64 { return c.off + int64(c.i) }

// advance moves past the head row.
func (c *cursor) advance() error {
	c.last = c.head().Instance
	c.i++
	return c.load()
}

// instanceStream reads an instances file forward to the instances asked
// for, in increasing order.
type instanceStream struct {
	r *datasets.InstanceReader
	b *datasets.InstanceBatch
}

func (s *instanceStream) at(idx int64) (*lazymask.Instance, error) {
	for s.b == nil || idx >= s.b.Offset+int64(len(s.b.Instances)) {
		b, err := s.r.Next()
		if err != nil {
			return nil, err
		}
		s.b = b
	}
	return s.b.Instances[idx-s.b.Offset], nil
}

// tallyRow counts one solutions row as check does: a served tour with
// dropped stops apart, a late one with its lateness, any other as a row.
func tallyRow(tl *datasets.Tally, idx int64, in *lazymask.Instance, s *datasets.Solution) error {
	var err error
	switch {
	case s.Dropped != nil:
		_, err = tl.AddDropped(idx, in, s.Tour, s.Dropped)
	case datasets.IsLateSource(s.Source):
		_, err = tl.AddLate(idx, in, s.Tour, true)
	default:
		_, err = tl.AddRow(idx, in, s.Tour)
	}
	return err
}
