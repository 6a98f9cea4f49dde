"""NDArray behaviour beyond the expression table: aliasing, pickling, interop, out=, printing."""
import os
import pickle

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat.base import MXNetError


def test_lazy_evaluation_aliasing_example():
    a = mx.nd.ones((2, 3))
    b = a
    c = a.copyto(mx.cpu())
    a += 1
    b *= 3
    c *= 3
    assert (a.asnumpy() == 6).all() and (b.asnumpy() == 6).all() and (c.asnumpy() == 3).all()


def test_views_share_memory_like_mxnet():
    m = mx.nd.arange(12).reshape((3, 4))
    row = m[1]
    row[:] = -1
    assert m.asnumpy()[1].tolist() == [-1] * 4
    r = m.reshape((4, 3))
    r[0] = 9
    assert m.asnumpy()[0, :3].tolist() == [9, 9, 9]
    col = m[:, 1]
    col[:] = 100
    assert 100 not in m.asnumpy()
    t = m.T
    t[:] = 0
    assert m.asnumpy().any()


def test_op_outputs_never_alias_inputs():
    a = mx.nd.ones((2, 3))
    for out in (mx.nd.reshape(a, shape=(3, 2)), mx.nd.expand_dims(a, axis=0), mx.nd.flatten(a),
                mx.nd.transpose(a), mx.nd.broadcast_to(mx.nd.ones((1, 3)), shape=(2, 3))):
        out[:] = 5
    assert (a.asnumpy() == 1).all()


def test_asnumpy_is_a_copy():
    a = mx.nd.ones((3,))
    n = a.asnumpy()
    n[0] = 7
    assert a.asnumpy()[0] == 1


def test_pickle_roundtrip_keeps_dtype_and_context():
    for dtype in ('float32', 'float16', 'int64', 'uint8', 'bool'):
        a = mx.nd.array([[1, 0], [3, 4]], dtype=dtype, ctx=mx.cpu(1))
        b = pickle.loads(pickle.dumps(a))
        assert b.dtype == a.dtype and b.context == mx.cpu(1) and (b.asnumpy() == a.asnumpy()).all()


def test_hash_iter_len_bool():
    a = mx.nd.arange(6).reshape((3, 2))
    assert hash(a) == id(a) // 16 and len(a) == 3
    assert [x.shape for x in a] == [(2,)] * 3
    assert bool(mx.nd.ones((1,))) and not bool(mx.nd.zeros((1, 1)))
    with pytest.raises(ValueError):
        bool(a)


def test_out_argument_writes_in_place():
    a = mx.nd.array([1, 2, 3])
    out = mx.nd.zeros((3,))
    res = mx.nd.exp(a, out=out)
    assert res is out and np.allclose(out.asnumpy(), np.exp([1, 2, 3]))
    with pytest.raises(MXNetError, match='shape'):
        mx.nd.exp(a, out=mx.nd.zeros((2,)))


def test_torch_interop_zero_copy():
    t = torch.arange(4.0)
    a = mx.nd.from_torch(t)
    a[0] = 10
    assert t[0].item() == 10 and a.to_torch() is t
    n = np.arange(3, dtype=np.float32)
    b = mx.nd.from_numpy(n)
    b[1] = 5  # shared memory; the numpy side becomes read-only, as in MXNet
    assert n[1] == 5 and not n.flags.writeable
    c = mx.nd.from_dlpack(a.to_dlpack_for_read())
    assert c.to_torch().data_ptr() == t.data_ptr()
    assert torch.sum(a).item() == 16  # __torch_function__: NDArrays pass into torch functions
    assert np.asarray(a).tolist() == [10, 1, 2, 3]


def test_numpy_on_the_left_defers_to_ndarray():
    a = mx.nd.ones((2,))
    r = np.float32(2) * a
    assert isinstance(r, mx.nd.NDArray) and r.asnumpy().tolist() == [2, 2]


def test_dtypes_are_numpy_types():
    assert mx.nd.ones((1,)).dtype is np.float32
    assert mx.nd.ones((1,), dtype=np.int8).dtype is np.int8
    assert mx.nd.ones((1,), dtype=np.dtype('float64')).dtype is np.float64
    with pytest.raises(TypeError):
        mx.nd.ones((1,), dtype='complex1000')


def test_unknown_operator_argument_is_rejected():
    with pytest.raises(MXNetError, match=r"sum: unknown argument 'axes'"):
        mx.nd.sum(mx.nd.ones((2, 2)), axes=1)
    with pytest.raises(MXNetError, match="required argument"):
        mx.nd.Cast(mx.nd.ones((1,)))
    with pytest.raises(TypeError, match='must be an NDArray'):
        mx.nd.exp([1, 2])


def test_wait_and_engine_calls():
    a = mx.nd.ones((2,))
    a.wait_to_read()
    a.wait_to_write()
    mx.nd.waitall()
    with mx.engine.bulk(10):
        b = a + 1
    assert b.asnumpy().tolist() == [2, 2]


def test_registry_infers_shapes_on_meta_tensors():
    from mxcompat.operator import registry
    op = registry.get('broadcast_add')
    shapes, dtypes = op.infer([(2, 1, 3), (4, 1)], [torch.float32, torch.float32], op.parse_attrs({}))
    assert shapes == [(2, 4, 3)] and dtypes == [torch.float32]
    op = registry.get('Reshape')
    assert op.infer([(2, 3, 4)], [torch.float16], op.parse_attrs({'shape': '(-3, -2)'}))[0] == [(6, 4)]
    with pytest.raises(MXNetError, match='broadcast'):
        registry.get('broadcast_add').infer([(2, 3), (3, 2)], [torch.float32] * 2, {})


def test_pickles_written_by_real_mxnet_load():
    import os
    mx.install_alias()  # the pickle names mxnet.ndarray.ndarray.NDArray
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'ndarray', 'mxnet_pickle.pkl')
    with open(path, 'rb') as f:
        d = pickle.load(f)
    assert d['int64'].dtype is np.int64 and d['int64'].asnumpy().tolist() == [[1, 2], [3, 4]]
    assert d['float32'].shape == (2, 3) and (d['float32'].asnumpy() == 1.5).all()
    assert d['float16'].dtype is np.float16 and d['float16'].asnumpy().tolist() == [0.5, -2.0]
    assert d['on_cpu1'].asnumpy().tolist() == [0, 1, 2]


def test_asscalar_of_a_one_element_matrix_is_an_array_as_in_mxnet():
    # MXNet 1.9.1: ones((1,)).asscalar() -> 1.0; ones((1, 1)).asscalar() -> array([[1.]], dtype=float32)
    assert mx.nd.ones((1,)).asscalar() == 1.0 and np.ndim(mx.nd.ones((1,)).asscalar()) == 0
    m = mx.nd.ones((1, 1)).asscalar()
    assert isinstance(m, np.ndarray) and m.shape == (1, 1) and m.dtype == np.float32
    with pytest.raises(ValueError, match='not a scalar'):
        mx.nd.ones((2,)).asscalar()


def test_moveaxis_refuses_bad_axes_with_valueerror():
    # MXNet 1.9.1's test_moveaxis: every bad combination raises ValueError, an int source with a list destination too
    x = mx.nd.zeros((1, 2, 3))
    for src, dst in ((3, 0), (-4, 0), (0, 5), ([0, 0], [0, 1]), ([0, 1], [1, 1]), (0, [0, 1]), ([0, 1], [0])):
        with pytest.raises(ValueError, match='moveaxis'):
            mx.nd.moveaxis(x, src, dst)
    assert mx.nd.moveaxis(mx.nd.zeros((4, 1, 2, 3)), [3, 0], [1, 0]).shape == (4, 3, 1, 2)


def test_zeros_ones_need_np_shape_for_zero_size_and_0d():
    # MXNet 1.9.1: under legacy shape semantics 0 and () mean "unknown", so _zeros/_ones shape inference fails;
    # full() fails only for (), empty() never; under np_shape they are zero-size and 0-d arrays
    for make in (mx.nd.zeros, mx.nd.ones):
        for shape in ((), (0, 1, 3, 0), (2, 0), 0, [2, 0]):
            with pytest.raises(MXNetError, match='inferring shapes failed'):
                make(shape)
    with pytest.raises(MXNetError, match='_full inferring shapes failed'):
        mx.nd.full((), 1)
    assert mx.nd.full((2, 0), 1).shape == (2, 0) and mx.nd.empty(()).shape == ()
    with mx.np_shape(True):
        assert mx.nd.zeros(()).shape == () and mx.nd.ones((0, 1, 0, 4)).shape == (0, 1, 0, 4)
        assert mx.nd.full((), 2).asscalar() == 2


_PICKLE_WRITER = ('import pickle, sys, mxnet as mx\n'
                  "a = {'f32': mx.nd.array([[1.5, 2], [3, 4]]), 'i64': mx.nd.array([1, 2], dtype='int64'),\n"
                  "     'f16': mx.nd.array([0.5, -2], dtype='float16'), 'u8': mx.nd.array([7], dtype='uint8')}\n"
                  "pickle.dump(a, open(sys.argv[1], 'wb'))\n")


def _write_pickle_under_alias(tmp_path):
    import subprocess
    import sys
    path = str(tmp_path / 'arrays.pkl')
    r = subprocess.run([sys.executable, '-m', 'mxcompat', '-c', _PICKLE_WRITER, path], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0, r.stderr
    return path


def test_pickles_written_under_the_alias_use_mxnets_class_and_layout(tmp_path):
    import pickletools
    path = _write_pickle_under_alias(tmp_path)
    with open(path, 'rb') as f:
        strings = [arg for op, arg, _ in pickletools.genops(f) if isinstance(arg, str)]
    assert 'mxnet.ndarray.ndarray' in strings and 'NDArray' in strings and 'mxcompat' not in ' '.join(strings)
    mx.install_alias()
    with open(path, 'rb') as f:
        d = pickle.load(f)
    assert d['f32'].asnumpy().tolist() == [[1.5, 2], [3, 4]] and d['i64'].dtype is np.int64
    assert d['f16'].dtype is np.float16 and d['u8'].asnumpy().tolist() == [7]


@pytest.mark.oracle
def test_pickles_written_under_the_alias_load_in_real_mxnet(tmp_path):
    import subprocess
    from tests.conftest import oracle_runner
    path = _write_pickle_under_alias(tmp_path)
    script = tmp_path / 'load.py'
    script.write_text('import pickle, sys\nd = pickle.load(open(sys.argv[1], "rb"))\n'
                      'print(sorted((k, v.dtype.__name__, v.asnumpy().ravel().tolist()) for k, v in d.items()))\n')
    r = subprocess.run([oracle_runner(), str(script), path], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == str([('f16', 'float16', [0.5, -2.0]), ('f32', 'float32',
                                                     [1.5, 2.0, 3.0, 4.0]), ('i64', 'int64', [1, 2]),
                                                     ('u8', 'uint8', [7])])


@pytest.mark.parametrize('key', [
    (1, [2], np.array([[3]]), slice(None, None, -1)), ([0, 1], slice(None, None, -1)),
    (slice(None, None, -1), [2, 0], slice(3, 0, -2)), (slice(None, None, -1), [1, 0], slice(None), slice(4, None, -3)),
    (Ellipsis, [1, 2], slice(None, None, -2))])
def test_negative_step_slices_with_advanced_indices(key):
    # as NumPy (and real MXNet 1.9.1, checked on the oracle for these keys): get, set from an array, set a scalar
    a = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    x = mx.nd.array(a)
    got = x[key].asnumpy()
    np.testing.assert_array_equal(got, a[key])
    v = -np.arange(got.size, dtype=np.float32).reshape(got.shape) - 1
    x[key] = mx.nd.array(v)
    a[key] = v
    np.testing.assert_array_equal(x.asnumpy(), a)
    x[key] = 7
    a[key] = 7
    np.testing.assert_array_equal(x.asnumpy(), a)


def test_negative_step_with_advanced_index_gradient_and_errors():
    a = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    x = mx.nd.array(a)
    x.attach_grad()
    w = np.arange(1, 21, dtype=np.float32).reshape(2, 2, 5)
    with mx.autograd.record():
        y = x[1, [2, 0], ::-2] * mx.nd.array(w)
    y.backward()
    want = np.zeros_like(a)
    want[1, [2, 0], ::-2] = w
    np.testing.assert_array_equal(x.grad.asnumpy(), want)
    with pytest.raises(mx.base.MXNetIndexError, match=r'too many indices \(5\) for array with 4 dimensions'):
        x[1, [1], :, :, ::-1]


@pytest.mark.parametrize('shape, error, message', [
    # MXNet 1.9.1 (NDArray.reshape -> MXNDArrayReshape64): -1 is the size floor-divided by the other dims; fewer
    # elements than the source -> ValueError from Python, more -> the engine's size check
    ((3, 1), ValueError, 'Cannot reshape array of size 6 into shape (3, 1)'),
    ((-1, 4), ValueError, 'Cannot reshape array of size 6 into shape (-1, 4)'),
    ((2, -1, 2), ValueError, 'Cannot reshape array of size 6 into shape (2, -1, 2)'),
    ((4, 2), MXNetError, 'NDArray.Reshape: Check failed: shape_.Size() >= shape.Size() (6 vs. 8) : target shape '
                         'size is larger than the current shape'),
    ((0, 2), MXNetError, '(6 vs. 12)'),
])
def test_reshape_size_mismatch_errors_as_mxnet(shape, error, message):
    x = mx.nd.arange(6)
    with pytest.raises(error) as info:
        x.reshape(shape)
    assert message in str(info.value)
    if error is ValueError:
        assert not isinstance(info.value, MXNetError)
    with pytest.raises(error):
        x.reshape(shape=shape)


def test_reshape_argument_errors_as_mxnet():
    x = mx.nd.arange(6)
    with pytest.raises(AssertionError, match='Shape must be provided.'):
        x.reshape()
    with pytest.raises(TypeError, match="Got unknown keywords in reshape: order. Accepted keyword arguments are "
                                        "'shape' and 'reverse'."):
        x.reshape((2, 3), order='C')
    assert x.reshape((-1, 3), reverse=True).shape == (2, 3)
