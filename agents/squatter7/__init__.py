"""zerokit agent squatter6-step8500-avg7 (game squatter6, training step 8500), written by zerokit export.

Put this directory next to the course's referee.py and give its name to the
referee, e.g.  python3 referee.py <this directory's name> other_player
(the name must be a valid Python module name). Player is
zerokit_player.Player, which runs "zerokit serve" as configured in
zerokit_player.json; see README.txt.
"""
from .zerokit_player import Player  # noqa: F401
