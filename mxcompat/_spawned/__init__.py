"""A folder that ``python -m mxcompat`` puts on ``sys.path``: its only package, ``mxnet``, makes ``import mxnet`` give
mxcompat in the processes that ``multiprocessing`` starts with 'spawn' or 'forkserver' (they get the parent's
``sys.path``, but not its import hooks). Nothing here is imported under its own name."""
import os

PATH = os.path.dirname(os.path.abspath(__file__))
