// Package rundir manages the files of a training run directory that do not
// depend on the network library: the lock that keeps a second process out,
// the checkpoint names, pointer and retention, and the metrics file.
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
package rundir
