"""mx.contrib.quantization: MXNet 1.9.1's public functions (quantize_model and its graph pass are tested against
MXNet in test_quantize_graph.py, the MKL-DNN flow in test_quantization_mkldnn.py)."""
import inspect
import subprocess

import pytest

import mxcompat as mx
from tests.conftest import oracle_runner

# MXNet 1.9.1's public functions in mxnet.contrib.quantization (ORACLE_SCRIPT prints them)
MXNET_FUNCTIONS = ['calib_graph', 'combine_histogram', 'quantize_graph', 'quantize_model', 'quantize_model_mkldnn',
                   'quantize_net', 'quantize_net_v2']


def test_module_imports_with_mxnets_functions():
    import mxcompat.contrib.quantization as q
    from mxcompat.contrib import quantization
    assert quantization is q and mx.contrib.quantization is q
    assert sorted(q.__all__) == MXNET_FUNCTIONS
    assert all(inspect.isfunction(getattr(q, n)) for n in MXNET_FUNCTIONS)


def test_star_import_through_the_mxnet_alias():
    # GluonCV's scripts and model-zoo tests: from mxnet.contrib.quantization import *
    mx.install_alias()
    scope = {}
    exec('from mxnet.contrib.quantization import *', scope)  # noqa: S102
    assert sorted(k for k in scope if not k.startswith('__')) == MXNET_FUNCTIONS


def test_no_function_is_left_out():
    import mxcompat.contrib.quantization as q
    assert q.GAPS == ()


def test_gluoncv_style_call_fails_as_mxnets():
    # no calib_data nor data_shapes: MXNet's ValueError, before anything is exported
    from mxcompat.contrib.quantization import quantize_net
    net = mx.gluon.nn.HybridSequential()
    with pytest.warns(UserWarning, match='quantize_net_v2'), pytest.raises(ValueError, match='data_shapes required'):
        quantize_net(net, quantized_dtype='auto', exclude_layers=None, calib_data=None, calib_mode='none')


ORACLE_SCRIPT = ('import inspect, mxnet.contrib.quantization as q\n'
                 'print(sorted(n for n in dir(q) if not n.startswith("_") and inspect.isfunction(getattr(q, n))'
                 ' and getattr(q, n).__module__ == q.__name__))')


@pytest.mark.oracle
def test_function_names_are_mxnets():
    r = subprocess.run([oracle_runner(), '-c', ORACLE_SCRIPT], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == repr(MXNET_FUNCTIONS)
