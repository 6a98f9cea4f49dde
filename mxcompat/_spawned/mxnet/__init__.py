"""``import mxnet`` in a process that ``multiprocessing`` started ('spawn', 'forkserver') from a ``python -m mxcompat``
run: installs the alias as the parent did and hands over mxcompat, so the pickled work (a function of a module that
imports mxnet, an NDArray) loads in the child as it does with the real MXNet."""
import sys

if __name__ == 'mxnet':
    import mxcompat
    from mxcompat._alias import install_alias, report_mxnet_paths

    install_alias(force=True)
    report_mxnet_paths()
    sys.modules['mxnet'] = mxcompat  # the import statement returns what sys.modules holds when this module ends
