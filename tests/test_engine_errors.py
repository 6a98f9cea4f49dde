"""Errors MXNet's engine reports asynchronously (mxcompat/engine.py ``fail``): an operator whose runtime check fails
(a sampler's parameters) returns at once, the error reaches every array computed from its result, and it is raised
once, by the first read of any of them or by ``mx.nd.waitall()``. Every expectation here was checked against
MXNet 1.9.1 (the same statements under the oracle; upstream: tests/python/unittest/test_exc_handling.py)."""
import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat import engine
from mxcompat.base import MXNetError
from mxcompat.gluon import nn


@pytest.fixture(autouse=True)
def _forget_failures():
    """Leave no unraised failure to the next test (MXNet's own tests call waitall after each, as here)."""
    yield
    try:
        mx.nd.waitall()
    except MXNetError:
        pass


def _bad(shape=(2, 2), ctx=None):
    return mx.nd.random.normal(0, -1, shape, ctx=ctx)


def _raises(fn, match=None):
    with pytest.raises(MXNetError, match=match):
        fn()


# ---- which errors wait ----------------------------------------------------------------------------------------------
DEFERRED = [
    (lambda c: mx.nd.random.normal(0, -1, (2, 2), ctx=c), 'scale parameter in gaussian has to be positive'),
    (lambda c: mx.nd.random.uniform(2, 1, (2, 2), ctx=c), 'low must be less or equal to high'),
    (lambda c: mx.nd.random.gamma(-1, 1, (2, 2), ctx=c), 'alpha parameter in gamma'),
    (lambda c: mx.nd.random.exponential(-1, (2, 2), ctx=c), 'lambda parameter in exponential'),
    (lambda c: mx.nd.random.poisson(-1, (2, 2), ctx=c), 'lambda parameter in poisson'),
    (lambda c: mx.nd.random.negative_binomial(-1, 0.5, (2, 2), ctx=c), 'k parameter in negative binomial'),
    (lambda c: mx.nd.random.generalized_negative_binomial(-1, 0.5, (2, 2), ctx=c), 'mu parameter'),
    (lambda c: mx.nd.random.randint(5, 2, (2, 2), ctx=c), 'low must be less or equal to high'),
    (lambda c: mx.nd.random.normal_like(mx.nd.ones((2, 2), ctx=c), 0, -1), 'scale parameter in gaussian'),
    (lambda c: mx.nd.random.uniform_like(mx.nd.ones((2, 2), ctx=c), 2, 1), 'low must be less or equal'),
]


@pytest.mark.parametrize('call, msg', DEFERRED, ids=[m.split()[0] + str(i) for i, (_, m) in enumerate(DEFERRED)])
def test_bad_sampler_parameters_raise_when_the_result_is_read(ctx, call, msg):
    b = call(ctx)  # no error at the call
    assert b.shape == (2, 2) and b.context == ctx
    with pytest.raises(MXNetError, match=msg) as info:
        b.asnumpy()
    assert 'Operator _random_' in str(info.value)
    mx.nd.waitall()  # raised once: nothing left
    b.asnumpy()


@pytest.mark.parametrize('call, msg', [
    (lambda: mx.nd.random.normal(0, 1, ()), 'inferring shapes failed'),
    (lambda: mx.nd.random.normal(0, 1, (2,), foo=1), 'unknown argument'),
    (lambda: mx.nd.random.normal(0, 1, (-2,)), 'invalid shape'),
    (lambda: mx.nd.random.randint(2, 2, (2,)), 'high must be greater'),  # (MXNet crashes)
    (lambda: mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((2, 3))), None),
    (lambda: mx.nd._internal._sample_unique_zipfian(5, shape=(6,)), '2-D'),
], ids=['no-shape', 'unknown-argument', 'negative-shape', 'randint-empty-range', 'dot-shapes', 'zipfian-1d'])
def test_argument_and_shape_errors_raise_at_the_call(call, msg):
    with pytest.raises(MXNetError, match=msg):
        call()
    mx.nd.waitall()  # nothing pending


def test_sampler_with_parameter_arrays_is_not_checked():
    # (MXNet's _sample_* kernels do not check their parameters: a negative sigma gives numbers)
    assert mx.nd.random.normal(mx.nd.zeros((2,)), mx.nd.array([1, -1]), shape=3).shape == (2, 3)
    mx.nd.waitall()


def test_unique_zipfian_sample_count_is_checked_when_read():
    classes, tries = mx.nd._internal._sample_unique_zipfian(5, shape=(1, 6))
    _raises(tries.asnumpy, 'cannot exceed')
    classes.asnumpy()  # the same failure: raised already


# ---- how the error spreads and when it is raised ---------------------------------------------------------------------
def test_error_reaches_every_result_and_is_raised_once():
    b = _bad()
    c = mx.nd.dot(mx.nd.ones((2, 2)), b)
    d = c + 1
    assert (b.shape, c.shape, d.dtype) == ((2, 2), (2, 2), np.float32)
    _raises(d.asnumpy, 'scale parameter')
    c.asnumpy()  # all of them carried the one error
    b.asnumpy()
    mx.nd.waitall()


@pytest.mark.parametrize('read', ['asnumpy', 'wait_to_read', 'asscalar', 'repr', 'bool', 'save'])
def test_every_read_raises_then_reads_normally(read, tmp_path):
    b = _bad((1,))
    fns = {'asnumpy': b.asnumpy, 'wait_to_read': b.wait_to_read,
           'asscalar': b.asscalar, 'repr': lambda: repr(b), 'bool': lambda: bool(b),
           'save': lambda: mx.nd.save(str(tmp_path / 'x.nd'), [b])}
    _raises(fns[read])
    b.wait_to_read()
    b.asnumpy()


def test_waitall_raises_the_first_pending_error_once():
    b = _bad()
    c = b * 2
    _raises(mx.nd.waitall, 'scale parameter')
    mx.nd.waitall()
    b.asnumpy()
    c.asnumpy()


def test_an_unread_failed_array_still_fails_waitall():
    def step():
        _bad() * 2
    step()  # the arrays are gone, the error is not
    x = mx.nd.ones((2,)) * 3
    x.asnumpy()  # unrelated arrays read normally
    _raises(mx.nd.waitall)


@pytest.mark.parametrize('write', ['iadd', 'copyto', 'out', 'setitem', 'slice', 'astype', 'as_in_context'])
def test_arrays_written_from_a_failed_one_carry_its_error(write):
    b = _bad()
    x = mx.nd.zeros((2, 2))
    if write == 'iadd':
        x += b
    elif write == 'copyto':
        b.copyto(x)
    elif write == 'out':
        mx.nd.exp(b, out=x)
    elif write == 'setitem':
        x[0:1] = b[1:2]
    elif write == 'slice':
        x = b[1]
    elif write == 'astype':
        x = b.astype('float16')
    else:
        x = b.as_in_context(mx.cpu(1))
    _raises(x.asnumpy)
    b.asnumpy()  # (raised through x)


def test_writing_into_a_failed_array_keeps_its_error():
    b = _bad()
    mx.nd.exp(mx.nd.ones((2, 2)), out=b)
    b[:] = 1
    _raises(b.asnumpy)
    b.asnumpy()  # (MXNet skips the writes: its values are garbage; here they were written)


def test_the_random_generator_carries_the_error_to_later_samples(ctx):
    # MXNet's samplers share one generator state per device; a failed sampler marks it, so the samples drawn after
    # it carry its error until it is raised (other operators do not)
    b = _bad(ctx=ctx)
    u = mx.nd.random.uniform(0, 1, (2,), ctx=ctx)
    s = mx.nd.random.normal(mx.nd.zeros((2,), ctx=ctx), mx.nd.ones((2,), ctx=ctx))
    x = mx.nd.ones((2,), ctx=ctx) + 1
    x.asnumpy()
    _raises(u.asnumpy, 'scale parameter')
    s.asnumpy()
    b.asnumpy()
    mx.nd.random.uniform(0, 1, (2,), ctx=ctx).asnumpy()  # raised: the generator is clean again


def test_failures_on_one_generator_are_one_error():
    b1 = _bad()
    b2 = mx.nd.random.uniform(2, 1, (2,))
    _raises(b2.asnumpy, 'scale parameter')  # b2 joined b1's failure (MXNet does not run it)
    b1.asnumpy()
    mx.nd.waitall()
    b3, b4 = _bad(), mx.nd.random.uniform(2, 1, (2,))
    _raises(mx.nd.waitall, 'scale parameter')
    b3.asnumpy()
    b4.asnumpy()


def test_seeding_does_not_clear_the_generator():
    _bad()
    mx.random.seed(1)
    _raises(mx.nd.random.uniform(0, 1, (2,)).asnumpy)


def test_raised_arrays_become_plain_tensors_again():
    b = _bad()
    c = b + 1
    assert type(b.to_torch()) is engine.FailedTensor and type(c.to_torch()) is engine.FailedTensor
    _raises(c.asnumpy)
    assert type((b * 2).to_torch()) is torch.Tensor  # the next operation turns them back
    assert type(b.to_torch()) is torch.Tensor and not engine._PENDING and not engine.RNG_FAILURES


# ---- autograd, symbols, Gluon ---------------------------------------------------------------------------------------
def test_gradients_computed_from_a_failed_array_carry_its_error():
    x = mx.nd.ones((2, 2))
    x.attach_grad()
    with mx.autograd.record():
        y = x * _bad()
    y.backward()  # no error here
    _raises(x.grad.asnumpy, 'scale parameter')
    y.asnumpy()
    x.grad.asnumpy()


@pytest.mark.parametrize('backward', [False, True])
@pytest.mark.parametrize('waitall', [False, True])
def test_bound_symbol(backward, waitall):
    # (upstream test_exc_symbolic)
    x, z = mx.sym.var('x'), mx.sym.var('z')
    out = mx.sym.dot(mx.sym.dot(z, x), mx.sym.random.normal(0, -1, (2, 2)))
    ex = mx.sym.make_loss(out).bind(mx.cpu(), {'x': mx.nd.ones((2, 2)), 'z': mx.nd.ones((3, 2))},
                                    args_grad={'x': mx.nd.zeros((2, 2)), 'z': mx.nd.zeros((3, 2))})
    outs = ex.forward(is_train=True)
    if backward:
        ex.backward()
    _raises(mx.nd.waitall if waitall else (ex.grad_arrays[0] if backward else outs[0]).asnumpy)
    ex.grad_arrays[0].asnumpy()
    outs[0].asnumpy()


@pytest.mark.parametrize('hybridize', [False, True])
def test_gluon_forward_and_training_step(hybridize):
    net = nn.HybridSequential()
    net.add(nn.Dense(4, activation='relu'), nn.Dense(2))
    net.initialize()
    if hybridize:
        net.hybridize()
    y = net(_bad((3, 5)))
    assert y.shape == (3, 2)
    _raises(y.wait_to_read, 'scale parameter')
    net(mx.nd.ones((3, 5))).asnumpy()
    tr = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    with mx.autograd.record():
        loss = net(_bad((3, 5))).sum()
    loss.backward()
    tr.step(3)  # no error until the next read or waitall
    _raises(mx.nd.waitall, 'scale parameter')
    net[0].weight.data().asnumpy()


def test_dropout_mask_carries_a_failed_samplers_error():
    # MXNet 1.9.1: a Dropout drawn after an unread failed sampler raises that sampler's error when read
    a = mx.nd.random.normal(0, -1, (2, 2))
    with mx.autograd.record():
        d = mx.nd.Dropout(mx.nd.ones((4, 4)), p=0.5)
    with pytest.raises(MXNetError, match='scale parameter'):
        d.asnumpy()
    assert a.asnumpy().shape == (2, 2)  # raised once: the others read normally
