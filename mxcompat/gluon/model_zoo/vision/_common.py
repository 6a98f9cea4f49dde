"""Pieces shared by the model-zoo architectures: sequential builders, the concat container, pretrained loading.

``HybridConcurrent``/``Identity`` are ``gluon.contrib.nn``'s, as in MXNet's model zoo.
"""
import os

from .... import base
from ....context import cpu
from ... import nn
from ...contrib.nn import HybridConcurrent, Identity  # noqa: F401
from .. import model_store

DEFAULT_ROOT = os.path.join(base.data_dir(), 'models')


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
        net.load_parameters(model_store.get_model_file(file_name, root=root), ctx=ctx)
    return net


def default_ctx():
    return cpu()
