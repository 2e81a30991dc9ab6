package solve

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// fixture returns generated TSPTW-15 hard instances with two starts each:
// the known (feasible) tour and the same tour with its first customer moved
// to the end (often infeasible).
func fixture(t *testing.T, count int) []Job {
	t.Helper()
	insts, known, err := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPTW, N: 15, Hardness: datasets.Hard, Seed: 9}, count)
	if err != nil {
		t.Fatal(err)
	}
	jobs := make([]Job, count)
	for i, in := range insts {
		moved := slices.Concat(known[i][:1], known[i][2:], known[i][1:2])
		jobs[i] = Job{Inst: in, Starts: [][]int{known[i], moved}, Seed: uint64(i)}
	}
	return jobs
}

// TestShareOf: each starting instance gets its part, by weight, of the
// time left for the instances not yet started, never past the deadline, at
// least a microsecond, and at most the cap.
func TestShareOf(t *testing.T) {
	hour := time.Now().Add(time.Hour)
	near := func(got, want time.Duration) bool { return got <= want && got > want-time.Minute }
	for _, tc := range []struct {
		deadline        time.Time
		weight, pending float64
		workers         int
		limit, want     time.Duration
	}{
		{hour, 1, 4, 2, 0, 30 * time.Minute},
		{hour, 1, 60, 1, 0, time.Minute},
		{hour, 1, 1, 2, 0, time.Hour}, // the last instance: all that is left, not twice it
		{hour, 1, 4, 2, 10 * time.Second, 10 * time.Second},
		{time.Now().Add(-time.Second), 1, 3, 2, 0, time.Microsecond},
		{hour, 100, 400, 1, 0, 15 * time.Minute}, // a quarter of the pending weight
		{hour, 2500, 2900, 1, 0, 51*time.Minute + 44*time.Second},
		{hour, 300, 400, 2, 0, time.Hour}, // 1.5 hours' claim, capped at what is left
	} {
		got := ShareOf(tc.deadline, tc.weight, tc.pending, tc.workers, tc.limit)
		if tc.want <= 10*time.Second && got != tc.want || tc.want > 10*time.Second && !near(got, tc.want) {
			t.Errorf("ShareOf(%v from now, weight %v of %v pending, %d workers, limit %v) = %v, want %v",
				time.Until(tc.deadline).Round(time.Second), tc.weight, tc.pending, tc.workers, tc.limit, got, tc.want)
		}
	}
}

// TestWithShare: a share makes the kicks unbounded unless capped, turns
// on FinishDescent and sets the deadline share × spent from now; no share
// changes nothing.
func TestWithShare(t *testing.T) {
	base := Options{Search: localsearch.Options{MaxStarts: 8, Seed: 5}}
	if o := base.WithShare(0, time.Hour); !o.Deadline.IsZero() || o.Search.Kicks != 0 || o.Search.FinishDescent {
		t.Fatalf("no share: %+v", o)
	}
	before := time.Now()
	o := base.WithShare(0.5, time.Hour)
	if o.Search.Kicks != UnboundedKicks || !o.Search.FinishDescent || o.Search.MaxStarts != 8 ||
		o.Deadline.Before(before.Add(30*time.Minute)) || o.Deadline.After(time.Now().Add(30*time.Minute)) {
		t.Fatalf("share 0.5 of an hour: %+v, deadline in %v", o.Search, time.Until(o.Deadline))
	}
	base.Search.Kicks = 3
	if o := base.WithShare(0.5, time.Hour); o.Search.Kicks != 3 {
		t.Fatalf("capped kicks under a share gave %d", o.Search.Kicks)
	}
	if o := base.WithShare(1e9, time.Millisecond); time.Until(o.Deadline) > MaxShare*time.Millisecond {
		t.Fatalf("share above MaxShare: deadline in %v", time.Until(o.Deadline))
	}
}

// TestImproveDeadline: a deadline already past leaves no time to search,
// so nothing is improved; a distant one changes nothing against none; an
// unbounded-kick search under a short deadline returns, having kicked.
func TestImproveDeadline(t *testing.T) {
	jobs := fixture(t, 6)
	run := func(opt Options) []Result {
		t.Helper()
		opt.Workers = 2
		out, _, err := Improve(context.Background(), jobs, opt)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	search := localsearch.Options{Kicks: 3, MaxStarts: 8}
	plain, far := run(Options{Search: search}), run(Options{Search: search, Deadline: time.Now().Add(time.Hour)})
	improved := 0
	for i := range jobs {
		if plain[i].Improved != far[i].Improved || !slices.Equal(plain[i].Search.Tour, far[i].Search.Tour) {
			t.Fatalf("job %d: a distant deadline changed the result: %v against %v", i, far[i].Search.Tour, plain[i].Search.Tour)
		}
		if plain[i].Improved {
			improved++
		}
	}
	if improved == 0 {
		t.Fatal("no instance improved without a deadline: the comparison exercises nothing")
	}
	for i, r := range run(Options{Search: search, Deadline: time.Now().Add(-time.Second)}) {
		if r.Improved {
			t.Fatalf("job %d improved (%v) although the deadline had passed", i, r.Search.Tour)
		}
	}
	search.Kicks = UnboundedKicks
	kicks := 0
	for _, r := range run(Options{Search: search, Deadline: time.Now().Add(300 * time.Millisecond)}) {
		kicks += r.Search.Kicks
	}
	if kicks == 0 {
		t.Fatal("no kicks under an unbounded-kick deadline")
	}
}

// TestImproveResults: every result is what localsearch.ImproveFrom finds
// from the job's starts with its seed, whatever the worker count;
// Improved, Changed, Start and the stats follow from it; nil starts are
// skipped and a job without starts is not searched.
func TestImproveResults(t *testing.T) {
	jobs := fixture(t, 8)
	jobs[2].Starts = [][]int{nil, jobs[2].Starts[1], nil} // a failed decode, then the moved tour
	jobs[5].Starts = [][]int{nil}
	opt := Options{Search: localsearch.Options{Kicks: 2}}
	one, st, err := Improve(context.Background(), jobs, Options{Search: opt.Search, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	three, _, err := Improve(context.Background(), jobs, Options{Search: opt.Search, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	improved, kicks := 0, 0
	for i, r := range one {
		if !slices.Equal(r.Search.Tour, three[i].Search.Tour) {
			t.Fatalf("job %d: 1 worker %v, 3 workers %v", i, r.Search.Tour, three[i].Search.Tour)
		}
		if i == 5 {
			if r.Searched || r.Improved || r.Start != -1 {
				t.Fatalf("job without starts: %+v", r)
			}
			continue
		}
		var starts [][]int
		for _, s := range jobs[i].Starts {
			if s != nil {
				starts = append(starts, s)
			}
		}
		want, err := localsearch.ImproveFrom(jobs[i].Inst, starts, localsearch.Options{Kicks: 2, Seed: jobs[i].Seed})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Search.Tour, want.Tour) || !r.Searched {
			t.Fatalf("job %d: tour %v, ImproveFrom gives %v", i, r.Search.Tour, want.Tour)
		}
		chk, _ := lazymask.Check(jobs[i].Inst, r.Search.Tour)
		best := lazymask.Verdict{}
		for _, s := range starts {
			c, _ := lazymask.Check(jobs[i].Inst, s)
			if lazymask.Compare(c.Verdict(), best) < 0 {
				best = c.Verdict()
			}
		}
		if r.Final != chk.Verdict() || r.Given != best || r.Improved != (chk.Feasible && lazymask.Compare(chk.Verdict(), best) < 0) {
			t.Fatalf("job %d: final %+v given %+v improved %v; checker %+v best start %+v", i, r.Final, r.Given, r.Improved, chk.Verdict(), best)
		}
		if want := jobs[i].Starts[r.Start]; r.Changed != !slices.Equal(r.Search.Tour, want) {
			t.Fatalf("job %d: changed %v from start %d", i, r.Changed, r.Start)
		}
		if r.Improved {
			improved++
		}
		kicks += r.Search.Kicks
	}
	if st.Searched != 7 || st.Improved != improved || st.Kicks != kicks || improved == 0 {
		t.Fatalf("stats %+v; %d improved, %d kicks", st, improved, kicks)
	}
}

// TestImproveUrgency: where no start is feasible the urgency order joins
// the starts (one beyond MaxStarts), and a feasible result counts as an
// improvement even when the urgency order itself was feasible; where a
// start is feasible it does not join.
func TestImproveUrgency(t *testing.T) {
	jobs := fixture(t, 8)
	var infeasible []int
	for i := range jobs {
		moved := jobs[i].Starts[1]
		if c, _ := lazymask.Check(jobs[i].Inst, moved); !c.Feasible {
			infeasible = append(infeasible, i)
		}
		jobs[i].Starts = [][]int{moved}
	}
	if len(infeasible) == 0 {
		t.Fatal("every moved tour is feasible; pick another fixture")
	}
	jobs = append(jobs, Job{Inst: jobs[0].Inst, Seed: 99}) // no start at all
	// Three infeasible starts, the worst first and one twice: the best one
	// and the urgency order are searched.
	k := infeasible[0]
	rev := slices.Clone(jobs[k].Starts[0])
	slices.Reverse(rev[1:])
	if c, _ := lazymask.Check(jobs[k].Inst, rev); c.Feasible {
		t.Fatal("reversed tour is feasible; pick another fixture")
	}
	jobs = append(jobs, Job{Inst: jobs[k].Inst, Starts: [][]int{rev, jobs[k].Starts[0], rev}, Seed: 5})
	res, _, err := Improve(context.Background(), jobs, Options{Search: localsearch.Options{MaxStarts: 1}, Urgency: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		in := jobs[i].Inst
		var starts [][]int
		starts = append(starts, jobs[i].Starts...)
		maxStarts := 1
		if !r.Given.Feasible {
			if len(starts) > 1 { // the best of the given starts
				slices.SortStableFunc(starts, func(a, b []int) int {
					ca, _ := lazymask.Check(in, a)
					cb, _ := lazymask.Check(in, b)
					return lazymask.Compare(ca.Verdict(), cb.Verdict())
				})
				starts = starts[:1]
			}
			starts, maxStarts = append(starts, localsearch.OrderTour(in)), 2
		}
		want, err := localsearch.ImproveFrom(in, starts, localsearch.Options{MaxStarts: maxStarts, Seed: jobs[i].Seed})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Search.Tour, want.Tour) {
			t.Fatalf("job %d: tour %v, want %v", i, r.Search.Tour, want.Tour)
		}
		wantStart := map[bool]int{true: -1, false: want.StartIndex}[want.StartIndex == len(starts)-1 && !r.Given.Feasible]
		if i == len(res)-1 && want.StartIndex == 0 {
			wantStart = 1 // the best given start is the second
		}
		if r.Start != wantStart {
			t.Fatalf("job %d: start %d, want %d", i, r.Start, wantStart)
		}
		if !r.Given.Feasible && r.Improved != r.Final.Feasible {
			t.Fatalf("job %d: no feasible start, final feasible %v, improved %v", i, r.Final.Feasible, r.Improved)
		}
	}
	if r := res[len(res)-2]; !r.Searched || r.Start != -1 || r.Given.Complete {
		t.Fatalf("job without starts: %+v", r)
	}

}

// TestImproveErrors: a malformed start is a *JobError naming the job and
// the start; the other jobs still run.
func TestImproveErrors(t *testing.T) {
	jobs := fixture(t, 3)
	jobs[1].Starts = append(jobs[1].Starts, []int{0, 1, 1})
	res, _, err := Improve(context.Background(), jobs, Options{})
	var je *JobError
	if !errors.As(err, &je) || je.Job != 1 || je.Start != 2 {
		t.Fatalf("err %v, want job 1 start 2", err)
	}
	var te *lazymask.TourError
	if !errors.As(err, &te) {
		t.Fatalf("err %v does not wrap the *lazymask.TourError", err)
	}
	if !res[0].Searched || !res[2].Searched {
		t.Fatal("the other jobs did not run")
	}
}

// TestForEach: every index once, whatever the worker count.
func TestForEach(t *testing.T) {
	for _, w := range []int{0, 1, 3, 50} {
		seen := make([]int, 20)
		ForEach(len(seen), w, func(i int) { seen[i]++ })
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("%d workers: index %d called %d times", w, i, c)
			}
		}
	}
	ForEach(0, 2, func(int) { t.Fatal("called for n = 0") })
}

// TestNeedsMore: every search cut by its time limit qualifies for the
// second pass, whatever its kicks gained; one that ended by itself never.
func TestNeedsMore(t *testing.T) {
	feasible := lazymask.Verdict{Feasible: true}
	res := func(stop localsearch.StopReason, kicks, last int, final lazymask.Verdict, repaired bool) *Result {
		return &Result{Searched: true, Final: final, Search: localsearch.Result{Stop: stop, Kicks: kicks, LastAccepted: last, Repaired: repaired}}
	}
	for _, tc := range []struct {
		name string
		r    *Result
		want bool
	}{
		{"not searched", &Result{}, false},
		{"ended by itself", res(localsearch.LocalOptimum, 0, 0, lazymask.Verdict{}, true), false},
		{"ended by its move budget", res(localsearch.MoveBudget, 100, 0, feasible, false), false},
		{"stalled", res(localsearch.TimeBudget, 100, 40, feasible, false), true},
		{"never improved by a kick", res(localsearch.TimeBudget, 100, 0, feasible, false), true},
		{"still improving", res(localsearch.TimeBudget, 100, 51, feasible, false), true},
		{"descents cut", res(localsearch.TimeBudget, 0, 0, feasible, false), true},
		{"infeasible", res(localsearch.TimeBudget, 100, 10, lazymask.Verdict{}, false), true},
		{"a repair", res(localsearch.TimeBudget, 100, 10, feasible, true), true},
	} {
		if got := needsMore(tc.r); got != tc.want {
			t.Errorf("%s: needsMore = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestImproveSecondPass: after a first pass, the second gives time only
// to the jobs that qualify (needsMore), such as the 61-node repairs cut by
// the time, and not to the others (8-node searches that end by
// themselves); the second limits fit in the time left for two workers, the call ends by the deadline, and no result
// gets worse than the first pass's.
func TestImproveSecondPass(t *testing.T) {
	small, _, err := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPTW, N: 8, Hardness: datasets.Hard, Seed: 3}, 4)
	if err != nil {
		t.Fatal(err)
	}
	g, err := datasets.NewStressGenerator(datasets.StressConfig{Class: "stuck", N: 61, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var jobs []Job
	for i := range 4 {
		jobs = append(jobs, Job{Inst: small[i], Starts: [][]int{localsearch.OrderTour(small[i])}, Seed: uint64(i)})
		// the urgency order as the only start (no insertion or grown
		// tour): its repair qualifies whatever the machine's speed
		in, _ := g.Next()
		jobs = append(jobs, Job{Inst: in, Starts: [][]int{localsearch.OrderTour(in)}, Seed: uint64(10 + i)})
	}
	const pass, workers = 150 * time.Millisecond, 2
	start := time.Now()
	opt := Options{Search: localsearch.Options{Kicks: UnboundedKicks, FinishDescent: true}, Deadline: start.Add(4 * pass)}
	out, errs := make([]Result, len(jobs)), make([]error, len(jobs))
	prep := make([]*localsearch.Prepared, len(jobs))
	runPass(context.Background(), jobs, opt, start.Add(pass), workers, out, errs, prep, nil)
	first := slices.Clone(out)
	var more []int
	for i := range first {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if needsMore(&first[i]) {
			more = append(more, i)
		}
	}
	if len(more) == 0 || len(more) == len(jobs) {
		t.Fatalf("%d of %d jobs qualify for a second search: the selection is not exercised", len(more), len(jobs))
	}
	left := time.Until(opt.Deadline)
	for _, i := range more {
		if prep[i] == nil {
			t.Fatalf("job %d: the first pass kept no search data for the second", i)
		}
	}
	resume(context.Background(), jobs, more, opt, workers, out, errs, prep, nil)
	took := time.Since(start)
	var extra time.Duration
	for i, r := range out {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if q := slices.Contains(more, i); q != (r.Resumed > 0) {
			t.Errorf("job %d: qualifies %v (stop %v, kicks %d, last improving %d, feasible %v) but second limit %v",
				i, q, first[i].Search.Stop, first[i].Search.Kicks, first[i].Search.LastAccepted, first[i].Final.Feasible, r.Resumed)
		}
		if lazymask.Compare(r.Final, first[i].Final) > 0 {
			t.Errorf("job %d: second pass worsened %+v to %+v", i, first[i].Final, r.Final)
		}
		var st Stats
		st.count(&r)
		fk := first[i].Search.Kicks
		switch {
		case r.Resumed == 0 && (r.other != nil || st.Kicks != fk):
			t.Errorf("job %d not resumed: Stats count %d kicks, the first pass %d", i, st.Kicks, fk)
		case r.Resumed > 0 && (r.other == nil || st.Kicks != r.Search.Kicks+r.other.Kicks || (r.Search.Kicks != fk && r.other.Kicks != fk)):
			t.Errorf("job %d resumed: Stats count %d kicks, the first pass %d: both passes are not counted", i, st.Kicks, fk)
		}
		if st.Elapsed != r.Elapsed() || r.Resumed > 0 && r.Elapsed() <= first[i].Search.Elapsed {
			t.Errorf("job %d: Elapsed %v, Stats %v, first pass %v", i, r.Elapsed(), st.Elapsed, first[i].Search.Elapsed)
		}
		if r.Resumed > 0 {
			// The time the second search used, not its limit: a search that
			// ends early hands its unused time to the ones after it, so the
			// limits may sum to more than the time left.
			extra += r.Elapsed() - first[i].Search.Elapsed
		}
	}
	// Each search may overrun its limit by the scan in progress.
	if slack := time.Duration(len(more)) * 5 * time.Millisecond; extra > workers*left+slack {
		t.Errorf("second searches used %v, more than %d workers × the %v left (+%v)", extra, workers, left, slack)
	}
	if took > 4*pass+100*time.Millisecond {
		t.Errorf("the two passes took %v under a %v deadline", took, 4*pass)
	}
	t.Logf("%d of %d jobs resumed, %v in all; %v", len(more), len(jobs), extra, took)
}

// TestImproveAddsInsertionStart: where no given start is feasible and the
// urgency order is not either, Improve adds localsearch.InsertionTour as a
// start, so a search that repairs nothing (NoRepair) still ends feasible;
// the given start alone (no Urgency) stays infeasible.
func TestImproveAddsInsertionStart(t *testing.T) {
	g, err := datasets.NewStressGenerator(datasets.StressConfig{Class: "RC2", N: 101, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := g.Next()
	if chk, _ := lazymask.Check(in, localsearch.OrderTour(in)); chk.Feasible {
		t.Fatal("the urgency order is feasible: pick an instance where it is not")
	}
	bad := localsearch.OrderTour(in)
	slices.Reverse(bad[1:])
	if chk, _ := lazymask.Check(in, bad); chk.Feasible {
		t.Fatal("the reversed urgency order is feasible")
	}
	run := func(urgency bool) Result {
		res, _, err := Improve(context.Background(), []Job{{Inst: in, Starts: [][]int{bad}, Seed: 3}},
			Options{Search: localsearch.Options{NoRepair: true, MaxStarts: 8}, Urgency: urgency, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res[0]
	}
	if r := run(false); r.Final.Feasible {
		t.Fatal("without the added starts the unrepaired search ended feasible")
	}
	r := run(true)
	if !r.Final.Feasible || r.Start != -1 {
		t.Fatalf("with the added starts: feasible %v, start %d (want a feasible tour from an added start, -1)", r.Final.Feasible, r.Start)
	}
	if _, err := lazymask.Check(in, r.Search.Tour); err != nil {
		t.Fatal(err)
	}
}

// TestWeight: an instance's claim is N^1.5, rounded, so a 100-node one
// gets about 3.9 times a 41-node one's time (N²: 5.9).
func TestWeight(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want float64
	}{{1, 1}, {41, 263}, {100, 1000}, {201, 2850}} {
		if got := Weight(&lazymask.Instance{N: tc.n}); got != tc.want {
			t.Errorf("Weight(N=%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

// TestImproveCancelled: under a context already done every job keeps its
// best start, searched no further, and Improve returns the context's error
// with every result.
func TestImproveCancelled(t *testing.T) {
	insts, _, err := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPTW, N: 30, Hardness: datasets.Medium, Seed: 8}, 6)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []Job
	for i, in := range insts {
		jobs = append(jobs, Job{Inst: in, Starts: [][]int{localsearch.OrderTour(in)}, Seed: uint64(i)})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, _, err := Improve(ctx, jobs, Options{Search: localsearch.Options{Kicks: 1000}, Urgency: true, Workers: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	for i, r := range res {
		if r.Searched && (r.Search.Moves != 0 || r.Search.Kicks != 0 || r.Changed) {
			t.Errorf("job %d searched under a done context: %d moves, %d kicks", i, r.Search.Moves, r.Search.Kicks)
		}
		if lazymask.Compare(r.Final, r.Given) != 0 {
			t.Errorf("job %d: final %+v, want its start %+v", i, r.Final, r.Given)
		}
	}
}
