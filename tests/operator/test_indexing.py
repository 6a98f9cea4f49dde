"""Indexing, slicing, ordering and sequence operators (mxcompat/operator/indexing.py): goldens recorded from MXNet
1.9.1 (tests/fixtures/shape_ops/gen_shape_ops.py: take/pick modes, sort/topk ties, one_hot dtypes, SequenceMask,
negative-step slices, errors, gradients), numpy references over dtypes, and the documented gaps."""
import importlib.util
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetIndexError, MXNetNotImplementedError, MXNetValueError
from mxcompat.operator import registry

_spec = importlib.util.spec_from_file_location(
    'shape_ops_replay', os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'shape_ops', 'shape_ops_replay.py'))
replay = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(replay)

test_against_mxnet, test_shape_inference_matches_mxnet = replay.golden_tests('index')
DTYPES = ('float32', 'float64', 'float16', 'int32', 'int64')
nd = mx.nd


# ---- numpy references ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('begin, end, step', [
    ((1, None), (None, -1), ()), ((None, None, None), (None, None, None), (-1, 2, -3)),
    ((3, 0), (0, 4), (-1, 1)), ((-2,), (None,), (-2,)), ((0, 5), (4, None), (3, -2))])
def test_slice_against_numpy(dtype, begin, end, step):
    a = replay.data((4, 5, 6), dtype)
    steps = step or (None,) * len(begin)
    key = tuple(slice(b, e, s) for b, e, s in zip(begin, end, steps))
    replay.check_equal(nd.slice(nd.array(a, dtype=dtype), begin=begin, end=end, step=step), a[key])


@pytest.mark.parametrize('dtype', DTYPES)
def test_slice_axis_and_like_against_numpy(dtype):
    a = replay.data((4, 5, 6), dtype)
    x = nd.array(a, dtype=dtype)
    replay.check_equal(nd.slice_axis(x, axis=-2, begin=-4, end=None), a[:, -4:])
    replay.check_equal(nd.slice_axis(x, axis=0, begin=1, end=-1), a[1:-1])
    replay.check_equal(nd.slice_like(x, nd.zeros((2, 3, 4))), a[:2, :3, :4])
    replay.check_equal(nd.slice_like(x, nd.zeros((9, 3)), axes=(1,)), a[:, :3])


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('mode', ['clip', 'wrap'])
@pytest.mark.parametrize('axis', [0, 1, -1])
def test_take_against_numpy(dtype, mode, axis):
    a = replay.data((4, 5, 3), dtype)
    idx = np.array([[0, 7, -2], [3, -9, 1]])
    got = nd.take(nd.array(a, dtype=dtype), nd.array(idx, dtype='int32'), axis=axis, mode=mode)
    replay.check_equal(got, np.take(a, idx, axis=axis, mode=mode))


@pytest.mark.parametrize('dtype', DTYPES)
def test_gather_scatter_nd_against_numpy(dtype):
    a = replay.data((3, 4, 2), dtype)
    idx = np.array([[[0, 2], [1, -1]], [[3, 0], [-4, 2]]])
    replay.check_equal(nd.gather_nd(nd.array(a, dtype=dtype), nd.array(idx)), a[idx[0], idx[1]])
    vals = replay.data((3, 2), dtype, 1)
    sidx = np.array([[0, 2, 1], [3, 0, 1]])
    want = np.zeros((3, 4, 2), dtype)
    want[sidx[0], sidx[1]] = vals
    replay.check_equal(nd.scatter_nd(nd.array(vals, dtype=dtype), nd.array(sidx, dtype='int64'), shape=(3, 4, 2)), want)


@pytest.mark.parametrize('dtype', ('float32', 'float64', 'float16', 'int32', 'int64', 'uint8', 'int8'))
def test_one_hot_against_numpy(dtype):
    idx = np.array([[0, 3, 5], [-1, 2, 1]])
    want = np.where(np.arange(4) == idx[..., None], 7, -2).astype(dtype)
    replay.check_equal(nd.one_hot(nd.array(idx), depth=4, on_value=7, off_value=-2, dtype=dtype), want)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('axis, keepdims, mode', [(-1, False, 'clip'), (0, True, 'wrap'), (1, False, 'wrap')])
def test_pick_against_numpy(dtype, axis, keepdims, mode):
    a = replay.data((3, 4, 5), dtype)
    n = a.shape[axis]
    rs = np.random.RandomState(2)
    shape = list(a.shape)
    shape[axis] = 1
    idx = rs.randint(-7, 9, size=shape)
    idx_np = np.clip(idx, 0, n - 1) if mode == 'clip' else np.mod(idx, n)
    want = np.take_along_axis(a, idx_np, axis=axis)
    index = idx if keepdims else np.squeeze(idx, axis)
    got = nd.pick(nd.array(a, dtype=dtype), nd.array(index), axis=axis, keepdims=keepdims, mode=mode)
    replay.check_equal(got, want if keepdims else np.squeeze(want, axis))


@pytest.mark.parametrize('index_dtype', ('float32', 'int64'))
@pytest.mark.parametrize('axis, keepdims', [(-1, False), (1, True), (0, False)])
@pytest.mark.parametrize('labels', [[2.7, 0, 4, 1], [5, -1, 3, 0]])
def test_pick_rows_fast_path_and_fallback(labels, axis, keepdims, index_dtype):
    # 2-D data with one (clipped) index per row takes a short path on CPU; an out-of-range index falls back to the
    # general path's clipping, and axis=0 never takes it. Values, shape and the gradient match numpy either way.
    a = np.arange(20, dtype='float32').reshape(4, 5) * 0.5 - 3
    idx = np.array(labels, dtype='float64').astype(index_dtype)
    n = a.shape[axis]
    picked = np.clip(idx.astype('int64'), 0, n - 1)
    if axis == 0:
        a = a[:, :4]
        picked = np.clip(idx.astype('int64'), 0, 3)
        want = a[picked, np.arange(4)]
    else:
        want = a[np.arange(4), picked]
    x = nd.array(a)
    x.attach_grad()
    with mx.autograd.record():
        got = nd.pick(x, nd.array(idx, dtype=index_dtype), axis=axis, keepdims=keepdims)
    got.backward()
    replay.check_equal(got, want[:, None] if keepdims else want)
    grad = np.zeros_like(a)
    if axis == 0:
        grad[picked, np.arange(4)] = 1
    else:
        grad[np.arange(4), picked] = 1
    replay.check_equal(x.grad, grad)
    with pytest.raises(MXNetError, match='inconsistent'):
        nd.pick(x, nd.array([0, 1, 2]), axis=axis)


@pytest.mark.parametrize('dtype', ('float32', 'float64', 'int32', 'int64', 'uint8'))
@pytest.mark.parametrize('axis', [-1, 0, None])
@pytest.mark.parametrize('is_ascend', [True, False])
def test_sort_argsort_topk_against_numpy(dtype, axis, is_ascend):
    a = np.random.RandomState(3).randint(0, 6, size=(4, 7)).astype(dtype)  # many ties
    x = nd.array(a, dtype=dtype)
    flat = a.reshape(-1) if axis is None else a
    ax = 0 if axis is None else axis
    order = np.argsort(flat if is_ascend else -flat.astype('float64'), axis=ax, kind='stable')
    replay.check_equal(nd.argsort(x, axis=axis, is_ascend=is_ascend, dtype='int64'), order)
    replay.check_equal(nd.sort(x, axis=axis, is_ascend=is_ascend), np.take_along_axis(flat, order, ax))
    k = 3
    top = np.take(order, np.arange(k), axis=ax)
    vals, inds = nd.topk(x, axis=axis, k=k, ret_typ='both', is_ascend=is_ascend)
    replay.check_equal(vals, np.take_along_axis(flat, top, ax))
    got_mask = nd.topk(x, axis=axis, k=k, ret_typ='mask', is_ascend=is_ascend).asnumpy().reshape(flat.shape)
    if k * 8 > flat.shape[ax]:  # a full sort: ties in index order, as MXNet's std::sort gives on short rows
        replay.check_equal(inds, top.astype('float32'))
        mask = np.zeros(flat.shape, dtype)
        np.put_along_axis(mask, top, 1, ax)
        np.testing.assert_array_equal(got_mask, mask)
        return
    # a partial selection (k * 8 <= n, as MXNet's partial_sort): the order among tied values is unspecified in both
    picked = inds.asnumpy().astype(np.int64)
    np.testing.assert_array_equal(np.take_along_axis(flat, picked, ax), vals.asnumpy())
    assert all(len(set(row)) == k for row in np.moveaxis(picked, ax, -1).reshape(-1, k))
    np.testing.assert_array_equal(got_mask.sum(axis=ax), k)
    np.testing.assert_array_equal(np.sort(flat[got_mask == 1]), np.sort(vals.asnumpy().reshape(-1)))


@pytest.mark.parametrize('dtype', DTYPES)
def test_sequence_ops_against_numpy(dtype):
    a = replay.data((5, 3, 2), dtype)
    lens = np.array([2, 5, 1])
    x, ln = nd.array(a, dtype=dtype), nd.array(lens)
    t = np.arange(5)[:, None, None]
    replay.check_equal(nd.SequenceMask(x, ln, use_sequence_length=True, value=3),
           np.where(t < lens[None, :, None], a, np.array(3).astype(dtype)))
    replay.check_equal(nd.SequenceLast(x, ln, use_sequence_length=True), a[lens - 1, np.arange(3)])
    rev = a.copy()
    for b, n in enumerate(lens):
        rev[:n, b] = a[:n, b][::-1]
    replay.check_equal(nd.SequenceReverse(x, ln, use_sequence_length=True), rev)
    replay.check_equal(nd.SequenceReverse(x), a[::-1])
    # batch-major (axis=1); MXNet 1.9.1 crashes on SequenceLast(axis=1) without lengths, mxcompat returns the last step
    b = np.swapaxes(a, 0, 1)
    xb = nd.array(b, dtype=dtype)
    replay.check_equal(nd.SequenceLast(xb, axis=1), b[:, -1])
    replay.check_equal(nd.SequenceLast(xb, ln, use_sequence_length=True, axis=1), b[np.arange(3), lens - 1])
    replay.check_equal(nd.SequenceMask(xb, ln, use_sequence_length=True, axis=1),
           np.where(np.arange(5)[None, :, None] < lens[:, None, None], b, np.array(0).astype(dtype)))


# ---- behaviours the goldens cannot hold ----------------------------------------------------------------------------
def test_take_raise_mode_errors_name_the_op():
    # MXNet checks the indices in its kernel: the call returns, and reading the result raises
    y = nd.take(nd.zeros((3, 2)), nd.array([0, 3]), mode='raise')
    assert y.shape == (2, 2)
    with pytest.raises(MXNetIndexError, match='take'):
        y.asnumpy()
    op = registry.get('take')
    # shape inference never looks at index values
    f32 = mx.base.to_torch_dtype('float32')
    assert op.infer([(3, 2), (2,)], [f32, f32], op.parse_attrs({'mode': 'raise'}))[0] == [(2, 2)]


def test_gather_nd_out_of_bounds_is_an_index_error():
    with pytest.raises(MXNetIndexError, match='gather_nd'):
        nd.gather_nd(nd.zeros((3, 2)), nd.array([[3], [0]]))


def test_batch_take_beyond_2d_is_a_known_gap():
    with pytest.raises(MXNetNotImplementedError, match='batch_take'):
        nd.batch_take(nd.zeros((2, 2, 2)), nd.array([0, 1], dtype='int32'))


def test_out_of_range_sequence_lengths_are_clipped():
    # MXNet 1.9.1 reads out of bounds for lengths outside [1, T]; mxcompat clips them
    a = nd.array(np.arange(6).reshape(3, 2))
    np.testing.assert_array_equal(nd.SequenceLast(a, nd.array([0, 9]), use_sequence_length=True).asnumpy(), [0, 5])
    np.testing.assert_array_equal(nd.SequenceReverse(a, nd.array([9, 0]), use_sequence_length=True).asnumpy(),
                                  [[4, 1], [2, 3], [0, 5]])


def test_float16_sort_matches_mxnet_refusal_but_topk_works():
    x = nd.array([[3, 1, 2]], dtype='float16')
    with pytest.raises(MXNetError, match='sort'):
        nd.sort(x)
    with pytest.raises(MXNetError, match='argsort'):
        nd.argsort(x)
    np.testing.assert_array_equal(nd.topk(x, k=2, ret_typ='value').asnumpy(), [[3, 2]])


@pytest.mark.parametrize('op, attrs, names', [
    ('SequenceMask', {}, ['data']), ('SequenceMask', {'use_sequence_length': True}, ['data', 'sequence_length']),
    ('SequenceLast', {'use_sequence_length': 'True'}, ['data', 'sequence_length']),
    ('SequenceReverse', {}, ['data']), ('take', {}, ['a', 'indices']), ('pick', {}, ['data', 'index']),
    ('slice_like', {}, ['data', 'shape_like']), ('one_hot', {'depth': 2}, ['indices']),
    ('scatter_nd', {'shape': (2,)}, ['data', 'indices'])])
def test_input_names(op, attrs, names):
    o = registry.get(op)
    assert o.input_names(o.parse_attrs(attrs)) == names


def test_aliases_and_defaults():
    assert registry.get('crop') is registry.get('slice')
    assert registry.get('choose_element_0index') is registry.get('pick')
    assert registry.get('topk').parse_attrs({}) == {'axis': -1, 'k': 1, 'ret_typ': 'indices', 'is_ascend': False,
                                                    'dtype': mx.base.to_torch_dtype('float32')}
    assert registry.get('pick').parse_attrs({}) == {'axis': -1, 'keepdims': False, 'mode': 'clip'}
    assert registry.get('take').parse_attrs({}) == {'axis': 0, 'mode': 'clip'}
    assert registry.get('one_hot').parse_attrs({'depth': '3'})['dtype'] == mx.base.to_torch_dtype('float32')
    o = registry.get('topk')
    assert o.n_outputs(o.parse_attrs({'ret_typ': 'both'})) == 2
    assert o.n_outputs(o.parse_attrs({'ret_typ': 'mask'})) == 1
    with pytest.raises(MXNetValueError, match='topk'):
        o.parse_attrs({'ret_typ': 'all'})


def test_slice_outputs_do_not_alias():
    x = nd.array(np.arange(12).reshape(3, 4))
    for y in (nd.slice(x, begin=(1,), end=(3,)), nd.slice_axis(x, axis=1, begin=0, end=2),
              nd.slice_like(x, nd.zeros((2, 2))), nd.SequenceLast(x)):
        y[:] = -1
    np.testing.assert_array_equal(x.asnumpy(), np.arange(12).reshape(3, 4))


# ---- pick of a recorded log_softmax: one backward pass (indexing._PickLogSoftmax) ----------------------------------
def _fused_calls(monkeypatch, min_elements=0):
    """Count the one-pass Function's calls; log_softmax outputs of ``min_elements`` and more are marked for it
    (0: all, so these small cases take it)."""
    from mxcompat.operator import indexing
    monkeypatch.setattr(mx.kernels.config, 'fused_pick_min_elements', min_elements)
    calls = []
    real = indexing._PickLogSoftmax.forward

    def spy(ctx, *args):
        out = real(ctx, *args)  # counted once it has run: an index out of range raises in it
        calls.append(1)
        return out
    monkeypatch.setattr(indexing._PickLogSoftmax, 'forward', staticmethod(spy))
    return calls


def _torch_reference(a, labels, head, temperature, extra):
    import torch
    x = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    logp = torch.log_softmax(x / temperature, 1)
    loss = -logp.gather(1, torch.tensor(labels, dtype=torch.int64)[:, None])[:, 0]
    if extra:
        loss = loss + 0.25 * logp.sum(1)
    loss.backward(torch.tensor(head, dtype=torch.float64))
    return loss.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize('dtype', ('float32', 'float64'))
@pytest.mark.parametrize('axis, keepdims, index_2d', [(-1, False, False), (1, True, False), (1, True, True)])
@pytest.mark.parametrize('temperature, extra, labels, mode', [
    (1.0, False, [3, 0, 6, 1, 2], 'clip'), (2.0, True, [3, 0, 6, 1, 2], 'clip'), (1.0, False, [3, 0, 9, 1, -2], 'clip'),
    (1.0, True, [3, 0, 9, 1, -2], 'wrap')])
def test_pick_of_log_softmax_gradient(monkeypatch, dtype, axis, keepdims, index_2d, temperature, extra, labels,
                                      mode):
    # -pick(log_softmax(x), label) differentiates straight to x, on the short path (1-D labels in range) and on the
    # general one (labels clipped or wrapped, or shaped (n, 1)). The loss and the gradient are torch's float64
    # ones, also with a second use of the log-probabilities (extra) and a non-uniform head gradient.
    calls = _fused_calls(monkeypatch)
    rs = np.random.RandomState(3)
    a, head = rs.randn(5, 7) * 3, rs.rand(5) + 0.5
    labels = np.array(labels)
    x = nd.array(a, dtype=dtype)
    x.attach_grad()
    with mx.autograd.record():
        logp = nd.log_softmax(x, axis=axis, temperature=temperature)
        index = nd.array(labels.reshape(-1, 1) if index_2d else labels)
        loss = -nd.pick(logp, index, axis=axis, keepdims=keepdims, mode=mode).reshape((-1,))
        if extra:
            loss = loss + 0.25 * logp.sum(axis=1)
    loss.backward(nd.array(head, dtype=dtype))
    picked = np.clip(labels, 0, 6) if mode == 'clip' else np.mod(labels, 7)
    want_loss, want_grad = _torch_reference(a, picked, head, temperature, extra)
    tol = 1e-12 if dtype == 'float64' else 1e-5
    np.testing.assert_allclose(loss.asnumpy(), want_loss, rtol=tol, atol=tol)
    np.testing.assert_allclose(x.grad.asnumpy(), want_grad, rtol=tol, atol=tol)
    assert calls == [1]


def test_pick_of_log_softmax_second_order(monkeypatch):
    # autograd.grad(create_graph=True) through the one-pass backward, then backward of a function of that
    # gradient: torch's float64 second-order gradient of the unfused ops
    import torch
    calls = _fused_calls(monkeypatch)
    rs = np.random.RandomState(4)
    a, labels = rs.randn(6, 4), np.array([0, 3, 1, 2, 2, 0])
    x = nd.array(a, dtype='float64')
    x.attach_grad()
    with mx.autograd.record():
        loss = -nd.pick(nd.log_softmax(x * 2), nd.array(labels))
        gx = mx.autograd.grad(loss, [x], create_graph=True)[0]
        z = (gx * gx).sum()
    z.backward()
    t = torch.tensor(a, requires_grad=True)
    tl = -torch.log_softmax(t * 2, 1).gather(1, torch.tensor(labels)[:, None])[:, 0]
    (tg,) = torch.autograd.grad(tl.sum(), t, create_graph=True)
    (tg * tg).sum().backward()
    np.testing.assert_allclose(gx.asnumpy(), tg.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(x.grad.asnumpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert calls == [1]


@pytest.mark.parametrize('shape', [(64, 10), (2, 1 << 16)])
def test_pick_of_log_softmax_path_by_size(monkeypatch, shape):
    # with the default bound, small logits take torch's own gather and log_softmax backward, from 1 << 17 elements
    # the one-pass Function; both give torch's float64 gradient
    bound = mx.kernels.config.fused_pick_min_elements
    calls = _fused_calls(monkeypatch, bound)
    rs = np.random.RandomState(6)
    a, labels = rs.randn(*shape), rs.randint(0, shape[1], shape[0])
    x = nd.array(a, dtype='float64')
    x.attach_grad()
    with mx.autograd.record():
        loss = -nd.pick(nd.log_softmax(x), nd.array(labels))
    loss.backward()
    want_loss, want_grad = _torch_reference(a, labels, np.ones(shape[0]), 1.0, False)
    np.testing.assert_allclose(loss.asnumpy(), want_loss, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(x.grad.asnumpy(), want_grad, rtol=1e-12, atol=1e-12)
    assert calls == ([1] if a.size >= bound else [])


def test_pick_of_log_softmax_made_a_variable(monkeypatch):
    # log-probabilities made a variable of their own (attach_grad) get pick's gradient themselves, nothing goes
    # back to x, and the pick takes the plain path
    calls = _fused_calls(monkeypatch)
    x = nd.array(np.random.RandomState(5).randn(3, 4), dtype='float64')
    x.attach_grad()
    with mx.autograd.record():
        logp = nd.log_softmax(x)
    logp.attach_grad()
    with mx.autograd.record():
        loss = nd.pick(logp, nd.array([1, 0, 3]))
    loss.backward()
    want = np.zeros((3, 4))
    want[np.arange(3), [1, 0, 3]] = 1
    np.testing.assert_array_equal(logp.grad.asnumpy(), want)
    np.testing.assert_array_equal(x.grad.asnumpy(), np.zeros((3, 4)))
    assert calls == []



def test_log_softmax_mark_is_not_carried_by_the_tensor(monkeypatch):
    # the mark that lets pick take the one-pass gradient lives outside the output tensor: pickling or saving that
    # tensor carries no logits, and the mark dies with the output
    import gc
    import io
    import pickle

    import torch
    from mxcompat.operator import indexing
    calls = _fused_calls(monkeypatch)
    gc.collect()
    marks = len(indexing._LOG_SOFTMAX_OF)
    x = nd.array(np.random.RandomState(7).randn(4, 3000))
    x.attach_grad()
    with mx.autograd.record():
        logp = nd.log_softmax(x)
    t = logp.to_torch()
    assert t in indexing._LOG_SOFTMAX_OF and not vars(t)
    plain = io.BytesIO()
    torch.save(t.detach().clone(), plain)
    saved = io.BytesIO()
    torch.save(t, saved)
    assert len(saved.getvalue()) < 1.1 * len(plain.getvalue())  # the logits would double it
    assert not vars(pickle.loads(pickle.dumps(t)))
    with mx.autograd.record():
        loss = nd.pick(logp, nd.array([1, 0, 3, 2]))
    loss.backward()
    assert calls == [1]
    del logp, loss, t
    gc.collect()
    assert len(indexing._LOG_SOFTMAX_OF) == marks

def test_softmax_cross_entropy_loss_takes_one_pass(monkeypatch):
    # gluon's SoftmaxCrossEntropyLoss is log_softmax then pick: eager and hybridized both take the one-pass
    # gradient and agree with torch's cross entropy
    import torch
    calls = _fused_calls(monkeypatch)
    rs = np.random.RandomState(6)
    a, labels = rs.randn(8, 10), rs.randint(0, 10, 8)
    t = torch.tensor(a, requires_grad=True)
    torch.nn.functional.cross_entropy(t, torch.tensor(labels), reduction='none').sum().backward()
    for hybridize in (False, True):
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        if hybridize:
            loss_fn.hybridize()
        x = nd.array(a, dtype='float64')
        x.attach_grad()
        with mx.autograd.record():
            loss = loss_fn(x, nd.array(labels))
        loss.backward()
        np.testing.assert_allclose(x.grad.asnumpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert len(calls) == 2


# ---- slice over several axes, recorded: one region copy each way (indexing._SliceRegion) -------------------------
@pytest.mark.parametrize('begin, end, step', [
    ((1, None), (None, -1), ()), ((None, 3, None), (None, 0, None), (None, -1, 2)), ((3, 0, 1), (0, 4, 6), (-1, 1, 2)),
    ((0,), (2,), ()), ((None, 1), (None, 3), ())])
def test_slice_gradient_over_several_axes(monkeypatch, begin, end, step):
    # values and gradients (a non-uniform head, float64) match numpy's slicing of the same region, and the
    # one-pass function runs exactly when more than one axis is cut
    from mxcompat.operator import indexing
    calls = []
    real = indexing._SliceRegion.forward

    def spy(ctx, *args):
        calls.append(1)
        return real(ctx, *args)
    monkeypatch.setattr(indexing._SliceRegion, 'forward', staticmethod(spy))
    a = np.random.RandomState(7).randn(4, 5, 6)
    x = nd.array(a, dtype='float64')
    x.attach_grad()
    with mx.autograd.record():
        y = nd.slice(x * 1.0, begin=begin, end=end, step=step)
    head = np.random.RandomState(8).randn(*y.shape)
    y.backward(nd.array(head, dtype='float64'))
    key = []
    for i, (b, e) in enumerate(zip(begin, end)):
        key.append(slice(b, e, step[i] if step else None))
    ref = a[tuple(key)]  # numpy's slicing is MXNet's (negative steps included)
    np.testing.assert_array_equal(y.asnumpy(), ref)
    grad = np.zeros_like(a)
    grad[tuple(key)] = head
    np.testing.assert_array_equal(x.grad.asnumpy(), grad)
    cut = sum(1 for k in key if k != slice(None))
    assert len(calls) == (1 if cut > 1 else 0)


def test_slice_over_several_axes_second_order():
    # create_graph through the region copy: d/dx of sum(grad(sum(slice(x*x))) ** 2) = 8 x inside the region
    x = nd.array(np.random.RandomState(9).randn(3, 4, 5), dtype='float64')
    x.attach_grad()
    with mx.autograd.record():
        y = nd.slice(x * x, begin=(1, None, 2), end=(3, None, 5))
        gx = mx.autograd.grad(y.sum(), [x], create_graph=True)[0]
        z = (gx * gx).sum()
    z.backward()
    mask = np.zeros((3, 4, 5))
    mask[1:3, :, 2:5] = 1
    a = x.asnumpy()
    np.testing.assert_allclose(gx.asnumpy(), 2 * a * mask, rtol=1e-12)
    np.testing.assert_allclose(x.grad.asnumpy(), 8 * a * mask, rtol=1e-12)


# MXNet's engine reports the error when the output is read (asnumpy, wait_to_read), not at Executor.forward, on cpu
# and gpu alike (indexing_op.cu checks the bounds on the device too); MXNet's test_take reads it inside its try block
def test_take_raise_mode_error_surfaces_when_the_output_is_read():
    sym = mx.sym.take(mx.sym.var('a'), mx.sym.BlockGrad(mx.sym.var('indices')), mode='raise')
    exe = sym.simple_bind(mx.cpu(), a=(3, 4), indices=(2,))
    exe.arg_dict['indices'][:] = mx.nd.array([5, 1])
    exe.forward(is_train=True)  # MXNet 1.9.1: returns
    with pytest.raises(MXNetError, match='take'):
        exe.outputs[0].asnumpy()
