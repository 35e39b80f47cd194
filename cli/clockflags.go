package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/protocol"
	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/env"
)

// clockFlags are the time-management flags of the commands that play an
// agent under a referee's clock (serve, net-play, net-server's house
// agent): the protocol.Budget of its games and the fallback agent.
type clockFlags struct {
	moveTime, gameTime *time.Duration
	fallback           *string
	horizon            *int
	unweighted         *bool
}

// addClockFlags defines the flags, each name prefixed by prefix (e.g.
// "house-"), with gameTime as -game-time's default and noGameTime saying
// what -game-time 0 means.
func addClockFlags(fs *flag.FlagSet, prefix string, gameTime time.Duration, noGameTime string) *clockFlags {
	return &clockFlags{
		moveTime:   fs.Duration(prefix+"move-time", 0, "cap on each move's thinking time (0: none)"),
		gameTime:   fs.Duration(prefix+"game-time", gameTime, "thinking-time budget per game, split over the moves (0: "+noGameTime+")"),
		fallback:   fs.String(prefix+"fallback", "greedy", "agent spec answering instead when the agent fails by overrunning its deadline (\"\": none)"),
		horizon:    fs.Int(prefix+"horizon", 0, "game length (actions of both sides) the time manager assumes (0: game's bound, or current move + 120)"),
		unweighted: fs.Bool(prefix+"unweighted", false, "split -game-time as if every move deserved the same time, ignoring the game's move weights (Watch Your Back!: the turns before its shrinks); for a fixed baseline"),
	}
}

// config returns the protocol configuration of game with the flags'
// budget and fallback (built from reg).
func (c *clockFlags) config(reg *agents, game env.Game, codec protocol.Codec) (protocol.Config, error) {
	cfg := protocol.Config{
		Game:   game,
		Codec:  codec,
		Budget: protocol.Budget{MoveTime: *c.moveTime, GameTime: *c.gameTime, Horizon: *c.horizon, Unweighted: *c.unweighted},
	}
	if err := cfg.Budget.Validate(); err != nil {
		return cfg, err
	}
	if *c.fallback != "" {
		fb, err := reg.Build(game, *c.fallback)
		if err != nil {
			return cfg, fmt.Errorf("-fallback: %w", err)
		}
		cfg.NewFallback = func(int) (agent.Agent, error) { return fb.NewAgent(0) }
	}
	return cfg, nil
}

// refereeAgent builds the agent of agentSpec for the course referee's
// game gameName (see refereeGame), with the protocol configuration of the
// flags.
func (c *clockFlags) refereeAgent(reg *agents, gameName, agentSpec string) (spec.Built, protocol.Config, error) {
	game, codec, err := refereeGame(gameName)
	if err != nil {
		return spec.Built{}, protocol.Config{}, err
	}
	built, err := reg.Build(game, agentSpec)
	if err != nil {
		return spec.Built{}, protocol.Config{}, err
	}
	cfg, err := c.config(reg, game, codec)
	return built, cfg, err
}
