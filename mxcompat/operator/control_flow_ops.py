"""The control-flow operators (``_foreach``, ``_while_loop``, ``_cond``): graph nodes whose bodies are subgraphs.
``mx.sym.contrib.foreach``/``while_loop``/``cond`` build them and ``mxcompat/symbol/control_flow.py`` runs them (the
node holds its subgraphs); these entries give them MXNet's names, attributes and number of outputs (in JSON,
inference and monitors). Called without subgraphs (``mx.nd._internal._foreach`` ...), they raise.
"""
from ..base import MXNetError
from .registry import defop, REQUIRED


def _needs_subgraph(name):
    def impl(*args, **attrs):  # noqa: ARG001
        raise MXNetError('Operator %s: its body is a subgraph; build it with mx.sym.contrib.%s (or call '
                         'mx.nd.contrib.%s on NDArrays)' % (name, name[1:], name[1:]))
    return impl


defop('_foreach', ('*data',),
      [('num_outputs', 'int', REQUIRED), ('num_out_data', 'int', REQUIRED), ('in_state_locs', 'shape', REQUIRED),
       ('in_data_locs', 'shape', REQUIRED), ('remain_locs', 'shape', REQUIRED)],
      _needs_subgraph('_foreach'), num_outputs=lambda a: a['num_outputs'],
      doc='A loop over axis 0 of its data inputs running a subgraph per step (mx.sym.contrib.foreach). Inputs: '
          'the data, the initial states, then the subgraph\'s other inputs; ``num_args`` counts the subgraph too.')

defop('_while_loop', ('*data',),
      [('num_outputs', 'int', REQUIRED), ('num_out_data', 'int', REQUIRED), ('max_iterations', 'int', REQUIRED),
       ('cond_input_locs', 'shape', REQUIRED), ('func_input_locs', 'shape', REQUIRED),
       ('func_var_locs', 'shape', REQUIRED)],
      _needs_subgraph('_while_loop'), num_outputs=lambda a: a['num_outputs'],
      doc='A loop running its func subgraph while its cond subgraph holds (mx.sym.contrib.while_loop); '
          '``num_args`` counts the two subgraphs too.')
defop('_cond', ('*data',),
      [('num_outputs', 'int', REQUIRED), ('cond_input_locs', 'shape', REQUIRED), ('then_input_locs', 'shape', REQUIRED),
       ('else_input_locs', 'shape', REQUIRED)],
      _needs_subgraph('_cond'), num_outputs=lambda a: a['num_outputs'],
      doc='One of two subgraphs, chosen by a predicate subgraph (mx.sym.contrib.cond); ``num_args`` counts the '
          'three subgraphs too.')
