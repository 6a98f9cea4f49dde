"""AlexNet ("One weird trick", arXiv:1404.5997): same layers and parameter names as MXNet's model zoo."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ._common import DEFAULT_ROOT, load_pretrained

__all__ = ['AlexNet', 'alexnet']

# (channels, kernel, stride, padding, max-pool after it)
_CONVS = [(64, 11, 4, 2, True), (192, 5, 1, 2, True), (384, 3, 1, 1, False), (256, 3, 1, 1, False),
          (256, 3, 1, 1, True)]


class AlexNet(HybridBlock):
    """AlexNet; ``classes`` sets the output size."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            for channels, kernel, stride, pad, pool in _CONVS:
                self.features.add(nn.Conv2D(channels, kernel_size=kernel, strides=stride, padding=pad,
                                            activation='relu'))
                if pool:
                    self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
            self.features.add(nn.Flatten())
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation='relu'), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def alexnet(pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """AlexNet, with MXNet's published weights when ``pretrained``."""
    return load_pretrained(AlexNet(**kwargs), pretrained, 'alexnet', ctx, root)
