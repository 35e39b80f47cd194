// Package refbench measures an exported agent inside the course's own
// referee: it plays games of "python3 referee.py -t 60 -s 100 WHITE BLACK"
// between the agent (through its Python adapter) and opponents (zerokit's
// baselines through the same adapter, or any Player module), in parallel,
// colours alternated, and collects each game's result and the agent's
// resources as its adapter measured them (the referee itself cannot see a
// player's child process; see pyadapter/zerokit_player.py).
//
// The matches (parallel games, resumption, scores, reports) do not depend
// on the referee: a Table plays each game, by default the Python referee
// of Watch Your Back! (2018); package arena/refbench/javareferee is the
// Java referee of Squatter (2015).
package refbench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/arena/elo"
	"github.com/zerokit/zerokit/env/wyb"
)

// The Python module names the games use.
const (
	agentModule    = "zkagent"
	opponentModule = "zkopponent"
)

// Table plays one game in a course referee: the part of Run that depends
// on the referee.
type Table interface {
	// Defaults fills in the default limits of opts (TimeLimit and
	// SpaceLimit, whose meaning is the Table's).
	Defaults(opts *Options) error
	// Prepare checks and completes the Table's part of opts before the
	// first game.
	Prepare(opts *Options) error
	// Play plays game index against opp (the agent's colour is
	// opts.AgentColour(index)) in the directory gdir, which it creates,
	// removing what a stopped run left there, and returns the game.
	Play(ctx context.Context, opts *Options, gdir string, opp Opponent, index int) (Game, error)
}

// Opponent is one opponent: a zerokit agent spec played through the
// adapter, or a Python module with a Player class (or, in the Java
// referee, a Java class).
type Opponent struct {
	// Spec is a zerokit agent spec ("alphabeta:depth=3"), or "" for a
	// module.
	Spec string
	// Module is a Player module's file (x.py) or package directory, or ""
	// for a spec.
	Module string
	// ServeArgs are extra "zerokit serve" flags of a spec's adapter, e.g.
	// -game-time 55s.
	ServeArgs []string
	// NoClock lifts the CPU and memory limits of a spec's adapter: the
	// opponent may think as long as it needs, so its clock never decides
	// a game (the referee cannot see its zerokit process either). The
	// agent keeps the limits.
	NoClock bool
	// Class is a Java Player class name, for the Java referee's Table.
	Class string
	// Root, for a Python module, is a directory whose entries are linked
	// into each game's directory (a multi-file agent, which may also read
	// files relative to the working directory), and Module is then the
	// module's dotted name within it ("player", "Players.Player_MCTS");
	// for a Java class, ClassPath holds its compiled classes (added to the
	// referee's class path in its games only).
	Root, ClassPath string
	// Label, if set, names the opponent in reports.
	Label string
	// Env is added to the environment of the referee processes of the
	// opponent's games (e.g. OPENBLAS_NUM_THREADS=1 for a module that
	// imports numpy, whose threads' stacks the referee's memory count
	// would charge).
	Env []string
}

// Name labels the opponent in reports.
func (o Opponent) Name() string {
	if o.Label != "" {
		return o.Label
	}
	if o.Spec != "" {
		var notes []string
		if len(o.ServeArgs) > 0 {
			notes = append(notes, strings.Join(o.ServeArgs, " "))
		}
		if o.NoClock {
			notes = append(notes, "no clock")
		}
		if len(notes) > 0 {
			return o.Spec + " (" + strings.Join(notes, ", ") + ")"
		}
		return o.Spec
	}
	if o.Class != "" {
		return "class " + o.Class
	}
	return "module " + filepath.Base(o.Module)
}

// Options configure Run.
type Options struct {
	// Table plays the games (default Python, the referee of Watch Your
	// Back!).
	Table Table
	// Python is the interpreter (default python3) and Referee the path
	// of referee.py.
	Python, Referee string
	// Agent is the exported agent directory (see "zerokit export").
	Agent string
	// AgentSpec, when set, is the agent spec that the agent's adapter
	// runs in place of the one its configuration names (zerokit
	// refbench sets net:path=Agent for an adapter that names the binary's
	// built-in agent, which may not be Agent's).
	AgentSpec string
	// Binary is the zerokit executable of the opponents' adapters (the
	// play-only build keeps them small).
	Binary string
	// Opponents are played in turn, Games games each (even: colours
	// alternate, the agent White in the even-numbered games, unless
	// Colour says otherwise).
	Opponents []Opponent
	Games     int
	// Colour is the agent's colour: "white", "black", or "" (or "both")
	// to alternate.
	Colour string
	// MaxMovingTurns ends a Watch Your Back! game that reaches this many
	// moving turns (a locked board goes on forever in the referee); it
	// counts as unfinished. Default 1000; negative: no limit.
	MaxMovingTurns int
	// AgentOpening, when positive, makes the agent play its first
	// AgentOpening actions uniformly at random (the agent spec's
	// opening=N), seeded by the game pair (games 2k and 2k+1, the
	// colours swapped, share a seed): noise so that the games against a
	// deterministic opponent are not all one game. The agent's spec is
	// AgentSpec, else its adapter's own.
	AgentOpening int
	// AgentTemperature, when positive, replaces the random opening: the
	// agent samples each of the game's first AgentTemperatureMoves moves
	// (both sides') among its search's moves with probability
	// proportional to N^(1/AgentTemperature) of their visits (the spec's
	// temp= and tempmoves=, mcts.Settings.Temperature), seeded by the game
	// pair as the opening is: it varies its play among the moves it rates
	// nearly alike instead of playing random ones. Network agents (kind
	// net, and the shipped default) only.
	AgentTemperature      float64
	AgentTemperatureMoves int
	// Parallel is the number of referee processes at once (default 1).
	Parallel int
	// TimeLimit (CPU seconds) and SpaceLimit (MB) are the referee's -t and
	// -s, and the adapter's limits (default 60 and 100).
	TimeLimit, SpaceLimit float64
	// GameTimeout ends a game that runs longer in wall time (the referee
	// has no turn limit); such a game counts as unfinished. Default 20m.
	GameTimeout time.Duration
	// Dir is where the games' directories go (default: a new temporary
	// directory, removed afterwards).
	Dir string
	// OnGame, if set, is called after each game (serialised).
	OnGame func(Game)
	// Env is added to the environment of every referee process (e.g.
	// ZEROKIT_BIN=..., which the adapters read before their config file).
	Env []string
	// AgentID names the agent in each Match (e.g. its weights' SHA-256),
	// so that a resumed run can tell whose games a record holds.
	AgentID string
	// Done are games of an earlier run of the same matches (see
	// ResumeGames): they count in the result and are not played again.
	Done []Game
	// OnProgress, if set, is called after each game (serialised) with the
	// matches of every game so far, Done included: writing them keeps the
	// games of a run that is stopped before its end. An error stops Run.
	OnProgress func([]Match) error

	// endgame is the solved endgame of Watch Your Back!, built on first
	// use, shared by the games.
	endgame *wyb.Endgame
}

// Outcome is a game's result for the agent.
type Outcome string

// Outcomes.
const (
	Win        Outcome = "win"
	Draw       Outcome = "draw"
	Loss       Outcome = "loss"
	Unfinished Outcome = "unfinished" // the wall-time cap ended it
	Failed     Outcome = "error"      // the referee failed and the loser is unknown
)

// Game is one refereed game.
type Game struct {
	// Opponent names the opponent and Index numbers the game within its
	// match; AgentColour is "white" or "black".
	Opponent    string `json:"opponent"`
	Index       int    `json:"index"`
	AgentColour string `json:"agent_colour"`
	// Outcome is the agent's result and Reason how the game ended (the
	// referee's words).
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason"`
	// Actions is the number of actions the referee applied, and Seconds
	// the game's wall time.
	Actions int     `json:"actions"`
	Seconds float64 `json:"seconds"`
	// AgentCPU is the agent's CPU seconds (its zerokit process, all
	// threads, plus the adapter's Python time) and AgentPeakMB its peak
	// resident memory in MB, as its adapter measured them; AgentOverLimit
	// names an exceeded limit.
	AgentCPU       float64 `json:"agent_cpu_seconds"`
	AgentPeakMB    float64 `json:"agent_peak_mb"`
	AgentOverLimit string  `json:"agent_over_limit,omitempty"`
	// AgentFallbacks is the number of the agent's moves not chosen by a
	// completed search (its time ran out first), as its server reported
	// them to the adapter; absent when unknown.
	AgentFallbacks *int `json:"agent_fallback_moves,omitempty"`
	// Dir holds the game's referee output (referee.out, referee.err).
	Dir string `json:"dir,omitempty"`
	// MovesSHA256 identifies the game's sequence of moves (a digest of the
	// positions or moves the referee printed), so that identical games
	// can be counted once (Match's distinct games); "" when unknown.
	MovesSHA256 string `json:"moves_sha256,omitempty"`
	// AfterSecondShrink is the solved endgame's value, for the agent, of
	// the position right after the second shrink (moving turn 192):
	// "win", "draw" or "loss"; "" for a game that ended before it (or
	// another referee's). A win from "draw" or "loss" was the opponent's
	// mistake, or its clock.
	AfterSecondShrink string `json:"after_second_shrink,omitempty"`
	// FinalScore is a finished Squatter game's score, White's and Black's
	// captured cells, from its moves replayed on zerokit's board; nil for
	// other games. A game that ends 0-0 closed no territory at all.
	FinalScore *[2]int `json:"final_score,omitempty"`
}

// ZeroZero reports whether g is a Squatter game that ended with no
// territory captured by either side.
func (g Game) ZeroZero() bool {
	return g.FinalScore != nil && g.FinalScore[0] == 0 && g.FinalScore[1] == 0
}

// MovingTurns is the number of moving turns a Watch Your Back! game
// played (its actions after the 24 placing turns).
func (g Game) MovingTurns() int { return max(0, g.Actions-24) }

// LostAtShrink reports whether the agent lost a Watch Your Back! game
// within 8 moving turns of a shrink (moving turns 128 and 192), where
// the board's edge takes pieces and new corners capture.
func (g Game) LostAtShrink() bool {
	t := g.MovingTurns()
	return g.Outcome == Loss && g.Actions > 24 && ((t >= 128 && t < 136) || (t >= 192 && t < 200))
}

// WonUndeserved reports whether the agent won a game whose position after
// the second shrink the solved endgame calls a draw or a loss for it.
func (g Game) WonUndeserved() bool {
	return g.Outcome == Win && (g.AfterSecondShrink == "draw" || g.AfterSecondShrink == "loss")
}

// Match summarises the games against one opponent.
type Match struct {
	Opponent string `json:"opponent"`
	// Agent is Options.AgentID, and TimeLimit and SpaceLimit the
	// referee's -t and -s of the games.
	Agent      string  `json:"agent,omitempty"`
	TimeLimit  float64 `json:"time_limit,omitempty"`
	SpaceLimit float64 `json:"space_limit,omitempty"`
	// All, AsWhite and AsBlack count the finished games.
	All     Score `json:"all"`
	AsWhite Score `json:"as_white"`
	AsBlack Score `json:"as_black"`
	// Unfinished and Failed count the games left out of the score.
	Unfinished int `json:"unfinished"`
	Failed     int `json:"failed"`
	// UnfinishedAsDraws is the score with the unfinished games counted
	// as draws: in Watch Your Back! they are the endgames neither side
	// could win, held until the cap (MaxMovingTurns), which under the
	// referee's rules only a player's clock would end. It is the fairer
	// headline where an opponent's clock does not run out.
	UnfinishedAsDraws Score `json:"unfinished_as_draws"`
	// WinsFromDrawn counts the wins from a position the solved endgame
	// calls drawn or lost after the second shrink (Game.WonUndeserved),
	// LostAtShrink the losses within 8 moving turns of a shrink, and
	// MaxMovingTurns is the most moving turns of a game.
	WinsFromDrawn  int `json:"wins_from_drawn"`
	LostAtShrink   int `json:"lost_at_shrink"`
	MaxMovingTurns int `json:"max_moving_turns"`
	// MaxCPU and MeanCPU are the agent's CPU seconds per game, MaxPeakMB
	// its largest peak memory.
	MaxCPU    float64 `json:"max_cpu_seconds"`
	MeanCPU   float64 `json:"mean_cpu_seconds"`
	MaxPeakMB float64 `json:"max_peak_mb"`
	// DistinctAsWhite and DistinctAsBlack count the distinct games
	// (move sequences, Game.MovesSHA256) the agent played with each
	// colour; games without a digest count once each.
	DistinctAsWhite int    `json:"distinct_as_white"`
	DistinctAsBlack int    `json:"distinct_as_black"`
	Games           []Game `json:"games"`
}

// Score is the agent's results over some games: (wins + draws/2) / games
// with its 95% Wilson interval (0 in [0, 1] without games).
type Score struct {
	Wins   int     `json:"wins"`
	Draws  int     `json:"draws"`
	Losses int     `json:"losses"`
	Score  float64 `json:"score"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
}

// newScore scores the results of k: wins, draws, losses.
func newScore(k [3]int) Score {
	e := elo.Estimate95(k[0], k[1], k[2])
	s := Score{Wins: k[0], Draws: k[1], Losses: k[2], Low: e.ScoreLo, High: e.ScoreHi}
	if e.Games() > 0 {
		s.Score = e.Score
	}
	return s
}

// Run plays the games and returns a Match per opponent.
func Run(ctx context.Context, opts Options) ([]Match, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	dir := opts.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "zerokit-refbench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	type job struct{ opp, index int }
	jobs := make(chan job)
	results := make([][]Game, len(opts.Opponents))
	for i := range results {
		results[i] = make([]Game, opts.Games)
	}
	if err := opts.placeDone(results); err != nil {
		return nil, err
	}
	progress := func() []Match {
		matches := make([]Match, len(opts.Opponents))
		for o, opp := range opts.Opponents {
			matches[o] = opts.summarise(opp.Name(), results[o])
		}
		return matches
	}
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range opts.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				gdir := filepath.Join(dir, fmt.Sprintf("opp%d-game%03d", j.opp, j.index))
				g, err := opts.table().Play(ctx, &opts, gdir, opts.Opponents[j.opp], j.index)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
					cancel()
				}
				if err == nil {
					if opts.Dir != "" {
						g.Dir = gdir
					}
					results[j.opp][j.index] = g
					if opts.OnGame != nil {
						opts.OnGame(g)
					}
					if opts.OnProgress != nil {
						if err := opts.OnProgress(progress()); err != nil && firstErr == nil {
							firstErr = err
							cancel()
						}
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for o := range opts.Opponents {
		for i := range opts.Games {
			if results[o][i].Outcome != "" {
				continue // played in an earlier run
			}
			select {
			case jobs <- job{o, i}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return progress(), nil
}

// placeDone puts opts.Done into results, checking that each game belongs
// to one of the matches and is there once.
func (o *Options) placeDone(results [][]Game) error {
	index := make(map[string]int, len(o.Opponents))
	for i, opp := range o.Opponents {
		index[opp.Name()] = i
	}
	for _, g := range o.Done {
		i, ok := index[g.Opponent]
		switch {
		case !ok:
			return fmt.Errorf("refbench: earlier game %d against %q: not an opponent of this run", g.Index, g.Opponent)
		case g.Index < 0 || g.Index >= o.Games:
			return fmt.Errorf("refbench: earlier game %d against %s: outside this run's %d games", g.Index, g.Opponent, o.Games)
		case !validOutcome(g.Outcome):
			return fmt.Errorf("refbench: earlier game %d against %s: outcome %q", g.Index, g.Opponent, g.Outcome)
		case results[i][g.Index].Outcome != "":
			return fmt.Errorf("refbench: earlier game %d against %s: given twice", g.Index, g.Opponent)
		case g.AgentColour != o.AgentColour(g.Index):
			return fmt.Errorf("refbench: earlier game %d against %s: the agent played %s, this run gives it %s", g.Index, g.Opponent, g.AgentColour, o.AgentColour(g.Index))
		}
		results[i][g.Index] = g
	}
	return nil
}

// validOutcome reports whether k is one of the Outcome constants.
func validOutcome(k Outcome) bool {
	switch k {
	case Win, Draw, Loss, Unfinished, Failed:
		return true
	}
	return false
}

// ResumeGames returns the games of an earlier run's matches (as Run
// returned them or OnProgress received them) for Options.Done, after
// checking that they were played by the same agent (Options.AgentID) under
// the same limits: the games of another agent or other limits would not
// measure this one. Call it after setting opts' limits.
func ResumeGames(prev []Match, opts Options) ([]Game, error) {
	if err := opts.table().Defaults(&opts); err != nil {
		return nil, err
	}
	var games []Game
	for _, m := range prev {
		switch {
		case m.Agent != opts.AgentID:
			return nil, fmt.Errorf("refbench: the earlier games against %s are of agent %q, not %q", m.Opponent, m.Agent, opts.AgentID)
		case m.TimeLimit != opts.TimeLimit || m.SpaceLimit != opts.SpaceLimit:
			return nil, fmt.Errorf("refbench: the earlier games against %s were played with -t %g -s %g, not -t %g -s %g",
				m.Opponent, m.TimeLimit, m.SpaceLimit, opts.TimeLimit, opts.SpaceLimit)
		}
		for _, g := range m.Games {
			if g.Opponent != m.Opponent {
				return nil, fmt.Errorf("refbench: earlier game %d: opponent %q in the match against %q", g.Index, g.Opponent, m.Opponent)
			}
			games = append(games, g)
		}
	}
	return games, nil
}

// AgentColour is the agent's colour in game index: Colour, or White in
// the even-numbered games and Black in the others.
func (o *Options) AgentColour(index int) string {
	switch o.Colour {
	case "white", "black":
		return o.Colour
	}
	if index%2 == 1 {
		return "black"
	}
	return "white"
}

// table is o.Table, or Python.
func (o *Options) table() Table {
	if o.Table == nil {
		return Python{}
	}
	return o.Table
}

// defaults fills in the Python referee's limits' defaults.
func (o *Options) defaults() error {
	if o.TimeLimit == 0 {
		o.TimeLimit = 60
	}
	if o.SpaceLimit == 0 {
		o.SpaceLimit = 100
	}
	if o.TimeLimit < 0 || o.SpaceLimit < 0 {
		return errors.New("refbench: negative limits")
	}
	return nil
}

// check checks opts and fills in the defaults, the Table's last.
func (o *Options) check() error {
	if err := o.table().Defaults(o); err != nil {
		return err
	}
	if o.GameTimeout == 0 {
		o.GameTimeout = 20 * time.Minute
	}
	if o.Parallel == 0 {
		o.Parallel = 1
	}
	if o.MaxMovingTurns == 0 {
		o.MaxMovingTurns = 1000
	}
	if o.endgame == nil {
		o.endgame = wyb.NewEndgame()
	}
	switch {
	case o.Colour != "" && o.Colour != "both" && o.Colour != "white" && o.Colour != "black":
		return fmt.Errorf("refbench: agent colour %q: want white, black or both", o.Colour)
	case o.Agent == "":
		return errors.New("refbench: no agent directory given")
	case len(o.Opponents) == 0:
		return errors.New("refbench: no opponents given")
	case o.Games < 1:
		return fmt.Errorf("refbench: %d games per opponent, want at least 1", o.Games)
	case o.Parallel < 1:
		return fmt.Errorf("refbench: parallel %d, want at least 1", o.Parallel)
	case o.AgentOpening < 0:
		return fmt.Errorf("refbench: agent opening of %d actions, want 0 or more", o.AgentOpening)
	case o.AgentTemperature < 0 || (o.AgentTemperature > 0 && o.AgentTemperatureMoves < 1):
		return fmt.Errorf("refbench: agent temperature %g for %d moves: want a temperature >= 0 and, with one, at least 1 move", o.AgentTemperature, o.AgentTemperatureMoves)
	}
	if o.Dir != "" {
		// Each game runs in its own directory: a relative path would name
		// another one there (and each game's PYTHONPATH names its
		// directory).
		dir, err := filepath.Abs(o.Dir)
		if err != nil {
			return fmt.Errorf("refbench: games directory %s: %w", o.Dir, err)
		}
		o.Dir = dir
	}
	return o.table().Prepare(o)
}

// RunReferee runs a game's referee process cmd (a command with a context)
// with its stdout and stderr written to referee.out and referee.err in
// cmd.Dir, sets g.Seconds to its wall time, and returns both texts and the
// process's error (runErr). err reports a failure to set up or read back
// the files, or the cancellation of ctx (the run's, not the game's).
func RunReferee(ctx context.Context, cmd *exec.Cmd, g *Game) (out, errText string, runErr, err error) {
	return runReferee(ctx, cmd, g, nil)
}

// runReferee is RunReferee with the referee's output also passed to
// watch, if not nil.
func runReferee(ctx context.Context, cmd *exec.Cmd, g *Game, watch *turnWatch) (out, errText string, runErr, err error) {
	stdout, err := os.Create(filepath.Join(cmd.Dir, "referee.out"))
	if err != nil {
		return "", "", nil, err
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(cmd.Dir, "referee.err"))
	if err != nil {
		return "", "", nil, err
	}
	defer stderr.Close()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if watch != nil {
		cmd.Stdout = io.MultiWriter(stdout, watch)
	}
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	runErr = cmd.Run()
	g.Seconds = time.Since(start).Seconds()
	if ctx.Err() != nil {
		return "", "", nil, ctx.Err()
	}
	o, err := os.ReadFile(stdout.Name())
	if err != nil {
		return "", "", nil, err
	}
	e, err := os.ReadFile(stderr.Name())
	if err != nil {
		return "", "", nil, err
	}
	return string(o), string(e), runErr, nil
}

// outcome is the agent's result of a game that the referee ended with
// winner ("W", "B", "draw" or "" when unknown) after actions actions for
// reason, the agent playing agentColour; timedOut says the wall-time cap
// ended it.
func outcome(winner string, actions int, reason, agentColour string, timedOut bool) Outcome {
	switch {
	case timedOut:
		return Unfinished
	case winner == "draw":
		return Draw
	case winner == "" || (actions == 0 && strings.Contains(reason, "player failed")):
		// No result, or a player that could not even start: a broken
		// set-up (a bad opponent spec, say), not a game.
		return Failed
	case (winner == "W") == (agentColour == "white"):
		return Win
	}
	return Loss
}

// GameSpec is the opponent spec of game index: spec with seed=index+1
// unless it names a seed, so that a baseline that orders equal moves by its
// seed (alpha-beta) plays different games (the referee has no random
// openings).
func GameSpec(text string, index int) string {
	sp, err := spec.Parse(text)
	if err != nil {
		return text // zerokit serve reports the error
	}
	if _, ok := sp.Lookup(spec.SeedKey); ok {
		return text
	}
	sp.Params = append(sp.Params, spec.Param{Key: spec.SeedKey, Value: fmt.Sprint(index + 1)})
	return sp.String()
}

// summarise totals one opponent's games: those of slots with an outcome.
func (o *Options) summarise(name string, slots []Game) Match {
	m := Match{Opponent: name, Agent: o.AgentID, TimeLimit: o.TimeLimit, SpaceLimit: o.SpaceLimit, Games: []Game{}}
	var all, white, black [3]int
	var cpu float64
	n := 0
	for _, g := range slots {
		if g.Outcome == "" {
			continue // not played (yet)
		}
		m.Games = append(m.Games, g)
		k := -1
		switch g.Outcome {
		case Win:
			k = 0
		case Draw:
			k = 1
		case Loss:
			k = 2
		case Unfinished:
			m.Unfinished++
		case Failed:
			m.Failed++
		}
		if k >= 0 {
			all[k]++
			if g.AgentColour == "white" {
				white[k]++
			} else {
				black[k]++
			}
		}
		if g.WonUndeserved() {
			m.WinsFromDrawn++
		}
		if g.LostAtShrink() {
			m.LostAtShrink++
		}
		m.MaxMovingTurns = max(m.MaxMovingTurns, g.MovingTurns())
		cpu += g.AgentCPU
		n++
		m.MaxCPU = max(m.MaxCPU, g.AgentCPU)
		m.MaxPeakMB = max(m.MaxPeakMB, g.AgentPeakMB)
	}
	if n > 0 {
		m.MeanCPU = cpu / float64(n)
	}
	m.DistinctAsWhite, m.DistinctAsBlack = Distinct(m.Games, "white"), Distinct(m.Games, "black")
	m.All, m.AsWhite, m.AsBlack = newScore(all), newScore(white), newScore(black)
	m.UnfinishedAsDraws = newScore([3]int{all[0], all[1] + m.Unfinished, all[2]})
	return m
}

// GameAgentSpec is the agent spec of game index given its spec base (the
// adapter's own when base is ""; "" stays "" without noise): with
// AgentTemperature, base with temp=AgentTemperature and
// tempmoves=AgentTemperatureMoves, else with AgentOpening, base with
// opening=AgentOpening; either with the seed of the game's pair, index/2 +
// 1 (the colours alternate, and a colour-swapped pair shares its noise),
// or index + 1 when Colour fixes the agent's colour (game k of one colour
// has the noise of that colour's game in pair k of an alternating run).
func (o *Options) GameAgentSpec(base string, index int) (string, error) {
	var noise []spec.Param
	switch {
	case o.AgentTemperature > 0:
		noise = []spec.Param{{Key: "temp", Value: fmt.Sprint(o.AgentTemperature)}, {Key: "tempmoves", Value: fmt.Sprint(o.AgentTemperatureMoves)}}
	case o.AgentOpening > 0:
		noise = []spec.Param{{Key: spec.OpeningKey, Value: fmt.Sprint(o.AgentOpening)}}
	default:
		return base, nil
	}
	if strings.TrimSpace(base) == "" {
		return "", errors.New("refbench: a varied opening needs the agent's spec")
	}
	sp, err := spec.Parse(base)
	if err != nil {
		return "", fmt.Errorf("refbench: the agent's spec: %w", err)
	}
	var params []spec.Param
	for _, p := range sp.Params {
		switch p.Key {
		case spec.SeedKey, spec.OpeningKey, "temp", "tempmoves":
		default:
			params = append(params, p)
		}
	}
	seed := index/2 + 1
	if o.Colour == "white" || o.Colour == "black" {
		seed = index + 1
	}
	sp.Params = append(append(params, noise...), spec.Param{Key: spec.SeedKey, Value: fmt.Sprint(seed)})
	return sp.String(), nil
}

// WriteText writes the matches as a table, then one line per game.
func WriteText(w io.Writer, matches []Match) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "| opponent | W-D-L | score, 95% CI | as White | as Black | unfinished / failed | score, unfinished as draws | agent CPU s per game (mean / max) | agent peak MB (max) |"+
		" wins from drawn or lost after the 2nd shrink | lost at a shrink | most moving turns |")
	fmt.Fprintln(bw, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, m := range matches {
		e, u := m.All, m.UnfinishedAsDraws
		fmt.Fprintf(bw, "| %s | %d-%d-%d | %.3f [%.3f, %.3f] | %d-%d-%d | %d-%d-%d | %d / %d | %.3f [%.3f, %.3f] | %.1f / %.1f | %.1f | %d | %d | %d |\n",
			m.Opponent, e.Wins, e.Draws, e.Losses, e.Score, e.Low, e.High,
			m.AsWhite.Wins, m.AsWhite.Draws, m.AsWhite.Losses, m.AsBlack.Wins, m.AsBlack.Draws, m.AsBlack.Losses,
			m.Unfinished, m.Failed, u.Score, u.Low, u.High, m.MeanCPU, m.MaxCPU, m.MaxPeakMB, m.WinsFromDrawn, m.LostAtShrink, m.MaxMovingTurns)
	}
	fmt.Fprintln(bw)
	for _, m := range matches {
		for _, g := range m.Games {
			var notes string
			if g.AfterSecondShrink != "" {
				notes += ", the table's " + g.AfterSecondShrink + " after the 2nd shrink"
			}
			if g.LostAtShrink() {
				notes += ", LOST AT A SHRINK"
			}
			if g.AgentOverLimit != "" {
				notes += ", OVER LIMIT: " + g.AgentOverLimit
			}
			if g.AgentFallbacks != nil && *g.AgentFallbacks > 0 {
				notes += fmt.Sprintf(", %d fallback moves", *g.AgentFallbacks)
			}
			fmt.Fprintf(bw, "%s game %d: agent %s, %s after %d actions (%s); agent %.2f s CPU, %.1f MB peak, %.0f s wall%s\n",
				m.Opponent, g.Index, g.AgentColour, g.Outcome, g.Actions, g.Reason, g.AgentCPU, g.AgentPeakMB, g.Seconds, notes)
		}
	}
	return bw.Flush()
}
