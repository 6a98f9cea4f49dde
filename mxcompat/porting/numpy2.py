"""NumPy-2 hazards in an MXNet-era script's own code: found statically for ``python -m mxcompat check`` and named
in a one-line hint when ``python -m mxcompat script.py`` dies of one.

MXNet 1.x scripts were written for NumPy 1.x. Under NumPy 2 they fail in their own code, before or after any MXNet
call: removed aliases (``np.int``, ``np.NaN``, ``np.asscalar`` ...), the binary mode of ``np.fromstring``, and
``float(x.asnumpy())`` / ``'%f' % l.mean().asnumpy()`` (MXNet arrays are never 0-d, and NumPy 2 refuses to turn an
array of ndim > 0 into a Python scalar). Not detected: NumPy 2's scalar reprs (``repr(np.float32(1))`` is
``np.float32(1.0)``) change what a script prints for a list or tuple of numpy scalars; which printed values are numpy
scalars is not known statically, so that change is left out.
"""
import ast
import re
import string

from ._ast import attribute_chain

# numpy attribute -> the fix. NumPy 2 raises AttributeError for each.
REMOVED = {
    'int': 'the builtin int (or np.int64)',
    'float': 'the builtin float (or np.float64)',
    'object': 'the builtin object (or np.object_)',
    'complex': 'the builtin complex (or np.complex128)',
    'str': 'the builtin str (or np.str_)',
    'unicode': 'the builtin str (or np.str_)',
    'NaN': 'np.nan', 'NAN': 'np.nan',
    'Inf': 'np.inf', 'Infinity': 'np.inf', 'PINF': 'np.inf', 'NINF': '-np.inf',
    'float_': 'np.float64', 'complex_': 'np.complex128', 'unicode_': 'np.str_', 'string_': 'np.bytes_',
    'asscalar': 'a.item() (np.asscalar(a) -> a.item(); an NDArray has .asscalar())',
    'alltrue': 'np.all', 'sometrue': 'np.any',
    'product': 'np.prod', 'cumproduct': 'np.cumprod',
    'round_': 'np.round',
    'in1d': 'np.isin (np.in1d is deprecated in NumPy 2.0 and removed in 2.4)',
}
# (np.bool and np.long are not listed: NumPy 2 defines them again, as np.bool_ and the C long type, so code
# using them runs there; it is NumPy 1.24-1.26 that lacks them)
# the NumPy release that removed a name of REMOVED, where it is not 2.0 (checked on 1.23.5, 1.26.4 and 2.4)
REMOVED_IN = {'int': '1.24', 'float': '1.24', 'object': '1.24', 'complex': '1.24', 'str': '1.24', 'unicode': '1.24',
              'asscalar': '1.23'}
# what installs a NumPy that has the name again, by the release that removed it
_INSTALL = {'2': "`pip install 'numpy<2'`", '1.24': "`pip install 'numpy<1.24'` (NumPy 1.23, the one MXNet 1.9.1 "
                                                  "runs with; Python 3.11 and older)"}

ASNUMPY_FIX = ("use .asscalar() (or .item()) for a single value: MXNet arrays are never 0-d and NumPy 2 cannot "
               "convert an array of ndim > 0 to a Python scalar")
FROMSTRING_FIX = ('np.frombuffer(data, dtype=...) (add .copy() if the result is written to): the binary mode of '
                  'np.fromstring is removed in NumPy 2')

# a %-format conversion; '*' widths take an argument each, which this does not follow (such a format is skipped)
_PERCENT = re.compile(r'%(\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])')
_NUMERIC = set('diouxXeEfFgGcn%b')


def _src(node, width=60):
    text = ast.unparse(node)
    return text if len(text) <= width else text[:width - 3] + '...'


def _is_asnumpy(node):
    """True for an expression ending in ``.asnumpy()`` (``l.mean().asnumpy()``); not ``.asnumpy()[0]``/``.sum()``."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == 'asnumpy'
            and not node.args and not node.keywords)


def _percent_args(fmt, right):
    """The operands of ``fmt % right`` that a numeric conversion (%f, %d ...) turns into a scalar."""
    convs = [m for m in _PERCENT.finditer(fmt) if m.group(4) != '%']
    if any(m.group(2) == '*' or m.group(3) == '*' or m.group(1) for m in convs):
        return []  # star widths or a mapping: not followed
    if isinstance(right, ast.Tuple):
        pairs = zip(convs, right.elts)
    elif len(convs) == 1:
        pairs = [(convs[0], right)]
    else:
        return []
    return [arg for m, arg in pairs if m.group(4) in _NUMERIC]


def _format_args(fmt, call):
    """The arguments of ``fmt.format(...)`` whose field has a numeric format spec (``{:f}``, ``{0:.3f}``)."""
    try:
        fields = [(name, spec) for _, name, spec, _ in string.Formatter().parse(fmt) if name is not None]
    except ValueError:
        return []
    out, auto = [], 0
    for name, spec in fields:
        if name == '':
            index, auto = auto, auto + 1
        elif name.isdigit():
            index = int(name)
        else:
            kw = [k.value for k in call.keywords if k.arg == name]
            if kw and spec and spec[-1] in _NUMERIC:
                out.append(kw[0])
            continue
        if spec and spec[-1] in _NUMERIC and index < len(call.args):
            out.append(call.args[index])
    return out


class _Finder(ast.NodeVisitor):
    def __init__(self, filename):
        self.filename = filename
        self.numpy = set()   # local names of the numpy module
        self.names = {}      # local name -> numpy attribute (``from numpy import fromstring``)
        self.hazards = []

    def add(self, node, name, fix):
        self.hazards.append({'file': self.filename, 'line': node.lineno, 'col': node.col_offset, 'name': name,
                             'fix': fix})

    def _alias(self, node, attr, shown):
        if attr in REMOVED:
            self.add(node, shown, 'removed in NumPy %s; use %s' % (REMOVED_IN.get(attr, '2'), REMOVED[attr]))

    def visit_Import(self, node):
        for a in node.names:
            if a.name == 'numpy':
                self.numpy.add(a.asname or 'numpy')

    def visit_ImportFrom(self, node):
        if node.module != 'numpy' or node.level:
            return
        for a in node.names:
            self.names[a.asname or a.name] = a.name
            self._alias(node, a.name, 'from numpy import %s' % a.name)

    def visit_Attribute(self, node):
        parts = attribute_chain(node)
        if parts and len(parts) == 2 and parts[0] in self.numpy:
            self._alias(node, parts[1], '.'.join(parts))
            return
        self.generic_visit(node)

    def _numpy_func(self, func):
        parts = attribute_chain(func)
        if parts and len(parts) == 2 and parts[0] in self.numpy:
            return parts[1]
        if parts and len(parts) == 1:
            return self.names.get(parts[0])
        return None

    def visit_Call(self, node):
        func = node.func
        if self._numpy_func(func) == 'fromstring':
            sep = [k.value for k in node.keywords if k.arg == 'sep'] or node.args[3:4]
            if not sep or (isinstance(sep[0], ast.Constant) and sep[0].value == ''):
                self.add(node, ast.unparse(func), FROMSTRING_FIX)
        elif isinstance(func, ast.Name) and func.id in ('float', 'int') and len(node.args) == 1 \
                and _is_asnumpy(node.args[0]):
            self.add(node, _src(node), ASNUMPY_FIX)
        elif isinstance(func, ast.Attribute) and func.attr == 'format' and isinstance(func.value, ast.Constant) \
                and isinstance(func.value.value, str):
            if any(_is_asnumpy(a) for a in _format_args(func.value.value, node)):
                self.add(node, _src(node), ASNUMPY_FIX)
        self.generic_visit(node)

    def visit_BinOp(self, node):
        if isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            if any(_is_asnumpy(a) for a in _percent_args(node.left.value, node.right)):
                self.add(node, _src(node), ASNUMPY_FIX)
        self.generic_visit(node)

    def visit_FormattedValue(self, node):
        spec = node.format_spec
        text = ''.join(v.value for v in spec.values if isinstance(v, ast.Constant)) if spec is not None else ''
        if text and text[-1] in _NUMERIC and _is_asnumpy(node.value):
            self.add(node, '{%s:%s}' % (_src(node.value), text), ASNUMPY_FIX)
        self.generic_visit(node)


def find_hazards(tree, filename):
    """The NumPy-2 hazards in the parsed module ``tree``: dicts with file, line, col, name and fix."""
    finder = _Finder(filename)
    finder.visit(tree)
    return sorted(finder.hazards, key=lambda h: (h['line'], h['col']))


# ---- at run time: a hint after the traceback ---------------------------------------------------------------------
_ATTR = re.compile(r"module 'numpy' has no attribute '(\w+)'|`np\.(\w+)` was removed in the NumPy 2")


def runtime_hint(exc, script):
    """One line naming the NumPy-2 change behind ``exc`` and its fix, or None when ``exc`` is not one of them."""
    seen = set()
    while exc is not None and id(exc) not in seen:  # the error itself, then what it was raised from or during
        seen.add(id(exc))
        msg = str(exc)
        change, since = None, '2'
        m = _ATTR.search(msg) if isinstance(exc, AttributeError) else None
        if m and (m.group(1) or m.group(2)) in REMOVED:
            name = m.group(1) or m.group(2)
            since = REMOVED_IN.get(name, '2')
            change = 'NumPy %s removed np.%s; use %s' % (since, name, REMOVED[name])
        elif isinstance(exc, (TypeError, DeprecationWarning)) and (
                'only 0-dimensional arrays can be converted' in msg or 'only length-1 arrays can be converted' in msg
                or 'Conversion of an array with ndim > 0 to a scalar' in msg):
            change = ('NumPy 2 cannot convert an array of ndim > 0 to a Python scalar (float(), int(), %f) and MXNet '
                      'arrays are never 0-d; call .asscalar() on the NDArray (or .item() on the numpy array)')
        elif isinstance(exc, (ValueError, DeprecationWarning)) and 'binary mode of fromstring' in msg:
            change = 'NumPy 2 removed the binary mode of np.fromstring; use np.frombuffer(data, dtype=...)'
        if change:
            install = _INSTALL.get(since)
            return ("mxcompat: hint: %s. `python -m mxcompat check %s` lists every NumPy-2 hazard in the script%s."
                    % (change, script, '; or %s runs it unchanged (torch, CPU build included, works with it)' % install
                       if install else ''))
        exc = exc.__cause__ or exc.__context__
    return None
