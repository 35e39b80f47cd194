// Package neural is the trained agent: a policy/value network (package
// model) guiding Monte Carlo tree search (package mcts), with a per-move
// simulation and/or time budget, no exploration noise and a deterministic
// choice of move.
//
// A Network is loaded once (Load) from a checkpoint file, a training run
// directory (its latest checkpoint) or an exported agent directory (see
// Manifest and package neural/export), and serves any number of agents at
// once: their leaf evaluations go through an mcts.Batcher, whose worker
// goroutine calls the network on a locked OS thread, so the leaves in
// flight of one search and the searches of games played in parallel share
// network batches (see Options). A Pool shares Networks between agent
// specs, and Pool.Kind registers the "net" kind of agent specs
// (net:path=DIR_OR_CHECKPOINT,sims=64,time=1s) with a spec.Registry.
package neural
