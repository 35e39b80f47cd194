package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// autocastAnchor is the declaration in libtch/torch_api.h after which the
// autocast functions are declared (inside the header's extern "C" block).
const autocastAnchor = "int at_grad_set_enabled(int);"

// autocastDecl declares the functions autocastDef defines.
const autocastDecl = `
// zerokit: mixed precision (autocast to bfloat16) for the calling OS thread,
// on the CPU (cuda 0) or CUDA (cuda 1). zk_autocast_enter returns the
// previous enabled state (or -1 on error); zk_autocast_exit restores it and
// drops the cached weight casts once the outermost region ends.
int zk_autocast_enter(int cuda);
void zk_autocast_exit(int cuda, int prev);
`

// autocastDef is appended to torch_api.cpp. gotch's own at_autocast_*
// functions reach only CUDA's fp16 autocast; these reach the CPU's too and
// choose bfloat16, which needs no loss scaling. PyTorch 2.4 replaced the
// per-device functions by ones taking the device type.
const autocastDef = `
// zerokit: mixed precision (see torch_api.h).
#include <torch/version.h>
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define ZK_AUTOCAST_BY_DEVICE 1
#endif

int zk_autocast_enter(int cuda) {
  PROTECT(
#ifdef ZK_AUTOCAST_BY_DEVICE
      at::DeviceType d = cuda ? at::kCUDA : at::kCPU;
      bool prev = at::autocast::is_autocast_enabled(d);
      at::autocast::set_autocast_dtype(d, at::kBFloat16);
      at::autocast::set_autocast_enabled(d, true);
#else
      bool prev = cuda ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
      if (cuda) {
        at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
        at::autocast::set_enabled(true);
      } else {
        at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
        at::autocast::set_cpu_enabled(true);
      }
#endif
      at::autocast::increment_nesting();
      return prev ? 1 : 0;)
  return -1;
}

void zk_autocast_exit(int cuda, int prev) {
  PROTECT(
      if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
#ifdef ZK_AUTOCAST_BY_DEVICE
      at::autocast::set_autocast_enabled(cuda ? at::kCUDA : at::kCPU, prev != 0);
#else
      if (cuda) at::autocast::set_enabled(prev != 0);
      else at::autocast::set_cpu_enabled(prev != 0);
#endif
  )
}
`

// addAutocast declares the autocast functions in libtch/torch_api.h and
// appends their definitions to libtch/torch_api.cpp.
func addAutocast(dir string) error {
	libtch := filepath.Join(dir, "libtch")
	err := rewriteFile(filepath.Join(libtch, "torch_api.h"), func(text string) (string, error) {
		if n := strings.Count(text, autocastAnchor); n != 1 {
			return "", fmt.Errorf("torch_api.h: %q found %d times, expected once (not gotch v0.9.1?)", autocastAnchor, n)
		}
		return strings.Replace(text, autocastAnchor, autocastAnchor+"\n"+autocastDecl, 1), nil
	})
	if err != nil {
		return err
	}
	return rewriteFile(filepath.Join(libtch, "torch_api.cpp"), func(text string) (string, error) {
		if strings.Contains(text, "zk_autocast_enter") {
			return "", fmt.Errorf("torch_api.cpp: already has zk_autocast_enter (patched twice?)")
		}
		return text + autocastDef, nil
	})
}
