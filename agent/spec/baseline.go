package spec

import (
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/styles"
	"github.com/zerokit/zerokit/env"
)

// DefaultPerfectTime bounds the perfect player's search of one move.
const DefaultPerfectTime = 10 * time.Second

// Default returns a new registry of the baseline agents of package agent
// (random, greedy, alphabeta, mcts and perfect) and the opponent styles
// of package agent/styles (centre, locker, trader, blocker, mirror).
func Default() *Registry {
	kinds := baselineKinds()
	for name, k := range styleKinds() {
		kinds[name] = k
	}
	return &Registry{kinds: kinds}
}

func baselineKinds() map[string]Kind {
	return map[string]Kind{
		"random": {
			Summary: "uniformly random legal actions",
			New: func(env.Game, Params) (agent.Factory, error) {
				return agent.RandomFactory(), nil
			},
		},
		"greedy": {
			Summary: "one-ply lookahead on material, random tie-breaks",
			New: func(game env.Game, _ Params) (agent.Factory, error) {
				return agent.GreedyFactory(game)
			},
		},
		"alphabeta": {
			Summary: "iterative-deepening alpha-beta on the hand-written evaluation",
			Keys: map[string]string{
				"depth": "maximum depth in plies (default 3 when time is not set; 0 = no limit)",
				"time":  "thinking time per move, e.g. 500ms (default none); the protocol's deadline also stops it",
				"tt":    "log2 of transposition table entries, 4..28 (default 18, about 8 MB)",
			},
			New: func(game env.Game, p Params) (agent.Factory, error) {
				t, err := p.Duration("time", 0)
				if err != nil {
					return nil, err
				}
				defDepth := 3
				if t > 0 {
					defDepth = 0
				}
				depth, err := p.Int("depth", defDepth, 0, 500)
				if err != nil {
					return nil, err
				}
				tt, err := p.Int("tt", 18, 4, 28)
				if err != nil {
					return nil, err
				}
				return agent.AlphaBetaFactory(game, agent.AlphaBetaConfig{Depth: depth, MoveTime: t, TTBits: tt})
			},
		},
		"perfect": {
			Summary: "perfect play by the game's solver (Connect Four): a best move at random among equals",
			Keys: map[string]string{
				"time": "bound on the search of one move (default 10s); past it, a move known to keep the value, else alpha-beta depth 4 (a fallback)",
			},
			New: func(game env.Game, p Params) (agent.Factory, error) {
				t, err := p.Duration("time", DefaultPerfectTime)
				if err != nil {
					return nil, err
				}
				return agent.PerfectFactory(game, agent.PerfectConfig{MoveTime: t})
			},
		},
		"mcts": {
			Summary: "pure Monte Carlo tree search: uniform priors, random rollouts at the leaves",
			Keys: map[string]string{
				"sims":     "simulations per move (default 400)",
				"rollouts": "random games per leaf evaluation (default 1)",
			},
			New: func(_ env.Game, p Params) (agent.Factory, error) {
				sims, err := p.Int("sims", 400, 1, 1<<24)
				if err != nil {
					return nil, err
				}
				rollouts, err := p.Int("rollouts", 1, 1, 1<<16)
				if err != nil {
					return nil, err
				}
				return agent.PureMCTSFactory(sims, rollouts)
			},
		},
	}
}

// styleKinds are the opponents of package agent/styles.
func styleKinds() map[string]Kind {
	depthKey := map[string]string{"depth": "alpha-beta depth in plies (default 3; Squatter 2)"}
	style := func(name, summary string) Kind {
		return Kind{
			Summary: summary,
			Keys:    depthKey,
			New: func(game env.Game, p Params) (agent.Factory, error) {
				depth, err := p.Int("depth", 0, 1, 12)
				if err != nil {
					return nil, err
				}
				return styles.Factory(game, name, depth)
			},
		}
	}
	return map[string]Kind{
		styles.CentreName:  style(styles.CentreName, "Watch Your Back! centre-holder: alpha-beta on material and closeness to the centre, so the shrinks take the other side's pieces"),
		styles.LockerName:  style(styles.LockerName, "Watch Your Back! locker: alpha-beta on material and the opponent's few moves, keeping the board closed"),
		styles.TraderName:  style(styles.TraderName, "Watch Your Back! trader: alpha-beta on material, fewer pieces and contact, trading pieces whenever it can"),
		styles.BlockerName: style(styles.BlockerName, "Squatter blocker: alpha-beta on the opponent's score, answering every move so no territory closes"),
		styles.MirrorName:  style(styles.MirrorName, "Squatter mirror: the cell point-symmetric to the opponent's last move, else the blocker's"),
	}
}
