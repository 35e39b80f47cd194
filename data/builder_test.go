package data

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A ShardBuilder's bytes are the shard file a Writer writes for the same
// games, and ReadShardInfoAt reads its counts.
func TestShardBuilder(t *testing.T) {
	for _, n := range []int{1, 3, 10} {
		dir := t.TempDir()
		w, err := NewWriter(dir, 100)
		if err != nil {
			t.Fatal(err)
		}
		var b ShardBuilder
		for _, rec := range randomRecords(t, uint64(n), n) {
			if err := w.Add(rec); err != nil {
				t.Fatal(err)
			}
			if err := b.Add(rec); err != nil {
				t.Fatal(err)
			}
		}
		path, err := w.Flush()
		if err != nil {
			t.Fatal(err)
		}
		file, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(file, b.Bytes()) {
			t.Fatalf("%d games: the builder's shard differs from the writer's file", n)
		}
		info, err := ReadShardInfoAt(bytes.NewReader(b.Bytes()), int64(len(b.Bytes())), "mem")
		if err != nil {
			t.Fatal(err)
		}
		if want := b.Info(); info.Records != n || info.Records != want.Records || info.Moves != want.Moves || info.FullMoves != want.FullMoves {
			t.Fatalf("%d games: ReadShardInfoAt = %+v, builder counts %+v", n, info, want)
		}
		b.Reset()
		if b.Len() != 0 {
			t.Fatal("Reset left games")
		}
		if _, err := ReadShardInfoAt(bytes.NewReader(file[:len(file)-1]), int64(len(file)-1), filepath.Base(path)); err == nil {
			t.Fatal("a truncated shard read as complete")
		}
	}
	var b ShardBuilder
	bad := validRecord()
	bad.Game = ""
	if err := b.Add(bad); err == nil || b.Len() != 0 {
		t.Fatalf("an invalid record: err %v, %d games", err, b.Len())
	}
}
