package ckpt

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Average returns the checkpoint whose every network tensor is the mean of
// that tensor over cs: stochastic weight averaging (Izmailov et al. 2018)
// of checkpoints taken along one training run, as KataGo publishes the
// moving average of its weights rather than the last ones.
//
// The batch normalization running statistics are averaged too. That is an
// approximation (the averaged weights have statistics of their own), close
// when the checkpoints are near each other on one run.
//
// All checkpoints must be for the same game, encoding version,
// architecture and shape; the error names the first one that differs (by
// its index in cs). The result has the header of the last checkpoint
// (its step and seed), no optimizer state, the run configuration of the
// last checkpoint, and Header.AveragedSteps listing the steps averaged, in
// the order given. The inputs are not modified.
func Average(cs []*Checkpoint) (*Checkpoint, error) {
	if len(cs) == 0 {
		return nil, errors.New("average: no checkpoints")
	}
	ref := cs[len(cs)-1]
	for i, c := range cs {
		if err := sameTensors(ref, c); err != nil {
			return nil, fmt.Errorf("average: checkpoint %d (step %d) does not match checkpoint %d (step %d): %w",
				i, c.Header.Step, len(cs)-1, ref.Header.Step, err)
		}
	}
	out := averageHeader(ref)
	out.Header.AveragedSteps = make([]int64, len(cs))
	for i, c := range cs {
		out.Header.AveragedSteps[i] = c.Header.Step
	}
	n := float64(len(cs))
	for j, r := range ref.Tensors {
		sum := make([]float64, len(r.Data))
		for _, c := range cs {
			for k, v := range c.Tensors[j].Data {
				sum[k] += float64(v)
			}
		}
		data := make([]float32, len(sum))
		for k, s := range sum {
			data[k] = float32(s / n)
			if f := float64(data[k]); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("average: tensor %s element %d is not finite", r.Name, k)
			}
		}
		out.Tensors = append(out.Tensors, Tensor{Name: r.Name, Shape: slices.Clone(r.Shape), Data: data})
	}
	return out, nil
}

// Accumulate returns the mean of the checkpoints averaged in avg (a result
// of Average or Accumulate, its Header.AveragedSteps naming them) and c:
// the running form of Average, which keeps one checkpoint however many are
// averaged, as a training run does when it averages its weights as it
// goes. A nil avg starts a mean of c alone. Like Average, the result has
// c's header (step and seed) and run configuration, no optimizer state,
// and AveragedSteps extended by c's step; the inputs are not modified.
func Accumulate(avg, c *Checkpoint) (*Checkpoint, error) {
	if c == nil {
		return nil, errors.New("accumulate: no checkpoint")
	}
	if avg == nil {
		return Average([]*Checkpoint{c})
	}
	n := len(avg.Header.AveragedSteps)
	if n == 0 {
		return nil, fmt.Errorf("accumulate: the running mean (step %d) lists no averaged steps", avg.Header.Step)
	}
	if slices.Contains(avg.Header.AveragedSteps, c.Header.Step) {
		return nil, fmt.Errorf("accumulate: step %d is already in the mean", c.Header.Step)
	}
	if err := sameTensors(c, avg); err != nil {
		return nil, fmt.Errorf("accumulate: the running mean (step %d) does not match checkpoint step %d: %w",
			avg.Header.Step, c.Header.Step, err)
	}
	out := averageHeader(c)
	out.Header.AveragedSteps = append(slices.Clone(avg.Header.AveragedSteps), c.Header.Step)
	w := 1 / float64(n+1)
	for j, r := range c.Tensors {
		a := avg.Tensors[j].Data
		data := make([]float32, len(r.Data))
		for k, v := range r.Data {
			m := float64(a[k]) + (float64(v)-float64(a[k]))*w
			data[k] = float32(m)
			if math.IsNaN(m) || math.IsInf(m, 0) {
				return nil, fmt.Errorf("accumulate: tensor %s element %d is not finite", r.Name, k)
			}
		}
		out.Tensors = append(out.Tensors, Tensor{Name: r.Name, Shape: slices.Clone(r.Shape), Data: data})
	}
	return out, nil
}

// averageHeader returns an empty checkpoint with ref's header and run
// configuration, without optimizer state or tensor records: the start of
// a mean whose last member is ref.
func averageHeader(ref *Checkpoint) *Checkpoint {
	out := &Checkpoint{Header: ref.Header, RunConfig: slices.Clone(ref.RunConfig)}
	out.Header.Optimizer = nil
	out.Header.Tensors = nil
	out.Header.AveragedSteps = nil
	return out
}

// sameTensors reports the first difference of c from ref that would make
// averaging their tensors meaningless: another network, or other tensors.
func sameTensors(ref, c *Checkpoint) error {
	if err := sameNetwork(&ref.Header, &c.Header); err != nil {
		return err
	}
	if len(c.Tensors) != len(ref.Tensors) {
		return fmt.Errorf("%d tensors, want %d", len(c.Tensors), len(ref.Tensors))
	}
	for j, t := range c.Tensors {
		r := ref.Tensors[j]
		if t.Name != r.Name || !slices.Equal(t.Shape, r.Shape) || len(t.Data) != len(r.Data) {
			return fmt.Errorf("tensor %d is %s %v, want %s %v", j, t.Name, t.Shape, r.Name, r.Shape)
		}
	}
	return nil
}

// Label names the checkpoint's weights for reports: "step<Step>", or
// "step<Step>-avg<N>" for the mean of N checkpoints (see Average).
func (h *Header) Label() string {
	if n := len(h.AveragedSteps); n > 0 {
		return fmt.Sprintf("step%d-avg%d", h.Step, n)
	}
	return fmt.Sprintf("step%d", h.Step)
}

// sameNetwork reports the first difference of b from a that would make
// averaging their tensors meaningless.
func sameNetwork(a, b *Header) error {
	return b.Check(Expect{Game: a.Game, EncodingVersion: a.EncodingVersion, Shape: a.Shape, Config: &a.Network})
}
