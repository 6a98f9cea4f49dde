"""``mx.visualization`` (``mx.viz``): ``print_summary`` and ``plot_network`` for a Symbol.

Both read the symbol's MXNet JSON (``Symbol.tojson``, the same nodes, names and attribute strings MXNet writes), so
the table and the graphviz graph equal MXNet 1.9.1's, quirks included: the summary counts parameters only for
Convolution, FullyConnected, BatchNorm and Embedding; an input variable is listed as a layer only when its node id
appears in the first head entry (in practice the graph's first node); an edge leaving a node with a ``num_outputs``
attribute is labelled with the shape of that node's *last* output.

Differs from MXNet: ``plot_network`` imports graphviz only when called and says how to install it when it is
missing; errors raised here are MXNet's (``TypeError``/``ValueError`` with MXNet's text) as MXNetError subclasses.
"""
import json
import re
import warnings

from .base import MXNetTypeError, MXNetValueError
from .symbol import Symbol

__all__ = ['print_summary', 'plot_network']

# plot_network's fill colours, indexed as MXNet indexes its colour map
_COLOURS = ('#8dd3c7', '#fb8072', '#ffffb3', '#bebada', '#80b1d3', '#fdb462', '#b3de69', '#fccde5')
_FILL = {'Convolution': 1, 'FullyConnected': 1, 'BatchNorm': 3, 'Activation': 2, 'LeakyReLU': 2, 'Pooling': 4,
         'Concat': 5, 'Flatten': 5, 'Reshape': 5, 'Softmax': 6}
_NODE_DEFAULTS = (('shape', 'box'), ('fixedsize', 'true'), ('width', '1.3'), ('height', '0.8034'),
                  ('style', 'filled'))
# variable names that plot_network treats as parameters (hidden, or drawn as bare ovals with hide_weights=False)
_WEIGHT_SUFFIXES = ('_weight', '_bias', '_beta', '_gamma', '_moving_var', '_moving_mean', '_running_var',
                    '_running_mean')


def _json_nodes(symbol, type_message):
    if not isinstance(symbol, Symbol):
        raise MXNetTypeError(type_message)
    return json.loads(symbol.tojson())


def _internal_table(symbol, values, what):
    """{internal output name: inferred shape or dtype} for ``values`` (input shapes or dtypes, by name)."""
    internals = symbol.get_internals()
    infer = internals.infer_shape if what == 'shape' else internals.infer_type
    _, outs, _ = infer(**values)
    if outs is None:
        raise MXNetValueError('Input %s is incomplete' % what)
    return dict(zip(internals.list_outputs(), outs))


def _dims(attr):
    """The integers of an MXNet tuple string such as '(3, 3)', as strings."""
    return re.findall(r'\d+', attr)


def _x(shape):
    return 'x'.join(str(d) for d in shape)


# ---- print_summary ---------------------------------------------------------------------------------------------
def _layer_params(node, in_channels, shapes):
    """Parameter count of one layer as MXNet's summary computes it (``in_channels``: the summed dim 1 of the
    inputs it lists as previous layers)."""
    op, attrs = node['op'], node.get('attrs', {})
    if op == 'Convolution':
        count = in_channels * int(attrs['num_filter']) // int(attrs.get('num_group', '1'))
        for k in _dims(attrs['kernel']):
            count *= int(k)
        return count if attrs.get('no_bias') == 'True' else count + int(attrs['num_filter'])
    if op == 'FullyConnected':
        bias = 0 if attrs.get('no_bias') == 'True' else 1
        return (in_channels + bias) * int(attrs['num_hidden'])
    if op == 'BatchNorm':
        return int(shapes[node['name'] + '_output'][1]) * 2 if shapes is not None else 0
    if op == 'Embedding':
        return int(attrs['input_dim']) * int(attrs['output_dim'])
    return 0


def print_summary(symbol, shape=None, line_length=120, positions=(.44, .64, .74, 1.)):
    """Print MXNet's layer table (name(op), output shape without the batch axis, parameter count, previous layers).

    Same output as MXNet 1.9.1, including where MXNet fails: a 1-D input shape raises ``IndexError`` after the
    header, as in MXNet.
    """
    graph = _json_nodes(symbol, 'symbol must be Symbol')
    shapes = _internal_table(symbol, shape, 'shape') if shape is not None else None
    nodes = graph['nodes']
    head_ids = set(graph['heads'][0])  # MXNet reads [node, index, version] of the first head as node ids
    cols = [int(line_length * p) for p in positions] if positions[-1] <= 1 else list(positions)

    def row(fields):
        line = ''
        for i, field in enumerate(fields):
            line = (line + str(field))[:cols[i]]
            line += ' ' * (cols[i] - len(line))
        print(line)

    def out_key(node):
        return node['name'] if node['op'] == 'null' else node['name'] + '_output'

    print('_' * line_length)
    row(['Layer (type)', 'Output Shape', 'Param #', 'Previous Layer'])
    print('=' * line_length)
    total = 0
    for i, node in enumerate(nodes):
        op = node['op']
        if op == 'null' and i > 0:
            continue
        out_shape = ()
        if shapes is not None and (op != 'null' or i in head_ids) and out_key(node) in shapes:
            out_shape = shapes[out_key(node)][1:]
        previous, in_channels = [], 0
        for src_id, _, _ in (node['inputs'] if op != 'null' else ()):
            src = nodes[src_id]
            if src['op'] == 'null' and src_id not in head_ids:
                continue
            previous.append(src['name'])
            if shapes is not None and out_key(src) in shapes:
                in_channels += int(shapes[out_key(src)][1:][0])
        params = _layer_params(node, in_channels, shapes)
        total += params
        row(['%s(%s)' % (node['name'], op), _x(out_shape), params, previous[0] if previous else ''])
        for name in previous[1:]:
            row(['', '', '', name])
        print(('=' if i == len(nodes) - 1 else '_') * line_length)
    print('Total params: %d' % total)
    print('_' * line_length)


# ---- plot_network ----------------------------------------------------------------------------------------------
def _node_label(node):
    """(label, colour index) MXNet gives an operator node."""
    op, attrs, name = node['op'], node.get('attrs', {}), node['name']
    if op == 'Convolution':
        stride = _x(_dims(attrs['stride'])) if 'stride' in attrs else '1'
        return 'Convolution\n%s/%s, %s' % (_x(_dims(attrs['kernel'])), stride, attrs['num_filter']), 1
    if op == 'FullyConnected':
        return 'FullyConnected\n%s' % attrs['num_hidden'], 1
    if op == 'Activation':
        return 'Activation\n%s' % attrs['act_type'], 2
    if op == 'LeakyReLU':
        return 'LeakyReLU\n%s' % attrs.get('act_type', 'Leaky'), 2
    if op == 'Pooling':
        kernel = _x(_dims(attrs['kernel'])) if 'kernel' in attrs else '[]'
        stride = _x(_dims(attrs['stride'])) if 'stride' in attrs else '1'
        return 'Pooling\n%s, %s/%s' % (attrs['pool_type'], kernel, stride), 4
    if op == 'Custom':
        return attrs['op_type'], 7
    return name, _FILL.get(op, 7)


def _edge_key(node):
    """The internal output whose shape/dtype labels edges leaving ``node`` (MXNet's rule)."""
    if node['op'] == 'null':
        return node['name']
    key = node['name'] + '_output'
    if 'num_outputs' in node.get('attrs', {}):
        key += str(int(node['attrs']['num_outputs']) - 1)
    return key


def _warn_repeated_names(nodes):
    seen, repeated = set(), []
    for node in nodes:
        if node['name'] in seen and node['name'] not in repeated:
            repeated.append(node['name'])
        seen.add(node['name'])
    if repeated:
        warnings.warn('There are multiple variables with the same name in your graph, this may result in cyclic '
                      'graph. Repeated names: ' + ','.join(repeated), RuntimeWarning)


def plot_network(symbol, title='plot', save_format='pdf', shape=None, dtype=None, node_attrs=None,
                 hide_weights=True):
    """A ``graphviz.Digraph`` of the graph computing ``symbol``, with MXNet 1.9.1's nodes, labels, colours and
    edges (edges point from a layer back to its inputs, labelled with shapes and dtypes when given).

    Needs the graphviz Python package (``pip install graphviz``) and, to render, the Graphviz ``dot`` program.
    """
    try:
        from graphviz import Digraph  # reason: optional dependency; import mxcompat must not load it
    except ImportError:
        raise ImportError('mx.viz.plot_network needs the graphviz Python package: pip install graphviz '
                          '(and the Graphviz programs, e.g. apt-get install graphviz, to render)') from None
    graph = _json_nodes(symbol, 'symbol must be a Symbol')
    shapes = _internal_table(symbol, shape, 'shape') if shape is not None else None
    dtypes = _internal_table(symbol, dtype, 'type') if dtype is not None else None
    nodes = graph['nodes']
    _warn_repeated_names(nodes)
    base_attrs = dict(_NODE_DEFAULTS)
    base_attrs.update(node_attrs or {})
    dot = Digraph(name=title, format=save_format)
    hidden = set()
    for node in nodes:
        attrs = dict(base_attrs)
        if node['op'] == 'null':
            if node['name'].endswith(_WEIGHT_SUFFIXES):
                # not drawn as a node; unless hidden, its edges still make graphviz draw a plain ellipse
                if hide_weights:
                    hidden.add(node['name'])
                continue
            label, colour = node['name'], 0
            attrs['shape'] = 'oval'
        else:
            label, colour = _node_label(node)
        attrs['fillcolor'] = _COLOURS[colour]
        dot.node(name=node['name'], label=label, **attrs)
    for node in nodes:
        if node['op'] == 'null':
            continue
        inputs = node['inputs'][:1] if node['op'] == '_contrib_BilinearResize2D' else node['inputs']
        for src_id, _, _ in inputs:
            src = nodes[src_id]
            if src['name'] in hidden:
                continue
            label = ''
            if shapes is not None:
                label = _x(shapes[_edge_key(src)][1:])
            if dtypes is not None:
                label += '(%s)' % dtypes[_edge_key(src)].__name__
            dot.edge(tail_name=node['name'], head_name=src['name'], dir='back', arrowtail='open', label=label)
    return dot
