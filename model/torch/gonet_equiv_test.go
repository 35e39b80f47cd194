package torch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/model/gonet"
)

// randomNet builds a network whose every tensor is random, batch norm
// running statistics included (a fresh network has mean 0 and variance 1,
// which would not test their use).
func randomNet(t testing.TB, cfg Config, shape Shape, seed uint64) *Net {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	n, err := build(onCPUUnlessSet(cfg), shape, func(nt *namedTensor) []float32 {
		v := make([]float32, nt.NumElements())
		for i := range v {
			switch {
			case strings.HasSuffix(nt.Name, ".running_var"):
				v[i] = float32(0.2 + 2*rng.Float64())
			case strings.HasSuffix(nt.Name, ".running_mean"):
				v[i] = float32(0.5 * rng.NormFloat64())
			case nt.Init == arch.InitOne: // batch norm weight
				v[i] = float32(0.5 + rng.Float64())
			case nt.Init == arch.InitZero: // biases
				v[i] = float32(0.2 * rng.NormFloat64())
			default:
				v[i] = float32(rng.NormFloat64() * math.Sqrt(2/float64(nt.FanIn)))
			}
		}
		return v
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	return n
}

// compareGonet evaluates random observations with net (libtorch) and g
// (pure Go) and fails if any logit or value differs by 1e-4 or more.
func compareGonet(t *testing.T, net *Net, g *gonet.Net, seed uint64) {
	t.Helper()
	if g.Shape() != net.Shape() {
		t.Fatalf("gonet shape %v, libtorch %v", g.Shape(), net.Shape())
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	s := net.Shape()
	for _, count := range []int{1, 2, 7} {
		obs := make([]float32, count*s.Size())
		for i := range obs {
			if rng.IntN(2) == 0 {
				obs[i] = float32(rng.IntN(2))
			} else {
				obs[i] = rng.Float32()
			}
		}
		l0, v0 := forward(t, net, obs, count)
		l1 := make([]float32, len(l0))
		v1 := make([]float32, len(v0))
		if err := g.Forward(obs, count, l1, v1); err != nil {
			t.Fatal(err)
		}
		var dl, dv, scale float64
		for i := range l0 {
			dl = math.Max(dl, math.Abs(float64(l0[i]-l1[i])))
			scale = math.Max(scale, math.Abs(float64(l0[i])))
		}
		for i := range v0 {
			dv = math.Max(dv, math.Abs(float64(v0[i]-v1[i])))
		}
		t.Logf("%v batch %d: max difference %.3g in logits (largest logit %.3g), %.3g in values", s, count, dl, scale, dv)
		if dl >= 1e-4 || dv >= 1e-4 || math.IsNaN(dl+dv) {
			t.Errorf("batch %d: max difference %g in logits (largest logit %g), %g in values", count, dl, scale, dv)
		}
	}
}

// TestGonetMatchesLibtorch saves networks of several architectures and
// checks that the pure-Go forward pass (package model/gonet) computes what
// Net.Forward computes.
func TestGonetMatchesLibtorch(t *testing.T) {
	wyb := Config{Blocks: 3, Channels: 32, PolicyHead: PolicyDense, PolicyChannels: 4, ValueChannels: 16, ValueHidden: 64}
	maxPool := Config{Blocks: 1, Channels: 16, PolicyChannels: 4, ValueChannels: 8, ValueHidden: 16, ValueMaxPool: true}
	wide := Config{Blocks: 2, Channels: 48, PolicyChannels: 8, ValueChannels: 24, ValueHidden: 32}
	squatter := Config{Blocks: 2, Channels: 32, PolicyHead: PolicySpatial, PolicyChannels: 4, ValueChannels: 16, ValueHidden: 32}
	extra := squatter
	extra.ValueMaxPool, extra.Blocks, extra.Channels = true, 3, 24
	planes := Config{Blocks: 1, Channels: 20, PolicyHead: PolicySpatial, PolicyChannels: 3, PolicyPlanes: 2, ValueChannels: 6, ValueHidden: 10}
	owned := wyb
	owned.OwnershipHead = true
	tests := []struct {
		name  string
		cfg   Config
		shape Shape
	}{
		{"wyb dense 3x32", wyb, Shape{Planes: 15, Height: 8, Width: 8, Actions: 577}},
		{"wyb dense 3x32 ownership head", owned, Shape{Planes: 15, Height: 8, Width: 8, Actions: 577}},
		{"dense max pool 1x16", maxPool, tinyShape},
		{"dense 2x48", wide, Shape{Planes: 6, Height: 7, Width: 6, Actions: 50}},
		{"squatter spatial 2x32", squatter, Shape{Planes: 10, Height: 6, Width: 6, Actions: 36}},
		{"spatial extra action max pool 3x24", extra, Shape{Planes: 10, Height: 6, Width: 6, Actions: 37}},
		{"spatial two planes extras 1x20", planes, Shape{Planes: 4, Height: 5, Width: 7, Actions: 73}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			net := randomNet(t, tc.cfg, tc.shape, uint64(i))
			path := filepath.Join(t.TempDir(), "net.zkc")
			if err := Save(path, net, nil, Metadata{Game: "test"}); err != nil {
				t.Fatal(err)
			}
			g, err := gonet.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			want := net.Config()
			want.Device = "" // a runtime choice, not part of the checkpoint
			if g.Config() != want || g.NumParams() != net.NumParams() {
				t.Fatalf("gonet config %+v (%d parameters), libtorch %+v (%d)", g.Config(), g.NumParams(), net.Config(), net.NumParams())
			}
			compareGonet(t, net, g, uint64(i))
			if tc.cfg.PolicyHead != PolicySpatial {
				return
			}
			for _, hw := range [][2]int{{8, 8}, {5, 9}} {
				v0, err := net.WithBoard(hw[0], hw[1])
				if err != nil {
					t.Fatal(err)
				}
				v1, err := g.WithBoard(hw[0], hw[1])
				if err != nil {
					t.Fatal(err)
				}
				compareGonet(t, v0, v1, uint64(i))
			}
		})
	}
}

// TestGonetMatchesTrained checks checkpoints of trained networks (batch
// norm running statistics updated by training steps, optimizer state in
// the file).
func TestGonetMatchesTrained(t *testing.T) {
	spatial := tinyConfig()
	spatial.PolicyHead, spatial.ValueMaxPool = PolicySpatial, true
	owned := tinyConfig()
	owned.OwnershipHead = true
	for i, tc := range []struct {
		cfg   Config
		shape Shape
	}{{tinyConfig(), tinyShape}, {spatial, Shape{Planes: 3, Height: 4, Width: 4, Actions: 17}}, {owned, tinyShape}} {
		path, net, _ := trainedCheckpoint(t, t.TempDir(), tc.cfg, tc.shape)
		g, err := gonet.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		compareGonet(t, net, g, uint64(i))
	}
}

// BenchmarkGonetVsLibtorch evaluates the default Watch Your Back! network
// (configs/wyb.yaml: 3 blocks of 32 channels, dense head, 15x8x8 -> 577)
// with libtorch (Net.Forward, one thread) and with model/gonet, on the same
// weights: positions/s and the minimum and median time per call.
//
//	go test ./model -run '^$' -bench GonetVsLibtorch -cpu 1 -benchtime 1s
func BenchmarkGonetVsLibtorch(b *testing.B) {
	cfg := Config{Blocks: 3, Channels: 32, PolicyHead: PolicyDense, PolicyChannels: 4, ValueChannels: 16, ValueHidden: 64, Threads: 1}
	shape := Shape{Planes: 15, Height: 8, Width: 8, Actions: 577}
	net := randomNet(b, cfg, shape, 1)
	path := filepath.Join(b.TempDir(), "net.zkc")
	if err := Save(path, net, nil, Metadata{}); err != nil {
		b.Fatal(err)
	}
	g, err := gonet.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	impls := []struct {
		name string
		f    func(obs []float32, n int, logits, values []float32) error
	}{{"libtorch", net.Forward}, {"gonet", g.Forward}}
	for _, impl := range impls {
		for _, batch := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("%s/batch=%d", impl.name, batch), func(b *testing.B) {
				obs := randomObs(rand.New(rand.NewPCG(1, 2)), shape, batch)
				logits := make([]float32, batch*shape.Actions)
				values := make([]float32, batch)
				times := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for range b.N {
					t0 := time.Now()
					if err := impl.f(obs, batch, logits, values); err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(t0))
				}
				reportTimes(b, times, batch, "pos/s")
			})
		}
	}
}
