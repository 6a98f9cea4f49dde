"""Elementwise operators: unary math, binary (broadcast_*, elemwise_*, _plus ...), scalar forms, comparisons,
logic, casts and gradient blockers. Mostly one line each, built by the factories below."""
import numpy as np
import torch

from .. import _intgrad, kernels
from ..base import MXNetError, MXNetValueError, MXNetTypeError, dtype_name, incompatible_attr
from .registry import defop, REQUIRED

_X = ('data',)


# ---- unary ----------------------------------------------------------------------------------------------------
def _unary(name, fn, aliases=(), doc=None):
    defop(name, _X, (), fn, aliases=aliases, doc=doc or 'Elementwise %s.' % name, same_shape='*')


def _round_half_away(x):
    # MXNet's round is C's round(): halves go away from zero (torch.round rounds half to even).
    return torch.sign(x) * torch.floor(torch.abs(x) + 0.5) if x.is_floating_point() else x


def _rint_half_down(x):
    # MXNet's rint picks the floor on ties (-2.5 -> -3, 1.5 -> 1), unlike C's rint.
    lo, hi = torch.floor(x), torch.ceil(x)
    return torch.where(x - lo > hi - x, hi, lo)


def _cube_root(x):
    return torch.sign(x) * torch.abs(x).pow(1.0 / 3)


class _Cbrt(torch.autograd.Function):
    """cbrt with MXNet's gradient 1 / (3 cbrt(x)^2): inf at 0, where the sign * |x|^(1/3) form gives nan."""

    @staticmethod
    def forward(ctx, x):
        y = _cube_root(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g / (3.0 * y * y)


class _Rcbrt(torch.autograd.Function):
    """1 / cbrt(x) with MXNet's gradient -1 / (3 cbrt(x) x): -inf at 0 (nan through the composed form)."""

    @staticmethod
    def forward(ctx, x):
        c = _cube_root(x)
        ctx.save_for_backward(x, c)
        return 1.0 / c

    @staticmethod
    def backward(ctx, g):
        x, c = ctx.saved_tensors
        return -g / (3.0 * c * x)


def _int_cube_root(x):
    # in float64, exact on perfect cubes (|x|^(1/3) gives 3.9999... for 64), as C's cbrt that MXNet calls
    d = x.double()
    y = _cube_root(d)
    r = torch.round(y)
    return torch.where(r * r * r == d, r, y)


def _cbrt(x):
    # integers: truncated back to their dtype, as MXNet does (cbrt(9) == 2)
    return _Cbrt.apply(x) if x.is_floating_point() else _int_cube_root(x).to(x.dtype)


def _rcbrt(x):
    return _Rcbrt.apply(x) if x.is_floating_point() else (1.0 / _int_cube_root(x)).to(x.dtype)


def _psi(x):
    # the digamma function as MXNet's gradients use it: +inf at the poles 0, -1, -2, ... (torch gives -inf, nan)
    return torch.where((x <= 0) & (x == torch.floor(x)), torch.full_like(x, float('inf')), torch.digamma(x))


class _Gamma(torch.autograd.Function):
    """The gamma function: negative on (-1, 0), (-3, -2), ..., inf at 0 and nan at the negative integers, with
    MXNet's gradient gamma(x) * psi(x)."""

    @staticmethod
    def forward(ctx, x):
        fl = torch.floor(x)
        y = torch.exp(torch.lgamma(x))
        y = torch.where((x < 0) & (fl.remainder(2) == 1), -y, y)
        y = torch.where((x < 0) & (x == fl), torch.full_like(y, float('nan')), y)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y * _psi(x)


class _GammaLn(torch.autograd.Function):
    """log |gamma(x)| with MXNet's gradient psi(x) (+inf at the poles)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.lgamma(x)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * _psi(x)


def _int_ok(fn):
    # rounding ops are the identity on integers, as in MXNet
    return lambda x: fn(x) if x.is_floating_point() else x.clone()


for _name, _fn in [
        ('abs', torch.abs), ('sign', torch.sign), ('round', _round_half_away), ('rint', _int_ok(_rint_half_down)),
        ('ceil', _int_ok(torch.ceil)), ('floor', _int_ok(torch.floor)), ('trunc', _int_ok(torch.trunc)),
        ('fix', _int_ok(torch.trunc)), ('square', torch.square), ('sqrt', kernels.sqrt), ('rsqrt', torch.rsqrt),
        ('cbrt', _cbrt), ('rcbrt', _rcbrt), ('exp', torch.exp), ('log', torch.log), ('log10', torch.log10),
        ('log2', torch.log2), ('log1p', torch.log1p), ('expm1', torch.expm1), ('sin', torch.sin),
        ('cos', torch.cos), ('tan', torch.tan), ('arcsin', torch.asin), ('arccos', torch.acos),
        ('arctan', torch.atan), ('sinh', torch.sinh), ('cosh', torch.cosh), ('tanh', torch.tanh),
        ('arcsinh', torch.asinh), ('arccosh', torch.acosh), ('arctanh', torch.atanh),
        ('degrees', torch.rad2deg), ('radians', torch.deg2rad), ('reciprocal', torch.reciprocal),
        ('relu', torch.relu), ('sigmoid', torch.sigmoid), ('softsign', torch.nn.functional.softsign),
        ('erf', torch.erf), ('erfinv', torch.erfinv), ('gammaln', _GammaLn.apply),
        ('gamma', _Gamma.apply), ('digamma', torch.digamma)]:
    _unary(_name, _fn)

_unary('negative', torch.neg)
_unary('logical_not', lambda x: (x == 0).to(x.dtype))
_unary('_copy', lambda x: x.clone(), aliases=('identity',))
_unary('BlockGrad', lambda x: x.detach(), aliases=('stop_gradient',), doc='Identity that stops gradients.')
_unary('zeros_like', torch.zeros_like)
_unary('ones_like', torch.ones_like)
defop('shape_array', _X, (), lambda data: torch.tensor(data.shape, dtype=torch.int64, device=data.device),
      doc='The shape of data as an int64 array.')
defop('size_array', _X, (), lambda data: torch.tensor([data.numel()], dtype=torch.int64, device=data.device),
      doc='The number of elements of data as a one-element int64 array.')

defop('make_loss', _X, (), lambda data: data.clone(),
      doc='Identity whose gradient is ones: marks a loss head.')

defop('hard_sigmoid', _X, [('alpha', 'float', 0.2), ('beta', 'float', 0.5)],
      lambda data, alpha, beta: torch.clamp(data * alpha + beta, 0.0, 1.0))


def _cast(data, dtype):
    return _intgrad.cast(data, dtype)


defop('Cast', _X, [('dtype', 'dtype', REQUIRED)], _cast, aliases=('cast',), doc='Cast to ``dtype``.', same_shape='*')


def _clip(data, a_min, a_max):
    # MXNet compares each element with the float32 bounds in C++'s promoted type (float64 for float64 data,
    # float32 for the others, integers included) and writes the bound cast to the data's dtype: with
    # a_min > a_max an element above a_max becomes a_max and one below a_min a_min, a NaN bound clips nothing on
    # its side. torch.clamp gives the same for float32/float64 data and ordered bounds.
    if data.dtype in (torch.float32, torch.float64) and a_min <= a_max:
        return torch.clamp(data, a_min, a_max)
    cmp = data if data.dtype == torch.float64 else data.to(torch.float32)
    hi = data.new_full((), a_max, dtype=torch.float32).to(data.dtype)
    lo = data.new_full((), a_min, dtype=torch.float32).to(data.dtype)
    return torch.where(cmp > a_max, hi, torch.where(cmp < a_min, lo, data))


defop('clip', _X, [('a_min', 'float32', REQUIRED), ('a_max', 'float32', REQUIRED)], _clip,
      doc='Clip values to [a_min, a_max] (float32 bounds, as MXNet takes them).', same_shape='*')


# ---- binary ---------------------------------------------------------------------------------------------------
def _same_dtype(op, a, b):
    if a.dtype is not b.dtype:
        raise incompatible_attr(op, 1, dtype_name(a.dtype), dtype_name(b.dtype))


def check_binary(op, a, b):
    """MXNet's checks of the two inputs of a binary operator: one dtype, and not bool (MXNet's binary operators
    refuse boolean arrays; a bool array with a scalar is computed in int64, see the scalar forms)."""
    _same_dtype(op, a, b)
    if a.dtype is torch.bool:
        raise MXNetTypeError('Operator %s does not support boolean type' % op)


def op_error(op, tensors, e):
    """The MXNetError for torch's error ``e`` in operator ``op`` on ``tensors`` (as mx.nd's functions report it)."""
    return MXNetError('Operator %s: %s (input shapes %s)'
                      % (op, str(e).splitlines()[0], [tuple(t.shape) for t in tensors]))


def broadcast_error(op, a, b, e):
    """The MXNetError for torch's error ``e`` in binary operator ``op`` on tensors ``a`` and ``b``: MXNet's message
    where the shapes do not broadcast."""
    msg = str(e)
    if 'must match the size' in msg or 'broadcast' in msg or 'expanded size' in msg:
        return MXNetValueError('Operator %s: operands could not be broadcast together with shapes %s %s'
                               % (op, list(a.shape), list(b.shape)))
    return op_error(op, (a, b), e)


def _div(a, b):
    if a.is_floating_point():
        return torch.div(a, b)
    return torch.div(a, b, rounding_mode='trunc')


def _div_(a, b):  # _div written into a
    if a.is_floating_point():
        return a.div_(b)
    return a.div_(b, rounding_mode='trunc')


def _mod_value(a, b):
    zero = b == 0
    r = torch.remainder(a, torch.where(zero, torch.ones_like(b), b))
    return torch.where(zero, torch.zeros_like(r), r)


class _Mod(torch.autograd.Function):
    """MXNet's gradients of ``lhs % rhs``: 1 for lhs (also where rhs is 0), -floor(lhs / rhs) for rhs."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _mod_value(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = g.sum_to_size(a.shape) if ctx.needs_input_grad[0] else None
        gb = (-g * torch.floor(a / b)).sum_to_size(b.shape) if ctx.needs_input_grad[1] else None
        return ga, gb


def remainder(a, b):
    """MXNet's ``a % b`` on tensors (``b`` may be a Python number): Python's sign rule, as torch.remainder, but
    ``x % 0`` is 0 for every dtype (torch: an error for integers, nan for floats)."""
    if not isinstance(b, torch.Tensor):
        b = torch.full((), b, dtype=a.dtype, device=a.device)
    if torch.is_grad_enabled() and (a.requires_grad or b.requires_grad):
        return _Mod.apply(a, b)
    return _mod_value(a, b)


class _Extremum(torch.autograd.Function):
    """``fn(lhs, rhs)`` (torch.maximum or torch.minimum: nan propagates, as MXNet's) with MXNet's gradient, which a
    tie gives whole to lhs (``_backward_maximum``: lhs where lhs >= rhs, rhs elsewhere; minimum: lhs where
    lhs <= rhs); torch's splits it between the two."""

    @staticmethod
    def forward(ctx, a, b, fn, lhs_wins):
        ctx.save_for_backward(a, b)
        ctx.lhs_wins = lhs_wins
        return fn(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        lhs = ctx.lhs_wins(a, b)
        zero = g.new_zeros(())
        ga = torch.where(lhs, g, zero).sum_to_size(a.shape) if ctx.needs_input_grad[0] else None
        gb = torch.where(lhs, zero, g).sum_to_size(b.shape) if ctx.needs_input_grad[1] else None
        return ga, gb, None, None


def _extremum(fn, lhs_wins):
    def f(a, b):
        if torch.is_grad_enabled() and (a.requires_grad or b.requires_grad):
            return _Extremum.apply(a, b, fn, lhs_wins)
        return fn(a, b)
    return f


def _cmp(fn):
    return lambda a, b: fn(a, b).to(a.dtype)


def _logic(fn):
    return lambda a, b: fn(a != 0, b != 0).to(a.dtype)


BINARY = {  # name stem -> torch function; MXNet semantics where they differ from torch's
    'add': torch.add, 'sub': torch.sub, 'mul': torch.mul, 'div': _div, 'mod': remainder,
    'power': torch.pow, 'maximum': _extremum(torch.maximum, torch.ge), 'minimum': _extremum(torch.minimum, torch.le),
    'hypot': torch.hypot,
    'equal': _cmp(torch.eq), 'not_equal': _cmp(torch.ne), 'greater': _cmp(torch.gt),
    'greater_equal': _cmp(torch.ge), 'lesser': _cmp(torch.lt), 'lesser_equal': _cmp(torch.le),
    'logical_and': _logic(torch.logical_and), 'logical_or': _logic(torch.logical_or),
    'logical_xor': _logic(torch.logical_xor),
}


# Functions above -> the same computation written into its first argument, where torch has an in-place form
# (NDArray's +=, -=, *=, /=; the others compute, then copy).
INPLACE = {torch.add: torch.Tensor.add_, torch.sub: torch.Tensor.sub_, torch.mul: torch.Tensor.mul_, _div: _div_}


def _broadcast_fn(name, fn):
    def impl(lhs, rhs):
        check_binary(name, lhs, rhs)
        try:
            return fn(lhs, rhs)
        except RuntimeError as e:
            raise broadcast_error(name, lhs, rhs, e) from None
    # what NDArray's operators call once they have checked the inputs as check_binary does (their fast path), and
    # its in-place form (or None)
    impl.compute, impl.compute_ = fn, INPLACE.get(fn)
    return impl


def _elemwise_fn(name, fn):
    def impl(lhs, rhs):
        check_binary(name, lhs, rhs)
        if lhs.shape != rhs.shape:
            raise incompatible_attr(name, 1, tuple(lhs.shape), tuple(rhs.shape), MXNetValueError)
        return fn(lhs, rhs)
    return impl


_BIN_IN = ('lhs', 'rhs')
for _stem, _fn in BINARY.items():
    _bname = 'broadcast_' + _stem
    _aliases = {'add': ('broadcast_plus',), 'sub': ('broadcast_minus',)}.get(_stem, ())
    defop(_bname, _BIN_IN, (), _broadcast_fn(_bname, _fn), aliases=_aliases,
          doc='Elementwise %s with numpy-style broadcasting.' % _stem)
    # MXNet's canonical names: elemwise_add/sub/mul/div, then _mod, _power, ... with the historic aliases
    _iname = {'add': 'elemwise_add', 'sub': 'elemwise_sub', 'mul': 'elemwise_mul', 'div': 'elemwise_div'}.get(
        _stem, '_' + _stem)
    _ealiases = {'add': ('_plus', '_Plus', '_add'), 'sub': ('_minus', '_Minus', '_sub'), 'mul': ('_mul', '_Mul'),
                 'div': ('_div', '_Div'), 'power': ('_Power',), 'maximum': ('_Maximum',),
                 'minimum': ('_Minimum',), 'mod': ('_Mod',), 'hypot': ('_Hypot',), 'equal': ('_Equal',),
                 'not_equal': ('_Not_Equal',), 'greater': ('_Greater',), 'greater_equal': ('_Greater_Equal',),
                 'lesser': ('_Lesser',), 'lesser_equal': ('_Lesser_Equal',)}.get(_stem, ())
    defop(_iname, _BIN_IN, (), _elemwise_fn(_iname, _fn), aliases=_ealiases, same_shape='*',
          doc='Elementwise %s of two arrays of the same shape.' % _stem)


# ---- scalar forms (``x op scalar`` and ``scalar op x``) -------------------------------------------------------------
def scalar_as(s, dtype):
    """Number ``s`` (Python or NumPy) as MXNet applies it to an array of torch ``dtype``: C's cast to the dtype
    (``int32 * 2.5`` multiplies by 2, ``bool`` takes ``bool(s)``), a Python float for float dtypes."""
    if isinstance(s, np.generic):
        s = s.item()
    if dtype.is_floating_point:
        return float(s)
    if dtype is torch.bool:
        return bool(s)
    return int(s)


def _scalar_op(name, fn, reverse=False):
    # MXNet computes a bool array with a scalar in int64 (b + 2.5 is [3, 2, 3], maximum(b, 0.5) int64 ones and zeros).
    # NDArray's operators call impl(data, float(scalar), True), as MXNet's call these operators; a float array, the
    # usual case, takes the scalar as it is (tested first).
    if reverse:
        def impl(data, scalar, is_int):
            try:
                if not data.is_floating_point():
                    if data.dtype is torch.bool:
                        data = data.long()
                    scalar = scalar_as(scalar, data.dtype)
                return fn(torch.full((), scalar, dtype=data.dtype, device=data.device), data)
            except (RuntimeError, ValueError, OverflowError) as e:
                raise op_error(name, (data,), e) from None
    else:
        def impl(data, scalar, is_int):
            try:
                if data.is_floating_point():
                    return fn(data, scalar)
                if data.dtype is torch.bool:
                    data = data.long()
                return fn(data, scalar_as(scalar, data.dtype))
            except (RuntimeError, ValueError, OverflowError) as e:
                raise op_error(name, (data,), e) from None
        # NDArray's in-place operators (x += 2) apply fn, or its in-place form, with the scalar cast by scalar_as
        impl.compute, impl.compute_ = fn, INPLACE.get(fn)
    return impl


_SCALAR_PARAMS = [('scalar', 'float', 1.0), ('is_int', 'bool', True)]
for _sname, _fn, _rev in [
        ('_plus_scalar', torch.add, False), ('_minus_scalar', torch.sub, False),
        ('_rminus_scalar', torch.sub, True), ('_mul_scalar', torch.mul, False), ('_div_scalar', _div, False),
        ('_rdiv_scalar', _div, True), ('_mod_scalar', remainder, False),
        ('_rmod_scalar', remainder, True), ('_power_scalar', torch.pow, False),
        ('_rpower_scalar', torch.pow, True), ('_maximum_scalar', lambda a, s: torch.clamp(a, min=s), False),
        ('_minimum_scalar', lambda a, s: torch.clamp(a, max=s), False),
        ('_hypot_scalar', lambda a, s: torch.hypot(a, torch.full_like(a, s)), False),
        ('_equal_scalar', _cmp(torch.eq), False), ('_not_equal_scalar', _cmp(torch.ne), False),
        ('_greater_scalar', _cmp(torch.gt), False), ('_greater_equal_scalar', _cmp(torch.ge), False),
        ('_lesser_scalar', _cmp(torch.lt), False), ('_lesser_equal_scalar', _cmp(torch.le), False),
        ('_logical_and_scalar', lambda a, s: ((a != 0) & (s != 0)).to(a.dtype), False),
        ('_logical_or_scalar', lambda a, s: ((a != 0) | (s != 0)).to(a.dtype), False),
        ('_logical_xor_scalar', lambda a, s: ((a != 0) ^ (s != 0)).to(a.dtype), False)]:
    _aliases = {'_plus_scalar': ('_PlusScalar',), '_minus_scalar': ('_MinusScalar',),
                '_rminus_scalar': ('_RMinusScalar',), '_mul_scalar': ('_MulScalar',),
                '_div_scalar': ('_DivScalar',), '_rdiv_scalar': ('_RDivScalar',),
                '_power_scalar': ('_PowerScalar',), '_rpower_scalar': ('_RPowerScalar',),
                '_mod_scalar': ('_ModScalar',), '_rmod_scalar': ('_RModScalar',), '_hypot_scalar': ('_HypotScalar',),
                '_equal_scalar': ('_EqualScalar',), '_not_equal_scalar': ('_NotEqualScalar',),
                '_greater_scalar': ('_GreaterScalar',), '_greater_equal_scalar': ('_GreaterEqualScalar',),
                '_lesser_scalar': ('_LesserScalar',), '_lesser_equal_scalar': ('_LesserEqualScalar',),
                '_maximum_scalar': ('_MaximumScalar',), '_minimum_scalar': ('_MinimumScalar',)}.get(_sname, ())
    defop(_sname, _X, _SCALAR_PARAMS, _scalar_op(_sname, _fn, _rev), aliases=_aliases, same_shape='*')

# MXNet's scatter forms (elemwise_scatter_op): with a row_sparse lhs (csr too for the scalar forms) MXNet computes the
# lhs's stored rows (values) only and keeps its sparsity; on dense arrays, as these entries compute, they are
# elemwise_div, _plus_scalar and _minus_scalar. (csr values in bound graphs: symbol/passes/storage.py.)
defop('_scatter_elemwise_div', _BIN_IN, (), _elemwise_fn('_scatter_elemwise_div', _div), same_shape='*',
      doc='lhs / rhs elementwise; for a row_sparse lhs MXNet divides its stored rows only.')
defop('_scatter_plus_scalar', _X, _SCALAR_PARAMS, _scalar_op('_scatter_plus_scalar', torch.add), same_shape='*',
      doc='data + scalar; for a row_sparse or csr data MXNet adds to its stored values only.')
defop('_scatter_minus_scalar', _X, _SCALAR_PARAMS, _scalar_op('_scatter_minus_scalar', torch.sub), same_shape='*',
      doc='data - scalar; for a row_sparse or csr data MXNet subtracts from its stored values only.')


# ---- n-ary ----------------------------------------------------------------------------------------------------
def _add_n(*args, num_args):
    if not args:
        raise MXNetError('add_n needs at least one input')
    out = args[0]
    for a in args[1:]:
        _same_dtype('add_n', out, a)
        if a.shape != out.shape:
            raise MXNetValueError('Operator add_n: shapes %s and %s differ' % (tuple(out.shape), tuple(a.shape)))
        out = out + a
    return out if len(args) > 1 else out.clone()


defop('add_n', ('*args',), (), _add_n, aliases=('ElementWiseSum', '_sum'), doc='Sum of all inputs.',
      same_shape='*')


def _where(condition, x, y):
    if condition.shape != x.shape:
        if condition.dim() != 1 or condition.shape[0] != x.shape[0]:
            raise MXNetValueError('Operator where: condition shape %s must equal x shape %s or be (%d,)'
                                  % (tuple(condition.shape), tuple(x.shape), x.shape[0]))
        condition = condition.reshape((-1,) + (1,) * (x.dim() - 1))
    _same_dtype('where', x, y)
    return torch.where(condition != 0, x, y)


defop('where', ('condition', 'x', 'y'), (), _where, doc='Elements of x where condition is nonzero, else of y.')

defop('smooth_l1', _X, [('scalar', 'float', 1.0)],
      lambda data, scalar: torch.where(data.abs() < 1.0 / (scalar * scalar), 0.5 * (data * scalar) ** 2,
                                       data.abs() - 0.5 / (scalar * scalar)))

_unary('_contrib_isnan', lambda x: torch.isnan(x).to(x.dtype))
_unary('_contrib_isinf', lambda x: torch.isinf(x).to(x.dtype))
_unary('_contrib_isfinite', lambda x: torch.isfinite(x).to(x.dtype))
