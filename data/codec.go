package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// Record payload limits, enforced by the decoder so that arbitrary bytes can
// never make it allocate without bound.
const (
	maxGameName = 256
	// maxUnixSeconds bounds Meta.Time (about 146 billion years either side
	// of 1970), far inside what time.Time represents.
	maxUnixSeconds    = 1 << 62
	moveFlagFull      = 1 << 0
	moveFlagRootValue = 1 << 1
	moveFlagsKnown    = moveFlagFull | moveFlagRootValue
	// minMoveBytes is the smallest encoding of a move: action, flags and
	// policy length, one byte each.
	minMoveBytes = 3
	// minEntryBytes is the smallest encoding of a policy entry.
	minEntryBytes = 5
)

// errShort is the cause of a decode error when the payload ends early.
var errShort = errors.New("payload ends early")

// AppendRecord validates r and appends its payload encoding (see the package
// documentation) to dst.
func AppendRecord(dst []byte, r *Record) ([]byte, error) {
	if err := r.Validate(); err != nil {
		return dst, err
	}
	dst = binary.AppendUvarint(dst, uint64(len(r.Game)))
	dst = append(dst, r.Game...)
	dst = binary.AppendUvarint(dst, uint64(r.EncodingVersion))
	dst = binary.AppendVarint(dst, r.Meta.NetworkStep)
	dst = binary.AppendUvarint(dst, r.Meta.Seed)
	dst = binary.AppendUvarint(dst, uint64(r.Meta.Worker))
	dst = binary.AppendVarint(dst, r.Meta.Time.Unix())
	dst = binary.AppendUvarint(dst, uint64(r.Meta.Time.Nanosecond()))
	dst = appendFloat32(dst, r.Returns[0])
	dst = appendFloat32(dst, r.Returns[1])
	dst = binary.AppendUvarint(dst, uint64(len(r.Moves)))
	for i := range r.Moves {
		m := &r.Moves[i]
		dst = binary.AppendUvarint(dst, uint64(r.Actions[i]))
		var flags byte
		if m.Full {
			flags |= moveFlagFull
		}
		if m.HasRootValue {
			flags |= moveFlagRootValue
		}
		dst = append(dst, flags)
		if m.HasRootValue {
			dst = appendFloat32(dst, m.RootValue)
		}
		dst = binary.AppendUvarint(dst, uint64(len(m.Policy)))
		prev := int32(-1)
		for _, e := range m.Policy {
			dst = binary.AppendUvarint(dst, uint64(e.Action-prev-1))
			prev = e.Action
			dst = appendFloat32(dst, e.Prob)
		}
	}
	return dst, nil
}

// MarshalBinary encodes the record's payload.
func (r *Record) MarshalBinary() ([]byte, error) { return AppendRecord(nil, r) }

// UnmarshalBinary decodes a payload written by MarshalBinary into r.
func (r *Record) UnmarshalBinary(b []byte) error {
	rec, err := DecodeRecord(b)
	if err != nil {
		return err
	}
	*r = rec
	return nil
}

// DecodeRecord decodes one record payload written by AppendRecord. It never
// panics: malformed input is an error naming the field and byte offset, and
// a decoded record always passes Validate.
func DecodeRecord(b []byte) (Record, error) {
	d := decoder{buf: b, move: -1}
	var r Record
	n := d.uvarint("game name length", maxGameName)
	r.Game = string(d.bytes("game name", int(n)))
	r.EncodingVersion = int(d.uvarint("encoding version", math.MaxInt32))
	r.Meta.NetworkStep = d.varint("network step")
	r.Meta.Seed = d.uvarint("seed", math.MaxUint64)
	r.Meta.Worker = int(d.uvarint("worker", math.MaxInt32))
	sec := d.varint("time seconds")
	if (sec < -maxUnixSeconds || sec > maxUnixSeconds) && d.err == nil {
		d.fail("time seconds", fmt.Errorf("%d out of range", sec))
	}
	nsec := d.uvarint("time nanoseconds", 999_999_999)
	if d.err == nil {
		r.Meta.Time = time.Unix(sec, int64(nsec)).UTC()
	}
	r.Returns[0] = d.float32("returns[0]")
	r.Returns[1] = d.float32("returns[1]")
	moves := int(d.uvarint("move count", uint64(d.remaining()/minMoveBytes)))
	if d.err != nil {
		return Record{}, d.err
	}
	if moves > 0 {
		r.Actions = make([]int, moves)
		r.Moves = make([]Move, moves)
	}
	// One backing array for every policy entry; remaining/minEntryBytes
	// bounds the entry count, so it never grows.
	entries := make([]ActionProb, 0, d.remaining()/minEntryBytes)
	for i := 0; i < moves && d.err == nil; i++ {
		d.move = i
		m := &r.Moves[i]
		r.Actions[i] = int(d.uvarint("action", MaxAction))
		flags := d.byte("flags")
		if flags&^moveFlagsKnown != 0 && d.err == nil {
			d.fail("flags", fmt.Errorf("unknown flag bits %#02x", flags&^moveFlagsKnown))
		}
		m.Full = flags&moveFlagFull != 0
		m.HasRootValue = flags&moveFlagRootValue != 0
		if m.HasRootValue {
			m.RootValue = d.float32("root value")
		}
		k := int(d.uvarint("policy length", uint64(d.remaining()/minEntryBytes)))
		if d.err != nil || k == 0 {
			continue
		}
		start := len(entries)
		prev := int64(-1)
		for j := 0; j < k && d.err == nil; j++ {
			a := prev + 1 + int64(d.uvarint("policy action", MaxAction))
			if a > MaxAction && d.err == nil {
				d.fail("policy action", fmt.Errorf("action %d out of range", a))
			}
			prev = a
			entries = append(entries, ActionProb{Action: int32(a), Prob: d.float32("policy probability")})
		}
		m.Policy = entries[start:len(entries):len(entries)]
	}
	d.move = -1
	if d.err == nil && d.remaining() != 0 {
		d.fail("end", fmt.Errorf("%d trailing bytes", d.remaining()))
	}
	if d.err != nil {
		return Record{}, d.err
	}
	if err := r.Validate(); err != nil {
		return Record{}, fmt.Errorf("data: decode record: %w", err)
	}
	return r, nil
}

// decoder reads a record payload, remembering the first error; reads after
// an error return zero values.
type decoder struct {
	buf  []byte
	off  int
	move int // move being decoded, or -1
	err  error
}

func (d *decoder) remaining() int { return len(d.buf) - d.off }

func (d *decoder) fail(field string, cause error) {
	if d.err != nil {
		return
	}
	where := ""
	if d.move >= 0 {
		where = fmt.Sprintf("move %d: ", d.move)
	}
	d.err = fmt.Errorf("data: decode record: %s%s at byte %d: %w", where, field, d.off, cause)
}

func (d *decoder) uvarint(field string, max uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf[d.off:])
	if n <= 0 {
		if n == 0 {
			d.fail(field, errShort)
		} else {
			d.fail(field, errors.New("varint overflows 64 bits"))
		}
		return 0
	}
	if v > max {
		d.fail(field, fmt.Errorf("value %d exceeds %d", v, max))
		return 0
	}
	d.off += n
	return v
}

// varint reads a signed varint: a uvarint holding the zig-zag encoding
// that binary.AppendVarint writes.
func (d *decoder) varint(field string) int64 {
	u := d.uvarint(field, math.MaxUint64)
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (d *decoder) byte(field string) byte {
	if d.err != nil {
		return 0
	}
	if d.remaining() < 1 {
		d.fail(field, errShort)
		return 0
	}
	b := d.buf[d.off]
	d.off++
	return b
}

func (d *decoder) bytes(field string, n int) []byte {
	if d.err != nil {
		return nil
	}
	if d.remaining() < n {
		d.fail(field, errShort)
		return nil
	}
	b := d.buf[d.off : d.off+n]
	d.off += n
	return b
}

func (d *decoder) float32(field string) float32 {
	b := d.bytes(field, 4)
	if b == nil {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}

func appendFloat32(dst []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
}
