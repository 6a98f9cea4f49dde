"""``mx.np.random``: MXNet 1.9.1's NumPy-style samplers.

Distribution parameters are Python numbers or ``mx.np`` arrays (which broadcast against each other and against
``size``; as in MXNet, gradients reach array parameters of the reparameterized samplers, and are zero for those of
``uniform``, ``power`` and the gamma family); results are float32 unless ``dtype`` says otherwise, 0-d when neither
``size`` nor an array parameter gives a shape.

Where MXNet's NumPy sampler shares the legacy one's kernel (``randint``, ``shuffle``) it is the registry operator
behind ``mx.nd.random``. The other samplers draw from MXNet's single CPU engine, as MXNet's do: the uniform-based
ones (``uniform``, ``rand``, ``exponential``, ``logistic``, ``gumbel``, ``rayleigh``, ``weibull``, ``pareto``,
``power``, ``npx.random.bernoulli``) compute MXNet's kernels' formulas (``exponential`` is ``-scale * log(u)``
...) in their C types on its uniform draws (``operator/_np_samplers``); ``normal`` (``randn``, ``lognormal``) and
``gamma`` (``beta``, ``chisquare``) are MXNet's kernels on its Gaussian and uniform draws: all bit for bit;
``multinomial`` and ``choice`` run MXNet's kernels on its draws. ``multivariate_normal`` draws its noise from the
engine of MXNet's custom-operator thread, as MXNet's fallback does. Elsewhere (a GPU, torch's streams) the
registry's samplers (see docs/differences.md).
"""
import math
import numbers

import numpy as _onp
import torch

from .. import autograd as _ag
from ..base import MXNetError, MXNetTypeError, MXNetValueError, to_torch_dtype
from ..context import current_context
from ..ndarray.ndarray import NDArray
from ..operator import _mxrandom, _np_samplers
from ..operator.registry import REGISTRY
from .multiarray import ndarray, _np_wrap, _write, _ctx, _legacy_error, _array_input

__all__ = ['randint', 'uniform', 'normal', 'choice', 'rand', 'multinomial', 'multivariate_normal', 'logistic',
           'gumbel', 'shuffle', 'randn', 'gamma', 'beta', 'chisquare', 'exponential', 'lognormal', 'weibull',
           'pareto', 'power', 'rayleigh']

_FLOAT_DTYPES = (torch.float16, torch.float32, torch.float64)


# ---- parameters, shapes, draws ------------------------------------------------------------------------------------
def _param(fname, pname, v):
    """A distribution parameter: a Python float, or the tensor of an ``mx.np`` array."""
    if isinstance(v, ndarray):
        return v._t
    if isinstance(v, (numbers.Real, _onp.generic)) and not isinstance(v, (bool, _onp.bool_)):
        return float(v)
    # (MXNet: an invalid parameter format, an MXNetError; for a legacy array, the TypeError of mx.np functions)
    raise MXNetTypeError('mx.np.random.%s: %s must be a number or an mx.np.ndarray, got %s%s'
                         % (fname, pname, type(v).__name__, ' (a legacy mx.nd.NDArray: call as_np_ndarray() on '
                            'it first)' if isinstance(v, NDArray) else ''))


def _size(size):
    if size is None:
        return None
    shape = (int(size),) if isinstance(size, numbers.Integral) else tuple(int(s) for s in size)
    if any(s < 0 for s in shape):
        raise MXNetValueError('mx.np.random: negative dimensions are not allowed in size %s' % (shape,))
    return shape


def _out_shape(params, size):
    """``size``, or the parameters' broadcast shape without one (MXNet treats ``size=()`` as no size)."""
    shapes = [tuple(p.shape) for p in params if isinstance(p, torch.Tensor)]
    try:  # (numpy's broadcast_shapes: torch's imports sympy and its symbolic shapes, ~0.4 s, on first use)
        bshape = _onp.broadcast_shapes(*shapes) if shapes else ()
        size = _size(size)
        if not size:
            return bshape
        if _onp.broadcast_shapes(bshape, size) != size:
            raise ValueError
    except ValueError:
        raise MXNetValueError('mx.np.random: operands could not be broadcast together with shapes %s and size %s'
                              % (' '.join(str(s) for s in shapes), size)) from None
    return size


def _context(ctx, params):
    if ctx is not None:
        return _ctx(ctx)
    for p in params:
        if isinstance(p, NDArray):
            return p._ctx
    return current_context()


def _draw(opname, shape, ctx, **attrs):
    """Float32 draws of ``shape`` from registry operator ``opname`` (``_random_uniform`` / ``_random_normal``)."""
    n = math.prod(shape)
    if n == 0:
        return torch.empty(shape, dtype=torch.float32, device=ctx.torch_device)
    return REGISTRY[opname].impl(shape=(n,), ctx=ctx, dtype=torch.float32, **attrs).reshape(shape)


def _uniform01(shape, ctx):
    """Float32 uniform [0, 1) draws: on the CPU under MXNet's streams, those of MXNet's single engine (what its
    NumPy samplers draw, ``mshadow::Random::SampleUniform``); otherwise the registry's ``_random_uniform``."""
    dev = ctx.torch_device
    if _mxrandom.on(dev):
        n = math.prod(shape)
        return torch.from_numpy(_onp.ascontiguousarray(_mxrandom.single_uniform(n), _onp.float32)).reshape(shape)
    return _draw('_random_uniform', shape, ctx, low=0.0, high=1.0)


def _uniform01_and_one_more(shape, ctx):
    """``_uniform01`` drawing one value more than it returns, as MXNet's ``power`` sampler does (it fills its
    workspace, one longer than the output)."""
    n = math.prod(shape)
    return _uniform01((n + 1,), ctx)[:n].reshape(shape)


def _standard_normal(shape, ctx, engine=None):
    """Float32 standard normal draws: on the CPU under MXNet's streams, those of one ``SampleGaussian`` call on
    MXNet's single engine (what its NumPy ``normal`` draws), or on ``engine``; otherwise the registry's
    ``_random_normal``."""
    if _mxrandom.on(ctx.torch_device):
        return torch.from_numpy(_mxrandom.single_normal(math.prod(shape), engine=engine)).reshape(shape)
    return _draw('_random_normal', shape, ctx, loc=0.0, scale=1.0)


def _normal_formula(z, loc, scale):
    """MXNet's ``loc + z * scale`` in its kernels' types: two numbers as float32; otherwise in the array
    parameter's type (a number given with it rounded to float32 first), float16 rounded after each operation."""
    arrays = [p for p in (loc, scale) if isinstance(p, torch.Tensor)]
    if not arrays:
        return z * float(_onp.float32(scale)) + float(_onp.float32(loc))
    it = arrays[0].dtype
    m, s = (p if isinstance(p, torch.Tensor) else arrays[0].new_tensor(float(_onp.float32(p))) for p in (loc, scale))
    if it is torch.float16:
        return (m.float() + (z * s.float()).half().float()).half()
    if it is torch.float64:
        return m + z.double() * s
    if not it.is_floating_point:
        return m.float() + z * s.float()
    return m + z * s


def _float_dtype(fname, dtype):
    if dtype is None:
        return torch.float32
    td = to_torch_dtype(dtype)
    if td not in _FLOAT_DTYPES:
        raise MXNetValueError("mx.np.random.%s: invalid dtype %r; valid values are 'float16', 'float32', "
                              "'float64'" % (fname, dtype))
    return td


def _check(fname, value, strict, what):
    """MXNet's parameter checks (ValueError): ``value`` > 0 (``strict``) or >= 0, for a number or an array."""
    if isinstance(value, torch.Tensor):
        bad = bool((value <= 0).any() if strict else (value < 0).any())
    else:
        bad = value <= 0 if strict else value < 0
    if bad:
        raise MXNetValueError('mx.np.random.%s: expect %s %s 0' % (fname, what, '>' if strict else '>='))


def _sample(fname, base, fn, args, size, dtype=None, ctx=None, out=None, grad=True):
    """Draws of ``base`` (uniform or normal) of the output shape, turned into samples by ``fn(draws, *params)``
    (MXNet's formula for the distribution), cast to ``dtype``. On MXNet's streams, a sampler of ``_np_samplers``
    named ``fname`` computes the values in the C types of MXNet's kernel instead (``fn`` then only carries the
    gradients). ``grad=False``: MXNet's sampler gives its array parameters zero gradients (the result stays in a
    recorded graph, with zeros for them)."""
    params = [_param(fname, k, v) for k, v in args]
    ctx = _context(ctx, [v for _, v in args])
    td = _float_dtype(fname, dtype)
    if out is not None:
        size = out.shape
    shape = _out_shape(params, size)
    draws = base(shape, ctx)
    exact = getattr(_np_samplers, fname, None) if _mxrandom.on(draws.device) else None
    if exact is None:
        r = fn(draws, *params)
    else:
        r = _exact(exact, fn, draws, params, shape)
    r = r.expand(shape) if tuple(r.shape) != shape else r
    r = r.to(td)
    if not grad:
        r = _zero_grads(r.detach(), params)
    return _write(out, r) if out is not None else _np_wrap(r, ctx)


def _exact(sampler, fn, draws, params, shape):
    """``sampler`` (of ``_np_samplers``) on the draws; where an array parameter is in a recorded graph, the
    result carries ``fn``'s gradients (its values stay the sampler's)."""
    n = math.prod(shape)
    host = [p if not isinstance(p, torch.Tensor) else
            _onp.ascontiguousarray(_onp.broadcast_to(p.detach().cpu().numpy(), shape)).reshape(n) for p in params]
    r = torch.from_numpy(sampler(draws.numpy().reshape(n), *host)).reshape(shape)  # host: MXNet's CPU streams
    if _ag.is_recording() and any(isinstance(p, torch.Tensor) and p.requires_grad for p in params):
        g = fn(draws, *params)
        r = r + (g - g.detach())  # (adds zeros: the values are the sampler's)
    return r


def _zero_grads(t, params):
    """``t`` kept in a recorded graph with zero gradients for the array parameters among ``params``."""
    return _ag.keep_in_graph(t, *[p for p in params if isinstance(p, torch.Tensor)])


# ---- the samplers -------------------------------------------------------------------------------------------------
def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples from ``[low, high)``; ``low``/``high`` numbers or arrays (whose gradients are zero, as MXNet's)."""
    return _sample('uniform', _uniform01, lambda u, lo, hi: lo + u * (hi - lo), (('low', low), ('high', high)),
                   size, dtype, ctx, out, grad=False)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples from N(loc, scale**2) (``scale`` >= 0, else ValueError)."""
    _check('normal', _param('normal', 'scale', scale), False, 'scale')
    return _sample('normal', _standard_normal, _normal_formula, (('loc', loc), ('scale', scale)),
                   size, dtype, ctx, out)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None):
    """``exp(normal(mean, sigma))``."""
    r = normal(mean, sigma, size=size, dtype=dtype, ctx=ctx)
    t = torch.exp(r._t)
    return _write(out, t) if out is not None else _np_wrap(t, r._ctx)


def logistic(loc=0.0, scale=1.0, size=None, ctx=None, out=None):
    """Samples ``loc + scale * log(u / (1 - u))`` (``scale`` >= 0)."""
    _check('logistic', _param('logistic', 'scale', scale), False, 'scale')
    return _sample('logistic', _uniform01, lambda u, m, s: m + (torch.log(u) - torch.log1p(-u)) * s,
                   (('loc', loc), ('scale', scale)), size, None, ctx, out)


def gumbel(loc=0.0, scale=1.0, size=None, ctx=None, out=None):
    """Samples ``loc - scale * log(-log(u))`` (``scale`` >= 0)."""
    _check('gumbel', _param('gumbel', 'scale', scale), False, 'scale')
    return _sample('gumbel', _uniform01, lambda u, m, s: m - torch.log(-torch.log(u)) * s,
                   (('loc', loc), ('scale', scale)), size, None, ctx, out)


def exponential(scale=1.0, size=None, ctx=None, out=None):
    """Samples ``-scale * log(u)`` (``scale`` >= 0)."""
    _check('exponential', _param('exponential', 'scale', scale), False, 'scale')
    return _sample('exponential', _uniform01, lambda u, s: -torch.log(u) * s, (('scale', scale),), size, None,
                   ctx, out)


def rayleigh(scale=1.0, size=None, ctx=None, out=None):
    """Samples ``scale * sqrt(-2 log(u))`` (``scale`` >= 0)."""
    _check('rayleigh', _param('rayleigh', 'scale', scale), False, 'scale')
    return _sample('rayleigh', _uniform01, lambda u, s: torch.sqrt(-2 * torch.log(u)) * s, (('scale', scale),),
                   size, None, ctx, out)


def weibull(a, size=None, ctx=None, out=None):
    """Samples ``(-log(u)) ** (1 / a)`` (``a`` > 0)."""
    _check('weibull', _param('weibull', 'a', a), True, 'a')
    return _sample('weibull', _uniform01, lambda u, k: torch.pow(-torch.log(u), 1.0 / k), (('a', a),), size,
                   None, ctx, out)


def pareto(a, size=None, ctx=None, out=None):
    """Samples ``exp(-log(u) / a) - 1`` (Lomax, as NumPy's; ``a`` > 0)."""
    _check('pareto', _param('pareto', 'a', a), True, 'a')
    return _sample('pareto', _uniform01, lambda u, k: torch.exp(-torch.log(u) / k) - 1, (('a', a),), size, None,
                   ctx, out)


def power(a, size=None):
    """Samples ``(1 - u) ** (1 / a)`` (``a`` > 0; an array ``a``'s gradient is zero, as MXNet's)."""
    _check('power', _param('power', 'a', a), True, 'a')
    return _sample('power', _uniform01_and_one_more, lambda u, k: torch.pow(1 - u, 1.0 / k), (('a', a),), size,
                   grad=False)


def gamma(shape, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples Gamma(shape, scale) (both > 0); array parameters get zero gradients, as MXNet's."""
    _check('gamma', _param('gamma', 'shape', shape), True, 'shape')
    _check('gamma', _param('gamma', 'scale', scale), True, 'scale')
    if _mxrandom.on(_context(ctx, (shape, scale)).torch_device):
        td = _float_dtype('gamma', dtype)
        return _sample('gamma', _single_engine_gamma(shape, scale, td), lambda g, k, s: g,
                       (('shape', shape), ('scale', scale)), size, dtype, ctx, out, grad=False)
    return _sample('gamma', _gamma_base(shape), lambda g, k, s: g * s, (('shape', shape), ('scale', scale)),
                   size, dtype, ctx, out, grad=False)


def _single_engine_gamma(alpha, scale, td):
    """MXNet's own gamma samples (scaled) of the output shape, from its single CPU engine: the parameters in the
    type of the array among them (the first), numbers as float32; float64, or float32 for a float16 ``td``
    (MXNet's half_t of a double goes through float)."""
    def base(shape, ctx):
        arrays = [p for p in (alpha, scale) if isinstance(p, ndarray)]
        it = arrays[0]._t.dtype if arrays else torch.float32
        it = _onp.dtype(str(it).replace('torch.', '')) if it in _FLOAT_DTYPES else _onp.dtype(_onp.float32)

        def values(p):
            v = p._t.detach().cpu().numpy() if isinstance(p, ndarray) else _onp.float32(p)
            return _onp.ascontiguousarray(_onp.broadcast_to(_onp.asarray(v).astype(it), shape)).ravel()
        g = _mxrandom.single_gamma(values(alpha), values(scale))
        if td is torch.float16:
            g = g.astype(_onp.float32)
        return torch.from_numpy(g).reshape(shape)
    return base


def _gamma_base(alpha):
    """Standard gamma draws of the output shape for shape parameter ``alpha`` (a number or an array)."""
    def base(shape, ctx):
        n = math.prod(shape)
        if n == 0:
            return torch.empty(shape, dtype=torch.float32, device=ctx.torch_device)
        if not isinstance(alpha, NDArray):
            return REGISTRY['_random_gamma'].impl(alpha=float(alpha), beta=1.0, shape=(n,), ctx=ctx,
                                                  dtype=torch.float32).reshape(shape)
        a = alpha._t.detach().to(torch.float32).expand(shape).reshape(n)
        return REGISTRY['_sample_gamma'].impl(a, torch.ones_like(a), shape=(), dtype=torch.float32).reshape(shape)
    return base


def beta(a, b, size=None, dtype=None, ctx=None):
    """Samples Beta(a, b) as ``X / (X + Y)`` of two float64 gamma samples, as MXNet."""
    x = gamma(a, 1, size=size, dtype='float64', ctx=ctx)
    y = gamma(b, 1, size=size, dtype='float64', ctx=ctx)
    r = (x._t / (x._t + y._t)).to(_float_dtype('beta', dtype))
    return _np_wrap(_zero_grads(r, [_param('beta', 'a', a), _param('beta', 'b', b)]), x._ctx)


def chisquare(df, size=None, dtype=None, ctx=None):
    """MXNet 1.9.1's ``chisquare``: ``gamma(df / 2, 1 / 2)``, so its mean is ``df / 4``, not NumPy's ``df``
    (MXNet's scale, kept)."""
    return gamma(df / 2, 1 / 2, size=size, dtype=dtype, ctx=ctx)


def rand(*size, **kwargs):
    """Uniform [0, 1) samples of shape ``size``."""
    return uniform(0, 1, size=tuple(size), **kwargs)


def randn(*size, **kwargs):
    """Standard normal samples of shape ``size``."""
    return normal(0, 1, size=tuple(size), **kwargs)


def randint(low, high=None, size=None, dtype=None, ctx=None, out=None):
    """Integers from ``[low, high)`` (``[0, low)`` without ``high``), int64 by default; the registry's
    ``_random_randint`` (``mx.nd.random.randint``'s operator, as in MXNet). ``low``/``high`` are integers."""
    if high is None:
        low, high = 0, low
    for v in (low, high):
        if isinstance(v, NDArray) or not isinstance(v, (numbers.Integral, _onp.integer)):
            raise MXNetValueError('mx.np.random.randint: low and high must be integers, got %r' % (v,))
    ctx = _ctx(ctx)
    shape = _size(size) or ()
    td = torch.int64 if dtype is None else to_torch_dtype(dtype)
    if td not in (torch.int32, torch.int64):
        raise MXNetValueError("mx.np.random.randint: invalid dtype %r; valid values are 'int32', 'int64'" % (dtype,))
    n = math.prod(shape)
    op = REGISTRY['_random_randint']
    if n == 0:
        t = torch.empty(shape, dtype=td, device=ctx.torch_device)
    else:
        t = op.impl(low=int(low), high=int(high), shape=(n,), ctx=ctx, dtype=td).reshape(shape)
    return _write(out, t) if out is not None else _np_wrap(t, ctx)


def shuffle(x):
    """Shuffles ``x`` in place along its first axis (the registry's ``_shuffle``, as in MXNet)."""
    if not isinstance(x, ndarray):
        raise TypeError('mx.np.random.shuffle: x must be an mx.np.ndarray, got %s' % type(x).__name__)
    r = REGISTRY['_shuffle'].impl(x._t)
    with torch.no_grad():
        x._t.copy_(r)


def multinomial(n, pvals, size=None, **kwargs):
    """Counts of ``n`` draws over the categories of ``pvals`` (a list or an ``mx.np`` array; the last category
    takes what the others leave, as NumPy's); int64, shape ``size + (len(pvals),)``. On the CPU under MXNet's
    streams, MXNet's own draws (double uniforms of its single engine, walked through the running sums in the
    probabilities' dtype); otherwise the registry's ``_sample_multinomial`` category indices."""
    if kwargs:
        raise TypeError('mx.np.random.multinomial() got unexpected keyword arguments %s' % sorted(kwargs))
    if isinstance(pvals, ndarray):
        p = pvals._t.detach()
        ctx = pvals._ctx
    else:
        if isinstance(pvals, NDArray):
            raise _legacy_error('np.random.multinomial', pvals)
        if isinstance(pvals, _onp.ndarray):
            raise MXNetValueError('mx.np.random.multinomial: a NumPy array pvals is not supported (as MXNet)')
        if any(isinstance(v, (list, tuple)) for v in pvals):
            raise MXNetValueError('mx.np.random.multinomial: object too deep for desired array')
        ctx = current_context()
        p = torch.tensor([float(v) for v in pvals], dtype=torch.float64, device=ctx.torch_device)
    if p.dim() != 1:
        raise MXNetValueError('mx.np.random.multinomial: object too deep for desired array')
    k = p.shape[0]
    shape = _size(size) or ()
    if k == 0:
        return _np_wrap(torch.zeros(shape + (0,), dtype=torch.int64, device=p.device), ctx)
    # MXNet's check: each running sum (in the array's dtype, float64 for a list) at most 1; what the
    # probabilities leave goes to the last category
    total = float(torch.cumsum(p, 0).max())
    if total > 1.0 + 1e-12:
        raise MXNetError('mx.np.random.multinomial: the probabilities sum to %g > 1.0' % total)
    m, n = math.prod(shape), int(n)
    if _mxrandom.on(p.device) and m:
        # MXNet fills its whole workspace: m * n values, and k more when pvals is a list (its copy's room)
        u = _mxrandom.single_uniform(m * n + (0 if isinstance(pvals, ndarray) else k), _onp.float64)[:m * n]
        host = p.cpu().numpy()
        cum = _onp.add.accumulate(host)  # (in the probabilities' dtype, one by one, as MXNet's kernel)
        idx = _onp.minimum(_onp.searchsorted(cum, u.astype(host.dtype), side='right'), k - 1).reshape(m, n)
        counts = _onp.zeros((m, k), dtype=_onp.int64)
        _onp.add.at(counts, (_onp.arange(m)[:, None], idx), 1)
        return _np_wrap(torch.from_numpy(counts.reshape(shape + (k,))), ctx)
    p = p.to(torch.float64)
    head = float(p[:-1].sum())
    p = torch.cat([p[:-1], p.new_tensor([max(0.0, 1.0 - head)])]).to(torch.float32)
    counts = torch.zeros((m, k), dtype=torch.int64, device=p.device)
    if m and n:
        idx = REGISTRY['_sample_multinomial'].impl(p, shape=(m, n), get_prob=False, dtype=torch.int32)
        counts.scatter_add_(1, idx.long().clamp(max=k - 1), torch.ones((m, n), dtype=torch.int64, device=p.device))
    return _np_wrap(counts.reshape(shape + (k,)), ctx)


def choice(a, size=None, replace=True, p=None, ctx=None, out=None):
    """Samples from ``range(a)`` (an int ``a``) or from the elements of the 1-D array ``a``, with probabilities
    ``p`` (an ``mx.np`` array) if given. On the CPU under MXNet's streams, MXNet's own draws from its single engine
    (raw integers modulo ``a``, its reservoir sampling without replacement, float uniforms through the running
    sums of ``p``), except a weighted sample without replacement (a torch one); elsewhere the registry's
    ``_random_randint`` / ``_sample_multinomial`` operators and torch permutations."""
    if isinstance(a, ndarray):
        if a.ndim != 1:
            raise MXNetValueError('mx.np.random.choice: a must be 1-dimensional')
        n, ctx = a.shape[0], a._ctx
    else:
        n, ctx = int(a), _ctx(ctx)
    if p is not None and not isinstance(p, ndarray):
        if isinstance(p, NDArray):
            raise _legacy_error('np.random.choice', p)
        raise MXNetError('mx.np.random.choice: p must be an mx.np.ndarray, got %s (as MXNet)' % type(p).__name__)
    shape = _size(size) or ()
    m = math.prod(shape)
    dev = ctx.torch_device
    if m == 0:
        idx = torch.empty((0,), dtype=torch.int64, device=dev)
    elif _mxrandom.on(dev) and (replace or p is None):
        if not replace and m > n:
            raise MXNetValueError('mx.np.random.choice: cannot take a larger sample than the population (%d > %d) '
                                  'without replacement' % (m, n))
        weights = None if p is None else p._t.detach().cpu().numpy()
        idx = torch.from_numpy(_single_engine_choice(n, m, replace, weights))
    elif replace:
        if p is None:
            idx = REGISTRY['_random_randint'].impl(low=0, high=n, shape=(m,), ctx=ctx, dtype=torch.int64)
        else:
            idx = REGISTRY['_sample_multinomial'].impl(p._t.detach().to(torch.float32), shape=(m,),
                                                        get_prob=False, dtype=torch.int32).long().clamp(max=n - 1)
    else:
        if m > n:
            raise MXNetValueError('mx.np.random.choice: cannot take a larger sample than the population (%d > %d) '
                                  'without replacement' % (m, n))
        if p is None:
            idx = torch.randperm(n, device=dev)[:m]
        else:
            idx = torch.multinomial(p._t.detach().to(torch.float32), m, replacement=False)
    idx = idx.reshape(shape)
    r = a._t[idx] if isinstance(a, ndarray) else idx
    return _write(out, r) if out is not None else _np_wrap(r, ctx)


def _single_engine_choice(n, m, replace, weights):
    """MXNet's choice kernels on its single CPU engine's draws: ``m`` indices of ``range(n)``."""
    if weights is not None:  # with replacement: how many running sums (float32, one by one) lie below a uniform
        u = _mxrandom.single_uniform(m, _onp.float32)
        cum = _onp.add.accumulate(weights.astype(_onp.float32))
        return _onp.minimum(_onp.searchsorted(cum, u, side='left'), n - 1).astype(_onp.int64)
    if replace:
        return (_mxrandom.SINGLE.draw(m).astype(_onp.int64) % n).astype(_onp.int64)
    draws = min(m, n - m)  # MXNet's reservoir sampling
    raw = _mxrandom.SINGLE.draw(draws).astype(_onp.int64)
    split = n - draws
    samples = raw % (_onp.arange(draws) + split + 1)
    idx = _onp.arange(n, dtype=_onp.int64)
    for i, z in enumerate(samples.tolist()):
        if z < split:
            idx[z], idx[i + split] = idx[i + split], idx[z]
    return idx[n - m:] if 2 * m < n else idx[:m]


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None):
    """MXNet 1.9.1's sampler: ``mean + einsum('...jk,...j->...k', cholesky(cov), z)`` with standard normal ``z``,
    broadcasting ``mean`` against ``cov``'s batch, ``size`` in front (so the samples' covariance is ``L.T @ L``,
    which is ``cov`` for a diagonal ``cov``, as MXNet's); float16 factors in float32. No gradient, as MXNet."""
    if check_valid is not None:
        raise NotImplementedError('mx.np.random.multivariate_normal: check_valid is not supported (as MXNet)')
    if tol is not None:
        raise NotImplementedError('mx.np.random.multivariate_normal: tol is not supported (as MXNet)')
    m = _array_input('np.random.multivariate_normal', mean).detach()
    c = _array_input('np.random.multivariate_normal', cov).detach()
    if m.dim() < 1:
        raise MXNetValueError('mx.np.random.multivariate_normal: mean must be at least 1 dimensional')
    if c.dim() < 2:
        raise MXNetValueError('mx.np.random.multivariate_normal: cov must be at least 2 dimensional')
    if c.shape[-1] != c.shape[-2] or c.shape[-1] != m.shape[-1]:
        raise MXNetValueError('mx.np.random.multivariate_normal: mean of shape %s and cov of shape %s do not match'
                              % (tuple(m.shape), tuple(c.shape)))
    try:
        shape = _onp.broadcast_shapes(tuple(m.shape), tuple(c.shape[:-1]))
    except ValueError:
        raise MXNetValueError('mx.np.random.multivariate_normal: the batch shapes of mean %s and cov %s do not '
                              'broadcast' % (tuple(m.shape), tuple(c.shape))) from None
    shape = (_size(size) or ()) + shape if size is not None else shape
    scale = torch.linalg.cholesky(c.float() if c.dtype is torch.float16 else c).to(c.dtype)
    # (MXNet's fallback draws np.random.normal on its custom-operator thread, from that thread's own engine)
    noise = _standard_normal(shape, mean._ctx, _mxrandom.CUSTOM_OP_SINGLE).to(m.dtype)
    out = m + torch.einsum('...jk,...j->...k', scale.to(m.dtype), noise)
    return _np_wrap(out, mean._ctx)


def __dir__():
    # the module's listing as MXNet's: its samplers and module attributes, not the helpers this one imports
    hooks = ('__dir__', '__getattr__')
    return sorted([n for n in globals() if n.startswith('__') and n not in hooks] + ['_mx_nd_np'] + __all__)


def __getattr__(name):
    if name == '_mx_nd_np':  # (MXNet's module keeps the mx.nd.np namespace under this name)
        from .. import numpy as found  # reason: the mx.np package imports this module
        return found
    raise AttributeError("module 'mxnet.numpy.random' has no attribute %r" % name)
