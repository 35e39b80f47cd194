package selfplay

import (
	"fmt"
	"time"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/mcts"
)

// Stats describes the work of one Generator.Run.
type Stats struct {
	// Games is the number of games finished and Positions their total
	// number of moves; FullPositions counts the moves chosen by a full
	// search (usable policy targets).
	Games                    int
	Positions, FullPositions int64
	// Wins counts the self-play games won by player 0 and player 1;
	// Draws the others (Truncated of all games ended by the move limit
	// rather than the rules). Sparring games count in Sparring instead.
	Wins             [2]int
	Draws, Truncated int
	// TableEnds counts the games ended by the table (Config.TableEnds),
	// with its value as their result.
	TableEnds int
	// Sparring counts the games against the sparring partner, from the
	// network's side.
	Sparring SparringStats
	// Searches and Simulations count the searches run (one per move of
	// the network, including moves of games still in flight) and their
	// simulations; PartnerMoves counts the sparring partner's moves.
	Searches, Simulations, PartnerMoves int64
	// Fallbacks counts the searches that ended at a passed deadline before
	// any simulation (mcts.Result.Fallback): moves nothing searched.
	// Self-play has no deadline, so it should stay 0.
	Fallbacks int64
	// RandomMoves counts the moves played at random instead of the
	// search's choice (Config.RandomMoves).
	RandomMoves int64
	// Elapsed is the wall time of the run.
	Elapsed time.Duration
	// Eval is the evaluator's work during the run, when it reports it (see
	// StatsEvaluator).
	Eval mcts.EvalStats
}

// SparringStats are the network's results against the sparring partner.
type SparringStats struct {
	Games, Wins, Draws, Losses int
}

// Score is the network's mean score against the partner (a win 1, a draw
// 1/2), 0 without games.
func (s SparringStats) Score() float64 {
	if s.Games == 0 {
		return 0
	}
	return (float64(s.Wins) + float64(s.Draws)/2) / float64(s.Games)
}

// gameEnd says what ended a game.
type gameEnd int

const (
	endRules     gameEnd = iota // the game's rules
	endTable                    // the table (Config.TableEnds)
	endTruncated                // the move limit
)

// add counts a finished game; partner is the sparring partner's player, or
// -1 in self-play.
func (s *Stats) add(rec *data.Record, end gameEnd, partner int) {
	s.Games++
	s.Positions += int64(len(rec.Actions))
	s.FullPositions += int64(rec.FullMoves())
	switch end {
	case endTable:
		s.TableEnds++
	case endTruncated:
		s.Truncated++
	}
	if partner >= 0 {
		s.Sparring.Games++
		net := 1 - partner
		switch {
		case rec.Returns[net] > rec.Returns[partner]:
			s.Sparring.Wins++
		case rec.Returns[partner] > rec.Returns[net]:
			s.Sparring.Losses++
		default:
			s.Sparring.Draws++
		}
		return
	}
	switch {
	case rec.Returns[0] > rec.Returns[1]:
		s.Wins[0]++
	case rec.Returns[1] > rec.Returns[0]:
		s.Wins[1]++
	default:
		s.Draws++
	}
}

// Merge adds the counts of o to s (elapsed times add up).
func (s *Stats) Merge(o Stats) {
	s.Games += o.Games
	s.Positions += o.Positions
	s.FullPositions += o.FullPositions
	s.Wins[0] += o.Wins[0]
	s.Wins[1] += o.Wins[1]
	s.Draws += o.Draws
	s.Truncated += o.Truncated
	s.TableEnds += o.TableEnds
	s.Searches += o.Searches
	s.Simulations += o.Simulations
	s.PartnerMoves += o.PartnerMoves
	s.Fallbacks += o.Fallbacks
	s.RandomMoves += o.RandomMoves
	s.Sparring.Games += o.Sparring.Games
	s.Sparring.Wins += o.Sparring.Wins
	s.Sparring.Draws += o.Sparring.Draws
	s.Sparring.Losses += o.Sparring.Losses
	s.Elapsed += o.Elapsed
	s.Eval = s.Eval.Add(o.Eval)
}

func perSecond(n float64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return n / d.Seconds()
}

// GamesPerSecond is the rate of finished games.
func (s Stats) GamesPerSecond() float64 { return perSecond(float64(s.Games), s.Elapsed) }

// PositionsPerSecond is the rate of searched moves (all searches, including
// those of games still in flight).
func (s Stats) PositionsPerSecond() float64 { return perSecond(float64(s.Searches), s.Elapsed) }

// SimulationsPerSecond is the rate of search simulations.
func (s Stats) SimulationsPerSecond() float64 { return perSecond(float64(s.Simulations), s.Elapsed) }

// MeanLength is the mean number of moves of the finished games.
func (s Stats) MeanLength() float64 {
	if s.Games == 0 {
		return 0
	}
	return float64(s.Positions) / float64(s.Games)
}

// ForwardShare is the fraction of the run's wall time spent in the
// network's forward pass, per evaluator worker (ForwardTime summed over the
// workers / (Elapsed * Workers)).
func (s Stats) ForwardShare() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Eval.ForwardTime) / (float64(s.Elapsed) * float64(max(s.Eval.Workers, 1)))
}

// Outcomes returns the fractions of finished self-play games won by player
// 0, won by player 1 and drawn.
func (s Stats) Outcomes() (p0, p1, draw float64) {
	self := s.Wins[0] + s.Wins[1] + s.Draws
	if self == 0 {
		return 0, 0, 0
	}
	n := float64(self)
	return float64(s.Wins[0]) / n, float64(s.Wins[1]) / n, float64(s.Draws) / n
}

// String summarises the run on one line.
func (s Stats) String() string {
	p0, p1, d := s.Outcomes()
	return fmt.Sprintf("%d games, %d positions in %.1fs: %.2f games/s, %.1f pos/s, %.0f sims/s, "+
		"mean length %.1f, p0/p1/draw %.0f%%/%.0f%%/%.0f%%, batch %.1f, forward %.0f%%, cache hits %.0f%%",
		s.Games, s.Positions, s.Elapsed.Seconds(), s.GamesPerSecond(), s.PositionsPerSecond(),
		s.SimulationsPerSecond(), s.MeanLength(), 100*p0, 100*p1, 100*d,
		s.Eval.MeanBatch(), 100*s.ForwardShare(), 100*s.Eval.CacheHitRate()) + s.sparringString()
}

func (s Stats) sparringString() string {
	if s.Sparring.Games == 0 {
		return ""
	}
	sp := s.Sparring
	return fmt.Sprintf(", vs sparring partner %d-%d-%d (%.0f%%)", sp.Wins, sp.Draws, sp.Losses, 100*sp.Score())
}
