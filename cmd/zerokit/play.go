package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env/wyb"
)

const playUsage = `usage: zerokit play [flags]

Play Watch Your Back! against an agent in the terminal, with the official
referee's rules (no turn limit unless -turn-limit). The board is drawn with
column numbers across and row numbers down; a square is (column, row), as
in the referee. Type

  3 4   or 3,4           place a piece on column 3, row 4
  3,4 3,5   or 3,4-3,5   move (or jump) the piece on (3, 4) to (3, 5)
  pass                   forfeit, only when you have no move
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
	agentSpec := fs.String("agent", "alphabeta:time=1s", "the opponent's agent spec (see above)")
	colour := fs.String("colour", "white", "your colour: white (moves first) or black")
	moveTime := fs.Duration("move-time", 5*time.Second, "cap on the agent's thinking time per move (0: none)")
	turnLimit := fs.Int("turn-limit", 0, "end the game after this many moving-phase turns, the side with more pieces winning (0: never, as the referee)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	human := -1
	switch strings.ToLower(*colour) {
	case "white", "w":
		human = wyb.WhitePlayer
	case "black", "b":
		human = wyb.BlackPlayer
	default:
		return fmt.Errorf("-colour %q: want white or black", *colour)
	}
	if *moveTime < 0 || *turnLimit < 0 {
		return errors.New("-move-time and -turn-limit must not be negative")
	}
	game := wyb.New(wyb.Options{TurnLimit: *turnLimit})
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
		ctx: ctx, out: stdout, state: game.NewState(), human: human, bot: bot,
		moveTime: *moveTime, lines: lines, inErr: inErr,
	}
	return p.run()
}

// playSession is one game between a person and an agent.
type playSession struct {
	ctx      context.Context
	out      io.Writer
	state    *wyb.State
	human    int
	bot      agent.Agent
	moveTime time.Duration
	lines    <-chan string
	inErr    <-chan error
	last     string // the previous action, described
}

func (p *playSession) name(player int) string {
	c := "White (O)"
	if player == wyb.BlackPlayer {
		c = "Black (@)"
	}
	if player == p.human {
		return c + ", you"
	}
	return c + ", " + p.bot.Name()
}

func (p *playSession) run() error {
	fmt.Fprintf(p.out, "Watch Your Back! You play %s against %s. Type help for your moves.\n",
		p.name(p.human), p.bot.Name())
	for !p.state.IsTerminal() {
		fmt.Fprint(p.out, "\n"+drawBoard(p.state))
		if p.last != "" {
			fmt.Fprintln(p.out, p.last)
		}
		fmt.Fprintln(p.out, status(p.state, p.name))
		mover := p.state.CurrentPlayer()
		var a int
		var err error
		if mover == p.human {
			if p.state.NumLegal() == 1 && p.state.IsLegal(wyb.PassAction) {
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
			return fmt.Errorf("applying %s: %w", wyb.FormatAction(a), err)
		}
	}
	fmt.Fprint(p.out, "\n"+drawBoard(p.state))
	if p.last != "" {
		fmt.Fprintln(p.out, p.last)
	}
	fmt.Fprintln(p.out, "Game over: "+result(p.state, p.human))
	return nil
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
			fmt.Fprintln(p.out, legalList(p.state))
			continue
		case "quit", "exit", "resign":
			return 0, errResign
		}
		a, err := parseHumanAction(p.state, line)
		if err != nil {
			fmt.Fprintf(p.out, "Not a legal move: %v. Type help for your moves.\n", err)
			continue
		}
		p.last = fmt.Sprintf("%s played %s.", p.name(p.human), wyb.FormatAction(a))
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
		return 0, fmt.Errorf("agent %s chose the illegal action %s", p.bot.Name(), wyb.FormatAction(a))
	}
	p.last = fmt.Sprintf("%s played %s (%.2f s).", p.name(1-p.human), wyb.FormatAction(a), time.Since(start).Seconds())
	return a, nil
}

// parseHumanAction reads "3 4", "3,4", "(3, 4)" (place), "3,4 3,5",
// "3,4-3,5", "3 4 3 5" (move) or "pass", and validates it against s with
// the referee's checks, whose reason the error gives.
func parseHumanAction(s *wyb.State, line string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(line))
	if t == "pass" || t == "forfeit" {
		return s.RefereeAction([]byte("null"))
	}
	var nums []int
	prev := byte(' ') // previous non-blank character
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c >= '0' && c <= '9':
			n := 0
			for ; i < len(t) && t[i] >= '0' && t[i] <= '9'; i++ {
				if n < 1000 {
					n = n*10 + int(t[i]-'0')
				}
			}
			i--
			nums = append(nums, n)
			prev = '0'
		case c == '-' && i+1 < len(t) && t[i+1] >= '0' && t[i+1] <= '9' && prev != '0' && prev != ')' && prev != ']':
			return 0, errors.New("coordinates are 0 to 7, not negative")
		case strings.IndexByte(" \t,()[]->", c) >= 0:
			if c != ' ' && c != '\t' {
				prev = c
			}
		default:
			return 0, fmt.Errorf("unexpected %q: write x y to place, xa,ya xb,yb to move, or pass", t[i:i+1])
		}
	}
	var ref string
	switch len(nums) {
	case 2:
		ref = fmt.Sprintf("[%d, %d]", nums[0], nums[1])
	case 4:
		ref = fmt.Sprintf("[[%d, %d], [%d, %d]]", nums[0], nums[1], nums[2], nums[3])
	default:
		return 0, fmt.Errorf("%d numbers: write x y to place, xa,ya xb,yb to move, or pass", len(nums))
	}
	return s.RefereeAction([]byte(ref))
}

// drawBoard draws s with column numbers across and row numbers down:
// O White, @ Black, X corner, . empty, blank for squares removed by
// shrinking.
func drawBoard(s *wyb.State) string {
	var sb strings.Builder
	sb.WriteString("     0 1 2 3 4 5 6 7\n")
	sb.WriteString("   +-----------------+\n")
	for y := 0; y < wyb.Size; y++ {
		fmt.Fprintf(&sb, " %d | ", y)
		for x := 0; x < wyb.Size; x++ {
			sb.WriteByte(".O@X "[s.At(x, y)])
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "| %d\n", y)
	}
	sb.WriteString("   +-----------------+\n")
	sb.WriteString("     0 1 2 3 4 5 6 7\n")
	return sb.String()
}

// status describes the phase, the counters and who is to move.
func status(s *wyb.State, name func(int) string) string {
	var sb strings.Builder
	if s.Phase() == wyb.Placing {
		fmt.Fprintf(&sb, "Placing phase, turn %d of %d.\n", s.Turn()+1, wyb.PlacingTurns)
	} else {
		fmt.Fprintf(&sb, "Moving phase, turn %d", s.Turn()+1)
		if n := s.TurnsToShrink(); n > 0 {
			fmt.Fprintf(&sb, "; the board shrinks in %d turns", n)
		}
		if l := s.TurnLimit(); l > 0 {
			fmt.Fprintf(&sb, "; the game ends after turn %d", l)
		}
		sb.WriteString(".\n")
	}
	for p := 0; p < 2; p++ {
		fmt.Fprintf(&sb, "  %s: %d on the board", name(p), s.Pieces(p))
		if s.Phase() == wyb.Placing {
			fmt.Fprintf(&sb, ", %d to place", s.ToPlace(p))
		}
		sb.WriteString("\n")
	}
	if !s.IsTerminal() {
		fmt.Fprintf(&sb, "%s to move.", name(s.CurrentPlayer()))
	}
	return sb.String()
}

// legalList lists the legal actions of the player to move.
func legalList(s *wyb.State) string {
	legal := s.LegalActions(nil)
	if len(legal) == 1 && legal[0] == wyb.PassAction {
		return "You have no move: type pass."
	}
	parts := make([]string, len(legal))
	for i, a := range legal {
		parts[i] = wyb.FormatAction(a)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d legal moves:", len(legal))
	for i, p := range parts {
		if i%10 == 0 {
			sb.WriteString("\n  ")
		} else {
			sb.WriteByte(' ')
		}
		sb.WriteString(p)
	}
	return sb.String()
}

// result describes the end of the game for the person playing human.
func result(s *wyb.State, human int) string {
	r := s.Returns()[human]
	pieces := fmt.Sprintf("(White %d, Black %d pieces)", s.Pieces(wyb.WhitePlayer), s.Pieces(wyb.BlackPlayer))
	switch {
	case r > 0:
		return "you win! " + pieces
	case r < 0:
		return "you lose. " + pieces
	}
	return "draw. " + pieces
}
