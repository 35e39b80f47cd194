package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/zerokit/zerokit/model/ckpt"
)

const averageUsage = `usage: zerokit average -out FILE CHECKPOINT...

Writes to FILE the checkpoint whose weights are the mean of the given
checkpoints' weights (stochastic weight averaging): each network tensor,
batch normalization statistics included, is averaged element by element.
The checkpoints must be of one game, encoding and architecture, normally
several taken along one training run. FILE gets the last checkpoint's
step, seed and run configuration, no optimizer state (it cannot be
resumed), and the averaged steps in its metadata (averaged_steps). It is
written atomically; an existing FILE is replaced only with -force.

Use FILE wherever a checkpoint goes, e.g.

  zerokit eval -a net:path=FILE,mode=puct,sims=400 -b alphabeta:depth=3
  zerokit export -checkpoint FILE -out DIR

flags:
`

// runAverage implements "zerokit average".
func runAverage(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("average", averageUsage, stderr)
	out := fs.String("out", "", "checkpoint `file` to write")
	force := fs.Bool("force", false, "replace FILE if it exists")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		fs.Usage()
		return errors.New("-out and at least one checkpoint are required")
	}
	if _, err := os.Stat(*out); err == nil && !*force {
		return fmt.Errorf("%s exists (use -force to replace it)", *out)
	}
	cs := make([]*ckpt.Checkpoint, fs.NArg())
	for i, path := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := ckpt.ReadFile(path)
		if err != nil {
			return err
		}
		cs[i] = c
	}
	avg, err := ckpt.Average(cs)
	if err != nil {
		return fmt.Errorf("%w (checkpoints numbered from 0 in the order given)", err)
	}
	if err := ckpt.WriteFile(*out, avg); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: mean of %d checkpoints (steps %v), game %s, encoding %d\n",
		*out, len(cs), avg.Header.AveragedSteps, avg.Header.Game, avg.Header.EncodingVersion)
	return nil
}
