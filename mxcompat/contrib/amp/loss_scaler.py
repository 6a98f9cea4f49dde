"""The dynamic loss scaler of ``mx.contrib.amp``."""
import logging

import torch

from ...autograd import pause


class LossScaler(object):
    """MXNet's dynamic loss scale: starts at 2**16; a step whose gradients overflow is skipped and halves the scale
    (from the next check on); 2000 clean steps in a row double it, up to 2**24."""

    # The attribute names are MXNet's: scripts (and MXNet's own tests) tune _scale_seq_len and read
    # _next_loss_scale directly.
    def __init__(self):
        self._loss_scale = self._next_loss_scale = 2. ** 16  # the scale in use, and the one the next check adopts
        self._max_loss_scale = 2. ** 24
        self._scale_seq_len = 2000  # clean steps in a row that double the scale
        self._unskipped = 0

    @property
    def loss_scale(self):
        return self._loss_scale

    def has_overflow(self, params):
        """Whether any gradient of ``params`` (on its first context) holds an inf or NaN; updates the scale."""
        with pause():
            grads = [p._grad[0]._t for p in params if p._grad is not None]
            finite = all(bool(torch.isfinite(g).all()) for g in grads)
        self._loss_scale = self._next_loss_scale
        if not finite:
            self._next_loss_scale, self._unskipped = self._loss_scale / 2., 0
            logging.info('AMP: decreasing loss scale to %f', self._next_loss_scale)
            return True
        self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._next_loss_scale, self._unskipped = min(self._max_loss_scale, self._loss_scale * 2.), 0
            logging.info('AMP: increasing loss scale to %f', self._next_loss_scale)
        return False
