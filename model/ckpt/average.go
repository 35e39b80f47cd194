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
		if err := sameNetwork(&ref.Header, &c.Header); err != nil {
			return nil, fmt.Errorf("average: checkpoint %d (step %d) does not match checkpoint %d (step %d): %w",
				i, c.Header.Step, len(cs)-1, ref.Header.Step, err)
		}
		if len(c.Tensors) != len(ref.Tensors) {
			return nil, fmt.Errorf("average: checkpoint %d has %d tensors, checkpoint %d has %d",
				i, len(c.Tensors), len(cs)-1, len(ref.Tensors))
		}
		for j, t := range c.Tensors {
			r := ref.Tensors[j]
			if t.Name != r.Name || !slices.Equal(t.Shape, r.Shape) || len(t.Data) != len(r.Data) {
				return nil, fmt.Errorf("average: checkpoint %d tensor %d is %s %v, checkpoint %d has %s %v",
					i, j, t.Name, t.Shape, len(cs)-1, r.Name, r.Shape)
			}
		}
	}
	out := &Checkpoint{Header: ref.Header, RunConfig: slices.Clone(ref.RunConfig)}
	out.Header.Optimizer = nil
	out.Header.Tensors = nil
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
