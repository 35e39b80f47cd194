package gonet_test

import (
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/gonet"
)

// Net is a network search can evaluate.
var _ mcts.Network = (*gonet.Net)(nil)
