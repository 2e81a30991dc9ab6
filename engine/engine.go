package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
)

// Device names accepted by Options.Device.
const (
	DeviceCPU  = "cpu"
	DeviceCUDA = "cuda"
)

// Options configure how a model is run.
type Options struct {
	// Device is "cpu" (default) or "cuda". A CUDA request that the loaded
	// onnxruntime cannot satisfy is an error; there is no silent fallback.
	Device string
	// Threads is the intra-op thread count of each session; 0 uses one
	// thread per worker, splitting the machine's cores between Workers.
	Threads int
	// Workers is how many decodes Solve runs at once, each with its own
	// buffers and batch of instances; 0 means one per core on the CPU
	// (measured faster than intra-op threads) and 2 with CUDA (so Go-side
	// LazyMask work overlaps the device).
	Workers int
	// Library overrides the search for the onnxruntime shared library.
	Library string
	// CUDADevice is the GPU ordinal used with Device "cuda".
	CUDADevice int
	// GraphOptimization is onnxruntime's graph optimisation level:
	// "disable", "basic", "extended" or "all"; "" keeps the runtime's
	// default (all).
	GraphOptimization string
	// NoSpinning stops idle intra-op threads from spinning (onnxruntime's
	// session.intra_op.allow_spinning = 0); it matters with Threads > 1.
	NoSpinning bool
}

// Engine holds the encoder and decoder sessions of one model directory.
// Sessions are safe for concurrent runs; the buffers live in Policy values,
// one per goroutine.
type Engine struct {
	dir     string
	cfg     features.Config
	opts    Options
	encoder *ort.DynamicAdvancedSession
	decoder *ort.DynamicAdvancedSession
}

// Open loads dir/config.json, dir/encoder.onnx and dir/decoder.onnx. It
// refuses a model whose contract (format, feature widths, input/output
// names and types) this build does not know, or whose ONNX metadata
// disagrees with config.json.
func Open(dir string, opts Options) (*Engine, error) {
	if err := InitRuntime(opts.Library); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	cfg, err := features.ReadConfig(dir)
	if err != nil {
		return nil, fmt.Errorf("open model %s: %w", dir, err)
	}
	encPath := filepath.Join(dir, features.EncoderFile)
	decPath := filepath.Join(dir, features.DecoderFile)
	for _, p := range []string{encPath, decPath} {
		mc, err := fileConfig(p)
		if err != nil {
			return nil, fmt.Errorf("open model %s: %w", dir, err)
		}
		if err := sameConfig(cfg, mc); err != nil {
			return nil, fmt.Errorf("open model %s: %s disagrees with %s: %w", dir, filepath.Base(p), features.ConfigFile, err)
		}
	}
	if err := checkIO(encPath, []string{features.InNodeFeat}, features.EncoderOutputs, cfg.DModel, 0); err != nil {
		return nil, fmt.Errorf("open model %s: %w", dir, err)
	}
	if err := checkIO(decPath, cfg.DecoderInputs(), []string{features.OutLogProbs}, cfg.DModel, cfg.CandWidth()); err != nil {
		return nil, fmt.Errorf("open model %s: %w", dir, err)
	}
	e := &Engine{dir: dir, cfg: cfg, opts: opts}
	so, err := e.sessionOptions()
	if err != nil {
		return nil, err
	}
	defer so.Destroy()
	e.encoder, err = ort.NewDynamicAdvancedSession(encPath, []string{features.InNodeFeat}, features.EncoderOutputs, so)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", encPath, err)
	}
	e.decoder, err = ort.NewDynamicAdvancedSession(decPath, cfg.DecoderInputs(), []string{features.OutLogProbs}, so)
	if err != nil {
		e.encoder.Destroy()
		return nil, fmt.Errorf("open %s: %w", decPath, err)
	}
	return e, nil
}

func (o Options) withDefaults() Options {
	if o.Device == "" {
		o.Device = DeviceCPU
	}
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
		if o.Device == DeviceCUDA {
			o.Workers = 2
		}
	}
	if o.Threads <= 0 {
		o.Threads = max(1, runtime.NumCPU()/o.Workers)
	}
	return o
}

// sessionOptions builds the ORT session options for the engine's device.
func (e *Engine) sessionOptions() (*ort.SessionOptions, error) {
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	fail := func(err error) (*ort.SessionOptions, error) {
		so.Destroy()
		return nil, err
	}
	if err := so.SetIntraOpNumThreads(e.opts.Threads); err != nil {
		return fail(fmt.Errorf("set intra-op threads %d: %w", e.opts.Threads, err))
	}
	if err := so.SetInterOpNumThreads(1); err != nil {
		return fail(fmt.Errorf("set inter-op threads: %w", err))
	}
	if l := e.opts.GraphOptimization; l != "" {
		levels := map[string]ort.GraphOptimizationLevel{"disable": ort.GraphOptimizationLevelDisableAll,
			"basic": ort.GraphOptimizationLevelEnableBasic, "extended": ort.GraphOptimizationLevelEnableExtended,
			"all": ort.GraphOptimizationLevelEnableAll}
		lv, ok := levels[l]
		if !ok {
			return fail(fmt.Errorf("unknown graph optimisation level %q (want disable, basic, extended or all)", l))
		}
		if err := so.SetGraphOptimizationLevel(lv); err != nil {
			return fail(fmt.Errorf("set graph optimisation level %s: %w", l, err))
		}
	}
	if e.opts.NoSpinning {
		if err := so.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
			return fail(fmt.Errorf("session option allow_spinning: %w", err))
		}
	}
	switch e.opts.Device {
	case DeviceCPU:
	case DeviceCUDA:
		if err := appendCUDA(so, e.opts.CUDADevice); err != nil {
			return fail(err)
		}
	default:
		return fail(fmt.Errorf("unknown device %q (want %s or %s)", e.opts.Device, DeviceCPU, DeviceCUDA))
	}
	return so, nil
}

// appendCUDA asks for the CUDA execution provider and turns the runtime's
// failure into a message naming the missing library.
func appendCUDA(so *ort.SessionOptions, device int) error {
	co, err := ort.NewCUDAProviderOptions()
	if err != nil {
		return fmt.Errorf("device cuda: %s: %w", cudaHint(err.Error()), err)
	}
	defer co.Destroy()
	if err := co.Update(map[string]string{"device_id": fmt.Sprint(device)}); err != nil {
		return fmt.Errorf("device cuda: %s (device_id %d): %w", cudaHint(err.Error()), device, err)
	}
	if err := so.AppendExecutionProviderCUDA(co); err != nil {
		return fmt.Errorf("device cuda: %s: %w", cudaHint(err.Error()), err)
	}
	return nil
}

// cudaHint names the library a CUDA provider failure is about.
func cudaHint(msg string) string {
	for _, lib := range []string{"libonnxruntime_providers_shared.so", "libonnxruntime_providers_cuda.so",
		"libcudnn", "libcublasLt", "libcublas", "libcudart", "libcufft", "libcurand"} {
		if strings.Contains(msg, lib) {
			return fmt.Sprintf("the CUDA execution provider needs %s, which could not be loaded (install the CUDA provider libraries of onnxruntime %s beside %s, with CUDA and cuDNN)", lib, ort.GetVersion(), RuntimeLibrary())
		}
	}
	return fmt.Sprintf("the CUDA execution provider is unavailable in %s (it needs libonnxruntime_providers_shared.so and libonnxruntime_providers_cuda.so of the same version, CUDA and cuDNN)", RuntimeLibrary())
}

// Close releases the sessions. Policies made by the engine must not be used
// afterwards.
func (e *Engine) Close() error {
	var errs []error
	if e.encoder != nil {
		errs = append(errs, e.encoder.Destroy())
		e.encoder = nil
	}
	if e.decoder != nil {
		errs = append(errs, e.decoder.Destroy())
		e.decoder = nil
	}
	return errors.Join(errs...)
}

// Config returns the model's configuration.
func (e *Engine) Config() features.Config { return e.cfg }

// Problem returns the problem the model was trained for.
func (e *Engine) Problem() lazymask.Problem { return e.cfg.ProblemKind() }

// Dir returns the model directory.
func (e *Engine) Dir() string { return e.dir }

// Options returns the effective options (defaults filled in).
func (e *Engine) Options() Options { return e.opts }

// fileConfig reads an ONNX file's metadata_props into a features.Config.
func fileConfig(path string) (features.Config, error) {
	md, err := ort.GetModelMetadata(path)
	if err != nil {
		return features.Config{}, fmt.Errorf("read metadata of %s: %w", path, err)
	}
	defer md.Destroy()
	keys, err := md.GetCustomMetadataMapKeys()
	if err != nil {
		return features.Config{}, fmt.Errorf("read metadata of %s: %w", path, err)
	}
	m := make(map[string]string, len(keys))
	for _, k := range keys {
		v, _, err := md.LookupCustomMetadataMap(k)
		if err != nil {
			return features.Config{}, fmt.Errorf("read metadata %q of %s: %w", k, path, err)
		}
		m[k] = v
	}
	c, err := features.ConfigFromMetadata(m)
	if err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// sameConfig compares the fields that the ONNX metadata carries.
func sameConfig(want, got features.Config) error {
	type field struct {
		name   string
		w, g   any
		differ bool
	}
	for _, f := range []field{
		{features.MetaProblem, want.Problem, got.Problem, want.Problem != got.Problem},
		{features.MetaDModel, want.DModel, got.DModel, want.DModel != got.DModel},
		{features.MetaHeads, want.Heads, got.Heads, want.Heads != got.Heads},
		{features.MetaLayers, want.Layers, got.Layers, want.Layers != got.Layers},
		{features.MetaFFN, want.FFN, got.FFN, want.FFN != got.FFN},
		{features.MetaRIE, want.RIE, got.RIE, want.RIE != got.RIE},
		{features.MetaFormat, want.Format, got.Format, want.Format != got.Format},
		{features.MetaReLD, want.ReLD, got.ReLD, want.ReLD != got.ReLD},
		{features.MetaCand, want.Cand, got.Cand, want.Cand != got.Cand},
	} {
		if f.differ {
			return fmt.Errorf("%s: config.json has %v, the ONNX file has %v", f.name, f.w, f.g)
		}
	}
	return nil
}

// ioSpec is the expected element type and rank of one ONNX input/output.
type ioSpec struct {
	dtype ort.TensorElementDataType
	rank  int
	lastD bool // last dimension must equal d_model when static
}

var contractIO = map[string]ioSpec{
	features.InNodeFeat:    {ort.TensorElementDataTypeFloat, 3, false},
	features.OutNodeEmb:    {ort.TensorElementDataTypeFloat, 3, true},
	features.OutGlimpseK:   {ort.TensorElementDataTypeFloat, 3, true},
	features.OutGlimpseV:   {ort.TensorElementDataTypeFloat, 3, true},
	features.OutLogitK:     {ort.TensorElementDataTypeFloat, 3, true},
	features.InRowInstance: {ort.TensorElementDataTypeInt64, 1, false},
	features.InCurrent:     {ort.TensorElementDataTypeInt64, 1, false},
	features.InStepFeat:    {ort.TensorElementDataTypeFloat, 2, false},
	features.InMask:        {ort.TensorElementDataTypeBool, 2, false},
	features.InCandFeat:    {ort.TensorElementDataTypeFloat, 3, false},
	features.OutLogProbs:   {ort.TensorElementDataTypeFloat, 2, false},
}

// checkIO compares an ONNX file's inputs and outputs with the contract and
// reports, on mismatch, what it expected and what it found.
func checkIO(path string, wantIn, wantOut []string, d, candWidth int) error {
	ins, outs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		return fmt.Errorf("read inputs/outputs of %s: %w", path, err)
	}
	if err := checkNames(path, "inputs", wantIn, ins); err != nil {
		return err
	}
	if err := checkNames(path, "outputs", wantOut, outs); err != nil {
		return err
	}
	for _, io := range append(ins, outs...) {
		spec := contractIO[io.Name]
		if io.DataType != spec.dtype || len(io.Dimensions) != spec.rank {
			return fmt.Errorf("%s: %q: expected %s of rank %d, found %s of rank %d (%s)",
				path, io.Name, spec.dtype, spec.rank, io.DataType, len(io.Dimensions), io.Dimensions)
		}
		if spec.lastD {
			if last := io.Dimensions[spec.rank-1]; last > 0 && last != int64(d) {
				return fmt.Errorf("%s: %q: expected last dimension d_model=%d, found %d", path, io.Name, d, last)
			}
		}
		if io.Name == features.InNodeFeat || io.Name == features.InStepFeat || io.Name == features.InCandFeat {
			want := int64(features.NodeFeatures)
			switch io.Name {
			case features.InStepFeat:
				want = features.StepFeatures
			case features.InCandFeat:
				want = int64(candWidth)
			}
			if last := io.Dimensions[spec.rank-1]; last > 0 && last != want {
				return fmt.Errorf("%s: %q: expected last dimension %d, found %d", path, io.Name, want, last)
			}
		}
	}
	return nil
}

func checkNames(path, what string, want []string, got []ort.InputOutputInfo) error {
	names := make([]string, len(got))
	for i, g := range got {
		names[i] = g.Name
	}
	w := append([]string(nil), want...)
	g := append([]string(nil), names...)
	sort.Strings(w)
	sort.Strings(g)
	if strings.Join(w, ",") != strings.Join(g, ",") {
		return fmt.Errorf("%s: %s: expected %s, found %s", path, what, strings.Join(want, ", "), strings.Join(names, ", "))
	}
	return nil
}
