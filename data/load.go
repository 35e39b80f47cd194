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
	// TotalGames is the number of games in all shards.
	TotalGames int64
	// Names lists every shard of the source, oldest first (those counted,
	// not only those read).
	Names []string
}

// ShardSource is where a Buffer loads shards from: a games directory
// (DirSource) or an object store holding a distributed run's games.
type ShardSource interface {
	// Shards lists the shards, oldest first, by name. A source that does
	// not exist yet lists nothing.
	Shards(ctx context.Context) ([]string, error)
	// Info returns a shard's counts without decoding its records (see
	// ReadShardInfoAt).
	Info(ctx context.Context, name string) (ShardInfo, error)
	// Open returns a reader of the shard's records; the caller closes it.
	Open(ctx context.Context, name string) (*ShardReader, error)
}

// DirSource is the ShardSource of a games directory: its shard files (see
// ListShards), named by path.
type DirSource string

// Shards lists the directory's shard files in number order; a missing
// directory lists nothing.
func (d DirSource) Shards(ctx context.Context) ([]string, error) {
	shards, err := ListShards(string(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, len(shards))
	for i, sh := range shards {
		names[i] = sh.Path
	}
	return names, nil
}

// Info reads the shard file's counts.
func (d DirSource) Info(ctx context.Context, name string) (ShardInfo, error) {
	return ReadShardInfo(Shard{Path: name})
}

// Open opens the shard file.
func (d DirSource) Open(ctx context.Context, name string) (*ShardReader, error) {
	return OpenShard(name)
}

// Load fills an empty buffer from the shards in dir: LoadFrom with
// DirSource(dir).
func (b *Buffer) Load(ctx context.Context, dir string) (LoadStats, error) {
	return b.LoadFrom(ctx, DirSource(dir))
}

// LoadFrom fills an empty buffer from the shards of src, as at the
// resumption of a run: it counts the positions of every shard from their
// footers (this count sizes the window, as if the buffer had seen every
// game), then decodes and replays the most recent shards, enough to fill the
// window, oldest first. Each record is checked as by Add; errors name the
// shard and record index, and leave the buffer with the games loaded so far
// (discard it). LoadStats.Names lists every shard counted.
func (b *Buffer) LoadFrom(ctx context.Context, src ShardSource) (LoadStats, error) {
	var st LoadStats
	if b.Stats().TotalGames != 0 {
		return st, errors.New("data: load: the buffer is not empty")
	}
	names, err := src.Shards(ctx)
	if err != nil {
		return st, fmt.Errorf("data: load: %w", err)
	}
	st.Shards, st.Names = len(names), names
	counts := make([]int64, len(names))
	for i, name := range names {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		info, err := src.Info(ctx, name)
		if err != nil {
			return st, fmt.Errorf("data: load: %w", err)
		}
		st.TotalGames += int64(info.Records)
		counts[i] = info.FullMoves
		if b.cfg.ValueOnlyPositions {
			counts[i] = info.Moves
		}
		st.TotalPositions += counts[i]
	}
	window := b.cfg.Window.Size(st.TotalPositions)
	first := len(names)
	for have := int64(0); first > 0 && have < window; {
		first--
		have += counts[first]
	}
	for _, name := range names[first:] {
		r, err := src.Open(ctx, name)
		if err != nil {
			return st, fmt.Errorf("data: load: %w", err)
		}
		n, pos, err := b.loadShard(ctx, r)
		r.Close()
		st.Games += n
		st.Positions += pos
		if err != nil {
			return st, err
		}
		st.ShardsRead++
	}
	b.mu.Lock()
	b.seen = st.TotalPositions
	b.added = st.TotalGames
	b.trimLocked()
	b.mu.Unlock()
	return st, nil
}

// loadShard adds every record of one shard to the buffer without sliding the
// window.
func (b *Buffer) loadShard(ctx context.Context, r *ShardReader) (games int, positions int64, err error) {
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return games, positions, err
		}
		rec := r.Record()
		g, err := b.build(&rec)
		if err != nil {
			return games, positions, fmt.Errorf("data: load %s: record %d: %w", r.name, r.Index(), err)
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
