"""DenseNet-BC 121/161/169/201 (arXiv:1608.06993): MXNet's layers, parameter names and structural keys."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ._common import DEFAULT_ROOT, Identity, concurrent, load_pretrained, relu, sequential

__all__ = ['DenseNet', 'densenet121', 'densenet161', 'densenet169', 'densenet201']


def _bn_relu_conv(channels, kernel, pad=0):
    return [nn.BatchNorm(), relu(), nn.Conv2D(channels, kernel_size=kernel, padding=pad, use_bias=False)]


def _dense_layer(growth_rate, bn_size, dropout):
    """The input concatenated with ``growth_rate`` new feature maps."""
    grown = sequential(*_bn_relu_conv(bn_size * growth_rate, 1), *_bn_relu_conv(growth_rate, 3, 1))
    if dropout:
        grown.add(nn.Dropout(dropout))
    return concurrent(Identity(), grown)


class DenseNet(HybridBlock):
    """DenseNet-BC: ``block_config[i]`` dense layers in stage ``i+1``, a halving transition between stages."""

    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0, classes=1000,
                 **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3, use_bias=False),
                              nn.BatchNorm(), relu(), nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            width = num_init_features
            for index, count in enumerate(block_config):
                stage = nn.HybridSequential(prefix='stage%d_' % (index + 1))
                with stage.name_scope():
                    stage.add(*[_dense_layer(growth_rate, bn_size, dropout) for _ in range(count)])
                self.features.add(stage)
                width += count * growth_rate
                if index < len(block_config) - 1:
                    width //= 2
                    self.features.add(sequential(*_bn_relu_conv(width, 1), nn.AvgPool2D(pool_size=2, strides=2)))
            self.features.add(nn.BatchNorm(), relu(), nn.AvgPool2D(pool_size=7), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


# depth -> (stem channels, growth rate, dense layers per stage)
densenet_spec = {121: (64, 32, [6, 12, 24, 16]),
                 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]),
                 201: (64, 32, [6, 12, 48, 32])}


def get_densenet(num_layers, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """DenseNet-BC of depth ``num_layers`` (121, 161, 169, 201)."""
    stem, growth, config = densenet_spec[num_layers]
    return load_pretrained(DenseNet(stem, growth, config, **kwargs), pretrained, 'densenet%d' % num_layers, ctx,
                           root)


def _variant(depth):
    def build(**kwargs):
        return get_densenet(depth, **kwargs)
    build.__name__ = build.__qualname__ = 'densenet%d' % depth
    build.__doc__ = 'DenseNet-BC %d (see ``get_densenet`` for the keyword arguments).' % depth
    return build


densenet121, densenet161, densenet169, densenet201 = (_variant(d) for d in sorted(densenet_spec))
