"""Random sampling operators: ``_random_*`` (scalar parameters), ``_random_*_like``, ``_random_randint``,
``_sample_*`` (one distribution per element of the parameter arrays), ``_sample_multinomial``, ``_shuffle`` and
``_sample_unique_zipfian``.

On the CPU the numbers are MXNet 1.9.1's, bit for bit, for the same ``mx.random.seed`` (``_mxrandom``: its
std::mt19937 streams and samplers); ``MXCOMPAT_RANDOM=torch`` or ``mx.random.set_streams('torch')`` switches the
CPU samplers to torch's generators. On CUDA the numbers come from torch's generator of the device (MXNet's are
Philox streams), so a seed reproduces runs there but not MXNet's numbers. Scalar parameters are float32, parsed as
MXNet parses them. ``_random_randint`` with ``low == high`` raises (MXNet divides by zero).

As in MXNet, bad scalar parameters (``normal(0, -1)``, ``uniform(2, 1)``, ``randint(5, 2)``) are reported when the
result is read or at ``mx.nd.waitall()``, not at the call (see ``engine.fail``); a bad shape or argument raises at
the call.
"""
import math

import numpy as np
import torch

from .. import engine
from ..base import MXNetTypeError, MXNetValueError, dtype_name
from ..context import current_context
from ..util import is_np_shape
from . import _mxrandom
from .init_ops import _ctx
from .registry import defop, REQUIRED, check_same_dtype
from .shape_ops import op_error

_NP = {'float16': torch.float16, 'float32': torch.float32, 'float64': torch.float64, 'int32': torch.int32,
       'int64': torch.int64, 'uint8': torch.uint8}


def _dtype_enum(*names):
    """A ``dtype`` parser accepting only the values of MXNet's enum for the op ('None' -> None)."""
    allowed = {n: _NP.get(n) for n in names}

    def parse(v):
        if v is None:
            key = 'None'
        elif isinstance(v, torch.dtype):
            key = dtype_name(v)
        elif isinstance(v, str):
            key = v
        else:
            try:
                key = np.dtype(v).name
            except TypeError:
                key = str(v)
        if key not in allowed:
            raise ValueError('Invalid Input: %r, valid values are: {%s}' % (key, ', '.join(repr(n) for n in names)))
        return allowed[key]
    return parse


_FLOAT_DTYPE = _dtype_enum('None', 'float16', 'float32', 'float64')
_INT_DTYPE = _dtype_enum('None', 'int32', 'int64')


def _strict_int(v):
    """An integer attribute: 1, '1' or 1.0, but not 1.5 (MXNet rejects it rather than truncating)."""
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, str) and v.strip().lstrip('-').isdigit():
        return int(v)
    f = float(v)
    if f != int(f):
        raise ValueError('Invalid Parameter format: expect int but value=%r' % (v,))
    return int(f)


def _dev(ctx):
    # no ctx attribute: the current default context, as MXNet's imperative calls
    return (ctx if ctx is not None else current_context()).torch_device


def _work_dtype(out_dtype):
    return torch.float64 if out_dtype is torch.float64 else torch.float32


def _host(t):
    """A CPU tensor's values as a flat numpy array (parameters of a sampler drawing from MXNet's streams)."""
    return t.detach().cpu().numpy().ravel()


def _from_host(values, shape):
    return torch.from_numpy(np.ascontiguousarray(values)).reshape(shape)


# ---- samplers: draw(params, shape, work dtype, device) -> float tensor of `shape` ------------------------------------
# Parameters come in already broadcast to the output shape (tensors) or as Python floats.
def _gamma(alpha, scale, shape, dt, dev):
    a = alpha if isinstance(alpha, torch.Tensor) else torch.full(shape, float(alpha), dtype=dt, device=dev)
    return torch._standard_gamma(a.to(dt).expand(shape).contiguous()) * scale


def _poisson(lam, shape, dt, dev):
    rate = lam if isinstance(lam, torch.Tensor) else torch.full(shape, float(lam), dtype=dt, device=dev)
    return torch.poisson(rate.to(dt).expand(shape).contiguous())


def _draw_uniform(p, shape, dt, dev):
    low, high = p
    if isinstance(low, torch.Tensor) or isinstance(high, torch.Tensor):  # (one distribution per element)
        return torch.rand(shape, dtype=dt, device=dev) * (high - low) + low
    return torch.empty(shape, dtype=dt, device=dev).uniform_(low, high)  # (one pass, one kernel on a GPU)


def _draw_normal(p, shape, dt, dev):
    loc, scale = p
    if isinstance(loc, torch.Tensor) or isinstance(scale, torch.Tensor):
        return torch.randn(shape, dtype=dt, device=dev) * scale + loc
    return torch.empty(shape, dtype=dt, device=dev).normal_(loc, scale)


def _draw_gamma(p, shape, dt, dev):
    return _gamma(p[0], p[1], shape, dt, dev)


def _draw_exponential(p, shape, dt, dev):
    return torch.empty(shape, dtype=dt, device=dev).exponential_() / p[0]


def _draw_poisson(p, shape, dt, dev):
    return _poisson(p[0], shape, dt, dev)


def _draw_negative_binomial(p, shape, dt, dev):
    # Gamma-Poisson mixture: k failures with failure probability p, as MXNet samples it.
    k, prob = p
    return _poisson(_gamma(k, (1 - prob) / prob, shape, dt, dev), shape, dt, dev)


def _draw_generalized_negative_binomial(p, shape, dt, dev):
    mu, alpha = p
    if not isinstance(alpha, torch.Tensor):
        if alpha == 0:
            return _poisson(mu, shape, dt, dev)
        return _poisson(_gamma(1.0 / alpha, alpha * mu, shape, dt, dev), shape, dt, dev)
    zero = alpha == 0
    safe = torch.where(zero, torch.ones_like(alpha), alpha)
    lam = torch.where(zero, mu.expand(shape), _gamma(1.0 / safe, safe * mu, shape, dt, dev))
    return _poisson(lam, shape, dt, dev)


# name -> (sampler, [(param, kind, default)], checks on scalar params: [(predicate, message)])
DISTRIBUTIONS = {
    'uniform': (_draw_uniform, [('low', 'float32', 0.0), ('high', 'float32', 1.0)],
                [(lambda low, high: high >= low, 'low must be less or equal to high in uniform distribution')]),
    'normal': (_draw_normal, [('loc', 'float32', 0.0), ('scale', 'float32', 1.0)],
               [(lambda loc, scale: scale > 0, 'scale parameter in gaussian has to be positive')]),
    'gamma': (_draw_gamma, [('alpha', 'float32', 1.0), ('beta', 'float32', 1.0)],
              [(lambda alpha, beta: alpha > 0, 'alpha parameter in gamma distribution has to be positive'),
               (lambda alpha, beta: beta > 0, 'beta parameter in gamma distribution has to be positive')]),
    'exponential': (_draw_exponential, [('lam', 'float32', 1.0)],
                    [(lambda lam: lam > 0, 'lambda parameter in exponential distribution has to be positive')]),
    'poisson': (_draw_poisson, [('lam', 'float32', 1.0)],
                [(lambda lam: lam >= 0, 'lambda parameter in poisson distribution has to be non-negative')]),
    'negative_binomial': (
        _draw_negative_binomial, [('k', _strict_int, 1), ('p', 'float32', 1.0)],
        [(lambda k, p: k >= 0, 'k parameter in negative binomial distribution has to be non-negative'),
         (lambda k, p: p >= 0, 'p parameter in negative binomial distribution has to be non-negative')]),
    'generalized_negative_binomial': (
        _draw_generalized_negative_binomial, [('mu', 'float32', 1.0), ('alpha', 'float32', 1.0)],
        [(lambda mu, alpha: mu >= 0,
          'mu parameter in generalized negative binomial distribution has to be non-negative'),
         (lambda mu, alpha: alpha >= 0,
          'alpha parameter in generalized negative binomial distribution has to be non-negative')]),
}
# the same distributions drawn from MXNet's CPU streams: (values, *parameter arrays, numpy output dtype) -> values
MX_SAMPLERS = {'uniform': _mxrandom.uniform, 'normal': _mxrandom.normal, 'gamma': _mxrandom.gamma,
               'exponential': _mxrandom.exponential, 'poisson': _mxrandom.poisson,
               'negative_binomial': _mxrandom.negative_binomial,
               'generalized_negative_binomial': _mxrandom.generalized_negative_binomial}
# the same distributions with parameter arrays: input names as MXNet lists them
SAMPLE_INPUTS = {'uniform': ('low', 'high'), 'normal': ('mu', 'sigma'), 'gamma': ('alpha', 'beta'),
                 'exponential': ('lam',), 'poisson': ('lam',), 'negative_binomial': ('k', 'p'),
                 'generalized_negative_binomial': ('mu', 'alpha')}


def _param_error(op, checks, values):
    """The error MXNet's sampler reports for bad scalar parameters, or None. MXNet checks them when the kernel
    runs, so the error is deferred (``engine.fail``): it surfaces when the result is read, or at ``waitall``."""
    for ok, msg in checks:
        if not ok(*values):
            return op_error(op, '%s (got %s)' % (msg, ', '.join('%g' % v for v in values)))
    return None


def _failed(shape, dtype, dev, exc):
    return engine.fail(torch.zeros(shape, dtype=dtype, device=dev), exc, rng=torch.device(dev))


def _out_shape(op, shape):
    # MXNet's imperative shape inference fails on an unknown shape: () or any 0 dimension (legacy semantics only:
    # under NumPy shape semantics these are a scalar's and zero-size shapes)
    if shape is None or not is_np_shape() and (not shape or any(s == 0 for s in shape)):
        raise op_error(op, 'inferring shapes failed: shape must be given with no zero dimension, got %s'
                       % (tuple(shape) if shape is not None else None,))
    if any(s < 0 for s in shape):
        raise op_error(op, 'invalid shape %s' % (tuple(shape),))
    return tuple(shape)


def _sampled_infer(op, default_dtype):
    def infer(shapes, dtypes, attrs):
        dtype = attrs['dtype'] or default_dtype
        shape = attrs['shape']
        if not is_np_shape() and (shape == () or 0 in shape):
            # legacy: () is an unknown shape and 0 an unknown dimension, for symbol inference to fill in
            return [tuple(shape) or None], [dtype]
        return [_out_shape(op, shape)], [dtype]
    return infer


def _draw_scalar(name, draw, values, shape, out_dtype, dev):
    """Samples of ``shape`` for scalar parameters ``values``: MXNet's streams on the CPU (parameters as float32,
    as MXNet passes them to its kernels), else torch's."""
    if _mxrandom.on(dev):
        params = [np.array([v], dtype=np.float32) for v in values]
        return _from_host(MX_SAMPLERS[name](math.prod(shape), *params, _mxrandom.np_dtype(out_dtype)), shape)
    return draw(values, shape, _work_dtype(out_dtype), dev).to(out_dtype)


def _random_op(name, draw, pspecs, checks):
    op = '_random_' + name
    pnames = [p[0] for p in pspecs]

    def impl(shape, ctx, dtype, **params):
        values = [params[p] for p in pnames]
        shape = _out_shape(op, shape)  # (shape inference: an error at the call)
        out_dtype = dtype or torch.float32
        bad = _param_error(op, checks, values)
        if bad is not None:
            return _failed(shape, out_dtype, _dev(ctx), bad)
        r = _draw_scalar(name, draw, values, shape, out_dtype, _dev(ctx))
        return engine.sample_rng(r) if engine.RNG_FAILURES else r

    defop(op, (), pspecs + [('shape', 'shape', ()), ('ctx', _ctx, None), ('dtype', _FLOAT_DTYPE, None)], impl,
          infer=_sampled_infer(op, torch.float32),
          aliases=('random_' + name,) + (() if name not in ('uniform', 'normal') else (name,)),
          doc='Samples from the %s distribution with scalar parameters %s.' % (name, ', '.join(pnames)))

    def like(data, **params):
        values = [params[p] for p in pnames]
        if not data.is_floating_point():
            raise op_error(op + '_like', 'This operation only support floating point types, not %s'
                           % dtype_name(data.dtype), MXNetTypeError)
        bad = _param_error(op + '_like', checks, values)
        if bad is not None:
            return _failed(tuple(data.shape), data.dtype, data.device, bad)
        r = _draw_scalar(name, draw, values, tuple(data.shape), data.dtype, data.device)
        return engine.sample_rng(r) if engine.RNG_FAILURES else r

    defop(op + '_like', ('data',), pspecs, like,
          infer=lambda shapes, dtypes, attrs: ([tuple(shapes[0])], [dtypes[0]]),
          doc='Samples from the %s distribution with the shape and dtype of ``data``.' % name)


def _check_sample(op, params, shape):
    p0 = params[0]
    for p in params[1:]:
        if p.shape != p0.shape:
            raise op_error(op, 'inferring shapes failed: parameter shapes differ: %s vs %s'
                           % (tuple(p0.shape), tuple(p.shape)))
    check_same_dtype(op, params)
    extra = tuple(shape or ())
    if any(s <= 0 for s in extra):
        raise op_error(op, 'shape parameter must be non-zero within each dimension, got %s' % (extra,))
    return tuple(p0.shape) + extra, len(extra)


def _sample_op(name, draw, inputs):
    op = '_sample_' + name

    def impl(*params, shape, dtype):
        full, n_extra = _check_sample(op, params, shape)
        out_dtype = dtype or torch.float32
        if _mxrandom.on(params[0].device):
            # each parameter's samples fill one contiguous block of `shape`, as MXNet's kernels index them
            values = MX_SAMPLERS[name](math.prod(full), *[_host(p) for p in params], _mxrandom.np_dtype(out_dtype))
            r = _from_host(values, full)
            return engine.sample_rng(r) if engine.RNG_FAILURES else r
        dt = _work_dtype(torch.float64 if torch.float64 in (out_dtype, params[0].dtype) else out_dtype)
        # each parameter's samples fill one contiguous block of `shape`: view params as p.shape + (1,) * len(shape)
        ps = [p.detach().to(dt).reshape(tuple(p.shape) + (1,) * n_extra) for p in params]
        r = draw(ps, full, dt, params[0].device).to(out_dtype)
        return engine.sample_rng(r) if engine.RNG_FAILURES else r

    def infer(shapes, dtypes, attrs):
        metas = [torch.empty(s, dtype=d, device='meta') for s, d in zip(shapes, dtypes)]
        return [_check_sample(op, metas, attrs['shape'])[0]], [attrs['dtype'] or torch.float32]

    defop(op, inputs, [('shape', 'shape', ()), ('dtype', _FLOAT_DTYPE, None)], impl, infer=infer,
          aliases=('sample_' + name,),
          doc='Samples from one %s distribution per element of the parameter arrays; output shape is '
              'params.shape + shape. No gradient reaches the parameters, as in MXNet.' % name)


for _name, (_draw, _pspecs, _checks) in DISTRIBUTIONS.items():
    _random_op(_name, _draw, _pspecs, _checks)
    _sample_op(_name, _draw, SAMPLE_INPUTS[_name])


# ---- randint ---------------------------------------------------------------------------------------------------------
def _randint(low, high, shape, ctx, dtype):
    op = '_random_randint'
    shape = _out_shape(op, shape)
    if high < low:  # (deferred, as the parameter checks above)
        return _failed(shape, dtype or torch.int32, _dev(ctx), op_error(
            op, 'low must be less or equal to high in uniform distribution (got low=%d, high=%d)' % (low, high)))
    if high == low:
        raise op_error(op, 'high must be greater than low (got low=high=%d)' % low)
    dtype = dtype or torch.int32
    if _mxrandom.on(_dev(ctx)):
        r = _from_host(_mxrandom.randint(math.prod(shape), low, high, _mxrandom.np_dtype(dtype)), shape)
    else:
        r = torch.randint(low, high, shape, dtype=dtype, device=_dev(ctx))
    return engine.sample_rng(r) if engine.RNG_FAILURES else r


defop('_random_randint', (), [('low', _strict_int, REQUIRED), ('high', _strict_int, REQUIRED), ('shape', 'shape', ()),
                              ('ctx', _ctx, None), ('dtype', _INT_DTYPE, None)], _randint,
      infer=_sampled_infer('_random_randint', torch.int32),
      aliases=('random_randint',), doc='Integers drawn uniformly from [low, high) (int32 unless ``dtype``).')


# ---- multinomial and shuffle -----------------------------------------------------------------------------------------
def _multinomial_shape(data, shape):
    op = '_sample_multinomial'
    if not data.is_floating_point():
        raise op_error(op, 'This operation only support floating point types, not %s' % dtype_name(data.dtype),
                       MXNetTypeError)
    if data.dim() < 1:
        raise op_error(op, 'data must have at least one axis')
    extra = tuple(shape or ())
    return (extra or (1,)) if data.dim() == 1 else tuple(data.shape[:-1]) + extra


def _multinomial(data, shape, get_prob, dtype):
    out_shape = _multinomial_shape(data, shape)
    k = data.shape[-1]
    rows = data.detach().reshape(-1, k)
    m = math.prod(out_shape) // rows.shape[0] if rows.shape[0] else 0
    # inverse CDF on the unnormalized cumulative sums (summed in double, kept as float), as MXNet; a draw past the
    # total gives index k
    cdf = torch.cumsum(rows.to(torch.float64), -1).to(torch.float32).to(rows.dtype)
    if _mxrandom.on(data.device):  # MXNet's single CPU engine: float uniform numbers, row after row
        u = _from_host(_mxrandom.single_uniform(rows.shape[0] * m), (rows.shape[0], m))
    else:
        u = torch.rand((rows.shape[0], m), dtype=torch.float32, device=data.device)
    idx = torch.searchsorted(cdf, u.to(rows.dtype), side='left')
    sample = idx.reshape(out_shape).to(dtype)
    if not get_prob:
        return sample
    picked = torch.gather(data.reshape(-1, k), 1, idx.clamp(max=k - 1))
    if _mxrandom.on(data.device):  # the C library's logf of the float value, as MXNet
        logp = _from_host(_mxrandom.logf(_host(picked.detach().to(torch.float32))), picked.shape).to(data.dtype)
        # the gradient (1 / p) flows through a log whose value is MXNet's
        return sample, (torch.log(picked) - torch.log(picked).detach() + logp).reshape(out_shape)
    return sample, torch.log(picked).reshape(out_shape)


def _multinomial_infer(shapes, dtypes, attrs):
    out = _multinomial_shape(torch.empty(shapes[0], dtype=dtypes[0], device='meta'), attrs['shape'])
    if attrs['get_prob']:
        return [out, out], [attrs['dtype'], dtypes[0]]
    return [out], [attrs['dtype']]


defop('_sample_multinomial', ('data',), [('shape', 'shape', ()), ('get_prob', 'bool', False),
                                         ('dtype', _dtype_enum('uint8', 'int32', 'float16', 'float32', 'float64'),
                                          torch.int32)],
      _multinomial, num_outputs=lambda attrs: 2 if attrs['get_prob'] else 1, aliases=('sample_multinomial',),
      infer=_multinomial_infer,
      doc='Draws category indices from the last-axis distributions of ``data`` (with ``get_prob``, also their '
          'log-probabilities, whose gradient reaches ``data``).')


def _shuffle(data):
    if data.dim() < 1:
        raise op_error('_shuffle', 'data must have at least one axis', MXNetValueError)
    if _mxrandom.on(data.device):  # MXNet's single CPU engine (1-D: std::shuffle; more axes: its own loop)
        order = torch.from_numpy(_mxrandom.shuffle_order(data.shape[0], data.dim() == 1))
    else:
        order = torch.randperm(data.shape[0], device=data.device)
    return data.detach()[order]


defop('_shuffle', ('data',), (), _shuffle, aliases=('shuffle',), infer=lambda shapes, dtypes, attrs: (
      [tuple(shapes[0])], [dtypes[0]]),
      doc='A copy of ``data`` with its first axis randomly permuted (not differentiable).')


# ---- unique log-uniform candidates (sampled softmax) ---------------------------------------------------------------
def _unique_zipfian_row(n, log_range):
    """Draws round(exp(u * log_range)) - 1 until ``n`` distinct values have come up; returns them in the order
    they first came up, and how many draws that took (the kernel's semantics, drawn in blocks)."""
    got = torch.empty(0, dtype=torch.int64)
    tries = 0
    while got.numel() < n:
        block = max(64, 2 * (n - got.numel()))
        v = torch.round(torch.exp(torch.rand(block, dtype=torch.float64) * log_range)).to(torch.int64) - 1
        order = torch.sort(v, stable=True).indices  # first occurrence of each value inside the block
        first = torch.ones(block, dtype=torch.bool)
        first[1:] = v[order[1:]] != v[order[:-1]]
        is_new = torch.zeros(block, dtype=torch.bool)
        is_new[order[first]] = True
        is_new &= ~torch.isin(v, got)
        pos = is_new.nonzero().squeeze(1)
        need = n - got.numel()
        if pos.numel() >= need:
            tries += int(pos[need - 1]) + 1
            return torch.cat([got, v[pos[:need]]]), tries
        tries += block
        got = torch.cat([got, v[pos]])
    return got, tries


def _sample_unique_zipfian(range_max, shape):
    op = '_sample_unique_zipfian'
    if len(shape) != 2:
        raise op_error(op, 'shape must be 2-D (batch size, samples per batch), got %s' % (tuple(shape),))
    batch, n = shape
    if n > range_max:  # (a check of the kernel: deferred, as the samplers' parameter checks)
        exc = op_error(op, 'Number of samples cannot exceed the number of possible classes (%d > %d)'
                       % (n, range_max))
        return (engine.fail(torch.zeros(shape, dtype=torch.int64), exc, rng=torch.device('cpu')),
                engine.fail(torch.zeros((batch,), dtype=torch.int64), exc, rng=torch.device('cpu')))
    if _mxrandom.on('cpu'):
        samples, tries = _mxrandom.unique_zipfian(range_max, batch, n)
        out = torch.from_numpy(samples), torch.from_numpy(tries)
        return engine.sample_rng(out) if engine.RNG_FAILURES else out
    log_range = math.log(range_max)
    rows = [_unique_zipfian_row(n, log_range) for _ in range(batch)]
    samples = torch.stack([r[0] for r in rows]) if rows else torch.empty((0, n), dtype=torch.int64)
    out = samples, torch.tensor([r[1] for r in rows], dtype=torch.int64)
    return engine.sample_rng(out) if engine.RNG_FAILURES else out


defop('_sample_unique_zipfian', (), [('range_max', 'int', REQUIRED), ('shape', 'shape', ())], _sample_unique_zipfian,
      num_outputs=2, infer=lambda shapes, dtypes, attrs: ([tuple(attrs['shape']), tuple(attrs['shape'][:1])],
                                                          [torch.int64, torch.int64]),
      doc='For each of shape[0] rows, shape[1] distinct classes of [0, range_max) from the log-uniform '
          'distribution, and the number of draws that took (CPU; int64).')
