"""mx.test_utils environment, stderr and platform helpers."""
import json
import os
import sys

import pytest

import mxcompat as mx
from mxcompat import test_utils as tu
from mxcompat.base import MXNetNotImplementedError

GOLD = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), 'fixtures', 'test_utils',
                               'test_utils.json')))


def test_environment():
    name = 'MXCOMPAT_TEST_ENV_VAR'
    os.environ.pop(name, None)
    with tu.environment(name, 'one'):
        assert os.environ[name] == 'one'
        with tu.environment({name: None, name + '2': 'two'}):
            assert name not in os.environ and os.environ[name + '2'] == 'two'
        assert os.environ[name] == 'one' and name + '2' not in os.environ
    assert name not in os.environ
    with pytest.raises(KeyError):
        with tu.environment(name, 'x'):
            raise KeyError('boom')
    assert name not in os.environ
    with pytest.raises(AssertionError, match=GOLD['errors']['environment_bad'][1]):
        tu.environment('A', 'b', 'c').__enter__()


def test_discard_stderr(capfd):
    with tu.discard_stderr():
        os.write(sys.stderr.fileno(), b'hidden at the descriptor\n')
        print('hidden', file=sys.stderr, flush=True)
    print('visible', file=sys.stderr, flush=True)
    err = capfd.readouterr().err
    assert 'visible' in err and 'hidden' not in err


def test_platform_helpers():
    assert list(tu.list_gpus()) == list(range(mx.num_gpus()))
    assert isinstance(tu.list_gpus(), range)
    assert tu.has_tvm_ops() is False and tu.is_op_runnable() is True
    with tu.environment('CD_JOB', '1'):
        assert tu.is_cd_run()
    with tu.environment('CD_JOB', None):
        assert not tu.is_cd_run()
    assert tu.is_aarch64_run() == (os.uname().machine == 'aarch64')


def test_get_im2rec_path(tmp_path):
    with tu.environment('MXNET_HOME', str(tmp_path)):
        with pytest.raises(MXNetNotImplementedError, match='im2rec'):
            tu.get_im2rec_path()
        (tmp_path / 'tools').mkdir()
        (tmp_path / 'tools' / 'im2rec.py').write_text('')
        assert tu.get_im2rec_path() == str(tmp_path / 'tools' / 'im2rec.py')
