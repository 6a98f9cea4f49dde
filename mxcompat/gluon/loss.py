"""``mx.gluon.loss``: the losses of MXNet 1.9.1 as HybridBlocks written with ``F`` ops.

Each loss runs eagerly (``F = mx.nd``) and hybridized (``F = mx.sym``) from the same ``hybrid_forward``. Reductions
follow MXNet: the mean (KLDivLoss: the sum) over every axis except ``batch_axis``; PoissonNLLLoss averages everything;
CTCLoss, TripletLoss and CosineEmbeddingLoss return one value per sample without averaging.
Differences from MXNet are stated in the class docstrings.
"""
import numbers

import numpy as np

from ..base import MXNetAssertionError, MXNetValueError, unsupported
from .block import HybridBlock
from ._npf import is_eager

__all__ = ['Loss', 'L2Loss', 'L1Loss', 'SigmoidBinaryCrossEntropyLoss', 'SigmoidBCELoss', 'SoftmaxCrossEntropyLoss',
           'SoftmaxCELoss', 'KLDivLoss', 'CTCLoss', 'HuberLoss', 'HingeLoss', 'SquaredHingeLoss', 'LogisticLoss',
           'TripletLoss', 'PoissonNLLLoss', 'CosineEmbeddingLoss', 'SDMLLoss']

_NUMBER = (numbers.Number, np.generic)


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """``loss * sample_weight`` (broadcast) then ``* weight`` (a Python number)."""
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, _NUMBER):
            raise MXNetAssertionError('weight must be a number, got %r' % (weight,))
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """``x`` with the shape of ``y`` (same number of elements)."""
    if is_eager(F):
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


def _softrelu_neg_abs(F, x):
    """log(1 + exp(-|x|)), the stable tail of the logistic loss."""
    return F.Activation(-F.abs(x), act_type='softrelu')


class Loss(HybridBlock):
    """Base class of the losses: holds the scalar ``weight`` and the ``batch_axis`` kept by the reduction."""

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return '%s(batch_axis=%s, w=%s)' % (type(self).__name__, self._batch_axis, self._weight)

    def _batch_mean(self, F, loss):
        return F.mean(loss, axis=self._batch_axis, exclude=True)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class L2Loss(Loss):
    """Half the weighted squared error, ``weight / 2 * (label - pred) ** 2``, averaged per sample."""

    def __init__(self, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        loss = F.square(_reshape_like(F, label, pred) - pred)
        return self._batch_mean(F, _apply_weighting(F, loss, self._weight / 2, sample_weight))


class L1Loss(Loss):
    """The absolute error ``|label - pred|``, averaged per sample."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        loss = F.abs(_reshape_like(F, label, pred) - pred)
        return self._batch_mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross-entropy on logits (or on probabilities with ``from_sigmoid=True``), with an optional
    ``pos_weight`` (4th positional input) scaling the positive term."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if self._from_sigmoid:
            eps = 1e-12
            pos = F.log(pred + eps) * label
            if pos_weight is not None:
                pos = F.broadcast_mul(pos, pos_weight)
            loss = -(pos + F.log(1. - pred + eps) * (1. - label))
        elif pos_weight is None:
            loss = F.relu(pred) - pred * label + _softrelu_neg_abs(F, pred)
        else:
            scale = 1 + F.broadcast_mul(pos_weight - 1, label)
            loss = pred - pred * label + scale * (_softrelu_neg_abs(F, pred) + F.relu(-pred))
        return self._batch_mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """Cross-entropy of ``log_softmax(pred, axis)`` (``pred`` itself with ``from_logits=True``) against class
    indices (``sparse_label=True``) or a distribution."""

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        logp = pred if self._from_logits else F.log_softmax(pred, self._axis)
        if self._sparse_label:
            loss = -F.pick(logp, label, axis=self._axis, keepdims=True)
        else:
            loss = -F.sum(logp * _reshape_like(F, label, logp), axis=self._axis, keepdims=True)
        return self._batch_mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """``label * (log(label + 1e-12) - log_pred)`` summed (not averaged, as in MXNet 1.9.1) per sample;
    ``from_logits=False`` applies ``log_softmax(pred, axis)`` first."""

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        logp = pred if self._from_logits else F.log_softmax(pred, self._axis)
        loss = label * (F.log(label + 1e-12) - logp)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    """Connectionist temporal classification through the ``CTCLoss`` operator, blank = the last class, labels
    padded with -1. Inputs: pred, label, pred_lengths=None, label_lengths=None, sample_weight=None."""

    def __init__(self, layout='NTC', label_layout='NT', weight=None, **kwargs):
        if layout not in ('NTC', 'TNC'):
            raise MXNetAssertionError("CTCLoss: only 'NTC' and 'TNC' layouts for pred are supported, got %s" % layout)
        if label_layout not in ('NT', 'TN'):
            raise MXNetAssertionError("CTCLoss: only 'NT' and 'TN' layouts for label are supported, got %s"
                                      % label_layout)
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.index('N'), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None, sample_weight=None):
        if self._layout == 'NTC':
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        loss = F.CTCLoss(pred, label, pred_lengths, label_lengths, use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label='last')
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    """Smooth L1: ``|d| - rho / 2`` where ``|d| > rho``, else ``d ** 2 / (2 * rho)``, averaged per sample."""

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        err = F.abs(_reshape_like(F, label, pred) - pred)
        loss = F.where(err > self._rho, err - 0.5 * self._rho, (0.5 / self._rho) * F.square(err))
        return self._batch_mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


class _MarginLoss(Loss):
    """A loss with a ``margin`` (HingeLoss, SquaredHingeLoss, TripletLoss); ``power`` 1 or 2 for the hinges."""
    _power = 1

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        loss = F.relu(self._margin - pred * _reshape_like(F, label, pred))
        if self._power == 2:
            loss = F.square(loss)
        return self._batch_mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


class HingeLoss(_MarginLoss):
    """``max(0, margin - pred * label)`` for labels in {-1, 1}, averaged per sample."""


class SquaredHingeLoss(_MarginLoss):
    """``max(0, margin - pred * label) ** 2`` for labels in {-1, 1}, averaged per sample."""
    _power = 2


class LogisticLoss(Loss):
    """Logistic loss on logits; ``label_format`` 'signed' (labels -1/1) or 'binary' (labels 0/1)."""

    def __init__(self, weight=None, batch_axis=0, label_format='signed', **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        if label_format not in ('signed', 'binary'):
            raise MXNetValueError('LogisticLoss: label_format can only be signed or binary, received %s.'
                                  % label_format)
        self._label_format = label_format

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == 'signed':
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + _softrelu_neg_abs(F, pred)
        return self._batch_mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


class TripletLoss(_MarginLoss):
    """``max(0, |pred - positive|^2 - |pred - negative|^2 + margin)`` per sample (squared distances summed over
    all non-batch axes). Inputs: pred, positive, negative (no sample_weight)."""

    def hybrid_forward(self, F, pred, positive, negative):
        gap = (F.square(_reshape_like(F, positive, pred) - pred)
               - F.square(_reshape_like(F, negative, pred) - pred))
        loss = F.relu(F.sum(gap, axis=self._batch_axis, exclude=True) + self._margin)
        return _apply_weighting(F, loss, self._weight, None)


class PoissonNLLLoss(Loss):
    """Poisson negative log-likelihood, averaged over all elements (shape (1,)); ``from_logits=True`` takes
    log-rates, else rates (with ``epsilon``, 4th positional input). ``compute_full`` adds Stirling's term where
    target > 1. Differs from MXNet: with ``compute_full=True`` it also works under ``autograd.record()`` and
    hybridized (MXNet's in-place ``*=`` fails there)."""

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._compute_full, self._from_logits = compute_full, from_logits

    @staticmethod
    def _stirling(F, t):
        # log(t!) ~ t log t - t + log(2 pi t) / 2, counted only where t > 1
        return (t > 1) * (t * F.log(t) - t + 0.5 * F.log(2 * t * np.pi))

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        y = _reshape_like(F, target, pred)
        # rate term minus y * log(rate), with rate = exp(pred) (logits) or pred itself
        nll = (F.exp(pred) - y * pred) if self._from_logits else (pred - y * F.log(pred + epsilon))
        full = nll + self._stirling(F, y) if self._compute_full else nll
        return F.mean(_apply_weighting(F, full, self._weight, sample_weight))


class CosineEmbeddingLoss(Loss):
    """``1 - cos(input1, input2)`` for label 1, ``max(0, cos - margin)`` for label -1 (0 for other labels), over
    the last axis; returns shape (batch, 1). Inputs: input1, input2, label, sample_weight=None."""

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = label.reshape((-1, 1))
        cos = self._cosine_similarity(F, input1, input2)
        if is_eager(F):
            zero = F.array([0], ctx=cos.context)
        else:
            zero = F.zeros((1, 1))
        loss = (1 - cos) * (label == 1) + F.broadcast_maximum(zero, (label == -1) * (cos - self._margin))
        return _apply_weighting(F, loss, self._weight, sample_weight)

    def _cosine_similarity(self, F, x, y, axis=-1):
        norms = F.norm(x, axis=axis).reshape((-1, 1)) * F.norm(y, axis=axis).reshape((-1, 1))
        dot = F.sum(x * y, axis=axis).reshape((-1, 1))
        if is_eager(F):
            eps = F.array([1e-12], ctx=dot.context)
        else:
            eps = F.full((1, 1), 1e-12)
        return dot / F.broadcast_maximum(norms, eps)


class SDMLLoss(Loss):
    """Smoothed deep metric learning loss over a batch of pairs (x1[i], x2[i]) of shape (batch, dim): KL divergence
    between softmax(-squared distances) and smoothed identity labels, summed per sample.
    Eager only, as in MXNet (it needs the batch size); hybridized it raises MXNetNotImplementedError."""

    def __init__(self, smoothing_parameter=0.3, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _compute_distances(self, x1, x2):
        if x1.shape != x2.shape or len(x1.shape) != 2:
            raise MXNetAssertionError('SDMLLoss: x1 and x2 must both be (batch, dim), got %s and %s'
                                      % (x1.shape, x2.shape))
        n, d = x1.shape
        diff = x1.expand_dims(1).broadcast_to((n, n, d)) - x2.expand_dims(0).broadcast_to((n, n, d))
        return (diff ** 2).sum(axis=2)

    def _compute_labels(self, F, batch_size):
        gold = F.eye(batch_size)
        return gold * (1 - self.smoothing_parameter) + (1 - gold) * self.smoothing_parameter / (batch_size - 1)

    def _loss(self, F, x1, x2):
        labels = self._compute_labels(F, x1.shape[0])
        distances = self._compute_distances(x1, x2)
        logp = F.log_softmax(-distances, axis=1)
        return self.kl_loss(logp, labels.as_in_context(distances.context))

    def hybrid_forward(self, F, x1, x2):
        if not is_eager(F):
            raise unsupported('SDMLLoss', 'hybridize()', 'it needs the batch size, which a Symbol does not have '
                                                         '(MXNet 1.9.1 fails there too)')
        return self._loss(F, x1, x2)
