"""File helpers shared by every writer of MXNet files (NDArray files, symbol JSON, checkpoints).

Local writes are atomic: a temporary file in the same directory, fsync, ``os.replace``; an error leaves any
previous file untouched and no temporary file behind. Paths with a scheme (``s3://``, ``hdfs://``,
``memory://`` ...) go through fsspec when it is installed; how atomic that is depends on the filesystem.
"""
import os
import secrets
import tarfile
import zipfile

from .base import MXNetError, MXNetTypeError


class MXNetFileNotFoundError(MXNetError, FileNotFoundError):
    """A file to load does not exist."""


def path_of(fname):
    """(path str, is_remote)."""
    try:
        path = os.fspath(fname)
    except TypeError:
        raise MXNetTypeError('expected a file name (str or os.PathLike), got %s' % type(fname).__name__) from None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if path.startswith('file://'):
        return path[len('file://'):], False
    return path, '://' in path


def get_fsspec(path, action):
    try:
        import fsspec  # reason: optional dependency (remote paths), loaded on first use
    except ImportError:
        raise MXNetError('cannot %s %r: remote paths are handled by fsspec, which is not installed; install fsspec '
                         '(pip install fsspec and the filesystem\'s package, e.g. s3fs)' % (action, path)) from None
    return fsspec


def write_atomic(fname, chunks, what):
    """Write the byte strings ``chunks`` to ``fname``; ``what`` names the operation in errors."""
    path, remote = path_of(fname)
    if remote:
        fsspec = get_fsspec(path, what)
        try:
            with fsspec.open(path, 'wb') as f:
                for c in chunks:
                    f.write(c)
        except OSError as e:
            raise MXNetError('cannot %s %r: %s' % (what, path, e)) from e
        return
    if os.path.islink(path):
        path = os.path.realpath(path)  # replace the link's target, not the link
    directory = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        for _ in range(100):
            tmp = os.path.join(directory, '.%s.%s.tmp' % (os.path.basename(path), secrets.token_hex(6)))
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, 'O_BINARY', 0), 0o666)
                break
            except FileExistsError:
                continue
        else:
            raise FileExistsError('could not create a temporary file in %s' % directory)
        with os.fdopen(fd, 'wb') as f:
            for c in chunks:
                f.write(c)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        tmp = None
    except FileNotFoundError as e:
        raise MXNetFileNotFoundError('cannot %s %r: %s' % (what, os.fspath(fname), e)) from e
    except OSError as e:
        raise MXNetError('cannot %s %r: %s' % (what, os.fspath(fname), e)) from e
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    try:  # make the rename itself durable; not all platforms/filesystems allow opening a directory
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass




def read_all(fname, what):
    """The bytes of ``fname`` (local or fsspec); errors name the file."""
    path, remote = path_of(fname)
    try:
        if remote:
            with get_fsspec(path, what).open(path, 'rb') as f:
                return f.read()
        with open(path, 'rb') as f:
            return f.read()
    except FileNotFoundError as e:
        raise MXNetFileNotFoundError('cannot %s %r: no such file' % (what, os.fspath(fname))) from e
    except OSError as e:
        raise MXNetError('cannot %s %r: %s' % (what, os.fspath(fname), e)) from e


def write_text(fname, text, what):
    write_atomic(fname, [text.encode('utf-8')], what)


def read_text(fname, what):
    return read_all(fname, what).decode('utf-8')


def extract_archive(archive, folder):
    """Unpack ``archive`` into ``folder``: a zip file by its ``.zip`` name, otherwise a tar (plain or compressed)
    whose members are filtered as plain data where Python has extraction filters (no absolute paths, links out of
    ``folder`` or device files)."""
    if str(archive).endswith('.zip'):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(folder)
        return
    with tarfile.open(archive) as tar:
        try:
            tar.extractall(folder, filter='data')
        except TypeError:  # Python without extraction filters
            tar.extractall(folder)
