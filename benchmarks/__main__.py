"""``python -m benchmarks --help``: mxcompat vs native torch vs real MXNet 1.9.1, as ratio tables."""
import sys

from benchmarks.runner import main

sys.exit(main())
