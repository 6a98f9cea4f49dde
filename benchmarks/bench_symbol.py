"""Symbol executor forward+backward of a bound MLP and CNN (target 1.0x torch eager) and one Module.fit epoch of an MLP
beside a native torch loop.

    python -m pytest benchmarks/bench_symbol.py --benchmark-json=/tmp/symbol.json && \
        python benchmarks/ratios.py /tmp/symbol.json
Workloads are defined once in benchmarks/workloads.py; BENCH_SIZE=tiny|small|full picks their size (default small).
`python -m benchmarks --areas symbol,module` times the same workloads
interleaved, in separate processes, beside real MXNet.
"""
from benchmarks.runner import pytest_suite

test_workload = pytest_suite('symbol', 'module')
