"""mx.optimizer's API surface: registry and create, learning-rate and weight-decay bookkeeping, multipliers,
multi_precision states, errors MXNet 1.9.1 raises (checked against the oracle when the fixtures were made), and the
rules whose output is random (SGLD)."""
import math
import pickle
import warnings

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetValueError
from mxcompat.optimizer import Optimizer

MXNET_ALL = ['AdaDelta', 'AdaGrad', 'Adam', 'Adamax', 'DCASGD', 'FTML', 'Ftrl', 'LARS', 'LBSGD', 'NAG', 'NDabs',
             'Nadam', 'Optimizer', 'RMSProp', 'SGD', 'SGLD', 'Signum', 'LAMB', 'Test', 'Updater', 'ccSGD', 'create',
             'get_updater', 'register', 'contrib']


def test_namespace_matches_mxnet():
    assert mx.optimizer.__all__ == MXNET_ALL
    for name in MXNET_ALL:
        assert hasattr(mx.optimizer, name)
    assert mx.optimizer.optimizer.SGD is mx.optimizer.SGD
    assert mx.optimizer.contrib.GroupAdaGrad is mx.optimizer.Optimizer.opt_registry['groupadagrad']
    assert mx.optimizer.create is Optimizer.create_optimizer


@pytest.mark.parametrize('name, cls', [('sgd', 'SGD'), ('SGD', 'SGD'), ('AdAm', 'Adam'), ('ccsgd', 'ccSGD'),
                                       ('rmsprop', 'RMSProp'), ('groupadagrad', 'GroupAdaGrad')])
def test_create_is_case_insensitive(name, cls):
    assert type(mx.optimizer.create(name)).__name__ == cls


def test_create_unknown_name():
    with pytest.raises(MXNetValueError, match='Cannot find optimizer nosuch') as e:
        mx.optimizer.create('nosuch')
    assert isinstance(e.value, ValueError) and isinstance(e.value, MXNetError)


def test_create_passes_arguments():
    opt = mx.optimizer.create('adam', learning_rate=0.1, beta1=0.5, wd=0.01)
    assert (opt.lr, opt.beta1, opt.wd, opt.learning_rate) == (0.1, 0.5, 0.01, 0.1)
    with pytest.raises(TypeError):
        mx.optimizer.create('sgd', no_such_option=1)


def test_register_custom_and_override_warning():
    with pytest.raises(AssertionError):
        mx.optimizer.register(3)

    @mx.optimizer.register
    class MyOptTest(Optimizer):
        def create_state(self, index, weight):
            return mx.nd.zeros(weight.shape)

        def update(self, index, weight, grad, state):
            weight[:] -= self._get_lr(index) * grad
            state[:] += 1

    try:
        opt = mx.optimizer.create('myopttest', learning_rate=0.5)
        upd = mx.optimizer.get_updater(opt)
        w = mx.nd.ones((2,))
        upd(0, mx.nd.ones((2,)), w)
        np.testing.assert_allclose(w.asnumpy(), [0.5, 0.5])
        with pytest.warns(UserWarning, match='overriding'):
            mx.optimizer.Optimizer.register(type('MyOptTest', (Optimizer,), {}))
    finally:
        del Optimizer.opt_registry['myopttest']


def test_defaults_and_attributes_match_mxnet():
    opt = mx.optimizer.SGD(momentum=0.9)
    assert sorted(vars(opt)) == sorted([
        '_all_index_update_counts', '_index_update_count', 'aggregate_num', 'allow_np_array', 'begin_num_update',
        'clip_gradient', 'idx2name', 'lazy_update', 'lr', 'lr_mult', 'lr_scheduler', 'momentum',
        'multi_precision', 'num_update', 'param_dict', 'rescale_grad', 'sym_info', 'wd', 'wd_mult'])
    assert (opt.lr, opt.wd, opt.rescale_grad, opt.clip_gradient, opt.aggregate_num) == (0.01, 0.0, 1.0, None, 4)
    assert mx.optimizer.Adam().lr == 0.001 and mx.optimizer.Ftrl().lr == 0.1 and mx.optimizer.Adamax().lr == 0.002
    assert mx.optimizer.LAMB().aggregate_num == 45 and mx.optimizer.Adam().aggregate_num == 0


def test_aggregation_size_from_environment(monkeypatch):
    monkeypatch.setenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '7')
    assert mx.optimizer.SGD().aggregate_num == 7 and mx.optimizer.LAMB().aggregate_num == 7
    monkeypatch.setenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '100')
    assert mx.optimizer.LAMB().aggregate_num == 45


def test_learning_rate_setters():
    opt = mx.optimizer.SGD(learning_rate=0.1)
    opt.set_learning_rate(0.3)
    assert opt.learning_rate == 0.3 and opt.lr == 0.3
    with pytest.raises(DeprecationWarning):
        opt.set_lr_scale({})


def test_update_counts():
    opt = mx.optimizer.SGD(begin_num_update=10)
    assert opt.num_update == 10
    opt._update_count(0)
    opt._update_count([0, 1])
    assert opt._index_update_count == {0: 12, 1: 11} and opt.num_update == 12
    opt._set_current_context(1)
    opt._update_count(0)
    assert opt._index_update_count == {0: 11} and opt.num_update == 12
    opt._set_current_context(0)
    assert opt._index_update_count == {0: 12, 1: 11}


def test_lr_and_wd_multipliers_by_name_and_index():
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.01,
                           param_idx2name={0: 'fc_weight', 1: 'fc_bias', 2: 'bn_gamma', 3: 'bn_beta'})
    assert opt.wd_mult == {'fc_bias': 0.0, 'bn_beta': 0.0}
    opt.set_lr_mult({'fc_weight': 2.0, 3: 0.5})
    opt.set_wd_mult({'bn_gamma': 3.0})
    assert opt._get_lr(0) == pytest.approx(0.2) and opt._get_lr(1) == 0.1 and opt._get_lr(3) == 0.05
    assert opt._get_lr(9) == 0.1
    assert [opt._get_wd(i) for i in range(4)] == pytest.approx([0.01, 0.0, 0.03, 0.0])
    lars = mx.optimizer.LARS(param_idx2name={0: 'fc_weight', 2: 'bn_gamma'})
    assert lars.wd_mult == {'bn_gamma': 0.0}


class _FakeSym:
    """What the optimizer reads from a Symbol: attr_dict() and list_arguments()."""

    def attr_dict(self):
        return {'fc_weight': {'__lr_mult__': '0.5', '__wd_mult__': '2'}, 'fc_bias': {'__wd_mult__': '0'},
                'data': {'other': '1'}}

    def list_arguments(self):
        return ['data', 'fc_weight', 'fc_bias']


def test_sym_attribute_multipliers():
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.1, sym=_FakeSym(), param_idx2name={0: 'fc_weight', 1: 'fc_bias'})
    assert opt.lr_mult == {'fc_weight': 0.5}
    assert opt.wd_mult == {'fc_weight': 2.0, 'fc_bias': 0.0}
    assert opt._get_lr(0) == pytest.approx(0.05) and opt._get_wd(0) == pytest.approx(0.2)
    opt.set_lr_mult({'fc_bias': 3.0})
    assert opt.lr_mult == {'fc_weight': 0.5, 'fc_bias': 3.0}


def test_sym_attribute_multipliers_from_a_real_symbol():
    sym = getattr(mx, 'sym', None)
    if sym is None or not hasattr(sym, 'Variable') or not hasattr(sym, 'FullyConnected'):
        pytest.skip('mx.sym is not available yet')
    w = sym.Variable('fc_weight', lr_mult=0.5, wd_mult=2.0)
    net = sym.FullyConnected(sym.Variable('data'), weight=w, num_hidden=3, name='fc')
    opt = mx.optimizer.SGD(sym=net)
    assert opt.lr_mult['fc_weight'] == 0.5 and opt.wd_mult['fc_weight'] == 2.0


class _Param:
    def __init__(self, lr_mult, wd_mult):
        self.lr_mult, self.wd_mult = lr_mult, wd_mult


def test_param_dict_takes_precedence_and_is_not_pickled():
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.1, param_dict={0: _Param(2.0, 0.0)})
    opt.set_lr_mult({0: 10.0})
    assert opt._get_lr(0) == pytest.approx(0.2) and opt._get_wd(0) == 0.0
    back = pickle.loads(pickle.dumps(opt))
    assert back.param_dict == {} and back.lr_mult == {0: 10.0} and back._get_lr(0) == pytest.approx(1.0)


@pytest.mark.parametrize('opt, layout', [
    (mx.optimizer.SGD(momentum=0.9, multi_precision=True), ('float32', 'float32')),
    (mx.optimizer.SGD(multi_precision=True), (None, 'float32')),
    (mx.optimizer.NAG(momentum=0.9, multi_precision=True), ('float32', 'float32')),
    (mx.optimizer.LARS(momentum=0.9, multi_precision=True), ('float32', 'float32')),
    (mx.optimizer.Adam(multi_precision=True), ('float32', ('float32', 'float32'))),
    (mx.optimizer.LAMB(multi_precision=True), ('float32', ('float32', 'float32'))),
    (mx.optimizer.RMSProp(multi_precision=True), ('float32', ('float32',))),
    (mx.optimizer.SGLD(multi_precision=True), ('float32', None)),
])
def test_multi_precision_state_layout(opt, layout):
    w = mx.nd.array([[1, 2], [3, 4]], dtype='float16')
    state = opt.create_state_multi_precision(0, w)

    def describe(s):
        if s is None:
            return None
        if isinstance(s, tuple):
            return tuple(describe(x) for x in s)
        assert s.shape == (2, 2)
        return np.dtype(s.dtype).name
    assert describe(state) == layout
    grad = mx.nd.ones((2, 2), dtype='float16')
    opt.update_multi_precision(0, w, grad, state)
    assert w.dtype == np.float16


def test_float16_without_multi_precision_warns():
    w = mx.nd.ones((2,), dtype='float16')
    with pytest.warns(UserWarning, match='multi_precision'):
        mx.optimizer.SGD(momentum=0.9).create_state_multi_precision(0, w)
    with pytest.warns(UserWarning, match='multi_precision'):
        mx.optimizer.Adam().create_state_multi_precision(0, w)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        mx.optimizer.Adam().create_state_multi_precision(0, mx.nd.ones((2,)))


def test_state_dtypes():
    w16 = mx.nd.ones((2,), dtype='float16')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert mx.optimizer.Adam().create_state(0, w16)[0].dtype == np.float16
        assert mx.optimizer.AdaGrad().create_state(0, w16).dtype == np.float32
        assert mx.optimizer.SGD().create_state(0, w16) is None


def test_base_optimizer_update_is_abstract():
    with pytest.raises(NotImplementedError):
        Optimizer().update(0, mx.nd.ones((1,)), mx.nd.ones((1,)), None)


def test_non_ndarray_arguments_raise():
    with pytest.raises(AssertionError):
        mx.optimizer.Adam().update(0, np.ones(2), mx.nd.ones((2,)), None)


def test_dcasgd_momentum_fails_as_in_mxnet():
    opt = mx.optimizer.DCASGD(momentum=0.9)
    w = mx.nd.ones((2, 3))
    with pytest.raises(ValueError, match='ambiguous'):
        opt.update(0, w, mx.nd.ones((2, 3)), opt.create_state(0, w))
    w1 = mx.nd.ones((1,))
    with pytest.raises(AssertionError):
        opt.update(0, w1, mx.nd.ones((1,)), opt.create_state(0, w1))


def test_signsgd_rejects_wd_lh():
    opt = mx.optimizer.Signum(momentum=0.0, wd_lh=0.1)
    w = mx.nd.ones((2,))
    with pytest.raises(MXNetError, match='wd_lh'):
        opt.update(0, w, mx.nd.ones((2,)), opt.create_state(0, w))


def test_adadelta_rescales_the_gradient_in_place():
    g = mx.nd.ones((3,))
    mx.optimizer.AdaDelta(rescale_grad=0.5).update(0, mx.nd.ones((3,)), g,
                                                   mx.optimizer.AdaDelta().create_state(0, g))
    np.testing.assert_array_equal(g.asnumpy(), [0.5, 0.5, 0.5])


def test_group_adagrad_errors():
    opt = mx.optimizer.contrib.GroupAdaGrad(wd=0.1)
    with pytest.raises(AssertionError):
        opt.create_state(0, mx.nd.ones((3,)))
    w = mx.nd.ones((2, 2))
    with pytest.raises(AssertionError, match='Weight decay'):
        opt.update(0, w, mx.nd.ones((2, 2)), opt.create_state(0, w))


def test_lamb_single_index_in_a_list_needs_aggregate_num_of_one(monkeypatch):
    monkeypatch.setenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '1')
    opt = mx.optimizer.LAMB()
    w = mx.nd.ones((2,))
    opt.update([0], [w], [mx.nd.ones((2,))], [opt.create_state(0, w)])
    assert opt._index_update_count == {0: 1}
    with pytest.raises(AssertionError):
        opt.update([0, 1], [w, w], [w, w], [opt.create_state(0, w)] * 2)


def test_sgld_noise_statistics():
    mx.random.seed(3)
    lr, wd = 0.01, 0.1
    opt = mx.optimizer.SGLD(learning_rate=lr, wd=wd, rescale_grad=2.0, clip_gradient=0.5)
    n = 200000
    w = mx.nd.ones((n,))
    g = mx.nd.ones((n,))
    opt.update(0, w, g, opt.create_state(0, w))
    drift = -lr / 2 * (min(2.0, 0.5) + wd)
    noise = w.asnumpy() - 1.0 - drift
    assert abs(noise.mean()) < 5 * math.sqrt(lr / n)
    assert noise.std() == pytest.approx(math.sqrt(lr), rel=0.01)
    assert opt.num_update == 1


@pytest.mark.parametrize('name', ['sgd', 'adam', 'adagrad', 'lamb', 'nag'])
def test_shape_mismatch_raises(name):
    opt = mx.optimizer.create(name)
    w = mx.nd.ones((3, 4))
    with pytest.raises(MXNetValueError, match=r'update: Incompatible attr.*expected \[3, 4\], got \[4\]'):
        opt.update(0, w, mx.nd.ones((4,)), opt.create_state(0, w))




# the rules whose MXNet 1.9.1 update is a fused operator taking floating-point weights only: an integer weight raises
# MXNetError ('This operation only support floating point types, not int32' there; checked on the oracle for each)
@pytest.mark.parametrize('name, kwargs, op', [
    ('sgd', {}, 'sgd_update'), ('sgd', {'momentum': 0.9}, 'sgd_mom_update'), ('ccsgd', {}, 'sgd_update'),
    ('nag', {'momentum': 0.9}, 'nag_mom_update'), ('lars', {}, 'sgd_update'), ('lbsgd', {}, 'sgd_update'),
    ('signum', {}, 'signum_update'), ('adam', {}, 'adam_update'), ('ftml', {}, 'ftml_update'),
    ('lamb', {}, 'lamb_update_phase1')])
@pytest.mark.parametrize('dtype', ['int32', 'int64', 'uint8'])
def test_integer_weight_raises_naming_op_and_dtype(name, kwargs, op, dtype):
    opt = mx.optimizer.create(name, learning_rate=0.5, **kwargs)
    w = mx.nd.array([2, 2, 2], dtype=dtype)
    g = mx.nd.array([1, 2, 3], dtype=dtype)
    state = opt.create_state_multi_precision(0, w)
    with pytest.raises(MXNetError, match='%s.*floating point types only, not %s' % (op, dtype)):
        opt.update_multi_precision(0, w, g, state)
    assert w.asnumpy().tolist() == [2, 2, 2]


def test_trainer_step_on_integer_parameter_raises():
    p = mx.gluon.Parameter('w', shape=(3,), dtype='int32', init=mx.init.Constant(2))
    p.initialize()
    trainer = mx.gluon.Trainer([p], 'sgd', {'learning_rate': 0.5})
    with mx.autograd.record():
        y = (p.data() * mx.nd.array([1, 2, 3], dtype='int32')).sum()
    y.backward()
    assert p.grad().asnumpy().tolist() == [1, 2, 3]  # (as MXNet: the gradient is taken, the update refuses)
    with pytest.raises(MXNetError, match='sgd_update.*not int32'):
        trainer.step(1)
    assert p.data().asnumpy().tolist() == [2, 2, 2]
