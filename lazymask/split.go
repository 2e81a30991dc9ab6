package lazymask

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
)

// DecodeSplit decodes like Decode with the instances cut into len(ps)
// contiguous groups of near-equal size, group g driven by policy ps[g] on
// its own goroutine. While one group waits for its policy (a device step),
// the others advance their rows on the host: with a policy that serialises
// its device calls this double-buffers the host and the device. Streams
// stay keyed to the whole decode's trajectory indices, so the trajectories
// are Decode's whenever each row's scores do not depend on the other rows
// of its batch. The policies must be distinct (the same pointer, or an
// equal comparable value, twice is refused); the result lists all
// trajectories in Decode's order (Inst indexes insts).
func (dc *Decoder) DecodeSplit(ps []Policy, insts []*Instance, perInst int, cfg Config) ([]Trajectory, error) {
	if len(ps) == 0 {
		return nil, errors.New("decode split: no policies")
	}
	if len(insts) == 0 {
		return nil, errors.New("decode: no instances")
	}
	for g, p := range ps[:min(len(ps), len(insts))] {
		if v := reflect.ValueOf(p); p == nil || v.Kind() == reflect.Pointer && v.IsNil() {
			return nil, fmt.Errorf("decode split: policy %d is nil", g)
		}
		for h, q := range ps[:g] {
			if reflect.TypeOf(p).Comparable() && p == q { // another dynamic type compares unequal
				return nil, fmt.Errorf("decode split: policies %d and %d are the same value; each group needs its own", h, g)
			}
		}
	}
	groups := min(len(ps), len(insts))
	if groups <= 1 {
		return dc.Decode(ps[0], insts, perInst, cfg)
	}
	if perInst < 1 {
		return nil, fmt.Errorf("decode split: %d trajectories per instance, want ≥ 1", perInst)
	}
	total := len(insts) * perInst
	streams := cfg.Streams
	if streams == nil {
		streams = make([]uint64, total)
		for t := range streams {
			streams[t] = streamSeed(cfg.Seed, uint64(t))
		}
	} else if len(streams) != total {
		return nil, fmt.Errorf("decode split: %d stream seeds for %d trajectories", len(streams), total)
	}
	if err := checkInstances(insts); err != nil {
		return nil, err
	}
	for _, in := range insts {
		in.Matrix() // cached before the goroutines share an instance listed twice
	}
	for len(dc.split) < groups {
		dc.split = append(dc.split, &Decoder{})
	}
	outs := make([][]Trajectory, groups)
	errs := make([]error, groups)
	var wg sync.WaitGroup
	for g := 0; g < groups; g++ {
		lo, hi := len(insts)*g/groups, len(insts)*(g+1)/groups
		sub := dc.split[g]
		sub.Workers = dc.Workers
		gcfg := cfg
		gcfg.Streams = streams[lo*perInst : hi*perInst]
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[g], errs[g] = sub.Decode(ps[g], insts[lo:hi], perInst, gcfg)
			for i := range outs[g] {
				outs[g][i].Inst += lo
			}
		}()
	}
	wg.Wait()
	out := make([]Trajectory, 0, total)
	for g, err := range errs {
		if err != nil {
			lo := len(insts) * g / groups
			return nil, fmt.Errorf("decode split: group %d (instances %d–%d): %w", g, lo, len(insts)*(g+1)/groups-1, err)
		}
		out = append(out, outs[g]...)
	}
	return out, nil
}
