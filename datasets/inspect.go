package datasets

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
)

// valueRange tracks the minimum and maximum of a column.
type valueRange struct {
	min, max float64
	n        int
}

func (r *valueRange) add(vs ...float64) {
	for _, v := range vs {
		if r.n == 0 || v < r.min {
			r.min = v
		}
		if r.n == 0 || v > r.max {
			r.max = v
		}
		r.n++
	}
}

func (r *valueRange) String() string {
	if r.n == 0 {
		return "(empty)"
	}
	return fmt.Sprintf("[%.6g, %.6g] over %d values", r.min, r.max, r.n)
}

func printMeta(w io.Writer, m Metadata) {
	fmt.Fprintf(w, "kind %s, problem %s, size %d, hardness %q, scale %g, count %d\n",
		m.Kind, m.Problem, m.Size, m.Hardness, m.Scale, m.Count)
	if m.Seeded {
		fmt.Fprintf(w, "seed %d, generator version %s\n", m.Seed, m.GeneratorVersion)
	}
	if m.Width > 0 {
		fmt.Fprintf(w, "width %g\n", m.Width)
	}
	if m.Source != "" || m.Instances != "" {
		fmt.Fprintf(w, "source %q, instances %q\n", m.Source, m.Instances)
	}
	keys := make([]string, 0, len(m.Extra))
	for k := range m.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "%s = %s\n", k, m.Extra[k])
	}
}

// Inspect writes to w what an instances or solutions file holds: the
// metadata, counts, and each column's range (lmask-data inspect). It
// streams the file one row group at a time.
func Inspect(w io.Writer, path string) error {
	ir, err := OpenInstances(path)
	if err == nil {
		defer ir.Close()
		return inspectInstances(w, path, ir)
	}
	sr, serr := OpenSolutions(path)
	if serr != nil {
		return err
	}
	defer sr.Close()
	return inspectSolutions(w, path, sr)
}

func inspectInstances(w io.Writer, path string, ir *InstanceReader) error {
	fmt.Fprintf(w, "%s: %d instances in %d row groups\n", path, ir.NumRows(), ir.NumRowGroups())
	printMeta(w, ir.Metadata())
	names := []string{"n", "x", "y", "early", "late", "service", "demand", "draft", "dist"}
	ranges := map[string]*valueRange{}
	for _, n := range names {
		ranges[n] = &valueRange{}
	}
	known, problems := 0, map[string]int{}
	for {
		b, err := ir.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		for i, in := range b.Instances {
			problems[in.Problem.String()]++
			ranges["n"].add(float64(in.N))
			ranges["x"].add(in.X...)
			ranges["y"].add(in.Y...)
			ranges["early"].add(in.Early...)
			ranges["late"].add(in.Late...)
			ranges["service"].add(in.Service...)
			ranges["demand"].add(in.Demand...)
			ranges["draft"].add(in.Draft...)
			ranges["dist"].add(in.Dist...)
			if b.KnownTours[i] != nil {
				known++
			}
		}
	}
	fmt.Fprintf(w, "problems %v, instances with a known tour %d\n", problems, known)
	for _, n := range names {
		fmt.Fprintf(w, "%-8s %s\n", n, ranges[n])
	}
	return nil
}

func inspectSolutions(w io.Writer, path string, sr *SolutionReader) error {
	fmt.Fprintf(w, "%s: %d solution rows\n", path, sr.NumRows())
	printMeta(w, sr.Metadata())
	cost, viol := &valueRange{}, &valueRange{}
	tours, infinite, feasible := 0, 0, 0
	sources, insts := map[string]int{}, map[int64]bool{}
	for {
		sols, _, err := sr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		for _, s := range sols {
			sources[s.Source]++
			insts[s.Instance] = true
			if math.IsInf(s.Cost, 1) {
				infinite++
			} else {
				cost.add(s.Cost)
			}
			if s.Tour != nil {
				tours++
				viol.add(s.Violation)
				if s.Feasible {
					feasible++
				}
			}
		}
	}
	fmt.Fprintf(w, "instances referred to %d, tours %d (recorded feasible %d), infinite costs %d, sources %v\n",
		len(insts), tours, feasible, infinite, sources)
	fmt.Fprintf(w, "cost      %s\n", cost)
	fmt.Fprintf(w, "violation %s\n", viol)
	return nil
}
