"""mx.gluon.contrib.data.text (WikiText2, WikiText103) against facts recorded from MXNet 1.9.1 on small token files
(tests/fixtures/text), and reading only the published files, else a clear offline error."""
import hashlib
import json
import zipfile

import numpy as np
import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from tests.contrib.text_golden import FACTS, same, scenarios as sc

T = mx.gluon.contrib.data.text


@pytest.fixture(scope='module')
def got(tmp_path_factory):
    return json.loads(json.dumps(sc.run_wikitext(mx, str(tmp_path_factory.mktemp('wikitext')))))


@pytest.mark.parametrize('key', sorted(FACTS['wikitext']))
def test_against_mxnet(got, key):
    assert sorted(got) == sorted(FACTS['wikitext'])
    same(got[key], FACTS['wikitext'][key], key)


def _sha1(path):
    return hashlib.sha1(path.read_bytes()).hexdigest()


@pytest.fixture
def no_network(monkeypatch):
    monkeypatch.setenv('MXNET_GLUON_REPO', 'http://127.0.0.1:9/')  # nothing listens there: fetching fails at once


def test_published_file_is_read(monkeypatch, tmp_path):
    f = tmp_path / 'wiki.valid.tokens'
    f.write_text(' a b \n\n b c\n')
    monkeypatch.setitem(T.WikiText2._data_file, 'validation', ('wiki.valid.tokens', _sha1(f)))
    ds = T.WikiText2(root=str(tmp_path), segment='validation', seq_len=2)
    assert ds.vocabulary.idx_to_token == ['<unk>', '<eos>', 'b', 'a', 'c']
    # a b <eos> b c <eos>: data drops the last index, label the first, both cut to whole samples of 2
    assert len(ds) == 2 and ds[0][0].dtype == np.int32
    assert ds._data.asnumpy().tolist() == [[3, 2], [1, 2]] and ds._label.asnumpy().tolist() == [[2, 1], [2, 4]]


def test_published_archive_is_unpacked(monkeypatch, tmp_path):
    src = tmp_path / 'src'
    src.mkdir()
    (src / 'wiki.test.tokens').write_text('x y z\n')
    archive = tmp_path / 'wikitext-103-v1.zip'
    with zipfile.ZipFile(archive, 'w') as zf:
        zf.write(src / 'wiki.test.tokens', 'wikitext-103/wiki.test.tokens')
    monkeypatch.setattr(T.WikiText103, '_archive_file', ('wikitext-103-v1.zip', _sha1(archive)))
    monkeypatch.setitem(T.WikiText103._data_file, 'test', ('wiki.test.tokens', _sha1(src / 'wiki.test.tokens')))
    ds = T.WikiText103(root=str(tmp_path), segment='test', seq_len=1)
    assert (tmp_path / 'wiki.test.tokens').is_file()
    assert ds._label.asnumpy().ravel().tolist() == [3, 4, 1]


@pytest.mark.parametrize('present', [False, True])
def test_offline_error_names_file_and_url(no_network, tmp_path, present):
    root = tmp_path / 'wt2'
    if present:  # not the published file: MXNet would fetch the archive and overwrite it
        root.mkdir()
        (root / 'wiki.train.tokens').write_text('a b\n')
    with pytest.raises(MXNetError) as info:
        T.WikiText2(root=str(root))
    msg = str(info.value)
    for part in ('wiki.train.tokens', '863f29c46ef9d167fff4940ec821195882fe29d1', 'wikitext-2-v1.zip', str(root),
                 'http://127.0.0.1:9/gluon/dataset/wikitext-2/wikitext-2-v1.zip',
                 'not the published file' if present else 'absent'):
        assert part in msg


def test_bad_segment():
    with pytest.raises(KeyError, match='validation'):
        T.WikiText2(root='/nonexistent', segment='valid')
    with pytest.raises(MXNetError):
        T.WikiText103(root='/nonexistent', segment='dev')
