"""Copies from page-locked host memory to a GPU run on a copy stream (kernels.host_to_device): what is queued after
the copy on the current stream sees the copied values."""
import numpy as np
import pytest
import torch

import mxcompat as mx


@pytest.mark.gpu
def test_pinned_copies_are_seen_by_the_work_queued_after_them():
    busy = torch.randn(4096, 4096, device='cuda')
    for _ in range(10):  # (work queued before the copies, which they may overlap)
        busy = busy @ busy / 64
    x = np.arange(1 << 20, dtype=np.float32).reshape(1024, 1024)
    pinned = mx.nd.array(x, ctx=mx.cpu_pinned())
    assert pinned.to_torch().is_pinned()
    outs = [(pinned[i * 128:(i + 1) * 128].as_in_context(mx.gpu(0)) * 2).sum(axis=1) for i in range(8)]
    got = np.concatenate([o.asnumpy() for o in outs])
    np.testing.assert_allclose(got, (x * 2).sum(axis=1), rtol=1e-6)
    assert torch.isfinite(busy).all()


@pytest.mark.gpu
def test_a_pinned_data_loader_with_split_and_load_gives_the_unpinned_batches():
    data = np.random.RandomState(0).randn(64, 5).astype(np.float32)
    dataset = mx.gluon.data.ArrayDataset(data)
    batches = {}
    for pin in (False, True):
        loader = mx.gluon.data.DataLoader(dataset, batch_size=16, pin_memory=pin)
        batches[pin] = [mx.gluon.utils.split_and_load(b, [mx.gpu(0)])[0].asnumpy() for b in loader]
    for a, b in zip(batches[False], batches[True]):
        np.testing.assert_array_equal(a, b)


def test_the_cpu_copies_as_before():
    x = mx.nd.array(np.arange(6.0), ctx=mx.cpu_pinned())
    np.testing.assert_array_equal(x.as_in_context(mx.cpu()).asnumpy(), np.arange(6.0))
