//go:build !nonet

package neural

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/model/torch"
)

// TestBackendsAgree loads one checkpoint with both backends and checks
// that their evaluations of the same positions agree, on the network's own
// board and (spatial head) on another board size; and that an unknown
// backend is an error naming the known ones.
func TestBackendsAgree(t *testing.T) {
	dir := t.TempDir()
	w := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	sq6, err := squatter.New(6)
	if err != nil {
		t.Fatal(err)
	}
	sq8, err := squatter.New(8)
	if err != nil {
		t.Fatal(err)
	}
	spatial := tinyConfig
	spatial.PolicyHead = torch.PolicySpatial
	wybPath, sqPath := filepath.Join(dir, "wyb.ckpt"), filepath.Join(dir, "sq6.ckpt")
	writeCheckpoint(t, wybPath, w, tinyConfig, torch.Metadata{})
	writeCheckpoint(t, sqPath, sq6, spatial, torch.Metadata{})

	cases := []struct {
		name string
		path string
		game env.Game
	}{
		{"wyb dense", wybPath, w},
		{"squatter6 spatial", sqPath, sq6},
		{"squatter6 net on 8x8", sqPath, sq8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var nets [2]*Network
			for i, b := range []string{BackendGo, BackendLibtorch} {
				n, err := Load(c.path, c.game, Options{Backend: b, Workers: 2})
				if err != nil {
					t.Fatalf("backend %s: %v", b, err)
				}
				t.Cleanup(func() { n.Close() })
				if n.Info().Backend != b {
					t.Errorf("Info().Backend = %q, want %q", n.Info().Backend, b)
				}
				nets[i] = n
			}
			g := nets[0].Game()
			s := g.NewInitialState()
			for move := 0; move < 12 && !s.IsTerminal(); move++ {
				legal := s.LegalActions(nil)
				var priors [2][]float32
				var values [2]float32
				for i, n := range nets {
					ev, err := n.Evaluator(1, false)
					if err != nil {
						t.Fatal(err)
					}
					priors[i] = make([]float32, len(legal))
					if values[i], err = ev.Evaluate(context.Background(), s, legal, priors[i]); err != nil {
						t.Fatal(err)
					}
				}
				if d := values[0] - values[1]; d > 1e-4 || d < -1e-4 {
					t.Fatalf("move %d: values %v (go) and %v (libtorch)", move, values[0], values[1])
				}
				for k := range legal {
					if d := priors[0][k] - priors[1][k]; d > 1e-4 || d < -1e-4 {
						t.Fatalf("move %d action %d: priors %v (go) and %v (libtorch)", move, legal[k], priors[0][k], priors[1][k])
					}
				}
				if err := s.ApplyAction(legal[(move*7)%len(legal)]); err != nil {
					t.Fatal(err)
				}
			}
		})
	}

	_, err = Load(wybPath, w, Options{Backend: "tpu"})
	if err == nil || !strings.Contains(err.Error(), `unknown backend "tpu"`) || !strings.Contains(err.Error(), BackendGo) {
		t.Errorf("unknown backend: error %v", err)
	}
}
