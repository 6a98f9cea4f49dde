"""mxcompat's benchmarks: ``python -m benchmarks`` compares mxcompat, native torch and real MXNet on the workloads
of ``benchmarks/workloads.py``; the ``bench_*.py`` files are pytest-benchmark suites of the same workloads.

Importing this package must not import torch or mxcompat: the real MXNet's environment imports it too.
"""
