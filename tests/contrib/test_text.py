"""mx.contrib.text (utils, vocab, embedding) against facts recorded from MXNet 1.9.1 (tests/fixtures/text), and
what mxcompat adds: the offline errors for pretrained files."""
import inspect
import json
import os
import warnings

import pytest

import mxcompat as mx
from mxcompat.base import MXNetError
from tests.contrib.text_golden import FACTS, same, scenarios as sc

text = mx.contrib.text
emb = text.embedding
_RUNS = {'vocab': lambda d: sc.run_vocab(mx), 'embedding': lambda d: sc.run_embedding(mx, d),
         'pretrained': lambda d: sc.run_pretrained(mx, d)}


@pytest.fixture(scope='module')
def got(tmp_path_factory):
    cache = {}

    def run(group):
        if group not in cache:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')  # the scenarios record the warnings they check
                cache[group] = json.loads(json.dumps(_RUNS[group](str(tmp_path_factory.mktemp(group)))))
        return cache[group]
    return run


@pytest.mark.parametrize('group, key', [(g, k) for g in _RUNS for k in sorted(FACTS[g])])
def test_against_mxnet(got, group, key):
    facts = got(group)
    assert sorted(facts) == sorted(FACTS[group])
    same(facts[key], FACTS[group][key], key)


def test_namespaces():
    assert mx.contrib.text.vocab.Vocabulary is text.vocab.Vocabulary
    import mxcompat.contrib.text.embedding as m
    assert m.GloVe is emb.GloVe and issubclass(emb.CompositeEmbedding, text.vocab.Vocabulary)
    assert len(emb.get_pretrained_file_names('fasttext')) == 327 and len(emb.get_pretrained_file_names('glove')) == 10


def test_error_kinds_are_mxnet_errors(tmp_path):
    with pytest.raises(MXNetError, match='min_freq'):
        text.vocab.Vocabulary(min_freq=0)
    with pytest.raises(KeyError, match='Cannot find `embedding_name` GloVe'):
        emb.get_pretrained_file_names('GloVe')
    v = text.vocab.Vocabulary()
    with pytest.raises(ValueError, match='Token index 3'):
        v.to_tokens(3)
    p = tmp_path / 'e.txt'
    p.write_text('a 1 2\nb 3 x\n')
    with pytest.raises(ValueError, match=r'line 2 .*e\.txt.*\'x\''):
        emb.CustomEmbedding(str(p))


@pytest.fixture
def no_network(monkeypatch):
    # nothing listens on port 9 of this machine: a fetch fails at once, without leaving it
    monkeypatch.setenv('MXNET_GLUON_REPO', 'http://127.0.0.1:9/')


@pytest.mark.parametrize('cls, name, archive', [(emb.GloVe, 'glove.6B.50d.txt', 'glove.6B.zip'),
                                                (emb.FastText, 'wiki.simple.vec', 'wiki.simple.zip')])
def test_missing_pretrained_file_names_file_and_url(no_network, tmp_path, cls, name, archive):
    with pytest.raises(MXNetError) as info:
        cls(name, embedding_root=str(tmp_path))
    msg = str(info.value)
    folder = str(tmp_path / cls.__name__.lower())
    url = 'http://127.0.0.1:9/gluon/embeddings/%s/%s' % (cls.__name__.lower(), archive)
    for part in (name, cls.pretrained_file_name_sha1[name], archive, folder, url, 'absent'):
        assert part in msg


def test_unpublished_pretrained_file_is_not_used(no_network, tmp_path):
    """A file whose SHA-1 is not MXNet's would be replaced by MXNet's download: here it raises, saying so."""
    (tmp_path / 'glove').mkdir()
    (tmp_path / 'glove' / 'glove.6B.50d.txt').write_text('a 1 2\n')
    with pytest.raises(MXNetError, match='not the published one'):
        emb.create('glove', pretrained_file_name='glove.6B.50d.txt', embedding_root=str(tmp_path))


def test_default_root_is_mxnet_home_embeddings():
    """MXNet's default: $MXNET_HOME/embeddings (~/.mxnet/embeddings), fixed when the module is imported."""
    want = os.path.join(mx.base.data_dir(), 'embeddings')
    for cls in (emb.GloVe, emb.FastText):
        assert inspect.signature(cls).parameters['embedding_root'].default == want
