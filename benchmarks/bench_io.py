"""Data input: ``mx.image.ImageIter`` on a .rec pack of JPEGs with profiler_imageiter.py's augmenters, beside a
torch pipeline doing the same work (Pillow decoding, ``interpolate``); see benchmarks/workloads_io.py.

    python -m pytest benchmarks/bench_io.py --benchmark-json=/tmp/io.json && python benchmarks/ratios.py /tmp/io.json
`python -m benchmarks --areas io --timer cpu --mxnet-python PATH` times the same workload beside real MXNet 1.9.1.
"""
from benchmarks.runner import pytest_suite

test_workload = pytest_suite('io')
