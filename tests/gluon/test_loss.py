"""mx.gluon.loss against goldens from real MXNet 1.9.1 (tests/fixtures/gluon_loss, written by gen_gluon_loss.py):
loss values and d(loss)/d(first input), eager and hybridized; names, prefixes, repr and errors."""
import json
import os
import warnings

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from mxcompat.gluon import HybridBlock, loss as gloss

FIX = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'gluon_loss'))
SPEC = json.load(open(os.path.join(FIX, 'cases.json')))
META = SPEC.pop('__meta__')
ARR = dict(np.load(os.path.join(FIX, 'cases.npz')))


def inputs(name):
    case = SPEC[name]
    return [None if i in case['none'] else ARR['%s/in%d' % (name, i)] for i in range(case['nargs'])]


def run(name, hybrid, grad=True, kwargs=None):
    case = SPEC[name]
    blk = getattr(gloss, case['cls'])(**(kwargs or case['kwargs']))
    if hybrid:
        blk.hybridize()
    args = [None if a is None else mx.nd.array(a) for a in inputs(name)]
    if not grad:
        return blk(*args), None
    args[0].attach_grad()
    with mx.autograd.record():
        out = blk(*args)
    out.backward()
    return out, args[0].grad


def check(name, out, grad):
    want = ARR[name + '/loss']
    assert out.shape == want.shape, (name, out.shape, want.shape)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-5, equal_nan=True, err_msg=name)
    if grad is not None:
        np.testing.assert_allclose(grad.asnumpy(), ARR[name + '/grad'], rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.parametrize('name', sorted(SPEC))
def test_eager(name):
    check(name, *run(name, False))


HYBRID_OK = sorted(n for n in SPEC if SPEC[n]['hybrid'] == 'ok')
# MXNet 1.9.1 cannot hybridize these; mxcompat differs on purpose only where noted in the loss docstrings
HYBRID_BETTER = ['poisson_full', 'poisson_full_zero']   # MXNet: `*=` on a Symbol raises NotImplementedForSymbol
HYBRID_FAILS = ['sdml_default', 'sdml_smooth']          # MXNet: AttributeError (Symbol has no .shape)


def test_hybrid_table_is_complete():
    assert sorted(HYBRID_OK + HYBRID_BETTER + HYBRID_FAILS) == sorted(SPEC)


@pytest.mark.parametrize('name', HYBRID_OK + HYBRID_BETTER)
def test_hybridized(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # e.g. an unused None input
        check(name, *run(name, True))


@pytest.mark.parametrize('name', HYBRID_FAILS)
def test_hybridize_unsupported(name):
    with pytest.raises(MXNetError, match='SDMLLoss'):
        run(name, True)


def test_poisson_full_eager_without_record():
    # the path MXNet itself supports with compute_full=True
    for name in ('poisson_full', 'poisson_full_zero'):
        check(name, *run(name, False, grad=False))
    assert np.isnan(ARR['poisson_full_zero/loss']).all()  # 0 * log(0) propagates, as in MXNet


@pytest.mark.parametrize('name', ['l2_default', 'sce_sparse', 'bce_logits_posw', 'ctc_lengths', 'cosine_margin'])
def test_symbol_path(name):
    """hybrid_forward called with Symbols builds a graph whose inputs are the given variables."""
    case = SPEC[name]
    blk = getattr(gloss, case['cls'])(**case['kwargs'])
    arrs = inputs(name)
    syms = [None if a is None else mx.sym.var('in%d' % i) for i, a in enumerate(arrs)]
    out = blk(*syms)
    assert isinstance(out, mx.sym.Symbol)
    feed = {'in%d' % i: mx.nd.array(a) for i, a in enumerate(arrs) if a is not None}
    assert set(out.list_arguments()) <= set(feed)
    got = out.eval(ctx=mx.cpu(), **{k: v for k, v in feed.items() if k in out.list_arguments()})[0]
    np.testing.assert_allclose(got.asnumpy(), ARR[name + '/loss'], rtol=1e-5, atol=1e-5)


def test_is_hybridblock_and_all():
    assert issubclass(gloss.Loss, HybridBlock)
    assert sorted(gloss.__all__) == META['all']
    assert gloss.SigmoidBCELoss is gloss.SigmoidBinaryCrossEntropyLoss
    assert gloss.SoftmaxCELoss is gloss.SoftmaxCrossEntropyLoss
    assert not issubclass(gloss.SquaredHingeLoss, gloss.HingeLoss)
    assert mx.gluon.loss is gloss


def test_names_prefix_repr():
    parent = mx.gluon.Block(prefix='net_')
    with parent.name_scope():
        for cls, kw, prefix, name, rep, params, children in META['blocks']:
            b = getattr(gloss, cls)(**kw)
            assert (b.prefix, b.name, repr(b)) == (prefix, name, rep)
            assert sorted(b.collect_params().keys()) == params
            assert [c.prefix for c in b._children.values()] == children


def test_grad_matches_finite_differences():
    """Our own check, independent of the goldens: central differences of sum(loss) on a smooth case."""
    blk = gloss.SoftmaxCELoss(sparse_label=False, weight=0.3)
    x = np.random.RandomState(0).randn(3, 4)
    lab = np.random.RandomState(1).dirichlet(np.ones(4), 3)
    xa = mx.nd.array(x, dtype='float64')
    xa.attach_grad()
    with mx.autograd.record():
        out = blk(xa, mx.nd.array(lab, dtype='float64'))
    out.backward()
    num = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[idx] = 1e-6
        f = [blk(mx.nd.array(x + s * d, dtype='float64'), mx.nd.array(lab, dtype='float64')).asnumpy().sum()
             for s in (1, -1)]
        num[idx] = (f[0] - f[1]) / 2e-6
    np.testing.assert_allclose(xa.grad.asnumpy(), num, rtol=1e-5, atol=1e-7)


def test_errors():
    with pytest.raises(AssertionError, match="'NTC' and 'TNC'"):
        gloss.CTCLoss(layout='NCT')
    with pytest.raises(AssertionError, match="'NT' and 'TN'"):
        gloss.CTCLoss(label_layout='TT')
    with pytest.raises(ValueError, match='signed or binary'):
        gloss.LogisticLoss(label_format='pm1')
    with pytest.raises(AssertionError, match='weight must be a number'):
        gloss.L1Loss(weight='2')(mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))
    with pytest.raises(MXNetError):
        gloss.L2Loss()(mx.nd.ones((2, 3)), mx.nd.ones((2, 2)))   # label cannot take pred's shape
    for exc in (mx.base.MXNetAssertionError, mx.base.MXNetValueError):
        assert issubclass(exc, MXNetError)


def test_numpy_weight_and_int_weight():
    pred, label = mx.nd.array([[1., 2.]]), mx.nd.array([[0., 0.]])
    assert gloss.L1Loss(weight=np.float32(2))(pred, label).asscalar() == 3.0
    assert gloss.L1Loss(weight=2)(pred, label).asscalar() == 3.0


def test_sdml_bad_shapes():
    blk = gloss.SDMLLoss()
    with pytest.raises(AssertionError, match='SDMLLoss'):
        blk(mx.nd.ones((3, 2)), mx.nd.ones((4, 2)))
    with pytest.raises(ValueError, match='SDMLLoss'):
        blk(mx.nd.ones((3, 2, 1)), mx.nd.ones((3, 2, 1)))


def test_loss_in_hybrid_net():
    """A loss used inside a hybridized parent block traces with F = mx.sym and matches the eager result."""
    class Net(HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.ce = gloss.SoftmaxCELoss()

        def hybrid_forward(self, F, x, y):
            return self.ce(x, y)

    x, y = inputs('sce_sparse')
    net = Net()
    eager = net(mx.nd.array(x), mx.nd.array(y)).asnumpy()
    np.testing.assert_allclose(eager, ARR['sce_sparse/loss'], rtol=1e-5)
    net.hybridize()
    np.testing.assert_allclose(net(mx.nd.array(x), mx.nd.array(y)).asnumpy(), eager, rtol=1e-6)
    assert net.ce.prefix == net.prefix + 'softmaxcrossentropyloss0_'
