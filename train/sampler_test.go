package train

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/model/torch"
)

// randomGames fills a replay buffer of game (seeded with seed) with random
// games whose moves carry a one-hot policy.
func randomGames(t *testing.T, game env.Game, seed uint64, games int) *data.Buffer {
	t.Helper()
	cfg, err := LoadConfig(tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	bc := cfg.Buffer
	bc.Seed = seed
	buf, err := data.NewBuffer(game, bc)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for range games {
		s := game.NewInitialState()
		rec := &data.Record{Game: game.Name(), EncodingVersion: game.EncodingVersion()}
		for !s.IsTerminal() {
			legal := s.LegalActions(nil)
			a := legal[rng.IntN(len(legal))]
			rec.Actions = append(rec.Actions, a)
			rec.Moves = append(rec.Moves, data.Move{Full: true, Policy: []data.ActionProb{{Action: int32(a), Prob: 1}}})
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
		}
		rec.Returns = s.Returns()
		if err := buf.Add(rec); err != nil {
			t.Fatal(err)
		}
	}
	return buf
}

// TestSamplerMatchesInline: the sampler, one batch ahead in its goroutine,
// draws the batches sampling in line draws, in the same order; stopped
// early it ends without blocking.
func TestSamplerMatchesInline(t *testing.T) {
	game := tinyGame(t)
	n, na := 16, game.NumActions()
	cfg, err := LoadConfig(tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := torch.NewTrainer(benchNet(t, game, cfg.Model), cfg.Optimizer)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	slot := func() *sampleSlot {
		s, err := newSampleSlot(tr, n, na, cfg.Buffer.ValueOnlyPositions)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	inline, ahead := randomGames(t, game, 3, 40), randomGames(t, game, 3, 40)
	want := slot()
	slots := [2]*sampleSlot{slot(), slot()}
	const steps = 25
	smp := startSampler(ahead, n, steps, slots)
	for i := range steps {
		if err := inline.Sample(n, &want.batch); err != nil {
			t.Fatal(err)
		}
		got := smp.next()
		if got.err != nil {
			t.Fatal(got.err)
		}
		if !slices.Equal(got.batch.Obs, want.batch.Obs) || !slices.Equal(got.batch.Policy, want.batch.Policy) ||
			!slices.Equal(got.batch.Value, want.batch.Value) || !slices.Equal(got.batch.Mask, want.batch.Mask) ||
			!slices.Equal(got.batch.PolicyWeight, want.batch.PolicyWeight) {
			t.Fatalf("batch %d differs from the one sampled in line", i)
		}
		for j, m := range got.batch.Mask {
			if got.mb.Legal[j] != (m != 0) {
				t.Fatalf("batch %d: legal mask %d is %v for mask value %v", i, j, got.mb.Legal[j], m)
			}
		}
		smp.release(got)
	}
	smp.close()
	early := startSampler(ahead, n, steps, slots)
	early.release(early.next())
	early.close()
	early.close()
}
