package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zerokit/zerokit/plots"
	"github.com/zerokit/zerokit/rundir"
)

const plotUsage = `usage: zerokit plot -run RUNDIR [flags]

Draws the training metrics of a run (RUNDIR/metrics.jsonl, one JSON object
per line; numeric top-level fields are plotted against -x) as PNG files in
-out (default RUNDIR/plots):

  losses.png   every field whose name contains "loss" or "entropy"
  speed.png    rates: fields with "per_s" (per_sec, per_second), "speed" or
               "throughput" in the name
  other.png    the remaining fields (at most 12; use -fields for others)

With -fields, one file metrics.png with exactly those fields instead. Runs
compared side by side: give -run several times (-run a -run b).

flags:
`

// runPlot implements "zerokit plot".
func runPlot(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot", plotUsage, stderr)
	var runs stringList
	fs.Var(&runs, "run", "training run `directory` (repeat to compare runs)")
	out := fs.String("out", "", "output `directory` (default: the first run's plots/)")
	fields := fs.String("fields", "", "comma-separated fields to draw into metrics.png instead of the default groups")
	xField := fs.String("x", "step", "field on the horizontal axis")
	smooth := fs.Float64("smooth", -1, "exponential moving average weight in [0, 1) drawn over the raw data (0: raw only; -1: 0.6 for files whose fields all have at least 30 points, else 0)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(runs) == 0 {
		fs.Usage()
		return errors.New("-run is required")
	}
	if *smooth != -1 && !(*smooth >= 0 && *smooth < 1) {
		return fmt.Errorf("-smooth %v: smoothing weight must be in [0, 1), or -1 for automatic", *smooth)
	}
	var sources []plots.MetricsSource
	for _, r := range runs {
		recs, err := plots.ReadMetricsFile(rundir.Run{Dir: r}.Metrics())
		if err != nil {
			return err
		}
		sources = append(sources, plots.MetricsSource{Name: filepath.Base(filepath.Clean(r)), Records: recs})
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join(runs[0], "plots")
	}
	var groups []metricGroup
	if *fields != "" {
		var fl []string
		for _, f := range strings.Split(*fields, ",") {
			if f = strings.TrimSpace(f); f != "" {
				fl = append(fl, f)
			}
		}
		groups = []metricGroup{{file: "metrics.png", title: "training metrics", fields: fl}}
	} else {
		groups = groupMetrics(plottable(sources, *xField))
		if len(groups) == 0 {
			return fmt.Errorf("no numeric field appears with %q in %s", *xField, strings.Join(runs, ", "))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, g := range groups {
		path := filepath.Join(dir, g.file)
		title := g.title
		if len(runs) == 1 {
			title += " - " + sources[0].Name
		}
		sm := *smooth
		if sm < 0 {
			sm = autoSmooth(sources, *xField, g.fields)
		}
		chart := plots.MetricsChart{Options: plots.Options{Title: title}, Fields: g.fields, X: *xField, Smooth: sm}
		if err := plots.Metrics(path, sources, chart); err != nil {
			return fmt.Errorf("%s: %w", g.file, err)
		}
		fmt.Fprintf(stdout, "wrote %s (%s)\n", path, strings.Join(g.fields, ", "))
	}
	return nil
}

// autoSmooth is the smoothing of a panel group: 0.6 when every field has
// at least 30 points (in its longest run), where noise hides trends, else
// 0: a moving average would only drag a sparse series behind.
func autoSmooth(sources []plots.MetricsSource, x string, fields []string) float64 {
	for _, f := range fields {
		most := 0
		for _, s := range sources {
			n := 0
			for _, r := range s.Records {
				_, okx := r[x]
				_, oky := r[f]
				if okx && oky {
					n++
				}
			}
			most = max(most, n)
		}
		if most < 30 {
			return 0
		}
	}
	return 0.6
}

// stringList is a repeatable string flag.
type stringList []string

// String implements flag.Value.
func (s *stringList) String() string { return strings.Join(*s, ",") }

// Set implements flag.Value.
func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// metricGroup is one PNG file of metrics panels.
type metricGroup struct {
	file, title string
	fields      []string
}

// maxOtherPanels bounds the panels of other.png.
const maxOtherPanels = 12

// plottable lists, sorted, the fields other than x that some record has
// together with x.
func plottable(sources []plots.MetricsSource, x string) []string {
	seen := map[string]bool{}
	for _, s := range sources {
		for _, r := range s.Records {
			if _, ok := r[x]; !ok {
				continue
			}
			for k := range r {
				if k != x {
					seen[k] = true
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// groupMetrics sorts fields into losses.png, speed.png and other.png by
// their names; bookkeeping fields (time stamps, counters of the x axis
// kind) are left out.
func groupMetrics(fields []string) []metricGroup {
	var losses, speed, other []string
	for _, f := range fields {
		l := strings.ToLower(f)
		switch {
		case strings.Contains(l, "loss") || strings.Contains(l, "entropy"):
			losses = append(losses, f)
		case strings.Contains(l, "per_s") || strings.Contains(l, "speed") || strings.Contains(l, "throughput"):
			speed = append(speed, f)
		case l == "time" || l == "timestamp" || l == "unix" || strings.HasSuffix(l, "_unix") ||
			l == "iteration" || l == "epoch":
		default:
			other = append(other, f)
		}
	}
	var groups []metricGroup
	if len(losses) > 0 {
		groups = append(groups, metricGroup{"losses.png", "losses and entropy", losses})
	}
	if len(speed) > 0 {
		groups = append(groups, metricGroup{"speed.png", "speed", speed})
	}
	if len(other) > 0 {
		groups = append(groups, metricGroup{"other.png", "other metrics", other[:min(len(other), maxOtherPanels)]})
	}
	return groups
}
