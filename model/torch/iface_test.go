package torch_test

import (
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/torch"
)

// Net is the network search evaluates.
var _ mcts.Network = (*torch.Net)(nil)
