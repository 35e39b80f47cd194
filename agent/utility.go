package agent

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
)

// MaterialUtility is a search utility that blends a value evaluator with
// the game's material balance, in the spirit of KataGo's score utility: a
// network trained on wins and losses alone values every position of a won
// (or lost) game near +1 (-1), and a search over such values is
// indifferent between keeping and throwing away material. With the blend
// the search prefers, among moves of nearly equal value, the one that
// keeps more material.
//
// The leaf value becomes
//
//	(1 - Weight) * v + Weight * tanh(material / Scale)
//
// where v is the inner evaluator's value and material is the heuristic
// Term names, both from the point of view of the player to move: by
// default the game's Material (own minus enemy pieces for Watch Your
// Back!); ShrinkMaterial, which also discounts pieces the next shrink will
// eliminate, more as the shrink nears (a value trained on results alone
// learns that late); or the game's Evaluation, the alpha-beta player's
// static evaluation (for Watch Your Back! material, shrink danger, threats,
// centre control and mobility); or FinalMaterial, which counts pieces on
// the board the last shrink leaves as worth more; or TableMaterial, which
// between the shrinks also counts the solved endgame's value of the pieces
// as they would stand if the last shrink came now. With Until the term is
// blended only into states before that move number, so that it can steer
// an opening (Watch Your Back!'s placing phase) and leave the rest of the
// game to the network. Terminal states keep their exact returns, so a win
// is still worth more than any material lead.
type MaterialUtility struct {
	// Weight is the share of the material term, in [0, 1).
	Weight float64
	// Scale is the material lead (in the heuristic's unit) worth
	// tanh(1) = 0.76 of the term; > 0.
	Scale float64
	// Term is the heuristic blended in: TermMaterial (or ""),
	// TermShrink, TermEvaluation, TermFinal or TermTable.
	Term string
	// Until, when positive, blends the term only into states whose
	// MoveNumber is below it; later states keep the inner value.
	Until int
}

// The heuristics a MaterialUtility can blend in (utilityTerms).
const (
	// TermMaterial is the game's Material heuristic.
	TermMaterial = "material"
	// TermShrink is the game's ShrinkMaterial heuristic.
	TermShrink = "shrink"
	// TermEvaluation is the game's Evaluation heuristic, without the
	// alpha-beta player's quiescence search.
	TermEvaluation = "eval"
	// TermFinal is the game's FinalMaterial heuristic.
	TermFinal = "final"
	// TermTable is the game's TableMaterial heuristic.
	TermTable = "table"
)

// utilityTerm is one heuristic a MaterialUtility can blend in: its name,
// a description for help and the function that gets it for a game.
type utilityTerm struct {
	name, help string
	heuristic  func(env.Game) (Heuristic, error)
}

// utilityTerms lists the terms, the default (TermMaterial) first. It is
// the one list that ValidTerm, TermNames, TermHelp and Wrap read.
func utilityTerms() []utilityTerm {
	return []utilityTerm{
		{TermMaterial, "the material balance", Material},
		{TermShrink, "the balance with pieces the next shrink eliminates discounted as it nears", ShrinkMaterial},
		{TermEvaluation, "the alpha-beta player's evaluation", Evaluation},
		{TermFinal, "the balance with pieces on the board the last shrink leaves counting 1.5", FinalMaterial},
		{TermTable, "final's balance, and between the shrinks 2 pieces more for the side whose pieces would win the solved endgame if the last shrink came now", TableMaterial},
	}
}

// DefaultMaterialScale is the MaterialUtility.Scale of agents that set a
// weight but no scale: a lead of two pieces is worth tanh(1) of the term.
const DefaultMaterialScale = 2

// TermHelp describes the MaterialUtility terms for flag and spec help.
func TermHelp() string {
	var parts []string
	for _, t := range utilityTerms() {
		parts = append(parts, t.name+" ("+t.help+")")
	}
	return orList(parts)
}

// TermNames lists the MaterialUtility terms, quoted, for error messages.
func TermNames() string {
	var parts []string
	for _, t := range utilityTerms() {
		parts = append(parts, `"`+t.name+`"`)
	}
	return orList(parts)
}

// orList joins "a, b or c".
func orList(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// ValidTerm reports whether term names a MaterialUtility term ("" is
// TermMaterial).
func ValidTerm(term string) bool {
	_, ok := findTerm(term)
	return ok
}

// findTerm returns the term named term ("": TermMaterial).
func findTerm(term string) (utilityTerm, bool) {
	if term == "" {
		term = TermMaterial
	}
	for _, t := range utilityTerms() {
		if t.name == term {
			return t, true
		}
	}
	return utilityTerm{}, false
}

// Validate reports a weight outside [0, 1), a scale that is not > 0, an
// unknown term or a negative Until.
func (u MaterialUtility) Validate() error {
	switch {
	case math.IsNaN(u.Weight) || u.Weight < 0 || u.Weight >= 1:
		return fmt.Errorf("material utility: weight %v: want 0 <= weight < 1", u.Weight)
	case math.IsNaN(u.Scale) || math.IsInf(u.Scale, 0) || u.Scale <= 0:
		return fmt.Errorf("material utility: scale %v: want a finite value > 0", u.Scale)
	case !ValidTerm(u.Term):
		return fmt.Errorf("material utility: term %q: want %s", u.Term, TermNames())
	case u.Until < 0:
		return fmt.Errorf("material utility: until %d: want a move number >= 0 (0: every move)", u.Until)
	}
	return nil
}

// Check reports what Wrap would: an error of Validate, or, with a
// weight, a term that game has no heuristic for.
func (u MaterialUtility) Check(game env.Game) error {
	_, err := u.heuristic(game)
	return err
}

// heuristic validates u and returns its term's heuristic for game; nil
// with Weight 0, which needs none.
func (u MaterialUtility) heuristic(game env.Game) (Heuristic, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	if u.Weight == 0 {
		return nil, nil
	}
	term, _ := findTerm(u.Term) // Validate checked it
	h, err := term.heuristic(game)
	if err != nil {
		return nil, fmt.Errorf("material utility: %w", err)
	}
	return h, nil
}

// Wrap returns eval with the material term blended into its values for
// game's states; with Weight 0 it returns eval itself.
func (u MaterialUtility) Wrap(game env.Game, eval mcts.Evaluator) (mcts.Evaluator, error) {
	h, err := u.heuristic(game)
	if err != nil {
		return nil, err
	}
	if h == nil {
		return eval, nil
	}
	return &materialEvaluator{inner: eval, material: h, u: u}, nil
}

type materialEvaluator struct {
	inner    mcts.Evaluator
	material Heuristic
	u        MaterialUtility
}

func (e *materialEvaluator) Evaluate(ctx context.Context, s env.State, legal []int, priors []float32) (float32, error) {
	v, err := e.inner.Evaluate(ctx, s, legal, priors)
	if err != nil || (e.u.Until > 0 && s.MoveNumber() >= e.u.Until) {
		return v, err
	}
	m := math.Tanh(e.material.Evaluate(s, s.CurrentPlayer()) / e.u.Scale)
	return float32((1-e.u.Weight)*float64(v) + e.u.Weight*m), nil
}
