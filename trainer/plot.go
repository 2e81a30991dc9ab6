package trainer

import (
	"bytes"
	"fmt"
	lplot "github.com/lmask/lmask/datasets/plot"
	"image/color"
	"math"
	"path/filepath"

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

// curveSeries is one line of a panel. A noisy series (a value per
// training step) is drawn faintly, under its moving average.
type curveSeries struct {
	name  string
	pts   plotter.XYs
	clr   color.Color
	noisy bool
}

// panels turns the records into the four panels: the training objective
// (reward, or the imitation loss per step), penalised cost and length,
// infeasibility (training rollouts and validation, in %), and the
// validation gap or objective.
func panels(recs []Record) []curvePanel {
	var reward, nll, pen, length, infTrain, solInf, instInf, gap, obj plotter.XYs
	hasGap := false
	for _, r := range recs {
		x := float64(r.Step)
		switch r.Kind {
		case KindTrain:
			// An imitation step has a label NLL; a REINFORCE step has
			// none, and a reward (its Ψ is in the second panel either way).
			if r.StepNLL != 0 {
				nll = append(nll, plotter.XY{X: x, Y: r.StepNLL})
			} else {
				reward = append(reward, plotter.XY{X: x, Y: r.Reward})
			}
			if r.PenCost != 0 {
				pen = append(pen, plotter.XY{X: x, Y: r.PenCost})
			}
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
	first := curvePanel{title: "training reward", ylabel: "mean −Ψ", series: []curveSeries{{"reward", reward, blue, true}}}
	if len(nll) > 0 {
		first = curvePanel{title: "imitation loss", ylabel: "NLL per step", series: []curveSeries{{"label NLL", nll, blue, true}}}
	}
	last := curvePanel{title: "validation objective (greedy ×8)", ylabel: "mean best length",
		series: []curveSeries{{"val obj", obj, green, false}}}
	if hasGap {
		last = curvePanel{title: "validation gap (greedy ×8)", ylabel: "gap %",
			series: []curveSeries{{"val gap", gap, green, false}}}
	}
	return []curvePanel{
		first,
		{title: "training tours: penalised cost and length", ylabel: "mean Ψ / length", series: []curveSeries{
			{"Ψ", pen, blue, true}, {"length", length, orange, true}}},
		{title: "infeasibility", ylabel: "%", series: []curveSeries{
			{"train tours", infTrain, blue, true}, {"val tours", solInf, orange, false}, {"val inst.", instInf, green, false}}},
		last,
	}
}

// legendWidth is the band right of each panel that holds its legend, so
// that no legend covers the data.
const legendWidth = 1.25 * vg.Inch

// RenderCurve draws the training curve of recs as an SVG picture with four
// panels (2×2), each with its legend beside it; stageStarts are the steps
// where warm-started stages begin (JoinStages), drawn as dashed lines.
// Per-step training values are drawn faintly under their moving average
// (smooth); each value axis spans the averages and the validations after
// the first, whose untrained step-0 values would flatten the rest (lines
// past the range are clipped at the edge).
func RenderCurve(recs []Record, stageStarts ...int) ([]byte, error) {
	ps := panels(recs)
	maxStep := 0.0
	for _, r := range recs {
		maxStep = math.Max(maxStep, float64(r.Step))
	}
	const rows, cols = 2, 2
	grid := make([][]*plot.Plot, rows)
	legends := make([][]plot.Legend, rows)
	for i := range grid {
		grid[i], legends[i] = make([]*plot.Plot, cols), make([]plot.Legend, cols)
	}
	for k, pn := range ps {
		p := plot.New()
		p.Title.Text = pn.title
		p.X.Label.Text = "step"
		p.Y.Label.Text = pn.ylabel
		p.X.Tick.Marker = lplot.PlainTicks{}
		p.Y.Tick.Marker = lplot.PlainTicks{}
		p.X.Min, p.X.Max = 0, math.Max(maxStep, 1)
		p.Add(plotter.NewGrid())
		leg := plot.NewLegend()
		leg.Top, leg.Left = true, true
		leg.TextStyle.Font.Size = vg.Points(9)
		leg.ThumbnailWidth = vg.Points(14)
		drawn := make([]curveSeries, 0, len(pn.series))
		for _, s := range pn.series {
			if len(s.pts) == 0 {
				continue
			}
			line := s.pts
			if s.noisy && len(s.pts) >= smoothMin {
				raw, err := plotter.NewLine(s.pts)
				if err != nil {
					return nil, fmt.Errorf("curve %s: %w", s.name, err)
				}
				raw.Color, raw.Width = faint(s.clr), vg.Points(0.6)
				p.Add(raw)
				line = smooth(s.pts, stageStarts)
			}
			l, err := plotter.NewLine(line)
			if err != nil {
				return nil, fmt.Errorf("curve %s: %w", s.name, err)
			}
			l.Color, l.Width = s.clr, vg.Points(1.6)
			p.Add(l)
			leg.Add(s.name, l)
			if !s.noisy {
				sc, err := plotter.NewScatter(s.pts)
				if err != nil {
					return nil, fmt.Errorf("curve %s: %w", s.name, err)
				}
				sc.Color, sc.Radius = s.clr, vg.Points(2)
				p.Add(sc)
			}
			drawn = append(drawn, curveSeries{name: s.name, pts: line, noisy: s.noisy})
		}
		if lo, hi, ok := valueRange(drawn); ok {
			span := hi - lo
			if span <= 0 {
				span = math.Max(math.Abs(hi), 1)
			}
			if pn.ylabel == "%" && lo > 0 { // shares read against zero
				lo, span = 0, hi
			}
			p.Y.Min, p.Y.Max = lo-0.06*span, hi+0.06*span
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
					leg.Add("new stage", l)
				}
			}
		}
		grid[k/cols][k%cols], legends[k/cols][k%cols] = p, leg
	}
	c := vgsvg.New(12*vg.Inch, 7*vg.Inch)
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 6, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canv := plot.Align(grid, tiles, dc)
	for i := range grid {
		for j := range grid[i] {
			cv := canv[i][j]
			grid[i][j].Draw(draw.Crop(cv, 0, -legendWidth, 0, 0))
			band := draw.Crop(cv, cv.Max.X-cv.Min.X-legendWidth+vg.Millimeter*2, 0, 0, -vg.Millimeter*6)
			legends[i][j].Draw(band)
		}
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("curve: %w", err)
	}
	return b.Bytes(), nil
}

// smoothMin is the number of points from which a noisy series is drawn
// with its moving average.
const smoothMin = 20

// smooth returns the centred moving average of pts over a window of about
// a twentieth of the points (at least 5), narrower at the ends; the window never
// reaches across the start of a stage (a point with X ≤ a stage start
// belongs to the stage before it).
func smooth(pts plotter.XYs, stageStarts []int) plotter.XYs {
	half := max(2, len(pts)/40)
	sum := make([]float64, len(pts)+1)
	for i, p := range pts {
		sum[i+1] = sum[i] + p.Y
	}
	stage := func(x float64) int {
		k := 0
		for _, s := range stageStarts {
			if x > float64(s) {
				k++
			}
		}
		return k
	}
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		lo, hi := max(0, i-half), min(len(pts), i+half+1)
		own := stage(p.X)
		for stage(pts[lo].X) != own {
			lo++
		}
		for stage(pts[hi-1].X) != own {
			hi--
		}
		out[i] = plotter.XY{X: p.X, Y: (sum[hi] - sum[lo]) / float64(hi-lo)}
	}
	return out
}

// faint is c with a light alpha, for the raw points under an average.
func faint(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	const a = 60
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

// valueRange returns the range a panel's value axis spans: every point
// of the lines drawn (moving averages of the noisy series), except the
// first validation when later ones follow (the untrained step-0 values
// of a run from random weights), and false when the panel has no point.
func valueRange(series []curveSeries) (lo, hi float64, any bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		pts := s.pts
		if !s.noisy && len(pts) >= 3 && pts[0].X == 0 {
			pts = pts[1:]
		}
		for _, p := range pts {
			if math.IsNaN(p.Y) || math.IsInf(p.Y, 0) {
				continue
			}
			lo, hi, any = math.Min(lo, p.Y), math.Max(hi, p.Y), true
		}
	}
	return lo, hi, any
}

// WriteCurve renders recs to dir/CurveFile atomically.
func WriteCurve(dir string, recs []Record) error {
	svg, err := RenderCurve(recs)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, CurveFile), svg)
}

// CompareRun is one run of a comparison: its name and metrics records.
type CompareRun struct {
	Name string
	Recs []Record
}

// CompareGroup is one panel of a comparison: runs trained alike (the same
// labels, steps and batch), whose validation objective is drawn against
// the label tours seen (step × toursPerStep).
type CompareGroup struct {
	Title        string
	ToursPerStep int
	Runs         []CompareRun
}

// RenderComparison draws one panel per group, side by side, with the
// validation objective (greedy ×8) of each run against the tours seen.
func RenderComparison(groups []CompareGroup) ([]byte, error) {
	palette := []color.Color{color.RGBA{R: 31, G: 119, B: 180, A: 255}, color.RGBA{R: 255, G: 127, B: 14, A: 255},
		color.RGBA{R: 44, G: 160, B: 44, A: 255}, color.RGBA{R: 214, G: 39, B: 40, A: 255},
		color.RGBA{R: 148, G: 103, B: 189, A: 255}, color.RGBA{R: 140, G: 86, B: 75, A: 255},
		color.RGBA{R: 227, G: 119, B: 194, A: 255}, color.RGBA{R: 127, G: 127, B: 127, A: 255}}
	if len(groups) == 0 {
		return nil, fmt.Errorf("comparison: no groups")
	}
	row := make([]*plot.Plot, len(groups))
	legends := make([]plot.Legend, len(groups))
	for k, g := range groups {
		p := plot.New()
		p.Title.Text = g.Title
		p.X.Label.Text = "label tours seen"
		p.Y.Label.Text = "validation objective (greedy ×8)"
		p.X.Tick.Marker, p.Y.Tick.Marker = lplot.PlainTicks{}, lplot.PlainTicks{}
		p.Add(plotter.NewGrid())
		leg := plot.NewLegend()
		leg.Top, leg.Left = true, true
		leg.TextStyle.Font.Size = vg.Points(9)
		leg.ThumbnailWidth = vg.Points(14)
		var drawn []curveSeries
		for i, run := range g.Runs {
			var pts plotter.XYs
			for _, r := range run.Recs {
				if r.Kind == KindVal && r.Val != nil {
					pts = append(pts, plotter.XY{X: float64(r.Step * g.ToursPerStep), Y: r.Val.Obj})
				}
			}
			if len(pts) == 0 {
				return nil, fmt.Errorf("comparison %s: run %s has no validation records", g.Title, run.Name)
			}
			clr := palette[i%len(palette)]
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, fmt.Errorf("comparison %s: %w", run.Name, err)
			}
			l.Color, l.Width = clr, vg.Points(1.6)
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, fmt.Errorf("comparison %s: %w", run.Name, err)
			}
			sc.Color, sc.Radius = clr, vg.Points(2)
			p.Add(l, sc)
			leg.Add(run.Name, l)
			drawn = append(drawn, curveSeries{name: run.Name, pts: pts})
		}
		if lo, hi, ok := valueRange(drawn); ok {
			span := math.Max(hi-lo, 1e-3)
			p.Y.Min, p.Y.Max = lo-0.06*span, hi+0.06*span
		}
		row[k], legends[k] = p, leg
	}
	c := vgsvg.New(vg.Length(len(groups))*6.5*vg.Inch, 4.5*vg.Inch)
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: 1, Cols: len(groups), PadX: vg.Millimeter * 6, PadTop: vg.Millimeter * 2,
		PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canv := plot.Align([][]*plot.Plot{row}, tiles, dc)
	for j := range row {
		cv := canv[0][j]
		row[j].Draw(draw.Crop(cv, 0, -legendWidth, 0, 0))
		legends[j].Draw(draw.Crop(cv, cv.Max.X-cv.Min.X-legendWidth+vg.Millimeter*2, 0, 0, -vg.Millimeter*6))
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("comparison: %w", err)
	}
	return b.Bytes(), nil
}
