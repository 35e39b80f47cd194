package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/protocol"
	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

const serveUsage = `usage: zerokit serve [flags]

Plays an agent through the line protocol of package agent/protocol, for the
referee adapters (pyadapter/zerokit_player.py for Watch Your Back!,
javaadapter/zerokit/ZerokitPlayer.java for Squatter) or any other client: one
request line, one response line.

  init white|black        -> ok            (new game; the agent plays that colour)
  action <turns>          -> [x, y] | [[xa, ya], [xb, yb]] | null
                             (Squatter: "P Row Col", e.g. 1 2 3)
  update <referee action> -> ok            (the opponent's action)
  status                  -> <result> <board>  (Squatter only: its referee
                                            leaves judging to the players)
  quit                    -> bye
  anything wrong          -> error <reason>

By default the protocol runs on stdin/stdout (one session). With -listen
HOST:PORT it accepts TCP connections instead, one session per connection,
several at once, until interrupted; the chosen address is printed to stderr
("listening on ..."). There is no authentication: listen on 127.0.0.1
unless the network is trusted.

Time: -move-time caps each move; -game-time is a budget for the whole game
(the course allowed 60 s of CPU per player), split by the time manager over
the expected remaining moves and given to the agent as a deadline. In stdin
mode a request is charged the larger of its wall and the process's CPU
time; with -listen, wall time only. An agent that fails by overrunning its
deadline (rather than answering with its best move so far) is replaced for
that move by the -fallback agent.

Agent specs (-agent):
`

// refereeGame maps a -game name to the game and codec of its course
// referee (env.Refereed).
func refereeGame(name string) (env.Game, protocol.Codec, error) {
	game, err := games.ByName(name)
	if err != nil {
		return nil, nil, err
	}
	r, ok := game.(env.Refereed)
	if !ok {
		return nil, nil, fmt.Errorf("no referee protocol for game %q (its package implements no env.Refereed; want %s)", name, games.Help(isRefereed))
	}
	g, codec := r.Referee()
	return g, codec, nil
}

// isRefereed reports whether a referee's protocol plays g (env.Refereed).
func isRefereed(g env.Game) bool {
	_, ok := g.(env.Refereed)
	return ok
}

// serveMemoryLimit is serve's default -memory-limit in MiB. An agent's
// live heap stays under about 30 MiB (its tree's budget,
// mcts.DefaultTreeMB, the exact search's and the endgame's tables, the
// network), which leaves the garbage collector room below the limit; the
// process's peak resident memory is the limit plus the program's own
// pages, about 60 MB (docs/reliability.md, "Memory").
const serveMemoryLimit = 48

// runServe implements "zerokit serve".
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	reg, err := newAgents(1) // the kinds of -agent specs (see agents.go)
	if err != nil {
		return err
	}
	defer reg.Close()
	fs := newFlagSet("serve", withSpecHelp(serveUsage, reg.Help()), stderr)
	agentSpec := fs.String("agent", DefaultAgentKind, "agent spec (see below; default: the trained agent that ships for the game)")
	gameName := fs.String("game", defaultGame(isRefereed), "game, one with a referee protocol: "+games.Help(isRefereed))
	listen := fs.String("listen", "", "serve TCP connections on `HOST:PORT` (port 0: any free port) instead of stdin/stdout")
	clock := addClockFlags(fs, "", 0, "none")
	verbose := fs.Bool("v", false, "report each game's moves, time and the process's peak memory on stderr")
	memLimit := fs.Int64("memory-limit", serveMemoryLimit, "soft limit of the Go runtime's memory in MiB (debug.SetMemoryLimit, as GOMEMLIMIT), to keep the process under 80 MB, inside the course's 100 MB (0: none; the GOMEMLIMIT variable takes precedence)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *memLimit < 0 {
		return fmt.Errorf("-memory-limit %d is negative", *memLimit)
	}
	if *memLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(*memLimit << 20)
	}
	built, cfg, err := clock.refereeAgent(reg, *gameName, *agentSpec)
	if err != nil {
		return err
	}
	srv := &server{built: built, cfg: cfg, stderr: stderr, verbose: *verbose}
	if *listen == "" {
		srv.cfg.CPU = protocol.ProcessCPU
		return srv.session(ctx, stdin, stdout, "stdin")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "zerokit serve: listening on %s\n", ln.Addr())
	return srv.accept(ctx, ln)
}

// server runs protocol sessions for one agent spec.
type server struct {
	built   spec.Built
	cfg     protocol.Config
	stderr  io.Writer
	verbose bool

	games atomic.Uint64 // games started, for per-game seeds
	logMu sync.Mutex
}

// session serves one protocol session. Cancellation ends it without error.
func (s *server) session(ctx context.Context, r io.Reader, w io.Writer, peer string) error {
	cfg := s.cfg
	if s.verbose {
		cfg.OnGameEnd = func(g protocol.GameStats) { s.logGame(peer, g) }
	}
	newAgent := func(int) (agent.Agent, error) {
		return s.built.NewAgent(s.games.Add(1) - 1)
	}
	err := protocol.Serve(ctx, r, w, newAgent, cfg)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil
	}
	return err
}

func (s *server) logGame(peer string, g protocol.GameStats) {
	result := "unfinished"
	if g.Terminal {
		me := 0
		if g.Colour == s.cfg.Codec.Colour(1) {
			me = 1
		}
		switch r := g.Returns[me]; {
		case r > 0:
			result = "won"
		case r < 0:
			result = "lost"
		default:
			result = "draw"
		}
	}
	perMove := time.Duration(0)
	if g.Moves > 0 {
		perMove = g.Used / time.Duration(g.Moves)
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.stderr, "zerokit serve: %s: %s as %s %s after %d actions: %d own moves (%d by the fallback, %d searches stopped by the tree's budget), %v used (%v/move, max %v), peak RSS %s, peak virtual %s\n",
		peer, g.Agent, g.Colour, result, g.Actions, g.Moves, g.Fallbacks, g.TreeFull, g.Used.Round(time.Millisecond),
		perMove.Round(time.Microsecond), g.MaxMove.Round(time.Microsecond), procStatus("VmHWM"), procStatus("VmPeak"))
}

// procStatus reads a field of /proc/self/status (VmHWM: peak resident
// memory, VmPeak: peak virtual memory, which the course referee measured),
// or says it cannot.
func procStatus(field string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// accept serves each connection of ln in its own session until ctx is
// cancelled; then it stops accepting, closes the open connections (ending
// their sessions) and returns nil once they are done.
func (s *server) accept(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			ln.Close()
			return fmt.Errorf("accepting connections: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			// Closing the connection unblocks the session's reader.
			stopConn := context.AfterFunc(ctx, func() { conn.Close() })
			defer stopConn()
			peer := conn.RemoteAddr().String()
			if err := s.session(ctx, conn, conn, peer); err != nil && ctx.Err() == nil {
				s.logMu.Lock()
				fmt.Fprintf(s.stderr, "zerokit serve: %s: session ended: %v\n", peer, err)
				s.logMu.Unlock()
			}
		}()
	}
}
