"""``mx.init`` / ``mx.initializer``: weight initializers, dispatched on the parameter's name as in MXNet.

Differs from MXNet: random draws come from torch's generator (seeded by ``mx.random.seed``), so values differ
from MXNet's for the same seed while the distributions, bounds and deterministic fills are the same. Checks that
MXNet makes with ``assert`` raise :class:`MXNetAssertionError` (an ``AssertionError`` and an ``MXNetValueError``).
``FusedRNN`` accepts a dumped initializer string (MXNet's lookup of it fails).
"""
import json
import logging
import math
import re
import warnings

import numpy as np
import torch

from .base import MXNetValueError, MXNetTypeError, MXNetAssertionError, string_types  # noqa: F401
from .registry import _check, make_registry

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
    """Fill ``arr`` in place: uniform on [a, b) or normal(mean=a, std=b), from torch's generator."""
    t = _tensor(arr, who)
    if not t.is_floating_point():
        raise MXNetTypeError('%s: random initialization needs a float16, float32 or float64 array, got %s'
                             % (who, arr.dtype.__name__))
    with torch.no_grad():
        if rnd_type == 'uniform':
            t.uniform_(float(a), float(b))
        else:
            t.normal_(float(a), float(b))


def _mean_norm(x):
    """Default statistic for verbose mode: ||x||_2 / sqrt(size), printed like MXNet's float32 scalar."""
    t = _tensor(x, 'Initializer.set_verbosity').detach().to(torch.float32)
    return str((torch.linalg.vector_norm(t) / math.sqrt(t.numel())).numpy()[()])


# name suffix -> (method, label printed in verbose mode) for the InitDesc path; first match wins
_DESC_SUFFIXES = (('weight', '_init_weight'), ('bias', '_init_bias'), ('gamma', '_init_gamma'),
                  ('beta', '_init_beta'), ('min', '_init_zero'), ('max', '_init_one'),
                  ('weight_quantize', '_init_quantized_weight'), ('bias_quantize', '_init_quantized_bias'))
# the legacy (plain str name) path, after its prefix rules
_LEGACY_SUFFIXES = (('bias', '_init_bias'), ('gamma', '_init_gamma'), ('beta', '_init_beta'),
                    ('weight', '_init_weight'), ('moving_mean', '_init_zero'), ('moving_var', '_init_one'),
                    ('moving_inv_var', '_init_zero'), ('moving_avg', '_init_zero'), ('min', '_init_zero'),
                    ('max', '_init_one'))


class Initializer:
    """Base class: ``init(desc, arr)`` fills NDArray ``arr`` in place according to the name in ``desc``."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        """Log each initialized array with ``print_func(arr)`` (default: L2 norm / sqrt(size)). Returns self."""
        self._verbose = verbose
        self._print_func = _mean_norm if print_func is None else print_func
        return self

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            logging.info('Initialized %s as %s: %s', desc, init, self._print_func(arr))

    def dumps(self):
        """The JSON ``'["<lower-case class name>", {kwargs}]'`` that ``create`` turns back into this initializer."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        """Initialize ``arr`` for the parameter ``desc`` (an InitDesc; a plain str takes the legacy path)."""
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get('__init__', '')
        if init:
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        for suffix, method in _DESC_SUFFIXES:
            if desc.endswith(suffix):
                getattr(self, method)(desc, arr)
                self._verbose_print(desc, suffix, arr)
                return
        self._init_default(desc, arr)

    def _legacy_init(self, name, arr):
        """Name-pattern dispatch for ``init(str, arr)`` (deprecated in MXNet, still supported)."""
        warnings.warn('Calling initializer with init(str, NDArray) has been deprecated. '
                      'Please use init(mx.init.InitDesc(...), NDArray) instead.', DeprecationWarning, stacklevel=3)
        if not isinstance(name, string_types):
            raise MXNetTypeError('name must be string')
        from .ndarray import NDArray
        if not isinstance(arr, NDArray):
            raise MXNetTypeError('arr must be NDArray')
        if name.startswith('upsampling'):
            self._init_bilinear(name, arr)
        elif name.startswith('stn_loc') and name.endswith('weight'):
            self._init_zero(name, arr)
        elif name.startswith('stn_loc') and name.endswith('bias'):
            self._init_loc_bias(name, arr)
        else:
            for suffix, method in _LEGACY_SUFFIXES:
                if name.endswith(suffix):
                    getattr(self, method)(name, arr)
                    return
            self._init_default(name, arr)

    def _init_bilinear(self, name, arr):
        arr[:] = _bilinear_kernel(arr.shape, name)

    def _init_loc_bias(self, name, arr):
        _check(arr.shape[0] == 6, '%s: the stn_loc bias must have 6 elements, got shape %s' % (name, arr.shape))
        arr[:] = np.array([1.0, 0, 0, 0, 1.0, 0])

    def _init_zero(self, _, arr):
        arr[:] = 0.0

    def _init_one(self, _, arr):
        arr[:] = 1.0

    def _init_bias(self, _, arr):
        arr[:] = 0.0

    def _init_quantized_bias(self, _, arr):
        arr[:] = 0

    def _init_gamma(self, _, arr):
        arr[:] = 1.0

    def _init_beta(self, _, arr):
        arr[:] = 0.0

    def _init_weight(self, name, arr):
        raise NotImplementedError('%s must override _init_weight' % type(self).__name__)

    def _init_quantized_weight(self, _, arr):
        # MXNet draws one int in [-127, 127) and fills the whole array with it.
        arr[:] = int(torch.randint(-127, 127, ()))

    def _init_default(self, name, _):
        raise MXNetValueError(
            'Unknown initialization pattern for %s. Without an init attribute only names ending in "weight", '
            '"bias", "gamma" (1.0), "beta" (0.0), "min" (0.0) and "max" (1.0) are initialized; set one with '
            'mx.sym.Variable(init=mx.init.*)' % name)

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

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
            from .ndarray import load
            param = load(param)
        _check(isinstance(param, dict), 'Load: param must be a dict or a file of named arrays, got %s'
               % type(param).__name__)
        self.param = {}
        for name, arr in param.items():
            self.param[name[4:] if name.startswith(('arg:', 'aux:')) else name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            src = self.param[name]
            _check(arr.shape == src.shape, 'Parameter %s cannot be initialized from loading. Shape mismatch, '
                   'target %s vs loaded %s' % (name, arr.shape, src.shape))
            arr[:] = src
            if self.verbose:
                logging.info('Initialized %s by loading', name)
            return
        _check(self.default_init is not None, 'Cannot Initialize %s. Not found in loaded param and no default '
               'Initializer is provided.' % name)
        self.default_init(name, arr)
        if self.verbose:
            logging.info('Initialized %s by default', name)


class Mixed:
    """Initialize each parameter with the first initializer whose regex pattern matches its name."""

    def __init__(self, patterns, initializers):
        _check(len(patterns) == len(initializers), 'Mixed: %d patterns but %d initializers'
               % (len(patterns), len(initializers)))
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name, arr):
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise MXNetValueError('Parameter name %s did not match any pattern. Consider adding a ".*" pattern at the '
                              'end with a default Initializer.' % name)


@register
@alias('zeros')
class Zero(Initializer):
    """Weights are set to 0."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 0


@register
@alias('ones')
class One(Initializer):
    """Weights are set to 1."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 1


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
        val = self._kwargs['value']
        if isinstance(val, np.ndarray):
            self._kwargs['value'] = val.tolist()
        elif not np.isscalar(val) and not isinstance(val, (list, tuple)):
            self._kwargs['value'] = val.asnumpy().tolist()
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


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


@register
class Orthogonal(Initializer):
    """``scale`` times an orthogonal matrix (an SVD factor of a uniform or normal random matrix), reshaped to the
    weight's shape (rows = shape[0], columns = the product of the other axes)."""

    def __init__(self, scale=1.414, rand_type='uniform'):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, name, arr):
        nout = arr.shape[0]
        nin = int(np.prod(arr.shape[1:]))
        if self.rand_type == 'uniform':
            tmp = torch.rand((nout, nin)) * 2 - 1
        elif self.rand_type == 'normal':
            tmp = torch.randn((nout, nin))
        else:
            raise MXNetValueError('Orthogonal: rand_type must be "uniform" or "normal", got %r' % self.rand_type)
        tmp = tmp.numpy()
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        arr[:] = self.scale * res.reshape(arr.shape)


def xavier_scale(shape, factor_type, magnitude, name=''):
    """The bound (uniform) or standard deviation (gaussian) Xavier uses for a weight of ``shape``.

    fan_in = shape[1] * prod(shape[2:]), fan_out = shape[0] * prod(shape[2:]); the factor is their mean ('avg'),
    fan_in ('in') or fan_out ('out'); the result is sqrt(magnitude / factor).
    """
    if len(shape) < 2:
        raise MXNetValueError('Xavier initializer cannot be applied to vector %s. It requires at least 2D.' % name)
    hw_scale = np.prod(shape[2:]) if len(shape) > 2 else 1.
    fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
    if factor_type == 'avg':
        factor = (fan_in + fan_out) / 2.0
    elif factor_type == 'in':
        factor = fan_in
    elif factor_type == 'out':
        factor = fan_out
    else:
        raise MXNetValueError('Incorrect factor type %r for Xavier: use "avg", "in" or "out"' % (factor_type,))
    return np.sqrt(magnitude / factor)


@register
class Xavier(Initializer):
    """Xavier/Glorot initialization: U[-s, s) or N(0, s**2) with s = sqrt(magnitude / factor), the factor from
    the weight's fans as in :func:`xavier_scale`."""

    def __init__(self, rnd_type='uniform', factor_type='avg', magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        scale = xavier_scale(arr.shape, self.factor_type, self.magnitude, name)
        if self.rnd_type == 'uniform':
            _draw(arr, 'uniform', -scale, scale, type(self).__name__)
        elif self.rnd_type == 'gaussian':
            _draw(arr, 'normal', 0, scale, type(self).__name__)
        else:
            raise MXNetValueError('Unknown random type %r for Xavier: use "uniform" or "gaussian"' % (self.rnd_type,))


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

    def _init_weight(self, name, arr):
        arr[:] = _bilinear_kernel(arr.shape, name)


@register
class LSTMBias(Initializer):
    """LSTM bias: 0 everywhere except the forget gate (second quarter), set to ``forget_bias``."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        arr[:] = 0.0
        num_hidden = int(arr.shape[0] / 4)
        arr[num_hidden:2 * num_hidden] = self.forget_bias


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
        if isinstance(init, string_types):
            init = create(init)
        super().__init__(init=init.dumps() if init is not None else None, num_hidden=num_hidden,
                         num_layers=num_layers, mode=mode, bidirectional=bidirectional, forget_bias=forget_bias)
        self._init = init
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._forget_bias = forget_bias

    def _init_weight(self, desc, arr):
        from .ndarray.ndarray import _wrap
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
