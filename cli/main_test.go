package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	// The tests play this repository's games, which cmd/zerokit imports.
	_ "github.com/zerokit/zerokit/env/games/all"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
)

// TestMaxProcs: twice the CPUs on a machine of its own; the runtime's
// default (the limit) under a container's CPU limit, never more Ps than
// the quota.
func TestMaxProcs(t *testing.T) {
	for _, tc := range []struct{ cpus, runtimeDefault, want int }{
		{2, 2, 4},    // the 2-core reference machine
		{16, 16, 32}, // a machine of its own
		{64, 2, 2},   // a pod limited to 2 CPUs on a 64-core node
		{64, 3, 3},   // limits.cpu 2500m (the runtime rounds up)
	} {
		if got := maxProcs(tc.cpus, tc.runtimeDefault); got != tc.want {
			t.Errorf("maxProcs(%d CPUs, runtime default %d) = %d, want %d", tc.cpus, tc.runtimeDefault, got, tc.want)
		}
	}
}

// TestRun: the library's entry point answers help, an unknown command and
// a failing command with their exit status and messages.
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"help"}, 0, "games (-game): "},
		{nil, 2, "usage: zerokit <command>"},
		{[]string{"nosuch"}, 2, `unknown command "nosuch"`},
		{[]string{"eval", "-game", "chess", "-a", "random", "-b", "random"}, 1, "unknown game"},
		{[]string{"eval", "-h"}, 0, "-games"},
	} {
		var stdout, stderr bytes.Buffer
		got := Run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
		if got != tc.status || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("Run(%q) = %d, stderr %q; want %d and %q", tc.args, got, stderr.String(), tc.status, tc.stderr)
		}
	}
}

// TestPickGame: the -game flags default to Watch Your Back! when the
// program registers it, else to the program's first game that the command
// can play, so a program of one game of its own needs no -game.
func TestPickGame(t *testing.T) {
	reg := func(name string, p games.Params) games.Registration {
		return games.Registration{Name: name, Defaults: p}
	}
	wybR := reg("wyb", wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	sq := reg("squatter", squatter.Params{Size: 6})
	ttt := reg("tictactoe", tictactoe.Params{})
	mine := reg("mygame", tictactoe.Params{}) // an outside game, no referee codec
	broken := reg("aaa", squatter.Params{Size: 1})
	for _, tc := range []struct {
		fams []games.Registration
		keep func(env.Game) bool
		want string
	}{
		{[]games.Registration{sq, ttt, wybR}, nil, "wyb"},
		{[]games.Registration{sq, ttt, wybR}, isRefereed, "wyb"},
		{[]games.Registration{mine}, nil, "mygame"},
		{[]games.Registration{mine}, isTextUI, "mygame"},
		{[]games.Registration{broken, mine}, nil, "mygame"},
		{[]games.Registration{mine, sq}, isRefereed, "squatter"},
		{[]games.Registration{mine}, isRefereed, "wyb"}, // none: the command reports wyb unknown
		{nil, nil, "wyb"},
	} {
		var names []string
		for _, r := range tc.fams {
			names = append(names, r.Name)
		}
		if got := pickGame(tc.fams, tc.keep); got != tc.want {
			t.Errorf("pickGame(%v, keep %v) = %q, want %q", names, tc.keep != nil, got, tc.want)
		}
	}
}
