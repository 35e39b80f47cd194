package torch

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	lib "github.com/sugarme/gotch/libtch"
	"github.com/zerokit/zerokit/model/arch"
)

// Device is where a network's tensors live and its ops run. The zero value
// is the CPU.
type Device struct {
	cuda  bool
	index int
}

// CUDA reports whether d is a GPU.
func (d Device) CUDA() bool { return d.cuda }

// String returns "cpu" or "cuda:N".
func (d Device) String() string {
	return arch.DeviceSpec{CUDA: d.cuda, Index: d.index}.String()
}

// code is gotch's device number: -1 for the CPU, N for CUDA device N.
func (d Device) code() int32 {
	if d.cuda {
		return int32(d.index)
	}
	return -1
}

// CUDADevices returns the number of CUDA devices libtorch sees: 0 with a
// CPU-only libtorch, or without a GPU or its driver.
func CUDADevices() int {
	if !lib.AtcCudaIsAvailable() {
		return 0
	}
	return int(lib.AtcCudaDeviceCount())
}

// ResolveDevice turns a device name (arch.ParseDevice: auto, cpu, cuda,
// cuda:N) into a device libtorch can use. "auto" is CUDA device 0 when
// libtorch sees a GPU, else the CPU; asking for a GPU libtorch does not see
// is an error that says why.
func ResolveDevice(name string) (Device, error) {
	spec, err := arch.ParseDevice(name)
	if err != nil {
		return Device{}, fmt.Errorf("model: %w", err)
	}
	if !spec.Auto && !spec.CUDA {
		return Device{}, nil
	}
	n := CUDADevices()
	switch {
	case spec.Auto && n == 0:
		return Device{}, nil
	case spec.Auto:
		return Device{cuda: true}, nil
	case n == 0:
		return Device{}, fmt.Errorf("model: device %q: libtorch sees no CUDA device (%s); use device auto or cpu", name, noCUDAReason())
	case spec.Index >= n:
		return Device{}, fmt.Errorf("model: device %q: libtorch sees %d CUDA device(s), cuda:0 to cuda:%d", name, n, n-1)
	}
	return Device{cuda: true, index: spec.Index}, nil
}

// noCUDAReason says why libtorch may see no GPU: a libtorch built without
// CUDA (Debian's), or no driver.
func noCUDAReason() string {
	if _, err := os.Stat("/proc/driver/nvidia/version"); err != nil {
		return "no NVIDIA driver is loaded on this machine"
	}
	return "this libtorch was built without CUDA, or its CUDA does not match the driver; see docs/gpu.md"
}

// DeviceName describes d for run metadata and logs: "cpu", or "cuda:N" with
// the GPU's name ("cuda:0 (NVIDIA H200)") when the driver tells it.
func DeviceName(d Device) string {
	if !d.cuda {
		return d.String()
	}
	if name := gpuName(d.index); name != "" {
		return fmt.Sprintf("%s (%s)", d, name)
	}
	return d.String()
}

// gpuName returns the model name of NVIDIA GPU index as the driver reports
// it, or "". It asks nvidia-smi, whose numbering follows CUDA's by default
// only when CUDA_DEVICE_ORDER=PCI_BUS_ID; with one GPU, as on the machines
// this project measures, the two agree.
func gpuName(index int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "nvidia-smi", "--query-gpu=name", "--format=csv,noheader").Output()
	if err == nil {
		sc := bufio.NewScanner(bytes.NewReader(out))
		for i := 0; sc.Scan(); i++ {
			if i == index {
				return strings.TrimSpace(sc.Text())
			}
		}
	}
	// The driver's /proc files, in bus order.
	infos, _ := filepath.Glob("/proc/driver/nvidia/gpus/*/information")
	if index < len(infos) {
		if b, err := os.ReadFile(infos[index]); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "Model:"); ok {
					return strings.TrimSpace(v)
				}
			}
		}
	}
	return ""
}
