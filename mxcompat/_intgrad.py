"""Integer (and bool) arrays as autograd variables: the tensor subclass that carries their gradients through torch's
float-only autograd. The arrays (``ndarray/``, ``numpy/``) recognise these tensors; ``mx.autograd`` (a layer above)
makes them when ``attach_grad`` is given an integer array and reads them in ``backward``/``grad``.
"""
import weakref

import torch

from ._recording import STATE

# MXNet lets an integer array be a variable: its gradient buffer has the array's dtype (bool too) and a
# backward pass computes its gradient through the operators' backward, cast to that dtype. torch's autograd carries
# floating-point tensors only, so such a variable's tensor is an ``_IntGradTensor``: every torch function given one
# under ``record()`` also runs on float64 stand-ins ("shadows") of those inputs, and a result carries the shadow
# result, which is in torch's graph. Backward from such a result goes through its shadow (``autograd._heads``); the
# leaf's shadow is the integer data plus a float64 zero leaf whose gradient hook fills the integer buffer. Arrays
# computed without an integer variable never meet this class: their operators run as before.
# A float tensor in the graph cast to an integer dtype under ``record()`` becomes such a result too (``cast``).
# As in MXNet 1.9.1, casts pass gradients through, truncating them into the integer dtype on the way (a cast's
# backward computes in its integer side's dtype), integer mod sends none (zeros), and mx.np's mixed integer/float
# binary operators leave their integer input's gradient 0 (numpy._op._promote).
# Differs from MXNet: the other operators' gradients are computed in float64, and the leaf's cast once per backward
# pass (MXNet computes each operator's backward in the integer dtype, which can wrap intermediate values).
_SHADOW_DTYPE = torch.float64
_INPLACE = frozenset('__%s__' % n for n in ('setitem', 'iadd', 'isub', 'imul', 'itruediv', 'ifloordiv', 'imod', 'ipow',
                                              'iand', 'ior', 'ixor', 'ilshift', 'irshift', 'imatmul'))
_NO_INT_GRAD = frozenset(('remainder', 'fmod', '__mod__', '__rmod__'))
_CASTS = frozenset(('to', 'type', 'type_as', 'long', 'int', 'short', 'char', 'byte', 'bool', 'half', 'float',
                    'double', 'bfloat16'))


def _int_leaf(t, grad_req, grad_buf):
    t = t.detach().as_subclass(_IntGradTensor)
    t._mx_grad_req = grad_req
    t._mx_fresh_grad = False
    if grad_buf is None:
        grad_buf = torch.zeros(t.shape, dtype=t.dtype, device=t.device)
    t._mx_int_grad = grad_buf.as_subclass(torch.Tensor)
    zero = torch.zeros(t.shape, dtype=_SHADOW_DTYPE, device=t.device, requires_grad=True)
    zero.register_hook(_int_grad_hook(weakref.ref(t), grad_req == 'write'))
    t._mx_shadow_leaf = zero
    return t


def _int_grad_hook(tensor_ref, write):
    def hook(g):
        if not STATE.in_grad:
            t = tensor_ref()
            if t is not None:
                buf = t._mx_int_grad
                with torch.no_grad():
                    if write:
                        buf.copy_(g)
                    else:
                        buf.add_(g.to(buf.dtype))
                t._mx_fresh_grad = True
        return g
    return hook


def _plain(x):
    return x.as_subclass(torch.Tensor) if isinstance(x, _IntGradTensor) else x


def _shadow(x):
    """The float stand-in of ``x`` in torch's graph (None where ``x`` carries none)."""
    leaf = x.__dict__.get('_mx_shadow_leaf')
    if leaf is not None:
        return x.as_subclass(torch.Tensor).to(_SHADOW_DTYPE) + leaf
    return x.__dict__.get('_mx_grad_surrogate')


def _map(fn, obj):
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map(fn, o) for o in obj)
    if isinstance(obj, dict):
        return {k: _map(fn, v) for k, v in obj.items()}
    return fn(obj)


def _float_dtype(x):
    return _SHADOW_DTYPE if isinstance(x, torch.dtype) and not (x.is_floating_point or x.is_complex) else x


def _is_float(t):
    if isinstance(t, (list, tuple)):
        return bool(t) and _is_float(t[0])
    return t.is_floating_point() or t.is_complex()


class _IntGradTensor(torch.Tensor):
    """The tensor of an integer variable (and of results computed from one under ``record()``); see above."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        with torch._C.DisableTorchFunctionSubclass():
            real = func(*_map(_plain, args), **_map(_plain, kwargs))
            if not (STATE.recording and torch.is_grad_enabled()) or not isinstance(real, (torch.Tensor, list, tuple)):
                return real
            if isinstance(real, (list, tuple)) and not (real and isinstance(real[0], torch.Tensor)):
                return real
            name = getattr(func, '__name__', '')
            if (name.endswith('_') and not name.startswith('__')) or name in _INPLACE or 'out' in kwargs:
                return real  # in place: the integer data changes, the recorded graph does not
            shadows = {}

            def sub(x):
                if isinstance(x, _IntGradTensor):
                    s = shadows[id(x)] = _shadow(x)
                    return x.as_subclass(torch.Tensor).to(_SHADOW_DTYPE) if s is None else s
                return _float_dtype(x)
            sargs, skwargs = _map(sub, args), _map(sub, kwargs)
            if not any(s is not None for s in shadows.values()):
                return real
            if name in _CASTS:
                src = args[0]
                shadow = sargs[0]
                if not _is_float(src) and _is_float(real):  # (MXNet's Cast backward computes in the integer dtype)
                    shadow = _TruncateGrad.apply(shadow, src.dtype)
            elif name in _NO_INT_GRAD and isinstance(real, torch.Tensor) and not _is_float(real):
                # in the graph with zero gradients (the shadows of integers are finite)
                shadow = real.to(_SHADOW_DTYPE) + sum((s * 0).sum() for s in shadows.values() if s is not None)
            else:
                try:
                    shadow = func(*sargs, **skwargs)
                except Exception:  # an input the function takes as integers only (indices, bit patterns)
                    return real
        return _attach_shadows(real, shadow)


class _TruncateGrad(torch.autograd.Function):
    """Identity whose backward casts the gradient into integer dtype ``dtype`` (truncating it) and back: the
    stand-in of a cast from an integer dtype to a float one, whose backward MXNet computes in the integer dtype."""

    @staticmethod
    def forward(ctx, x, dtype):
        ctx.int_dtype = dtype
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return g.to(ctx.int_dtype).to(g.dtype), None


class _FromFloat(torch.autograd.Function):
    """The stand-in of ``src`` cast to an integer dtype (``real``): the integer values, as float64; backward casts
    the gradient into that dtype and then into src's, as MXNet's Cast backward does."""

    @staticmethod
    def forward(ctx, src, real):
        ctx.dtypes = real.dtype, src.dtype
        return real.to(_SHADOW_DTYPE)

    @staticmethod
    def backward(ctx, g):
        int_dtype, src_dtype = ctx.dtypes
        return g.to(int_dtype).to(src_dtype), None


def cast(t, dtype, copy=False):
    """``t.to(dtype)``. Under ``record()``, a cast of a float tensor in the graph to an integer or bool dtype gives
    an integer result in the graph, as in MXNet: backward from it (or from what is computed from it) reaches ``t``."""
    real = t.to(dtype, copy=copy)
    if (t.requires_grad and not (dtype.is_floating_point or dtype.is_complex) and STATE.recording
            and torch.is_grad_enabled()):
        return _attach_shadows(real, _FromFloat.apply(t, real))
    return real


def _attach_shadows(real, shadow):
    if isinstance(real, (list, tuple)):
        if not isinstance(shadow, (list, tuple)) or len(shadow) != len(real):
            return real
        return type(real)(_attach_shadows(r, s) for r, s in zip(real, shadow))
    if not (isinstance(real, torch.Tensor) and isinstance(shadow, torch.Tensor) and shadow.requires_grad
            and shadow.shape == real.shape):
        return real
    out = real.detach().as_subclass(_IntGradTensor)
    out._mx_grad_surrogate = shadow
    return out
