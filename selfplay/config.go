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
// With Config.SparringFraction > 0, a share of the games (chosen from their
// seeds) are played by the network against a fixed sparring partner
// (Options.Sparring, e.g. the alpha-beta baseline); Stats.Sparring counts
// the network's results against it.
//
// The package does not depend on libtorch: the network is an mcts.Network.
package selfplay

import (
	"fmt"
	"math"
	"strings"
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
	// SparringAgent is the agent spec (as in "zerokit eval", e.g.
	// "alphabeta:depth=3") of a fixed opponent that the network plays in a
	// share SparringFraction of the games instead of itself; "" for none.
	// Self-play alone only meets the mistakes the network itself makes; a
	// sparring partner that plays differently (a tactical searcher) shows
	// it positions self-play never reaches. The network's moves of those
	// games are searched and recorded as usual; the partner's moves are
	// recorded without a policy target or root value (value-only
	// positions, see buffer.value_only_positions).
	SparringAgent string `yaml:"sparring_agent"`
	// SparringFraction is the share of games, in [0, 1], played against
	// SparringAgent, chosen from each game's seed, with the network's
	// colour also from the seed. Default 0.
	SparringFraction float64 `yaml:"sparring_fraction"`
	// TableEnds ends a game as soon as it reaches a position of its game's
	// table (env.TablebaseGame: Watch Your Back! without a turn limit,
	// after the second shrink), with the table's value as its result, a
	// draw included; the searches also score table positions exactly.
	// The value targets of the moves before are then the outcome of the
	// game under the referee's rules rather than of a turn limit's piece
	// count. An error when the game has no table. Default false.
	TableEnds bool `yaml:"table_ends"`
	// RandomMoves and RandomProbability vary the openings: each of a
	// game's first RandomMoves actions (both sides') is, with probability
	// RandomProbability, a legal action drawn uniformly at random instead
	// of the search's choice, both draws made from the game's seed and the
	// move number (RandomAction). The search still runs, and its policy
	// target and root value are recorded as usual: they describe the
	// position, not the move played. Self-play alone reaches only the
	// lines the network itself prefers; an opponent that chooses among
	// moves it rates alike (a perfect player in a lost position, a human)
	// leads it into others. The value targets of the moves before a random
	// one are the result of a game that holds it, as with AlphaZero's
	// opening temperature. Sparring partners' moves are never replaced.
	// Default 0 (none).
	RandomMoves int `yaml:"random_moves"`
	// RandomProbability is the chance, in [0, 1], that each of the first
	// RandomMoves actions is random.
	RandomProbability float64 `yaml:"random_probability"`
	// MaterialWeight, in [0, 1), blends a hand-written term
	// (MaterialTerm) into the leaf values of the network's self-play
	// searches, as an agent's material_weight does at play time (see
	// agent.MaterialUtility): the searches then steer by it, and the root
	// values that enter the value targets (buffer.root_value_weight) and
	// the Gumbel policy targets carry it into the network. Sparring
	// partners are not affected. Default 0 (off).
	MaterialWeight float64 `yaml:"material_weight"`
	// MaterialTerm names the term MaterialWeight blends in (an agent's
	// material_term: "material" when empty, "shrink", "eval", "final" or
	// "table"); the trainer checks that the game has it.
	MaterialTerm string `yaml:"material_term"`
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
	if math.IsNaN(c.SparringFraction) || c.SparringFraction < 0 || c.SparringFraction > 1 {
		return fmt.Errorf("selfplay config: sparring_fraction = %v: want a value in [0, 1]", c.SparringFraction)
	}
	if c.RandomMoves < 0 {
		return fmt.Errorf("selfplay config: random_moves = %d: want a value >= 0", c.RandomMoves)
	}
	if math.IsNaN(c.RandomProbability) || c.RandomProbability < 0 || c.RandomProbability > 1 {
		return fmt.Errorf("selfplay config: random_probability = %v: want a value in [0, 1]", c.RandomProbability)
	}
	if c.RandomMoves > 0 && c.RandomProbability == 0 {
		return fmt.Errorf("selfplay config: random_moves = %d with random_probability 0: set both or neither", c.RandomMoves)
	}
	if math.IsNaN(c.MaterialWeight) || c.MaterialWeight < 0 || c.MaterialWeight >= 1 {
		return fmt.Errorf("selfplay config: material_weight = %v: want 0 (off) <= weight < 1", c.MaterialWeight)
	}
	if c.MaterialTerm != "" && c.MaterialWeight == 0 {
		return fmt.Errorf("selfplay config: material_term = %q has no effect with material_weight 0: set a weight too", c.MaterialTerm)
	}
	if c.SparringFraction > 0 && strings.TrimSpace(c.SparringAgent) == "" {
		return fmt.Errorf("selfplay config: sparring_fraction = %v but no sparring_agent", c.SparringFraction)
	}
	return nil
}

// Sparring reports whether game seed plays against the sparring partner
// (with probability fraction) and, if so, the partner's player (0 or 1,
// evenly). The choice depends only on seed and fraction.
func Sparring(seed uint64, fraction float64) (sparring bool, partner int) {
	z := mix64(seed ^ 0x5deece66d2b1c3a7)
	u := float64(z>>11) / (1 << 53)
	return u < fraction, int(mix64(z) & 1)
}

// RandomAction reports whether the action at moveNumber of the game seeded
// with seed is random (the first randomMoves actions, each with probability
// p; see Config.RandomMoves) and, if so, the index in [0, legal) of the
// legal action to play. The choice depends only on its arguments.
func RandomAction(seed uint64, moveNumber, randomMoves int, p float64, legal int) (int, bool) {
	if moveNumber >= randomMoves || legal < 1 || p <= 0 {
		return 0, false
	}
	z := mix64(mix64(seed^0x2545f4914f6cdd1d) + uint64(moveNumber))
	if u := float64(z>>11) / (1 << 53); u >= p {
		return 0, false
	}
	return int(mix64(z) % uint64(legal)), true
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
