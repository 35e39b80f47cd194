package plots

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Record is one line of a metrics file: its numeric fields by name.
type Record map[string]float64

// ReadMetrics reads JSON lines, one object per line, keeping the numeric
// fields of each (strings, booleans, nulls, arrays and objects are
// ignored). Blank lines are skipped. name labels errors (e.g. the file
// name), which give the line number.
func ReadMetrics(r io.Reader, name string) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var out []Record
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil {
			return nil, fmt.Errorf("plots: %s:%d: %w", name, line, err)
		}
		if obj == nil {
			return nil, fmt.Errorf("plots: %s:%d: want a JSON object, got null", name, line)
		}
		if dec.More() {
			return nil, fmt.Errorf("plots: %s:%d: more than one JSON value on the line", name, line)
		}
		rec := Record{}
		for k, v := range obj {
			n, ok := v.(json.Number)
			if !ok {
				continue
			}
			f, err := n.Float64()
			if err != nil || !finite(f) {
				return nil, fmt.Errorf("plots: %s:%d: field %q: number %s out of range", name, line, k, n)
			}
			rec[k] = f
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("plots: reading %s: %w", name, err)
	}
	return out, nil
}

// ReadMetricsFile reads a JSON-lines metrics file (see ReadMetrics).
func ReadMetricsFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	defer f.Close()
	return ReadMetrics(f, path)
}

// MetricsSource is one run's records, drawn as one line per panel.
type MetricsSource struct {
	Name    string
	Records []Record
}

// MetricsChart configures Metrics.
type MetricsChart struct {
	Options
	// Fields are the metrics to draw, one panel each, in order.
	Fields []string
	// X is the field on the horizontal axis (default "step").
	X string
	// Columns is the number of panels per row (0: 1 for a single field,
	// else 2).
	Columns int
	// Smooth, in [0, 1), draws an exponential moving average with this
	// weight on the previous value over the raw data, which is then drawn
	// faint (0: raw data only).
	Smooth float64
}

// Metrics writes a PNG to path with one panel per field, plotting the
// field against X for each source (records lacking either are skipped);
// with several panels and sources, one legend row under the title names
// the sources' colours.
// The default size is 8 inches wide and 3.2 inches per row of panels (at
// least 5). A field present in no source is an error, to catch typos.
func Metrics(path string, sources []MetricsSource, chart MetricsChart) error {
	data, err := metricsPNG(sources, chart)
	if err != nil {
		return err
	}
	return writeAtomic(path, data)
}

func metricsPNG(sources []MetricsSource, chart MetricsChart) ([]byte, error) {
	if len(chart.Fields) == 0 {
		return nil, errors.New("plots: no metrics fields to plot")
	}
	if len(sources) == 0 {
		return nil, errors.New("plots: no metrics sources")
	}
	if chart.Smooth < 0 || chart.Smooth >= 1 || math.IsNaN(chart.Smooth) {
		return nil, fmt.Errorf("plots: smoothing %v outside [0, 1)", chart.Smooth)
	}
	xf := chart.X
	if xf == "" {
		xf = "step"
	}
	cols := chart.Columns
	if cols <= 0 {
		cols = min(2, len(chart.Fields))
	}
	rows := (len(chart.Fields) + cols - 1) / cols
	opts := chart.Options.withDefaults(8*vg.Inch, max(5*vg.Inch, vg.Length(rows)*3.2*vg.Inch))

	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
	}
	for k, field := range chart.Fields {
		title := field
		if len(chart.Fields) == 1 && opts.Title != "" {
			title = opts.Title
		}
		p := newPlot(title, xf, field)
		p.Title.TextStyle.Font.Size = vg.Points(13)
		drawn := 0
		for i, src := range sources {
			xys := plotter.XYs{}
			for _, r := range src.Records {
				x, okx := r[xf]
				y, oky := r[field]
				if okx && oky {
					xys = append(xys, plotter.XY{X: x, Y: y})
				}
			}
			if len(xys) == 0 {
				continue
			}
			sort.SliceStable(xys, func(a, b int) bool { return xys[a].X < xys[b].X })
			col := palette(i)
			raw, err := plotter.NewLine(xys)
			if err != nil {
				return nil, fmt.Errorf("plots: %s of %s: %w", field, src.Name, err)
			}
			raw.Color, raw.Width = col, vg.Points(1.5)
			if chart.Smooth > 0 {
				raw.Color = fade(col)
				raw.Width = vg.Points(1)
			}
			p.Add(raw)
			thumb := raw
			if chart.Smooth > 0 {
				sm, err := plotter.NewLine(ema(xys, chart.Smooth))
				if err != nil {
					return nil, fmt.Errorf("plots: %s of %s: %w", field, src.Name, err)
				}
				sm.Color, sm.Width = col, vg.Points(2)
				p.Add(sm)
				thumb = sm
			}
			if len(sources) > 1 && len(chart.Fields) == 1 {
				p.Legend.Add(src.Name, thumb)
			}
			drawn++
		}
		if drawn == 0 {
			return nil, fmt.Errorf("plots: no record has both %q and %q", xf, field)
		}
		grid[k/cols][k%cols] = p
	}
	var legend []legendEntry
	if len(chart.Fields) == 1 {
		opts.Title = ""
	} else if len(sources) > 1 {
		for i, src := range sources {
			legend = append(legend, legendEntry{src.Name, palette(i)})
		}
	}
	return render(grid, opts, legend)
}

// ema is the exponential moving average of the points' y values.
func ema(xys plotter.XYs, w float64) plotter.XYs {
	out := make(plotter.XYs, len(xys))
	var m float64
	for i, p := range xys {
		if i == 0 {
			m = p.Y
		} else {
			m = w*m + (1-w)*p.Y
		}
		out[i] = plotter.XY{X: p.X, Y: m}
	}
	return out
}

// fade mixes c with white, for raw data drawn under a smoothed line.
func fade(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8)*2/5 + 255*3/5) }
	return color.RGBA{mix(r), mix(g), mix(b), 255}
}
