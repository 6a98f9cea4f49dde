"""``mx.profiler`` on ``torch.profiler``.

MXNet 1.9.1's profiler API (configuration, run/stop/pause, dumps to a Chrome-trace file and an aggregate
statistics table, user Domains/Tasks/Frames/Events/Counters/Markers). What differs from MXNet:

- The trace is torch's: ``set_state('run')`` starts a ``torch.profiler`` session (CPU, and CUDA when
  ``torch.cuda.is_available()``), so the events and timings are torch's (``aten::*`` operators, CUDA kernels,
  ``[memory]`` events). MXNet operators run inside ranges named after the MXNet operator (``FullyConnected``,
  ``broadcast_add``, ``_mul_scalar``) with category ``operator``: every ``mx.nd`` registry operator, NDArray
  ``+ - * / % **``, and the operators of bound symbols and hybridized blocks (forward only: backward is torch's
  autograd, whose ``aten::*`` ops appear under their own names). The first start of a process takes a second
  or two (torch initialises its profiler).
- Tasks, Frames and Events are ``record_function`` ranges (categories as in MXNet: the domain's name,
  ``<domain>,frame``, ``event``); Counters are Chrome counter events (``"ph": "C"``) and Markers instant events
  (``"ph": "i"``) in their domain. A name used for ranges of two categories is counted under the last one.
- ``profile_api`` is accepted and records nothing (there is no C API). ``continuous_dump`` and ``dump_period``
  are accepted: the file is written by ``dump()`` and at interpreter exit (as MXNet's final dump), always as one
  complete JSON document with every event since the last ``dump(finished=True)``, never appended periodically.
- ``profile_process='server'`` (profiling a parameter-server process) raises ``MXNetNotImplementedError``.
- ``dumps()`` statistics come from torch's events: the ``operator`` and user-domain tables as in MXNet, torch's
  own events in tables named ``torch:<torch category>`` (``torch:cpu_op``, ``torch:kernel``, ...), memory
  (``profile_memory``) as ``Device Storage`` rows ``Memory: cpu/0`` from torch's allocation events. Counters are
  shown as MXNet shows them (their values divided by 1000). No ``MXNET_C_API`` table.
"""
import atexit
import json
import os
import tempfile
import threading
import time
import warnings

import torch

from . import _profstate
from ._fileio import write_atomic
from .base import MXNetError, unsupported
from .operator.registry import REGISTRY

__all__ = ['set_config', 'profiler_set_config', 'set_state', 'profiler_set_state', 'dump', 'dump_profile', 'dumps',
           'pause', 'resume', 'set_kvstore_handle', 'Domain', 'Task', 'Frame', 'Event', 'Counter', 'Marker']

# MXNet's configuration fields and defaults; each set_config() call starts again from these
_DEFAULTS = {'profile_all': False, 'profile_symbolic': True, 'profile_imperative': True, 'profile_memory': True,
             'profile_api': True, 'filename': 'profile.json', 'continuous_dump': True, 'dump_period': 1.0,
             'aggregate_stats': False, 'profile_process': 'worker'}
_MEMORY_CATEGORIES = ('Device Storage', 'Pool Memory')
_DURATION, _COUNTER = 0, 1

profiler_kvstore_handle = None


def _parse_bool(key, value):
    if isinstance(value, (bool, int)) and value in (0, 1):
        return bool(value)
    s = str(value).strip().lower()
    if s in ('true', '1'):
        return True
    if s in ('false', '0'):
        return False
    raise MXNetError('Invalid Parameter format for %s expect boolean but value=%r' % (key, str(value)))


def _parse_config(kwargs):
    cfg = dict(_DEFAULTS)
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise MXNetError("Cannot find argument %r, Possible Arguments: %s" % (key, ', '.join(_DEFAULTS)))
        if key == 'filename':
            cfg[key] = str(value)
        elif key == 'dump_period':
            try:
                cfg[key] = float(value)
            except (TypeError, ValueError):
                raise MXNetError('Invalid Parameter format for dump_period expect float but value=%r'
                                 % str(value)) from None
        elif key == 'profile_process':
            cfg[key] = _check_process('mx.profiler.set_config', value, MXNetError)
        else:
            cfg[key] = _parse_bool(key, value)
    if cfg['continuous_dump'] and not cfg['dump_period'] > 0:
        raise MXNetError('mx.profiler.set_config: dump_period must be > 0 with continuous_dump, got %s'
                         % cfg['dump_period'])
    return cfg


def _check_process(api, profile_process, error=KeyError):
    if profile_process == 'server':
        raise unsupported(api, "profile_process='server'",
                          "profiling a kvstore server process needs MXNet's parameter server")
    if profile_process != 'worker':
        if error is KeyError:  # (MXNet looks the name up in a dict)
            raise KeyError(profile_process)
        raise error("Invalid Input: %r, valid values are: {'server', 'worker'}" % (profile_process,))
    return profile_process


class _Stat:
    __slots__ = ('kind', 'count', 'total', 'min', 'max')

    def __init__(self, kind):
        self.kind, self.count, self.total, self.min, self.max = kind, 0, 0, None, None

    def add(self, value):
        self.count += 1
        if self.kind == _DURATION:
            self.total += value
        else:
            self.total = value  # a counter's "total" is its last value, as in MXNet
        self.min = value if self.min is None else min(self.min, value)
        self.max = value if self.max is None else max(self.max, value)

    def avg(self):
        if self.kind == _COUNTER:
            return (self.max - self.min) // 2 if isinstance(self.max, int) else (self.max - self.min) / 2
        return self.total / self.count


class _Profiler:
    """The process-wide state behind the module functions."""

    def __init__(self):
        self.lock = threading.RLock()
        self.config = dict(_DEFAULTS)
        self.running = False
        self.paused = False
        self.output = False  # MXNet's "enable output": set by running, cleared by a finished dump
        self.session = None
        self.events = []  # Chrome-trace events since the last finished dump
        self.meta = set()  # keys of the metadata events already in ``events``
        self.stats = None  # {category: {name: _Stat}} while aggregate_stats is on
        self.categories = {}  # range name -> MXNet category of the user objects that opened it

    # -- the torch session -----------------------------------------------------------------------------------
    @property
    def collecting(self):
        return self.session is not None

    def _mode(self, field):
        return self.config['profile_all'] or self.config[field]

    def start(self, api):
        # torch's profiler library (kineto) prints 'profiler_start'/'profiler_stop' trace lines to stderr at every
        # session, at its highest level; MXNet's profiler prints nothing. Kineto reads its level when the first
        # session starts: above that level unless the user set one (which also hides its error messages)
        os.environ.setdefault('KINETO_LOG_LEVEL', '6')
        activities = [torch.profiler.ProfilerActivity.CPU]
        if torch.cuda.is_available():
            activities.append(torch.profiler.ProfilerActivity.CUDA)
        session = torch.profiler.profile(activities=activities, profile_memory=self._mode('profile_memory'))
        try:
            session.__enter__()
        except RuntimeError as e:
            raise MXNetError('%s: cannot start the torch profiler (is another torch.profiler session running?): %s'
                             % (api, str(e).splitlines()[0] if str(e) else e)) from e
        self.session = session
        flags = _profstate.FLAGS
        flags.imperative = self._mode('profile_imperative')
        flags.symbolic = self._mode('profile_symbolic')

    def finish(self):
        """End the torch session and keep its events."""
        session, self.session = self.session, None
        if session is None:
            return
        flags = _profstate.FLAGS
        flags.imperative = flags.symbolic = False
        session.__exit__(None, None, None)
        fd, path = tempfile.mkstemp(suffix='.json', prefix='mxcompat_profile_')
        os.close(fd)
        try:
            session.export_chrome_trace(path)
            with open(path, encoding='utf-8') as f:
                trace = json.load(f)
        finally:
            os.unlink(path)
        self._take(trace)

    def flush(self):
        """Bring the running session's events in (an end and a restart)."""
        if self.collecting:
            self.finish()
            self.start('mx.profiler')

    def _take(self, trace):
        base = trace.get('baseTimeNanoseconds', 0) / 1000.0
        stats = self.stats
        for ev in trace.get('traceEvents', ()):
            pid = ev.get('pid')
            if not isinstance(pid, int) or ev.get('cat') == 'Trace':
                continue  # the session's own spans and window markers
            if 'ts' in ev:
                ev['ts'] = round(ev['ts'] + base, 3)  # epoch microseconds, as MXNet's timestamps
            ph = ev.get('ph')
            if ph == 'M':
                key = (ev.get('name'), pid, ev.get('tid'), json.dumps(ev.get('args'), sort_keys=True))
                if key in self.meta:
                    continue
                self.meta.add(key)
                self.events.append(ev)
                continue
            name, cat = ev.get('name'), ev.get('cat', '')
            if cat == 'user_annotation':
                mx_cat = self.categories.get(name) or ('operator' if name in REGISTRY or name in _OTHER_OPS
                                                       else None)
                if mx_cat is not None:
                    ev['cat'] = cat = mx_cat
                else:
                    cat = 'torch:' + cat
            elif cat:
                cat = 'torch:' + cat
            self.events.append(ev)
            if ph == 'X':
                if stats is not None:
                    _stat(stats, cat, name, _DURATION).add(ev.get('dur', 0))
            elif name == '[memory]':
                args = ev.get('args', {})
                dev = 'cpu' if args.get('Device Type', 0) == 0 else 'gpu'
                label = 'Memory: %s/%d' % (dev, max(args.get('Device Id', 0), 0))
                value = args.get('Total Allocated', 0)
                self.events.append({'name': label, 'cat': 'Device Storage', 'ph': 'C', 'ts': ev['ts'], 'pid': pid,
                                    'tid': ev.get('tid'), 'args': {label: value}})
                if stats is not None:
                    _stat(stats, 'Device Storage', label, _COUNTER).add(value)

    # -- events mxcompat makes itself ------------------------------------------------------------------------
    def instant(self, ev, category, name=None, value=None):
        ev.update(ts=round(time.time_ns() / 1000.0, 3), pid=os.getpid(), tid=threading.get_native_id())
        with self.lock:
            self.events.append(ev)
            if self.stats is not None:
                if name is None:
                    self.stats.setdefault(category, {})  # (MXNet lists a marker's category, with no rows)
                else:
                    _stat(self.stats, category, name, _COUNTER).add(value)


def _stat(stats, category, name, kind):
    table = stats.setdefault(category, {})
    s = table.get(name)
    if s is None:
        s = table[name] = _Stat(kind)
    return s


# MXNet operator names the NDArray arithmetic ranges use that are not registry names
_OTHER_OPS = frozenset(('_plus_scalar', '_minus_scalar', '_mul_scalar', '_div_scalar', '_mod_scalar',
                        '_power_scalar'))
_P = _Profiler()


def set_kvstore_handle(handle):
    """Remember the kvstore MXNet would send server-profiling commands to (``profile_process='server'`` is not
    supported by mxcompat, so the handle is only kept)."""
    global profiler_kvstore_handle
    profiler_kvstore_handle = handle


def set_config(**kwargs):
    """Configure the profiler (keyword arguments only): profile_all, profile_symbolic, profile_imperative,
    profile_memory, profile_api, filename, continuous_dump, dump_period, aggregate_stats, profile_process.

    As in MXNet each call starts from the defaults (symbolic, imperative, memory and API profiling on, file
    ``profile.json``, no aggregate statistics) and removes an existing file of that name. ``profile_api`` records
    nothing here; ``continuous_dump``/``dump_period`` do not make periodic writes (see the module's notes)."""
    cfg = _parse_config(kwargs)
    with _P.lock:
        _P.config = cfg
        path = cfg['filename']
        if path and '://' not in path:
            try:
                os.unlink(path)
            except OSError:
                pass
        if cfg['aggregate_stats']:
            if _P.stats is None:
                _P.stats = {}
        else:
            _P.stats = None
        _P.flush()  # a running session takes the new settings


def profiler_set_config(mode='symbolic', filename='profile.json'):
    """Deprecated form of ``set_config(profile_<mode>=True, filename=filename)``."""
    warnings.warn('profiler.profiler_set_config() is deprecated. Please use profiler.set_config() instead')
    set_config(**{'profile_' + mode: True, 'filename': filename})


def set_state(state='stop', profile_process='worker'):
    """Start (``'run'``) or stop (``'stop'``) profiling; running starts a torch.profiler session."""
    if state not in ('run', 'stop'):
        raise KeyError(state)
    _check_process('mx.profiler.set_state', profile_process)
    with _P.lock:
        if state == 'run':
            _P.output = True
            _P.paused = False
            if not _P.collecting:
                _P.start('mx.profiler.set_state')
            _P.running = True
        else:
            _P.finish()
            _P.running = False
            _P.paused = True


def profiler_set_state(state='stop'):
    """Deprecated form of ``set_state(state)``."""
    warnings.warn('profiler.profiler_set_state() is deprecated. Please use profiler.set_state() instead')
    set_state(state)


def dump(finished=True, profile_process='worker'):
    """Write the Chrome-trace file (``filename`` of ``set_config``), atomically: every event since the last
    finished dump, as one JSON document. ``finished=True`` then clears them and disables output until the next
    ``set_state('run')`` (MXNet's semantics; profiling itself goes on if running)."""
    _check_process('mx.profiler.dump', profile_process)
    with _P.lock:
        if not _P.output:
            raise MXNetError("Profiler hasn't been run. Config and start profiler first")
        _P.flush()
        doc = {'traceEvents': _P.events, 'displayTimeUnit': 'ms'}
        write_atomic(_P.config['filename'], [json.dumps(doc).encode('utf-8')], 'write the profile')
        if finished is True:
            _P.events = []
            _P.meta = set()
            _P.output = False


def dump_profile():
    """Deprecated form of ``dump(True)``."""
    warnings.warn('profiler.dump_profile() is deprecated. Please use profiler.dump() instead')
    dump(True)


_SORT_BY = ('total', 'avg', 'min', 'max', 'count')


def dumps(reset=False, format='table', sort_by='total', ascending=False):  # noqa: A002 (MXNet's name)
    """The aggregate statistics (``set_config(aggregate_stats=True)``; '' without) as MXNet's table, or JSON
    with ``format='json'``; times in ms from torch's events. ``reset=True`` clears them after printing."""
    if format not in ('table', 'json'):
        raise AssertionError("Invalid value provided for format: %s. Support: 'table', 'json'" % (format,))
    if sort_by not in _SORT_BY:
        raise AssertionError("Invalid value provided for sort_by: %s. Support: 'total', 'avg', 'min', 'max', "
                             "'count'" % (sort_by,))
    if ascending not in (False, True):
        raise AssertionError('Invalid value provided for ascending: %s. Support: False, True' % (ascending,))
    if reset not in (False, True):
        raise AssertionError('Invalid value provided for reset: %s. Support: False, True' % (reset,))
    with _P.lock:
        _P.flush()
        stats = _P.stats
        if stats is None:
            return ''
        out = (_table if format == 'table' else _json)(stats, sort_by, ascending)
        if reset:
            stats.clear()
        return out


def _sorted_rows(table, sort_by, ascending):
    def key(item):
        s = item[1]
        v = {'total': s.total, 'avg': s.avg(), 'min': s.min, 'max': s.max, 'count': s.count}[sort_by]
        return (-v if ascending else v), item[0]
    return sorted(table.items(), key=key, reverse=True)


def _ms(v):
    return v / 1000.0


def _table(stats, sort_by, ascending):
    lines = ['', 'Profile Statistics:', '\tNote the difference in units for different entries.']
    for category in sorted(stats):
        memory = category in _MEMORY_CATEGORIES
        lines += [category, '=================']
        if memory:
            lines.append('%-25s%16s %16s %16s %16s' % ('Name', 'Total Count', 'Min Use  (kB)', 'Max Use  (kB)',
                                                       'Avg Use  (kB)'))
            lines.append('%-25s%16s %16s %16s %16s' % ('----', '-----------', '-------------', '-------------',
                                                       '-------------'))
        else:
            lines.append('%-25s%16s %16s %16s %16s %16s' % ('Name', 'Total Count', 'Time (ms)', 'Min Time (ms)',
                                                            'Max Time (ms)', 'Avg Time (ms)'))
            lines.append('%-25s%16s %16s %16s %16s %16s' % ('----', '-----------', '---------', '-------------',
                                                            '-------------', '-------------'))
        for name, s in _sorted_rows(stats[category], sort_by, ascending):
            if memory:
                lines.append('%-25s%16d %16.4f %16.4f %16.4f' % (name, s.count, _ms(s.min), _ms(s.max), _ms(s.avg())))
            else:
                lines.append('%-25s%16d %16.4f %16.4f %16.4f %16.4f' % (name, s.count, _ms(s.total), _ms(s.min),
                                                                        _ms(s.max), _ms(s.avg())))
        lines.append('')
    return '\n'.join(lines) + '\n'


def _json(stats, sort_by, ascending):
    def g(v):
        return float('%.4g' % _ms(v))
    times, memory = {}, {}
    for category in sorted(stats):
        is_memory = category in _MEMORY_CATEGORIES
        rows = {}
        for name, s in _sorted_rows(stats[category], sort_by, ascending):
            row = {'Count': s.count}
            if not is_memory:
                row['Total'] = g(s.total)
            row.update(Min=g(s.min), Max=g(s.max), Avg=g(s.avg()))
            rows[name] = row
        (memory if is_memory else times)[category] = rows
    return json.dumps({'Time': times, 'Memory': memory, 'Unit': {'Time': 'ms', 'Memory': 'kB'}}, indent=4) + '\n'


def pause(profile_process='worker'):
    """Stop collecting until ``resume()`` (the torch session ends; ``resume`` starts another)."""
    _check_process('mx.profiler.pause', profile_process)
    with _P.lock:
        _P.paused = True
        _P.finish()


def resume(profile_process='worker'):
    """Collect again after ``pause()`` (if the profiler is running)."""
    _check_process('mx.profiler.resume', profile_process)
    with _P.lock:
        _P.paused = False
        if _P.running and not _P.collecting:
            _P.start('mx.profiler.resume')


@atexit.register
def _dump_at_exit():
    # MXNet writes the file when the process ends if the profiler ran and was not dumped (finished) since
    with _P.lock:
        if not _P.output and not _P.collecting:
            return
        try:
            _P.finish()
            if _P.output:
                dump(True)
        except Exception as e:  # noqa: BLE001 (nothing can be raised at exit; say why the file is missing)
            warnings.warn('mx.profiler: could not write the profile at exit: %s' % e)


# -- user objects ---------------------------------------------------------------------------------------------
class Domain:
    """A named category for Tasks, Frames, Counters and Markers (their ``cat`` in the trace)."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name

    def new_task(self, name):
        """A Task in this domain."""
        return Task(self, name)

    def new_frame(self, name):
        """A Frame in this domain."""
        return Frame(self, name)

    def new_counter(self, name, value=None):
        """A Counter in this domain."""
        return Counter(self, name, value)

    def new_marker(self, name):
        """A Marker in this domain."""
        return Marker(self, name)


class _Range:
    """start()/stop() a ``torch.profiler.record_function`` range while the profiler collects."""

    _category = None

    def __init__(self, name):
        self.name = name
        self._open = []

    def start(self):
        """Open the range (nothing while the profiler is not collecting)."""
        with _P.lock:
            if not _P.collecting:
                return
            _P.categories[self.name] = self._category
        rf = torch.autograd.profiler.record_function(self.name)
        rf.__enter__()
        self._open.append(rf)

    def stop(self):
        """Close the range opened last (nothing if none is open, as MXNet)."""
        if self._open:
            self._open.pop().__exit__(None, None, None)

    def __str__(self):
        return self.name


class Task(_Range):
    """A named duration in a domain (category: the domain's name)."""

    def __init__(self, domain, name):
        super().__init__(name)
        self._category = domain.name


class Frame(_Range):
    """A named duration in a domain (category ``<domain>,frame``)."""

    def __init__(self, domain, name):
        super().__init__(name)
        self._category = domain.name + ',frame'


class Event(_Range):
    """A named duration (category ``event``)."""

    _category = 'event'


class Counter:
    """A named value in a domain; each change while the profiler collects is a Chrome counter event. Values are
    Python ints (MXNet keeps an unsigned 64-bit integer, which wraps below zero)."""

    def __init__(self, domain, name, value=None):
        self.name = name
        self.domain = domain
        self._value = 0
        if value is not None:
            self.set_value(value)

    def _emit(self):
        if _P.collecting:
            cat = self.domain.name
            _P.instant({'name': self.name, 'cat': cat, 'ph': 'C', 'args': {self.name: self._value}}, cat, self.name,
                       self._value)

    def set_value(self, value):
        """Set the value."""
        self._value = int(value)
        self._emit()

    def _adjust(self, change):
        self._value += change
        self._emit()
        return self

    def increment(self, delta=1):
        """Add ``delta``."""
        self._adjust(int(delta))

    def decrement(self, delta=1):
        """Subtract ``delta``."""
        self._adjust(-int(delta))

    def __iadd__(self, delta):  # ``counter += n``
        return self._adjust(int(delta))

    def __isub__(self, delta):  # ``counter -= n``
        return self._adjust(-int(delta))

    def __str__(self):
        return self.name


_SCOPES = {'global': 'g', 'process': 'p', 'thread': 't', 'task': 't', 'marker': 't'}


class Marker:
    """An instant in a domain (a Chrome instant event, category ``<domain>,instant_marker``)."""

    def __init__(self, domain, name):
        self.name = name
        self.domain = domain

    def mark(self, scope='process'):
        """Record the instant; ``scope`` is 'global', 'process', 'thread', 'task' or 'marker' (the last two are
        written as thread scope, which is as far as Chrome's trace format goes)."""
        if scope not in _SCOPES:
            raise MXNetError("Invalid Input: %r, valid values are: {'global', 'marker', 'process', 'task', 'thread'}"
                             % (scope,))
        if _P.collecting:
            cat = self.domain.name + ',instant_marker'
            _P.instant({'name': self.name, 'cat': cat, 'ph': 'i', 's': _SCOPES[scope]}, cat)
