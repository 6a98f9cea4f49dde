"""mx.runtime: MXNet 1.9.1's feature names and error, values from torch; mx.__version__ and mx.libinfo."""
import json
import os
import re

import pytest
import torch

import mxcompat.runtime as runtime

GOLD = json.load(open(os.path.join(os.path.dirname(__file__), 'fixtures', 'test_utils', 'test_utils.json')))


def test_feature_names_and_order_match_mxnet():
    assert [f.name for f in runtime.feature_list()] == GOLD['misc']['features']
    assert list(runtime.Features()) == GOLD['misc']['features']


def test_features_is_a_singleton_ordered_dict():
    f = runtime.Features()
    assert f is runtime.Features() and len(f) >= 30 and 'CUDA' in f
    assert repr(f).startswith('[') and ('✖ CUDA' in repr(f) or '✔ CUDA' in repr(f))
    for name in f:
        assert f.is_enabled(name) == f[name].enabled
        assert f.is_enabled(name.lower()) == f[name].enabled


def test_feature_repr_matches_mxnet():
    assert repr(runtime.Feature('CUDA', False)) == GOLD['misc']['feature_repr']
    assert repr(runtime.Feature('OPENMP', True)) == '✔ OPENMP'


def test_unknown_feature_raises_runtime_error_like_mxnet():
    kind, msg = GOLD['errors']['unknown_feature']
    with pytest.raises(RuntimeError) as e:
        runtime.Features().is_enabled('this girl is on fire')
    assert type(e.value).__name__ == kind and str(e.value) == msg


def test_values_come_from_torch():
    f = runtime.Features()
    assert f.is_enabled('CUDA') == torch.cuda.is_available()
    assert f.is_enabled('CUDNN') == (torch.cuda.is_available() and torch.backends.cudnn.is_available())
    assert f.is_enabled('MKLDNN') == torch.backends.mkldnn.is_available()
    assert f.is_enabled('OPENMP') == torch.backends.openmp.is_available()
    blas = [n for n in ('BLAS_OPEN', 'BLAS_ATLAS', 'BLAS_MKL', 'BLAS_APPLE') if f.is_enabled(n)]
    assert len(blas) <= 1
    if 'BLAS_INFO=mkl' in torch.__config__.show():
        assert blas == ['BLAS_MKL']
    assert f.is_enabled('NCCL') == (torch.cuda.is_available() and torch.distributed.is_available()
                                    and torch.distributed.is_nccl_available())
    assert f.is_enabled('DIST_KVSTORE') == torch.distributed.is_available()
    assert f.is_enabled('DEBUG') == ('BUILD_TYPE=Debug' in torch.__config__.show())
    for name in ('INT64_TENSOR_SIZE', 'PROFILER'):  # torch's int64 sizes; mx.profiler on torch.profiler
        assert f.is_enabled(name)
    for name in ('TVM_OP', 'TENSORRT', 'CUDA_RTC', 'CAFFE', 'JEMALLOC', 'SSE', 'CXX14', 'SIGNAL_HANDLER'):
        assert not f.is_enabled(name)


def test_opencv_means_mx_image_can_decode():
    import importlib.util
    assert runtime.Features().is_enabled('OPENCV') == (importlib.util.find_spec('PIL') is not None)


def test_mxnet_runtime_is_importable_through_the_alias():
    import mxcompat
    mxcompat.install_alias()
    import mxnet.runtime
    assert mxnet.runtime.Features() is runtime.Features()


def test_version_is_mxnets_and_mxcompats_own_is_beside_it():
    import mxcompat
    assert mxcompat.__version__ == '1.9.1' == mxcompat.libinfo.__version__  # what real MXNet 1.9.1 reports
    with open(os.path.join(os.path.dirname(os.path.dirname(__file__)), 'pyproject.toml')) as f:
        declared = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M).group(1)
    assert mxcompat.__mxcompat_version__ == declared


def test_version_gates_of_mxnet_libraries_pass():
    import mxcompat
    Version = pytest.importorskip('packaging.version').Version
    assert Version('1.4.0') <= Version(mxcompat.__version__) < Version('2.0.0')  # GluonCV 0.10's requirement
    try:
        from distutils.version import LooseVersion
    except ImportError:  # Python 3.12 without setuptools' copy
        return
    assert LooseVersion(mxcompat.__version__) >= LooseVersion('1.4.0')
    assert LooseVersion(mxcompat.__version__) < LooseVersion('2.0.0')


def test_libinfo_names_torchs_libraries_and_headers():
    import mxcompat as mx
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__))
    libs = mx.libinfo.find_lib_path()
    assert libs and all(os.path.isfile(p) and p.startswith(os.path.join(torch_dir, 'lib')) for p in libs)
    assert os.path.basename(libs[0]).split('.')[0] in ('libtorch', 'torch')
    inc = mx.libinfo.find_include_path()
    assert isinstance(inc, str) and os.path.isdir(inc) and os.path.isfile(os.path.join(inc, 'torch', 'extension.h'))
    with pytest.raises(RuntimeError, match='Cannot find the MXNet library'):
        mx.libinfo.find_lib_path('libno_such_library')
    with pytest.raises(RuntimeError, match='TVM op config'):
        mx.libinfo.find_conf_path()


def test_mxnet_libinfo_through_the_alias():
    import mxcompat
    mxcompat.install_alias()
    import mxnet
    import mxnet.libinfo
    from mxnet.libinfo import find_lib_path
    assert mxnet.libinfo is mxcompat.libinfo and mxnet.libinfo.__version__ == mxnet.__version__ == '1.9.1'
    assert find_lib_path() == mxcompat.libinfo.find_lib_path()
