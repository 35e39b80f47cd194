package neural_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent/neural"
	shipped "github.com/zerokit/zerokit/agents"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
)

// LoadFS reads a shipped agent from the program's embedded files into the
// same network as Load reads from its unpacked directory.
func TestLoadFS(t *testing.T) {
	game := wyb.New(wyb.Options{})
	files, err := shipped.Files("wyb")
	if err != nil {
		t.Fatal(err)
	}
	fromFS, err := neural.LoadFS(files, "shipped/wyb", game, neural.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fromFS.Close()
	dir, err := shipped.Dir("wyb", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fromDir, err := neural.Load(dir, game, neural.Options{Backend: neural.BackendGo})
	if err != nil {
		t.Fatal(err)
	}
	defer fromDir.Close()
	a, b := fromFS.Info(), fromDir.Info()
	if a.Name != b.Name || a.Step != b.Step || a.Settings != b.Settings || a.Shape != b.Shape || a.Backend != neural.BackendGo {
		t.Errorf("LoadFS info %+v\nLoad info %+v", a, b)
	}
	s := game.NewInitialState()
	legal := s.LegalActions(nil)
	var values [2]float32
	var priors [2][]float32
	for i, n := range []*neural.Network{fromFS, fromDir} {
		e, err := n.Evaluator(1, false)
		if err != nil {
			t.Fatal(err)
		}
		priors[i] = make([]float32, len(legal))
		if values[i], err = e.Evaluate(context.Background(), s, legal, priors[i]); err != nil {
			t.Fatal(err)
		}
	}
	if values[0] != values[1] || priors[0][0] != priors[1][0] {
		t.Errorf("values %v, first priors %v, %v: the two loads differ", values, priors[0][0], priors[1][0])
	}
	// The squatter agent plays other board sizes; a game it was not
	// trained on is refused.
	sq, err := shipped.Files("squatter6")
	if err != nil {
		t.Fatal(err)
	}
	g7, err := squatter.New(7)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := neural.LoadFS(sq, "shipped/squatter6", g7, neural.Options{}); err != nil {
		t.Errorf("squatter6 agent on a 7x7 board: %v", err)
	} else {
		n.Close()
	}
	if _, err := neural.LoadFS(files, "shipped/wyb", tictactoe.New(), neural.Options{}); err == nil || !strings.Contains(err.Error(), "shipped/wyb") {
		t.Errorf("the wyb agent for tic-tac-toe: %v, want an error naming it", err)
	}
}
