"""Inception V3 (arXiv:1512.00567) for 299x299 inputs: MXNet's layers, parameter names and structural keys.

Each mixed block is written as a table of branches: a branch is an optional pooling then basic convolutions
(Conv2D without bias, BatchNorm eps 1e-3, relu) given as (channels, kernel, strides, padding).
"""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ._common import DEFAULT_ROOT, HybridConcurrent, concurrent, load_pretrained, relu, sequential

__all__ = ['Inception3', 'inception_v3']

_1x7, _7x1, _1x3, _3x1 = ((1, 7), (0, 3)), ((7, 1), (3, 0)), ((1, 3), (0, 1)), ((3, 1), (1, 0))


def _basic_conv(channels, kernel, strides=None, padding=None):
    conv = {'channels': channels, 'kernel_size': kernel}
    if strides is not None:
        conv['strides'] = strides
    if padding is not None:
        conv['padding'] = padding
    return sequential(nn.Conv2D(use_bias=False, **conv), nn.BatchNorm(epsilon=0.001), relu())


def _branch(pool, *convs):
    # (only the pooling block used is made: each one made takes a name)
    layers = ([nn.AvgPool2D(pool_size=3, strides=1, padding=1)] if pool == 'avg' else
              [nn.MaxPool2D(pool_size=3, strides=2)] if pool == 'max' else [])
    return sequential(*layers, *[_basic_conv(*c) for c in convs])


def _oriented(channels, shape):
    """Convolution with a (1, n) or (n, 1) kernel, padded to keep the size."""
    kernel, pad = shape
    return (channels, kernel, None, pad)


def _split(pre_convs):
    """Convolutions then a concat of a 1x3 and a 3x1 branch of 384 channels."""
    return sequential(_branch(None, *pre_convs),
                      concurrent(_branch(None, _oriented(384, _1x3)), _branch(None, _oriented(384, _3x1))))


def _branches_a(pool_features):
    return [(None, (64, 1)), (None, (48, 1), (64, 5, None, 2)), (None, (64, 1), (96, 3, None, 1), (96, 3, None, 1)),
            ('avg', (pool_features, 1))]


def _branches_b():
    return [(None, (384, 3, 2)), (None, (64, 1), (96, 3, None, 1), (96, 3, 2)), ('max',)]


def _branches_c(c):
    return [(None, (192, 1)),
            (None, (c, 1), _oriented(c, _1x7), _oriented(192, _7x1)),
            (None, (c, 1), _oriented(c, _7x1), _oriented(c, _1x7), _oriented(c, _7x1), _oriented(192, _1x7)),
            ('avg', (192, 1))]


def _branches_d():
    return [(None, (192, 1), (320, 3, 2)),
            (None, (192, 1), _oriented(192, _1x7), _oriented(192, _7x1), (192, 3, 2)),
            ('max',)]


def _branches_e():
    # 'split': the convolutions, then a concat of 1x3 and 3x1 convolutions
    return [(None, (320, 1)), ('split', (384, 1)), ('split', (448, 1), (384, 3, None, 1)), ('avg', (192, 1))]


# the mixed blocks in order: (name prefix, branches)
_MIXED = [('A1_', _branches_a(32)), ('A2_', _branches_a(64)), ('A3_', _branches_a(64)), ('B_', _branches_b()),
          ('C1_', _branches_c(128)), ('C2_', _branches_c(160)), ('C3_', _branches_c(160)),
          ('C4_', _branches_c(192)), ('D_', _branches_d()), ('E1_', _branches_e()), ('E2_', _branches_e())]


def _mixed(prefix, branches):
    """A mixed block: the branches, built inside its name scope, concatenated over channels."""
    block = HybridConcurrent(axis=1, prefix=prefix)
    with block.name_scope():
        for pool, *convs in branches:
            block.add(_split(convs) if pool == 'split' else _branch(pool, *convs))
    return block


class Inception3(HybridBlock):
    """Inception V3 (without the auxiliary classifier, as MXNet's)."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(_basic_conv(32, 3, 2), _basic_conv(32, 3), _basic_conv(64, 3, None, 1),
                              nn.MaxPool2D(pool_size=3, strides=2), _basic_conv(80, 1), _basic_conv(192, 3),
                              nn.MaxPool2D(pool_size=3, strides=2))
            self.features.add(*[_mixed(prefix, branches) for prefix, branches in _MIXED])
            self.features.add(nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """Inception V3, with MXNet's published weights when ``pretrained``."""
    return load_pretrained(Inception3(**kwargs), pretrained, 'inceptionv3', ctx, root)
