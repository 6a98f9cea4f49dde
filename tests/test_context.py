import pickle

import pytest
import torch

import mxcompat as mx
from mxcompat.base import MXNetError


def test_str_repr_eq_hash():
    assert str(mx.cpu()) == 'cpu(0)' and repr(mx.gpu(1)) == 'gpu(1)'
    assert str(mx.cpu_pinned(2)) == 'cpu_pinned(2)'
    assert mx.cpu(1) == mx.Context('cpu', 1) and mx.cpu(1) != mx.cpu(0) and mx.cpu(0) != mx.gpu(0)
    assert len({mx.cpu(0), mx.cpu(0), mx.cpu(1)}) == 2
    assert mx.Context(mx.gpu(3)) == mx.gpu(3)
    assert mx.cpu(2).device_type == 'cpu' and mx.gpu(2).device_id == 2 and mx.gpu().device_typeid == 2
    assert pickle.loads(pickle.dumps(mx.cpu(4))) == mx.cpu(4)


def test_bad_device_type():
    with pytest.raises(MXNetError, match='Invalid device type'):
        mx.Context('tpu', 0)


def test_default_context_stack():
    assert mx.context.current_context() == mx.cpu(0)
    with mx.cpu(1):
        assert mx.current_context() == mx.cpu(1)
        assert mx.nd.zeros((1,)).context == mx.cpu(1)
        with mx.cpu(2):
            assert mx.nd.ones((1,)).context == mx.cpu(2)
        assert mx.current_context() == mx.cpu(1)
    assert mx.current_context() == mx.cpu(0)


def test_cpu_ids_share_the_torch_cpu_device():
    a = mx.nd.ones((2,), ctx=mx.cpu(3))
    assert a.context == mx.cpu(3) and a.to_torch().device.type == 'cpu'
    b = a.copyto(mx.cpu(5))
    assert b.context == mx.cpu(5) and (b.asnumpy() == 1).all()


@pytest.mark.skipif(torch.cuda.is_available(), reason='checks the error raised without CUDA')
def test_gpu_without_cuda_raises_clearly():
    ctx = mx.gpu(0)  # creating the context is fine, as in MXNet
    with pytest.raises(MXNetError, match=r'gpu\(0\).*CUDA is not available'):
        mx.nd.zeros((2,), ctx=ctx)
    with pytest.raises(MXNetError, match='CUDA is not available'):
        mx.nd.ones((2,)).as_in_context(mx.gpu(1))
    assert mx.context.num_gpus() == 0


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason='needs CUDA')
def test_gpu_roundtrip():
    a = mx.nd.array([1, 2, 3], ctx=mx.gpu(0))
    assert a.to_torch().device.type == 'cuda' and a.context == mx.gpu(0)
    b = (a * 2).as_in_context(mx.cpu())
    b.wait_to_read()
    mx.nd.waitall()
    assert b.asnumpy().tolist() == [2, 4, 6]


def test_entering_one_context_twice_restores_the_default():
    c = mx.cpu(1)
    with c:
        with c:
            assert mx.current_context() == mx.cpu(1)
        assert mx.current_context() == mx.cpu(1)
    assert mx.current_context() == mx.cpu(0)


def test_deprecated_class_level_default_ctx():
    with pytest.warns(DeprecationWarning, match='default_ctx has been deprecated'):
        assert mx.Context.default_ctx == mx.cpu(0)
    with mx.Context('cpu', 1):
        with pytest.warns(DeprecationWarning):
            assert mx.Context.default_ctx == mx.cpu(1)
        assert mx.Context.current_context() == mx.cpu(1)
    prev = mx.current_context()
    try:
        with pytest.warns(DeprecationWarning):
            mx.Context.default_ctx = mx.cpu(2)
        assert mx.current_context() == mx.cpu(2)
    finally:
        mx.context.Context._default_ctx.value = prev


@pytest.mark.gpu
def test_pinned_memory_and_asynchronous_copies():
    """cpu_pinned arrays are page-locked where CUDA is; copies from them to a GPU do not block the host;
    DataLoader(pin_memory=True) batches are pinned; the values arrive intact once waited for."""
    a = mx.nd.arange(12).reshape((3, 4)).as_in_context(mx.cpu_pinned())
    assert a.context == mx.cpu_pinned() and a.to_torch().is_pinned()
    b = a.copyto(mx.cpu_pinned())
    assert b.to_torch().data_ptr() != a.to_torch().data_ptr()  # copyto copies, also between pinned arrays
    g = a.as_in_context(mx.gpu(0))
    g.wait_to_read()
    assert g.context == mx.gpu(0) and g.asnumpy().tolist() == a.asnumpy().tolist()
    data = mx.gluon.data.ArrayDataset(mx.nd.arange(8).reshape((4, 2)), mx.nd.arange(4))
    for x, y in mx.gluon.data.DataLoader(data, batch_size=2, pin_memory=True):
        assert x.context == mx.cpu_pinned() and x.to_torch().is_pinned()
        parts = mx.gluon.utils.split_and_load(x, [mx.gpu(0)])
        mx.nd.waitall()
        assert parts[0].asnumpy().tolist() == x.asnumpy().tolist()


@pytest.mark.gpu
def test_save_and_load_arrays_that_live_on_a_gpu(tmp_path):
    f = str(tmp_path / 'arrays.params')
    dense = mx.nd.arange(6, ctx=mx.gpu(0)).reshape((2, 3))
    rsp = mx.nd.sparse.row_sparse_array(([[1.0, 2.0]], [1]), shape=(3, 2), ctx=mx.gpu(0))
    mx.nd.save(f, {'dense': dense, 'rsp': rsp})
    back = mx.nd.load(f)
    assert back['dense'].asnumpy().tolist() == dense.asnumpy().tolist()
    assert back['rsp'].stype == 'row_sparse' and back['rsp'].asnumpy().tolist() == rsp.asnumpy().tolist()
