// Package data stores self-play games and turns them into training batches.
//
// A Record is one finished self-play game: the actions played, the search
// policy target of every move (sparse, over the legal actions), whether that
// target came from a full search (playout cap randomization), the root value
// estimate, the final returns and some metadata. Records are kept as action
// lists, not as tensors: Replay re-derives every position by applying the
// actions through the game engine, so observation encodings can change
// without regenerating data.
//
// Records are stored in shard files (shard-000001.zk, shard-000002.zk, ...)
// written atomically by a Writer and read back by a ShardReader. A Buffer is
// the replay buffer: a sliding window over the most recent positions whose
// size grows with the number of positions generated (see WindowConfig),
// sampled uniformly into flat training batches with random exact-symmetry
// augmentation.
//
// # Shard file format, version 1
//
// All integers are little-endian; "uvarint" and "varint" are the
// encoding/binary variable-length encodings (varint is zig-zag signed).
//
//	header  : "ZKSHARD" (7 bytes) | format version (1 byte, = 1)
//	record  : uvarint n (n >= 1) | payload (n bytes) | crc32c(payload) (uint32)
//	  ...     (one per record)
//	footer  : 0x00 | records (uint32) | moves (uint64) | full moves (uint64)
//	          | crc32c of the 20 count bytes (uint32) | "ZKEND\x00\x00\x01"
//
// The footer has a fixed size, so ReadShardInfo reads a shard's counts
// without decoding it. A file that ends before the footer is truncated; a
// checksum mismatch is corruption; both are reported as a *CorruptError
// naming the file and the record index.
//
// A record payload (see AppendRecord) is:
//
//	uvarint len(game) | game name bytes | uvarint encoding version
//	| varint network step | uvarint seed | uvarint worker
//	| varint unix seconds | uvarint nanoseconds
//	| float32 returns[0] | float32 returns[1] | uvarint moves
//	then per move:
//	  uvarint action | flags (1 byte: bit 0 full search, bit 1 has root value)
//	  | [float32 root value, if bit 1] | uvarint policy entries
//	  | per entry: uvarint (action - previous entry's action - 1, the first
//	    entry storing its action) | float32 probability
//
// Policy entries are stored in strictly increasing action order, so the
// deltas are non-negative and duplicates cannot be represented.
package data
