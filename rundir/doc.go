// Package rundir owns the layout of a training run directory: the names of
// its files, the lock that keeps a second process out, the checkpoint
// names, pointer and retention, the metrics file, and Resolve, which says
// what a path given for a network names (a checkpoint file, a run
// directory's latest checkpoint, or an exported agent directory). It
// depends on no network library, search or training code, so that agents,
// commands and the trainer share it.
//
// A run directory holds:
//
//	lock              flock(2)ed by the running train process; holds its pid
//	config.yaml       the effective configuration, written at the start
//	meta.json         seed, start time, Go version, host
//	checkpoints/      step-<step>.ckpt (network and optimizer),
//	                  step-<step>.json (trainer state), latest.json
//	games/            self-play games (package selfplay/gamestore)
//	metrics.jsonl     one JSON object per iteration and per evaluation
//	train.log         the log (log/slog text)
//	average.ckpt      the running mean of the weights (when the run averages)
//	agent/            the run's exported agent, refreshed at every checkpoint
package rundir
