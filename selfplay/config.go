// Package selfplay plays self-play games for training: many games at once in
// goroutines, every search sharing one batching evaluator over the network,
// each finished game turned into a data.Record and handed to a Sink.
//
// A Generator keeps its unfinished games between calls to Run, so a trainer
// can alternate self-play and learning phases without abandoning (or waiting
// for) the games in flight at a phase boundary: Run stops at a move boundary
// and the next Run resumes the same games with the updated network.
//
// Game i of a run plays with seed GameSeed(runSeed, i), and every random
// choice of its search comes from that seed, so with a deterministic network
// the records of a run do not depend on scheduling: Generate with a fixed
// number of games is reproducible whatever ParallelGames is.
//
// The package does not depend on libtorch: the network is an mcts.Network.
package selfplay

import (
	"fmt"
)

// Config holds the self-play parameters (the "selfplay" section of a
// training configuration).
type Config struct {
	// ParallelGames is the number of games played at once, each in its own
	// goroutine with its own search; their leaf evaluations share one
	// network batch. Default 32.
	ParallelGames int `yaml:"parallel_games"`
	// MaxMoves ends a game that has not finished after this many actions;
	// its record keeps the returns 0 (a draw) and its positions get the
	// value target 0. 0 uses the game's own bound (env.Game.MaxGameLength)
	// and no limit when it has none. Default 0.
	MaxMoves int `yaml:"max_moves"`
	// CacheSize is the number of network evaluations remembered by position
	// hash while one network is in use (transpositions and repeated
	// openings cost one evaluation). 0 disables the cache. Default 65536.
	CacheSize int `yaml:"cache_size"`
	// Workers is the number of copies of the network that evaluate batches
	// in parallel, each on its own OS thread (see
	// mcts.NewBatcherWorkers). On a CPU, one single-threaded worker per
	// core evaluates a small network faster than one multi-threaded
	// worker. 0 means 1. Default 1.
	Workers int `yaml:"workers"`
}

// DefaultConfig returns the default self-play configuration.
func DefaultConfig() Config {
	return Config{ParallelGames: 32, CacheSize: 1 << 16, Workers: 1}
}

// Validate reports the first bad field by its YAML name.
func (c Config) Validate() error {
	if c.ParallelGames < 1 || c.ParallelGames > 4096 {
		return fmt.Errorf("selfplay config: parallel_games = %d: want a value in [1, 4096]", c.ParallelGames)
	}
	if c.MaxMoves < 0 {
		return fmt.Errorf("selfplay config: max_moves = %d: want a value >= 0 (0: the game's bound)", c.MaxMoves)
	}
	if c.Workers < 0 || c.Workers > 64 {
		return fmt.Errorf("selfplay config: workers = %d: want a value in [0, 64] (0 means 1)", c.Workers)
	}
	if c.CacheSize < 0 {
		return fmt.Errorf("selfplay config: cache_size = %d: want a value >= 0 (0 disables)", c.CacheSize)
	}
	return nil
}

// GameSeed is the seed of game index of a run seeded with runSeed. For a
// fixed runSeed it is a bijection of index (a SplitMix64 finaliser of an
// offset index), so distinct games never share a seed and a record's seed
// identifies its game within the run.
func GameSeed(runSeed uint64, index int64) uint64 {
	return mix64(mix64(runSeed^0x9e3779b97f4a7c15) + uint64(index))
}

// mix64 is SplitMix64's finaliser, a bijection of uint64.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
