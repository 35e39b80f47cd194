package gonet

import (
	"bytes"
	"testing"

	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/model/ckpt"
)

// FuzzLoadFrom feeds arbitrary bytes (seeded with valid checkpoints and
// damaged copies) to LoadFrom: it must return an error or a network that
// evaluates, never panic.
func FuzzLoadFrom(f *testing.F) {
	for _, c := range []*ckpt.Checkpoint{
		randomCheckpoint(arch.Config{Blocks: 0, Channels: 2, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 2},
			arch.Shape{Planes: 1, Height: 2, Width: 2, Actions: 3}, 1),
		randomCheckpoint(arch.Config{Blocks: 1, Channels: 2, PolicyHead: arch.PolicySpatial, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 2, ValueMaxPool: true},
			arch.Shape{Planes: 1, Height: 2, Width: 3, Actions: 7}, 2),
	} {
		var buf bytes.Buffer
		if err := ckpt.Write(&buf, c); err != nil {
			f.Fatal(err)
		}
		good := buf.Bytes()
		f.Add(good)
		f.Add(good[:len(good)-30])
		flipped := append([]byte(nil), good...)
		flipped[len(flipped)/3] ^= 0xff
		f.Add(flipped)
	}
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := LoadFrom("fuzz", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		s := n.Shape()
		if s.Size() > 1<<16 || s.Actions > 1<<16 {
			return
		}
		if err := n.Forward(make([]float32, 2*s.Size()), 2, make([]float32, 2*s.Actions), make([]float32, 2)); err != nil {
			t.Fatalf("loaded network fails: %v", err)
		}
	})
}
