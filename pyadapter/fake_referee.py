"""A test double of the COMP30024 (2018) Watch Your Back! referee.

    python3 fake_referee.py [-d DELAY] [-q] [--max-turns N] [--zerokit PATH]
                            white_module black_module

It drives two Player classes exactly as the course's referee.py does
(Player(colour), action(turns), update(action) of the opponent), but it
keeps no rules of its own: after every action it replays the whole game so
far through ``zerokit replay``, which validates actions exactly like the
referee, and stops at the first "invalid action" line, declaring the other
player the winner. It prints the board after each turn (unless -q) and
finally "winner: W!", "winner: B!", "winner: draw!" or, when --max-turns
stopped an endless game, "winner: None!".

Modules are imported by name, as the referee does, from this file's
directory or the current directory. The zerokit executable is --zerokit,
else the environment variable ZEROKIT_BIN, else zerokit on PATH.

Standard library only; Python 3.6 syntax.
"""

import argparse
import importlib
import json
import os
import shutil
import subprocess
import sys
import time

VERSION_INFO = 'fake referee (zerokit test double of referee.py v1.2)'


class RefereeError(Exception):
    """The replay tool failed (not a player's fault)."""


def encode_action(action):
    """The action as JSON for zerokit replay. Values with no JSON form
    (objects, NaN) are sent as a JSON string of their repr, which the
    replay rejects as malformed, as the referee would."""
    try:
        return json.dumps(action, allow_nan=False)
    except (TypeError, ValueError):
        return json.dumps(repr(action))


class Replay(object):
    """Validates a game's actions with ``zerokit replay``."""

    def __init__(self, binary):
        self.binary = binary

    def check(self, actions):
        """Replay the JSON-encoded actions. Return (board, progress,
        invalid, winner): the last board (8 lines), its progress line, the
        "invalid action ..." line or None, and the winner ('W', 'B', 'draw'
        or 'None')."""
        game = '[' + ', '.join(actions) + ']\n'
        try:
            p = subprocess.Popen([self.binary, 'replay'],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        except OSError as e:
            raise RefereeError('cannot run %s replay: %s' % (self.binary, e))
        out, err = p.communicate(game.encode('utf-8'))
        if p.returncode != 0:
            raise RefereeError('%s replay failed (status %d): %s' % (
                self.binary, p.returncode, err.decode('utf-8', 'replace')))
        lines = out.decode('utf-8').split('\n')
        invalid, winner, last = None, None, None
        for i, line in enumerate(lines):
            if line.startswith('invalid action ('):
                invalid = line
            elif line.startswith('winner: ') and line.endswith('!'):
                winner = line[len('winner: '):-1]
                last = i
        if winner is None or last is None or last < 9:
            raise RefereeError('unexpected replay output:\n' + out.decode())
        end = last - 1 if invalid is not None else last
        return '\n'.join(lines[end - 9:end - 1]), lines[end - 1], invalid, \
            winner


class Result(object):
    """The outcome of one game."""

    def __init__(self, winner, actions, invalid=None, times=None):
        self.winner = winner        # 'W', 'B', 'draw' or 'None'
        self.actions = actions      # JSON of each action played
        self.invalid = invalid      # the replay's invalid-action line
        self.times = times or {}    # colour -> list of action() seconds


def play(white_class, black_class, binary, max_turns=0, delay=0.0,
         out=None):
    """Play one game between two Player classes and return a Result.
    Exceptions raised by the players propagate, as in the referee."""
    say = (lambda *a: print(*a, file=out)) if out is not None else \
        (lambda *a: None)
    replay = Replay(binary)
    white, black = white_class('white'), black_class('black')
    board, progress, _, _ = replay.check([])
    say(board + '\n' + progress)
    times = {'W': [], 'B': []}
    actions = []
    player, opponent, colour = white, black, 'W'
    turns = 0
    while True:
        if max_turns and len(actions) >= max_turns:
            say('stopped after %d actions (--max-turns)' % len(actions))
            winner, invalid = 'None', None
            break
        if delay:
            time.sleep(delay)
        start = time.perf_counter()
        action = player.action(turns)
        times[colour].append(time.perf_counter() - start)
        actions.append(encode_action(action))
        board, progress, invalid, winner = replay.check(actions)
        if invalid is not None:
            say(invalid)
            break
        say(board + '\n' + progress)
        opponent.update(action)
        if progress.startswith('game over'):
            break
        turns = int(progress.split()[0])
        player, opponent = opponent, player
        colour = 'B' if colour == 'W' else 'W'
    say('winner: %s!' % winner)
    for p in (white, black):
        close = getattr(p, 'close', None)
        if callable(close):
            close()
    return Result(winner, actions, invalid, times)


def load_player(name):
    """The Player class of module name (a module name, or a file path)."""
    if name.endswith('.py'):
        name = os.path.basename(name)[:-3]
    return importlib.import_module(name).Player


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('white_module')
    ap.add_argument('black_module')
    ap.add_argument('-d', '--delay', type=float, default=0.0,
                    help='seconds to wait between turns')
    ap.add_argument('-q', '--quiet', action='store_true',
                    help='print only the result')
    ap.add_argument('--max-turns', type=int, default=0,
                    help='stop after this many actions (0: never, as the '
                    'referee)')
    ap.add_argument('--zerokit', default=os.environ.get('ZEROKIT_BIN') or
                    shutil.which('zerokit'),
                    help='the zerokit executable (default: $ZEROKIT_BIN, '
                    'else PATH)')
    args = ap.parse_args(argv)
    if not args.zerokit:
        ap.error('cannot find zerokit: pass --zerokit or set ZEROKIT_BIN')
    for d in (os.path.dirname(os.path.abspath(__file__)), os.getcwd()):
        if d not in sys.path:
            sys.path.insert(0, d)
    white, black = load_player(args.white_module), \
        load_player(args.black_module)
    print(VERSION_INFO)
    result = play(white, black, args.zerokit, max_turns=args.max_turns,
                  delay=args.delay, out=None if args.quiet else sys.stdout)
    if args.quiet:
        if result.invalid:
            print(result.invalid)
        print('winner: %s!' % result.winner)
    for c in ('W', 'B'):
        t = result.times[c]
        if t:
            print('time %s: %d actions, %.3f s total, %.3f s max' % (
                c, len(t), sum(t), max(t)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
