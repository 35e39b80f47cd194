package data

import (
	"fmt"
)

// ShardBuilder assembles a shard in memory, one game at a time: what a
// Writer buffers before publishing a file, and what a self-play worker
// uploads to an object store as one object. The zero value is an empty
// shard.
type ShardBuilder struct {
	frames      []byte // frames of the records added so far
	records     int
	moves, full int64
}

// Add validates and appends a finished game. An invalid record is rejected
// with an error and not added.
func (b *ShardBuilder) Add(rec *Record) error {
	payload, err := AppendRecord(nil, rec)
	if err != nil {
		return err
	}
	if len(payload) > MaxRecordBytes {
		return fmt.Errorf("data: record of %d bytes exceeds %d", len(payload), MaxRecordBytes)
	}
	b.frames = appendFrame(b.frames, payload)
	b.records++
	b.moves += int64(len(rec.Moves))
	b.full += int64(rec.FullMoves())
	return nil
}

// Len is the number of games added since the last Reset.
func (b *ShardBuilder) Len() int { return b.records }

// Info returns the counts of the games added (Shard left empty).
func (b *ShardBuilder) Info() ShardInfo {
	return ShardInfo{Records: b.records, Moves: b.moves, FullMoves: b.full}
}

// Bytes returns the complete shard (header, records, footer) in a new
// slice.
func (b *ShardBuilder) Bytes() []byte {
	buf := make([]byte, 0, headerSize+len(b.frames)+footerSize)
	buf = append(buf, shardMagic...)
	buf = append(buf, shardVersion)
	buf = append(buf, b.frames...)
	return appendFooter(buf, b.records, b.moves, b.full)
}

// Reset empties the builder, keeping its memory.
func (b *ShardBuilder) Reset() {
	b.frames = b.frames[:0]
	b.records, b.moves, b.full = 0, 0, 0
}
