"""``python -m mxcompat check script.py [...] [--json]``: a static porting report (mxcompat only).

Parses the scripts (never runs them), finds every MXNet API they name through ``import mxnet`` aliases
(``mx.nd.foo``, ``from mxnet.gluon import nn`` then ``nn.Dense`` ...) and looks each one up in mxcompat at report time:
``supported``, ``supported-with-differences`` (with the difference), or ``unsupported`` (with the error it will
raise). Methods called on objects (``x.asnumpy()``) cannot be resolved statically and are not reported.
It also lists the NumPy-2 hazards in the script's own code (``np.int``, ``'%f' % l.mean().asnumpy()`` ...; see
``numpy2.py``), each with its fix.
"""
import ast
import importlib
import inspect
import json
import os
import sys
import textwrap
import types

from ..base import MXNetError, _NoLib
from . import numpy2
from ._ast import attribute_chain

SUPPORTED, DIFFERENT, UNSUPPORTED = 'supported', 'supported-with-differences', 'unsupported'

# MXNet API (prefix match on the dotted path) -> how mxcompat differs. Keep reasons short and true.
DIFFERENCES = {
    'mxnet.kvstore.create': "'dist_async' is applied synchronously (torch.distributed); other types as MXNet",
    'mxnet.kv.create': "'dist_async' is applied synchronously (torch.distributed); other types as MXNet",
    'mxnet.random.seed': "the CPU draws MXNet's numbers for a seed; a GPU draws from torch's generator (other "
                         'numbers)',
    'mxnet.nd.random': "MXNet's numbers on the CPU; on a GPU torch's generator (same distributions, other numbers)",
    'mxnet.ndarray.random': "MXNet's numbers on the CPU; on a GPU torch's generator (same distributions, other "
                            'numbers)',
    'mxnet.nd.sparse': 'sparse results MXNet keeps sparse may be computed dense and compressed (explicit zeros '
                       'dropped); gradients are dense',
    'mxnet.ndarray.sparse': 'sparse results MXNet keeps sparse may be computed dense and compressed (explicit '
                            'zeros dropped); gradients are dense',
    'mxnet.np.random': "MXNet's numbers on the CPU except normal/gamma (and what is built on them): other numbers",
    'mxnet.numpy.random': "MXNet's numbers on the CPU except normal/gamma (and what is built on them): other "
                          'numbers',
    'mxnet.gluon.HybridBlock.hybridize': "static_alloc/static_shape have no effect; backend= takes a torch.compile "
                                         "backend ('inductor') or 'MKLDNN' (oneDNN convolution fusion for "
                                         "inference); MXNet's other subgraph backends raise",
    'mxnet.gluon.HybridBlock.optimize_for': "backend='MKLDNN' only; recorded calls run unfused; export writes the "
                                            'unpartitioned graph',
    'mxnet.gluon.nn.Dropout': "MXNet's mask on the CPU; on a GPU the mask comes from torch's generator",
    'mxnet.gpu': 'a CUDA device through torch; needs a CUDA build of torch',
    'mxnet.gluon.SymbolBlock': 'runs hybridized always; the graph serves every input shape',
    'mxnet.engine.bulk': 'accepted, no effect: torch runs operators eagerly',
}


# ---- the scripts: which names mean which MXNet module ----------------------------------------------------------
class _Use:
    __slots__ = ('file', 'line', 'col', 'name', 'api')

    def __init__(self, file, line, col, name, api):
        self.file, self.line, self.col, self.name, self.api = file, line, col, name, api


class _Finder(ast.NodeVisitor):
    def __init__(self, filename):
        self.filename = filename
        self.alias = {}  # local name -> dotted MXNet path
        self.uses = []

    def add(self, node, name, api):
        self.uses.append(_Use(self.filename, node.lineno, node.col_offset, name, api))

    def visit_Import(self, node):
        for a in node.names:
            if a.name == 'mxnet' or a.name.startswith('mxnet.'):
                if a.asname:
                    self.alias[a.asname] = a.name
                else:
                    self.alias['mxnet'] = 'mxnet'
                if a.name != 'mxnet':
                    self.add(node, a.name, a.name)

    def visit_ImportFrom(self, node):
        mod = node.module or ''
        if node.level or not (mod == 'mxnet' or mod.startswith('mxnet.')):
            return
        for a in node.names:
            if a.name == '*':
                self.add(node, '%s.*' % mod, mod)
                continue
            path = '%s.%s' % (mod, a.name)
            self.alias[a.asname or a.name] = path
            self.add(node, path, path)

    def visit_Attribute(self, node):
        parts = attribute_chain(node)
        if parts and parts[0] in self.alias:
            self.add(node, '.'.join(parts), '.'.join([self.alias[parts[0]]] + parts[1:]))
            return  # the inner parts of this chain are not uses of their own
        self.generic_visit(node)

    def visit_Name(self, node):
        # a bare imported name used directly (``Dense(3)`` after ``from mxnet.gluon.nn import Dense``)
        if isinstance(node.ctx, ast.Load) and node.id in self.alias and '.' in self.alias[node.id]:
            path = self.alias[node.id]
            if path.count('.') > 1 or not _is_namespace(path):
                self.add(node, node.id, path)


def _is_namespace(path):
    return path.split('.')[-1] in ('nd', 'ndarray', 'sym', 'symbol', 'gluon', 'autograd', 'nn', 'kv', 'io', 'init',
                                   'initializer', 'optimizer', 'metric', 'mod', 'module', 'image', 'img', 'rnn',
                                   'contrib', 'loss', 'data', 'utils', 'random', 'linalg', 'test_utils', 'viz',
                                   'util', 'recordio', 'lr_scheduler', 'callback', 'model', 'profiler', 'context')


def _parse(path):
    with open(path, encoding='utf-8') as f:
        return ast.parse(f.read(), path)


def find_uses(path, tree=None):
    """The MXNet API uses in the file at ``path`` (raises SyntaxError for a file that does not parse)."""
    if tree is None:
        tree = _parse(path)
    finder = _Finder(path)
    finder.visit(tree)
    # one entry per use; imports are recorded before the attribute chains that use them
    return sorted(finder.uses, key=lambda u: (u.line, u.col))


# ---- looking an API up in mxcompat -----------------------------------------------------------------------------
def _stub_message(obj):
    """The message of ``raise unsupported(...)`` when ``obj`` is a function whose body only raises it."""
    func = getattr(obj, '__func__', obj)
    if not isinstance(func, types.FunctionType):
        return None
    try:
        src = textwrap.dedent(inspect.getsource(func))
        body = ast.parse(src).body[0].body
    except (OSError, TypeError, SyntaxError, IndexError, AttributeError):
        return None
    # (the docstring and imports before the raise do not count)
    stmts = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
             and not isinstance(s, (ast.Import, ast.ImportFrom))]
    if len(stmts) != 1 or not isinstance(stmts[0], ast.Raise) or not isinstance(stmts[0].exc, ast.Call):
        return None
    call = stmts[0].exc
    if getattr(call.func, 'id', getattr(call.func, 'attr', None)) != 'unsupported':
        return None
    if not all(isinstance(a, ast.Constant) for a in call.args):
        try:  # (the body only raises: calling it gives the message with its names filled in)
            obj()
        except MXNetError as e:
            return '%s: %s' % (type(e).__name__, e)
        except TypeError:
            pass  # (it needs arguments: the message's literal parts below)
    parts = [a.value if isinstance(a, ast.Constant) else '...' for a in call.args]
    while len(parts) < 2:
        parts.append('...')
    msg = '%s: %s is not supported by mxcompat' % (parts[0], parts[1])
    if len(parts) > 2 and parts[2]:
        msg += '; ' + parts[2]
    return 'MXNetNotImplementedError: ' + msg


def resolve(api):
    """(status, detail) of the dotted MXNet path ``api`` in mxcompat."""
    parts = api.split('.')
    if parts[-1] == '*':
        parts = parts[:-1]
    obj = importlib.import_module('mxcompat')
    for i, seg in enumerate(parts[1:], 1):
        try:
            nxt = getattr(obj, seg)
        except MXNetError as e:
            return UNSUPPORTED, '%s: %s' % (type(e).__name__, e)
        except AttributeError as e:
            nxt = None
            if isinstance(obj, types.ModuleType):
                try:
                    nxt = importlib.import_module('%s.%s' % (obj.__name__, seg))
                except ImportError:
                    nxt = None
            if nxt is None:
                return UNSUPPORTED, 'AttributeError: %s' % (str(e) or "no attribute '%s'" % seg)
        obj = nxt
        if isinstance(obj, _NoLib):  # mxnet.base._LIB: every call into MXNet's C library raises
            return UNSUPPORTED, 'MXNetNotImplementedError: %s: MXNet\'s C API is not supported by mxcompat' % api
        if not isinstance(obj, (types.ModuleType, type)) and i < len(parts) - 1:
            break  # an attribute of a function/instance: as far as static lookup goes
    stub = _stub_message(obj)
    if stub:
        return UNSUPPORTED, stub
    for prefix, why in DIFFERENCES.items():
        if api == prefix or api.startswith(prefix + '.'):
            return DIFFERENT, why
    return SUPPORTED, ''


# ---- report -----------------------------------------------------------------------------------------------------
def check(paths):
    """{'uses': [...], 'errors': [...], 'summary': {...}, 'verdict': str} for the scripts at ``paths``."""
    rows, errors, hazards = [], [], []
    cache = {}
    for path in paths:
        try:
            tree = _parse(path)
            uses = find_uses(path, tree)
            hazards += numpy2.find_hazards(tree, path)
        except (OSError, SyntaxError, UnicodeDecodeError) as e:
            errors.append({'file': path, 'error': '%s: %s' % (type(e).__name__, e)})
            continue
        for u in uses:
            if u.api not in cache:
                cache[u.api] = resolve(u.api)
            status, detail = cache[u.api]
            rows.append({'file': u.file, 'line': u.line, 'col': u.col, 'name': u.name, 'api': u.api,
                         'status': status, 'detail': detail})
    counts = {s: sum(r['status'] == s for r in rows) for s in (SUPPORTED, DIFFERENT, UNSUPPORTED)}
    apis = {s: len({r['api'] for r in rows if r['status'] == s}) for s in (SUPPORTED, DIFFERENT, UNSUPPORTED)}
    if errors:
        verdict = 'verdict: cannot check %d file(s) (parse errors)' % len(errors)
    elif counts[UNSUPPORTED]:
        verdict = ('verdict: will fail -- %d unsupported use(s) of %d API(s); %d supported, %d with differences'
                   % (counts[UNSUPPORTED], apis[UNSUPPORTED], counts[SUPPORTED], counts[DIFFERENT]))
    elif counts[DIFFERENT]:
        verdict = ('verdict: should run, with differences -- %d use(s) differ (%d API(s)); %d supported'
                   % (counts[DIFFERENT], apis[DIFFERENT], counts[SUPPORTED]))
    else:
        verdict = 'verdict: should run -- all %d MXNet API use(s) supported' % counts[SUPPORTED]
    if hazards and not errors:
        if counts[UNSUPPORTED]:
            verdict += '; and %d NumPy-2 hazard(s) in the script' % len(hazards)
        else:
            verdict = ("verdict: fails under NumPy 2 -- %d NumPy-2 hazard(s) in the script (fix them, or install the "
                       "NumPy they were written for: the numpy1 extra); MXNet API: %d use(s) supported, %d with "
                       "differences"
                       % (len(hazards), counts[SUPPORTED], counts[DIFFERENT]))
    return {'files': list(paths), 'uses': rows, 'numpy2': hazards, 'errors': errors, 'summary': counts,
            'verdict': verdict}


def format_text(report):
    lines = []
    for r in report['uses']:
        text = '%s:%d  %s  %s' % (r['file'], r['line'], r['name'], r['status'])
        if r['detail']:
            text += ' (%s)' % r['detail'] if r['status'] == DIFFERENT else ': %s' % r['detail']
        lines.append(text)
    for h in report['numpy2']:
        lines.append('%s:%d  %s  numpy2: %s' % (h['file'], h['line'], h['name'], h['fix']))
    for e in report['errors']:
        lines.append('%s  error: %s' % (e['file'], e['error']))
    lines.append(report['verdict'])
    return '\n'.join(lines)


USAGE = 'usage: python -m mxcompat check [--json] script.py [more.py ...]'


def main(argv):
    """Print the report; exit status 0 when nothing is unsupported and no NumPy-2 hazard is found, 1 otherwise, 2 for
    bad usage or files."""
    args = list(argv)
    as_json = '--json' in args
    paths = [a for a in args if a != '--json']
    if not paths or any(a.startswith('-') for a in paths):
        print(USAGE, file=sys.stderr)
        return 2
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        print('mxcompat check: no such file: %s' % ', '.join(missing), file=sys.stderr)
        return 2
    report = check(paths)
    print(json.dumps(report, indent=1) if as_json else format_text(report))
    if report['errors']:
        return 2
    return 1 if report['summary'][UNSUPPORTED] or report['numpy2'] else 0
