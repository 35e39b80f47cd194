package model

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

func TestProbeTrainLeak(t *testing.T) {
	shape := Shape{Planes: 4, Height: 8, Width: 8, Actions: 65}
	n := newTestNet(t, Config{Blocks: 2, Channels: 32}, shape)
	tr, err := NewTrainer(n, DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	b := fixedBatch(rand.New(rand.NewPCG(3, 4)), shape, 16)
	for r := 0; r < 16; r++ {
		for i := 0; i < 500; i++ {
			if _, err := tr.Step(b); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		t.Logf("round %d rss %d KB", r, residentBytes(t)>>10)
	}
}
