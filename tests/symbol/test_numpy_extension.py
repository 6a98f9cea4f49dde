"""``mx.sym.npx``'s nonzero, constraint_check, image and random against MXNet 1.9.1's goldens
(tests/fixtures/sym_np_random; their symbols' JSON is checked in test_numpy_random.py)."""
import json
import os

import pytest

import mxcompat as mx

from tests._fixtures import FIXTURES, load_generator
from tests.symbol.test_numpy_random import _same

pytestmark = pytest.mark.usefixtures('np_mode')  # (NumPy mode for every test here)

CASES = load_generator('sym_np_random', 'sym_np_random_cases.py')
with open(os.path.join(FIXTURES, 'sym_np_random', 'sym_np_random_runs.json')) as _f:
    RUNS = json.load(_f)


@pytest.mark.parametrize('name,body,data', CASES.NPX, ids=[c[0] for c in CASES.NPX])
def test_npx_values(name, body, data):
    theirs = RUNS['npx'][name]
    if 'error' in theirs:
        with pytest.raises(ValueError, match='must be positive'):
            CASES.run_draw(mx, body, data)[1].asnumpy()
        return
    blk, out = CASES.run_draw(mx, body, data)
    assert blk._cached_graph, 'the block ran imperatively'
    _same(out.asnumpy(), theirs, out.dtype.kind in 'iub')


def test_npx_module_names_are_mxnets():
    assert sorted(mx.sym.npx.random.__all__) == ['bernoulli', 'normal_n', 'uniform_n']
    assert mx.sym.npx.image.__all__ == [
        'adjust_lighting', 'crop', 'flip_left_right', 'flip_top_bottom', 'normalize', 'random_brightness',
        'random_color_jitter', 'random_contrast', 'random_flip_left_right', 'random_flip_top_bottom', 'random_hue',
        'random_lighting', 'random_saturation', 'resize', 'to_tensor']
    for name in ('nonzero', 'constraint_check'):
        assert callable(getattr(mx.sym.npx, name))
    with pytest.raises(mx.base.MXNetNotImplementedError, match='mx.sym.npx.seed'):
        mx.sym.npx.seed


def test_nonzero_shape_is_known_when_it_runs():
    x = mx.sym.var('x').as_np_ndarray()
    _, out, _ = mx.sym.npx.nonzero(x).infer_shape_partial(x=(2, 3))
    assert out == [None]


def test_unknown_names_are_attribute_errors():
    # as with MXNet 1.9.1, hasattr and getattr with a default answer for a name these modules lack (code probing for
    # optional functions); the error still names the gap
    x = mx.sym.var('x').as_np_ndarray()
    for obj in (mx.sym.np, mx.sym.np.linalg, mx.sym.np.random, mx.sym.npx, x):
        assert getattr(obj, 'no_such_name', None) is None and not hasattr(obj, 'no_such_name')
        with pytest.raises(mx.base.MXNetNotImplementedError, match='no_such_name'):
            obj.no_such_name
