"""Attribute values that are not strings, at each entry point, as MXNet 1.9.1 treats them (values below printed by
it; the ``oracle`` test runs SCRIPT in both). An operator function's ``attr=`` entries join the operator's own
arguments, over them, and any value is stored as ``str(value)`` (GluonCV's SSD feature expander passes
``attr={'__init__': mx.init.Xavier(...)}``); ``var(attr=...)``, ``Symbol._set_attr`` and ``AttrScope`` take strings
only; ``var(init=...)`` stores an initializer's ``dumps()``."""
import json
import re

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from tests.conftest import run_both

XAVIER = mx.init.Xavier(rnd_type='gaussian', factor_type='out', magnitude=2)


def test_op_attr_values_are_stored_as_their_str():
    d = mx.sym.var('data')
    c = mx.sym.Convolution(d, num_filter=4, kernel=(1, 1), name='c', attr={'__init__': XAVIER})
    want = {'num_filter': '4', 'kernel': '(1, 1)', '__init__': str(XAVIER)}
    assert c.attr_dict() == {'c_weight': want, 'c_bias': want, 'c': want}
    e = mx.sym.elemwise_add(d, d, name='e', attr={'a': 1.5, 'b': None, 'c': (1, 2), 'd': [1, 'a'], 'e': {'k': 1},
                                                   'f': np.float32, 'g': np.float32(2.5)})
    assert e.list_attr() == {'a': '1.5', 'b': 'None', 'c': '(1, 2)', 'd': "[1, 'a']", 'e': "{'k': 1}",
                             'f': "<class 'numpy.float32'>", 'g': '2.5'}
    fc = mx.sym.FullyConnected(d, num_hidden=4, name='fc', attr={'lr_mult': 2, 'wd_mult': 0.5, '__x__': 1.5})
    assert fc.attr_dict()['fc_weight'] == {'num_hidden': '4', '__lr_mult__': '2', 'lr_mult': '2',
                                           '__wd_mult__': '0.5', 'wd_mult': '0.5', '__x__': '1.5'}
    assert d.reshape((2,), attr={'__x__': 3}).list_attr() == {'shape': '(2,)', '__x__': '3'}


def test_op_attr_entries_are_operator_arguments_and_win():
    d = mx.sym.var('data')
    assert mx.sym.FullyConnected(d, num_hidden=4, name='fc', attr={'num_hidden': 5}).list_attr() == {'num_hidden': '5'}
    assert mx.sym.FullyConnected(d, num_hidden=4, name='fc', attr={'no_bias': 1}).list_arguments() == ['data',
                                                                                                      'fc_weight']
    assert mx.sym.Concat(d, d, name='c', attr={'dim': 0}).list_attr() == {'num_args': '2', 'dim': '0'}
    assert mx.sym.clip(d, 0, 1, name='c', attr={'a_max': 3}).list_attr() == {'a_min': '0', 'a_max': '3'}
    with mx.AttrScope(num_hidden='7'):
        assert mx.sym.FullyConnected(d, num_hidden=4, name='fc').list_attr() == {'num_hidden': '7'}
    with mx.AttrScope(ctx_group='a'):
        fc = mx.sym.FullyConnected(d, num_hidden=4, name='fc', attr={'__init__': XAVIER, 'lr_mult': 3})
    assert fc.list_attr() == {'num_hidden': '4', '__lr_mult__': '3', 'lr_mult': '3', '__init__': str(XAVIER),
                              '__ctx_group__': 'a', 'ctx_group': 'a'}
    # a key that is no argument of an operator with parameters is refused (MXNet: "Cannot find argument 'foo'")
    for value in ('x', None, 1, [1]):
        with pytest.raises(MXNetError, match='foo'):
            mx.sym.FullyConnected(d, num_hidden=4, name='fc', attr={'foo': value})


def test_var_attr_takes_strings_only():
    for value in (XAVIER, 1, 2.0, None, (1, 2), b'x'):
        with pytest.raises(ValueError, match='Set Attr only accepts string values'):
            mx.sym.var('x', attr={'foo': value})
        with pytest.raises(ValueError, match='Set Attr only accepts string values'):
            mx.sym.Variable('x', attr={'__init__': value})
    with mx.AttrScope(ctx_group='a'):
        with pytest.raises(ValueError, match='Set Attr only accepts string values'):
            mx.sym.var('x', attr={'g': 2})
    attrs = mx.sym.var('x', attr={'a': np.str_('x'), 'lr_mult': '2'}).list_attr()
    assert attrs == {'a': 'x', '__lr_mult__': '2', 'lr_mult': '2'} and type(attrs['a']) is str
    assert mx.sym.var('x', __foo__=3).list_attr() == {'__foo__': '3'}


def test_var_init_stores_the_initializers_dumps():
    assert mx.sym.var('x', init=XAVIER).list_attr() == {
        '__init__': '["xavier", {"rnd_type": "gaussian", "factor_type": "out", "magnitude": 2}]'}
    assert mx.sym.var('x', init='zeros').list_attr() == {'__init__': 'zeros'}
    with pytest.raises(AttributeError, match='dumps'):
        mx.sym.var('x', init=3)


def test_attr_scope_and_set_attr_take_strings_only():
    for value in (1, XAVIER):
        with pytest.raises(ValueError, match='Attributes need to be string'):
            mx.AttrScope(foo=value)
        s = mx.sym.var('x')
        with pytest.raises(ValueError, match='Set Attr only accepts string values'):
            s._set_attr(foo=value)


def test_symbol_with_an_initializer_object_attr_binds_saves_and_loads():
    c = mx.sym.Convolution(mx.sym.var('data'), num_filter=4, kernel=(1, 1), name='c', attr={'__init__': XAVIER})
    ex = c.simple_bind(mx.cpu(), data=(1, 2, 3, 3))
    assert ex.forward()[0].shape == (1, 4, 3, 3)
    assert mx.sym.load_json(c.tojson()).attr_dict() == c.attr_dict()


def _module_weights(init_attr):
    c = mx.sym.Convolution(mx.sym.var('data'), num_filter=4, kernel=(1, 1), name='c', attr={'__init__': init_attr})
    m = mx.mod.Module(c, data_names=['data'], label_names=None)
    m.bind([('data', (1, 2, 3, 3))])
    m.init_params(mx.init.Uniform())
    return m.get_params()[0]['c_weight'].asnumpy().ravel().tolist()[:3]


def test_module_init_reads_an_init_attr_only_when_it_is_an_initializers_dumps():
    assert _module_weights(mx.init.Constant(2).dumps()) == [2.0, 2.0, 2.0]
    with pytest.raises(AssertionError, match='is not registered'):  # the object's str() names no initializer
        _module_weights(mx.init.Constant(2))


SCRIPT = r'''
import json
import numpy as np
import mxnet as mx
X = mx.init.Xavier(rnd_type='gaussian', factor_type='out', magnitude=2)
d = mx.sym.var('data')
def run(label, f):
    try:
        out = f()
    except Exception:
        out = 'error'
    print(label, json.dumps(out, sort_keys=True))
run('conv', lambda: mx.sym.Convolution(d, num_filter=4, kernel=(1, 1), name='c', attr={'__init__': X}).attr_dict())
run('elemwise', lambda: mx.sym.elemwise_add(d, d, name='e', attr={'a': 1.5, 'b': None, 'c': (1, 2), 'd': [1, 'a'],
                                                                  'e': {'k': 1}, 'g': np.float32(2.5)}).list_attr())
run('fc', lambda: mx.sym.FullyConnected(d, num_hidden=4, name='fc', attr={'lr_mult': 2, '__x__': 1.5}).attr_dict())
run('override', lambda: mx.sym.FullyConnected(d, num_hidden=4, name='fc', attr={'num_hidden': 5}).list_attr())
run('no_bias', lambda: mx.sym.FullyConnected(d, num_hidden=4, name='fc', attr={'no_bias': 1}).list_arguments())
run('unknown', lambda: mx.sym.FullyConnected(d, num_hidden=4, name='fc', attr={'foo': 1}).list_attr())
run('var attr int', lambda: mx.sym.var('x', attr={'foo': 1}).list_attr())
run('var attr init', lambda: mx.sym.var('x', attr={'__init__': X}).list_attr())
run('var init', lambda: mx.sym.var('x', init=X).list_attr())
run('var dunder', lambda: mx.sym.var('x', __foo__=3).list_attr())
run('scope', lambda: mx.AttrScope(foo=1) and 'made')
run('set_attr', lambda: d._set_attr(foo=1))
'''


@pytest.mark.oracle
def test_script_prints_what_mxnet_prints(tmp_path):
    ours, theirs = run_both(SCRIPT, tmp_path, 'attr_values.py')

    def same_objects(text):  # an initializer's str() names its module and address
        return re.sub(r'<(?:mxnet|mxcompat)\.initializer\.(\w+) object at 0x[0-9a-f]+>', r'<\1>', text)
    assert same_objects(ours.stdout).splitlines() == same_objects(theirs.stdout).splitlines()
    assert json.loads(ours.stdout.splitlines()[0].split(' ', 1)[1])  # (the comparison saw real output)
