package arena

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/arena/elo"
)

// Entrant is a player in a gauntlet.
type Entrant struct {
	// Name labels the player in the results (empty: the agent's Name).
	// Names must be distinct.
	Name string
	// Factory builds the player's agents.
	Factory agent.Factory
}

// GauntletConfig configures Gauntlet.
type GauntletConfig struct {
	// Match configures every pairing's match (Games is per pairing). Each
	// pairing's seed is derived from Match.Seed and the pairing's index.
	// Per-game records are kept only with Match.KeepActions.
	Match Config
	// Fit configures the rating fit; Fit.Anchor defaults to "random" if
	// an entrant has that name.
	Fit elo.FitConfig
	// OnMatch, if set, is called after each pairing's match.
	OnMatch func(Result)
}

// GauntletResult holds every pairing's match and the fitted ratings.
type GauntletResult struct {
	Matches []Result  `json:"matches"`
	Ratings elo.Table `json:"ratings"`
}

// GauntletInterrupted is the error of a gauntlet whose context was
// cancelled: its result holds the pairings played in full, then the
// interrupted pairing's finished prefix of games (see Interrupted) if it
// has any, and ratings fitted to those.
type GauntletInterrupted struct {
	// Pairings is the number of pairings of the full gauntlet; Complete
	// the number played in full; Partial is the number of games of the
	// interrupted pairing in the result, and Requested its requested
	// games.
	Pairings, Complete, Partial, Requested int
	// FitErr is set when the games played do not determine ratings (for
	// example, the anchor has not played yet); the result then has none.
	FitErr error
	// Err is the context's error.
	Err error
}

func (e *GauntletInterrupted) Error() string {
	return fmt.Sprintf("arena: gauntlet interrupted after %d of %d pairings (and %d of %d games of the next): %v",
		e.Complete, e.Pairings, e.Partial, e.Requested, e.Err)
}

// Unwrap returns the context's error.
func (e *GauntletInterrupted) Unwrap() error { return e.Err }

// Gauntlet plays a match between every pair of entrants (entrant i is A
// against every j > i) and fits Elo ratings to all the results. If ctx is
// cancelled it stops, fits what was played, and returns that result with a
// *GauntletInterrupted error.
func Gauntlet(ctx context.Context, cfg GauntletConfig, entrants []Entrant) (GauntletResult, error) {
	if len(entrants) < 2 {
		return GauntletResult{}, errors.New("arena: a gauntlet needs at least two entrants")
	}
	names := make([]string, len(entrants))
	seen := map[string]bool{}
	for i, e := range entrants {
		if e.Factory == nil {
			return GauntletResult{}, fmt.Errorf("arena: entrant %d (%q) has no factory", i, e.Name)
		}
		names[i] = e.Name
		if names[i] == "" {
			a, err := e.Factory(0)
			if err != nil {
				return GauntletResult{}, fmt.Errorf("arena: entrant %d: %w", i, err)
			}
			names[i] = a.Name()
		}
		if seen[names[i]] {
			return GauntletResult{}, fmt.Errorf("arena: two entrants are named %q", names[i])
		}
		seen[names[i]] = true
	}

	var out GauntletResult
	var stopped *GauntletInterrupted
	pairing := 0
pairings:
	for i := range entrants {
		for j := i + 1; j < len(entrants); j++ {
			mc := cfg.Match
			mc.Seed = splitmix(cfg.Match.Seed ^ splitmix(uint64(pairing)+0x5bd1e995))
			pairing++
			res, err := Play(ctx, mc, entrants[i].Factory, entrants[j].Factory)
			var intr *Interrupted
			if errors.As(err, &intr) && intr.Played == intr.Requested {
				// Cancelled after its last game: the match is whole, and
				// the next one stops at once.
				err = nil
			}
			if err != nil && errors.As(err, &intr) {
				stopped = &GauntletInterrupted{Pairings: len(entrants) * (len(entrants) - 1) / 2,
					Complete: len(out.Matches), Partial: intr.Played, Requested: intr.Requested, Err: intr.Err}
				if intr.Played == 0 {
					break pairings
				}
			} else if err != nil {
				return GauntletResult{}, fmt.Errorf("arena: %s vs %s: %w", names[i], names[j], err)
			}
			res.A, res.B = names[i], names[j]
			if !cfg.Match.KeepActions {
				res.Records = nil
			}
			out.Matches = append(out.Matches, res)
			if stopped != nil {
				break pairings
			}
			if cfg.OnMatch != nil {
				cfg.OnMatch(res)
			}
		}
	}
	pairings := make([]elo.Pairing, len(out.Matches))
	for k, m := range out.Matches {
		pairings[k] = m.Pairing()
	}
	if stopped != nil {
		if len(pairings) == 0 {
			stopped.FitErr = errors.New("arena: no games were played")
		} else if out.Ratings, stopped.FitErr = elo.Fit(pairings, cfg.Fit); stopped.FitErr != nil {
			out.Ratings = elo.Table{}
		}
		return out, stopped
	}
	tab, err := elo.Fit(pairings, cfg.Fit)
	if err != nil {
		return GauntletResult{}, fmt.Errorf("arena: fitting ratings: %w", err)
	}
	out.Ratings = tab
	return out, nil
}

// WriteText writes the ratings table followed by one line per match.
func (g GauntletResult) WriteText(w io.Writer) error {
	if err := g.Ratings.WriteText(w); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nA\tB\tgames\tW-D-L (A)\tscore A\t95%% CI\tElo A-B\n")
	for _, m := range g.Matches {
		e := m.Estimate()
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d-%d-%d\t%.3f\t[%.3f, %.3f]\t%s\n",
			m.A, m.B, e.Games(), e.Wins, e.Draws, e.Losses, e.Score, e.ScoreLo, e.ScoreHi, FormatElo(e.Elo))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("arena: writing gauntlet: %w", err)
	}
	return nil
}
