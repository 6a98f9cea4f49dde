"""Convolution, transposed convolution, pooling and reflection-padding layers (MXNet's names, defaults, layouts and
``__repr__``; ``in_channels=0`` infers the input channels at the first forward pass)."""
from ...base import numeric_types
from ..block import HybridBlock
from ..parameter import _check
from .activations import Activation

__all__ = ['Conv1D', 'Conv2D', 'Conv3D', 'Conv1DTranspose', 'Conv2DTranspose', 'Conv3DTranspose', 'MaxPool1D',
           'MaxPool2D', 'MaxPool3D', 'AvgPool1D', 'AvgPool2D', 'AvgPool3D', 'GlobalMaxPool1D', 'GlobalMaxPool2D',
           'GlobalMaxPool3D', 'GlobalAvgPool1D', 'GlobalAvgPool2D', 'GlobalAvgPool3D', 'ReflectionPad2D']


def _ntuple(v, n):
    return (v,) * n if isinstance(v, numeric_types) else v


def _weight_shape(op_name, layout, channels, in_channels, kernel, groups):
    """The weight shape the operator infers for data with ``in_channels`` channels (0 while unknown)."""
    if op_name == 'Convolution':
        w = (channels, in_channels // groups) + tuple(kernel)
    else:
        w = (in_channels, channels // groups) + tuple(kernel)
    if layout.find('C') != 1:  # channels-last layouts keep the weight's channels last too
        w = (w[0],) + tuple(kernel) + (w[1],)
    return w


class _Conv(HybridBlock):
    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout, in_channels=0,
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer='zeros',
                 op_name='Convolution', adj=None, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        rank = len(kernel_size)
        self._op_name, self._channels, self._in_channels = op_name, channels, in_channels
        # operator attributes, in MXNet's key order; scalars broadcast to one value per spatial axis
        kw = {'kernel': kernel_size}
        kw.update((key, _ntuple(val, rank)) for key, val in (('stride', strides), ('dilate', dilation),
                                                              ('pad', padding)))
        kw.update(num_filter=channels, num_group=groups, no_bias=not use_bias, layout=layout)
        kw.update({} if adj is None else {'adj': adj})
        self._kwargs = kw
        wshape = _weight_shape(op_name, layout, channels, in_channels, kernel_size, groups)
        with self.name_scope():
            self.weight = self.params.get('weight', shape=wshape, init=weight_initializer,
                                          allow_deferred_init=True)
            self.bias = (self.params.get('bias', shape=(channels,), init=bias_initializer, allow_deferred_init=True)
                         if use_bias else None)
            self.act = None if activation is None else Activation(activation, prefix=activation + '_')

    def hybrid_forward(self, F, x, weight, bias=None):
        inputs = (x, weight) if bias is None else (x, weight, bias)
        out = getattr(F, self._op_name)(*inputs, name='fwd', **self._kwargs)
        return out if self.act is None else self.act(out)

    def _one_op(self):
        if type(self).hybrid_forward is not _Conv.hybrid_forward:
            return None
        params = (('weight', self.weight),) + (() if self.bias is None else (('bias', self.bias),))
        return self._op_name, self._kwargs, (('data', None),) + params

    def _alias(self):
        return 'conv'

    def __repr__(self):
        # MXNet's text: optional parts only when they differ from the defaults (output_padding is never shown)
        kw = self._kwargs
        rank = len(kw['kernel'])
        optional = ((kw['pad'] != (0,) * rank, ', padding={pad}'),
                    (kw['dilate'] != (1,) * rank, ', dilation={dilate}'),
                    (kw['num_group'] != 1, ', groups={num_group}'),
                    (self.bias is None, ', bias=False'),
                    (bool(self.act), ', %s' % (self.act,)))
        template = '{name}({mapping}, kernel_size={kernel}, stride={stride}%s)' % ''.join(
            part for wanted, part in optional if wanted)
        out_c, in_c = self.weight.shape[:2]
        return template.format(name=type(self).__name__, mapping='%s -> %s' % (in_c or None, out_c), **kw)


def _conv_args(dims, kernel_size, layouts, layout, what='kernel_size'):
    _check(layout in layouts, "Only supports %s layout for now" % ' and '.join("'%s'" % s for s in layouts))
    kernel_size = _ntuple(kernel_size, dims)
    _check(len(kernel_size) == dims, '%s must be a number or a list of %d ints' % (what, dims))
    return kernel_size


class _ConvND(_Conv):
    _DIMS = 0
    _LAYOUTS = ()

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout, activation, use_bias,
                 weight_initializer, bias_initializer, in_channels, **kwargs):
        kernel_size = _conv_args(self._DIMS, kernel_size, self._LAYOUTS, layout)
        op_name = kwargs.pop('op_name', 'Convolution')
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, in_channels, activation,
                         use_bias, weight_initializer, bias_initializer, op_name, **kwargs)


class Conv1D(_ConvND):
    """1-D convolution (layout NCW)."""

    _DIMS, _LAYOUTS = 1, ('NCW',)

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1, layout='NCW',
                 activation=None, use_bias=True, weight_initializer=None, bias_initializer='zeros', in_channels=0,
                 **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, activation, use_bias,
                         weight_initializer, bias_initializer, in_channels, **kwargs)


class Conv2D(_ConvND):
    """2-D convolution (layout NCHW or NHWC)."""

    _DIMS, _LAYOUTS = 2, ('NCHW', 'NHWC')

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 layout='NCHW', activation=None, use_bias=True, weight_initializer=None, bias_initializer='zeros',
                 in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, activation, use_bias,
                         weight_initializer, bias_initializer, in_channels, **kwargs)


class Conv3D(_ConvND):
    """3-D convolution (layout NCDHW or NDHWC)."""

    _DIMS, _LAYOUTS = 3, ('NCDHW', 'NDHWC')

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1,
                 layout='NCDHW', activation=None, use_bias=True, weight_initializer=None, bias_initializer='zeros',
                 in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, activation, use_bias,
                         weight_initializer, bias_initializer, in_channels, **kwargs)


class _ConvTranspose(_Conv):
    _DIMS = 0
    _LAYOUTS = ()

    def __init__(self, channels, kernel_size, strides, padding, output_padding, dilation, groups, layout, activation,
                 use_bias, weight_initializer, bias_initializer, in_channels, **kwargs):
        n = self._DIMS
        kernel_size = _conv_args(n, kernel_size, self._LAYOUTS, layout)
        output_padding = _conv_args(n, output_padding, self._LAYOUTS, layout, 'output_padding')
        op_name = kwargs.pop('op_name', 'Deconvolution')
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout, in_channels, activation,
                         use_bias, weight_initializer, bias_initializer, op_name=op_name, adj=output_padding,
                         **kwargs)
        self.outpad = output_padding


class Conv1DTranspose(_ConvTranspose):
    """1-D transposed convolution (layout NCW)."""

    _DIMS, _LAYOUTS = 1, ('NCW',)

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0, dilation=1, groups=1,
                 layout='NCW', activation=None, use_bias=True, weight_initializer=None, bias_initializer='zeros',
                 in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, output_padding, dilation, groups, layout,
                         activation, use_bias, weight_initializer, bias_initializer, in_channels, **kwargs)


class Conv2DTranspose(_ConvTranspose):
    """2-D transposed convolution (layout NCHW or NHWC)."""

    _DIMS, _LAYOUTS = 2, ('NCHW', 'NHWC')

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0), output_padding=(0, 0),
                 dilation=(1, 1), groups=1, layout='NCHW', activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, output_padding, dilation, groups, layout,
                         activation, use_bias, weight_initializer, bias_initializer, in_channels, **kwargs)


class Conv3DTranspose(_ConvTranspose):
    """3-D transposed convolution (layout NCDHW or NDHWC)."""

    _DIMS, _LAYOUTS = 3, ('NCDHW', 'NDHWC')

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0), output_padding=(0, 0, 0),
                 dilation=(1, 1, 1), groups=1, layout='NCDHW', activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer='zeros', in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, output_padding, dilation, groups, layout,
                         activation, use_bias, weight_initializer, bias_initializer, in_channels, **kwargs)


# (label in __repr__, key of _kwargs); ceil_mode is derived from pooling_convention
_POOL_REPR = (('size', 'kernel'), ('stride', 'stride'), ('padding', 'pad'), ('ceil_mode', 'ceil_mode'),
              ('global_pool', 'global_pool'), ('pool_type', 'pool_type'), ('layout', 'layout'))


class _Pooling(HybridBlock):
    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, layout,
                 count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        rank = len(pool_size)
        window_step = pool_size if strides is None else strides  # no stride: windows do not overlap
        kw = dict(kernel=pool_size, stride=_ntuple(window_step, rank), pad=_ntuple(padding, rank),
                  global_pool=global_pool, pool_type=pool_type, layout=layout,
                  pooling_convention=('full' if ceil_mode else 'valid'))
        kw.update({} if count_include_pad is None else {'count_include_pad': count_include_pad})
        self._kwargs = kw

    def _alias(self):
        return 'pool'

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name='fwd', **self._kwargs)

    def __repr__(self):
        values = dict(self._kwargs, ceil_mode=self._kwargs['pooling_convention'] == 'full')
        fields = ', '.join('%s=%s' % (label, values[key]) for label, key in _POOL_REPR)
        return '%s(%s)' % (type(self).__name__, fields)


_POOL_LAYOUTS = {1: ('NCW', 'NWC'), 2: ('NCHW', 'NHWC'), 3: ('NCDHW', 'NDHWC')}


def _pool_size(dims, pool_size, layout):
    layouts = _POOL_LAYOUTS[dims]
    _check(layout in layouts, 'Only %s and %s layouts are valid for %dD Pooling' % (layouts + (dims,)))
    pool_size = _ntuple(pool_size, dims)
    _check(len(pool_size) == dims, 'pool_size must be a number or a list of %d ints' % dims)
    return pool_size


class MaxPool1D(_Pooling):
    """1-D max pooling."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout='NCW', ceil_mode=False, **kwargs):
        super().__init__(_pool_size(1, pool_size, layout), strides, padding, ceil_mode, False, 'max', layout,
                         **kwargs)


class MaxPool2D(_Pooling):
    """2-D max pooling."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout='NCHW', ceil_mode=False, **kwargs):
        super().__init__(_pool_size(2, pool_size, layout), strides, padding, ceil_mode, False, 'max', layout,
                         **kwargs)


class MaxPool3D(_Pooling):
    """3-D max pooling."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False, layout='NCDHW', **kwargs):
        super().__init__(_pool_size(3, pool_size, layout), strides, padding, ceil_mode, False, 'max', layout,
                         **kwargs)


class AvgPool1D(_Pooling):
    """1-D average pooling."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout='NCW', ceil_mode=False, count_include_pad=True,
                 **kwargs):
        super().__init__(_pool_size(1, pool_size, layout), strides, padding, ceil_mode, False, 'avg', layout,
                         count_include_pad, **kwargs)


class AvgPool2D(_Pooling):
    """2-D average pooling."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, ceil_mode=False, layout='NCHW',
                 count_include_pad=True, **kwargs):
        super().__init__(_pool_size(2, pool_size, layout), strides, padding, ceil_mode, False, 'avg', layout,
                         count_include_pad, **kwargs)


class AvgPool3D(_Pooling):
    """3-D average pooling."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False, layout='NCDHW',
                 count_include_pad=True, **kwargs):
        super().__init__(_pool_size(3, pool_size, layout), strides, padding, ceil_mode, False, 'avg', layout,
                         count_include_pad, **kwargs)


def _global_pool(dims, pool_type):
    class GlobalPool(_Pooling):
        def __init__(self, layout=_POOL_LAYOUTS[dims][0], **kwargs):
            _pool_size(dims, 1, layout)
            super().__init__((1,) * dims, None, 0, True, True, pool_type, layout, **kwargs)
    name = 'Global%sPool%dD' % ('Max' if pool_type == 'max' else 'Avg', dims)
    GlobalPool.__name__ = GlobalPool.__qualname__ = name
    GlobalPool.__doc__ = 'Global %s pooling over the %d spatial axes (output size 1).' % (pool_type, dims)
    return GlobalPool


GlobalMaxPool1D = _global_pool(1, 'max')
GlobalMaxPool2D = _global_pool(2, 'max')
GlobalMaxPool3D = _global_pool(3, 'max')
GlobalAvgPool1D = _global_pool(1, 'avg')
GlobalAvgPool2D = _global_pool(2, 'avg')
GlobalAvgPool3D = _global_pool(3, 'avg')


class ReflectionPad2D(HybridBlock):
    """Reflection padding of the last two axes of NCHW data (``padding``: an int, or MXNet's 8-tuple pad_width)."""

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, numeric_types):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        _check(len(padding) == 8, 'padding must be an int or a tuple of 8 ints')
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode='reflect', pad_width=self._padding)
