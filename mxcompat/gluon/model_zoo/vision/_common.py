"""Pieces shared by the model-zoo architectures: sequential builders, the concat container, pretrained loading.

``HybridConcurrent``/``Identity`` stand in for ``gluon.contrib.nn``'s classes of the same names (same block names,
so the same parameter names), which the model zoo needs before that package exists here.
"""
import os

from .... import base
from ....context import cpu
from ...block import HybridBlock
from ... import nn

DEFAULT_ROOT = os.path.join(base.data_dir(), 'models')


class HybridConcurrent(nn.HybridSequential):
    """Runs every child on the same input and concatenates the outputs along ``axis``."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[child(x) for child in self._children.values()], dim=self.axis)


class Identity(HybridBlock):
    """Returns its input."""

    def hybrid_forward(self, F, x):
        return x


def sequential(*layers, prefix=''):
    """A HybridSequential (by default with the empty prefix, so it adds no name level) holding ``layers``."""
    seq = nn.HybridSequential(prefix=prefix)
    seq.add(*layers)
    return seq


def concurrent(*branches, prefix=''):
    """A HybridConcurrent over the channel axis holding ``branches``."""
    cat = HybridConcurrent(axis=1, prefix=prefix)
    cat.add(*branches)
    return cat


def relu():
    return nn.Activation('relu')


def load_pretrained(net, pretrained, file_name, ctx, root):
    """Load ``<root>/<file_name>-<hash>.params`` (downloaded when absent) into ``net`` when ``pretrained``."""
    if pretrained:
        from ..model_store import get_model_file
        net.load_parameters(get_model_file(file_name, root=root), ctx=ctx)
    return net


def default_ctx():
    return cpu()
