package arena

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/arena/elo"
	"github.com/zerokit/zerokit/env"
)

// AccuracyConfig configures Accuracy.
type AccuracyConfig struct {
	Game env.Game
	// Workers is the number of positions searched at once (default 1).
	Workers int
	// Seed seeds the agents: position i's agent gets Seed+i.
	Seed uint64
	// MinDiscs and MaxDiscs bound the positions scored by their number of
	// actions played (MaxDiscs 0: no bound).
	MinDiscs, MaxDiscs int
	// BucketWidth groups the report by this many discs (default 5).
	BucketWidth int
	// OnPosition, if set, is called after each position (from one
	// goroutine at a time).
	OnPosition func(done, total int)
}

// Share is a count of value-keeping moves among scored positions, with
// its 95% Wilson interval.
type Share struct {
	Positions int     `json:"positions"`
	Kept      int     `json:"kept"`
	Rate      float64 `json:"rate"`
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
}

func (s *Share) add(kept bool) {
	s.Positions++
	if kept {
		s.Kept++
	}
}

func (s *Share) finish() {
	if s.Positions > 0 {
		s.Rate = float64(s.Kept) / float64(s.Positions)
	}
	s.Lo, s.Hi = elo.Wilson(s.Rate, s.Positions, elo.Z95)
}

func (s Share) String() string {
	return fmt.Sprintf("%d/%d = %.3f [%.3f, %.3f]", s.Kept, s.Positions, s.Rate, s.Lo, s.Hi)
}

// Bucket is the share among positions with MinDiscs to MaxDiscs discs.
type Bucket struct {
	MinDiscs int `json:"min_discs"`
	MaxDiscs int `json:"max_discs"`
	Share
	// ByValue splits the bucket by the position's value: "win", "draw".
	ByValue map[string]*Share `json:"by_value"`
}

// AccuracyReport is what Accuracy measured.
type AccuracyReport struct {
	Game  string `json:"game"`
	Agent string `json:"agent"`
	// All is the share over every scored position; lost positions, where
	// every move keeps the value, are not scored (Lost counts them).
	All     Share    `json:"all"`
	Lost    int      `json:"lost_skipped"`
	Buckets []Bucket `json:"buckets"`
	// Fallbacks counts moves the agent answered without a search
	// (agent.FallbackCounter).
	Fallbacks int `json:"fallbacks"`
	// MoveTime is the agents' mean and longest time per move.
	MeanMove time.Duration `json:"mean_move_ns"`
	MaxMove  time.Duration `json:"max_move_ns"`
	// Missed lists the first positions whose move lost the value (at most
	// 20), as "MOVES: played A, keeping K".
	Missed []string `json:"missed"`
}

type accuracyResult struct {
	kept      bool
	line      string
	think     time.Duration
	fallbacks int
}

// Accuracy asks an agent built by f for its move in each won or drawn
// position of ps (within the disc bounds) and reports the share of moves
// that keep the position's value: a won position stays won, a drawn one
// is not lost. Each position gets a fresh agent, seeded Seed+i.
func Accuracy(ctx context.Context, cfg AccuracyConfig, f agent.Factory, ps []Position) (AccuracyReport, error) {
	if cfg.Game == nil || f == nil {
		return AccuracyReport{}, errors.New("arena: Accuracy needs a game and an agent")
	}
	workers, width := max(1, cfg.Workers), cfg.BucketWidth
	if width <= 0 {
		width = 5
	}
	rep := AccuracyReport{Game: cfg.Game.Name()}
	var idx []int
	for i, p := range ps {
		d := p.Discs()
		if d < cfg.MinDiscs || (cfg.MaxDiscs > 0 && d > cfg.MaxDiscs) {
			continue
		}
		if p.Solution.Value < 0 {
			rep.Lost++
			continue
		}
		idx = append(idx, i)
	}
	results := make([]accuracyResult, len(ps))
	jobs := make(chan int)
	errc := make(chan error, workers)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r, name, err := accuracyOne(ctx, cfg, f, ps[i], uint64(i))
				if err != nil {
					errc <- fmt.Errorf("position %d (%s): %w", i+1, digits(ps[i].Moves), err)
					return
				}
				mu.Lock()
				results[i] = r
				rep.Agent = name
				done++
				if cfg.OnPosition != nil {
					cfg.OnPosition(done, len(idx))
				}
				mu.Unlock()
			}
		}()
	}
	var err error
feed:
	for _, i := range idx {
		select {
		case jobs <- i:
		case err = <-errc:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errc:
		default:
		}
	}
	if err != nil {
		return AccuracyReport{}, err
	}
	byBucket := map[int]*Bucket{}
	var total time.Duration
	for _, i := range idx {
		r, p := results[i], ps[i]
		rep.All.add(r.kept)
		k := p.Discs() / width
		b := byBucket[k]
		if b == nil {
			b = &Bucket{MinDiscs: k * width, MaxDiscs: k*width + width - 1, ByValue: map[string]*Share{}}
			byBucket[k] = b
		}
		b.add(r.kept)
		v := "win"
		if p.Solution.Value == 0 {
			v = "draw"
		}
		if b.ByValue[v] == nil {
			b.ByValue[v] = &Share{}
		}
		b.ByValue[v].add(r.kept)
		rep.Fallbacks += r.fallbacks
		total += r.think
		rep.MaxMove = max(rep.MaxMove, r.think)
		if !r.kept && len(rep.Missed) < 20 {
			rep.Missed = append(rep.Missed, r.line)
		}
	}
	if len(idx) > 0 {
		rep.MeanMove = total / time.Duration(len(idx))
	}
	rep.All.finish()
	keys := make([]int, 0, len(byBucket))
	for k := range byBucket {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b := byBucket[k]
		b.finish()
		for _, s := range b.ByValue {
			s.finish()
		}
		rep.Buckets = append(rep.Buckets, *b)
	}
	return rep, nil
}

func accuracyOne(ctx context.Context, cfg AccuracyConfig, f agent.Factory, p Position, i uint64) (accuracyResult, string, error) {
	s, err := p.State(cfg.Game)
	if err != nil {
		return accuracyResult{}, "", err
	}
	a, err := f(cfg.Seed + i)
	if err != nil {
		return accuracyResult{}, "", err
	}
	start := time.Now()
	act, err := a.Act(ctx, s)
	think := time.Since(start)
	if err != nil {
		return accuracyResult{}, "", err
	}
	if !s.IsLegal(act) {
		return accuracyResult{}, "", fmt.Errorf("agent %s played illegal action %d", a.Name(), act)
	}
	r := accuracyResult{kept: slices.Contains(p.Keep, act), think: think}
	if fc, ok := a.(agent.FallbackCounter); ok {
		r.fallbacks = fc.Fallbacks()
	}
	if !r.kept {
		r.line = fmt.Sprintf("%s (%s): played %s, keeping %s", digits(p.Moves), valueString(p.Solution), s.ActionString(act), digits(p.Keep))
	}
	return r, a.Name(), nil
}
