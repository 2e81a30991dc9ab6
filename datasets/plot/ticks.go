package plot

import (
	"strconv"

	"gonum.org/v1/plot"
)

// PlainTicks are gonum's default ticks labelled without trailing zeros
// (2500, not 2500.00): the project's pictures use them on every axis.
type PlainTicks struct{}

// Ticks implements plot.Ticker.
func (PlainTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}
