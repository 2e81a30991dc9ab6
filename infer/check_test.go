package infer

import (
	"testing"
	"time"

	"github.com/lmask/lmask/internal/opterr"
)

// TestCheckNamesTheOption: Check passes every preset as it is, and names
// the option a bad value sits in.
func TestCheckNamesTheOption(t *testing.T) {
	t.Parallel()
	for _, name := range Presets {
		o, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		o.InfeasibleTime = time.Second
		if err := o.Check(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	best, _ := Preset(PresetBest)
	best.InfeasibleTime = time.Second
	for _, tc := range []struct {
		edit   func(o *Options)
		option string
		msg    string
	}{
		{func(o *Options) { o.Decode.Aug = 9 }, "Aug", "Aug 9: want 1 to 8"},
		{func(o *Options) { o.Improve = false }, "ImproveShare", "ImproveShare needs Improve"},
		{func(o *Options) { o.Starts = StartsUrgency }, "Starts", "Starts urgency: with ImproveShare (as the best preset sets it) needs CPUBudget or CPUPerInstance: there is no decode to take a share of"},
		{func(o *Options) { o.Starts, o.CPUBudget = StartsUrgency, time.Second; o.Model = "m" }, "Model", "Model m: Starts urgency uses no model"},
		{func(o *Options) { o.CPUBudget = time.Second }, "CPUBudget", "CPUBudget and CPUPerInstance apply to Starts random-l or urgency; with Starts network the search's time is ImproveShare of the decode's"},
		{func(o *Options) { o.NeuralEvery = 3; o.Starts, o.CPUBudget = StartsRandomL, time.Second }, "NeuralEvery", "NeuralEvery re-decodes with the model: it needs Starts network, not random-l"},
		{func(o *Options) { o.InfeasibleTime = 0 }, "InfeasibleTime", "InfeasibleTime 0s: want a time > 0"},
	} {
		o := best
		tc.edit(&o)
		err := o.Check()
		if e := opterr.As(err); e == nil || e.Option != tc.option || err.Error() != tc.msg {
			t.Errorf("want %s refused as %q, got %v", tc.option, tc.msg, err)
		}
	}
}
