package main

import (
	"errors"
	"io"

	"github.com/zerokit/zerokit/agent/spec"
)

// agents is a command's registry of agent specs together with what its
// agents hold (loaded networks), which Close releases.
type agents struct {
	*spec.Registry
	nets *netAgents // nil when built without network support
}

// errNoNetwork is returned by what needs libtorch in a binary built with
// -tags nonet.
var errNoNetwork = errors.New("this zerokit was built with -tags nonet, without network (libtorch) support")

// newAgents returns the registry of agent specs: the baselines of package
// agent and, unless built with -tags nonet, the trained network ("net",
// package agent/neural), whose networks are loaded once and shared by
// every game in flight. concurrency is the number of games played at once
// (for network batching).
func newAgents(concurrency int) (*agents, error) {
	reg := spec.Default()
	nets, err := addNetAgents(reg, concurrency)
	if err != nil {
		return nil, err
	}
	return &agents{Registry: reg, nets: nets}, nil
}

// Close releases the loaded networks.
func (a *agents) Close() error {
	if a.nets == nil {
		return nil
	}
	return a.nets.close()
}

// writeNetworkStats reports the work of the loaded networks, if any.
func (a *agents) writeNetworkStats(w io.Writer) {
	if a.nets != nil {
		a.nets.writeStats(w)
	}
}
