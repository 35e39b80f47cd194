package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeMetrics writes a plausible metrics.jsonl: training iterations with
// losses, entropy and speeds, and evaluation lines without losses.
func writeMetrics(t *testing.T, dir string, iterations int) {
	t.Helper()
	var b strings.Builder
	for i := 0; i < iterations; i++ {
		step := 100 * (i + 1)
		x := float64(i)
		fmt.Fprintf(&b, `{"kind":"train","step":%d,"loss_policy":%.4f,"loss_value":%.4f,"loss_total":%.4f,"policy_entropy":%.4f,"games_per_sec":%.3f,"positions_per_sec":%.1f,"learning_rate":0.001,"time_unix":%d}`+"\n",
			step, 4*math.Exp(-x/10)+0.5+0.1*math.Sin(x), 0.9*math.Exp(-x/15)+0.1, 4.9*math.Exp(-x/10)+0.6, 3-x/20, 2+0.2*math.Cos(x), 900+10*x, 1700000000+i)
		if i%5 == 4 {
			fmt.Fprintf(&b, `{"kind":"eval","step":%d,"score_vs_greedy":%.3f}`+"\n", step, x/float64(iterations))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPlotRun(t *testing.T) {
	run := t.TempDir()
	writeMetrics(t, run, 40)
	out, stderr, err := runCmd(t, runPlot, "-run", run)
	if err != nil {
		t.Fatalf("plot: %v\n%s", err, stderr)
	}
	want := map[string]string{
		"losses.png": "loss_policy, loss_total, loss_value, policy_entropy",
		"speed.png":  "games_per_sec, positions_per_sec",
		"other.png":  "learning_rate, score_vs_greedy",
	}
	for file, fields := range want {
		path := filepath.Join(run, "plots", file)
		if !strings.Contains(out, path+" ("+fields+")") {
			t.Errorf("output lacks %s with %s:\n%s", file, fields, out)
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) < 1000 || string(b[1:4]) != "PNG" {
			t.Errorf("%s: not a PNG (%d bytes, %v)", file, len(b), err)
		}
	}

	// Explicit fields, two runs compared.
	other := t.TempDir()
	writeMetrics(t, other, 20)
	dest := t.TempDir()
	if _, stderr, err := runCmd(t, runPlot, "-run", run, "-run", other, "-fields", "loss_total,policy_entropy", "-out", dest); err != nil {
		t.Fatalf("plot -fields: %v\n%s", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(dest, "metrics.png")); err != nil {
		t.Error(err)
	}
}

func TestPlotErrors(t *testing.T) {
	run := t.TempDir()
	writeMetrics(t, run, 3)
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "metrics.jsonl"), []byte("{\"step\":1}\nnot json\n"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{nil, "-run is required"},
		{[]string{"-run", t.TempDir()}, "metrics.jsonl"},
		{[]string{"-run", bad}, "metrics.jsonl:2"},
		{[]string{"-run", run, "-fields", "no_such_field"}, "no_such_field"},
		{[]string{"-run", run, "-x", "nothing"}, `no numeric field appears with "nothing"`},
		{[]string{"-run", run, "-smooth", "1"}, "smoothing"},
		{[]string{"-run", run, "-smooth", "-2"}, "smoothing"},
	}
	for _, tc := range tests {
		_, _, err := runCmd(t, runPlot, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("plot %q: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

func TestGroupMetrics(t *testing.T) {
	got := groupMetrics([]string{"a", "entropy", "iteration", "loss", "per_sec", "speed_x", "time", "z"})
	want := []metricGroup{
		{"losses.png", "losses and entropy", []string{"entropy", "loss"}},
		{"speed.png", "speed", []string{"per_sec", "speed_x"}},
		{"other.png", "other metrics", []string{"a", "z"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groupMetrics = %+v, want %+v", got, want)
	}
}
