"""``mxnet._numpy_op_doc``: the signatures MXNet 1.9.1 documents for the operators its registry defines for the NumPy
interface (``_np_sum`` ...). ``mxnet.numpy_op_signature`` gives the ``mx.np`` / ``mx.npx`` function behind each one
this signature, as MXNet does, so ``help(np.sum)`` shows MXNet's parameters. Each name here is a stand-in carrying
the signature; calling it raises."""
import inspect

# operator -> its documented parameters (a default as Python source after '=')
SIGNATURES = {
    '_np_all': ('a', 'axis=None', 'keepdims=False', 'out=None'),
    '_np_any': ('a', 'axis=None', 'keepdims=False', 'out=None'),
    '_np_sometrue': ('a', 'axis=None', 'keepdims=False', 'out=None'),
    '_np_cumsum': ('a', 'axis=None', 'dtype=None', 'out=None'),
    '_np_repeat': ('a', 'repeats', 'axis=None'),
    '_np_transpose': ('a', 'axes=None'),
    '_np_dot': ('a', 'b', 'out=None'),
    '_np_sum': ('a', 'axis=None', 'dtype=None', 'keepdims=False', 'initial=None', 'out=None'),
    '_np_copy': ('a', 'out=None'),
    '_np_atleast_1d': ('*arys',),
    '_np_atleast_2d': ('*arys',),
    '_np_atleast_3d': ('*arys',),
    '_np_reshape': ('a', 'newshape', "order='C'", 'out=None'),
    '_np_roll': ('a', 'shift', 'axis=None'),
    '_np_trace': ('a', 'offset=0', 'axis1=0', 'axis2=1', 'out=None'),
    '_np_squeeze': ('a', 'axis=None', 'out=None'),
    '_np_max': ('a', 'axis=None', 'keepdims=False', 'out=None'),
    '_np_amax': ('a', 'axis=None', 'keepdims=False', 'out=None'),
    '_np_min': ('a', 'axis=None', 'keepdims=False', 'out=None'),
    '_np_amin': ('a', 'axis=None', 'keepdims=False', 'out=None'),
    '_np_prod': ('a', 'axis=None', 'dtype=None', 'out=None', 'keepdims=False'),
    '_np_product': ('a', 'axis=None', 'dtype=None', 'out=None', 'keepdims=False'),
    '_np_moveaxis': ('a', 'source', 'destination'),
    '_np_diag': ('array', 'k=0'),
    '_np_diagonal': ('a', 'offset=0', 'axis1=0', 'axis2=1'),
    '_np_diagflat': ('array', 'k=0'),
    '_np__random_shuffle': ('x',),
    '_npx_nonzero': ('a',),
    '_npx_constraint_check': ('x', 'msg'),
    '_npx_reshape': ('a', 'newshape', 'reverse=False', "order='C'"),
}


def _parameter(spec):
    if spec.startswith('*'):
        return inspect.Parameter(spec[1:], inspect.Parameter.VAR_POSITIONAL)
    name, eq, default = spec.partition('=')
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                             default=eval(default) if eq else inspect.Parameter.empty)  # noqa: S307 (literals)


def _stand_in(op_name, params):
    def doc(*args, **kwargs):
        raise TypeError('%s is the documentation of an operator, not a function; call mx.np / mx.npx' % op_name)
    doc.__name__ = doc.__qualname__ = op_name
    doc.__doc__ = 'The signature MXNet documents for its operator ``%s``.' % op_name
    doc.__signature__ = inspect.Signature([_parameter(p) for p in params])
    return doc


for _name, _params in SIGNATURES.items():
    globals()[_name] = _stand_in(_name, _params)
del _name, _params
