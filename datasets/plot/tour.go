package plot

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/lmask/lmask/internal/atomicfile"
	"image/color"
	"io"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lmask/lmask/lazymask"
)

// Picture size: two panels side by side below a two-line header.
const (
	pictureWidth  = 13 * vg.Inch
	pictureHeight = 7 * vg.Inch
	headerHeight  = 0.95 * vg.Inch
)

// Colours of the picture. Violations are always drawn in violatedColor.
var (
	nodeColor     = color.RGBA{R: 31, G: 119, B: 180, A: 255}  // #1F77B4
	depotColor    = color.RGBA{R: 17, G: 17, B: 17, A: 255}    // #111111
	violatedColor = color.RGBA{R: 214, G: 39, B: 40, A: 255}   // #D62728
	okColor       = color.RGBA{R: 44, G: 160, B: 44, A: 255}   // #2CA02C
	waitColor     = color.RGBA{R: 255, G: 127, B: 14, A: 255}  // #FF7F0E
	edgeColor     = color.RGBA{R: 110, G: 110, B: 110, A: 255} // #6E6E6E
	barColor      = color.RGBA{R: 158, G: 198, B: 225, A: 255} // #9EC6E1
)

// visit is one position of the schedule: the node visited, the bar
// [lo, hi] (time window, or 0 and the draft limit), the arrival time or
// load after the visit, the start of service (TSPTW) and whether Check
// reports the node as violated.
type visit struct {
	node         int
	lo, hi       float64
	value, start float64
	violated     bool
}

// solution is what the picture needs about a tour: the checker's result
// and the replayed schedule. A nil tour gives the instance's bars only.
type solution struct {
	inst     *lazymask.Instance
	tour     []int
	res      lazymask.Result
	first    *lazymask.InfeasibleError
	schedule []visit
}

// replay checks tour and takes its schedule from lazymask.Schedule (the
// checker's conventions).
func replay(inst *lazymask.Instance, tour []int) (*solution, error) {
	if err := inst.Validate(); err != nil {
		return nil, fmt.Errorf("instance %q: %w", inst.Name, err)
	}
	inst = inst.Clone()
	s := &solution{inst: inst, tour: tour}
	if tour == nil {
		for i := 1; i < inst.N; i++ {
			s.schedule = append(s.schedule, visit{node: i, lo: lower(inst, i), hi: upper(inst, i)})
		}
		return s, nil
	}
	stops, res, err := lazymask.Schedule(inst, tour)
	var te *lazymask.TourError
	if errors.As(err, &te) {
		return nil, err
	}
	errors.As(err, &s.first)
	s.res = res
	for _, st := range stops[1 : len(stops)-1] {
		cur := st.Node
		v := visit{node: cur, lo: lower(inst, cur), hi: upper(inst, cur), violated: res.Violation[cur] > lazymask.Tol}
		if inst.Problem == lazymask.TSPTW {
			v.value, v.start = st.Arrival, st.Start
		} else {
			v.value, v.start = st.Load, st.Load
		}
		s.schedule = append(s.schedule, v)
	}
	return s, nil
}

func lower(inst *lazymask.Instance, i int) float64 {
	if inst.Problem == lazymask.TSPTW {
		return inst.Early[i]
	}
	return 0
}

func upper(inst *lazymask.Instance, i int) float64 {
	if inst.Problem == lazymask.TSPTW {
		return inst.Late[i]
	}
	return inst.Draft[i]
}

// verdict is the header's second line (problem, N, cost, verdict) and,
// for an infeasible tour, a third line naming the first violation.
func (s *solution) verdict() (string, string) {
	in := s.inst
	head := fmt.Sprintf("%s N=%d", strings.ToUpper(in.Problem.String()), in.N)
	if s.tour == nil {
		return head + " · no tour (the solution has none): instance only", ""
	}
	cost := costText(s.res.Cost, in.Scale)
	if s.res.Feasible {
		return fmt.Sprintf("%s · %s · feasible", head, cost), ""
	}
	out := fmt.Sprintf("%s · %s · infeasible: %d violated nodes, total violation %.4g", head, cost,
		s.res.ViolatedNodes, s.res.TotalViolation)
	detail := ""
	if f := s.first; f != nil {
		what := "arrival"
		if f.Rule == lazymask.RuleDraftLimit {
			what = "load"
		}
		detail = fmt.Sprintf("first violation at step %d, node %d: %s %.4g > limit %.4g", f.Step, f.Node, what, f.Value, f.Limit)
	}
	return out, detail
}

// Verdict returns the header line TourSVG writes under the title: problem,
// N, the checker's cost normalised and × Scale, and its feasibility
// verdict, or a note that there is no tour when tour is nil. A malformed
// tour or an invalid instance is an error.
func Verdict(inst *lazymask.Instance, tour []int) (string, error) {
	s, err := replay(inst, tour)
	if err != nil {
		return "", err
	}
	line, detail := s.verdict()
	if detail != "" {
		line += " (" + detail + ")"
	}
	return line, nil
}

// TourSVG draws inst and tour (nil for none) as an SVG picture with a map
// and a schedule panel under a header made of title (the instance name when
// empty) and the checker's verdict. A malformed tour or an invalid instance
// is an error and nothing is written.
func TourSVG(w io.Writer, inst *lazymask.Instance, tour []int, title string) error {
	s, err := replay(inst, tour)
	if err != nil {
		return err
	}
	if title == "" {
		title = inst.Name
	}
	mp, err := s.mapPanel()
	if err != nil {
		return err
	}
	sp, err := s.schedulePanel()
	if err != nil {
		return err
	}
	c := vgsvg.New(pictureWidth, pictureHeight)
	dc := draw.New(c)
	line, detail := s.verdict()
	for i, txt := range []string{title, line, detail} {
		sty := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Length(min(14, 18-4*i))),
			XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		if i > 0 && tour != nil && !s.res.Feasible {
			sty.Color = violatedColor
		}
		if txt != "" {
			dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Length(8+20*i)}, txt)
		}
	}
	body := draw.Crop(dc, 0, 0, 0, -headerHeight)
	grid := [][]*plot.Plot{{mp, sp}}
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: 6 * vg.Millimeter, PadTop: 2 * vg.Millimeter,
		PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	canv := plot.Align(grid, tiles, body)
	mp.Draw(canv[0][0])
	sp.Draw(canv[0][1])
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return fmt.Errorf("render svg: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// WriteTourSVG renders the picture of TourSVG and writes it to path
// atomically (temporary file in the same directory, fsync, rename): on any
// error path is left as it was.
func WriteTourSVG(path string, inst *lazymask.Instance, tour []int, title string) error {
	var b bytes.Buffer
	if err := TourSVG(&b, inst, tour, title); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b.Bytes())
}

// costText is the cost in normalised units and, when the instance was
// scaled, in the original ones.
func costText(cost, scale float64) string {
	if scale == 1 || scale == 0 {
		return fmt.Sprintf("cost %.4f", cost)
	}
	return fmt.Sprintf("cost %.4f (×%g = %.2f)", cost, scale, cost*scale)
}
