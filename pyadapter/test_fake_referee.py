"""Tests of the referee test double: it must reject what the referee
rejects, trusting no player."""

import os
import subprocess
import sys
import unittest

import fake_referee
import random_player
import testsupport


def scripted(*actions):
    """A Player class that plays random_player's game but substitutes
    actions[i] (when not Ellipsis) for its i-th action."""
    class Player(random_player.Player):
        def __init__(self, colour):
            super().__init__(colour)
            self.n = 0

        def action(self, turns):
            a = super().action(turns)
            if self.n < len(actions) and actions[self.n] is not Ellipsis:
                a = actions[self.n]
            self.n += 1
            return a
    return Player


class TestFakeReferee(testsupport.AdapterTestCase):

    def test_invalid_actions_lose(self):
        skip_placing = [Ellipsis] * 12
        cases = [
            ('corner', scripted((0, 0)), random_player.Player, 'B',
             'invalid action (W)'),
            ('black zone', random_player.Player, scripted((3, 0)), 'W',
             'invalid action (B)'),
            ('malformed', scripted('3,4'), random_player.Player, 'B',
             'invalid place action representation'),
            ('no json form', scripted(object()), random_player.Player, 'B',
             'invalid place action representation'),
            ('float', scripted((3.0, 4)), random_player.Player, 'B',
             'invalid place action representation'),
            ('pass while placing', scripted(None), random_player.Player, 'B',
             'invalid action (W)'),
            ('forfeit with moves', scripted(*(skip_placing + [None])),
             random_player.Player, 'B', 'forfeit'),
            ('teleport', random_player.Player,
             scripted(*(skip_placing + [((3, 7), (3, 2))])), 'W',
             'invalid action (B)'),
        ]
        for name, white, black, winner, message in cases:
            with self.subTest(name):
                r = fake_referee.play(white, black, self.binary)
                self.assertEqual(r.winner, winner)
                self.assertIsNotNone(r.invalid)
                self.assertIn(message, r.invalid)

    def test_booleans_count_as_ints(self):
        # The referee accepts True as 1 (isinstance(True, int)).
        r = fake_referee.play(scripted((True, True)), random_player.Player,
                              self.binary, max_turns=3)
        self.assertIsNone(r.invalid)
        self.assertEqual(r.actions[0], '[true, true]')

    def test_command_line(self):
        env = dict(os.environ, RANDOM_PLAYER_SEED='5')
        p = subprocess.run(
            [sys.executable, 'fake_referee.py', '--max-turns', '2000',
             'zerokit_player', 'random_player.py'],
            cwd=testsupport.HERE, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, timeout=120)
        out = p.stdout.decode()
        self.assertEqual(p.returncode, 0, out)
        self.assertRegex(out, r'\nwinner: (W|B|draw)!\n')
        self.assertIn('turns into the moving phase', out)
        self.assertNotIn('invalid action', out)

    def test_missing_binary(self):
        with self.assertRaises(fake_referee.RefereeError):
            fake_referee.play(random_player.Player, random_player.Player,
                              os.path.join(self.tmp.name, 'none'))


if __name__ == '__main__':
    unittest.main()
