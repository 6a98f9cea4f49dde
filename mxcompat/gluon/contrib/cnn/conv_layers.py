"""``gluon.contrib.cnn``: deformable convolution blocks (v1 and the modulated v2).

A plain convolution of the input predicts the sampling offsets (and, for the modulated block, the masks), then the
``contrib.(Modulated)DeformableConvolution`` operator samples the input there. Parameter names, their registration
order, shapes and prefixes (``deformable_conv0_``, ``modulated_deformable_conv0_``) are MXNet 1.9.1's. Differs from
MXNet: ``op_name`` defaults to None, read as the class name (it is only stored, as in MXNet); the modulated block has
a CPU gradient (MXNet 1.9.1: GPU only).
"""
from numbers import Number

from ...block import HybridBlock
from ...nn import Activation
from ....base import MXNetAssertionError

__all__ = ['DeformableConvolution', 'ModulatedDeformableConvolution']


def _pair(v, n):
    return (v,) * n if isinstance(v, Number) else v


class _Deformable(HybridBlock):
    """Shared body; ``_modulated`` adds the mask (a third group of offset-conv channels, through 2*sigmoid)."""

    _modulated = False

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 num_deformable_group=1, layout='NCHW', use_bias=True, in_channels=0, activation=None,
                 weight_initializer=None, bias_initializer='zeros', offset_weight_initializer='zeros',
                 offset_bias_initializer='zeros', offset_use_bias=True, op_name=None, adj=None, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        if layout not in ('NCHW', 'NHWC'):
            raise MXNetAssertionError("Only supports 'NCHW' and 'NHWC' layout for now")
        kernel = _pair(kernel_size, 2)
        n = len(kernel)
        strides, padding, dilation = _pair(strides, n), _pair(padding, n), _pair(dilation, n)
        self._channels, self._in_channels = channels, in_channels
        self._op_name = type(self).__name__ if op_name is None else op_name
        taps = kernel[0] * kernel[1] * num_deformable_group
        self.offset_split_index = 2 * taps
        geometry = {'kernel': kernel, 'stride': strides, 'dilate': dilation, 'pad': padding, 'num_group': groups,
                    'layout': layout}
        self._kwargs_offset = dict(geometry, num_filter=(3 if self._modulated else 2) * taps,
                                   no_bias=not offset_use_bias)
        self._kwargs_deformable_conv = dict(geometry, num_filter=channels, num_deformable_group=num_deformable_group,
                                            no_bias=not use_bias)
        if adj:
            self._kwargs_offset['adj'] = adj
            self._kwargs_deformable_conv['adj'] = adj
        per_group = in_channels // groups if in_channels else 0
        offset_shape = (self._kwargs_offset['num_filter'],) + \
            ((per_group,) + tuple(kernel) if layout == 'NCHW' else tuple(kernel) + (per_group,))
        with self.name_scope():
            specs = [('offset_weight', offset_shape, offset_weight_initializer, True),
                     ('offset_bias', (offset_shape[0],), offset_bias_initializer, offset_use_bias),
                     ('deformable_conv_weight', (channels, 0) + tuple(kernel), weight_initializer, True),
                     ('deformable_conv_bias', (channels,), bias_initializer, use_bias)]
            if self._modulated:  # MXNet registers the main convolution's parameters first here
                specs = specs[2:] + specs[:2]
            for name, shape, init, wanted in specs:
                setattr(self, name, self.params.get(name, shape=shape, init=init, allow_deferred_init=True)
                        if wanted else None)
            self.act = Activation(activation, prefix=activation + '_') if activation else None

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        conv_in = (x, offset_weight) if offset_bias is None else (x, offset_weight, offset_bias)
        offset = F.Convolution(*conv_in, cudnn_off=True, **self._kwargs_offset)
        extra = {} if deformable_conv_bias is None else {'bias': deformable_conv_bias}
        if self._modulated:
            mask = F.sigmoid(F.slice_axis(offset, axis=1, begin=self.offset_split_index, end=None)) * 2
            offset = F.slice_axis(offset, axis=1, begin=0, end=self.offset_split_index)
            out = F.contrib.ModulatedDeformableConvolution(data=x, offset=offset, mask=mask,
                                                           weight=deformable_conv_weight, name='fwd', **extra,
                                                           **self._kwargs_deformable_conv)
        else:
            out = F.contrib.DeformableConvolution(data=x, offset=offset, weight=deformable_conv_weight, name='fwd',
                                                  **extra, **self._kwargs_deformable_conv)
        return self.act(out) if self.act else out


class DeformableConvolution(_Deformable):
    """Deformable convolution (v1): sampling offsets predicted by a convolution of the input."""

    def _alias(self):
        return 'deformable_conv'

    def __repr__(self):
        kw = self._kwargs_deformable_conv
        n = len(kw['kernel'])
        parts = ['{} -> {}'.format(self.deformable_conv_weight.shape[1] or None, self.deformable_conv_weight.shape[0]),
                 'kernel_size={}'.format(kw['kernel']), 'stride={}'.format(kw['stride'])]
        if kw['pad'] != (0,) * n:
            parts.append('padding={}'.format(kw['pad']))
        if kw['dilate'] != (1,) * n:
            parts.append('dilation={}'.format(kw['dilate']))
        if kw['num_group'] != 1:
            parts.append('groups={}'.format(kw['num_group']))
        if self.deformable_conv_bias is None:
            parts.append('bias=False')
        if self.act:
            parts.append(str(self.act))
        return '{}({})'.format(type(self).__name__, ', '.join(parts))


class ModulatedDeformableConvolution(_Deformable):
    """Modulated deformable convolution (v2): the offset convolution also predicts a mask per sampling point
    (2 * sigmoid)."""

    _modulated = True

    def _alias(self):
        return 'modulated_deformable_conv'
