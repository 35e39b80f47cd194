//go:build !nonet

package neural

import (
	"fmt"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/ckpt"
	"github.com/zerokit/zerokit/model/torch"
)

// torchNet is a backendNet of package model/torch (libtorch). Its workers are
// single-threaded copies: one multi-threaded network serialises its calls.
type torchNet struct {
	*torch.Net
	owned bool // close frees Net
}

func (t torchNet) workers(k int) ([]mcts.Network, func(), error) {
	if k <= 1 {
		return []mcts.Network{t.Net}, func() {}, nil
	}
	copies, err := t.Copies(k, 1)
	if err != nil {
		return nil, nil, err
	}
	nets := make([]mcts.Network, len(copies))
	for i, c := range copies {
		nets[i] = c
	}
	return nets, func() {
		for _, c := range copies {
			c.Close()
		}
	}, nil
}

func (t torchNet) close() {
	if t.owned {
		t.Net.Close()
	}
}

// openLibtorch is openGo with package model/torch's network.
func openLibtorch(path string, want ckpt.Expect) (backendNet, *ckpt.Header, error) {
	ck, err := torch.Load(path, want)
	if err != nil {
		return nil, nil, err
	}
	h := &ckpt.Header{Game: ck.Game, EncodingVersion: ck.EncodingVersion, Step: ck.Step, Seed: ck.Seed,
		Network: ck.Net.Config(), Shape: ck.Net.Shape(), AveragedSteps: ck.AveragedSteps}
	return torchNet{Net: ck.Net, owned: true}, h, nil
}

func (t torchNet) withBoard(height, width int) (backendNet, error) {
	v, err := t.WithBoard(height, width)
	if err != nil {
		return nil, err
	}
	return torchNet{Net: v, owned: t.owned}, nil
}

// Wrap serves agents from a libtorch network already in memory (for
// example the one being trained, for evaluation matches), named name, with
// DefaultSettings. The network must fit game. Close stops the batchers
// but leaves net to the caller; net must not be trained while agents
// search with it.
func Wrap(net *torch.Net, game env.Game, name string, opts Options) (*Network, error) {
	if want := ShapeOf(game); net.Shape() != want {
		return nil, fmt.Errorf("network %s: shape %s does not fit game %s (%s)", name, net.Shape(), game.Name(), want)
	}
	opts.Backend = BackendLibtorch
	opts = opts.withDefaults()
	info := Info{
		Name: name, Game: game.Name(), EncodingVersion: game.EncodingVersion(),
		Shape: net.Shape(), Config: net.Config(), Parameters: net.NumParams(), Settings: DefaultSettings(),
		Backend: BackendLibtorch,
	}
	return newNetwork(info, game, torchNet{Net: net}, opts), nil
}
