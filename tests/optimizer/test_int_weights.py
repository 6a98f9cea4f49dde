"""Integer weights in the optimizers whose MXNet 1.9.1 update is NDArray arithmetic or meets float32 states: the
update runs with MXNet's integer arithmetic (Adamax, DCASGD) or raises where MXNet raises (AdaGrad, AdaDelta,
RMSProp, Ftrl, SGLD), as recorded in tests/fixtures/optimizer/int_weights.json (int_weights_cases.py)."""
import json
import os
import sys

import pytest

import mxcompat as mx
from mxcompat.base import MXNetError

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'optimizer')
sys.path.insert(0, HERE)
from int_weights_cases import CASES, DTYPES, LRS, key, run_case  # noqa: E402

GOLDEN = json.load(open(os.path.join(HERE, 'int_weights.json')))


@pytest.mark.parametrize('lr', LRS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('name, kwargs', CASES)
def test_integer_weight_update(name, kwargs, dtype, lr):
    got = json.loads(json.dumps(run_case(mx, name, kwargs, dtype, lr)))
    want = GOLDEN[key(name, kwargs, dtype, lr)]
    if want[0] == 'error':  # (MXNet raises its base class; mxcompat's subclass names the kind of error too)
        assert got[0] == 'error' and issubclass(getattr(mx.base, got[1]), MXNetError), got
        assert got[2] == want[2]
    else:
        assert got == want


def test_nadam_refuses_integer_weights():
    # (MXNet 1.9.1's process dies of SIGFPE here)
    opt = mx.optimizer.create('nadam')
    w = mx.nd.array([1, 2, 3], dtype='int32')
    with pytest.raises(MXNetError, match='Nadam.update: integer weights'):
        opt.update(0, w, mx.nd.array([1, 1, 1], dtype='int32'), opt.create_state(0, w))
    assert w.asnumpy().tolist() == [1, 2, 3]
