"""nd.save / nd.load of a 100 MB parameter dict beside torch.save / torch.load (read the throughput from the medians).

    python -m pytest benchmarks/bench_save_load.py --benchmark-json=/tmp/save_load.json && \
        python benchmarks/ratios.py /tmp/save_load.json
Workloads are defined once in benchmarks/workloads.py; BENCH_SIZE=tiny|small|full picks their size (default small).
`python -m benchmarks --areas save_load` times the same workloads
interleaved, in separate processes, beside real MXNet.
"""
from benchmarks.runner import pytest_suite

test_workload = pytest_suite('save_load')
