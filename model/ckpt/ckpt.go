// Package ckpt reads and writes zerokit checkpoint files in pure Go: the
// network's architecture and shape, its named float32 tensors, optional
// optimizer state and metadata. Package model/torch saves and loads its networks
// through it; package model/gonet evaluates them without libtorch.
//
// A checkpoint is a zip archive (entries stored uncompressed) with
//
//	zerokit-checkpoint.json  metadata (Header)
//	config                   the run's configuration blob, verbatim (optional)
//	tensors/<name>           each network tensor, little-endian float32
//	optimizer/<name>/<slot>  each optimizer state tensor (optional)
//
// The tensors are those of arch.NewLayout for the header's network and
// shape, in its order; the optimizer state has one entry per slot for each
// trained tensor (arch.Role other than arch.RoleBuffer). Readers check
// everything (entry sizes, CRCs, tensor names and shapes, finite values)
// and return errors naming the entry or tensor at fault.
package ckpt

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/zerokit/zerokit/internal/atomicfile"
	"github.com/zerokit/zerokit/model/arch"
)

// File layout constants.
const (
	// Format is the header's format string.
	Format = "zerokit-checkpoint"
	// Version is the format version this package reads and writes.
	Version = 1
	// HeaderEntry is the name of the JSON metadata entry.
	HeaderEntry = "zerokit-checkpoint.json"
	// ConfigEntry is the name of the optional configuration blob entry.
	ConfigEntry = "config"
	// TensorPrefix prefixes the entry name of each network tensor.
	TensorPrefix = "tensors/"
	// OptimizerPrefix prefixes the entry name of each optimizer state
	// tensor (optimizer/<tensor name>/<slot>).
	OptimizerPrefix = "optimizer/"
	// MaxHeaderBytes and MaxConfigBytes bound what readers read from the
	// metadata and config entries (tensor entries must have their exact
	// size), so that a crafted file cannot make them allocate gigabytes.
	MaxHeaderBytes = 1 << 20
	MaxConfigBytes = 64 << 20
)

// TensorRecord names a tensor and gives its shape in the header.
type TensorRecord struct {
	Name  string  `json:"name"`
	Shape []int64 `json:"shape"`
}

// OptimizerRecord describes the optimizer state saved with a checkpoint.
type OptimizerRecord struct {
	// Config is the optimizer's configuration (package model/torch's
	// TrainConfig), kept as raw JSON: this package does not interpret it.
	Config json.RawMessage `json:"config"`
	// Step is the optimizer's step count.
	Step int64 `json:"step"`
	// Slots names the state tensors kept per trained tensor, e.g.
	// ["exp_avg", "exp_avg_sq"].
	Slots []string `json:"slots"`
}

// Header is the JSON metadata entry.
type Header struct {
	// Format is always Format and Version is Version.
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Game is the game's name, e.g. "wyb" or "squatter6", and
	// EncodingVersion its observation/action encoding version.
	Game            string `json:"game"`
	EncodingVersion int    `json:"encoding_version"`
	// Step is the training step the checkpoint was taken at and Seed the
	// run's random seed.
	Step int64  `json:"step"`
	Seed uint64 `json:"seed"`
	// Network and Shape are the network's architecture and what it maps.
	Network arch.Config `json:"network"`
	Shape   arch.Shape  `json:"shape"`
	// Tensors lists the network's tensors, as arch.NewLayout does.
	Tensors []TensorRecord `json:"tensors"`
	// Optimizer is nil when the checkpoint has no optimizer state.
	Optimizer *OptimizerRecord `json:"optimizer,omitempty"`
	// AveragedSteps is set when the weights are an average of several
	// checkpoints (see Average): their steps, in the order averaged.
	AveragedSteps []int64 `json:"averaged_steps,omitempty"`
}

// Tensor is a named float32 tensor; Data holds the product of Shape's
// dimensions values, row-major.
type Tensor struct {
	Name  string
	Shape []int64
	Data  []float32
}

// Checkpoint is the content of a checkpoint file.
type Checkpoint struct {
	// Header is the metadata. Write sets Format, Version and Tensors
	// itself.
	Header Header
	// RunConfig is the configuration blob stored verbatim, nil when the
	// file has none.
	RunConfig []byte
	// Tensors are the network's tensors, in arch.NewLayout order.
	Tensors []Tensor
	// Optimizer is the optimizer state when Header.Optimizer is set: for
	// each trained tensor in order, one tensor per slot (in
	// Header.Optimizer.Slots order) named "<tensor name>/<slot>". Read
	// leaves it nil; see Reader.OptimizerState.
	Optimizer []Tensor
}

// Write writes c to w in the checkpoint format. Equal checkpoints give
// equal bytes (the zip entries carry no timestamps).
func Write(w io.Writer, c *Checkpoint) error {
	h := c.Header
	h.Format, h.Version = Format, Version
	h.Tensors = make([]TensorRecord, len(c.Tensors))
	for i, t := range c.Tensors {
		if n := numElements(t.Shape); n != len(t.Data) {
			return fmt.Errorf("tensor %s: %d values for shape %v", t.Name, len(t.Data), t.Shape)
		}
		h.Tensors[i] = TensorRecord{Name: t.Name, Shape: t.Shape}
	}
	if h.Optimizer == nil && len(c.Optimizer) > 0 {
		return errors.New("optimizer state without optimizer metadata")
	}
	zw := zip.NewWriter(w)
	put := func(name string, data []byte) error {
		// A fixed header (no timestamp) makes equal checkpoints equal files.
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	}
	js, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	if err := put(HeaderEntry, js); err != nil {
		return err
	}
	if c.RunConfig != nil {
		if err := put(ConfigEntry, c.RunConfig); err != nil {
			return err
		}
	}
	for _, t := range c.Tensors {
		if err := put(TensorPrefix+t.Name, floatBytes(t.Data)); err != nil {
			return err
		}
	}
	for _, t := range c.Optimizer {
		if err := put(OptimizerPrefix+t.Name, floatBytes(t.Data)); err != nil {
			return err
		}
	}
	return zw.Close()
}

// WriteFile writes c to path atomically: a temporary file in the same
// directory, synced, then renamed over path. Errors name the file.
func WriteFile(path string, c *Checkpoint) error {
	var buf bytes.Buffer
	if err := Write(&buf, c); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return nil
}

func numElements(shape []int64) int {
	n := 1
	for _, d := range shape {
		n *= int(d)
	}
	return n
}

func floatBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// ReadFile reads and checks the checkpoint at path: its header, network
// tensors and configuration blob, not its optimizer state. Errors name the
// file and the problem.
func ReadFile(path string) (*Checkpoint, error) {
	f, size, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := Read(f, size)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return c, nil
}

// Open opens the checkpoint file at path for NewReader or Read and returns
// its size; errors name the file. The caller closes the file.
func Open(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return f, st.Size(), nil
}

// Read reads and checks a checkpoint of size bytes from r, like ReadFile,
// but its errors do not name the file.
func Read(r io.ReaderAt, size int64) (*Checkpoint, error) {
	rd, err := NewReader(r, size)
	if err != nil {
		return nil, err
	}
	l, err := rd.Layout()
	if err != nil {
		return nil, err
	}
	c := &Checkpoint{Header: rd.Header}
	if c.Tensors, err = rd.Tensors(l); err != nil {
		return nil, err
	}
	if c.RunConfig, err = rd.RunConfig(); err != nil {
		return nil, err
	}
	return c, nil
}

// Reader reads a checkpoint step by step, so that a caller can check the
// header before reading the tensors. Its errors do not name the file.
type Reader struct {
	// Header is the checked metadata: the format and version are right;
	// the network and shape are not checked yet (see Layout).
	Header  Header
	entries map[string]*zip.File
	size    int64 // of the archive
}

// NewReader opens the checkpoint of size bytes in r and reads its header.
func NewReader(r io.ReaderAt, size int64) (*Reader, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a readable zerokit checkpoint (truncated or another format?): %w", err)
	}
	rd := &Reader{entries: map[string]*zip.File{}, size: size}
	for _, f := range zr.File {
		rd.entries[f.Name] = f
	}
	if _, ok := rd.entries[HeaderEntry]; !ok {
		return nil, fmt.Errorf("not a zerokit checkpoint (no %s entry)", HeaderEntry)
	}
	js, err := rd.read(HeaderEntry, -MaxHeaderBytes)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rd.Header); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	if h := &rd.Header; h.Format != Format {
		return nil, fmt.Errorf("metadata: format %q, want %q", h.Format, Format)
	} else if h.Version != Version {
		return nil, fmt.Errorf("metadata: format version %d, this program reads version %d", h.Version, Version)
	}
	return rd, nil
}

// Layout checks the header's network and shape and its list of tensors
// against them, and returns their layout.
func (rd *Reader) Layout() (*arch.Layout, error) {
	h := &rd.Header
	if err := errors.Join(h.Network.Validate(), h.Shape.Validate(h.Network)); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	l := arch.NewLayout(h.Network, h.Shape)
	if err := CheckTensors(h.Tensors, l); err != nil {
		return nil, err
	}
	return l, nil
}

// CheckTensors compares a list of tensor records with a layout, in order:
// the names and shapes must be the same.
func CheckTensors(recs []TensorRecord, l *arch.Layout) error {
	for i, t := range l.Tensors {
		if i >= len(recs) {
			return fmt.Errorf("tensor list ends after %d tensors; the network has %d (next: %s)", len(recs), len(l.Tensors), t.Name)
		}
		r := recs[i]
		if r.Name != t.Name || !slices.Equal(r.Shape, t.Shape) {
			return fmt.Errorf("tensor %d is %s %v; the network's is %s %v", i, r.Name, r.Shape, t.Name, t.Shape)
		}
	}
	if len(recs) > len(l.Tensors) {
		return fmt.Errorf("%d tensors; the network has %d (first extra: %s)", len(recs), len(l.Tensors), recs[len(l.Tensors)].Name)
	}
	return nil
}

// Tensors reads the network's tensors, laid out as l (from Layout). Every
// value must be finite.
func (rd *Reader) Tensors(l *arch.Layout) ([]Tensor, error) {
	out := make([]Tensor, 0, len(l.Tensors))
	for _, t := range l.Tensors {
		b, err := rd.read(TensorPrefix+t.Name, 4*int64(t.NumElements()))
		if err != nil {
			return nil, err
		}
		v, err := floatsFinite(b)
		if err != nil {
			return nil, fmt.Errorf("tensor %s: %w", t.Name, err)
		}
		out = append(out, Tensor{Name: t.Name, Shape: t.Shape, Data: v})
	}
	return out, nil
}

// RunConfig reads the configuration blob, or returns nil when the file has
// none.
func (rd *Reader) RunConfig() ([]byte, error) {
	if _, ok := rd.entries[ConfigEntry]; !ok {
		return nil, nil
	}
	return rd.read(ConfigEntry, -MaxConfigBytes)
}

// OptimizerState reads the optimizer state described by
// Header.Optimizer (nil when there is none) for the trained tensors of l:
// see Checkpoint.Optimizer.
func (rd *Reader) OptimizerState(l *arch.Layout) ([]Tensor, error) {
	o := rd.Header.Optimizer
	if o == nil {
		return nil, nil
	}
	var out []Tensor
	for _, t := range l.Tensors {
		if t.Role == arch.RoleBuffer {
			continue
		}
		for _, s := range o.Slots {
			name := t.Name + "/" + s
			b, err := rd.read(OptimizerPrefix+name, 4*int64(t.NumElements()))
			if err != nil {
				return nil, err
			}
			v, err := floatsFinite(b)
			if err != nil {
				return nil, fmt.Errorf("optimizer state %s: %w", name, err)
			}
			out = append(out, Tensor{Name: name, Shape: t.Shape, Data: v})
		}
	}
	return out, nil
}

// read returns an entry of exactly want bytes, or of at most -want bytes
// when want is negative. The zip reader fails on data longer than the
// entry's declared size and checks its CRC at the end.
func (rd *Reader) read(name string, want int64) ([]byte, error) {
	f, ok := rd.entries[name]
	if !ok {
		return nil, fmt.Errorf("entry %s missing", name)
	}
	size := f.UncompressedSize64
	if want >= 0 && size != uint64(want) {
		return nil, fmt.Errorf("entry %s has %d bytes, want %d", name, size, want)
	}
	if want < 0 && size > uint64(-want) {
		return nil, fmt.Errorf("entry %s has %d bytes, more than the limit of %d", name, size, -want)
	}
	// A stored entry cannot be larger than the archive: do not allocate
	// what a damaged directory claims.
	if f.Method == zip.Store && (f.CompressedSize64 != size || size > uint64(rd.size)) {
		return nil, fmt.Errorf("entry %s claims %d bytes (%d stored) in a file of %d bytes", name, size, f.CompressedSize64, rd.size)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("entry %s: %w", name, err)
	}
	defer rc.Close()
	b := make([]byte, size)
	if _, err := io.ReadFull(rc, b); err != nil {
		return nil, fmt.Errorf("entry %s: %w", name, err)
	}
	// Reading to the end checks the CRC.
	if n, err := rc.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("longer than declared")
		}
		return nil, fmt.Errorf("entry %s: %w", name, err)
	}
	return b, nil
}

// floatsFinite decodes little-endian float32 values and rejects NaN and
// infinities.
func floatsFinite(b []byte) ([]float32, error) {
	v := make([]float32, len(b)/4)
	for i := range v {
		f := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return nil, fmt.Errorf("value %d is %v", i, f)
		}
		v[i] = f
	}
	return v, nil
}

// Expect is what a reader checks a checkpoint's header against (Check);
// zero fields are not checked.
type Expect struct {
	// Game and EncodingVersion must match when Game is set.
	Game            string
	EncodingVersion int
	// Shape must match when set. A spatial-policy network saved for another
	// board size passes when its number of planes matches (it can be used
	// as a view for this board).
	Shape arch.Shape
	// Config's architecture must match when set (Threads and NoPadSingle
	// are not part of the architecture).
	Config *arch.Config
}

// Check compares the header with what the caller expects and returns an
// error naming the first difference.
func (h *Header) Check(want Expect) error {
	if want.Game != "" {
		if h.Game != want.Game {
			return fmt.Errorf("game is %q, expected %q", h.Game, want.Game)
		}
		if h.EncodingVersion != want.EncodingVersion {
			return fmt.Errorf("game %s encoding version is %d, expected %d", h.Game, h.EncodingVersion, want.EncodingVersion)
		}
	}
	if want.Config != nil {
		if d := h.Network.SameArchitecture(want.Config.WithDefaults()); d != "" {
			return fmt.Errorf("network has %s", d)
		}
	}
	if s := want.Shape; s != (arch.Shape{}) && s != h.Shape {
		sameBoardless := s.Planes == h.Shape.Planes && h.Network.PolicyHead == arch.PolicySpatial
		if !sameBoardless {
			return fmt.Errorf("network shape is %s, expected %s", h.Shape, s)
		}
	}
	return nil
}
