"""Play a zerokit agent through the COMP30024 (2018) Watch Your Back! referee.

Drop this file (and, optionally, a JSON config file of the same name:
zerokit_player.json) next to referee.py, then run for example

    python3 referee.py zerokit_player random_agent

The module's Player class starts ``zerokit serve`` (or connects to one
listening on TCP) and relays the referee's calls over the zerokit line
protocol (see agent/protocol/doc.go in the zerokit repository):

    Player(colour)       ->  init white|black   ->  ok
    player.action(turns) ->  action <turns>     ->  [x, y] | [[xa, ya], [xb, yb]] | null
    player.update(a)     ->  update <a as JSON> ->  ok

Configuration. Each setting is read from an environment variable, else
from the config file, else takes its default:

  env ZEROKIT_BIN      / "binary"   the zerokit executable. Default: a file
                                    named zerokit next to this module, else
                                    zerokit on PATH. A relative path in the
                                    config file is relative to the file.
  env ZEROKIT_AGENT    / "agent"    agent spec, e.g. "alphabeta:time=500ms"
                                    or "net:path=DIR,sims=64". Default
                                    "default" (the trained agent that
                                    ships with zerokit).
  env ZEROKIT_ARGS     / "args"     more flags for zerokit serve, e.g.
                                    ["-game-time", "55s"] (a JSON list in
                                    the file; a shell-quoted string in the
                                    environment, which replaces the file's
                                    even when empty). Default none.
  env ZEROKIT_ADDRESS  / "address"  "host:port" of a running
                                    "zerokit serve -listen host:port": connect
                                    to it instead of starting a process
                                    (binary, agent and args are then unused).
  env ZEROKIT_TIMEOUT  / "timeout"  seconds to wait for each response before
                                    giving up (0: forever). Default 600.
  env ZEROKIT_CPU_LIMIT / "cpu_limit"  the agent's CPU seconds per game
                                    (0: none). Default 60, the course's.
  env ZEROKIT_MEMORY_LIMIT / "memory_limit"  the agent's peak resident
                                    memory in MB (0: none). Default 100.
  env ZEROKIT_USAGE_LOG / "usage_log"  a file of JSON lines, one per
                                    game: the agent's usage so far, its
                                    line updated after every call and
                                    earlier games' lines kept; {colour}
                                    and {module} in the name are replaced.
                                    The server's stderr is appended to the
                                    same name with ".stderr" added (a
                                    header line per game). Default none.

Resource accounting. The referee measures only its own Python process, so
an agent thinking in a child process is invisible to it: the adapter does
the referee's job. It charges the agent the CPU time of the zerokit process
(all its threads, from /proc) plus the Python time spent in the adapter,
and counts as its memory the zerokit process's peak resident set (VmHWM)
plus the growth of the Python process's peak resident set during the
adapter's own calls (its start included). The referee's process also runs
the other player, whose memory is not the agent's: growth while the other
player thinks is not charged. It logs both after every call (usage_log)
and at exit (stderr), and raises ZerokitResourceError, ending the game loudly, as soon as either
exceeds its limit. (Connected to a server over TCP it can only measure
the Python side.)

Fallback moves. The adapter runs zerokit serve with -v, which reports on
stderr how many of the agent's moves were not chosen by a completed search
(its time ran out first); the usage summary at exit and the usage log
("fallback_moves") repeat that count. Without usage_log the server's stderr
goes to a temporary file, which is deleted.

Locked games. The referee has no turn limit: a game whose board can no
longer change (after the second shrink, no piece of either side able to
move, so both can only forfeit) goes on until a player's clock runs out.
After each forfeit of its agent the adapter asks the server whether the
game is locked ("locked"); once it is, the adapter answers the referee
itself: action() returns None and update(None) is accepted without a word
to the server, so each call costs only its own Python time (the child is
idle and its counters are not read again; the usage log is written every
1024 calls and at exit). An opponent's action other than a forfeit in a
locked game, which the referee would never pass on, raises
ZerokitProtocolError.

The config file is the module's own name with .json (so a copy of this
module saved as strong.py reads strong.json: two copies can play two
different agents), or the file named by ZEROKIT_CONFIG. It is optional.

Failures raise ZerokitError: ZerokitProtocolError when the server answers
"error ...", ZerokitDied when the process exits or the connection closes
(the message includes the end of the server's stderr), ZerokitTimeout when
no answer comes in time, ZerokitConfigError for a bad configuration.

Standard library only; Python 3.6 syntax.
"""

import json
import os
import re
import select
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import weakref

__all__ = ['Player', 'Connection', 'Usage', 'load_config', 'ZerokitError',
           'ZerokitProtocolError', 'ZerokitDied', 'ZerokitTimeout',
           'ZerokitResourceError', 'ZerokitConfigError', 'action_from_json',
           'action_to_json']

DEFAULT_AGENT = 'default'
DEFAULT_TIMEOUT = 600.0
DEFAULT_CPU_LIMIT = 60.0      # seconds of CPU per game (the course's)
DEFAULT_MEMORY_LIMIT = 100.0  # MB of peak resident memory (the course's)
MAX_LINE = 1 << 16
QUIT_TIMEOUT = 2.0  # seconds close() waits for "bye"
LOCKED_LOG_EVERY = 1024  # calls between usage log writes in a locked game


class ZerokitError(Exception):
    """Base class of the adapter's errors."""


class ZerokitConfigError(ZerokitError):
    """The configuration (file or environment) is invalid."""


class ZerokitProtocolError(ZerokitError):
    """The server answered a request with "error <reason>" or nonsense."""


class ZerokitDied(ZerokitError):
    """The server process exited or the connection closed."""


class ZerokitTimeout(ZerokitError):
    """The server did not answer in time."""


class ZerokitResourceError(ZerokitError):
    """The agent exceeded its CPU time or memory limit for the game."""


def _config_path(module_file):
    explicit = os.environ.get('ZEROKIT_CONFIG')
    if explicit:
        if not os.path.isfile(explicit):
            raise ZerokitConfigError(
                'ZEROKIT_CONFIG names %r, which is not a file' % explicit)
        return explicit
    path = os.path.splitext(os.path.abspath(module_file))[0] + '.json'
    return path if os.path.isfile(path) else None


_KEYS = ('binary', 'agent', 'args', 'address', 'timeout', 'cpu_limit',
         'memory_limit', 'usage_log')


def load_config(module_file=__file__):
    """Resolve the settings (see the module documentation) as a dict with
    the keys binary, agent, args (a list), address (or None) and timeout
    (seconds, None for no limit)."""
    path = _config_path(module_file)
    conf = {}
    if path is not None:
        try:
            with open(path, encoding='utf-8') as f:
                conf = json.load(f)
        except (OSError, ValueError) as e:
            raise ZerokitConfigError('config file %s: %s' % (path, e))
        if not isinstance(conf, dict):
            raise ZerokitConfigError(
                'config file %s: want a JSON object, got %s'
                % (path, type(conf).__name__))
        unknown = sorted(set(conf) - set(_KEYS))
        if unknown:
            raise ZerokitConfigError(
                'config file %s: unknown key(s) %s (known: %s)'
                % (path, ', '.join(unknown), ', '.join(_KEYS)))
    where = 'config file %s' % path
    base = os.path.dirname(path) if path else os.getcwd()

    def pick(env, key, empty_counts=False):
        if os.environ.get(env) or (empty_counts and env in os.environ):
            return os.environ[env], 'environment variable ' + env, True
        if key in conf:
            return conf[key], where + ' key "%s"' % key, False
        return None, None, False

    out = {}
    value, src, from_env = pick('ZEROKIT_BIN', 'binary')
    if value is None:
        here = os.path.join(os.path.dirname(os.path.abspath(module_file)),
                            'zerokit')
        value = here if os.path.isfile(here) else shutil.which('zerokit')
        src = 'default'
    elif not isinstance(value, str) or not value:
        raise ZerokitConfigError('%s: want a path' % src)
    elif not from_env and not os.path.isabs(value) and os.sep in value:
        value = os.path.join(base, value)
    out['binary'] = value

    value, src, _ = pick('ZEROKIT_AGENT', 'agent')
    if value is None:
        value = DEFAULT_AGENT
    elif not isinstance(value, str) or not value.strip():
        raise ZerokitConfigError('%s: want an agent spec string' % src)
    out['agent'] = value

    # An empty ZEROKIT_ARGS clears the file's args.
    value, src, from_env = pick('ZEROKIT_ARGS', 'args', empty_counts=True)
    if value is None:
        value = []
    elif from_env:
        try:
            value = shlex.split(value)
        except ValueError as e:
            raise ZerokitConfigError('%s: %s' % (src, e))
    elif not (isinstance(value, list) and
              all(isinstance(a, str) for a in value)):
        raise ZerokitConfigError('%s: want a list of strings' % src)
    out['args'] = value

    value, src, _ = pick('ZEROKIT_ADDRESS', 'address')
    if value is not None:
        if not isinstance(value, str) or value.rpartition(':')[1] != ':':
            raise ZerokitConfigError('%s: want "host:port"' % src)
        host, _, port = value.rpartition(':')
        if not port.isdigit() or not host:
            raise ZerokitConfigError('%s: want "host:port", got %r'
                                     % (src, value))
    out['address'] = value

    def number(env, key, default, want):
        """The setting env/key as a number >= 0, default when unset."""
        value, src, _ = pick(env, key)
        if value is None:
            return default
        try:
            if isinstance(value, bool):
                raise ValueError
            number = float(value)
            if number < 0 or number != number:
                raise ValueError
        except (TypeError, ValueError):
            raise ZerokitConfigError('%s: want %s, got %r' % (src, want, value))
        return number

    out['timeout'] = number('ZEROKIT_TIMEOUT', 'timeout', DEFAULT_TIMEOUT,
                            'a number of seconds >= 0') or None
    out['cpu_limit'] = number('ZEROKIT_CPU_LIMIT', 'cpu_limit',
                              DEFAULT_CPU_LIMIT, 'a number >= 0 (0: no limit)')
    out['memory_limit'] = number('ZEROKIT_MEMORY_LIMIT', 'memory_limit',
                                 DEFAULT_MEMORY_LIMIT,
                                 'a number >= 0 (0: no limit)')

    value, src, _ = pick('ZEROKIT_USAGE_LOG', 'usage_log')
    if value is not None and (not isinstance(value, str) or not value):
        raise ZerokitConfigError('%s: want a file name' % src)
    out['usage_log'] = value

    if out['address'] is None and not out['binary']:
        raise ZerokitConfigError(
            'cannot find the zerokit executable: set ZEROKIT_BIN or "binary" '
            'in %s, or put zerokit next to %s or on PATH'
            % (path or 'a config file', os.path.abspath(module_file)))
    return out


def action_to_json(action):
    """Write a referee action (a tuple, nested tuples or None) as JSON."""
    try:
        return json.dumps(action, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ZerokitProtocolError('cannot send action %r: %s' % (action, e))


def _coords(v):
    return (isinstance(v, list) and len(v) == 2 and
            all(isinstance(c, int) and not isinstance(c, bool) for c in v))


def action_from_json(text):
    """Read the server's JSON action into the referee's form: (x, y),
    ((xa, ya), (xb, yb)) or None."""
    try:
        v = json.loads(text)
    except ValueError:
        raise ZerokitProtocolError('server sent %r, not a JSON action' % text)
    if v is None:
        return None
    if _coords(v):
        return tuple(v)
    if isinstance(v, list) and len(v) == 2 and all(_coords(p) for p in v):
        return (tuple(v[0]), tuple(v[1]))
    raise ZerokitProtocolError('server sent %r, not [x, y], '
                               '[[xa, ya], [xb, yb]] or null' % text)


class Connection(object):
    """One line-protocol session with a zerokit server: a child process
    speaking on its stdin/stdout, or a TCP connection."""

    def __init__(self, config, stderr_log=None, who='zerokit_player'):
        """Start the server (or connect to it). Its stderr is appended to
        the file stderr_log, after a header line naming who, when given;
        else it goes to a temporary file."""
        self.timeout = config['timeout']
        self._buf = b''
        self.proc = None
        self.sock = None
        self._stderr = None
        self._stderr_path = None
        self._stderr_start = 0
        self.stderr_text = ''
        self.describe = ''
        if config['address']:
            host, _, port = config['address'].rpartition(':')
            self.describe = 'zerokit server at %s' % config['address']
            try:
                self.sock = socket.create_connection(
                    (host.strip('[]'), int(port)), timeout=self.timeout)
            except OSError as e:
                raise ZerokitDied('cannot connect to %s: %s'
                                  % (self.describe, e))
            self.sock.settimeout(None)
            self._fd = self.sock.fileno()
        else:
            # -v: serve reports each game's moves and fallback moves.
            cmd = [config['binary'], 'serve', '-agent', config['agent'],
                   '-v'] + config['args']
            self.describe = 'zerokit serve process (%s)' % ' '.join(
                shlex.quote(c) for c in cmd)
            if stderr_log:
                try:
                    self._stderr = open(stderr_log, 'ab')
                    self._stderr_start = self._stderr.seek(0, os.SEEK_END)
                    self._stderr.write(('== %s: %s: %s\n' % (
                        who, time.strftime('%Y-%m-%dT%H:%M:%SZ',
                                           time.gmtime()),
                        self.describe)).encode('utf-8'))
                    self._stderr.flush()
                except OSError as e:
                    raise ZerokitConfigError('server stderr log %s: %s'
                                             % (stderr_log, e))
                self._stderr_path = stderr_log
            else:
                self._stderr = tempfile.TemporaryFile()
            try:
                self.proc = subprocess.Popen(
                    cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=self._stderr, bufsize=0)
            except OSError as e:
                self._stderr.close()
                raise ZerokitDied('cannot start %s: %s' % (self.describe, e))
            self._fd = self.proc.stdout.fileno()
        self._finalizer = weakref.finalize(
            self, _shutdown, self.proc, self.sock, self._stderr)

    def stderr_tail(self, limit=2000):
        """The last characters the server process wrote to stderr."""
        return self.stderr_section()[-limit:].strip()

    def stderr_section(self, limit=1 << 20):
        """What this session's server wrote to stderr (its last limit
        bytes at most), or '' when unknown."""
        try:
            if self._stderr_path is not None:
                with open(self._stderr_path, 'rb') as f:
                    end = f.seek(0, os.SEEK_END)
                    f.seek(max(self._stderr_start, end - limit))
                    data = f.read()
            elif self._stderr is not None:
                end = self._stderr.seek(0, os.SEEK_END)
                self._stderr.seek(max(0, end - limit))
                data = self._stderr.read()
            else:
                return ''
        except (OSError, ValueError):
            return ''
        return data.decode('utf-8', 'replace')

    def _died(self, what):
        msg = '%s %s' % (self.describe, what)
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=2)
                msg += ' (exit status %s)' % code
            except subprocess.TimeoutExpired:
                pass
            tail = self.stderr_tail()
            if tail:
                msg += '; its stderr ends with:\n' + tail
        return ZerokitDied(msg)

    def request(self, line):
        """Send one request line and return the response line; an error
        response raises ZerokitProtocolError."""
        data = (line + '\n').encode('utf-8')
        try:
            if self.sock is not None:
                self.sock.sendall(data)
            else:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
        except (OSError, ValueError) as e:
            raise self._died('cannot be written to (%s)' % e)
        resp = self._read_line(line)
        if resp.startswith('error'):
            raise ZerokitProtocolError('%s rejected %r: %s' % (
                self.describe, line, resp[len('error'):].strip()))
        return resp

    def _read_line(self, request):
        while b'\n' not in self._buf:
            if len(self._buf) > MAX_LINE:
                raise ZerokitProtocolError('response to %r longer than %d '
                                           'bytes' % (request, MAX_LINE))
            try:
                ready, _, _ = select.select([self._fd], [], [], self.timeout)
            except (OSError, ValueError) as e:
                raise self._died('cannot be read from (%s)' % e)
            if not ready:
                raise ZerokitTimeout('%s did not answer %r within %g s' % (
                    self.describe, request, self.timeout))
            try:
                chunk = os.read(self._fd, 4096)
            except OSError as e:
                raise self._died('cannot be read from (%s)' % e)
            if not chunk:
                raise self._died('closed the session while answering %r'
                                 % request)
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b'\n')
        try:
            return line.decode('utf-8').rstrip('\r')
        except UnicodeDecodeError:
            raise ZerokitProtocolError('response to %r is not UTF-8' % request)

    def close(self):
        """End the session politely (quit) and release the process or
        socket. Safe to call more than once."""
        if not self._finalizer.alive:
            return
        timeout = self.timeout
        self.timeout = QUIT_TIMEOUT if timeout is None else \
            min(timeout, QUIT_TIMEOUT)
        try:
            self.request('quit')
        except ZerokitError:
            pass  # gone or confused: the shutdown below ends it anyway
        finally:
            self.timeout = timeout
        if self.proc is not None:
            try:
                self.proc.wait(timeout=QUIT_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass  # the shutdown below ends it
        # Before the shutdown closes a temporary file.
        self.stderr_text = self.stderr_section()
        self._finalizer()


def _shutdown(proc, sock, stderr):
    if sock is not None:
        sock.close()
    if proc is not None:
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if stderr is not None:
        stderr.close()


_PAGE_KB = 4
_CLK_TCK = 100
try:
    _CLK_TCK = os.sysconf('SC_CLK_TCK')
except (AttributeError, ValueError, OSError):
    pass


def _proc_status_kb(pid, field):
    """A "field: N kB" value of /proc/PID/status in kB, or None."""
    try:
        with open('/proc/%s/status' % pid) as f:
            for line in f:
                if line.startswith(field + ':'):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _proc_cpu_seconds(pid):
    """User plus system CPU seconds of process pid (all its threads), from
    /proc/PID/stat, or None."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rpartition(')')[2].split()
        return (int(fields[11]) + int(fields[12])) / float(_CLK_TCK)
    except (OSError, ValueError, IndexError):
        return None


class Usage(object):
    """The resources one agent used in one game: see "Resource accounting"
    in the module documentation."""

    def __init__(self, colour, module, limits, log=None, child_pid=None,
                 hwm_start_kb=None):
        self.colour, self.module = colour, module
        self.cpu_limit = limits.get('cpu_limit', DEFAULT_CPU_LIMIT)
        self.memory_limit = limits.get('memory_limit', DEFAULT_MEMORY_LIMIT)
        self.log = log
        if log:
            self.log = log.replace('{colour}', colour).replace(
                '{module}', module)
        self.child_pid = child_pid
        self.python_cpu = 0.0
        self.child_cpu = 0.0
        self.child_peak_kb = 0
        # The Python process's peak when the adapter's current call began
        # (or the adapter itself, for the first): growth past it during
        # the call is the adapter's.
        self._hwm_mark_kb = hwm_start_kb
        if self._hwm_mark_kb is None:
            self._hwm_mark_kb = _proc_status_kb('self', 'VmHWM') or 0
        self.python_growth_kb = 0
        self.calls = 0
        self.started = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
        self.moves = None           # the agent's moves, from serve -v
        self.fallback_moves = None  # those not chosen by a finished search
        # The log's lines of earlier games, kept when this game's is written.
        self._earlier = ''
        if self.log:
            try:
                with open(self.log, encoding='utf-8') as f:
                    self._earlier = f.read()
            except FileNotFoundError:
                pass
            except OSError as e:
                raise ZerokitError('usage log %s: %s' % (self.log, e))
            if self._earlier and not self._earlier.endswith('\n'):
                self._earlier += '\n'

    _GAME_LINE = re.compile(r'(\d+) own moves \((\d+) by the fallback[,)]')

    def games(self, stderr):
        """Read the agent's moves and fallback moves from serve -v's game
        lines in its stderr."""
        for m in self._GAME_LINE.finditer(stderr):
            self.moves = (self.moves or 0) + int(m.group(1))
            self.fallback_moves = (self.fallback_moves or 0) + int(m.group(2))

    def measure(self, python_seconds):
        """Add a call's Python CPU time and read the child's counters."""
        self.calls += 1
        self.python_cpu += python_seconds
        if self.child_pid is not None:
            cpu = _proc_cpu_seconds(self.child_pid)
            if cpu is not None:
                self.child_cpu = max(self.child_cpu, cpu)
            peak = _proc_status_kb(self.child_pid, 'VmHWM')
            if peak is not None:
                self.child_peak_kb = max(self.child_peak_kb, peak)
        hwm = _proc_status_kb('self', 'VmHWM')
        if hwm is not None:
            # Charged once: the mark moves up to what was charged.
            self.python_growth_kb += max(0, hwm - self._hwm_mark_kb)
            self._hwm_mark_kb = max(self._hwm_mark_kb, hwm)

    def begin(self):
        """Mark the start of one of the adapter's calls: the Python
        process's peak so far, which the other player may have raised."""
        hwm = _proc_status_kb('self', 'VmHWM')
        if hwm is not None:
            self._hwm_mark_kb = hwm

    def cpu_seconds(self):
        return self.child_cpu + self.python_cpu

    def peak_mb(self):
        return (self.child_peak_kb + self.python_growth_kb) / 1024.0

    def report(self):
        """The usage as a dict (the usage log's JSON)."""
        return {
            'colour': self.colour, 'module': self.module,
            'started': self.started, 'pid': self.child_pid,
            'calls': self.calls,
            'cpu_seconds': round(self.cpu_seconds(), 3),
            'child_cpu_seconds': round(self.child_cpu, 3),
            'python_cpu_seconds': round(self.python_cpu, 3),
            'peak_memory_mb': round(self.peak_mb(), 3),
            'child_peak_mb': round(self.child_peak_kb / 1024.0, 3),
            'python_growth_mb': round(self.python_growth_kb / 1024.0, 3),
            'measured_child': self.child_pid is not None,
            'cpu_limit': self.cpu_limit, 'memory_limit': self.memory_limit,
            'exceeded': self.exceeded(),
            'moves': self.moves, 'fallback_moves': self.fallback_moves,
        }

    def summary(self):
        r = self.report()
        return ('zerokit_player %s (%s): %.2f s CPU (limit %s), peak memory '
                '%.1f MB (limit %s), %d calls, %s%s' % (
                    self.colour, self.module, r['cpu_seconds'],
                    '%g s' % self.cpu_limit if self.cpu_limit else 'none',
                    r['peak_memory_mb'],
                    '%g MB' % self.memory_limit if self.memory_limit
                    else 'none', self.calls,
                    'fallback moves unknown' if self.fallback_moves is None
                    else '%d of %d own moves by the fallback' % (
                        self.fallback_moves, self.moves),
                    '' if r['measured_child'] else
                    ' (remote server: Python side only)'))

    def exceeded(self):
        """A sentence naming the exceeded limit, or None."""
        if self.cpu_limit and self.cpu_seconds() > self.cpu_limit:
            return ('used %.2f s of CPU, over the limit of %g s per game'
                    % (self.cpu_seconds(), self.cpu_limit))
        if self.memory_limit and self.peak_mb() > self.memory_limit:
            return ('used %.1f MB of memory at its peak, over the limit of '
                    '%g MB' % (self.peak_mb(), self.memory_limit))
        return None

    def write_log(self):
        """Write this game's line of the usage log, if any: the file is
        replaced by the earlier games' lines and this one. Players that
        share one log must play one at a time ({colour} and {module} tell
        two players of one referee apart)."""
        if not self.log:
            return
        tmp = '%s.%d.tmp' % (self.log, os.getpid())
        try:
            with open(tmp, 'w') as f:
                f.write(self._earlier + json.dumps(self.report()) + '\n')
            os.replace(tmp, self.log)
        except OSError as e:
            raise ZerokitError('usage log %s: %s' % (self.log, e))


class Player(object):
    """The referee's Player interface, played by a zerokit agent."""

    def __init__(self, colour):
        """:param colour: 'white' or 'black'."""
        if colour not in ('white', 'black'):
            raise ValueError("colour must be 'white' or 'black', got %r"
                             % (colour,))
        self.colour = colour
        self.usage = None
        self.locked = False      # the game is locked: answer locally
        self._ask_locked = True  # the server knows the "locked" request
        start = time.process_time()
        hwm_start = _proc_status_kb('self', 'VmHWM')
        config = load_config(__file__)
        module = __name__.split('.')[0]
        log = config['usage_log']
        if log:
            log = log.replace('{colour}', colour).replace('{module}', module)
        self.conn = Connection(config, log + '.stderr' if log else None,
                               'zerokit_player %s (%s)' % (colour, module))
        pid = self.conn.proc.pid if self.conn.proc is not None else None
        self.usage = Usage(colour, module, config, log, pid, hwm_start)
        # The finalizer ends the session before reporting (it holds the
        # connection: created later, it runs before the connection's own).
        self._report = weakref.finalize(self, _report_usage, self.usage,
                                        self.conn)
        try:
            self.conn.request('init ' + colour)
            self._account(start)
        except ZerokitError:
            self.conn.close()
            raise

    def _account(self, start):
        """Charge the Python time since start and the child's counters;
        log them, and raise ZerokitResourceError over a limit."""
        self.usage.measure(time.process_time() - start)
        self.usage.write_log()
        self._enforce_limits()

    def _account_locked(self, start):
        """_account for a call answered locally in a locked game: only the
        Python time is new."""
        usage = self.usage
        usage.calls += 1
        usage.python_cpu += time.process_time() - start
        if usage.calls % LOCKED_LOG_EVERY == 0:
            usage.write_log()
        self._enforce_limits()

    def _enforce_limits(self):
        """Raise ZerokitResourceError, saying so on stderr, when the usage
        exceeds a limit."""
        over = self.usage.exceeded()
        if over:
            message = 'zerokit agent (%s) %s' % (self.colour, over)
            sys.stderr.write(message + '\n')
            raise ZerokitResourceError(message)

    def _check_locked(self):
        """Ask the server whether the game is locked (after a forfeit)."""
        try:
            self.locked = self.conn.request('locked') == 'yes'
        except ZerokitProtocolError:
            # A zerokit older than the request: never ask again.
            self._ask_locked = False

    def action(self, turns):
        """Return this player's action for the referee's turn counter:
        (x, y), ((xa, ya), (xb, yb)) or None (forfeit)."""
        start = time.process_time()
        if isinstance(turns, bool) or not isinstance(turns, int):
            raise TypeError('turns must be an int, got %r' % (turns,))
        if self.locked:
            self._account_locked(start)
            return None
        self.usage.begin()
        action = action_from_json(self.conn.request('action %d' % turns))
        if action is None and self._ask_locked:
            self._check_locked()
        self._account(start)
        return action

    def update(self, action):
        """Tell the agent the opponent's action (in the referee's form)."""
        start = time.process_time()
        if self.locked:
            if action is not None:
                raise ZerokitProtocolError(
                    'opponent action %s in a locked game, where only a '
                    'forfeit (None) is legal' % action_to_json(action))
            self._account_locked(start)
            return
        self.usage.begin()
        self.conn.request('update ' + action_to_json(action))
        self._account(start)

    def close(self):
        """End the session and report the game's usage (once); the referee
        never calls this, garbage collection or interpreter exit does it
        otherwise."""
        self.conn.close()
        self._report()


def _report_usage(usage, conn):
    """End the session, then log and print the game's usage summary (with
    the fallback moves the server reported) when its Player goes away."""
    try:
        conn.close()
        usage.games(conn.stderr_text)
        usage.write_log()
        sys.stderr.write(usage.summary() + '\n')
    except Exception:  # at interpreter exit, print what can be printed
        pass
