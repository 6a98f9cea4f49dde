"""``python -m mxcompat script.py [args...]``: run an unchanged ``import mxnet`` script on mxcompat."""
import builtins
import gc
import importlib.machinery
import os
import runpy
import sys
import types
import zipfile

from .porting import numpy2
from .porting.check import main as check_main
from . import install_alias
from ._spawned import PATH as SPAWNED_PATH
from ._alias import report_mxnet_paths

USAGE = """usage: python -m mxcompat script.py [args ...]   (runs an `import mxnet` script on mxcompat)
       python -m mxcompat -m module [args ...]   (runs a module as `python -m` does: `-m pytest` for a test suite)
       python -m mxcompat check [--json] script.py [...]   (static porting report; runs nothing)
       python -m mxcompat convert model-symbol.json model-0000.params -o model.pt [--onnx | --export]"""


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ('-h', '--help'):
        print(USAGE)
        return 0 if argv else 2
    if argv[0] == 'check' and not os.path.isfile('check'):
        return check_main(argv[1:])
    if argv[0] == 'convert' and not os.path.isfile('convert'):
        # reason: convert imports mxcompat.interop, which imports torch.fx's symbolic shapes and sympy (0.5-1.5 s)
        from .porting.convert import main as convert_main
        return convert_main(argv[1:])
    if argv[0] == '-c' and len(argv) > 1:
        _prepare()
        sys.argv = ['-c'] + argv[2:]
        _run_as_main(code=compile(argv[1], '<string>', 'exec'))
        return 0
    if argv[0] == '-m' and len(argv) > 1:
        # as `python -m module`: the module runs as __main__ with sys.argv[0] its file and the working directory
        # first on sys.path; `python -m mxcompat -m pytest` runs a library's own tests with `import mxnet` aliased
        _prepare()
        sys.argv = [argv[1]] + argv[2:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(argv[1], run_name='__main__', alter_sys=True)
        return 0
    script = argv[0]
    if not os.path.exists(script):
        print('mxcompat: cannot open %r: no such file' % script, file=sys.stderr)
        return 2
    _prepare()
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        _run_as_main(script)
    except Exception as e:
        hint = numpy2.runtime_hint(e, script)
        if hint:
            _after_traceback(hint)
        raise
    return 0


def _run_as_main(path=None, code=None):
    """Run the file ``path`` (or compiled ``code``, for ``-c``) as ``python path`` does: its module is
    ``sys.modules['__main__']`` until the interpreter exits, so the shutdown clears its globals (a file the script
    left open is flushed and closed, ``__del__`` runs). ``runpy.run_path`` puts its module back after the run, and a
    global kept alive by a reference cycle, an ``atexit`` function or a weak reference callback was never released:
    a log file left open lost its contents. Directories and zip files with a ``__main__.py`` go to ``runpy``."""
    module = types.ModuleType('__main__')
    module.__builtins__, module.__spec__ = builtins, None
    if code is None:
        if not os.path.isfile(path) or zipfile.is_zipfile(path):
            runpy.run_path(path, run_name='__main__')
            return
        with open(path, 'rb') as f:
            code = compile(f.read(), path, 'exec')
        module.__file__, module.__cached__ = path, None
        module.__loader__ = importlib.machinery.SourceFileLoader('__main__', path)
    sys.modules['__main__'] = module
    exec(code, module.__dict__)  # noqa: S102


def _prepare():
    """Before the user's code runs: ``import mxnet`` gives mxcompat, and the objects loaded so far move to the
    cyclic collector's permanent generation (``gc.freeze``). torch, numpy and mxcompat leave about 200,000 objects
    that live until exit; frozen, no later collection traverses them, and the interpreter's exit takes about 0.1 s
    instead of 0.45 (2-vCPU AMD EPYC; the collections of its shutdown walked all of them). What the script creates is
    collected as usual. The processes that ``multiprocessing`` starts by 'spawn' or 'forkserver' (they run a fresh
    interpreter with this one's ``sys.path``) find ``mxcompat/_spawned/mxnet`` first, which installs the alias there."""
    install_alias(force=True)
    if SPAWNED_PATH not in sys.path:
        sys.path.insert(0, SPAWNED_PATH)
    report_mxnet_paths()
    gc.freeze()


def _after_traceback(line):
    """Print ``line`` to stderr right after the interpreter prints the uncaught exception's traceback (the traceback
    and the exit status stay Python's own)."""
    previous = sys.excepthook

    def hook(*exc_info):
        previous(*exc_info)
        print(line, file=sys.stderr)
    sys.excepthook = hook


if __name__ == '__main__':
    sys.exit(main())
