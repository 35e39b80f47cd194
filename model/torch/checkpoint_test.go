package torch

import (
	"archive/zip"
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// trainedCheckpoint trains a tiny network a few steps and saves it with its
// optimizer state.
func trainedCheckpoint(t testing.TB, dir string, cfg Config, shape Shape) (path string, net *Net, tr *Trainer) {
	t.Helper()
	net = newTestNet(t, cfg, shape)
	var err error
	tr, err = NewTrainer(net, DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.Close)
	b := fixedBatch(rand.New(rand.NewPCG(3, 3)), shape, 8)
	for i := 0; i < 3; i++ {
		if _, err := tr.Step(b); err != nil {
			t.Fatal(err)
		}
	}
	path = filepath.Join(dir, "net.zkc")
	meta := Metadata{Game: "wyb", EncodingVersion: 2, Step: 3, Seed: 99, Config: []byte("lr: 0.001\n"), AveragedSteps: []int64{1, 3}}
	if err := Save(path, net, tr, meta); err != nil {
		t.Fatal(err)
	}
	return path, net, tr
}

func TestCheckpointRoundTrip(t *testing.T) {
	path, net, tr := trainedCheckpoint(t, t.TempDir(), tinyConfig(), tinyShape)
	ck, err := Load(path, Expect{Game: "wyb", EncodingVersion: 2, Shape: tinyShape, Config: ptr(tinyConfig())})
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Net.Close()
	want := Metadata{Game: "wyb", EncodingVersion: 2, Step: 3, Seed: 99, Config: []byte("lr: 0.001\n"), AveragedSteps: []int64{1, 3}}
	if ck.Game != want.Game || ck.EncodingVersion != want.EncodingVersion || ck.Step != want.Step || ck.Seed != want.Seed || !bytes.Equal(ck.Config, want.Config) ||
		!slices.Equal(ck.AveragedSteps, want.AveragedSteps) {
		t.Fatalf("metadata %+v, want %+v", ck.Metadata, want)
	}
	if ck.Optimizer == nil || ck.Optimizer.Optimizer != OptimizerAdamW {
		t.Fatalf("optimizer config %+v", ck.Optimizer)
	}
	obs := randomObs(rand.New(rand.NewPCG(4, 4)), tinyShape, 5)
	l0, v0 := forward(t, net, obs, 5)
	l1, v1 := forward(t, ck.Net, obs, 5)
	if !equalFloats(l0, l1) || !equalFloats(v0, v1) {
		t.Fatal("loaded network computes something else")
	}

	// Restoring the optimizer state makes the next step identical too.
	tr2, err := NewTrainer(ck.Net, DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	if err := tr2.Restore(ck); err != nil {
		t.Fatal(err)
	}
	if tr2.StepCount() != 3 {
		t.Fatalf("restored step count %d", tr2.StepCount())
	}
	b := fixedBatch(rand.New(rand.NewPCG(6, 6)), tinyShape, 8)
	la, err := tr.Step(b)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := tr2.Step(b)
	if err != nil {
		t.Fatal(err)
	}
	if la != lb {
		t.Fatalf("step after restore: %+v, original %+v", lb, la)
	}
	l2, _ := forward(t, net, obs, 5)
	l3, _ := forward(t, ck.Net, obs, 5)
	if !equalFloats(l2, l3) {
		t.Fatal("weights differ after one more step from the restored optimizer state")
	}

	// Saving the same state twice gives the same bytes.
	p2 := filepath.Join(filepath.Dir(path), "again.zkc")
	if err := Save(p2, ck.Net, tr2, Metadata{Game: "wyb", EncodingVersion: 2, Step: 3, Seed: 99, Config: []byte("lr: 0.001\n")}); err != nil {
		t.Fatal(err)
	}
	p3 := filepath.Join(filepath.Dir(path), "again2.zkc")
	if err := Save(p3, ck.Net, tr2, Metadata{Game: "wyb", EncodingVersion: 2, Step: 3, Seed: 99, Config: []byte("lr: 0.001\n")}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(p2)
	c, _ := os.ReadFile(p3)
	if !bytes.Equal(a, c) {
		t.Fatal("saving twice gave different files")
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Fatalf("temporary file %s left", e.Name())
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestCheckpointMismatch(t *testing.T) {
	path, _, _ := trainedCheckpoint(t, t.TempDir(), tinyConfig(), tinyShape)
	bigger := tinyConfig()
	bigger.Channels = 32
	spatial := tinyConfig()
	spatial.PolicyHead = PolicySpatial
	tests := []struct {
		name string
		want Expect
		msg  string
	}{
		{"game", Expect{Game: "squatter6", EncodingVersion: 2}, `game is "wyb", expected "squatter6"`},
		{"encoding", Expect{Game: "wyb", EncodingVersion: 3}, "game wyb encoding version is 2, expected 3"},
		{"shape", Expect{Shape: Shape{Planes: 3, Height: 4, Width: 5, Actions: 8}}, "network shape is 3x4x5->7, expected 3x4x5->8"},
		{"planes", Expect{Shape: Shape{Planes: 4, Height: 4, Width: 5, Actions: 7}}, "network shape is 3x4x5->7, expected 4x4x5->7"},
		{"channels", Expect{Config: &bigger}, "network has channels 16, expected 32"},
		{"head", Expect{Config: &spatial}, `network has policy_head "dense", expected "spatial"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ck, err := Load(path, tc.want)
			if err == nil {
				ck.Net.Close()
				t.Fatal("mismatch accepted")
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q, want it to name %s and contain %q", err, path, tc.msg)
			}
		})
	}
	// A trainer with another optimizer refuses the state.
	ck, err := Load(path, Expect{})
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Net.Close()
	sgd := DefaultTrainConfig()
	sgd.Optimizer = OptimizerSGD
	tr, err := NewTrainer(ck.Net, sgd)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.Restore(ck); err == nil || !strings.Contains(err.Error(), "optimizer is adamw, expected sgd") {
		t.Fatalf("Restore with another optimizer: %v", err)
	}
}

func TestCheckpointSpatialOtherBoard(t *testing.T) {
	cfg := tinyConfig()
	cfg.PolicyHead = PolicySpatial
	path, net, _ := trainedCheckpoint(t, t.TempDir(), cfg, Shape{Planes: 3, Height: 4, Width: 4, Actions: 17})
	want := Shape{Planes: 3, Height: 6, Width: 6, Actions: 37}
	ck, err := Load(path, Expect{Shape: want})
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Net.Close()
	if ck.Net.Shape() != want {
		t.Fatalf("loaded shape %v, want %v", ck.Net.Shape(), want)
	}
	view, err := net.WithBoard(6, 6)
	if err != nil {
		t.Fatal(err)
	}
	obs := randomObs(rand.New(rand.NewPCG(1, 1)), want, 2)
	l0, v0 := forward(t, view, obs, 2)
	l1, v1 := forward(t, ck.Net, obs, 2)
	if !equalFloats(l0, l1) || !equalFloats(v0, v1) {
		t.Fatal("loaded view computes something else")
	}
	// The number of extra (non-spatial) actions is fixed by the weights.
	if _, err := Load(path, Expect{Shape: Shape{Planes: 3, Height: 6, Width: 6, Actions: 38}}); err == nil || !strings.Contains(err.Error(), "shape 3x6x6->37, expected 3x6x6->38") {
		t.Fatalf("wrong extra actions: %v", err)
	}
}

func TestCheckpointCorrupt(t *testing.T) {
	dir := t.TempDir()
	path, _, _ := trainedCheckpoint(t, dir, tinyConfig(), tinyShape)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rewrite := func(edit func(name string, data []byte) (string, []byte)) []byte {
		zr, err := zip.NewReader(bytes.NewReader(good), int64(len(good)))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, f := range zr.File {
			rc, _ := f.Open()
			var d bytes.Buffer
			d.ReadFrom(rc)
			rc.Close()
			name, data := edit(f.Name, d.Bytes())
			if name == "" {
				continue
			}
			w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
			w.Write(data)
		}
		zw.Close()
		return buf.Bytes()
	}
	// flipped has one byte of a tensor's data changed in place.
	flipped := append([]byte(nil), good...)
	{
		zr, err := zip.NewReader(bytes.NewReader(good), int64(len(good)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if f.Name == tensorPrefix+"policy.fc.weight" {
				off, err := f.DataOffset()
				if err != nil {
					t.Fatal(err)
				}
				flipped[off+100] ^= 0x01
			}
		}
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a readable zerokit checkpoint"},
		{"flipped bit", flipped, "entry tensors/policy.fc.weight: zip: checksum error"},
		{"huge config", rewrite(func(n string, d []byte) (string, []byte) {
			if n == configEntry {
				return n, make([]byte, maxConfigBytes+1)
			}
			return n, d
		}), "entry config has 67108865 bytes, more than the limit of 67108864"},
		{"truncated half", good[:len(good)/2], "not a readable zerokit checkpoint"},
		{"truncated end", good[:len(good)-1], "not a readable zerokit checkpoint"},
		{"text", []byte("hello, world\n"), "not a readable zerokit checkpoint"},
		{"other zip", rewrite(func(n string, d []byte) (string, []byte) {
			if n == headerEntry {
				return "", nil
			}
			return n, d
		}), "not a zerokit checkpoint (no zerokit-checkpoint.json entry)"},
		{"bad json", rewrite(func(n string, d []byte) (string, []byte) {
			if n == headerEntry {
				return n, d[:len(d)/2]
			}
			return n, d
		}), "metadata:"},
		{"unknown field", rewrite(func(n string, d []byte) (string, []byte) {
			if n == headerEntry {
				return n, bytes.Replace(d, []byte(`"seed"`), []byte(`"sead"`), 1)
			}
			return n, d
		}), `unknown field "sead"`},
		{"newer version", rewrite(func(n string, d []byte) (string, []byte) {
			if n == headerEntry {
				return n, bytes.Replace(d, []byte(`"version": 1`), []byte(`"version": 2`), 1)
			}
			return n, d
		}), "format version 2, this program reads version 1"},
		{"missing tensor", rewrite(func(n string, d []byte) (string, []byte) {
			if n == tensorPrefix+"value.fc2.bias" {
				return "", nil
			}
			return n, d
		}), "entry tensors/value.fc2.bias missing"},
		{"short tensor", rewrite(func(n string, d []byte) (string, []byte) {
			if n == tensorPrefix+"stem.conv.weight" {
				return n, d[:len(d)-4]
			}
			return n, d
		}), "entry tensors/stem.conv.weight has 1724 bytes, want 1728"},
		{"nan weight", rewrite(func(n string, d []byte) (string, []byte) {
			if n == tensorPrefix+"policy.fc.bias" {
				d = append([]byte(nil), d...)
				copy(d, []byte{0, 0, 0xc0, 0x7f})
			}
			return n, d
		}), "tensor policy.fc.bias: value 0 is NaN"},
		{"renamed tensor", rewrite(func(n string, d []byte) (string, []byte) {
			if n == headerEntry {
				return n, bytes.Replace(d, []byte(`"stem.bn.bias"`), []byte(`"stem.bn.beta"`), 1)
			}
			return n, d
		}), "tensor 2 is stem.bn.beta [16]; the network's is stem.bn.bias [16]"},
		{"bad shape in metadata", rewrite(func(n string, d []byte) (string, []byte) {
			if n == headerEntry {
				return n, bytes.Replace(d, []byte(`"planes": 3`), []byte(`"planes": 0`), 1)
			}
			return n, d
		}), "model shape: planes must be in [1, 1024], got 0"},
		{"missing optimizer state", rewrite(func(n string, d []byte) (string, []byte) {
			if n == optimizerPrefix+"stem.conv.weight/exp_avg" {
				return "", nil
			}
			return n, d
		}), "entry optimizer/stem.conv.weight/exp_avg missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "bad.zkc")
			if err := os.WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			ck, err := Load(p, Expect{})
			if err == nil {
				ck.Net.Close()
				t.Fatal("corrupt checkpoint accepted")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("error %q, want it to name the file and contain %q", err, tc.want)
			}
		})
	}
	if _, err := Load(filepath.Join(dir, "missing.zkc"), Expect{}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing file: %v", err)
	}
}

// FuzzLoad feeds arbitrary bytes (seeded with a valid checkpoint and damaged
// copies) to Load: it must return an error or a working network, never
// panic.
func FuzzLoad(f *testing.F) {
	dir := f.TempDir()
	net, err := New(Config{Blocks: 0, Channels: 4, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 2}, Shape{Planes: 1, Height: 2, Width: 2, Actions: 3}, 1)
	if err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(dir, "seed.zkc")
	if err := Save(path, net, nil, Metadata{Game: "g"}); err != nil {
		f.Fatal(err)
	}
	net.Close()
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)-30])
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/3] ^= 0xff
	f.Add(flipped)
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ck, err := LoadFrom("fuzz", bytes.NewReader(data), int64(len(data)), Expect{})
		if err != nil {
			return
		}
		defer ck.Net.Close()
		s := ck.Net.Shape()
		logits := make([]float32, s.Actions)
		values := make([]float32, 1)
		if err := ck.Net.Forward(make([]float32, s.Size()), 1, logits, values); err != nil {
			t.Fatalf("loaded network fails: %v", err)
		}
	})
}
