package mcts

import "time"

// This file holds every default of a search, one preset per use: the
// library's base configuration, the training run's self-play search, a
// player in a match (PlayConfig), and the Settings of the training run's
// evaluation player, of a network agent whose source sets no search, and
// of the run's shipped agent. docs/search.md tabulates them.

// Simulation budgets of the presets.
const (
	// DefaultSimulations is DefaultConfig's budget.
	DefaultSimulations = 200
	// SelfPlaySimulations is SelfPlayConfig's full-search budget, and
	// SelfPlayCheapSimulations that of its cheap searches.
	SelfPlaySimulations      = 24
	SelfPlayCheapSimulations = 6
	// EvalSimulations is EvalSettings' budget.
	EvalSimulations = 32
	// AgentSimulations is AgentSettings' budget.
	AgentSimulations = 128
	// ShippedAgentSimulations is ShippedAgentSettings' budget.
	ShippedAgentSimulations = 2000
	// GauntletSimulations is the budget of each checkpoint's agent in
	// "zerokit gauntlet".
	GauntletSimulations = 64
)

// DefaultLeavesInFlight is the leaves in flight of the player presets and
// of SelfPlayConfig. On a CPU a network call on 4 positions takes about as
// long as on 1, so 4 leaves per round make a search about twice as fast
// for a small loss of search efficiency per simulation (agent/neural's
// BenchmarkAct).
const DefaultLeavesInFlight = 4

// AgentMaxNodes is the tree size limit of ShippedAgentSettings and of
// "zerokit export". The tree's memory is bounded by its budget
// (DefaultTreeMB) either way.
const AgentMaxNodes = 200_000

// DefaultTreeMB is the tree memory budget of a player whose settings set
// none (Settings.TreeMB 0), in MiB. It keeps an exported agent's process
// under 80 MB whatever the position and its time budget
// (docs/reliability.md: "Memory"); a tree of AgentMaxNodes nodes with
// few positions (the usual case) about fills it, so it rarely binds.
const DefaultTreeMB = 16

// ShippedAgentMoveTime is ShippedAgentSettings' thinking time per move.
const ShippedAgentMoveTime = time.Second

// DefaultConfig returns AlphaZero-like settings for PUCT mode, with tree
// reuse, Leela/KataGo-style first-play urgency and mctx's Gumbel defaults
// ready for ModeGumbel. The other presets start from it.
func DefaultConfig() Config {
	return Config{
		Mode:             ModePUCT,
		Simulations:      DefaultSimulations,
		LeavesInFlight:   1,
		VirtualLoss:      1,
		CPUCT:            1.25,
		CPUCTBase:        19652,
		FPUMode:          FPUReduction,
		FPUReduction:     0.25,
		RootFPUReduction: 0.1,
		FPUValue:         0,
		DirichletAlpha:   0.3,
		DirichletEpsilon: 0.25,
		Temperature:      1,
		TemperatureMoves: 10,
		FinalTemperature: 0,
		ReuseTree:        true,
		Gumbel: GumbelConfig{
			MaxConsideredActions: 16,
			Scale:                1,
			CVisit:               50,
			CScale:               1,
			Interior:             InteriorImprovedPolicy,
		},
		PlayoutCap: PlayoutCapConfig{
			Enabled:          false,
			FullProbability:  0.25,
			CheapSimulations: 32,
		},
	}
}

// SelfPlayConfig is the self-play search of a training run (the search
// section of "zerokit train"'s configuration): Gumbel root search with
// SelfPlaySimulations simulations, DefaultLeavesInFlight leaves in flight,
// the sequential-halving winner played from the first move on, and
// playout cap randomization (a quarter of the searches full, the rest
// SelfPlayCheapSimulations simulations), suited to two CPU cores.
func SelfPlayConfig() Config {
	c := DefaultConfig()
	c.Mode = ModeGumbel
	c.Simulations = SelfPlaySimulations
	c.LeavesInFlight = DefaultLeavesInFlight
	c.Gumbel.MaxConsideredActions = 16
	c.TemperatureMoves = 0
	c.PlayoutCap = PlayoutCapConfig{Enabled: true, FullProbability: 0.25, CheapSimulations: SelfPlayCheapSimulations}
	return c
}

// PlayConfig is DefaultConfig for a player in a match: simulations
// simulations per move and no exploration noise or temperature, so the
// player plays its most visited move (PUCT) or the halving winner without
// Gumbel noise, and without tree reuse, so every move gets exactly that
// many simulations. Settings.Config starts from it.
func PlayConfig(simulations int) Config {
	c := DefaultConfig()
	c.Simulations = simulations
	c.DirichletEpsilon = 0
	c.Temperature = 0
	c.TemperatureMoves = 0
	c.FinalTemperature = 0
	c.Gumbel.Scale = 0
	c.ReuseTree = false
	return c
}

// EvalSettings are the search of the network player in a training run's
// evaluation matches (the eval section of "zerokit train"'s
// configuration): Gumbel search with EvalSimulations simulations, without
// tree reuse. Their LeavesInFlight is 0: the run's self-play search's.
func EvalSettings() Settings {
	return Settings{
		Simulations: EvalSimulations,
		Mode:        ModeGumbel,
		CPUCT:       DefaultConfig().CPUCT,
	}
}

// AgentSettings are the search of a network agent whose source (a
// checkpoint, a run directory without an agent, or "zerokit export" of a
// checkpoint) sets none: PUCT search with AgentSimulations simulations, no
// time limit, DefaultLeavesInFlight leaves in flight and tree reuse.
func AgentSettings() Settings {
	return Settings{
		Simulations:    AgentSimulations,
		Mode:           ModePUCT,
		LeavesInFlight: DefaultLeavesInFlight,
		CPUCT:          DefaultConfig().CPUCT,
		ReuseTree:      true,
	}
}

// ShippedAgentSettings are the search of a training run's agent (RUN/agent,
// the agent section of "zerokit train"'s configuration), the search of the
// best measured Watch Your Back! agent: AgentSettings with
// ShippedAgentSimulations simulations capped at ShippedAgentMoveTime per
// move, MCTS-Solver, and at most AgentMaxNodes nodes.
func ShippedAgentSettings() Settings {
	s := AgentSettings()
	s.Simulations = ShippedAgentSimulations
	s.MoveTime = Duration(ShippedAgentMoveTime)
	s.Solver = true
	s.MaxNodes = AgentMaxNodes
	return s
}
