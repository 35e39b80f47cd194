package ckpt

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/model/arch"
)

func TestAverage(t *testing.T) {
	a := sample(tinyConfig, tinyShape, true)
	b := sample(tinyConfig, tinyShape, false)
	b.Header.Step, b.Header.Seed, b.RunConfig = 11, 3, []byte("b: 2\n")
	for i := range b.Tensors {
		for k := range b.Tensors[i].Data {
			b.Tensors[i].Data[k] = 3*a.Tensors[i].Data[k] + 1
		}
	}
	orig := slices.Clone(a.Tensors[0].Data)
	avg, err := Average([]*Checkpoint{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Tensors[0].Data, orig) {
		t.Fatal("Average modified its input")
	}
	for i, tn := range avg.Tensors {
		if tn.Name != a.Tensors[i].Name || !slices.Equal(tn.Shape, a.Tensors[i].Shape) {
			t.Fatalf("tensor %d is %s %v, want %s %v", i, tn.Name, tn.Shape, a.Tensors[i].Name, a.Tensors[i].Shape)
		}
		for k, v := range tn.Data {
			want := 2*a.Tensors[i].Data[k] + 0.5
			if d := v - want; d > 1e-5 || d < -1e-5 {
				t.Fatalf("%s[%d] = %v, want %v", tn.Name, k, v, want)
			}
		}
	}
	h := avg.Header
	if h.Step != 11 || h.Seed != 3 || h.Optimizer != nil || avg.Optimizer != nil || string(avg.RunConfig) != "b: 2\n" ||
		!slices.Equal(h.AveragedSteps, []int64{7, 11}) {
		t.Fatalf("header %+v, config %q: want the last checkpoint's, no optimizer, averaged steps [7 11]", h, avg.RunConfig)
	}

	if got := h.Label(); got != "step11-avg2" {
		t.Errorf("label %q, want step11-avg2", got)
	}
	if got := a.Header.Label(); got != "step7" {
		t.Errorf("label %q, want step7", got)
	}

	// The average is a checkpoint like any other, and keeps its steps.
	path := filepath.Join(t.TempDir(), "avg.ckpt")
	if err := WriteFile(path, avg); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !equalTensors(got.Tensors, avg.Tensors) || !slices.Equal(got.Header.AveragedSteps, []int64{7, 11}) {
		t.Fatalf("round trip: averaged steps %v, tensors equal %v", got.Header.AveragedSteps, equalTensors(got.Tensors, avg.Tensors))
	}

	// One checkpoint averages to itself.
	one, err := Average([]*Checkpoint{a})
	if err != nil || !equalTensors(one.Tensors, a.Tensors) {
		t.Fatalf("average of one checkpoint: err %v, tensors equal %v", err, err == nil && equalTensors(one.Tensors, a.Tensors))
	}
}

func TestAverageErrors(t *testing.T) {
	wider := tinyConfig
	wider.Channels = 6
	tests := []struct {
		name   string
		change func(c *Checkpoint)
		want   string
	}{
		{"game", func(c *Checkpoint) { c.Header.Game = "other" }, `game is "other", expected "g"`},
		{"encoding", func(c *Checkpoint) { c.Header.EncodingVersion = 1 }, "encoding version is 1, expected 2"},
		{"shape", func(c *Checkpoint) {
			*c = *sample(tinyConfig, arch.Shape{Planes: 3, Height: 3, Width: 3, Actions: 5}, false)
		}, "network shape is"},
		{"architecture", func(c *Checkpoint) { *c = *sample(wider, tinyShape, false) }, "network has"},
		{"tensor count", func(c *Checkpoint) { c.Tensors = c.Tensors[1:] }, "tensors"},
		{"tensor name", func(c *Checkpoint) { c.Tensors[2].Name = "x" }, "tensor 2 is x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := sample(tinyConfig, tinyShape, false), sample(tinyConfig, tinyShape, false)
			tc.change(a)
			_, err := Average([]*Checkpoint{a, b})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "checkpoint 0") {
				t.Fatalf("error %v, want one naming checkpoint 0 and %q", err, tc.want)
			}
		})
	}
	if _, err := Average(nil); err == nil {
		t.Fatal("no error averaging no checkpoints")
	}
}

// TestAccumulate checks that the running mean of checkpoints folded in one
// at a time equals Average of all of them, and its errors.
func TestAccumulate(t *testing.T) {
	var cs []*Checkpoint
	for i := range 4 {
		c := sample(tinyConfig, tinyShape, i == 0)
		c.Header.Step = int64(100 * (i + 1))
		for j := range c.Tensors {
			for k := range c.Tensors[j].Data {
				c.Tensors[j].Data[k] = float32(i*i) - 0.5*float32(k%7) + float32(j)
			}
		}
		cs = append(cs, c)
	}
	var run *Checkpoint
	for i, c := range cs {
		var err error
		if run, err = Accumulate(run, c); err != nil {
			t.Fatalf("accumulate %d: %v", i, err)
		}
	}
	want, err := Average(cs)
	if err != nil {
		t.Fatal(err)
	}
	for i, tn := range run.Tensors {
		for k, v := range tn.Data {
			if d := v - want.Tensors[i].Data[k]; d > 1e-5 || d < -1e-5 {
				t.Fatalf("%s[%d] = %v, Average gives %v", tn.Name, k, v, want.Tensors[i].Data[k])
			}
		}
	}
	if !slices.Equal(run.Header.AveragedSteps, []int64{100, 200, 300, 400}) || run.Header.Step != 400 || run.Optimizer != nil {
		t.Fatalf("header %+v: want step 400, averaged steps [100 200 300 400], no optimizer", run.Header)
	}
	if got := run.Header.Label(); got != "step400-avg4" {
		t.Errorf("label %q, want step400-avg4", got)
	}

	if _, err := Accumulate(run, cs[2]); err == nil || !strings.Contains(err.Error(), "step 300 is already in the mean") {
		t.Errorf("folding a step twice: error %v", err)
	}
	other := sample(tinyConfig, tinyShape, false)
	other.Header.Step, other.Header.Game = 500, "other"
	if _, err := Accumulate(run, other); err == nil || !strings.Contains(err.Error(), `game is "g"`) {
		t.Errorf("folding another game's checkpoint: error %v", err)
	}
	bare := *run
	bare.Header.AveragedSteps = nil
	next := sample(tinyConfig, tinyShape, false)
	next.Header.Step = 600
	if _, err := Accumulate(&bare, next); err == nil || !strings.Contains(err.Error(), "lists no averaged steps") {
		t.Errorf("a mean without its steps: error %v", err)
	}
	if _, err := Accumulate(run, nil); err == nil {
		t.Error("no error folding a nil checkpoint")
	}
}
