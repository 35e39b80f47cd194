//go:build !nonet

package train

import (
	"fmt"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/torch"
)

// NewNetPlayer returns a player of game searching with net: mode ("gumbel"
// or "puct") with simulations simulations per move and the training
// search's leaves per batch (base); parallel is the number of games played
// at once, and workers single-threaded copies of net evaluate the batches
// in parallel when workers > 1.
func NewNetPlayer(name string, net *torch.Net, game env.Game, base mcts.Config, mode mcts.Mode, simulations, parallel, workers int) (*NetPlayer, error) {
	n, err := neural.Wrap(net, game, name, neural.Options{Concurrency: max(parallel, 1), Workers: workers})
	if err != nil {
		return nil, fmt.Errorf("train: %s player: %w", name, err)
	}
	s := neural.DefaultSettings()
	s.Simulations, s.Mode, s.LeavesInFlight, s.ReuseTree = simulations, mode, base.LeavesInFlight, false
	f, err := n.Factory(s)
	if err != nil {
		n.Close()
		return nil, fmt.Errorf("train: %s player: %w", name, err)
	}
	return &NetPlayer{net: n, factory: f}, nil
}
