package model_test

import (
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model"
)

// Net is the network search evaluates.
var _ mcts.Network = (*model.Net)(nil)
