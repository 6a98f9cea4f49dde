"""``mx.init`` / ``mx.initializer``: weight initializers, dispatched on the parameter's name as in MXNet.

Random initializers draw through ``mx.nd.random`` as MXNet's do (through ``mx.np.random`` with NumPy semantics on,
as MXNet's then do), so on the CPU (where Gluon initializes every parameter) the weights are MXNet's for the same
``mx.random.seed``; an array on a GPU draws from torch's generator there. Orthogonal factorises with numpy's SVD,
as MXNet, whose LAPACK may choose other signs for singular vectors.
Checks that MXNet makes with ``assert`` raise :class:`MXNetAssertionError` (an ``AssertionError`` and an
``MXNetValueError``).
``FusedRNN`` accepts a dumped initializer string (MXNet's lookup of it fails).
"""
import json
import logging
import math
import re
import threading
import warnings

import numpy as np
import torch

from .base import MXNetValueError, MXNetTypeError, MXNetAssertionError, dtype_name, string_types  # noqa: F401
from .ndarray import random as _random, NDArray, load
from .registry import _check, make_registry
from .util import is_np_array
from .numpy import random as np_random
from .ndarray.ndarray import _wrap

__all__ = ['InitDesc', 'Initializer', 'register', 'alias', 'create', 'Load', 'Mixed', 'Zero', 'One', 'Constant',
           'Uniform', 'Normal', 'Orthogonal', 'Xavier', 'MSRAPrelu', 'Bilinear', 'LSTMBias', 'FusedRNN']


class InitDesc(str):
    """A parameter name (``str``) carrying the variable's ``attrs`` and the ``global_init`` to fall back to."""

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


def _tensor(arr, who):
    t = getattr(arr, '_t', None)
    if not isinstance(t, torch.Tensor):
        raise MXNetTypeError('%s: arr must be an NDArray, got %s' % (who, type(arr).__name__))
    return t


def _draw(arr, rnd_type, a, b, who):
    """Fill ``arr`` in place as MXNet's ``random.uniform(a, b, out=arr)`` / ``random.normal(a, b, out=arr)``:
    samples of its shape and dtype, drawn on its device; with NumPy semantics on (``npx.set_np()``), from
    ``mx.np.random`` as MXNet's initializers then do (on the CPU, MXNet's single engine, not its parallel one)."""
    t = _tensor(arr, who)
    if not t.is_floating_point():
        raise MXNetTypeError('%s: random initialization needs a float16, float32 or float64 array, got %s'
                             % (who, arr.dtype.__name__))
    if is_np_array():
        sampler = np_random.uniform if rnd_type == 'uniform' else np_random.normal
        drawn = sampler(a, b, size=tuple(t.shape), dtype=dtype_name(t.dtype), ctx=arr.context)
    else:
        sampler = _random.uniform if rnd_type == 'uniform' else _random.normal
        drawn = sampler(a, b, shape=tuple(t.shape), dtype=dtype_name(t.dtype), ctx=arr.context)
    drawn = _tensor(drawn, who)
    if _FRESH.arr is arr and _alone(drawn, t):
        arr._t = drawn  # a Parameter's new array takes the samples' tensor: the values are written once
        _FRESH.arr = None
        return
    with torch.no_grad():
        t.copy_(drawn)


class _Fresh(threading.local):
    arr = None  # the array _draw may hand its samples' tensor to (see _initialize_fresh)


_FRESH = _Fresh()


def _alone(drawn, t):
    """Whether the new samples' tensor ``drawn`` can stand for ``t``: same shape, dtype and device, contiguous,
    owning exactly its storage."""
    return (drawn.shape == t.shape and drawn.dtype == t.dtype and drawn.device == t.device
            and not t.requires_grad and drawn.is_contiguous() and drawn.storage_offset() == 0
            and drawn.untyped_storage().nbytes() == drawn.numel() * drawn.element_size())


def _initialize_fresh(init, desc, arr):
    """``init(desc, arr)`` for an array made only to be initialized, that nothing else reads or views yet (a Gluon
    Parameter's new data, zeros): a random initializer then gives it the samples' own tensor instead of copying
    them into it (``arr._t`` changes). Returns ``arr``."""
    _FRESH.arr = arr
    try:
        init(desc, arr)
    finally:
        _FRESH.arr = None
    return arr


def _mean_norm(x):
    """Default statistic for verbose mode: ||x||_2 / sqrt(size), printed like MXNet's float32 scalar."""
    t = _tensor(x, 'Initializer.set_verbosity').detach().to(torch.float32)
    return str((torch.linalg.vector_norm(t) / math.sqrt(t.numel())).cpu().numpy()[()])


# Name dispatch. InitDesc path: (suffix, method), first match wins; the suffix is also the label verbose mode logs.
_DESC_SUFFIXES = (('weight', '_init_weight'), ('bias', '_init_bias'), ('gamma', '_init_gamma'),
                  ('beta', '_init_beta'), ('min', '_init_zero'), ('max', '_init_one'),
                  ('weight_quantize', '_init_quantized_weight'), ('bias_quantize', '_init_quantized_bias'))
# legacy path (a plain str name): (prefix or None, suffix or None, method), first match wins
_LEGACY_RULES = ((('upsampling', None, '_init_bilinear'), ('stn_loc', 'weight', '_init_zero'),
                  ('stn_loc', 'bias', '_init_loc_bias'))
                 + tuple((None, suffix, method) for suffix, method in (
                     ('bias', '_init_bias'), ('gamma', '_init_gamma'), ('beta', '_init_beta'),
                     ('weight', '_init_weight'), ('moving_mean', '_init_zero'), ('moving_var', '_init_one'),
                     ('moving_inv_var', '_init_zero'), ('moving_avg', '_init_zero'), ('min', '_init_zero'),
                     ('max', '_init_one'))))


def _filler(value):
    """An ``_init_*`` method writing the constant ``value`` into the whole array."""
    def fill(self, _, arr):
        arr[:] = value
    return fill


class Initializer:
    """Base class: ``init(desc, arr)`` fills NDArray ``arr`` in place according to the name in ``desc``."""

    def __init__(self, **kwargs):
        self._kwargs, self._verbose, self._print_func = kwargs, False, None

    def set_verbosity(self, verbose=False, print_func=None):
        """Log each initialized array with ``print_func(arr)`` (default: L2 norm / sqrt(size)). Returns self."""
        self._print_func = print_func or _mean_norm
        self._verbose = verbose
        return self

    def _verbose_print(self, desc, init, arr):
        if not (self._verbose and self._print_func):
            return
        logging.info('Initialized %s as %s: %s', desc, init, self._print_func(arr))

    def dumps(self):
        """The JSON ``'["<lower-case class name>", {kwargs}]'`` that ``create`` turns back into this initializer."""
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        """Initialize ``arr`` for the parameter ``desc`` (an InitDesc; a plain str takes the legacy path)."""
        if not isinstance(desc, InitDesc):
            return self._legacy_init(desc, arr)
        if desc.global_init is None:
            desc.global_init = self
        spec = desc.attrs.get('__init__', '')
        if spec:  # the variable names its own initializer
            fill, label = create(spec)._init_weight, spec
        else:
            found = next(((m, sfx) for sfx, m in _DESC_SUFFIXES if desc.endswith(sfx)), None)
            if found is None:
                return self._init_default(desc, arr)
            fill, label = getattr(self, found[0]), found[1]
        fill(desc, arr)
        self._verbose_print(desc, label, arr)
        return None

    def _legacy_init(self, name, arr):
        """Name-pattern dispatch for ``init(str, arr)`` (deprecated in MXNet, still supported)."""
        warnings.warn('Calling initializer with init(str, NDArray) has been deprecated. '
                      'Please use init(mx.init.InitDesc(...), NDArray) instead.', DeprecationWarning, stacklevel=3)
        for ok, what in ((isinstance(name, string_types), 'name must be string'),
                         (isinstance(arr, NDArray), 'arr must be NDArray')):
            if not ok:
                raise MXNetTypeError(what)
        method = next((m for pre, suf, m in _LEGACY_RULES
                       if (pre is None or name.startswith(pre)) and (suf is None or name.endswith(suf))),
                      '_init_default')
        getattr(self, method)(name, arr)

    def _init_bilinear(self, name, arr):
        arr[:] = _bilinear_kernel(arr.shape, name)

    def _init_loc_bias(self, name, arr):
        # identity affine transform for a spatial transformer's localisation layer
        _check(arr.shape[0] == 6, '%s: the stn_loc bias must have 6 elements, got shape %s' % (name, arr.shape))
        arr[:] = np.array([1.0, 0, 0, 0, 1.0, 0])

    _init_zero = _init_bias = _init_beta = _filler(0.0)
    _init_one = _init_gamma = _filler(1.0)
    _init_quantized_bias = _filler(0)

    def _init_weight(self, name, arr):
        raise NotImplementedError('%s must override _init_weight' % type(self).__name__)

    def _init_quantized_weight(self, _, arr):
        # MXNet draws one int in [-127, 127) and fills the whole array with it.
        arr[:] = int(_random.randint(-127, 127, dtype='int32').asnumpy()[0])

    def _init_default(self, name, _):
        raise MXNetValueError(
            'Unknown initialization pattern for %s. Without an init attribute only names ending in "weight", '
            '"bias", "gamma" (1.0), "beta" (0.0), "min" (0.0) and "max" (1.0) are initialized; set one with '
            'mx.sym.Variable(init=mx.init.*)' % name)

    def __eq__(self, other):
        if isinstance(other, Initializer):
            return type(other) is type(self) and other._kwargs == self._kwargs
        return NotImplemented

    __hash__ = None  # as in MXNet: __eq__ without __hash__


_REGISTRY, _register, alias, create = make_registry(Initializer, 'initializer')


def register(klass):
    """Register an Initializer subclass so ``create`` (and ``init='name'`` arguments) find it by lower-case name."""
    return _register(klass)


def _bilinear_kernel(shape, name):
    """MXNet's bilinear upsampling kernel for a 4-D weight shape, as float32."""
    if len(shape) != 4:
        raise MXNetValueError('Bilinear initializer needs a 4-D weight, got shape %s for %s' % (shape, name))
    idx = np.arange(int(np.prod(shape)))
    f = np.ceil(shape[3] / 2.)
    c = (2 * f - 1 - f % 2) / (2. * f)
    x = idx % shape[3]
    y = (idx // shape[3]) % shape[2]
    return ((1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))).astype(np.float32).reshape(shape)


class Load:
    """Initialize from a dict of NDArrays or an ``.params`` file (``arg:``/``aux:`` prefixes are dropped);
    names not found go to ``default_init``."""

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, str):
            param = load(param)
        _check(isinstance(param, dict), 'Load: param must be a dict or a file of named arrays, got %s'
               % type(param).__name__)
        strip = lambda key: key[4:] if key[:4] in ('arg:', 'aux:') else key  # noqa: E731
        self.param = {strip(key): value for key, value in param.items()}
        self.default_init, self.verbose = default_init, verbose

    def __call__(self, name, arr):
        loaded = name in self.param
        if loaded:
            src = self.param[name]
            _check(src.shape == arr.shape, 'Parameter %s cannot be initialized from loading. Shape mismatch, '
                   'target %s vs loaded %s' % (name, arr.shape, src.shape))
            arr[:] = src
        else:
            _check(self.default_init is not None, 'Cannot Initialize %s. Not found in loaded param and no '
                   'default Initializer is provided.' % name)
            self.default_init(name, arr)
        if self.verbose:
            logging.info('Initialized %s by %s', name, 'loading' if loaded else 'default')


class Mixed:
    """Initialize each parameter with the first initializer whose regex pattern matches its name."""

    def __init__(self, patterns, initializers):
        _check(len(patterns) == len(initializers), 'Mixed: %d patterns but %d initializers'
               % (len(patterns), len(initializers)))
        self.map = [(re.compile(pattern), init) for pattern, init in zip(patterns, initializers)]

    def __call__(self, name, arr):
        chosen = next((init for prog, init in self.map if prog.match(name)), None)
        if chosen is None:
            raise MXNetValueError('Parameter name %s did not match any pattern. Consider adding a ".*" pattern '
                                  'at the end with a default Initializer.' % name)
        chosen(name, arr)


@register
@alias('zeros')
class Zero(Initializer):
    """Weights are set to 0."""

    def __init__(self):
        super().__init__()

    _init_weight = _filler(0)


@register
@alias('ones')
class One(Initializer):
    """Weights are set to 1."""

    def __init__(self):
        super().__init__()

    _init_weight = _filler(1)


def _plain_value(val):
    """A Constant value as JSON can hold it: scalars and lists stay, arrays become nested lists."""
    if np.isscalar(val) or isinstance(val, (list, tuple)):
        return val
    return (val if isinstance(val, np.ndarray) else val.asnumpy()).tolist()


@register
class Constant(Initializer):
    """Weights are set to ``value``: a scalar, or an NDArray / numpy array / nested list of the weight's shape.
    Differs from MXNet: a Constant re-created from its dump (value as a list) can be dumped again."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        arr[:] = self.value

    def dumps(self):
        # as MXNet, the converted value is kept in _kwargs
        self._kwargs['value'] = _plain_value(self._kwargs['value'])
        return super().dumps()


@register
class Uniform(Initializer):
    """Weights drawn from U[-scale, scale)."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        _draw(arr, 'uniform', -self.scale, self.scale, 'Uniform')


@register
class Normal(Initializer):
    """Weights drawn from N(0, sigma**2)."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        _draw(arr, 'normal', 0, self.sigma, 'Normal')


# random matrices Orthogonal factorises, by rand_type (float32, drawn in the current context, as MXNet's)
_ORTHO_SOURCES = {'uniform': lambda shape: _random.uniform(-1.0, 1.0, shape=shape),
                  'normal': lambda shape: _random.normal(0.0, 1.0, shape=shape)}


@register
class Orthogonal(Initializer):
    """``scale`` times an orthogonal matrix (an SVD factor of a uniform or normal random matrix), reshaped to the
    weight's shape (rows = shape[0], columns = the product of the other axes)."""

    def __init__(self, scale=1.414, rand_type='uniform'):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale, self.rand_type = scale, rand_type

    def _init_weight(self, name, arr):
        source = _ORTHO_SOURCES.get(self.rand_type)
        if source is None:
            raise MXNetValueError('Orthogonal: rand_type must be "uniform" or "normal", got %r' % self.rand_type)
        rows, cols = arr.shape[0], int(np.prod(arr.shape[1:]))
        sample = source((rows, cols)).asnumpy()
        left, _, right = np.linalg.svd(sample, full_matrices=False)
        # the factor with the sample's own shape: left when rows <= cols, else right
        ortho = left if left.shape == sample.shape else right
        arr[:] = self.scale * ortho.reshape(arr.shape)


_XAVIER_FACTORS = {'avg': lambda fan_in, fan_out: (fan_in + fan_out) / 2.0,
                   'in': lambda fan_in, fan_out: fan_in,
                   'out': lambda fan_in, fan_out: fan_out}


def xavier_scale(shape, factor_type, magnitude, name=''):
    """The bound (uniform) or standard deviation (gaussian) Xavier uses for a weight of ``shape``.

    fan_in = shape[1] * prod(shape[2:]), fan_out = shape[0] * prod(shape[2:]); the factor is their mean ('avg'),
    fan_in ('in') or fan_out ('out'); the result is sqrt(magnitude / factor).
    """
    if len(shape) < 2:
        raise MXNetValueError('Xavier initializer cannot be applied to vector %s. It requires at least 2D.' % name)
    if factor_type not in _XAVIER_FACTORS:
        raise MXNetValueError('Incorrect factor type %r for Xavier: use "avg", "in" or "out"' % (factor_type,))
    receptive = np.prod(shape[2:]) if len(shape) > 2 else 1.
    factor = _XAVIER_FACTORS[factor_type](shape[1] * receptive, shape[0] * receptive)
    return np.sqrt(magnitude / factor)


@register
class Xavier(Initializer):
    """Xavier/Glorot initialization: U[-s, s) or N(0, s**2) with s = sqrt(magnitude / factor), the factor from
    the weight's fans as in :func:`xavier_scale`."""

    def __init__(self, rnd_type='uniform', factor_type='avg', magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type, self.factor_type, self.magnitude = rnd_type, factor_type, float(magnitude)

    def _init_weight(self, name, arr):
        s = xavier_scale(arr.shape, self.factor_type, self.magnitude, name)
        draws = {'uniform': ('uniform', -s, s), 'gaussian': ('normal', 0, s)}
        if self.rnd_type not in draws:
            raise MXNetValueError('Unknown random type %r for Xavier: use "uniform" or "gaussian"' % (self.rnd_type,))
        kind, lo_or_mean, hi_or_std = draws[self.rnd_type]
        _draw(arr, kind, lo_or_mean, hi_or_std, type(self).__name__)


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialization: gaussian Xavier with magnitude 2 / (1 + slope**2)."""

    def __init__(self, factor_type='avg', slope=0.25):
        super().__init__('gaussian', factor_type, 2. / (1 + slope ** 2))
        self._kwargs = {'factor_type': factor_type, 'slope': slope}


@register
class Bilinear(Initializer):
    """Bilinear upsampling kernel for a 4-D (Deconvolution) weight."""

    def __init__(self):
        super().__init__()

    _init_weight = Initializer._init_bilinear


@register
class LSTMBias(Initializer):
    """LSTM bias: 0 everywhere except the forget gate (second quarter), set to ``forget_bias``."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        gate = int(arr.shape[0] / 4)  # gates i, f, c, o: f is the second block
        arr[:] = 0.0
        arr[gate:gate * 2] = self.forget_bias


_RNN_GATES = {'rnn_relu': [''], 'rnn_tanh': [''], 'lstm': ['_i', '_f', '_c', '_o'], 'gru': ['_r', '_z', '_o']}


def fused_rnn_slices(t, num_hidden, num_layers, mode, bidirectional):
    """Views of the flat fused-RNN parameter tensor ``t``, named as MXNet's FusedRNNCell (prefix '') unpacks them:
    all i2h/h2h weights per layer and direction, then all biases, one entry per gate."""
    if mode not in _RNN_GATES:
        raise MXNetValueError('FusedRNN: mode must be one of %s, got %r' % (', '.join(sorted(_RNN_GATES)), mode))
    gates = _RNN_GATES[mode]
    dirs = ['l', 'r'] if bidirectional else ['l']
    b, m, h = len(dirs), len(gates), num_hidden
    n = t.numel()
    ni = n // b // h // m - (num_layers - 1) * (h + b * h + 2) - h - 2
    total = (ni + h + 2) * h * m * b + (num_layers - 1) * m * h * (h + b * h + 2) * b
    _check(ni > 0 and total == n, 'Invalid parameters size for FusedRNNCell: %d values do not fit num_hidden=%d, '
           'num_layers=%d, mode=%s, bidirectional=%s' % (n, num_hidden, num_layers, mode, bidirectional))
    out, p = {}, 0

    def take(name, shape):
        nonlocal p
        size = int(np.prod(shape))
        out[name] = t[p:p + size].view(shape)
        p += size

    for layer in range(num_layers):
        for d in dirs:
            for g in gates:
                take('%s%d_i2h%s_weight' % (d, layer, g), (h, b * h) if layer > 0 else (h, ni))
            for g in gates:
                take('%s%d_h2h%s_weight' % (d, layer, g), (h, h))
    for layer in range(num_layers):
        for d in dirs:
            for kind in ('i2h', 'h2h'):
                for g in gates:
                    take('%s%d_%s%s_bias' % (d, layer, kind, g), (h,))
    return out


@register
class FusedRNN(Initializer):
    """Initialize the flat parameter vector of a fused RNN layer piece by piece: ``init`` (or the global
    initializer when None) for each unpacked weight/bias, ``forget_bias`` for LSTM forget-gate biases."""

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False, forget_bias=1.0):
        init = create(init) if isinstance(init, string_types) else init
        layout = dict(num_hidden=num_hidden, num_layers=num_layers, mode=mode, bidirectional=bidirectional,
                      forget_bias=forget_bias)
        super().__init__(init=None if init is None else init.dumps(), **layout)
        self._init = init
        for key, value in layout.items():
            setattr(self, '_' + key, value)

    def _init_weight(self, desc, arr):
        t = _tensor(arr, 'FusedRNN')
        pieces = fused_rnn_slices(t.detach(), self._num_hidden, self._num_layers, self._mode, self._bidirectional)
        global_init = getattr(desc, 'global_init', None)
        for name, piece in pieces.items():
            view = _wrap(piece, arr.context)
            if self._mode == 'lstm' and name.endswith('_f_bias'):
                view[:] = self._forget_bias
                continue
            init = self._init if self._init is not None else global_init
            if init is None:
                raise MXNetValueError('FusedRNN: init is None and %s carries no global initializer' % desc)
            init(InitDesc(name, global_init=global_init), view)
