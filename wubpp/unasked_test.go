package wubpp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/protocol"
	"github.com/zerokit/zerokit/env"
)

// slowAgent is the random agent taking pause over every move.
type slowAgent struct {
	agent.Agent
	pause time.Duration
}

func (a slowAgent) Act(ctx context.Context, s env.State) (int, error) {
	time.Sleep(a.pause)
	return a.Agent.Act(ctx, s)
}

// TestUnaskedOkay: an OKAY a client sends after its own ACTN, unasked,
// ends the game against it as an unexpected message, whether it comes in
// the packet of the ACTN or in a write of its own that arrives while the
// opponent (here the house agent) thinks: the server never takes it as
// the answer to the next UPD8 (and then finds the real answer out of
// place at the next TURN, after the opponent's move was played), and the
// opponent's reply, which comes after it, is not played.
func TestUnaskedOkay(t *testing.T) {
	for _, separate := range []bool{false, true} {
		for i := range 8 {
			cfg := testConfig
			cfg.House = &House{Name: "house", NewAgent: func(int) (agent.Agent, error) {
				return slowAgent{agent.NewRandom(uint64(i)), 100 * time.Millisecond}, nil
			}, Budget: protocol.Budget{GameTime: time.Hour}}
			addr, records := startServer(t, cfg)
			p := dialRaw(t, addr)
			p.send("PLAY stray\n")
			p.expect("OKAY")
			p.expect("GAME stray house")
			p.send("OKAY\n")
			p.expect("INIT white")
			p.send("OKAY\n")
			p.expect("TURN 0")
			if separate {
				p.send("ACTN place 3 3\n")
				time.Sleep(20 * time.Millisecond)
				p.send("OKAY\n")
			} else {
				p.send("ACTN place 3 3\nOKAY\n")
			}
			// The client would answer the UPD8 it may get, as a client
			// that lost count would.
			var end string
			for {
				s, err := p.recv()
				if err != nil {
					t.Fatalf("separate %v, game %d: %v", separate, i, err)
				}
				if strings.HasPrefix(s, "UPD8") {
					p.send("OKAY\n")
					continue
				}
				if strings.HasPrefix(s, "TURN") {
					t.Fatalf("separate %v, game %d: %q: the unasked OKAY was taken as an answer", separate, i, s)
				}
				if strings.HasPrefix(s, "ERRO") || strings.HasPrefix(s, "OVER") {
					end = s
					break
				}
			}
			if !strings.HasPrefix(end, "ERRO white unexpected message") {
				t.Errorf("separate %v, game %d: got %q, want ERRO white unexpected message", separate, i, end)
			}
			waitFor(t, "records", 0, func() int { return 1 - len(records()) })
			if recs := records(); len(recs) != 1 || len(recs[0].Actions) != 1 {
				t.Fatalf("separate %v, game %d: records %+v; want one game of one action (the house's reply not played)", separate, i, recs)
			}
		}
	}
}
