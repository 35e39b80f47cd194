package ckpt

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/model/arch"
)

// sample makes a checkpoint with random tensors and optimizer state.
func sample(cfg arch.Config, shape arch.Shape, withOptimizer bool) *Checkpoint {
	rng := rand.New(rand.NewPCG(1, 2))
	cfg = cfg.WithDefaults()
	l := arch.NewLayout(cfg, shape)
	c := &Checkpoint{
		Header:    Header{Game: "g", EncodingVersion: 2, Step: 7, Seed: 9, Network: cfg, Shape: shape},
		RunConfig: []byte("a: 1\n"),
	}
	random := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for _, t := range l.Tensors {
		c.Tensors = append(c.Tensors, Tensor{Name: t.Name, Shape: t.Shape, Data: random(t.NumElements())})
	}
	if withOptimizer {
		slots := []string{"m", "v"}
		c.Header.Optimizer = &OptimizerRecord{Config: json.RawMessage(`{"lr":0.1}`), Step: 7, Slots: slots}
		for _, t := range l.Tensors {
			if t.Role == arch.RoleBuffer {
				continue
			}
			for _, s := range slots {
				c.Optimizer = append(c.Optimizer, Tensor{Name: t.Name + "/" + s, Shape: t.Shape, Data: random(t.NumElements())})
			}
		}
	}
	return c
}

var (
	tinyConfig = arch.Config{Blocks: 1, Channels: 4, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 3}
	tinyShape  = arch.Shape{Planes: 2, Height: 3, Width: 3, Actions: 5}
)

func equalTensors(a, b []Tensor) bool {
	return slices.EqualFunc(a, b, func(x, y Tensor) bool {
		return x.Name == y.Name && slices.Equal(x.Shape, y.Shape) && slices.Equal(x.Data, y.Data)
	})
}

func TestRoundTrip(t *testing.T) {
	c := sample(tinyConfig, tinyShape, true)
	path := filepath.Join(t.TempDir(), "c.zkc")
	if err := WriteFile(path, c); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := got.Header
	if h.Format != Format || h.Version != Version || h.Game != "g" || h.EncodingVersion != 2 || h.Step != 7 || h.Seed != 9 ||
		h.Network != c.Header.Network || h.Shape != c.Header.Shape || h.Optimizer == nil || h.Optimizer.Step != 7 {
		t.Fatalf("header %+v", h)
	}
	if !equalTensors(got.Tensors, c.Tensors) || !bytes.Equal(got.RunConfig, c.RunConfig) || got.Optimizer != nil {
		t.Fatal("tensors or config differ after a round trip")
	}
	data, _ := os.ReadFile(path)
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	l, err := rd.Layout()
	if err != nil {
		t.Fatal(err)
	}
	opt, err := rd.OptimizerState(l)
	if err != nil {
		t.Fatal(err)
	}
	if !equalTensors(opt, c.Optimizer) {
		t.Fatal("optimizer state differs after a round trip")
	}
	// Writing what was read gives the same bytes.
	got.Optimizer = opt
	var buf bytes.Buffer
	if err := Write(&buf, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), data) {
		t.Fatal("rewriting a checkpoint changed its bytes")
	}
}

func TestReadErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample(tinyConfig, tinyShape, true)); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	rewrite := func(edit func(name string, data []byte) (string, []byte)) []byte {
		zr, err := zip.NewReader(bytes.NewReader(good), int64(len(good)))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		zw := zip.NewWriter(&out)
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
		return out.Bytes()
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a readable zerokit checkpoint"},
		{"no header", rewrite(func(n string, d []byte) (string, []byte) {
			if n == HeaderEntry {
				return "", nil
			}
			return n, d
		}), "not a zerokit checkpoint (no zerokit-checkpoint.json entry)"},
		{"other format", rewrite(func(n string, d []byte) (string, []byte) {
			if n == HeaderEntry {
				return n, bytes.Replace(d, []byte(`"zerokit-checkpoint"`), []byte(`"other"`), 1)
			}
			return n, d
		}), `metadata: format "other", want "zerokit-checkpoint"`},
		{"missing tensor", rewrite(func(n string, d []byte) (string, []byte) {
			if n == TensorPrefix+"value.fc1.bias" {
				return "", nil
			}
			return n, d
		}), "entry tensors/value.fc1.bias missing"},
		{"long tensor", rewrite(func(n string, d []byte) (string, []byte) {
			if n == TensorPrefix+"stem.bn.bias" {
				return n, append(d, 0, 0, 0, 0)
			}
			return n, d
		}), "entry tensors/stem.bn.bias has 20 bytes, want 16"},
		{"shape in header", rewrite(func(n string, d []byte) (string, []byte) {
			if n == HeaderEntry {
				return n, bytes.Replace(d, []byte("\"shape\": [\n        4,\n        2,\n        3,\n        3"),
					[]byte("\"shape\": [\n        4,\n        2,\n        1,\n        9"), 1)
			}
			return n, d
		}), "tensor 0 is stem.conv.weight [4 2 1 9]; the network's is stem.conv.weight [4 2 3 3]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.data), int64(len(tc.data)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// A missing optimizer entry is found by OptimizerState.
	data := rewrite(func(n string, d []byte) (string, []byte) {
		if n == OptimizerPrefix+"stem.conv.weight/v" {
			return "", nil
		}
		return n, d
	})
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	l, err := rd.Layout()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd.OptimizerState(l); err == nil || !strings.Contains(err.Error(), "entry optimizer/stem.conv.weight/v missing") {
		t.Fatalf("missing optimizer state: %v", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none.zkc")); err == nil || !strings.Contains(err.Error(), "none.zkc") {
		t.Fatalf("missing file: %v", err)
	}
}

// FuzzRead feeds arbitrary bytes to the reader: it must return an error or
// a checkpoint that matches its layout and writes back, never panic.
func FuzzRead(f *testing.F) {
	for _, opt := range []bool{false, true} {
		var buf bytes.Buffer
		if err := Write(&buf, sample(tinyConfig, tinyShape, opt)); err != nil {
			f.Fatal(err)
		}
		good := buf.Bytes()
		f.Add(good)
		f.Add(good[:len(good)-25])
		flipped := append([]byte(nil), good...)
		flipped[len(flipped)/2] ^= 0x40
		f.Add(flipped)
	}
	f.Add([]byte("PK\x05\x06"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		l, err := rd.Layout()
		if err != nil {
			return
		}
		tensors, err := rd.Tensors(l)
		if err != nil {
			return
		}
		for i, x := range tensors {
			if x.Name != l.Tensors[i].Name || len(x.Data) != l.Tensors[i].NumElements() {
				t.Fatalf("tensor %d: %s of %d values, layout %s", i, x.Name, len(x.Data), l.Tensors[i].Name)
			}
		}
		opt, err := rd.OptimizerState(l)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		c := &Checkpoint{Header: rd.Header, Tensors: tensors, Optimizer: opt}
		if err := Write(&buf, c); err != nil {
			t.Fatalf("writing back: %v", err)
		}
	})
}
