package trainer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/lmask/lmask/internal/atomicfile"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/lmask/lmask/models/features"
)

// CheckpointFile is the name of the checkpoint inside a run directory.
const CheckpointFile = "checkpoint.lmck"

// BestFile is the name of the best-validated checkpoint inside a run
// directory (Config.KeepBest).
const BestFile = "best.lmck"

// SnapshotDir is the folder of a run directory that keeps the checkpoints
// of Config.SnapshotEvery, one file per step (SnapshotName).
const SnapshotDir = "snapshots"

// SnapshotName is the file name of the snapshot of a step.
func SnapshotName(step int) string { return fmt.Sprintf("step-%07d.lmck", step) }

// checkpointMagic starts every checkpoint file; the header length (uint64,
// little-endian), the JSON header and the raw variable bytes follow.
const checkpointMagic = "LMASK-CKPT\n"

// CheckpointFormat is the version of the checkpoint layout.
const CheckpointFormat = 1

// VarRecord locates one stored variable in the checkpoint's data section.
type VarRecord struct {
	Path      string `json:"path"`
	DType     string `json:"dtype"`
	Shape     []int  `json:"shape"`
	Trainable bool   `json:"trainable"`
	Offset    int64  `json:"offset"`
	Bytes     int64  `json:"bytes"`
}

// State is everything a checkpoint holds besides the variable values: the
// full configuration, the step reached, the RNG state and the run's
// counters.
type State struct {
	Format int    `json:"format"`
	Config Config `json:"config"`
	// Step is the number of completed training iterations.
	Step int `json:"step"`
	// InstancesSeen counts training instances drawn so far.
	InstancesSeen int64 `json:"instances_seen"`
	// WallSeconds is the training wall time summed over all sessions.
	WallSeconds float64 `json:"wall_seconds"`
	// RNG is the marshalled state of the run's master PCG source.
	RNG []byte `json:"rng"`
	// LastVal holds the latest validation metrics, if any.
	LastVal *ValMetrics `json:"last_val,omitempty"`
	// BestVal and BestStep record the best validation so far
	// (ValMetrics.Better) and the step it was measured at.
	BestVal  *ValMetrics `json:"best_val,omitempty"`
	BestStep int         `json:"best_step,omitempty"`
	// Hardware describes the machine of the latest session.
	Hardware string `json:"hardware,omitempty"`
	// Vars lists the variables (weights, optimiser moments, counters).
	Vars []VarRecord `json:"vars"`
	// DataCRC is the CRC-32 (IEEE) of the data section.
	DataCRC uint32 `json:"data_crc"`
}

// SaveCheckpoint writes st and every variable of store to dir/CheckpointFile
// atomically (temporary file, sync, rename): a crash leaves the previous
// checkpoint intact.
func SaveCheckpoint(dir string, st State, store *model.Store) error {
	return SaveCheckpointAs(dir, CheckpointFile, st, store)
}

// SaveCheckpointAs is SaveCheckpoint to dir/name.
func SaveCheckpointAs(dir, name string, st State, store *model.Store) error {
	var data bytes.Buffer
	st.Format = CheckpointFormat
	st.Vars = st.Vars[:0]
	vars := slices.Collect(store.IterVariables())
	slices.SortFunc(vars, func(a, b *model.Variable) int {
		switch {
		case a.Path() < b.Path():
			return -1
		case a.Path() > b.Path():
			return 1
		}
		return 0
	})
	for _, v := range vars {
		t, err := v.Value()
		if err != nil {
			return fmt.Errorf("checkpoint variable %s: %w", v.Path(), err)
		}
		if t == nil {
			continue
		}
		sh := t.Shape()
		rec := VarRecord{Path: v.Path(), DType: sh.DType.String(), Shape: slices.Clone(sh.Dimensions),
			Trainable: v.Trainable, Offset: int64(data.Len())}
		if rec.Shape == nil {
			rec.Shape = []int{}
		}
		if err := t.ConstBytes(func(b []byte) { data.Write(b) }); err != nil {
			return fmt.Errorf("checkpoint variable %s: %w", v.Path(), err)
		}
		rec.Bytes = int64(data.Len()) - rec.Offset
		st.Vars = append(st.Vars, rec)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return writeCheckpointFile(filepath.Join(dir, name), st, data.Bytes())
}

// writeCheckpointFile writes the checkpoint layout (magic, header length,
// JSON header with the data's checksum, data) to path atomically; st.Vars
// must describe data.
func writeCheckpointFile(path string, st State, data []byte) error {
	st.DataCRC = crc32.ChecksumIEEE(data)
	hdr, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("checkpoint header: %w", err)
	}
	var out bytes.Buffer
	out.Grow(len(checkpointMagic) + 8 + len(hdr) + len(data))
	out.WriteString(checkpointMagic)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(hdr)))
	out.Write(n[:])
	out.Write(hdr)
	out.Write(data)
	return atomicfile.WriteFile(path, out.Bytes())
}

// Checkpoint is a checkpoint read back from disk.
type Checkpoint struct {
	State
	// Path is the file it was read from.
	Path string
	data []byte
}

// ErrNoCheckpoint is returned (wrapped) by ReadCheckpoint when the
// directory holds no checkpoint.
var ErrNoCheckpoint = errors.New("no checkpoint")

// ReadCheckpoint reads dir/CheckpointFile (or dir itself when it names a
// file) and verifies its layout and checksum.
func ReadCheckpoint(dir string) (*Checkpoint, error) {
	path := dir
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		path = filepath.Join(dir, CheckpointFile)
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read checkpoint %s: %w", path, ErrNoCheckpoint)
	}
	if err != nil {
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	if len(raw) < len(checkpointMagic)+8 || string(raw[:len(checkpointMagic)]) != checkpointMagic {
		return nil, fmt.Errorf("checkpoint %s: not an lmask checkpoint (bad magic)", path)
	}
	hl := binary.LittleEndian.Uint64(raw[len(checkpointMagic):])
	start := uint64(len(checkpointMagic) + 8)
	if hl > uint64(len(raw))-start {
		return nil, fmt.Errorf("checkpoint %s: header length %d exceeds file size %d", path, hl, len(raw))
	}
	c := &Checkpoint{Path: path, data: raw[start+hl:]}
	if err := json.Unmarshal(raw[start:start+hl], &c.State); err != nil {
		return nil, fmt.Errorf("checkpoint %s: header: %w", path, err)
	}
	if c.Format != CheckpointFormat {
		return nil, fmt.Errorf("checkpoint %s: format %d, this build reads format %d", path, c.Format, CheckpointFormat)
	}
	if crc := crc32.ChecksumIEEE(c.data); crc != c.DataCRC {
		return nil, fmt.Errorf("checkpoint %s: data checksum %08x, header says %08x (file damaged)", path, crc, c.DataCRC)
	}
	for _, r := range c.Vars {
		if r.Offset < 0 || r.Bytes < 0 || r.Offset+r.Bytes > int64(len(c.data)) {
			return nil, fmt.Errorf("checkpoint %s: variable %s lies outside the data section", path, r.Path)
		}
	}
	return c, nil
}

// tensor rebuilds the stored value of variable record r.
func (c *Checkpoint) tensor(r VarRecord) (*tensors.Tensor, error) {
	dt, err := dtypes.DTypeString(r.DType)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: variable %s: dtype %q: %w", c.Path, r.Path, r.DType, err)
	}
	sh := shapes.Make(dt, r.Shape...)
	if int64(sh.ByteSize()) != r.Bytes {
		return nil, fmt.Errorf("checkpoint %s: variable %s: %d bytes stored, shape %s needs %d", c.Path, r.Path, r.Bytes, sh, sh.ByteSize())
	}
	t := tensors.FromShape(sh)
	src := c.data[r.Offset : r.Offset+r.Bytes]
	if err := t.MutableBytes(func(dst []byte) { copy(dst, src) }); err != nil {
		return nil, fmt.Errorf("checkpoint %s: variable %s: %w", c.Path, r.Path, err)
	}
	return t, nil
}

// Restore sets every stored variable in store: existing variables get the
// stored value (their shape must match), missing ones (optimiser moments,
// counters) are created with it, and each keeps its stored trainable flag.
func (c *Checkpoint) Restore(store *model.Store) error {
	for _, r := range c.Vars {
		t, err := c.tensor(r)
		if err != nil {
			return err
		}
		v := store.GetVariable(r.Path)
		if v == nil {
			v = store.VariableWithValue(r.Path, t)
		} else {
			if !v.Shape().Equal(t.Shape()) {
				return fmt.Errorf("checkpoint %s: variable %s has shape %s, the model's is %s", c.Path, r.Path, t.Shape(), v.Shape())
			}
			if err := v.SetValue(t); err != nil {
				return fmt.Errorf("checkpoint %s: variable %s: %w", c.Path, r.Path, err)
			}
		}
		v.SetTrainable(r.Trainable)
	}
	return nil
}

// Weights returns the float32 values of the model parameters named by
// specs, looked up as variables "/"+name (the models package's layout),
// as canonical features.Weights.
func (c *Checkpoint) Weights(specs []features.Spec) (features.Weights, error) {
	byPath := map[string]VarRecord{}
	for _, r := range c.Vars {
		byPath[r.Path] = r
	}
	w := features.Weights{}
	for _, s := range specs {
		r, ok := byPath["/"+s.Name]
		if !ok {
			return nil, fmt.Errorf("checkpoint %s: parameter %s missing", c.Path, s.Name)
		}
		t, err := c.tensor(r)
		if err != nil {
			return nil, err
		}
		if t.Shape().DType != dtypes.Float32 {
			return nil, fmt.Errorf("checkpoint %s: parameter %s has dtype %s, want float32", c.Path, s.Name, t.Shape().DType)
		}
		w[s.Name] = features.Tensor{Shape: slices.Clone(r.Shape), Data: tensors.MustCopyFlatData[float32](t)}
	}
	return w, nil
}
