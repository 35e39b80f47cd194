package torch

import (
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/gonet"
)

func TestResolveDevice(t *testing.T) {
	gpus := CUDADevices()
	t.Logf("libtorch sees %d CUDA device(s)", gpus)
	tests := []struct {
		name, want, err string
	}{
		{name: "cpu", want: "cpu"},
		{name: "CPU", want: "cpu"},
		{name: "tpu", err: `device "tpu": want auto | cpu | cuda | cuda:N`},
		{name: "cuda:1024", err: `device "cuda:1024"`},
	}
	if gpus == 0 {
		tests = append(tests,
			struct{ name, want, err string }{name: "auto", want: "cpu"},
			struct{ name, want, err string }{name: "", want: "cpu"},
			struct{ name, want, err string }{name: "cuda", err: `device "cuda": libtorch sees no CUDA device`},
			struct{ name, want, err string }{name: "cuda:1", err: `device "cuda:1": libtorch sees no CUDA device`})
	} else {
		tests = append(tests,
			struct{ name, want, err string }{name: "auto", want: "cuda:0"},
			struct{ name, want, err string }{name: "cuda", want: "cuda:0"},
			struct{ name, want, err string }{name: "cuda:" + strconv.Itoa(gpus), err: "libtorch sees " + strconv.Itoa(gpus) + " CUDA device(s)"})
	}
	for _, tt := range tests {
		d, err := ResolveDevice(tt.name)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ResolveDevice(%q) = %v, %v; want error containing %q", tt.name, d, err, tt.err)
			}
			continue
		}
		if err != nil || d.String() != tt.want {
			t.Errorf("ResolveDevice(%q) = %v, %v; want %s", tt.name, d, err, tt.want)
		}
	}
}

// TestNewOnMissingGPU: a network asked for on a GPU libtorch does not see is
// a clear error from New and from Load, not a crash.
func TestNewOnMissingGPU(t *testing.T) {
	if CUDADevices() > 0 {
		t.Skip("libtorch sees a GPU: nothing is missing")
	}
	cfg := Config{Blocks: 1, Channels: 8, Device: "cuda"}
	if n, err := New(cfg, tinyShape, 1); err == nil || !strings.Contains(err.Error(), "sees no CUDA device") {
		if n != nil {
			n.Close()
		}
		t.Fatalf("New on cuda without a GPU: %v", err)
	}
	cpu := newTestNet(t, Config{Blocks: 1, Channels: 8}, tinyShape)
	if cpu.Device().CUDA() || cpu.Device().String() != "cpu" {
		t.Fatalf("default device %v on a machine without a GPU", cpu.Device())
	}
	path := filepath.Join(t.TempDir(), "n.zkc")
	if err := Save(path, cpu, nil, Metadata{Game: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, Expect{Config: &cfg}); err == nil || !strings.Contains(err.Error(), "sees no CUDA device") {
		t.Fatalf("Load onto cuda without a GPU: %v", err)
	}
}

// needCUDA skips a test when libtorch sees no GPU, saying why.
func needCUDA(t *testing.T) {
	t.Helper()
	if CUDADevices() == 0 {
		t.Skipf("CUDA test: libtorch sees no CUDA device (%s); scripts/gpu-check.sh runs these on a GPU machine", noCUDAReason())
	}
}

// onCUDA returns a copy of the CPU network n on CUDA device 0.
func onCUDA(t *testing.T, n *Net) *Net {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cpu.zkc")
	if err := Save(path, n, nil, Metadata{Game: "test"}); err != nil {
		t.Fatal(err)
	}
	cfg := n.Config()
	cfg.Device = "cuda:0"
	ck, err := Load(path, Expect{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ck.Net.Close)
	if d := ck.Net.Device(); !d.CUDA() {
		t.Fatalf("loaded onto %v, want cuda:0", d)
	}
	return ck.Net
}

// TestCUDAForwardMatchesCPU: the same weights give the same outputs on the
// GPU as on the CPU. cuDNN runs convolutions in TF32 by default on Ampere
// and later GPUs (10-bit mantissas, as PyTorch does unless told otherwise),
// so the outputs differ in the third decimal: measured on an H200 at
// batches 1 to 1,024, up to 0.010 in logits, 0.0015 in probabilities and
// 0.0004 in values. What the search uses, the policy's probabilities and
// the value, must agree within 5e-3, the logits within 5e-2.
func TestCUDAForwardMatchesCPU(t *testing.T) {
	needCUDA(t)
	t.Logf("GPU: %s", DeviceName(Device{cuda: true}))
	wyb := Config{Blocks: 3, Channels: 32, PolicyHead: PolicyDense, PolicyChannels: 4, ValueChannels: 16, ValueHidden: 64}
	shape := Shape{Planes: 15, Height: 8, Width: 8, Actions: 577}
	cpu := randomNet(t, wyb, shape, 5)
	if cpu.Device().CUDA() {
		t.Fatalf("the reference network is on %v, not the CPU", cpu.Device())
	}
	gpu := onCUDA(t, cpu)
	rng := rand.New(rand.NewPCG(6, 7))
	// Smaller batches after the largest reuse the staging buffers.
	for _, count := range []int{1, 2, 64, 1024, 64, 3} {
		obs := randomObs(rng, shape, count)
		l0, v0 := forward(t, cpu, obs, count)
		l1, v1 := forward(t, gpu, obs, count)
		dl, dv := maxDiff(l0, l1), maxDiff(v0, v1)
		dp := maxDiff(softmaxRows(t, l0, shape.Actions), softmaxRows(t, l1, shape.Actions))
		t.Logf("batch %d: max difference %.3g in logits, %.3g in probabilities, %.3g in values", count, dl, dp, dv)
		if dl >= 5e-2 || dp >= 5e-3 || dv >= 5e-3 || math.IsNaN(dl+dp+dv) {
			t.Errorf("batch %d: CPU and CUDA differ by %g in logits, %g in probabilities, %g in values", count, dl, dp, dv)
		}
	}
}

// softmaxRows returns the softmax of each row of n logits (the search's
// own softmax over every action).
func softmaxRows(t *testing.T, logits []float32, n int) []float32 {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	out := make([]float32, len(logits))
	for r := 0; r+n <= len(logits); r += n {
		if err := mcts.MaskedSoftmax(logits[r:r+n], all, out[r:r+n]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func maxDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// TestCUDATrainingLowersLoss trains on the GPU and checks that the loss on
// a fixed batch falls, and that the checkpoint it writes loads on the CPU
// (libtorch and the pure-Go backend) with the same outputs.
func TestCUDATrainingLowersLoss(t *testing.T) {
	needCUDA(t)
	shape := Shape{Planes: 4, Height: 8, Width: 8, Actions: 65}
	cfg := Config{Blocks: 2, Channels: 32, Device: "cuda"}
	n := newTestNet(t, cfg, shape)
	tr, err := NewTrainer(n, DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	b := fixedBatch(rand.New(rand.NewPCG(8, 9)), shape, 64)
	first, err := tr.Loss(b)
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		if _, err := tr.Step(b); err != nil {
			t.Fatal(err)
		}
	}
	last, err := tr.Loss(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("loss on CUDA: %.4f -> %.4f after 200 steps", first.Total, last.Total)
	if !(last.Total < 0.8*first.Total) {
		t.Fatalf("loss %.4f -> %.4f: training on CUDA did not learn", first.Total, last.Total)
	}

	path := filepath.Join(t.TempDir(), "cuda.zkc")
	if err := Save(path, n, tr, Metadata{Game: "test", Step: 200}); err != nil {
		t.Fatal(err)
	}
	cpuCfg := cfg
	cpuCfg.Device = "cpu"
	ck, err := Load(path, Expect{Config: &cpuCfg})
	if err != nil {
		t.Fatalf("a checkpoint written on CUDA does not load on the CPU: %v", err)
	}
	defer ck.Net.Close()
	obs := randomObs(rand.New(rand.NewPCG(10, 11)), shape, 16)
	l0, v0 := forward(t, n, obs, 16)
	l1, v1 := forward(t, ck.Net, obs, 16)
	if d := math.Max(maxDiff(l0, l1), maxDiff(v0, v1)); d >= 1e-3 {
		t.Errorf("CUDA network and its checkpoint on the CPU differ by %g", d)
	}
	g, err := gonet.Load(path)
	if err != nil {
		t.Fatalf("a checkpoint written on CUDA does not load in the pure-Go backend: %v", err)
	}
	compareGonet(t, ck.Net, g, 12)
	// The optimizer state comes back too: one more step on the CPU works.
	tr2, err := NewTrainer(ck.Net, DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	if err := tr2.Restore(ck); err != nil {
		t.Fatal(err)
	}
	if _, err := tr2.Step(b); err != nil {
		t.Fatal(err)
	}
}

// TestCUDADoesNotLeak runs inference and training steps on the GPU and
// fails if live tensors, resident memory or the GPU's used memory keep
// growing after a warm-up.
func TestCUDADoesNotLeak(t *testing.T) {
	needCUDA(t)
	shape := Shape{Planes: 4, Height: 8, Width: 8, Actions: 65}
	n := newTestNet(t, Config{Blocks: 2, Channels: 32, Device: "cuda"}, shape)
	tr, err := NewTrainer(n, DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	obs := randomObs(rng, shape, 64)
	logits := make([]float32, 64*shape.Actions)
	values := make([]float32, 64)
	b := fixedBatch(rng, shape, 64)
	count := 0
	step := func() {
		count = count%64 + 1
		if err := n.Forward(obs, count, logits, values); err != nil {
			t.Fatal(err)
		}
		if count%8 == 0 {
			if _, err := tr.Step(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 400 { // the caching allocator's working set
		step()
	}
	checkNoGrowth(t, 5, 400, 8<<20, step)
	// The GPU's used memory, round by round. libtorch's caching allocator
	// reserves more blocks for a while and then stops: on the H200 it
	// grew by 104-108 MiB at a time, once in one run (session 24's
	// readings every 400 calls: 1109 1109 1217 1217 1217 1217 MiB) and
	// three times in another (861 861 969 1073 1181 1181 1181 1181 1181),
	// flat from the 1,600th call on in both; a 7.5-minute training run's
	// memory stopped growing after 4 minutes. A leak grows every round
	// instead: a leaked 64 x 4 x 8 x 8 input per call adds 25 MiB a
	// round, one activation 200 MiB. So after 7 rounds of 400 calls the
	// last 4 rounds (1,600 calls) may not grow by more than 32 MiB.
	const rounds, judged = 11, 4
	var used []int
	for r := range rounds + 1 {
		if r > 0 {
			for range 400 {
				step()
			}
		}
		used = append(used, gpuMemoryMiB(t))
	}
	t.Logf("GPU memory used after each 400 calls: %v MiB", used)
	if used[0] >= 0 {
		if g := lastGrowth(used, judged); g > 32 {
			t.Errorf("GPU memory grew by %d MiB over the last %d rounds of 400 calls (%v MiB)", g, judged, used)
		}
	}
}

// lastGrowth is the growth of the readings over their last n intervals.
func lastGrowth(readings []int, n int) int {
	return readings[len(readings)-1] - readings[len(readings)-1-n]
}

// gpuMemoryMiB returns the memory used on GPU 0 as nvidia-smi reports it,
// or -1 without nvidia-smi.
func gpuMemoryMiB(t *testing.T) int {
	out, err := exec.Command("nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", "0").Output()
	if err != nil {
		t.Logf("nvidia-smi: %v; GPU memory not checked", err)
		return -1
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Logf("nvidia-smi printed %q; GPU memory not checked", out)
		return -1
	}
	return v
}

func TestLastGrowth(t *testing.T) {
	for _, c := range []struct {
		name     string
		readings []int
		want     int
	}{
		{"flat", []int{1109, 1109, 1109, 1109, 1109}, 0},
		{"reservations, then flat (H200, session 24)", []int{861, 861, 969, 1073, 1181, 1181, 1181, 1181, 1181}, 0},
		{"a reservation in the last rounds", []int{1109, 1109, 1217, 1217, 1217, 1217}, 108},
		{"a leaked input a call", []int{1000, 1025, 1050, 1075, 1100, 1125, 1150, 1175, 1200}, 100},
		{"shrinking", []int{1200, 1100, 1100, 1100, 1000}, -200},
	} {
		if got := lastGrowth(c.readings, 4); got != c.want {
			t.Errorf("%s: lastGrowth(%v, 4) = %d, want %d", c.name, c.readings, got, c.want)
		}
	}
}
