"""``mx.contrib.text``: counting tokens (``utils``), indexing them (``vocab.Vocabulary``) and token embeddings
(``embedding``: GloVe, FastText, CustomEmbedding, CompositeEmbedding), as in MXNet 1.9.

Differs from MXNet: pretrained GloVe/FastText files are read from the embedding root; when one is missing and cannot
be fetched (e.g. offline) an ``MXNetError`` names the file, the folder to put it in and MXNet's URL for it."""
from . import utils  # noqa: F401
from . import vocab  # noqa: F401
from . import embedding  # noqa: F401
