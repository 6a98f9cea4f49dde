"""Large CPU arrays on transparent huge pages (mxcompat/_memory.py)."""
import os
import sys

import numpy as np
import pytest
import torch

import mxcompat as mx
from mxcompat import _memory


def _vm_flags(address):
    """The VmFlags of the mapping holding ``address`` in /proc/self/smaps."""
    flags, inside = None, False
    with open('/proc/self/smaps') as f:
        for line in f:
            head = line.split()[0]
            if '-' in head and not head.endswith(':'):
                lo, hi = (int(x, 16) for x in head.split('-'))
                inside = lo <= address < hi
            elif inside and head == 'VmFlags:':
                flags = line.split()[1:]
    return flags


linux_only = pytest.mark.skipif(not sys.platform.startswith('linux') or not os.path.exists('/proc/self/smaps'),
                                reason='madvise and /proc/self/smaps are Linux')


def test_zeros_and_copies_keep_values():
    for shape in ((3, 4), (1 << 20, 5)):  # below and above kernels.config.huge_page_min_bytes
        z = _memory.zeros(shape, torch.float32, torch.device('cpu'))
        assert z.shape == shape and z.dtype == torch.float32 and not z.any()
        v = torch.randn(shape)
        c = _memory.copy_of(v, torch.device('cpu'))
        assert c.data_ptr() != v.data_ptr() and torch.equal(c, v)


@linux_only
def test_big_parameter_and_its_momentum_are_advised(monkeypatch):
    net = mx.gluon.nn.Embedding(1 << 20, 16, sparse_grad=True)  # 64 MB
    net.initialize(mx.init.Normal(0.01))
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    x = mx.nd.array([[1, 5, 7]])
    with mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    trainer.step(1)
    weight = net.weight.data()
    momentum = trainer._updaters[0].states[0]
    for arr in (weight, momentum):
        t = arr._t
        middle = t.data_ptr() + t.numel() * t.element_size() // 2
        assert 'hg' in _vm_flags(middle)
    # with the bound at 0, or the CPU fast paths off, nothing is advised. (Asked of madvise itself: the kernel's
    # flags of a fresh block can show 'hg' left by other code in the process, e.g. NumPy advises its big arrays.)
    calls = []
    real = _memory._advise_fn()
    monkeypatch.setattr(_memory, '_madvise', [lambda *a: calls.append(a) or real(*a)])
    for fields in (dict(huge_page_min_bytes=0), dict(cpu_fast_paths=False)):
        with mx.kernels.policy(**fields):
            t = _memory.zeros((1 << 20, 16), torch.float32, torch.device('cpu'))
        assert not calls and not t.any()
    _memory.zeros((1 << 20, 16), torch.float32, torch.device('cpu'))
    assert len(calls) == 1  # (and with the policy as it was, it is)


@pytest.mark.parametrize('size, dtype', [(10, 'float32'), (3 << 20, 'float32'), ((5 << 20) + 3, 'float16'),
                                         (1 << 18, 'int64')])
def test_host_zeros_are_writable_zeros(size, dtype):
    a = _memory.host_zeros(size, dtype)
    assert a.shape == (size,) and a.dtype == np.dtype(dtype) and a.flags.writeable and not a.any()
    a[::7] = 3
    assert np.count_nonzero(a) == len(range(0, size, 7)) and (a[::7] == 3).all()


@linux_only
def test_host_zeros_put_whole_extents_on_huge_pages():
    a = _memory.host_zeros(3 << 20, 'float32')  # 12 MB: six whole 2 MB extents from its start
    assert a.ctypes.data % (2 << 20) == 0
    assert 'hg' in _vm_flags(a.ctypes.data + a.nbytes // 2)
    for fields in (dict(huge_page_min_bytes=0), dict(cpu_fast_paths=False)):
        with mx.kernels.policy(**fields):
            b = _memory.host_zeros(3 << 20, 'float32')
        assert 'hg' not in _vm_flags(b.ctypes.data + b.nbytes // 2) and not b.any()
