"""``mx.gluon.utils``: splitting batches across devices, global-norm clipping, file download and hashing.

Differs from MXNet: ``download`` raises ``MXNetError`` (naming the URL and where to put the file by hand) once its
retries are used up, instead of re-raising the last network exception; it needs ``requests`` only when it must
fetch; with ``overwrite=True`` the fetched file replaces an existing one (MXNet deletes the fresh download when
the old file has no expected SHA-1). ``clip_global_norm`` also accepts float64 arrays (MXNet fails on them) and
raises ``MXNetTypeError`` for mixed dtypes.
"""
import hashlib
import os
import uuid
import warnings

import numpy as np
import torch

from .. import ndarray as _nd
from ..base import MXNetError, MXNetValueError, MXNetTypeError, MXNetAssertionError
from ..ndarray.ndarray import NDArray, _wrap
from ..numpy import multiarray as _mx_np
from ..util import is_np_shape, is_np_array
from ._npf import is_np
from .block import HookHandle  # noqa: F401  (MXNet keeps it here)
from .parameter import _indent, _brief_print_list  # noqa: F401  (MXNet keeps them here)

__all__ = ['split_data', 'split_and_load', 'clip_global_norm', 'check_sha1', 'download', 'replace_file']


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split ``data`` into ``num_slice`` slices along ``batch_axis`` (a list even for one slice); with
    ``even_split`` the size must divide evenly, otherwise the first slices get one extra element."""
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise MXNetValueError(
            "data with shape %s cannot be evenly split into %d slices along axis %d. Use a batch size that's "
            "multiple of %d or set even_split=False to allow uneven partitioning of data."
            % (str(data.shape), num_slice, batch_axis, num_slice))
    step, extras = divmod(size, num_slice)
    bounds = np.cumsum([0] + [step + 1] * extras + [step] * (num_slice - extras)).tolist()
    if batch_axis == 0:
        return [data[bounds[i]:bounds[i + 1]] for i in range(num_slice)]
    if is_np(data):
        lead = (slice(None),) * batch_axis
        return [data[lead + (slice(bounds[i], bounds[i + 1]),)] for i in range(num_slice)]
    return [_nd.slice_axis(data, axis=batch_axis, begin=bounds[i], end=bounds[i + 1]) for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split ``data`` (an NDArray, or array-like made into a float32 NDArray; an ``mx.np`` array under NumPy array
    semantics) along ``batch_axis`` into one slice per context of ``ctx_list`` and copy each slice there."""
    if not isinstance(data, NDArray):
        data = (_mx_np.array if is_np_array() else _nd.array)(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(ctx) for s, ctx in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scale ``arrays`` in place so that their joint 2-norm is at most ``max_norm``; returns the norm before
    clipping: a numpy float32 with ``check_isfinite`` (warning when it is nan/inf), else an NDArray of shape (1,)
    (an ``mx.np`` array for ``mx.np`` arrays; MXNet 1.9.1 raises TypeError for those)."""
    if len(arrays) == 0:
        raise MXNetAssertionError('clip_global_norm: arrays must not be empty')
    dtype = arrays[0].dtype
    for a in arrays:
        if a.dtype != dtype:
            raise MXNetTypeError('clip_global_norm: all arrays must have one dtype, got %s and %s'
                                 % (np.dtype(dtype).name, np.dtype(a.dtype).name))
    ctx = arrays[0].context
    dev = arrays[0]._t.device
    with torch.no_grad():
        squares = []
        for a in arrays:
            flat = a.tostype('default')._t.reshape(-1)
            squares.append(torch.dot(flat, flat).to(dev))
        total = torch.sqrt(torch.stack(squares).sum()).reshape(1)
    total_norm = _wrap(total, ctx)
    if check_isfinite and not np.isfinite(total_norm.asscalar()):
        warnings.warn(UserWarning('nan or inf is detected. Clipping results will be undefined.'), stacklevel=2)
    scale = torch.clamp(max_norm / (total + 1e-8), max=1.0)
    wrap = _mx_np._np_wrap if is_np(arrays[0]) else _wrap
    for a in arrays:
        a *= wrap(scale.to(a._t.device), a.context)
    if check_isfinite:
        return total_norm.asscalar()
    return wrap(total, ctx)


def check_sha1(filename, sha1_hash):
    """True when the SHA-1 of the file's content is ``sha1_hash`` (hex)."""
    sha1 = hashlib.sha1()
    with open(filename, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            sha1.update(chunk)
    return sha1.hexdigest() == sha1_hash


def replace_file(src, dst):
    """Move ``src`` to ``dst`` atomically (``os.replace``); on failure remove ``src`` and raise ``OSError``."""
    try:
        os.replace(src, dst)
    except OSError:
        try:
            os.remove(src)
        except OSError:
            pass
        raise OSError('Moving downloaded temp file - {}, to {} failed. Please retry the download.'
                      .format(src, dst)) from None


def _http_get(url, fname, **kwargs):
    """``requests.get(url, stream=True, **kwargs)``; the one place mxcompat's downloads (gluon.utils.download,
    mx.test_utils.download) reach the network."""
    try:
        import requests  # reason: optional dependency, loaded on first use
    except ImportError:
        raise MXNetError('download: fetching %s needs the requests package (pip install requests), or put the '
                         'file at %s yourself' % (url, fname)) from None
    return requests.get(url, stream=True, **kwargs)


def _to_temp_file(response, fname):
    """``response``'s body written to a new temporary file beside ``fname``; returns its name (the caller moves it
    into place with ``replace_file``, so an interrupted download never leaves a partial ``fname``)."""
    tmp = '{}.{}'.format(fname, uuid.uuid4())
    try:
        with open(tmp, 'wb') as f:
            for chunk in response.iter_content(chunk_size=1024):
                if chunk:
                    f.write(chunk)
    except BaseException:  # (an interrupted transfer leaves nothing behind)
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
    return tmp


def _fetch(url, fname, sha1_hash, verify_ssl, overwrite):
    print('Downloading {} from {}...'.format(fname, url))
    r = _http_get(url, fname, verify=verify_ssl)
    if r.status_code != 200:
        raise MXNetError('Failed downloading url {}'.format(url))
    tmp = _to_temp_file(r, fname)
    if overwrite or not os.path.exists(fname) or (sha1_hash and not check_sha1(fname, sha1_hash)):
        replace_file(tmp, fname)
    else:  # another process finished the same download first
        try:
            os.remove(tmp)
        except OSError:
            pass
        warnings.warn('File {} exists in file system so the downloaded file is deleted'.format(fname))
    if sha1_hash and not check_sha1(fname, sha1_hash):
        raise UserWarning('File {} is downloaded but the content hash does not match. The repo may be outdated or '
                          'download may be incomplete. If the "repo_url" is overridden, consider switching to the '
                          'default repo.'.format(fname))


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """The local path of ``url``'s file: ``path`` (a file, or a folder for the URL's file name; default the
    current folder). The network is used only when the file is absent, ``overwrite`` is set, or its SHA-1
    differs from ``sha1_hash``; then it is fetched with ``requests`` (``retries`` more attempts)."""
    if path is None:
        fname = url.split('/')[-1]
        if not fname:
            raise MXNetAssertionError("Can't construct file-name from this URL. Please set the `path` option "
                                      "manually.")
    else:
        path = os.path.expanduser(path)
        fname = os.path.join(path, url.split('/')[-1]) if os.path.isdir(path) else path
    if retries < 0:
        raise MXNetAssertionError("Number of retries should be at least 0, currently it's {}".format(retries))
    if not verify_ssl:
        warnings.warn('Unverified HTTPS request is being made (verify_ssl=False). '
                      'Adding certificate verification is strongly advised.')
    if not (overwrite or not os.path.exists(fname) or (sha1_hash and not check_sha1(fname, sha1_hash))):
        return fname
    dirname = os.path.dirname(os.path.abspath(fname))
    os.makedirs(dirname, exist_ok=True)
    while True:
        try:
            _fetch(url, fname, sha1_hash, verify_ssl, overwrite)
            return fname
        except Exception as e:  # noqa: BLE001 (retry on any failure, as MXNet)
            retries -= 1
            if retries <= 0:
                raise MXNetError('download: could not fetch %s (%s: %s). To work offline, put the file at %s%s'
                                 % (url, type(e).__name__, e, fname,
                                    ' (sha1 %s)' % sha1_hash if sha1_hash else '')) from e
            print('download failed due to {}, retrying, {} attempt{} left'
                  .format(repr(e), retries, 's' if retries > 1 else ''))


def _get_repo_url():
    """The Gluon dataset/model repository: ``$MXNET_GLUON_REPO`` or MXNet's S3 bucket, ending with '/'."""
    repo_url = os.environ.get('MXNET_GLUON_REPO', 'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/')
    return repo_url if repo_url.endswith('/') else repo_url + '/'


def _get_repo_file_url(namespace, filename):
    """``<repo>/<namespace>/<filename>``."""
    return '{}{}/{}'.format(_get_repo_url(), namespace, filename)


def shape_is_known(shape):
    """True when no dimension of ``shape`` is unknown (0 in MXNet's legacy shape semantics; ``()`` is unknown too);
    a negative dimension raises."""
    if shape is None:
        return False
    unknown = -1 if is_np_shape() else 0
    if len(shape) == 0:
        return unknown == -1
    for dim in shape:
        if dim == unknown:
            return False
        if dim <= unknown:
            raise MXNetAssertionError('shape dimension size cannot be less than {}, while received {}'
                                      .format(unknown, dim))
    return True
