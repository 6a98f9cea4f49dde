"""A small convolutional network for 28x28 digits, summarised with mx.viz.print_summary."""
import mxnet as mx


def conv_block(data, name, num_filter, stride=(1, 1)):
    conv = mx.sym.Convolution(data=data, kernel=(3, 3), stride=stride, pad=(1, 1), num_filter=num_filter,
                              name=name + '_conv')
    bn = mx.sym.BatchNorm(data=conv, fix_gamma=False, name=name + '_bn')
    return mx.sym.Activation(data=bn, act_type='relu', name=name + '_relu')


data = mx.sym.Variable('data')
net = conv_block(data, 'block1', 16)
net = mx.sym.Pooling(data=net, kernel=(2, 2), stride=(2, 2), pool_type='max', name='pool1')
net = conv_block(net, 'block2', 32)
net = mx.sym.Pooling(data=net, kernel=(2, 2), stride=(2, 2), pool_type='avg', name='pool2')
net = mx.sym.Flatten(data=net, name='flatten')
net = mx.sym.FullyConnected(data=net, num_hidden=64, name='fc1')
net = mx.sym.Activation(data=net, act_type='tanh', name='fc1_tanh')
net = mx.sym.FullyConnected(data=net, num_hidden=10, name='fc2')
net = mx.sym.SoftmaxOutput(data=net, name='softmax')

print('arguments:', net.list_arguments())
print('auxiliary states:', net.list_auxiliary_states())
mx.viz.print_summary(net, shape={'data': (1, 1, 28, 28)})
mx.viz.print_summary(net, shape={'data': (8, 1, 28, 28)}, line_length=100, positions=[.4, .65, .8, 1.])
mx.viz.print_summary(net)

# the parameter total print_summary reports, recomputed from the inferred argument and auxiliary shapes
arg_shapes, _, aux_shapes = net.infer_shape(data=(1, 1, 28, 28))
weights = [s for n, s in zip(net.list_arguments(), arg_shapes) if n not in ('data', 'softmax_label')]
count = sum(int(mx.nd.zeros(s).size) for s in weights)
print('parameters (weights, biases, gamma, beta):', count)
print('auxiliary values:', sum(int(mx.nd.zeros(s).size) for s in aux_shapes))
