"""A tiny WUBPP server: a test fixture for zerokit's network client.

It is the example server at the bottom of the course's wubpp.py (accept
two players, PLAY/OKAY, GAME, INIT), carried on through the
TURN/ACTN/UPD8/OKAY loop to OVER, with random_player.Board as its rules.
It imports wubpp from the course's directory, never a copy of it:

    python3 wubpp_fixture_server.py [REFEREE_DIR]

REFEREE_DIR defaults to ../shared/referee relative to the repository
root. It listens on a free local port, prints "listening on PORT", plays
one game between the first two clients (white first) and prints
"winner: white|black|draw", or "invalid action: ..." (exit status 1) if a
player's action is not legal.

Standard library only; Python 3.6 syntax.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REFEREE_DIR = sys.argv[1] if len(sys.argv) > 1 else \
    os.path.join(HERE, '..', '..', 'shared', 'referee')
sys.path.insert(0, os.path.abspath(REFEREE_DIR))

from wubpp import listen, WUBPlayerProtocol  # noqa: E402
from random_player import Board, WHITE, BLACK  # noqa: E402


def action_of(msg):
    """The referee-form action of an ACTN or UPD8 message."""
    if msg['type'] == 'place':
        return (msg['x'], msg['y'])
    if msg['type'] == 'move':
        return ((msg['xa'], msg['ya']), (msg['xb'], msg['yb']))
    return None


def parts_of(action):
    """ACTN/UPD8 parts of a referee-form action."""
    if action is None:
        return ['pass']
    if isinstance(action[0], tuple):
        (xa, ya), (xb, yb) = action
        return ['move', xa, ya, xb, yb]
    return ['place', action[0], action[1]]


def main():
    welcome_socket = listen('127.0.0.1', 0)
    print('listening on', welcome_socket.getsockname()[1], flush=True)

    players = []
    for _ in range(2):
        client_socket, _ = welcome_socket.accept()
        players.append(WUBPlayerProtocol(client_socket))
    white_player, black_player = players

    play_white = white_player.recvmsg()
    white_player.sendmsg('OKAY')
    play_black = black_player.recvmsg()
    black_player.sendmsg('OKAY')

    for player in players:
        player.sendmsg('GAME', play_white['name'], play_black['name'])
    for player in players:
        player.recvmsg()
    white_player.sendmsg('INIT', 'white')
    black_player.sendmsg('INIT', 'black')
    for player in players:
        player.recvmsg()

    board = Board()
    while not board.over():
        if board.mover() == WHITE:
            mover, other, colour = white_player, black_player, 'white'
        else:
            mover, other, colour = black_player, white_player, 'black'
        mover.sendmsg('TURN', board.turns)
        msg = mover.recvmsg()
        action = action_of(msg) if msg['head'] == 'ACTN' else 'not ACTN'
        if action not in board.legal_actions():
            for player in players:
                player.sendmsg('ERRO', colour, 'invalid action', repr(action))
            print('invalid action:', colour, repr(action), flush=True)
            return 1
        board.apply(action)
        other.sendmsg('UPD8', *parts_of(action))
        other.recvmsg()

    whites, blacks = board.count(WHITE), board.count(BLACK)
    if whites < 2 and blacks < 2:
        winner = 'draw'
    elif whites < 2:
        winner = 'black'
    else:
        winner = 'white'
    for player in players:
        player.sendmsg('OVER', winner)
    for player in players:
        player.disconnect()
    print('winner:', winner, flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
