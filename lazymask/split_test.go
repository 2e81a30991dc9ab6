package lazymask

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDecodeSplit_SameTrajectories: decoding the instances in groups on
// their own goroutines gives Decode's trajectories (sampled, greedy, with
// backtracking, with explicit streams), also when the buffers are reused
// and when there are more policies than instances.
func TestDecodeSplit_SameTrajectories(t *testing.T) {
	tw, dl := bothProblems(37, 13)
	tw[12], dl[12] = tw[0], dl[0] // one instance in two groups
	streams := make([]uint64, 13*6)
	for i := range streams {
		streams[i] = uint64(1000 + 7*i)
	}
	variants := map[string]func() func([]*Instance, Config) ([]Trajectory, error){}
	for _, groups := range []int{2, 3, 13, 20} {
		variants[fmt.Sprintf("%d groups", groups)] = func() func([]*Instance, Config) ([]Trajectory, error) {
			dc := &Decoder{Workers: 2}
			ps := make([]Policy, groups)
			for i := range ps {
				ps[i] = &RandomL{}
			}
			return func(insts []*Instance, cfg Config) ([]Trajectory, error) { return dc.DecodeSplit(ps, insts, 6, cfg) }
		}
	}
	sameTrajectories(t, [][]*Instance{tw, dl}, 6, []Config{{Budget: 30, Seed: 3, Record: true}, {Budget: 5, Greedy: true, Record: true},
		{Budget: 10, Semantics: Train, Seed: 4, Record: true}, {Budget: 30, Streams: streams}}, variants)
}

// TestDecodeSplit_SharedInstance: fresh instances listed in two groups (as
// DAgger's unaugmented copies are) decode without a data race on their
// lazily built matrices (run with -race).
func TestDecodeSplit_SharedInstance(t *testing.T) {
	r := newRand(47)
	a, b := hardTSPTW(r, 20, 0.5), hardTSPTW(r, 20, 0.5)
	got, err := NewDecoder().DecodeSplit([]Policy{&RandomL{}, &RandomL{}}, []*Instance{a, b, a, b}, 2, Config{Budget: 10, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Decode(&RandomL{}, []*Instance{a, b, a, b}, 2, Config{Budget: 10, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("trajectories differ from one decode's")
	}
}

// barrierPolicy holds its first Scores call until every group has made
// one, which only happens when the groups run at the same time.
type barrierPolicy struct {
	RandomL
	arrived *sync.WaitGroup
	once    sync.Once
	timeout *bool
}

func (p *barrierPolicy) Scores(b *StepBatch, out []float32) error {
	p.once.Do(func() {
		p.arrived.Done()
		done := make(chan struct{})
		go func() { p.arrived.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			*p.timeout = true
		}
	})
	return p.RandomL.Scores(b, out)
}

// TestDecodeSplit_GroupsOverlap: every group is inside its policy at the
// same moment, so one group's device step can hide another's host work.
func TestDecodeSplit_GroupsOverlap(t *testing.T) {
	r := newRand(41)
	var insts []*Instance
	for i := 0; i < 6; i++ {
		insts = append(insts, hardTSPTW(r, 15, 0.5))
	}
	var arrived sync.WaitGroup
	arrived.Add(3)
	timeouts := make([]bool, 3)
	ps := make([]Policy, 3)
	for i := range ps {
		ps[i] = &barrierPolicy{arrived: &arrived, timeout: &timeouts[i]}
	}
	if _, err := NewDecoder().DecodeSplit(ps, insts, 2, Config{Budget: 10, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	for g, to := range timeouts {
		if to {
			t.Errorf("group %d waited 10 s for the others: the groups did not run at the same time", g)
		}
	}
}

// TestDecodeSplit_Errors: bad input names the instance by its index in the
// whole list; a failing group is named with its instance range.
func TestDecodeSplit_Errors(t *testing.T) {
	r := newRand(43)
	insts := []*Instance{hardTSPTW(r, 10, 0.5), hardTSPTW(r, 10, 0.5), hardTSPTW(r, 10, 0.5), hardTSPTW(r, 12, 0.5)}
	two := []Policy{&RandomL{}, &RandomL{}}
	cases := []struct {
		ps      []Policy
		insts   []*Instance
		perInst int
		cfg     Config
		want    string
	}{
		{nil, insts[:2], 1, Config{}, "no policies"},
		{[]Policy{&RandomL{}, nil}, insts[:2], 1, Config{}, "policy 1 is nil"},
		{[]Policy{(*RandomL)(nil), &RandomL{}}, insts[:2], 1, Config{}, "policy 0 is nil"},
		{[]Policy{two[0], &RandomL{}, two[0]}, insts[:3], 1, Config{}, "policies 0 and 2 are the same value"},
		{two, []*Instance{nil, insts[0]}, 1, Config{}, "instance 0 is nil"},
		{two, nil, 1, Config{}, "no instances"},
		{two, insts, 1, Config{}, "instance 3"},
		{two, insts[:3], 0, Config{}, "0 trajectories per instance"},
		{two, insts[:3], 2, Config{Streams: make([]uint64, 5)}, "5 stream seeds for 6 trajectories"},
		{[]Policy{&RandomL{}, &failingPolicy{}}, insts[:3], 2, Config{}, "group 1 (instances 1–2)"},
	}
	for _, c := range cases {
		_, err := NewDecoder().DecodeSplit(c.ps, c.insts, c.perInst, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v", c.want, err)
		}
	}
}
