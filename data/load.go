package data

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
)

// LoadStats reports what Buffer.Load read.
type LoadStats struct {
	// Shards is the number of shard files in the directory, ShardsRead
	// those decoded (the most recent ones, enough to fill the window).
	Shards, ShardsRead int
	// Games and Positions are the games and sampleable positions loaded.
	Games     int
	Positions int64
	// TotalPositions is the number of sampleable positions in all shards,
	// which sizes the window.
	TotalPositions int64
}

// Load fills an empty buffer from the shards in dir, as at the resumption of
// a run: it counts the positions of every shard from their footers (this
// count sizes the window, as if the buffer had seen every game), then
// decodes and replays the most recent shards, enough to fill the window,
// oldest first. A missing directory loads nothing. Each record is checked as
// by Add; errors name the shard file and record index, and leave the buffer
// with the games loaded so far (discard it).
func (b *Buffer) Load(ctx context.Context, dir string) (LoadStats, error) {
	var st LoadStats
	if b.Stats().TotalGames != 0 {
		return st, errors.New("data: load: the buffer is not empty")
	}
	shards, err := ListShards(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("data: load: %w", err)
	}
	st.Shards = len(shards)
	counts := make([]int64, len(shards))
	for i, sh := range shards {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		info, err := ReadShardInfo(sh)
		if err != nil {
			return st, fmt.Errorf("data: load: %w", err)
		}
		counts[i] = info.FullMoves
		if b.cfg.ValueOnlyPositions {
			counts[i] = info.Moves
		}
		st.TotalPositions += counts[i]
	}
	window := b.cfg.Window.Size(st.TotalPositions)
	first := len(shards)
	for have := int64(0); first > 0 && have < window; {
		first--
		have += counts[first]
	}
	for _, sh := range shards[first:] {
		n, pos, err := b.loadShard(ctx, sh)
		st.Games += n
		st.Positions += pos
		if err != nil {
			return st, err
		}
		st.ShardsRead++
	}
	b.mu.Lock()
	b.seen = st.TotalPositions
	b.trimLocked()
	b.mu.Unlock()
	return st, nil
}

// loadShard adds every record of one shard to the buffer without sliding the
// window.
func (b *Buffer) loadShard(ctx context.Context, sh Shard) (games int, positions int64, err error) {
	r, err := OpenShard(sh.Path)
	if err != nil {
		return 0, 0, fmt.Errorf("data: load: %w", err)
	}
	defer r.Close()
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return games, positions, err
		}
		rec := r.Record()
		g, err := b.build(&rec)
		if err != nil {
			return games, positions, fmt.Errorf("data: load %s: record %d: %w", sh.Path, r.Index(), err)
		}
		b.mu.Lock()
		b.appendLocked(g)
		b.mu.Unlock()
		games++
		positions += int64(g.n)
	}
	if err := r.Err(); err != nil {
		return games, positions, fmt.Errorf("data: load: %w", err)
	}
	return games, positions, nil
}
