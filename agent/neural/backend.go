package neural

import (
	"fmt"

	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/model/ckpt"
	"github.com/zerokit/zerokit/model/gonet"
)

// Backends: what evaluates a loaded network (Options.Backend).
const (
	// BackendGo evaluates with package model/gonet, in pure Go: no
	// libtorch in the process, which stays small (the course's 100 MB),
	// and on one core it is as fast as libtorch for these small networks.
	BackendGo = "go"
	// BackendLibtorch evaluates with package model/torch (libtorch), as
	// training does. It is not available in a -tags nonet build.
	BackendLibtorch = "libtorch"
)

// backendNet is a loaded network as a Network uses it.
type backendNet interface {
	mcts.Network
	Shape() arch.Shape
	Config() arch.Config
	NumParams() int
	// workers returns k networks that evaluate batches in parallel, and
	// a function that frees what they hold.
	workers(k int) ([]mcts.Network, func(), error)
	// withBoard returns a view of a spatial-policy network for another
	// board size (sharing its weights and close).
	withBoard(height, width int) (backendNet, error)
	// close frees the network.
	close()
}

// goNet is a backendNet of package gonet. A gonet.Net is safe for
// concurrent calls, so its workers are the network itself.
type goNet struct{ *gonet.Net }

func (g goNet) workers(k int) ([]mcts.Network, func(), error) {
	nets := make([]mcts.Network, k)
	for i := range nets {
		nets[i] = g.Net
	}
	return nets, func() {}, nil
}

func (g goNet) close() {}

func (g goNet) withBoard(height, width int) (backendNet, error) {
	v, err := g.WithBoard(height, width)
	if err != nil {
		return nil, err
	}
	return goNet{v}, nil
}

// openGo reads the checkpoint at path, checks it against want and returns
// its network with the checkpoint's header.
func openGo(path string, want ckpt.Expect) (backendNet, *ckpt.Header, error) {
	c, err := ckpt.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if err := c.Header.Check(want); err != nil {
		return nil, nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	net, err := gonet.FromCheckpoint(c)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return goNet{net}, &c.Header, nil
}

// open loads the checkpoint at path with the backend named by backend.
func open(backend, path string, want ckpt.Expect) (backendNet, *ckpt.Header, error) {
	switch backend {
	case "", BackendGo:
		return openGo(path, want)
	case BackendLibtorch:
		return openLibtorch(path, want)
	}
	return nil, nil, fmt.Errorf("unknown backend %q (known: %s, %s)", backend, BackendGo, BackendLibtorch)
}
