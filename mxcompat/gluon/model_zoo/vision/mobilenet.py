"""MobileNet (arXiv:1704.04861) and MobileNetV2 (arXiv:1801.04381) with width multipliers: MXNet's layers,
parameter names (``mobilenetv20_features_linearbottleneck0_conv0_weight``) and structural keys."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ._common import DEFAULT_ROOT, load_pretrained, relu

__all__ = ['MobileNet', 'MobileNetV2', 'mobilenet1_0', 'mobilenet_v2_1_0', 'mobilenet0_75', 'mobilenet_v2_0_75',
           'mobilenet0_5', 'mobilenet_v2_0_5', 'mobilenet0_25', 'mobilenet_v2_0_25', 'get_mobilenet',
           'get_mobilenet_v2']

# MobileNet: (output channels, stride) of each depthwise-separable pair; the depthwise input is the previous width
_V1_BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
# MobileNetV2: (expansion t, output channels, repeats, first stride) of each bottleneck group
_V2_GROUPS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
              (6, 320, 1, 1)]


class RELU6(nn.HybridBlock):
    """``clip(x, 0, 6)``."""

    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6, name='relu6')


def _add_conv(seq, channels, kernel=1, stride=1, pad=0, groups=1, active=True, relu6=False):
    """Append convolution (no bias), BatchNorm and (unless not ``active``) relu or relu6 to ``seq``."""
    seq.add(nn.Conv2D(channels, kernel, stride, pad, groups=groups, use_bias=False), nn.BatchNorm(scale=True))
    if active:
        seq.add(RELU6() if relu6 else relu())


class LinearBottleneck(nn.HybridBlock):
    """Expand (1x1), depthwise 3x3 (``stride``), project (1x1, linear); adds the input when the shapes allow."""

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        wide = in_channels * t
        with self.name_scope():
            self.out = nn.HybridSequential()
            _add_conv(self.out, wide, relu6=True)
            _add_conv(self.out, wide, kernel=3, stride=stride, pad=1, groups=wide, relu6=True)
            _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


class MobileNet(HybridBlock):
    """MobileNet with every width scaled by ``multiplier``."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            width = int(32 * multiplier)
            _add_conv(self.features, width, kernel=3, pad=1, stride=2)
            for channels, stride in _V1_BLOCKS:
                _add_conv(self.features, width, kernel=3, stride=stride, pad=1, groups=width)
                width = int(channels * multiplier)
                _add_conv(self.features, width)
            self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(nn.HybridBlock):
    """MobileNetV2 with every width scaled by ``multiplier`` (the last 1280 only when ``multiplier > 1``)."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='features_')
            with self.features.name_scope():
                width = int(32 * multiplier)
                _add_conv(self.features, width, kernel=3, stride=2, pad=1, relu6=True)
                for t, channels, repeats, stride in _V2_GROUPS:
                    for i in range(repeats):
                        out = int(channels * multiplier)
                        self.features.add(LinearBottleneck(in_channels=width, channels=out, t=t,
                                                           stride=stride if i == 0 else 1))
                        width = out
                _add_conv(self.features, int(1280 * multiplier) if multiplier > 1.0 else 1280, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix='output_')
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix='pred_'), nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _stored_name(base, multiplier):
    """MXNet's file name of a width: two decimals, except '1.0' and '0.5'."""
    suffix = '{0:.2f}'.format(multiplier)
    return base + (suffix[:-1] if suffix in ('1.00', '0.50') else suffix)


def get_mobilenet(multiplier, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """MobileNet of width ``multiplier`` (published weights for 1.0, 0.75, 0.5, 0.25)."""
    return load_pretrained(MobileNet(multiplier, **kwargs), pretrained, _stored_name('mobilenet', multiplier), ctx,
                           root)


def get_mobilenet_v2(multiplier, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """MobileNetV2 of width ``multiplier`` (published weights for 1.0, 0.75, 0.5, 0.25)."""
    return load_pretrained(MobileNetV2(multiplier, **kwargs), pretrained, _stored_name('mobilenetv2_', multiplier),
                           ctx, root)


def _variant(getter, multiplier, name):
    def build(**kwargs):
        return getter(multiplier, **kwargs)
    build.__name__ = build.__qualname__ = name
    build.__doc__ = '%s with width multiplier %s (see ``%s`` for the keyword arguments).' % (
        'MobileNetV2' if 'v2' in name else 'MobileNet', multiplier, getter.__name__)
    return build


_WIDTHS = ((1.0, '1_0'), (0.75, '0_75'), (0.5, '0_5'), (0.25, '0_25'))
mobilenet1_0, mobilenet0_75, mobilenet0_5, mobilenet0_25 = (
    _variant(get_mobilenet, m, 'mobilenet' + s) for m, s in _WIDTHS)
mobilenet_v2_1_0, mobilenet_v2_0_75, mobilenet_v2_0_5, mobilenet_v2_0_25 = (
    _variant(get_mobilenet_v2, m, 'mobilenet_v2_' + s) for m, s in _WIDTHS)
