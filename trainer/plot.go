package trainer

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lmask/lmask/internal/atomicfile"
)

// CurveFile is the training-curve picture inside a run directory.
const CurveFile = "curve.svg"

// curvePanel is one panel of the training-curve picture.
type curvePanel struct {
	title, ylabel string
	series        []curveSeries
}

// curveSeries is one line of a panel.
type curveSeries struct {
	name string
	pts  plotter.XYs
	clr  color.Color
}

// panels turns the records into the four panels: training reward,
// penalised cost (training mean) and length, infeasibility (training
// rollouts and validation, in %), and the validation gap or objective.
func panels(recs []Record) []curvePanel {
	var reward, pen, length, infTrain, solInf, instInf, gap, obj plotter.XYs
	hasGap := false
	for _, r := range recs {
		x := float64(r.Step)
		switch r.Kind {
		case KindTrain:
			reward = append(reward, plotter.XY{X: x, Y: r.Reward})
			pen = append(pen, plotter.XY{X: x, Y: r.PenCost})
			length = append(length, plotter.XY{X: x, Y: r.Length})
			infTrain = append(infTrain, plotter.XY{X: x, Y: 100 * r.Infeasible})
		case KindVal:
			if r.Val == nil {
				continue
			}
			solInf = append(solInf, plotter.XY{X: x, Y: 100 * r.Val.SolInfeasible})
			instInf = append(instInf, plotter.XY{X: x, Y: 100 * r.Val.InstInfeasible})
			obj = append(obj, plotter.XY{X: x, Y: r.Val.Obj})
			if r.Val.HasGap {
				hasGap = true
				gap = append(gap, plotter.XY{X: x, Y: 100 * r.Val.Gap})
			}
		}
	}
	blue := color.RGBA{R: 31, G: 119, B: 180, A: 255}
	orange := color.RGBA{R: 255, G: 127, B: 14, A: 255}
	green := color.RGBA{R: 44, G: 160, B: 44, A: 255}
	last := curvePanel{title: "validation objective (greedy ×8)", ylabel: "mean best length",
		series: []curveSeries{{"val obj", obj, green}}}
	if hasGap {
		last = curvePanel{title: "validation gap (greedy ×8)", ylabel: "gap %",
			series: []curveSeries{{"val gap", gap, green}}}
	}
	return []curvePanel{
		{title: "training reward", ylabel: "mean −Ψ", series: []curveSeries{{"reward", reward, blue}}},
		{title: "penalised cost", ylabel: "mean Ψ / length", series: []curveSeries{
			{"train Ψ", pen, blue}, {"train length", length, orange}}},
		{title: "infeasibility", ylabel: "%", series: []curveSeries{
			{"train tours", infTrain, blue}, {"val tours", solInf, orange}, {"val instances", instInf, green}}},
		last,
	}
}

// RenderCurve draws the training curve of recs as an SVG picture with four
// panels (2×2); stageStarts are the steps where warm-started stages begin
// (JoinStages), drawn as dashed lines. Each panel's value axis spans the
// bulk of its points (the first steps of a run from random weights would
// flatten everything else; lines past the range are clipped), with room
// above for the legend.
func RenderCurve(recs []Record, stageStarts ...int) ([]byte, error) {
	ps := panels(recs)
	const rows, cols = 2, 2
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for k, pn := range ps {
		p := plot.New()
		p.Title.Text = pn.title
		p.X.Label.Text = "step"
		p.Y.Label.Text = pn.ylabel
		p.X.Tick.Marker = plainTicks{}
		p.Y.Tick.Marker = plainTicks{}
		p.Add(plotter.NewGrid())
		lo, hi, any := valueRange(pn.series)
		legendRows := 0
		for _, s := range pn.series {
			if len(s.pts) == 0 {
				continue
			}
			legendRows++
			l, err := plotter.NewLine(s.pts)
			if err != nil {
				return nil, fmt.Errorf("curve %s: %w", s.name, err)
			}
			l.Color = s.clr
			l.Width = vg.Points(1.2)
			p.Add(l)
			p.Legend.Add(s.name, l)
			if len(s.pts) < 40 {
				sc, err := plotter.NewScatter(s.pts)
				if err != nil {
					return nil, fmt.Errorf("curve %s: %w", s.name, err)
				}
				sc.Color = s.clr
				sc.Radius = vg.Points(1.5)
				p.Add(sc)
			}
		}
		if any {
			span := hi - lo
			if span <= 0 {
				span = math.Max(math.Abs(hi), 1)
			}
			p.Y.Min, p.Y.Max = lo-0.05*span, hi+(0.05+0.12*float64(legendRows+1))*span
			for n, x := range stageStarts {
				l, err := plotter.NewLine(plotter.XYs{{X: float64(x), Y: p.Y.Min}, {X: float64(x), Y: p.Y.Max}})
				if err != nil {
					return nil, fmt.Errorf("curve stage line: %w", err)
				}
				l.Color = color.Gray{Y: 110}
				l.Width = vg.Points(0.8)
				l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
				p.Add(l)
				if n == 0 {
					p.Legend.Add("new stage", l)
				}
			}
		}
		p.Legend.Top = true
		grid[k/cols][k%cols] = p
	}
	c := vgsvg.New(11*vg.Inch, 7*vg.Inch)
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canv := plot.Align(grid, tiles, dc)
	for i := range grid {
		for j := range grid[i] {
			grid[i][j].Draw(canv[i][j])
		}
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("curve: %w", err)
	}
	return b.Bytes(), nil
}

// valueRange returns the range a panel's value axis spans: all of a
// series with few points (validations), the 1st to 99th percentile of one
// with many (the training steps), and false when the panel has no point.
func valueRange(series []curveSeries) (lo, hi float64, any bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		if len(s.pts) == 0 {
			continue
		}
		ys := make([]float64, 0, len(s.pts))
		for _, p := range s.pts {
			if !math.IsNaN(p.Y) && !math.IsInf(p.Y, 0) {
				ys = append(ys, p.Y)
			}
		}
		if len(ys) == 0 {
			continue
		}
		sort.Float64s(ys)
		a, b := ys[0], ys[len(ys)-1]
		if len(ys) >= 100 {
			a, b = ys[len(ys)/100], ys[len(ys)-1-len(ys)/100]
		}
		lo, hi, any = math.Min(lo, a), math.Max(hi, b), true
	}
	return lo, hi, any
}

// plainTicks are gonum's default ticks labelled without trailing zeros
// (2500, not 2500.00).
type plainTicks struct{}

func (plainTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// WriteCurve renders recs to dir/CurveFile atomically.
func WriteCurve(dir string, recs []Record) error {
	svg, err := RenderCurve(recs)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, CurveFile), svg)
}
