package datasets

import (
	"os"
	"strings"

	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/internal/opterr"
)

// ReferencePath returns where the benchmark's reference values go: ref
// (the References option) or, when empty and there are references, out with
// .refs.parquet for .parquet; "" for none. Since the default name is known
// only once the benchmark is read, it is checked here as the command checks
// its flags: a regular file or a new one, and neither out nor in.
func (bm *Benchmark) ReferencePath(ref, in, out string) (string, error) {
	if ref == "" && len(bm.References) > 0 {
		ref = strings.TrimSuffix(out, ".parquet") + ".refs.parquet"
	}
	if ref == "" {
		return "", nil
	}
	if err := atomicfile.CheckDest(ref); err != nil {
		return "", opterr.Wrap("References", "", err)
	}
	if err := distinctOut("References", ref, "Out", out, "In", in); err != nil {
		return "", err
	}
	return ref, nil
}

// MDSCount counts the instances whose coordinates come from classical MDS.
func (bm *Benchmark) MDSCount() int {
	n := 0
	for _, s := range bm.CoordSource {
		if s == "mds" {
			n++
		}
	}
	return n
}

// WriteReferences writes the reference values to refPath, naming out (the
// instances file just written) as their instances; on failure it removes
// out, so an import leaves both files or neither.
func (bm *Benchmark) WriteReferences(refPath, out string) error {
	bm.RefMeta.Instances = out
	if err := WriteSolutions(refPath, bm.RefMeta, bm.References, WriterOptions{}); err != nil {
		os.Remove(out)
		return err
	}
	return nil
}

// NPZReferenceImport summarises ImportNPZReferenceFile: the rows written, their
// source, and the tours among them and those violating a constraint.
type NPZReferenceImport struct {
	Rows, Tours, Violating int
	Source                 string
}

// ImportNPZInstancesFile converts the paper's instance .npz in
// (ImportNPZInstances) into the instances file out and returns what it
// wrote.
func ImportNPZInstancesFile(in, out string) (*Dataset, error) {
	d, err := ImportNPZInstances(in)
	if err != nil {
		return nil, err
	}
	if err := WriteInstances(out, d.Meta, d.Instances, d.KnownTours, WriterOptions{}); err != nil {
		return nil, err
	}
	return d, nil
}

// ImportNPZReferenceFile converts a reference .npz (solutions, costs) of
// the instances file instPath into the solutions file out.
func ImportNPZReferenceFile(in, instPath, out string) (NPZReferenceImport, error) {
	d, err := ReadInstances(instPath)
	if err != nil {
		return NPZReferenceImport{}, err
	}
	sols, meta, err := ImportNPZReferences(in, d.Instances)
	if err != nil {
		return NPZReferenceImport{}, err
	}
	meta.Instances = instPath
	tours, viol, err := CountViolating(sols, in, instPath)
	if err != nil {
		return NPZReferenceImport{}, err
	}
	if err := WriteSolutions(out, meta, sols, WriterOptions{}); err != nil {
		return NPZReferenceImport{}, err
	}
	return NPZReferenceImport{Rows: len(sols), Tours: tours, Violating: viol, Source: meta.Source}, nil
}

// distinctOut refuses the output path out of the option outOption when it
// names the same file as one of the inputs, given as pairs of option and
// path: an *opterr.Error naming both options.
func distinctOut(outOption, out string, inputs ...string) error {
	for i := 0; i+1 < len(inputs); i += 2 {
		if _, same := atomicfile.Same(out, atomicfile.Input{Path: inputs[i+1]}); same {
			return opterr.New(outOption, out, "is the %v file: writing it would destroy the input; choose another output path", opterr.Name(inputs[i]))
		}
	}
	return nil
}
