"""``mx.np`` functions and operators on 8x8 float32 arrays (add, multiply, exp, sum, dot, reshape, indexing) beside
torch; target 1.3x torch (issue 35).

    python -m pytest benchmarks/bench_numpy.py --benchmark-json=/tmp/np.json && python benchmarks/ratios.py /tmp/np.json
    python -m benchmarks --areas numpy          # interleaved, in separate processes (--mxnet-python adds MXNet)
Workloads are defined once in benchmarks/workloads_numpy.py.
"""
from benchmarks.runner import pytest_suite

test_workload = pytest_suite('numpy')
