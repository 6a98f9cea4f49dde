"""The dynamic loss scaler of ``mx.contrib.amp``."""
import logging

import torch

from ...autograd import pause


class LossScaler(object):
    """MXNet's dynamic loss scale: starts at 2**16; a step whose gradients overflow is skipped and halves the scale
    (from the next check on); 2000 clean steps in a row double it, up to 2**24."""

    def __init__(self):
        self._loss_scale = 2. ** 16
        self._next_loss_scale = self._loss_scale
        self._max_loss_scale = 2. ** 24
        self._scale_seq_len = 2000
        self._unskipped = 0

    @property
    def loss_scale(self):
        return self._loss_scale

    def has_overflow(self, params):
        """Whether any gradient of ``params`` (on its first context) holds an inf or NaN; updates the scale."""
        with pause():
            grads = [p._grad[0]._t for p in params if p._grad is not None]
            finite = all(bool(torch.isfinite(g).all()) for g in grads)
        overflow = not finite
        self._loss_scale = self._next_loss_scale
        if overflow:
            self._next_loss_scale = self._loss_scale / 2.
            self._unskipped = 0
            logging.info('AMP: decreasing loss scale to %f', self._next_loss_scale)
        else:
            self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.)
            logging.info('AMP: increasing loss scale to %f', self._next_loss_scale)
        return overflow
