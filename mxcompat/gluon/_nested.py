"""Nested inputs and outputs of a HybridBlock <-> flat lists, with MXNet's format codes (0 for one array, n > 1
for an n-output Symbol, -1 for None, lists for nesting)."""
from ..base import MXNetValueError
from ..ndarray.ndarray import NDArray
from ..symbol import Symbol


def _flatten(args, inout_str):
    """(flat list, format): format 0 for one array, n > 1 for an n-output Symbol, -1 for None, lists for nesting."""
    if args is None:
        return [None], -1
    if isinstance(args, Symbol):
        width = len(args.list_outputs())
        return [args], width if width > 1 else 0
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, (list, tuple)):
        parts = [_flatten(item, inout_str) for item in args]
        return [leaf for leaves, _ in parts for leaf in leaves], [code for _, code in parts]
    raise MXNetValueError('When hybridized, the input of HybridBlock {} must be (nested) list of Symbol or '
                          'NDArray, but got {} of type {}'.format(inout_str, str(args), str(type(args))))


def _take(flat, code):
    """Rebuild the value that ``code`` describes from the front of ``flat``: (value, rest of flat)."""
    if isinstance(code, list):
        if not isinstance(flat, (list, tuple)):
            raise MXNetValueError('When hybridized, the output of HybridBlock must be (nested) list of Symbol or '
                                  'NDArray, but got {} of type {}'.format(flat, type(flat)))
        built = []
        for sub in code:
            item, flat = _take(flat, sub)
            built.append(item)
        return built, flat
    if code > 0:
        return flat[:code], flat[code:]
    if code == 0:
        return flat[0], flat[1:]
    if code == -1:
        if flat[0] is None:
            return None, flat[1:]
        raise MXNetValueError('We do not support passing types that are not None when the initial HybridBlock has '
                              'received NoneType and has been hybridized. Received arg = {}, fmt = {}.'
                              .format(flat[0], code))
    raise MXNetValueError('Unsupported encoded format {}.'.format(code))


def _regroup(args, fmt):
    """Inverse of ``_flatten``."""
    return _take(args, fmt)[0]


def _gather_type_ctx_info(args):
    """(has Symbol, has NDArray, set of contexts, first context) over nested ``args``."""
    if isinstance(args, NDArray):
        return False, True, {args._ctx}, args._ctx
    if isinstance(args, Symbol):
        return True, False, set(), None
    if isinstance(args, (list, tuple)):
        has_sym = has_nd = False
        ctxs, first = set(), None
        for a in args:
            s, n, c, f = _gather_type_ctx_info(a)
            has_sym, has_nd = has_sym or s, has_nd or n
            if first is None:
                first = f
            ctxs |= c
            if has_sym and has_nd:
                break
        return has_sym, has_nd, ctxs, first
    return False, False, set(), None
