// Package javareferee plays refbench's games (package arena/refbench) in the
// Squatter course referee of 2015, the Java program
// "java aiproj.squatter.Referee N WhiteClass BlackClass": the exported
// agent as zerokit.ZerokitPlayer (its own jar or sources and its
// zerokit_player.properties), zerokit's baselines as
// zerokit.ZerokitOpponent configured by system properties, or any Player
// class.
package javareferee

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/zerokit/zerokit/arena/refbench"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/javaadapter"
)

// Table is the refbench.Table of the Java referee. Build it with New.
type Table struct {
	// N is the board size.
	N int
	// Java is the java executable (default java).
	Java string
	// classPath is the course's classes, the agent's player classes and
	// ExtraClassPath.
	classPath string
	// config is the agent's zerokit_player.properties.
	config string
}

var _ refbench.Table = (*Table)(nil)

// Config is what New needs.
type Config struct {
	// N is the board size, 6 <= N <= 13 (zerokit's Squatter).
	N int
	// Course is the directory of the course's package (holding
	// aiproj/squatter/*.java) and Agent the exported agent directory, with
	// its Java player (zerokit-player.jar, else its .java sources).
	Course, Agent string
	// BuildDir receives the compiled classes (it must exist and outlive
	// the Table).
	BuildDir string
	// Java and Javac are the executables (default java and javac).
	Java, Javac string
	// ExtraClassPath is added to the class path, for opponents' classes.
	ExtraClassPath string
}

// New compiles the course's package (and the agent's Java player when its
// directory holds no jar) into c.BuildDir and returns the Table.
func New(ctx context.Context, c Config) (*Table, error) {
	if c.N < 6 || c.N > 13 {
		return nil, fmt.Errorf("javareferee: board size %d, want 6 to 13", c.N)
	}
	if c.Java == "" {
		c.Java = "java"
	}
	if _, err := exec.LookPath(c.Java); err != nil {
		return nil, fmt.Errorf("javareferee: no java (install a JDK, e.g. Debian's default-jdk-headless): %w", err)
	}
	agent, err := filepath.Abs(c.Agent)
	if err != nil {
		return nil, err
	}
	config := filepath.Join(agent, javaadapter.PlayerConfig+".properties")
	if _, err := os.Stat(config); err != nil {
		return nil, fmt.Errorf("javareferee: agent %s has no Java player (no %s; export a Squatter agent with zerokit export)", c.Agent, filepath.Base(config))
	}
	build, err := filepath.Abs(c.BuildDir)
	if err != nil {
		return nil, err
	}
	coursePath, playerPath, err := javaadapter.Build(ctx, c.Javac, c.Course, build)
	if err != nil {
		return nil, err
	}
	// The agent plays its own player as exported: its jar, else its
	// sources compiled here.
	if jar := filepath.Join(agent, javaadapter.JarName); fileExists(jar) {
		playerPath = jar
	} else {
		src, err := filepath.Glob(filepath.Join(agent, "*.java"))
		if err != nil || len(src) == 0 {
			return nil, fmt.Errorf("javareferee: agent %s has neither %s nor the player's .java sources", c.Agent, javaadapter.JarName)
		}
		playerPath = filepath.Join(build, "agent")
		if err := javaadapter.Compile(ctx, c.Javac, coursePath, playerPath, src); err != nil {
			return nil, fmt.Errorf("javareferee: agent %s: %w", c.Agent, err)
		}
	}
	cp := coursePath + string(os.PathListSeparator) + playerPath
	if c.ExtraClassPath != "" {
		cp += string(os.PathListSeparator) + c.ExtraClassPath
	}
	return &Table{N: c.N, Java: c.Java, classPath: cp, config: config}, nil
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// Defaults leaves the limits at 0: the referee sets none. TimeLimit and
// SpaceLimit, when given, are the agent's cpu_limit and memory_limit,
// which its player enforces.
func (t *Table) Defaults(o *refbench.Options) error {
	if o.TimeLimit < 0 || o.SpaceLimit < 0 {
		return errors.New("refbench: negative limits")
	}
	return nil
}

// Prepare checks the opponents: zerokit specs (which need Options.Binary)
// or Java classes.
func (t *Table) Prepare(o *refbench.Options) error {
	for i, opp := range o.Opponents {
		switch {
		case opp.Module != "":
			return fmt.Errorf("refbench: opponent %s: a Python module cannot play in the Java referee", opp.Name())
		case (opp.Spec == "") == (opp.Class == ""):
			return fmt.Errorf("refbench: opponent %d: want a spec or a class", i)
		case opp.Spec != "" && o.Binary == "":
			return fmt.Errorf("refbench: opponent %s: no zerokit binary for its player", opp.Spec)
		case opp.Class == javaadapter.PlayerClass:
			return fmt.Errorf("refbench: opponent class %s is the agent's; play zerokit agents as specs", opp.Class)
		}
	}
	return nil
}

// Play plays one game: "java aiproj.squatter.Referee N WHITE BLACK" in
// gdir, with referee.out and referee.err there.
func (t *Table) Play(ctx context.Context, o *refbench.Options, gdir string, opp refbench.Opponent, index int) (refbench.Game, error) {
	g := refbench.Game{Opponent: opp.Name(), Index: index, AgentColour: o.AgentColour(index)}
	if err := os.RemoveAll(gdir); err != nil {
		return g, err
	}
	if err := os.MkdirAll(gdir, 0o755); err != nil {
		return g, err
	}
	usageLog := filepath.Join(gdir, "usage-agent.json")
	cp := t.classPath
	if opp.ClassPath != "" {
		cp += string(os.PathListSeparator) + opp.ClassPath
	}
	agentSpec, err := o.GameAgentSpec(o.AgentSpec, index)
	if err != nil {
		return g, err
	}
	args := []string{
		"-cp", cp,
		"-D" + javaadapter.PlayerConfig + ".config=" + t.config,
		"-D" + javaadapter.PlayerConfig + ".usage_log=" + usageLog,
	}
	if agentSpec != "" {
		args = append(args, "-D"+javaadapter.PlayerConfig+".agent="+agentSpec)
	}
	// Limits given override the agent's own settings; none leave them.
	if o.TimeLimit > 0 {
		args = append(args, fmt.Sprintf("-D%s.cpu_limit=%g", javaadapter.PlayerConfig, o.TimeLimit))
	}
	if o.SpaceLimit > 0 {
		args = append(args, fmt.Sprintf("-D%s.memory_limit=%g", javaadapter.PlayerConfig, o.SpaceLimit))
	}
	oppClass := opp.Class
	if opp.Spec != "" {
		oppClass = javaadapter.OpponentClass
		args = append(args,
			"-D"+javaadapter.OpponentConfig+".binary="+o.Binary,
			"-D"+javaadapter.OpponentConfig+".agent="+refbench.GameSpec(opp.Spec, index),
			"-D"+javaadapter.OpponentConfig+".args="+strings.Join(opp.ServeArgs, " "))
	}
	white, black := javaadapter.PlayerClass, oppClass
	if g.AgentColour == "black" {
		white, black = black, white
	}
	args = append(args, "aiproj.squatter.Referee", strconv.Itoa(t.N), white, black)
	gctx, cancel := context.WithTimeout(ctx, o.GameTimeout)
	defer cancel()
	cmd := exec.CommandContext(gctx, t.Java, args...)
	cmd.Dir = gdir
	cmd.Env = append(append(os.Environ(), o.Env...), opp.Env...)
	out, errText, runErr, err := refbench.RunReferee(ctx, cmd, &g)
	if err != nil {
		return g, err
	}
	r := parseReferee(out, errText)
	g.Actions, g.Reason = r.moves, r.reason
	g.MovesSHA256 = refbench.MovesDigest(out, func(line string) bool { return placingLine.MatchString(strings.TrimSpace(line)) })
	switch {
	case gctx.Err() != nil:
		g.Outcome = refbench.Unfinished
		g.Reason = fmt.Sprintf("still playing after %v", o.GameTimeout)
	default:
		g.Outcome = outcome(r, g.AgentColour)
		if runErr != nil && r.winner == 0 {
			g.Reason += fmt.Sprintf(" (referee: %v)", runErr)
		}
		judgeByReplay(&g, r, t.N, out)
	}
	if u, err := refbench.ReadUsage(usageLog); err == nil {
		g.AgentCPU, g.AgentPeakMB, g.AgentOverLimit, g.AgentFallbacks = u.CPU, u.PeakMB, u.Exceeded, u.Fallbacks
	} else if g.Outcome != refbench.Failed && g.Outcome != refbench.Unfinished {
		g.Outcome, g.Reason = refbench.Failed, fmt.Sprintf("%s; the agent's usage log: %v", g.Reason, err)
	}
	return g, nil
}

// judgeByReplay replays the game's moves on zerokit's board (whose rules
// are tested against the course's): a finished game gets its final score;
// a game whose players claim different results gets the replayed board's
// result when it is one of the claims; and a game that ended when the
// opponent rejected a move of the agent's that the rules call legal is
// left out of the score (Failed) as the opponent's misjudgement, not the
// agent's loss. A rejection that the rules uphold, or a replay that fails,
// leaves the referee's outcome alone and says so in the reason.
func judgeByReplay(g *refbench.Game, r result, n int, out string) {
	rp, err := replay(n, out)
	if err != nil {
		g.Reason += fmt.Sprintf(" (replay: %v)", err)
		return
	}
	if rp.final && rp.illegal < 0 {
		g.FinalScore = &rp.scores
		w := winnerOf(rp.scores)
		switch {
		case r.winner != 0 && r.winner != w:
			g.Reason += fmt.Sprintf(" (the replayed board scores White %d, Black %d)", rp.scores[0], rp.scores[1])
		case r.winner == 0 && (r.claims[0] == w || r.claims[1] == w):
			// The players disagree and one of them is right: the
			// replayed board decides, as a marker reading it would.
			right := "White"
			if r.claims[1] == w {
				right = "Black"
			}
			g.Outcome = outcome(result{winner: w, moves: r.moves}, g.AgentColour)
			g.Reason += fmt.Sprintf(" (the replayed board scores White %d, Black %d: %s's claim stands)", rp.scores[0], rp.scores[1], right)
		}
	}
	if r.rejected == 0 {
		return
	}
	agent := 1
	if g.AgentColour == "black" {
		agent = 2
	}
	switch {
	case rp.illegal >= 0:
		g.Reason += fmt.Sprintf(" (zerokit's rules reject it too: %s)", rp.why)
	case r.rejected == agent && rp.moves == r.moves:
		g.Outcome = refbench.Failed
		g.Reason += fmt.Sprintf(" (move %d, legal by zerokit's rules: the opponent misjudged it; left out of the score)", rp.moves)
	}
}

// winnerOf is the course's winner code of final scores (White's, Black's).
func winnerOf(scores [2]int) int {
	switch {
	case scores[0] > scores[1]:
		return squatter.RefereeWhite
	case scores[1] > scores[0]:
		return squatter.RefereeBlack
	}
	return squatter.RefereeDraw
}

// result is what a referee run says about a game.
type result struct {
	// winner is 1 (White), 2 (Black), 3 (a draw) or 0 when unknown;
	// moves the moves played; reason how the game ended.
	winner, moves int
	reason        string
	// rejected is the player (1 White, 2 Black) whose move the other
	// rejected, ending the game; 0 when none was.
	rejected int
	// claims are White's and Black's results when they disagree (winner
	// 0), else zero.
	claims [2]int
}

var (
	claimLine    = regexp.MustCompile(`^Player (one \(White\)|two \(Black\)) indicate winner as: (-?\d+)$`)
	movesLine    = regexp.MustCompile(`^Total Number of Moves Played in the Game: (\d+)$`)
	placingLine  = regexp.MustCompile(`^Placing to\. -?\d+:-?\d+ by -?\d+$`)
	rejectedLine = regexp.MustCompile(`^Exception: Player ([12]) rejected the move of player ([12])\.$`)
	// failedLine is the exception of a zerokit player that could not go
	// on, as the JVM reports it, and startLine the message of one that
	// could not start.
	failedLine = regexp.MustCompile(`ZerokitException: zerokit player (white|black): (.*)$`)
	startLine  = regexp.MustCompile(`^zerokit_\w+ (white|black): cannot start: (.*)$`)
)

// parseReferee reads a referee run's stdout and stderr. The players'
// claims decide the result; when they differ, White's (the first
// player's) and Black's are both named in the reason and the result is
// unknown.
func parseReferee(out, errText string) result {
	var r result
	claims := map[string]int{}
	placed := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := claimLine.FindStringSubmatch(line); m != nil {
			v, _ := strconv.Atoi(m[2])
			claims[m[1][:3]] = v
		} else if m := movesLine.FindStringSubmatch(line); m != nil {
			r.moves, _ = strconv.Atoi(m[1])
		} else if placingLine.MatchString(line) {
			placed++
		} else if m := rejectedLine.FindStringSubmatch(line); m != nil {
			// Player k rejected the other's move: the other loses.
			if m[2] == "1" {
				r.winner = 2
			} else {
				r.winner = 1
			}
			r.rejected, _ = strconv.Atoi(m[2])
			r.reason = fmt.Sprintf("%s rejected the move of %s", colourOf(m[1]), colourOf(m[2]))
			r.moves = placed
			return r
		}
	}
	w, white := claims["one"]
	b, black := claims["two"]
	switch {
	case w == -1 || b == -1:
		// A player that could not start or go on reports INVALID, which
		// ends the game; it loses.
		r.winner, r.reason = 1, "Black's player failed (it claims -1)"
		if w == -1 {
			r.winner, r.reason = 2, "White's player failed (it claims -1)"
		}
		if m := startLine.FindStringSubmatch(lastMatch(errText, startLine)); m != nil {
			r.reason += ": cannot start: " + m[2]
		}
	case white && black && w == b && w >= 1 && w <= 3:
		r.winner, r.reason = w, "game over"
	case white && black:
		r.claims = [2]int{w, b}
		r.reason = fmt.Sprintf("the players disagree: White claims %d, Black %d", w, b)
	default:
		r.moves = placed
		r.reason = "the referee did not finish"
		if m := failedLine.FindStringSubmatch(lastMatch(errText, failedLine)); m != nil {
			// The failing player loses the game.
			r.reason = fmt.Sprintf("%s's player failed: %s", m[1], m[2])
			if m[1] == "white" {
				r.winner = 2
			} else {
				r.winner = 1
			}
		} else if l := lastLine(errText); l != "" {
			r.reason += ": " + l
		}
	}
	return r
}

func colourOf(player string) string {
	if player == "1" {
		return "White"
	}
	return "Black"
}

// lastMatch returns the last line of text that re matches, or "".
func lastMatch(text string, re *regexp.Regexp) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if re.MatchString(lines[i]) {
			return strings.TrimSpace(lines[i])
		}
	}
	return ""
}

// lastLine returns the last non-empty line of text.
func lastLine(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// outcome is the agent's result. A game that failed before a move was
// played is a broken set-up, not a game.
func outcome(r result, agentColour string) refbench.Outcome {
	me := 1
	if agentColour == "black" {
		me = 2
	}
	switch {
	case r.winner == 0 || (r.moves == 0 && strings.Contains(r.reason, "player failed")):
		return refbench.Failed
	case r.winner == 3:
		return refbench.Draw
	case r.winner == me:
		return refbench.Win
	}
	return refbench.Loss
}
