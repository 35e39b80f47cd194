package neural

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/model/arch"
)

// tinyConfig is a freshly initialised network small enough for tests.
var tinyConfig = arch.Config{Blocks: 1, Channels: 8, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 8}

func validManifest() Manifest {
	return Manifest{
		Format: ManifestFormat, Version: ManifestVersion, Name: "wyb-step1", Game: "wyb", EncodingVersion: 1,
		Shape:   arch.Shape{Planes: 11, Height: 8, Width: 8, Actions: 100},
		Network: tinyConfig.WithDefaults(), Parameters: 10,
		Weights: WeightsName, WeightsSHA256: strings.Repeat("ab", 32),
		Search:  DefaultSettings(),
		Source:  Source{Checkpoint: "/runs/x/checkpoints/step-000000001.ckpt", Step: 1, Seed: 2},
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	}
}

func TestDecodeManifest(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Manifest)
		want string
	}{
		{"valid", func(*Manifest) {}, ""},
		{"format", func(m *Manifest) { m.Format = "zip" }, "field format"},
		{"version", func(m *Manifest) { m.Version = 2 }, "this program reads version 1"},
		{"name", func(m *Manifest) { m.Name = "" }, "field name"},
		{"game", func(m *Manifest) { m.Game = "" }, "field game"},
		{"encoding", func(m *Manifest) { m.EncodingVersion = 0 }, "field encoding_version"},
		{"weights outside", func(m *Manifest) { m.Weights = "../../etc/passwd" }, "field weights"},
		{"weights dot", func(m *Manifest) { m.Weights = ".." }, "field weights"},
		{"checksum length", func(m *Manifest) { m.WeightsSHA256 = "abc" }, "field weights_sha256"},
		{"checksum hex", func(m *Manifest) { m.WeightsSHA256 = strings.Repeat("zz", 32) }, "field weights_sha256"},
		{"network", func(m *Manifest) { m.Network.Blocks = -1 }, "field network"},
		{"shape", func(m *Manifest) { m.Shape.Actions = 0 }, "field network/shape"},
		{"search", func(m *Manifest) { m.Search.LeavesInFlight = 0 }, "field search"},
	}
	for _, tc := range tests {
		m := validManifest()
		tc.edit(&m)
		b, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeManifest(b)
		if tc.want == "" {
			if err != nil || got != m {
				t.Errorf("%s: DecodeManifest = %+v, %v; want %+v", tc.name, got, err, m)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: DecodeManifest error = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	for _, text := range []string{"", "{", "[]", `{"format":"zerokit-agent","bogus":1}`, `{} {}`, `{"search":{"move_time":"soon"}}`} {
		if _, err := DecodeManifest([]byte(text)); err == nil {
			t.Errorf("DecodeManifest(%q) accepted", text)
		}
	}
}

func FuzzDecodeManifest(f *testing.F) {
	b, err := validManifest().Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"format":"zerokit-agent","version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeManifest(data)
		if err != nil {
			return
		}
		// An accepted manifest is valid and survives a round trip.
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted an invalid manifest: %v", err)
		}
		enc, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeManifest(enc)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", enc, err)
		}
		a, _ := json.Marshal(m)
		c, _ := json.Marshal(again)
		if string(a) != string(c) {
			t.Fatalf("round trip changed %s into %s", a, c)
		}
	})
}

func TestAppendEvaluation(t *testing.T) {
	dir := t.TempDir()
	weights := []byte("not really a network")
	if err := os.WriteFile(filepath.Join(dir, WeightsName), weights, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := FileSHA256(filepath.Join(dir, WeightsName))
	if err != nil {
		t.Fatal(err)
	}
	write := func(m Manifest) {
		t.Helper()
		b, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ManifestName), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func() Manifest {
		t.Helper()
		m, err := ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := validManifest()
	m.WeightsSHA256 = sum
	write(m) // no provenance
	e := Evaluation{Opponent: "random", Wins: 3, Losses: 1, Score: 0.75, Command: "zerokit eval -a x -b random",
		AsFirst: &Results{Wins: 2}, AsSecond: &Results{Wins: 1, Losses: 1}, Resources: "CPU 1 s"}
	if err := AppendEvaluation(dir, sum, e); err == nil || !strings.Contains(err.Error(), "no provenance") {
		t.Errorf("without provenance: %v, want an error saying so", err)
	}
	m.Provenance = &Provenance{Steps: 10, Evaluations: []Evaluation{{Opponent: "greedy", Command: "training"}}}
	write(m)
	tests := []struct {
		name, sum string
		e         Evaluation
		want      string
	}{
		{"other weights", strings.Repeat("cd", 32), e, "other weights"},
		{"no command", sum, Evaluation{Opponent: "random"}, "command"},
		{"no opponent", sum, Evaluation{Command: "c"}, "opponent"},
	}
	for _, tc := range tests {
		if err := AppendEvaluation(dir, tc.sum, tc.e); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if got := read().Provenance.Evaluations; len(got) != 1 {
		t.Fatalf("rejected evaluations changed the table: %+v", got)
	}
	if err := AppendEvaluation(dir, sum, e); err != nil {
		t.Fatal(err)
	}
	got := read()
	evals := got.Provenance.Evaluations
	if len(evals) != 2 || evals[0].Opponent != "greedy" || evals[1].Opponent != "random" ||
		*evals[1].AsSecond != (Results{Wins: 1, Losses: 1}) || evals[1].Resources != "CPU 1 s" {
		t.Errorf("evaluations after append: %+v", evals)
	}
	if got.Name != m.Name || got.Provenance.Steps != 10 || got.WeightsSHA256 != sum {
		t.Errorf("append changed the rest of the manifest: %+v", got)
	}
}
