package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

const playUsage = `usage: zerokit play [flags]

Play a game against an agent in the terminal.

Watch Your Back! (-game wyb, the default) follows the official referee's
rules (no turn limit unless -turn-limit). The board is drawn with column
numbers across and row numbers down; a square is (column, row), as in the
referee. Type

  3 4   or 3,4           place a piece on column 3, row 4
  3,4 3,5   or 3,4-3,5   move (or jump) the piece on (3, 4) to (3, 5)
  pass                   forfeit, only when you have no move

Squatter (-game squatter for 6x6, squatterN for N x N; Black moves first)
is drawn the same way, with territory owners in lower case; type x,y (or
x y) to place on column x, row y.

In every game:

  help                   list your legal moves
  quit                   resign and leave

Agent specs (-agent):
`

// runPlay implements "zerokit play".
func runPlay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	reg, err := newAgents(1)
	if err != nil {
		return err
	}
	defer reg.Close()
	fs := newFlagSet("play", withSpecHelp(playUsage, reg.Help()), stderr)
	gameName := fs.String("game", defaultGame(isTextUI), "game, one with a terminal notation: "+games.Help(isTextUI))
	agentSpec := fs.String("agent", DefaultAgentKind, "the opponent's agent spec (see above; default: the trained agent that ships for the game)")
	runDir := fs.String("run", "", "play the agent of this training run `directory` (net:path=DIR) instead of -agent")
	colour := fs.String("colour", "", "your colour: white or black (Watch Your Back!: white moves first; Squatter: black moves first), or first or second (default: the first mover's)")
	moveTime := fs.Duration("move-time", 5*time.Second, "cap on the agent's thinking time per move (0: none)")
	turnLimit := fs.Int("turn-limit", 0, "the game's turn_limit parameter (Watch Your Back!: after this many moving-phase turns the side with more pieces wins; 0: never, as the referee); -game wyb plays with 0 unless given")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *moveTime < 0 || *turnLimit < 0 {
		return errors.New("-move-time and -turn-limit must not be negative")
	}
	game, err := playGame(strings.ToLower(*gameName), *turnLimit)
	if err != nil {
		return err
	}
	ui, ok := game.(env.TextUI)
	if !ok {
		return fmt.Errorf("-game %q: %s has no terminal notation", *gameName, game.Name())
	}
	human, err := ui.Player(strings.ToLower(*colour))
	if err != nil {
		return fmt.Errorf("-colour %q: %w", *colour, err)
	}
	if *runDir != "" {
		if isFlagSet(fs, "agent") {
			return errors.New("-run and -agent both name the opponent: give one")
		}
		*agentSpec = neural.KindName + ":path=" + *runDir
	}
	built, err := reg.Build(game, *agentSpec)
	if err != nil {
		return err
	}
	bot, err := built.NewAgent(0)
	if err != nil {
		return err
	}
	lines := make(chan string)
	inErr := make(chan error, 1)
	done := make(chan struct{})
	defer close(done)
	go func() {
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-done:
				return
			}
		}
		inErr <- sc.Err()
		close(lines)
	}()
	p := &playSession{
		ctx: ctx, out: stdout, ui: ui, state: game.NewInitialState(), human: human, bot: bot,
		moveTime: *moveTime, lines: lines, inErr: inErr,
	}
	return p.run()
}

// playGame builds the game -game names for a person to play. A family's
// bare name whose game has a turn_limit parameter ("wyb") plays with
// -turn-limit's value, 0 unless given, as the referee does; another name
// is the game it names, its turn_limit set by -turn-limit if given.
func playGame(name string, turnLimit int) (env.Game, error) {
	cfg, err := games.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("-game: %w", err)
	}
	if name == cfg.Name || turnLimit != 0 {
		c, err := cfg.With("turn_limit", turnLimit)
		switch {
		case err == nil:
			cfg = c
		case turnLimit != 0:
			return nil, fmt.Errorf("-turn-limit: %w", err)
		}
	}
	return games.New(cfg)
}

// isTextUI reports whether a person can play g in a terminal (env.TextUI).
func isTextUI(g env.Game) bool {
	_, ok := g.(env.TextUI)
	return ok
}

// playSession is one game between a person and an agent.
type playSession struct {
	ctx      context.Context
	out      io.Writer
	ui       env.TextUI
	state    env.State
	human    int
	bot      agent.Agent
	moveTime time.Duration
	lines    <-chan string
	inErr    <-chan error
	last     string // the previous action, described
}

func (p *playSession) name(player int) string {
	c := p.ui.Colour(player)
	if player == p.human {
		return c + ", you"
	}
	return c + ", " + p.bot.Name()
}

func (p *playSession) run() error {
	fmt.Fprintf(p.out, "%s You play %s against %s. Type help for your moves.\n",
		p.ui.Title(), p.name(p.human), p.bot.Name())
	for !p.state.IsTerminal() {
		fmt.Fprint(p.out, "\n"+p.ui.Board(p.state))
		if p.last != "" {
			fmt.Fprintln(p.out, p.last)
		}
		fmt.Fprintln(p.out, p.status())
		mover := p.state.CurrentPlayer()
		var a int
		var err error
		if mover == p.human {
			if p.ui.MustPass(p.state) {
				fmt.Fprintln(p.out, "You have no legal move: type pass.")
			}
			a, err = p.ask()
			switch {
			case errors.Is(err, errResign):
				fmt.Fprintf(p.out, "You resign. %s wins.\n", p.name(1-p.human))
				return nil
			case errors.Is(err, errInputEnded):
				fmt.Fprintln(p.out, "Input ended: game abandoned.")
				return nil
			}
		} else {
			a, err = p.think()
		}
		if err != nil {
			return err
		}
		if err := p.state.ApplyAction(a); err != nil {
			return fmt.Errorf("applying %s: %w", p.ui.FormatMove(p.state, a), err)
		}
	}
	fmt.Fprint(p.out, "\n"+p.ui.Board(p.state))
	if p.last != "" {
		fmt.Fprintln(p.out, p.last)
	}
	fmt.Fprintln(p.out, "Game over: "+result(p.state, p.human)+p.ui.Outcome(p.state))
	return nil
}

// status is the game's status lines and who is to move.
func (p *playSession) status() string {
	st := p.ui.Status(p.state, p.name)
	if !p.state.IsTerminal() {
		st += fmt.Sprintf("%s to move.", p.name(p.state.CurrentPlayer()))
	}
	return st
}

// Ways a person leaves a game early.
var (
	errResign     = errors.New("resigned")
	errInputEnded = errors.New("input ended")
)

// ask reads the person's action until it is legal.
func (p *playSession) ask() (int, error) {
	for {
		fmt.Fprint(p.out, "your move> ")
		var line string
		var ok bool
		select {
		case <-p.ctx.Done():
			return 0, p.ctx.Err()
		case line, ok = <-p.lines:
		}
		if !ok {
			fmt.Fprintln(p.out)
			if err := <-p.inErr; err != nil {
				return 0, fmt.Errorf("reading your move: %w", err)
			}
			return 0, errInputEnded
		}
		cmd := strings.ToLower(strings.TrimSpace(line))
		switch cmd {
		case "":
			continue
		case "help", "?", "moves":
			fmt.Fprintln(p.out, legalList(p.ui, p.state))
			continue
		case "quit", "exit", "resign":
			return 0, errResign
		}
		a, err := p.ui.ParseMove(p.state, line)
		if err != nil {
			fmt.Fprintf(p.out, "Not a legal move: %v. Type help for your moves.\n", err)
			continue
		}
		p.last = fmt.Sprintf("%s played %s.", p.name(p.human), p.ui.FormatMove(p.state, a))
		return a, nil
	}
}

// think lets the agent choose within the move time.
func (p *playSession) think() (int, error) {
	fmt.Fprintf(p.out, "%s is thinking...\n", p.bot.Name())
	ctx := p.ctx
	if p.moveTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.moveTime)
		defer cancel()
	}
	start := time.Now()
	a, err := p.bot.Act(ctx, p.state.Clone())
	if err != nil {
		return 0, fmt.Errorf("agent %s: %w", p.bot.Name(), err)
	}
	if !p.state.IsLegal(a) {
		return 0, fmt.Errorf("agent %s chose the illegal action %s", p.bot.Name(), p.ui.FormatMove(p.state, a))
	}
	p.last = fmt.Sprintf("%s played %s (%.2f s).", p.name(1-p.human), p.ui.FormatMove(p.state, a), time.Since(start).Seconds())
	return a, nil
}

// legalList lists the legal actions of the player to move.
func legalList(ui env.TextUI, s env.State) string {
	if ui.MustPass(s) {
		return "You have no move: type pass."
	}
	legal := s.LegalActions(nil)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d legal moves:", len(legal))
	for i, a := range legal {
		if i%10 == 0 {
			sb.WriteString("\n  ")
		} else {
			sb.WriteByte(' ')
		}
		sb.WriteString(ui.FormatMove(s, a))
	}
	return sb.String()
}

// result describes the end of the game for the person playing human.
func result(s env.State, human int) string {
	switch r := s.Returns()[human]; {
	case r > 0:
		return "you win!"
	case r < 0:
		return "you lose."
	}
	return "draw."
}
