//go:build !nonet

package main

import (
	"fmt"
	"io"
	"runtime"
	"sort"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/model"
)

// netAgents are the network agents of a command: a pool of loaded
// networks.
type netAgents struct {
	pool *neural.Pool
}

// addNetAgents registers the "net" kind with reg.
func addNetAgents(reg *spec.Registry, concurrency int) (*netAgents, error) {
	// One single-threaded copy of each network per core, when games run
	// in parallel: faster on a CPU than one multi-threaded network.
	pool := neural.NewPool(neural.Options{Concurrency: concurrency, Workers: min(concurrency, runtime.NumCPU())})
	if err := reg.Register(neural.KindName, pool.Kind()); err != nil {
		pool.Close()
		return nil, err
	}
	return &netAgents{pool: pool}, nil
}

func (n *netAgents) close() error { return n.pool.Close() }

// writeStats reports each loaded network's batches.
func (n *netAgents) writeStats(w io.Writer) {
	nets := n.pool.Networks()
	sort.Slice(nets, func(i, j int) bool { return nets[i].Info().Path < nets[j].Info().Path })
	for _, net := range nets {
		st := net.Stats()
		fmt.Fprintf(w, "network %s: %d positions in %d batches (mean %.2f, max %d), %.0f%% of the time in the network\n",
			net.Info().Path, st.Positions, st.Batches, st.MeanBatch(), st.MaxBatchSeen, 100*st.ForwardShare())
	}
}

// checkpointGame reads the name of the game a checkpoint was trained on.
func checkpointGame(path string) (string, error) {
	ck, err := model.Load(path, model.Expect{})
	if err != nil {
		return "", err
	}
	ck.Net.Close()
	return ck.Game, nil
}
