"""Basic layers: containers, Dense, Dropout, normalisations, Embedding, Flatten, Lambda blocks.

Parameter names, default initializers, deferred shape inference and ``__repr__`` are MXNet's. Differs from MXNet:
``BatchNormReLU`` is BatchNorm followed by ``relu`` (MXNet's fused ``BatchNormWithReLU`` op does not exist here);
``Embedding(sparse_grad=True)`` gives a row_sparse gradient holding the non-zero rows of the dense gradient torch
computes (MXNet also keeps looked-up rows whose gradient is all zero).
"""
import warnings

import numpy as np

from ... import ndarray as _nd
from ... import symbol as _sym
from ..block import Block, HybridBlock
from ...base import MXNetValueError
from ..parameter import _check, _indent
from .activations import Activation

__all__ = ['Sequential', 'HybridSequential', 'Dense', 'Dropout', 'Embedding', 'BatchNorm', 'BatchNormReLU',
           'InstanceNorm', 'LayerNorm', 'GroupNorm', 'Flatten', 'Lambda', 'HybridLambda']


class _SequentialMixin:
    """add / indexing / len / repr shared by Sequential and HybridSequential."""

    _summary_row = False  # Block.summary lists the children only

    def add(self, *blocks):
        """Append blocks, run in order."""
        for block in blocks:
            self.register_child(block)

    def __repr__(self):
        lines = ['  ({key}): {block}'.format(key=k, block=_indent(repr(b), 2)) for k, b in self._children.items()]
        return '{name}(\n{modstr}\n)'.format(name=self.__class__.__name__, modstr='\n'.join(lines))

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if isinstance(layers, list):
            net = type(self)(prefix=self._prefix)
            with net.name_scope():
                net.add(*layers)
            return net
        return layers

    def __len__(self):
        return len(self._children)


class Sequential(_SequentialMixin, Block):
    """Blocks run one after the other."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def forward(self, x):
        for block in self._children.values():
            x = block(x)
        return x

    def hybridize(self, active=True, **kwargs):
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn("All children of this Sequential layer '%s' are HybridBlocks. Consider using "
                          "HybridSequential for the best performance." % self.prefix, stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_SequentialMixin, HybridBlock):
    """HybridBlocks run one after the other (one graph when hybridized)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        for block in self._children.values():
            x = block(x)
        return x


class Dense(HybridBlock):
    """Fully connected layer ``activation(dot(x, weight.T) + bias)``; ``in_units=0`` infers the input size."""

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype='float32', weight_initializer=None,
                 bias_initializer='zeros', in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get('weight', shape=(units, in_units), init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get('bias', shape=(units,), init=bias_initializer, dtype=dtype,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            self.act = Activation(activation, prefix=activation + '_') if activation is not None else None

    def hybrid_forward(self, F, x, weight, bias=None):
        # bias is passed only when present (mx.sym functions here do not skip a None positional input)
        args = (x, weight) if bias is None else (x, weight, bias)
        out = F.FullyConnected(*args, no_bias=bias is None, num_hidden=self._units, flatten=self._flatten, name='fwd')
        if self.act is not None:
            out = self.act(out)
        return out

    def _one_op(self):
        if type(self).hybrid_forward is not Dense.hybrid_forward:
            return None
        params = (('weight', self.weight),) + (() if self.bias is None else (('bias', self.bias),))
        return ('FullyConnected', {'num_hidden': self._units, 'no_bias': self.bias is None, 'flatten': self._flatten},
                (('data', None),) + params)

    def __repr__(self):
        shape = self.weight.shape
        return '{name}({layout}, {act})'.format(name=self.__class__.__name__, act=self.act if self.act else 'linear',
                                                layout='{0} -> {1}'.format(shape[1] if shape[1] else None, shape[0]))


class Dropout(HybridBlock):
    """Dropout with probability ``rate`` in training mode (``axes``: share the mask along them)."""

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name='fwd', cudnn_off=False)
        return F.identity(x)

    def __repr__(self):
        return '{name}(p = {rate}, axes={axes})'.format(name=self.__class__.__name__, rate=self._rate,
                                                        axes=self._axes)


def _kwargs_repr(kwargs):
    return ', '.join('='.join([k, repr(v)]) for k, v in kwargs.items())


class _BatchNorm(HybridBlock):
    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True, use_global_stats=False,
                 fuse_relu=False, beta_initializer='zeros', gamma_initializer='ones',
                 running_mean_initializer='zeros', running_variance_initializer='ones', in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {'axis': axis, 'eps': epsilon, 'momentum': momentum, 'fix_gamma': not scale,
                        'use_global_stats': use_global_stats}
        self.fuse_relu = fuse_relu
        if in_channels != 0:
            self.in_channels = in_channels
        self.gamma = self.params.get('gamma', grad_req='write' if scale else 'null', shape=(in_channels,),
                                     init=gamma_initializer, allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get('beta', grad_req='write' if center else 'null', shape=(in_channels,),
                                    init=beta_initializer, allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get('running_mean', grad_req='null', shape=(in_channels,),
                                            init=running_mean_initializer, allow_deferred_init=True,
                                            differentiable=False)
        self.running_var = self.params.get('running_var', grad_req='null', shape=(in_channels,),
                                           init=running_variance_initializer, allow_deferred_init=True,
                                           differentiable=False)

    def cast(self, dtype):
        if np.dtype(dtype).name == 'float16':
            dtype = 'float32'  # as MXNet: BatchNorm keeps float32 parameters
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        out = F.BatchNorm(x, gamma, beta, running_mean, running_var, name='fwd', **self._kwargs)
        if self.fuse_relu:
            out = F.relu(out)
        return out

    def _one_op(self):
        if type(self).hybrid_forward is not _BatchNorm.hybrid_forward:
            return None
        return 'BatchNorm', self._kwargs, (('data', None), ('gamma', self.gamma), ('beta', self.beta),
                                           ('moving_mean', self.running_mean), ('moving_var', self.running_var))

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        return '{name}({content}, in_channels={c})'.format(name=self.__class__.__name__,
                                                           content=_kwargs_repr(self._kwargs),
                                                           c=in_channels if in_channels else None)


class BatchNorm(_BatchNorm):
    """Batch normalisation; moving statistics ``running_mean``/``running_var`` update in training mode."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True, use_global_stats=False,
                 beta_initializer='zeros', gamma_initializer='ones', running_mean_initializer='zeros',
                 running_variance_initializer='ones', in_channels=0, **kwargs):
        super().__init__(axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         use_global_stats=use_global_stats, fuse_relu=False, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer, running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer, in_channels=in_channels,
                         **kwargs)


class BatchNormReLU(_BatchNorm):
    """BatchNorm then ReLU (two ops in the graph, where MXNet has its fused ``BatchNormWithReLU``)."""

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True, use_global_stats=False,
                 beta_initializer='zeros', gamma_initializer='ones', running_mean_initializer='zeros',
                 running_variance_initializer='ones', in_channels=0, **kwargs):
        super().__init__(axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         use_global_stats=use_global_stats, fuse_relu=True, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer, running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer, in_channels=in_channels,
                         **kwargs)


class Embedding(HybridBlock):
    """Rows of ``weight`` (input_dim x output_dim) picked by integer indices; ``sparse_grad=True`` makes the weight's
    gradient row_sparse (see the module docstring)."""

    def __init__(self, input_dim, output_dim, dtype='float32', weight_initializer=None, sparse_grad=False,
                 **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {'input_dim': input_dim, 'output_dim': output_dim, 'dtype': dtype, 'sparse_grad': sparse_grad}
        self.weight = self.params.get('weight', shape=(input_dim, output_dim), init=weight_initializer, dtype=dtype,
                                      allow_deferred_init=True, grad_stype='row_sparse' if sparse_grad else 'default')

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name='fwd', **self._kwargs)

    def __repr__(self):
        return '{block_name}({input_dim} -> {output_dim}, {dtype})'.format(block_name=self.__class__.__name__,
                                                                           **self._kwargs)


class Flatten(HybridBlock):
    """Reshape to (batch, -1)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def hybrid_forward(self, F, x):
        return F.flatten(x)

    def __repr__(self):
        return self.__class__.__name__


class _AffineNorm(HybridBlock):
    """InstanceNorm, LayerNorm and GroupNorm: a learnt scale ``gamma`` and shift ``beta`` of ``size`` values each
    (their gradients switched off by ``scale``/``center``)."""

    _SHOW_CHANNELS = True

    def __init__(self, kwargs, size, center, scale, beta_initializer, gamma_initializer, **block_kwargs):
        super().__init__(**block_kwargs)
        self._kwargs = kwargs
        self._epsilon = kwargs['eps']
        self._center = center
        self._scale = scale
        self.gamma = self.params.get('gamma', grad_req='write' if scale else 'null', shape=(size,),
                                     init=gamma_initializer, allow_deferred_init=True)
        self.beta = self.params.get('beta', grad_req='write' if center else 'null', shape=(size,),
                                    init=beta_initializer, allow_deferred_init=True)

    def __repr__(self):
        channels = ', in_channels={0}'.format(self.gamma.shape[0]) if self._SHOW_CHANNELS else ''
        return '{name}({content}{channels})'.format(name=self.__class__.__name__, content=_kwargs_repr(self._kwargs),
                                                   channels=channels)


class InstanceNorm(_AffineNorm):
    """Instance normalisation over the spatial axes (``axis`` is the channel axis)."""

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False, beta_initializer='zeros',
                 gamma_initializer='ones', in_channels=0, **kwargs):
        super().__init__({'eps': epsilon, 'axis': axis, 'center': center, 'scale': scale}, in_channels, center,
                         scale, beta_initializer, gamma_initializer, **kwargs)
        self._axis = axis

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name='fwd', eps=self._epsilon)
        x = x.swapaxes(1, self._axis)
        return F.InstanceNorm(x, gamma, beta, name='fwd', eps=self._epsilon).swapaxes(1, self._axis)


class LayerNorm(_AffineNorm):
    """Layer normalisation along ``axis``."""

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True, beta_initializer='zeros',
                 gamma_initializer='ones', in_channels=0, prefix=None, params=None):
        super().__init__({'eps': epsilon, 'axis': axis, 'center': center, 'scale': scale}, in_channels, center,
                         scale, beta_initializer, gamma_initializer, prefix=prefix, params=params)
        self._axis = axis

    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)

    def _one_op(self):
        if type(self).hybrid_forward is not LayerNorm.hybrid_forward:
            return None
        return ('LayerNorm', {'axis': self._axis, 'eps': self._epsilon},
                (('data', None), ('gamma', self.gamma), ('beta', self.beta)))


class GroupNorm(_AffineNorm):
    """Group normalisation with ``num_groups`` groups (gamma/beta have one value per group, as in MXNet 1.x)."""

    _SHOW_CHANNELS = False

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True, beta_initializer='zeros',
                 gamma_initializer='ones', prefix=None, params=None):
        super().__init__({'eps': epsilon, 'num_groups': num_groups, 'center': center, 'scale': scale}, num_groups,
                         center, scale, beta_initializer, gamma_initializer, prefix=prefix, params=params)
        self._num_groups = num_groups

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups, eps=self._epsilon)


class Lambda(Block):
    """Wraps a function (or the name of an ``mx.nd`` function) as a Block."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            _check(hasattr(_nd, function), 'Function name %s is not found in ndarray.' % function)
            self._func_impl = getattr(_nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise MXNetValueError('Unrecognized function in lambda: {} of type {}'.format(function, type(function)))

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return '{name}({function})'.format(name=self.__class__.__name__, function=self._func_impl.__name__)


class HybridLambda(HybridBlock):
    """Wraps ``function(F, x, *args)`` (or the name of a function both ``mx.nd`` and ``mx.sym`` have)."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            _check(hasattr(_nd, function) and hasattr(_sym, function),
                   'Function name %s is not found in symbol/ndarray.' % function)
            self._func = lambda F, *args: getattr(F, function)(*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise MXNetValueError('Unrecognized function in lambda: {} of type {}'.format(function, type(function)))

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return '{name}({function})'.format(name=self.__class__.__name__, function=self._func_name)
