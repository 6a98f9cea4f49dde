"""mx.gluon.utils against MXNet 1.9.1 (goldens: utils in tests/fixtures/gluon_data/gluon_data.json). ``download``
is exercised with a mocked ``requests.get``: these tests never touch the network."""
import hashlib
import io
import os
import warnings
from unittest import mock

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError, MXNetTypeError, MXNetValueError
from mxcompat.gluon import utils

from .data.golden import GOLD, same

G = GOLD['utils']


def test_split_data():
    x = mx.nd.arange(24, ctx=mx.cpu(0)).reshape(6, 4)
    same(utils.split_data(x, 3), G['split_even'])
    same(utils.split_data(x[:5], 3, even_split=False), G['split_uneven'])
    same(utils.split_data(x, 3, batch_axis=1, even_split=False), G['split_axis1'])
    same(utils.split_data(x[:2], 3, even_split=False), G['split_more'])
    with pytest.raises(MXNetValueError, match=r'data with shape \(5, 4\) cannot be evenly split into 3 slices '
                                              r'along axis 0'):
        utils.split_data(x[:5], 3)
    assert G['split_err'] == 'ValueError'


def test_split_and_load():
    x = mx.nd.arange(24, ctx=mx.cpu(0)).reshape(6, 4)
    same(utils.split_and_load(np.arange(6.0), [mx.cpu(0), mx.cpu(1)]), G['load_np'])
    same(utils.split_and_load([[1, 2], [3, 4], [5, 6]], [mx.cpu(0), mx.cpu(1)], even_split=False), G['load_list'])
    same(utils.split_and_load(x, [mx.cpu(3)]), G['load_one'])
    same(utils.split_and_load(x, [mx.cpu(0), mx.cpu(1)], batch_axis=1), G['load_axis1'])


def test_split_and_load_keeps_gradients_flowing():
    x = mx.nd.arange(8, ctx=mx.cpu(0)).reshape(4, 2)
    x.attach_grad()
    with mx.autograd.record():
        parts = utils.split_and_load(x, [mx.cpu(0), mx.cpu(1)])
        y = (parts[0] * 2).sum() + (parts[1] * 3).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[2, 2], [2, 2], [3, 3], [3, 3]])


@pytest.mark.parametrize('case', range(3))
def test_clip_global_norm(case):
    ref = G['clip'][case]
    arrs = [mx.nd.array(np.array(b), ctx=mx.cpu(0)) for b in ref['before']]
    norm = utils.clip_global_norm(arrs, ref['max_norm'], check_isfinite=ref['check'])
    assert type(norm).__name__ == ref['norm_type']
    if ref['check']:
        assert isinstance(norm, np.float32) and norm == pytest.approx(ref['norm'], rel=1e-6)
    else:
        same(norm, ref['norm'])
    for a, after in zip(arrs, ref['after']):
        np.testing.assert_allclose(a.asnumpy(), np.array(after), rtol=1e-6, atol=1e-7)


def test_clip_global_norm_non_finite():
    ref = G['clip_inf']
    arrs = [mx.nd.array([np.inf, 1.0]), mx.nd.array([2.0])]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        norm = utils.clip_global_norm(arrs, 1.0)
    assert str(norm) == ref['norm'] and [str(a.asnumpy().tolist()) for a in arrs] == ref['after']
    assert [str(i.message) for i in w] == [m for m in ref['warnings'] if 'nan or inf' in m]


def test_clip_global_norm_errors():
    with pytest.raises(AssertionError):
        utils.clip_global_norm([], 1.0)
    assert G['clip_empty'] == 'AssertionError'
    with pytest.raises(MXNetTypeError, match='float32 and float64'):
        utils.clip_global_norm([mx.nd.ones(2), mx.nd.ones(2, dtype='float64')], 1.0)
    a = [mx.nd.ones(4, dtype='float64') * 2]  # MXNet fails on float64 (it concatenates with a float32 one)
    assert utils.clip_global_norm(a, 1.0) == pytest.approx(4.0)
    np.testing.assert_allclose(a[0].asnumpy(), 0.5)


def test_shape_is_known():
    assert [utils.shape_is_known(s) for s in (None, (), (2, 0), (2, 3), (0,))] == G['shape_is_known']
    with pytest.raises(AssertionError, match='cannot be less than 0, while received -1'):
        utils.shape_is_known((2, -1))


def test_private_helpers_mxnet_code_uses():
    assert [utils._get_repo_url(), utils._get_repo_file_url('gluon/dataset/mnist', 'x.gz')] == G['repo']
    assert utils._brief_print_list(range(10)) == G['brief']
    with mock.patch.dict(os.environ, {'MXNET_GLUON_REPO': 'http://mirror.local'}):
        assert utils._get_repo_file_url('a', 'b') == 'http://mirror.local/a/b'
    assert utils.HookHandle is mx.gluon.block.HookHandle


def _file(tmp_path, content=b'mxcompat' * 1000):
    p = tmp_path / 'f.bin'
    p.write_bytes(content)
    return str(p), hashlib.sha1(content).hexdigest()


def test_check_sha1(tmp_path):
    path, sha = _file(tmp_path)
    assert [sha, utils.check_sha1(path, sha), utils.check_sha1(path, '0' * 40)] == G['sha1']


class _Response:
    def __init__(self, status, content):
        self.status_code = status
        self._content = content

    def iter_content(self, chunk_size):
        buf = io.BytesIO(self._content)
        return iter(lambda: buf.read(chunk_size), b'')


def test_download_uses_an_existing_file_without_the_network(tmp_path):
    path, sha = _file(tmp_path)
    with mock.patch('requests.get', side_effect=AssertionError('no network')):
        got = utils.download('http://nowhere.invalid/f.bin', path=str(tmp_path), sha1_hash=sha)
        assert os.path.relpath(got, tmp_path) == G['download_existing']
        assert utils.download('http://nowhere.invalid/f.bin', path=path) == path


def test_download_fetches_and_replaces(tmp_path):
    content = b'MOCK CONTENT' * 100
    sha = hashlib.sha1(content).hexdigest()
    stale, _ = _file(tmp_path, b'old')
    with mock.patch('requests.get', return_value=_Response(200, content)) as get:
        assert utils.download('http://x.invalid/f.bin', path=str(tmp_path), sha1_hash=sha) == stale
    assert get.call_count == 1 and open(stale, 'rb').read() == content
    assert sorted(os.listdir(tmp_path)) == ['f.bin']  # no temporary file left
    with mock.patch('requests.get', return_value=_Response(200, b'newer')):
        utils.download('http://x.invalid/f.bin', path=stale, overwrite=True)
    assert open(stale, 'rb').read() == b'newer'


def test_download_fails_with_a_clear_error(tmp_path):
    import requests
    target = str(tmp_path / 'sub' / 'data.gz')
    with mock.patch('requests.get', side_effect=requests.exceptions.ConnectionError('offline')) as get:
        with pytest.raises(MXNetError, match=r'could not fetch http://x.invalid/data.gz .*offline.*put the file at '
                                             r'.*sub/data.gz \(sha1 abc\)'):
            utils.download('http://x.invalid/data.gz', path=target, sha1_hash='abc', retries=2)
    assert get.call_count == 2
    with mock.patch('requests.get', return_value=_Response(404, b'')):
        with pytest.raises(MXNetError, match='Failed downloading url'):
            utils.download('http://x.invalid/data.gz', path=target, retries=0)
    content = b'abc'
    with mock.patch('requests.get', return_value=_Response(200, content)):
        with pytest.raises(MXNetError, match='content hash does not match'):
            utils.download('http://x.invalid/data.gz', path=target, sha1_hash='0' * 40, retries=1)


def test_download_argument_checks(tmp_path):
    with pytest.raises(AssertionError, match="Can't construct file-name"):
        utils.download('http://x.invalid/')
    with pytest.raises(AssertionError, match='retries should be at least 0'):
        utils.download('http://x.invalid/a', path=str(tmp_path), retries=-1)
    path, _ = _file(tmp_path)
    with pytest.warns(UserWarning, match='Unverified HTTPS request'):
        utils.download('https://x.invalid/f.bin', path=path, verify_ssl=False)


def test_replace_file(tmp_path):
    src, dst = tmp_path / 'a', tmp_path / 'b'
    src.write_text('new')
    dst.write_text('old')
    utils.replace_file(str(src), str(dst))
    assert dst.read_text() == 'new' and not src.exists()
    src.write_text('x')
    with pytest.raises(OSError, match='Please retry the download'):
        utils.replace_file(str(src), str(tmp_path / 'missing_dir' / 'b'))
    assert not src.exists()
