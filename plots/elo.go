package plots

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// EloPoint is one rating of a player at a training step.
type EloPoint struct {
	Step float64 `json:"step"`
	Elo  float64 `json:"elo"`
	// Lo and Hi bound the confidence interval (equal to Elo: no bar).
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// EloSeries is a player family (e.g. "az-mcts400") rated over training.
type EloSeries struct {
	Name   string     `json:"name"`
	Points []EloPoint `json:"points"`
}

// Reference is a fixed player drawn as a horizontal line (e.g. "random" at
// 0, "alphabeta-d3" at +850).
type Reference struct {
	Name string  `json:"name"`
	Elo  float64 `json:"elo"`
}

// EloChart configures EloCurve.
type EloChart struct {
	Options
	// XLabel and YLabel default to "training step" and "Elo".
	XLabel, YLabel string
}

// EloCurve writes a PNG to path with one line per series (points with
// error bars for their intervals, sorted by step) and one dashed
// horizontal line per reference. Points whose Elo is not finite are left
// out; infinite interval bounds are cut at the edge of the plotted range.
func EloCurve(path string, series []EloSeries, refs []Reference, chart EloChart) error {
	data, err := eloPNG(series, refs, chart)
	if err != nil {
		return err
	}
	return writeAtomic(path, data)
}

func eloPNG(series []EloSeries, refs []Reference, chart EloChart) ([]byte, error) {
	if len(series) == 0 && len(refs) == 0 {
		return nil, errors.New("plots: Elo chart with no series and no references")
	}
	opts := chart.Options.withDefaults(8*vg.Inch, 5*vg.Inch)
	title := opts.Title
	if title == "" {
		title = "Elo rating over training"
	}
	xl, yl := chart.XLabel, chart.YLabel
	if xl == "" {
		xl = "training step"
	}
	if yl == "" {
		yl = "Elo"
	}
	p := newPlot(title, xl, yl)

	// The plotted range: every finite value, with a margin.
	ymin, ymax := math.Inf(1), math.Inf(-1)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, pt := range s.Points {
			if !finite(pt.Elo) || !finite(pt.Step) {
				continue
			}
			xmin, xmax = math.Min(xmin, pt.Step), math.Max(xmax, pt.Step)
			for _, v := range []float64{pt.Elo, pt.Lo, pt.Hi} {
				if finite(v) {
					ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
				}
			}
		}
	}
	for _, r := range refs {
		if !finite(r.Elo) {
			return nil, fmt.Errorf("plots: reference %q has Elo %v", r.Name, r.Elo)
		}
		ymin, ymax = math.Min(ymin, r.Elo), math.Max(ymax, r.Elo)
	}
	if math.IsInf(xmin, 1) {
		xmin, xmax = 0, 1
	}
	if xmin == xmax {
		xmin, xmax = xmin-1, xmax+1
	}
	if ymin == ymax {
		ymin, ymax = ymin-50, ymax+50
	}
	margin := 0.05 * (ymax - ymin)
	// Headroom for the legend (drawn at the top left), one row per
	// reference line and series, so that it does not cover the highest
	// line.
	rows := float64(len(refs) + len(series))
	ymin, ymax = ymin-margin, ymax+margin+0.07*rows*(ymax-ymin)
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = ymin, ymax

	for i, r := range refs {
		line, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: r.Elo}, {X: xmax, Y: r.Elo}})
		if err != nil {
			return nil, fmt.Errorf("plots: reference %q: %w", r.Name, err)
		}
		line.Color = grey(i)
		line.Width = vg.Points(1.5)
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s (%+.0f)", r.Name, r.Elo), line)
	}
	for i, s := range series {
		pts := errPoints{}
		for _, pt := range s.Points {
			if finite(pt.Elo) && finite(pt.Step) {
				pts = append(pts, errPoint{x: pt.Step, y: pt.Elo, lo: clamp(pt.Lo, ymin, ymax), hi: clamp(pt.Hi, ymin, ymax)})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sort.SliceStable(pts, func(a, b int) bool { return pts[a].x < pts[b].x })
		col := palette(i)
		line, scatter, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("plots: series %q: %w", s.Name, err)
		}
		line.Color, line.Width = col, vg.Points(2)
		scatter.Color, scatter.Radius = col, vg.Points(3)
		scatter.Shape = draw.CircleGlyph{}
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, fmt.Errorf("plots: series %q: %w", s.Name, err)
		}
		bars.Color, bars.Width, bars.CapWidth = col, vg.Points(1.2), vg.Points(6)
		p.Add(bars, line, scatter)
		p.Legend.Add(s.Name, line, scatter)
	}
	return render([][]*plot.Plot{{p}}, opts, nil)
}

// clamp limits v (possibly infinite) to [lo, hi].
func clamp(v, lo, hi float64) float64 {
	if math.IsNaN(v) {
		return v
	}
	return math.Max(lo, math.Min(hi, v))
}

// errPoint is a point with an interval [lo, hi] around y.
type errPoint struct{ x, y, lo, hi float64 }

// errPoints implements plotter.XYer and plotter.YErrorer.
type errPoints []errPoint

func (e errPoints) Len() int                    { return len(e) }
func (e errPoints) XY(i int) (float64, float64) { return e[i].x, e[i].y }

// YError returns the distances from y down to lo and up to hi (0 when a
// bound is missing or on the wrong side).
func (e errPoints) YError(i int) (float64, float64) {
	p := e[i]
	lo, hi := p.y-p.lo, p.hi-p.y
	if !finite(lo) || lo < 0 {
		lo = 0
	}
	if !finite(hi) || hi < 0 {
		hi = 0
	}
	return lo, hi
}
