package export

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/env"
)

// adapterSettings is zerokit_player.json: the zerokit binary (absent: the
// adapter looks next to itself, then on PATH), the agent spec (usually
// naming the agent directory), and extra serve flags.
type adapterSettings struct {
	Binary string   `json:"binary,omitempty"`
	Agent  string   `json:"agent"`
	Args   []string `json:"args"`
}

// adapterConfig encodes zerokit_player.json.
func adapterConfig(spec, binary string, serveArgs []string) ([]byte, error) {
	conf := adapterSettings{binary, spec, serveArgs}
	if conf.Args == nil {
		conf.Args = []string{}
	}
	b, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("adapter config: %w", err)
	}
	return append(b, '\n'), nil
}

// Adapter returns the settings of the Python adapter of the exported agent
// in dir (its zerokit_player.json): the zerokit executable it names ("" if
// none: the adapter then looks beside itself and on PATH) and the "zerokit
// serve" flags it passes, e.g. [-game-time 55s].
func Adapter(dir string) (binary string, serveArgs []string, err error) {
	conf, err := readAdapter(dir)
	return conf.Binary, conf.Args, err
}

// AdapterAgent returns the agent spec that the Python adapter of the
// exported agent in dir runs (its zerokit_player.json's "agent"), "" when
// it names none (the adapter then runs "default").
func AdapterAgent(dir string) (string, error) {
	conf, err := readAdapter(dir)
	return conf.Agent, err
}

// readAdapter reads dir's zerokit_player.json.
func readAdapter(dir string) (adapterSettings, error) {
	path := filepath.Join(dir, AdapterConfig)
	b, err := os.ReadFile(path)
	if err != nil {
		return adapterSettings{}, err
	}
	var conf adapterSettings
	if err := json.Unmarshal(b, &conf); err != nil {
		return adapterSettings{}, fmt.Errorf("%s: %w", path, err)
	}
	return conf, nil
}

// packageInit is __init__.py, which lets the referee import the agent
// directory itself as a module.
func packageInit(m neural.Manifest) []byte {
	return []byte(fmt.Sprintf(`"""zerokit agent %s (game %s, training step %d), written by zerokit export.

Put this directory next to the course's referee.py and give its name to the
referee, e.g.  python3 referee.py <this directory's name> other_player
(the name must be a valid Python module name). Player is
zerokit_player.Player, which runs "zerokit serve" as configured in
zerokit_player.json; see README.txt.
"""
from .zerokit_player import Player  # noqa: F401
`, pyString(m.Name), pyString(m.Game), m.Source.Step))
}

// pyString keeps text safe inside a Python docstring.
func pyString(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"""`, `\"\"\"`).Replace(s)
}

func readme(m neural.Manifest, spec, binary string, budget Budget, extraArgs []string, game env.Game) []byte {
	serveArgs := append(budget.flags(), extraArgs...)
	gameName := game.Name()
	bin := binary
	if bin == "" {
		bin = "zerokit"
	}
	var b strings.Builder
	title := "zerokit agent " + m.Name
	fmt.Fprintf(&b, "%s\n%s\n\n", title, strings.Repeat("=", len(title)))
	fmt.Fprintf(&b, "A trained agent for the game %s (observation/action encoding version %d),\n", m.Game, m.EncodingVersion)
	fmt.Fprintf(&b, "exported by \"zerokit export\" on %s from the checkpoint\n", m.Created.Format(time.RFC3339))
	fmt.Fprintf(&b, "  %s\n(training step %d, run seed %d).\n\n", m.Source.Checkpoint, m.Source.Step, m.Source.Seed)
	fmt.Fprintf(&b, "Network: %d residual blocks of %d channels, %s policy head, %d parameters.\n",
		m.Network.Blocks, m.Network.Channels, m.Network.PolicyHead, m.Parameters)
	reuse := "on"
	if !m.Search.ReuseTree {
		reuse = "off"
	}
	fmt.Fprintf(&b, "Default search: %s (%s; leaves per batch: %d; tree reuse: %s), without\n", m.Search.Label(), m.Search.Mode, m.Search.LeavesInFlight, reuse)
	b.WriteString("exploration noise or randomness in the choice of move.\n\n")

	course := CourseGame(gameName)
	b.WriteString(`Files
  agent.json           what the network plays, its architecture, the default
                       search and where it came from (checked when loaded)
  weights.ckpt         the network (its SHA-256 is in agent.json)
`)
	if course {
		b.WriteString(`  zerokit_player.py    Python adapter for the course referee (standard library)
  zerokit_player.json  the adapter's settings: zerokit binary, agent, serve flags
  __init__.py          lets the referee import this directory by its name
`)
	}
	b.WriteString("  README.txt           this file\n")
	if strings.HasPrefix(gameName, "squatter") {
		b.WriteString(`  ZerokitPlayer.java   Player for the 2015 course referee (Java), and
  ZerokitOpponent.java   a second one configured apart
  zerokit_player.properties  the Java player's settings
  zerokit-player.jar   the two compiled (if export was given -java-referee)
`)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "Every zerokit command takes the agent as the spec\n\n  %s\n\n", spec)
	b.WriteString("optionally with a different search for that use: ,sims=256 (simulations per\n" +
		"move), ,time=1s (thinking time per move), ,sims=0,time=1s (time only),\n" +
		",leaves=4 (leaves per network batch). \"zerokit serve -h\" lists every key.\n\n")
	if _, ok := game.(env.TextUI); ok {
		fmt.Fprintf(&b, "Play against it in the terminal:\n\n  %s play -game %s -agent %s\n\n", bin, gameName, spec)
	}
	fmt.Fprintf(&b, "Measure it against a baseline (200 games, both colours, 2 at a time):\n\n  %s eval -game %s -a %s -b alphabeta:depth=3 -games 200 -parallel 2\n\n",
		bin, m.Game, spec)

	if strings.HasPrefix(gameName, "squatter") {
		b.WriteString(javaReadme(spec, bin, budget, extraArgs))
		return []byte(b.String())
	}
	if !course {
		fmt.Fprintf(&b, `Over zerokit's line protocol
  No course referee plays %s, so this directory holds no referee adapter.
  Programs play the agent through
    %s serve -game %s -agent %s
  on stdin/stdout (or -listen HOST:PORT for TCP): "zerokit serve -h"
  describes the requests, the game's notation of moves and the thinking
  budgets (-move-time, -game-time) on top of the search's own.
`, gameName, bin, gameName, spec)
		return []byte(b.String())
	}
	args := make([]string, len(serveArgs))
	for i, a := range serveArgs {
		args[i] = strconv.Quote(a)
	}
	where := `zerokit_player.json holds absolute
  paths: if you move this directory or the zerokit binary, edit "binary" and
  the path in "agent" (or export again).`
	if binary == "" && !strings.HasPrefix(spec, neural.KindName+":path=") {
		where = `zerokit_player.json names no path:
  the adapter runs the zerokit next to zerokit_player.py, else on PATH.`
	}
	fmt.Fprintf(&b, `With the course referee (referee.py)
  1. Copy this directory next to referee.py under a name that is a valid
     Python module name, e.g. our_agent.
  2. python3 referee.py our_agent their_agent     (we play White)
     python3 referee.py their_agent our_agent     (we play Black)
  Alternatively copy zerokit_player.py and zerokit_player.json next to
  referee.py and name the module zerokit_player.

  Each Player starts "%s serve -agent %s%s"
  and talks to it over a line protocol. %s Environment variables override it:
  ZEROKIT_BIN, ZEROKIT_AGENT, ZEROKIT_ARGS (see zerokit_player.py).

Time and memory limits
  The course allowed each player 60 s of CPU time and 100 MB of memory per
  game. The serve flags in zerokit_player.json are [%s]:
  -game-time 55s (export -game-time) gives the whole game 55 s, which zerokit's time manager
  spreads over the expected remaining moves and enforces as a deadline on
  each move (charging the larger of wall and CPU time); when a deadline
  passes, the search plays the best move found so far. Add "-move-time",
  "2s" to "args" to also cap single moves, or lower the simulations (sims=)
  for a faster agent.
  The referee measures only its own Python process; the zerokit server is a
  child process with the network (libtorch) loaded. Run
    %s serve -agent %s -v
  and play a game through it to see, on stderr after each game, the time
  used and the server's peak memory (VmHWM resident, VmPeak virtual).
`, bin, spec, prefixSpace(strings.Join(serveArgs, " ")), where, strings.Join(args, ", "), bin, spec)
	return []byte(b.String())
}

func prefixSpace(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

// javaReadme is the README's part for a Squatter agent: the Java player of
// the 2015 course referee.
func javaReadme(spec, bin string, budget Budget, serveArgs []string) string {
	return fmt.Sprintf(`With the 2015 course referee (Java, package aiproj.squatter)
  ZerokitPlayer.java is a Player (class zerokit.ZerokitPlayer) that starts
  "%s serve -game squatterN -agent %s -v -game-time G%s"
  in init (N from the referee) and relays every call to it: the agent's
  moves, the opponent's moves (which zerokit's rules check: opponentMove
  returns -1 for an illegal one), getWinner and printBoard (+ free, W/B
  pieces, w/b captured pieces, - captured empty cells).
  zerokit-player.jar holds it compiled, if export was given the course's
  package (-java-referee DIR); else compile it here against the course's
  package COURSE (the directory holding aiproj/squatter/*.java):
    javac -d COURSE_CLASSES COURSE/aiproj/squatter/*.java
    javac -cp COURSE_CLASSES -d . ZerokitPlayer.java ZerokitOpponent.java
  and use this directory instead of the jar on the class path. Then
    java -cp COURSE_CLASSES:zerokit-player.jar aiproj.squatter.Referee 6 zerokit.ZerokitPlayer their.Player
  (we play White, who moves first; swap the class names to play Black).

  Settings: each KEY is read from the system property zerokit_player.KEY,
  else the environment variable ZEROKIT_PLAYER_KEY, else
  zerokit_player.properties beside the jar (or beside the directory
  holding zerokit/ZerokitPlayer.class). Keys: binary, agent, args (serve
  flags; set as a property or variable, even to "", they replace the
  file's), game_time (seconds per game for the agent's time manager;
  also a -game-time in args is an error), address (a running "zerokit
  serve -listen"), timeout, cpu_limit, memory_limit, usage_log; see
  ZerokitPlayer.java. The class
  zerokit.ZerokitOpponent reads zerokit_opponent.KEY instead, so one
  referee can seat two agents, e.g.
    java -cp ... -Dzerokit_opponent.agent=alphabeta:depth=4 \
      aiproj.squatter.Referee 6 zerokit.ZerokitPlayer zerokit.ZerokitOpponent

Time and memory
  The course's referee sets no limit, but the course allowed each player
  about 7.5 s of CPU per game on 6x6 and 10 s on 7x7 (measured on its
  server in 2015). zerokit_player.properties has
    game_time=%s
    cpu_limit=%s
  game_time is the agent's thinking budget per game, which zerokit's time
  manager spreads over the expected remaining moves; cpu_limit makes the
  player fail a game in which the agent's zerokit process (which the
  referee cannot see) uses more CPU seconds, and memory_limit likewise
  for peak resident MB. "course" is the course's limit for the referee's
  N for cpu_limit (7.5 s on 6x6, 10 s on 7x7, 10 s * N * N / 49 on larger
  boards, rounded to 0.1 s) and 80%% of it for game_time (6 s, 8 s, ...):
  the rest covers the process's start, the player's own time and the last
  move's overrun. usage_log gets one JSON line per game (CPU, memory, the
  moves played by the fallback when the time ran out) and serve's stderr
  beside it (usage_log name + .stderr). "zerokit refbench -game squatterN"
  plays whole matches this way.
`, bin, spec, prefixSpace(strings.Join(serveArgs, " ")), property(budget.GameTime, budget.CourseGameTime), property(budget.CPULimit, budget.CourseCPULimit))
}
