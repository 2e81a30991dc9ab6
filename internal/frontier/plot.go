package frontier

import (
	"bytes"
	"encoding/json"
	"fmt"
	lplot "github.com/lmask/lmask/datasets/plot"
	"image/color"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lmask/lmask/internal/resultsdoc"
)

// Labeled is a report with the label its series carry in a picture's
// legend ("" for a report drawn alone).
type Labeled struct {
	Label  string
	Report Report
}

// ReadReport reads a report as WriteJSON wrote it. An error names the
// file and, for a cell the picture cannot use, the cell.
func ReadReport(path string) (Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Report{}, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return Report{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.Cells) == 0 {
		return Report{}, fmt.Errorf("%s: field cells: none", path)
	}
	for i, c := range r.Cells {
		if c.Set == "" || c.Budget == "" || c.Instances <= 0 {
			return Report{}, fmt.Errorf("%s: field cells[%d]: set %q, budget %q, instances %d: want a set, a budget and instances > 0",
				path, i, c.Set, c.Budget, c.Instances)
		}
		if len(c.Network) == 0 || len(c.NoNetwork) == 0 {
			return Report{}, fmt.Errorf("%s: field cells[%d] (%s, %s): %d network and %d no-network runs, want both",
				path, i, c.Set, c.Budget, len(c.Network), len(c.NoNetwork))
		}
		for _, arm := range []struct {
			field string
			runs  []Run
		}{{"network", c.Network}, {"no_network", c.NoNetwork}} {
			field, runs := arm.field, arm.runs
			for j, run := range runs {
				if !(run.CPU > 0) || math.IsInf(run.CPU, 0) {
					return Report{}, fmt.Errorf("%s: field cells[%d].%s[%d].cpu_s (%s, %s): %v, want > 0", path, i, field, j, c.Set, c.Budget, run.CPU)
				}
			}
		}
	}
	return r, nil
}

// ReadLabeled reads the reports that args name, each PATH or LABEL=PATH;
// with more than one report, each needs a label (the legend tells them
// apart by it).
func ReadLabeled(args []string) ([]Labeled, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no report to draw")
	}
	var out []Labeled
	for _, a := range args {
		label, path, ok := strings.Cut(a, "=")
		if !ok {
			label, path = "", a
		}
		if len(args) > 1 && strings.TrimSpace(label) == "" {
			return nil, fmt.Errorf("%q: several reports need a label each (LABEL=REPORT.json)", a)
		}
		r, err := ReadReport(path)
		if err != nil {
			return nil, err
		}
		out = append(out, Labeled{Label: label, Report: r})
	}
	return out, nil
}

// PlotPoint is one budget of a series: the median CPU milliseconds per
// instance and median gap in percent of the cell's runs, and each run's.
type PlotPoint struct {
	Budget string
	CPUms  float64
	Gap    float64
	Runs   plotter.XYs
}

// PlotSeries is one pipeline of one report in a set's panel: its points in
// budget order.
type PlotSeries struct {
	Report  int // index into the reports drawn
	Label   string
	Network bool
	Points  []PlotPoint
}

// PlotPanel is one set: a network and a no-network series per report.
type PlotPanel struct {
	Set    string
	Series []PlotSeries
}

// budgetOrder lists r's budgets: those of r.Budgets first, in their
// order, then any other budget of a cell in the order the cells give it.
func budgetOrder(r Report) []string {
	var order []string
	for _, b := range r.Budgets {
		if !slices.Contains(order, b.Name) {
			order = append(order, b.Name)
		}
	}
	for _, c := range r.Cells {
		if !slices.Contains(order, c.Budget) {
			order = append(order, c.Budget)
		}
	}
	return order
}

// point is the medians of runs on a set of n instances: CPU in ms per
// instance, gap in percent.
func point(budget string, runs []Run, n int) PlotPoint {
	p := PlotPoint{Budget: budget, Runs: make(plotter.XYs, len(runs))}
	cpu, gap := make([]float64, len(runs)), make([]float64, len(runs))
	for i, r := range runs {
		cpu[i], gap[i] = 1000*r.CPU/float64(n), 100*r.Gap
		p.Runs[i] = plotter.XY{X: cpu[i], Y: gap[i]}
	}
	p.CPUms, p.Gap = Median(cpu), Median(gap)
	return p
}

// Panels derives the picture's panels from reports: one per set, in the
// order the reports first give them; in each, per report, the network
// series then the no-network one, a point per budget in the report's
// budget order (a set the report lacks has no series of it).
func Panels(reports []Labeled) ([]PlotPanel, error) {
	var sets []string
	for _, lr := range reports {
		for _, c := range lr.Report.Cells {
			if !slices.Contains(sets, c.Set) {
				sets = append(sets, c.Set)
			}
		}
	}
	panels := make([]PlotPanel, len(sets))
	for si, set := range sets {
		panels[si].Set = set
		for ri, lr := range reports {
			at := map[string]Cell{}
			for _, c := range lr.Report.Cells {
				if c.Set == set {
					if _, dup := at[c.Budget]; dup {
						return nil, fmt.Errorf("report %q: set %s, budget %s: two cells", lr.Label, set, c.Budget)
					}
					at[c.Budget] = c
				}
			}
			if len(at) == 0 {
				continue
			}
			net := PlotSeries{Report: ri, Label: lr.Label, Network: true}
			non := PlotSeries{Report: ri, Label: lr.Label}
			for _, b := range budgetOrder(lr.Report) {
				c, ok := at[b]
				if !ok {
					continue
				}
				if c.Instances <= 0 || len(c.Network) == 0 || len(c.NoNetwork) == 0 {
					return nil, fmt.Errorf("report %q: set %s, budget %s: %d instances, %d and %d runs: want instances and runs of both",
						lr.Label, set, b, c.Instances, len(c.Network), len(c.NoNetwork))
				}
				net.Points = append(net.Points, point(b, c.Network, c.Instances))
				non.Points = append(non.Points, point(b, c.NoNetwork, c.Instances))
			}
			panels[si].Series = append(panels[si].Series, net, non)
		}
	}
	return panels, nil
}

// palette holds a colour pair per report: network, then no network.
var palette = [][2]color.Color{
	{color.RGBA{R: 31, G: 119, B: 180, A: 255}, color.RGBA{R: 255, G: 127, B: 14, A: 255}},
	{color.RGBA{R: 44, G: 160, B: 44, A: 255}, color.RGBA{R: 214, G: 39, B: 40, A: 255}},
	{color.RGBA{R: 148, G: 103, B: 189, A: 255}, color.RGBA{R: 140, G: 86, B: 75, A: 255}},
	{color.RGBA{R: 23, G: 190, B: 207, A: 255}, color.RGBA{R: 188, G: 189, B: 34, A: 255}},
}

// faint is c with a light alpha, for single runs behind their medians.
func faint(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 70}
}

// glyph is the median marker of a series.
func glyph(network bool) draw.GlyphDrawer {
	if network {
		return draw.CircleGlyph{}
	}
	return draw.BoxGlyph{}
}

// seriesName is a series' legend entry.
func seriesName(label string, network bool) string {
	name := "no network"
	if network {
		name = "network"
	}
	if label != "" {
		name = label + ": " + name
	}
	return name
}

// Plot draws reports as one SVG picture: a panel per set (three to a
// row), the median gap (%) against the median CPU milliseconds per
// instance of the network and the no-network runs, a point per budget
// joined in budget order and numbered 1, 2, ... as the title lists the
// budgets, each run a faint dot behind; a second report's lines are
// dashed, in their own colours.
func Plot(reports []Labeled) ([]byte, error) {
	panels, err := Panels(reports)
	if err != nil {
		return nil, err
	}
	if len(panels) == 0 {
		return nil, fmt.Errorf("frontier plot: no cells")
	}
	leg := newLegend()
	inLegend := map[[2]int]bool{}
	var plots []*plot.Plot
	for _, pn := range panels {
		p := newPanel(pn.Set, "CPU ms per instance", "gap %")
		for _, s := range pn.Series {
			clr := palette[s.Report%len(palette)][0]
			if !s.Network {
				clr = palette[s.Report%len(palette)][1]
			}
			var runs, meds plotter.XYs
			for _, pt := range s.Points {
				runs = append(runs, pt.Runs...)
				meds = append(meds, plotter.XY{X: pt.CPUms, Y: pt.Gap})
			}
			rs, err := plotter.NewScatter(runs)
			if err != nil {
				return nil, fmt.Errorf("frontier plot %s: %w", pn.Set, err)
			}
			rs.GlyphStyle = draw.GlyphStyle{Color: faint(clr), Radius: vg.Points(2), Shape: glyph(s.Network)}
			l, err := plotter.NewLine(meds)
			if err != nil {
				return nil, fmt.Errorf("frontier plot %s: %w", pn.Set, err)
			}
			l.Color, l.Width = clr, vg.Points(1.5)
			if s.Report > 0 {
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
			ms, err := plotter.NewScatter(meds)
			if err != nil {
				return nil, fmt.Errorf("frontier plot %s: %w", pn.Set, err)
			}
			ms.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(3), Shape: glyph(s.Network)}
			p.Add(rs, l, ms)
			if s.Network && s.Report == 0 {
				lbl := plotter.XYLabels{XYs: meds, Labels: make([]string, len(meds))}
				for i := range meds {
					lbl.Labels[i] = strconv.Itoa(i + 1)
				}
				labels, err := plotter.NewLabels(lbl)
				if err != nil {
					return nil, fmt.Errorf("frontier plot %s: %w", pn.Set, err)
				}
				for i := range labels.TextStyle {
					labels.TextStyle[i].Font = font.From(plot.DefaultFont, 8)
					labels.TextStyle[i].Color = clr
				}
				labels.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(3)}
				p.Add(labels)
			}
			if key := [2]int{s.Report, boolInt(s.Network)}; !inLegend[key] {
				inLegend[key] = true
				leg.add(seriesName(s.Label, s.Network), l, ms)
			}
		}
		plots = append(plots, p)
	}
	runDot, err := plotter.NewScatter(plotter.XYs{{}})
	if err != nil {
		return nil, err
	}
	runDot.GlyphStyle = draw.GlyphStyle{Color: color.Gray{Y: 150}, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
	leg.add("one run (faint)", runDot)
	var budgets []string
	for i, b := range budgetOrder(reports[0].Report) {
		budgets = append(budgets, fmt.Sprintf("%d %s", i+1, b))
	}
	title := "The network against no network at equal CPU time: medians of the runs; budgets " + strings.Join(budgets, ", ")
	return drawPicture(plots, 3, leg, title)
}

// PairPanel is one row of a "pairs" section: the base point at 0 ms and
// per measured arm its point and the plain search's, at the arm's CPU
// milliseconds per instance (gaps in %).
type PairPanel struct {
	Label string
	Base  float64
	Arms  []PairPoints
}

// PairPoints is one arm of a PairPanel.
type PairPoints struct {
	Arm           int // index into the section's arm names
	CPUms         float64
	Gap, PlainGap float64
	ArmName       string
}

// PairPanels derives the picture's panels from a "pairs" section, a panel
// per row, arms in the section's order, those not measured left out.
func PairPanels(s resultsdoc.Pairs) []PairPanel {
	var out []PairPanel
	for _, r := range s.Rows {
		pn := PairPanel{Label: r.Label, Base: 100 * r.BaseGap}
		for j, a := range r.Arms {
			if a == nil {
				continue
			}
			pn.Arms = append(pn.Arms, PairPoints{Arm: j, ArmName: s.ArmNames[j], CPUms: 1000 * a.CPU / float64(r.Instances),
				Gap: 100 * a.Gap, PlainGap: 100 * a.PlainGap})
		}
		out = append(out, pn)
	}
	return out
}

// armColors colour the arms of a pairs picture.
var armColors = []color.Color{
	color.RGBA{R: 31, G: 119, B: 180, A: 255}, color.RGBA{R: 44, G: 160, B: 44, A: 255},
	color.RGBA{R: 148, G: 103, B: 189, A: 255}, color.RGBA{R: 214, G: 39, B: 40, A: 255},
	color.RGBA{R: 140, G: 86, B: 75, A: 255}, color.RGBA{R: 23, G: 190, B: 207, A: 255},
}

// PlotPairs draws a "pairs" section as one SVG picture: a panel per row
// (two to a row), the gap (%) against the CPU milliseconds per instance
// spent after the base tours: the base at 0, and per arm a solid line to
// the arm's gap and a dashed one to the plain search's at the same CPU.
func PlotPairs(s resultsdoc.Pairs) ([]byte, error) {
	panels := PairPanels(s)
	if len(panels) == 0 {
		return nil, fmt.Errorf("pairs plot: no rows")
	}
	leg := newLegend()
	grey := color.Gray{Y: 90}
	var plots []*plot.Plot
	var baseDot *plotter.Scatter
	seen := map[int]bool{}
	for _, pn := range panels {
		p := newPanel(pn.Label, "CPU ms per instance added", "gap %")
		base := plotter.XY{X: 0, Y: pn.Base}
		for _, a := range pn.Arms {
			clr := armColors[a.Arm%len(armColors)]
			arm, err := plotter.NewLine(plotter.XYs{base, {X: a.CPUms, Y: a.Gap}})
			if err != nil {
				return nil, fmt.Errorf("pairs plot %s: %w", pn.Label, err)
			}
			arm.Color, arm.Width = clr, vg.Points(1.5)
			plain, err := plotter.NewLine(plotter.XYs{base, {X: a.CPUms, Y: a.PlainGap}})
			if err != nil {
				return nil, fmt.Errorf("pairs plot %s: %w", pn.Label, err)
			}
			plain.Color, plain.Width = clr, vg.Points(1.2)
			plain.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			armDot, err := plotter.NewScatter(plotter.XYs{{X: a.CPUms, Y: a.Gap}})
			if err != nil {
				return nil, fmt.Errorf("pairs plot %s: %w", pn.Label, err)
			}
			armDot.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
			plainDot, err := plotter.NewScatter(plotter.XYs{{X: a.CPUms, Y: a.PlainGap}})
			if err != nil {
				return nil, fmt.Errorf("pairs plot %s: %w", pn.Label, err)
			}
			plainDot.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(3.5), Shape: draw.RingGlyph{}}
			p.Add(arm, plain, armDot, plainDot)
			if !seen[a.Arm] {
				seen[a.Arm] = true
				leg.add(a.ArmName, arm, armDot)
			}
		}
		b, err := plotter.NewScatter(plotter.XYs{base})
		if err != nil {
			return nil, fmt.Errorf("pairs plot %s: %w", pn.Label, err)
		}
		b.GlyphStyle = draw.GlyphStyle{Color: grey, Radius: vg.Points(3.5), Shape: draw.BoxGlyph{}}
		p.Add(b)
		if baseDot == nil {
			baseDot = b
		}
		plots = append(plots, p)
	}
	alone, err := plotter.NewLine(plotter.XYs{{}})
	if err != nil {
		return nil, err
	}
	alone.Color, alone.Width, alone.Dashes = grey, vg.Points(1.2), []vg.Length{vg.Points(4), vg.Points(3)}
	ring, err := plotter.NewScatter(plotter.XYs{{}})
	if err != nil {
		return nil, err
	}
	ring.GlyphStyle = draw.GlyphStyle{Color: grey, Radius: vg.Points(3.5), Shape: draw.RingGlyph{}}
	leg.add("the search alone, same CPU", alone, ring)
	leg.add("base tours", baseDot)
	return drawPicture(plots, 2, leg, s.Title+": the arm (solid) and the search alone (dashed) at the same CPU time")
}

// newPanel is an empty panel with its title, axis labels and grid.
func newPanel(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.X.Tick.Marker, p.Y.Tick.Marker = lplot.PlainTicks{}, lplot.PlainTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// legend is a picture's legend and the width its entries need.
type legend struct {
	plot.Legend
	width vg.Length
}

func newLegend() *legend {
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font.Size = vg.Points(9)
	leg.ThumbnailWidth = vg.Points(22)
	leg.Padding = vg.Points(2)
	return &legend{Legend: leg}
}

// add adds an entry whose thumbnail keeps a gap before its text.
func (l *legend) add(name string, thumbs ...plot.Thumbnailer) {
	padded := make([]plot.Thumbnailer, len(thumbs))
	for i, t := range thumbs {
		padded[i] = gapThumb{t}
	}
	l.Legend.Add(name, padded...)
	// 1.3: room for a wider serif font where the viewer lacks Liberation Serif.
	l.width = max(l.width, l.ThumbnailWidth+1.3*l.TextStyle.Width(" "+name))
}

// gapThumb draws a thumbnail in all but the right 4 points of its box.
type gapThumb struct{ plot.Thumbnailer }

func (g gapThumb) Thumbnail(c *draw.Canvas) {
	in := draw.Crop(*c, 0, -vg.Points(4), 0, 0)
	g.Thumbnailer.Thumbnail(&in)
}

// drawPicture lays plots out cols to a row under title, with the legend
// in a band at the right, and returns the SVG.
func drawPicture(plots []*plot.Plot, cols int, leg *legend, title string) ([]byte, error) {
	cols = min(cols, len(plots))
	rows := (len(plots) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for k, p := range plots {
		grid[k/cols][k%cols] = p
	}
	const titleBand = 9 * vg.Millimeter
	legendBand := leg.width + 6*vg.Millimeter
	w := vg.Length(cols)*4.3*vg.Inch + legendBand
	h := vg.Length(rows)*3.3*vg.Inch + titleBand
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	sty := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, 11), XAlign: draw.XCenter, YAlign: draw.YTop,
		Handler: plot.DefaultTextHandler}
	dc.FillText(sty, vg.Point{X: (w - legendBand) / 2, Y: h - 2*vg.Millimeter}, title)
	body := draw.Crop(dc, 0, -legendBand, 0, -titleBand)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 6, PadY: vg.Millimeter * 5,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canv := plot.Align(grid, tiles, body)
	for i := range grid {
		for j := range grid[i] {
			if grid[i][j] != nil {
				grid[i][j].Draw(canv[i][j])
			}
		}
	}
	leg.Draw(draw.Crop(dc, w-legendBand+2*vg.Millimeter, 0, 0, -titleBand-2*vg.Millimeter))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("picture: %w", err)
	}
	return b.Bytes(), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
