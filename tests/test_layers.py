"""The layer order of docs/architecture.md, enforced on the source (read with ``ast``, nothing is imported).

Every module of ``mxcompat`` belongs to one layer; an import, at the top of a module or inside a function, may
only name a module of its own layer or of a layer below. An import inside a function is a cycle that is not
solved, or a heavy optional dependency loaded on first use: each carries a ``# reason:`` comment (on its line or
alone on the line above), and their number is bounded.

Imports made by name at run time (``importlib.import_module``, ``__import__``) are not seen here.
"""
import ast
import collections
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = 'mxcompat'

# (layer, module prefixes); the longest matching prefix decides a module's layer; a module that no prefix matches
# is in the top layer
LAYERS = (
    ('base', ('base', 'context', 'engine', 'util', 'name', 'attribute', 'registry', 'runtime', 'libinfo',
              '_fileio', '_profstate', '_planned', '_recording', '_intgrad')),
    ('operator', ('operator', 'kernels', '_memory')),
    ('arrays', ('ndarray', 'symbol')),
    ('graph', ('executor', 'autograd')),
    # gluon, module, kvstore, io, optimizer, initializer, metric, image, rnn, contrib, mx.np / mx.npx (numpy,
    # numpy_extension, symbol.numpy, symbol.numpy_extension), profiler, test_utils, interop, porting ...
    ('api', ('symbol.numpy', 'symbol.numpy_extension')),
)

# Imports that still go up a layer, each with its reason; the test fails when one is added, and when one listed
# here is gone (take it out then).
UPWARD = {
    # NDArray.attach_grad / backward hand over to mx.autograd (which imports NDArray)
    ('mxcompat.ndarray.ndarray', 'mxcompat.autograd'): 'attach_grad, backward',
    # NDArray.as_np_ndarray returns an mx.np array
    ('mxcompat.ndarray.ndarray', 'mxcompat.numpy.multiarray'): 'as_np_ndarray',
    # Symbol.bind / simple_bind return an Executor
    ('mxcompat.symbol.symbol', 'mxcompat.executor'): 'bind',
    # mx.sym.np and mx.sym.npx: MXNet's symbol package exposes the NumPy front ends
    ('mxcompat.symbol', 'mxcompat.symbol.numpy'): 'mx.sym.np',
    ('mxcompat.symbol', 'mxcompat.symbol.numpy_extension'): 'mx.sym.npx',
}

# Function-level imports: at most this many in all, each with its reason comment
MAX_FUNCTION_LEVEL = 21  # (the 21st: mx.model.FeedForward, loaded on first use; it builds on module and callback)


def _modules():
    out = {}
    for d, dirs, files in os.walk(os.path.join(ROOT, PKG)):
        dirs[:] = [x for x in dirs if x != '__pycache__']
        for f in files:
            if f.endswith('.py'):
                path = os.path.join(d, f)
                name = os.path.relpath(path, ROOT)[:-3].replace(os.sep, '.')
                out[name[:-len('.__init__')] if name.endswith('.__init__') else name] = path
    return out


MODULES = _modules()


def layer_of(module):
    parts = module.split('.')[1:]
    best, rank = None, len(LAYERS) - 1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            pp = p.split('.')
            if parts[:len(pp)] == pp and (best is None or len(pp) > best):
                best, rank = len(pp), i
    return rank


def _targets(module, is_pkg, node):
    """The mxcompat modules an import statement names."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split('.')[0] == PKG]
    if node.level:
        base = module.split('.') if is_pkg else module.split('.')[:-1]
        base = base[:len(base) - node.level + 1]
        mod = '.'.join(base + ([node.module] if node.module else []))
    else:
        mod = node.module or ''
    if mod.split('.')[0] != PKG:
        return []
    return [mod + '.' + a.name if mod + '.' + a.name in MODULES else mod for a in node.names]


Import = collections.namedtuple('Import', 'module line in_function targets reason')


def _has_reason(lines, lineno):
    """A ``# reason: ...`` comment on the import's line or alone on the line above."""
    above = lines[lineno - 2].strip() if lineno > 1 else ''
    return '# reason:' in lines[lineno - 1] or above.startswith('# reason:')


def _sources():
    out = {}
    for module, path in sorted(MODULES.items()):
        with open(path, encoding='utf-8') as f:
            src = f.read()
        out[module] = (src.split('\n'), ast.parse(src), path.endswith('__init__.py'))
    return out


SOURCES = _sources()


def _import_nodes(tree):
    """(import statement, whether it sits inside a function) for every import statement of ``tree``."""
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append((child, in_function))
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
    visit(tree, False)
    return found


def imports():
    return [Import(module, node.lineno, in_function, _targets(module, is_pkg, node), _has_reason(lines, node.lineno))
            for module, (lines, tree, is_pkg) in SOURCES.items() for node, in_function in _import_nodes(tree)]


IMPORTS = imports()


def test_every_layer_prefix_names_a_module():
    for _, prefixes in LAYERS:
        for p in prefixes:
            assert PKG + '.' + p in MODULES, p


def test_imports_go_down():
    up = collections.defaultdict(list)
    for imp in IMPORTS:
        for target in imp.targets:
            if layer_of(target) > layer_of(imp.module):
                up[(imp.module, target)].append(imp.line)
    new = {k: v for k, v in up.items() if k not in UPWARD}
    names = [LAYERS[i][0] for i in range(len(LAYERS))]
    assert not new, ['%s:%s (%s) -> %s (%s)' % (m, lines, names[layer_of(m)], t, names[layer_of(t)])
                     for (m, t), lines in sorted(new.items())]
    gone = sorted(set(UPWARD) - set(up))
    assert not gone, 'no longer imported upward (take them out of UPWARD): %s' % gone


def test_function_level_imports_are_few_and_give_their_reason():
    inner = [imp for imp in IMPORTS if imp.in_function]
    assert len(inner) <= MAX_FUNCTION_LEVEL, len(inner)
    unreasoned = ['%s:%d' % (imp.module, imp.line) for imp in inner if not imp.reason]
    assert not unreasoned, 'function-level imports without a "# reason:" comment: %s' % unreasoned


@pytest.mark.parametrize('module, dependency', [('graphviz', 'graphviz'), ('scipy', 'scipy'),
                                                ('dynamo', 'torch._dynamo')])
def test_heavy_optional_dependencies_load_on_first_use(module, dependency):
    top = [imp for imp in imports_of_external() if not imp[1] and imp[2].split('.')[:len(dependency.split('.'))]
           == dependency.split('.')]
    assert not top, top


def imports_of_external():
    """(module, in_function, name) of every import of a module outside mxcompat."""
    out = []
    for module, (_, tree, _) in SOURCES.items():
        for node, in_function in _import_nodes(tree):
            if isinstance(node, ast.Import):
                out.extend((module, in_function, a.name) for a in node.names)
            elif not node.level and node.module:
                out.append((module, in_function, node.module))
    return out



def test_layer_of():
    assert [layer_of('mxcompat.' + m) for m in ('base', 'kernels.cpu', 'operator.custom', 'ndarray.sparse.spmm',
                                                 'symbol.passes.cse', 'autograd', 'symbol.numpy._ops', 'gluon.block',
                                                 'numpy.multiarray')] == [0, 1, 1, 2, 2, 3, 4, 4, 4]
    assert _targets('mxcompat.ndarray.sparse.spmm', False, ast.parse('from ..ndarray import _wrap').body[0]) \
        == ['mxcompat.ndarray.ndarray']
    assert _targets('mxcompat.ndarray', True, ast.parse('from . import op, sparse').body[0]) \
        == ['mxcompat.ndarray.op', 'mxcompat.ndarray.sparse']
