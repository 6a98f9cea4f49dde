"""The matrix-factorization network of MXNet's recommender example, drawn with mx.viz and summarised.

Prints the graph plot_network builds in a normalised form (sorted node and edge statements, quotes dropped) so the
output does not depend on the graphviz package's version, then renders it to SVG with Graphviz's `dot`.
"""
import os
import tempfile

import mxnet as mx

MAX_USER, MAX_ITEM, K, BATCH = 943, 1682, 64, 32


def plain_net(k):
    user = mx.sym.Variable('user')
    item = mx.sym.Variable('item')
    score = mx.sym.Variable('score')
    # user and item feature lookups
    user = mx.sym.Embedding(data=user, input_dim=MAX_USER, output_dim=k)
    item = mx.sym.Embedding(data=item, input_dim=MAX_ITEM, output_dim=k)
    # the predicted score is the inner product: elementwise product, then a sum over the factors
    pred = user * item
    pred = mx.sym.sum_axis(data=pred, axis=1)
    pred = mx.sym.Flatten(data=pred)
    return mx.sym.LinearRegressionOutput(data=pred, label=score)


def normalised(dot):
    """Sorted node lines, then sorted edge lines, of a graphviz Digraph, without quotes or layout whitespace."""
    lines = [line.strip().replace('\n', '\\n').replace('"', '') for line in dot.body]
    nodes = sorted(line for line in lines if ' -> ' not in line)
    edges = sorted(line for line in lines if ' -> ' in line)
    return nodes, edges


net = plain_net(K)
print('arguments:', net.list_arguments())
print('outputs:', net.list_outputs())
shapes = {'user': (BATCH,), 'item': (BATCH,), 'score': (BATCH, 1)}
arg_shapes, out_shapes, _ = net.infer_shape(**shapes)
print('argument shapes:', arg_shapes)
print('output shapes:', out_shapes)

for title, kwargs in [('plain', {}), ('with shapes', {'shape': shapes}),
                      ('with weights', {'shape': shapes, 'hide_weights': False}),
                      ('oval nodes', {'node_attrs': {'shape': 'oval', 'fixedsize': 'false'}, 'title': 'mf'})]:
    dot = mx.viz.plot_network(net, **kwargs)
    nodes, edges = normalised(dot)
    print('== plot_network %s: graph %s, format %s, %d nodes, %d edges' % (title, dot.name, dot.format, len(nodes),
                                                                          len(edges)))
    for line in nodes + edges:
        print(line)

# a 1-D input has no dimension after the batch axis, which print_summary cannot show: summarise without shapes
mx.viz.print_summary(net)

dot = mx.viz.plot_network(net, shape=shapes, save_format='svg')
with tempfile.TemporaryDirectory() as tmp:
    path = dot.render(filename='matrix_fact', directory=tmp)
    svg = open(path).read()
print('rendered svg:', os.path.basename(path), svg.count('<g id="node'), 'nodes,', svg.count('<g id="edge'), 'edges')
for label in ['user', 'item', 'score', 'embedding0', 'embedding1', '_mul0', 'sum_axis0', 'flatten0']:
    print(label, '>%s</text>' % label in svg)
