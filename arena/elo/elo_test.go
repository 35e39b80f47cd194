package elo

import (
	"math"
	"testing"
)

func TestFromScoreToScore(t *testing.T) {
	tests := []struct {
		score, elo float64
	}{
		{0.5, 0},
		{0.75, 400 * math.Log10(3)},
		{0.25, -400 * math.Log10(3)},
		{10.0 / 11, 400},
		{0, math.Inf(-1)},
		{1, math.Inf(1)},
	}
	for _, tt := range tests {
		got := FromScore(tt.score)
		if math.IsInf(tt.elo, 0) {
			if got != tt.elo {
				t.Errorf("FromScore(%v) = %v, want %v", tt.score, got, tt.elo)
			}
			continue
		}
		if math.Abs(got-tt.elo) > 1e-9 {
			t.Errorf("FromScore(%v) = %v, want %v", tt.score, got, tt.elo)
		}
		if back := ToScore(got); math.Abs(back-tt.score) > 1e-12 {
			t.Errorf("ToScore(FromScore(%v)) = %v", tt.score, back)
		}
	}
}

func TestWilson(t *testing.T) {
	// Reference values computed independently (Python, closed form); the
	// 50/100 case is the textbook [0.4038, 0.5962].
	tests := []struct {
		score  float64
		n      int
		lo, hi float64
	}{
		{0.5, 100, 0.40383153, 0.59616847},
		{0, 10, 0, 0.27753279},
		{1, 10, 0.72246721, 1},
		{0.9, 50, 0.78639769, 0.95652424},
		{0.5, 0, 0, 1},
	}
	for _, tt := range tests {
		lo, hi := Wilson(tt.score, tt.n, Z95)
		if math.Abs(lo-tt.lo) > 1e-6 || math.Abs(hi-tt.hi) > 1e-6 {
			t.Errorf("Wilson(%v, %d) = [%.8f, %.8f], want [%.8f, %.8f]", tt.score, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
}

func TestEstimate95(t *testing.T) {
	tests := []struct {
		name                 string
		w, d, l              int
		score                float64
		eloLoInf, eloHiInf   bool
		eloFinite, eloPosInf bool
	}{
		{name: "even", w: 40, d: 20, l: 40, score: 0.5, eloFinite: true},
		{name: "sweep", w: 20, score: 1, eloPosInf: true, eloHiInf: true},
		{name: "swept", l: 20, score: 0, eloLoInf: true},
		{name: "wins and draws", w: 18, d: 2, score: 0.95, eloFinite: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Estimate95(tt.w, tt.d, tt.l)
			if e.Games() != tt.w+tt.d+tt.l {
				t.Errorf("Games = %d", e.Games())
			}
			if math.Abs(e.Score-tt.score) > 1e-12 {
				t.Errorf("Score = %v, want %v", e.Score, tt.score)
			}
			if !(e.ScoreLo <= e.Score && e.Score <= e.ScoreHi) {
				t.Errorf("score %v outside its interval [%v, %v]", e.Score, e.ScoreLo, e.ScoreHi)
			}
			if got := math.IsInf(e.EloLo, -1); got != tt.eloLoInf {
				t.Errorf("EloLo = %v", e.EloLo)
			}
			if got := math.IsInf(e.EloHi, 1); got != tt.eloHiInf {
				t.Errorf("EloHi = %v", e.EloHi)
			}
			if tt.eloFinite && math.IsInf(e.Elo, 0) {
				t.Errorf("Elo = %v, want finite", e.Elo)
			}
			if tt.eloPosInf && !math.IsInf(e.Elo, 1) {
				t.Errorf("Elo = %v, want +Inf", e.Elo)
			}
			if !(e.EloLo <= e.Elo && e.Elo <= e.EloHi) {
				t.Errorf("Elo %v outside [%v, %v]", e.Elo, e.EloLo, e.EloHi)
			}
		})
	}
	// 55% over 100 games: Elo +34.9, interval from the Wilson bounds.
	e := Estimate95(50, 10, 40)
	if math.Abs(e.Elo-34.86) > 0.01 {
		t.Errorf("Elo(55%%) = %v, want 34.86", e.Elo)
	}
	if math.Abs(e.EloLo-FromScore(0.45245)) > 1 || math.Abs(e.EloHi-FromScore(0.64379)) > 1 {
		t.Errorf("Elo interval [%v, %v]", e.EloLo, e.EloHi)
	}
}
