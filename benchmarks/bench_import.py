"""`import mxcompat` in a fresh interpreter beside `import torch` (target: import torch + 0.3 s).

    python -m pytest benchmarks/bench_import.py --benchmark-json=/tmp/import.json && \
        python benchmarks/ratios.py /tmp/import.json
Workloads are defined once in benchmarks/workloads.py; BENCH_SIZE=tiny|small|full picks their size (default small).
`python -m benchmarks --areas import` times the same workloads
interleaved, in separate processes, beside real MXNet.
"""
from benchmarks.runner import pytest_suite

test_workload = pytest_suite('import')
