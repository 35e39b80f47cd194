package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/protocol"
	"github.com/zerokit/zerokit/wubpp"
)

const netPlayUsage = `usage: zerokit net-play -host HOST -port PORT -name NAME [-key KEY] -agent SPEC [flags]

Plays an agent on a Watch Your Back! server speaking the course's network
protocol (WUBPP: the server netreferee.py connects to; "zerokit
net-server" is one): it sends PLAY NAME [KEY], waits for an opponent (the
next player with the same key) and plays the game, then prints one line:

  game 1: alice (white) vs bob (black): won (OVER white)

With -games N it plays N games one after another, reconnecting for each,
and prints the wins, draws and losses at the end. It exits with an error
if a game could not be played to its end (connection lost, the agent
failed).

Time is managed as under the referee ("zerokit serve"): -game-time is the
agent's budget per game, split by the time manager over its expected
remaining moves (the default 55 s keeps 5 s of the server's usual 60 s for
the network); -move-time caps each move; an agent that overruns its
deadline is replaced for that move by -fallback. The process's CPU time is
charged when larger than the wall time.

Agent specs (-agent):
`

// runNetPlay implements "zerokit net-play".
func runNetPlay(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	reg, fs, err := newAgentsFlagSet("net-play", netPlayUsage, stderr)
	if err != nil {
		return err
	}
	defer reg.Close()
	host := fs.String("host", "127.0.0.1", "server's host name or address")
	port := fs.Int("port", 7979, "server's TCP port")
	name := fs.String("name", "zerokit", "player name sent to the server (one word)")
	key := fs.String("key", "", "matchmaking key: play only against players sending the same key")
	agentSpec := fs.String("agent", "random", "agent spec (see below)")
	games := fs.Int("games", 1, "games to play one after another")
	clock := addClockFlags(fs, "", 55*time.Second, "none")
	verbose := fs.Bool("v", false, "print every message received on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *name == "" || strings.ContainsAny(*name, " \t\r\n") || len(*name) > wubpp.MaxWord ||
		strings.ContainsAny(*key, " \t\r\n") || len(*key) > wubpp.MaxWord {
		return fmt.Errorf("-name and -key must be single words of at most %d bytes (and -name not empty)", wubpp.MaxWord)
	}
	if *games < 1 || *port < 1 || *port > 65535 {
		return fmt.Errorf("-games must be positive and -port in 1..65535")
	}
	built, cfg, err := clock.refereeAgent(reg, "wyb", *agentSpec)
	if err != nil {
		return err
	}
	// One game at a time in this process: its CPU time is the agent's.
	cfg.CPU = protocol.ProcessCPU
	cfg.OnGameEnd = func(g protocol.GameStats) {
		if g.Fallbacks > 0 {
			fmt.Fprintf(stderr, "zerokit net-play: %s: %d of %d moves were fallbacks (not chosen by a completed search: the deadline passed first)\n",
				g.Agent, g.Fallbacks, g.Moves)
		}
	}
	p := wubpp.Player{Name: *name, Key: *key}
	if *verbose {
		p.OnMessage = func(m wubpp.Message) { fmt.Fprintf(stderr, "< %s\n", m) }
	}
	addr := net.JoinHostPort(*host, strconv.Itoa(*port))
	score := map[string]int{}
	for i := range *games {
		seed := uint64(i)
		p.Session, err = protocol.NewSession(func(int) (agent.Agent, error) { return built.NewAgent(seed) }, cfg)
		if err != nil {
			return err
		}
		res, err := joinOnce(ctx, addr, p)
		if err != nil {
			return fmt.Errorf("game %d: %w", i+1, err)
		}
		outcome := res.Outcome()
		score[outcome]++
		end := "OVER " + res.Winner
		if res.Winner == "" {
			end = "ERRO " + res.Loser + " " + res.Reason
		}
		fmt.Fprintf(stdout, "game %d: %s (white) vs %s (black): %s (%s)\n", i+1, res.White, res.Black, outcome, end)
	}
	if *games > 1 {
		fmt.Fprintf(stdout, "%s: %d won, %d drawn, %d lost", *name, score["won"], score["draw"], score["lost"])
		if n := score["error"]; n > 0 {
			fmt.Fprintf(stdout, ", %d ended by the server", n)
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// joinOnce connects to addr and plays one game.
func joinOnce(ctx context.Context, addr string, p wubpp.Player) (wubpp.Result, error) {
	defer p.Session.Close()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return wubpp.Result{}, err
	}
	defer conn.Close()
	return wubpp.Join(ctx, conn, p)
}
