package infer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
)

// GroupSize is the largest instance group that Run decodes at once where
// Options.Overlap is set: a row group of the data is cut into groups of at
// most this many instances, so that the decode of one group overlaps the
// search of the one before it even in a file of one row group. Without the
// overlap a group is a whole row group. 64 instances are 16 decode batches
// of 4, 8 per core on two (the engine cuts batches smaller where there would
// be fewer than workers).
const GroupSize = 64

// decodedGroup is one instance group, decoded: rows first.. of the data.
type decodedGroup struct {
	first   int64
	insts   []*lazymask.Instance
	sols    []engine.Solution
	decode  time.Duration // wall time of the decode
	forward time.Duration // its part that the search's share multiplies (forwardTime)
	setup   time.Duration // the run's time before its first decode
}

// groupDecoder reads the rows [lo,hi) of a data file group by group and
// decodes them; next is called from one goroutine at a time.
type groupDecoder struct {
	opt    *Options
	mcfg   features.Config
	rd     *datasets.InstanceReader
	solver *engine.Solver
	start  time.Time
	lo, hi int64
	// pos is the next row; rest the rows of the current row group not yet
	// handed out (from row restAt).
	pos    int64
	rest   []*lazymask.Instance
	restAt int64
	warned bool
	setup  time.Duration
	// io is the time spent reading the data.
	io time.Duration
}

// read reads row groups until some of the rows to solve are in hand (rest)
// or none are left.
func (g *groupDecoder) read() error {
	for len(g.rest) == 0 && g.pos < g.hi {
		t0 := time.Now()
		b, err := g.rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		g.io += time.Since(t0)
		first := max(g.pos, b.Offset)
		g.rest, g.restAt = b.Instances[first-b.Offset:min(g.hi, b.Offset+int64(len(b.Instances)))-b.Offset], first
		g.pos = first + int64(len(g.rest))
	}
	return nil
}

// next decodes the next group; ok is false at the end of the rows. With
// progress, the solver reports the instances decoded as finished ones
// (the sequential run).
func (g *groupDecoder) next(ctx context.Context, progress bool) (decodedGroup, bool, error) {
	if err := ctx.Err(); err != nil {
		return decodedGroup{}, false, err
	}
	if err := g.read(); err != nil {
		return decodedGroup{}, false, err
	}
	if len(g.rest) == 0 {
		return decodedGroup{}, false, nil
	}
	// Without the overlap a group is the rest of the row group: its search
	// time is one pool for all of its instances, as a row group's was.
	size := len(g.rest)
	if g.opt.Overlap {
		size = min(GroupSize, size)
	}
	insts, first := g.rest[:size], g.restAt
	g.rest, g.restAt = g.rest[len(insts):], g.restAt+int64(len(insts))
	opt, mcfg := g.opt, g.mcfg
	for i, in := range insts {
		if in.Problem.String() != mcfg.Problem {
			return decodedGroup{}, false, fmt.Errorf("%s row %d: %s instance, the model in %s was trained for %s", opt.Data, first+int64(i), in.Problem, opt.Model, mcfg.Problem)
		}
		if !g.warned && farFromTrainSize(in.N, mcfg.TrainSize) {
			fmt.Fprintf(opt.Log, "warning: %s row %d has N=%d nodes, far from the model's training size %d; expect weaker results\n",
				opt.Data, first+int64(i), in.N, mcfg.TrainSize)
			g.warned = true
		}
	}
	if progress && opt.Progress != nil {
		base, total := first-g.lo, g.hi-g.lo
		g.solver.SetProgress(func(done int) { opt.Progress(base+int64(done), total) })
	}
	bs, st0 := time.Now(), g.solver.Stats()
	if g.setup == 0 {
		g.setup = max(bs.Sub(g.start), time.Nanosecond)
	}
	sols, err := g.solver.SolveFrom(ctx, first, insts)
	if err != nil {
		return decodedGroup{}, false, err
	}
	decode := time.Since(bs)
	failed := make([]bool, len(sols))
	for i := range sols {
		failed[i] = !sols[i].Best.Feasible
	}
	return decodedGroup{first: first, insts: insts, sols: sols, decode: decode, setup: g.setup,
		forward: forwardTime(decode, st0, g.solver.Stats(), insts, failed)}, true, nil
}

// groups hands out the decoded groups in order. Sequential: each is
// decoded when asked for. Otherwise a goroutine decodes one group ahead
// of the caller (a bounded pipeline: the decode of group k+1 runs while
// the caller searches and writes group k); stop ends it, and must be
// called before the solver and the reader are closed.
func (g *groupDecoder) groups(ctx context.Context, sequential bool) (next func() (decodedGroup, bool, error), stop func()) {
	if sequential {
		return func() (decodedGroup, bool, error) { return g.next(ctx, true) }, func() {}
	}
	type item struct {
		d   decodedGroup
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	ch := make(chan item, 1)
	go func() {
		defer close(ch)
		for {
			d, ok, err := g.next(ctx, false)
			if !ok && err == nil {
				return
			}
			select {
			case ch <- item{d, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	next = func() (decodedGroup, bool, error) {
		it, ok := <-ch
		if !ok {
			// The producer ended: a cancelled run's error, else the end.
			return decodedGroup{}, false, ctx.Err()
		}
		return it.d, it.err == nil, it.err
	}
	stop = func() {
		cancel()
		for range ch {
		}
	}
	return next, stop
}
