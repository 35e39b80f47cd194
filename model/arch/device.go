package arch

import (
	"fmt"
	"strconv"
	"strings"
)

// DeviceSpec is a parsed device name: where a libtorch network should run.
// Resolving it (does libtorch see that GPU?) is model/torch's job.
type DeviceSpec struct {
	// Auto picks CUDA device 0 when libtorch sees a GPU, else the CPU.
	Auto bool
	// CUDA selects GPU Index; otherwise (and not Auto) the CPU.
	CUDA  bool
	Index int
}

// DeviceNames is the syntax ParseDevice accepts, for help texts.
const DeviceNames = "auto | cpu | cuda | cuda:N"

// maxDevice bounds a CUDA device index.
const maxDevice = 1 << 10

// ParseDevice parses a device name: "auto" (or ""), "cpu", "cuda" (device
// 0) or "cuda:N". Names are case-insensitive and may have surrounding
// space.
func ParseDevice(name string) (DeviceSpec, error) {
	s := strings.ToLower(strings.TrimSpace(name))
	switch s {
	case "", "auto":
		return DeviceSpec{Auto: true}, nil
	case "cpu":
		return DeviceSpec{}, nil
	case "cuda", "gpu":
		return DeviceSpec{CUDA: true}, nil
	}
	if rest, ok := strings.CutPrefix(s, "cuda:"); ok {
		i, err := strconv.Atoi(rest)
		if err == nil && i >= 0 && i < maxDevice && strconv.Itoa(i) == rest {
			return DeviceSpec{CUDA: true, Index: i}, nil
		}
	}
	return DeviceSpec{}, fmt.Errorf("device %q: want %s", name, DeviceNames)
}

// String returns the canonical name: "auto", "cpu" or "cuda:N".
func (d DeviceSpec) String() string {
	switch {
	case d.Auto:
		return "auto"
	case d.CUDA:
		return "cuda:" + strconv.Itoa(d.Index)
	}
	return "cpu"
}
