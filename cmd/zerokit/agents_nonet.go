//go:build nonet

package main

import (
	"io"

	"github.com/zerokit/zerokit/agent/spec"
)

// netAgents stands in for the network agents, which this build lacks.
type netAgents struct{}

// addNetAgents registers nothing: the build has no network support.
func addNetAgents(*spec.Registry, int) (*netAgents, error) { return nil, nil }

func (*netAgents) close() error { return nil }

func (*netAgents) writeStats(io.Writer) {}

// checkpointGame cannot read checkpoints without libtorch.
func checkpointGame(string) (string, error) { return "", errNoNetwork }
