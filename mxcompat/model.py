"""``mx.model``: checkpoints in MXNet's file layout, the callback record ``BatchEndParam`` (``_checkpoint.py``) and
``FeedForward`` (deprecated in MXNet, still shipped: ``_feedforward.py``)."""
from ._checkpoint import BatchEndParam, load_checkpoint, load_params, save_checkpoint, save_params  # noqa: F401
from ._feedforward import FeedForward

__all__ = ['BatchEndParam', 'save_checkpoint', 'load_checkpoint', 'load_params', 'FeedForward']
