// Package elo converts match scores to Elo differences with confidence
// intervals and fits Elo ratings to the results of many pairings by maximum
// likelihood (the Bradley-Terry model, with draws counted as half a win).
//
// Elo differences use the logistic curve with scale 400: a player rated d
// points above its opponent is expected to score 1/(1+10^(-d/400)).
package elo

import (
	"math"
)

// Z95 is the two-sided 95% standard normal quantile.
const Z95 = 1.959963984540054

// FromScore is the Elo difference that gives expected score s, in
// (-Inf, +Inf): -Inf for s <= 0 and +Inf for s >= 1.
func FromScore(s float64) float64 {
	switch {
	case s <= 0:
		return math.Inf(-1)
	case s >= 1:
		return math.Inf(1)
	}
	return -400 * math.Log10(1/s-1)
}

// ToScore is the expected score of a player rated d points above its
// opponent.
func ToScore(d float64) float64 {
	return 1 / (1 + math.Pow(10, -d/400))
}

// Wilson returns the Wilson score interval for a mean score in [0, 1]
// observed over n games, at normal quantile z (Z95 for 95%).
//
// For win/loss games this is the usual binomial Wilson interval. With draws
// (scored 1/2) the per-game variance s(1-s) - d/4 (d the draw rate) is below
// the binomial s(1-s), so the interval is conservative, never too narrow.
// Unlike the normal interval it stays sensible at 0% and 100%: after n
// straight losses it is [0, z^2/(n+z^2)]. It returns [0, 1] when n is 0.
func Wilson(score float64, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	nf := float64(n)
	z2 := z * z
	centre := (score + z2/(2*nf)) / (1 + z2/nf)
	half := z / (1 + z2/nf) * math.Sqrt(score*(1-score)/nf+z2/(4*nf*nf))
	lo, hi = max(0, centre-half), min(1, centre+half)
	// Exact ends, free of rounding: a clean sweep has hi (or lo) 1 (0).
	if score <= 0 {
		lo = 0
	}
	if score >= 1 {
		hi = 1
	}
	return lo, hi
}

// Estimate summarises a match from one player's side.
type Estimate struct {
	// Wins, Draws and Losses count the games.
	Wins, Draws, Losses int
	// Score is (Wins + Draws/2) / games.
	Score float64
	// ScoreLo and ScoreHi bound the 95% Wilson interval of the score.
	ScoreLo, ScoreHi float64
	// Elo is FromScore(Score), infinite after a clean sweep either way.
	Elo float64
	// EloLo and EloHi map the score interval through FromScore; EloHi is
	// +Inf only if ScoreHi is 1, which needs no losses and no draws.
	EloLo, EloHi float64
}

// Games is the number of games in the estimate.
func (e Estimate) Games() int { return e.Wins + e.Draws + e.Losses }

// Estimate95 summarises wins, draws and losses with 95% intervals.
func Estimate95(wins, draws, losses int) Estimate {
	e := Estimate{Wins: wins, Draws: draws, Losses: losses}
	n := e.Games()
	if n == 0 {
		return Estimate{ScoreLo: 0, ScoreHi: 1, Score: math.NaN(), Elo: math.NaN(), EloLo: math.Inf(-1), EloHi: math.Inf(1)}
	}
	e.Score = (float64(wins) + float64(draws)/2) / float64(n)
	e.ScoreLo, e.ScoreHi = Wilson(e.Score, n, Z95)
	e.Elo = FromScore(e.Score)
	e.EloLo, e.EloHi = FromScore(e.ScoreLo), FromScore(e.ScoreHi)
	return e
}
