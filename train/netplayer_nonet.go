//go:build nonet

package train

import (
	"errors"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/torch"
)

// NewNetPlayer needs package agent/neural's libtorch backend, which a
// build with -tags nonet leaves out (the trainer is not part of that
// build; this keeps the package compiling for go vet -tags nonet).
func NewNetPlayer(name string, net *torch.Net, game env.Game, search mcts.Settings, parallel, workers int) (*NetPlayer, error) {
	return nil, errors.New("train: built with -tags nonet: no libtorch network agents")
}
