package data

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// randomRecord builds a valid record with arbitrary (game-free) contents,
// exercising the encoding's corners: large actions and seeds, negative
// steps, zero times, empty games, moves without policies.
func randomRecord(rng *rand.Rand) *Record {
	r := &Record{
		Game:            strings.Repeat("g", 1+rng.IntN(20)),
		EncodingVersion: rng.IntN(1 << 20),
		Returns:         [2]float32{float32(rng.IntN(3) - 1), float32(rng.Float64()*2 - 1)},
		Meta: Meta{
			NetworkStep: rng.Int64() - math.MaxInt64/2,
			Seed:        rng.Uint64(),
			Worker:      rng.IntN(math.MaxInt32),
		},
	}
	switch rng.IntN(3) {
	case 0: // zero time
	case 1:
		r.Meta.Time = time.Unix(rng.Int64N(1<<40)-1<<39, rng.Int64N(1e9)).UTC()
	case 2:
		r.Meta.Time = time.Date(1, 1, 1, 0, 0, 1, 5, time.UTC)
	}
	moves := rng.IntN(60)
	if rng.IntN(10) == 0 {
		moves = 0
	}
	maxAction := 1 + rng.IntN(5000)
	if rng.IntN(10) == 0 {
		maxAction = MaxAction
	}
	for range moves {
		r.Actions = append(r.Actions, rng.IntN(maxAction))
		m := Move{Full: rng.IntN(2) == 0}
		if m.Full || rng.IntN(2) == 0 {
			legal := make([]int, 0, 40)
			a := rng.IntN(10)
			for range 1 + rng.IntN(40) {
				if a >= maxAction {
					break
				}
				legal = append(legal, a)
				a += 1 + rng.IntN(300)
			}
			if len(legal) == 0 {
				legal = append(legal, 0)
			}
			m.Policy = randomPolicy(rng, legal)
		}
		if rng.IntN(2) == 0 {
			m.HasRootValue = true
			m.RootValue = float32(rng.Float64()*2 - 1)
		}
		r.Moves = append(r.Moves, m)
	}
	return r
}

func TestRecordRoundTrip(t *testing.T) {
	ttt := newMNK(3, 3)
	big := newMNK(7, 5)
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var rec *Record
		switch seed % 3 {
		case 0:
			rec = randomRecord(rng)
		case 1:
			rec = playRandom(t, ttt, rng, 0.5)
		case 2:
			rec = playRandom(t, big, rng, 0.75)
		}
		b, err := rec.MarshalBinary()
		if err != nil {
			t.Fatalf("seed %d: encode: %v", seed, err)
		}
		var got Record
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("seed %d: decode: %v", seed, err)
		}
		if !reflect.DeepEqual(&got, rec) {
			t.Fatalf("seed %d: round trip differs:\n got %+v\nwant %+v", seed, got, *rec)
		}
		// Every strict prefix of a payload is rejected, never misread.
		for _, cut := range []int{0, len(b) / 2, len(b) - 1} {
			if _, err := DecodeRecord(b[:cut]); err == nil {
				t.Fatalf("seed %d: payload cut to %d of %d bytes decoded without error", seed, cut, len(b))
			}
		}
	}
}

func validRecord() *Record {
	return &Record{
		Game:    "g",
		Actions: []int{4, 0},
		Moves: []Move{
			{Policy: []ActionProb{{0, 0.25}, {4, 0.75}}, Full: true, HasRootValue: true, RootValue: 0.5},
			{},
		},
		Returns: [2]float32{1, -1},
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name   string
		modify func(r *Record)
		want   string
	}{
		{"empty game", func(r *Record) { r.Game = "" }, "empty game name"},
		{"long game name", func(r *Record) { r.Game = strings.Repeat("x", 300) }, "game name of 300 bytes"},
		{"negative encoding", func(r *Record) { r.EncodingVersion = -1 }, "encoding version -1"},
		{"moves mismatch", func(r *Record) { r.Moves = r.Moves[:1] }, "1 moves but 2 actions"},
		{"negative worker", func(r *Record) { r.Meta.Worker = -3 }, "negative worker id -3"},
		{"bad return", func(r *Record) { r.Returns[1] = 2 }, "returns[1] = 2"},
		{"NaN return", func(r *Record) { r.Returns[0] = float32(math.NaN()) }, "returns[0] = NaN"},
		{"negative action", func(r *Record) { r.Actions[1] = -1 }, "move 1: action -1 out of range"},
		{"root value range", func(r *Record) { r.Moves[0].RootValue = 1.5 }, "move 0: root value 1.5"},
		{"root value without flag", func(r *Record) { r.Moves[1].RootValue = 0.5 }, "move 1: root value 0.5 set but HasRootValue is false"},
		{"full without policy", func(r *Record) { r.Moves[1].Full = true }, "move 1: full search with an empty policy target"},
		{"unsorted policy", func(r *Record) { r.Moves[0].Policy[1].Action = 0 }, "policy entry 1: action 0 not above previous action 0"},
		{"negative policy action", func(r *Record) { r.Moves[0].Policy[0].Action = -2 }, "policy entry 0: negative action -2"},
		{"negative probability", func(r *Record) { r.Moves[0].Policy[0].Prob = -0.25 }, "probability -0.25"},
		{"NaN probability", func(r *Record) { r.Moves[0].Policy[0].Prob = float32(math.NaN()) }, "probability NaN"},
		{"unnormalized policy", func(r *Record) { r.Moves[0].Policy[0].Prob = 0.5 }, "policy target sums to 1.25"},
	}
	if err := validRecord().Validate(); err != nil {
		t.Fatalf("base record invalid: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRecord()
			tt.modify(r)
			err := r.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want error containing %q", err, tt.want)
			}
			if _, err := AppendRecord(nil, r); err == nil {
				t.Fatalf("AppendRecord accepted an invalid record")
			}
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	good, err := validRecord().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// The payload of validRecord without its moves ends with the move
	// count; with moves, that byte is followed by move 0's action (one byte)
	// and flags. The returns are the 8 bytes before the move count.
	noMoves := validRecord()
	noMoves.Actions, noMoves.Moves = nil, nil
	prefix, err := noMoves.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	countAt := len(prefix) - 1
	flagsAt := countAt + 2
	returnsAt := countAt - 8
	with := func(at int, bytes ...byte) []byte {
		b := append([]byte{}, good...)
		copy(b[at:], bytes)
		return b
	}
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "game name length at byte 0: payload ends early"},
		{"trailing", append(append([]byte{}, good...), 7), "1 trailing bytes"},
		{"unknown flags", with(flagsAt, good[flagsAt]|0x80), "move 0: flags at byte"},
		{"huge move count", append(append([]byte{}, prefix[:countAt]...), 0xff, 0xff, 0x03), "move count at byte"},
		{"varint overflow", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "overflows 64 bits"},
		{"policy action overflow", append(append([]byte{}, prefix[:countAt]...), 1, 0, 0, 2, 0xfe, 0xff, 0xff, 0xff, 0x07, 0, 0, 0, 0x3f, 0xfe, 0xff, 0xff, 0xff, 0x07, 0, 0, 0, 0x3f), "policy action"},
		{"return out of range", with(returnsAt, 0, 0, 0, 0x40), "returns[0] = 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeRecord(tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("DecodeRecord() = %v, want error containing %q", err, tt.want)
			}
		})
	}
}

func FuzzDecodeRecord(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 8 {
		b, err := randomRecord(rng).MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{1, 'g', 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRecord(b)
		if err != nil {
			return
		}
		// Whatever decodes is valid and survives a round trip.
		enc, err := r.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded record does not re-encode: %v", err)
		}
		r2, err := DecodeRecord(enc)
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if !reflect.DeepEqual(r, r2) {
			t.Fatalf("round trip differs:\n%+v\n%+v", r, r2)
		}
	})
}

// TestDecoderVarint checks the decoder's signed varints against
// encoding/binary: every value round-trips and the same inputs fail.
func TestDecoderVarint(t *testing.T) {
	for _, tc := range []struct {
		name string
		buf  []byte
	}{
		{"zero", binary.AppendVarint(nil, 0)},
		{"one", binary.AppendVarint(nil, 1)},
		{"minus one", binary.AppendVarint(nil, -1)},
		{"large", binary.AppendVarint(nil, 1<<40+3)},
		{"large negative", binary.AppendVarint(nil, -(1<<40 + 3))},
		{"max", binary.AppendVarint(nil, math.MaxInt64)},
		{"min", binary.AppendVarint(nil, math.MinInt64)},
		{"empty", nil},
		{"cut short", binary.AppendVarint(nil, math.MinInt64)[:3]},
		{"overflow", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, n := binary.Varint(tc.buf)
			d := decoder{buf: tc.buf, move: -1}
			got := d.varint("field")
			if n <= 0 {
				if d.err == nil || !strings.Contains(d.err.Error(), "field") {
					t.Fatalf("varint(%x) = %d, %v; want an error naming the field", tc.buf, got, d.err)
				}
				return
			}
			if d.err != nil || got != want || d.off != n {
				t.Fatalf("varint(%x) = %d at %d, %v; want %d at %d", tc.buf, got, d.off, d.err, want, n)
			}
		})
	}
}
