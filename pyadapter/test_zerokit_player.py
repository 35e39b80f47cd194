"""Tests of the referee adapter against a real zerokit serve."""

import json
import os
import re
import signal
import subprocess
import unittest
from unittest import mock

import fake_referee
import random_player
import testsupport
import zerokit_player as zp


class TestActionCodec(unittest.TestCase):

    def test_from_json(self):
        cases = [('[3, 4]', (3, 4)), ('[[3, 4], [3, 5]]', ((3, 4), (3, 5))),
                 ('null', None), ('[0,7]', (0, 7))]
        for text, want in cases:
            self.assertEqual(zp.action_from_json(text), want)

    def test_from_json_rejects(self):
        for text in ['[3]', '[3, 4, 5]', '[true, 4]', '[3.0, 4]', '"x"',
                     '[[3, 4]]', '[[3, 4], [3]]', 'nul', '', '{}']:
            with self.assertRaises(zp.ZerokitProtocolError, msg=text):
                zp.action_from_json(text)

    def test_to_json(self):
        self.assertEqual(zp.action_to_json((3, 4)), '[3, 4]')
        self.assertEqual(zp.action_to_json(((3, 4), (3, 5))),
                         '[[3, 4], [3, 5]]')
        self.assertEqual(zp.action_to_json(None), 'null')
        with self.assertRaises(zp.ZerokitProtocolError):
            zp.action_to_json(object())
        with self.assertRaises(zp.ZerokitProtocolError):
            zp.action_to_json((float('nan'), 1))


class TestUsageMemory(unittest.TestCase):
    """The Python side's memory: growth during the adapter's own calls,
    not the other player's, which shares the referee's process."""

    def test_other_players_growth_is_not_charged(self):
        status = {('self', 'VmHWM'): 10000, (42, 'VmHWM'): 50000}

        def fake(pid, field):
            return status.get((pid, field))

        with mock.patch.object(zp, '_proc_status_kb', fake), \
                mock.patch.object(zp, '_proc_cpu_seconds', lambda pid: 1.0):
            u = zp.Usage('white', 'm', {}, child_pid=42, hwm_start_kb=9000)
            status[('self', 'VmHWM')] = 11000   # the adapter's start: 2 MB
            u.measure(0.0)
            self.assertEqual(u.python_growth_kb, 2000)
            # The other player grows the process by 30 MB between calls.
            status[('self', 'VmHWM')] = 41000
            u.begin()
            status[('self', 'VmHWM')] = 41500   # this call: 0.5 MB
            u.measure(0.0)
            self.assertEqual(u.python_growth_kb, 2500)
            u.begin()                           # a call that grows nothing
            u.measure(0.0)
            self.assertEqual(u.python_growth_kb, 2500)
            u.begin()
            status[('self', 'VmHWM')] = 42000   # this call: 0.5 MB ...
            u.measure(0.0)
            u.measure(0.0)                      # ... measured twice, charged once
            self.assertEqual(u.python_growth_kb, 3000)
            self.assertAlmostEqual(u.peak_mb(), (50000 + 3000) / 1024.0)


class TestConfig(testsupport.AdapterTestCase):

    def module(self, conf):
        """A module path whose config file holds conf."""
        mod = os.path.join(self.tmp.name, 'player.py')
        with open(os.path.join(self.tmp.name, 'player.json'), 'w') as f:
            f.write(conf if isinstance(conf, str) else json.dumps(conf))
        for k in ('ZEROKIT_CONFIG', 'ZEROKIT_BIN', 'ZEROKIT_AGENT',
                  'ZEROKIT_TIMEOUT'):
            os.environ.pop(k, None)
        return mod

    def test_file_and_defaults(self):
        mod = self.module({'binary': 'bin/zk', 'agent': 'greedy',
                           'args': ['-game-time', '55s']})
        c = zp.load_config(mod)
        self.assertEqual(c['binary'], os.path.join(self.tmp.name, 'bin/zk'))
        self.assertEqual(c['agent'], 'greedy')
        self.assertEqual(c['args'], ['-game-time', '55s'])
        self.assertIsNone(c['address'])
        self.assertEqual(c['timeout'], zp.DEFAULT_TIMEOUT)

    def test_environment_overrides_file(self):
        mod = self.module({'binary': '/x/zk', 'agent': 'greedy', 'timeout': 5})
        with mock.patch.dict(os.environ, {
                'ZEROKIT_AGENT': 'alphabeta:depth=2',
                'ZEROKIT_ARGS': "-move-time '1s'", 'ZEROKIT_TIMEOUT': '0'}):
            c = zp.load_config(mod)
        self.assertEqual(c['binary'], '/x/zk')
        self.assertEqual(c['agent'], 'alphabeta:depth=2')
        self.assertEqual(c['args'], ['-move-time', '1s'])
        self.assertIsNone(c['timeout'])

    def test_bad_configs(self):
        cases = [
            ('{"agnt": "x"}', 'unknown key'),
            ('[1]', 'want a JSON object'),
            ('{', 'config file'),
            ('{"args": "-v"}', 'want a list of strings'),
            ('{"timeout": -1}', 'seconds >= 0'),
            ('{"timeout": true}', 'seconds >= 0'),
            ('{"address": "localhost"}', 'host:port'),
            ('{"address": "localhost:http"}', 'host:port'),
            ('{"agent": ""}', 'agent spec'),
        ]
        for conf, want in cases:
            with self.subTest(conf=conf):
                mod = self.module(conf)
                with self.assertRaisesRegex(zp.ZerokitConfigError, want):
                    zp.load_config(mod)

    def test_empty_environment_args_clear_the_files(self):
        mod = self.module({'binary': '/x/zk', 'args': ['-game-time', '55s']})
        with mock.patch.dict(os.environ, {'ZEROKIT_ARGS': ''}):
            self.assertEqual(zp.load_config(mod)['args'], [])
        os.environ.pop('ZEROKIT_ARGS', None)
        self.assertEqual(zp.load_config(mod)['args'], ['-game-time', '55s'])

    def test_missing_explicit_config(self):
        os.environ['ZEROKIT_CONFIG'] = os.path.join(self.tmp.name, 'no.json')
        with self.assertRaisesRegex(zp.ZerokitConfigError, 'not a file'):
            zp.load_config()


class TestPlayer(testsupport.AdapterTestCase):

    def play(self, white, black):
        result = fake_referee.play(white, black, self.binary, max_turns=2000)
        self.assertIsNone(result.invalid)
        self.assertIn(result.winner, ('W', 'B', 'draw'))
        self.assertGreater(len(result.actions), 24)
        return result

    def test_full_games_against_python_random(self):
        for seed in ('1',):
            with self.subTest(seed=seed), \
                    mock.patch.dict(os.environ, {'RANDOM_PLAYER_SEED': seed}):
                self.play(zp.Player, random_player.Player)
                self.play(random_player.Player, zp.Player)

    def test_zerokit_against_itself(self):
        with mock.patch.dict(os.environ, {'ZEROKIT_AGENT': 'greedy'}):
            self.play(zp.Player, zp.Player)

    def test_error_responses_raise_and_session_survives(self):
        p = zp.Player('white')
        self.addCleanup(p.close)
        with self.assertRaisesRegex(zp.ZerokitProtocolError,
                                    'turn counter mismatch'):
            p.action(5)
        with self.assertRaisesRegex(zp.ZerokitProtocolError, 'my turn'):
            p.update((3, 4))
        x, y = p.action(0)
        self.assertTrue(0 <= x < 8 and 0 <= y <= 5)
        with self.assertRaisesRegex(zp.ZerokitProtocolError, 'starting zone'):
            p.update((3, 1))
        with self.assertRaisesRegex(zp.ZerokitProtocolError,
                                    'invalid place action representation'):
            p.update(((3, 4), (3, 5)))
        with self.assertRaisesRegex(zp.ZerokitProtocolError, 'occupied'):
            p.update((x, y))
        p.update((3, 6) if (x, y) != (3, 6) else (4, 6))
        self.assertIsNotNone(p.action(2))
        with self.assertRaises(TypeError):
            p.action('2')

    def test_usage_is_measured_and_logged(self):
        log = os.path.join(self.tmp.name, 'usage-{colour}-{module}.json')
        os.environ['ZEROKIT_USAGE_LOG'] = log
        p = zp.Player('white')
        self.addCleanup(p.close)
        p.action(0)
        path = log.replace('{colour}', 'white').replace('{module}',
                                                        zp.__name__)
        with open(path) as f:
            report = json.load(f)
        self.assertEqual(report['calls'], 2)
        self.assertTrue(report['measured_child'])
        self.assertGreater(report['child_peak_mb'], 1)
        self.assertLess(report['peak_memory_mb'], 100)
        self.assertGreaterEqual(report['cpu_seconds'],
                                report['child_cpu_seconds'])
        self.assertIsNone(report['exceeded'])
        self.assertIn('peak memory', p.usage.summary())

    def test_usage_log_keeps_every_game(self):
        # Two games logged to one file: a line each, and the server's
        # stderr beside it with its report of each game's fallback moves.
        log = os.path.join(self.tmp.name, 'usage-{colour}.json')
        os.environ['ZEROKIT_USAGE_LOG'] = log
        pids = []
        for _ in range(2):
            p = zp.Player('white')
            pids.append(p.conn.proc.pid)
            p.action(0)
            p.close()
            p.close()
        path = log.replace('{colour}', 'white')
        with open(path) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual([r['pid'] for r in lines], pids)
        for r in lines:
            self.assertEqual(r['calls'], 2)
            self.assertEqual((r['moves'], r['fallback_moves']), (1, 0))
        with open(path + '.stderr') as f:
            text = f.read()
        self.assertEqual(text.count('== zerokit_player white'), 2, text)
        self.assertEqual(len(re.findall(r'1 own moves \(0 by the fallback[,)]',
                                        text)), 2, text)

    def test_over_the_limits_raises(self):
        os.environ['ZEROKIT_MEMORY_LIMIT'] = '0.5'
        with self.assertRaisesRegex(zp.ZerokitResourceError,
                                    r'white\) used .* MB of memory at its '
                                    r'peak, over the limit of 0.5 MB'):
            zp.Player('white')
        os.environ['ZEROKIT_MEMORY_LIMIT'] = '0'
        os.environ['ZEROKIT_CPU_LIMIT'] = '1e-9'
        p = zp.Player.__new__(zp.Player)
        with self.assertRaisesRegex(zp.ZerokitResourceError,
                                    'of CPU, over the limit of 1e-09 s'):
            p.__init__('black')

    def test_bad_limits(self):
        for value in ('-1', 'x', 'nan'):
            with self.subTest(value=value), \
                    mock.patch.dict(os.environ, {'ZEROKIT_CPU_LIMIT': value}):
                with self.assertRaisesRegex(zp.ZerokitConfigError,
                                            'ZEROKIT_CPU_LIMIT'):
                    zp.load_config()

    def test_bad_colour(self):
        with self.assertRaises(ValueError):
            zp.Player('red')

    def test_dead_process(self):
        p = zp.Player('white')
        p.conn.proc.kill()
        p.conn.proc.wait()
        with self.assertRaisesRegex(zp.ZerokitDied, 'exit status'):
            p.action(0)
        p.close()
        p.close()

    def test_bad_agent_spec_reports_stderr(self):
        os.environ['ZEROKIT_AGENT'] = 'nope'
        with self.assertRaisesRegex(zp.ZerokitDied,
                                    '(?s)exit status 1.*unknown kind "nope"'):
            zp.Player('white')

    def test_missing_binary(self):
        os.environ['ZEROKIT_BIN'] = os.path.join(self.tmp.name, 'none')
        with self.assertRaisesRegex(zp.ZerokitDied, 'cannot start'):
            zp.Player('white')

    def test_timeout(self):
        os.environ['ZEROKIT_BIN'] = self.script('silent', 'cat >/dev/null\n')
        os.environ['ZEROKIT_TIMEOUT'] = '0.3'
        with self.assertRaisesRegex(zp.ZerokitTimeout, 'within 0.3 s'):
            zp.Player('white')

    def test_nonsense_response(self):
        os.environ['ZEROKIT_BIN'] = self.script(
            'nonsense', "read l; echo ok; read l; echo '[1, 2, 3]'; "
            "cat >/dev/null\n")
        p = zp.Player('white')
        self.addCleanup(p.close)
        with self.assertRaisesRegex(zp.ZerokitProtocolError, r'\[1, 2, 3\]'):
            p.action(0)


class TestLockedGame(testsupport.AdapterTestCase):
    """A locked game is answered by the adapter itself, at no cost."""

    def server(self, locked_answer):
        """A fake zerokit serve that forfeits every move, answers "locked"
        with locked_answer and logs every request line."""
        log = os.path.join(self.tmp.name, 'requests')
        os.environ['ZEROKIT_BIN'] = self.script('locked', (
            'while read -r l; do echo "$l" >> %s; case "$l" in '
            'init*|update*) echo ok;; action*) echo null;; '
            'locked) echo "%s";; quit) echo bye; exit 0;; esac; done\n')
            % (log, locked_answer))
        return log

    def requests(self, log):
        with open(log) as f:
            return [line.split()[0] for line in f]

    def test_locked_game_costs_nothing(self):
        log = self.server('yes')
        p = zp.Player('white')
        self.addCleanup(p.close)
        self.assertIsNone(p.action(200))
        self.assertTrue(p.locked)
        moves = 20000
        for i in range(moves):
            p.update(None)
            self.assertIsNone(p.action(202 + 2 * i))
        # Nothing reached the server after it said the game was locked.
        self.assertEqual(self.requests(log), ['init', 'action', 'locked'])
        # A stated bound, far above what a local answer costs (tens of
        # microseconds) and below the 0.67 ms a relayed pair of calls cost
        # in a refereed game lost on time from a locked board.
        per_move = p.usage.cpu_seconds() / moves
        self.assertLess(per_move, 0.0005,
                        'a locked move cost %.6f s of CPU' % per_move)
        self.assertEqual(p.usage.calls, 2 + 2 * moves)
        with self.assertRaisesRegex(zp.ZerokitProtocolError,
                                    'in a locked game'):
            p.update((3, 4))

    def test_game_that_is_not_locked_is_relayed(self):
        log = self.server('no')
        p = zp.Player('white')
        self.addCleanup(p.close)
        for t in (200, 202):
            self.assertIsNone(p.action(t))
            p.update(None)
        self.assertFalse(p.locked)
        self.assertEqual(self.requests(log), [
            'init', 'action', 'locked', 'update', 'action', 'locked',
            'update'])

    def test_server_without_the_request(self):
        log = self.server('error unknown command "locked"')
        p = zp.Player('white')
        self.addCleanup(p.close)
        for t in (200, 202):
            self.assertIsNone(p.action(t))
        self.assertFalse(p.locked)
        self.assertEqual(self.requests(log),
                         ['init', 'action', 'locked', 'action'])


class TestNetworkPlay(testsupport.AdapterTestCase):
    """Players connect to one zerokit serve -listen process."""

    def setUp(self):
        super().setUp()
        self.server = subprocess.Popen(
            [self.binary, 'serve', '-listen', '127.0.0.1:0', '-agent',
             'greedy', '-v'], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addCleanup(self.stop_server)
        line = self.server.stderr.readline().decode()
        m = re.search(r'listening on (\S+)', line)
        self.assertIsNotNone(m, 'server said %r' % line)
        os.environ['ZEROKIT_ADDRESS'] = m.group(1)

    def stop_server(self):
        if self.server.poll() is None:
            self.server.kill()
        self.server.wait()
        self.server.stderr.close()

    def test_games_over_tcp(self):
        result = fake_referee.play(zp.Player, random_player.Player,
                                   self.binary, max_turns=2000)
        self.assertIsNone(result.invalid)
        # Two sessions at once: both sides played by the server.
        result = fake_referee.play(zp.Player, zp.Player, self.binary,
                                   max_turns=2000)
        self.assertIsNone(result.invalid)
        self.assertIn(result.winner, ('W', 'B', 'draw', 'None'))
        # Graceful shutdown on SIGTERM: exit status 0.
        self.server.send_signal(signal.SIGTERM)
        self.assertEqual(self.server.wait(timeout=10), 0)
        log = self.server.stderr.read().decode()
        self.assertEqual(log.count('greedy as'), 3, log)

    def test_refused_connection(self):
        self.server.kill()
        self.server.wait()
        with self.assertRaisesRegex(zp.ZerokitDied, 'cannot connect'):
            zp.Player('black')


if __name__ == '__main__':
    unittest.main()
