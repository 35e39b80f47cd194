package model

import (
	"runtime"
	"testing"

	lib "github.com/sugarme/gotch/libtch"
)

func TestProbeThreads(t *testing.T) {
	ready := make(chan bool)
	ask := make(chan bool)
	ans := make(chan int)
	go func() {
		runtime.LockOSThread()
		net, err := New(Config{Blocks: 1, Channels: 8}, Shape{Planes: 2, Height: 4, Width: 4, Actions: 3}, 1)
		if err != nil {
			panic(err)
		}
		net.Forward(make([]float32, 64), 1, make([]float32, 3), make([]float32, 1))
		ans <- lib.NumThreads()
		ready <- true
		<-ask
		ans <- lib.NumThreads()
	}()
	t.Logf("A before: %d", <-ans)
	<-ready
	runtime.LockOSThread()
	lib.SetNumThreads(2)
	t.Logf("B after set: %d", lib.NumThreads())
	ask <- true
	t.Logf("A after B's set: %d", <-ans)
}
