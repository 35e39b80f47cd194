//go:build !nonet

package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/zerokit/zerokit/train"
)

const benchUsage = `usage: zerokit bench [-config FILE] [-seconds N]

Measures, with a freshly initialised network of the configuration (default:
the built-in defaults, i.e. configs/wyb.yaml): self-play positions and
simulations per second with batched evaluation (parallel games sharing one
batcher, as training runs) and unbatched (one game, one leaf at a time),
the mean batch size and the share of wall time in the network's forward
pass, and training samples per second. Each part runs -seconds.

flags:
`

// runBench implements "zerokit bench".
func runBench(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", benchUsage, stderr)
	configPath := fs.String("config", "", "configuration `file` (default: the built-in defaults)")
	seconds := fs.Float64("seconds", 20, "duration of each measurement in `seconds`")
	device := deviceFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *seconds <= 0 {
		return errors.New("-seconds must be positive")
	}
	cfg := train.DefaultConfig()
	if *configPath != "" {
		var err error
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
	res, err := train.Bench(ctx, cfg, time.Duration(*seconds*float64(time.Second)))
	if err != nil {
		return err
	}
	return res.WriteText(stdout)
}
