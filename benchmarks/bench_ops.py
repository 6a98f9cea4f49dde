"""Mid-size operators (conv 3x3, max pooling, BatchNorm training forward, dot, sum over an axis); target 1.1x torch.
Tiny 8x8 ops are in bench_ndarray.py (and the runner's 'tiny' area).

    python -m pytest benchmarks/bench_ops.py --benchmark-json=/tmp/ops.json && \
        python benchmarks/ratios.py /tmp/ops.json
Workloads are defined once in benchmarks/workloads.py; BENCH_SIZE=tiny|small|full picks their size (default small).
`python -m benchmarks --areas ops` times the same workloads
interleaved, in separate processes, beside real MXNet.
"""
from benchmarks.runner import pytest_suite

test_workload = pytest_suite('ops')
