package gonet

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/model/ckpt"
)

var (
	wybShape      = arch.Shape{Planes: 15, Height: 8, Width: 8, Actions: 577}
	squatterShape = arch.Shape{Planes: 10, Height: 6, Width: 6, Actions: 36}
	wybConfig     = arch.Config{Blocks: 3, Channels: 32, PolicyHead: arch.PolicyDense, PolicyChannels: 4,
		PolicyPlanes: 1, ValueChannels: 16, ValueHidden: 64}
	spatialConfig = arch.Config{Blocks: 2, Channels: 24, PolicyHead: arch.PolicySpatial, PolicyChannels: 4,
		PolicyPlanes: 1, ValueChannels: 8, ValueHidden: 32, ValueMaxPool: true}
	tinyConfig = arch.Config{Blocks: 1, Channels: 8, PolicyChannels: 2, ValueChannels: 4, ValueHidden: 8}
	tinyShape  = arch.Shape{Planes: 3, Height: 4, Width: 5, Actions: 7}
)

type archCase struct {
	name  string
	cfg   arch.Config
	shape arch.Shape
}

func archCases() []archCase {
	twoPlanes := spatialConfig
	twoPlanes.PolicyPlanes, twoPlanes.ValueMaxPool, twoPlanes.Blocks = 2, false, 1
	wide := wybConfig
	wide.Channels, wide.Blocks, wide.ValueMaxPool = 20, 2, true
	return []archCase{
		{"tiny dense", tinyConfig, tinyShape},
		{"wyb dense", wybConfig, wybShape},
		{"dense maxpool odd board", wide, arch.Shape{Planes: 5, Height: 7, Width: 5, Actions: 40}},
		{"squatter spatial", spatialConfig, squatterShape},
		{"spatial extra action", spatialConfig, arch.Shape{Planes: 10, Height: 6, Width: 6, Actions: 37}},
		{"spatial two planes extras", twoPlanes, arch.Shape{Planes: 4, Height: 5, Width: 3, Actions: 33}},
		{"one-row board", spatialConfig, arch.Shape{Planes: 2, Height: 1, Width: 6, Actions: 7}},
		{"one-column board", tinyConfig, arch.Shape{Planes: 2, Height: 5, Width: 1, Actions: 3}},
		{"no blocks", arch.Config{Blocks: 0, Channels: 16, PolicyChannels: 3, ValueChannels: 5, ValueHidden: 7, ValueMaxPool: true},
			arch.Shape{Planes: 2, Height: 8, Width: 8, Actions: 65}},
	}
}

// TestMatchesReference compares Forward with a naive float64 forward pass
// over the unfolded checkpoint, for several architectures and batch sizes.
func TestMatchesReference(t *testing.T) {
	for i, tc := range archCases() {
		t.Run(tc.name, func(t *testing.T) {
			c := randomCheckpoint(tc.cfg, tc.shape, uint64(i))
			n := mustLoad(t, writeCheckpoint(t, c))
			if n.Shape() != tc.shape || n.Config() != tc.cfg.WithDefaults() {
				t.Fatalf("loaded %v %+v, want %v %+v", n.Shape(), n.Config(), tc.shape, tc.cfg.WithDefaults())
			}
			rng := rand.New(rand.NewPCG(uint64(i), 5))
			for _, count := range []int{1, 2, 7, 17} {
				obs := randomObs(rng, tc.shape, count)
				logits, values := forward(t, n, obs, count)
				rl, rv := refForward(c, tc.shape, obs, count)
				if d := maxDiff(logits, rl); d > 1e-4 {
					t.Errorf("batch %d: logits differ from the reference by %g", count, d)
				}
				if d := maxDiff(values, rv); d > 1e-5 {
					t.Errorf("batch %d: values differ from the reference by %g", count, d)
				}
			}
		})
	}
}

func forward(t testing.TB, n *Net, obs []float32, count int) (logits, values []float32) {
	t.Helper()
	logits = make([]float32, count*n.Shape().Actions)
	values = make([]float32, count)
	if err := n.Forward(obs, count, logits, values); err != nil {
		t.Fatal(err)
	}
	return logits, values
}

// TestGemm compares both matrix kernels with a naive product, over sizes
// that exercise every tile edge, with and without bias, accumulation and
// ReLU.
func TestGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][3]int{{1, 1, 1}, {4, 16, 1}, {5, 17, 3}, {3, 15, 9}, {8, 64, 27}, {32, 448, 288}, {7, 577, 256}, {6, 40, 0}} {
		m, n, k := sz[0], sz[1], sz[2]
		lda, ldb, ldc := k+3, n+5, n+2
		a := make([]float32, m*lda)
		b := make([]float32, max(k, 1)*ldb)
		c0 := make([]float32, m*ldc)
		bias := make([]float32, m)
		for _, v := range [][]float32{a, b, c0, bias} {
			for i := range v {
				v[i] = float32(rng.NormFloat64())
			}
		}
		for flags := 0; flags < 4; flags++ {
			for _, withBias := range []bool{false, true} {
				want := make([]float64, len(c0))
				for i := range want {
					want[i] = float64(c0[i])
				}
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						s := 0.0
						if flags&gemmAcc != 0 {
							s = float64(c0[i*ldc+j])
						}
						if withBias {
							s += float64(bias[i])
						}
						for p := 0; p < k; p++ {
							s += float64(a[i*lda+p]) * float64(b[p*ldb+j])
						}
						if flags&gemmReLU != 0 {
							s = math.Max(s, 0)
						}
						want[i*ldc+j] = s
					}
				}
				bs := bias
				if !withBias {
					bs = nil
				}
				for _, f := range []struct {
					name string
					f    gemmFunc
				}{{"go", gemmGo}, {"asm", gemmAsm}, {"gemm", gemm}} {
					c := append([]float32(nil), c0...)
					f.f(m, n, k, a, lda, b, ldb, c, ldc, bs, flags)
					if d := maxDiff(c, want); d > 1e-3 {
						t.Errorf("%s %dx%dx%d flags %d bias %v: differs by %g", f.name, m, n, k, flags, withBias, d)
					}
				}
			}
		}
	}
	// ReLU keeps NaN, like libtorch's.
	c := []float32{float32(math.NaN())}
	for i := 0; i < 15; i++ {
		c = append(c, -1)
	}
	gemm(1, 16, 1, []float32{0}, 1, make([]float32, 16), 16, c, 16, nil, gemmAcc|gemmReLU)
	if !math.IsNaN(float64(c[0])) || c[1] != 0 {
		t.Errorf("ReLU of NaN, -1: %v, %v", c[0], c[1])
	}
	t.Logf("assembly kernels in use: %v", useAsm)
}

func TestWithBoard(t *testing.T) {
	c := randomCheckpoint(spatialConfig, arch.Shape{Planes: 10, Height: 6, Width: 6, Actions: 37}, 3)
	n := mustLoad(t, writeCheckpoint(t, c))
	for _, hw := range [][2]int{{8, 8}, {5, 7}, {6, 6}} {
		v, err := n.WithBoard(hw[0], hw[1])
		if err != nil {
			t.Fatal(err)
		}
		want := arch.Shape{Planes: 10, Height: hw[0], Width: hw[1], Actions: hw[0]*hw[1] + 1}
		if v.Shape() != want {
			t.Fatalf("WithBoard(%d, %d): shape %v, want %v", hw[0], hw[1], v.Shape(), want)
		}
		obs := randomObs(rand.New(rand.NewPCG(1, 1)), want, 3)
		logits, values := forward(t, v, obs, 3)
		rl, rv := refForward(c, want, obs, 3)
		if d := math.Max(maxDiff(logits, rl), maxDiff(values, rv)); d > 1e-4 {
			t.Errorf("WithBoard(%d, %d): differs from the reference by %g", hw[0], hw[1], d)
		}
	}
	if _, err := n.WithBoard(0, 6); err == nil || !strings.Contains(err.Error(), "height must be in [1, 64], got 0") {
		t.Errorf("WithBoard(0, 6): %v", err)
	}
	dense := mustLoad(t, writeCheckpoint(t, randomCheckpoint(tinyConfig, tinyShape, 1)))
	if _, err := dense.WithBoard(6, 6); err == nil || !strings.Contains(err.Error(), `the "dense" policy head is tied to its 4x5 board`) {
		t.Errorf("WithBoard on a dense head: %v", err)
	}
}

func TestForwardErrors(t *testing.T) {
	n := mustLoad(t, writeCheckpoint(t, randomCheckpoint(tinyConfig, tinyShape, 1)))
	size, na := tinyShape.Size(), tinyShape.Actions
	obs, logits, values := make([]float32, 3*size), make([]float32, 3*na), make([]float32, 3)
	tests := []struct {
		name               string
		count              int
		obs, logits, value []float32
		want               string
	}{
		{"zero", 0, obs, logits, values, "batch of 0 observations"},
		{"negative", -2, obs, logits, values, "batch of -2 observations"},
		{"short obs", 3, obs[:3*size-1], logits, values, "batch of 3 needs 180 observation, 21 logit and 3 value slots; got 179, 21 and 3"},
		{"short logits", 3, obs, logits[:20], values, "got 180, 20 and 3"},
		{"short values", 3, obs, logits, values[:2], "got 180, 21 and 2"},
		{"nil slices", 1, nil, nil, nil, "got 0, 0 and 0"},
		{"huge count", math.MaxInt, obs, logits, values, "batch of 9223372036854775807 needs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := n.Forward(tc.obs, tc.count, tc.logits, tc.value)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// Longer slices are fine: only the first count entries are used.
	if err := n.Forward(obs, 2, logits, values); err != nil {
		t.Fatal(err)
	}
	var zero Net
	if err := zero.Forward(obs, 1, logits, values); err == nil {
		t.Fatal("the zero Net evaluated")
	}
	if _, err := zero.WithBoard(3, 3); err == nil {
		t.Fatal("WithBoard on the zero Net")
	}
	var nilNet *Net
	if err := nilNet.Forward(obs, 1, logits, values); err == nil {
		t.Fatal("a nil Net evaluated")
	}
}

// TestLoadErrors damages checkpoints: each must be refused with an error
// naming the file and the problem.
func TestLoadErrors(t *testing.T) {
	good := randomCheckpoint(tinyConfig, tinyShape, 1)
	var buf bytes.Buffer
	if err := ckpt.Write(&buf, good); err != nil {
		t.Fatal(err)
	}
	goodBytes := buf.Bytes()
	edit := func(f func(c *ckpt.Checkpoint)) []byte {
		c := randomCheckpoint(tinyConfig, tinyShape, 1)
		f(c)
		var b bytes.Buffer
		if err := ckpt.Write(&b, c); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a readable zerokit checkpoint"},
		{"truncated", goodBytes[:len(goodBytes)/2], "not a readable zerokit checkpoint"},
		{"text", []byte("not a checkpoint\n"), "not a readable zerokit checkpoint"},
		{"wrong tensor shape", edit(func(c *ckpt.Checkpoint) {
			c.Tensors[0].Shape = []int64{8, 3, 1, 9}
		}), "tensor 0 is stem.conv.weight [8 3 1 9]; the network's is stem.conv.weight [8 3 3 3]"},
		{"missing tensor", edit(func(c *ckpt.Checkpoint) {
			c.Tensors = c.Tensors[:len(c.Tensors)-1]
		}), "tensor list ends after 30 tensors; the network has 31 (next: value.fc2.bias)"},
		{"nan", edit(func(c *ckpt.Checkpoint) {
			c.Tensors[3].Data[2] = float32(math.NaN())
		}), "tensor stem.bn.running_mean: value 2 is NaN"},
		{"negative variance", edit(func(c *ckpt.Checkpoint) {
			c.Tensors[4].Data[1] = -1
		}), "tensor stem.bn.running_var: value 1 is negative (-1)"},
		{"bad architecture", edit(func(c *ckpt.Checkpoint) {
			c.Header.Network.PolicyHead = "conv"
		}), `policy_head must be "dense" or "spatial", got "conv"`},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".zkc")
			if err := os.WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("error %v, want it to name %s and contain %q", err, p, tc.want)
			}
			_, err = LoadFrom("embedded", bytes.NewReader(tc.data), int64(len(tc.data)))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "embedded") {
				t.Fatalf("LoadFrom: error %v, want it to name the checkpoint and contain %q", err, tc.want)
			}
		})
	}
	if _, err := Load(filepath.Join(dir, "missing.zkc")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing file: %v", err)
	}
}

// TestFromCheckpointErrors checks the tensors of a checkpoint built in
// memory, by name and shape.
func TestFromCheckpointErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(c *ckpt.Checkpoint)
		want string
	}{
		{"missing", func(c *ckpt.Checkpoint) { c.Tensors = c.Tensors[1:] }, "tensor stem.conv.weight [8 3 3 3] missing"},
		{"shape", func(c *ckpt.Checkpoint) { c.Tensors[5].Shape = []int64{8, 8, 1, 9} },
			"tensor blocks.0.conv1.weight has shape [8 8 1 9]; the network's is [8 8 3 3]"},
		{"values", func(c *ckpt.Checkpoint) { c.Tensors[1].Data = c.Tensors[1].Data[:3] },
			"tensor stem.bn.weight has 3 values; its shape [8] needs 8"},
		{"extra", func(c *ckpt.Checkpoint) {
			c.Tensors = append(c.Tensors, ckpt.Tensor{Name: "policy.extra.weight", Shape: []int64{1}, Data: []float32{0}})
		}, "tensor policy.extra.weight is not one of the network's"},
		{"twice", func(c *ckpt.Checkpoint) { c.Tensors = append(c.Tensors, c.Tensors[0]) }, "tensor stem.conv.weight appears twice"},
		{"inf", func(c *ckpt.Checkpoint) { c.Tensors[0].Data[0] = float32(math.Inf(1)) }, "tensor stem.conv.weight: value 0 is +Inf"},
		{"shape metadata", func(c *ckpt.Checkpoint) { c.Header.Shape.Planes = 0 }, "model shape: planes must be in [1, 1024], got 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := randomCheckpoint(tinyConfig, tinyShape, 1)
			tc.edit(c)
			_, err := FromCheckpoint(c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// Tensors in another order are fine: they are matched by name.
	c := randomCheckpoint(tinyConfig, tinyShape, 1)
	c.Tensors[0], c.Tensors[len(c.Tensors)-1] = c.Tensors[len(c.Tensors)-1], c.Tensors[0]
	if _, err := FromCheckpoint(c); err != nil {
		t.Fatal(err)
	}
	if _, err := FromCheckpoint(nil); err == nil {
		t.Fatal("nil checkpoint accepted")
	}
}

// TestConcurrentForward runs views of one network from several goroutines
// at once: every result must equal the sequential one.
func TestConcurrentForward(t *testing.T) {
	c := randomCheckpoint(spatialConfig, squatterShape, 9)
	n := mustLoad(t, writeCheckpoint(t, c))
	big, err := n.WithBoard(8, 8)
	if err != nil {
		t.Fatal(err)
	}
	nets := []*Net{n, big}
	type job struct {
		net         *Net
		obs         []float32
		count       int
		logits, val []float32
	}
	rng := rand.New(rand.NewPCG(2, 2))
	var jobs []job
	for i := 0; i < 16; i++ {
		net := nets[i%2]
		count := 1 + i%5
		obs := randomObs(rng, net.Shape(), count)
		l, v := forward(t, net, obs, count)
		jobs = append(jobs, job{net, obs, count, l, v})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 10; r++ {
				j := jobs[(g+r)%len(jobs)]
				l := make([]float32, len(j.logits))
				v := make([]float32, len(j.val))
				if err := j.net.Forward(j.obs, j.count, l, v); err != nil {
					errs <- err
					return
				}
				if !slices.Equal(l, j.logits) || !slices.Equal(v, j.val) {
					errs <- fmt.Errorf("goroutine %d round %d: results differ from the sequential ones", g, r)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestForwardDoesNotAllocate(t *testing.T) {
	n := mustLoad(t, writeCheckpoint(t, randomCheckpoint(wybConfig, wybShape, 1)))
	obs := randomObs(rand.New(rand.NewPCG(1, 1)), wybShape, 8)
	logits, values := make([]float32, 8*wybShape.Actions), make([]float32, 8)
	forward(t, n, obs, 8)
	allocs := testing.AllocsPerRun(20, func() {
		if err := n.Forward(obs, 8, logits, values); err != nil {
			t.Fatal(err)
		}
	})
	// The pool may drop its scratch at a garbage collection.
	if allocs > 1 {
		t.Fatalf("%v allocations per Forward", allocs)
	}
}

// TestResidentMemory loads the default Watch Your Back! network and
// evaluates batches of 64: the whole test process must stay far below the
// ~180 MB of a libtorch process.
func TestResidentMemory(t *testing.T) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	n := mustLoad(t, writeCheckpoint(t, randomCheckpoint(wybConfig, wybShape, 1)))
	obs := randomObs(rand.New(rand.NewPCG(1, 1)), wybShape, 64)
	for range 3 {
		forward(t, n, obs, 64)
	}
	status, _ = os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int
			fmt.Sscan(rest, &kb)
			t.Logf("peak resident memory of the test process: %.1f MB", float64(kb)/1024)
			if kb > 100<<10 {
				t.Fatalf("peak resident memory %d kB", kb)
			}
		}
	}
}
