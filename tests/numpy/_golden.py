"""Comparing a case record made under mxcompat with the one MXNet 1.9.1 made (the ``record_all`` files under
tests/fixtures/npx, np_linalg, np_array): the same error kinds, or the same outputs (type, shape, dtype, values)."""
import numpy as onp


def _same(a, b):
    """``a == b`` for records, a NaN equal to a NaN."""
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def check_same(gold, ours):
    """Assert that record ``ours`` equals ``gold`` (NaN values where MXNet's are NaN), or raises at least the
    kinds of error MXNet raised."""
    if 'error' in gold:
        assert 'error' in ours, 'MXNet raised %s, mxcompat gave %s' % (gold['error'], ours)
        assert set(gold['error']) <= set(ours['error']), (gold['error'], ours['error'])
    else:
        assert _same(ours, gold), (gold, ours)


def check_record(gold, ours, values=True, rtol=1e-4, atol=1e-4, keys=('single', 'container')):
    """Assert that record ``ours`` matches ``gold``: where MXNet raised, mxcompat raises an error of at least the
    same kinds; otherwise the same container (``keys``), and per output the same type, shape, dtype and (with
    ``values``) values within the tolerances."""
    if 'error' in gold:
        check_same(gold, ours)
        return
    assert 'error' not in ours, ours
    for k in keys:
        assert ours.get(k) == gold.get(k), k
    assert len(ours['outputs']) == len(gold['outputs'])
    for o, g in zip(ours['outputs'], gold['outputs']):
        assert (o['type'], o['shape'], o['dtype']) == (g['type'], g['shape'], g['dtype'])
        if values:
            onp.testing.assert_allclose(onp.array(o['values'], dtype='float64'), onp.array(g['values']),
                                        rtol=rtol, atol=atol)


def signatures(prefix):
    """``{name: MXNet 1.9.1's parameter list}`` of the functions of namespace ``prefix`` ('np.linalg',
    'np.random', 'npx'), as tests/fixtures/coverage/np_names.json records them."""
    import json
    import os
    from tests._fixtures import FIXTURES
    with open(os.path.join(FIXTURES, 'coverage', 'np_names.json')) as f:
        sigs = json.load(f)['signatures']
    return {k[len(prefix) + 1:]: v for k, v in sigs.items() if k.rsplit('.', 1)[0] == prefix}


def check_signature(namespace, name, params):
    """Assert that ``namespace.name`` takes ``params`` (MXNet's, as strings) in MXNet's order."""
    import inspect
    ours = [str(p) for p in inspect.signature(getattr(namespace, name)).parameters.values()]
    assert ours == params
