"""The generated ``mx.nd`` operator functions (mxcompat/ndarray/register.py): MXNet's signatures, and the cached
fast path for NDArray inputs with attributes by name agreeing with the general path in results and errors."""
import inspect
import json
import os

import numpy as np
import pytest

import mxcompat as mx
from mxcompat import nd
from mxcompat.base import MXNetError, MXNetTypeError, MXNetValueError

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, '..', 'fixtures', 'coverage', 'nd_names.json')) as _f:
    SIGNATURES = json.load(_f)['signatures']  # written by gen_coverage.py under real MXNet 1.9.1

# Where our signature differs from the one MXNet 1.9.1's generated function shows, and why.
DIFFERENT = {
    # MXNet's signature leaves out the auxiliary-state inputs, yet its imperative call fails without them
    # (num_inputs 3 vs. 5); here they are named inputs.
    'nd.BatchNorm_v1': 'auxiliary states as inputs',
    'nd.IdentityAttachKLSparseReg': 'auxiliary states as inputs',
    # MXNet's signature lists Embedding's fields, but its parser takes SparseEmbedding's: `deterministic` is
    # accepted and `sparse_grad` refused (checked under 1.9.1), as here.
    'nd.contrib.SparseEmbedding': 'the parameters MXNet really parses',
    # MXNet's documentation generator omits `lower`, which 1.9.1's potrf/potri do take.
    # MXNet's are Python functions of one array; here they are registry ops that also take out= and name=.
    'nd.contrib.isfinite': 'an op', 'nd.contrib.isinf': 'an op', 'nd.contrib.isnan': 'an op',
    'nd.linalg.potrf': 'lower', 'nd.linalg.potri': 'lower', 'nd.linalg_potrf': 'lower', 'nd.linalg_potri': 'lower',
}


def _function(path):
    obj = mx
    for part in path.split('.'):
        obj = getattr(obj, part, None)
    return obj


def _generated():
    """The MXNet 1.9.1 signatures of the ops whose functions here are generated from the registry (not variadic:
    those keep ``*args``)."""
    out = {}
    for path, params in SIGNATURES.items():
        fn = _function(path)
        op = getattr(fn, '_op', None)
        if op is not None and not op.variadic and path not in DIFFERENT:
            out[path] = params
    return out


def test_generated_functions_have_mxnets_signatures():
    generated = _generated()
    assert len(generated) > 300
    wrong = {p: ([str(q) for q in inspect.signature(_function(p)).parameters.values()], want)
             for p, want in generated.items()
             if [str(q) for q in inspect.signature(_function(p)).parameters.values()] != want}
    assert not wrong


def test_listed_differences_are_still_different():
    for path in DIFFERENT:
        got = [str(q) for q in inspect.signature(_function(path)).parameters.values()]
        assert got != SIGNATURES[path], path


def test_attributes_by_position_follow_mxnets_order():
    x = nd.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert nd.sum(x, 1, True).shape == (3, 1)  # data, axis, keepdims
    np.testing.assert_array_equal(nd.clip(x, 2, 5).asnumpy(), np.clip(x.asnumpy(), 2, 5))  # a_min, a_max
    assert nd.sum(data=x, axis=0).shape == (4,)


def test_equal_values_of_different_types_are_cached_apart():
    # 1, 1.0 and True are equal dict keys; each must be parsed as given (an int axis, a bool keepdims)
    x = nd.ones((2, 3))
    assert nd.sum(x, keepdims=True).shape == (1, 1)
    assert nd.sum(x, keepdims=1).shape == (1, 1)
    assert nd.sum(x, axis=1).shape == (2,)
    with pytest.raises(MXNetValueError, match="'axis'"):
        nd.sum(x, axis=1.0)  # MXNet refuses a float axis
    with pytest.raises(MXNetValueError, match="'axis'"):
        nd.sum(x, axis=1.0)  # (again: errors are never cached as results)
    assert nd.sum(x, axis=1).shape == (2,)


def test_fast_path_errors_name_the_op_and_shapes():
    x = nd.ones((2, 3))
    with pytest.raises(MXNetValueError, match="Operator sum: unknown argument 'axes'"):
        nd.sum(x, axes=1)
    with pytest.raises(MXNetValueError, match="Operator Activation: required argument 'act_type' missing"):
        nd.Activation(x)
    with pytest.raises(MXNetError, match=r'FullyConnected.*\(2, 3\)'):
        nd.FullyConnected(x, nd.ones((4, 5)), nd.zeros(4), num_hidden=4)
    with pytest.raises(MXNetError, match="required input 'data' is missing"):
        nd.sum(axis=1)
    with pytest.raises(MXNetTypeError, match='input data must be an NDArray'):
        nd.relu(np.ones(3))


def test_optional_inputs_and_the_general_path_agree():
    rng = np.random.RandomState(0)
    x, w, b = (nd.array(rng.rand(*s).astype(np.float32)) for s in ((2, 3), (4, 3), (4,)))
    fast = nd.FullyConnected(x, w, b, num_hidden=4)
    no_bias = nd.FullyConnected(x, w, num_hidden=4, no_bias=True)  # bias None: an optional input left out
    np.testing.assert_allclose(fast.asnumpy(), x.asnumpy() @ w.asnumpy().T + b.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(no_bias.asnumpy(), x.asnumpy() @ w.asnumpy().T, rtol=1e-6)
    out = nd.zeros((2, 4))
    assert nd.FullyConnected(x, w, b, num_hidden=4, out=out) is out  # out=: the general path
    np.testing.assert_array_equal(out.asnumpy(), fast.asnumpy())
    split = nd.split(nd.ones((2, 4)), num_outputs=2)  # several outputs
    assert [s.shape for s in split] == [(2, 2), (2, 2)]


def test_results_are_new_arrays_and_views_are_copied():
    x = nd.ones((2, 3))
    y = nd.reshape(x, shape=(3, 2))  # a view op: MXNet returns a new array
    y[:] = 5
    assert x.asnumpy().sum() == 6
    z = nd.identity(x)
    z[:] = 7
    assert x.asnumpy().sum() == 6


def test_sparse_inputs_take_the_storage_aware_path():
    dense = np.array([[0, 1], [2, 0]], dtype=np.float32)
    csr = nd.array(dense).tostype('csr')
    out = nd.square(csr)
    assert out.stype == 'csr'  # MXNet keeps csr storage for square
    np.testing.assert_array_equal(out.asnumpy(), dense ** 2)


def test_zero_input_ops_take_ctx_and_dtype():
    z = nd._internal._zeros(shape=(2, 2), dtype='int32')
    assert z.dtype == np.int32 and z.shape == (2, 2) and z.context == mx.cpu()


def test_recorded_calls_keep_the_graph():
    x = nd.array([1.0, -2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.sum(nd.Activation(x, act_type='relu'), axis=0)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [1, 0, 1])


# ---- out= (MXNet's _imperative_invoke: an NDArray or a list/tuple of them, returned as given) ------------------------
@pytest.mark.parametrize('wrap', [lambda a: a, lambda a: [a], lambda a: (a,)], ids=['array', 'list', 'tuple'])
def test_out_of_a_one_output_op_is_an_array_or_a_one_item_list(wrap):
    dst = nd.zeros((2,))
    out = wrap(dst)
    r = nd.exp(nd.array([0.0, 1.0]), out=out)
    assert r is out  # (oracle-checked: the object passed comes back, list and tuple included)
    np.testing.assert_allclose(dst.asnumpy(), [1, np.e], rtol=1e-6)


def test_out_list_of_a_multi_output_op_takes_one_array_per_output():
    p, q = nd.zeros((2, 1)), nd.zeros((2, 1))
    out = [p, q]
    assert nd.split(nd.array([[0, 1], [2, 3]]), num_outputs=2, axis=1, out=out) is out
    assert p.asnumpy().tolist() == [[0], [2]] and q.asnumpy().tolist() == [[1], [3]]


@pytest.mark.parametrize('call', [
    lambda: nd.split(nd.ones((2, 2)), num_outputs=2, axis=1, out=nd.zeros((2, 1))),
    lambda: nd.split(nd.ones((2, 2)), num_outputs=2, axis=1, out=[nd.zeros((2, 1))]),
    lambda: nd.split(nd.ones((2, 2)), num_outputs=2, axis=1, out=[nd.zeros((2, 1))] * 3),
    lambda: nd.exp(nd.ones((2,)), out=[nd.zeros((2,))] * 2),
], ids=['array-for-2', 'list-of-1-for-2', 'list-of-3-for-2', 'list-of-2-for-1'])
def test_out_count_must_match_the_outputs(call):
    with pytest.raises(MXNetError, match='expects . outputs, but got . instead'):  # (MXNet: MXNetError too)
        call()


def test_out_of_another_type_raises():
    with pytest.raises(MXNetTypeError, match='out must be an NDArray or a list of NDArrays, got ndarray'):
        nd.exp(nd.ones((2,)), out=np.zeros(2))


def _adamw_groups(n):
    w = [nd.array([1.0, 2.0, 3.0]), nd.array([[0.5, -1.0]])][:n]
    g = [nd.array([0.5, -0.5, 1.0]), nd.array([[1.0, 2.0]])][:n]
    return w, g, [nd.zeros(x.shape) for x in w], [nd.zeros(x.shape) for x in w]


# values from MXNet 1.9.1 (the same calls under the oracle). AdamW agrees to about 2e-6: MXNet rounds the term
# 1 - beta to float32 (its moments come out 0.050000012 where these are 0.05)
ADAMW_W = [[0.6837703, 2.3162298, 2.6837702], [[0.15877023, -1.2662299]]]
LAMB_W = [[0.7833051681518555, 2.2102582454681396, 2.7790138721466064], [[0.42035090923309326, -1.0784603357315063]]]


@pytest.mark.parametrize('n', [1, 2])
def test_multi_update_wrappers_write_a_list_out(n):
    w, g, m, v = _adamw_groups(n)
    r = nd.contrib.multi_adamw_update(w, g, m, v, 1.0, lrs=[0.1, 0.2][:n], wds=[0.0, 0.1][:n], etas=[1.0, 0.5][:n],
                                      out=w)
    assert r is w
    for got, want in zip(w, ADAMW_W):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)
    w, g, m, v = _adamw_groups(n)
    r = nd.contrib.multi_lamb_update(w, g, m, v, step_count=[1] * n, lrs=[0.1] * n, wds=[0.01] * n, out=w)
    assert r is w
    for got, want in zip(w, LAMB_W):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    w, g, m, v = _adamw_groups(2)
    with pytest.raises(MXNetError, match='expects 2 outputs, but got 1'):
        nd.contrib.multi_adamw_update(w, g, m, v, 1.0, lrs=[0.1, 0.2], wds=[0.0, 0.1], etas=[1.0, 0.5], out=w[:1])


def test_multi_mp_adamw_update_with_one_weight_writes_the_float16_copy():
    # (GluonNLP's test_bert_adam: _multi_mp_adamw_update with one weight and out=[weight])
    w16 = [nd.array([1.0, 2.0, 3.0], dtype='float16')]
    w32 = [nd.array([1.0, 2.0, 3.0])]
    g16 = [nd.array([0.5, -0.5, 1.0], dtype='float16')]
    r = nd.contrib.multi_mp_adamw_update(w16, g16, [nd.zeros((3,))], [nd.zeros((3,))], w32, 1.0, lrs=[0.1],
                                         wds=[0.0], etas=[1.0], out=w16)
    assert r is w16 and w16[0].dtype == np.float16
    assert w16[0].asnumpy().tolist() == [0.68359375, 2.31640625, 2.68359375]
    np.testing.assert_allclose(w32[0].asnumpy(), ADAMW_W[0], rtol=1e-5, atol=1e-5)
