"""Shared helpers of the Python tests: find or build the zerokit binary and
give each test a clean adapter environment."""

import atexit
import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
_built = {}


def zerokit_binary():
    """The zerokit executable to test: $ZEROKIT_BIN, else one built once
    from this repository with go build; skips the test if neither works."""
    path = os.environ.get('ZEROKIT_BIN')
    if path:
        if not os.access(path, os.X_OK):
            raise unittest.SkipTest('ZEROKIT_BIN=%s is not executable' % path)
        return path
    if 'path' in _built:
        return _built['path']
    go = shutil.which('go')
    if go is None:
        raise unittest.SkipTest('set ZEROKIT_BIN or put go on PATH to build '
                                'zerokit')
    d = tempfile.mkdtemp(prefix='zerokit-pytest-')
    atexit.register(shutil.rmtree, d, True)
    path = os.path.join(d, 'zerokit')
    p = subprocess.run([go, 'build', '-o', path, './cmd/zerokit'],
                       cwd=os.path.dirname(HERE), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if p.returncode != 0:
        raise unittest.SkipTest('go build failed: %s' % p.stdout.decode())
    _built['path'] = path
    return path


class AdapterTestCase(unittest.TestCase):
    """Runs each test with ZEROKIT_* variables set for the local binary and
    an empty config file, so a developer's zerokit_player.json is ignored."""

    agent = 'random:seed=3'

    def setUp(self):
        self.binary = zerokit_binary()
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        empty = os.path.join(self.tmp.name, 'empty.json')
        with open(empty, 'w') as f:
            f.write('{}')
        env = {k: v for k, v in os.environ.items()
               if not k.startswith('ZEROKIT_') and k != 'RANDOM_PLAYER_SEED'}
        env.update(ZEROKIT_BIN=self.binary, ZEROKIT_AGENT=self.agent,
                   ZEROKIT_CONFIG=empty, ZEROKIT_TIMEOUT='60')
        patcher = mock.patch.dict(os.environ, env, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)

    def script(self, name, body):
        """Write an executable shell script into the test's directory."""
        path = os.path.join(self.tmp.name, name)
        with open(path, 'w') as f:
            f.write('#!/bin/sh\n' + body)
        os.chmod(path, 0o755)
        return path
