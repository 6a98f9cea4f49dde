"""VGG 11/13/16/19, with or without batch normalisation (arXiv:1409.1556): MXNet's layers, names and
initializers."""
from ....context import cpu
from ....initializer import Xavier
from ....base import MXNetAssertionError
from ...block import HybridBlock
from ... import nn
from ._common import DEFAULT_ROOT, load_pretrained, relu

__all__ = ['VGG', 'vgg11', 'vgg13', 'vgg16', 'vgg19', 'vgg11_bn', 'vgg13_bn', 'vgg16_bn', 'vgg19_bn', 'get_vgg']

_FILTERS = [64, 128, 256, 512, 512]
# depth -> number of 3x3 convolutions before each of the five max-poolings
vgg_spec = {11: ([1, 1, 2, 2, 2], _FILTERS),
            13: ([2, 2, 2, 2, 2], _FILTERS),
            16: ([2, 2, 3, 3, 3], _FILTERS),
            19: ([2, 2, 4, 4, 4], _FILTERS)}


class VGG(HybridBlock):
    """VGG: ``layers[i]`` convolutions of ``filters[i]`` channels per stage, then two 4096-unit dense layers."""

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(filters):
            raise MXNetAssertionError('VGG: layers and filters must have the same length')
        dense = dict(weight_initializer='normal', bias_initializer='zeros')
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            for count, channels in zip(layers, filters):
                for _ in range(count):
                    init = Xavier(rnd_type='gaussian', factor_type='out', magnitude=2)
                    self.features.add(nn.Conv2D(channels, kernel_size=3, padding=1, weight_initializer=init,
                                                bias_initializer='zeros'))
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(relu())
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation='relu', **dense), nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, **dense)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_vgg(num_layers, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """VGG of depth ``num_layers`` (11, 13, 16, 19); ``batch_norm=True`` adds BatchNorm after each convolution."""
    layers, filters = vgg_spec[num_layers]
    net = VGG(layers, filters, **kwargs)
    stored = 'vgg%d%s' % (num_layers, '_bn' if kwargs.get('batch_norm') else '')
    return load_pretrained(net, pretrained, stored, ctx, root)


def _variant(depth, batch_norm):
    def build(**kwargs):
        if batch_norm:
            kwargs['batch_norm'] = True
        return get_vgg(depth, **kwargs)
    build.__name__ = build.__qualname__ = 'vgg%d%s' % (depth, '_bn' if batch_norm else '')
    build.__doc__ = 'VGG-%d%s (see ``get_vgg`` for the keyword arguments).' % (
        depth, ' with batch normalisation' if batch_norm else '')
    return build


vgg11, vgg13, vgg16, vgg19 = (_variant(d, False) for d in (11, 13, 16, 19))
vgg11_bn, vgg13_bn, vgg16_bn, vgg19_bn = (_variant(d, True) for d in (11, 13, 16, 19))
