"""mx.contrib.amp: the amp_cast/amp_multicast operators, the op lists, amp.init's rewiring of mx.nd/mx.sym/Gluon and
the trainer's dynamic loss scaling (the graph conversions: test_amp_convert.py).

amp.init is process-global and irreversible (as in MXNet), so everything after it runs in a subprocess over the
scenarios in tests/fixtures/amp/amp_scenarios.py, compared with what MXNet 1.9.1 gave (gen_amp.py)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetNotImplementedError
from mxcompat.contrib import amp
from mxcompat.contrib.amp import amp as amp_module
from mxcompat.contrib.amp.loss_scaler import LossScaler

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, 'tests', 'fixtures', 'amp')
BF16_GROUPS = ('init_bf16', 'trainer_bf16')


def _dtypes(outs):
    from mxcompat.base import dtype_name
    return [dtype_name(o._t.dtype) for o in (outs if isinstance(outs, (list, tuple)) else [outs])]


# ---- the operators (MXNet's type rule in src/operator/tensor/amp_cast.h) --------------------------------------------
F16, F32, F64, I32 = (mx.nd.array([1.5, -2.25], dtype=d) for d in ('float16', 'float32', 'float64', 'int32'))
BF = mx.nd.amp_cast(F32, dtype=amp.bfloat16)


@pytest.mark.parametrize('src, dst, want', [
    (F32, 'float16', 'float16'), (F16, 'float32', 'float32'), (F32, 'bfloat16', 'bfloat16'),
    (BF, 'float32', 'float32'), (F64, 'float16', 'float64'), (F64, 'float32', 'float64'), (I32, 'float16', 'int32'),
    (I32, 'float32', 'int32')])  # (oracle-checked: float64 and int32 pass through)
def test_amp_cast_casts_only_the_amp_floats(src, dst, want):
    out = mx.nd.amp_cast(src, dtype=dst)
    assert _dtypes(out) == [want]
    np.testing.assert_array_equal(out.asnumpy().astype(np.float64), src.asnumpy().astype(np.float64))


@pytest.mark.parametrize('ins, narrow, want', [
    ((F16, F32), False, ['float32'] * 2), ((F16, F32), True, ['float16'] * 2),
    ((F16, F32, F64), False, ['float32', 'float32', 'float64']),
    ((F64, F16), False, ['float64'] * 2),  # no float32: the first input's dtype wins, float16 goes to float64
    ((I32, F16), False, ['int32'] * 2),    # ... even an integer one (all oracle-checked)
    ((I32, F16), True, ['int32', 'float16']), ((F32, F64), False, ['float32', 'float64']),
    ((BF, F32), False, ['float32'] * 2), ((BF, F32), True, ['bfloat16'] * 2),
    ((BF, F16), True, ['float16'] * 2), ((F16, BF), True, ['bfloat16'] * 2)])  # narrow: the last low type decides
def test_amp_multicast_type_rule(ins, narrow, want):
    assert _dtypes(mx.nd.amp_multicast(*ins, num_outputs=len(ins), cast_narrow=narrow)) == want


def test_amp_multicast_symbol_has_mxnet_attributes_and_errors():
    a, b = mx.sym.var('a'), mx.sym.var('b')
    node = json.loads(mx.sym.amp_multicast(a, b, num_outputs=2, name='mc').tojson(False))['nodes'][-1]
    assert node['attrs'] == {'num_outputs': '2'}  # no num_args, as in MXNet
    ex = mx.sym.amp_multicast(a, b, num_outputs=2).bind(mx.cpu(), {'a': F16, 'b': F32})
    assert _dtypes(ex.forward()) == ['float32', 'float32']
    with pytest.raises(MXNetError, match='amp_multicast'):
        mx.nd.amp_multicast(F16, F32, num_outputs=3)
    with pytest.raises(MXNetError, match='amp_cast'):
        mx.nd.amp_cast(F32)


def test_tojson_leaves_the_amp_casts_out_by_default():
    # oracle-checked: MXNet's tojson()/save() drop amp_cast and amp_multicast unless remove_amp_cast=False
    a, b = mx.sym.var('a'), mx.sym.var('b')
    m = mx.sym.amp_multicast(mx.sym.amp_cast(a, dtype='float16', name='c'), b, num_outputs=2, name='m')
    s = mx.sym.elemwise_add(m[0], m[1], name='add')
    g = json.loads(s.tojson())
    assert [[n['op'], n['name'], n['inputs']] for n in g['nodes']] == [
        ['null', 'a', []], ['null', 'b', []], ['elemwise_add', 'add', [[0, 0, 0], [1, 0, 0]]]]
    assert g['heads'] == [[2, 0, 0]]
    assert len(json.loads(s.tojson(remove_amp_cast=False))['nodes']) == 5
    assert [n.name for n in s._nodes()][-1] == 'add' and len(s._nodes()) == 5  # the symbol itself is unchanged


def test_tojson_keeps_an_amp_cast_that_is_an_output():
    # oracle-checked: MXNet's RemoveAmpCast rewires the nodes that read a cast; a cast that is an output of the graph
    # stays (its own input rewired past another cast)
    x = mx.sym.var('x')
    c = mx.sym.amp_cast(x, dtype='float16', name='c1')
    g = json.loads(mx.sym.Group([mx.sym.amp_cast(c, dtype='float32', name='c2'), mx.sym.relu(c, name='r')]).tojson())
    assert [[n['op'], n['name'], n['inputs']] for n in g['nodes']] == [
        ['null', 'x', []], ['amp_cast', 'c2', [[0, 0, 0]]], ['relu', 'r', [[0, 0, 0]]]]
    assert g['heads'] == [[1, 0, 0], [2, 0, 0]]
    assert [n['op'] for n in json.loads(c.tojson())['nodes']] == ['null', 'amp_cast']


def test_gradients_flow_back_through_the_casts():
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        p, q = mx.nd.amp_multicast(mx.nd.amp_cast(x, dtype='float16'), x, num_outputs=2)
        z = (p * q * 2).sum()
    z.backward()
    assert _dtypes(x.grad) == ['float32']
    np.testing.assert_allclose(x.grad.asnumpy(), [4, 8, 12])


# ---- the lists ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('dtype, key', [('float16', 'float16'), (np.float16, 'float16'), ('bfloat16', 'bfloat16'),
                                        (amp.bfloat16, 'bfloat16')])
def test_lists_are_mxnets_restricted_to_registered_ops(dtype, key):
    from mxcompat.operator.registry import REGISTRY
    gold = json.load(open(os.path.join(FIX, 'mxnet_lists.json')))
    ours = {'lp16': amp.list_lp16_ops(dtype), 'fp32': amp.list_fp32_ops(dtype),
            'lp16_fp32': amp.list_lp16_fp32_ops(dtype), 'widest': amp.list_widest_type_cast(dtype),
            'loss': amp.list_loss_output_functions(dtype)}
    for k, names in ours.items():
        assert sorted(names) == [n for n in gold['%s_%s' % (key, k)] if n in REGISTRY], k
    assert [list(c[:2]) + [list(c[2])] for c in amp.list_conditional_fp32_ops(dtype)] == gold[key + '_conditional']
    params = amp.list_lp16_use_fp32_params(dtype)
    want = gold[key + '_use_fp32_params']
    assert params == (None if want is None else {k: v for k, v in want.items() if k in REGISTRY})
    if key == 'float16':
        assert amp.list_fp16_ops() == amp.list_lp16_ops('float16')
    # (MXNet's test_amp_coverage) every name is in exactly one list
    in_lists = sum((ours[k] for k in ('lp16', 'fp32', 'lp16_fp32', 'widest')), [])
    in_lists += [c[0] for c in amp.list_conditional_fp32_ops(dtype)]
    assert len(in_lists) == len(set(in_lists))


# ---- errors without amp.init (nothing below initializes AMP in this process) ----------------------------------------
def test_bad_arguments_raise_as_mxnet_does():
    with pytest.raises(AssertionError, match='target_dtype'):
        amp.init(target_dtype='float64')
    with pytest.raises(MXNetNotImplementedError, match='amp.init.*fp32_ops.*NoSuchOp'):
        amp.init(target_dtype='bfloat16', fp32_ops=['NoSuchOp'])
    assert not amp_module._amp_initialized
    net = mx.gluon.nn.Dense(2, in_units=2)
    net.initialize()
    tr = mx.gluon.Trainer(net.collect_params(), 'sgd')
    with pytest.raises(AssertionError, match='amp.init'):
        amp.init_trainer(tr)
    with pytest.raises(AssertionError, match='init_trainer'):
        with amp.scale_loss(mx.nd.ones((1,)), tr):
            pass
    with pytest.raises(TypeError, match='only compatible with Gluon Trainer'):
        amp.unscale(mx.optimizer.SGD())
    with pytest.raises(AssertionError):
        amp.list_lp16_ops('float64')


def test_package_layout():
    assert amp_module.init is amp.init and amp.amp is amp_module
    assert amp.lists.symbol_bf16.BF16_FUNCS == ['Convolution', 'FullyConnected']
    assert amp.LossScaler is LossScaler
    assert mx.nd.amp_cast(F32, dtype=amp.bfloat16)._t.dtype is mx.nd.amp_cast(F32, dtype='bfloat16')._t.dtype


# ---- the loss scaler on its own -------------------------------------------------------------------------------------
class _P:
    def __init__(self, value):
        self._grad = [mx.nd.array([value])]


def test_loss_scaler_halves_on_overflow_and_doubles_after_a_clean_run():
    ls = LossScaler()
    assert ls.loss_scale == 2. ** 16 and ls._scale_seq_len == 2000
    ls._scale_seq_len = 3
    seq = []
    for g in [1, np.inf, 1, 1, np.nan, 1, 1, 1, 1]:
        seq.append((ls.has_overflow([_P(g), _P(1)]), ls.loss_scale))
        # the new scale is taken at the next check, as in MXNet
    assert seq == [(False, 65536.), (True, 65536.), (False, 32768.), (False, 32768.), (True, 32768.),
                   (False, 16384.), (False, 16384.), (False, 16384.), (False, 32768.)]
    ls._loss_scale = ls._next_loss_scale = 2. ** 24
    for _ in range(3):
        ls.has_overflow([_P(1)])
    assert ls._next_loss_scale == 2. ** 24  # capped


# ---- after amp.init, in a subprocess, against MXNet 1.9.1 -----------------------------------------------------------
def _run(groups, tmpdir):
    env = dict(os.environ, MXCOMPAT='1', PYTHONPATH=os.pathsep.join([ROOT, FIX, os.environ.get('PYTHONPATH', '')]))
    subprocess.run([sys.executable, os.path.join(FIX, 'amp_scenarios.py'), ','.join(groups), tmpdir],
                   check=True, env=env, timeout=600, capture_output=True)
    return tmpdir


def _result(group, tmp_path_factory):
    groups = BF16_GROUPS if group in BF16_GROUPS else (group,)
    d = _run_in(groups, tmp_path_factory)
    ours = (json.load(open(os.path.join(d, 'amp_%s.json' % group))), np.load(os.path.join(d, 'amp_%s.npz' % group)))
    gold = (json.load(open(os.path.join(FIX, 'amp_%s.json' % group))), np.load(os.path.join(FIX, 'amp_%s.npz' % group)))
    return ours, gold


_DIRS = {}  # one subprocess per group set for the whole session


def _run_in(groups, tmp_path_factory):
    if groups not in _DIRS:
        d = tmp_path_factory.mktemp('amp')
        _DIRS[groups] = _run(groups, str(d))
    return _DIRS[groups]


def _compare(group, tmp_path_factory, skip=(), rtol=1e-2, atol=1e-2):
    (ours_j, ours_a), (gold_j, gold_a) = _result(group, tmp_path_factory)
    for k in gold_j:
        if k not in skip:
            assert ours_j.get(k) == gold_j[k], k
    for k in gold_a.files:
        np.testing.assert_allclose(ours_a[k], gold_a[k], rtol=rtol, atol=atol, err_msg=k)
    return ours_j, ours_a


def test_init_bf16_nd_sym_and_gluon_match_mxnet(tmp_path_factory):
    ours, _ = _compare('init_bf16', tmp_path_factory)
    # what that covers: eager nd ops cast by the lists (positional act_type is not a condition, float16 arrays
    # are not cast on CPU), the symbol graph with its amp_cast/amp_multicast nodes, a Gluon net eager and
    # hybridized (float32 / float32 / bfloat16 outputs), SoftmaxOutput's grad_scale taking the loss scale
    assert ours['hybrid_dtypes'] == ['float32', 'float32', 'bfloat16']
    assert ours['nd_softrelu_positional'] == 'bfloat16' and ours['nd_f16_to_fp32_op'] == 'float16'


def test_trainer_dynamic_loss_scaling_matches_mxnet(tmp_path_factory):
    ours, arrays = _compare('trainer_bf16', tmp_path_factory, skip=('errors',))
    assert ours['scales'] == [65536.0] * 4 + [32768.0] + [16384.0] * 3 + [8192.0] * 2
    assert ours['skipped'] == [False, False, True, True, False, False, True, False, False]
    assert set(ours['errors'].values()) == {'MXNetTypeError'}  # MXNet: TypeError (ours subclass it)
    np.testing.assert_allclose(arrays['grad_unscaled'] * 65536, arrays['grad_scaled'])


def test_init_fp16_on_cpu(tmp_path_factory):
    # MXNet's CPU build casts to float16 the same way but cannot run float16 FullyConnected (it raises when the
    # result is read); mxcompat computes it. The graph is MXNet's.
    (ours, arrays), (gold, _) = _result('init_fp16', tmp_path_factory)
    assert ours['nd_fc'] == gold['nd_fc'] == 'float16'
    assert ours['sym_graph'] == gold['sym_graph']
    assert ours['nd_exp_of_fp16'] == 'float16'  # float16 is not among the CPU casts: exp stays in float16
    assert ours['nd_add_mixed'] == 'float32'
    def arr(shape, scale, seed):  # amp_scenarios.arr
        return np.random.RandomState(seed).randint(-4, 5, size=shape) * scale
    want = arr((2, 4), 0.5, 5) @ arr((3, 4), 0.25, 6).T + arr((3,), 0.25, 7)
    np.testing.assert_allclose(arrays['nd_fc_val'], want, rtol=1e-3)


# ---- amp_cast in shape inference (no amp.init needed) ---------------------------------------------------------------
def test_amp_cast_passes_shapes_both_ways():
    # amp.init puts an amp_cast on every input of a cast op, parameters included: their shapes must come back
    # through it for deferred initialization (MXNet's amp_cast has ElemwiseShape; all oracle-checked)
    data, w, b = mx.sym.var('data'), mx.sym.var('w'), mx.sym.var('b')
    fc = mx.sym.FullyConnected(mx.sym.amp_cast(data, dtype='float16'), mx.sym.amp_cast(w, dtype='float16'),
                               mx.sym.amp_cast(b, dtype='float16'), num_hidden=8)
    assert fc.infer_shape(data=(2, 5)) == ([(2, 5), (8, 5), (8,)], [(2, 8)], [])
    bn = mx.sym.BatchNorm(mx.sym.amp_cast(data, dtype='float32'), mx.sym.amp_cast(mx.sym.var('g'), dtype='float32'),
                          mx.sym.amp_cast(mx.sym.var('be'), dtype='float32'), name='bn')
    assert bn.infer_shape(data=(2, 3, 4)) == ([(2, 3, 4), (3,), (3,)], [(2, 3, 4)], [(3,), (3,)])
    s = mx.sym.elemwise_add(mx.sym.amp_cast(data, dtype='float16'), mx.sym.var('z'))
    assert s.infer_shape(z=(3, 4)) == ([(3, 4), (3, 4)], [(3, 4)], [])


def test_amp_multicast_links_each_input_to_its_output():
    # shapes pass through amp_multicast both ways, pair by pair (values printed by MXNet 1.9.1)
    data = mx.sym.var('data')
    m = mx.sym.amp_multicast(data, mx.sym.var('z'), num_outputs=2)
    s = mx.sym.elemwise_add(m[0], m[1])
    assert s.infer_shape_partial(data=(3, 4)) == ([(3, 4), (3, 4)], [(3, 4)], [])
    assert s.infer_shape(data=(3, 4)) == ([(3, 4), (3, 4)], [(3, 4)], [])
    m3 = mx.sym.amp_multicast(data, mx.sym.var('z'), mx.sym.var('w'), num_outputs=3)
    assert mx.sym.Group([m3[0], m3[2] + 1]).infer_shape_partial(w=(5,)) == ([(), (), (5,)], [(), (5,)], [])
    assert m3.infer_shape_partial(z=(2, 2)) == ([(), (2, 2), ()], [(), (2, 2), ()], [])


# ---- after amp.init, deferred parameter shapes (tests/contrib/amp_deferred_scenarios.py, in a subprocess) ----------
HERE = os.path.dirname(os.path.abspath(__file__))
_DEFERRED = {}


def _deferred(target):
    if target not in _DEFERRED:
        env = dict(os.environ, MXCOMPAT='1', PYTHONPATH=os.pathsep.join([ROOT, os.environ.get('PYTHONPATH', '')]))
        out = subprocess.run([sys.executable, os.path.join(HERE, 'amp_deferred_scenarios.py'), target], check=True,
                             env=env, timeout=600, capture_output=True, text=True).stdout
        _DEFERRED[target] = json.loads(out)
    with open(os.path.join(HERE, 'amp_deferred_mxnet.json')) as f:
        return _DEFERRED[target], json.load(f)[target]


@pytest.mark.parametrize('target', ['float16', 'bfloat16'])
def test_deferred_shapes_after_amp_init_match_mxnet(target):
    # Dense/Conv2D/BatchNorm without input sizes, eager and hybridized: the parameters get MXNet's shapes (float32)
    # and the outputs the target dtype; under bfloat16 the values and a training step with loss scaling match too
    ours, gold = _deferred(target)
    assert sorted(ours) == sorted(gold)
    for k, want in gold.items():
        if k.endswith('_out') or k.startswith(('grad_', 'weight_', 'scaled_loss_')):  # values
            np.testing.assert_allclose(np.array(ours[k], np.float64), np.array(want, np.float64), rtol=1e-2,
                                       atol=1e-2, err_msg=k)
        else:
            assert ours[k] == want, k
    assert ours['mlp_hybrid_dtype'] == ours['conv_hybrid_dtype'] == target
    assert ['mlp_dense0_weight', [8, 75], 'float32'] in ours['mlp_hybrid_params']
