package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/zerokit/zerokit/model/ckpt"
)

const averageUsage = `usage: zerokit average -out FILE CHECKPOINT...
       zerokit average -out FILE -run DIR [-from STEP] [-to STEP]

Writes to FILE the checkpoint whose weights are the mean of several
checkpoints' weights (stochastic weight averaging): each network tensor,
batch normalization statistics included, is averaged element by element.
The checkpoints are the files given, or those of training run DIR whose
steps are between -from and -to (default: up to the newest). They must be
of one game, encoding and architecture, normally taken along one run.
FILE gets the last checkpoint's step, seed and run configuration, no
optimizer state (it cannot be resumed), and the averaged steps in its
metadata (averaged_steps). It is written atomically; an existing FILE is
replaced only with -force.

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
	run := fs.String("run", "", "training run `directory` whose checkpoints to average")
	from := fs.Int64("from", 0, "with -run: the first `step` averaged")
	to := fs.Int64("to", 0, "with -run: the last `step` averaged (0: the newest)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	paths := fs.Args()
	switch {
	case *out == "":
		fs.Usage()
		return errors.New("-out is required")
	case *run != "" && len(paths) > 0:
		return errors.New("give checkpoint files or -run, not both")
	case *run == "" && (*from != 0 || *to != 0):
		return errors.New("-from and -to select checkpoints of -run")
	case *run != "":
		var err error
		if paths, err = stepRange(*run, *from, *to); err != nil {
			return err
		}
	case len(paths) == 0:
		fs.Usage()
		return errors.New("no checkpoints: give checkpoint files or -run")
	}
	if _, err := os.Stat(*out); err == nil && !*force {
		return fmt.Errorf("%s exists (use -force to replace it)", *out)
	}
	cs := make([]*ckpt.Checkpoint, len(paths))
	for i, path := range paths {
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

// stepRange lists the checkpoint files of run directory dir with steps
// from from to to (0: the newest), in step order.
func stepRange(dir string, from, to int64) ([]string, error) {
	all, err := runCheckpoints(dir, 0)
	if err != nil {
		return nil, err
	}
	if to == 0 {
		to = all[len(all)-1].step
	}
	if from > to {
		return nil, fmt.Errorf("-from %d is after -to %d", from, to)
	}
	var paths []string
	for _, c := range all {
		if c.step >= from && c.step <= to {
			paths = append(paths, c.path)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("-run %s: no checkpoint with a step from %d to %d", dir, from, to)
	}
	return paths, nil
}
