#!/usr/bin/env python3
"""Speed of the official Watch Your Back! referee on uniformly random playouts.

This script contains none of the referee's code. It imports the referee's
game class from the path given on the command line (the course's
referee.py, or a local copy of its _Game class) and plays uniformly random
games through it, exactly like BenchmarkRandomPlayout in bench_test.go:
every turn it lists the legal actions with a simple Python enumerator (the
way the course's random agents did, reading the referee's board) and
applies one chosen uniformly at random with the referee's update(). Games
stop when the referee ends them or, like the Go benchmark's default turn
limit (rule 8 in rules.go), after moving turn 256.

Usage:
    python3 env/wyb/testdata/bench_referee.py REFEREE [--games N] [--seed S]

REFEREE is a .py file or a directory holding referee.py or refgame.py. If it
does not exist the script says so and exits 0 (skip). It prints actions/s
and games/s for legal generation + apply, by wall-clock and by CPU time
(the CPU figure is the one to compare on a loaded machine), and the share
of the time spent in the referee's update() alone.
"""

import argparse
import importlib.util
import os
import random
import sys
import time

TURN_LIMIT = 256  # moving-phase turns, as wyb.DefaultTurnLimit
DIRS = ((0, -1), (0, 1), (-1, 0), (1, 0))


def load_game_class(path, class_name):
    """Returns the referee's game class from a file or a directory."""
    if os.path.isdir(path):
        for name in ("referee.py", "refgame.py"):
            if os.path.isfile(os.path.join(path, name)):
                path = os.path.join(path, name)
                break
        else:
            raise FileNotFoundError(f"{path}: no referee.py or refgame.py")
    spec = importlib.util.spec_from_file_location("wyb_referee", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise SystemExit(f"{path}: no class {class_name!r}") from None


def legal_actions(g):
    """Lists the legal actions in the referee's form by reading g.board."""
    board = g.board
    piece = 'W' if g.turns % 2 == 0 else 'B'
    out = []
    if g.phase == 'placing':
        rows = range(0, 6) if piece == 'W' else range(2, 8)
        for y in rows:
            row = board[y]
            for x in range(8):
                if row[x] == '-':
                    out.append((x, y))
        return out
    for y in range(8):
        for x in range(8):
            if board[y][x] != piece:
                continue
            for dx, dy in DIRS:
                x1, y1 = x + dx, y + dy
                if not (0 <= x1 < 8 and 0 <= y1 < 8):
                    continue
                v = board[y1][x1]
                if v == '-':
                    out.append(((x, y), (x1, y1)))
                elif v == 'W' or v == 'B':
                    x2, y2 = x1 + dx, y1 + dy
                    if 0 <= x2 < 8 and 0 <= y2 < 8 and board[y2][x2] == '-':
                        out.append(((x, y), (x2, y2)))
    return out or [None]


def playout(game_class, rng, timing):
    """Plays one random game; returns its number of actions."""
    g = game_class()
    n = 0
    clock = time.perf_counter
    while g.phase in ('placing', 'moving'):
        if g.phase == 'moving' and g.turns >= TURN_LIMIT:
            break
        actions = legal_actions(g)
        a = actions[rng.randrange(len(actions))]
        t0 = clock()
        g.update(a)
        timing[0] += clock() - t0
        n += 1
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("referee", help="referee .py file or a directory holding referee.py or refgame.py")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--class-name", default="_Game", help="the referee's game class")
    args = ap.parse_args()
    if not os.path.exists(args.referee):
        print(f"skip: referee {args.referee} not found")
        return 0
    game_class = load_game_class(args.referee, args.class_name)
    rng = random.Random(args.seed)
    timing = [0.0]
    actions = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    for _ in range(args.games):
        actions += playout(game_class, rng, timing)
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    print(f"python {sys.version.split()[0]}, {args.games} games, {actions} actions, "
          f"{elapsed:.2f} s wall, {cpu:.2f} s CPU")
    print(f"actions/game   {actions / args.games:.1f}")
    print(f"actions/s      {actions / elapsed:.0f} wall, {actions / cpu:.0f} CPU   (legal generation + apply)")
    print(f"games/s        {args.games / elapsed:.1f} wall, {args.games / cpu:.1f} CPU")
    print(f"update() alone {timing[0] / elapsed * 100:.0f}% of the wall time, "
          f"{actions / timing[0]:.0f} actions/s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
