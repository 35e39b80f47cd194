"""A pure-Python random player of Watch Your Back! (test double).

It keeps its own board, written from the rules independently of the Go
engine, and plays a uniformly random legal action. The tests pit it
against the zerokit adapter under fake_referee.py, which checks every
action with ``zerokit replay``: a disagreement between this board and the
Go engine shows up as an invalid action.

The seed is the environment variable RANDOM_PLAYER_SEED (default 0) plus 0
for White and 1 for Black, so games are reproducible.

Standard library only; Python 3.6 syntax.
"""

import os
import random

SIZE = 8
EMPTY, WHITE, BLACK, CORNER, REMOVED = '-', 'W', 'B', 'X', ' '
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))
PLACING_TURNS = 24
SHRINK_TURNS = (128, 192)


class Board(object):
    """A Watch Your Back! position with the referee's counters."""

    def __init__(self):
        self.grid = [[EMPTY] * SIZE for _ in range(SIZE)]
        for x, y in ((0, 0), (7, 0), (0, 7), (7, 7)):
            self.grid[y][x] = CORNER
        self.phase = 'placing'
        self.turns = 0
        self.shrinks = 0

    def at(self, x, y):
        """Content of (x, y); squares off the board count as removed."""
        if 0 <= x < SIZE and 0 <= y < SIZE:
            return self.grid[y][x]
        return REMOVED

    def mover(self):
        """Piece letter of the player to move."""
        return WHITE if self.turns % 2 == 0 else BLACK

    def legal_actions(self):
        """Every legal action of the player to move, in referee form."""
        me = self.mover()
        if self.phase == 'placing':
            rows = range(0, 6) if me == WHITE else range(2, 8)
            return [(x, y) for y in rows for x in range(SIZE)
                    if self.grid[y][x] == EMPTY]
        moves = []
        for y in range(SIZE):
            for x in range(SIZE):
                if self.grid[y][x] != me:
                    continue
                for dx, dy in DIRECTIONS:
                    step = self.at(x + dx, y + dy)
                    if step == EMPTY:
                        moves.append(((x, y), (x + dx, y + dy)))
                    elif step in (WHITE, BLACK) and \
                            self.at(x + 2 * dx, y + 2 * dy) == EMPTY:
                        moves.append(((x, y), (x + 2 * dx, y + 2 * dy)))
        return moves if moves else [None]

    def apply(self, action):
        """Play a legal action of the player to move."""
        me = self.mover()
        if self.phase == 'placing':
            x, y = action
            self.grid[y][x] = me
            self._arrive(x, y)
        elif action is not None:
            (xa, ya), (xb, yb) = action
            self.grid[ya][xa] = EMPTY
            self.grid[yb][xb] = me
            self._arrive(xb, yb)
        self.turns += 1
        if self.phase == 'placing' and self.turns == PLACING_TURNS:
            self.phase, self.turns = 'moving', 0
        if self.phase == 'moving' and not self.over() \
                and self.turns in SHRINK_TURNS:
            self._shrink()

    def count(self, piece):
        return sum(row.count(piece) for row in self.grid)

    def over(self):
        """True once a side has fewer than 2 pieces (moving phase)."""
        return self.phase == 'moving' and \
            (self.count(WHITE) < 2 or self.count(BLACK) < 2)

    @staticmethod
    def _enemies(piece):
        return (BLACK, CORNER) if piece == WHITE else (WHITE, CORNER)

    def _sandwiched(self, x, y, dx, dy):
        enemies = self._enemies(self.grid[y][x])
        return self.at(x + dx, y + dy) in enemies and \
            self.at(x - dx, y - dy) in enemies

    def _arrive(self, x, y):
        """A piece or a new corner arrived on (x, y): eliminate."""
        piece = self.grid[y][x]
        targets = (WHITE, BLACK) if piece == CORNER else \
            ((BLACK,) if piece == WHITE else (WHITE,))
        for dx, dy in DIRECTIONS:
            tx, ty = x + dx, y + dy
            if self.at(tx, ty) in targets and self._sandwiched(tx, ty, dx, dy):
                self.grid[ty][tx] = EMPTY
        if piece != CORNER and (self._sandwiched(x, y, 1, 0) or
                                self._sandwiched(x, y, 0, 1)):
            self.grid[y][x] = EMPTY

    def _shrink(self):
        s = self.shrinks
        for i in range(s, SIZE - s):
            for x, y in ((i, s), (s, i), (i, 7 - s), (7 - s, i)):
                self.grid[y][x] = REMOVED
        self.shrinks = s = s + 1
        for x, y in ((s, s), (s, 7 - s), (7 - s, 7 - s), (7 - s, s)):
            self.grid[y][x] = CORNER
            self._arrive(x, y)


class Player(object):
    """Referee interface: a uniformly random legal action each turn."""

    def __init__(self, colour):
        if colour not in ('white', 'black'):
            raise ValueError("colour must be 'white' or 'black'")
        seed = int(os.environ.get('RANDOM_PLAYER_SEED', '0'))
        self.rng = random.Random(seed * 2 + (0 if colour == 'white' else 1))
        self.board = Board()

    def action(self, turns):
        if turns != self.board.turns:
            raise ValueError('referee says turn %d, my board is at turn %d'
                             % (turns, self.board.turns))
        action = self.rng.choice(self.board.legal_actions())
        self.board.apply(action)
        return action

    def update(self, action):
        self.board.apply(action)
