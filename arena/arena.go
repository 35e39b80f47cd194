// Package arena plays matches between agents and summarises them: wins,
// draws and losses per colour, the score with its 95% interval and the
// implied Elo difference (see package elo), and a gauntlet that plays every
// pairing of several agents and fits their ratings together.
package arena

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/arena/elo"
	"github.com/zerokit/zerokit/env"
)

// Config configures a match.
type Config struct {
	// Game is the game to play.
	Game env.Game
	// Games is the number of games. Game i is played with A as player
	// i%2, so colours alternate and an even number of games is balanced,
	// unless AColour fixes A's colour.
	Games int
	// AColour is the colour A plays: Alternate (the default), AFirst in
	// every game or ASecond in every game. Against a perfect player only
	// the colour that can win measures anything.
	AColour Colours
	// Workers is the number of games played in parallel (0 or 1: one at a
	// time). Results do not depend on it.
	Workers int
	// Seed determines every agent's seed: the agents of game i are built
	// with seeds derived from Seed and i only.
	Seed uint64
	// MaxMoves ends a game as a draw after this many actions (counted as
	// Truncated). 0 uses Game.MaxGameLength when it is positive and no
	// limit otherwise.
	MaxMoves int
	// OpeningMoves plays this many uniformly random actions before the
	// agents take over, so that deterministic agents play varied games.
	// Games 2k and 2k+1 share their opening (with colours swapped), so
	// every opening is played from both sides. The opening's actions are
	// included in records and counts but belong to neither agent.
	OpeningMoves int
	// KeepActions records each game's actions in its GameRecord.
	KeepActions bool
	// OnGame, if set, is called after each game (one call at a time, in
	// completion order), e.g. to show progress.
	OnGame func(GameRecord)
}

// Colours says which colour agent A plays in a match (Config.AColour).
type Colours int

const (
	// Alternate plays A as player i%2 in game i.
	Alternate Colours = iota
	// AFirst plays A as player 0, the first to move, in every game.
	AFirst
	// ASecond plays A as player 1 in every game.
	ASecond
)

// ParseColours reads the names "both" (Alternate), "first" (AFirst) and
// "second" (ASecond).
func ParseColours(s string) (Colours, error) {
	switch s {
	case "both":
		return Alternate, nil
	case "first":
		return AFirst, nil
	case "second":
		return ASecond, nil
	}
	return 0, fmt.Errorf("arena: colours %q: want both, first or second", s)
}

// String returns the name ParseColours reads.
func (c Colours) String() string {
	switch c {
	case Alternate:
		return "both"
	case AFirst:
		return "first"
	case ASecond:
		return "second"
	}
	return fmt.Sprintf("Colours(%d)", int(c))
}

// player returns A's player in game i.
func (c Colours) player(i int) int {
	switch c {
	case AFirst:
		return 0
	case ASecond:
		return 1
	}
	return i % 2
}

// GameRecord is the outcome of one game.
type GameRecord struct {
	// Index is the game's number in the match.
	Index int `json:"index"`
	// AColour is the player (0 moves first) that A played.
	AColour int `json:"a_colour"`
	// Winner is the winning player (0 or 1), or -1 for a draw.
	Winner int `json:"winner"`
	// ScoreA is A's score: 1, 1/2 or 0.
	ScoreA float64 `json:"score_a"`
	// Length is the number of actions played.
	Length int `json:"length"`
	// Truncated is set when the game hit MaxMoves and was scored a draw.
	Truncated bool `json:"truncated,omitempty"`
	// SeedA and SeedB are the seeds the two agents were built with.
	SeedA uint64 `json:"seed_a"`
	SeedB uint64 `json:"seed_b"`
	// ThinkA and ThinkB are the total times spent in Act by each agent.
	ThinkA time.Duration `json:"think_a_ns"`
	ThinkB time.Duration `json:"think_b_ns"`
	// MaxThinkA and MaxThinkB are the longest times each agent spent on
	// one move: with a per-move time budget they show whether it held.
	MaxThinkA time.Duration `json:"max_think_a_ns"`
	MaxThinkB time.Duration `json:"max_think_b_ns"`
	// MovesA and MovesB count each agent's actions.
	MovesA int `json:"moves_a"`
	MovesB int `json:"moves_b"`
	// FallbacksA and FallbacksB count the actions each agent chose
	// without a completed search, its deadline having passed first
	// (agent.FallbackCounter).
	FallbacksA int `json:"fallbacks_a,omitempty"`
	FallbacksB int `json:"fallbacks_b,omitempty"`
	// InexactA and InexactB count the actions each agent chose knowing
	// only that they keep the position's result, not its exact value
	// (agent.InexactCounter: the perfect player out of time).
	InexactA int `json:"inexact_a,omitempty"`
	InexactB int `json:"inexact_b,omitempty"`
	// Actions lists the actions from the initial state (the opening's
	// included) when Config.KeepActions is set.
	Actions []int `json:"actions,omitempty"`
}

// Result is the outcome of a match between A and B, from A's side. Index
// [0] of the per-colour counts is for games where A moved first, [1] for
// games where A moved second.
type Result struct {
	// A and B are the agents' names; Game is the game's name.
	A    string `json:"a"`
	B    string `json:"b"`
	Game string `json:"game"`
	// Wins, Draws and Losses count A's results by A's colour.
	Wins   [2]int `json:"wins"`
	Draws  [2]int `json:"draws"`
	Losses [2]int `json:"losses"`
	// Truncated counts games ended (as draws) by MaxMoves.
	Truncated int `json:"truncated"`
	// Moves is the total number of actions in all games.
	Moves int `json:"moves"`
	// ThinkA and ThinkB are the total times in Act; MovesA and MovesB the
	// numbers of actions each agent chose.
	ThinkA time.Duration `json:"think_a_ns"`
	ThinkB time.Duration `json:"think_b_ns"`
	MovesA int           `json:"moves_a"`
	MovesB int           `json:"moves_b"`
	// FallbacksA and FallbacksB count the actions each agent chose
	// without a completed search (see GameRecord).
	FallbacksA int `json:"fallbacks_a,omitempty"`
	FallbacksB int `json:"fallbacks_b,omitempty"`
	// InexactA and InexactB count the actions each agent chose without
	// their exact value (see GameRecord).
	InexactA int `json:"inexact_a,omitempty"`
	InexactB int `json:"inexact_b,omitempty"`
	// MaxThinkA and MaxThinkB are the longest times each agent spent on
	// one move over the match.
	MaxThinkA time.Duration `json:"max_think_a_ns"`
	MaxThinkB time.Duration `json:"max_think_b_ns"`
	// Records has one entry per game, in game order.
	Records []GameRecord `json:"records,omitempty"`
}

// Games is the number of games played.
func (r Result) Games() int {
	return r.Wins[0] + r.Wins[1] + r.Draws[0] + r.Draws[1] + r.Losses[0] + r.Losses[1]
}

// Estimate is A's total score, its 95% Wilson interval and the Elo
// difference A - B with the interval's image (infinite bounds after a clean
// sweep; see elo.Estimate95).
func (r Result) Estimate() elo.Estimate {
	return elo.Estimate95(r.Wins[0]+r.Wins[1], r.Draws[0]+r.Draws[1], r.Losses[0]+r.Losses[1])
}

// EstimateAs is Estimate restricted to the games where A played colour.
func (r Result) EstimateAs(colour int) elo.Estimate {
	return elo.Estimate95(r.Wins[colour], r.Draws[colour], r.Losses[colour])
}

// Pairing converts the result to the input of elo.Fit. elo.Fit needs
// distinct names, so set A and B when both agents share a name.
func (r Result) Pairing() elo.Pairing {
	e := r.Estimate()
	return elo.Pairing{A: r.A, B: r.B, WinsA: e.Wins, Draws: e.Draws, WinsB: e.Losses}
}

// add counts one game.
func (r *Result) add(g GameRecord) {
	switch g.ScoreA {
	case 1:
		r.Wins[g.AColour]++
	case 0:
		r.Losses[g.AColour]++
	default:
		r.Draws[g.AColour]++
	}
	if g.Truncated {
		r.Truncated++
	}
	r.Moves += g.Length
	r.ThinkA += g.ThinkA
	r.ThinkB += g.ThinkB
	r.MovesA += g.MovesA
	r.MovesB += g.MovesB
	r.FallbacksA += g.FallbacksA
	r.FallbacksB += g.FallbacksB
	r.InexactA += g.InexactA
	r.InexactB += g.InexactB
	r.MaxThinkA = max(r.MaxThinkA, g.MaxThinkA)
	r.MaxThinkB = max(r.MaxThinkB, g.MaxThinkB)
}

// GameSeeds returns the seeds of A's and B's agents in game i of a match
// with the given seed (SplitMix64 of the seed, game and side).
func GameSeeds(seed uint64, i int) (seedA, seedB uint64) {
	base := splitmix(seed ^ splitmix(uint64(i)+0x9e3779b97f4a7c15))
	return splitmix(base ^ 0xa), splitmix(base ^ 0xb)
}

// splitmix is the SplitMix64 finaliser.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Play plays cfg.Games games between agents built by a and b and returns
// the result from A's side. Each game builds fresh agents (agents need not
// be safe for concurrent use). An agent error or an illegal action ends the
// match with an error naming the game and agent. Cancelling ctx ends it
// with an *Interrupted error wrapping ctx's error, and the result of the
// games finished before it that form a prefix of the match (see
// Interrupted): games in flight are dropped.
func Play(ctx context.Context, cfg Config, a, b agent.Factory) (Result, error) {
	if cfg.Game == nil {
		return Result{}, errors.New("arena: no game")
	}
	if cfg.Games <= 0 {
		return Result{}, fmt.Errorf("arena: number of games %d must be positive", cfg.Games)
	}
	if a == nil || b == nil {
		return Result{}, errors.New("arena: nil agent factory")
	}
	if cfg.MaxMoves < 0 {
		return Result{}, fmt.Errorf("arena: negative MaxMoves %d", cfg.MaxMoves)
	}
	if cfg.OpeningMoves < 0 {
		return Result{}, fmt.Errorf("arena: negative OpeningMoves %d", cfg.OpeningMoves)
	}
	if cfg.AColour < Alternate || cfg.AColour > ASecond {
		return Result{}, fmt.Errorf("arena: unknown AColour %v", cfg.AColour)
	}
	maxMoves := cfg.MaxMoves
	if maxMoves == 0 {
		maxMoves = cfg.Game.MaxGameLength()
	}
	workers := min(max(cfg.Workers, 1), cfg.Games)

	// The names come from game 0's agents, built up front so that a bad
	// factory fails before any game starts.
	sa, sb := GameSeeds(cfg.Seed, 0)
	a0, err := a(sa)
	if err != nil {
		return Result{}, fmt.Errorf("arena: building agent A: %w", err)
	}
	b0, err := b(sb)
	if err != nil {
		return Result{}, fmt.Errorf("arena: building agent B: %w", err)
	}
	res := Result{A: a0.Name(), B: b0.Name(), Game: cfg.Game.Name()}
	records := make([]GameRecord, cfg.Games)

	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan int)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done = make([]bool, cfg.Games)
	)
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				rec, err := playIndexed(ctx, cfg, maxMoves, a, b, i)
				if err != nil {
					cancel(err)
					return
				}
				mu.Lock()
				records[i], done[i] = rec, true
				if cfg.OnGame != nil {
					cfg.OnGame(rec)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for i := range cfg.Games {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		if perr := parent.Err(); perr == nil || !errors.Is(err, perr) {
			return Result{}, err
		}
		n := 0
		for n < len(done) && done[n] {
			n++
		}
		if cfg.AColour == Alternate {
			n -= n % 2
		}
		for _, rec := range records[:n] {
			res.add(rec)
		}
		res.Records = records[:n]
		return res, &Interrupted{Played: n, Requested: cfg.Games, Err: err}
	}
	for i, rec := range records {
		if !done[i] {
			return Result{}, fmt.Errorf("arena: game %d was not played", i)
		}
		res.add(rec)
	}
	res.Records = records
	return res, nil
}

// Interrupted is Play's error when its context is cancelled. The result
// returned with it holds games 0 to Played-1: the longest run of finished
// games from game 0, cut to an even number when colours alternate so that
// each agent played as many games with each colour. Games finished out of
// that order are dropped with the ones in flight, so that a match stopped
// early does not favour its shorter games.
type Interrupted struct {
	// Played is the number of games in the result; Requested is
	// Config.Games.
	Played, Requested int
	// Err is the context's error.
	Err error
}

func (e *Interrupted) Error() string {
	return fmt.Sprintf("arena: interrupted after %d of %d games: %v", e.Played, e.Requested, e.Err)
}

// Unwrap returns the context's error.
func (e *Interrupted) Unwrap() error { return e.Err }

// playIndexed builds game i's agents and plays it.
func playIndexed(ctx context.Context, cfg Config, maxMoves int, fa, fb agent.Factory, i int) (GameRecord, error) {
	seedA, seedB := GameSeeds(cfg.Seed, i)
	a, err := fa(seedA)
	if err != nil {
		return GameRecord{}, fmt.Errorf("arena: game %d: building agent A: %w", i, err)
	}
	b, err := fb(seedB)
	if err != nil {
		return GameRecord{}, fmt.Errorf("arena: game %d: building agent B: %w", i, err)
	}
	colour := cfg.AColour.player(i)
	var players [2]agent.Agent
	players[colour], players[1-colour] = a, b
	// Alternating games share their opening in pairs; with a fixed colour
	// each game draws its own.
	openingGame := i
	if cfg.AColour != Alternate {
		openingGame = 2 * i
	}
	start, opening, err := Opening(cfg.Game, OpeningSeed(cfg.Seed, openingGame), cfg.OpeningMoves)
	if err != nil {
		return GameRecord{}, fmt.Errorf("arena: game %d: %w", i, err)
	}
	g, err := PlayFrom(ctx, start, players, maxMoves, cfg.KeepActions)
	if err != nil {
		return GameRecord{}, fmt.Errorf("arena: game %d (%s as player %d vs %s): %w", i, a.Name(), colour, b.Name(), err)
	}
	rec := GameRecord{
		Index: i, AColour: colour, Winner: g.Winner, Length: g.Length, Truncated: g.Truncated,
		SeedA: seedA, SeedB: seedB,
		ThinkA: g.Think[colour], ThinkB: g.Think[1-colour],
		MaxThinkA: g.MaxThink[colour], MaxThinkB: g.MaxThink[1-colour],
		MovesA: g.Moves[colour], MovesB: g.Moves[1-colour],
		FallbacksA: g.Fallbacks[colour], FallbacksB: g.Fallbacks[1-colour],
		InexactA: g.Inexact[colour], InexactB: g.Inexact[1-colour],
	}
	if cfg.KeepActions {
		rec.Actions = append(opening, g.Actions...)
	}
	switch g.Winner {
	case colour:
		rec.ScoreA = 1
	case -1:
		rec.ScoreA = 0.5
	}
	return rec, nil
}

// Game is the outcome of one game between two agents, from PlayGame.
type Game struct {
	// Winner is the winning player, or -1 for a draw (or a truncated
	// game).
	Winner int
	// Returns are the game's returns (zeros if truncated).
	Returns [2]float32
	// Length is the number of actions played.
	Length int
	// Truncated is set when the game reached maxMoves unfinished.
	Truncated bool
	// Think and Moves are each player's total time in Act and number of
	// actions; MaxThink is each player's longest time on one action.
	Think    [2]time.Duration
	MaxThink [2]time.Duration
	Moves    [2]int
	// Fallbacks counts each player's actions chosen without a completed
	// search (agents that implement agent.FallbackCounter).
	Fallbacks [2]int
	// Inexact counts each player's actions chosen knowing only that they
	// keep the position's result (agents that implement
	// agent.InexactCounter).
	Inexact [2]int
	// Actions lists the actions if requested.
	Actions []int
	// Final is the last state.
	Final env.State
}

// OpeningSeed is the seed of game i's random opening in a match with the
// given seed: games 2k and 2k+1 share it.
func OpeningSeed(seed uint64, i int) uint64 {
	return splitmix(seed ^ splitmix(uint64(i/2)+0x6f70656e696e6700))
}

// Opening returns game's initial state after n uniformly random actions
// drawn with seed, and those actions. It stops early if the game ends,
// which only happens when n is long for the game.
func Opening(game env.Game, seed uint64, n int) (env.State, []int, error) {
	s := game.NewInitialState()
	rng := rand.New(rand.NewPCG(seed, 0x6f70656e))
	var legal, actions []int
	for range n {
		legal = s.LegalActions(legal)
		if len(legal) == 0 {
			break
		}
		a := legal[rng.IntN(len(legal))]
		if err := s.ApplyAction(a); err != nil {
			return nil, nil, fmt.Errorf("opening: legal action %s rejected: %w", s.ActionString(a), err)
		}
		actions = append(actions, a)
	}
	return s, actions, nil
}

// PlayGame plays one game from game's initial state, players[p] choosing
// for player p, until the game ends or maxMoves actions (0: no limit) have
// been played. An illegal action, or an agent that modifies the state it is
// shown (detected by its hash), is an error.
func PlayGame(ctx context.Context, game env.Game, players [2]agent.Agent, maxMoves int, keepActions bool) (Game, error) {
	return PlayFrom(ctx, game.NewInitialState(), players, maxMoves, keepActions)
}

// PlayFrom is PlayGame from the state start (which it modifies), e.g. a
// random opening. The recorded actions are those played from start; the
// length counts all actions since the initial state.
func PlayFrom(ctx context.Context, start env.State, players [2]agent.Agent, maxMoves int, keepActions bool) (Game, error) {
	s := start
	var g Game
	for !s.IsTerminal() {
		if maxMoves > 0 && s.MoveNumber() >= maxMoves {
			g.Truncated = true
			break
		}
		if err := ctx.Err(); err != nil {
			return Game{}, err
		}
		p := s.CurrentPlayer()
		hash := s.Hash()
		fc, counts := players[p].(agent.FallbackCounter)
		var fallbacks, inexact int
		if counts {
			fallbacks = fc.Fallbacks()
		}
		ic, exact := players[p].(agent.InexactCounter)
		if exact {
			inexact = ic.Inexact()
		}
		start := time.Now()
		a, err := players[p].Act(ctx, s)
		took := time.Since(start)
		if counts {
			g.Fallbacks[p] += fc.Fallbacks() - fallbacks
		}
		if exact {
			g.Inexact[p] += ic.Inexact() - inexact
		}
		g.Think[p] += took
		g.MaxThink[p] = max(g.MaxThink[p], took)
		if err != nil {
			return Game{}, fmt.Errorf("move %d: %s: %w", s.MoveNumber(), players[p].Name(), err)
		}
		if s.Hash() != hash {
			return Game{}, fmt.Errorf("move %d: %s modified the state it was given", s.MoveNumber(), players[p].Name())
		}
		str := s.ActionString(a)
		if err := s.ApplyAction(a); err != nil {
			return Game{}, fmt.Errorf("move %d: %s played %s (%d): %w", s.MoveNumber(), players[p].Name(), str, a, err)
		}
		g.Moves[p]++
		if keepActions {
			g.Actions = append(g.Actions, a)
		}
	}
	g.Length = s.MoveNumber()
	g.Final = s
	g.Winner = -1
	if !g.Truncated {
		g.Returns = s.Returns()
		switch {
		case g.Returns[0] > g.Returns[1]:
			g.Winner = 0
		case g.Returns[1] > g.Returns[0]:
			g.Winner = 1
		}
	}
	return g, nil
}
