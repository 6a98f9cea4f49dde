"""Per-op time of small eager ops in mxcompat beside the same op in native torch.

    python -m pytest benchmarks/bench_ndarray.py --benchmark-group-by=group --benchmark-columns=median,ops
Target (issue 2): at most 1.5x native torch per op. The ratio is printed by benchmarks/ratios.py from the JSON.
"""
import pytest
import torch

import mxcompat as mx

SHAPE = (8, 8)

CASES = {
    'add': (lambda a, b: a + b, lambda a, b: a + b),
    'mul_scalar': (lambda a, b: a * 2, lambda a, b: a * 2),
    'slice': (lambda a, b: a[1:3], lambda a, b: a[1:3]),
    'setitem': (lambda a, b: a.__setitem__(slice(None), 2), lambda a, b: a.fill_(2)),
    'zeros': (lambda a, b: mx.nd.zeros(SHAPE), lambda a, b: torch.zeros(SHAPE)),
    'asnumpy': (lambda a, b: a.asnumpy(), lambda a, b: a.numpy().copy()),
    'exp': (lambda a, b: mx.nd.exp(a), lambda a, b: torch.exp(a)),
    'sum_axis': (lambda a, b: a.sum(axis=1), lambda a, b: a.sum(dim=1)),
}


@pytest.mark.parametrize('side', ['mxcompat', 'torch'])
@pytest.mark.parametrize('case', sorted(CASES))
def test_small_op(benchmark, case, side):
    benchmark.group = 'ndarray:' + case
    benchmark.extra_info['side'] = side
    if side == 'mxcompat':
        a, b = mx.nd.ones(SHAPE), mx.nd.ones(SHAPE)
        fn = CASES[case][0]
    else:
        a, b = torch.ones(SHAPE), torch.ones(SHAPE)
        fn = CASES[case][1]
    benchmark(fn, a, b)
