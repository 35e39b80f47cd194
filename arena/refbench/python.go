package refbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/pyadapter"
)

// Python is the Table of the course referee of Watch Your Back! (2018):
// "python3 referee.py -t TimeLimit -s SpaceLimit WHITE BLACK", with the
// Python adapter as the agent's and the opponents' Player.
type Python struct{}

// Defaults sets the referee's -t 60 and -s 100 unless given.
func (Python) Defaults(o *Options) error { return o.defaults() }

// Prepare checks the referee, the agent's module and the opponents.
func (Python) Prepare(o *Options) error { return o.checkPython() }

// Play plays one game in referee.py.
func (Python) Play(ctx context.Context, o *Options, gdir string, opp Opponent, index int) (Game, error) {
	adapter, err := pyadapter.PlayerModule()
	if err != nil {
		return Game{}, err
	}
	return o.play(ctx, gdir, adapter, opp, index)
}

// checkPython checks the options of the Python referee.
func (o *Options) checkPython() error {
	if o.Python == "" {
		o.Python = "python3"
	}
	if o.Referee == "" {
		return errors.New("refbench: no referee.py given")
	}
	if st, err := os.Stat(o.Referee); err != nil || st.IsDir() {
		return fmt.Errorf("refbench: referee %s: not a file", o.Referee)
	}
	// Each game runs in its own directory: a relative path would name
	// another file there.
	abs, err := filepath.Abs(o.Referee)
	if err != nil {
		return fmt.Errorf("refbench: referee %s: %w", o.Referee, err)
	}
	o.Referee = abs
	if _, err := os.Stat(filepath.Join(o.Agent, "__init__.py")); err != nil {
		return fmt.Errorf("refbench: agent %s: not an exported agent directory (no __init__.py; see zerokit export)", o.Agent)
	}
	if _, err := exec.LookPath(o.Python); err != nil {
		return fmt.Errorf("refbench: python interpreter %q: %w", o.Python, err)
	}
	for i, opp := range o.Opponents {
		switch {
		case opp.Class != "":
			return fmt.Errorf("refbench: opponent %s: a Java class cannot play in referee.py", opp.Name())
		case (opp.Spec == "") == (opp.Module == ""):
			return fmt.Errorf("refbench: opponent %d: want a spec or a module", i)
		case opp.Spec != "" && o.Binary == "":
			return fmt.Errorf("refbench: opponent %s: no zerokit binary for its adapter", opp.Spec)
		case opp.Root != "":
			if st, err := os.Stat(opp.Root); err != nil || !st.IsDir() {
				return fmt.Errorf("refbench: opponent %s: its root %s is not a directory", opp.Name(), opp.Root)
			}
			if !validModuleName(opp.Module) {
				return fmt.Errorf("refbench: opponent %s: module %q is not a dotted Python module name", opp.Name(), opp.Module)
			}
		case opp.Module != "":
			if _, err := os.Stat(opp.Module); err != nil {
				return fmt.Errorf("refbench: opponent module: %w", err)
			}
		}
	}
	return nil
}

// play runs game index against opp in gdir.
func (o *Options) play(ctx context.Context, gdir string, adapter []byte, opp Opponent, index int) (Game, error) {
	g := Game{Opponent: opp.Name(), Index: index, AgentColour: o.AgentColour(index)}
	// A directory left by a game that a stopped run did not finish (kept
	// with Dir, and replayed by -resume) holds nothing of record.
	if err := os.RemoveAll(gdir); err != nil {
		return g, err
	}
	if err := os.MkdirAll(gdir, 0o755); err != nil {
		return g, err
	}
	agentDir, err := filepath.Abs(o.Agent)
	if err != nil {
		return g, err
	}
	if err := linkAgent(agentDir, filepath.Join(gdir, agentModule), o.AgentSpec, o.TimeLimit, o.SpaceLimit, func(base string) (string, error) {
		return o.GameAgentSpec(base, index)
	}); err != nil {
		return g, err
	}
	oppModule := opponentModule
	if opp.Root != "" {
		oppModule = opp.Module
		if top, _, _ := strings.Cut(oppModule, "."); top == agentModule {
			return g, fmt.Errorf("refbench: opponent module %s has the agent's module name", oppModule)
		}
		if err := linkEntries(opp.Root, gdir); err != nil {
			return g, fmt.Errorf("refbench: opponent %s: %w", opp.Name(), err)
		}
	} else if opp.Spec != "" {
		if err := os.WriteFile(filepath.Join(gdir, oppModule+".py"), adapter, 0o644); err != nil {
			return g, err
		}
		cpu, mem := o.TimeLimit, o.SpaceLimit
		if opp.NoClock {
			cpu, mem = 0, 0
		}
		conf, err := json.Marshal(map[string]any{"binary": o.Binary, "agent": GameSpec(opp.Spec, index), "args": append([]string{}, opp.ServeArgs...),
			"cpu_limit": cpu, "memory_limit": mem})
		if err != nil {
			return g, err
		}
		if err := os.WriteFile(filepath.Join(gdir, oppModule+".json"), conf, 0o644); err != nil {
			return g, err
		}
	} else {
		abs, err := filepath.Abs(opp.Module)
		if err != nil {
			return g, err
		}
		oppModule = strings.TrimSuffix(filepath.Base(abs), ".py")
		if oppModule == agentModule {
			return g, fmt.Errorf("refbench: opponent module %s has the agent's module name", abs)
		}
		if err := os.Symlink(abs, filepath.Join(gdir, filepath.Base(abs))); err != nil {
			return g, err
		}
	}
	white, black := agentModule, oppModule
	if g.AgentColour == "black" {
		white, black = black, white
	}
	gctx, cancel := context.WithTimeout(ctx, o.GameTimeout)
	defer cancel()
	cmd := exec.CommandContext(gctx, o.Python, o.Referee, "-t", fmt.Sprint(o.TimeLimit), "-s", fmt.Sprint(o.SpaceLimit), white, black)
	cmd.Dir = gdir
	// Each adapter's limits are in its own configuration file (the
	// agent's and the opponent's may differ), so the environment must not
	// override them.
	cmd.Env = append(withoutLimits(os.Environ()),
		"PYTHONPATH="+gdir,
		"PYTHONDONTWRITEBYTECODE=1",
		"ZEROKIT_USAGE_LOG="+filepath.Join(gdir, "usage-{module}.json"),
	)
	cmd.Env = append(cmd.Env, withoutLimits(o.Env)...)
	cmd.Env = append(cmd.Env, withoutLimits(opp.Env)...)
	var turnCap *turnWatch
	if o.MaxMovingTurns > 0 {
		turnCap = &turnWatch{marker: []byte(fmt.Sprintf("\n%d turns into the moving phase", o.MaxMovingTurns)), stop: cancel}
	}
	out, errText, runErr, err := runReferee(ctx, cmd, &g, turnCap)
	if err != nil {
		return g, err
	}
	var winner string
	winner, g.Actions, g.Reason = parseReferee(out, errText, white, black)
	g.MovesSHA256 = MovesDigest(out, isMoveRecord)
	capped := turnCap != nil && turnCap.seen()
	switch {
	case capped:
		g.Reason = fmt.Sprintf("still playing at moving turn %d (the referee has no turn limit)", o.MaxMovingTurns)
	case gctx.Err() != nil:
		g.Reason = fmt.Sprintf("still playing after %v (the referee has no turn limit)", o.GameTimeout)
	case winner == "" && runErr != nil:
		g.Reason += fmt.Sprintf(" (referee: %v)", runErr)
	}
	g.Outcome = outcome(winner, g.Actions, g.Reason, g.AgentColour, capped || gctx.Err() != nil)
	if v, ok, err := afterSecondShrink(out, o.endgame); err != nil {
		return g, fmt.Errorf("refbench: %s: %w", filepath.Join(gdir, "referee.out"), err)
	} else if ok {
		if g.AgentColour == "black" {
			v = -v
		}
		g.AfterSecondShrink = map[float32]string{1: "win", 0: "draw", -1: "loss"}[v]
	}
	if u, err := ReadUsage(filepath.Join(gdir, "usage-"+agentModule+".json")); err == nil {
		g.AgentCPU, g.AgentPeakMB, g.AgentOverLimit, g.AgentFallbacks = u.CPU, u.PeakMB, u.Exceeded, u.Fallbacks
	} else if g.Outcome != Failed && g.Outcome != Unfinished {
		// The agent played but its adapter measured nothing.
		g.Outcome, g.Reason = Failed, fmt.Sprintf("%s; the agent's usage log: %v", g.Reason, err)
	}
	return g, nil
}

var progressLine = regexp.MustCompile(`^(\d+ turns into the (placing|moving) phase|game over!)$`)

// parseReferee reads a referee run's output: the winner ("W", "B",
// "draw", or "" when unknown), the number of actions applied, and how the
// game ended. white and black are the modules' names, for errors raised
// by a player.
func parseReferee(out, errText, white, black string) (winner string, actions int, reason string) {
	boards := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	mover := func() string {
		if (boards-1)%2 == 0 {
			return "W"
		}
		return "B"
	}
	other := map[string]string{"W": "B", "B": "W"}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case progressLine.MatchString(line):
			boards++
		case strings.HasPrefix(line, "winner: "):
			winner = strings.TrimSuffix(strings.TrimPrefix(line, "winner: "), "!")
			if reason == "" {
				reason = "game over"
			}
		case strings.HasPrefix(line, "invalid action ("):
			reason = line
		case strings.HasPrefix(line, "resource limit exceeded"):
			// The player to move exceeded the referee's own limits.
			reason = line + " (" + mover() + ")"
			winner = other[mover()]
		}
	}
	actions = max(boards-1, 0)
	if winner == "" && errText != "" {
		// A player raised an exception: the referee's traceback names it.
		last := failureLine(errText)
		switch {
		case strings.Contains(errText, "/"+white+"/") || strings.Contains(errText, "/"+white+".py") || strings.Contains(last, white+"."):
			winner, reason = "B", "White's player failed: "+last
		case strings.Contains(errText, "/"+black+"/") || strings.Contains(errText, "/"+black+".py") || strings.Contains(last, black+"."):
			winner, reason = "W", "Black's player failed: "+last
		default:
			reason = "the referee failed: " + last
		}
	}
	return winner, actions, reason
}

var exceptionLine = regexp.MustCompile(`^[A-Za-z_][\w.]*(Error|Exception|Died|Timeout|Interrupt)\b`)

// failureLine returns the last line of a traceback's text that names an
// exception (the adapters print usage summaries after it), else its last
// non-empty line.
func failureLine(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); exceptionLine.MatchString(l) {
			return l
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}

// isMoveRecord reports whether a line of referee.py's output records the
// game (its boards, turn counts and end) rather than the players'
// resources, which differ between identical games.
func isMoveRecord(line string) bool {
	for _, p := range []string{"time:", "space:", "note:", "resource limit", "Referee version", "Plays a basic", "Allows for", "Run `python"} {
		if strings.HasPrefix(line, p) {
			return false
		}
	}
	return true
}

var moduleName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// validModuleName reports whether name is a dotted Python module name.
func validModuleName(name string) bool { return moduleName.MatchString(name) }

// linkEntries links every entry of dir into dst, except those named like
// the files a game writes there (referee.out, referee.err, usage logs) or
// the agent's module.
func linkEntries(dir, dst string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if name == "referee.out" || name == "referee.err" || strings.HasPrefix(name, "usage-") || name == agentModule || name == agentModule+".py" {
			continue
		}
		if err := os.Symlink(filepath.Join(abs, name), filepath.Join(dst, name)); err != nil {
			return err
		}
	}
	return nil
}

// linkAgent makes dst the agent's Python package for one game: a
// directory of links to the files of the exported agent in dir, with its
// own adapter configuration (zerokit_player.json: dir's, a relative binary
// made absolute, the agent spec when spec is set, passed through
// gameSpec, and the limits cpu and mem).
func linkAgent(dir, dst, spec string, cpu, mem float64, gameSpec func(string) (string, error)) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	const confName = "zerokit_player.json"
	conf := map[string]any{}
	for _, e := range entries {
		if e.Name() == confName {
			b, err := os.ReadFile(filepath.Join(dir, confName))
			if err != nil {
				return err
			}
			if err := json.Unmarshal(b, &conf); err != nil {
				return fmt.Errorf("refbench: the agent's %s: %w", filepath.Join(dir, confName), err)
			}
			continue
		}
		if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	if bin, ok := conf["binary"].(string); ok && bin != "" && !filepath.IsAbs(bin) && strings.ContainsRune(bin, filepath.Separator) {
		conf["binary"] = filepath.Join(dir, bin)
	}
	conf["cpu_limit"], conf["memory_limit"] = cpu, mem
	if spec != "" {
		conf["agent"] = spec
	}
	if gameSpec != nil {
		base, _ := conf["agent"].(string)
		s, err := gameSpec(base)
		if err != nil {
			return err
		}
		if s != "" {
			conf["agent"] = s
		}
	}
	b, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dst, confName), b, 0o644)
}

// withoutLimits is env without the adapters' limit variables, which would
// override their configuration files.
func withoutLimits(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "ZEROKIT_CPU_LIMIT=") && !strings.HasPrefix(kv, "ZEROKIT_MEMORY_LIMIT=") {
			out = append(out, kv)
		}
	}
	return out
}

// turnWatch is an io.Writer that watches the referee's output for marker
// and calls stop once it appears.
type turnWatch struct {
	marker []byte
	stop   func()
	mu     sync.Mutex
	tail   []byte
	found  bool
}

func (w *turnWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.found {
		return len(p), nil
	}
	w.tail = append(w.tail, p...)
	if bytes.Contains(w.tail, w.marker) {
		w.found = true
		w.tail = nil
		w.stop()
		return len(p), nil
	}
	if keep := len(w.marker); len(w.tail) > keep {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-keep:]...)
	}
	return len(p), nil
}

// seen reports whether the marker appeared.
func (w *turnWatch) seen() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.found
}

// afterSecondShrink finds in a referee's output the board printed right
// after the second shrink ("192 turns into the moving phase") and returns
// the solved endgame's value of that position for White, who moves next;
// ok is false when the game did not get there or the position is over.
func afterSecondShrink(out string, table *wyb.Endgame) (value float32, ok bool, err error) {
	const mark = "\n192 turns into the moving phase"
	i := strings.Index(out, mark)
	if i < 0 {
		return 0, false, nil
	}
	lines := strings.Split(out[:i], "\n")
	if len(lines) < wyb.Size {
		return 0, false, errors.New("no board before \"192 turns into the moving phase\"")
	}
	diagram := strings.Join(lines[len(lines)-wyb.Size:], "\n")
	s, err := wyb.NewPosition(wyb.Options{}, diagram, wyb.Moving, wyb.SecondShrink)
	if err != nil {
		return 0, false, fmt.Errorf("the board after the second shrink: %w", err)
	}
	if s.IsTerminal() {
		return 0, false, nil
	}
	v, _, ok := table.Probe(s)
	return v, ok, nil
}
