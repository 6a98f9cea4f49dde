"""Imported first by every converted section script (same file for real MXNet and for mxcompat).

- display(value): a notebook's display of a cell's last expression (repr; nothing for None).
- shell(cmd): a notebook's ``!cmd`` line; its output is printed between markers the comparison skips.
- tab: d2lbook's ``tab`` object with ``selected(*names)`` true when 'mxnet' is among the names.
- Python's and NumPy's global generators are seeded (book code shuffles with ``random``); MXNet's own generator
  keeps its default state.
- pandas 2 made ``read_csv``'s arguments after the path keyword-only; D2L v0.17.6 passes the separator second
  (``pd.read_csv(path, '\t', names=...)``, written for pandas 1.x), so once pandas is imported its ``read_csv``
  takes a second positional argument as ``sep`` again, on both sides.
- Only the data files are replaced, so the SHA-1 checks of Gluon's dataset downloads are turned off
  (``mxnet.gluon.utils.check_sha1`` and the name bound in modules that imported it); d2l's own ``download()``
  fetches through the ``requests`` stand-in, which serves the local copies.
"""
import importlib.abc
import importlib.util
import random
import subprocess
import sys

import numpy

random.seed(0)
numpy.random.seed(0)

SHELL_BEGIN, SHELL_END = '<<<d2l-shell', 'd2l-shell>>>'


def display(*values):
    value = values[0] if len(values) == 1 else values
    if value is not None:
        print(repr(value))


def shell(cmd):
    sys.stdout.flush()
    res = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    print('%s %s' % (SHELL_BEGIN, cmd))
    print(res.stdout + res.stderr, end='')
    print(SHELL_END)


class _Tab:
    selected_tab = 'mxnet'

    def selected(self, *names):
        return self.selected_tab in names

    def interact_select(self, *args, **kwargs):
        return None


tab = _Tab()


def _accept(*args, **kwargs):
    return True


def _patch_sha1():
    import mxnet.gluon.utils as gutils
    gutils.check_sha1 = _accept
    for name, mod in list(sys.modules.items()):
        if name.startswith(('mxnet.gluon', 'mxcompat.gluon')) and getattr(mod, 'check_sha1', None) is not None:
            try:
                mod.check_sha1 = _accept
            except (AttributeError, TypeError):
                pass


try:
    import mxnet.gluon.data.vision  # noqa: F401  (so that its modules exist to be patched)
except Exception as exc:  # the section's own import reports the failure
    print('d2l-harness: importing mxnet.gluon.data.vision failed: %r' % (exc,), file=sys.stderr)
else:
    _patch_sha1()


def _read_csv_with_positional_sep(read_csv):
    def wrapper(filepath_or_buffer, *args, **kwargs):
        if args:
            kwargs.setdefault('sep', args[0])
            args = args[1:]
        return read_csv(filepath_or_buffer, *args, **kwargs)
    return wrapper


class _PandasPatch(importlib.abc.MetaPathFinder):
    """Patches pandas.read_csv when pandas is first imported (importing it here would cost every section)."""

    def find_spec(self, name, path, target=None):
        if name != 'pandas':
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec('pandas')
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_patch(module):
            exec_module(module)
            module.read_csv = _read_csv_with_positional_sep(module.read_csv)
        spec.loader.exec_module = exec_and_patch
        return spec


sys.meta_path.insert(0, _PandasPatch())
