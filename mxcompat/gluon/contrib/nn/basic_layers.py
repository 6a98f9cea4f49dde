"""``gluon.contrib.nn`` layers: concatenating containers, Identity, SparseEmbedding, SyncBatchNorm, PixelShuffle.

Block names, parameter names and ``__repr__`` are MXNet 1.9.1's. Differs from MXNet: ``SparseEmbedding`` keeps a
dense ``weight`` and a dense gradient (sparse storage is not supported by mxcompat Parameters; rows not looked up
get zero gradient, so plain SGD updates match), and ``SyncBatchNorm`` runs on one device per process only
(``num_devices`` > 1 raises when the layer runs).
"""
import warnings

from ... import nn as _gnn
from ...block import Block, HybridBlock
from .... import context as _context
from .... import ndarray as _nd

__all__ = ['Concurrent', 'HybridConcurrent', 'Identity', 'SparseEmbedding', 'SyncBatchNorm', 'PixelShuffle1D',
           'PixelShuffle2D', 'PixelShuffle3D']


def _run_branches(F, blocks, x, axis):
    """Feed ``x`` to every block and join their outputs along ``axis``."""
    return F.concat(*[blk(x) for blk in blocks], dim=axis)


class Concurrent(_gnn.Sequential):
    """Runs every child on the same input and concatenates their outputs along ``axis`` (imperative only)."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        return _run_branches(_nd, self._children.values(), x, self.axis)


class HybridConcurrent(_gnn.HybridSequential):
    """Runs every child on the same input and concatenates their outputs along ``axis``."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return _run_branches(F, self._children.values(), x, self.axis)


class Identity(HybridBlock):
    """Returns its input unchanged (a residual branch for the concurrent containers)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        return x


class SparseEmbedding(Block):
    """Embedding lookup (``input_dim`` x ``output_dim`` table) with a row_sparse weight (read through
    ``row_sparse_data``: the Trainer's kvstore holds it) and a row_sparse gradient over the looked-up rows."""

    def __init__(self, input_dim, output_dim, dtype='float32', weight_initializer=None, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {'input_dim': input_dim, 'output_dim': output_dim, 'dtype': dtype, 'sparse_grad': True}
        self.weight = self.params.get('weight', shape=(input_dim, output_dim), init=weight_initializer,
                                      dtype=dtype, stype='row_sparse', grad_stype='row_sparse')

    def forward(self, x):
        return _nd.Embedding(x, self.weight.row_sparse_data(x), name='fwd', **self._kwargs)

    def __repr__(self):
        return '{}({input_dim} -> {output_dim}, {dtype})'.format(type(self).__name__, **self._kwargs)


class SyncBatchNorm(_gnn.BatchNorm):
    """BatchNorm over axis 1 through ``contrib.SyncBatchNorm``.

    Differs from MXNet: statistics are not shared between devices, so only ``num_devices=1`` runs (the default
    here, as this build sees no GPU); a larger value raises when the layer is called."""

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer='zeros', gamma_initializer='ones',
                 running_mean_initializer='zeros', running_variance_initializer='ones', **kwargs):
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         use_global_stats=use_global_stats, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer, running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer, in_channels=in_channels,
                         **kwargs)
        if num_devices is None:
            warnings.warn('Caution using SyncBatchNorm: if not using all the GPUs, please mannually set '
                          'num_devices', UserWarning, stacklevel=2)
            num_devices = max(_context.num_gpus(), 1)
        self._kwargs = {'eps': epsilon, 'momentum': momentum, 'fix_gamma': not scale,
                        'use_global_stats': use_global_stats, 'ndev': num_devices, 'key': self.prefix}

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.contrib.SyncBatchNorm(x, gamma, beta, running_mean, running_var, name='fwd', **self._kwargs)


def _shuffle_pixels(F, x, factors):
    """(N, C*f1*...*fk, d1, ..., dk) -> (N, C, d1*f1, ..., dk*fk), with the factor blocks taken from the channels
    in row-major order."""
    k = len(factors)
    keep = (0,) * k
    total = 1
    for f in factors:
        total *= f
    x = F.reshape(x, (0, -4, -1, total) + keep)           # (N, C, f1*...*fk, d...)
    for i, f in enumerate(factors[:-1]):                  # split the factor axis into f1, ..., fk
        x = F.reshape(x, (0,) * (2 + i) + (-4, f, -1) + keep)
    perm = [0, 1]
    for i in range(k):                                    # (N, C, d1, f1, d2, f2, ...)
        perm += [2 + k + i, 2 + i]
    x = F.transpose(x, axes=tuple(perm))
    return F.reshape(x, (0, 0) + (-3,) * k)


def _factor_tuple(factor, k):
    try:
        return (int(factor),) * k
    except TypeError:
        facs = tuple(int(f) for f in factor)
    if len(facs) != k:
        raise AssertionError('wrong length {}'.format(len(facs)))
    return facs


class _PixelShuffle(HybridBlock):
    _ndim = 0

    def __init__(self, factor):
        super().__init__()
        self._factors = _factor_tuple(factor, self._ndim)

    def hybrid_forward(self, F, x):
        return _shuffle_pixels(F, x, self._factors)

    def __repr__(self):
        return '{}({})'.format(type(self).__name__, self._factors)


class PixelShuffle1D(_PixelShuffle):
    """Moves channel groups of size ``factor`` into the width: (N, f*C, W) -> (N, C, W*f). ``factor`` is an int."""

    _ndim = 1

    def __init__(self, factor):
        self._factor = int(factor)
        super().__init__(self._factor)

    def __repr__(self):
        return '{}({})'.format(type(self).__name__, self._factor)


class PixelShuffle2D(_PixelShuffle):
    """(N, f1*f2*C, H, W) -> (N, C, H*f1, W*f2); ``factor`` is an int or a pair."""

    _ndim = 2


class PixelShuffle3D(_PixelShuffle):
    """(N, f1*f2*f3*C, D, H, W) -> (N, C, D*f1, H*f2, W*f3); ``factor`` is an int or a triple."""

    _ndim = 3
