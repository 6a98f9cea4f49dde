"""Checkpoints in MXNet's file layout and the callback record ``BatchEndParam`` (``mx.model`` re-exports them):
``prefix-symbol.json`` holds the symbol, ``prefix-%04d.params`` the parameters with ``arg:``/``aux:`` keys."""
import logging
from collections import namedtuple

from .base import MXNetError
from .context import cpu
from . import symbol as sym, ndarray as nd

BatchEndParam = namedtuple('BatchEndParams', ['epoch', 'nbatch', 'eval_metric', 'locals'])


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Write ``prefix-symbol.json`` (if ``symbol`` is given) and ``prefix-%04d.params``."""
    if symbol is not None:
        symbol.save('%s-symbol.json' % prefix, remove_amp_cast=remove_amp_cast)
    param_name = '%s-%04d.params' % (prefix, epoch)
    save_params(param_name, arg_params, aux_params)
    logging.info('Saved checkpoint to "%s"', param_name)


def save_params(fname, arg_params, aux_params):
    """Write parameters under MXNet's ``arg:``/``aux:`` keys (copied to the CPU) to ``fname``."""
    save_dict = {'arg:%s' % k: v.as_in_context(_cpu()) for k, v in arg_params.items()}
    save_dict.update({'aux:%s' % k: v.as_in_context(_cpu()) for k, v in aux_params.items()})
    nd.save(fname, save_dict)


def _cpu():
    return cpu()


def load_params(prefix, epoch):
    """(arg_params, aux_params) from ``prefix-%04d.params``."""
    save_dict = nd.load('%s-%04d.params' % (prefix, epoch))
    arg_params, aux_params = {}, {}
    if not save_dict:
        logging.warning('Params file "%s" is empty', '%s-%04d.params' % (prefix, epoch))
        return arg_params, aux_params
    if not isinstance(save_dict, dict):
        raise MXNetError('load_params: %s-%04d.params holds a list, not named parameters' % (prefix, epoch))
    for k, v in save_dict.items():
        tp, _, name = k.partition(':')
        if tp == 'arg':
            arg_params[name] = v
        elif tp == 'aux':
            aux_params[name] = v
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """(symbol, arg_params, aux_params) from a checkpoint written by ``save_checkpoint`` (here or by MXNet)."""
    symbol = sym.load('%s-symbol.json' % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params
