package train

import (
	"fmt"
	"math"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/torch"
)

// probe measures the network on a training batch: the mean entropy of its
// policy over the legal actions, and the value accuracy, the fraction of
// decisive positions (target value not 0) whose predicted value has the
// target's sign.
type probe struct {
	logits, values []float32
	legal          []int
	priors         []float32
}

func (p *probe) run(net mcts.Network, b data.Batch, n int, shape torch.Shape) (entropy, accuracy float64, err error) {
	na := shape.Actions
	if len(p.logits) < n*na {
		p.logits = make([]float32, n*na)
		p.values = make([]float32, n)
		p.priors = make([]float32, na)
	}
	if err := net.Forward(b.Obs[:n*shape.Size()], n, p.logits, p.values); err != nil {
		return 0, 0, fmt.Errorf("train: probe: %w", err)
	}
	decisive, agree := 0, 0
	for i := range n {
		p.legal = p.legal[:0]
		for a, m := range b.Mask[i*na : (i+1)*na] {
			if m != 0 {
				p.legal = append(p.legal, a)
			}
		}
		if len(p.legal) > 0 {
			if err := mcts.MaskedSoftmax(p.logits[i*na:(i+1)*na], p.legal, p.priors); err != nil {
				return 0, 0, fmt.Errorf("train: probe: %w", err)
			}
			for _, q := range p.priors[:len(p.legal)] {
				if q > 0 {
					entropy -= float64(q) * math.Log(float64(q))
				}
			}
		}
		if z := b.Value[i]; z != 0 {
			decisive++
			if (z > 0) == (p.values[i] > 0) {
				agree++
			}
		}
	}
	entropy /= float64(n)
	if decisive > 0 {
		accuracy = float64(agree) / float64(decisive)
	}
	return entropy, accuracy, nil
}
