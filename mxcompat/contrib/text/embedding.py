"""``mx.contrib.text.embedding``: token embeddings (``GloVe``, ``FastText``, ``CustomEmbedding``,
``CompositeEmbedding``), their registry (``register``, ``create``, ``get_pretrained_file_names``).

Differs from MXNet:
- Pretrained GloVe/FastText files are looked up as MXNet does, in ``<embedding_root>/<glove|fasttext>/`` (default
  root ``$MXNET_HOME/embeddings``, i.e. ``~/.mxnet/embeddings``): a file with MXNet's published SHA-1 is used, else
  MXNet's archive for it is fetched (``$MXNET_GLUON_REPO``) and unpacked there. When that fails (e.g. offline) an
  ``MXNetError`` names the file, its SHA-1, the folder and the URL, instead of the network error.
- Failed checks raise ``MXNetAssertionError`` (an ``AssertionError``); other bad input raises ``MXNetValueError``,
  ``MXNetTypeError`` or ``MXNetKeyError`` (``ValueError``/``TypeError``/``KeyError``) where MXNet raises those
  Python errors, with messages naming the line, token or lengths involved.
- ``vec_len`` and ``idx_to_vec`` are None before any vectors are loaded (MXNet raises ``AttributeError``).
- ``is_np_array()`` is always False in mxcompat, so vectors are always ``mx.nd.NDArray``.

Kept from MXNet on purpose: a ``CustomEmbedding``/``GloVe``/``FastText`` built with ``reserved_tokens`` and without
``vocabulary`` indexes the reserved tokens but gives ``idx_to_vec`` no rows for them, so their indices are off by the
number of reserved tokens (lookups past the end give the last row, as ``nd.Embedding`` clips).
"""
import logging
import os
import warnings

import numpy as np

from ... import ndarray as nd
from ..._fileio import extract_archive
from ... import registry
from ...base import MXNetError, MXNetKeyError, MXNetTypeError, MXNetValueError, data_dir
from . import _constants as C
from . import vocab
from .vocab import _check
from ...gluon.utils import check_sha1, download

__all__ = ['register', 'create', 'get_pretrained_file_names', 'GloVe', 'FastText', 'CustomEmbedding',
           'CompositeEmbedding']

_NICKNAME = 'token embedding'


def register(embedding_cls):
    """Class decorator: make a ``_TokenEmbedding`` subclass creatable by its lower-cased name."""
    return registry.get_register_func(_TokenEmbedding, _NICKNAME)(embedding_cls)


def create(embedding_name, **kwargs):
    """An instance of the registered embedding ``embedding_name`` (any case), built with ``kwargs``."""
    return registry.get_create_func(_TokenEmbedding, _NICKNAME)(embedding_name, **kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The pretrained file names of the registered embedding ``embedding_name`` (exact lower-case name), or a dict
    of them for every registered embedding when ``embedding_name`` is None."""
    table = registry.get_registry(_TokenEmbedding)
    if embedding_name is None:
        return {name: list(cls.pretrained_file_name_sha1) for name, cls in table.items()}
    if embedding_name not in table:
        raise MXNetKeyError('Cannot find `embedding_name` %s. Use `get_pretrained_file_names(embedding_name=None)'
                            '.keys()` to get all the valid embedding names (%s).'
                            % (embedding_name, ', '.join(table)))
    return list(table[embedding_name].pretrained_file_name_sha1)


class _TokenEmbedding(vocab.Vocabulary):
    """Base of the token embeddings: a ``Vocabulary`` whose every index has a row of ``idx_to_vec``.

    Loaded from a file, the tokens are indexed in file order after the unknown and reserved tokens; row 0 (the
    unknown token) holds the file's vector for ``unknown_token`` if it has one, else ``init_unknown_vec(shape=
    vec_len)``. With a ``vocabulary``, the vocabulary's tokens are indexed instead and each gets its loaded vector
    (the unknown one when it has none)."""

    _vec_len = None
    _idx_to_vec = None

    # ---- pretrained files ------------------------------------------------------------------------------------------
    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return pretrained_file_name

    @classmethod
    def _get_pretrained_file_url(cls, pretrained_file_name):
        # MXNET_GLUON_REPO is used as given (MXNet adds no '/' here, unlike gluon.utils._get_repo_url)
        return '{}gluon/embeddings/{}/{}'.format(os.environ.get('MXNET_GLUON_REPO', C.APACHE_REPO_URL),
                                                  cls.__name__.lower(),
                                                  cls._get_download_file_name(pretrained_file_name))

    @classmethod
    def _get_pretrained_file(cls, embedding_root, pretrained_file_name):
        """Path of ``pretrained_file_name`` under ``<embedding_root>/<class name>``, fetching and unpacking MXNet's
        archive of it when the file is absent or is not the published one."""
        folder = os.path.join(os.path.expanduser(embedding_root), cls.__name__.lower())
        path = os.path.join(folder, pretrained_file_name)
        file_sha1 = cls.pretrained_file_name_sha1[pretrained_file_name]
        if os.path.exists(path) and check_sha1(path, file_sha1):
            return path
        url = cls._get_pretrained_file_url(pretrained_file_name)
        archive = os.path.basename(url)
        archive_path = os.path.join(folder, archive)
        archives = getattr(cls, 'pretrained_archive_name_sha1', None)
        archive_sha1 = file_sha1 if archives is None else archives[archive]
        try:
            download(url, archive_path, sha1_hash=archive_sha1)
        except (MXNetError, OSError) as err:
            kept = ' or the archive %s (SHA-1 %s)' % (archive, archive_sha1) if archive != pretrained_file_name else ''
            raise MXNetError(
                '%s: the pretrained file %s is %s, and fetching %s failed (%s). To work offline, put %s (SHA-1 %s)%s '
                'in the folder %s.' % (cls.__name__, path, 'not the published one' if os.path.exists(path) else
                                       'absent', url, err, pretrained_file_name, file_sha1, kept, folder)) from err
        if os.path.splitext(archive)[1] in ('.zip', '.gz'):
            extract_archive(archive_path, folder)
        return path

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name):
        name = cls.__name__.lower()
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            raise MXNetKeyError('Cannot find pretrained file %s for token embedding %s. Valid pretrained files for '
                                'embedding %s: %s' % (pretrained_file_name, name, name,
                                                      ', '.join(cls.pretrained_file_name_sha1)))

    def _load_pretrained(self, cls, pretrained_file_name, embedding_root, init_unknown_vec, vocabulary):
        """Load ``cls``'s pretrained file (space-separated values), then re-index by ``vocabulary`` if given."""
        self._load_embedding(cls._get_pretrained_file(embedding_root, pretrained_file_name), ' ', init_unknown_vec)
        if vocabulary is not None:
            self._adopt_vocabulary(vocabulary, [self])

    # ---- loading ---------------------------------------------------------------------------------------------------
    def _load_embedding(self, pretrained_file_path, elem_delim, init_unknown_vec, encoding='utf8'):
        """Index the tokens of a text file of lines ``token<elem_delim>v1<elem_delim>v2...`` and set their vectors.

        A token seen again is skipped with a warning; so is a line with a single value (a header such as fastText's
        "<count> <dim>"), wherever it is."""
        path = os.path.expanduser(pretrained_file_path)
        if not os.path.isfile(path):
            raise MXNetValueError('`pretrained_file_path` must be a valid path to the pre-trained token embedding '
                                  'file; %s is not a file.' % path)
        logging.info('Loading pre-trained token embedding vectors from %s', path)
        unknown = self.unknown_token
        seen, rows, unknown_vec, vec_len = set(), [], None, None
        with open(path, 'r', encoding=encoding) as f:
            for line_num, line in enumerate(f, 1):
                fields = line.rstrip().split(elem_delim)
                _check(len(fields) > 1, 'At line %d of the pre-trained token embedding file %s: expected a token and '
                                        'its vector values separated by %r, got %r.'
                       % (line_num, path, elem_delim, line.rstrip()))
                token = fields[0]
                try:
                    values = [float(v) for v in fields[1:]]
                except ValueError as err:
                    raise MXNetValueError('At line %d of the pre-trained token embedding file %s: %s (token %r).'
                                          % (line_num, path, err, token)) from None
                if token == unknown and unknown_vec is None:
                    unknown_vec = values
                    seen.add(token)
                elif token in seen:
                    warnings.warn('At line %d of the pre-trained token embedding file: token %s is seen again; its '
                                  'first vector is kept and this one is skipped.' % (line_num, token))
                elif len(values) == 1:
                    warnings.warn('At line %d of the pre-trained token embedding file: token %s with 1-dimensional '
                                  'vector %s is likely a header and is skipped.' % (line_num, token, values))
                else:
                    if vec_len is None:
                        vec_len = len(values)
                    _check(len(values) == vec_len,
                           'At line %d of the pre-trained token embedding file: token %s has %d values but the '
                           'tokens before it have %d. All the vectors must have one length.'
                           % (line_num, token, len(values), vec_len))
                    rows.append(values)
                    self._token_to_idx[token] = len(self._idx_to_token)
                    self._idx_to_token.append(token)
                    seen.add(token)
        if vec_len is None:  # MXNet fails here with a TypeError too
            raise MXNetTypeError('The pre-trained token embedding file %s holds no token vector (only %s).'
                                 % (path, 'the unknown token' if unknown_vec is not None else 'headers'))
        # row 0 is the unknown token's; the rows of any reserved tokens are missing, as in MXNet
        table = np.zeros((len(rows) + 1, vec_len), dtype=np.float32)
        table[1:] = rows
        self._vec_len = vec_len
        self._idx_to_vec = nd.array(table)
        if unknown_vec is None:
            self._idx_to_vec[C.UNKNOWN_IDX] = init_unknown_vec(shape=vec_len)
        elif len(unknown_vec) != vec_len:
            raise MXNetValueError('The vector of the unknown token %s in %s has %d values, the others have %d.'
                                  % (unknown, path, len(unknown_vec), vec_len))
        else:
            self._idx_to_vec[C.UNKNOWN_IDX] = nd.array(unknown_vec)

    def _adopt_vocabulary(self, vocabulary, sources):
        """Index exactly ``vocabulary``'s tokens, each token's vector being the vectors ``sources`` (a token
        embedding or a list of them, read before the re-indexing) give it, side by side; row 0 holds their
        unknown vectors."""
        _check(isinstance(vocabulary, vocab.Vocabulary),
               'The argument `vocabulary` must be an instance of mxnet.contrib.text.vocab.Vocabulary, got %s.'
               % type(vocabulary).__name__)
        sources = sources if isinstance(sources, list) else [sources]
        for embed in sources:
            _check(isinstance(embed, _TokenEmbedding),
                   'The argument `token_embeddings` must be an instance or a list of instances of '
                   'mxnet.contrib.text.embedding._TokenEmbedding, got %s.' % type(embed).__name__)
        width = sum(embed.vec_len for embed in sources)
        if width == 0:  # MXNet fails in nd.zeros then
            raise MXNetError('Cannot make an embedding of vector length 0 (token_embeddings: %r).' % (sources,))
        tokens = vocabulary.idx_to_token
        table = nd.zeros(shape=(len(tokens), width))
        start = 0
        for embed in sources:
            stop = start + embed.vec_len
            table[0, start:stop] = embed.idx_to_vec[0]
            table[1:, start:stop] = embed.get_vecs_by_tokens(tokens[1:])
            start = stop
        self._vec_len, self._idx_to_vec = width, table
        self._token_to_idx, self._idx_to_token = dict(vocabulary.token_to_idx), list(tokens)
        self._unknown_token = vocabulary.unknown_token
        reserved = vocabulary.reserved_tokens
        self._reserved_tokens = None if reserved is None else reserved[:]

    # ---- public ----------------------------------------------------------------------------------------------------
    vec_len = property(lambda self: self._vec_len, doc="int: the length of each token's vector.")
    idx_to_vec = property(lambda self: self._idx_to_vec,
                          doc='NDArray (len(self), vec_len): row i is the vector of token i.')

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vector of a token (1-D), or the vectors of a list of tokens (2-D); unindexed tokens get the unknown
        vector. With ``lower_case_backup`` a token not indexed as written is looked up lower-cased."""
        single = not isinstance(tokens, list)
        tokens = [tokens] if single else tokens
        if not tokens:  # MXNet's nd.Embedding rejects an empty index array
            raise MXNetError('get_vecs_by_tokens: no tokens given (Operator Embedding inferring shapes failed).')
        lookup = self._token_to_idx
        if lower_case_backup:
            indices = [lookup[t] if t in lookup else lookup.get(t.lower(), C.UNKNOWN_IDX) for t in tokens]
        else:
            indices = [lookup.get(t, C.UNKNOWN_IDX) for t in tokens]
        table = self._idx_to_vec
        vecs = nd.Embedding(nd.array(indices), table, table.shape[0], table.shape[1])
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens, new_vectors):
        """Set the vectors of ``tokens`` (a token, or a list) to the rows of ``new_vectors`` (an NDArray, 1-D or 2-D
        for one token, 2-D for several). The unknown vector changes only if ``unknown_token`` itself is named."""
        _check(self._idx_to_vec is not None, 'The property `idx_to_vec` has not been properly set.')
        if not isinstance(tokens, list) or len(tokens) == 1:
            _check(isinstance(new_vectors, nd.NDArray) and new_vectors.ndim in (1, 2),
                   '`new_vectors` must be a 1-D or 2-D NDArray if `tokens` is a singleton, got %s.'
                   % _describe(new_vectors))
            tokens = tokens if isinstance(tokens, list) else [tokens]
            if new_vectors.ndim == 1:
                new_vectors = nd.expand_dims(new_vectors, axis=0)
        else:
            _check(isinstance(new_vectors, nd.NDArray) and new_vectors.ndim == 2,
                   '`new_vectors` must be a 2-D NDArray if `tokens` is a list of multiple strings, got %s.'
                   % _describe(new_vectors))
        _check(new_vectors.shape == (len(tokens), self.vec_len),
               'The length of new_vectors must be equal to the number of tokens and the width of new_vectors must be '
               'equal to the dimension of embeddings of the glossary: expected %s, got %s.'
               % ((len(tokens), self.vec_len), new_vectors.shape))
        indices = []
        for token in tokens:
            if token not in self._token_to_idx:
                raise MXNetValueError('Token %s is unknown. To update the embedding vector for an unknown token, '
                                      'please specify it explicitly as the `unknown_token` %s in `tokens`. This is to '
                                      'avoid unintended updates.' % (token, self._idx_to_token[C.UNKNOWN_IDX]))
            indices.append(self._token_to_idx[token])
        self._idx_to_vec[nd.array(indices)] = new_vectors


def _describe(x):
    return '%d-D NDArray' % x.ndim if isinstance(x, nd.NDArray) else type(x).__name__


@register
class GloVe(_TokenEmbedding):
    """GloVe vectors (https://nlp.stanford.edu/projects/glove/) from ``<embedding_root>/glove/<pretrained_file_name>``;
    see the module docstring for how a missing file is handled."""

    pretrained_archive_name_sha1 = C.GLOVE_PRETRAINED_FILE_SHA1
    pretrained_file_name_sha1 = C.GLOVE_PRETRAINED_ARCHIVE_SHA1

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        # the archive shares the file's corpus part: glove.<corpus>.<dim>.txt is in glove.<corpus>[...].zip
        corpus = pretrained_file_name.split('.')[1]
        return next(a for a in GloVe.pretrained_archive_name_sha1 if a.split('.')[1] == corpus)

    def __init__(self, pretrained_file_name='glove.840B.300d.txt',
                 embedding_root=os.path.join(data_dir(), 'embeddings'),
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        GloVe._check_pretrained_file_names(pretrained_file_name)
        super().__init__(**kwargs)
        self._load_pretrained(GloVe, pretrained_file_name, embedding_root, init_unknown_vec, vocabulary)


@register
class FastText(_TokenEmbedding):
    """fastText vectors (https://fasttext.cc/) from ``<embedding_root>/fasttext/<pretrained_file_name>``; the
    header line of a ``.vec`` file is skipped with a warning. See the module docstring for a missing file."""

    pretrained_archive_name_sha1 = C.FAST_TEXT_ARCHIVE_SHA1
    pretrained_file_name_sha1 = C.FAST_TEXT_FILE_SHA1

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return os.path.splitext(pretrained_file_name)[0] + '.zip'

    def __init__(self, pretrained_file_name='wiki.simple.vec',
                 embedding_root=os.path.join(data_dir(), 'embeddings'),
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        FastText._check_pretrained_file_names(pretrained_file_name)
        super().__init__(**kwargs)
        self._load_pretrained(FastText, pretrained_file_name, embedding_root, init_unknown_vec, vocabulary)


class CustomEmbedding(_TokenEmbedding):
    """Vectors from a user's text file of lines ``token<elem_delim>v1<elem_delim>...<elem_delim>vk`` read with
    ``encoding``."""

    def __init__(self, pretrained_file_path, elem_delim=' ', encoding='utf8', init_unknown_vec=nd.zeros,
                 vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        if vocabulary is not None:
            self._adopt_vocabulary(vocabulary, [self])


class CompositeEmbedding(_TokenEmbedding):
    """The tokens of ``vocabulary``, each with the vectors of ``token_embeddings`` (one or a list) concatenated."""

    def __init__(self, vocabulary, token_embeddings):  # pylint: disable=super-init-not-called
        self._adopt_vocabulary(vocabulary, token_embeddings)
