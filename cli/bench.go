//go:build !nonet

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/zerokit/zerokit/train"
)

const benchUsage = `usage: zerokit bench [-config FILE] [-seconds N] [-parts LIST] [-device D]

Measures, with a freshly initialised network of the configuration (default:
the built-in defaults, i.e. configs/wyb.yaml): self-play positions and
simulations per second with batched evaluation (parallel games sharing one
batcher, as training runs) and unbatched (one game, one leaf at a time),
the mean batch size and the share of wall time in the network's forward
pass, and training samples per second, and the network's own forward
throughput at batches 1 to 4,096. Each part runs -seconds (the forward
part a quarter of that per batch size); -parts picks some of them (a
configuration's self-play alone: -parts batched).

flags:
`

// runBench implements "zerokit bench".
func runBench(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", benchUsage, stderr)
	configPath := fs.String("config", "", "configuration `file` (default: the built-in defaults)")
	seconds := fs.Float64("seconds", 20, "duration of each measurement in `seconds`")
	partList := fs.String("parts", "all", "comma-separated `parts` to measure: forward, batched, unbatched, train, or all")
	device := deviceFlag(fs)
	profile := fs.String("cpuprofile", "", "write a CPU profile of the whole measurement (go tool pprof) to `file`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *seconds <= 0 {
		return errors.New("-seconds must be positive")
	}
	parts, err := train.ParseBenchParts(*partList)
	if err != nil {
		return err
	}
	cfg := train.DefaultConfig()
	if *configPath != "" {
		if cfg, err = train.LoadConfig(*configPath); err != nil {
			return err
		}
	}
	if *device != "" {
		cfg.Device = *device
		if err := cfg.Validate(); err != nil {
			return err
		}
	}
	if *profile != "" {
		stop, err := startCPUProfile(*profile)
		if err != nil {
			return err
		}
		defer stop()
	}
	res, err := train.Bench(ctx, cfg, time.Duration(*seconds*float64(time.Second)), parts)
	if err != nil {
		return err
	}
	return res.WriteText(stdout)
}

// startCPUProfile starts a CPU profile written to path (atomically, when
// stop is called).
func startCPUProfile(path string) (stop func(), err error) {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err == nil {
			os.Rename(tmp, path)
		}
	}, nil
}
