"""The `sum` input of _sg_mkldnn_conv (mxcompat/operator/_sg_mkldnn.py) gets its shape from the fused convolution's,
as MXNet 1.9.1's shape function gives it: a variable added after conv + BatchNorm binds from the data shape alone
(MXNet's tests/python/mkl/test_subgraph.py test_neg_conv_bn_add_relu). Goldens: infer_shape of the MKLDNN-partitioned
graphs under real MXNet (tests/fixtures/contrib/sg_mkldnn_sum_shape/gen_sum_shape.py)."""
import json
import pathlib
import sys

import pytest

import mxcompat as mx

FIX = pathlib.Path(__file__).resolve().parent.parent / 'fixtures' / 'contrib' / 'sg_mkldnn_sum_shape'
sys.path.insert(0, str(FIX))
import graphs  # noqa: E402

sys.path.remove(str(FIX))
GOLD = json.loads((FIX / 'shapes.json').read_text())
CASES = [(c, u) for c in graphs.CONVS for u in (True, False)]


def _partitioned(conv, unfused):
    return graphs.conv_bn_add(mx, conv, unfused).get_backend_symbol('MKLDNN')


@pytest.mark.parametrize('conv,unfused', CASES)
@pytest.mark.parametrize('shape', graphs.DATA_SHAPES)
def test_sum_shape_from_the_convolution(conv, unfused, shape):
    sym = _partitioned(conv, unfused)
    gold = GOLD['%s/%s/%s' % (conv, unfused, 'x'.join(map(str, shape)))]
    assert [n['op'] for n in json.loads(sym.tojson())['nodes'] if n['op'] != 'null'] == gold['ops']
    assert sym.list_arguments() == gold['args']
    arg, out, aux = sym.infer_shape(data=shape)
    assert [list(s) for s in arg] == gold['arg_shapes']
    assert [list(s) for s in out] == gold['out_shapes']
    assert [list(s) for s in aux] == gold['aux_shapes']
    exe = sym.simple_bind(mx.cpu(), data=shape, grad_req='null')
    assert exe.arg_dict['addval'].shape == tuple(gold['arg_shapes'][-1])


@pytest.mark.parametrize('conv,unfused', CASES)
def test_sum_shape_with_unknown_batch(conv, unfused):
    arg, out, _ = _partitioned(conv, unfused).infer_shape_partial(data=(0,) + graphs.DATA_SHAPES[1][1:])
    gold = GOLD['%s/%s/partial' % (conv, unfused)]
    assert [list(s) for s in arg] == gold['arg_shapes']
    assert [list(s) for s in out] == gold['out_shapes']


def test_fused_sum_adds_the_variable():
    # float32 values: the bound graph adds addval after conv + BatchNorm (fused), then the relu
    sym = _partitioned('k3', False)
    plain = graphs.conv_bn_add(mx, 'k3', False)
    shape = (2, 4, 6, 6)
    exe = sym.simple_bind(mx.cpu(), data=shape, grad_req='null')
    ref = plain.simple_bind(mx.cpu(), data=shape, grad_req='null')
    for name, a in exe.arg_dict.items():
        a[:] = mx.nd.random.uniform(-1, 1, shape=a.shape)
        ref.arg_dict[name][:] = a
    for name, a in exe.aux_dict.items():
        a[:] = mx.nd.random.uniform(0.5, 1, shape=a.shape)
        ref.aux_dict[name][:] = a
    got = exe.forward(is_train=False)[0].asnumpy()
    want = ref.forward(is_train=False)[0].asnumpy()
    assert abs(got - want).max() < 1e-4
