package arena

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/zerokit/zerokit/arena/elo"
	"github.com/zerokit/zerokit/env"
)

// MatchReport is the JSON report of one match (zerokit eval -json).
type MatchReport struct {
	SpecA   string `json:"spec_a"`
	SpecB   string `json:"spec_b"`
	Seed    uint64 `json:"seed"`
	Opening int    `json:"opening"`
	// Requested is the number of games asked for; Interrupted is set when
	// the match was stopped early (the result then covers fewer games).
	Requested   int          `json:"games_requested"`
	Interrupted bool         `json:"interrupted"`
	Total       EstimateJSON `json:"total"`
	AsFirst     EstimateJSON `json:"a_first"`
	AsSecond    EstimateJSON `json:"a_second"`
	Result      Result       `json:"result"`
}

// NewMatchReport reports res: its estimates in total and by A's colour.
func NewMatchReport(specA, specB string, seed uint64, opening, requested int, interrupted bool, res Result) MatchReport {
	return MatchReport{
		SpecA: specA, SpecB: specB, Seed: seed, Opening: opening,
		Requested: requested, Interrupted: interrupted, Result: res,
		Total:   NewEstimateJSON(res.Estimate()),
		AsFirst: NewEstimateJSON(res.EstimateAs(0)), AsSecond: NewEstimateJSON(res.EstimateAs(1)),
	}
}

// EstimateJSON is elo.Estimate for JSON, whose numbers cannot be infinite
// or NaN: an infinite Elo (after a clean sweep) and the score of no games
// are null.
type EstimateJSON struct {
	Games   int      `json:"games"`
	Wins    int      `json:"wins"`
	Draws   int      `json:"draws"`
	Losses  int      `json:"losses"`
	Score   *float64 `json:"score"`
	ScoreLo float64  `json:"score_lo"`
	ScoreHi float64  `json:"score_hi"`
	Elo     *float64 `json:"elo"`
	EloLo   *float64 `json:"elo_lo"`
	EloHi   *float64 `json:"elo_hi"`
}

// NewEstimateJSON converts e.
func NewEstimateJSON(e elo.Estimate) EstimateJSON {
	finite := func(x float64) *float64 {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		return &x
	}
	return EstimateJSON{
		Games: e.Games(), Wins: e.Wins, Draws: e.Draws, Losses: e.Losses,
		Score: finite(e.Score), ScoreLo: e.ScoreLo, ScoreHi: e.ScoreHi,
		Elo: finite(e.Elo), EloLo: finite(e.EloLo), EloHi: finite(e.EloHi),
	}
}

// GauntletEntrant describes a player in a gauntlet report.
type GauntletEntrant struct {
	Name string `json:"name"`
	Spec string `json:"spec"`
	// Step is the training step of a checkpoint player.
	Step *int64 `json:"step,omitempty"`
}

// GauntletReport is the JSON report of a gauntlet (gauntlet.json).
type GauntletReport struct {
	Game            string `json:"game"`
	GamesPerPairing int    `json:"games_per_pairing"`
	Seed            uint64 `json:"seed"`
	Opening         int    `json:"opening"`
	// Interrupted is set when the gauntlet was stopped: Result holds the
	// pairings played (the last one possibly cut short).
	Interrupted bool              `json:"interrupted,omitempty"`
	Entrants    []GauntletEntrant `json:"entrants"`
	Result      GauntletResult    `json:"result"`
}

// GameLines writes each game's actions (the opening's included) as one
// JSON array per line: in the course referee's form for a game that has
// one (env.Refereed: Watch Your Back!'s [x, y] to place, [[xa, ya], [xb,
// yb]] to move, which zerokit replay reads), otherwise as the game's action
// strings.
func GameLines(game env.Game, records []GameRecord) ([]byte, error) {
	var codec env.RefereeCodec
	if r, ok := game.(env.Refereed); ok {
		_, codec = r.Referee()
	}
	var out bytes.Buffer
	for _, r := range records {
		s := game.NewInitialState()
		out.WriteByte('[')
		for i, a := range r.Actions {
			if i > 0 {
				out.WriteString(", ")
			}
			if codec != nil {
				text, err := codec.FormatAction(s, a)
				if err != nil {
					return nil, fmt.Errorf("game %d, action %d: %w", r.Index, i, err)
				}
				out.WriteString(text)
			} else {
				js, err := json.Marshal(s.ActionString(a))
				if err != nil {
					return nil, fmt.Errorf("arena: %w", err)
				}
				out.Write(js)
			}
			if err := s.ApplyAction(a); err != nil {
				return nil, fmt.Errorf("game %d, action %d (%s): %w", r.Index, i, s.ActionString(a), err)
			}
		}
		out.WriteString("]\n")
	}
	return out.Bytes(), nil
}

// Summary describes what an interrupted gauntlet played, in lines that end
// with a newline and a blank line, to precede its result.
func (e *GauntletInterrupted) Summary() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "interrupted: %d of the %d pairings were played in full", e.Complete, e.Pairings)
	if e.Partial > 0 {
		fmt.Fprintf(&sb, ", and games 0-%d of the %d of the next (the last match below)", e.Partial-1, e.Requested)
	}
	sb.WriteString("\n")
	if e.FitErr != nil {
		fmt.Fprintf(&sb, "no ratings: %v\n", e.FitErr)
	}
	sb.WriteString("\n")
	return sb.String()
}
