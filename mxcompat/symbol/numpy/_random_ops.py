"""The samplers MXNet 1.9.1 registers for ``mx.np.random`` and ``mx.npx.random`` (``_npi_uniform``, ``_npi_normal``,
``_npi_gamma``, ``_npi_choice``, ``_npi_bernoulli`` ...), under MXNet's names, inputs and attributes.

A distribution parameter is an attribute when it is a number and an input (``input1``, ``input2``, in the order of
the parameters left unset) when it is an array, as in MXNet. Each operator runs the ``mx.np.random`` (``mx.npx.random``)
function of the same meaning, so a graph draws from the generator the eager call draws from: a seeded hybridized
block draws what the eager block draws, as in MXNet. In a graph, a sampler with array parameters runs on their
device; one without runs where its ``ctx`` attribute says (as ``_npi_zeros``). Shapes and dtypes are inferred from
the attributes and input shapes without drawing.
"""
import numpy as _onp
import torch

from ...base import MXNetValueError, parse_tuple
from ...numpy import random as _nprandom
from ...numpy_extension import random as _npxrandom
from ...operator import custom, registry
from ...operator.init_ops import _ctx
from .. import opinfo
from ._ops import _arrays, _graph_call, _tensors, publish

__all__ = ['SAMPLERS']

_BEFORE = set(registry.REGISTRY)
_OPTIONAL = 'float?'


def _input_names(params):
    """MXNet's FListInputNames: one input per distribution parameter given as an array (its attribute None)."""
    def names(attrs):
        n = sum(attrs.get(p) is None for p in params)
        return ['input1', 'input2'][:n]
    return names


def _broadcast(op, shapes, size):
    """The output shape: ``size`` (which the parameters' shapes must broadcast to) or their broadcast shape."""
    try:
        bshape = _onp.broadcast_shapes(*shapes) if shapes else ()
        if size is None or size == ():
            return tuple(bshape)
        size = tuple(size)
        if _onp.broadcast_shapes(bshape, size) != size:
            raise ValueError
        return size
    except ValueError:
        raise MXNetValueError('Operator %s: parameters of shapes %s do not broadcast to size %s'
                              % (op, ' '.join(str(tuple(s)) for s in shapes), size)) from None


def _infer(op, dtype=None, batched=False):
    """Shape/dtype inference of a sampler: ``dtype`` the output dtype (None: the ``dtype`` attribute)."""
    def infer(shapes, dtypes, attrs):  # noqa: ARG001
        if any(s is None for s in shapes):
            return [None], [dtype or attrs['dtype']]
        shapes = [tuple(s) for s in shapes]
        if batched:  # npx.random.*_n: the batch shape in front of the parameters' broadcast shape
            out = tuple(attrs['size'] or ()) + _broadcast(op, shapes, None)
        else:
            out = _broadcast(op, shapes, attrs['size'])
        return [out], [dtype or attrs['dtype']]
    return infer


def _sampler(op, fn, params, has_dtype=True, has_ctx=True, dtype=None, batched=False, size_name='size',
             default=registry.REQUIRED, hidden=True):
    """Registers ``op``: ``fn(*params, <size_name>=size, [dtype=], [ctx=])`` with each parameter from its
    attribute, or, where that is None, from the next input. ``default``: the parameters' default (MXNet's: none,
    1.0 for the scale of exponential and rayleigh, None for ``a``). ``hidden``: MXNet's node has a second, hidden
    output (the noise its gradient reads), which JSON's node_row_ptr counts and after which MXNet numbers the
    visible one (``output0``)."""
    specs = [(p, _OPTIONAL, default) for p in params] + [('size', 'shape', None)]
    if has_ctx:
        specs.append(('ctx', _ctx, None))
    if has_dtype:
        specs.append(('dtype', 'dtype', torch.float32))

    def impl(*tensors, **attrs):
        tensors = [t for t in tensors if t is not None]  # (a graph passes the inputs left out as None)
        arrays = iter(_arrays(tensors))
        values = [next(arrays) if attrs[p] is None else attrs[p] for p in params]
        kwargs = {size_name: attrs['size']}
        if has_dtype:
            kwargs['dtype'] = attrs['dtype']
        if has_ctx:  # (array parameters: their device, as MXNet runs a graph's nodes on the graph's)
            kwargs['ctx'] = None if tensors else attrs['ctx']
        return _graph_call(lambda: _tensors(fn(*values, **kwargs)))
    impl.__doc__ = 'mx.np.random.%s: its parameters numbers (attributes) or arrays (inputs).' % fn.__name__
    registry.defop(op, ('input1', 'input2')[:len(params)], specs, impl, optional=('input1', 'input2'),
                   input_names=_input_names(params), infer=_infer(op, dtype, batched),
                   output_names=('output0',) if hidden else None)
    if hidden:
        opinfo.TOTAL_OUTPUTS.setdefault(op, 2)


_sampler('_npi_uniform', _nprandom.uniform, ('low', 'high'), hidden=False)
_sampler('_npi_normal', _nprandom.normal, ('loc', 'scale'))
_sampler('_npi_gamma', _nprandom.gamma, ('shape', 'scale'), hidden=False)
_sampler('_npi_logistic', _nprandom.logistic, ('loc', 'scale'), has_dtype=False, dtype=torch.float32)
_sampler('_npi_gumbel', _nprandom.gumbel, ('loc', 'scale'), has_dtype=False, dtype=torch.float32)
_sampler('_npi_uniform_n', _npxrandom.uniform_n, ('low', 'high'), batched=True, size_name='batch_shape',
         hidden=False)
_sampler('_npi_normal_n', _npxrandom.normal_n, ('loc', 'scale'), batched=True, size_name='batch_shape')


_ONE = dict(has_dtype=False, dtype=torch.float32)
_sampler('_npi_exponential', _nprandom.exponential, ('scale',), default=1.0, **_ONE)
_sampler('_npi_rayleigh', _nprandom.rayleigh, ('scale',), default=1.0, **_ONE)
_sampler('_npi_weibull', _nprandom.weibull, ('a',), default=None, **_ONE)
_sampler('_npi_pareto', _nprandom.pareto, ('a',), default=None, **_ONE)
_sampler('_npi_powerd', _nprandom.power, ('a',), default=None, has_ctx=False, hidden=False, **_ONE)


# bernoulli: one parameter, prob or logit (``is_logit`` says which an input is)
def _bernoulli(*tensors, prob, logit, is_logit, size, ctx, dtype):
    tensors = [t for t in tensors if t is not None]
    if tensors:
        arr = _arrays(tensors)[0]
        prob, logit = (None, arr) if is_logit else (arr, None)
    return _graph_call(lambda: _npxrandom.bernoulli(prob, logit, size=size, dtype=dtype,
                                                   ctx=None if tensors else ctx)._t)


registry.defop('_npi_bernoulli', ('input1',),
               [('prob', _OPTIONAL, registry.REQUIRED), ('logit', _OPTIONAL, registry.REQUIRED),
                ('size', 'shape', None), ('ctx', _ctx, None), ('dtype', 'dtype', torch.float32),
                ('is_logit', 'bool', registry.REQUIRED)],
               _bernoulli, optional=('input1',),
               input_names=lambda attrs: [] if attrs['prob'] is not None or attrs['logit'] is not None else ['input1'],
               infer=_infer('_npi_bernoulli'))


# choice: indices of range(a) (a an attribute) or of an array's first axis (input1); weights p the next input.
# The symbol function takes the elements of an array ``a`` by these indices with a ``take`` node, as MXNet's.
def _choice_inputs(attrs):
    n = (attrs['a'] is None) + bool(attrs['weighted'])
    return ['input1', 'input2'][:n]


def _choice(*tensors, a, size, ctx, replace, weighted):
    tensors = [t for t in tensors if t is not None]
    arrays = _arrays(tensors)
    if a is None:
        a = int(tensors[0].shape[0])
        arrays = arrays[1:]
    p = arrays[0] if weighted else None
    # (MXNet: indices of ``a`` (ignoring p when a is an array and p is left out) in int64)
    return _graph_call(lambda: _nprandom.choice(a, size=size, replace=replace, p=p,
                                                ctx=None if tensors else ctx)._t)


def _choice_infer(shapes, dtypes, attrs):  # noqa: ARG001
    size = attrs['size']
    return [tuple(size) if size is not None else ()], [torch.int64]


registry.defop('_npi_choice', ('input1', 'input2'),
               [('a', 'int?', registry.REQUIRED), ('size', 'shape', registry.REQUIRED), ('ctx', _ctx, None),
                ('replace', 'bool', True), ('weighted', 'bool', False)],
               _choice, optional=('input1', 'input2'), input_names=_choice_inputs, infer=_choice_infer)



# multivariate_normal: MXNet's symbol is a Custom node of its Python fallback operator 'mvn_fallback' (arguments
# mean and cov, attribute size); here that operator runs mx.np.random.multivariate_normal, which draws from the
# engine of MXNet's custom-operator thread, as MXNet's fallback does
class _MultivariateNormal(custom.CustomOp):
    def __init__(self, size):
        super().__init__()
        self._size = size

    def forward(self, is_train, req, in_data, out_data, aux):  # noqa: ARG002
        mean, cov = (x.as_np_ndarray() for x in in_data)
        r = _nprandom.multivariate_normal(mean, cov, size=self._size)
        self.assign(out_data[0], req[0], r.as_nd_ndarray())

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):  # noqa: ARG002
        for i, g in enumerate(in_grad):  # (no gradient, as MXNet's sampler)
            self.assign(g, req[i], 0)


@custom.register('mvn_fallback')
class _MultivariateNormalProp(custom.CustomOpProp):
    def __init__(self, size=None):
        super().__init__(need_top_grad=True)
        size = parse_tuple(size)
        self._size = None if size is None else tuple(size)

    def list_arguments(self):
        return ['mean', 'cov']

    def infer_shape(self, in_shape):
        mean, cov = (tuple(s) for s in in_shape)
        if len(mean) < 1:
            raise MXNetValueError('mvn_fallback: mean must be at least 1 dimensional')
        if len(cov) < 2:
            raise MXNetValueError('mvn_fallback: cov must be at least 2 dimensional')
        if cov[-1] != cov[-2] or cov[-1] != mean[-1]:
            raise MXNetValueError('mvn_fallback: mean of shape %s and cov of shape %s do not match' % (mean, cov))
        out = tuple(_onp.broadcast_shapes(mean, cov[:-1]))
        return in_shape, ((self._size or ()) + out,), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):  # noqa: ARG002
        return _MultivariateNormal(self._size)


SAMPLERS = tuple(sorted(set(registry.REGISTRY) - _BEFORE))
publish(SAMPLERS)
