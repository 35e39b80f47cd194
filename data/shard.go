package data

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

// ShardMagic starts every shard file, whatever its format version.
const ShardMagic = "ZKSHARD"

// Shard file layout constants (see the package documentation).
const (
	shardMagic   = ShardMagic
	shardVersion = 1
	headerSize   = len(shardMagic) + 1
	footerMagic  = "ZKEND\x00\x00\x01"
	// footerCounts is the size of the footer's count fields.
	footerCounts = 4 + 8 + 8
	// footerSize includes the 0x00 end-of-records marker.
	footerSize = 1 + footerCounts + 4 + len(footerMagic)
	// MaxRecordBytes bounds one record's payload.
	MaxRecordBytes = 64 << 20
	// shardExt is the extension of shard files.
	shardExt = ".zk"
)

var (
	shardName  = regexp.MustCompile(`^shard-([0-9]{6,18})\.zk$`)
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
)

// ErrCorrupt is matched (errors.Is) by every *CorruptError.
var ErrCorrupt = errors.New("corrupt shard")

// ErrTruncated is matched (errors.Is) by a *CorruptError whose file ends
// early.
var ErrTruncated = errors.New("file ends early (truncated)")

// CorruptError reports a shard file that cannot be read: truncated, with a
// checksum mismatch, or otherwise malformed.
type CorruptError struct {
	// Path is the file (or the name given to NewShardReader).
	Path string
	// Record is the index of the record being read; -1 while reading the
	// header.
	Record int
	// Footer is set when the error is in the end-of-shard footer.
	Footer bool
	// Offset is the byte offset in the file where the problem was found.
	Offset int64
	// Err is the cause.
	Err error
}

// Error names the file, the record and the cause.
func (e *CorruptError) Error() string {
	where := fmt.Sprintf("record %d", e.Record)
	switch {
	case e.Footer && e.Record >= 0:
		where = fmt.Sprintf("footer after %d records", e.Record)
	case e.Footer:
		where = "footer"
	case e.Record < 0:
		where = "header"
	}
	return fmt.Sprintf("data: corrupt shard %s: %s (byte %d): %v", e.Path, where, e.Offset, e.Err)
}

// Unwrap returns ErrCorrupt and the cause.
func (e *CorruptError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

// Shard is a shard file in a games directory.
type Shard struct {
	// Path is the file's path, Number its shard number.
	Path   string
	Number int
}

// ShardInfo holds the counts stored in a shard's footer.
type ShardInfo struct {
	Shard
	// Records is the number of games in the shard.
	Records int
	// Moves counts all moves of those games, FullMoves those with a full
	// search (usable policy targets).
	Moves, FullMoves int64
}

// ShardPath is the path of shard number n in dir.
func ShardPath(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("shard-%06d%s", n, shardExt))
}

// ListShards returns the shard files of dir in increasing number order.
// Other files, including temporary files of interrupted writes, are
// ignored. A missing directory is an error matching fs.ErrNotExist.
func ListShards(dir string) ([]Shard, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("data: list shards: %w", err)
	}
	var shards []Shard
	for _, e := range entries {
		m := shardName.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		shards = append(shards, Shard{Path: filepath.Join(dir, e.Name()), Number: n})
	}
	sort.Slice(shards, func(i, j int) bool { return shards[i].Number < shards[j].Number })
	return shards, nil
}

// ShardReader reads the records of one shard in order:
//
//	for r.Next() { use(r.Record()) }
//	if err := r.Err(); err != nil { ... }
type ShardReader struct {
	name   string
	r      *bufio.Reader
	closer io.Closer
	off    int64
	n      int
	rec    Record
	buf    []byte
	info   ShardInfo
	err    error
	done   bool
}

// OpenShard opens a shard file and checks its header.
func OpenShard(path string) (*ShardReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: open shard: %w", err)
	}
	r, err := NewShardReader(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NewShardReader reads a shard from r; name is used in errors. It checks the
// header.
func NewShardReader(r io.Reader, name string) (*ShardReader, error) {
	s := &ShardReader{name: name, r: bufio.NewReaderSize(r, 64<<10), n: -1}
	var h [headerSize]byte
	if _, err := io.ReadFull(s.r, h[:]); err != nil {
		return nil, s.corrupt(readErr(err))
	}
	if string(h[:len(shardMagic)]) != shardMagic {
		return nil, s.corrupt(fmt.Errorf("bad magic %q, not a shard file", h[:len(shardMagic)]))
	}
	if v := h[len(shardMagic)]; v != shardVersion {
		return nil, s.corrupt(fmt.Errorf("format version %d, this build reads version %d", v, shardVersion))
	}
	s.off = int64(headerSize)
	s.n = 0
	s.info.Path = name
	return s, nil
}

// Next decodes the next record. It returns false at the end of the shard or
// on an error (see Err).
func (s *ShardReader) Next() bool {
	if s.done || s.err != nil {
		return false
	}
	n, err := binary.ReadUvarint(s.r)
	if err != nil {
		s.err = s.corrupt(fmt.Errorf("reading record length: %w", readErr(err)))
		return false
	}
	lenBytes := int64(uvarintLen(n))
	if n == 0 {
		s.readFooter()
		return false
	}
	if n > MaxRecordBytes {
		s.err = s.corrupt(fmt.Errorf("record length %d exceeds %d", n, MaxRecordBytes))
		return false
	}
	if cap(s.buf) < int(n)+4 {
		s.buf = make([]byte, int(n)+4)
	}
	frame := s.buf[:int(n)+4]
	if _, err := io.ReadFull(s.r, frame); err != nil {
		s.err = s.corrupt(readErr(err))
		return false
	}
	payload := frame[:n]
	if got, want := crc32.Checksum(payload, castagnoli), binary.LittleEndian.Uint32(frame[n:]); got != want {
		s.err = s.corrupt(fmt.Errorf("checksum mismatch (stored %08x, computed %08x)", want, got))
		return false
	}
	rec, err := DecodeRecord(payload)
	if err != nil {
		s.err = s.corrupt(err)
		return false
	}
	s.rec = rec
	s.off += lenBytes + int64(len(frame))
	s.n++
	s.info.Records++
	s.info.Moves += int64(len(rec.Moves))
	s.info.FullMoves += int64(rec.FullMoves())
	return true
}

// Record returns the record decoded by the last successful Next. The record
// does not share memory with the reader.
func (s *ShardReader) Record() Record { return s.rec }

// Index is the index of the record returned by Record.
func (s *ShardReader) Index() int { return s.n - 1 }

// Err returns the error that stopped Next, or nil at a clean end of shard.
func (s *ShardReader) Err() error { return s.err }

// Info returns the counts read so far (all of them once Next has returned
// false with a nil Err).
func (s *ShardReader) Info() ShardInfo { return s.info }

// Close closes the file opened by OpenShard.
func (s *ShardReader) Close() error {
	if s.closer == nil {
		return nil
	}
	err := s.closer.Close()
	s.closer = nil
	return err
}

func (s *ShardReader) readFooter() {
	s.off++ // the 0x00 marker
	var f [footerSize - 1]byte
	if _, err := io.ReadFull(s.r, f[:]); err != nil {
		s.err = s.corruptFooter(readErr(err))
		return
	}
	info, err := parseFooter(f[:])
	if err != nil {
		s.err = s.corruptFooter(err)
		return
	}
	if info.Records != s.info.Records || info.Moves != s.info.Moves || info.FullMoves != s.info.FullMoves {
		s.err = s.corruptFooter(fmt.Errorf("footer counts %d records, %d moves, %d full moves; the shard holds %d, %d, %d",
			info.Records, info.Moves, info.FullMoves, s.info.Records, s.info.Moves, s.info.FullMoves))
		return
	}
	s.off += int64(len(f))
	if _, err := s.r.ReadByte(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the footer")
		}
		s.err = s.corruptFooter(err)
		return
	}
	s.done = true
}

// parseFooter checks the footer (without its 0x00 marker) and returns its
// counts.
func parseFooter(f []byte) (ShardInfo, error) {
	counts := f[:footerCounts]
	sum := binary.LittleEndian.Uint32(f[footerCounts:])
	if string(f[footerCounts+4:]) != footerMagic {
		return ShardInfo{}, fmt.Errorf("bad footer magic %q", f[footerCounts+4:])
	}
	if got := crc32.Checksum(counts, castagnoli); got != sum {
		return ShardInfo{}, fmt.Errorf("footer checksum mismatch (stored %08x, computed %08x)", sum, got)
	}
	var info ShardInfo
	info.Records = int(binary.LittleEndian.Uint32(counts))
	info.Moves = int64(binary.LittleEndian.Uint64(counts[4:]))
	info.FullMoves = int64(binary.LittleEndian.Uint64(counts[12:]))
	if info.Moves < 0 || info.FullMoves < 0 || info.FullMoves > info.Moves {
		return ShardInfo{}, fmt.Errorf("footer counts %d moves, %d full moves: inconsistent", info.Moves, info.FullMoves)
	}
	return info, nil
}

// appendFooter appends the end-of-records marker and the footer.
func appendFooter(dst []byte, records int, moves, full int64) []byte {
	dst = append(dst, 0)
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(records))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(moves))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(full))
	dst = binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
	return append(dst, footerMagic...)
}

// appendFrame appends one record frame: length, payload, checksum.
func appendFrame(dst, payload []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(payload)))
	dst = append(dst, payload...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(payload, castagnoli))
}

func (s *ShardReader) corrupt(err error) error {
	return &CorruptError{Path: s.name, Record: s.n, Offset: s.off, Err: err}
}

func (s *ShardReader) corruptFooter(err error) error {
	return &CorruptError{Path: s.name, Record: s.n, Footer: true, Offset: s.off, Err: err}
}

// readErr turns an end of file inside a structure into ErrTruncated.
func readErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ErrTruncated
	}
	return err
}

func uvarintLen(v uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], v)
}

// ReadShard reads every record of a shard file.
func ReadShard(path string) ([]Record, error) {
	r, err := OpenShard(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var recs []Record
	for r.Next() {
		recs = append(recs, r.Record())
	}
	return recs, r.Err()
}

// ReadShardInfo returns a shard's counts from its header and footer without
// decoding its records.
func ReadShardInfo(sh Shard) (ShardInfo, error) {
	f, err := os.Open(sh.Path)
	if err != nil {
		return ShardInfo{}, fmt.Errorf("data: open shard: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ShardInfo{}, fmt.Errorf("data: stat shard: %w", err)
	}
	info, err := ReadShardInfoAt(f, st.Size(), sh.Path)
	info.Shard = sh
	return info, err
}

// ReadShardInfoAt returns the counts of the shard of size bytes that r
// reads (a file, or an object in a store read by ranges) from its header
// and footer, without decoding its records; name is used in errors and as
// the info's Path.
func ReadShardInfoAt(r io.ReaderAt, size int64, name string) (ShardInfo, error) {
	bad := func(off int64, err error) error {
		return &CorruptError{Path: name, Record: -1, Footer: off > 0, Offset: off, Err: err}
	}
	if size < int64(headerSize+footerSize) {
		return ShardInfo{}, bad(size, ErrTruncated)
	}
	var h [headerSize]byte
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return ShardInfo{}, bad(0, readErr(err))
	}
	if string(h[:len(shardMagic)]) != shardMagic || h[len(shardMagic)] != shardVersion {
		return ShardInfo{}, bad(0, fmt.Errorf("bad header %q, not a version %d shard", h[:], shardVersion))
	}
	var foot [footerSize]byte
	off := size - int64(footerSize)
	if _, err := r.ReadAt(foot[:], off); err != nil {
		return ShardInfo{}, bad(off, readErr(err))
	}
	if foot[0] != 0 {
		return ShardInfo{}, bad(off, fmt.Errorf("no end-of-records marker before the footer: %w", ErrTruncated))
	}
	info, err := parseFooter(foot[1:])
	if err != nil {
		return ShardInfo{}, bad(off, fmt.Errorf("no valid footer (truncated or corrupt file): %w", err))
	}
	info.Path = name
	return info, nil
}
