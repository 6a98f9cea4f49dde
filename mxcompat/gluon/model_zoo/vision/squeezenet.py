"""SqueezeNet 1.0 and 1.1 (arXiv:1602.07360): same layers and parameter names as MXNet's model zoo."""
from ....context import cpu
from ....base import MXNetAssertionError
from ...block import HybridBlock
from ... import nn
from ._common import DEFAULT_ROOT, concurrent, load_pretrained, relu, sequential

__all__ = ['SqueezeNet', 'squeezenet1_0', 'squeezenet1_1']

# stem (channels, kernel), then 'pool' (3x3 stride-2 ceil-mode max pooling) or a fire module's squeeze width
# (both of its expand paths have 4x that many channels)
_SPEC = {'1.0': ((96, 7), ['pool', 16, 16, 32, 'pool', 32, 48, 48, 64, 'pool', 64]),
         '1.1': ((64, 3), ['pool', 16, 16, 'pool', 32, 32, 'pool', 48, 48, 64, 64])}


def _conv_relu(channels, kernel, pad=0):
    return sequential(nn.Conv2D(channels, kernel, padding=pad), relu())


def _fire(squeeze):
    expand = 4 * squeeze
    return sequential(_conv_relu(squeeze, 1),
                      concurrent(_conv_relu(expand, 1), _conv_relu(expand, 3, 1)))


class SqueezeNet(HybridBlock):
    """SqueezeNet; ``version`` is '1.0' or '1.1'."""

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        if version not in _SPEC:
            raise MXNetAssertionError('SqueezeNet: Unsupported SqueezeNet version {}:1.0 or 1.1 expected'
                                      .format(version))
        (stem_channels, stem_kernel), body = _SPEC[version]
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(nn.Conv2D(stem_channels, kernel_size=stem_kernel, strides=2), relu())
            for item in body:
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True) if item == 'pool'
                                  else _fire(item))
            self.features.add(nn.Dropout(0.5))
            self.output = sequential(nn.Conv2D(classes, kernel_size=1), relu(), nn.AvgPool2D(13), nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """SqueezeNet ``version`` ('1.0' or '1.1'), with MXNet's published weights when ``pretrained``."""
    return load_pretrained(SqueezeNet(version, **kwargs), pretrained, 'squeezenet' + version, ctx, root)


def squeezenet1_0(**kwargs):
    """SqueezeNet 1.0 (see ``get_squeezenet`` for the keyword arguments)."""
    return get_squeezenet('1.0', **kwargs)


def squeezenet1_1(**kwargs):
    """SqueezeNet 1.1 (see ``get_squeezenet`` for the keyword arguments)."""
    return get_squeezenet('1.1', **kwargs)
