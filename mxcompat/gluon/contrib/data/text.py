"""``mx.gluon.contrib.data.text``: the WikiText-2 and WikiText-103 language-model datasets.

Differs from MXNet: the segment's ``wiki.{train,valid,test}.tokens`` is read from ``root`` when its SHA-1 is the
published one (as MXNet accepts it); otherwise MXNet's archive is fetched (``$MXNET_GLUON_REPO``) and unpacked there,
and when that fails (e.g. offline) an ``MXNetError`` names the file, its SHA-1, the folder and the URL. An unknown
``segment`` raises ``MXNetKeyError`` (a ``KeyError``, as in MXNet) naming the valid ones.
"""
import os
import shutil
import zipfile

import numpy as np

from ....base import MXNetError, MXNetKeyError, data_dir
from .... import ndarray as nd
from ....contrib import text
from ...data.dataset import _DownloadedDataset
from ...utils import _get_repo_file_url, check_sha1, download

__all__ = ['WikiText2', 'WikiText103']

EOS_TOKEN = '<eos>'


class _LanguageModelDataset(_DownloadedDataset):
    """A token stream: ``vocabulary`` indexes it (built from the segment when not given, with ``<eos>`` reserved) and
    ``frequencies`` counts its tokens."""

    def __init__(self, root, namespace, vocabulary):
        self._given_vocab, self._token_counts, self._repo_namespace = vocabulary, None, namespace
        super().__init__(root, None)

    @property
    def vocabulary(self):
        """The ``Vocabulary`` indexing the tokens."""
        return self._given_vocab

    @property
    def frequencies(self):
        """The ``collections.Counter`` of the segment's tokens (split at ' ' and newlines)."""
        return self._token_counts

    def _index_text(self, content):
        """Count the tokens of ``content`` and, without a given vocabulary, index them (``<eos>`` reserved)."""
        self._token_counts = self._token_counts or text.utils.count_tokens_from_str(content)
        if not self._given_vocab:
            self._given_vocab = text.vocab.Vocabulary(counter=self._token_counts, reserved_tokens=[EOS_TOKEN])


class _WikiText(_LanguageModelDataset):
    """Samples are (data, label) int32 NDArrays of ``seq_len`` token indices, label being data shifted by one token;
    each non-empty line ends with ``<eos>``; the tail that does not fill a sample is dropped."""

    def __init__(self, root, segment, vocab, seq_len):
        self._segment = segment
        self._seq_len = seq_len
        super().__init__(root, self._namespace_name, vocab)

    def _read_batch(self, filename):
        with open(filename, encoding='utf8') as f:
            content = f.read()
        self._index_text(content)
        tokens = []
        for line in content.splitlines():
            words = line.split()
            if words:
                tokens.extend(words)
                tokens.append(EOS_TOKEN)
        indices = self._given_vocab.to_indices(tokens)
        return np.array(indices[:-1], dtype=np.int32), np.array(indices[1:], dtype=np.int32)

    def _segment_file(self):
        if self._segment not in self._data_file:
            raise MXNetKeyError('%s: segment %r is not one of %s.'
                                % (type(self).__name__, self._segment, ', '.join(map(repr, self._data_file))))
        return self._data_file[self._segment]

    def _get_data(self):
        file_name, file_sha1 = self._segment_file()
        path = os.path.join(self._root, file_name)
        if not os.path.exists(path) or not check_sha1(path, file_sha1):
            self._fetch(path, file_name, file_sha1)
        data, label = self._read_batch(path)
        usable = len(data) // self._seq_len * self._seq_len
        self._data = nd.array(data[:usable], dtype=np.int32).reshape((-1, self._seq_len))
        self._label = nd.array(label[:usable], dtype=np.int32).reshape((-1, self._seq_len))

    def _fetch(self, path, file_name, file_sha1):
        """Fetch MXNet's archive into root (unless it is there with its SHA-1) and unpack its files flat there."""
        archive, archive_sha1 = self._archive_file
        url = _get_repo_file_url('gluon/dataset/' + self._repo_namespace, archive)
        try:
            os.makedirs(self._root, exist_ok=True)
            archive_path = download(url, path=self._root, sha1_hash=archive_sha1)
        except (MXNetError, OSError) as err:
            raise MXNetError(
                '%s: %s is %s, and fetching %s failed (%s). To work offline, put %s (SHA-1 %s) or the archive %s '
                '(SHA-1 %s) in the folder %s.' % (type(self).__name__, path, 'not the published file'
                                                  if os.path.exists(path) else 'absent', url, err, file_name,
                                                  file_sha1, archive, archive_sha1, self._root)) from err
        with zipfile.ZipFile(archive_path, 'r') as zf:
            for member in zf.namelist():
                base = os.path.basename(member)
                if base:
                    with zf.open(member) as src, open(os.path.join(self._root, base), 'wb') as dst:
                        shutil.copyfileobj(src, dst)

    def __getitem__(self, idx):
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class WikiText2(_WikiText):
    """WikiText-2 (word level), segment 'train', 'validation' or 'test', read from ``root``
    (default ``$MXNET_HOME/datasets/wikitext-2``)."""

    _namespace_name = 'wikitext-2'
    _archive_file = ('wikitext-2-v1.zip', '3c914d17d80b1459be871a5039ac23e752a53cbe')
    _data_file = {'train': ('wiki.train.tokens', '863f29c46ef9d167fff4940ec821195882fe29d1'),
                  'validation': ('wiki.valid.tokens', '0418625c8b4da6e4b5c7a0b9e78d4ae8f7ee5422'),
                  'test': ('wiki.test.tokens', 'c7b8ce0aa086fb34dab808c5c49224211eb2b172')}

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'wikitext-2'), segment='train', vocab=None,
                 seq_len=35):
        super().__init__(root, segment, vocab, seq_len)


class WikiText103(_WikiText):
    """WikiText-103 (word level), segment 'train', 'validation' or 'test', read from ``root``
    (default ``$MXNET_HOME/datasets/wikitext-103``)."""

    _namespace_name = 'wikitext-103'
    _archive_file = ('wikitext-103-v1.zip', '0aec09a7537b58d4bb65362fee27650eeaba625a')
    _data_file = {'train': ('wiki.train.tokens', 'b7497e2dfe77e72cfef5e3dbc61b7b53712ac211'),
                  'validation': ('wiki.valid.tokens', 'c326ac59dc587676d58c422eb8a03e119582f92b'),
                  'test': ('wiki.test.tokens', '8a5befc548865cec54ed4273cf87dbbad60d1e47')}

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'wikitext-103'), segment='train', vocab=None,
                 seq_len=35):
        super().__init__(root, segment, vocab, seq_len)
