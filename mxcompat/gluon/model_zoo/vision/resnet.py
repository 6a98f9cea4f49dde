"""ResNet V1 (arXiv:1512.03385) and V2 (pre-activation, arXiv:1603.05027), 18 to 152 layers.

Blocks, parameter names and structural keys are MXNet's, so MXNet ``.params`` files load. As in MXNet, a residual
block does not open its own name scope: its layers are named in the enclosing scope (``stage1_conv0_``).
"""
from ....context import cpu
from ....base import MXNetAssertionError
from ...block import HybridBlock
from ... import nn
from ._common import DEFAULT_ROOT, load_pretrained, relu, sequential

__all__ = ['ResNetV1', 'ResNetV2', 'BasicBlockV1', 'BasicBlockV2', 'BottleneckV1', 'BottleneckV2',
           'resnet18_v1', 'resnet34_v1', 'resnet50_v1', 'resnet101_v1', 'resnet152_v1',
           'resnet18_v2', 'resnet34_v2', 'resnet50_v2', 'resnet101_v2', 'resnet152_v2', 'get_resnet']


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False, in_channels=in_channels)


def _conv1x1(channels, stride=1, use_bias=True, in_channels=0):
    return nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=use_bias, in_channels=in_channels)


def _basic_convs(channels, stride, in_channels):
    """The two 3x3 convolutions of a basic block (V1 and V2)."""
    return [_conv3x3(channels, stride, in_channels), _conv3x3(channels, 1, channels)]


class _PostActivation(HybridBlock):
    """V1 residual block: ``relu(body(x) + shortcut(x))``; ``body`` convolutions come from ``_convs``."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        layers = []
        for i, conv in enumerate(self._convs(channels, stride, in_channels)):
            layers += ([relu()] if i else []) + [conv, nn.BatchNorm()]  # (relu blocks made only where used: names)
        self.body = sequential(*layers)
        self.downsample = (sequential(_conv1x1(channels, stride, False, in_channels), nn.BatchNorm())
                           if downsample else None)

    def hybrid_forward(self, F, x):
        # the body runs before the shortcut, and the sum's operands come in MXNet's order: an exported graph is MXNet's
        out = self.body(x)
        shortcut = self.downsample(x) if self.downsample else x
        return F.Activation(self._add(out, shortcut), act_type='relu')

    @staticmethod
    def _add(out, shortcut):
        return out + shortcut


class BasicBlockV1(_PostActivation):
    """Two 3x3 convolutions with a shortcut (ResNet-18/34 V1)."""

    _convs = staticmethod(_basic_convs)

    @staticmethod
    def _add(out, shortcut):
        return shortcut + out


class BottleneckV1(_PostActivation):
    """1x1 (with bias, strided), 3x3, 1x1 (with bias) convolutions with a shortcut (ResNet-50/101/152 V1)."""

    @staticmethod
    def _convs(channels, stride, in_channels):
        inner = channels // 4
        return [_conv1x1(inner, stride), _conv3x3(inner, 1, inner), _conv1x1(channels)]


class _PreActivation(HybridBlock):
    """V2 residual block: each convolution ``conv<i>`` is preceded by ``bn<i>`` and relu; the projection shortcut
    (``downsample``) takes the first activation."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._depth = 0
        for conv in self._convs(channels, stride, in_channels):
            self._depth += 1
            setattr(self, 'bn%d' % self._depth, nn.BatchNorm())
            setattr(self, 'conv%d' % self._depth, conv)
        self.downsample = (nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels)
                           if downsample else None)

    def hybrid_forward(self, F, x):
        shortcut = x
        for i in range(1, self._depth + 1):
            x = F.Activation(getattr(self, 'bn%d' % i)(x), act_type='relu')
            if i == 1 and self.downsample:
                shortcut = self.downsample(x)
            x = getattr(self, 'conv%d' % i)(x)
        return x + shortcut


class BasicBlockV2(_PreActivation):
    """Pre-activation basic block (ResNet-18/34 V2)."""

    _convs = staticmethod(_basic_convs)


class BottleneckV2(_PreActivation):
    """Pre-activation bottleneck block, stride on the 3x3 convolution (ResNet-50/101/152 V2)."""

    @staticmethod
    def _convs(channels, stride, in_channels):
        inner = channels // 4
        return [_conv1x1(inner, use_bias=False), _conv3x3(inner, stride, inner), _conv1x1(channels, use_bias=False)]


class _ResNet(HybridBlock):
    """Stem, one ``stage<i>_`` HybridSequential per entry of ``layers``, head; V1/V2 differ in stem and head."""

    _V2 = False

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(channels) - 1:
            raise MXNetAssertionError('ResNet: channels must have one more entry than layers')
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            if self._V2:
                self.features.add(nn.BatchNorm(scale=False, center=False))
            if thumbnail:
                self.features.add(_conv3x3(channels[0], 1, 0))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False), nn.BatchNorm(), relu(),
                                  nn.MaxPool2D(3, 2, 1))
            for index, count in enumerate(layers):
                # V1 passes the previous entry of ``channels`` (the stem's for stage 1) as in_channels; V2 the
                # previous stage's output width -- the same numbers, kept apart as MXNet does
                self.features.add(self._make_layer(block, count, channels[index + 1], 1 if index == 0 else 2,
                                                   index + 1, in_channels=channels[index]))
            if self._V2:
                self.features.add(nn.BatchNorm(), relu())
            self.features.add(nn.GlobalAvgPool2D())
            if self._V2:
                self.features.add(nn.Flatten())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def _make_layer(self, block, layers, channels, stride, stage_index, in_channels=0):
        stage = nn.HybridSequential(prefix='stage%d_' % stage_index)
        with stage.name_scope():
            stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels, prefix=''))
            for _ in range(layers - 1):
                stage.add(block(channels, 1, False, in_channels=channels, prefix=''))
        return stage

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV1(_ResNet):
    """ResNet V1 built from ``block`` (BasicBlockV1 or BottleneckV1); ``thumbnail`` uses a single 3x3 stem
    convolution for small (e.g. 32x32) images."""


class ResNetV2(_ResNet):
    """ResNet V2 built from ``block`` (BasicBlockV2 or BottleneckV2), with an input BatchNorm and a final
    BatchNorm+relu; ``thumbnail`` as in ResNetV1."""

    _V2 = True


# Public tables as in MXNet: depth -> (block kind, blocks per stage, channels of the stem and of each stage), and
# the network / block classes of each version (index 0 is v1).
_BLOCKS_PER_STAGE = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3], 152: [3, 8, 36, 3]}
_WIDTHS = {'basic_block': [64, 64, 128, 256, 512], 'bottle_neck': [64, 256, 512, 1024, 2048]}
resnet_spec = {}
for _depth, _stages in _BLOCKS_PER_STAGE.items():
    _kind = 'basic_block' if _depth < 50 else 'bottle_neck'
    resnet_spec[_depth] = (_kind, list(_stages), list(_WIDTHS[_kind]))
del _depth, _stages, _kind
resnet_net_versions = [ResNetV1, ResNetV2]
resnet_block_versions = [dict(zip(_WIDTHS, pair)) for pair in ((BasicBlockV1, BottleneckV1),
                                                               (BasicBlockV2, BottleneckV2))]


def get_resnet(version, num_layers, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """ResNet ``version`` (1 or 2) of depth ``num_layers`` (18, 34, 50, 101, 152)."""
    if num_layers not in resnet_spec:
        raise MXNetAssertionError('get_resnet: Invalid number of layers: %d. Options are %s'
                                  % (num_layers, str(resnet_spec.keys())))
    if version not in (1, 2):
        raise MXNetAssertionError('get_resnet: Invalid resnet version: %d. Options are 1 and 2.' % version)
    kind, layers, channels = resnet_spec[num_layers]
    net = resnet_net_versions[version - 1](resnet_block_versions[version - 1][kind], layers, channels, **kwargs)
    return load_pretrained(net, pretrained, 'resnet%d_v%d' % (num_layers, version), ctx, root)


def _variant(version, depth):
    def build(**kwargs):
        return get_resnet(version, depth, **kwargs)
    build.__name__ = build.__qualname__ = 'resnet%d_v%d' % (depth, version)
    build.__doc__ = 'ResNet-%d V%d (see ``get_resnet`` for the keyword arguments).' % (depth, version)
    return build


resnet18_v1, resnet34_v1, resnet50_v1, resnet101_v1, resnet152_v1 = (_variant(1, d) for d in sorted(resnet_spec))
resnet18_v2, resnet34_v2, resnet50_v2, resnet101_v2, resnet152_v2 = (_variant(2, d) for d in sorted(resnet_spec))
