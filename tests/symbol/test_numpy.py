"""``mx.sym.np``: NumPy-mode symbols (mxcompat/symbol/numpy)."""
import re

import mxcompat as mx


def test_symbol_repr_names_its_class():
    # MXNet 1.9.1: "<_Symbol a> <Symbol b>" and "<Symbol group [c, d]> <_Symbol group [<_Symbol c>, <_Symbol d>]>"
    a = mx.sym.var('a').as_np_ndarray()
    group = mx.sym.Group([mx.sym.var('c'), mx.sym.var('d')])
    assert (repr(a), repr(mx.sym.var('b'))) == ('<_Symbol a>', '<Symbol b>')
    assert repr(group) == '<Symbol group [c, d]>'
    assert repr(group.as_np_ndarray()) == '<_Symbol group [<_Symbol c>, <_Symbol d>]>'
    assert re.fullmatch(r'<_Symbol add_scalar\d+>', repr(mx.sym.np.add(a, 1)))  # MXNet: <_Symbol add_scalar0>


def _hybrid_vs_eager(fn, *arrays):
    """``fn(F, *arrays)`` hybridized (mx.sym.np) and imperative (mx.np) give the same results."""
    import numpy as onp

    class Block(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, *xs):
            return fn(F, *xs)
    prev = mx.util.is_np_array()
    mx.npx.set_np()
    try:
        eager = Block()(*arrays)
        blk = Block()
        blk.hybridize()
        hybrid = blk(*arrays)
        assert blk._cached_graph, 'the block ran imperatively'
    finally:
        mx.npx.set_np(prev, prev)
    eager = eager if isinstance(eager, (list, tuple)) else [eager]
    hybrid = hybrid if isinstance(hybrid, (list, tuple)) else [hybrid]
    assert len(eager) == len(hybrid)
    for e, h in zip(eager, hybrid):
        assert (e.shape, e.dtype) == (h.shape, h.dtype)
        onp.testing.assert_allclose(h.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)


def test_symbols_of_products_rolls_and_splits():
    import numpy as onp
    rng = onp.random.RandomState(0)
    a = mx.np.array(rng.uniform(-1, 1, (2, 3, 4)).astype('float32'))
    b = mx.np.array(rng.uniform(-1, 1, (4, 3, 2)).astype('float32'))
    v = mx.np.array(rng.uniform(-1, 1, (5,)).astype('float32'))
    _hybrid_vs_eager(lambda F, x, y: F.np.tensordot(x, y, ((1, 2), (1, 0))), a, b)
    _hybrid_vs_eager(lambda F, x, y: F.np.tensordot(x, y, 1), a, b)
    _hybrid_vs_eager(lambda F, x, y: F.np.inner(x, y), a, a)
    _hybrid_vs_eager(lambda F, x, y: F.np.outer(x, y), v, a)
    _hybrid_vs_eager(lambda F, x, y: F.np.vdot(x, y), a, a)
    _hybrid_vs_eager(lambda F, x: F.np.roll(x, (1, -2), axis=(0, 2)), a)
    _hybrid_vs_eager(lambda F, x: F.np.roll(x, 3), a)
    _hybrid_vs_eager(lambda F, x: F.np.hsplit(x, [1, 3]), v)  # (a 1-D array splits along axis 0)
    _hybrid_vs_eager(lambda F, x: F.np.hsplit(x, 3), a)
    _hybrid_vs_eager(lambda F, x: F.np.split(x, [1, 2], axis=0), mx.np.zeros((0, 3)))


def test_symbols_of_clip_arange_full():
    x = mx.np.array([[-2.0, 0.5, 3.0]])
    _hybrid_vs_eager(lambda F, x: F.np.clip(x, None, 1.0), x)
    _hybrid_vs_eager(lambda F, x: F.np.clip(x, 0.0, None), x)
    _hybrid_vs_eager(lambda F, x: x + F.np.arange(1, 7, None)[:3], x)
    _hybrid_vs_eager(lambda F, x: F.np.full((2, 3), x[0, 1]), x)
    _hybrid_vs_eager(lambda F, x: F.np.full_like(x, True), x)


def test_symbols_of_linalg():
    import numpy as onp
    spd = mx.np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    for name in ('det', 'inv', 'cholesky', 'slogdet', 'eigvalsh', 'eigh', 'pinv'):
        _hybrid_vs_eager(lambda F, x, name=name: getattr(F.np.linalg, name)(x), spd)
    _hybrid_vs_eager(lambda F, x, y: F.np.linalg.solve(x, y), spd, spd[:, :2])
    t = mx.np.array((onp.eye(6) * 2 + 0.1).reshape(6, 2, 3).astype('float32'))
    _hybrid_vs_eager(lambda F, x: F.np.linalg.tensorinv(x, ind=1), t)
    try:
        mx.sym.np.linalg.matrix_power
    except mx.base.MXNetNotImplementedError as e:
        assert 'mx.sym.np.linalg.matrix_power' in str(e)
    else:
        raise AssertionError('expected MXNetNotImplementedError')


def test_hybridized_dot_shapes_of_b():
    # a 1-D b keeps its shape; a deferred weight of shape (0, 4) gets its first dimension from the data
    v = mx.np.array([1.0, 2.0, 3.0])
    _hybrid_vs_eager(lambda F, x, y: F.np.dot(x, y), mx.np.ones((2, 3)), v)

    class Dense(mx.gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.w = self.params.get('w', shape=(0, 4), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return x.dot(w)
    prev = mx.util.is_np_array()
    mx.npx.set_np()
    try:
        blk = Dense()
        blk.initialize()
        blk.hybridize()
        assert blk(mx.np.ones((2, 3))).shape == (2, 4)
        assert blk.w.shape == (3, 4)
    finally:
        mx.npx.set_np(prev, prev)
