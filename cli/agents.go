package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/agent/spec"
	shipped "github.com/zerokit/zerokit/agents"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/model/ckpt"
)

// agents is a command's registry of agent specs together with the pool of
// networks its "net" agents loaded, which Close releases.
type agents struct {
	*spec.Registry
	pool *neural.Pool
}

// errNoNetwork is returned by what needs libtorch (training) in a binary
// built with -tags nonet.
var errNoNetwork = errors.New("this zerokit was built with -tags nonet, without libtorch: it can play trained networks (pure-Go backend) but not train them")

// newAgents returns the registry of agent specs: the baselines of package
// agent and the trained network ("net", package agent/neural), whose
// networks are loaded once and shared by every game in flight.
// concurrency is the number of games played at once (for network
// batching).
func newAgents(concurrency int) (*agents, error) {
	reg := spec.Default()
	// One worker per core when games run in parallel: faster on a CPU
	// than one multi-threaded network.
	pool := neural.NewPool(neural.Options{Concurrency: concurrency, Workers: min(concurrency, runtime.NumCPU())})
	if err := reg.Register(neural.KindName, pool.Kind()); err != nil {
		pool.Close()
		return nil, err
	}
	if err := reg.Register(DefaultAgentKind, pool.DefaultKind(shippedAgentDir)); err != nil {
		pool.Close()
		return nil, err
	}
	return &agents{Registry: reg, pool: pool}, nil
}

// DefaultAgentKind is the agent spec kind of the trained agent that ships
// for the game (package agents), and the default agent of every command
// that takes one.
const DefaultAgentKind = "default"

// shippedAgentDir returns the directory of the shipped agent for game.
func shippedAgentDir(game env.Game) (string, error) {
	name, err := shipped.For(game.Name())
	if err != nil {
		return "", err
	}
	return shipped.Dir(name, "")
}

// shippedWeights returns the weights file and the manifest of the shipped
// agent name, unpacked under cache ("" for the user's cache directory).
func shippedWeights(name, cache string) (string, neural.Manifest, error) {
	m, err := shipped.Manifest(name)
	if err != nil {
		return "", neural.Manifest{}, err
	}
	dir, err := shipped.Dir(name, cache)
	if err != nil {
		return "", neural.Manifest{}, err
	}
	return filepath.Join(dir, m.Weights), m, nil
}

// Close releases the loaded networks.
func (a *agents) Close() error { return a.pool.Close() }

// writeNetworkStats reports each loaded network's batches.
func (a *agents) writeNetworkStats(w io.Writer) {
	nets := a.pool.Networks()
	sort.Slice(nets, func(i, j int) bool { return nets[i].Info().Path < nets[j].Info().Path })
	for _, net := range nets {
		st := net.Stats()
		fmt.Fprintf(w, "network %s (%s backend): %d positions in %d batches (mean %.2f, max %d), %.0f%% of the time in the network\n",
			net.Info().Path, net.Info().Backend, st.Positions, st.Batches, st.MeanBatch(), st.MaxBatchSeen, 100*st.ForwardShare())
	}
}

// checkpointGame reads the name of the game a checkpoint was trained on.
func checkpointGame(path string) (string, error) {
	c, err := ckpt.ReadFile(path)
	if err != nil {
		return "", err
	}
	return c.Header.Game, nil
}
