// Package train is the training loop: one process alternating self-play
// phases (package selfplay, every game durable on disk as it finishes,
// package selfplay/gamestore) and training phases (package model/torch) over a
// replay buffer (package data), with periodic checkpoints and evaluation
// matches (package arena), in a run directory (package rundir) that
// a later Run resumes from.
//
// An iteration is:
//
//  1. self-play with the current network until Train.PositionsPerIteration
//     new positions are finished (games in flight pause and continue in the
//     next iteration with the new network);
//  2. compaction of the iteration's games into one shard;
//  3. floor(Train.SamplesPerPosition x new positions / Train.BatchSize)
//     training steps (the remainder carries over), each on a batch sampled
//     uniformly from the replay window with random exact symmetries, a
//     checkpoint every Checkpoint.Every steps and an evaluation every
//     Eval.Every steps;
//  4. one metrics line and one log line.
//
// Stopping and resuming. A cancelled context (SIGINT or SIGTERM in the
// command), -max-steps or -max-minutes stops the run between two training
// steps or during self-play (finished games are kept, games in flight are
// dropped); it then saves a checkpoint and returns nil. Run on the same
// directory continues from the latest checkpoint: the step count, the
// optimizer state and the learning-rate schedule, the game counter (so game
// seeds never repeat), and the training owed for positions generated after
// the checkpoint. After kill -9 the same happens from the last committed
// checkpoint; no finished game is lost or duplicated (see gamestore).
// Options.ConfigPath given on resuming may change the learning-rate
// schedule, the evaluation, checkpoint, batching and self-play parallelism
// settings, the sparring partner and the thread count; the run's config.yaml is updated and
// meta.json records the change. Any other difference is an error.
//
// Reproducibility: the network initialisation, every game's search (seed
// selfplay.GameSeed(seed, game index)), the replay sampler (seeded from the
// seed and the step at which the process started) and the evaluation
// matches derive from Config.Seed. With several games at once, which
// network plays which move depends on timing (games pause at phase
// boundaries) and so does the makeup of network batches, so two runs are
// not bit-identical. With one game, one evaluation game, one leaf in
// flight, one thread and one batcher worker on the CPU they are:
// TestPinnedRun checks it, and pins the games and evaluation results of
// such a run.
//
// Structure: run.go is Run and the loop, prepare.go the resumption and
// trainphase.go the training phase. The run's files are reached through
// one seam, a runstore.Run (its local directory, mirrored to a store for a
// run kept in one), and its new games through another, a gameSource
// (games.go: the trainer's own self-play; ingest.go: the workers' games in
// the store); the loop does not ask where the run lives. setup.go (Setup)
// turns the configuration into networks, the self-play evaluator and
// generator, for the trainer, the store worker (worker.go) and "zerokit
// selfplay"; eval.go is the evaluation stage and report.go the reporting
// stage the loop calls; the trainer reports its phases' progress through
// Progress and draws nothing.
package train
