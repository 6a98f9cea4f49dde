"""The custom operators MXNet 1.9.1 registers in ``mxnet.numpy_op_fallback`` for the NumPy functions its symbols
run through NumPy: ``Custom(op_type='empty_like_fallback' | 'resize_fallback' | 'unravel_index_fallback')``, with
MXNet's attribute names and input names, so graphs holding them (``mx.sym.np.empty_like``, ``resize``,
``unravel_index``, and MXNet's exported files) run here. They compute on the host with NumPy, as MXNet's do, and
have no gradient (MXNet's raise NotImplementedError in backward; so do these).
"""
import ast

import numpy as _onp

from ...operator import custom as _custom

__all__ = []


def _literal(v):
    return ast.literal_eval(v) if isinstance(v, str) else v


class _HostOp(_custom.CustomOp):
    """``fn`` (NumPy arrays -> a NumPy array) on the input, written into the output in its dtype."""

    def __init__(self, name, fn):
        super().__init__()
        self._name, self._fn = name, fn

    def forward(self, is_train, req, in_data, out_data, aux):  # noqa: ARG002
        dst = out_data[0]
        out = self._fn(in_data[0].asnumpy()).astype(dst.dtype, copy=False)
        if dst.ndim == 0 and req[0] != 'null':  # (assign's dst[:] takes no 0-d array)
            dst[...] = out + dst.asnumpy() if req[0] == 'add' else out
            return
        self.assign(dst, req[0], out)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):  # noqa: ARG002
        raise NotImplementedError('Operator %s does not support gradient computation' % self._name)


@_custom.register('empty_like_fallback')
class _EmptyLikeProp(_custom.CustomOpProp):
    def __init__(self, dtype='None', order='C', subok='False', shape='None'):
        super().__init__(need_top_grad=True)
        self._dtype = None if dtype == 'None' else dtype
        self._order = order
        self._subok = _literal(subok)
        self._shape = _literal(shape)

    def list_arguments(self):
        return ['prototype']

    def infer_shape(self, in_shape):
        return (in_shape[0],), (in_shape[0],), ()

    def infer_type(self, in_type):
        out = in_type[0] if self._dtype is None else _onp.dtype(self._dtype).type
        return (in_type[0],), (out,), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):  # noqa: ARG002
        return _HostOp('empty_like', lambda a: _onp.empty_like(a, dtype=self._dtype, order=self._order))


@_custom.register('resize_fallback')
class _ResizeProp(_custom.CustomOpProp):
    def __init__(self, new_shape):
        super().__init__(need_top_grad=True)
        self._new_shape = _literal(new_shape)

    def list_arguments(self):
        return ['a']

    def infer_shape(self, in_shape):
        out = (self._new_shape,) if _onp.isscalar(self._new_shape) else tuple(self._new_shape)
        return (in_shape[0],), (out,), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):  # noqa: ARG002
        return _HostOp('resize', lambda a: _onp.resize(a, self._new_shape))


@_custom.register('unravel_index_fallback')
class _UnravelIndexProp(_custom.CustomOpProp):
    def __init__(self, shape):
        super().__init__(need_top_grad=True)
        self._shape = _literal(shape)

    def list_arguments(self):
        return ['indices']

    def infer_shape(self, in_shape):
        rows = (1,) if _onp.isscalar(self._shape) else (len(self._shape),)
        return (in_shape[0],), (rows + tuple(in_shape[0]),), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):  # noqa: ARG002
        return _HostOp('Unravel_index', lambda a: _onp.array(_onp.unravel_index(a, self._shape)))
