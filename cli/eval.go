package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/arena"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/internal/atomicfile"
)

const evalUsage = `usage: zerokit eval -a SPEC -b SPEC [flags]

Plays -games games between agents A and B, colours alternating (A moves
first in games 0, 2, 4, ...; -a-colour first or second fixes A's colour),
-parallel games at a time, and reports A's wins, draws and losses as first
and second player and in total, A's score with its 95% confidence interval
(Wilson) and the Elo difference A - B with the interval's image. Network
agents (net:) share one network per path, so parallel games batch their
evaluations.

Each game starts with -opening uniformly random actions (shared by games 2k
and 2k+1, which swap colours; with -a-colour each game draws its own) so
that deterministic agents play varied games. The agents of game i are
seeded from -seed, i and the spec's seed=.

Ctrl-C (SIGINT) or SIGTERM stops the match and reports it as a shorter one:
games 0 to N-1, the longest run of finished games from game 0 (N even when
colours alternate, so both agents played each colour equally often); games
in flight, or finished out of that order, are dropped, so the short games
do not count more than they should.

Agent specs (-a, -b):
`

// runEval implements "zerokit eval".
func runEval(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	// The real registry, after the flags, batches as many games as
	// -parallel plays at once.
	fs, err := newSpecFlagSet("eval", evalUsage, stderr)
	if err != nil {
		return err
	}
	specA := fs.String("a", "", "agent A's spec (required)")
	specB := fs.String("b", "", "agent B's spec (required)")
	nGames := fs.Int("games", 20, "number of games (even keeps colours balanced)")
	parallel := fs.Int("parallel", 1, "games played at the same time")
	gameName := fs.String("game", defaultGame(nil), "game: "+games.Help(nil))
	seed := fs.Uint64("seed", 1, "match seed (openings and agents' seeds)")
	opening := fs.Int("opening", 2, "uniformly random actions at the start of each game")
	aColour := fs.String("a-colour", "both", "the colour A plays: both (alternating), first or second (every game; against a perfect player only the colour that can win measures anything)")
	maxMoves := fs.Int("max-moves", 0, "end a game as a draw after this many actions (0: the game's own bound)")
	jsonOut := fs.String("json", "", "also write the result as JSON to `FILE`")
	recordOut := fs.String("record", "", "write every game's actions to `FILE`, one JSON array per line in game order (wyb: the referee's action form, the input of zerokit replay; other games: action strings)")
	addTo := fs.String("add-to", "", addToHelp+"; needs -a to be a trained agent (net: or default)")
	verbose := fs.Bool("v", false, "print every game")
	quiet := fs.Bool("q", false, "no progress lines on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *specA == "" || *specB == "" {
		fs.Usage()
		return errors.New("-a and -b are required")
	}
	switch {
	case *nGames < 1:
		return fmt.Errorf("-games %d: want at least 1", *nGames)
	case *parallel < 1:
		return fmt.Errorf("-parallel %d: want at least 1", *parallel)
	case *opening < 0 || *maxMoves < 0:
		return errors.New("-opening and -max-moves must not be negative")
	}
	colours, err := arena.ParseColours(*aColour)
	if err != nil {
		return fmt.Errorf("-a-colour: %w", err)
	}
	game, err := games.ByName(*gameName)
	if err != nil {
		return fmt.Errorf("-game: %w", err)
	}
	reg, err := newAgents(*parallel)
	if err != nil {
		return err
	}
	defer reg.Close()
	a, err := reg.Build(game, *specA)
	if err != nil {
		return fmt.Errorf("-a: %w", err)
	}
	b, err := reg.Build(game, *specB)
	if err != nil {
		return fmt.Errorf("-b: %w", err)
	}
	var target *evalTarget
	var searchA string
	if *addTo != "" {
		ag, err := seeded(a)(0)
		if err != nil {
			return fmt.Errorf("-a: %w", err)
		}
		na, ok := ag.(*neural.Agent)
		if !ok {
			return fmt.Errorf("-add-to: agent A (%s) is not a trained network", *specA)
		}
		if target, err = newEvalTarget(*addTo, na.WeightsFile(), "eval", args); err != nil {
			return err
		}
		searchA = searchSummary(na.Settings()) + ", no game budget"
	}
	cfg := arena.Config{
		Game: game, Games: *nGames, Workers: *parallel, Seed: *seed,
		MaxMoves: *maxMoves, OpeningMoves: *opening, KeepActions: *recordOut != "",
		AColour: colours,
	}
	var score float64
	done := 0
	every := max(1, *nGames/10)
	start := time.Now()
	cfg.OnGame = func(g arena.GameRecord) {
		done++
		score += g.ScoreA
		switch {
		case *verbose:
			fmt.Fprintf(stderr, "game %d: A played %s, %s after %d actions (A %.1f s, longest move %.2f s; B %.1f s, longest %.2f s)\n",
				g.Index, colourName(g.AColour), outcomeForA(g), g.Length,
				g.ThinkA.Seconds(), g.MaxThinkA.Seconds(), g.ThinkB.Seconds(), g.MaxThinkB.Seconds())
		case !*quiet && (done%every == 0 || done == *nGames):
			fmt.Fprintf(stderr, "eval: %d/%d games, A scores %.1f%%, %s elapsed\n",
				done, *nGames, 100*score/float64(done), time.Since(start).Round(time.Second))
		}
	}
	res, err := arena.Play(ctx, cfg, seeded(a), seeded(b))
	var intr *arena.Interrupted
	switch {
	case errors.As(err, &intr) && intr.Played > 0:
		// Ctrl-C: report the games played, as a shorter match.
		even := ", even"
		if colours != arena.Alternate {
			even = ""
		}
		fmt.Fprintf(stdout, "interrupted: the result covers games 0-%d of the %d requested (the longest run of finished games from game 0%s; the others were dropped)\n",
			intr.Played-1, intr.Requested, even)
	case err != nil:
		return err
	}
	if err := res.WriteText(stdout); err != nil {
		return err
	}
	reg.writeNetworkStats(stdout)
	if *jsonOut != "" {
		js, err := json.MarshalIndent(arena.NewMatchReport(a.Spec.String(), b.Spec.String(), *seed, *opening, *nGames, intr != nil, res), "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(*jsonOut, append(js, '\n'), 0o644); err != nil {
			return fmt.Errorf("-json: %w", err)
		}
	}
	if target != nil && res.Games() > 0 {
		e := res.Estimate()
		if err := target.add(neural.Evaluation{
			Opponent: b.Spec.String(), Wins: e.Wins, Draws: e.Draws, Losses: e.Losses,
			Score: e.Score, Low: e.ScoreLo, High: e.ScoreHi, Search: searchA,
			AsFirst:  newResults(res.Wins[0], res.Draws[0], res.Losses[0]),
			AsSecond: newResults(res.Wins[1], res.Draws[1], res.Losses[1]),
		}); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "added to the evaluation table of %s\n", *addTo)
	}
	if *recordOut != "" {
		lines, err := arena.GameLines(game, res.Records)
		if err != nil {
			return fmt.Errorf("-record: %w", err)
		}
		if err := atomicfile.WriteFile(*recordOut, lines, 0o644); err != nil {
			return fmt.Errorf("-record: %w", err)
		}
	}
	return nil
}

// seeded adapts a spec to the arena: the arena's per-game seed plus the
// spec's own seed= (so two specs differing only in seed play differently).
func seeded(b spec.Built) agent.Factory {
	return func(seed uint64) (agent.Agent, error) {
		a, err := b.Factory(seed + b.Seed - spec.DefaultSeed)
		if err != nil {
			return nil, fmt.Errorf("agent %s: %w", b.Spec, err)
		}
		return a, nil
	}
}

func colourName(p int) string {
	if p == 0 {
		return "first"
	}
	return "second"
}

func outcomeForA(g arena.GameRecord) string {
	switch {
	case g.Truncated:
		return "draw (move limit)"
	case g.ScoreA == 1:
		return "A won"
	case g.ScoreA == 0:
		return "B won"
	}
	return "draw"
}
