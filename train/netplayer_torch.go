//go:build !nonet

package train

import (
	"fmt"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/torch"
)

// NewNetPlayer returns a player of game searching with net and search
// (Config.EvalSettings in a run); parallel is the number of games played
// at once, and workers single-threaded copies of net evaluate the batches
// in parallel when workers > 1.
func NewNetPlayer(name string, net *torch.Net, game env.Game, search mcts.Settings, parallel, workers int) (*NetPlayer, error) {
	n, err := neural.Wrap(net, game, name, neural.Options{Concurrency: max(parallel, 1), Workers: workers})
	if err != nil {
		return nil, fmt.Errorf("train: %s player: %w", name, err)
	}
	f, err := n.Factory(neural.Settings{Settings: search})
	if err != nil {
		n.Close()
		return nil, fmt.Errorf("train: %s player: %w", name, err)
	}
	return &NetPlayer{net: n, factory: f}, nil
}
