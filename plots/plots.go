// Package plots draws PNG charts of evaluation and training runs: Elo
// against training step with confidence intervals and baseline reference
// lines, and training metrics read from JSON-lines files. Files are written
// atomically.
package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"github.com/zerokit/zerokit/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Options sets the size and resolution of an image.
type Options struct {
	// Width and Height are the image size (0: 8 x 5 inches for a single
	// chart; metric grids grow with the number of panels).
	Width, Height vg.Length
	// DPI is the resolution (0: 120), so 8 x 5 inches is 960 x 600 pixels.
	DPI int
	// Title is the chart's title (a default is used when empty).
	Title string
}

func (o Options) withDefaults(w, h vg.Length) Options {
	if o.Width <= 0 {
		o.Width = w
	}
	if o.Height <= 0 {
		o.Height = h
	}
	if o.DPI <= 0 {
		o.DPI = 120
	}
	return o
}

// palette is a set of colours that stay distinct on white and in print
// (Okabe-Ito, without yellow).
func palette(i int) color.Color {
	cs := [...]color.RGBA{
		{0, 114, 178, 255},   // blue
		{213, 94, 0, 255},    // vermillion
		{0, 158, 115, 255},   // green
		{204, 121, 167, 255}, // purple
		{86, 180, 233, 255},  // sky blue
		{230, 159, 0, 255},   // orange
		{0, 0, 0, 255},       // black
	}
	return cs[i%len(cs)]
}

// greys are the colours of reference lines.
func grey(i int) color.Color {
	cs := [...]color.Gray{{90}, {140}, {60}, {170}}
	return cs[i%len(cs)]
}

// newPlot returns a plot with readable font sizes and a light grid.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(15)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = vg.Points(13)
		ax.Tick.Label.Font.Size = vg.Points(11)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(11)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.Padding = vg.Points(2)
	p.Legend.XOffs = vg.Points(6)
	p.Legend.YOffs = -vg.Points(4)
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{225}
	g.Horizontal.Color = color.Gray{225}
	p.Add(g)
	return p
}

// legendEntry is a named colour in a figure-wide legend.
type legendEntry struct {
	name  string
	color color.Color
}

// render draws plots (rows of columns; nil entries stay blank) on one
// canvas, under opts.Title and a one-line legend when there are several
// panels, and encodes it as PNG.
func render(plots [][]*plot.Plot, opts Options, legend []legendEntry) ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(opts.Width, opts.Height), vgimg.UseDPI(opts.DPI), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(c)
	if len(plots) == 1 && len(plots[0]) == 1 {
		plots[0][0].Draw(dc)
	} else {
		pad := vg.Points(10)
		top := pad
		if opts.Title != "" {
			// Leave room for an overall title.
			sty := titleStyle()
			h := sty.Height(opts.Title)
			dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - top}, opts.Title)
			top += h + vg.Points(6)
		}
		if len(legend) > 0 {
			top += drawLegendRow(dc, dc.Max.Y-top, legend) + vg.Points(6)
		}
		t := draw.Tiles{
			Rows: len(plots), Cols: len(plots[0]),
			PadX: vg.Points(18), PadY: vg.Points(18),
			PadTop: top, PadBottom: pad, PadLeft: pad, PadRight: pad,
		}
		cs := plot.Align(plots, t, dc)
		for i, row := range plots {
			for j, p := range row {
				if p != nil {
					p.Draw(cs[i][j])
				}
			}
		}
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: encoding PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// drawLegendRow draws the entries as coloured line samples and names,
// centred on one row whose top is at y, and returns the row's height.
func drawLegendRow(dc draw.Canvas, y vg.Length, entries []legendEntry) vg.Length {
	sty := titleStyle()
	sty.Font.Size = vg.Points(12)
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	sample, gap := vg.Points(24), vg.Points(6)
	total := vg.Length(0)
	for i, e := range entries {
		if i > 0 {
			total += 3 * gap
		}
		total += sample + gap + sty.Width(e.name)
	}
	h := sty.Height("M")
	mid := y - h/2
	x := dc.Center().X - total/2
	for _, e := range entries {
		ls := draw.LineStyle{Color: e.color, Width: vg.Points(2.5)}
		dc.StrokeLine2(ls, x, mid, x+sample, mid)
		x += sample + gap
		dc.FillText(sty, vg.Point{X: x, Y: mid}, e.name)
		x += sty.Width(e.name) + 3*gap
	}
	return h
}

// titleStyle is the style of a multi-panel figure's overall title.
func titleStyle() draw.TextStyle {
	p := plot.New()
	sty := p.Title.TextStyle
	sty.Font = font.From(plot.DefaultFont, 16)
	sty.XAlign = draw.XCenter
	sty.YAlign = draw.YTop
	return sty
}

// writeAtomic writes data to path atomically (see package atomicfile).
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	return nil
}

// finite reports whether v is a usable coordinate.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
