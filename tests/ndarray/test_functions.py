"""The ``mx.nd`` functions written out in mxcompat/ndarray/_functions.py: in step with the registry (the file is
what tools/gen_nd_functions.py writes now), plain Python (their code lives in that file, so tracebacks and
debuggers show it), and used for every operator with fixed inputs."""
import importlib.util
import os

import mxcompat as mx
from mxcompat.ndarray import _functions, register
from mxcompat.operator import registry

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _generator():
    spec = importlib.util.spec_from_file_location('gen_nd_functions', os.path.join(ROOT, 'tools',
                                                                                  'gen_nd_functions.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_committed_file_is_what_the_generator_writes():
    gen = _generator()
    with open(_functions.__file__, encoding='utf-8') as f:
        committed = f.read()
    assert committed == gen.render(), 'mxcompat/ndarray/_functions.py is stale: run python tools/gen_nd_functions.py'


def test_every_fixed_input_operator_uses_its_written_out_function():
    names = _generator().generated_names(registry.REGISTRY, register.POPULATED)
    assert len(names) > 400
    for reg_name in names:
        fn = register.make_function(registry.REGISTRY[reg_name], reg_name)
        assert fn is register._GENERATED[reg_name].fast, reg_name
        assert fn.__code__.co_filename == _functions.__file__, reg_name
        assert fn._op is registry.REGISTRY[reg_name] and fn.__name__ == reg_name
    assert mx.nd.relu is register._GENERATED['relu'].fast and mx.nd.Convolution.__code__.co_name == 'Convolution'


def test_signatures_are_mxnets_and_calls_take_both_paths():
    import inspect
    params = list(inspect.signature(mx.nd.sum).parameters)
    assert params == ['data', 'axis', 'keepdims', 'exclude', 'out', 'name', 'kwargs']
    a = mx.nd.array([[1, 2], [3, 4]])
    assert mx.nd.sum(a, axis=1).asnumpy().tolist() == [3, 7]          # fast path
    out = mx.nd.zeros((2,))
    assert mx.nd.sum(a, axis=0, out=out) is out and out.asnumpy().tolist() == [4, 6]  # general path (out=)
    assert mx.nd.sum(a, 1, True).shape == (2, 1)                       # attributes by position


def test_a_changed_operator_falls_back_to_its_general_function():
    relu, sum_ = registry.REGISTRY['relu'], registry.REGISTRY['sum']
    assert register._fits(mx.nd.relu, relu) and not register._fits(mx.nd.relu, sum_)
    fn = register.make_function(relu, 'sum')  # 'sum''s written-out function does not take relu's arguments
    assert fn.__code__.co_filename == register.__file__
    assert fn(mx.nd.array([-1, 2])).asnumpy().tolist() == [0, 2]
