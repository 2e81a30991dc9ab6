package plot

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lmask/lmask/lazymask"
)

// MaxLabels is the largest N for which the map labels every node with its
// visit position; larger tours rely on the arrowheads alone.
const MaxLabels = 100

// mapPanel scatters the nodes and draws the tour over them.
func (s *solution) mapPanel() (*plot.Plot, error) {
	in := s.inst
	p := plot.New()
	p.Title.Text = "map: square = depot, red = violated, arrows = direction"
	if s.tour != nil && in.N <= MaxLabels {
		p.Title.Text = "map: square = depot, red = violated, labels = visit position"
	}
	if in.Dist != nil {
		p.Title.Text = "map (travel times come from the matrix; lines are schematic)"
	}
	p.X.Label.Text, p.Y.Label.Text = "x", "y"
	p.Add(plotter.NewGrid())
	if s.tour != nil {
		pts := make(plotter.XYs, in.N)
		for k, v := range s.tour {
			pts[k] = plotter.XY{X: in.X[v], Y: in.Y[v]}
		}
		p.Add(&tourLines{pts: pts})
	}
	nodes := make(plotter.XYs, in.N)
	for i := range nodes {
		nodes[i] = plotter.XY{X: in.X[i], Y: in.Y[i]}
	}
	sc, err := plotter.NewScatter(nodes)
	if err != nil {
		return nil, fmt.Errorf("map: %w", err)
	}
	r := nodeRadius(in.N)
	sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		switch {
		case i == 0:
			return draw.GlyphStyle{Color: depotColor, Radius: 1.6 * r, Shape: draw.BoxGlyph{}}
		case s.tour != nil && s.res.Violation[i] > lazymask.Tol:
			return draw.GlyphStyle{Color: violatedColor, Radius: 1.3 * r, Shape: draw.CircleGlyph{}}
		}
		return draw.GlyphStyle{Color: nodeColor, Radius: r, Shape: draw.CircleGlyph{}}
	}
	p.Add(sc)
	if s.tour != nil && in.N <= MaxLabels {
		lbl := plotter.XYLabels{XYs: make(plotter.XYs, in.N), Labels: make([]string, in.N)}
		for k, v := range s.tour {
			lbl.XYs[k] = nodes[v]
			lbl.Labels[k] = strconv.Itoa(k)
		}
		l, err := plotter.NewLabels(lbl)
		if err != nil {
			return nil, fmt.Errorf("map labels: %w", err)
		}
		for i := range l.TextStyle {
			l.TextStyle[i].Font = font.From(plot.DefaultFont, 7)
		}
		l.Offset = vg.Point{X: r + 1, Y: r + 1}
		p.Add(l)
	}
	squareRanges(p, nodes)
	return p, nil
}

// nodeRadius shrinks the markers as N grows.
func nodeRadius(n int) vg.Length {
	return vg.Points(math.Max(1.2, math.Min(3.5, 30/math.Sqrt(float64(n)))))
}

// squareRanges gives both axes the same span around the nodes (plus a
// margin), so distances look alike in both directions.
func squareRanges(p *plot.Plot, pts plotter.XYs) {
	xmin, xmax, ymin, ymax := plotter.XYRange(pts)
	span := math.Max(math.Max(xmax-xmin, ymax-ymin), 1e-9) * 1.08
	cx, cy := (xmin+xmax)/2, (ymin+ymax)/2
	p.X.Min, p.X.Max = cx-span/2, cx+span/2
	p.Y.Min, p.Y.Max = cy-span/2, cy+span/2
}

// tourLines draws a closed polyline with one arrowhead at the middle of
// every edge, pointing in the direction of travel.
type tourLines struct {
	pts plotter.XYs
}

// Plot implements plot.Plotter.
func (t *tourLines) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(t.pts)
	line := make([]vg.Point, n+1)
	for i := 0; i <= n; i++ {
		q := t.pts[i%n]
		line[i] = vg.Point{X: trX(q.X), Y: trY(q.Y)}
	}
	c.StrokeLines(draw.LineStyle{Color: edgeColor, Width: vg.Points(0.7)}, line)
	size := vg.Points(math.Max(3, math.Min(6, 50/math.Sqrt(float64(n)))))
	c.SetColor(edgeColor)
	for i := 0; i < n; i++ {
		a, b := line[i], line[i+1]
		dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
		d := math.Hypot(dx, dy)
		if d < 1e-9 {
			continue
		}
		ux, uy := vg.Length(dx/d), vg.Length(dy/d)
		mid := vg.Point{X: (a.X + b.X) / 2, Y: (a.Y + b.Y) / 2}
		tip := vg.Point{X: mid.X + ux*size/2, Y: mid.Y + uy*size/2}
		base := vg.Point{X: mid.X - ux*size/2, Y: mid.Y - uy*size/2}
		var head vg.Path
		head.Move(tip)
		head.Line(vg.Point{X: base.X - uy*size/2.5, Y: base.Y + ux*size/2.5})
		head.Line(vg.Point{X: base.X + uy*size/2.5, Y: base.Y - ux*size/2.5})
		head.Close()
		c.Fill(head)
	}
}

// schedulePanel draws, per visit position, the node's bar and the arrival
// time or load; without a tour, the bars per node index.
func (s *solution) schedulePanel() (*plot.Plot, error) {
	p := plot.New()
	p.Add(plotter.NewGrid())
	tw := s.inst.Problem == lazymask.TSPTW
	switch {
	case tw:
		p.Title.Text, p.Y.Label.Text = "schedule: time window [e, l] and arrival (wait in orange)", "time"
	default:
		p.Title.Text, p.Y.Label.Text = "loads: draft limit (bar) and load after the visit", "load"
	}
	p.X.Label.Text = "visit position"
	if s.tour == nil {
		p.X.Label.Text = "node (no tour)"
	}
	p.Add(&scheduleBars{visits: s.schedule, waits: tw && s.tour != nil})
	if s.tour != nil {
		pts := make(plotter.XYs, len(s.schedule))
		for k, v := range s.schedule {
			pts[k] = plotter.XY{X: float64(k + 1), Y: v.value}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("schedule: %w", err)
		}
		r := nodeRadius(s.inst.N) * 0.8
		sc.GlyphStyleFunc = func(k int) draw.GlyphStyle {
			if s.schedule[k].violated {
				return draw.GlyphStyle{Color: violatedColor, Radius: 1.3 * r, Shape: draw.CircleGlyph{}}
			}
			return draw.GlyphStyle{Color: okColor, Radius: r, Shape: draw.CircleGlyph{}}
		}
		p.Add(sc)
	}
	xmin, xmax, ymin, ymax := (&scheduleBars{visits: s.schedule}).DataRange()
	if s.tour != nil {
		for _, v := range s.schedule {
			ymax = math.Max(ymax, v.value)
		}
	}
	pad := math.Max(ymax-ymin, 1e-9) * 0.04
	p.X.Min, p.X.Max = xmin-0.5-0.01*(xmax-xmin), xmax+0.5+0.01*(xmax-xmin)
	p.Y.Min, p.Y.Max = ymin-pad, ymax+pad
	return p, nil
}

// scheduleBars draws one vertical bar [lo, hi] per visit position at
// x = position (or node index), and the waits from arrival to the start of
// service.
type scheduleBars struct {
	visits []visit
	waits  bool
}

// Plot implements plot.Plotter.
func (b *scheduleBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(b.visits)
	w := vg.Points(math.Max(0.6, math.Min(5, 0.6*float64(c.Max.X-c.Min.X)/float64(max(n, 1)))))
	bar := draw.LineStyle{Color: barColor, Width: w}
	wait := draw.LineStyle{Color: waitColor, Width: vg.Points(1)}
	for k, v := range b.visits {
		x := trX(float64(k + 1))
		c.StrokeLine2(bar, x, trY(v.lo), x, trY(v.hi))
		if b.waits && v.start > v.value+lazymask.Tol {
			c.StrokeLine2(wait, x, trY(v.value), x, trY(v.start))
		}
	}
}

// DataRange implements plot.DataRanger over the bars.
func (b *scheduleBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = 1, float64(max(len(b.visits), 1))
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, v := range b.visits {
		ymin, ymax = math.Min(ymin, v.lo), math.Max(ymax, v.hi)
	}
	if len(b.visits) == 0 {
		ymin, ymax = 0, 1
	}
	return xmin, xmax, math.Min(ymin, 0), ymax
}
