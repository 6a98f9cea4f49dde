"""mx.random's CPU streams against MXNet 1.9.1 (tests/fixtures/random_streams, written by gen_random_streams.py from
the cases in streams_cases.py): every CPU sampler after ``mx.random.seed`` bit for bit (sizes across the 64 values
an engine fills and the 1,024 engines, float16/32/64, the integer samplers, the single engine's shuffle and
multinomial, Dropout's mask), initializers and a tiny training run to float tolerance, what a fresh process draws
first; and the switch to torch's generators."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import mxcompat as mx
from tests._fixtures import FIXTURES, load_generator

# every test on the compiled generator and on the numpy code (tests/conftest.py)
pytestmark = pytest.mark.usefixtures('random_engines')

CASES = load_generator('random_streams', 'streams_cases.py')
with open(os.path.join(FIXTURES, 'random_streams', 'random_streams.json')) as _f:
    RECORD = json.load(_f)
GOLDEN = np.load(os.path.join(FIXTURES, 'random_streams', 'random_streams.npz'))
ROOT = os.path.dirname(FIXTURES.rstrip(os.sep).rsplit(os.sep, 1)[0])


def _same_up_to_signs(got, want, name):
    """Orthogonal's weights: MXNet's random matrix, factorised by numpy's SVD, whose LAPACK may flip the sign of a
    singular vector (a row of the weight viewed as 2-D when it has no more rows than columns, else a column)."""
    g, w = got.reshape(got.shape[0], -1), want.reshape(want.shape[0], -1)
    axis = 1 if g.shape[0] <= g.shape[1] else 0
    signs = np.sign(np.sum(g * w, axis=axis, keepdims=True))
    np.testing.assert_allclose(g * np.where(signs == 0, 1, signs), w, rtol=2e-5, atol=1e-6, err_msg=name)


def _same_bits(got, want, name):
    assert got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, got.shape, want.dtype, want.shape)
    if got.dtype.kind == 'f':
        bits = 'u%d' % got.dtype.itemsize
        differ = np.ascontiguousarray(got).view(bits) != np.ascontiguousarray(want).view(bits)
    else:
        differ = got != want
    assert not differ.any(), '%s: %d of %d values differ, first at %s: %r vs MXNet %r' % (
        name, differ.sum(), differ.size, np.argwhere(differ)[0], got[differ][:3], want[differ][:3])


@pytest.mark.parametrize('name', sorted(CASES.CASES))
def test_matches_mxnet(name):
    out = CASES.CASES[name](mx)
    rec = RECORD['cases'][name]
    arrays = out if rec['list'] else [out]
    assert len(arrays) == len(rec['arrays'])
    for i, (got, want) in enumerate(zip(arrays, rec['arrays'])):
        label = '%s[%d]' % (name, i)
        if 'npz' in want:
            if name.startswith('init/Orthogonal'):
                _same_up_to_signs(got, GOLDEN[want['npz']], label)
            elif name in CASES.TOLERANT:
                np.testing.assert_allclose(got, GOLDEN[want['npz']], rtol=2e-5, atol=1e-6, err_msg=label)
            else:
                _same_bits(got, GOLDEN[want['npz']], label)
        else:
            mine = CASES.digest(got)
            assert (mine['dtype'], mine['shape']) == (want['dtype'], want['shape']), label
            assert mine['head'] == want['head'] and mine['sha256'] == want['sha256'], \
                '%s: the values differ from MXNet\'s (first ones %r, MXNet %r)' % (label, mine['head'], want['head'])


def _fresh_process(env_extra=None):
    code = CASES.FRESH.replace('import mxnet as mx', 'import mxcompat as mx')
    env = dict(os.environ, PYTHONPATH=ROOT, **(env_extra or {}))
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120, check=True).stdout.strip()


def test_fresh_processes_draw_mxnets_first_numbers():
    first, second = _fresh_process(), _fresh_process()
    assert first == second == RECORD['fresh']
    assert eval(first)[0][0] == np.float32(0.5488135)  # noqa: S307 (our own repr of lists of floats)


def test_torch_streams_are_an_explicit_switch():
    assert mx.random.get_streams() == 'mxnet'
    prev = mx.random.set_streams('torch')
    try:
        assert prev == 'mxnet' and mx.random.get_streams() == 'torch'
        mx.random.seed(11)
        a = mx.nd.random.uniform(-0.3, 0.7, shape=(65,)).asnumpy()
        mx.random.seed(11)
        b = mx.nd.random.uniform(-0.3, 0.7, shape=(65,)).asnumpy()
        assert (a == b).all()  # torch's generator, seeded by mx.random.seed
        assert not (a == GOLDEN[RECORD['cases']['uniform/65/float32']['arrays'][0]['npz']]).all()
    finally:
        mx.random.set_streams('mxnet')
    with pytest.raises(ValueError, match="'mxnet' or 'torch'"):
        mx.random.set_streams('philox')


def test_environment_variable_selects_torch_streams():
    code = 'import mxcompat as mx; print(mx.random.get_streams()); print(mx.nd.random.uniform().asnumpy()[0])'
    env = dict(os.environ, PYTHONPATH=ROOT, MXCOMPAT_RANDOM='torch')
    run = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    streams, first = run.stdout.split()
    assert streams == 'torch' and float(first) != np.float32(0.5488135)
    env['MXCOMPAT_RANDOM'] = 'philox'
    bad = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=120)
    assert bad.returncode != 0 and 'MXCOMPAT_RANDOM' in bad.stderr


@pytest.mark.oracle
def test_a_seeded_script_prints_mxnets_numbers(tmp_path):
    from tests.conftest import run_both
    script = ('import mxnet as mx\n'
              'mx.random.seed(123)\n'
              'print(mx.nd.random.normal(shape=(3, 70)).asnumpy().tolist())\n'
              'print(mx.nd.random.randint(0, 1000, shape=(5,)).asnumpy().tolist())\n'
              'print(mx.nd.random.shuffle(mx.nd.arange(12)).asnumpy().tolist())\n')
    ours, theirs = run_both(script, tmp_path)
    assert ours.stdout == theirs.stdout
