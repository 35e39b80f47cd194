package plots

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/internal/atomicfile"
	"gonum.org/v1/plot/vg"
)

// checkPNG decodes path and checks its pixel size.
func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s is not a valid PNG: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s is %dx%d, want %dx%d", path, b.Dx(), b.Dy(), w, h)
	}
	if nonWhite(img) < 1000 {
		t.Errorf("%s is nearly blank", path)
	}
	// No temporary files left behind.
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), atomicfile.TempPrefix+"*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func nonWhite(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				n++
			}
		}
	}
	return n
}

func sampleSeries() []EloSeries {
	var out []EloSeries
	for k, name := range []string{"az-mcts100", "az-mcts400"} {
		s := EloSeries{Name: name}
		for step := 0; step <= 10000; step += 1000 {
			elo := float64(k*150) + 900*(1-math.Exp(-float64(step)/3000))
			se := 40 + 20*float64(k)
			s.Points = append(s.Points, EloPoint{Step: float64(step), Elo: elo, Lo: elo - 1.96*se, Hi: elo + 1.96*se})
		}
		out = append(out, s)
	}
	return out
}

func TestEloCurve(t *testing.T) {
	dir := t.TempDir()
	refs := []Reference{{"random", 0}, {"greedy", 310}, {"alphabeta-d3", 820}}
	tests := []struct {
		name   string
		series []EloSeries
		opts   Options
		w, h   int
	}{
		{"default", sampleSeries(), Options{}, 960, 600},
		{"custom size", sampleSeries(), Options{Width: 6 * vg.Inch, Height: 4 * vg.Inch, DPI: 100, Title: "wyb"}, 600, 400},
		{"infinite bounds", []EloSeries{{Name: "x", Points: []EloPoint{
			{Step: 1, Elo: 100, Lo: 0, Hi: math.Inf(1)},
			{Step: 2, Elo: math.Inf(1), Lo: 500, Hi: math.Inf(1)},
			{Step: 3, Elo: 200, Lo: math.Inf(-1), Hi: 300},
		}}}, Options{}, 960, 600},
		{"references only", nil, Options{}, 960, 600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".png")
			if err := EloCurve(path, tt.series, refs, EloChart{Options: tt.opts}); err != nil {
				t.Fatal(err)
			}
			checkPNG(t, path, tt.w, tt.h)
		})
	}
	if err := EloCurve(filepath.Join(dir, "x.png"), nil, nil, EloChart{}); err == nil {
		t.Error("empty chart: no error")
	}
	if err := EloCurve(filepath.Join(dir, "x.png"), nil, []Reference{{"bad", math.NaN()}}, EloChart{}); err == nil {
		t.Error("NaN reference: no error")
	}
	if err := EloCurve(filepath.Join(dir, "missing", "x.png"), sampleSeries(), nil, EloChart{}); err == nil {
		t.Error("missing directory: no error")
	}
}

// sampleMetrics is a synthetic training log.
func sampleMetrics(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	for i := range n {
		step := i * 100
		fmt.Fprintf(&b, `{"step": %d, "policy_loss": %.4f, "value_loss": %.4f, "policy_entropy": %.4f, "positions_per_sec": %.1f, "phase": "train", "ok": true}`+"\n",
			step, 3*math.Exp(-float64(i)/40)+0.5+0.2*rng.Float64(), 0.8*math.Exp(-float64(i)/60)+0.1*rng.Float64(),
			4-2*float64(i)/float64(n)+0.1*rng.NormFloat64(), 5000+300*rng.NormFloat64())
		if i%25 == 0 {
			b.WriteString(`{"event": "checkpoint", "path": "ckpt.bin"}` + "\n\n")
		}
	}
	return b.String()
}

func TestReadMetrics(t *testing.T) {
	recs, err := ReadMetrics(strings.NewReader(sampleMetrics(1, 50)), "log")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 52 {
		t.Fatalf("%d records, want 52 (50 metrics + 2 events)", len(recs))
	}
	if recs[0]["step"] != 0 || recs[2]["step"] != 100 {
		t.Errorf("steps %v %v", recs[0]["step"], recs[2]["step"])
	}
	if _, ok := recs[0]["phase"]; ok {
		t.Error("string field kept")
	}
	if _, ok := recs[1]["step"]; ok {
		t.Error("event line has a step")
	}
	bad := []struct {
		in, want string
	}{
		{"{\"step\": 1}\n{\"step\": }\n", "log:2"},
		{"[1, 2]\n", "log:1"},
		{"null\n", "log:1"},
		{"{\"a\": 1} {\"b\": 2}\n", "more than one"},
		{"{\"a\": 1e999}\n", "out of range"},
	}
	for _, tt := range bad {
		if _, err := ReadMetrics(strings.NewReader(tt.in), "log"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func FuzzReadMetrics(f *testing.F) {
	f.Add([]byte(sampleMetrics(1, 3)))
	f.Add([]byte("{\"step\": 1, \"x\": -2.5e3}\n\n{}\n"))
	f.Add([]byte("{\"a\": {\"b\": 1}, \"c\": [1]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ReadMetrics(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		for _, r := range recs {
			for k, v := range r {
				if !finite(v) {
					t.Fatalf("field %q = %v", k, v)
				}
			}
		}
	})
}

func TestMetrics(t *testing.T) {
	dir := t.TempDir()
	logA := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(logA, []byte(sampleMetrics(1, 120)), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := ReadMetricsFile(logA)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ReadMetrics(strings.NewReader(sampleMetrics(2, 80)), "b")
	sources := []MetricsSource{{Name: "run-a", Records: a}, {Name: "run-b", Records: b}}
	tests := []struct {
		name  string
		src   []MetricsSource
		chart MetricsChart
		w, h  int
	}{
		{"one field", sources[:1], MetricsChart{Fields: []string{"policy_loss"}}, 960, 600},
		{"four fields two runs", sources, MetricsChart{Fields: []string{"policy_loss", "value_loss", "policy_entropy", "positions_per_sec"}, Smooth: 0.9, Options: Options{Title: "training"}}, 960, 768},
		{"three fields one column", sources, MetricsChart{Fields: []string{"policy_loss", "value_loss", "policy_entropy"}, Columns: 1, Options: Options{DPI: 100}}, 800, 960},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".png")
			if err := Metrics(path, tt.src, tt.chart); err != nil {
				t.Fatal(err)
			}
			checkPNG(t, path, tt.w, tt.h)
		})
	}
	errs := []struct {
		chart MetricsChart
		want  string
	}{
		{MetricsChart{}, "no metrics fields"},
		{MetricsChart{Fields: []string{"policy_los"}}, "policy_los"},
		{MetricsChart{Fields: []string{"value_loss"}, X: "epoch"}, "epoch"},
		{MetricsChart{Fields: []string{"value_loss"}, Smooth: 1}, "smoothing"},
	}
	for _, tt := range errs {
		if err := Metrics(filepath.Join(dir, "e.png"), sources, tt.chart); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want %q", tt.chart, err, tt.want)
		}
	}
	if err := Metrics(filepath.Join(dir, "e.png"), nil, MetricsChart{Fields: []string{"x"}}); err == nil {
		t.Error("no sources: no error")
	}
	if _, err := ReadMetricsFile(filepath.Join(dir, "nope.jsonl")); err == nil {
		t.Error("missing file: no error")
	}
}

// TestWriteSamples writes sample charts to $ZEROKIT_PLOT_DIR for a person
// to look at; it is skipped unless that variable is set.
func TestWriteSamples(t *testing.T) {
	dir := os.Getenv("ZEROKIT_PLOT_DIR")
	if dir == "" {
		t.Skip("set ZEROKIT_PLOT_DIR to write sample charts")
	}
	refs := []Reference{{"random", 0}, {"greedy", 310}, {"alphabeta-d3", 820}}
	if err := EloCurve(filepath.Join(dir, "elo.png"), sampleSeries(), refs, EloChart{Options: Options{Title: "Watch Your Back!: Elo over training"}}); err != nil {
		t.Fatal(err)
	}
	a, _ := ReadMetrics(strings.NewReader(sampleMetrics(1, 120)), "a")
	b, _ := ReadMetrics(strings.NewReader(sampleMetrics(2, 80)), "b")
	err := Metrics(filepath.Join(dir, "metrics.png"), []MetricsSource{{"run-a", a}, {"run-b", b}},
		MetricsChart{Fields: []string{"policy_loss", "value_loss", "policy_entropy", "positions_per_sec"}, Smooth: 0.8, Options: Options{Title: "training metrics"}})
	if err != nil {
		t.Fatal(err)
	}
}
