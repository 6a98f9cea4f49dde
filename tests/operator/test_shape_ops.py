"""Shape operators (mxcompat/operator/shape_ops.py): goldens recorded from MXNet 1.9.1
(tests/fixtures/shape_ops/gen_shape_ops.py) for values, dtypes, shapes, errors and gradients; numpy references over
shapes and dtypes; registry metadata; outputs never aliasing their inputs."""
import importlib.util
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetValueError
from mxcompat.operator import registry
from mxcompat.operator.shape_ops import infer_reshape

_spec = importlib.util.spec_from_file_location(
    'shape_ops_replay', os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'shape_ops', 'shape_ops_replay.py'))
replay = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(replay)

test_against_mxnet, test_shape_inference_matches_mxnet = replay.golden_tests('shape')
DTYPES = ('float32', 'float64', 'float16', 'int32', 'int64')
nd = mx.nd


# ---- numpy references, table-driven over dtypes --------------------------------------------------------------------
NUMPY_CASES = [
    ('reshape', (2, 3, 4), lambda x: nd.reshape(x, shape=(4, 6)), lambda a: a.reshape(4, 6)),
    ('reshape_codes', (2, 3, 4), lambda x: nd.reshape(x, shape=(0, -1)), lambda a: a.reshape(2, 12)),
    ('transpose', (2, 3, 4), lambda x: nd.transpose(x), lambda a: a.T),
    ('transpose_axes', (2, 3, 4), lambda x: nd.transpose(x, axes=(1, 2, 0)), lambda a: a.transpose(1, 2, 0)),
    ('swapaxes', (2, 3, 4), lambda x: nd.swapaxes(x, dim1=0, dim2=-1), lambda a: np.swapaxes(a, 0, -1)),
    ('expand_dims', (2, 3), lambda x: nd.expand_dims(x, axis=-1), lambda a: np.expand_dims(a, -1)),
    ('squeeze', (1, 3, 1), lambda x: nd.squeeze(x), lambda a: np.squeeze(a)),
    ('squeeze_axis', (1, 3, 1), lambda x: nd.squeeze(x, axis=2), lambda a: np.squeeze(a, 2)),
    ('flatten', (2, 3, 4), lambda x: nd.flatten(x), lambda a: a.reshape(2, 12)),
    ('concat', (2, 3), lambda x: nd.concat(x, x * 2, dim=0), lambda a: np.concatenate([a, a * 2], 0)),
    ('stack', (2, 3), lambda x: nd.stack(x, x + 1, axis=2), lambda a: np.stack([a, a + 1], 2)),
    ('tile', (2, 3), lambda x: nd.tile(x, reps=(2, 1, 3)), lambda a: np.tile(a, (2, 1, 3))),
    ('repeat', (2, 3), lambda x: nd.repeat(x, repeats=3, axis=1), lambda a: np.repeat(a, 3, 1)),
    ('repeat_flat', (2, 3), lambda x: nd.repeat(x, repeats=2), lambda a: np.repeat(a, 2)),
    ('flip', (2, 3, 4), lambda x: nd.flip(x, axis=(0, 2)), lambda a: a[::-1, :, ::-1]),
    ('broadcast_to', (2, 1, 3), lambda x: nd.broadcast_to(x, shape=(2, 4, 3)),
     lambda a: np.broadcast_to(a, (2, 4, 3))),
    ('broadcast_axis', (1, 3, 1), lambda x: nd.broadcast_axis(x, axis=(0, 2), size=(2, 5)),
     lambda a: np.broadcast_to(a, (2, 3, 5))),
    ('broadcast_like', (1, 3), lambda x: nd.broadcast_like(x, nd.zeros((4, 3))), lambda a: np.broadcast_to(a, (4, 3))),
    ('reshape_like', (2, 6), lambda x: nd.reshape_like(x, nd.zeros((3, 4))), lambda a: a.reshape(3, 4)),
    ('diag', (3, 4), lambda x: nd.diag(x, k=1), lambda a: np.diag(a, 1)),
    ('diag_axes', (2, 3, 4), lambda x: nd.diag(x, k=-1, axis1=2, axis2=1), lambda a: np.diagonal(a, -1, 2, 1)),
    ('diag_1d', (3,), lambda x: nd.diag(x, k=-2), lambda a: np.diag(a, -2)),
]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('name, shape, f, ref', NUMPY_CASES, ids=[c[0] for c in NUMPY_CASES])
def test_against_numpy(name, shape, f, ref, dtype):
    a = replay.data(shape, dtype)
    replay.check_equal(f(nd.array(a, dtype=dtype)), ref(a))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('kw, sq', [({'num_outputs': 2, 'axis': 1}, False), ({'num_outputs': 4, 'axis': -1}, True),
                                     ({'num_outputs': 2, 'axis': 0}, True)])
def test_split_against_numpy(dtype, kw, sq):
    a = replay.data((2, 6, 4), dtype)
    if sq and a.shape[kw['axis']] != kw['num_outputs']:
        with pytest.raises(MXNetError, match='SliceChannel'):
            nd.split(nd.array(a, dtype=dtype), squeeze_axis=True, **kw)
        return
    outs = nd.split(nd.array(a, dtype=dtype), squeeze_axis=sq, **kw)
    want = np.split(a, kw['num_outputs'], axis=kw['axis'])
    assert len(outs) == len(want)
    for o, w in zip(outs, want):
        replay.check_equal(o, np.squeeze(w, kw['axis']) if sq else w)


@pytest.mark.parametrize('dtype', ('float32', 'float64', 'float16'))
@pytest.mark.parametrize('mode, np_mode', [('constant', 'constant'), ('edge', 'edge'), ('reflect', 'reflect')])
@pytest.mark.parametrize('shape, width', [((2, 1, 3, 4), (0, 0, 0, 0, 2, 1, 0, 3)),
                                          ((1, 2, 3, 3, 4), (0, 0, 0, 0, 1, 1, 2, 0, 0, 3))])
def test_pad_against_numpy(dtype, mode, np_mode, shape, width):
    a = replay.data(shape, dtype)
    pairs = [(width[2 * i], width[2 * i + 1]) for i in range(len(shape))]
    extra = {'constant_values': 0.5} if mode == 'constant' else {}
    got = nd.pad(nd.array(a, dtype=dtype), mode=mode, pad_width=width,
                 **({'constant_value': 0.5} if mode == 'constant' else {}))
    replay.check_equal(got, np.pad(a, pairs, mode=np_mode, **extra))


@pytest.mark.parametrize('dtype', DTYPES)
def test_depth_space_round_trip(dtype):
    a = replay.data((2, 12, 3, 2), dtype)
    x = nd.array(a, dtype=dtype)
    d2s = nd.depth_to_space(x, block_size=2)
    b = 2
    want = a.reshape(2, b, b, 3, 3, 2).transpose(0, 3, 4, 1, 5, 2).reshape(2, 3, 6, 4)
    replay.check_equal(d2s, want)
    replay.check_equal(nd.space_to_depth(d2s, block_size=2), a)


# ---- reshape codes (also used by NDArray.reshape) ------------------------------------------------------------------
@pytest.mark.parametrize('dshape, shape, reverse, want', [
    ((2, 3, 4), (4, 0, -1), False, (4, 3, 2)),
    ((2, 3, 4), (-2, 1, 1), False, (2, 3, 4, 1, 1)),
    ((2, 3, 4), (-3, -2), False, (6, 4)),
    ((2, 3, 4), (-4, 1, 2, -3), False, (1, 2, 12)),
    ((2, 3, 4), (-4, -1, 1, 0, 0), False, (2, 1, 3, 4)),
    ((10, 5, 4), (-1, 0), True, (50, 4)),
    ((10, 5, 4), (-1, 0), False, (40, 5)),
])
def test_infer_reshape(dshape, shape, reverse, want):
    assert infer_reshape(dshape, shape, reverse) == want
    x = nd.zeros(dshape)
    assert nd.reshape(x, shape=shape, reverse=reverse).shape == want
    assert x.reshape(shape, reverse=reverse).shape == want


def test_reshape_to_another_size_raises():
    # MXNet 1.9.1 returns a window of the data here (its size check is compiled out); mxcompat raises.
    with pytest.raises(MXNetValueError, match='Reshape'):
        nd.reshape(nd.zeros((2, 3)), shape=(4,))
    # the NDArray method is MXNet's MXNDArrayReshape64: a larger target fails its engine check (MXNetError), a
    # smaller one Python's ValueError (tests/ndarray/test_ndarray.py)
    with pytest.raises(MXNetError, match='target shape size is larger than the current shape'):
        nd.zeros((2, 3)).reshape((7,))
    with pytest.raises(MXNetValueError, match='Reshape'):
        nd.reshape(nd.zeros((2, 3)))


# ---- outputs are fresh arrays, as MXNet's --------------------------------------------------------------------------
@pytest.mark.parametrize('f', [
    lambda x: nd.reshape(x, shape=(-1,)), lambda x: nd.transpose(x), lambda x: nd.expand_dims(x, axis=0),
    lambda x: nd.flatten(x), lambda x: nd.swapaxes(x, dim1=0, dim2=1), lambda x: nd.squeeze(x),
    lambda x: nd.split(x, num_outputs=3)[1], lambda x: nd.broadcast_to(x, shape=(2, 3)),
    lambda x: nd.diag(x), lambda x: nd.reshape_like(x, nd.zeros((3, 2))), lambda x: nd.tile(x, reps=()),
    lambda x: nd._internal._split_v2(x, indices=(0, 1), axis=1)[0]])
def test_outputs_do_not_alias_inputs(f):
    x = nd.array(np.arange(6).reshape(2, 3))
    before = x.asnumpy().copy()
    y = f(x)
    y[:] = -1
    np.testing.assert_array_equal(x.asnumpy(), before)


# ---- registry metadata ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize('alias, name', [
    ('reshape', 'Reshape'), ('swapaxes', 'SwapAxis'), ('flatten', 'Flatten'), ('concat', 'Concat'),
    ('split', 'SliceChannel'), ('pad', 'Pad'), ('flip', 'reverse'), ('broadcast_axes', 'broadcast_axis'),
    ('_npi_split', '_split_v2')])
def test_aliases(alias, name):
    assert registry.get(alias) is registry.get(name)
    assert registry.get(alias).name == name


def test_defaults_match_mxnet():
    assert registry.get('SliceChannel').parse_attrs({'num_outputs': 2}) == {
        'num_outputs': 2, 'axis': 1, 'squeeze_axis': False}
    assert registry.get('Concat').parse_attrs({'num_args': 2})['dim'] == 1
    assert registry.get('stack').parse_attrs({'num_args': 2})['axis'] == 0
    assert registry.get('SwapAxis').parse_attrs({}) == {'dim1': 0, 'dim2': 0}
    assert registry.get('diag').parse_attrs({}) == {'k': 0, 'axis1': 0, 'axis2': 1}
    assert registry.get('Pad').parse_attrs({'mode': 'edge', 'pad_width': '(0,0,0,0,1,1,1,1)'})['constant_value'] == 0
    assert registry.get('repeat').parse_attrs({'repeats': '2'}) == {'repeats': 2, 'axis': None}
    assert registry.get('reshape_like').parse_attrs({'lhs_begin': 'None', 'rhs_end': '-1'}) == {
        'lhs_begin': None, 'lhs_end': None, 'rhs_begin': None, 'rhs_end': -1}
    assert registry.get('broadcast_like').parse_attrs({})['lhs_axes'] is None


def test_required_and_choices():
    with pytest.raises(MXNetValueError, match='expand_dims'):
        nd.expand_dims(nd.zeros((2,)))
    with pytest.raises(MXNetValueError, match='Pad'):
        nd.pad(nd.zeros((1, 1, 2, 2)), mode='wrap', pad_width=(0, 0, 0, 0, 1, 1, 1, 1))
    with pytest.raises(MXNetValueError, match='SliceChannel'):
        nd.split(nd.zeros((2, 2)), num_outputs=2, bogus=1)


def test_split_output_count_follows_attributes():
    op = registry.get('SliceChannel')
    assert op.n_outputs(op.parse_attrs({'num_outputs': 5})) == 5
    op = registry.get('_split_v2')
    assert op.n_outputs(op.parse_attrs({'indices': (0, 2, 4)})) == 3
    assert op.n_outputs(op.parse_attrs({'indices': (0,), 'sections': 4})) == 4


def test_gradient_of_broadcast_and_tile_sums():
    x = nd.array(np.arange(3).reshape(1, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = nd.broadcast_to(x, shape=(4, 3)) * 2 + nd.tile(x, reps=(4, 1))
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), np.full((1, 3), 12.0))


# ---- shapes inferred back from consumers (goldens: tests/fixtures/ops_conformance) -------------------------------
def _conformance(key):
    import json
    with open(os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'ops_conformance', 'goldens.json')) as f:
        return json.load(f)[key]


def test_reshape_input_inferred_from_output_matches_mxnet():
    for case in _conformance('reshape_back'):
        dst = tuple(case['out'])
        net = mx.sym.elemwise_add(mx.sym.Reshape(mx.sym.var('x'), shape=tuple(case['shape']),
                                                 reverse=case['reverse']), mx.sym.ones(shape=dst))
        ins, outs, _ = net.infer_shape(x=tuple(case['src']))
        assert (ins[0], outs[0]) == (tuple(case['in']), dst), case


def test_transpose_input_inferred_from_output_matches_mxnet():
    for case in _conformance('transpose_back'):
        net = mx.sym.transpose(mx.sym.var('x'), axes=tuple(case['axes'])) + mx.sym.ones(shape=tuple(case['known']))
        ins, outs, _ = net.infer_shape(x=(0,) * len(case['known']))
        assert (ins[0], outs[0]) == (tuple(case['in']), tuple(case['out'])), case


@pytest.mark.parametrize('op', ['depth_to_space', 'space_to_depth'])
@pytest.mark.parametrize('shape', [(1, 4, 0, 2), (1, 0, 2, 2), (0, 4, 2, 2)])
def test_depth_space_reject_zero_dimensions(op, shape):
    with pytest.raises(MXNetValueError, match=op):
        getattr(nd, op)(nd.empty(shape), 2)


@pytest.mark.parametrize('spec, axis', [((1, 3), 1), (3, 1), ((2,), 0), (2, -1)])
def test_sym_split_v2_matches_numpy(spec, axis):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    want = np.split(a, spec if isinstance(spec, int) else list(spec), axis=axis)
    s = mx.sym.split_v2(mx.sym.var('data'), indices_or_sections=spec, axis=axis)
    grads = nd.zeros(a.shape)
    exe = s.bind(mx.cpu(), {'data': nd.array(a)}, args_grad={'data': grads})
    outs = exe.forward(is_train=True)
    assert len(outs) == len(want)
    for o, w in zip(outs, want):
        np.testing.assert_array_equal(o.asnumpy(), w)
    exe.backward([nd.ones(w.shape) * (i + 1) for i, w in enumerate(want)])
    np.testing.assert_array_equal(grads.asnumpy(), np.concatenate([np.full(w.shape, i + 1.0) for i, w in
                                                                   enumerate(want)], axis=axis))
    with pytest.raises(MXNetValueError, match='indices_or_sections'):
        mx.sym.split_v2(mx.sym.var('data'), [1, 2])
