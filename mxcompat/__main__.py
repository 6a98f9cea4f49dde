"""``python -m mxcompat script.py [args...]``: run an unchanged ``import mxnet`` script on mxcompat."""
import os
import runpy
import sys

from .porting import numpy2
from .porting.check import main as check_main
from . import install_alias
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
        install_alias(force=True)
        report_mxnet_paths()
        sys.argv = ['-c'] + argv[2:]
        exec(compile(argv[1], '<string>', 'exec'), {'__name__': '__main__'})  # noqa: S102
        return 0
    if argv[0] == '-m' and len(argv) > 1:
        # as `python -m module`: the module runs as __main__ with sys.argv[0] its file and the working directory
        # first on sys.path; `python -m mxcompat -m pytest` runs a library's own tests with `import mxnet` aliased
        install_alias(force=True)
        report_mxnet_paths()
        sys.argv = [argv[1]] + argv[2:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(argv[1], run_name='__main__', alter_sys=True)
        return 0
    script = argv[0]
    if not os.path.exists(script):
        print('mxcompat: cannot open %r: no such file' % script, file=sys.stderr)
        return 2
    install_alias(force=True)
    report_mxnet_paths()
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name='__main__')
    except Exception as e:
        hint = numpy2.runtime_hint(e, script)
        if hint:
            _after_traceback(hint)
        raise
    return 0


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
