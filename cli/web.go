package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/web"
)

const webUsage = `usage: zerokit web [flags]

Serves the browser front end on -listen (default http://127.0.0.1:8080/):

  Play       a game against any agent spec (the shipped agent by default):
             click a piece then its destination, or place by clicking a
             square; the arrow keys and Enter do the same. While the agent
             thinks, its network's view of the position; once it moves, its
             search's best moves with their visit shares and its value.
  Replay     a game file (net-server games.jsonl, eval -record, referee
             transcripts such as zerokit replay's output or refbench's
             referee.out, a run's self-play shards and pending games): step
             with the arrow keys, see the network's policy as a heat map and
             its win probability over the whole game; share it as a link or
             a file.
  Dashboard  the metrics of the runs given with -run, updated while they
             train, and their newest self-play games.

Agent specs (-agent, and the page's opponent field):
`

// runWeb implements "zerokit web".
func runWeb(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	reg, err := newAgents(2)
	if err != nil {
		return err
	}
	defer reg.Close()
	fs := newFlagSet("web", withSpecHelp(webUsage, reg.Help()), stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "`address` to serve on (host:port; a host other than localhost exposes the server to the network)")
	agentSpec := fs.String("agent", DefaultAgentKind, "the opponent the page proposes (any agent spec)")
	network := fs.String("network", DefaultAgentKind, "the network whose policy and value the page shows: default (the shipped agent's), net:path=DIR_OR_CHECKPOINT, or none")
	moveTime := fs.Duration("move-time", 2*time.Second, "the agent's thinking time per move the page proposes")
	var runs stringList
	fs.Var(&runs, "run", "training run `directory` for the dashboard (repeat to compare runs)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *moveTime <= 0 {
		return errors.New("-move-time must be positive")
	}
	cfg := web.Config{Agents: reg.Registry, DefaultAgent: *agentSpec, MoveTime: *moveTime, Runs: runs}
	if *network != "none" {
		cfg.Networks, cfg.DefaultNetwork = reg.networkEvaluator, *network
	}
	srv, err := web.New(cfg)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("-listen: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "zerokit web: serving http://%s/ (Ctrl-C to stop)\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(sctx)
}

// networkEvaluator returns the evaluator of the network a spec names for
// game: "default" (the shipped agent's) or "net:path=..." (its other keys
// are the search's and do not matter here).
func (a *agents) networkEvaluator(game env.Game, text string) (mcts.Evaluator, error) {
	s, err := spec.Parse(text)
	if err != nil {
		return nil, err
	}
	var path string
	switch s.Kind {
	case DefaultAgentKind:
		if path, err = shippedAgentDir(game); err != nil {
			return nil, err
		}
	case neural.KindName:
		p, ok := s.Lookup("path")
		if !ok {
			return nil, errors.New("net: path= is required")
		}
		path = p
	default:
		return nil, fmt.Errorf("%q has no network: want %s or %s:path=...", text, DefaultAgentKind, neural.KindName)
	}
	n, err := a.pool.Load(path, game)
	if err != nil {
		return nil, err
	}
	return n.Evaluator(1, false)
}
