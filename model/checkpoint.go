package model

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
	"path/filepath"
	"runtime"
	"slices"
)

// Checkpoint file layout: a zip archive (entries stored uncompressed) with
//
//	zerokit-checkpoint.json  metadata (checkpointHeader)
//	config                   the Metadata.Config blob, verbatim (optional)
//	tensors/<name>           each network tensor, little-endian float32
//	optimizer/<name>/<slot>  each optimizer state tensor (optional)
const (
	checkpointFormat  = "zerokit-checkpoint"
	checkpointVersion = 1
	headerEntry       = "zerokit-checkpoint.json"
	configEntry       = "config"
	tensorPrefix      = "tensors/"
	optimizerPrefix   = "optimizer/"
	// maxHeaderBytes and maxConfigBytes bound what Load reads from the
	// metadata and config entries (tensor entries must have their exact
	// size), so that a crafted file cannot make it allocate gigabytes.
	maxHeaderBytes = 1 << 20
	maxConfigBytes = 64 << 20
)

// Metadata is what a checkpoint records besides the network and optimizer.
type Metadata struct {
	// Game is the game's name (env.Game.Name), e.g. "wyb" or "squatter6".
	Game string
	// EncodingVersion is the game's observation/action encoding version.
	EncodingVersion int
	// Step is the training step the checkpoint was taken at.
	Step int64
	// Seed is the run's random seed.
	Seed uint64
	// Config is an arbitrary blob (for example the run's configuration),
	// stored and returned verbatim.
	Config []byte
}

type tensorRecord struct {
	Name  string  `json:"name"`
	Shape []int64 `json:"shape"`
}

type optimizerRecord struct {
	Config TrainConfig `json:"config"`
	Step   int64       `json:"step"`
	Slots  []string    `json:"slots"`
}

// checkpointHeader is the JSON metadata entry.
type checkpointHeader struct {
	Format          string           `json:"format"`
	Version         int              `json:"version"`
	Game            string           `json:"game"`
	EncodingVersion int              `json:"encoding_version"`
	Step            int64            `json:"step"`
	Seed            uint64           `json:"seed"`
	Network         Config           `json:"network"`
	Shape           Shape            `json:"shape"`
	Tensors         []tensorRecord   `json:"tensors"`
	Optimizer       *optimizerRecord `json:"optimizer,omitempty"`
}

// Save writes net's weights, tr's optimizer state (tr may be nil) and meta
// to path atomically: a temporary file in the same directory, synced, then
// renamed over path.
func Save(path string, net *Net, tr *Trainer, meta Metadata) error {
	if tr != nil && tr.net.c != net.c {
		return fmt.Errorf("checkpoint %s: the trainer belongs to another network", path)
	}
	h, tensors, slots, err := snapshot(net, tr, meta)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	var buf bytes.Buffer
	if err := writeArchive(&buf, h, meta.Config, tensors, slots); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err := writeFileAtomic(path, buf.Bytes()); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return nil
}

// paramSlots is the optimizer state of one parameter, in slot-name order.
type paramSlots struct {
	name string
	vals [][]float32
}

// snapshot copies the network's (and optimizer's) tensors to Go memory.
func snapshot(net *Net, tr *Trainer, meta Metadata) (checkpointHeader, [][]float32, []paramSlots, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := net.c
	c.mu.Lock()
	defer c.mu.Unlock()
	h := checkpointHeader{
		Format: checkpointFormat, Version: checkpointVersion,
		Game: meta.Game, EncodingVersion: meta.EncodingVersion, Step: meta.Step, Seed: meta.Seed,
		Network: c.cfg, Shape: net.shape,
	}
	if c.st == nil || (tr != nil && tr.closed) {
		return h, nil, nil, errClosed
	}
	e := newEngine()
	var tensors [][]float32
	for _, t := range c.st.tensors {
		h.Tensors = append(h.Tensors, tensorRecord{Name: t.name, Shape: t.shape})
		v := make([]float32, t.numel())
		e.copyOut(t.h, v)
		tensors = append(tensors, v)
	}
	var slots []paramSlots
	if tr != nil {
		h.Optimizer = &optimizerRecord{Config: tr.cfg, Step: tr.step, Slots: tr.cfg.slotNames()}
		for i, p := range tr.params {
			ps := paramSlots{name: p.name}
			for _, sh := range tr.slots[i] {
				v := make([]float32, p.numel())
				e.copyOut(sh, v)
				ps.vals = append(ps.vals, v)
			}
			slots = append(slots, ps)
		}
	}
	return h, tensors, slots, e.err
}

func writeArchive(w io.Writer, h checkpointHeader, config []byte, tensors [][]float32, slots []paramSlots) error {
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
	if err := put(headerEntry, js); err != nil {
		return err
	}
	if config != nil {
		if err := put(configEntry, config); err != nil {
			return err
		}
	}
	for i, r := range h.Tensors {
		if err := put(tensorPrefix+r.Name, floatBytes(tensors[i])); err != nil {
			return err
		}
	}
	for _, ps := range slots {
		for k, s := range h.Optimizer.Slots {
			if err := put(optimizerPrefix+ps.name+"/"+s, floatBytes(ps.vals[k])); err != nil {
				return err
			}
		}
	}
	return zw.Close()
}

func floatBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// writeFileAtomic writes data to a temporary file next to path, syncs it,
// renames it over path and syncs the directory.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Expect is what Load checks a checkpoint against; zero fields are not
// checked.
type Expect struct {
	// Game and EncodingVersion must match when Game is set.
	Game            string
	EncodingVersion int
	// Shape must match when set. A spatial-policy network saved for another
	// board size is returned as a view for this one (Net.WithBoard).
	Shape Shape
	// Config's architecture must match when set (Threads and NoPadSingle
	// are taken from it in any case when set).
	Config *Config
}

// Checkpoint is a loaded checkpoint.
type Checkpoint struct {
	// Metadata is what Save recorded.
	Metadata
	// Net is the network, ready for inference or training.
	Net *Net
	// Optimizer is the optimizer configuration saved with the checkpoint,
	// or nil when it has no optimizer state.
	Optimizer *TrainConfig

	path     string
	optStep  int64
	optSlots map[string][]float32 // "name/slot" -> values
}

// Load reads and validates a checkpoint. A file that is not a complete
// zerokit checkpoint, or that does not match want, gives an error naming
// the file and the problem.
func Load(path string, want Expect) (*Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return LoadFrom(path, f, st.Size(), want)
}

// LoadFrom reads and validates a checkpoint of size bytes from r, like
// Load; name identifies it in errors.
func LoadFrom(name string, r io.ReaderAt, size int64, want Expect) (*Checkpoint, error) {
	ck, err := load(name, r, size, want)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", name, err)
	}
	return ck, nil
}

func load(path string, r io.ReaderAt, size int64, want Expect) (*Checkpoint, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a readable zerokit checkpoint (truncated or another format?): %w", err)
	}
	entries := map[string]*zip.File{}
	for _, f := range zr.File {
		entries[f.Name] = f
	}
	// read returns an entry of exactly want bytes, or of at most -want
	// bytes when want is negative. The zip reader fails on data longer
	// than the entry's declared size and checks its CRC at the end.
	read := func(name string, want int64) ([]byte, error) {
		f, ok := entries[name]
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
	if _, ok := entries[headerEntry]; !ok {
		return nil, fmt.Errorf("not a zerokit checkpoint (no %s entry)", headerEntry)
	}
	js, err := read(headerEntry, -maxHeaderBytes)
	if err != nil {
		return nil, err
	}
	var h checkpointHeader
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	if h.Format != checkpointFormat {
		return nil, fmt.Errorf("metadata: format %q, want %q", h.Format, checkpointFormat)
	}
	if h.Version != checkpointVersion {
		return nil, fmt.Errorf("metadata: format version %d, this program reads version %d", h.Version, checkpointVersion)
	}
	if err := checkExpect(h, want); err != nil {
		return nil, err
	}
	cfg := h.Network
	if want.Config != nil {
		cfg.Threads, cfg.NoPadSingle = want.Config.Threads, want.Config.NoPadSingle
	}
	if err := errors.Join(cfg.Validate(), h.Shape.Validate(cfg)); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	layout := newStore(cfg, h.Shape)
	if err := checkLayout(h.Tensors, layout); err != nil {
		return nil, err
	}
	values := map[string][]float32{}
	for _, t := range layout.tensors {
		b, err := read(tensorPrefix+t.name, 4*int64(t.numel()))
		if err != nil {
			return nil, err
		}
		v, err := floatsFinite(b)
		if err != nil {
			return nil, fmt.Errorf("tensor %s: %w", t.name, err)
		}
		values[t.name] = v
	}
	ck := &Checkpoint{
		Metadata: Metadata{Game: h.Game, EncodingVersion: h.EncodingVersion, Step: h.Step, Seed: h.Seed},
		path:     path,
	}
	if _, ok := entries[configEntry]; ok {
		if ck.Config, err = read(configEntry, -maxConfigBytes); err != nil {
			return nil, err
		}
	}
	if o := h.Optimizer; o != nil {
		if err := o.Config.Validate(); err != nil {
			return nil, fmt.Errorf("optimizer metadata: %w", err)
		}
		if !slices.Equal(o.Slots, o.Config.slotNames()) {
			return nil, fmt.Errorf("optimizer metadata: slots %q, want %q", o.Slots, o.Config.slotNames())
		}
		ck.Optimizer = &o.Config
		ck.optStep = o.Step
		ck.optSlots = map[string][]float32{}
		for _, t := range layout.tensors {
			if t.role == roleBuffer {
				continue
			}
			for _, s := range o.Slots {
				name := t.name + "/" + s
				b, err := read(optimizerPrefix+name, 4*int64(t.numel()))
				if err != nil {
					return nil, err
				}
				if ck.optSlots[name], err = floatsFinite(b); err != nil {
					return nil, fmt.Errorf("optimizer state %s: %w", name, err)
				}
			}
		}
	}
	net, err := build(cfg, h.Shape, func(t *namedTensor) []float32 { return values[t.name] })
	if err != nil {
		return nil, err
	}
	if want.Shape != (Shape{}) && want.Shape != h.Shape {
		view, err := net.WithBoard(want.Shape.Height, want.Shape.Width)
		if err == nil && view.shape != want.Shape {
			err = fmt.Errorf("shape %s, expected %s", view.shape, want.Shape)
		}
		if err != nil {
			net.Close()
			return nil, err
		}
		net = view
	}
	ck.Net = net
	return ck, nil
}

// checkExpect compares the header with what the caller expects.
func checkExpect(h checkpointHeader, want Expect) error {
	if want.Game != "" {
		if h.Game != want.Game {
			return fmt.Errorf("game is %q, expected %q", h.Game, want.Game)
		}
		if h.EncodingVersion != want.EncodingVersion {
			return fmt.Errorf("game %s encoding version is %d, expected %d", h.Game, h.EncodingVersion, want.EncodingVersion)
		}
	}
	if want.Config != nil {
		if d := h.Network.sameArchitecture(want.Config.WithDefaults()); d != "" {
			return fmt.Errorf("network has %s", d)
		}
	}
	if s := want.Shape; s != (Shape{}) && s != h.Shape {
		sameBoardless := s.Planes == h.Shape.Planes && h.Network.PolicyHead == PolicySpatial
		if !sameBoardless {
			return fmt.Errorf("network shape is %s, expected %s", h.Shape, s)
		}
	}
	return nil
}

// checkLayout compares the recorded tensor list with the network's.
func checkLayout(recs []tensorRecord, layout *store) error {
	for i, t := range layout.tensors {
		if i >= len(recs) {
			return fmt.Errorf("tensor list ends after %d tensors; the network has %d (next: %s)", len(recs), len(layout.tensors), t.name)
		}
		r := recs[i]
		if r.Name != t.name || !slices.Equal(r.Shape, t.shape) {
			return fmt.Errorf("tensor %d is %s %v; the network's is %s %v", i, r.Name, r.Shape, t.name, t.shape)
		}
	}
	if len(recs) > len(layout.tensors) {
		return fmt.Errorf("%d tensors; the network has %d (first extra: %s)", len(recs), len(layout.tensors), recs[len(layout.tensors)].Name)
	}
	return nil
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

// Restore loads the optimizer state and step count saved in ck into t.
// The checkpoint must have been loaded for t's network architecture and
// saved with the same optimizer kind.
func (t *Trainer) Restore(ck *Checkpoint) error {
	if ck.Optimizer == nil {
		return fmt.Errorf("checkpoint %s: has no optimizer state", ck.path)
	}
	if ck.Optimizer.Optimizer != t.cfg.Optimizer {
		return fmt.Errorf("checkpoint %s: optimizer is %s, expected %s", ck.path, ck.Optimizer.Optimizer, t.cfg.Optimizer)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := t.net.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st == nil || t.closed {
		return errClosed
	}
	names := t.cfg.slotNames()
	for _, p := range t.params {
		for _, s := range names {
			v, ok := ck.optSlots[p.name+"/"+s]
			if !ok || len(v) != p.numel() {
				return fmt.Errorf("checkpoint %s: no optimizer state %s/%s of %d values for this network", ck.path, p.name, s, p.numel())
			}
		}
	}
	e := t.eng
	e.reset()
	for i, p := range t.params {
		for k, s := range names {
			src := e.fromFloat32(ck.optSlots[p.name+"/"+s], p.shape)
			e.copyFrom(t.slots[i][k], src)
			e.free(src)
		}
	}
	if e.err != nil {
		return fmt.Errorf("checkpoint %s: restoring optimizer state: %w", ck.path, e.err)
	}
	t.step = ck.optStep
	return nil
}

// Clone returns an independent copy of the network (same weights and
// running statistics, own memory), for example a frozen copy for self-play
// while the original trains.
func (n *Net) Clone() (*Net, error) {
	return n.CloneThreads(n.c.cfg.Threads)
}

// Copies returns k independent copies of the network (CloneThreads(threads)
// each), for example one single-threaded copy per core to evaluate batches
// in parallel. On error the copies made so far are closed.
func (n *Net) Copies(k, threads int) ([]*Net, error) {
	copies := make([]*Net, 0, k)
	for range k {
		c, err := n.CloneThreads(threads)
		if err != nil {
			for _, c := range copies {
				c.Close()
			}
			return nil, err
		}
		copies = append(copies, c)
	}
	return copies, nil
}

// CloneThreads is Clone with the copy's operations running on threads
// libtorch threads (0: libtorch's default), for example single-threaded
// copies that evaluate batches on every core at once.
func (n *Net) CloneThreads(threads int) (*Net, error) {
	h, tensors, _, err := snapshot(n, nil, Metadata{})
	if err != nil {
		return nil, fmt.Errorf("model: Clone: %w", err)
	}
	values := map[string][]float32{}
	for i, r := range h.Tensors {
		values[r.Name] = tensors[i]
	}
	cfg := n.c.cfg
	cfg.Threads = threads
	return build(cfg, n.shape, func(t *namedTensor) []float32 { return values[t.name] })
}
