// Command zerokit-wasm is zerokit's page (package web) with its server
// compiled to WebAssembly, so that a static host serves the whole
// application: the shipped agents play in the browser, with their weights
// inside the module. scripts/web-static.sh builds the site:
//
//	scripts/web-static.sh OUT_DIR
//
// In the browser the page runs the module in a Web Worker and sends it the
// requests it would send to zerokit web (worker.js); the module answers
// them with the same handler. There is no dashboard (no run directory).
//
// Built for the host (go run ./cmd/zerokit-wasm -bench), and under Node
// for WebAssembly (see docs/web.md), it measures the shipped Watch Your
// Back! agent's search speed, to compare the two.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/agent/spec"
	shipped "github.com/zerokit/zerokit/agents"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
	// The page offers every shipped game; they register with env/games.
	_ "github.com/zerokit/zerokit/env/games/all"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/web"
)

// networks loads the shipped agents' networks from the program's embedded
// files, once per game.
type networks struct {
	mu   sync.Mutex
	nets map[string]*neural.Network
}

func (n *networks) load(game env.Game) (*neural.Network, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if net, ok := n.nets[game.Name()]; ok {
		return net, nil
	}
	name, err := shipped.For(game.Name())
	if err != nil {
		return nil, err
	}
	files, err := shipped.Files(name)
	if err != nil {
		return nil, err
	}
	net, err := neural.LoadFS(files, "shipped/"+name, game, neural.Options{})
	if err != nil {
		return nil, err
	}
	if n.nets == nil {
		n.nets = map[string]*neural.Network{}
	}
	n.nets[game.Name()] = net
	return net, nil
}

// evaluator is web.Networks over the shipped networks ("default").
func (n *networks) evaluator(game env.Game, text string) (mcts.Evaluator, error) {
	if text != "default" {
		return nil, fmt.Errorf("only the shipped agents' networks (default) are in this build, not %q", text)
	}
	net, err := n.load(game)
	if err != nil {
		return nil, err
	}
	return net.Evaluator(1, false)
}

// registry is the baselines and the shipped agents ("default", the keys of
// zerokit's).
func (n *networks) registry() (*spec.Registry, error) {
	reg := spec.Default()
	kind := neural.NewPool(neural.Options{}).DefaultKind(nil) // for its keys and summary
	kind.New = func(game env.Game, p spec.Params) (agent.Factory, error) {
		net, err := n.load(game)
		if err != nil {
			return nil, fmt.Errorf("agent default: %w", err)
		}
		s, err := neural.ApplyParams(net.Info().Settings, p)
		if err != nil {
			return nil, err
		}
		return net.Factory(s)
	}
	if err := reg.Register("default", kind); err != nil {
		return nil, err
	}
	return reg, nil
}

// newServer returns the page's handler with the shipped agents.
func newServer(n *networks) (*web.Server, error) {
	reg, err := n.registry()
	if err != nil {
		return nil, err
	}
	return web.New(web.Config{Agents: reg, DefaultAgent: "default", Networks: n.evaluator, DefaultNetwork: "default",
		MoveTime: 2 * time.Second})
}

// bench measures the shipped Watch Your Back! agent's search: searches of
// sims simulations from positions of a fixed opening, and the network's
// evaluations alone.
func bench(w io.Writer, sims, searches int) error {
	if sims < 2 || searches < 1 {
		return errors.New("-sims must be at least 2 and -searches at least 1")
	}
	game := wyb.New(wyb.Options{})
	var n networks
	net, err := n.load(game)
	if err != nil {
		return err
	}
	s := net.Info().Settings
	s.Simulations, s.MoveTime = sims, 0
	ag, err := net.NewAgent(s, 1)
	if err != nil {
		return err
	}
	st := game.NewInitialState()
	total, start := 0, time.Now()
	for i := 0; i < searches && !st.IsTerminal(); i++ {
		a, err := ag.Act(context.Background(), st)
		if err != nil {
			return err
		}
		total += ag.LastResult().Simulations
		if err := st.ApplyAction(a); err != nil {
			return err
		}
	}
	el := time.Since(start)
	fmt.Fprintf(w, "search: %d simulations in %d searches, %.2f s: %.0f simulations/s\n", total, searches, el.Seconds(), float64(total)/el.Seconds())
	eval, err := net.Evaluator(1, false)
	if err != nil {
		return err
	}
	legal := st.LegalActions(nil)
	priors := make([]float32, len(legal))
	const evals = 200
	start = time.Now()
	for i := 0; i < evals; i++ {
		if _, err := eval.Evaluate(context.Background(), st, legal, priors); err != nil {
			return err
		}
	}
	el = time.Since(start)
	fmt.Fprintf(w, "network: %d evaluations, %.2f s: %.0f evaluations/s (%.2f ms each)\n", evals, el.Seconds(), evals/el.Seconds(), 1000*el.Seconds()/evals)
	return nil
}
