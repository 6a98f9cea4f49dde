"""gluon.Trainer against MXNet 1.9.1: an MLP trained with SGD/Adam on one and two contexts gives MXNet's weights
after every step (through mxcompat.kvstore, and through the in-process stand-in used while it is missing); the
shared scenarios; optimizer states written by MXNet load here; the gluon_mlp example prints what MXNet prints."""
import json

import numpy as np
import pytest

import mxcompat as mx
from tests.conftest import example_output
from mxcompat import gluon
from mxcompat.gluon import nn

from . import golden

META = json.load(open(golden.path('trainer.json')))
GOLD = np.load(golden.path('trainer.npz'))
X = np.array(META['X'], np.float32)
Y = np.array(META['Y'], np.float32)
cases = golden.load_module('gluon_cases')


@pytest.mark.parametrize('name', golden.scenario_names('trainer'))
def test_scenario_against_mxnet(name, tmp_path):
    golden.check_scenario(name, tmp_path)


def _setup(spec):
    ctxs = [mx.cpu(i) for i in range(spec['nctx'])]
    net = cases.mlp(nn)
    net.initialize(ctx=ctxs)
    cases.set_params(net, 3, mx)
    if spec.get('hybrid'):
        net.hybridize()
    if spec.get('lr_mult'):
        net[0].weight.lr_mult = spec['lr_mult']
    kw = {k: spec[k] for k in ('kvstore', 'update_on_kvstore') if k in spec}
    return ctxs, net, gluon.Trainer(net.collect_params(), spec['opt'], dict(spec['params']), **kw)


def _step(net, trainer, ctxs):
    return cases.train_step(mx, net, trainer, ctxs, X, Y)


def _check_step(name, step, net, ctxs, losses):
    np.testing.assert_allclose([l.asscalar() for l in losses], GOLD['%s|%d|loss' % (name, step)], rtol=1e-5)
    for k, p in net.collect_params().items():
        for ci, c in enumerate(ctxs):
            np.testing.assert_allclose(p.data(c).asnumpy(), GOLD['%s|%d|%s|%d' % (name, step, k, ci)], rtol=1e-5,
                                       atol=1e-6, err_msg='%s step %d %s ctx %d' % (name, step, k, ci))


@pytest.mark.parametrize('name', sorted(META['cases']))
def test_training_steps_match_mxnet(name):
    spec = META['cases'][name]
    ctxs, net, trainer = _setup(spec)
    for step in range(3):
        losses = _step(net, trainer, ctxs)
        _check_step(name, step, net, ctxs, losses)
    if spec['nctx'] > 1 and spec.get('kvstore', 'device') is not None:
        assert isinstance(trainer._kvstore, mx.kv.KVStore)
        assert trainer._update_on_kvstore == spec.get('update_on_kvstore', True)


@pytest.mark.parametrize('nctx', [1, 2])
def test_load_optimizer_states_written_by_mxnet(nctx, tmp_path):
    spec = dict(META['cases']['adam'], nctx=nctx)
    ctxs, net, trainer = _setup(spec)
    for k, p in net.collect_params().items():
        p.set_data(mx.nd.array(GOLD['adam|1|%s|0' % k]))
    trainer.load_states(golden.path('adam_states.bin'))
    assert type(trainer.optimizer).__name__ == 'Adam' and trainer.optimizer.num_update == 2
    losses = _step(net, trainer, [mx.cpu(0)] if nctx == 1 else ctxs)
    for k, p in net.collect_params().items():
        for c in ctxs:
            np.testing.assert_allclose(p.data(c).asnumpy(), GOLD['adam|2|%s|0' % k], rtol=1e-5, atol=1e-6)
    assert len(losses) == nctx
    f = str(tmp_path / 'again.states')
    trainer.save_states(f)
    trainer.load_states(f)
    assert trainer.optimizer.num_update == 3


def test_gluon_mlp_example_prints_what_mxnet_prints():
    got, want = example_output('gluon_mlp')
    assert got == want


@pytest.mark.parametrize('opt, first', [('adam', [-0.09316673874855042, -0.08700238913297653, -0.06987413018941879]),
                                        ('sgd', [-0.14316610991954803, -0.13700175285339355, -0.11987350136041641])])
def test_step_with_a_0d_np_array_batch_size(opt, first):
    # D2L 0.17.6's train_seq2seq: trainer.step(num_tokens), num_tokens = Y_valid_len.sum() (a 0-d mx.np array);
    # MXNet's update operators parse the rescale factor from the array's text. Weights of MXNet 1.9.1.
    mx.npx.set_np()
    try:
        mx.random.seed(0)
        net = gluon.nn.Dense(2, in_units=3)
        net.initialize()
        tr = gluon.Trainer(net.collect_params(), opt, {'learning_rate': 0.1})
        with mx.autograd.record():
            l = (net(mx.np.ones((4, 3))) * 3).sum()
        l.backward()
        tr.step(mx.np.array(8.))
        np.testing.assert_allclose(net.weight.data().asnumpy().ravel()[:3], first, rtol=1e-6)
    finally:
        mx.npx.reset_np()
    # a legacy (1,)-shaped array is refused, as MXNet's operators refuse its text
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    tr = gluon.Trainer(net.collect_params(), opt, {'learning_rate': 0.1})
    with mx.autograd.record():
        l = net(mx.nd.ones((4, 3))).sum()
    l.backward()
    with pytest.raises(mx.base.MXNetError, match='rescale_grad'):
        tr.step(mx.nd.array([8.]))
