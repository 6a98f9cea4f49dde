"""Shared pieces of the benchmark suites: each workload is timed in mxcompat and in native torch side by side."""
import pytest
import torch


def pytest_configure(config):
    torch.set_num_threads(int(__import__('os').environ.get('BENCH_THREADS', '1')))


@pytest.fixture
def pair(benchmark):
    """Group a benchmark with its native-torch twin: use benchmark.group = name; extra_info['side']."""
    return benchmark
