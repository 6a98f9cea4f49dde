"""mx.profiler on torch.profiler: API, errors and the deterministic statistics against MXNet 1.9.1 (goldens in
tests/fixtures/profiler, generator beside them); the trace file's structure and MXNet operator names."""
import json
import os
import subprocess
import sys
import warnings

import pytest

import mxcompat as mx
from mxcompat import _profstate, profiler
from mxcompat.base import MXNetError, MXNetNotImplementedError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
with open(os.path.join(HERE, 'fixtures', 'profiler', 'golden.json')) as _f:
    GOLDEN = json.load(_f)

# MXNet 1.9.1's public names of mxnet.profiler (its module also exposes ctypes helpers, not listed)
PUBLIC = ('set_config profiler_set_config set_state profiler_set_state dump dump_profile dumps pause resume '
          'set_kvstore_handle Domain Task Frame Event Counter Marker').split()


@pytest.fixture(autouse=True)
def fresh(monkeypatch, tmp_path):
    """Each test gets its own profiler state and working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(profiler, '_P', profiler._Profiler())
    yield
    profiler._P.finish()
    assert not _profstate.FLAGS.imperative and not _profstate.FLAGS.symbolic


def sections(table):
    """{category: its lines} of a dumps() table."""
    out, lines = {}, table.split('\n')
    for i, line in enumerate(lines):
        if line == '=================':
            body = []
            for row in lines[i + 1:]:
                if not row:
                    break
                body.append(row)
            out[lines[i - 1]] = body
    return out


def test_namespace_and_names():
    import mxcompat.profiler as by_import
    assert mx.profiler is profiler is by_import
    for name in PUBLIC:
        assert hasattr(profiler, name), name
    assert not hasattr(profiler, 'scope')  # MXNet 2's; not in 1.9.1


_ERRORS = {'MXNetError': MXNetError, 'KeyError': KeyError, 'AssertionError': AssertionError, 'TypeError': TypeError}


@pytest.mark.parametrize('case, call', [
    ('dump_before_run', lambda: profiler.dump()),
    ('set_state_bad', lambda: profiler.set_state('bogus')),
    ('set_state_bad_process', lambda: profiler.set_state('run', profile_process='bogus')),
    ('set_config_bad_key', lambda: profiler.set_config(bogus=1)),
    ('set_config_bad_bool', lambda: profiler.set_config(profile_all='maybe')),
    ('set_config_bad_period', lambda: profiler.set_config(dump_period='x')),
    ('set_config_positional', lambda: profiler.set_config(True)),
    ('dumps_bad_format', lambda: profiler.dumps(format='xml')),
    ('dumps_bad_sort', lambda: profiler.dumps(sort_by='name')),
    ('dumps_bad_reset', lambda: profiler.dumps(reset='x')),
    ('marker_bad_scope', lambda: profiler.Marker(profiler.Domain('d'), 'm').mark('bogus')),
])
def test_errors_as_mxnet(case, call):
    with pytest.raises(_ERRORS[GOLDEN['errors'][case]]):
        call()


def test_messages_name_the_argument():
    with pytest.raises(MXNetError, match="Cannot find argument 'bogus'"):
        profiler.set_config(bogus=1)
    with pytest.raises(MXNetError, match="profile_all expect boolean but value='maybe'"):
        profiler.set_config(profile_all='maybe')
    with pytest.raises(MXNetError, match="hasn't been run"):
        profiler.dump()


@pytest.mark.parametrize('call', [
    lambda: profiler.set_config(profile_process='server'),
    lambda: profiler.set_state('run', profile_process='server'),
    lambda: profiler.dump(profile_process='server'),
    lambda: profiler.pause(profile_process='server'),
    lambda: profiler.resume(profile_process='server'),
])
def test_server_process_unsupported(call):
    with pytest.raises(MXNetNotImplementedError, match=r"mx\.profiler\.\w+: profile_process='server'"):
        call()


def test_counter_and_marker_statistics_match_mxnet():
    assert profiler.dumps() == GOLDEN['dumps_without_stats'] == ''
    profiler.set_config(profile_all=True, aggregate_stats=True, filename='golden_profile.json')
    assert profiler.dumps() == GOLDEN['dumps_before_run']
    profiler.set_state('run')
    dom = profiler.Domain('mydomain')
    c = dom.new_counter('mycounter', 5)
    c.increment(3)
    c.decrement(1)
    c += 2
    c -= 1
    c.set_value(10)
    c2 = profiler.Counter(dom, 'other')
    c2.set_value(100)
    c2.increment(50)
    dom.new_marker('mymarker').mark()
    profiler.set_state('stop')
    for sort_by in ('total', 'avg', 'min', 'max', 'count'):
        for ascending in (False, True):
            want = GOLDEN['table_%s_%s' % (sort_by, ascending)]
            got = profiler.dumps(sort_by=sort_by, ascending=ascending)
            assert got.startswith('\nProfile Statistics:\n\tNote the difference in units for different entries.\n')
            for cat in ('mydomain', 'mydomain,instant_marker'):
                assert sections(got)[cat] == sections(want)[cat], (sort_by, ascending, cat)
    got = json.loads(profiler.dumps(format='json'))
    assert got['Unit'] == GOLDEN['json']['Unit']
    for cat in ('mydomain', 'mydomain,instant_marker'):
        assert got['Time'][cat] == GOLDEN['json']['Time'][cat]
    profiler.dump()
    with open('golden_profile.json') as f:
        trace = json.load(f)
    assert sorted(trace) == GOLDEN['trace_keys']
    assert [e['args'][e['name']] for e in trace['traceEvents']
            if e.get('ph') == 'C' and e.get('cat') == 'mydomain'] == GOLDEN['trace_counter_values']
    with pytest.raises(MXNetError):  # a finished dump ends output until the next run, as in MXNet
        profiler.dump()


def test_trace_has_mxnet_operator_and_user_names():
    profiler.set_config(profile_all=True, aggregate_stats=True, filename='trace.json')
    a = mx.nd.ones((4, 4))
    data = mx.sym.var('data')
    exe = mx.sym.FullyConnected(data, num_hidden=3, name='fc').simple_bind(mx.cpu(), data=(2, 4))
    profiler.set_state('run')
    assert _profstate.FLAGS.imperative and _profstate.FLAGS.symbolic
    dom = profiler.Domain('mydomain')
    task, frame, event = dom.new_task('mytask'), dom.new_frame('myframe'), profiler.Event('myevent')
    task.start()
    (mx.nd.relu(a + a) * 2).wait_to_read()
    task.stop()
    frame.start()
    exe.forward()[0].wait_to_read()
    frame.stop()
    event.start()
    mx.nd.sum(a, axis=1).wait_to_read()
    event.stop()
    dom.new_marker('mymarker').mark('global')
    profiler.set_state('stop')
    assert not _profstate.FLAGS.imperative
    profiler.dump()
    assert [n for n in os.listdir('.') if n != 'trace.json'] == []  # written atomically: no temporary left
    with open('trace.json') as f:
        trace = json.load(f)
    assert trace['displayTimeUnit'] == 'ms'
    cats = {}
    for e in trace['traceEvents']:
        cats.setdefault(e.get('cat'), set()).add(e['name'])
    assert {'broadcast_add', 'relu', '_mul_scalar', 'FullyConnected', 'sum'} <= cats['operator']
    assert cats['mydomain'] == {'mytask'}
    assert cats['mydomain,frame'] == {'myframe'}
    assert cats['event'] == {'myevent'}
    marker, = [e for e in trace['traceEvents'] if e.get('cat') == 'mydomain,instant_marker']
    assert marker['ph'] == 'i' and marker['s'] == 'g'
    assert any(n.startswith('aten::') for n in cats['cpu_op'])  # torch's own events are kept
    task_ev, = [e for e in trace['traceEvents'] if e['name'] == 'mytask']
    ops = [e for e in trace['traceEvents'] if e['name'] in ('broadcast_add', 'relu', '_mul_scalar')]
    assert all(task_ev['ts'] <= e['ts'] <= task_ev['ts'] + task_ev['dur'] for e in ops)  # nested in the task
    table = sections(profiler.dumps())
    header = 'Name Total Count Time (ms) Min Time (ms) Max Time (ms) Avg Time (ms)'
    assert table['mydomain'][0].split() == header.split()
    assert [r.split()[0] for r in table['mydomain'][2:]] == ['mytask']
    assert {r.split()[0] for r in table['operator'][2:]} >= {'broadcast_add', 'relu', '_mul_scalar', 'FullyConnected'}
    row = table['operator'][2].split()
    assert int(row[1]) >= 1 and float(row[2]) >= float(row[3])  # Total Count, Time (ms) >= Min


def test_pause_resume_and_dump_not_finished():
    profiler.set_config(filename='p.json')
    a = mx.nd.ones((2, 2))
    profiler.set_state('run')
    profiler.pause()
    assert not _profstate.FLAGS.imperative
    (a - a).wait_to_read()  # not recorded
    profiler.resume()
    (a * a).wait_to_read()
    profiler.dump(finished=False)  # a complete file; collecting goes on
    with open('p.json') as f:
        names = {e['name'] for e in json.load(f)['traceEvents'] if e.get('cat') == 'operator'}
    assert names == {'broadcast_mul'}
    (a / a).wait_to_read()
    profiler.set_state('stop')
    profiler.dump()
    with open('p.json') as f:
        names = {e['name'] for e in json.load(f)['traceEvents'] if e.get('cat') == 'operator'}
    assert names == {'broadcast_mul', 'broadcast_div'}


def test_config_semantics():
    with open('profile.json', 'w') as f:
        f.write('old')
    profiler.set_config(profile_imperative=False, profile_symbolic=False, profile_api='False')
    assert not os.path.exists('profile.json')  # set_config removes the file, as MXNet does
    assert profiler._P.config['filename'] == 'profile.json'  # each call starts from MXNet's defaults
    profiler.set_state('run')
    assert not _profstate.FLAGS.imperative and not _profstate.FLAGS.symbolic
    (mx.nd.ones((2, 2)) + 1).wait_to_read()
    profiler.set_state('stop')
    profiler.dump()
    with open('profile.json') as f:
        assert not [e for e in json.load(f)['traceEvents'] if e.get('cat') == 'operator']
    assert profiler.dumps() == ''  # no aggregate_stats


def test_deprecated_forms():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        profiler.profiler_set_config(mode='all', filename='old.json')
        profiler.profiler_set_state('run')
        profiler.profiler_set_state('stop')
        profiler.dump_profile()
    assert [str(x.message).split('()')[0] for x in w] == [
        'profiler.profiler_set_config', 'profiler.profiler_set_state', 'profiler.profiler_set_state',
        'profiler.dump_profile']
    assert os.path.exists('old.json')
    with pytest.raises(MXNetError, match='profile_bogus'), pytest.warns(UserWarning, match='deprecated'):
        profiler.profiler_set_config(mode='bogus')


def test_file_written_at_exit(tmp_path):
    # MXNet writes the profile when the process ends if it was not dumped (example/profiler scripts rely on it)
    script = ('import mxcompat as mx\nmx.profiler.set_config(filename="exit.json")\nmx.profiler.set_state("run")\n'
              'mx.nd.relu(mx.nd.ones((2, 2))).wait_to_read()\n')
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS='1')
    r = subprocess.run([sys.executable, '-c', script], cwd=str(tmp_path), env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    with open(tmp_path / 'exit.json') as f:
        assert 'relu' in {e['name'] for e in json.load(f)['traceEvents'] if e.get('cat') == 'operator'}


def test_a_session_prints_nothing(tmp_path):
    # MXNet's profiler is silent; torch's kineto prints profiler_start/profiler_stop lines unless told its level
    script = ('import mxcompat as mx\nmx.profiler.set_config(filename="q.json")\nmx.profiler.set_state("run")\n'
              'mx.nd.relu(mx.nd.ones((2, 2))).wait_to_read()\nmx.profiler.set_state("stop")\nmx.profiler.dump()\n')
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS='1')
    env.pop('KINETO_LOG_LEVEL', None)
    r = subprocess.run([sys.executable, '-c', script], cwd=str(tmp_path), env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert (r.stdout, r.stderr) == ('', '')


def test_hybridized_block_operators_are_named():
    net = mx.gluon.nn.Dense(3, activation='relu')
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((2, 4))
    net(x).wait_to_read()  # traced before profiling
    profiler.set_config(filename='h.json')
    profiler.set_state('run')
    net(x).wait_to_read()
    profiler.set_state('stop')
    profiler.dump()
    with open('h.json') as f:
        names = {e['name'] for e in json.load(f)['traceEvents'] if e.get('cat') == 'operator'}
    assert {'FullyConnected', 'Activation'} <= names
